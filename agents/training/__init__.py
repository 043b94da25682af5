"""Training in the game: learner seats, seat environments, TRL, OpenEnv and verifiers shapes.

``werewolf_deception.agents.training`` was one module before the sub-packages: its public names are still read
here, from ``werewolf_deception.agents.training.learner_seats``, loaded on first use (so that importing a sibling module
does not load this one).
"""

from __future__ import annotations

from werewolf_env.core.moved import reexport

__getattr__, __dir__ = reexport(
    __name__,
    "werewolf_deception.agents.training.learner_seats",
    ("LearnerSeats",),
)
