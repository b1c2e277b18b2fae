"""Reports of an `Impact`: a text table, JSON, markdown (pull-request comments), SARIF and a
self-contained HTML page with inline SVG charts (no script, no network)."""

from __future__ import annotations

import html
import json
from collections.abc import Callable
from typing import Any

from vap_lsp import __version__
from vap_lsp.impact.report import FAILED, Impact

SHOWN_OBJECTS = 20
_COLUMNS = ("admitted", "denied", "warned", "audited", "errors", "notMatched")
_HEADERS = ("admitted", "denied", "warned", "audited", "errors", "not matched")


def _who(row: dict[str, Any]) -> str:
    ns = f"{row.get('namespace')}/" if row.get("namespace") else ""
    return f"{row.get('kind')} {ns}{row.get('name') or '<no name>'}"


def _subject(impact: Impact) -> str:
    if impact.mode == "audit":
        return f"{impact.requests} requests replayed from the audit log"
    op = "" if impact.operation == "CREATE" else f" as {impact.operation}"
    where = f" read from the cluster at {impact.cluster.get('server')}" if impact.cluster else ""
    return f"{impact.requests} objects{where}{op}"


def _table(headers: list[str], rows: list[list[str]]) -> list[str]:
    widths = [max(len(h), *(len(r[i]) for r in rows)) if rows else len(h) for i, h in enumerate(headers)]
    numeric = [i > 0 and all(r[i].isdigit() for r in rows) for i in range(len(headers))]

    def line(cells: list[str]) -> str:
        return "  ".join(
            c.rjust(w) if num else c.ljust(w) for c, w, num in zip(cells, widths, numeric, strict=True)
        ).rstrip()

    return [line(headers), line(["-" * w for w in widths]), *(line(r) for r in rows)]


def _binding_rows(impact: Impact) -> list[list[str]]:
    rows = []
    for key in sorted(impact.bindings):
        b = impact.bindings[key]
        rows.append([f"{b.policy} / {b.binding}", ",".join(b.actions), *(str(b.counts[c]) for c in _COLUMNS)])
    return rows


def _changes(impact: Impact, key: str) -> tuple[list[dict[str, Any]], int]:
    """The listed rows of one kind of change, by object, and how many there are in all."""
    bounded = impact.changes.get(key) if impact.changes is not None else None
    if bounded is None:
        return [], 0
    return sorted(bounded.sorted(), key=_who), bounded.total


def _failed_objects(impact: Impact) -> list[tuple[str, list[dict[str, Any]], int]]:
    """Per binding: the listed rows and how many requests it failed in all."""
    out = []
    for key in sorted(impact.bindings):
        b = impact.bindings[key]
        rows = b.objects.sorted()
        if rows:
            out.append((f"{b.policy} / {b.binding}", rows, b.objects.total))
    return out


def _verdict_line(impact: Impact) -> str:
    """Each request counted once, by its strongest verdict over every binding."""
    v = impact.verdicts
    return (
        f"Per request: {v['denied']} denied, {v['warned']} warned, {v['audited']} audited, "
        f"{v['errors']} with errors, {v['admitted']} admitted, {v['notMatched']} matched by no binding"
    )


