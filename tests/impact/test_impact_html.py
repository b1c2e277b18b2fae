"""The HTML report in a real headless Chromium (Debian's, driven by Playwright): it renders
without any network request, its charts are SVG bars for the failing bindings and namespaces,
and a screenshot is written for a person to look at (`VAP_LSP_SCREENSHOTS=DIR` keeps it). The
charts' geometry, without a browser: everything drawn lies inside the picture."""

from __future__ import annotations

import os
import re
import shutil
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from tests.impact.conftest import impact_cli

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "impact"
CHROMIUM = Path("/usr/bin/chromium")


def test_html_report_renders_offline_with_its_charts(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is in the test extras")
    if not CHROMIUM.exists():
        pytest.skip("Debian's chromium is not installed (apt-get install chromium; .ci/editors.sh does)")
    report = tmp_path / "impact.html"
    code = impact_cli(
        [
            str(EXAMPLE / "policies"),
            "--objects",
            str(EXAMPLE / "cluster.yaml"),
            "--jobs",
            "1",
            "--format",
            "html",
            "--output-file",
            str(report),
        ]
    )
    assert code == 1
    assert capsys.readouterr().out == ""  # written to the file only
    requested: list[str] = []
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(
            executable_path=str(CHROMIUM), headless=True, args=["--no-sandbox", "--disable-gpu"]
        )
        try:
            page = browser.new_page(viewport={"width": 1200, "height": 900})
            page.on("request", lambda r: requested.append(r.url))
            page.goto(report.as_uri())
            page.wait_for_load_state("load")
            shot = tmp_path / "impact.png"
            page.screenshot(path=str(shot), full_page=True)
            title = page.title()
            totals = {k: page.inner_text(f"#total-{k}") for k in ("denied", "warned", "admitted")}
            charts = page.eval_on_selector_all(
                "svg[role=img]", "els => els.map(e => e.getAttribute('aria-label'))"
            )
            bars = page.eval_on_selector_all(
                "svg[role=img]",
                "els => els.map(e => [...e.querySelectorAll('rect > title')].map(t => t.textContent))",
            )
            widths = page.eval_on_selector_all(
                "svg[role=img]", "els => els.map(e => e.getBoundingClientRect().width)"
            )
            rows = page.eval_on_selector_all(
                "#bindings tr", "els => els.map(e => [...e.children].map(c => c.textContent))"
            )
        finally:
            browser.close()
    keep = os.environ.get("VAP_LSP_SCREENSHOTS")
    if keep:
        shutil.copy(shot, Path(keep) / "impact-report.png")
    assert requested == [report.as_uri()]  # self-contained: no script, style or font fetched
    assert title == "vap-lsp impact: 15 objects"
    # per request its strongest verdict (examples/impact/cluster.yaml: 3 without a team label, of
    # which one also runs an unpinned image; 2 more unpinned; 5 pass, the 4 Namespaces and the
    # kube-system Deployment match no binding)
    assert totals == {"denied": "3", "warned": "2", "admitted": "5"}
    assert charts == ["Failures per binding", "Failures per namespace"]
    assert sorted(bars[0]) == [
        "no-latest-images / no-latest-images: 3 warned",
        "require-team-label / require-team-label: 3 denied",
    ]
    assert sorted(bars[1]) == [
        "batch: 1 denied",
        "payments: 2 warned",
        "shop: 2 denied",
    ]
    assert all(w > 300 for w in widths)  # laid out, not collapsed
    assert rows[0][:3] == ["binding", "actions", "admitted"]
    assert ["require-team-label / require-team-label", "Deny", "6", "3", "0", "0", "0", "6"] in rows
    assert shot.stat().st_size > 10_000


SVG = "{http://www.w3.org/2000/svg}"
ONE_FAILURE = """
apiVersion: v1
kind: List
items:
- {apiVersion: v1, kind: Namespace, metadata: {name: shop}}
- apiVersion: apps/v1
  kind: Deployment
  metadata: {name: search, namespace: shop}
  spec: {replicas: 1, selector: {}, template: {spec: {containers: [{name: c, image: "nginx:1.27"}]}}}
"""


@pytest.mark.parametrize(
    ("snapshot", "rows"),
    [(ONE_FAILURE, 1), (ONE_FAILURE.replace("search, ", "search, labels: {team: a}, "), 0)],
    ids=["one-row", "no-row"],
)
def test_charts_draw_inside_their_picture(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], snapshot: str, rows: int
) -> None:
    """With one failing binding and namespace (one bar each), or none ("nothing failed"), the
    bars, the totals and the legend lie within the SVG's width and height: none is cut off."""
    (tmp_path / "cluster.yaml").write_text(snapshot)
    impact_cli([str(EXAMPLE / "policies"), "--objects", str(tmp_path / "cluster.yaml"), "--format", "html"])
    charts = [ET.fromstring(svg) for svg in re.findall(r"<svg .*?</svg>", capsys.readouterr().out)]
    assert [c.get("aria-label") for c in charts] == ["Failures per binding", "Failures per namespace"]
    for chart in charts:
        width, height = float(chart.get("width", "0")), float(chart.get("height", "0"))
        bars = [r for r in chart.iter(f"{SVG}rect") if r.find(f"{SVG}title") is not None]
        assert len(bars) == rows
        legend = [t.text for t in chart.iter(f"{SVG}text")][-4:]
        assert legend == ["denied", "warned", "audited", "errors"]
        for rect in chart.iter(f"{SVG}rect"):
            x, y = float(rect.get("x", "0")), float(rect.get("y", "0"))
            assert x + float(rect.get("width", "0")) <= width
            assert y + float(rect.get("height", "0")) <= height
        for text in chart.iter(f"{SVG}text"):
            assert float(text.get("x", "0")) <= width and float(text.get("y", "0")) <= height, text.text
