"""The report pages in a real headless Chromium (Debian's chromium and chromedriver): the viewer's
"hide hidden information" switch leaves no role visible and every table aligned; no markup from a
hostile log runs; names that reorder text are shown inert."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from .report_pages_runs import BIDI, HOSTILE, LINEUP, hostile_run, report_hostile_run
from .test_report import _console_problems, browser  # noqa: F401  (browser: the shared Chromium fixture)

# A role or a team, in any form a page could print it.
ROLE_WORDS = re.compile(
    r"\b(?:were)?(?:wolf|wolves)\b|\bseers?\b|\bdoctors?\b|\bvillagers?\b|\bvillages?\b"
    r"|\bwitch(?:es)?\b|\bhunters?\b",
    re.I,
)

# Visible text and the alt / title of visible elements, outside public speech (statements, summaries,
# the claims read from them: what every player heard) and the announced outcome (what every player saw
# at the end). Chromium decides what is visible.
VISIBLE_TEXT = """
const shown = el => el.checkVisibility({checkOpacity: true, checkVisibilityCSS: true});
const out = [];
const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
while (walker.nextNode()) {
  const el = walker.currentNode.parentElement;
  if (el.closest('.speech, .outcome, script, style') || !shown(el)) continue;
  out.push(walker.currentNode.textContent);
}
for (const el of document.querySelectorAll('[alt], [title]')) {
  if (!shown(el) || el.closest('.speech, .outcome')) continue;
  out.push(el.getAttribute('alt') || '', el.getAttribute('title') || '');
}
return out.join('\\n');
"""

# For each visible table: the number of columns each visible row spans (colspans counted).
ROW_WIDTHS = """
const shown = el => el.checkVisibility({checkVisibilityCSS: true});
return [...document.querySelectorAll('table')].filter(shown).map(t =>
  [...t.rows].filter(shown).map(r => [...r.cells].filter(shown).reduce((n, c) => n + c.colSpan, 0)));
"""

VISIBLE_IMAGES = "return [...document.querySelectorAll('img')].filter(i => i.checkVisibility()).length;"

# Any element carrying an event-handler attribute, a script that is not the viewer's switch, or a
# javascript: link: markup that came from data.
INJECTED = """
const bad = [];
for (const el of document.querySelectorAll('*')) {
  for (const a of el.attributes) if (a.name.startsWith('on')) bad.push(el.tagName + ' ' + a.name);
  if (el.tagName === 'SCRIPT' && !el.textContent.includes('hide-hidden')) bad.push('script ' + el.textContent);
  if (el.tagName === 'A' && /^\\s*javascript:/i.test(el.getAttribute('href') || '')) bad.push('javascript: link');
  if (['SVG', 'IFRAME', 'OBJECT', 'EMBED'].includes(el.tagName.toUpperCase())) bad.push(el.tagName);
}
return bad;
"""


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    run = hostile_run(tmp_path_factory.mktemp("hostile"))
    report_hostile_run(run)
    return run


def _pages(run_dir: Path) -> list[Path]:
    viewers = sorted((run_dir / "viewer").glob("*.html"))
    assert viewers
    return [run_dir / "report.html", *viewers]


def _aligned(widths: list[list[int]]) -> bool:
    return all(len(set(rows)) <= 1 for rows in widths)


def test_hide_switch_leaves_no_role_visible(run_dir: Path, browser: Any) -> None:  # noqa: F811
    from selenium.webdriver.common.by import By

    for viewer in sorted((run_dir / "viewer").glob("*.html")):
        browser.get(viewer.as_uri())
        shown = browser.execute_script(VISIBLE_TEXT)
        # Positive control: with the switch off the same check sees the roles, the role-named policy
        # and the figures, so it would see them if the switch left them.
        assert ROLE_WORDS.search(shown) and LINEUP["teams"]["werewolf"]["name"] in shown, viewer.name
        assert browser.execute_script(VISIBLE_IMAGES) > 0
        assert _aligned(browser.execute_script(ROW_WIDTHS)), viewer.name
        browser.find_element(By.ID, "hide-hidden").click()
        hidden = browser.execute_script(VISIBLE_TEXT)
        assert not ROLE_WORDS.search(hidden), (viewer.name, ROLE_WORDS.findall(hidden))
        assert LINEUP["default"]["name"] not in hidden  # no policy: a lineup may key policies by role
        assert browser.execute_script(VISIBLE_IMAGES) == 0  # the figures show roles and private scores
        widths = browser.execute_script(ROW_WIDTHS)
        assert _aligned(widths), (viewer.name, widths)  # no header left over a column that hid
        roster = browser.find_element(By.CSS_SELECTOR, "table.roster")
        assert [c.text for c in roster.find_elements(By.CSS_SELECTOR, "th") if c.is_displayed()] == [
            "player",
            "at the end",
        ]
        assert browser.find_elements(By.CSS_SELECTOR, "article.statement .speech")  # the public game stays
        assert _console_problems(browser) == [], viewer.name


def test_no_markup_from_a_hostile_log_runs(run_dir: Path, browser: Any) -> None:  # noqa: F811
    for path in _pages(run_dir):
        browser.get(path.as_uri())
        assert browser.execute_script("return typeof window.__pwned") == "undefined", path.name
        assert browser.execute_script(INJECTED) == [], path.name
        assert _console_problems(browser) == [], path.name  # an injected <img src=x> would fail to load
        text = browser.execute_script("return document.body.innerText")
        # Shown as the text it is: the header's config on the report, the players' names on a game's page.
        shown = (HOSTILE[4], HOSTILE[2], HOSTILE[0]) if path.name == "report.html" else (HOSTILE[0], HOSTILE[1])
        assert all(payload in text for payload in shown), path.name


def test_names_that_reorder_text_are_shown_inert(run_dir: Path, browser: Any) -> None:  # noqa: F811
    from selenium.webdriver.common.by import By

    for path in _pages(run_dir):
        browser.get(path.as_uri())
        text = browser.execute_script("return document.body.innerText")
        assert not BIDI.search(text), path.name  # no control character reaches the page
        if path.name != "report.html":
            assert "[U+202E]evil[U+202C]" in text and "[U+2067]Iso[U+2069] bel" in text
            roster = browser.find_elements(By.CSS_SELECTOR, "table.roster td:first-child bdi")
            assert len(roster) == 8  # each name isolated from its neighbours
    browser.get((run_dir / "report.html").as_uri())
    assert len(browser.find_elements(By.CSS_SELECTOR, "figure img[src^='data:image/png;base64,']")) >= 4
