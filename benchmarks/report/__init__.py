"""The report of a run: metrics, tables, plots and the offline HTML pages.

``werewolf_deception.benchmarks.report`` was one module before the sub-packages: its public names are still read
here, from ``werewolf_deception.benchmarks.report.build``, loaded on first use (so that importing a sibling module
does not load this one).
"""

from __future__ import annotations

from werewolf_env.core.moved import reexport

__getattr__, __dir__ = reexport(
    __name__,
    "werewolf_deception.benchmarks.report.build",
    (
        "BASELINES",
        "UnverifiedLogsError",
        "Verify",
        "baseline_logs",
        "baseline_records",
        "build_report",
        "iter_records",
        "load_records",
        "load_run",
        "missing_baselines",
        "refusal",
        "report_dir",
        "unverified_logs",
    ),
)
