"""Runs as datasets: Parquet/JSONL tables, their schema and card, and chat trajectories.

``werewolf_deception.benchmarks.export`` was one module before the sub-packages: its public names are still read
here, from ``werewolf_deception.benchmarks.export.dataset``, loaded on first use (so that importing a sibling module
does not load this one).
"""

from __future__ import annotations

from werewolf_env.core.moved import reexport

__getattr__, __dir__ = reexport(
    __name__,
    "werewolf_deception.benchmarks.export.dataset",
    (
        "BATCH_ROWS",
        "EXPORT_MARK",
        "ExportError",
        "FORMATS",
        "LICENSE_FILE",
        "add_export_options",
        "choose_format",
        "export_command",
        "export_runs",
        "pyarrow_or_none",
        "read_manifest",
        "run_ids",
        "table_file",
    ),
)
