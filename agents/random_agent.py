"""``RandomAgent``: uniformly random legal actions, the baseline every metric is compared against."""

from __future__ import annotations

from typing import Any

import numpy as np

from werewolf_env.claims import LIE_TYPES

from .base import Policy

_ROLES = ("seer", "doctor", "villager")


class RandomAgent(Policy):
    name = "random"

    def __init__(self, seed: int | None = None) -> None:
        self.rng = np.random.default_rng(seed)

    def act(self, observation: dict[str, Any], info: dict[str, Any]) -> dict[str, Any]:
        rng = self.rng
        kind = info.get("action_kind")
        legal = list(info.get("legal_targets", []))
        if kind in ("eliminate", "protect", "unmask"):
            return {"target": legal[int(rng.integers(len(legal)))] if legal else None}
        if kind == "vote":
            options: list[str | None] = [*legal, None]
            return {"vote": options[int(rng.integers(len(options)))]}
        if kind == "bid":
            return {"bid": int(rng.integers(0, int(info.get("max_bid", 10)) + 1))}
        if kind == "statement":
            return {"statement": self._statement(legal)}
        if kind in ("self_analysis", "peer_analysis"):
            deceptive = bool(rng.random() < 0.5)
            action: dict[str, Any] = {
                "is_deceptive": deceptive,
                "confidence": round(float(rng.random()), 3),
                "deception_type": LIE_TYPES[int(rng.integers(1, len(LIE_TYPES)))] if deceptive else "none",
                "reasoning": "random",
            }
            if kind == "peer_analysis":
                action["suspicion"] = round(float(rng.random()), 3)
            return action
        return {"summary": "Good game."}

    def _statement(self, players: list[str]) -> str:
        rng = self.rng
        choice = int(rng.integers(4))
        if choice == 0 or not players:
            return f"I am the {_ROLES[int(rng.integers(len(_ROLES)))]}."
        name = players[int(rng.integers(len(players)))]
        if choice == 1:
            return f"{name} is a werewolf."
        if choice == 2:
            return f"{name} is innocent."
        return f"I checked {name}, {'a werewolf' if rng.random() < 0.5 else 'innocent'}."
