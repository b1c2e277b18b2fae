""" "Run against samples" through the real server: the code lens on a policy runs the command,
the verdict lands as a diagnostic on the sample (merged with regular diagnostics) and on the
failing expression, a report is shown, and editing the policy clears the run's diagnostics."""

from __future__ import annotations

import re
import sys
import tempfile
import textwrap
from pathlib import Path
from typing import Any

import pytest
import pytest_lsp
from lsprotocol import types as lsp
from pygls import uris
from pytest_lsp import ClientServerConfig, LanguageClient

WORKSPACE = Path(tempfile.mkdtemp(prefix="vap-lsp-run-ws-"))

POLICY = textwrap.dedent(
    """\
    apiVersion: admissionregistration.k8s.io/v1
    kind: ValidatingAdmissionPolicy
    metadata:
      name: require-team-label
    spec:
      failurePolicy: Fail
      matchConstraints:
        resourceRules:
          - {apiGroups: [apps], apiVersions: [v1], operations: [CREATE, UPDATE], resources: [deployments]}
      validations:
        - expression: "has(object.metadata.labels) && 'team' in object.metadata.labels"
          message: every Deployment needs a team label
    ---
    apiVersion: admissionregistration.k8s.io/v1
    kind: ValidatingAdmissionPolicyBinding
    metadata:
      name: require-team-label
    spec:
      policyName: require-team-label
      validationActions: [Deny]
    """
)

SAMPLE = textwrap.dedent(
    """\
    apiVersion: apps/v1
    kind: Deployment
    metadata:
      name: web
      namespace: shop
    spec:
      replicas: 1
      selector: {matchLabels: {app: web}}
      template:
        metadata: {labels: {app: web}}
        spec: {containers: [{name: web, image: "nginx:1.27"}]}
    """
)

(WORKSPACE / "policy.yaml").write_text(POLICY)
(WORKSPACE / "deployment.yaml").write_text(SAMPLE)


def _uri(name: str) -> str:
    uri = uris.from_fs_path(str(WORKSPACE / name))
    assert uri is not None
    return uri


@pytest_lsp.fixture(config=ClientServerConfig(server_command=[sys.executable, "-m", "vap_lsp", "serve"]))
async def client(lsp_client: LanguageClient):  # type: ignore[no-untyped-def]
    await lsp_client.initialize_session(
        lsp.InitializeParams(
            capabilities=lsp.ClientCapabilities(
                window=lsp.WindowClientCapabilities(
                    show_document=lsp.ShowDocumentClientCapabilities(support=True)
                )
            ),
            workspace_folders=[lsp.WorkspaceFolder(uri=_uri(""), name="ws")],
            initialization_options={"vapLsp": {"debounceMs": 0}},
        )
    )
    yield
    await lsp_client.shutdown_session()