def render_text(impact: Impact) -> str:
    lines = [
        f"Impact over {_subject(impact)} (Kubernetes {impact.kubernetes_version})",
        _verdict_line(impact),
        "",
    ]
    lines += _table(["binding", "actions", *_HEADERS], _binding_rows(impact))
    for title, rows, total in _failed_objects(impact):
        lines += ["", f"{title}:"]
        for o in rows[:SHOWN_OBJECTS]:
            what = f"  {o.get('verdict')}: {_who(o)}"
            if o.get("operation"):
                what += f" ({o['operation']} {o.get('auditID', '')})".rstrip()
            if o.get("message"):
                what += f": {o['message']}"
            lines.append(what)
            if o.get("recorded"):
                lines.append(f"    recorded by the server: {o['recorded']}")
        if total > SHOWN_OBJECTS:
            lines.append(f"  … and {total - SHOWN_OBJECTS} more (--format json lists up to --max-objects)")
    top = impact.top_failures()
    if top:
        lines += ["", "Top failing validations:"]
        lines += [f"  {t['count']:>6}  {t['policy']} {t['field']}: {t['message']}" for t in top]
    if impact.namespaces:
        lines += ["", "Per namespace:"]
        ns_rows = [
            [ns or "(cluster)", str(r["objects"]), *(str(r[c]) for c in FAILED)]
            for ns, r in sorted(impact.namespaces.items(), key=lambda kv: (-_failed(kv[1]), kv[0]))
        ]
        lines += ["  " + x for x in _table(["namespace", "requests", *FAILED], ns_rows[:30])]
        if len(ns_rows) > 30:
            lines.append(f"  … and {len(ns_rows) - 30} more namespaces")
    if impact.audit:
        lines += ["", "Audit log: " + ", ".join(f"{k} {v}" for k, v in sorted(impact.audit.items()))]
    if impact.changes is not None:
        lines += ["", "Changes against the base:"]
        for key, title in (
            ("newlyDenied", "newly denied"),
            ("newlyAdmitted", "newly admitted"),
            ("changedMessages", "denied with other messages"),
        ):
            rows, total = _changes(impact, key)
            lines.append(f"  {title}: {total}")
            for r in rows[:SHOWN_OBJECTS]:
                detail = r.get("message") or " | ".join(r.get("after", []))
                lines.append(f"    {_who(r)}: {detail}")
    for n in impact.notes:
        lines.append(f"note: {n}")
    return "\n".join(lines) + "\n"


def _failed(row: dict[str, int]) -> int:
    return sum(row.get(c, 0) for c in FAILED)


def render_json(impact: Impact) -> str:
    return json.dumps(impact.to_json(), indent=2, ensure_ascii=False) + "\n"


def _md(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def render_markdown(impact: Impact) -> str:
    """For a pull-request comment: changes first, then the table, failures folded."""
    out = [f"### vap-lsp impact: {_subject(impact)} (Kubernetes {impact.kubernetes_version})", ""]
    out += [_verdict_line(impact) + ".", ""]
    if impact.changes is not None:
        (nd, nd_total), (na, na_total) = _changes(impact, "newlyDenied"), _changes(impact, "newlyAdmitted")
        cm_total = _changes(impact, "changedMessages")[1]
        out.append(f"**{nd_total} newly denied**, {na_total} newly admitted, {cm_total} with other messages.")
        out.append("")
        for title, rows in (("Newly denied", nd), ("Newly admitted", na)):
            if rows:
                out += [f"#### {title}", "", "| object | binding | message |", "|---|---|---|"]
                for r in sorted(rows, key=_who)[:50]:
                    out.append(
                        f"| `{_md(_who(r))}` | {_md(str(r.get('policy')))} / {_md(str(r.get('binding')))} "
                        f"| {_md(str(r.get('message')))} |"
                    )
                out.append("")
    out += ["| binding | actions | " + " | ".join(_HEADERS) + " |", "|---|---|" + "---:|" * len(_HEADERS)]
    for cells in _binding_rows(impact):
        out.append("| " + " | ".join(_md(c) for c in cells) + " |")
    for title, rows, total in _failed_objects(impact):
        out += ["", f"<details><summary>{html.escape(title)}: {total} failing</summary>", ""]
        out += ["| verdict | object | message |", "|---|---|---|"]
        for o in rows[: SHOWN_OBJECTS * 5]:
            out.append(f"| {o.get('verdict')} | `{_md(_who(o))}` | {_md(str(o.get('message', '')))} |")
        out += ["", "</details>"]
    top = impact.top_failures()
    if top:
        out += [
            "",
            "**Top failing validations**",
            "",
            "| count | policy | validation | message |",
            "|---:|---|---|---|",
        ]
        out += [f"| {t['count']} | {_md(t['policy'])} | `{t['field']}` | {_md(t['message'])} |" for t in top]
    for n in impact.notes:
        out += ["", f"> note: {_md(n)}"]
    return "\n".join(out) + "\n"


_SARIF_LEVEL = {"denied": "error", "errors": "error", "warned": "warning", "audited": "note"}


def render_sarif(impact: Impact) -> str:
    """One result per failing (binding, request); the object's identity is the logical location
    (a snapshot has no lines), the rule is the policy's validation."""
    rules: dict[str, dict[str, Any]] = {}
    results: list[dict[str, Any]] = []
    for key in sorted(impact.bindings):
        b = impact.bindings[key]
        for o in b.objects.sorted():
            verdict = o.get("verdict")
            if verdict not in _SARIF_LEVEL:
                continue
            rule_id = f"{b.policy}/{o.get('field') or 'policy'}"
            rules.setdefault(
                rule_id,
                {"id": rule_id, "shortDescription": {"text": f"{b.policy} {o.get('field') or ''}".strip()}},
            )
            results.append(
                {
                    "ruleId": rule_id,
                    "level": _SARIF_LEVEL[str(verdict)],
                    "message": {"text": f"{verdict} by binding '{b.binding}': {o.get('message', '')}"},
                    "locations": [
                        {
                            "logicalLocations": [
                                {"fullyQualifiedName": _who(o), "kind": "resource"},
                            ]
                        }
                    ],
                    "properties": {
                        "binding": b.binding,
                        "verdict": verdict,
                        **{k: o[k] for k in ("kind", "namespace", "name") if k in o},
                    },
                }
            )
    doc = {
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": "vap-lsp impact",
                        "version": __version__,
                        "rules": [rules[k] for k in sorted(rules)],
                    }
                },
                "results": results,
            }
        ],
    }
    return json.dumps(doc, indent=2, ensure_ascii=False) + "\n"


