"""The report of a run: metrics, tables, plots and the offline HTML pages.

The names other packages use, from the modules that define them.
"""

from __future__ import annotations

from werewolf_deception.benchmarks.report.build import (
    BASELINES,
    UnverifiedLogsError,
    Verify,
    baseline_logs,
    baseline_records,
    build_report,
    iter_records,
    load_records,
    load_run,
    missing_baselines,
    refusal,
    report_dir,
    unverified_logs,
)
from werewolf_deception.benchmarks.report.html_findings import run_status
from werewolf_deception.benchmarks.report.tokens import game_cost, priced, token_lines

__all__ = [
    "BASELINES",
    "UnverifiedLogsError",
    "Verify",
    "baseline_logs",
    "baseline_records",
    "build_report",
    "game_cost",
    "iter_records",
    "load_records",
    "load_run",
    "missing_baselines",
    "priced",
    "refusal",
    "report_dir",
    "run_status",
    "token_lines",
    "unverified_logs",
]
