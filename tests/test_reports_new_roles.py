"""Transcripts, records, metrics and report pages know the witch, the hunter and a role registered at run time.

Games are played by random agents (they use potions and shots whatever the heuristic agent learns), seeded,
with a witch and a hunter; each assertion holds over the run, not one game, so a change in how the games go
leaves them true as long as some potion is used and some hunter shoots.
"""

from __future__ import annotations

import csv
import json
import re
from pathlib import Path
from typing import Any

import pytest

from werewolf_deception.agents import play_game_sync
from werewolf_deception.benchmarks.cli.main import main
from werewolf_deception.benchmarks.report.build import build_report
from werewolf_env.analysis.metrics import GameRecord, aggregate
from werewolf_env.analysis.role_figures import night_actions, role_kinds
from werewolf_env.core.roles import DEFAULT_RULESET, ROLE_SPECS, ActionKind, RoleSpec, Team
from werewolf_env.engine.log import read_log, replay
from werewolf_env.observe.build import Transcript

from .test_report import _console_problems, browser  # noqa: F401  (browser: the shared Chromium fixture)
from .test_report_pages_browser import ROW_WIDTHS, VISIBLE_TEXT, _aligned

WITCH_HUNTER = {"role_counts": {"werewolf": 2, "seer": 1, "doctor": 1, "witch": 1, "hunter": 1},
                "reveal_role_on_death": True}  # fmt: skip
SEEDS = (0, 1, 3, 5)


def play(folder: Path, config: dict[str, Any], seeds: tuple[int, ...] = SEEDS) -> list[Path]:
    for seed in seeds:
        play_game_sync(config, "random", seed, log_dir=folder)
    return sorted(folder.glob("*.ndjson"))


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    run = tmp_path_factory.mktemp("witch-hunter")
    play(run / "games", WITCH_HUNTER)
    return run


@pytest.fixture(scope="module")
def records(run_dir: Path) -> list[GameRecord]:
    return [GameRecord.from_events(read_log(p)) for p in sorted((run_dir / "games").glob("*.ndjson"))]


@pytest.fixture(scope="module")
def report(run_dir: Path) -> dict[str, Any]:
    assert main(["report", str(run_dir), "--baseline-games", "0", "--resamples", "20"]) == 0
    return json.loads((run_dir / "metrics.json").read_text(encoding="utf-8"))


def _spectator(path: Path, viewer: int | None = None, everything: bool = True) -> list[str]:
    state = replay(path).game.state  # type: ignore[union-attr]
    return Transcript(state.names, viewer, spectator=everything).update(state.events).splitlines()


# ------------------------------------------------------------------------------------------ records


def test_records_tell_poison_and_shot_deaths_from_the_packs(records: list[GameRecord]) -> None:
    causes = {d["cause"] for r in records for d in r.deaths}
    assert {"night", "poison", "shot"} <= causes
    for record in records:
        poisoned = {
            (e["round"], v)
            for e in record.events
            if e["type"] == "night_outcome"
            for v in e["data"].get("poisoned", ())
        }
        for death in record.deaths:
            if death["cause"] == "poison":  # the public event said "night"; the record knows better
                assert (death["round"], death["victim"]) in poisoned
            if death["cause"] == "shot":
                assert any(e["type"] == "shot" and e["data"]["target"] == death["victim"] for e in record.events)


def test_night_actions_carry_heals_poisons_and_shots(records: list[GameRecord]) -> None:
    actions = [a for r in records for a in night_actions(r)]
    kinds = {a["kind"] for a in actions if a["target"] is not None}
    assert {"eliminate", "protect", "unmask", "heal", "poison", "shoot"} <= kinds
    assert any(a["kind"] == "heal" and a["saved"] for a in actions)
    assert any(a["kind"] == "poison" and a["killed"] for a in actions)
    assert all(a["role"] == "witch" for a in actions if a["kind"] in ("heal", "poison"))
    assert all(a["role"] == "hunter" for a in actions if a["kind"] == "shoot")


# ------------------------------------------------------------------------------------------ transcripts