# --- HTML ---------------------------------------------------------------------------------------------

_COLORS = {
    "denied": "#c62828",
    "errors": "#6a1b9a",
    "warned": "#ef6c00",
    "audited": "#1565c0",
    "admitted": "#2e7d32",
}


def _bar_chart(title: str, rows: list[tuple[str, dict[str, int]]], series: tuple[str, ...]) -> str:
    """Horizontal stacked bars, one per row, in inline SVG."""
    e = html.escape
    label_w, bar_w, row_h = 330, 420, 26
    height = 40 + row_h * max(1, len(rows)) + 30
    peak = max([sum(v.get(s, 0) for s in series) for _n, v in rows] + [1])
    parts = [
        f'<svg role="img" aria-label="{e(title)}" width="{label_w + bar_w + 80}" height="{height}" '
        f'xmlns="http://www.w3.org/2000/svg" font-family="sans-serif" font-size="13">',
        f'<text x="0" y="18" font-weight="bold">{e(title)}</text>',
    ]
    if not rows:
        parts.append('<text x="0" y="50">nothing failed</text>')
    for i, (name, values) in enumerate(rows):
        y = 32 + i * row_h
        short = name if len(name) <= 44 else name[:43] + "…"
        parts.append(f'<text x="{label_w - 8}" y="{y + 15}" text-anchor="end">')
        parts.append(f"<title>{e(name)}</title>{e(short)}</text>")
        x = float(label_w)
        for s in series:
            n = values.get(s, 0)
            if not n:
                continue
            w = max(1.0, bar_w * n / peak)
            parts.append(
                f'<rect x="{x:.1f}" y="{y + 2}" width="{w:.1f}" height="{row_h - 8}" fill="{_COLORS[s]}">'
                f"<title>{e(name)}: {n} {s}</title></rect>"
            )
            x += w
        parts.append(f'<text x="{x + 6:.1f}" y="{y + 15}">{sum(values.get(s, 0) for s in series)}</text>')
    ly = 32 + row_h * max(1, len(rows)) + 14
    lx = label_w
    for s in series:
        parts.append(f'<rect x="{lx}" y="{ly - 10}" width="12" height="12" fill="{_COLORS[s]}"/>')
        parts.append(f'<text x="{lx + 16}" y="{ly}">{s}</text>')
        lx += 90
    parts.append("</svg>")
    return "".join(parts)


_CSS = """
body{font-family:system-ui,sans-serif;margin:24px;color:#222;max-width:1100px}
h1{font-size:22px}h2{font-size:18px;margin-top:28px}
table{border-collapse:collapse;margin:8px 0}td,th{border:1px solid #ccc;padding:4px 8px;text-align:left}
td.n{text-align:right}th{background:#f3f3f3}.denied{color:#c62828}.errors{color:#6a1b9a}
.warned{color:#ef6c00}.audited{color:#1565c0}.charts{display:flex;flex-wrap:wrap;gap:24px}
.summary span{display:inline-block;margin-right:18px;font-size:16px}code{font-size:12px}
"""


