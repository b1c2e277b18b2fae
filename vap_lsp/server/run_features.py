"""LSP adapter for "Run against samples": a code lens and a `source` code action on each
policy, both running the command `vapLsp.runAgainstSamples` (workspace/executeCommand).

The command evaluates in a worker thread (`features.run_samples`), publishes the verdicts as
extra diagnostics through the DiagnosticsScheduler (merged with regular analysis, dropped when
a sample, test file or the policy changes), and shows a Markdown report via
window/showDocument when the client supports it. After a run, the values of the failing
sub-expressions are hover text and inlay hints: `source_actions`, `value_hover` and
`value_hints` are providers of the one code-action, hover and inlay-hint handlers
(`server.registration`); the run's results are kept in the state (`ServerState.runs`).
"""

from __future__ import annotations

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
from vap_lsp.server.documents import DocumentNotOpen
from vap_lsp.text import LineIndex

if TYPE_CHECKING:
    from vap_lsp.features import run_samples
    from vap_lsp.server.context import Context
    from vap_lsp.server.state import ServerState

log = logging.getLogger(__name__)

# The admission engine behind it is imported on first use, not at start-up.
FEATURE_MODULES = ("vap_lsp.features.run_samples",)

COMMAND = "vapLsp.runAgainstSamples"
TITLE = "▶ Run against samples"


def _sources(state: ServerState) -> list[run_samples.Source]:
    """Every YAML file of the workspace folders (open buffers win over disk) and open documents."""
    from vap_lsp.features import run_samples

    out: dict[str, run_samples.Source] = {}
    for uri, document in list(state.workspace.text_documents.items()):
        out[uri] = run_samples.Source(uri, uris.to_fs_path(uri), document.source, document.version)
    errors: list[str] = []
    for folder in list(state.workspace.folders.values()):
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


def _extra_sources(state: ServerState, uri: str) -> list[run_samples.Source]:
    from vap_lsp.features import run_samples

    roots = [r for f in state.workspace.folders.values() if (r := uris.to_fs_path(f.uri)) is not None]
    out: list[run_samples.Source] = []
    errors: list[str] = []
    for path in run_samples.sample_paths(state.samples_for(uri), roots, errors):
        uri = uris.from_fs_path(str(path)) or str(path)
        document = state.workspace.text_documents.get(uri)
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


def _current(state: ServerState, source: run_samples.Source) -> bool:
    """Whether the text the run saw is still what the document says (stale results are dropped)."""
    document = state.workspace.text_documents.get(source.uri)
    if document is None:
        return source.version is None
    return bool(document.version == source.version and document.source == source.text)


def _field(value: Any, name: str) -> Any:
    if isinstance(value, dict):
        return value.get(name)
    return getattr(value, name, None)


def _command_target(state: ServerState, args: tuple[Any, ...]) -> tuple[str, str] | None:
    """`[uri, policyName]` (code lens, code action) or `[{uri, ...}]` (editor commands such as
    VS Code's "Run Policy Against Samples", which know no policy name: the document's first), of
    a document that is open (as for every feature: none for one the client has not opened)."""
    if len(args) >= 2 and isinstance(args[0], str) and isinstance(args[1], str):
        return (args[0], args[1]) if state.is_open(args[0]) else None
    uri = args[0] if args and isinstance(args[0], str) else _field(args[0], "uri") if args else None
    if not isinstance(uri, str) or not state.is_open(uri):
        return None
    try:
        snapshot = state.snapshot(uri)
    except DocumentNotOpen:
        return None
    for obj in snapshot.objects:
        recognised = recognise(obj.api_version, obj.kind)
        if recognised is not None and recognised[0] in (PolicyKind.VAP, PolicyKind.MAP) and obj.name:
            return uri, obj.name
    return None


async def run_command(ctx: Context, uri: str, policy: str) -> dict[str, Any]:
    state, runs, ls = ctx.state, ctx.state.runs, ctx.server

    def run() -> run_samples.RunOutcome:
        # Imported here, in the pool: the event loop imports nothing after start-up (`server.worker`).
        from vap_lsp.features import run_samples

        # Reading the workspace's files (and the configuration) belongs off the event loop too.
        version = state.analysis_settings_for(uri).resolved_version()
        sources, extras = _sources(state), _extra_sources(state, uri)
        return run_samples.run_against_samples(uri, policy, sources, extras, version, state.index)

    outcome = await ctx.worker.run(run)
    previous, runs.uris = runs.uris, set()
    encoding = state.position_encoding
    published = 0
    for target, diagnostics in outcome.diagnostics.items():
        source = outcome.sources[target]
        if not _current(state, source):
            continue
        lines = LineIndex(source.text)
        converted = [to_lsp_diagnostic(d, lines, encoding, target) for d in diagnostics]
        ctx.diagnostics.set_extra(target, converted)
        runs.uris.add(target)
        published += len(converted)
    runs.uris.add(uri)
    for stale in previous - runs.uris:
        ctx.diagnostics.set_extra(stale, [])
    runs.values = {
        target: (outcome.sources[target].text, values)
        for target, values in outcome.values.items()
        if target in outcome.sources and _current(state, outcome.sources[target])
    }
    workspace = ls.client_capabilities.workspace
    hints = workspace.inlay_hint if workspace is not None else None
    if runs.values and hints is not None and hints.refresh_support:
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


