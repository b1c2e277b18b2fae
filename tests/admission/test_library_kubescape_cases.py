"""Kubescape cel-admission-library's own test tables, run through vap-lsp's admission engine.

The library's authors run each `controls/C-XXXX/tests.json` case against a real cluster
(`scripts/run-control-tests.py`, CI on minikube v1.31.1): the case's template from
`test-resources/`, changed by `scripts/change-yaml-field.py` with its `field_change_list`, is sent
with `kubectl --dry-run=server apply` (a CREATE, namespace `default`) under the control's policy,
`test-resources/policy-binding.yaml` (or the case's `binding_template`) renamed for it and
`test-resources/default-control-configuration.yaml` (or `param_template`) as its params. A case
passes when:

- `pass`: kubectl succeeds;
- `fail`: kubectl fails and its error names the policy;
- `warn`: kubectl succeeds and a warning names the policy.

Here the same object goes through `prepare(...).admit` (what `vap-lsp run` does) and the verdict
must be the library's. Cases that cannot agree offline, or whose expectation a real cluster
contradicts, are strict xfails below, each with its reason.
"""

from __future__ import annotations

import copy
import json
import re
from pathlib import Path
from typing import Any

import pytest
import yaml

from vap_lsp.admission.api import AdmissionRequestInput, AdmissionResult, PolicyInputs, prepare
from vap_lsp.admission.engine import PreparedInputs
from vap_lsp.schema.store import available_versions

LIBRARY = Path(__file__).parent.parent / "fixtures" / "libraries" / "kubescape-cel-admission-library"
RESOURCES = LIBRARY / "test-resources"
if not (LIBRARY / "controls" / "C-0001" / "tests.json").is_file():
    pytest.skip(
        f"the library's test tables are not in {LIBRARY} (see PROVENANCE.md)", allow_module_level=True
    )
KUBERNETES_VERSION = "1.31"  # the library's CI: minikube v1.31.1 (.github/workflows/main.yaml)

# Cases that cannot agree offline or whose expectation a real cluster contradicts: (control,
# case name) → reason. Strict: one that starts agreeing fails until it is taken off this list.
XFAIL: dict[tuple[str, str], str] = {}


# --- scripts/change-yaml-field.py, faithfully --------------------------------------------------

_INDEX = re.compile(r"\[\d+\]")
_NAME = re.compile(r"[a-zA-Z]\w*")  # a prefix match there (`re.match`): `app.kubernetes.io/...`


def _key(field: str) -> int | str:
    return int(field[1:-1]) if _INDEX.fullmatch(field) else field


def _grow(lst: list[Any], index: int) -> None:
    if len(lst) <= index:
        lst += [None] * (index - len(lst) + 1)


def apply_field(data: Any, path: str, text: str) -> None:
    """`apply_field`: the value is JSON when it parses as JSON, else the text; the path splits on
    `.`, `[n]` indexes a list; missing containers are created as the next step needs."""
    value: Any
    try:
        value = json.loads(text)
    except ValueError:
        value = text
    fields = path.split(".")
    for f in fields:
        if not _NAME.match(f) and not _INDEX.fullmatch(f):
            raise ValueError("Invalid field name: " + f)
    root = data
    for i, f in enumerate(fields[:-1]):
        key = _key(f)
        if not isinstance(root, dict | list):
            raise ValueError(f"cannot descend past {'.'.join(fields[:i])} in {path}")
        missing: Any = [] if _INDEX.fullmatch(fields[i + 1]) else {}
        if isinstance(root, list):
            if not isinstance(key, int):
                raise ValueError(f"expected a list index for {f} in {path}")
            _grow(root, key)
            if root[key] is None:
                root[key] = missing
            root = root[key]
        else:
            if isinstance(key, int):
                raise ValueError(f"cannot index {f} into a mapping in {path}")
            if root.get(f) is None:
                root[f] = missing
            root = root[f]
    last = _key(fields[-1])
    if isinstance(root, list):
        if not isinstance(last, int):
            raise ValueError(f"expected a list index for {fields[-1]} in {path}")
        _grow(root, last)
        root[last] = value
    elif isinstance(root, dict):
        root[fields[-1]] = value
    else:
        raise ValueError(f"cannot set {path}: its parent holds a scalar")


def changed(template: Any, changes: list[str]) -> Any:
    """The template with `field=value` changes applied, as the script writes it (yaml.dump) and
    kubectl reads it back."""
    data = copy.deepcopy(template)
    for arg in changes:
        if arg.count("=") != 1:
            raise ValueError("Invalid argument: missing '=' in " + arg)
        path, text = arg.split("=")
        apply_field(data, path, text)
    return yaml.safe_load(yaml.dump(data, default_flow_style=False))


