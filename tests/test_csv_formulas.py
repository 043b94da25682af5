"""No CSV cell of the report's tables is a spreadsheet formula: text is escaped as OWASP recommends.

A text cell starting with ``=``, ``+``, ``-``, ``@``, a tab or a carriage return (or with the escape's own
``'``) gets a ``'`` in front; numbers are written as they are, so a negative number stays a number. Reading
a cell back through ``cell_text`` gives the text as it was.
"""

from __future__ import annotations

import csv
from dataclasses import replace
from pathlib import Path

from tests.test_report_memory_csv import small_game
from werewolf_deception.benchmarks.report.tables import TABLES, TableWriter, cell_text

FORMULAS = ["=cmd|' /C calc'!A0", "+1+1", "-2+3", "@SUM(A1)", "\t=1", "\r=1"]
STARTS = ("=", "+", "-", "@", "\t", "\r")


def raw_cells(path: Path) -> list[dict[str, str]]:
    with path.open(newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


def is_number(cell: str) -> bool:
    try:
        float(cell)
    except ValueError:
        return False
    return True


def test_formula_names_are_escaped_and_negative_numbers_stay_numbers(tmp_path: Path) -> None:
    base = small_game(tmp_path / "log")
    names = [*FORMULAS[:4], "'quoted"]
    record = replace(base, names=names, policies=[FORMULAS[4], FORMULAS[5], "-x", "=y", "@z"])
    with TableWriter(tmp_path / "tables") as tables:
        tables.write(record.rows(game="=game"))
    negative = 0
    for table in TABLES:
        for row in raw_cells(tmp_path / "tables" / f"{table}.csv"):
            for column, cell in row.items():
                if cell.startswith(STARTS):
                    assert is_number(cell), (table, column, cell)  # only a number may start so
                    negative += cell.startswith("-")
    assert negative > 0  # the games' figures have negative numbers, written as numbers
    players = raw_cells(tmp_path / "tables" / "players.csv")
    assert [row["seat_name"] for row in players] == ["'" + name for name in names]
    assert [cell_text(row["seat_name"]) for row in players] == names
    assert [cell_text(row["seat_policy"]) for row in players] == record.policies
    assert {row["game"] for row in players} == {"'=game"}


def test_cell_text_undoes_the_escape_only() -> None:
    for text in [*FORMULAS, "'", "''", "'=", "plain", "", "-0.5", "a'b"]:
        escaped = "'" + text if text.startswith((*STARTS, "'")) else text
        assert cell_text(escaped) == text