async def _published(client: LanguageClient, uri: str, want: Any) -> list[lsp.Diagnostic]:
    """The latest publication for `uri` if it satisfies `want`, else the next one that does."""
    latest = client.diagnostics.get(uri)
    if latest is not None and want(list(latest)):
        return list(latest)
    while True:
        params = await client.wait_for_notification(lsp.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
        if params.uri == uri and want(list(params.diagnostics)):
            return list(params.diagnostics)


def _open(client: LanguageClient, name: str, text: str, version: int = 1) -> None:
    client.text_document_did_open(
        lsp.DidOpenTextDocumentParams(lsp.TextDocumentItem(_uri(name), "yaml", version, text))
    )


@pytest.mark.asyncio
async def test_code_lens_command_puts_the_denial_on_the_sample(client: LanguageClient) -> None:
    policy_uri, sample_uri = _uri("policy.yaml"), _uri("deployment.yaml")
    _open(client, "policy.yaml", POLICY)
    await _published(client, policy_uri, lambda d: True)
    lenses = await client.text_document_code_lens_async(
        lsp.CodeLensParams(lsp.TextDocumentIdentifier(policy_uri))
    )
    assert lenses is not None and len(lenses) == 1  # the policy, not its binding
    (lens,) = lenses
    assert lens.command is not None and lens.command.command == "vapLsp.runAgainstSamples"
    assert list(lens.command.arguments or []) == [policy_uri, "require-team-label"]
    assert lens.range.start.line == 0

    result = await client.workspace_execute_command_async(
        lsp.ExecuteCommandParams(command=lens.command.command, arguments=lens.command.arguments)
    )
    assert result is not None and "1 denied" in result["summary"]

    diagnostics = await _published(client, sample_uri, lambda d: any(x.code == "denied" for x in d))
    (denied,) = [d for d in diagnostics if d.code == "denied"]
    assert denied.message == "denied by require-team-label: every Deployment needs a team label"
    assert denied.severity == lsp.DiagnosticSeverity.Error
    assert denied.source == "vap-lsp run"

    policy_diagnostics = await _published(
        client, policy_uri, lambda d: any(x.code == "fails-on-samples" for x in d)
    )
    (failing,) = [d for d in policy_diagnostics if d.code == "fails-on-samples"]
    assert failing.range.start.line == 10  # the validation's expression
    assert "Deployment shop/web" in failing.message
    assert client.shown_documents and client.shown_documents[-1].uri.endswith("require-team-label.md")
    report = Path(result["report"]).read_text()
    assert "## Deployment shop/web: denied" in report
    # what each budget of the evaluation spent and has left (analysis.cost_budget)
    assert re.search(
        r"\n- cost \(binding [^)]*\): validations and messageExpressions: "
        r"\d+ of 10,000,000 \([\d,]+ left\)\n",
        report,
    ), report

    # The failing sub-expression's value: an inlay hint after it and a hover on it.
    hints = await client.text_document_inlay_hint_async(
        lsp.InlayHintParams(
            lsp.TextDocumentIdentifier(policy_uri), lsp.Range(lsp.Position(0, 0), lsp.Position(20, 0))
        )
    )
    line = POLICY.splitlines()[10]
    shown = [(h.position.line, h.position.character, h.label) for h in hints or [] if h.position.line == 10]
    assert [(ln, ch) for ln, ch, _ in shown] == [(10, line.index(".labels)")), (10, line.index(" && "))]
    # has()'s operand, as validating admission saw it: uid, creationTimestamp… filled in by the server
    assert shown[0][2].startswith(' = {"name": "web", "namespace": "shop", ')
    assert shown[1][2] == " → false"
    hover = await client.text_document_hover_async(
        lsp.HoverParams(lsp.TextDocumentIdentifier(policy_uri), lsp.Position(10, line.index("has(") + 1))
    )
    assert hover is not None and isinstance(hover.contents, lsp.MarkupContent)
    assert "**Run against samples**" in hover.contents.value
    assert "- Deployment shop/web: `has(object.metadata.labels)` → false" in hover.contents.value

    # Editing the policy makes the run stale: its diagnostics go, the sample's too.
    client.text_document_did_change(
        lsp.DidChangeTextDocumentParams(
            lsp.VersionedTextDocumentIdentifier(version=2, uri=policy_uri),
            [lsp.TextDocumentContentChangeWholeDocument(text=POLICY.replace("team label", "team label!"))],
        )
    )
    await _published(client, sample_uri, lambda d: not any(x.code == "denied" for x in d))
    await _published(client, policy_uri, lambda d: not any(x.code == "fails-on-samples" for x in d))


@pytest.mark.asyncio
async def test_source_code_action_offers_the_command(client: LanguageClient) -> None:
    policy_uri = _uri("policy.yaml")
    _open(client, "policy.yaml", POLICY)
    await _published(client, policy_uri, lambda d: True)
    actions = await client.text_document_code_action_async(
        lsp.CodeActionParams(
            lsp.TextDocumentIdentifier(policy_uri),
            lsp.Range(lsp.Position(3, 2), lsp.Position(3, 2)),
            lsp.CodeActionContext(diagnostics=[], only=[lsp.CodeActionKind.Source]),
        )
    )
    assert actions is not None and len(actions) == 1
    # lsprotocol's client-side converter reads any action with a `command` as a Command.
    action = actions[0]
    title = action.title
    assert title == "Run require-team-label against samples"


@pytest.mark.asyncio
async def test_editor_command_form_with_only_a_uri_runs_the_documents_policy(client: LanguageClient) -> None:
    """VS Code's "Run Policy Against Samples" sends `[{uri, samplePaths}]`: no policy name."""
    policy_uri, sample_uri = _uri("policy.yaml"), _uri("deployment.yaml")
    _open(client, "policy.yaml", POLICY)
    await _published(client, policy_uri, lambda d: True)
    result = await client.workspace_execute_command_async(
        lsp.ExecuteCommandParams(
            command="vapLsp.runAgainstSamples", arguments=[{"uri": policy_uri, "samplePaths": []}]
        )
    )
    assert result is not None and "1 denied" in result["summary"]
    diagnostics = await _published(client, sample_uri, lambda d: any(x.code == "denied" for x in d))
    assert any(d.message.startswith("denied by require-team-label") for d in diagnostics)