def test_spectator_transcript_has_the_witch_and_hunter_lines(run_dir: Path) -> None:
    lines = [line for p in sorted((run_dir / "games").glob("*.ndjson")) for line in _spectator(p)]
    text = "\n".join(lines)
    assert re.search(r"^\[witch \w+\] is told the werewolves' victim: \w+\.$", text, re.M)
    assert re.search(r"^\[witch \w+\] used the healing potion on \w+\.$", text, re.M)
    assert re.search(r"^\[witch \w+\] used the poison on \w+\.$", text, re.M)
    assert re.search(r"^Hunter \w+ shoots \w+, who dies\.$", text, re.M)
    assert re.search(r"^\w+ was shot\. They were the \w+\.$", text, re.M)
    assert re.search(r"was killed in the night\. They were the \w+\. \[hidden\] Poisoned by the witch\.$", text, re.M)
    assert re.search(r"healed \[.*\], poisoned \[.*\]\.$", text, re.M)  # the night outcome says both


def test_players_read_their_own_night_and_nobody_else_reads_it(run_dir: Path, records: list[GameRecord]) -> None:
    for path, record in zip(sorted((run_dir / "games").glob("*.ndjson")), records, strict=True):
        witch = record.roles.index("witch")
        own = "\n".join(_spectator(path, witch, everything=False))
        assert "The werewolves attack" in own
        public = "\n".join(_spectator(path, None, everything=False))
        assert "attack" not in public and "potion" not in public and "[hidden]" not in public
        assert "poison" not in public.lower()  # a poisoned death is announced as a night death
        for seat in range(record.num_players):
            if seat != witch:
                assert "The werewolves attack" not in "\n".join(_spectator(path, seat, everything=False))
    witch_lines = [
        line
        for p, r in zip(sorted((run_dir / "games").glob("*.ndjson")), records, strict=True)
        for line in _spectator(p, r.roles.index("witch"), everything=False)
    ]
    assert any(re.fullmatch(r"You used your (healing potion|poison) on \w+\.", line) for line in witch_lines)


def test_replay_show_all_prints_the_new_lines(run_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["replay", str(run_dir / "games"), "--show", "all"]) == 0
    out = capsys.readouterr().out
    assert "is told the werewolves' victim" in out and "shoots" in out and "Poisoned by the witch" in out


# ------------------------------------------------------------------------------------------ metrics and report


def test_metrics_have_deaths_by_cause_and_role_actions(report: dict[str, Any]) -> None:
    metrics = report["metrics"]
    assert {"poison", "shot", "night"} <= set(metrics["deaths"]["by_cause"])
    by_role = metrics["deaths"]["by_role"]
    assert list(by_role) == [r.value for r in ROLE_SPECS if r.value in by_role]  # the role table's order
    assert {"witch", "hunter"} <= set(by_role) and by_role["witch"]["team"] == "village"
    assert {"witch", "hunter"} <= set(metrics["players"]["by_role"])  # win rates, survival
    kinds = metrics["role_actions"]["by_kind"]
    assert {"heal", "poison", "shoot"} <= set(kinds)
    assert list(kinds) == [k for k in role_kinds() if k in kinds]
    assert kinds["poison"]["kills"] == metrics["deaths"]["by_cause"]["poison"]["deaths"]
    assert kinds["shoot"]["kills"] == metrics["deaths"]["by_cause"]["shot"]["deaths"]
    assert kinds["heal"]["saves"] >= 1
    assert set(metrics["role_actions"]["by_role"]["witch"]) == {"heal", "poison"}
    assert set(metrics["role_actions"]["by_role"]["hunter"]) == {"shoot"}


def test_report_page_tables_and_plots_have_witch_and_hunter_rows(run_dir: Path, report: dict[str, Any]) -> None:
    page = (run_dir / "report.html").read_text(encoding="utf-8")
    roles = page[page.index("<table class='roles'>") :]
    for role in ("witch", "hunter"):
        assert f"<tr><th><bdi>{role}</bdi></th><td>village</td>" in roles
    assert "<th>died: poison</th>" in page and "<th>died: shot</th>" in page
    assert "<bdi>witch</bdi>: heal" in page and "<bdi>hunter</bdi>: shoot" in page
    assert (run_dir / "plots" / "deaths_by_role.png").is_file()
    with open(run_dir / "tables" / "players.csv", encoding="utf-8", newline="") as f:
        assert {"witch", "hunter"} <= {row["seat_role"] for row in csv.DictReader(f)}
    viewers = "\n".join(p.read_text(encoding="utf-8") for p in (run_dir / "viewer").glob("*.html"))
    assert "fires a last shot at" in viewers and "was shot." in viewers
    assert "is told the werewolves&#x27; victim" in viewers or "is told the werewolves' victim" in viewers
    assert "uses the poison potion on" in viewers and 'badge hidden-info">poisoned' in viewers


