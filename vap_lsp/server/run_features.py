"""LSP adapter for "Run against samples": a code lens and a `source` code action on each
policy, both running the command `vapLsp.runAgainstSamples` (workspace/executeCommand).

The command evaluates in a worker thread (`features.run_samples`), publishes the verdicts as
extra diagnostics through the DiagnosticsScheduler (merged with regular analysis, dropped when
a sample, test file or the policy changes), and shows a Markdown report via
window/showDocument when the client supports it.
"""

from __future__ import annotations

import inspect
import logging
import re
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lsprotocol import types as lsp
from pygls import uris

from vap_lsp.analysis.files import read_text, walk_yaml
from vap_lsp.policy.kinds import PolicyKind, recognise
from vap_lsp.server.convert import to_lsp_diagnostic, to_offset, to_position, to_range, to_span
from vap_lsp.server.worker import in_worker, off_loop
from vap_lsp.text import LineIndex

if TYPE_CHECKING:
    from vap_lsp.features import run_samples
    from vap_lsp.server.app import VapLanguageServer

log = logging.getLogger(__name__)

# The admission engine behind it is imported on first use, not at start-up.
FEATURE_MODULES = ("vap_lsp.features.run_samples",)

COMMAND = "vapLsp.runAgainstSamples"
TITLE = "▶ Run against samples"


class _RunState:
    """URIs that carry diagnostics of the last run: a change to any of them clears them all;
    the sub-expression values of the last run per policy URI (inlay hints, hover)."""

    def __init__(self) -> None:
        self.uris: set[str] = set()
        self.values: dict[str, tuple[str, list[run_samples.RunValue]]] = {}


def _sources(ls: VapLanguageServer) -> list[run_samples.Source]:
    """Every YAML file of the workspace folders (open buffers win over disk) and open documents."""
    from vap_lsp.features import run_samples

    out: dict[str, run_samples.Source] = {}
    for uri, document in list(ls.workspace.text_documents.items()):
        out[uri] = run_samples.Source(uri, uris.to_fs_path(uri), document.source, document.version)
    errors: list[str] = []
    for folder in list(ls.workspace.folders.values()):
        root = uris.to_fs_path(folder.uri)
        if root is None:
            continue
        for path in walk_yaml(Path(root), errors):
            uri = uris.from_fs_path(str(path)) or str(path)
            if uri in out:
                continue
            text = read_text(path, errors)
            if text is not None:
                out[uri] = run_samples.Source(uri, str(path), text)
    return list(out.values())


def _extra_sources(ls: VapLanguageServer, uri: str) -> list[run_samples.Source]:
    from vap_lsp.features import run_samples

    roots = [r for f in ls.workspace.folders.values() if (r := uris.to_fs_path(f.uri)) is not None]
    out: list[run_samples.Source] = []
    errors: list[str] = []
    for path in run_samples.sample_paths(ls.samples_for(uri), roots, errors):
        uri = uris.from_fs_path(str(path)) or str(path)
        document = ls.workspace.text_documents.get(uri)
        if document is not None:
            out.append(run_samples.Source(uri, str(path), document.source, document.version))
            continue
        text = read_text(path, errors)
        if text is not None:
            out.append(run_samples.Source(uri, str(path), text))
    for error in errors:
        log.warning("vapLsp.samples: %s", error)
    return out


def _write_report(policy: str, report: str) -> Path:
    folder = Path(tempfile.gettempdir()) / "vap-lsp-reports"
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / (re.sub(r"[^A-Za-z0-9_.-]+", "_", policy) + ".md")
    path.write_text(report, encoding="utf-8")
    return path


def _current(ls: VapLanguageServer, source: run_samples.Source) -> bool:
    """Whether the text the run saw is still what the document says (stale results are dropped)."""
    document = ls.workspace.text_documents.get(source.uri)
    if document is None:
        return source.version is None
    return bool(document.version == source.version and document.source == source.text)


def _field(value: Any, name: str) -> Any:
    if isinstance(value, dict):
        return value.get(name)
    return getattr(value, name, None)


def _command_target(ls: VapLanguageServer, args: tuple[Any, ...]) -> tuple[str, str] | None:
    """`[uri, policyName]` (code lens, code action) or `[{uri, ...}]` (editor commands such as
    VS Code's "Run Policy Against Samples", which know no policy name: the document's first)."""
    if len(args) >= 2 and isinstance(args[0], str) and isinstance(args[1], str):
        return args[0], args[1]
    uri = args[0] if args and isinstance(args[0], str) else _field(args[0], "uri") if args else None
    if not isinstance(uri, str):
        return None
    try:
        snapshot = ls.snapshot(uri)
    except Exception:
        return None
    for obj in snapshot.objects:
        recognised = recognise(obj.api_version, obj.kind)
        if recognised is not None and recognised[0] in (PolicyKind.VAP, PolicyKind.MAP) and obj.name:
            return uri, obj.name
    return None


