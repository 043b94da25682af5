"""``RandomAgent``: uniformly random legal actions, the baseline every metric is compared against."""

from __future__ import annotations

import random
from typing import Any

from werewolf_env.claims import LIE_TYPES

from .base import Policy

_ROLES = ("seer", "doctor", "villager")


class RandomAgent(Policy):
    """Seeded and reproducible; uses ``random.Random`` (scalar draws from numpy cost several times more)."""

    name = "random"

    def __init__(self, seed: int | None = None) -> None:
        self.rng = random.Random(seed)

    def act(self, observation: dict[str, Any], info: dict[str, Any]) -> dict[str, Any]:
        rng = self.rng
        kind = info.get("action_kind")
        legal = list(info.get("legal_targets", []))
        if kind in ("eliminate", "protect", "unmask"):
            return {"target": rng.choice(legal) if legal else None}
        if kind == "vote":
            return {"vote": rng.choice([*legal, None])}
        if kind == "bid":
            return {"bid": rng.randrange(int(info.get("max_bid", 10)) + 1)}  # = randint(0, max), one call less
        if kind == "statement":
            return {"statement": self._statement(legal)}
        if kind in ("self_analysis", "peer_analysis"):
            deceptive = rng.random() < 0.5
            # ``confidence`` is the probability the statement is deceptive: uniform on the flag's half
            # (at least 0.5 when flagged, at most 0.5 otherwise), so uniform on 0-1 overall. Still one
            # draw each, in the same order: seeded games are the same as before.
            half = rng.random() / 2
            action: dict[str, Any] = {
                "is_deceptive": deceptive,
                "confidence": round(0.5 + half if deceptive else half, 3),
                "deception_type": rng.choice(LIE_TYPES[1:]) if deceptive else "none",
                "reasoning": "random",
            }
            if kind == "peer_analysis":
                action["suspicion"] = round(rng.random(), 3)
            return action
        return {"summary": "Good game."}

    def _statement(self, players: list[str]) -> str:
        rng = self.rng
        choice = rng.randrange(4)
        if choice == 0 or not players:
            return f"I am the {rng.choice(_ROLES)}."
        name = rng.choice(players)
        if choice == 1:
            return f"{name} is a werewolf."
        if choice == 2:
            return f"{name} is innocent."
        return f"I checked {name}, {'a werewolf' if rng.random() < 0.5 else 'innocent'}."
