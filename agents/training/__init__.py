"""Training in the game: learner seats, seat environments, TRL, OpenEnv and verifiers shapes.

The names other packages use, from the modules that define them.
"""

from __future__ import annotations

from werewolf_deception.agents.training.learner_seats import LearnerSeats
from werewolf_deception.agents.training.seat_env import new_text_since

__all__ = [
    "LearnerSeats",
    "new_text_since",
]
