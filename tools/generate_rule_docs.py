"""Write docs/rules/ (one page per diagnostic code and an index) from vap_lsp.codes.catalog.

Usage: python tools/generate_rule_docs.py [--check]
With --check, write nothing and exit 1 when docs/rules/ differs from the catalog.
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from vap_lsp.codes import render_index, render_markdown, rules  # noqa: E402


def expected_pages() -> dict[str, str]:
    pages = {f"{code}.md": render_markdown(rule) for code, rule in rules().items()}
    pages["README.md"] = render_index()
    return pages


def main(argv: list[str]) -> int:
    out = ROOT / "docs" / "rules"
    pages = expected_pages()
    existing = {p.name for p in out.glob("*.md")} if out.is_dir() else set()
    stale = sorted(existing - set(pages))
    changed = sorted(
        name
        for name, text in pages.items()
        if not (out / name).is_file() or (out / name).read_text(encoding="utf-8") != text
    )
    if "--check" in argv:
        for name in changed + stale:
            print(f"docs/rules/{name} is out of date: run python tools/generate_rule_docs.py")
        return 1 if changed or stale else 0
    out.mkdir(parents=True, exist_ok=True)
    for name in stale:
        (out / name).unlink()
    for name in changed:
        (out / name).write_text(pages[name], encoding="utf-8")
    print(f"docs/rules: {len(pages)} pages, {len(changed)} written, {len(stale)} removed")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
