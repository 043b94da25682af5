"""``RandomAgent``: uniformly random legal actions, the baseline every metric is compared against."""

from __future__ import annotations

import random
from typing import Any

from werewolf_deception.agents.base import Policy
from werewolf_env.actions import ACTION_SPECS
from werewolf_env.claims import LIE_TYPES
from werewolf_env.core import DEFAULT_RULESET, Team

# Kinds answered with a player: the answer's key, and whether null is an answer ("abstain", "keep the potion").
_TARGETS = {kind.value: (spec.target_key, spec.null_ok) for kind, spec in ACTION_SPECS.items() if spec.target_key}


class RandomAgent(Policy):
    """Seeded and reproducible; uses ``random.Random`` (scalar draws from numpy cost several times more)."""

    name = "random"

    def __init__(self, seed: int | None = None) -> None:
        self.rng = random.Random(seed)
        # Polls and the scores of a statement's subjects draw from streams of their own, so switching either on
        # leaves this player's other answers as they were (and polls never change a game).
        self.subject_rng = random.Random(None if seed is None else seed + 0x5EED)
        self.poll_rng = random.Random(None if seed is None else seed + 0x9011)

    def act(self, observation: dict[str, Any], info: dict[str, Any]) -> dict[str, Any]:
        rng = self.rng
        kind = info.get("action_kind")
        legal = list(info.get("legal_targets", []))
        target = _TARGETS.get(kind)  # type: ignore[arg-type]
        if kind == "poll":
            return {"vote": self.poll_rng.choice([*legal, None])}
        if target is not None:
            key, null_ok = target
            if null_ok:
                return {key: rng.choice([*legal, None])}
            return {key: rng.choice(legal) if legal else None}
        if kind == "bid":
            return {"bid": rng.randrange(int(info.get("max_bid", 10)) + 1)}  # = randint(0, max), one call less
        if kind == "statement":
            return {"statement": self._statement(legal, info.get("roles_in_game"))}
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
                if info.get("subjects"):
                    action["suspicion_of"] = {name: round(self.subject_rng.random(), 3) for name in info["subjects"]}
            return action
        return {"summary": "Good game."}

    def _statement(self, players: list[str], roles_in_game: list[str] | None) -> str:
        rng = self.rng
        choice = rng.randrange(4)
        if choice == 0 or not players:
            # Any village role of the game (werewolves pretend too): the roles a player could honestly be.
            # (The info names the roles only: a role the built-in table does not know counts as claimable.)
            default = DEFAULT_RULESET
            claimable = [
                r for r in (roles_in_game or _DEFAULT_ROLES) if r not in default or default.spec(r).team is Team.VILLAGE
            ]
            return f"I am the {rng.choice(claimable)}."
        name = rng.choice(players)
        if choice == 1:
            return f"{name} is a werewolf."
        if choice == 2:
            return f"{name} is innocent."
        return f"I checked {name}, {'a werewolf' if rng.random() < 0.5 else 'innocent'}."


_DEFAULT_ROLES = ("seer", "doctor", "villager")  # when the info does not say (older envs)
