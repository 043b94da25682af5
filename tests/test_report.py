"""``werewolf-bench report`` and ``rescore``: files, tables, baselines, the offline HTML in a real
headless Chromium, and re-scoring with another labeler (model-free and an LLM on a local server)."""

from __future__ import annotations

import base64
import csv
import json
import os
import shutil
from pathlib import Path

import pytest

from werewolf_deception.agents.fake.server import FakeOpenAIServer, FaultPlan
from werewolf_deception.benchmarks.cli.main import main
from werewolf_env.analysis.metrics import GameRecord
from werewolf_env.engine.log import read_log, replay

from .test_metrics import garbage_game

ANALYSIS_KINDS = ("self_analysis", "peer_analysis")


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("run")
    assert main(["run", "--games", "4", "--seed", "5", "--out", str(out), "--baseline-games", "3"]) == 0
    return out


def rows(path: Path) -> list[dict[str, str]]:
    with path.open(newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


def test_run_writes_a_full_report(run_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    document = json.loads((run_dir / "metrics.json").read_text())
    assert document["schema_version"] == 6 and document["run"]["games"] == 4
    assert document["run"]["lineups"] == ["heuristic"]
    assert set(document["baselines"]) == {"heuristic", "random"}
    assert document["baselines"]["random"]["seeds"] == [5, 6, 7]
    assert len(list((run_dir / "baselines" / "random" / "games").glob("*.ndjson"))) == 3
    detective = document["metrics"]["detective"]["by_role"]["seer"]
    assert 0 <= detective["f1"]["ci"][0] <= detective["f1"]["value"] <= detective["f1"]["ci"][1] <= 1
    records = [GameRecord.from_events(read_log(p)) for p in sorted((run_dir / "games").glob("*.ndjson"))]
    tables = {
        name: rows(run_dir / "tables" / f"{name}.csv")
        for name in ("games", "players", "statements", "analyses", "votes")
    }
    assert len(tables["games"]) == 4
    assert len(tables["players"]) == 4 * 8
    assert len(tables["statements"]) == sum(len(r.statements) for r in records)
    analyses = sum(len(s.peer_labels) + (s.self_label is not None) for r in records for s in r.statements)
    assert len(tables["analyses"]) == analyses
    assert {row["answered"] for row in tables["analyses"]} == {"True"}  # the heuristic answers every analysis
    assert document["metrics"]["detective"]["by_role"]["seer"]["coverage"]["share"] == 1.0
    heuristic = document["validity"]["policies"]["heuristic"]
    assert heuristic["seat_games"] == 4 * 8 and heuristic["overall"]["fallback"] == 0
    assert heuristic["overall"]["actions"] == sum(int(row["actions"]) for row in tables["games"])
    assert heuristic["overall"]["answered"] is None  # no model: outcomes unknown
    assert {row["game"] for row in tables["statements"]} == {row["game"] for row in tables["games"]}
    assert sum(int(row["lies"]) for row in tables["players"]) == sum(
        row["lie"] == "True" for row in tables["statements"]
    )
    html = (run_dir / "report.html").read_text()
    assert "Detective capacity" in html and "R " in html
    # The heuristic baseline of a heuristic run is the run itself: named once, its figures not repeated (no "H").
    assert "heuristic = the lineup itself" in html and "H " not in html
    # The answer first: findings cards, then the key plots, then the tables folded (the browser test checks layout).
    assert html.index("class='cards'") < html.index("id='key-plots'") < html.index("<details") < html.index("Outcomes")
    assert "<details open" not in html and "Status: fine" in html and "no table of answer outcomes" in html
    assert "analyses answered / asked" in html and "no valid predictions" not in html
    capsys.readouterr()
    assert (
        main(
            ["report", str(run_dir), "--out", str(tmp_path), "--baseline-games", "0", "--no-plots", "--resamples", "50"]
        )
        == 0
    )
    out = capsys.readouterr().out
    for role, values in document["metrics"]["detective"]["by_role"].items():  # F1, ..., answered/expected
        n = values["coverage"]["expected"]
        line = next(x for x in out.splitlines() if x.split()[:1] == [role] and "[" in x)
        assert line.split()[1] == f"{values['f1']['value']:.2f}" and f"{n}/{n}" in line.split()
    assert "no valid predictions" not in out and "analyses: " not in out  # all answered: no coverage warning
    # Persuasion: a line per speaker team and the village's resistance, each saying what it rests on.
    moved = document["metrics"]["persuasion"]["speaker"]["all"]["all"]
    assert f"answered peer analyses {moved['coverage']['answered']}/{moved['coverage']['expected']}" in out
    assert "vote polls off" in out and "village listeners' resistance to lies" in out
    assert "Persuasion: what statements did to the listeners" in html and "lies that succeeded" in html
    assert rows(run_dir / "tables" / "polls.csv") == []  # polls off: the table is there, empty
    statements = tables["statements"]
    assert sum(int(row["shift_fallbacks"]) for row in statements) == 0 and moved["coverage"]["share"] == 1.0
    assert len(list((run_dir / "viewer").glob("*.html"))) == 4
    # matplotlib is in the test extra: the plots are always there
    assert (run_dir / "plots" / "calibration.png").is_file()
    assert (run_dir / "plots" / "belief_shift_by_role.png").is_file()
    assert "belief shifts of lies and truths by speaker role" in html
    assert "data:image/png;base64," in html


def test_report_leaves_out_unfinished_logs(run_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    logs = sorted((run_dir / "games").glob("*.ndjson"))
    (tmp_path / "games").mkdir()
    for log in logs[:2]:
        shutil.copy(log, tmp_path / "games" / log.name)
    lines = logs[2].read_text().splitlines()
    (tmp_path / "games" / logs[2].name).write_text("\n".join(lines[: len(lines) // 3]) + '\n{"seq": 9, "ty')
    options = ["--baseline-games", "0", "--no-plots", "--resamples", "100"]
    assert main(["report", str(tmp_path), *options]) == 2  # a log that does not replay whole: refused
    assert not (tmp_path / "metrics.json").exists()
    assert main(["report", str(tmp_path), *options, "--allow-unverified"]) == 0
    document = json.loads((tmp_path / "metrics.json").read_text())
    assert document["run"]["games"] == 2
    assert document["run"]["incomplete_logs"] == [str(tmp_path / "games" / logs[2].name)]
    assert "2 games" in capsys.readouterr().out
    assert main(["report", str(tmp_path / "nothing-here")]) == 2


def test_report_on_a_run_whose_analyses_all_fell_back(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A model that never gives a usable analysis: no detection figure, no 0.00, coverage 0 / n."""
    records = [garbage_game(tmp_path / "games", seed=seed) for seed in (1, 2)]
    asked = sum(len(st.peer_labels) for r in records for st in r.statements)
    capsys.readouterr()
    # Written, and invalid: the policy's analyses all fell back (over the default max fallback rate, 10%).
    assert main(["report", str(tmp_path), "--baseline-games", "0", "--resamples", "50"]) == 4
    out = capsys.readouterr().out
    assert out.startswith("INVALID RUN: garbage fell back on ")
    assert "no valid predictions" in out and "F1 0.00" not in out and "F1 n/a" not in out
    assert f"analyses: 0 answered / {asked + sum(len(r.statements) for r in records)} expected" in out
    document = json.loads((tmp_path / "metrics.json").read_text())
    for role, values in document["metrics"]["detective"]["by_role"].items():
        line = next(x for x in out.splitlines() if x.split()[:1] == [role] and "valid" in x)
        assert line.split()[1:4] == ["no", "valid", "predictions"] and f"0/{values['coverage']['expected']}" in line
    detective = document["metrics"]["detective"]["all"]["all"]
    assert detective["no_valid_predictions"] is True and detective["f1"]["value"] is None
    assert detective["coverage"] == {"answered": 0, "expected": asked, "share": 0.0}
    garbage = document["validity"]["policies"]["garbage"]
    assert garbage["by_kind"]["peer_analysis"]["fallback_rate"] == 1.0
    assert (
        garbage["by_kind"]["peer_analysis"]["invalid_fields"]["unparseable JSON"]
        == garbage["by_kind"]["peer_analysis"]["actions"]
    )
    analyses = rows(tmp_path / "tables" / "analyses.csv")
    assert len(analyses) == asked + sum(len(r.statements) for r in records)  # every row kept, marked
    assert {row["answered"] for row in analyses} == {"False"}
    html = (tmp_path / "report.html").read_text()
    assert "no valid predictions" in html and "fell back to the env" in html
    assert "0 / " in html  # coverage cells


def _non_analysis(path: Path) -> list[dict]:
    return [
        r
        for r in read_log(path)
        if r["type"] not in ("agent_record", "suspicion", "snapshot")
        and not (r["type"] == "action" and r["data"]["kind"] in ANALYSIS_KINDS)
    ]


def _analyses(path: Path) -> list[tuple[int, str]]:
    return [
        (r["actor"], r["data"]["kind"])
        for r in read_log(path)
        if r["type"] == "action" and r["data"]["kind"] in ANALYSIS_KINDS
    ]


def test_rescore_changes_only_the_labels(run_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["rescore", str(run_dir), "--labeler", "random", "--no-plots", "--max-fallback-rate", "0.3"]) == 0
    out = run_dir / "rescore" / "random"
    originals = sorted((run_dir / "games").glob("*.ndjson"))
    assert len(list((out / "games").glob("*.ndjson"))) == len(originals)
    changed = 0
    for original in originals:
        rescored = out / "games" / original.name
        assert _non_analysis(rescored) == _non_analysis(original)
        assert _analyses(rescored) == _analyses(original)
        changed += [r["data"]["parsed"] for r in read_log(rescored) if r["type"] == "action"] != [
            r["data"]["parsed"] for r in read_log(original) if r["type"] == "action"
        ]
        assert replay(rescored).ok
        labeler = next(r for r in read_log(rescored) if r["type"] == "agent_record" and r["data"]["type"] == "labeler")
        assert labeler["data"]["policies"] == ["random"] * 8
        assert GameRecord.from_events(read_log(rescored)).policies == ["heuristic"] * 8  # the players stay
    assert changed == len(originals)
    document = json.loads((out / "metrics.json").read_text())
    assert document["run"]["games"] == len(originals)
    # Judged by the rescore's own --max-fallback-rate, which its folder keeps for a later ``report``.
    assert document["run"]["max_fallback_rate"] == 0.3 and document["run"]["max_fallback_rate_from"] == "command"
    assert json.loads((out / "rescore.json").read_text())["max_fallback_rate"] == 0.3
    assert (out / "tables" / "analyses.csv").is_file()
    printed = capsys.readouterr().out
    assert "on the analyses answered under both" in printed
    for role, values in document["metrics"]["detective"]["by_role"].items():
        line = next(x for x in printed.splitlines() if x.strip().startswith(role) and "->" in x)
        n = values["coverage"]["expected"]
        assert f"original {n} answered / {n} expected, new {n} answered / {n} expected, compared on {n}" in line
    assert main(["report", str(out), "--baseline-games", "0", "--resamples", "0", "--no-plots"]) == 0
    later = json.loads((out / "metrics.json").read_text())["run"]  # a later report of the rescore's folder
    assert later["max_fallback_rate"] == 0.3 and later["max_fallback_rate_from"] == "rescore.json"


def test_rescore_with_a_labeler_that_never_answers(
    run_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Every answer of the labeler is unusable: the comparison says so rather than printing 0.00."""
    with FakeOpenAIServer(faults=FaultPlan(rates={"malformed": 1.0})) as server:
        lineup = tmp_path / "broken.json"
        lineup.write_text(json.dumps({"default": {"kind": "llm", "model": "m", "base_url": server.base_url}}))
        capsys.readouterr()
        code = main(["rescore", str(run_dir), "--labeler", str(lineup), "--out", str(tmp_path / "out"), "--no-plots"])
    assert code == 4  # every analysis fell back: over --max-fallback-rate, not a measurement (the report is written)
    printed = capsys.readouterr().out
    document = json.loads((tmp_path / "out" / "metrics.json").read_text())
    total = document["metrics"]["totals"]["analysis_coverage"]
    assert total["answered"] == 0 and total["expected"] > 0
    assert f"labels by broken 0 answered / {total['expected']} expected" in printed
    lines = [x for x in printed.splitlines() if x.startswith("    ")]
    assert lines and all("no valid predictions" in x and "compared on 0" in x for x in lines)
    assert "0.00" not in printed
    judge = document["validity"]["policies"]["llm:m"]["overall"]
    assert judge["invalid_rate"] == 1.0 and judge["fallback_rate"] == 1.0


def test_rescore_with_an_llm_labeler(run_dir: Path, tmp_path: Path) -> None:
    with FakeOpenAIServer() as server:
        code = main(
            [
                "rescore",
                str(run_dir),
                "--labeler",
                "judge-model",
                "--base-url",
                server.base_url,
                "--out",
                str(tmp_path),
                "--no-plots",
            ]
        )
        requests = len(server.requests)
    assert code == 0
    analyses = sum(len(_analyses(p)) for p in (run_dir / "games").glob("*.ndjson"))
    assert requests >= analyses  # one call per analysis (more where a repair was needed)
    for original in (run_dir / "games").glob("*.ndjson"):
        rescored = tmp_path / "games" / original.name
        assert _non_analysis(rescored) == _non_analysis(original)
        calls = [r for r in read_log(rescored) if r["type"] == "agent_record" and r["data"].get("type") == "llm_call"]
        assert {c["data"]["action_kind"] for c in calls} == set(ANALYSIS_KINDS)


# ---------------------------------------------------------------------- the pages in a real browser

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
CHROMEDRIVER = shutil.which("chromedriver")


@pytest.fixture(scope="module")
def browser():  # type: ignore[no-untyped-def]
    if not (CHROMIUM and CHROMEDRIVER):
        if os.environ.get("CI"):
            pytest.fail("CI must install Debian's chromium and chromium-driver (see .ci/run)")
        pytest.skip("Debian's chromium and chromium-driver are not installed")
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in (
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--disable-dev-shm-usage",
    ):
        options.add_argument(flag)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
    yield driver
    driver.quit()


def _console_problems(driver) -> list[dict]:  # type: ignore[no-untyped-def]
    return [e for e in driver.get_log("browser") if e["level"] in ("SEVERE", "WARNING")]


def test_console_check_sees_a_broken_page(tmp_path: Path, browser) -> None:  # type: ignore[no-untyped-def]
    """A positive control: the same check reports a page whose script fails."""
    page = tmp_path / "broken.html"
    page.write_text(
        '<!DOCTYPE html><html><head><link rel="icon" href="data:,"></head>'
        "<body><script>notDefinedAnywhere();</script></body></html>"
    )
    browser.get(page.as_uri())
    assert any("notDefinedAnywhere" in e["message"] for e in _console_problems(browser))


def test_pages_load_in_chromium_without_console_errors(run_dir: Path, browser) -> None:  # type: ignore[no-untyped-def]
    from selenium.webdriver.common.by import By

    browser.get((run_dir / "report.html").as_uri())
    assert "Werewolf" in browser.title
    assert _console_problems(browser) == []
    links = browser.find_elements(By.CSS_SELECTOR, "a[href^='viewer/']")
    assert len(links) == 4
    for log in sorted((run_dir / "games").glob("*.ndjson")):
        record = GameRecord.from_events(read_log(log))
        browser.get((run_dir / "viewer" / f"{log.stem}.html").as_uri())
        statements = browser.find_elements(By.CSS_SELECTOR, "article.statement")
        assert len(statements) == len(record.statements) > 0
        hidden = browser.find_elements(By.CSS_SELECTOR, ".hidden-info")
        assert hidden and all(h.is_displayed() for h in hidden[:5])
        browser.find_element(By.ID, "hide-hidden").click()  # the one script: hide what no player saw
        assert not any(h.is_displayed() for h in browser.find_elements(By.CSS_SELECTOR, ".hidden-info")[:20])
        assert all(s.is_displayed() for s in statements)  # the public statements stay
        assert _console_problems(browser) == [], log.name


# Every element's right edge (details opened or not), and the page's own scroll width, against the window's.
TOO_WIDE = """
const width = document.documentElement.clientWidth;
const wide = [...document.querySelectorAll('body *')].filter(e => e.getBoundingClientRect().right > width + 0.5);
return [document.documentElement.scrollWidth - width, wide.map(e => e.tagName + '.' + e.className).slice(0, 5)];
"""
TOPS = """return [...document.querySelectorAll(arguments[0])].map(e => {
  const r = e.getBoundingClientRect(); return [r.top + scrollY, r.bottom + scrollY]; });"""


def _shoot(driver, name: str) -> None:  # type: ignore[no-untyped-def]
    """The whole page as a PNG in ``WEREWOLF_SCREENSHOTS`` (CI keeps the folder for people to look at)."""
    folder = os.environ.get("WEREWOLF_SCREENSHOTS")
    if folder:
        Path(folder).mkdir(parents=True, exist_ok=True)
        height = driver.execute_script("return document.documentElement.scrollHeight")
        clip = {"x": 0, "y": 0, "width": 1280, "height": min(height, 8000), "scale": 1}
        shot = driver.execute_cdp_cmd("Page.captureScreenshot", {"captureBeyondViewport": True, "clip": clip})
        (Path(folder) / f"{name}.png").write_bytes(base64.b64decode(shot["data"]))


def test_report_first_screen_at_1280_by_800(run_dir: Path, browser) -> None:  # type: ignore[no-untyped-def]
    """The report as a reader opens it: the findings cards fill the first screen, the first key plot starts within
    two screens, the tables are folded after it, nothing is wider than the window (tables opened or not), and
    printing shows the folded sections."""
    screen = 800
    browser.execute_cdp_cmd(
        "Emulation.setDeviceMetricsOverride", {"width": 1280, "height": screen, "deviceScaleFactor": 1, "mobile": False}
    )
    try:
        browser.get((run_dir / "report.html").as_uri())
        assert browser.execute_script("return [innerWidth, innerHeight]") == [1280, screen]
        cards = browser.execute_script(TOPS, ".cards .card")
        assert len(cards) == 2 and all(bottom <= screen for _, bottom in cards), cards  # village and werewolf team
        (status_top, _), *_ = browser.execute_script(TOPS, ".status")
        plots = browser.execute_script(TOPS, ".key-plots img")
        sections = browser.execute_script(TOPS, "details.section")
        assert len(plots) == 3 and plots[0][0] < 2 * screen, plots
        assert status_top < cards[0][0] < plots[0][0] < plots[-1][1] <= sections[0][0]  # findings, plots, tables
        assert browser.execute_script("return [...document.querySelectorAll('details')].some(d => d.open)") is False
        assert browser.execute_script(TOO_WIDE) == [0, []]
        alts = browser.execute_script("return [...document.querySelectorAll('.key-plots img')].map(i => i.alt)")
        assert all(len(alt) > 40 for alt in alts)  # alt text says what the plot shows, not just its name
        _shoot(browser, "report-first-screen")
        browser.execute_script("document.querySelectorAll('details').forEach(d => { d.open = true; })")
        assert browser.execute_script(TOO_WIDE) == [0, []]  # every table, opened, fits the window
        _shoot(browser, "report-opened")
        browser.execute_script("document.body.insertAdjacentHTML('beforeend', '<p style=\"width:1400px\">x</p>')")
        assert browser.execute_script(TOO_WIDE)[0] > 0  # positive control: the check sees a wide element
        browser.get((run_dir / "report.html").as_uri())
        table_shown = "return document.querySelector('details.section table').checkVisibility()"
        assert browser.execute_script(table_shown) is False  # folded on screen
        browser.execute_cdp_cmd("Emulation.setEmulatedMedia", {"media": "print"})
        assert browser.execute_script(table_shown) is True  # printed unfolded
        assert _console_problems(browser) == []
    finally:
        browser.execute_cdp_cmd("Emulation.setEmulatedMedia", {"media": ""})
        browser.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})


def test_the_report_judges_a_run_by_the_limit_it_was_played_with(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A run played with a lenient ``--max-fallback-rate`` is judged by it, in ``run``'s report and in a later
    ``report`` (from the run's summary.json), which says the limit is lenient; ``report --max-fallback-rate``
    judges by another, and a folder of logs alone by the default."""
    monkeypatch.setenv("OPENAI_API_KEY", "sk-x")
    out = tmp_path / "run"
    with FakeOpenAIServer(faults=FaultPlan(rates={"malformed": 0.9}, seed=3)) as server:
        code = main(
            ["run", "--model", "fake", "--base-url", server.base_url, "--games", "1", "--players", "5",
             "--rounds", "1", "--debate-turns", "1", "--retries", "0", "--out", str(out), "--baseline-games", "0",
             "--max-fallback-rate", "0.95", "--quiet"]
        )  # fmt: skip
    assert code == 0
    document = json.loads((out / "metrics.json").read_text())  # the report ``run`` wrote
    rate = document["validity"]["policies"]["llm:fake"]["overall"]
    assert 0.10 < rate["fallback_rate"] <= 0.95  # invalid by the default limit, valid by the run's own
    assert document["run"]["max_fallback_rate"] == 0.95 and document["run"]["max_fallback_rate_from"] == "command"
    assert "Status: caution" in (out / "report.html").read_text()

    def judged(*flags: str) -> tuple[int, dict[str, object], str, str]:
        capsys.readouterr()
        code = main(["report", str(out), "--baseline-games", "0", "--resamples", "0", "--no-plots", *flags])
        document = json.loads((out / "metrics.json").read_text())
        page = (out / "report.html").read_text()
        return code, document["run"], page[page.index("class='status") :].split("</p>")[0], capsys.readouterr().out

    code, run, status, printed = judged()
    assert code == 0 and run["max_fallback_rate"] == 0.95 and run["max_fallback_rate_from"] == "summary.json"
    assert "Status: caution" in status and "judged by a max fallback rate of 95%, above the default 10%" in status
    assert "INVALID" not in printed
    code, run, status, printed = judged("--max-fallback-rate", "0.1")
    assert code == 4 and run["max_fallback_rate"] == 0.1 and run["max_fallback_rate_from"] == "command"
    assert "Status: invalid" in status and "over the max fallback rate 10%" in status
    assert printed.startswith("INVALID RUN: llm:fake fell back on ")
    for untrusted in ('"lots"', "true", "NaN", "1e999", "-1", "[0.5]", "{}"):  # a file is never trusted blindly
        (out / "summary.json").write_text(f'{{"max_fallback_rate": {untrusted}}}')
        code, run, status, _ = judged()
        assert code == 4 and run["max_fallback_rate"] == 0.1 and run["max_fallback_rate_from"] == "default"
        assert "over the default max fallback rate 10% (the folder records none)" in status
    (out / "summary.json").unlink()
    (out / "tournament.json").write_text('{"max_fallback_rate": 0.96}')
    code, run, _, _ = judged()
    assert code == 0 and run["max_fallback_rate"] == 0.96 and run["max_fallback_rate_from"] == "tournament.json"
    capsys.readouterr()
    assert main(["report", str(out), "--max-fallback-rate", "nan"]) == 2
    assert "--max-fallback-rate must be between 0 and 1" in capsys.readouterr().err


def test_a_policy_seated_only_as_werewolves_is_never_the_best_detective(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Wolves know who lies among them: a policy playing only the werewolves flags its partners' lies from
    knowledge. Its detection (card, "who caught it", plot) is read on its village seats, where it has none."""
    lineup = tmp_path / "lineup.json"
    lineup.write_text(json.dumps({"default": "random", "teams": {"werewolf": {"kind": "heuristic", "name": "pack"}}}))
    out = tmp_path / "run"
    assert main(["run", "--lineup", str(lineup), "--games", "6", "--out", str(out), "--baseline-games", "0",
                 "--quiet"]) == 0  # fmt: skip
    detective = json.loads((out / "metrics.json").read_text())["metrics"]["detective"]
    pooled = detective["by_policy"]["pack"]["f1"]["value"]
    assert pooled is not None and pooled > detective["by_policy"]["random"]["f1"]["value"]  # knowledge, pooled in
    joint = detective["by_policy_team"]
    assert joint["pack | village"]["f1"]["value"] is None and joint["pack | village"]["analyses"] == 0
    assert joint["random | village"]["f1"] == detective["by_policy"]["random"]["f1"]  # random holds no wolf seat
    page = (out / "report.html").read_text()
    caught = page[page.index("Who caught it:") :].split("<b>")[0]
    assert (
        caught.startswith("Who caught it:</b> the <bdi>random</bdi> policy, detection F1")
        and "on its village seats" in caught
    )
    assert "detection F1 (village seats)" in page and "no lies heard, no flags, or (a policy) no village seat" in page