def register(ctx: Context) -> None:
    server, state = ctx.server, ctx.state
    runs = state.runs

    def on_change(uri: str) -> None:
        runs.values.pop(uri, None)
        if uri in runs.uris:
            uris_of_run, runs.uris = runs.uris, set()
            for other in uris_of_run - {uri}:
                ctx.diagnostics.set_extra(other, [])

    ctx.diagnostics.change_listeners.append(on_change)

    @server.feature(lsp.TEXT_DOCUMENT_CODE_LENS)
    @ctx.worker.request
    def code_lens(params: lsp.CodeLensParams) -> list[lsp.CodeLens] | None:
        from vap_lsp.features import run_samples

        snapshot = state.snapshot(params.text_document.uri)
        out = []
        for lens in run_samples.policy_lenses(snapshot):
            position = to_position(snapshot.lines, lens.span.start, state.position_encoding)
            out.append(
                lsp.CodeLens(
                    range=lsp.Range(position, position),
                    command=lsp.Command(title=TITLE, command=COMMAND, arguments=[snapshot.uri, lens.name]),
                )
            )
        return out or None

    @server.command(COMMAND)
    async def run_against_samples(ls: Any, *args: Any) -> dict[str, Any] | None:
        # pygls resolves this handler's annotations at run time: no TYPE_CHECKING-only names.
        target = await ctx.worker.run(lambda: _command_target(state, args))  # it may parse: not on the loop
        if target is None:
            server.window_show_message(
                lsp.ShowMessageParams(
                    type=lsp.MessageType.Error,
                    message=f"{COMMAND} needs [uri, policyName] or [{{uri}}] of a document with a policy",
                )
            )
            return None
        try:
            return await run_command(ctx, *target)
        except Exception as exc:  # the user asked for this run: say why it failed
            log.exception("run against samples failed")
            server.window_show_message(
                lsp.ShowMessageParams(
                    type=lsp.MessageType.Error, message=f"Run against samples failed: {exc}"
                )
            )
            return None


def source_actions(ctx: Context, params: lsp.CodeActionParams) -> list[lsp.CodeAction]:
    """The `source` action "Run <policy> against samples" for the policy under the cursor (a
    provider of the one code-action handler). Unfiltered requests get it only at a cursor (a
    one-line range), as editors ask while typing; a whole-document request for quick fixes is
    not offered a command."""
    from vap_lsp.features import run_samples

    only = params.context.only
    asked = only is not None and any(str(k).startswith("source") for k in only)
    if not asked and (only is not None or params.range.start.line != params.range.end.line):
        return []
    state = ctx.state
    snapshot = state.snapshot(params.text_document.uri)
    offset = to_offset(snapshot.lines, params.range.start, state.position_encoding)
    obj = snapshot.object_at(offset)
    return [
        lsp.CodeAction(
            title=f"Run {lens.name} against samples",
            kind=lsp.CodeActionKind.Source,
            command=lsp.Command(title=TITLE, command=COMMAND, arguments=[snapshot.uri, lens.name]),
        )
        for lens in run_samples.policy_lenses(snapshot)
        if obj is not None and obj.node.span.start <= lens.span.start <= obj.node.span.end
    ]


def value_hover(ctx: Context, params: lsp.HoverParams) -> lsp.Hover | None:
    """After a run, the value of the failing sub-expression under the cursor (a hover provider)."""
    run = ctx.state.runs.values.get(params.text_document.uri)
    if run is None:
        return None
    from vap_lsp.features import run_samples

    text, values = run
    lines, encoding = LineIndex(text), ctx.state.position_encoding
    offset = to_offset(lines, params.position, encoding)
    extra = run_samples.value_hover(values, offset)
    if extra is None:
        return None
    span, markdown = extra
    return lsp.Hover(lsp.MarkupContent(lsp.MarkupKind.Markdown, markdown), to_range(lines, span, encoding))


def value_hints(ctx: Context, params: lsp.InlayHintParams) -> list[lsp.InlayHint]:
    """After a run, the values of the failing sub-expressions in the range (an inlay-hint provider)."""
    run = ctx.state.runs.values.get(params.text_document.uri)
    if run is None:
        return []
    from vap_lsp.features import run_samples

    text, values = run
    lines, encoding = LineIndex(text), ctx.state.position_encoding
    within = to_span(lines, params.range, encoding)
    return [
        lsp.InlayHint(
            position=to_position(lines, hint.offset, encoding),
            label=hint.label,
            tooltip=hint.tooltip,
            padding_left=False,
        )
        for hint in run_samples.value_hints(values, within)
    ]
