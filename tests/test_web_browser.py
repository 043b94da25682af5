"""``werewolf-bench serve`` in a real browser: two people, each in a headless Chromium of their own (Debian's, driven
by Debian's chromedriver through Selenium), click and type through a whole 5-player game against three agents.

It checks the controls each kind of turn draws, the live transcript, a turn left to the clock (the page says the
fallback answered), a tab closed and opened again (the seat resumes from its link), markup typed by a player shown
as text, a phone's screen width, no console errors, and the end-of-game reveal. ``WEREWOLF_SCREENSHOTS=<folder>``
keeps screenshots of the pages (the docs' pictures come from there).
"""

from __future__ import annotations

import os
import shutil
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import Select

pytest.importorskip("starlette", reason="werewolf-bench serve needs the web extra (starlette)")
pytest.importorskip("uvicorn", reason="werewolf-bench serve needs the web extra (uvicorn)")

from tests.web_server import make_host, served
from werewolf_env.engine import read_log, replay

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
CHROMEDRIVER = shutil.which("chromedriver")
HOSTILE = "<img src=x onerror=alert(1)> I trust Carla"
PHONE = (390, 844)


def chromium(width: int, height: int) -> Any:
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM  # type: ignore[assignment]
    for flag in ("--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--disable-dev-shm-usage",
                 f"--window-size={width},{height}"):  # fmt: skip
        options.add_argument(flag)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    return webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)  # type: ignore[arg-type]


def need_chromium() -> None:
    if not (CHROMIUM and CHROMEDRIVER):
        if os.environ.get("CI"):
            pytest.fail("CI must install Debian's chromium and chromium-driver (see .ci/run)")
        pytest.skip("Debian's chromium and chromium-driver are not installed")


@pytest.fixture
def browsers() -> Iterator[list[Any]]:
    need_chromium()
    drivers = [chromium(1200, 900), chromium(*PHONE)]
    try:
        yield drivers
    finally:
        for driver in drivers:
            driver.quit()


def shoot(driver: Any, name: str) -> None:
    folder = os.environ.get("WEREWOLF_SCREENSHOTS")
    if folder:
        Path(folder).mkdir(parents=True, exist_ok=True)
        driver.save_screenshot(str(Path(folder) / f"{name}.png"))


def open_turn(driver: Any) -> tuple[str, int] | None:
    """The kind and number of the turn the page shows, if one is open and drawn."""
    return driver.execute_script(
        "const t = document.getElementById('turn'), c = document.getElementById('controls');"
        "return (!t.hidden && c.dataset.turn && !c.dataset.sending) ? "
        "[c.dataset.kind, Number(c.dataset.turn)] : null;"
    )


def play_turn(driver: Any, kind: str) -> None:
    """Answer the open turn as a person would: click a name, slide the bid, type, tick the verdict."""
    controls = driver.find_element(By.ID, "controls")
    if kind == "bid":
        slider = controls.find_element(By.CSS_SELECTOR, "input#bid[type=range]")
        slider.send_keys(Keys.RIGHT, Keys.RIGHT, Keys.RIGHT)
        assert driver.find_element(By.ID, "bid-value").text == "3"
        controls.find_element(By.ID, "send").click()
    elif kind in ("statement", "summary"):
        box = controls.find_element(By.ID, "say")
        box.send_keys(HOSTILE if kind == "statement" else "my notes")
        if kind == "statement":
            assert "words" in controls.find_element(By.ID, "count").text  # the word cap, counted as one types
        controls.find_element(By.ID, "send").click()
    elif kind in ("self_analysis", "peer_analysis"):
        send = controls.find_element(By.ID, "send")
        assert not send.is_enabled(), "an analysis was ready to send before the person judged anything"
        controls.find_element(By.ID, "deceptive-yes").click()
        controls.find_element(By.ID, "probability").send_keys(Keys.RIGHT, Keys.RIGHT)
        if kind == "peer_analysis":
            controls.find_element(By.ID, "suspicion").send_keys(Keys.LEFT)
        assert not send.is_enabled(), "a deceptive verdict was ready to send without its kind"
        Select(controls.find_element(By.ID, "lie-type")).select_by_value("misdirection")
        assert send.is_enabled()
        send.click()
    else:
        buttons = controls.find_elements(By.CSS_SELECTOR, "button.target")
        assert buttons, f"a {kind} turn drew no names to click"
        buttons[0].click()


def timeouts_of(log_path: Path) -> list[tuple[int, int, str]]:
    """The turns the clock (or an empty page) played: (seat, turn, why), from the game's log."""
    return [(r["actor"], r["data"]["turn"], r["data"]["reason"]) for r in read_log(log_path)
            if r.get("type") == "agent_record" and r["data"]["type"] == "timeout"]  # fmt: skip


def console_errors(driver: Any) -> list[dict[str, Any]]:
    return [e for e in driver.get_log("browser") if e["level"] == "SEVERE"]


