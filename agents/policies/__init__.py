"""The policies that need no server: the interface, heuristic, random and human.

The names other packages use, from the modules that define them.
"""

from __future__ import annotations

from werewolf_deception.agents.policies.heuristic import HeuristicAgent
from werewolf_deception.agents.policies.human import SHORTHAND, HumanAgent, shorthand
from werewolf_deception.agents.policies.random_agent import RandomAgent

__all__ = [
    "SHORTHAND",
    "HeuristicAgent",
    "HumanAgent",
    "RandomAgent",
    "shorthand",
]
