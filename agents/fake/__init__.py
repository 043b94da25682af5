"""The fake OpenAI-compatible server for tests and offline runs: its server, answers and faults.

The names other packages use, from the modules that define them.
"""

from __future__ import annotations

from werewolf_deception.agents.fake.answers import FIXED_CONTENT, answer_for, scripted_answer

__all__ = [
    "FIXED_CONTENT",
    "answer_for",
    "scripted_answer",
]
