"""Policies that play werewolf_env (observation + info in, JSON action out) and the game runner."""

from __future__ import annotations

from werewolf_deception.agents.base import Policy
from werewolf_deception.agents.play.lineup import AgentSpec, Lineup, load_lineup, make_policy
from werewolf_deception.agents.play.runner import GameResult, PlayerOutcome, play_game, play_game_sync
from werewolf_deception.agents.policies.heuristic import HeuristicAgent
from werewolf_deception.agents.policies.random_agent import RandomAgent

__all__ = [
    "AgentSpec", "GameResult", "HeuristicAgent", "Lineup", "PlayerOutcome", "Policy", "RandomAgent",
    "load_lineup", "make_policy", "play_game", "play_game_sync",
]  # fmt: skip
