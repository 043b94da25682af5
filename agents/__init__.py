"""Policies that play werewolf_env (observation + info in, JSON action out) and the game runner."""

from __future__ import annotations

from agents.play.lineup import AgentSpec, Lineup, load_lineup, make_policy
from agents.play.runner import GameResult, PlayerOutcome, play_game, play_game_sync
from agents.policies.base import Policy
from agents.policies.heuristic import HeuristicAgent
from agents.policies.random_agent import RandomAgent
from werewolf_env.core.moved import install_moves

__all__ = [
    "AgentSpec", "GameResult", "HeuristicAgent", "Lineup", "PlayerOutcome", "Policy", "RandomAgent",
    "load_lineup", "make_policy", "play_game", "play_game_sync",
]  # fmt: skip

# The flat layout's module names, kept importable with a ModuleMovedWarning (werewolf_env/core/moved.py).
_MOVED = {
    "backpressure":      "serving.backpressure",
    "base":              "policies.base",
    "cache":             "llm.cache",
    "credentials":       "serving.credentials",
    "endpoint":          "serving.endpoint",
    "endpoints":         "serving.endpoints",
    "fake_answers":      "fake.answers",
    "fake_faults":       "fake.faults",
    "fake_openai":       "fake.server",
    "folding":           "llm.folding",
    "heuristic":         "policies.heuristic",
    "heuristic_memory":  "policies.heuristic_memory",
    "heuristic_speech":  "policies.heuristic_speech",
    "human":             "policies.human",
    "lineup":            "play.lineup",
    "llm_options":       "llm.options",
    "local_server":      "serving.local_server",
    "openenv_seat":      "training.openenv_server",
    "preflight":         "serving.preflight",
    "prompts":           "llm.prompts",
    "random_agent":      "policies.random_agent",
    "runner":            "play.runner",
    "schemas":           "llm.schemas",
    "seat_env":          "training.seat_env",
    "transport":         "serving.transport",
    "trl_seat":          "training.trl_env",
    "verifiers_seat":    "training.verifiers_env",
}  # fmt: skip
install_moves({f"{__name__}.{old}": f"{__name__}.{new}" for old, new in _MOVED.items()})
