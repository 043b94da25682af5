"""Human lies in Diplomacy (Peskov et al. 2020): the data, detectors, the LLM judge and the evaluation.

The names other packages use, from the modules that define them.
"""

from __future__ import annotations

from werewolf_deception.benchmarks.diplomacy.evaluate import dataset_command

__all__ = [
    "dataset_command",
]
