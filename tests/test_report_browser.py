"""The HTML report opened in a real headless Chromium (Debian's `chromium`, driven by
Playwright's Python package; Playwright's own browser download is never used).

Without a Chromium these tests are SKIPPED, with the reason printed — never passed silently.
"""

from __future__ import annotations

import os
import shutil
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from auditor.engine import FINDING_COLUMNS, AuditResult, audit
from auditor.findings import InputSummary
from auditor.reporting import build_report, write_html
from pot_luck_rows import hand, write_log

ARTIFACTS = Path(__file__).resolve().parent.parent / "test-artifacts"
LAUNCH_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
               "--disable-component-update", "--disable-sync", "--no-first-run"]


def chromium_path() -> str | None:
    for candidate in (os.environ.get("AUDITOR_CHROMIUM"), "/usr/bin/chromium", shutil.which("chromium"),
                      shutil.which("chromium-browser")):
        if candidate and Path(candidate).is_file() and os.access(candidate, os.X_OK):
            return candidate
    return None


@pytest.fixture(scope="module")
def browser():
    exe = chromium_path()
    if exe is None:
        print("no Chromium found: install Debian's chromium")
        pytest.skip("no Chromium found: install Debian's chromium")
    sync_api = pytest.importorskip("playwright.sync_api", reason="playwright not installed: pip install -e '.[dev]'")
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=exe, args=LAUNCH_ARGS)
        yield b
        b.close()


class Page:
    """A page with every console error, page error and dialog recorded."""

    def __init__(self, browser, path: Path, width: int = 1400):
        self.page = browser.new_page(viewport={"width": width, "height": 1000})
        self.errors: list[str] = []
        self.dialogs: list[str] = []
        self.requests: list[str] = []
        self.page.on("console", lambda m: self.errors.append(m.text) if m.type == "error" else None)
        self.page.on("pageerror", lambda e: self.errors.append(str(e)))
        self.page.on("dialog", self._dialog)
        self.page.on("request", lambda r: self.requests.append(r.url))
        self.page.goto(path.resolve().as_uri())
        self.page.wait_for_selector("body[data-ready='1']", state="attached", timeout=30_000)

    def _dialog(self, dialog):
        self.dialogs.append(dialog.message)
        dialog.dismiss()

    def visible_rows(self) -> int:
        return self.page.locator("#findings-body tr.finding").count()

    def close(self):
        self.page.close()


# Round 2: the dealer drew on a soft 17 (PLB-DEALER-PLAY, table T1, 1 Nov); round 3: a win of
# 10.00 not paid (PLB-WIN, table T2, 2 Nov), dealt by a dealer whose id is a script tag;
# round 4: a win paid 15.00 (PLB-WIN, T1, 1 Nov).
ROWS = [
    hand("1"),
    hand("2", minute=1, dealer="AH 6C QD", cards="8S 3D 9C"),
    hand("3", table="T2", day=2, minute=2, dealer_id="<script>alert(1)</script>", net_main="0"),
    hand("4", minute=3, dealer_id="</script><img src=x onerror=alert(2)>", net_main="15.00"),
]


@pytest.fixture(scope="module")
def report_page(browser, tmp_path_factory):
    tmp = tmp_path_factory.mktemp("browser")
    result = audit([write_log(tmp / "mesa.csv", ROWS)])
    path = write_html(result, tmp / "audit-report.html")
    page = Page(browser, path)
    yield page
    page.close()


