"""A first run in a real repository (issue 25): rendered bundles, kustomize patches,
configuration mistakes, standard input — each as the user met it, through the CLI."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from vap_lsp.cli.main import main


def _write(root: Path, name: str, text: str) -> Path:
    path = root / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


# ------------------------------------------------------------------------- rendered bundles

RENDERED_BUNDLE = """\
apiVersion: v1
kind: ConfigMap
metadata:
  name: inferenceservice-config
data:
  explainers: "{{ quoted: not a template }}"
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: controller
spec:
  template:
    spec:
      containers:
        - name: manager
          args:
            - --storage-uri={{.Name}}
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata:
  name: replicas
spec:
  failurePolicy: Sometimes
  matchConstraints:
    resourceRules:
      - apiGroups: [apps]
        apiVersions: [v1]
        operations: [CREATE]
        resources: [deployments]
  validations:
    - expression: "object.spec.replicas <= 5"
"""


def test_rendered_bundle_with_a_marker_in_a_plain_scalar_is_checked(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _write(tmp_path, "bundle.yaml", RENDERED_BUNDLE)
    assert main(["check", "--format", "json", str(path)]) == 1  # the policy is checked
    (report,) = json.loads(capsys.readouterr().out)["files"]
    found = {(d["code"], d["range"]["start"]["line"] + 1) for d in report["diagnostics"]}
    assert ("FieldValueNotSupported", 25) in found  # failurePolicy: Sometimes
    # One note, at the marker in the plain scalar (line 18), not at the quoted one (line 6).
    assert ("template-marker", 18) in found
    assert [c for c, _ in found].count("template-marker") == 1
    assert all(c != "template" for c, _ in found)


def test_a_template_that_breaks_the_yaml_is_skipped_at_the_construct(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    chart = _write(
        tmp_path,
        "templates/policy.yaml",
        'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\ndata:\n  a: "{{ quoted }}"\n'
        "{{- if .Values.enabled }}\n  b: c\n{{- end }}\n",
    )
    assert main(["check", str(chart), "--show-notes"]) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"{chart}:7:1: information: file is a Helm/Go template ({{{{ ... }}}} at line 7)")


# -------------------------------------------------------------------------- kustomize patches

KUBEBUILDER = Path(__file__).resolve().parents[1] / "fixtures" / "kubebuilder"


def _kubebuilder_tree(tmp_path: Path) -> Path:
    import shutil

    root = tmp_path / "project"
    shutil.copytree(KUBEBUILDER, root)
    return root


def test_kubebuilder_tree_without_policies_has_no_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # The user's situation: `check .` in a kubebuilder project gave 89 errors, all on CRD patches
    # (webhook_in_*, cainjection_in_*: no group, names or versions) and a `$patch: delete` overlay.
    root = _kubebuilder_tree(tmp_path)
    (root / "config" / "overlays" / "prod" / "kustomization.yaml").unlink()  # `$patch` alone says it
    assert main(["check", "--format", "json", str(root)]) == 0
    files = json.loads(capsys.readouterr().out)["files"]
    assert [d for f in files for d in f["diagnostics"]] == []
    checked = {Path(f["path"]).relative_to(root).as_posix() for f in files}
    assert "config/crd/patches/cainjection_in_cronjobs.yaml" in checked  # checked, not skipped


def _codes(capsys: pytest.CaptureFixture[str], root: Path) -> set[tuple[str, int, str, str]]:
    out: set[tuple[str, int, str, str]] = set()
    for f in json.loads(capsys.readouterr().out)["files"]:
        for d in f["diagnostics"]:
            where = Path(f["path"]).relative_to(root).as_posix()
            out.add((where, d["range"]["start"]["line"] + 1, d["code"], d["message"]))
    return out


def test_a_patch_is_checked_as_a_partial_object(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = _kubebuilder_tree(tmp_path)
    patch = root / "config" / "crd" / "patches" / "webhook_in_cronjobs.yaml"
    text = patch.read_text(encoding="utf-8")
    patch.write_text(
        text.replace("    strategy: Webhook\n", "    strategy: Webhook\n    stratgy: None\n").replace(
            "      - v1\n", "      - v1\n  preserveUnknownFields: [no]\n"
        ),
        encoding="utf-8",
    )
    assert main(["check", "--format", "json", str(root)]) == 1
    assert _codes(capsys, root) == {
        (
            "config/crd/patches/webhook_in_cronjobs.yaml",
            9,
            "unknown-field",
            'unknown field "spec.conversion.stratgy"',
        ),
        (
            "config/crd/patches/webhook_in_cronjobs.yaml",
            18,
            "type-mismatch",
            "json: cannot unmarshal array into Go struct field CustomResourceDefinitionSpec"
            ".spec.preserveUnknownFields of type bool",
        ),
    }


def test_a_json6902_patch_path_that_cannot_exist(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = _kubebuilder_tree(tmp_path)
    patch = root / "config" / "crd" / "patches" / "preserve_unknown_fields.yaml"
    patch.write_text(
        "- op: add\n  path: /spec/preserveUnknownField\n  value: false\n"
        "- op: replace\n  path: /spec/versions/0/served\n  value: yes please\n"
        "- op: upsert\n  path: /spec/group\n",
        encoding="utf-8",
    )
    assert main(["check", "--format", "json", str(root)]) == 1
    where = "config/crd/patches/preserve_unknown_fields.yaml"
    assert _codes(capsys, root) == {
        (
            where,
            2,
            "json-patch",
            'path "/spec/preserveUnknownField" cannot exist in a CustomResourceDefinition: '
            'unknown field "spec.preserveUnknownField"',
        ),
        (where, 6, "type-mismatch", "json: cannot unmarshal string into Go value of type bool"),
        (
            where,
            7,
            "json-patch",
            "unexpected JSON patch operation 'upsert' "
            "(expected one of add, remove, replace, move, copy, test)",
        ),
    }


# ------------------------------------------------------------------- configuration mistakes

BINDING = """\
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata:
  name: demo
