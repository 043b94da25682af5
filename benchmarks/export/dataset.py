"""``werewolf-bench export RUN [RUN ...] --out DIR``: runs' statements and games as a dataset, with its card.

    werewolf-bench export runs/demo --out datasets/demo                    # Parquet (needs the export extra)
    werewolf-bench export runs/a runs/b --out datasets/ab --format jsonl    # JSON Lines, no extra needed

``DIR`` gets ``statements/train.parquet`` (one row per public statement), ``games/data.parquet`` (one row
per game), ``README.md`` (a Hugging Face dataset card: the features, how the data was made, a licence to
choose), ``LICENSE.md`` (the card's ``license_link``) and ``export.json`` (what was exported, the mark of
an export folder). The default table's file is named for its split: ``datasets``' generic loader
(``load_dataset("parquet", data_dir=DIR)``) then reads that file alone, never the manifest or the other
tables, which the card's configs name (``load_dataset(DIR, "games")``). Columns
and hidden-information rules: ``benchmarks/export/schema.py``. Logs are read with the project's own
readers (``read_log``, ``GameRecord``) one game at a time and written in batches, so memory does not
grow with the run. Logs of games that did not finish are left out (named on stderr).

The tables are written into ``DIR/.export-partial/`` and moved into place at the end: an export that
fails halfway leaves a previous export whole. Exit codes: 0 written; 2 a path that is not a run folder,
a run without finished games, ``--out`` at a file or a folder of other files, Parquet without pyarrow.
"""

from __future__ import annotations

import argparse
import importlib
import json
import shutil
import sys
import time
from pathlib import Path
from typing import IO, Any

from werewolf_deception.benchmarks.console import EXIT_BAD_OPTIONS
from werewolf_deception.benchmarks.export.card import dataset_card, licence_text
from werewolf_deception.benchmarks.export.schema import TABLES, arrow_schema, game_rows
from werewolf_deception.benchmarks.runs import MAX_RUN_FILE_DEPTH, RunFolderError, check_out_folder, git_commit
from werewolf_env import __version__
from werewolf_env.analysis import GameRecord
from werewolf_env.core import loads_bounded
from werewolf_env.engine import read_log

EXPORT_MARK = "export.json"
LICENSE_FILE = "LICENSE.md"
FORMATS = ("parquet", "jsonl")
BATCH_ROWS = 2000  # statement rows buffered before a Parquet row group is written


class ExportError(ValueError):
    """Bad input for an export (not a run folder, no finished game, no pyarrow): nothing was written."""


def add_export_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("runs", nargs="+", type=Path, help="run folders (werewolf-bench run / tournament --out)")
    parser.add_argument("--out", type=Path, required=True, help="the dataset folder: new, empty or an earlier export")
    parser.add_argument(
        "--format",
        choices=FORMATS,
        help="parquet (needs pyarrow: pip install -e .[export]) or jsonl (default: parquet when pyarrow is installed)",
    )


