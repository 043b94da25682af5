"""Deception detectors and their evaluation (``werewolf-bench detect-eval``).

The names other packages use, from the modules that define them.
"""

from __future__ import annotations

from werewolf_deception.benchmarks.detect.detector import statement_rows
from werewolf_deception.benchmarks.detect.evaluate import run_detect_eval
from werewolf_deception.benchmarks.detect.friction import Friction
from werewolf_deception.benchmarks.detect.llm_judge import KIND, ModelJudge
from werewolf_deception.benchmarks.detect.registry import DEFAULT, DetectorError, make_detector
from werewolf_deception.benchmarks.detect.runs import run_runs_eval
from werewolf_deception.benchmarks.detect.table import print_table

__all__ = [
    "DEFAULT",
    "KIND",
    "DetectorError",
    "Friction",
    "ModelJudge",
    "make_detector",
    "print_table",
    "run_detect_eval",
    "run_runs_eval",
    "statement_rows",
]