def test_no_console_errors_no_network_and_evidence_opens(report_page):
    page = report_page.page
    assert report_page.visible_rows() == 3
    assert report_page.errors == []
    assert all(u.startswith(("file:", "data:", "about:")) for u in report_page.requests), report_page.requests
    win_t1 = page.locator("#filter-table option", has_text="T1").get_attribute("value")
    page.select_option("#filter-table", win_t1)
    page.select_option("#filter-code", "PLB-WIN")
    row = page.locator("#findings-body tr.finding")
    assert row.count() == 1
    row.click()
    ev = page.locator("#findings-body tr.evidence-row")
    assert ev.count() == 1
    text = ev.inner_text()
    assert "Cartas del dealer" in text and "Cartas del jugador" in text
    assert "Decisiones, en orden" in text and "Pide carta (H)" in text and "Se planta (S)" in text
    assert ev.locator(".pcard").count() == 5  # dealer 10♥ 7♣, player 9♠ 7♦ 2♣
    assert ev.locator(".pcard.red").count() == 2 and "\u2665" in text and "\u2663" in text
    assert "S/ 10,00" in text and "S/ 15,00" in text  # expected and paid
    assert "Art. 15" in text and "«" in text  # the directive's quote
    row.click()  # closes again
    assert page.locator("#findings-body tr.evidence-row").count() == 0
    page.click("#filter-reset")
    row = page.locator("#findings-body tr.finding[data-code='PLB-DEALER-PLAY']")
    row.click()
    ev = page.locator("#findings-body tr.evidence-row")
    text = ev.inner_text()
    assert "Manos de la partida" in text and "Pide carta (H) \u2192 Se planta (S)" in text
    assert ev.locator(".pcard").count() == 6 and ev.locator(".pcard.red").count() == 3
    assert "Art. 14" in text
    row.click()  # closes again
    assert page.locator("#findings-body tr.evidence-row").count() == 0
    assert report_page.errors == []


def test_filters_and_sorting_change_the_visible_findings(report_page):
    page = report_page.page
    page.select_option("#filter-code", "PLB-WIN")
    assert report_page.visible_rows() == 2
    table_value = page.locator("#filter-table option", has_text="T2").get_attribute("value")
    page.select_option("#filter-table", table_value)
    assert report_page.visible_rows() == 1
    assert page.locator("#findings-body tr.finding td").nth(2).inner_text() == "T2"
    page.click("#filter-reset")
    assert report_page.visible_rows() == 3
    page.fill("#filter-from", "2026-11-02")
    assert report_page.visible_rows() == 1
    page.click("#filter-reset")
    page.select_option("#filter-severity", "high")
    assert report_page.visible_rows() == 3
    page.click("#filter-reset")
    page.click("#findings-table th[data-sort='impact']")
    first = page.locator("#findings-body tr.finding").first.locator("td").last.inner_text()
    assert first.startswith("-S/ 10,00")
    assert "Mostrados: 3 de 3" in page.inner_text("#filter-count")
    impact = page.locator("#findings-table th[data-sort='impact']")
    assert impact.get_attribute("aria-sort") == "ascending"
    impact.focus()  # and from the keyboard: the column sorts the other way
    page.keyboard.press("Enter")
    assert impact.get_attribute("aria-sort") == "descending"
    first = page.locator("#findings-body tr.finding").first.locator("td").last.inner_text()
    assert first.startswith("S/ 5,00")
    assert page.locator("#findings-table th[data-sort='time']").get_attribute("aria-sort") == "none"
    assert report_page.errors == []


def test_log_script_in_dealer_id_is_shown_as_text_and_runs_nothing(report_page):
    page = report_page.page
    page.click("#filter-reset")
    dealers = page.locator("#findings-body td.dealer").all_inner_texts()
    assert "<script>alert(1)</script>" in dealers
    assert "</script><img src=x onerror=alert(2)>" in dealers
    assert page.locator("#findings-body img").count() == 0
    options = page.locator("#filter-dealer option").all_inner_texts()
    assert "<script>alert(1)</script>" in options
    assert report_page.dialogs == []
    assert report_page.errors == []


def test_screenshot_artifact(report_page):
    ARTIFACTS.mkdir(exist_ok=True)
    page = report_page.page
    page.click("#filter-reset")
    page.locator("#findings-body tr.finding").first.click()
    out = ARTIFACTS / "report.png"
    page.screenshot(path=str(out), full_page=True)
    assert out.stat().st_size > 10_000
    print(f"screenshot: {out}")


