"""Runs and tournaments: run folders, game workers, answer validity and the LLM gate.

The names other packages use, from the modules that define them.
"""

from __future__ import annotations

from werewolf_deception.benchmarks.runs.folder import (
    MAX_RUN_FILE_DEPTH,
    RunFolderError,
    check_out_folder,
    describe_os_error,
    find_logs,
    git_commit,
    keep_log,
    natural_key,
)
from werewolf_deception.benchmarks.runs.gate import preflight_gate, stopped
from werewolf_deception.benchmarks.runs.loop import (
    Job,
    Progress,
    RayBackend,
    RunDir,
    RunMismatchError,
    RunStoppedError,
    play_run,
)
from werewolf_deception.benchmarks.runs.tournament import (
    TournamentConfig,
    TournamentGame,
    entrant_table,
    fit_ratings,
    load_tournament,
    schedule,
)
from werewolf_deception.benchmarks.runs.validity import (
    common_answers,
    format_coverage,
    format_validity,
    game_validity,
    run_validity,
    worst_fallback_rate,
)
from werewolf_deception.benchmarks.runs.workers import worker_pool, workers_stuck

__all__ = [
    "MAX_RUN_FILE_DEPTH",
    "Job",
    "Progress",
    "RayBackend",
    "RunDir",
    "RunFolderError",
    "RunMismatchError",
    "RunStoppedError",
    "TournamentConfig",
    "TournamentGame",
    "check_out_folder",
    "common_answers",
    "describe_os_error",
    "entrant_table",
    "find_logs",
    "fit_ratings",
    "format_coverage",
    "format_validity",
    "game_validity",
    "git_commit",
    "keep_log",
    "load_tournament",
    "natural_key",
    "play_run",
    "preflight_gate",
    "run_validity",
    "schedule",
    "stopped",
    "worker_pool",
    "workers_stuck",
    "worst_fallback_rate",
]