def render_html(impact: Impact) -> str:
    e = html.escape
    series = ("denied", "warned", "audited", "errors")
    by_binding = [
        (f"{b.policy} / {b.binding}", b.counts)
        for b in sorted(impact.bindings.values(), key=lambda b: (-_failed(b.counts), b.policy, b.binding))
        if _failed(b.counts)
    ][:15]
    by_ns = [
        (ns or "(cluster)", row)
        for ns, row in sorted(impact.namespaces.items(), key=lambda kv: (-_failed(kv[1]), kv[0]))
        if _failed(row)
    ][:15]
    v = impact.verdicts
    out = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        f"<title>vap-lsp impact: {e(_subject(impact))}</title>",
        f"<style>{_CSS}</style></head><body>",
        f"<h1>Impact over {e(_subject(impact))} (Kubernetes {e(impact.kubernetes_version)})</h1>",
        '<p class="summary">'
        + "".join(
            f'<span class="{k}"><b id="total-{k}">{v.get(k, 0)}</b> {h}</span>'
            for k, h in zip(_COLUMNS, _HEADERS, strict=True)
        )
        + "</p>",
        '<div class="charts">',
        _bar_chart("Failures per binding", by_binding, series),
        _bar_chart("Failures per namespace", by_ns, series),
        "</div>",
    ]
    if impact.changes is not None:
        out.append("<h2>Changes against the base</h2>")
        for key, title in (("newlyDenied", "Newly denied"), ("newlyAdmitted", "Newly admitted")):
            rows, total = _changes(impact, key)
            out.append(f"<h3>{title}: {total}</h3>")
            if rows:
                out.append("<table><tr><th>object</th><th>binding</th><th>message</th></tr>")
                out += [
                    f"<tr><td>{e(_who(r))}</td><td>{e(str(r.get('binding')))}</td><td>{e(str(r.get('message')))}</td></tr>"
                    for r in rows[:200]
                ]
                out.append("</table>")
    out.append('<h2>Bindings</h2><table id="bindings"><tr><th>binding</th><th>actions</th>')
    out.append("".join(f"<th>{h}</th>" for h in _HEADERS) + "</tr>")
    for r in _binding_rows(impact):
        out.append(
            f"<tr><td>{e(r[0])}</td><td>{e(r[1])}</td>"
            + "".join(f'<td class="n {c}">{x}</td>' for c, x in zip(_COLUMNS, r[2:], strict=True))
            + "</tr>"
        )
    out.append("</table>")
    top = impact.top_failures()
    if top:
        out.append("<h2>Top failing validations</h2><table>")
        out.append("<tr><th>count</th><th>policy</th><th>validation</th><th>message</th></tr>")
        out += [
            f'<tr><td class="n">{t["count"]}</td><td>{e(t["policy"])}</td>'
            f"<td><code>{e(t['field'])}</code></td><td>{e(t['message'])}</td></tr>"
            for t in top
        ]
        out.append("</table>")
    for title, rows, total in _failed_objects(impact):
        out.append(f"<h2>{e(title)}: {total} failing</h2><table>")
        out.append("<tr><th>verdict</th><th>object</th><th>message</th></tr>")
        out += [
            f'<tr><td class="{e(str(o.get("verdict")))}">{e(str(o.get("verdict")))}</td><td>{e(_who(o))}</td>'
            f"<td>{e(str(o.get('message', '')))}</td></tr>"
            for o in rows[:500]
        ]
        out.append("</table>")
    if impact.audit:
        out.append("<h2>Audit log</h2><table>")
        out += [f'<tr><td>{e(k)}</td><td class="n">{n}</td></tr>' for k, n in sorted(impact.audit.items())]
        out.append("</table>")
    out += [f"<p><i>note: {e(n)}</i></p>" for n in impact.notes]
    out.append("</body></html>")
    return "\n".join(out) + "\n"


RENDERERS: dict[str, Callable[[Impact], str]] = {
    "text": render_text,
    "json": render_json,
    "markdown": render_markdown,
    "sarif": render_sarif,
    "html": render_html,
}