# A role or a team, in any form a page could print it: every role's words and plural, from the role table.
def _role_words() -> re.Pattern[str]:
    words = {w for spec in ROLE_SPECS.values() for w in (*spec.words, spec.plural)} | {"village", "villages"}
    return re.compile(r"\b(?:" + "|".join(sorted(map(re.escape, words), key=len, reverse=True)) + r")\b", re.I)


def test_hide_switch_hides_witch_and_hunter(run_dir: Path, report: dict[str, Any], browser: Any) -> None:  # noqa: F811
    from selenium.webdriver.common.by import By

    role_words = _role_words()
    seen: set[str] = set()
    for viewer in sorted((run_dir / "viewer").glob("*.html")):
        browser.get(viewer.as_uri())
        shown = browser.execute_script(VISIBLE_TEXT)
        seen.update(w.lower() for w in role_words.findall(shown))
        browser.find_element(By.ID, "hide-hidden").click()
        hidden = browser.execute_script(VISIBLE_TEXT)
        assert not role_words.search(hidden), (viewer.name, role_words.findall(hidden))
        assert "poisoned" not in hidden and "is told the werewolves" not in hidden
        assert "fires a last shot" in hidden or "shot" not in shown  # the shot is public
        assert _aligned(browser.execute_script(ROW_WIDTHS)), viewer.name
        assert _console_problems(browser) == [], viewer.name
    assert {"witch", "hunter"} <= seen  # positive control: with the switch off the check sees them


# ------------------------------------------------------------------------------------------ a registered role


MYSTIC_RULESET = DEFAULT_RULESET.with_role(
    RoleSpec(
        role="mystic",
        team=Team.VILLAGE,
        card="You are the MYSTIC (village team).",
        words=("mystic",),
        plural="mystics",
        night=ActionKind.UNMASK,
    )
)


def test_a_role_of_a_ruleset_gets_its_rows(tmp_path: Path) -> None:
    mystic = "mystic"
    config = {"role_counts": {"werewolf": 2, "seer": 1, mystic: 1, "witch": 1, "hunter": 1}, "ruleset": MYSTIC_RULESET}
    play(tmp_path / "games", config, seeds=(0, 1))
    document = build_report(tmp_path, baselines=(), resamples=20, plots=False)
    metrics = document["metrics"]
    assert mystic in metrics["deaths"]["by_role"] and metrics["deaths"]["by_role"][mystic]["player_games"] == 2
    assert mystic in metrics["players"]["by_role"]
    assert list(metrics["role_actions"]["by_role"][mystic]) == ["unmask"]
    assert list(metrics["deaths"]["by_role"])[-1] == mystic  # registered last, listed last
    page = (tmp_path / "report.html").read_text(encoding="utf-8")
    assert f"<tr><th><bdi>{mystic}</bdi></th><td>village</td>" in page
    assert f"<bdi>{mystic}</bdi>: unmask" in page


def test_aggregate_of_default_games_lists_only_their_roles_and_kinds(tmp_path: Path) -> None:
    records = [GameRecord.from_events(read_log(p)) for p in play(tmp_path, {"num_players": 6}, seeds=(2,))]
    metrics = aggregate(records, resamples=10)
    assert set(metrics["role_actions"]["by_kind"]) <= {"eliminate", "protect", "unmask"}
    assert set(metrics["deaths"]["by_cause"]) <= {"night", "exile"}
    assert set(metrics["deaths"]["by_role"]) == set(records[0].roles)


# ------------------------------------------------------------------------------------------ the command line


def test_run_takes_role_counts(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "run"
    args = ["run", "--games", "2", "--players", "8", "--role-counts", "witch=1,hunter=1", "--agents", "random",
            "--out", str(out), "--baseline-games", "0", "-q"]  # fmt: skip
    assert main(args) == 0
    roles = {r for p in (out / "games").glob("*.ndjson") for r in GameRecord.from_events(read_log(p)).roles}
    assert {"witch", "hunter"} <= roles
    assert "hunter" in json.loads((out / "metrics.json").read_text(encoding="utf-8"))["metrics"]["deaths"]["by_role"]
    for bad in ("witch=x", "witch", "wizard=1"):
        assert main(["run", "--games", "1", "--role-counts", bad, "--out", str(tmp_path / bad), "-q"]) == 2
    assert "--role-counts: 'witch=x' is not ROLE=N" in capsys.readouterr().err
