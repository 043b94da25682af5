"""The report's tidy tables (``tables/{games,players,statements,analyses,votes,polls}.csv``), written a game at a time.

    with TableWriter(out / "tables") as tables:
        for name, record in games:
            tables.write(record.rows(game=name))

One row per unit; ``game`` is the log's file stem, so rows join across tables. Names are data, never
formulas: a text cell starting with ``=``, ``+``, ``-``, ``@``, a tab or a carriage return (a player named
``=HYPERLINK(...)``, a model label chosen by someone else), or with ``'``, is written with a ``'`` in front
(OWASP's advice against CSV injection), so no spreadsheet runs it; numbers are written as they are (a
negative number stays a number). ``cell_text`` reads a cell back as the text it was. Otherwise ``csv``
quoting (commas, quotes, newlines, ``|``, ``$``) reads back unchanged with ``csv.reader`` or
``pandas.read_csv``. ``None`` is written as an empty cell.

Each file is written under a temporary name and takes its real name only when every game is in, so
a report that fails halfway leaves the previous tables whole. The header is every column any row
had, in order of first appearance (rows of one table share their columns; a later row with a new
column rewrites its file once, at the end, with the full header).
"""

from __future__ import annotations

import csv
import os
from collections.abc import Iterable
from pathlib import Path
from types import TracebackType
from typing import IO, Any

from werewolf_env.analysis import GameRecord

# What makes a spreadsheet read a cell as a formula (OWASP, "CSV Injection"), and the escape itself.
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
ESCAPE = "'"
TABLES = ("games", "players", "statements", "analyses", "votes", "polls")  # polls: empty unless vote_polls
Rows = dict[str, list[dict[str, Any]]]


def inert_cell(value: Any) -> Any:
    """A value as its CSV cell: text a spreadsheet could run as a formula (or starting with the escape) with
    ``ESCAPE`` in front; numbers and other values as they are; None as an empty cell."""
    if value is None:
        return ""
    if isinstance(value, str) and value.startswith((*FORMULA_STARTS, ESCAPE)):
        return ESCAPE + value
    return value


def cell_text(cell: str) -> str:
    """The text a cell of these tables was written from (``inert_cell`` undone): numbers are never escaped."""
    return cell[1:] if cell.startswith(ESCAPE) else cell


class _Table:
    def __init__(self, path: Path) -> None:
        self.path = path
        self.partial = path.with_name(f".{path.name}.partial")
        self.file: IO[str] = self.partial.open("w", newline="", encoding="utf-8")
        self.columns: dict[str, None] = {}
        self.header_written = 0  # columns in the header as written
        self.writer: csv.DictWriter[str] | None = None

    def write(self, rows: list[dict[str, Any]]) -> None:
        for row in rows:
            if self.writer is None:
                self.columns.update(dict.fromkeys(row))
                self.writer = csv.DictWriter(self.file, fieldnames=list(self.columns), extrasaction="ignore")
                self.writer.writeheader()
                self.header_written = len(self.columns)
            elif any(key not in self.columns for key in row):
                self.columns.update(dict.fromkeys(row))
                self.writer.fieldnames = list(self.columns)
            self.writer.writerow({k: inert_cell(v) for k, v in row.items()})

    def close(self) -> Path:
        if self.writer is None:  # no rows: a header of no columns, as csv writes it
            csv.writer(self.file).writerow([])
        self.file.close()
        if len(self.columns) > self.header_written:
            self._rewrite_header()
        os.replace(self.partial, self.path)
        return self.path

    def _rewrite_header(self) -> None:
        """Columns appeared after the header was written: the full header, and earlier rows padded."""
        grown = self.partial.with_name(self.partial.name + ".grown")
        width = len(self.columns)
        with (
            self.partial.open(newline="", encoding="utf-8") as src,
            grown.open("w", newline="", encoding="utf-8") as dst,
        ):
            reader, writer = csv.reader(src), csv.writer(dst)
            next(reader)
            writer.writerow(list(self.columns))
            for cells in reader:  # a row written before a column existed holds a prefix of the columns
                writer.writerow(cells + [""] * (width - len(cells)))
        os.replace(grown, self.partial)

    def discard(self) -> None:
        self.file.close()
        self.partial.unlink(missing_ok=True)


class TableWriter:
    """The tables of a run (``TABLES``), fed one game's rows at a time (see the module docstring)."""

    def __init__(self, folder: Path) -> None:
        folder.mkdir(parents=True, exist_ok=True)
        self.tables: dict[str, _Table] = {}
        try:
            for name in TABLES:
                self.tables[name] = _Table(folder / f"{name}.csv")
        except BaseException:
            self.discard()
            raise

    def write(self, rows: Rows) -> None:
        for name, table in self.tables.items():
            table.write(rows.get(name, []))

    def close(self) -> dict[str, Path]:
        return {name: table.close() for name, table in self.tables.items()}

    def discard(self) -> None:
        for table in self.tables.values():
            table.discard()

    def __enter__(self) -> TableWriter:
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None, tb: TracebackType | None) -> None:
        if kind is None:
            self.close()
        else:
            self.discard()


def write_tables(records: Iterable[GameRecord], folder: Path, names: list[str] | None = None) -> dict[str, Path]:
    """One CSV per unit for ``records`` (read once, one at a time); ``names`` default to the logs' file stems."""
    named = (
        zip(names, records, strict=True)
        if names is not None
        else ((Path(r.source).stem if r.source else str(i), r) for i, r in enumerate(records))
    )
    with TableWriter(folder) as tables:
        for name, record in named:
            tables.write(record.rows(game=name))
    return {name: table.path for name, table in tables.tables.items()}