def test_two_people_play_a_whole_game_in_chromium(tmp_path: Path, browsers: list[Any]) -> None:
    host = make_host(
        tmp_path / "out", players=5, people=2, clock=10.0, seed=7
    )  # the turn let go waits this long; the others are answered at once
    table = host.new_table()
    links = [f"/seat/{token}" for token in table.seats]
    kinds: list[Counter[str]] = [Counter(), Counter()]
    with served(host) as base:
        browsers[0].get(f"{base}/host/{table.host_token}")  # the host's page: one invite link per person
        invites = [a.get_attribute("href") for a in browsers[0].find_elements(By.CSS_SELECTOR, "a.invite")]
        assert invites == [base + link for link in links]
        shoot(browsers[0], "host")
        for driver, link in zip(browsers, links, strict=True):
            driver.get(base + link)
        answered: list[set[int]] = [set(), set()]
        let_go: int | None = None  # the turn the phone's player leaves to the clock
        reopened = notice_seen = False
        deadline = time.monotonic() + 420
        while time.monotonic() < deadline and table.state not in ("over", "failed"):
            for i, driver in enumerate(browsers):
                turn = open_turn(driver)
                if turn is None or turn[1] in answered[i]:
                    continue
                kind, number = turn
                if i == 1 and let_go is None:
                    let_go = number
                    shoot(driver, "turn-phone")
                if i == 1 and number == let_go:
                    continue
                if i == 1 and not notice_seen:  # the next turn after the one let go: the page says what happened
                    assert "ran out" in driver.find_element(By.ID, "notice").text
                    notice_seen = True
                if i == 0 and not reopened and sum(kinds[0].values()) == 6:
                    # The tab closes and the link is opened again: the seat resumes where it was.
                    reopened = True
                    driver.get("about:blank")
                    driver.get(base + links[0])
                    for _ in range(100):
                        if open_turn(driver) == turn:
                            break
                        time.sleep(0.05)
                    assert open_turn(driver) == turn
                    assert driver.find_elements(By.CSS_SELECTOR, "#history li")
                if kind == "statement" and not kinds[i]["statement"]:
                    shoot(driver, f"statement-{'phone' if i else 'desktop'}")
                play_turn(driver, kind)
                answered[i].add(number)
                kinds[i][kind] += 1
            time.sleep(0.05)
        assert table.state == "over", table.error
        # The turn left to the clock: the page said so (the notice stays until the next answer).
        assert let_go is not None
        for driver in browsers:
            for _ in range(100):
                if driver.find_element(By.ID, "reveal").is_displayed():
                    break
                time.sleep(0.05)
        for i, driver in enumerate(browsers):
            shoot(driver, f"reveal-{'phone' if i else 'desktop'}")
            reveal = driver.find_element(By.ID, "reveal")
            assert reveal.is_displayed()
            assert len(reveal.find_elements(By.CSS_SELECTOR, "#roles tbody tr")) == 5
            rows = [row.text for row in reveal.find_elements(By.CSS_SELECTOR, "#roles tbody tr")]
            assert sum("a person" in row for row in rows) == 2
            statements = reveal.find_elements(By.CSS_SELECTOR, "#truth li")
            history = driver.find_element(By.ID, "history")
            # Markup a player typed is shown as text, in the transcript and in the reveal, never run as markup.
            assert not history.find_elements(By.TAG_NAME, "img") and not reveal.find_elements(By.TAG_NAME, "img")
            said = [li.text for li in history.find_elements(By.TAG_NAME, "li")]
            if kinds[0]["statement"] or kinds[1]["statement"]:
                assert any("<img src=x onerror=alert(1)>" in line for line in said)
            assert statements
            width = driver.execute_script("return [document.documentElement.scrollWidth, window.innerWidth]")
            assert width[0] <= width[1], f"the page is wider than the screen: {width}"
            assert console_errors(driver) == []
    assert reopened
    # Each person met the turns of a game, each drawn with its own controls.
    assert all(k["peer_analysis"] and k["vote"] + k["bid"] for k in kinds), kinds
    assert replay(table.log_path).ok  # type: ignore[arg-type]
    assert timeouts_of(table.log_path) == [(1, let_go, "clock")]  # type: ignore[arg-type]
    assert notice_seen


# The page's answers reach it late, as on a slow network or a loaded server: each POST's response is held back
# while the server has already opened the seat's next turn and streamed it.
# ``window.overtaken`` counts the answers whose response came after the page had drawn a newer turn.
SLOW_ANSWERS = """
window.overtaken = 0;
const realFetch = window.fetch;
window.fetch = (url, options) => realFetch(url, options).then((response) => {
  if (!(options && options.method === "POST" && String(url).endsWith("/answer"))) return response;
  const turn = JSON.parse(options.body).turn;
  return new Promise((resolve) => setTimeout(() => {
    const drawn = Number(document.getElementById("controls").dataset.turn);
    if (drawn > turn) window.overtaken += 1;
    resolve(response);
  }, 1500));
});
"""


def test_a_late_answer_response_never_hides_the_next_turn(tmp_path: Path) -> None:
    """A seat's next turn (the self-analysis after its statement, a statement after its bid) can open and be drawn
    before the response to the previous answer arrives; that response must not hide it."""
    need_chromium()
    host = make_host(tmp_path / "out", players=5, people=1, clock=10.0, seed=7)
    table = host.new_table()
    driver = chromium(1200, 900)
    answered: set[int] = set()
    try:
        with served(host) as base:
            driver.get(f"{base}/seat/{next(iter(table.seats))}")
            driver.execute_script(SLOW_ANSWERS)
            deadline = time.monotonic() + 300
            while time.monotonic() < deadline and table.state not in ("over", "failed"):
                turn = open_turn(driver)
                if turn is not None and turn[1] not in answered:
                    play_turn(driver, turn[0])
                    answered.add(turn[1])
                time.sleep(0.05)
            assert table.state == "over", table.error
            assert console_errors(driver) == []
            overtaken = driver.execute_script("return window.overtaken")
    finally:
        driver.quit()
    assert len(answered) > 5
    assert overtaken > 0, "no turn was drawn before the previous answer's response: the test checked nothing"
    assert timeouts_of(table.log_path) == []  # type: ignore[arg-type]