spec:
  policyName: demo-policy
  validationActions: [Deny, Warn]
"""


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    status = main(list(argv))
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def test_config_naming_a_missing_file_stops_the_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _write(tmp_path, "b.yaml", BINDING)
    status, out, err = _run(capsys, "check", "--config", str(tmp_path / "nope.yaml"), str(path))
    assert (status, out) == (2, "")
    assert err == f"vap-lsp: --config {tmp_path / 'nope.yaml'}: no such file or directory\n"


def test_config_and_no_config_together_is_a_usage_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _write(tmp_path, "b.yaml", BINDING)
    with pytest.raises(SystemExit) as exited:
        main(["check", "--config", "x.yaml", "--no-config", str(path)])
    assert exited.value.code == 2
    assert "argument --no-config: not allowed with argument --config" in capsys.readouterr().err


def test_pyproject_with_a_toml_syntax_error_is_reported_at_its_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _write(tmp_path, "pyproject.toml", '[tool.vap-lsp]\nignore = ["FieldValueInvalid"\nexclude = []\n')
    path = _write(tmp_path, "b.yaml", BINDING)
    status, out, err = _run(capsys, "check", str(path))
    assert (status, out) == (2, "")
    assert err.startswith(f"vap-lsp: {tmp_path / 'pyproject.toml'}:3:1: TOML syntax error: ")


def test_a_toml_file_given_to_config_is_read_as_toml(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = _write(tmp_path, "ci/vap-lsp.toml", '[tool.vap-lsp]\nignore = ["FieldValueInvalid"]\n')
    path = _write(tmp_path, "b.yaml", BINDING)
    assert _run(capsys, "check", "--config", str(config), str(path))[:2] == (0, "")
    # A plain TOML file (no [tool.vap-lsp] table) holds the keys at its top level.
    config.write_text('ignore = ["FieldValueInvalid"]\n', encoding="utf-8")
    assert _run(capsys, "check", "--config", str(config), str(path))[:2] == (0, "")


def test_broken_yaml_configuration_says_file_line_col(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _write(tmp_path, ".vap-lsp.yaml", "ignore: [a, b\nexclude: []\n")
    path = _write(tmp_path, "b.yaml", BINDING)
    status, out, err = _run(capsys, "check", str(path))
    assert (status, out) == (2, "")
    assert err.startswith(f"vap-lsp: {tmp_path / '.vap-lsp.yaml'}:2:8: YAML syntax error: ")
    assert "\n" not in err.rstrip("\n")  # one line, not ruamel's multi-line report


def test_kubernetes_version_written_as_a_number_says_to_quote_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _write(tmp_path, ".vap-lsp.yaml", "kubernetes-version: 1.30\n")
    path = _write(tmp_path, "b.yaml", BINDING)
    status, out, err = _run(capsys, "check", str(path))
    assert (status, out) == (2, "")
    assert err == (
        f"vap-lsp: {tmp_path / '.vap-lsp.yaml'}: kubernetes-version: 1.3 is a number (1.30 is read as "
        '1.3): quote it, e.g. kubernetes-version: "1.30"\n'
    )


def test_unknown_and_unchangeable_codes_in_flags_are_warned_about(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _write(tmp_path, "b.yaml", BINDING)
    status, out, err = _run(
        capsys,
        "check",
        "--ignore",
        "FieldValueInvalide",
        "--severity",
        "yaml-syntax=warning",
        "--severity",
        "unkown-field=warning",
        str(path),
    )
    assert status == 1 and "FieldValueInvalid" in out  # the misspelt code hid nothing
    assert (
        "vap-lsp: warning: --ignore: unknown code 'FieldValueInvalide' (did you mean 'FieldValueInvalid'?)"
        in err
    )
    assert "vap-lsp: warning: --severity: unknown code 'unkown-field' (did you mean 'unknown-field'?)" in err
    assert "vap-lsp: warning: --severity: yaml-syntax cannot be ignored or changed" in err


def test_unknown_code_in_an_inline_comment_is_noted_at_the_comment(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _write(
        tmp_path,
        "b.yaml",
        BINDING.replace("[Deny, Warn]\n", "[Deny, Warn]  # vap-lsp: ignore[FieldValueInvalide]\n"),
    )
    status, out, _ = _run(capsys, "check", "--show-notes", str(path))
    assert status == 1
    assert out.splitlines()[1] == (
        f"{path}:7:54: information: vap-lsp: ignore[FieldValueInvalide]: no diagnostic has this code, "
        "so it hides nothing (did you mean 'FieldValueInvalid'?) [unknown-code]"
    )


def test_a_named_file_that_exclude_skips_is_said(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _write(tmp_path, ".vap-lsp.yaml", "exclude: [generated]\n")
    path = _write(tmp_path, "generated/b.yaml", BINDING)
    status, out, err = _run(capsys, "check", str(path))
    assert (status, out) == (0, "")
    assert (
        f"vap-lsp: warning: {path}: not checked: excluded by `exclude` in {tmp_path / '.vap-lsp.yaml'}" in err
    )
    assert "0 files checked" in err


def test_bad_output_file_and_version_stop_before_the_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _write(tmp_path, "b.yaml", BINDING)
    status, out, err = _run(capsys, "check", "--output-file", str(tmp_path / "no" / "r.json"), str(path))
    assert (status, out) == (2, "")
    assert err == f"vap-lsp: --output-file {tmp_path / 'no' / 'r.json'}: No such file or directory\n"
    status, out, err = _run(capsys, "check", "--kubernetes-version", "1.99", str(path))
    assert (status, out) == (2, "")
    assert "1.99" in err and "checked" not in err  # no summary: nothing ran


def test_configuration_files_in_a_checked_folder_are_not_checked_files(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _write(tmp_path, ".vap-lsp.yaml", "kubernetes-version: '1.33'\n")
    _write(tmp_path, "b.yaml", BINDING.replace("[Deny, Warn]", "[Deny]"))
    status, _, err = _run(capsys, "check", str(tmp_path))
    assert status == 0
    assert "1 file checked" in err


# --------------------------------------------------------------------------- standard input


def test_check_dash_reads_standard_input(tmp_path: Path) -> None:
    # `helm template ... | vap-lsp check -`: a subprocess, with the stream on its stdin.
    import subprocess
    import sys

    done = subprocess.run(
        [sys.executable, "-m", "vap_lsp.cli.main", "check", "-"],
        input=BINDING,
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=120,
    )
    assert done.returncode == 1
    assert done.stdout.startswith("<stdin>:7:22: error: spec.validationActions: Invalid value")
    assert "1 file checked: 1 error" in done.stderr
    named = subprocess.run(
        [sys.executable, "-m", "vap_lsp.cli.main", "check", "--stdin-filename", "chart.yaml", "-"],
        input=RENDERED_BUNDLE,
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=120,
    )
    assert named.returncode == 1
    assert named.stdout.startswith("chart.yaml:")


# ---------------------------------------------------------------------------- run and test

MAX_REPLICAS = """\
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: max-replicas}
spec:
  failurePolicy: Fail
  matchConstraints:
    resourceRules:
      - {apiGroups: [apps], apiVersions: [v1], operations: [CREATE], resources: [deployments]}
  validations:
    - expression: object.spec.replicas <= 3
    - expression: "authorizer.group('').resource('secrets').check('get').allowed()"
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {name: max-replicas}
spec: {policyName: max-replicas, validationActions: [Deny]}
"""

DEPLOYMENT = (
    "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: a, namespace: shop}\n"
    "spec: {replicas: 2, selector: {matchLabels: {app: a}}, "
    "template: {metadata: {labels: {app: a}}, spec: {containers: [{name: c, image: 'nginx:1'}]}}}\n"
)


def test_authorizer_rules_with_a_misspelt_key_are_rejected(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # `resource:` instead of `resources:` used to leave the list out, which allows every resource.
    policy = _write(tmp_path, "policy.yaml", MAX_REPLICAS)
    obj = _write(tmp_path, "deploy.yaml", DEPLOYMENT)
    rules = _write(
        tmp_path, "rules.yaml", '- {user: alice, verbs: [get], apiGroups: [""], resource: [pods]}\n'
    )
    argv = ["run", str(policy), "--object", str(obj), "--user", "alice", "--authorizer-rules", str(rules)]
    status, out, err = _run(capsys, *argv)
    assert (status, out) == (2, "")
    assert err == (
        f"vap-lsp: {rules}: rule 0: unknown key 'resource' (did you mean 'resources'?) (a rule has user, "
        "group, serviceAccount, verbs, apiGroups, resources, subresources, namespaces, names, paths)\n"
    )
    rules.write_text(
        '- {user: alice, verbs: [get], apiGroups: [""], resources: [secrets]}\n', encoding="utf-8"
    )
    assert _run(capsys, *argv)[0] == 0


def test_run_shows_object_as_required_and_explains_user_and_group(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["run", "policy.yaml"])
    assert exited.value.code == 2
    assert "the following arguments are required: --object" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["run", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "--object FILE [--old-object FILE]" in text  # not [--object FILE]: it is required
    assert "--user NAME the requesting user: request.userInfo.username" in text
    assert "--group NAME a group of the requesting user: request.userInfo.groups" in text


def test_test_policy_that_selects_nothing_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _write(
        tmp_path,
        "policy.yaml",
        MAX_REPLICAS.split("  validations:")[0] + "  validations:\n"
        "    - expression: object.spec.replicas <= 3\n---\n" + MAX_REPLICAS.split("---\n")[1],
    )
    _write(
        tmp_path,
        "max.vaptest.yaml",
        "apiVersion: vap-lsp.io/v1alpha1\nkind: AdmissionTest\npolicies: [policy.yaml]\ncases:\n"
        f"  - name: two replicas pass\n    object: {{{DEPLOYMENT.strip().replace(chr(10), ', ')}}}\n"
        "    expect: admit\n",
    )
    status, out, err = _run(capsys, "test", str(tmp_path), "--policy", "max-replica")
    assert (status, out) == (2, "")
    assert err == (
        "vap-lsp: --policy max-replica: no test case is about this policy (did you mean 'max-replicas'?) "
        "(the test files test: max-replicas)\n"
    )
    status, out, _ = _run(capsys, "test", str(tmp_path), "--policy", "max-replicas")
    assert status == 0 and out.rstrip().endswith("1 passed, 0 failed")


# -------------------------------------------------------------------------------- versions

MAP_V1BETA1 = """\
apiVersion: admissionregistration.k8s.io/v1beta1
kind: MutatingAdmissionPolicy
metadata:
  name: add-label
