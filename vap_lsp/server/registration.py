"""The one table of feature modules, and the handlers several of them contribute to.

Each feature module has a `register(ctx)` that adds its own handlers to pygls' server, with the
`Context` it needs (`server.context`), and lists the language services it imports on first use
(`imports`: warmed in the pool after the first publish, `warm`). pygls keeps one handler per
method; the methods more than one module answers — code actions, hover, inlay hints — are
registered here once, and call each module's provider in the worker, each under the worker's
one guard (`Worker.guarded`): a failing provider costs its own part of the answer only.
"""

from __future__ import annotations

import functools
import importlib
import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from lsprotocol import types as lsp

from vap_lsp import collector
from vap_lsp.server import (
    cel_features,
    convert_features,
    crd_watch,
    hover_completion,
    run_features,
    sync,
    yaml_features,
)

if TYPE_CHECKING:
    from vap_lsp.server.context import Context

log = logging.getLogger(__name__)

CodeActions = Callable[["Context", lsp.CodeActionParams], list[lsp.CodeAction]]
Hover = Callable[["Context", lsp.HoverParams], lsp.Hover | None]
InlayHints = Callable[["Context", lsp.InlayHintParams], list[lsp.InlayHint]]


@dataclass(frozen=True)
class Feature:
    register: Callable[[Context], None]
    # The language services its handlers import on first use (not at start-up).
    imports: tuple[str, ...] = ()
    code_actions: CodeActions | None = None
    code_action_kinds: tuple[lsp.CodeActionKind, ...] = ()
    hover: Hover | None = None
    inlay_hints: InlayHints | None = None


FEATURES: tuple[Feature, ...] = (
    # didOpen/didChange/didSave/didClose → the diagnostics scheduler.
    Feature(sync.register),
    # CRDs of `vapLsp.crds` or the configuration, and the watchers of both.
    Feature(crd_watch.register),
    # Completion; hover (CEL first, then YAML).
    Feature(hover_completion.register, hover_completion.FEATURE_MODULES, hover=hover_completion.hover),
    # Signature help, semantic tokens; type hints of CEL variables.
    Feature(cel_features.register, cel_features.FEATURE_MODULES, inlay_hints=cel_features.inlay_hints),
    # Navigation, rename, symbols; quick fixes.
    Feature(
        yaml_features.register,
        yaml_features.FEATURE_MODULES,
        code_actions=yaml_features.quick_fixes,
        code_action_kinds=(lsp.CodeActionKind.QuickFix,),
    ),
    # "Run against samples": code lens and command; its source action, value hover and hints.
    Feature(
        run_features.register,
        run_features.FEATURE_MODULES,
        code_actions=run_features.source_actions,
        code_action_kinds=(lsp.CodeActionKind.Source,),
        hover=run_features.value_hover,
        inlay_hints=run_features.value_hints,
    ),
    # "Convert to ValidatingAdmissionPolicy": its source action and command.
    Feature(
        convert_features.register,
        convert_features.FEATURE_MODULES,
        code_actions=convert_features.source_actions,
        code_action_kinds=(lsp.CodeActionKind.Source,),
    ),
)


def register(ctx: Context) -> None:
    """Every feature module's handlers, and the one handler of each method several contribute to."""
    for feature in FEATURES:
        feature.register(ctx)
    server, worker = ctx.server, ctx.worker
    code_actions = [f.code_actions for f in FEATURES if f.code_actions is not None]
    hovers = [f.hover for f in FEATURES if f.hover is not None]
    hints = [f.inlay_hints for f in FEATURES if f.inlay_hints is not None]
    kinds = list(dict.fromkeys(kind for f in FEATURES for kind in f.code_action_kinds))

    @server.feature(lsp.TEXT_DOCUMENT_CODE_ACTION, lsp.CodeActionOptions(code_action_kinds=kinds))
    @worker.request
    def code_action(params: lsp.CodeActionParams) -> list[lsp.CodeAction] | None:
        out: list[lsp.CodeAction] = []
        for provider in code_actions:
            out.extend(worker.guarded([], functools.partial(provider, ctx, params), provider))
        return out or None

    @server.feature(lsp.TEXT_DOCUMENT_HOVER)
    @worker.request
    def hover(params: lsp.HoverParams) -> lsp.Hover | None:
        found = [
            h for p in hovers if (h := worker.guarded(None, functools.partial(p, ctx, params), p)) is not None
        ]
        return _merge_hovers(found)

    @server.feature(lsp.TEXT_DOCUMENT_INLAY_HINT)
    @worker.request
    def inlay_hint(params: lsp.InlayHintParams) -> list[lsp.InlayHint]:
        out: list[lsp.InlayHint] = []
        for provider in hints:
            out.extend(worker.guarded([], functools.partial(provider, ctx, params), provider))
        return out


def _merge_hovers(found: list[lsp.Hover]) -> lsp.Hover | None:
    """One hover: the texts in table order, separated by rules, at the first one's range."""
    if len(found) <= 1:
        return found[0] if found else None
    texts = [h.contents.value for h in found if isinstance(h.contents, lsp.MarkupContent)]
    return lsp.Hover(lsp.MarkupContent(lsp.MarkupKind.Markdown, "\n\n---\n\n".join(texts)), found[0].range)


def warm() -> None:
    """Import the language services the handlers load on first use.

    Start-up imports only what the first diagnostics need; the diagnostics scheduler calls
    this in the thread pool after its first publish, so the first hover does not pay either.
    """
    for feature in FEATURES:
        for module in feature.imports:
            try:
                importlib.import_module(module)
            except Exception:  # the handler that needs it will report the failure
                log.exception("could not import %s", module)
    # Everything is loaded: free start-up's garbage, freeze the rest out of later collections.
    collector.freeze_survivors()
