"""`vap-lsp cel`: one expression compiled in the admission environment and evaluated (issue #27).

Exit codes: 0 a value, 1 an evaluation error, 2 a compile error or bad usage. `actual` is the
runtime cost as cel-go's `CostTracker` counts it with Kubernetes' cost functions; `estimate` the
static estimate of the checked expression (no constant folding: `[1, 2, 3]` costs its 10).
"""

from __future__ import annotations

import json
import textwrap
from pathlib import Path
from typing import Any

import pytest

from vap_lsp.cli.main import main


def _write(tmp_path: Path, name: str, text: str) -> str:
    path = tmp_path / name
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    return str(path)


def _json(capsys: pytest.CaptureFixture[str], *argv: str, rc: int) -> dict[str, Any]:
    assert main(["cel", *argv, "--format", "json"]) == rc
    out: dict[str, Any] = json.loads(capsys.readouterr().out)
    return out


POD = """\
apiVersion: v1
kind: Pod
metadata: {name: web, namespace: prod}
spec:
  containers:
    - name: app
      image: nginx
"""


def test_a_value_prints_value_type_and_runtime_cost(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["cel", "[1, 2, 3].map(x, x * 2)"]) == 0
    assert capsys.readouterr().out == (
        # estimate: two list creations (20), 3 × (`@result + [x * 2]`: 14), the result (1)
        "[2, 4, 6]\ntype: list(int)\ncost: 43 (runtime; estimate 63..63)\n"
    )


def test_json_shape(capsys: pytest.CaptureFixture[str]) -> None:
    # cel-go: constants cost 0, `size()` 1, `+` 1.
    assert _json(capsys, "'abc'.size() + 1", rc=0) == {
        "value": 4,
        "error": None,
        "type": "int",
        "cost": {"actual": 2, "estimate": {"min": 2, "max": 2}},
    }


def test_evaluation_error_exits_1(capsys: pytest.CaptureFixture[str]) -> None:
    assert _json(capsys, "1 / 0", rc=1) == {
        "value": None,
        "error": "division by zero",
        "type": "int",
        "cost": {"actual": 1, "estimate": {"min": 1, "max": 1}},
    }
    assert main(["cel", "1 / 0"]) == 1
    assert capsys.readouterr().out.startswith("error: division by zero\n")


def test_compile_error_exits_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["cel", "x + 1"]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert "undeclared reference to 'x'" in captured.err
    got = _json(capsys, "x + 1", rc=2)
    assert got["type"] is None and got["cost"] == {"actual": None, "estimate": None}
    assert "undeclared reference to 'x'" in got["error"]


def test_a_failing_constant_conversion_is_a_compile_error(capsys: pytest.CaptureFixture[str]) -> None:
    # OptOptimize folds `int('x')` while the program is built, and that fails (compile.go)
    got = _json(capsys, "int('x') + 1", rc=2)
    assert got["error"] == "program instantiation failed: type conversion error from 'string' to 'int'"
    assert got["cost"] == {"actual": None, "estimate": None}


def test_kind_types_object(capsys: pytest.CaptureFixture[str]) -> None:
    """Typed from the schema: a misspelt field is a compile error; untyped, `dyn` accepts it."""
    assert main(["cel", "object.spec.replicaz", "--kind", "apps/v1/Deployment"]) == 2
    assert "undefined field 'replicaz'" in capsys.readouterr().err
    assert _json(capsys, "object.spec.replicas", "--kind", "apps/v1/Deployment", rc=0)["type"] == "int"
    assert _json(capsys, "object.spec.replicaz", rc=0)["type"] == "dyn"