def test_field_change_syntax() -> None:
    """The script's path syntax: `[n]` indexes (and grows) lists, names descend into mappings,
    missing levels are created from the next step, values are JSON when they parse."""
    pod = {"spec": {"containers": [{"name": "c"}]}}
    out = changed(
        pod,
        [
            "spec.containers.[0].resources.requests.memory=128Mi",
            "spec.containers.[0].securityContext.runAsUser=1000",
            "spec.hostNetwork=true",
            "spec.initContainers.[1].name=late",
            'spec.volumes=[{"name":"v","hostPath":{"path":"/"}}]',
            "metadata.labels.app.kubernetes.io/name=x",
        ],
    )
    assert out == {
        "spec": {
            "containers": [
                {
                    "name": "c",
                    "resources": {"requests": {"memory": "128Mi"}},
                    "securityContext": {"runAsUser": 1000},
                }
            ],
            "hostNetwork": True,
            "initContainers": [None, {"name": "late"}],
            "volumes": [{"name": "v", "hostPath": {"path": "/"}}],
        },
        "metadata": {"labels": {"app": {"kubernetes": {"io/name": "x"}}}},
    }
    assert pod == {"spec": {"containers": [{"name": "c"}]}}
    with pytest.raises(ValueError):
        changed(pod, ["spec.containers.name=x"])


# --- the cases -----------------------------------------------------------------------------------


def _yaml(path: Path) -> Any:
    return yaml.safe_load(path.read_text(encoding="utf-8"))


def _cases() -> list[Any]:
    out: list[Any] = []
    for tests in sorted(LIBRARY.glob("controls/*/tests.json")):
        control = tests.parent.name
        for case in json.loads(tests.read_text(encoding="utf-8")):
            reason = XFAIL.get((control, case["name"]))
            marks = [pytest.mark.xfail(strict=True, reason=reason)] if reason else []
            out.append(pytest.param(control, case, id=f"{control}: {case['name']}", marks=marks))
    return out


CASES = _cases()

_prepared: dict[tuple[str, str, str, str], tuple[PreparedInputs, str]] = {}


def _setup(control: str, case: dict[str, Any], version: str) -> tuple[PreparedInputs, str]:
    """The control's policy with the case's binding and params (renamed as the runner does), and
    the ControlConfiguration CRD it applies first; prepared once per combination."""
    binding_template = case.get("binding_template", "policy-binding.yaml")
    param_template = case.get("param_template", "default-control-configuration.yaml")
    key = (control, binding_template, param_template, version)
    if key not in _prepared:
        policy = _yaml(LIBRARY / "controls" / control / "policy.yaml")
        name = policy["metadata"]["name"]
        binding = changed(
            _yaml(RESOURCES / binding_template),
            [f"spec.policyName={name}", f"metadata.name={name}-binding", f"spec.paramRef.name={name}-params"],
        )
        params = changed(_yaml(RESOURCES / param_template), [f"metadata.name={name}-params"])
        crd = _yaml(LIBRARY / "configuration" / "policy-configuration-definition.yaml")
        inputs = PolicyInputs.from_objects([crd, params, binding, policy])
        _prepared[key] = (prepare(inputs, kubernetes_version=version), name)
    return _prepared[key]


def verdict(result: AdmissionResult, policy: str) -> str:
    """What the runner concludes from kubectl's exit code and stderr: `pass`, `fail` (denied by
    this policy), `warn` (allowed with this policy's warning), or why none of those holds."""
    if not result.allowed:
        messages = [d.message for d in result.denials]
        return "fail" if any(policy in m for m in messages) else f"rejected otherwise: {messages}"
    if any(policy in w for w in result.warnings):
        return "warn"
    return "pass"


def agrees(got: str, expected: str) -> bool:
    """The runner's test: `pass` only needs kubectl to succeed, a warning does not fail it."""
    return got == expected or (expected == "pass" and got == "warn")


def admit_case(
    control: str, case: dict[str, Any], version: str = KUBERNETES_VERSION, obj: dict[str, Any] | None = None
) -> tuple[str, AdmissionResult]:
    """The case's object (or `obj`) created, as `kubectl --dry-run=server apply` does."""
    prepared, policy = _setup(control, case, version)
    if obj is None:
        obj = changed(_yaml(RESOURCES / case["template"]), case.get("field_change_list", []))
    result = prepared.admit(AdmissionRequestInput("CREATE", obj, dry_run=True))
    return verdict(result, policy), result


@pytest.mark.parametrize(("control", "case"), CASES)
def test_library_case(control: str, case: dict[str, Any]) -> None:
    got, result = admit_case(control, case)
    assert agrees(got, case["expected"]), json.dumps(result.to_json(), indent=1, default=str)[:3000]
    # Every denial is a validation's verdict, none an error (a `no such key` on a field the server
    # defaults would deny too, and the runner, which only looks for the policy's name, would not
    # tell them apart).
    errors = ("resulted in error", "compilation error", "failed to configure", "failed messageExpression")
    assert [d.detail for d in result.denials if any(e in d.detail for e in errors)] == []
    # Idempotent: the object as admission saw it (defaulted, filled in) gets the same verdict.
    assert result.evaluated is not None
    assert admit_case(control, case, obj=result.evaluated)[0] == got


