"""Report: how much of the corpus's CEL is typed, as the server types variables and as vap-lsp does.

For every VAP/MAP expression of the corpus (checked as `vap-lsp check CORPUS` does: one
workspace, CRDs of the corpus included) it compiles two views of the policy's typing model
(`vap_lsp.analysis.model.typing`), against the first matched kind with a schema:

- **server**: variables as the server's composited compiler types them (object types, optionals
  → `dyn`); this is also what vap-lsp's editor features and checks used before the typing model;
- **precise**: each variable with the type its expression infers (vap-lsp's view now).

A variable is *typed* when its type has no `dyn` in it (`list(dyn)` is not).

A member access (`x.f`, `x.m()`) is *dyn* when its receiver is `dyn` (or `!error!`); an
expression is *typed* when none of its member accesses is dyn. Printed, never asserted; the
`vap-lsp-type-check` findings (vap-lsp's own check through variables) are listed one by one.

Usage: python benchmarks/bench_typing.py [CORPUS_DIR]   (default: ../shared/corpus)
"""

from __future__ import annotations

import sys
from collections import Counter
from pathlib import Path

from vap_lsp.analysis.checks.precise import PRECISE_CODE
from vap_lsp.analysis.engine import AnalysisSettings, analyse_text, parse_text
from vap_lsp.analysis.model.context import View, policy_context
from vap_lsp.analysis.model.workspace import WorkspaceIndex
from vap_lsp.cel.ast import Call, Select
from vap_lsp.cel.compile import CompileResult
from vap_lsp.cel.types import Kind, Type
from vap_lsp.policy.kinds import PolicyKind, recognise
from vap_lsp.yaml.detect import decode_bytes
from vap_lsp.yaml.model import ExpansionLimit, to_python

ROOT = Path(__file__).resolve().parents[1]
_UNKNOWN = (Kind.DYN, Kind.ERROR)


def _member_accesses(result: CompileResult) -> tuple[int, int]:
    """(typed, dyn) member accesses of one compiled expression."""
    checked = result.checked
    if checked is None or result.parsed.ast is None:
        return 0, 0
    typed = dyn = 0
    for node in result.parsed.walk():
        receiver = node.operand if isinstance(node, Select) else None
        if isinstance(node, Call):
            receiver = node.target
        if receiver is None:
            continue
        ref = checked.references.get(node.id)
        if isinstance(node, Select) and ref is not None and ref.kind != "field":
            continue  # a qualified name (`authorizer.requestResource`), not a selection
        rtype = checked.type_of(receiver)
        if rtype is None or rtype.kind in _UNKNOWN:
            dyn += 1
        else:
            typed += 1
    return typed, dyn


def _fully_typed(typ: Type) -> bool:
    """No `dyn` anywhere in it (`list(dyn)` is not typed: its elements are not)."""
    return typ.kind not in _UNKNOWN and all(_fully_typed(p) for p in typ.params)


def _tally(view: View, counts: Counter[str], prefix: str) -> None:
    for site, result in view.results():
        typed, dyn = _member_accesses(result)
        counts[f"{prefix} accesses typed"] += typed
        counts[f"{prefix} accesses dyn"] += dyn
        counts[f"{prefix} expressions {'dyn' if dyn else 'typed'}"] += 1
        if "variables." in site.text:
            counts[f"{prefix} variable-reading expressions {'dyn' if dyn else 'typed'}"] += 1


def main() -> None:
    corpus = Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT.parent / "shared" / "corpus"
    if not corpus.is_dir():
        print(f"corpus not found at {corpus}; pass its path")
        return
    settings = AnalysisSettings()
    version = settings.resolved_version()
    paths = sorted(p for p in corpus.rglob("*") if p.suffix in (".yaml", ".yml"))
    texts: dict[Path, str] = {}
    workspace = WorkspaceIndex()
    for path in paths:
        text, _ = decode_bytes(path.read_bytes())
        if text is None:
            continue
        texts[path] = text
        workspace.update(str(path), parse_text(text)[1], text)
    workspace.complete = True

    counts: Counter[str] = Counter()
    findings: list[str] = []
    for path, text in texts.items():
        analysis = analyse_text(text, settings, workspace=workspace, uri=str(path))
        for d in analysis.diagnostics:
            if d.code == PRECISE_CODE:
                lc = analysis.lines.line_col(d.span.start)
                where = f"{path.relative_to(corpus)}:{lc.line + 1}:{lc.column + 1}"
                findings.append(f"{where}: {d.severity.label}: {d.message}")
        for obj in analysis.objects:
            recognised = recognise(obj.api_version, obj.kind)
            if recognised is None or recognised[0] not in (PolicyKind.VAP, PolicyKind.MAP):
                continue
            try:
                data = to_python(obj.node, budget=200_000)
            except ExpansionLimit:
                continue
            spec = data.get("spec") if isinstance(data, dict) else None
            if not isinstance(spec, dict):
                continue
            typing = policy_context(obj.node, recognised[0], spec, version, workspace)
            counts["policies"] += 1
            counts["variables"] += sum(1 for s in typing.sites if s.name is not None)
            counts["kinds matched"] += len(typing.kinds)
            counts["kinds without schema"] += len(typing.kinds_without_schema)
            primary = typing.primary
            if primary is None:
                counts["policies without a typed kind"] += 1
                for entry in typing.untyped_resources():
                    counts[f"untyped {entry.reason}"] += 1
            server = typing.type_check(primary) if primary is not None else typing.create_time()
            _tally(server, counts, "server")
            _tally(typing.precise(), counts, "precise")
            for var in typing.variables:
                counts[f"server variables {'typed' if _fully_typed(var.server_type) else 'dyn'}"] += 1
                counts[f"precise variables {'typed' if _fully_typed(var.type) else 'dyn'}"] += 1

    print(f"{len(texts)} files, {counts['policies']} VAP/MAP policies, {counts['variables']} variables")
    print(f"matched kinds: {counts['kinds matched']} ({counts['kinds without schema']} without a schema)")
    reasons = ", ".join(
        f"{counts[f'untyped {r}']} {r}" for r in ("unknown", "wildcard", "subresource", "over-limit")
    )
    print(f"policies with no typed kind: {counts['policies without a typed kind']} (rule entries: {reasons})")
    views = (("server", "as the server types variables (before)"), ("precise", "vap-lsp (after)"))
    for prefix, title in views:
        print(f"{title}:")
        for what in ("expressions", "variable-reading expressions", "accesses", "variables"):
            typed, dyn = counts[f"{prefix} {what} typed"], counts[f"{prefix} {what} dyn"]
            share = 100 * typed / (typed + dyn) if typed + dyn else 0.0
            print(f"  {what}: {typed} typed, {dyn} dyn ({share:.1f}% typed)")
    print(f"{PRECISE_CODE} findings: {len(findings)}")
    for line in findings:
        print("  " + line)


if __name__ == "__main__":
    main()
