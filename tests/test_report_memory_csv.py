"""Any printable name round-trips through the report's CSV tables, read with the ``csv`` module and ``cell_text``.

A text cell a spreadsheet could run as a formula is written with a ``'`` in front (``tests/test_csv_formulas.py``);
``cell_text`` reads it back as it was.
"""

from __future__ import annotations

import csv
import tempfile
from dataclasses import replace
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from werewolf_deception.agents import play_game_sync
from werewolf_deception.benchmarks.report.build import build_report
from werewolf_deception.benchmarks.report.tables import TABLES, TableWriter, cell_text
from werewolf_env.analysis.metrics import GameRecord
from werewolf_env.engine.log import read_log

TRICKY = [
    "Ann, Jr.", 'Bo "Q" Lee', "new\nline", "cr\rreturn", "crlf\r\nend", "|pipe|", "$x^2$", "=SUM(A1:A9)",
    "+1", "-2", "@cmd", "\ttab", " spaced ", '"', ",", "", "Inés", "\u202eevil", "東京",
]  # fmt: skip
# Names a player or a policy might carry: any printable text, and the characters CSV and spreadsheets treat specially.
NAMES = st.text(st.characters(codec="utf-8") | st.sampled_from(list(",\"'\r\n|$=+-@\t ")), max_size=12)
NAME_COLUMNS = {"players": ["seat"], "statements": ["speaker"], "analyses": ["observer", "speaker"], "votes": ["voter"]}


def read_table(path: Path) -> list[dict[str, str]]:
    with path.open(newline="", encoding="utf-8") as f:
        return [{column: cell_text(cell) for column, cell in row.items()} for row in csv.DictReader(f)]


def small_game(folder: Path, names: list[str] | None = None, lineup: object = "heuristic") -> GameRecord:
    config = {"num_players": 5, **({"names": names} if names else {})}
    play_game_sync(config, lineup, 3, log_dir=folder)
    return GameRecord.from_events(read_log(next(folder.glob("*.ndjson"))))


def check_round_trip(record: GameRecord, folder: Path) -> None:
    with TableWriter(folder) as tables:
        tables.write(record.rows(game="g,1\n"))
    for table in TABLES:
        for row in read_table(folder / f"{table}.csv"):
            assert row["game"] == "g,1\n"
            for unit in NAME_COLUMNS.get(table, []):
                seat = int(row[unit])
                assert row[f"{unit}_name"] == record.names[seat], (table, unit)
                assert row[f"{unit}_policy"] == record.policies[seat], (table, unit)
    games = read_table(folder / "games.csv")
    assert games[0]["policies"] == "+".join(sorted(set(record.policies)))


def test_tricky_names_round_trip(tmp_path: Path) -> None:
    base = small_game(tmp_path / "log")
    for start in range(0, len(TRICKY), 5):
        names = (TRICKY[start:] + TRICKY)[:5]
        policies = list(reversed(names))
        check_round_trip(replace(base, names=names, policies=policies), tmp_path / f"t{start}")


@pytest.fixture(scope="module")
def base_game(tmp_path_factory: pytest.TempPathFactory) -> GameRecord:
    return small_game(tmp_path_factory.mktemp("base"))  # one game for every example: only the names change


@settings(max_examples=40, deadline=None)
@given(names=st.lists(NAMES, min_size=5, max_size=5), policies=st.lists(NAMES, min_size=5, max_size=5))
def test_any_name_round_trips(base_game: GameRecord, names: list[str], policies: list[str]) -> None:
    with tempfile.TemporaryDirectory() as folder:
        check_round_trip(replace(base_game, names=names, policies=policies), Path(folder))


def test_a_report_of_players_and_policies_with_tricky_names(tmp_path: Path) -> None:
    """The whole report, from a played game: names a spreadsheet or a CSV reader could trip on come back."""
    names = ["Ann, Jr.", 'Bo "Q"', "=SUM(A1)", "-minus|pipe", "+$x$"]
    lineup = {"default": {"kind": "heuristic", "name": '@heur, "istic" | $1$'}}
    record = small_game(tmp_path / "run" / "games", names, lineup)
    build_report(tmp_path / "run", baseline_games=0, resamples=10, plots=False)
    players = read_table(tmp_path / "run" / "tables" / "players.csv")
    assert [row["seat_name"] for row in players] == record.names == names
    assert {row["seat_policy"] for row in players} == {'@heur, "istic" | $1$'}
    statements = read_table(tmp_path / "run" / "tables" / "statements.csv")
    assert {row["speaker_name"] for row in statements} <= set(names)
    assert [row["text"] for row in statements] == [st.text for st in record.statements]