@pytest.mark.parametrize("version", sorted({available_versions()[0], available_versions()[-1]}))
def test_the_tables_hold_for_the_oldest_and_newest_versions(version: str) -> None:
    """The library's CI runs 1.31 only; its expectations hold on the oldest and newest Kubernetes
    versions vap-lsp knows too (each version's defaulters, CEL libraries and validation)."""
    disagreements = []
    for param in CASES:
        control, case = param.values
        got = admit_case(control, case, version)[0]
        if not agrees(got, case["expected"]) and (control, case["name"]) not in XFAIL:
            disagreements.append(f"{control}: {case['name']}: {got}")
    assert disagreements == []


# --- beyond the tables: verdicts that hold only because the server defaults ------------------------

C0075 = "C-0075"  # image with a latest/no/letters-only tag needs imagePullPolicy: Always


def _containers(obj: dict[str, Any]) -> list[dict[str, Any]]:
    spec = obj["spec"]
    spec = spec.get("jobTemplate", {}).get("spec", spec)
    return list(spec.get("template", {}).get("spec", spec)["containers"])


@pytest.mark.parametrize(
    ("template", "changes", "expected", "pull_policy"),
    [
        # SetDefaults_Container (pkg/apis/core/v1/defaults.go): no tag or `:latest` → Always.
        ("pod.yaml", [], "pass", "Always"),
        ("deployment.yaml", [], "pass", "Always"),
        ("job.yaml", [], "pass", "Always"),
        ("daemonset.yaml", [], "pass", "Always"),
        ("pod.yaml", ["spec.containers.[0].image=test:latest"], "pass", "Always"),
        # Any other tag → IfNotPresent, which C-0075 denies for a letters-only tag.
        ("pod.yaml", ["spec.containers.[0].image=test:onlyletters"], "fail", "IfNotPresent"),
        (
            "deployment.yaml",
            ["spec.template.spec.containers.[0].image=test:onlyletters"],
            "fail",
            "IfNotPresent",
        ),
    ],
)
def test_c0075_without_image_pull_policy_is_judged_on_the_default(
    template: str, changes: list[str], expected: str, pull_policy: str
) -> None:
    """The library's templates omit `imagePullPolicy` (its C-0075 cases all set it): on a cluster
    the policy sees the defaulted value (`has(container.imagePullPolicy)` is true), so the untouched
    `image: alpine` templates pass C-0075; evaluated as written, they would be denied."""
    got, result = admit_case(C0075, {"template": template, "field_change_list": changes})
    assert got == expected
    assert result.evaluated is not None
    assert [c["imagePullPolicy"] for c in _containers(result.evaluated)] == [pull_policy]


def test_the_fixture_has_the_library_tables() -> None:
    """The tables are committed with the library (PROVENANCE.md): 60 controls, 628 cases."""
    assert len(list(LIBRARY.glob("controls/*/tests.json"))) == 60
    assert len(CASES) == 628


def test_vap_lsp_run_gives_the_same_verdicts(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`vap-lsp run` on the files the runner applies (CRD, params, binding, policy) and the object
    it sends: exit 0 where the library expects `pass`, 1 with the policy's denial where `fail`
    (C-0075's table, whose objects set `imagePullPolicy`, and its untouched Pod template)."""
    from vap_lsp.cli.main import main

    policy = LIBRARY / "controls" / C0075 / "policy.yaml"
    name = _yaml(policy)["metadata"]["name"]
    binding = changed(
        _yaml(RESOURCES / "policy-binding.yaml"),
        [f"spec.policyName={name}", f"metadata.name={name}-binding", f"spec.paramRef.name={name}-params"],
    )
    params = changed(
        _yaml(RESOURCES / "default-control-configuration.yaml"), [f"metadata.name={name}-params"]
    )
    setup = tmp_path / "setup.yaml"
    setup.write_text(yaml.dump_all([binding, params]), encoding="utf-8")
    crd = LIBRARY / "configuration" / "policy-configuration-definition.yaml"
    cases = json.loads((LIBRARY / "controls" / C0075 / "tests.json").read_text(encoding="utf-8"))
    cases.append({"name": "untouched Pod template", "template": "pod.yaml", "expected": "pass"})
    got = []
    for case in cases:
        obj = tmp_path / "object.yaml"
        obj.write_text(
            yaml.dump(changed(_yaml(RESOURCES / case["template"]), case.get("field_change_list", [])))
        )
        argv = ["run", "--no-config", "--kubernetes-version", KUBERNETES_VERSION, "--object", str(obj)]
        code = main([*argv, str(crd), str(setup), str(policy)])
        out = capsys.readouterr().out
        got.append("pass" if code == 0 else "fail" if code == 1 and name in out else f"exit {code}: {out}")
    assert got == [case["expected"] for case in cases]
