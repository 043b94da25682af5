"""Policies that play werewolf_env (observation + info in, JSON action out) and the game runner."""

from .base import Policy
from .heuristic import HeuristicAgent
from .lineup import AgentSpec, Lineup, load_lineup, make_policy
from .random_agent import RandomAgent
from .runner import GameResult, PlayerOutcome, play_game, play_game_sync

__all__ = [
    "AgentSpec", "GameResult", "HeuristicAgent", "Lineup", "PlayerOutcome", "Policy", "RandomAgent",
    "load_lineup", "make_policy", "play_game", "play_game_sync",
]  # fmt: skip
