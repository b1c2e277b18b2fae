"""Opening or editing a document re-runs exactly the open documents that read what it changed in
the workspace index: a binding when the policy it names appears, a policy when its CRD changes."""

from __future__ import annotations

import asyncio
import textwrap
from pathlib import Path

from lsprotocol import types as lsp
from pygls.workspace import Workspace

from vap_lsp.analysis.engine import FileAnalysis
from vap_lsp.server.app import create_server

BINDING = textwrap.dedent(
    """\
    apiVersion: admissionregistration.k8s.io/v1
    kind: ValidatingAdmissionPolicyBinding
    metadata:
      name: b
    spec:
      policyName: replica-limit
      validationActions: [Deny]
    """
)


def _policy(name: str, expression: str = "object.spec.replicas <= params.maxReplicas") -> str:
    return textwrap.dedent(
        f"""\
        apiVersion: admissionregistration.k8s.io/v1
        kind: ValidatingAdmissionPolicy
        metadata:
          name: {name}
        spec:
          paramKind: {{apiVersion: rules.example.com/v1, kind: ReplicaLimit}}
          matchConstraints:
            resourceRules:
              - {{apiGroups: [apps], apiVersions: [v1], operations: [CREATE], resources: [deployments]}}
          validations:
            - expression: "{expression}"
        """
    )


def _crd(field: str) -> str:
    return textwrap.dedent(
        f"""\
        apiVersion: apiextensions.k8s.io/v1
        kind: CustomResourceDefinition
        metadata:
          name: replicalimits.rules.example.com
        spec:
          group: rules.example.com
          names: {{kind: ReplicaLimit, plural: replicalimits}}
          scope: Namespaced
          versions:
            - name: v1
              served: true
              storage: true
              schema:
                openAPIV3Schema:
                  type: object
                  properties:
                    {field}: {{type: integer}}
        """
    )