def test_kind_types_the_check_but_the_program_runs_as_admission_runs_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The server types `object` from the kind only in its type checker; the program it runs is
    compiled with `object` as dyn over JSON-shaped objects, where a timestamp field is a string
    (string-at-admission): converting it works, comparing it as a timestamp does not."""
    secret = _write(tmp_path, "s.yaml", "apiVersion: v1\nkind: Secret\nmetadata: {name: s, namespace: d}\n")
    kind = ("--kind", "v1/Secret", "--object", secret)
    converted = "timestamp(object.metadata.creationTimestamp) < timestamp('2999-01-01T00:00:00Z')"
    assert _json(capsys, converted, *kind, rc=0)["value"] is True
    compared = _json(
        capsys, "object.metadata.creationTimestamp < timestamp('2999-01-01T00:00:00Z')", *kind, rc=1
    )
    assert (compared["type"], compared["error"]) == ("bool", "no such overload")


def test_object_of_another_kind_is_usage_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pod = _write(tmp_path, "pod.yaml", POD)
    assert main(["cel", "true", "--kind", "apps/v1/Deployment", "--object", pod]) == 2
    assert capsys.readouterr().err == "vap-lsp: --object is v1 Pod, not the --kind apps/v1/Deployment\n"
    assert main(["cel", "true", "--kind", "apps/v1/Deployment", "--old-object", pod]) == 2


def test_bad_kind_is_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["cel", "true", "--kind", "Pod"]) == 2
    assert "expected VERSION/KIND or GROUP/VERSION/KIND" in capsys.readouterr().err
    assert main(["cel", "true", "--kind", "v1/Podz"]) == 2
    assert "not a kind of Kubernetes" in capsys.readouterr().err


def test_crd_kind(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    crd = _write(
        tmp_path,
        "crd.yaml",
        """\
        apiVersion: apiextensions.k8s.io/v1
        kind: CustomResourceDefinition
        metadata: {name: widgets.example.com}
        spec:
          group: example.com
          names: {kind: Widget, plural: widgets, singular: widget, listKind: WidgetList}
          scope: Namespaced
          versions:
            - name: v1
              served: true
              storage: true
              schema:
                openAPIV3Schema:
                  type: object
                  properties:
                    spec:
                      type: object
                      properties:
                        size: {type: integer, default: 3}
        """,
    )
    widget = _write(
        tmp_path, "w.yaml", "apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w}\nspec: {}\n"
    )
    # Defaulted from the CRD's schema, as `run` decodes the object.
    got = _json(
        capsys, "object.spec.size", "--kind", "example.com/v1/Widget", "--crd", crd, "--object", widget, rc=0
    )
    assert (got["value"], got["type"]) == (3, "int")
    assert main(["cel", "object.spec.sise", "--kind", "example.com/v1/Widget", "--crd", crd]) == 2


def test_object_is_defaulted_as_run_defaults_it(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pod = _write(tmp_path, "pod.yaml", POD)
    got = _json(
        capsys, "object.spec.containers[0].imagePullPolicy", "--kind", "v1/Pod", "--object", pod, rc=0
    )
    assert got["value"] == "Always"  # SetDefaults_Container: `nginx` has no tag, so :latest
    got = _json(capsys, "object.spec.restartPolicy", "--object", pod, rc=0)
    assert got["value"] == "Always"


SERVICE = """\
apiVersion: v1
kind: Service
metadata: {generateName: web-, namespace: prod}
spec:
  type: NodePort
  selector: {app: web}
  ports: [{port: 80}]
