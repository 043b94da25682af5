"""Runs as datasets: Parquet/JSONL tables, their schema and card, and chat trajectories.

The names other packages use, from the modules that define them.
"""

from __future__ import annotations

from werewolf_deception.benchmarks.export.dataset import (
    BATCH_ROWS,
    EXPORT_MARK,
    FORMATS,
    LICENSE_FILE,
    ExportError,
    add_export_options,
    choose_format,
    export_command,
    export_runs,
    pyarrow_or_none,
    read_manifest,
    run_ids,
    table_file,
)

__all__ = [
    "BATCH_ROWS",
    "EXPORT_MARK",
    "FORMATS",
    "LICENSE_FILE",
    "ExportError",
    "add_export_options",
    "choose_format",
    "export_command",
    "export_runs",
    "pyarrow_or_none",
    "read_manifest",
    "run_ids",
    "table_file",
]
