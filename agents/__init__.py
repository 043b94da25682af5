"""Policies that play werewolf_env (observation + info in, JSON action out) and the game runner."""

from agents.base import Policy
from agents.heuristic import HeuristicAgent
from agents.lineup import AgentSpec, Lineup, load_lineup, make_policy
from agents.random_agent import RandomAgent
from agents.runner import GameResult, PlayerOutcome, play_game, play_game_sync

__all__ = [
    "AgentSpec", "GameResult", "HeuristicAgent", "Lineup", "PlayerOutcome", "Policy", "RandomAgent",
    "load_lineup", "make_policy", "play_game", "play_game_sync",
]  # fmt: skip