class Editor:
    """A server without a client, its workspace folder scanned (empty): handlers called directly,
    analyses and publications recorded per document name."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.server = create_server()
        folder = lsp.WorkspaceFolder(root.as_uri(), "ws")
        self.server.protocol._workspace = Workspace(root.as_uri(), workspace_folders=[folder])
        self.server.state.index.complete = True  # the scan of the (empty) folder has ended
        self.analysed: list[str] = []
        self.published: dict[str, list[str]] = {}  # name -> codes of its latest publication
        self.versions: dict[str, int] = {}
        scheduler = self.server.diagnostics
        scheduler._warmed = True  # no importing of the language services in the background
        analyse = scheduler.analyse

        def recorded(uri: str, text: str) -> FileAnalysis:
            self.analysed.append(uri.rsplit("/", 1)[-1])
            return analyse(uri, text)

        scheduler.analyse = recorded
        self.server.text_document_publish_diagnostics = self._published  # type: ignore[method-assign]
        # Work the server does not wait for (the re-read after didClose), awaited by `idle`.
        self.background: list[asyncio.Future[object]] = []
        worker = self.server.worker
        worker.background = lambda work: self.background.append(asyncio.ensure_future(worker.run(work)))  # type: ignore[method-assign]

    def _published(self, params: lsp.PublishDiagnosticsParams) -> None:
        self.published[params.uri.rsplit("/", 1)[-1]] = [str(d.code) for d in params.diagnostics]

    def uri(self, name: str | Path) -> str:
        return (self.root / name).as_uri()  # (an absolute path replaces the root)

    async def open(self, name: str | Path, text: str) -> None:
        self.server.state.event_loop = asyncio.get_running_loop()
        self.versions[str(name)] = 1
        item = lsp.TextDocumentItem(self.uri(name), "yaml", 1, text)
        self.server.workspace.put_text_document(item)
        self.server.protocol.fm.features[lsp.TEXT_DOCUMENT_DID_OPEN](lsp.DidOpenTextDocumentParams(item))
        await self.idle()

    async def change(self, name: str, text: str) -> None:
        self.versions[name] += 1
        params = lsp.DidChangeTextDocumentParams(
            lsp.VersionedTextDocumentIdentifier(version=self.versions[name], uri=self.uri(name)),
            [lsp.TextDocumentContentChangeWholeDocument(text)],
        )
        self.server.workspace.update_text_document(params.text_document, params.content_changes[0])
        self.server.protocol.fm.features[lsp.TEXT_DOCUMENT_DID_CHANGE](params)
        await self.idle()

    async def close(self, name: str | Path) -> None:
        params = lsp.DidCloseTextDocumentParams(lsp.TextDocumentIdentifier(self.uri(name)))
        self.server.workspace.remove_text_document(params.text_document.uri)
        self.server.protocol.fm.features[lsp.TEXT_DOCUMENT_DID_CLOSE](params)
        await self.idle()

    async def idle(self) -> None:
        """Until no run is pending, including those that changes of the index asked for."""
        for _ in range(5):
            while self.background:
                await self.background.pop()
            for _ in range(20):
                await asyncio.sleep(0)
            await self.server.diagnostics.idle()

    def take(self) -> list[str]:
        analysed, self.analysed = self.analysed, []
        return analysed


async def test_a_binding_opened_before_its_policy_is_re_checked_when_the_policy_opens(tmp_path: Path) -> None:
    editor = Editor(tmp_path)
    await editor.open("binding.yaml", BINDING)
    assert editor.published["binding.yaml"] == ["policy-not-found"]
    assert editor.take() == ["binding.yaml"]

    await editor.open("other.yaml", _policy("other"))
    assert editor.take() == ["other.yaml"]  # a policy of another name: the binding is not re-run

    await editor.open("policy.yaml", _policy("replica-limit"))
    assert editor.take() == ["policy.yaml", "binding.yaml"]
    # Found: the policy declares spec.paramKind and the binding has no spec.paramRef.
    assert editor.published["binding.yaml"] == ["param-ref-missing"]

    await editor.change("policy.yaml", _policy("replica-limit", "object.spec.replicas < params.maxReplicas"))
    assert editor.take() == ["policy.yaml"]  # what the index says of it did not change

    await editor.change("policy.yaml", _policy("renamed"))
    assert editor.take() == ["policy.yaml", "binding.yaml"]
    assert editor.published["binding.yaml"] == ["policy-not-found"]


async def test_a_policy_is_re_checked_when_the_crd_of_its_params_changes(tmp_path: Path) -> None:
    editor = Editor(tmp_path)
    await editor.open("crd.yaml", _crd("maxReplica"))
    await editor.open("binding.yaml", BINDING.replace("replica-limit", "x"))
    await editor.open("policy.yaml", _policy("replica-limit"))
    assert editor.published["policy.yaml"] == ["cel-type-check"]  # undefined field 'maxReplicas'
    editor.take()

    await editor.change("crd.yaml", _crd("maxReplicas"))
    assert editor.take() == ["crd.yaml", "policy.yaml"]  # not the binding: it reads no CRD
    assert "cel-type-check" not in editor.published["policy.yaml"]

    await editor.change("crd.yaml", _crd("maxReplicas").replace("integer", "string"))
    assert sorted(editor.take()) == ["crd.yaml", "policy.yaml"]
    assert "cel-type-check" in editor.published["policy.yaml"]  # string <= int: no matching overload


async def test_a_closed_document_counts_as_its_file_only_where_the_folder_scan_reads_files(
    tmp_path: Path,
) -> None:
    """After didClose a document counts as what is on disk, as the scan would have read it; a
    file the scan never reads (outside the workspace folder, in a hidden folder, excluded by
    the configuration, not YAML) leaves the index, as it would after a restart."""
    root = tmp_path / "ws"
    (root / ".hidden").mkdir(parents=True)
    (root / "vendor").mkdir()
    (root / ".vap-lsp.yaml").write_text("exclude: ['vendor/**']\n")
    (tmp_path / "elsewhere").mkdir()
    policy = _policy("replica-limit")
    unread = [
        tmp_path / "elsewhere" / "policy.yaml",
        root / ".hidden" / "policy.yaml",
        root / "vendor" / "policy.yaml",
        root / "policy.txt",
    ]
    for path in [*unread, root / "policy.yaml"]:
        path.write_text(policy)
    editor = Editor(root)
    await editor.open("binding.yaml", BINDING)
    assert editor.published["binding.yaml"] == ["policy-not-found"]

    for path in unread:
        await editor.open(path, policy)
        assert editor.published["binding.yaml"] == ["param-ref-missing"], path  # found
        await editor.close(path)
        assert editor.published["binding.yaml"] == ["policy-not-found"], path

    await editor.open("policy.yaml", policy)
    await editor.close("policy.yaml")
    assert editor.published["binding.yaml"] == ["param-ref-missing"]  # on disk in the folder