def test_print_layout_hides_controls(report_page):
    page = report_page.page
    page.emulate_media(media="print")
    try:
        assert not page.locator("#controls").is_visible()
        assert not page.locator("#pager-top").is_visible()
        assert page.locator("#signature").is_visible()
        pdf = page.pdf(format="A4", display_header_footer=False)
        assert pdf[:4] == b"%PDF"
        (ARTIFACTS).mkdir(exist_ok=True)
        (ARTIFACTS / "report.pdf").write_bytes(pdf)
    finally:
        page.emulate_media(media="screen")


# What a page of A4 holds between its margins (210 mm - 2 x 12 mm) at the CSS pixel's 96 per inch.
A4_WIDTH = 703


def _overflowing(page) -> list:
    return page.evaluate("""() => [...document.querySelectorAll('body *')]
        .filter(e => e.getBoundingClientRect().width > 0 && e.scrollWidth > e.clientWidth + 1
                     && getComputedStyle(e).overflowX !== 'hidden')
        .map(e => e.tagName + '.' + e.className + ': ' + (e.textContent || '').slice(0, 40))""")


def test_print_gives_every_finding_of_the_view_with_its_evidence(browser, tmp_path):
    """The printed report is what a reviewer signs: not the screen's page of 100, but every
    finding the screen's filters keep, each with evidence and article, within an A4 page."""
    result = synthetic_result(230)
    page = Page(browser, write_html(result, tmp_path / "print.html"), width=A4_WIDTH)
    p = page.page
    try:
        p.select_option("#filter-code", "PLB-WIN")  # every 5th: 46 findings
        assert page.visible_rows() == 46
        p.evaluate("window.dispatchEvent(new Event('beforeprint'))")
        p.emulate_media(media="print")
        blocks = p.locator("#print-findings .pf")
        assert blocks.count() == 46
        assert not p.locator("#findings-table").is_visible()
        note = p.inner_text("#print-note")
        assert "Se imprimen 46 de los 230 hallazgos" in note and "Regla: PLB-WIN" in note
        first = blocks.first.inner_text()
        assert "PLB-WIN" in first and "Art. 15" in first and "Cartas del jugador:" in first
        assert _overflowing(p) == []
        p.evaluate("window.dispatchEvent(new Event('afterprint'))")
        assert p.locator("#print-findings .pf").count() == 0
        p.emulate_media(media="screen")
        assert p.locator("#findings-table").is_visible() and page.visible_rows() == 46
        p.click("#filter-reset")  # unfiltered: all 230, though the screen shows 100
        assert page.visible_rows() == 100
        p.evaluate("window.dispatchEvent(new Event('beforeprint'))")
        assert p.locator("#print-findings .pf").count() == 230
        assert "Filtros de pantalla" not in p.inner_text("#print-note")
        assert page.errors == [] and page.dialogs == []
    finally:
        page.close()


def test_the_findings_fit_a_laptops_width(browser, tmp_path):
    """At 1024 px the findings table keeps its amounts on the screen: no sideways scrolling."""
    page = Page(browser, write_html(synthetic_result(120), tmp_path / "laptop.html"), width=1024)
    try:
        assert page.page.evaluate("document.documentElement.scrollWidth") <= 1024
    finally:
        page.close()


def test_english_report(browser, tmp_path):
    result = audit([write_log(tmp_path / "mesa.csv", ROWS)], lang="en")
    page = Page(browser, write_html(result, tmp_path / "en.html"))
    try:
        page.page.locator("#findings-body tr.finding[data-code='PLB-DEALER-PLAY']").click()
        text = page.page.inner_text("#findings-body tr.evidence-row")
        assert "Dealer's cards" in text and "Hit (H)" in text
        assert "Page 1 of 1" in page.page.inner_text("#pager-top")
        assert page.errors == [] and page.dialogs == []
    finally:
        page.close()