def export_command(args: argparse.Namespace) -> int:
    try:
        check_out_folder(args.out, "--out", (EXPORT_MARK,))
        summary = export_runs(args.runs, args.out, args.format)
    except (ExportError, RunFolderError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_BAD_OPTIONS
    print(
        f"exported {summary['statements']} statements from {summary['games']} games of {len(summary['runs'])} "
        f"run(s) to {args.out} ({summary['format']}); dataset card: {args.out / 'README.md'}"
    )
    return 0


def pyarrow_or_none() -> Any:
    try:
        return importlib.import_module("pyarrow")
    except ImportError:
        return None


def choose_format(wanted: str | None) -> str:
    if wanted == "jsonl":
        return "jsonl"
    if pyarrow_or_none() is None:
        raise ExportError(
            "Parquet needs pyarrow, which is not installed: pip install -e .[export] "
            "(or pip install 'pyarrow>=15'), or export JSON Lines with --format jsonl"
        )
    return "parquet"


def read_manifest(run: Path) -> dict[str, Any]:
    """The run's manifest, or ExportError saying why ``run`` is not a run folder."""
    manifest_path = run / "manifest.json"
    if not run.is_dir():
        raise ExportError(
            f"{run} is not a run folder: {'no such folder' if not run.exists() else 'a file'}; "
            "give a folder written by werewolf-bench run --out (or tournament)"
        )
    try:
        manifest = loads_bounded(manifest_path.read_text(encoding="utf-8"), MAX_RUN_FILE_DEPTH)
    except FileNotFoundError:
        raise ExportError(
            f"{run} is not a run folder: it holds no manifest.json; give a folder written by "
            "werewolf-bench run --out (or tournament)"
        ) from None
    except (ValueError, UnicodeDecodeError):
        manifest = None
    if not isinstance(manifest, dict) or "schema_version" not in manifest:
        raise ExportError(f"{manifest_path} is not a werewolf-bench run manifest")
    if not any((run / "games").glob("*.ndjson")):
        raise ExportError(f"{run} holds no game logs (games/*.ndjson): nothing to export")
    return manifest


def run_ids(runs: list[Path]) -> list[str]:
    """Each run's folder name, made unique (name, name-2, ...) when two runs share one."""
    ids: list[str] = []
    for run in runs:
        base = run.resolve().name or "run"
        name, k = base, 2
        while name in ids:
            name, k = f"{base}-{k}", k + 1
        ids.append(name)
    return ids


def table_file(table: str, fmt: str) -> str:
    """A table's file name: ``train`` for the default table (the first), as ``datasets`` prefers files named for a
    split to all files when it guesses a folder's data files; ``data`` for the others."""
    return f"{'train' if table == next(iter(TABLES)) else 'data'}.{fmt}"


class _Writer:
    """One table, written in batches: a Parquet row group or JSON lines per batch."""

    def __init__(self, folder: Path, table: str, fmt: str) -> None:
        folder.mkdir(parents=True, exist_ok=True)
        self.fmt = fmt
        self.rows: list[dict[str, Any]] = []
        self.count = 0
        self.path = folder / table_file(table, fmt)
        self.jsonl: IO[str] | None = None
        self.parquet: Any = None
        if fmt == "parquet":
            self.pa = importlib.import_module("pyarrow")
            self.schema = arrow_schema(self.pa, table)
            self.parquet = importlib.import_module("pyarrow.parquet").ParquetWriter(str(self.path), self.schema)
        else:
            self.jsonl = self.path.open("w", encoding="utf-8")

    def add(self, rows: list[dict[str, Any]]) -> None:
        self.rows.extend(rows)
        self.count += len(rows)
        if len(self.rows) >= BATCH_ROWS:
            self.flush()

    def flush(self) -> None:
        if not self.rows:
            return
        if self.parquet is not None:
            self.parquet.write_table(self.pa.Table.from_pylist(self.rows, schema=self.schema))
        elif self.jsonl is not None:
            for row in self.rows:
                self.jsonl.write(json.dumps(row, ensure_ascii=False, allow_nan=False) + "\n")
        self.rows = []

    def close(self) -> None:
        self.flush()
        if self.parquet is not None:
            self.parquet.close()
        if self.jsonl is not None:
            self.jsonl.close()


def export_runs(runs: list[Path], out: Path, fmt: str | None = None) -> dict[str, Any]:
    """Write the dataset for ``runs`` into ``out`` (see the module docstring); returns what ``export.json`` says."""
    chosen = choose_format(fmt)
    manifests = [read_manifest(run) for run in runs]  # every run checked before anything is written
    ids = run_ids(runs)
    out.mkdir(parents=True, exist_ok=True)
    partial = out / ".export-partial"
    shutil.rmtree(partial, ignore_errors=True)
    try:
        summary = _write_tables(runs, ids, manifests, partial, chosen)
        if summary["games"] == 0:
            raise ExportError(f"none of the logs in {', '.join(map(str, runs))} holds a finished game")
        summary["card"] = dataset_card(summary)
        _put_in_place(partial, out, summary)
    finally:
        shutil.rmtree(partial, ignore_errors=True)
    return summary


def _write_tables(
    runs: list[Path], ids: list[str], manifests: list[dict[str, Any]], folder: Path, fmt: str
) -> dict[str, Any]:
    writers = {table: _Writer(folder / table, table, fmt) for table in TABLES}
    described: list[dict[str, Any]] = []
    try:
        for run, run_id, manifest in zip(runs, ids, manifests, strict=True):
            games, left_out, configs = 0, [], []
            models: set[str] = set()
            for path in sorted((run / "games").glob("*.ndjson")):
                raw = read_log(path)  # one game in memory at a time
                record = GameRecord.from_events(raw, source=str(path))
                if not record.complete:
                    left_out.append(path.name)
                    continue
                statements, game = game_rows(run_id, path.stem, raw, record)
                writers["statements"].add(statements)
                writers["games"].add([game])
                games += 1
                models.update(m for m in game["hidden_seat_models"] if m)
                if game["hidden_config"] not in configs:
                    configs.append(game["hidden_config"])
            if left_out:
                print(
                    f"note: {run}: {len(left_out)} unfinished game log(s) left out: {', '.join(left_out[:5])}"
                    + (", ..." if len(left_out) > 5 else ""),
                    file=sys.stderr,
                )
            described.append(
                {
                    "run_id": run_id,
                    "path": str(run),
                    "kind": manifest.get("kind"),
                    "label": manifest.get("label"),
                    "package_version": manifest.get("package_version"),
                    "git_commit": manifest.get("git_commit"),
                    "created": manifest.get("created"),
                    "games": games,
                    "unfinished_left_out": len(left_out),
                    "lineup": manifest.get("lineup") or manifest.get("entrants"),
                    "models": sorted(models),
                    "configs": [json.loads(c) for c in configs],
                }
            )
    finally:
        for writer in writers.values():
            writer.close()
    return {
        "format": fmt,
        "exporter_version": __version__,
        "exporter_git_commit": git_commit(),
        "created": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        "statements": writers["statements"].count,
        "games": writers["games"].count,
        "runs": described,
        "files": {table: f"{table}/{writer.path.name}" for table, writer in writers.items()},
    }


def _put_in_place(partial: Path, out: Path, summary: dict[str, Any]) -> None:
    """Replace an earlier export's tables with the new ones, then the card and the mark."""
    card = summary.pop("card")
    for table in TABLES:
        shutil.rmtree(out / table, ignore_errors=True)
        (partial / table).replace(out / table)
    (out / "README.md").write_text(card, encoding="utf-8")
    (out / LICENSE_FILE).write_text(licence_text(), encoding="utf-8")
    (out / EXPORT_MARK).write_text(json.dumps(summary, indent=1) + "\n", encoding="utf-8")