spec:
  matchConstraints:
    resourceRules:
      - {apiGroups: [apps], apiVersions: [v1], operations: [CREATE], resources: [deployments]}
  reinvocationPolicy: Never
  mutations:
    - patchType: ApplyConfiguration
      applyConfiguration:
        expression: "Object{metadata: Object.metadata{labels: {'a': 'b'}}}"
"""


@pytest.mark.parametrize(
    "api_version,kubernetes,needs",
    [
        # kube_features.go: MutatingAdmissionPolicy alpha 1.32 and beta 1.34, both off by default;
        # controlplane: admissionregistration.k8s.io/v1alpha1 and v1beta1 are disabled by default.
        (
            "v1alpha1",
            "1.32",
            "--runtime-config=admissionregistration.k8s.io/v1alpha1=true and the feature gate "
            "MutatingAdmissionPolicy=true (alpha, off by default)",
        ),
        (
            "v1beta1",
            "1.34",
            "--runtime-config=admissionregistration.k8s.io/v1beta1=true and the feature gate "
            "MutatingAdmissionPolicy=true (beta, off by default)",
        ),
        (
            "v1alpha1",
            "1.35",
            "--runtime-config=admissionregistration.k8s.io/v1alpha1=true and the feature gate "
            "MutatingAdmissionPolicy=true (beta, off by default)",
        ),
        # Served as v1 from 1.36 (kubernetes/api admissionregistration/v1 introduced=1.36).
        (
            "v1beta1",
            "1.36",
            "--runtime-config=admissionregistration.k8s.io/v1beta1=true; "
            "admissionregistration.k8s.io/v1 is served by default",
        ),
    ],
)
def test_mutating_policy_api_off_by_default_is_noted(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], api_version: str, kubernetes: str, needs: str
) -> None:
    path = _write(tmp_path, "map.yaml", MAP_V1BETA1.replace("v1beta1", api_version))
    status, out, _ = _run(capsys, "check", "--show-notes", "--kubernetes-version", kubernetes, str(path))
    assert status == 0
    assert out == (
        f"{path}:1:13: information: MutatingAdmissionPolicy admissionregistration.k8s.io/{api_version} is "
        f"off by default in Kubernetes {kubernetes}: the API server serves it only with {needs} "
        "[api-off-by-default]\n"
    )


def test_run_and_test_say_a_missing_config_before_running(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    policy = _write(tmp_path, "policy.yaml", MAX_REPLICAS)
    obj = _write(tmp_path, "deploy.yaml", DEPLOYMENT)
    missing = tmp_path / "nope.yaml"
    status, out, err = _run(capsys, "run", str(policy), "--object", str(obj), "--config", str(missing))
    assert (status, out, err) == (2, "", f"vap-lsp: --config {missing}: no such file or directory\n")
    status, out, err = _run(capsys, "test", str(tmp_path), "--config", str(missing))
    assert (status, out, err) == (2, "", f"vap-lsp: --config {missing}: no such file or directory\n")


def test_commented_patch_entries_are_read_past_prose_comments() -> None:
    from vap_lsp.analysis.model.kustomize import _references

    text = (
        "resources:\n- bases/a.yaml\n#- ../webhook/manifests.yaml\npatches:\n"
        "# Note: uncomment to enable the webhook\n#- path: patches/webhook_in_a.yaml\n"
        "#replacements:\n#- source.yaml\n"
    )
    assert list(_references(text)) == [("patches/webhook_in_a.yaml", None)]
