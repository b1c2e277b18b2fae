"""What the admission tests cover (`vap-lsp test --coverage`, `--coverage-lcov`, `--coverage-xml`).

Read from the traces of the test cases' evaluations (`admit(..., explain=True)`): per policy,
each expression (validations and their messageExpressions, matchConditions, variables,
auditAnnotations, mutations) with how often it was evaluated and its outcomes (true, false,
error, a value), and the branches of its CEL: both outcomes of every `&&`, `||`, `?:` condition
and comprehension predicate (the node-and-branch model of cel-go's `celtest` coverage). A
validation that no test makes false or fail is named. Lines in LCOV/Cobertura are the lines of
the policy's YAML file where each expression (and each branch's node) is written.
"""

from __future__ import annotations

import dataclasses
import os
import xml.etree.ElementTree as ET
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from vap_lsp.admission.api import AdmissionResult
from vap_lsp.analysis.engine import parse_text
from vap_lsp.analysis.files import read_text
from vap_lsp.analysis.model.objects import object_data
from vap_lsp.analysis.model.sites import expression_sites
from vap_lsp.cel.ast import Call, Comprehension, Expr, ParsedExpr
from vap_lsp.cel.explain import predicate
from vap_lsp.cel.parser import parse
from vap_lsp.cel.trace import Frame, Trace
from vap_lsp.policy.kinds import recognise
from vap_lsp.yaml.model import MappingNode

__all__ = ["Coverage", "ExpressionCoverage", "PolicyCoverage", "cobertura", "collect", "lcov", "table"]

_BRANCHING = ("_&&_", "_||_")


@dataclass
class Branch:
    """A boolean decision in an expression: `text` at `start:end`, and the outcomes seen."""

    text: str
    start: int
    end: int
    seen: set[bool] = field(default_factory=set)


@dataclass
class ExpressionCoverage:
    field: str
    text: str
    evaluated: int = 0
    outcomes: Counter[str] = dataclasses.field(default_factory=Counter)
    branches: dict[int, Branch] = dataclasses.field(default_factory=dict)
    line: int | None = None
    branch_lines: dict[int, int] = dataclasses.field(default_factory=dict)

    @property
    def branches_taken(self) -> int:
        return sum(len(b.seen) for b in self.branches.values())


@dataclass
class PolicyCoverage:
    name: str
    path: str | None = None
    expressions: dict[str, ExpressionCoverage] = field(default_factory=dict)

    def never_failing(self) -> list[str]:
        """Validations no test made false or fail."""
        return [
            f
            for f, e in self.expressions.items()
            if f.startswith("spec.validations[")
            and f.endswith("].expression")
            and not (e.outcomes["false"] or e.outcomes["error"])
        ]


@dataclass
class Coverage:
    policies: dict[str, PolicyCoverage] = field(default_factory=dict)


def _branches(parsed: ParsedExpr) -> dict[int, Branch]:
    out: dict[int, Branch] = {}
    if parsed.ast is None:
        return out
    src = parsed.source

    def add(e: Expr) -> None:
        if e.end > e.start:
            out[e.id] = Branch(src[e.start : e.end], e.start, e.end)

    for n in parsed.walk():
        if isinstance(n, Call) and n.function in _BRANCHING:
            add(n)
        elif isinstance(n, Call) and n.function == "_?_:_" and n.end > n.start:
            add(n.args[0])
        elif isinstance(n, Comprehension):
            p = predicate(parsed, n)
            if p is not None:
                add(p)
    return out


def _expressions(spec: Mapping[str, Any]) -> list[tuple[str, str]]:
    """(field, text) of every expression of a policy spec, in the server's order."""
    out: list[tuple[str, str]] = []

    def items(key: str) -> Iterable[tuple[int, Mapping[str, Any]]]:
        value = spec.get(key)
        return (
            ((i, x) for i, x in enumerate(value) if isinstance(x, Mapping)) if isinstance(value, list) else ()
        )

    for i, mc in items("matchConditions"):
        out.append((f"spec.matchConditions[{i}].expression", str(mc.get("expression") or "")))
    for i, v in items("variables"):
        out.append((f"spec.variables[{i}].expression", str(v.get("expression") or "")))
    for i, v in items("validations"):
        out.append((f"spec.validations[{i}].expression", str(v.get("expression") or "")))
        if v.get("messageExpression"):
            out.append((f"spec.validations[{i}].messageExpression", str(v["messageExpression"])))
    for i, a in items("auditAnnotations"):
        out.append((f"spec.auditAnnotations[{i}].valueExpression", str(a.get("valueExpression") or "")))
    for i, m in items("mutations"):
        for sub in ("applyConfiguration", "jsonPatch"):
            if isinstance(m.get(sub), Mapping):
                out.append((f"spec.mutations[{i}].{sub}.expression", str(m[sub].get("expression") or "")))
    return out