"""


def test_object_is_filled_in_as_validating_admission_sees_it_on_create(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # As `run` evaluates it: rest.BeforeCreate names it from generateName and gives it a uid; the
    # Service registry's BeginCreate allocates the cluster IP and node ports before validating
    # admission (placeholders, named in a note on stderr in text output).
    svc = _write(tmp_path, "svc.yaml", SERVICE)
    expr = (
        "object.metadata.name.startsWith('web-') && has(object.metadata.uid) && "
        "object.spec.clusterIP != '' && object.spec.ports[0].nodePort >= 30000"
    )
    assert _json(capsys, expr, "--kind", "v1/Service", "--object", svc, rc=0)["value"] is True
    assert main(["cel", "object.spec.ipFamilyPolicy", "--object", svc]) == 0
    out, err = capsys.readouterr()
    assert out.startswith('"SingleStack"\n')
    assert "note: spec.clusterIP, spec.clusterIPs[0], spec.ports[0].nodePort: placeholders" in err
    # On UPDATE (rest.BeforeUpdate, Service BeginUpdate) the stored uid and allocations are kept.
    stored = """\
    apiVersion: v1
    kind: Service
    metadata: {name: web-1, namespace: prod, uid: u-1}
    spec:
      type: NodePort
      clusterIP: 10.0.0.7
      selector: {app: web}
      ports: [{port: 80, nodePort: 30080}]
    """
    old = _write(tmp_path, "old.yaml", stored)
    new = _write(tmp_path, "new.yaml", SERVICE.replace("generateName: web-", "name: web-1"))
    expr = "object.spec.clusterIP + ' ' + object.metadata.uid + ' ' + string(object.spec.ports[0].nodePort)"
    got = _json(capsys, expr, "--object", new, "--old-object", old, rc=0)
    assert got["value"] == "10.0.0.7 u-1 30080"


def test_old_object_and_request_operation(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pod = _write(tmp_path, "pod.yaml", POD)
    old = _write(tmp_path, "old.yaml", POD.replace("nginx", "nginx:1.0"))
    expr = "request.operation + ' ' + oldObject.spec.containers[0].image"
    assert _json(capsys, expr, "--object", pod, "--old-object", old, rc=0)["value"] == "UPDATE nginx:1.0"
    assert _json(capsys, "request.operation + ' ' + string(object == null)", "--old-object", old, rc=0)[
        "value"
    ] == ("DELETE true")
    assert _json(capsys, "request.namespace", "--object", pod, rc=0)["value"] == "prod"


def test_request_file_is_bound_as_is(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    req = _write(tmp_path, "req.yaml", "operation: CONNECT\nuserInfo: {username: alice}\n")
    got = _json(capsys, "request.userInfo.username + ' ' + request.operation", "--request", req, rc=0)
    assert got["value"] == "alice CONNECT"


@pytest.mark.parametrize(
    ("request_text", "message"),
    [
        ("operation: 5\n", "operation: expected a string, found 5"),
        ("userInfo: alice\n", "userInfo: expected an object, found 'alice'"),
        ("userInfo: {groups: [1]}\n", "userInfo.groups[0]: expected a string, found 1"),
        ("kind: {group: apps, kind: [x]}\n", "kind.kind: expected a string, found ['x']"),
        ("dryRun: 'yes'\n", "dryRun: expected a boolean, found 'yes'"),
        ("userInfo: {extra: {scopes: a}}\n", "userInfo.extra.scopes: expected a list, found 'a'"),
    ],
)
def test_a_request_that_is_no_admission_request_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], request_text: str, message: str
) -> None:
    # compile.go's BuildRequestType: what the server binds always has these types, so a file
    # that does not is bad usage rather than a value the expression would see
    req = _write(tmp_path, "req.yaml", request_text)
    assert main(["cel", "request.operation", "--request", req]) == 2
    assert capsys.readouterr().err == f"vap-lsp: --request {req}: {message}\n"


def test_params_declared_only_when_given(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    params = _write(
        tmp_path, "p.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: p}\ndata: {max: '3'}\n"
    )
    assert _json(capsys, "int(params.data.max)", "--params", params, rc=0)["value"] == 3
    assert main(["cel", "params.data.max"]) == 2  # no paramKind, no `params`: as the server compiles it
    assert "undeclared reference to 'params'" in capsys.readouterr().err


def test_namespace_object(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    ns = _write(
        tmp_path, "ns.yaml", "apiVersion: v1\nkind: Namespace\nmetadata: {name: prod, labels: {env: prod}}\n"
    )
    pod = _write(tmp_path, "pod.yaml", POD)
    got = _json(capsys, "namespaceObject.metadata.labels", "--namespace-object", ns, "--object", pod, rc=0)
    # CreateNamespaceObject adds the name label, as for `run`.
    assert got["value"] == {"env": "prod", "kubernetes.io/metadata.name": "prod"}
    # Without an object there is no namespace to bind: not evaluated (not a made-up null).
    assert "notEvaluated" in _json(capsys, "namespaceObject == null", rc=0)


def test_authorizer_rules(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    expr = "authorizer.group('').resource('pods').namespace('prod').check('get').allowed()"
    got = _json(capsys, expr, rc=0)
    assert got["value"] is False  # as `run`: without rules nothing is allowed
    rules = _write(tmp_path, "rules.yaml", "- user: system:anonymous\n  verbs: [get]\n  resources: [pods]\n")
    assert _json(capsys, expr, "--authorizer-rules", rules, rc=0)["value"] is True
    bad = _write(tmp_path, "bad.yaml", "- user: x\n  resource: [pods]\n")
    assert main(["cel", expr, "--authorizer-rules", bad]) == 2


def test_kubernetes_version(capsys: pytest.CaptureFixture[str]) -> None:
    # Kubernetes' quantity library is in the environment of every version vap-lsp knows.
    assert (
        _json(capsys, "quantity('1Gi').isGreaterThan(quantity('1Mi'))", "--kubernetes-version", "1.30", rc=0)[
            "value"
        ]
        is True
    )
    assert main(["cel", "true", "--kubernetes-version", "0.1"]) == 2


def test_unreadable_file_is_usage_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["cel", "true", "--object", str(tmp_path / "missing.yaml")]) == 2
    assert "missing.yaml" in capsys.readouterr().err
    two = _write(tmp_path, "two.yaml", "a: 1\n---\nb: 2\n")
    assert main(["cel", "true", "--params", two]) == 2
    assert "expected one mapping" in capsys.readouterr().err


def test_per_call_cost_limit(capsys: pytest.CaptureFixture[str]) -> None:
    got = _json(
        capsys,
        "[1, 2, 3, 4, 5, 6, 7, 8, 9, 10].all(a, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10].all(b, "
        "[1, 2, 3, 4, 5, 6, 7, 8, 9, 10].all(c, authorizer.path('/x').check('get').allowed() || true)))",
        rc=1,
    )
    assert got["error"] is not None and "cost" in got["error"]


NESTED = "object.spec.groups.all(g, g.members.all(m, m != ''))"


def _groups_crd(tmp_path: Path, bounds: str) -> str:
    """A CRD whose `spec.groups[*].members` are strings, with `bounds` on both lists."""
    return _write(
        tmp_path,
        "groups-crd.yaml",
        f"""\
        apiVersion: apiextensions.k8s.io/v1
        kind: CustomResourceDefinition
        metadata: {{name: teams.example.com}}
        spec:
          group: example.com
          names: {{kind: Team, plural: teams, singular: team, listKind: TeamList}}
          scope: Namespaced
          versions:
            - name: v1
              served: true
              storage: true
              schema:
                openAPIV3Schema:
                  type: object
                  properties:
                    spec:
                      type: object
                      properties:
                        groups:
                          type: array
                          {bounds}
                          items:
                            type: object
                            properties:
                              members:
                                type: array
                                {bounds}
                                items: {{type: string, maxLength: 16}}
        """,
    )


def test_estimate_of_a_nested_comprehension_over_unbounded_lists(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Without maxItems each list holds as many items as a 3 MiB request can: (3 MiB − 2) / 3
    = 1,048,575 (the minimum serialized item, `{}` or `""`, plus a comma; schemas.go
    `estimateMaxArrayItemsFromMinSize`)."""
    crd = _groups_crd(tmp_path, "x-kubernetes-list-type: atomic")
    got = _json(capsys, NESTED, "--kind", "example.com/v1/Team", "--crd", crd, rc=0)  # no object: estimated
    # Per member: the loop condition `@not_strictly_false(@result)` (2) and the step
    # `@result && m != ''` (1..2: `!=` compares by the smaller size, '' is 0) = 3..4; the inner
    # `all` adds `g.members` (2) and its result (1): 3 + 1,048,575 × 4 = 4,194,303 at most. Per
    # group: 2 + 1 + that = 4,194,306; the outer range `object.spec.groups` (3) and result (1).
    inner = 3 + 1_048_575 * 4
    assert got["cost"]["estimate"] == {"min": 4, "max": 4 + 1_048_575 * (3 + inner)}