async def run_command(ls: VapLanguageServer, state: _RunState, uri: str, policy: str) -> dict[str, Any]:
    def run() -> run_samples.RunOutcome:
        # Imported here, in the pool: the event loop imports nothing after start-up (`server.worker`).
        from vap_lsp.features import run_samples

        # Reading the workspace's files (and the configuration) belongs off the event loop too.
        version = ls.analysis_settings_for(uri).resolved_version()
        sources, extras = _sources(ls), _extra_sources(ls, uri)
        return run_samples.run_against_samples(uri, policy, sources, extras, version, ls.index)

    outcome = await off_loop(ls, run)
    previous, state.uris = state.uris, set()
    encoding = ls.position_encoding
    published = 0
    for target, diagnostics in outcome.diagnostics.items():
        source = outcome.sources[target]
        if not _current(ls, source):
            continue
        lines = LineIndex(source.text)
        converted = [to_lsp_diagnostic(d, lines, encoding, target) for d in diagnostics]
        ls.diagnostics.set_extra(target, converted)
        state.uris.add(target)
        published += len(converted)
    state.uris.add(uri)
    for stale in previous - state.uris:
        ls.diagnostics.set_extra(stale, [])
    state.values = {
        target: (outcome.sources[target].text, values)
        for target, values in outcome.values.items()
        if target in outcome.sources and _current(ls, outcome.sources[target])
    }
    workspace = ls.client_capabilities.workspace
    hints = workspace.inlay_hint if workspace is not None else None
    if state.values and hints is not None and hints.refresh_support:
        ls.protocol.send_request("workspace/inlayHint/refresh", None)  # the values are new hints
    report_path = _write_report(policy, outcome.report)
    capabilities = ls.client_capabilities.window
    if (
        capabilities is not None
        and capabilities.show_document is not None
        and capabilities.show_document.support
    ):
        target_uri = uris.from_fs_path(str(report_path)) or str(report_path)
        try:
            await ls.window_show_document_async(lsp.ShowDocumentParams(uri=target_uri, take_focus=False))
        except Exception:  # a client may refuse; the diagnostics are the main result
            log.warning("window/showDocument failed for %s", target_uri, exc_info=True)
    else:
        ls.window_show_message(lsp.ShowMessageParams(type=lsp.MessageType.Info, message=outcome.summary))
    return {"summary": outcome.summary, "report": str(report_path), "diagnostics": published}


def register(server: VapLanguageServer) -> None:
    state = _RunState()

    def on_change(uri: str) -> None:
        state.values.pop(uri, None)
        if uri in state.uris:
            uris_of_run, state.uris = state.uris, set()
            for other in uris_of_run - {uri}:
                server.diagnostics.set_extra(other, [])

    server.diagnostics.change_listeners.append(on_change)

    @server.feature(lsp.TEXT_DOCUMENT_CODE_LENS)
    @in_worker
    def code_lens(ls: VapLanguageServer, params: lsp.CodeLensParams) -> list[lsp.CodeLens] | None:
        from vap_lsp.features import run_samples

        try:
            snapshot = ls.snapshot(params.text_document.uri)
            out = []
            for lens in run_samples.policy_lenses(snapshot):
                position = to_position(snapshot.lines, lens.span.start, ls.position_encoding)
                out.append(
                    lsp.CodeLens(
                        range=lsp.Range(position, position),
                        command=lsp.Command(
                            title=TITLE, command=COMMAND, arguments=[snapshot.uri, lens.name]
                        ),
                    )
                )
            return out or None
        except Exception:
            log.exception("code lens failed")
            return None

    @server.command(COMMAND)
    async def run_against_samples(ls: Any, *args: Any) -> dict[str, Any] | None:
        # pygls resolves this handler's annotations at run time: no TYPE_CHECKING-only names.
        ls = server
        target = _command_target(ls, args)
        if target is None:
            ls.window_show_message(
                lsp.ShowMessageParams(
                    type=lsp.MessageType.Error,
                    message=f"{COMMAND} needs [uri, policyName] or [{{uri}}] of a document with a policy",
                )
            )
            return None
        try:
            return await run_command(ls, state, *target)
        except Exception as exc:
            log.exception("run against samples failed")
            ls.window_show_message(
                lsp.ShowMessageParams(
                    type=lsp.MessageType.Error, message=f"Run against samples failed: {exc}"
                )
            )
            return None

    _wrap_hover_and_hints(server, state)

    # One code-action handler per server (pygls): wrap the quick-fix provider that is already
    # registered and add the `source` action for the policy under the cursor.
    features = server.protocol.fm.features
    feature_options = server.protocol.fm.feature_options
    previous = features.pop(lsp.TEXT_DOCUMENT_CODE_ACTION, None)
    previous_options = feature_options.pop(lsp.TEXT_DOCUMENT_CODE_ACTION, None)
    kinds = list(getattr(previous_options, "code_action_kinds", None) or [])
    if lsp.CodeActionKind.Source not in kinds:
        kinds.append(lsp.CodeActionKind.Source)

    @server.feature(lsp.TEXT_DOCUMENT_CODE_ACTION, lsp.CodeActionOptions(code_action_kinds=kinds))
    async def code_action(ls: VapLanguageServer, params: lsp.CodeActionParams) -> list[lsp.CodeAction] | None:
        only = params.context.only
        out: list[lsp.CodeAction] = []
        if previous is not None and (only is None or any(not str(k).startswith("source") for k in only)):
            fixes = previous(params)
            out.extend((await fixes if inspect.isawaitable(fixes) else fixes) or [])
        asked = only is not None and any(str(k).startswith("source") for k in only)
        # Unfiltered requests get it only at a cursor (a one-line range), as editors ask while
        # typing; a whole-document request for quick fixes is not offered a command.
        if not asked and (only is not None or params.range.start.line != params.range.end.line):
            return out or None
        out.extend(await off_loop(ls, lambda: _source_actions(ls, params)))
        return out or None