def _policy(coverage: Coverage, obj: Mapping[str, Any], path: str | None) -> PolicyCoverage:
    meta = obj.get("metadata")
    name = str(meta.get("name")) if isinstance(meta, Mapping) else ""
    found = coverage.policies.get(name)
    if found is None:
        found = PolicyCoverage(name, os.path.normpath(path) if path else None)
        spec = obj.get("spec")
        for fld, text in _expressions(spec if isinstance(spec, Mapping) else {}):
            e = ExpressionCoverage(fld, text)
            e.branches = _branches(parse(text.strip() or text))
            found.expressions[fld] = e
        coverage.policies[name] = found
    return found


def _frames(frame: Frame) -> Iterable[Frame]:
    stack = [frame]
    while stack:
        f = stack.pop()
        yield f
        for iterations in f.loops.values():
            stack.extend(it.frame for it in iterations)


def _record(e: ExpressionCoverage, value: object, error: str | None, trace: Trace | None) -> None:
    e.evaluated += 1
    if error is not None:
        e.outcomes["error"] += 1
    elif value is True:
        e.outcomes["true"] += 1
    elif value is False:
        e.outcomes["false"] += 1
    else:
        e.outcomes["value"] += 1
    if trace is None or not e.branches:
        return
    if trace.parsed.source != (e.text.strip() or e.text):  # another text under the same field
        return
    for frame in _frames(trace.root):
        for nid, branch in e.branches.items():
            v = frame.values.get(nid)
            if v is True or v is False:
                branch.seen.add(v)


def collect(
    results: Iterable[AdmissionResult],
    policies: Iterable[tuple[Mapping[str, Any], str | None]],
) -> Coverage:
    """Coverage of `policies` (each with the file it is written in) by the traced `results`."""
    coverage = Coverage()
    for obj, path in policies:
        rec = recognise(obj.get("apiVersion"), obj.get("kind"))
        if rec is not None and not rec[0].is_binding:
            _policy(coverage, obj, path)
    for result in results:
        for ev in result.evaluations:
            pc = coverage.policies.get(ev.policy)
            if pc is None:
                continue
            for x in ev.expressions:
                e = pc.expressions.get(x.field)
                if e is not None:
                    _record(e, x.result, x.error, x.trace)
    for pc in coverage.policies.values():
        _place(pc)
    return coverage


def _place(pc: PolicyCoverage) -> None:
    """The YAML lines of each expression and branch of the policy, from its file."""
    if pc.path is None:
        return
    text = read_text(Path(pc.path), [])
    if text is None:
        return
    yaml_file, objects = parse_text(text)
    for obj in objects:
        rec = recognise(obj.api_version, obj.kind)
        if rec is None or obj.name != pc.name or rec[0].is_binding:
            continue
        data = object_data(obj.node)
        spec = data.get("spec") if isinstance(data, dict) else None
        if not isinstance(spec, dict) or not isinstance(obj.node, MappingNode):
            continue
        for site in expression_sites(obj.node, rec[0], spec):
            e = pc.expressions.get(site.field)
            if e is None:
                continue
            node = site.node
            lead = max(0, node.value.find(e.text.strip())) if e.text.strip() else 0
            e.line = yaml_file.lines.line_of(node.source_offset(lead)) + 1
            for nid, b in e.branches.items():
                e.branch_lines[nid] = yaml_file.lines.line_of(node.source_offset(lead + b.start)) + 1
        return


# --- reports ------------------------------------------------------------------------------------


def table(coverage: Coverage) -> str:
    """The per-policy table of `vap-lsp test --coverage`."""
    out: list[str] = []
    for pc in coverage.policies.values():
        out.append(f"coverage of {pc.name}" + (f" ({pc.path})" if pc.path else ""))
        width = max([len(f) for f in pc.expressions] + [10])
        out.append(f"  {'expression':<{width}}  runs   true  false  error  value  branches")
        total = taken = evaluated = 0
        for f, e in pc.expressions.items():
            o = e.outcomes
            nb = 2 * len(e.branches)
            total += nb
            taken += e.branches_taken
            evaluated += 1 if e.evaluated else 0
            branches = f"{e.branches_taken}/{nb}" if nb else "-"
            out.append(
                f"  {f:<{width}}  {e.evaluated:>4}  {o['true']:>5}  {o['false']:>5}  {o['error']:>5}"
                f"  {o['value']:>5}  {branches}"
            )
            for b in e.branches.values():
                missing = [s for s, v in (("true", True), ("false", False)) if v not in b.seen]
                if missing and e.evaluated:
                    out.append(f"    never {' nor '.join(missing)}: {b.text}")
        pct = f" ({100 * taken // total}%)" if total else ""
        out.append(
            f"  expressions evaluated: {evaluated}/{len(pc.expressions)}, branches: {taken}/{total}{pct}"
        )
        for f in pc.never_failing():
            out.append(f"  no test makes {f.removesuffix('.expression')} fail")
    return "\n".join(out) + ("\n" if out else "")


