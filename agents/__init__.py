"""Policies that play werewolf_env (observation + info in, JSON action out) and the game runner."""

from __future__ import annotations

from werewolf_deception.agents.base import Policy
from werewolf_deception.agents.play import (
    AgentSpec,
    GameResult,
    Lineup,
    PlayerOutcome,
    load_lineup,
    make_policy,
    play_game,
    play_game_sync,
)
from werewolf_deception.agents.policies import HeuristicAgent, RandomAgent

__all__ = [
    "AgentSpec", "GameResult", "HeuristicAgent", "Lineup", "PlayerOutcome", "Policy", "RandomAgent",
    "load_lineup", "make_policy", "play_game", "play_game_sync",
]  # fmt: skip