def test_no_activity_page(browser, tmp_path):
    result = audit([write_log(tmp_path / "vacio.csv", [])])
    page = Page(browser, write_html(result, tmp_path / "vacio.html"))
    try:
        assert "Sin actividad" in page.page.inner_text("#no-activity")
        assert page.errors == []
    finally:
        page.close()


# --- 100,000 findings ---------------------------------------------------------------------

def synthetic_result(n: int) -> AuditResult:
    """An audit result with ``n`` synthetic findings (no log is audited)."""
    i = np.arange(n)
    codes = np.array(["PLB-WIN", "PLB-LOSE", "PLB-DEALER-PLAY", "PLB-INSURANCE", "PLB-POOL-COMMISSION"])
    sev = np.array(["high", "high", "high", "medium", "critical"])
    k = i % 5
    df = pd.DataFrame({
        "code": codes[k], "game": "pot-luck-blackjack", "directive": "Reglamento del juego Pot Luck Black Jack",
        "article": "Art. 15", "source": "TEXT", "severity": sev[k], "table_id": [f"PLB-{t:02d}" for t in i % 20],
        "round_id": [f"R{x:07d}" for x in i], "seat": (i % 7 + 1).astype(object), "hand": np.zeros(n, dtype=object),
        "started_at": [f"2026-11-{1 + d:02d}T20:{m:02d}:00-05:00" for d, m in zip(i % 28, i % 60)],
        "dealer_id": [f"CR-{d:03d}" for d in i % 50], "message": [f"Hallazgo {c}" for c in codes[k]],
        "expected": "10.00", "observed": "15.00", "impact": "5.00",
        "evidence": [{"dealer_cards": "TH 7C", "cards": "9S 7D 2C", "actions": "HS", "bet": "10.00"}] * n,
        "file": "synthetic.csv", "line": i + 2,
    }, columns=FINDING_COLUMNS)
    return AuditResult(
        inputs=[InputSummary(path="synthetic.csv", sha256="0" * 64, game="pot-luck-blackjack", records_read=n,
                             records_audited=n, records_rejected=0)],
        rules=[], findings=df, rejected=pd.DataFrame(columns=["file", "line", "field", "reason", "detail"]),
        games=["pot-luck-blackjack"], profiles=[], lang="es",
        period=("2026-11-01T20:00:00-05:00", "2026-11-28T20:59:00-05:00"),
        totals={"rounds": n, "hands": n, "wagered": 1000 * n})


def test_100k_findings_open_and_filter_quickly(browser, tmp_path):
    n = 100_000
    started = time.perf_counter()
    result = synthetic_result(n)
    report = build_report(result)
    path = write_html(result, tmp_path / "big.html", report=report)
    written = time.perf_counter() - started

    started = time.perf_counter()
    page = Page(browser, path)
    opened = time.perf_counter() - started
    try:
        assert page.visible_rows() == 100
        assert "Página 1 de 1\u202f000" in page.page.inner_text("#pager-top")
        started = time.perf_counter()
        page.page.select_option("#filter-code", "PLB-INSURANCE")
        table = page.page.locator("#filter-table option", has_text="PLB-03").get_attribute("value")
        page.page.select_option("#filter-table", table)
        count = page.page.inner_text("#filter-count")
        filtered = time.perf_counter() - started
        # codes repeat every 5 findings, tables every 20: PLB-INSURANCE (k=3) on PLB-03 is every 20th
        assert "Mostrados: 5\u202f000 de 100\u202f000" in count
        started = time.perf_counter()
        page.page.click("#findings-table th[data-sort='time']")
        page.page.locator(".pager .next").first.click()
        sorted_ = time.perf_counter() - started
        assert page.visible_rows() == 100
        assert page.errors == [] and page.dialogs == []
    finally:
        page.close()
    size = path.stat().st_size / 1e6
    print(f"\n100k findings: report written in {written:.1f} s ({size:.1f} MB), opened in {opened:.1f} s, "
          f"filtered in {filtered:.2f} s, sorted and paged in {sorted_:.2f} s")
    assert opened < 15 and filtered < 15 and sorted_ < 15  # sanity limits only