def lcov(coverage: Coverage) -> str:
    """LCOV tracefile: a line per expression (hit count = evaluations), a BRDA pair (true,
    false) per branch at the line of its node."""
    by_file: dict[str, list[PolicyCoverage]] = {}
    for pc in coverage.policies.values():
        if pc.path is not None:
            by_file.setdefault(pc.path, []).append(pc)
    out: list[str] = []
    for path, policies in by_file.items():
        out.extend(["TN:vap-lsp", f"SF:{path}"])
        lines: dict[int, int] = {}
        brda: list[str] = []
        found = hit = 0
        block = 0
        for pc in policies:
            for e in pc.expressions.values():
                if e.line is None:
                    continue
                lines[e.line] = lines.get(e.line, 0) + e.evaluated
                for nid, b in e.branches.items():
                    line = e.branch_lines.get(nid, e.line)
                    block += 1
                    for index, outcome in enumerate((True, False)):
                        taken = "-" if not e.evaluated else ("1" if outcome in b.seen else "0")
                        brda.append(f"BRDA:{line},{block},{index},{taken}")
                        found += 1
                        hit += taken == "1"
        for fn_line, count in sorted(lines.items()):
            out.append(f"DA:{fn_line},{count}")
        out.extend(brda)
        out.extend(
            [
                f"BRF:{found}",
                f"BRH:{hit}",
                f"LF:{len(lines)}",
                f"LH:{sum(1 for c in lines.values() if c)}",
                "end_of_record",
            ]
        )
    return "\n".join(out) + ("\n" if out else "")


def cobertura(coverage: Coverage) -> str:
    """Cobertura XML: a class per policy, a line per expression with its branch condition."""
    root = ET.Element("coverage", version="1", timestamp="0")
    packages = ET.SubElement(root, "packages")
    package = ET.SubElement(packages, "package", name="policies")
    classes = ET.SubElement(package, "classes")
    all_lines = all_hit = all_branches = all_taken = 0
    for pc in coverage.policies.values():
        cls = ET.SubElement(classes, "class", name=pc.name, filename=pc.path or "")
        ET.SubElement(cls, "methods")
        lines_el = ET.SubElement(cls, "lines")
        c_lines = c_hit = c_branches = c_taken = 0
        for e in pc.expressions.values():
            if e.line is None:
                continue
            nb = 2 * len(e.branches)
            attrs = {"number": str(e.line), "hits": str(e.evaluated), "branch": "true" if nb else "false"}
            if nb:
                attrs["condition-coverage"] = f"{100 * e.branches_taken // nb}% ({e.branches_taken}/{nb})"
            ET.SubElement(lines_el, "line", attrs)
            c_lines += 1
            c_hit += 1 if e.evaluated else 0
            c_branches += nb
            c_taken += e.branches_taken
        cls.set("line-rate", _rate(c_hit, c_lines))
        cls.set("branch-rate", _rate(c_taken, c_branches))
        all_lines += c_lines
        all_hit += c_hit
        all_branches += c_branches
        all_taken += c_taken
    for el in (root, package):
        el.set("line-rate", _rate(all_hit, all_lines))
        el.set("branch-rate", _rate(all_taken, all_branches))
    root.set("lines-valid", str(all_lines))
    root.set("lines-covered", str(all_hit))
    root.set("branches-valid", str(all_branches))
    root.set("branches-covered", str(all_taken))
    ET.indent(root)
    return '<?xml version="1.0" ?>\n' + ET.tostring(root, encoding="unicode") + "\n"


def to_json(coverage: Coverage) -> list[dict[str, Any]]:
    """The coverage in `test --format json`."""
    return [
        {
            "policy": pc.name,
            "path": pc.path,
            "expressions": [
                {
                    "field": e.field,
                    "line": e.line,
                    "evaluated": e.evaluated,
                    "outcomes": dict(e.outcomes),
                    "branches": [
                        {
                            "text": b.text,
                            "line": e.branch_lines.get(nid),
                            "true": True in b.seen,
                            "false": False in b.seen,
                        }
                        for nid, b in e.branches.items()
                    ],
                }
                for e in pc.expressions.values()
            ],
            "neverFailing": pc.never_failing(),
        }
        for pc in coverage.policies.values()
    ]


def _rate(n: int, d: int) -> str:
    return f"{n / d:.4f}" if d else "1.0"
