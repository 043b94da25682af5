"""The printed summary of ``werewolf-bench run`` reads at a glance: at most 100 columns a line (wrapped between
labels, never inside a number), each term explained once in a legend, a baseline that is the lineup itself
named once, the werewolves' detection apart, the whole time and the resumed games in the header; and the
report's nits: seeds in numeric order, role-specific words only with the role, one number format.

The acceptance check is the default 20-game heuristic run (about 10 s); the LLM run talks HTTP to the
project's fake server (with faults, a price and a long model name: the token and validity blocks).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from werewolf_deception.agents.fake.server import FakeOpenAIServer, FaultPlan
from werewolf_deception.benchmarks.cli.main import main
from werewolf_deception.benchmarks.console.summary_text import (
    LEGEND,
    WIDTH,
    fit,
    legend_lines,
    legend_terms,
    pack,
    table,
)
from werewolf_deception.benchmarks.report.build import find_logs, natural_key
from werewolf_deception.benchmarks.report.html_roles import roles_section
from werewolf_env.analysis.role_figures import cause_notes

NUMBER = re.compile(r"[+-]?\d[\d,]*(?:\.\d+)?%?")
# Words that belong to a role (or its action) the default 8-player game does not have.
ABSENT_ROLE_WORDS = re.compile(r"\b(witch|witches|poison|poisoned|hunter|hunters|shot|shots)\b", re.IGNORECASE)


def printed(capsys: pytest.CaptureFixture[str]) -> list[str]:
    return capsys.readouterr().out.splitlines()


def assert_narrow(lines: list[str]) -> None:
    too_long = [line for line in lines if len(line) > WIDTH]
    assert not too_long, "\n".join(too_long)


def legend_of(lines: list[str]) -> tuple[list[str], list[str]]:
    """(the summary, its legend) of the printed lines."""
    start = next(i for i, line in enumerate(lines) if line.startswith("legend ("))
    return lines[:start], lines[start:]


def assert_legend_explains(summary: list[str], legend: list[str]) -> None:
    """Every term of the summary that has a compact legend line gets it, once; the legend has no other line."""
    text = "\n".join(summary)
    wanted = [short for key, _, short, _ in LEGEND if key in legend_terms(text) and short is not None]
    assert legend[1:] == [f"  {short}" for short in wanted]
    assert len(legend) <= 12


@pytest.fixture(scope="module")
def twenty(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[str]]:
    """The acceptance run: ``werewolf-bench run --games 20 --out DIR`` (defaults otherwise), and what it printed."""
    import contextlib
    import io

    out = tmp_path_factory.mktemp("twenty") / "run"
    buffer = io.StringIO()
    with contextlib.redirect_stdout(buffer):
        assert main(["run", "--games", "20", "--out", str(out)]) == 0
    return out, buffer.getvalue().splitlines()


# ---------------------------------------------------------------------------- the 20-game heuristic run


def test_the_twenty_game_summary_fits_in_100_columns_and_keeps_numbers_whole(twenty: tuple[Path, list[str]]) -> None:
    out, lines = twenty
    assert_narrow(lines)
    summary = json.loads((out / "summary.json").read_text())
    # Figures the old summary printed on lines longer than 100 columns are whole on one line each.
    statements = next(line for line in lines if line.startswith("  statements: "))
    assert f"statements: {summary['statements']}; grounded lies: {sum(summary['lies'].values())} (" in statements
    assert not any(line.rstrip().endswith((",", "[", "(")) and NUMBER.search(line[-3:]) for line in lines)
    for line in lines:  # an interval is never cut across lines
        assert line.count("[") == line.count("]"), line


def test_the_twenty_game_header_gives_the_whole_time_report_included(twenty: tuple[Path, list[str]]) -> None:
    out, lines = twenty
    summary = json.loads((out / "summary.json").read_text())
    assert summary["games_resumed"] == 0 and summary["games_played"] == 20
    assert summary["seconds_total"] >= summary["seconds"] + summary["seconds_report"] > 0
    head = lines[0]
    assert head.startswith("werewolf-deception ") and ": 20 games, " in head
    assert f"{summary['seconds_total']:.1f}s in all" in head and "report " in head
    assert "from an earlier run" not in head
    assert lines[1].strip() == "8 players (2 werewolves), lineup heuristic, analysis=full"


def test_a_baseline_that_is_the_lineup_itself_is_said_once(twenty: tuple[Path, list[str]]) -> None:
    out, lines = twenty
    text = "\n".join(lines)
    assert text.count("heuristic = the lineup itself") == 1
    baselines = next(line for line in lines if line.startswith("  baselines"))
    assert "random" in baselines and "heuristic = the lineup itself" in baselines
    # Its figures are not printed: no "heuristic 0.50" beside a figure, no heuristic column.
    assert not re.search(r"heuristic \d", text) and "heuristic F1" not in text
    assert "random F1" in text and re.search(r"random \d\.\d\d", text)
    document = json.loads((out / "metrics.json").read_text())
    assert document["baselines"]["heuristic"]["lineup_itself"] is True
    assert "lineup_itself" not in document["baselines"]["random"]


def test_werewolf_detection_is_shown_apart_with_why(twenty: tuple[Path, list[str]]) -> None:
    _, lines = twenty
    title = next(i for i, line in enumerate(lines) if line.startswith("  detection F1 by observer role"))
    apart = next(i for i, line in enumerate(lines) if line.startswith("  werewolves, apart:"))
    assert "they know their partners" in lines[apart] and "not a measure of detection skill" in lines[apart]
    village_rows = [line.split()[0] for line in lines[title + 2 : apart]]
    assert village_rows == ["doctor", "seer", "villager"]
    wolf = lines[apart + 1].split()
    assert wolf[0] == "werewolf" and wolf[5] == "1.00"  # recall: they know their partners
    header = lines[title + 1].split()
    assert header[:2] == ["role", "F1"] and "answered/expected" in header


def test_the_legend_explains_each_term_once(twenty: tuple[Path, list[str]]) -> None:
    _, lines = twenty
    summary, legend = legend_of(lines)
    assert_legend_explains(summary, legend)
    text = "\n".join(legend)
    for term in (
        "grounded lie",
        "hedged",
        "labeler regex",
        "lie success",
        "misled by lies / by truths",
        "persuasion",
        "effect",
        "resistance",
        "detection F1",
        "fallback",
        "replay check",
    ):
        assert text.count(f"  {term}") == 1, term
    assert "--explain" in legend[0]


def test_no_role_words_for_roles_the_games_did_not_have(twenty: tuple[Path, list[str]]) -> None:
    out, lines = twenty
    assert not ABSENT_ROLE_WORDS.search("\n".join(lines))
    html = (out / "report.html").read_text(encoding="utf-8")
    captions = re.findall(r"<caption>(.*?)</caption>", html)
    assert any(c.startswith("deaths by cause") for c in captions)
    assert not [c for c in captions if ABSENT_ROLE_WORDS.search(c)]
    coverage_head = re.search(r"<table class=\"coverage\">(.*?)</tr>", html)
    assert coverage_head is not None and "poisoned" not in coverage_head.group(1)


def test_seeds_are_in_numeric_order_everywhere(twenty: tuple[Path, list[str]]) -> None:
    out, _ = twenty
    order = [f"seed{i}" for i in range(20)]
    assert [p.stem for p in find_logs(out)] == order
    html = (out / "report.html").read_text(encoding="utf-8")
    games = html[html.index("<h2>Games</h2>") :]
    assert list(dict.fromkeys(re.findall(r"viewer/(seed\d+)\.html", games))) == order
    table_rows = (out / "tables" / "games.csv").read_text().splitlines()[1:]
    assert [row.split(",")[0] for row in table_rows] == order
    document = json.loads((out / "metrics.json").read_text())
    assert [row["game"] for row in document["per_game"]] == order
    assert document["baselines"]["random"]["seeds"] == list(range(20))


def test_report_figures_have_one_number_format(twenty: tuple[Path, list[str]]) -> None:
    out, _ = twenty
    html = (out / "report.html").read_text(encoding="utf-8")
    text = re.sub(r"<style.*?</style>|<script.*?</script>|data:image/png;base64,[A-Za-z0-9+/=]+", "", html, flags=re.S)
    assert not re.findall(r"\d\.\d{3,}", text)
    trend = re.search(r"toward werewolves ([+-]?\d\.\d+), toward village players ([+-]?\d\.\d+)", text)
    assert trend is not None and all(len(x.split(".")[1]) == 2 for x in trend.groups())


def test_the_report_command_prints_the_same_narrow_lines(
    twenty: tuple[Path, list[str]], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out, _ = twenty
    assert (
        main(["report", str(out), "--out", str(tmp_path), "--baseline-games", "3", "--no-plots", "--resamples", "50"])
        == 0
    )
    lines = printed(capsys)
    assert_narrow(lines)
    summary, legend = legend_of(lines)
    assert_legend_explains(summary, legend)
    assert any(line.startswith("  werewolves, apart:") for line in lines)
    # The full legend is one option away on the report too, without playing a game.
    assert (
        main(
            [
                "report",
                str(out),
                "--out",
                str(tmp_path / "again"),
                "--baseline-games",
                "0",
                "--no-plots",
                "--resamples",
                "50",
                "--explain",
            ]
        )
        == 0
    )
    _, legend = legend_of(printed(capsys))
    assert legend == legend_lines(full=True)


# ---------------------------------------------------------------------------- resumed runs, --explain


def test_a_resumed_run_counts_the_earlier_games_and_its_whole_time(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "run"
    small = ["--players", "5", "--rounds", "2", "--out", str(out), "--no-report"]
    assert main(["run", "--games", "3", *small, "--quiet"]) == 0
    capsys.readouterr()
    assert main(["run", "--games", "5", *small]) == 0
    lines = printed(capsys)
    assert_narrow(lines)
    summary = json.loads((out / "summary.json").read_text())
    assert (summary["games"], summary["games_resumed"], summary["games_played"]) == (5, 3, 2)
    assert summary["seconds_total"] > 0 and "seconds_report" not in summary
    assert lines[0].startswith("werewolf-deception ")
    assert ": 5 games (3 from an earlier run, 2 played now), " in lines[0]
    assert f"{summary['seconds_total']:.1f}s in all" in lines[0] and "0.0s in all" not in lines[0]
    assert "  5 players (1 werewolf), lineup heuristic, analysis=full" in lines[1:3]
    # Everything from before: the time is still the command's, never 0.0s.
    assert main(["run", "--games", "5", *small]) == 0
    again = printed(capsys)
    summary = json.loads((out / "summary.json").read_text())
    assert "5 games (5 from an earlier run, 0 played now)" in again[0] and summary["seconds_total"] > 0


def test_explain_prints_the_full_legend(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert (
        main(["run", "--games", "1", "--players", "5", "--out", str(tmp_path / "r"), "--no-report", "--explain"]) == 0
    )
    lines = printed(capsys)
    assert_narrow(lines)
    _, legend = legend_of(lines)
    assert legend == legend_lines(full=True)
    text = " ".join(line.strip() for line in legend)
    for key, _, _, long in LEGEND:
        assert " ".join(long.split()) in text, key
    assert "fabrication" in text and "misdirection" in text and "distortion" in text
    assert not ABSENT_ROLE_WORDS.search("\n".join(lines))  # no witch or hunter in the game: no word of them


# ---------------------------------------------------------------------------- an LLM run: tokens, validity


def test_an_llm_run_summary_fits_in_100_columns(tmp_path: Path, capsys, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setenv("OPENAI_API_KEY", "sk-x")
    monkeypatch.chdir(tmp_path)  # the folder's own path is the user's to choose: printed as given, not counted
    model = "fake-model-with-a-rather-long-name-2024-08-06-preview"
    faults = FaultPlan(rates={"malformed": 0.1, "invalid_target": 0.05, "length": 0.03}, seed=1)
    lineup = tmp_path / "lineup.json"
    with FakeOpenAIServer(faults=faults) as server:
        lineup.write_text(
            json.dumps(
                {
                    "default": {"kind": "llm", "model": model, "base_url": server.base_url},
                    "prices": {model: {"prompt": 0.15, "cached_prompt": 0.075, "completion": 0.6}},
                }
            )
        )
        code = main(
            [
                "run",
                "--lineup",
                str(lineup),
                "--games",
                "2",
                "--players",
                "5",
                "--rounds",
                "2",
                "--out",
                "run",
                "--baseline-games",
                "2",
                "--max-fallback-rate",
                "0.5",
            ]
        )
    lines = printed(capsys)
    assert code == 0
    assert_narrow(lines)
    text = "\n".join(lines)
    assert "LLM tokens: " in text and "estimated cost $" in text and f"model {model}: " in text
    assert "validity (max fallback rate 50%)" in text and "call kind" in text
    assert "  baselines, same rules and seeds (2 games): heuristic and random" in lines
    assert "heuristic F1" in text and "the lineup itself" not in text
    summary, legend = legend_of(lines)
    assert_legend_explains(summary, legend)
    assert "repaired (valid after a repair prompt)" in " ".join(summary)  # explained where it is printed


def test_a_stopped_or_invalid_run_headline_is_wrapped(tmp_path: Path, capsys, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setenv("OPENAI_API_KEY", "sk-x")
    with FakeOpenAIServer(faults=FaultPlan(rates={"malformed": 0.9}, seed=2)) as server:
        code = main(
            [
                "run",
                "--model",
                "fake",
                "--base-url",
                server.base_url,
                "--games",
                "1",
                "--players",
                "5",
                "--rounds",
                "1",
                "--debate-turns",
                "1",
                "--retries",
                "0",
                "--out",
                str(tmp_path / "run"),
                "--no-report",
                "--max-fallback-rate",
                "0.01",
            ]
        )
    lines = printed(capsys)
    assert code == 4 and lines[0].startswith("INVALID RUN: ")
    assert_narrow(lines)


# ---------------------------------------------------------------------------- the layout helpers


def test_fit_and_pack_wrap_between_words_never_inside_a_number() -> None:
    items = [f"figure {i} {i / 7:+.2f} [{-i / 9:+.2f}, {i / 3:+.2f}]" for i in range(1, 30)]
    items += ["1,446 answered / 1,446 expected", "104 (33%)", "12 of 345 statements"]
    packed, fitted = pack("  head: ", items), fit("  ".join(items), indent="  ")
    assert " ".join(packed).replace(";", "").split() == ["head:", *" ".join(items).split()]  # nothing cut or lost
    assert " ".join(fitted).split() == " ".join(items).split()
    for lines in (packed, fitted):
        assert_narrow(lines)
        for line in lines:
            assert line.count("[") == line.count("]")
        joined = "\n".join(lines)
        for kept in ("1,446 answered / 1,446 expected", "104 (33%)", "12 of 345"):
            assert kept in joined
    packed = pack("  head: ", ["a" * 10, "b" * 10], width=29)
    assert packed == ["  head: aaaaaaaaaa;", "    bbbbbbbbbb"]


def test_table_aligns_columns() -> None:
    assert table([["role", "F1"], ["seer", "0.87"], ["villager", "0.47"]], "lr") == [
        "    role        F1",
        "    seer      0.87",
        "    villager  0.47",
    ]


def test_the_legend_lists_only_the_terms_used_and_is_short() -> None:
    assert legend_lines("") == []
    assert legend_lines("replay check: 3/3")[1:] == [f"  {s}" for k, _, s, _ in LEGEND if k == "replay check"]
    everything = "\n".join(key for key, *_ in LEGEND) + " grounded lies F1 (labeler regex) repaired LLM tokens"
    compact = legend_lines(everything)
    assert len(compact) <= 12 and all(len(line) <= WIDTH for line in compact)
    assert all(len(line) <= WIDTH for line in legend_lines(full=True))


def test_seed_names_sort_as_numbers(tmp_path: Path) -> None:
    names = ["seed10.ndjson", "seed2.ndjson", "seed1.ndjson", "game-00000-seed11.ndjson", "seed0.ndjson"]
    for name in names:
        (tmp_path / name).write_text("")
    assert [p.name for p in find_logs(tmp_path)] == [
        "game-00000-seed11.ndjson",
        "seed0.ndjson",
        "seed1.ndjson",
        "seed2.ndjson",
        "seed10.ndjson",
    ]
    assert sorted(["seed10", "seed9", "seed100"], key=natural_key) == ["seed9", "seed10", "seed100"]


def test_death_cause_notes_come_from_the_role_table() -> None:
    assert cause_notes(["night", "exile"], ["werewolf", "seer", "doctor", "villager"]) == []
    notes = cause_notes(["night", "poison", "shot", "exile"], ["werewolf", "witch", "hunter", "villager"])
    assert notes == ["poison: a witch's, announced as a night death", "shot: a hunter's, on its death"]
    metrics = {
        "deaths": {"by_cause": {"night": {"deaths": 3, "per_game": None}},
                   "by_role": {"werewolf": {"by_cause": {}}, "villager": {"by_cause": {"night": 3}}}},
        "players": {"by_role": {}},
        "role_actions": {"by_kind": {"eliminate": {}}, "by_role": {}},
    }  # fmt: skip
    html = "".join(str(part) for part in roles_section({"metrics": metrics}))
    assert not ABSENT_ROLE_WORDS.search(html)
    metrics["deaths"]["by_role"]["hunter"] = {"by_cause": {"shot": 1}}  # type: ignore[index]
    metrics["deaths"]["by_cause"]["shot"] = {"deaths": 1, "per_game": None}  # type: ignore[index]
    html = "".join(str(part) for part in roles_section({"metrics": metrics}))
    assert "hunter&#x27;s, on its death" in html and "hunters&#x27; last shots" in html
