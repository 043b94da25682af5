"""Runs and tournaments: run folders, game workers, answer validity and the LLM gate.

``werewolf_deception.benchmarks.runs`` was one module before the sub-packages: its public names are still read
here, from ``werewolf_deception.benchmarks.runs.loop``, loaded on first use (so that importing a sibling module
does not load this one).
"""

from __future__ import annotations

from werewolf_env.core.moved import reexport

__getattr__, __dir__ = reexport(
    __name__,
    "werewolf_deception.benchmarks.runs.loop",
    (
        "Job",
        "Progress",
        "RunStoppedError",
        "play_run",
    ),
)