def _source_actions(ls: VapLanguageServer, params: lsp.CodeActionParams) -> list[lsp.CodeAction]:
    """The `source` action "Run <policy> against samples" for the policy under the cursor."""
    out: list[lsp.CodeAction] = []
    try:
        from vap_lsp.features import run_samples

        snapshot = ls.snapshot(params.text_document.uri)
        offset = to_offset(snapshot.lines, params.range.start, ls.position_encoding)
        obj = snapshot.object_at(offset)
        for lens in run_samples.policy_lenses(snapshot):
            if obj is not None and obj.node.span.start <= lens.span.start <= obj.node.span.end:
                out.append(
                    lsp.CodeAction(
                        title=f"Run {lens.name} against samples",
                        kind=lsp.CodeActionKind.Source,
                        command=lsp.Command(
                            title=TITLE, command=COMMAND, arguments=[snapshot.uri, lens.name]
                        ),
                    )
                )
    except Exception:
        log.exception("run-against-samples code action failed")
    return out


def _wrap_hover_and_hints(server: VapLanguageServer, state: _RunState) -> None:
    """After a run, the values of the failing sub-expressions: inlay hints added to the type
    hints, hover text added to the CEL hover (one handler per method in pygls: wrap them; the
    lookups run in the pool, as every request does)."""
    features = server.protocol.fm.features
    previous_hover = features.pop(lsp.TEXT_DOCUMENT_HOVER, None)
    previous_hints = features.pop(lsp.TEXT_DOCUMENT_INLAY_HINT, None)

    async def base(handler: Any, params: Any) -> Any:
        if handler is None:
            return None
        result = handler(params)
        return await result if inspect.isawaitable(result) else result

    def hover_values(ls: VapLanguageServer, params: lsp.HoverParams) -> lsp.Hover | None:
        run = state.values.get(params.text_document.uri)
        if run is None:
            return None
        from vap_lsp.features import run_samples

        text, values = run
        lines, encoding = LineIndex(text), ls.position_encoding
        offset = to_offset(lines, params.position, encoding)
        extra = run_samples.value_hover(values, offset)
        if extra is None:
            return None
        span, markdown = extra
        return lsp.Hover(
            lsp.MarkupContent(lsp.MarkupKind.Markdown, markdown), to_range(lines, span, encoding)
        )

    @server.feature(lsp.TEXT_DOCUMENT_HOVER)
    async def hover(ls: VapLanguageServer, params: lsp.HoverParams) -> lsp.Hover | None:
        found = await base(previous_hover, params)
        if params.text_document.uri not in state.values:
            return found  # type: ignore[no-any-return]
        extra = await off_loop(ls, lambda: hover_values(ls, params))
        if extra is None:
            return found  # type: ignore[no-any-return]
        if found is not None and isinstance(found.contents, lsp.MarkupContent):
            assert isinstance(extra.contents, lsp.MarkupContent)
            text = found.contents.value + "\n\n---\n\n" + extra.contents.value
            return lsp.Hover(lsp.MarkupContent(lsp.MarkupKind.Markdown, text), found.range)
        return extra

    def hint_values(ls: VapLanguageServer, params: lsp.InlayHintParams) -> list[lsp.InlayHint]:
        run = state.values.get(params.text_document.uri)
        if run is None:
            return []
        from vap_lsp.features import run_samples

        text, values = run
        lines, encoding = LineIndex(text), ls.position_encoding
        within = to_span(lines, params.range, encoding)
        out: list[lsp.InlayHint] = []
        for hint in run_samples.value_hints(values, within):
            out.append(
                lsp.InlayHint(
                    position=to_position(lines, hint.offset, encoding),
                    label=hint.label,
                    tooltip=hint.tooltip,
                    padding_left=False,
                )
            )
        return out

    @server.feature(lsp.TEXT_DOCUMENT_INLAY_HINT)
    async def inlay_hint(ls: VapLanguageServer, params: lsp.InlayHintParams) -> list[lsp.InlayHint] | None:
        found = list(await base(previous_hints, params) or [])
        if params.text_document.uri in state.values:
            found.extend(await off_loop(ls, lambda: hint_values(ls, params)))
        return found
