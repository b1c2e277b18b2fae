"""The startup analyser: a second process whose diagnostics are the engine's own, or none.

`vap-lsp serve` spawns it so that the first diagnostics do not wait for this process's engine
import (`vap_lsp.server.startup_analyser`). These tests run the real process.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest

from vap_lsp.analysis.diagnostics import Diagnostic
from vap_lsp.analysis.engine import analyse_text
from vap_lsp.analysis.model.workspace import LoneDocumentIndex, WorkspaceIndex
from vap_lsp.analysis.settings import AnalysisSettings
from vap_lsp.analysis.suppress import CodeRules
from vap_lsp.server.startup_analyser import StartupAnalyser

EXAMPLES = sorted((Path(__file__).parents[2] / "examples").glob("*/*.yaml"))


@pytest.fixture()
def analyser(monkeypatch: pytest.MonkeyPatch) -> Iterator[StartupAnalyser]:
    monkeypatch.setenv("VAP_LSP_STARTUP_ANALYSER", "1")  # also on a one-CPU machine
    spawned = StartupAnalyser.spawn()
    assert spawned is not None
    yield spawned
    spawned.close()


def _own(text: str, settings: AnalysisSettings, uri: str) -> list[Diagnostic]:
    return list(analyse_text(text, settings, workspace=WorkspaceIndex(), uri=uri).diagnostics)


def test_its_diagnostics_are_the_engines_for_every_example(analyser: StartupAnalyser) -> None:
    compared = 0
    for path in EXAMPLES:
        text = path.read_text(encoding="utf-8")
        uri = path.as_uri()
        own = _own(text, AnalysisSettings(), uri)
        # Alone (no workspace folders, no CRD settings), every result is usable.
        assert analyser.diagnostics(uri, text, AnalysisSettings(), crds_elsewhere=False) == own, path.name
        index = LoneDocumentIndex()
        analyse_text(text, AnalysisSettings(), workspace=index, uri=uri)
        answer = analyser.diagnostics(uri, text, AnalysisSettings(), crds_elsewhere=True)
        assert answer == (None if index.depends else own), path.name
        compared += 1
    assert compared >= 8  # valid, broken (YAML, Helm, fields, bindings, MAP) and test inputs


def test_it_uses_the_settings_the_server_gives(analyser: StartupAnalyser) -> None:
    text = (Path(__file__).parents[2] / "examples" / "broken" / "policy-field-errors.yaml").read_text()
    codes = {d.code for d in _own(text, AnalysisSettings(), "file:///p.yaml")}
    hidden = sorted(codes)[0]
    settings = AnalysisSettings("1.31", CodeRules(ignore=frozenset({hidden})))
    answer = analyser.diagnostics("file:///p.yaml", text, settings)
    assert answer is not None and hidden not in {d.code for d in answer}
    assert answer == _own(text, settings, "file:///p.yaml")


CRD_POLICY = textwrap.dedent(
    """\
    apiVersion: admissionregistration.k8s.io/v1
    kind: ValidatingAdmissionPolicy
    metadata:
      name: routes
    spec:
      matchConstraints:
        resourceRules:
          - apiGroups: [gateway.networking.k8s.io]
            apiVersions: [v1]
            operations: [CREATE]
            resources: [httproutes]
      validations:
        - expression: "object.spec.hostnames.size() > 0"
    """
)


BUILT_IN_POLICY = (
    CRD_POLICY.replace("gateway.networking.k8s.io", "apps")
    .replace("httproutes", "deployments")
    .replace("object.spec.hostnames.size() > 0", "object.spec.replicas > 0")
)


def test_a_result_other_files_could_change_is_left_to_the_server(analyser: StartupAnalyser) -> None:
    # The CRD may be in the workspace, `vapLsp.crds` or the configuration: the server knows.
    assert analyser.diagnostics("file:///routes.yaml", CRD_POLICY, AnalysisSettings()) is None
    # Without any of those, nothing could type it: the helper's result is the server's.
    alone = analyser.diagnostics("file:///routes.yaml", CRD_POLICY, AnalysisSettings(), crds_elsewhere=False)
    assert alone == _own(CRD_POLICY, AnalysisSettings(), "file:///routes.yaml")
    assert "typing-unavailable" in {d.code for d in alone or []}
    # Still usable for the next document.
    answer = analyser.diagnostics("file:///deployments.yaml", BUILT_IN_POLICY, AnalysisSettings())
    assert answer == _own(BUILT_IN_POLICY, AnalysisSettings(), "file:///deployments.yaml")


def test_a_dead_helper_answers_none_and_stays_closed(analyser: StartupAnalyser) -> None:
    analyser._process.kill()
    analyser._process.wait()
    assert analyser.diagnostics("file:///a.yaml", "a: 1\n", AnalysisSettings()) is None
    assert not analyser.open


def test_a_helper_that_does_not_answer_in_time_is_killed_and_answers_none() -> None:
    stuck = subprocess.Popen(
        [sys.executable, "-c", "import time; time.sleep(120)"], stdin=subprocess.PIPE, stdout=subprocess.PIPE
    )
    analyser = StartupAnalyser(stuck, timeout=0.5)
    assert analyser.diagnostics("file:///a.yaml", "a: 1\n", AnalysisSettings(), crds_elsewhere=False) is None
    assert stuck.wait(timeout=60) != 0  # killed
    assert not analyser.open


def test_a_large_document_is_left_to_the_server(analyser: StartupAnalyser) -> None:
    from vap_lsp.server.startup_analyser import MAX_TEXT

    text = "# " + "x" * MAX_TEXT + "\n"
    assert analyser.diagnostics("file:///big.yaml", text, AnalysisSettings(), crds_elsewhere=False) is None
    assert analyser.open  # not a failure: the next small document is still answered
    answer = analyser.diagnostics("file:///d.yaml", BUILT_IN_POLICY, AnalysisSettings(), crds_elsewhere=False)
    assert answer is not None


def test_closing_ends_the_process(analyser: StartupAnalyser) -> None:
    process = analyser._process
    analyser.close()
    assert process.wait(timeout=60) == 0
    assert analyser.diagnostics("file:///a.yaml", "a: 1\n", AnalysisSettings()) is None


def test_it_is_off_when_switched_off(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("VAP_LSP_STARTUP_ANALYSER", "0")
    assert StartupAnalyser.spawn() is None


def test_the_lone_document_index_notes_what_the_workspace_could_answer() -> None:
    crd_kind = LoneDocumentIndex()
    analyse_text(CRD_POLICY, AnalysisSettings(), workspace=crd_kind, uri="file:///b.yaml")
    assert crd_kind.depends

    # A binding's policy may be elsewhere, but cross-file findings need a complete index (the
    # server's, after its scan): what the lone document gives is what any early analysis gives.
    binding = LoneDocumentIndex()
    text = "apiVersion: admissionregistration.k8s.io/v1\nkind: ValidatingAdmissionPolicyBinding\n"
    text += "metadata: {name: b}\nspec: {policyName: p, validationActions: [Deny]}\n"
    analysis = analyse_text(text, AnalysisSettings(), workspace=binding, uri="file:///c.yaml")
    assert not binding.depends and not binding.complete
    assert "policy-not-found" not in {d.code for d in analysis.diagnostics}


def test_a_policy_on_built_in_kinds_alone_depends_on_no_other_file() -> None:
    index = LoneDocumentIndex()
    analyse_text(BUILT_IN_POLICY, AnalysisSettings(), workspace=index, uri="file:///d.yaml")
    assert not index.depends


def test_the_helper_runs_this_copy_of_vap_lsp_from_any_working_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)  # nothing importable here
    monkeypatch.delenv("PYTHONPATH", raising=False)
    monkeypatch.setenv("VAP_LSP_STARTUP_ANALYSER", "1")
    analyser = StartupAnalyser.spawn()
    assert analyser is not None
    try:
        answer = analyser.diagnostics(
            "file:///d.yaml", BUILT_IN_POLICY, AnalysisSettings(), crds_elsewhere=False
        )
        assert answer == _own(BUILT_IN_POLICY, AnalysisSettings(), "file:///d.yaml")
    finally:
        analyser.close()


def test_reading_a_documents_settings_imports_nothing_once_the_analyser_is_spawned(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The early path reads settings in one thread while another imports the engine: it must not
    # import (no two threads import at once). A pyproject table and a configuration naming codes
    # are what reading may import for.
    (tmp_path / "pyproject.toml").write_text('[tool.vap-lsp]\nignore = ["optional-field"]\n')
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / ".vap-lsp.yaml").write_text("ignore: [optional-field, no-such-code]\n")
    script = (
        "import os, sys\nos.environ['VAP_LSP_STARTUP_ANALYSER'] = '1'\n"
        "from vap_lsp.server.preload import import_protocol\nimport_protocol()\n"
        "from vap_lsp.server.startup_analyser import StartupAnalyser\nhelper = StartupAnalyser.spawn()\n"
        "from vap_lsp.server.app import create_server\nfrom pygls.workspace import Workspace\n"
        f"server = create_server(helper)\nserver.protocol._workspace = Workspace({tmp_path.as_uri()!r})\n"
        "before = set(sys.modules)\n"
        f"for name in ('a.yaml', 'sub/b.yaml'):\n"
        f"    uri = {tmp_path.as_uri()!r} + '/' + name\n"
        "    server.state.document_settings(uri)\n    server.state.crds_elsewhere(uri)\n"
        "helper.close()\nprint(sorted(set(sys.modules) - before))"
    )
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