def test_estimate_with_max_items_on_the_crd(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    crd = _groups_crd(tmp_path, "maxItems: 10")
    got = _json(capsys, NESTED, "--kind", "example.com/v1/Team", "--crd", crd, rc=0)
    inner = 3 + 10 * 4
    assert got["cost"]["estimate"] == {"min": 4, "max": 4 + 10 * (3 + inner)}
    assert main(["cel", NESTED, "--kind", "example.com/v1/Team", "--crd", crd]) == 0
    assert capsys.readouterr().out.endswith("cost: estimate 4..464\n")


@pytest.mark.parametrize(
    ("expression", "value"),
    [
        # Quantity.String(): canonical, in the format it was parsed in (add/sub keep the receiver's)
        ("quantity('1Mi')", "1Mi"),
        ("quantity('1.5')", "1500m"),
        ("quantity('1500')", "1500"),
        ("quantity('12e3')", "12e3"),
        ("quantity('1.5e3')", "1500"),
        ("quantity('0.5e0')", "500e-3"),
        ("quantity('1Ki').add(976)", "2000"),
        ("quantity('50k').add(quantity('20'))", "50020"),
        ("quantity('1Gi').sub(quantity('512Mi'))", "512Mi"),
        # blang/semver Version.String()
        ("semver('1.2.3-rc.1+build.5')", "1.2.3-rc.1+build.5"),
        ("semver('v01.2', true)", "1.2.0"),
        # no JSON form: a description, never a Python object's repr
        ("format.named('dns1123Label').value()", "format DNS1123Label"),
        ("authorizer", "authorizer"),
        ("authorizer.group('apps').resource('deployments')", "resource check apps/deployments"),
        ("authorizer.path('/healthz').check('get')", "decision: denied (no rule allows this request)"),
    ],
)
def test_values_without_a_json_type_print_as_their_text(
    capsys: pytest.CaptureFixture[str], expression: str, value: str
) -> None:
    assert _json(capsys, expression, rc=0)["value"] == value


def test_non_finite_doubles_print_as_proto_json_does(capsys: pytest.CaptureFixture[str]) -> None:
    # protojson writes a google.protobuf.Value's NaN and infinities as strings: the output stays JSON
    listed = "[dyn(1.0 / 0.0), dyn(-1.0 / 0.0), dyn(0.0 / 0.0), dyn('é')]"
    assert main(["cel", listed, "--format", "json"]) == 0
    out = capsys.readouterr().out
    assert "NaN," not in out and "Infinity," not in out
    assert json.loads(out)["value"] == ["Infinity", "-Infinity", "NaN", "é"]
    assert main(["cel", "[dyn(1.0 / 0.0), dyn('é')]"]) == 0
    assert capsys.readouterr().out.startswith('["Infinity", "é"]\n')


@pytest.mark.parametrize(("text", "found"), [("- 1\n- 2\n", "found a list"), ("3\n", "found a scalar")])
def test_an_object_is_a_mapping(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str, found: str
) -> None:
    path = _write(tmp_path, "o.yaml", text)
    assert main(["cel", "object", "--object", path]) == 2
    assert capsys.readouterr().err == f"vap-lsp: --object {path}: expected a mapping (an object), {found}\n"


# --- `cel` reads what `run` reads, and evaluates only what was given (issue 33) -------------------

SAMPLES = Path(__file__).resolve().parents[2] / "examples" / "tests" / "samples.yaml"


def test_a_file_of_several_objects_gives_its_first_or_the_one_picked(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """`run --object examples/tests/samples.yaml` admits its five objects; `cel` refused the file."""
    assert main(["cel", "object.kind + ' ' + object.metadata.name", "--object", str(SAMPLES)]) == 0
    out, err = capsys.readouterr()
    assert out.startswith('"Namespace enforced"\n')
    assert err == (
        f"note: --object {SAMPLES} holds 5 objects: evaluated with the first "
        "(--object-index N picks another)\n"
    )
    got = _json(capsys, "object.metadata.name", "--object", str(SAMPLES), "--object-index", "4", rc=0)
    assert got["value"] == "with-team"
    assert main(["cel", "true", "--object", str(SAMPLES), "--object-index", "5"]) == 2
    assert capsys.readouterr().err == f"vap-lsp: --object-index 5: {SAMPLES} holds 5 objects (0 to 4)\n"
    assert main(["cel", "true", "--object-index", "1"]) == 2
    assert "give --object" in capsys.readouterr().err


def test_a_list_and_an_admission_review_are_read_as_run_reads_them(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "web"}, "spec": {"containers": []}}
    listed = _write(tmp_path, "list.json", json.dumps({"apiVersion": "v1", "kind": "List", "items": [pod]}))
    assert _json(capsys, "object.metadata.name", "--object", listed, rc=0)["value"] == "web"
    config = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c", "namespace": "d"}}
    review = {
        "apiVersion": "admission.k8s.io/v1",
        "kind": "AdmissionReview",
        "request": {
            "operation": "UPDATE",
            "userInfo": {"username": "alice"},
            "object": {**config, "data": {"k": "2"}},
            "oldObject": {**config, "data": {"k": "1"}},
        },
    }
    path = _write(tmp_path, "review.json", json.dumps(review))
    expr = (
        "request.userInfo.username + ' ' + request.operation + ' ' + oldObject.data.k + '>' + object.data.k"
    )
    assert _json(capsys, expr, "--object", path, rc=0)["value"] == "alice UPDATE 1>2"


def test_without_an_object_an_expression_that_reads_one_is_compiled_and_estimated(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """`cel --kind v1/Service 'object.spec.type …'` printed `error: no such key: spec` and exited
    1 for an expression that compiles, with a note on the cluster IP placeholders of an object
    nobody gave. Without an object it says so, with the type and the estimate, and exits 0."""
    assert main(["cel", "object.spec.type == 'ClusterIP'", "--kind", "v1/Service"]) == 0
    assert capsys.readouterr() == (
        "not evaluated: it reads object, and no object was given (--object, or --old-object for a DELETE)\n"
        "type: bool\n"
        "cost: estimate 4..4\n",
        "",
    )
    got = _json(
        capsys, "request.operation == 'CREATE' && authorizer.requestResource.check('get').allowed()", rc=0
    )
    assert got["value"] is None and got["cost"]["actual"] is None
    assert got["notEvaluated"].startswith("it reads request, authorizer.requestResource, and no object")
    # What was given is evaluated: nothing read comes from an object, or the request was given.
    assert "notEvaluated" not in _json(capsys, "1 + 2", rc=0)
    # A compile error is still one.
    assert main(["cel", "object.spec.typo", "--kind", "v1/Service"]) == 2
    assert "undefined field 'typo'" in capsys.readouterr().err


def test_the_playground_sees_the_generated_name_as_validating_admission_does(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pod = _write(tmp_path, "pod.yaml", POD.replace("{name: web, namespace: prod}", "{generateName: web-}"))
    expr = "request.name == object.metadata.name && request.name.startsWith('web-')"
    assert _json(capsys, expr, "--object", pod, rc=0)["value"] is True
