"""Configuration: `.vap-lsp.yaml` / `[tool.vap-lsp]`, found from each checked file upward, and the
command-line flags that override it (`vap-lsp check`)."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from vap_lsp.analysis.diagnostics import Severity
from vap_lsp.cli.main import main
from vap_lsp.config import (
    ConfigResolver,
    Overrides,
    configs_for,
    crd_source,
    find_config_file,
    glob_matches,
    load_config,
    project_root,
)

# Every line of this binding is wrong in its own way (lines 7, 8, 9, 10).
BINDING = """\
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata:
  name: demo
spec:
  policyName: demo
  validationActions: [Deny, Warn]
  paramRef:
    name: limits
    selector: {}
"""
# 7: FieldValueInvalid (Deny with Warn), 8: FieldValueRequired (parameterNotFoundAction),
# 9 and 10: FieldValueForbidden (name and selector).


def _write(root: Path, name: str, text: str) -> Path:
    path = root / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    return path


def _check(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, list[str], str]:
    status = main(["check", *args])
    captured = capsys.readouterr()
    # "path:line:col: severity: message [code]" → "line severity code"
    rows = []
    for line in captured.out.splitlines():
        path, line_no, _, rest = line.split(":", 3)
        rows.append(
            f"{Path(path).name}:{line_no} {rest.split(':', 1)[0].strip()} {rest.rsplit('[', 1)[1][:-1]}"
        )
    return status, rows, captured.err


def test_without_configuration_everything_is_reported(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _write(tmp_path, "b.yaml", BINDING)
    status, rows, _ = _check(capsys, str(tmp_path / "b.yaml"))
    assert status == 1
    assert rows == [
        "b.yaml:7 error FieldValueInvalid",
        "b.yaml:8 error FieldValueRequired",
        "b.yaml:9 error FieldValueForbidden",
        "b.yaml:10 error FieldValueForbidden",
    ]


def test_vap_lsp_yaml_ignores_and_regrades(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _write(
        tmp_path,
        ".vap-lsp.yaml",
        """\
        ignore: [FieldValueRequired]
        severity:
          FieldValueForbidden: warning
          FieldValueInvalid: "off"
        """,
    )
    _write(tmp_path, "deep/er/b.yaml", BINDING)
    status, rows, _ = _check(capsys, str(tmp_path / "deep/er/b.yaml"))
    assert rows == ["b.yaml:9 warning FieldValueForbidden", "b.yaml:10 warning FieldValueForbidden"]
    assert status == 0  # only warnings left


def test_pyproject_tool_section_with_per_file_ignores_and_exclude(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _write(
        tmp_path,
        "pyproject.toml",
        """\
        [project]
        name = "x"

        [tool.vap-lsp]
        exclude = ["vendor", "*.generated.yaml"]
        per-file-ignores = { "legacy/**" = ["FieldValueForbidden", "FieldValueInvalid"] }
        """,
    )
    _write(tmp_path, "legacy/old/b.yaml", BINDING)
    _write(tmp_path, "vendor/b.yaml", BINDING)
    _write(tmp_path, "x.generated.yaml", BINDING)
    status, rows, err = _check(capsys, str(tmp_path))
    # A folder was checked, so the missing policy counts too.
    assert rows == ["b.yaml:6 warning policy-not-found", "b.yaml:8 error FieldValueRequired"]
    assert status == 1
    assert "1 file checked" in err


def test_a_pyproject_without_the_section_does_not_stop_the_search(tmp_path: Path) -> None:
    _write(tmp_path, ".vap-lsp.yaml", "ignore: [FieldValueRequired]\n")
    _write(tmp_path, "sub/pyproject.toml", "[project]\nname = 'x'\n")
    _write(tmp_path, "sub/b.yaml", BINDING)
    assert find_config_file(tmp_path / "sub" / "b.yaml") == tmp_path / ".vap-lsp.yaml"


def test_the_nearest_file_wins_and_yaml_beats_pyproject(tmp_path: Path) -> None:
    _write(tmp_path, ".vap-lsp.yaml", "ignore: [a]\n")
    _write(tmp_path, "sub/pyproject.toml", "[tool.vap-lsp]\nignore = ['b']\n")
    _write(tmp_path, "sub/.vap-lsp.yaml", "ignore: [c]\n")
    assert find_config_file(tmp_path / "sub" / "x.yaml") == tmp_path / "sub" / ".vap-lsp.yaml"
    assert find_config_file(tmp_path / "x.yaml") == tmp_path / ".vap-lsp.yaml"


def test_flags_override_the_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _write(tmp_path, ".vap-lsp.yaml", "ignore: [FieldValueRequired]\nseverity: {FieldValueForbidden: hint}\n")
    _write(tmp_path, "b.yaml", BINDING)
    status, rows, _ = _check(
        capsys,
        str(tmp_path / "b.yaml"),
        "--severity",
        "FieldValueRequired=warning",  # shows an ignored code again, as a warning
        "--ignore",
        "FieldValueInvalid,FieldValueForbidden",
    )
    assert rows == ["b.yaml:8 warning FieldValueRequired"]
    assert status == 0
    status, rows, _ = _check(capsys, str(tmp_path / "b.yaml"), "--no-config")
    assert len(rows) == 4 and status == 1


def test_explicit_config_applies_to_every_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    config = _write(tmp_path, "ci/strict.yaml", "ignore: [FieldValueForbidden, FieldValueInvalid]\n")
    _write(tmp_path, "b.yaml", BINDING)
    _, rows, _ = _check(capsys, str(tmp_path / "b.yaml"), "--config", str(config))
    assert rows == ["b.yaml:8 error FieldValueRequired"]


def test_kubernetes_version_from_the_file_and_the_flag(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    policy = """\
    apiVersion: admissionregistration.k8s.io/v1beta1
    kind: MutatingAdmissionPolicy
    metadata: {name: m}
    spec:
      reinvocationPolicy: Never
      matchConstraints:
        resourceRules:
          - {apiGroups: [apps], apiVersions: [v1], operations: [CREATE], resources: [deployments]}
      mutations:
        - patchType: JSONPatch
          jsonPatch: {expression: "[JSONPatch{op: 'test', path: '/metadata', value: {}}]"}
    """
    _write(tmp_path, ".vap-lsp.yaml", "kubernetes-version: '1.31'\n")
    _write(tmp_path, "m.yaml", policy)
    _, rows, _ = _check(capsys, str(tmp_path / "m.yaml"))
    assert "m.yaml:1 error not-served" in rows  # 1.31 serves MutatingAdmissionPolicy only as v1alpha1
    _, rows, _ = _check(capsys, str(tmp_path / "m.yaml"), "--kubernetes-version", "1.34")
    assert "m.yaml:1 error not-served" not in rows


def test_bad_configuration_exits_2_and_says_why(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _write(tmp_path, ".vap-lsp.yaml", "kubernetes-verson: '1.31'\nseverity: {FieldValueRequired: loud}\n")
    _write(tmp_path, "b.yaml", BINDING)
    status, rows, err = _check(capsys, str(tmp_path / "b.yaml"))
    assert status == 2
    assert "unknown key 'kubernetes-verson' (did you mean 'kubernetes-version'?)" in err
    assert "FieldValueRequired: 'loud' is not error, warning, information, hint or off" in err
    # A configuration mistake stops the run before it starts (as ruff does): results under a
    # configuration other than the one the user wrote would be misleading.
    assert rows == []


def test_unknown_codes_and_syntax_errors_are_warned_about_not_fatal(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _write(tmp_path, ".vap-lsp.yaml", "ignore: [yaml-syntax, no-such-code]\n")
    _write(tmp_path, "broken.yaml", "a: [\n")
    status, rows, err = _check(capsys, str(tmp_path / "broken.yaml"))
    assert rows == ["broken.yaml:2 error yaml-syntax"]  # never hidden
    assert status == 1
    assert "unknown code 'no-such-code'" in err
    assert "yaml-syntax cannot be ignored" in err


def test_crds_and_samples_resolve_relative_to_the_file(tmp_path: Path) -> None:
    path = _write(
        tmp_path, "conf/.vap-lsp.yaml", "crds: [../crds, extra/crd.yaml]\nsamples: ['samples/**/*.yaml']\n"
    )
    config = load_config(path)
    assert config.crds == ((tmp_path / "crds").resolve(), (tmp_path / "conf/extra/crd.yaml").resolve())
    assert config.samples == (str(tmp_path / "conf" / "samples/**/*.yaml"),)
    assert config.errors == ()


def test_resolver_rereads_a_changed_file(tmp_path: Path) -> None:
    path = _write(tmp_path, ".vap-lsp.yaml", "ignore: [a]\n")
    resolver = ConfigResolver()
    assert resolver.for_path(tmp_path / "x.yaml").ignore == {"a"}
    path.write_text("ignore: [a, b]\n", encoding="utf-8")
    assert resolver.for_path(tmp_path / "x.yaml").ignore == {"a", "b"}


def test_overrides_merge_into_analysis_settings(tmp_path: Path) -> None:
    path = _write(
        tmp_path, ".vap-lsp.yaml", "kubernetes-version: '1.32'\nseverity: {cel-type-check: error}\n"
    )
    config = load_config(path)
    settings = config.analysis_settings(tmp_path / "p.yaml", Overrides(kubernetes_version="1.34"))
    assert settings.kubernetes_version == "1.34"
    assert dict(settings.rules.severity) == {"cel-type-check": Severity.ERROR}


@pytest.mark.parametrize(
    ("pattern", "path", "matches"),
    [
        ("vendor", "vendor/a.yaml", True),
        ("vendor", "x/vendor/a.yaml", True),
        ("vendor/", "vendor/a.yaml", True),
        ("*.tmpl.yaml", "charts/x.tmpl.yaml", True),
        ("charts/*/templates", "charts/web/templates/d.yaml", True),
        ("charts/*/templates", "other/charts/web/templates/d.yaml", False),
        ("legacy/**", "legacy/a/b/c.yaml", True),
        ("**/test-*.yaml", "a/b/test-1.yaml", True),
        ("a.yaml", "b.yaml", False),
        ("[ab].yaml", "b.yaml", True),
    ],
)
def test_glob_semantics(pattern: str, path: str, matches: bool) -> None:
    assert glob_matches(pattern, path) is matches


def test_configs_for_paths_are_distinct_in_order_and_folders_count_their_own(tmp_path: Path) -> None:
    # a/.vap-lsp.yaml applies to a/x.yaml and to the folder a itself; b has none above it but the root's.
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    (tmp_path / "a" / ".vap-lsp.yaml").write_text("crds: [crds]\n", encoding="utf-8")
    (tmp_path / "pyproject.toml").write_text('[tool.vap-lsp]\ncrds = ["vendor"]\n', encoding="utf-8")
    configs = configs_for(
        ConfigResolver(snapshot=True),
        [tmp_path / "b" / "y.yaml", tmp_path / "a", tmp_path / "a" / "x.yaml", tmp_path / "b"],
    )
    assert [(c.path, c.crds) for c in configs] == [
        (tmp_path / "pyproject.toml", (tmp_path / "vendor",)),
        (tmp_path / "a" / ".vap-lsp.yaml", (tmp_path / "a" / "crds",)),
    ]
    assert crd_source(configs[0]) != crd_source(configs[1])
    assert configs_for(ConfigResolver(isolated=True), [tmp_path / "a"]) == []


def test_the_project_of_a_lone_file_is_its_repository(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """What the language server takes as the root when the client gives none (issue 33)."""
    monkeypatch.setattr(Path, "home", lambda: tmp_path / "home")
    repo = tmp_path / "src" / "repo"
    (repo / ".git").mkdir(parents=True)
    _write(repo, "policies/.vap-lsp.yaml", "ignore: [optional-field]\n")  # a folder's own configuration
    _write(repo, "policies/deep/p.yaml", "")
    assert project_root(repo / "policies" / "deep" / "p.yaml") == repo  # the repository, not the config
    worktree = tmp_path / "src" / "worktree"
    _write(worktree, ".git", "gitdir: /elsewhere/.git/worktrees/w\n")  # a worktree's .git is a file
    assert project_root(_write(worktree, "p.yaml", "")) == worktree
    # No repository: the nearest configuration or pyproject.toml, as `check .` there.
    plain = tmp_path / "src" / "plain"
    _write(plain, "pyproject.toml", "[project]\nname = 'x'\n")
    assert project_root(_write(plain, "sub/p.yaml", "")) == plain
    assert project_root(_write(tmp_path, "src/nothing/p.yaml", "")) is None
    # A dotfiles repository in the home folder does not make the home one project.
    (tmp_path / "home" / ".git").mkdir(parents=True)
    assert project_root(_write(tmp_path, "home/work/p.yaml", "")) is None
