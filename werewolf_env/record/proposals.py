"""What a statement proposes to its listeners: "vote Bob" / "exile Bob", "don't vote Bob", "protect Bob",
explicitly in its text or implied by its claims (an accusation proposes a vote, a vouch proposes not voting).

The first step of the counterfactual signs (``counterfactual``, which re-exports these) and read on its
own by the detector and friction benchmarks. Pure text matching: no state, no randomness.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from werewolf_env.core import name_key


@dataclass(frozen=True)
class Proposal:
    """What a statement proposes to its listeners: ``kind`` is vote, dont_vote or protect."""

    statement_id: int
    speaker: int
    kind: str
    target: int
    source: str  # "text" (an explicit request) or "claim" (an accusation or a vouch)

    def to_json(self) -> dict[str, Any]:
        return {
            "statement_id": self.statement_id,
            "speaker": self.speaker,
            "kind": self.kind,
            "target": self.target,
            "source": self.source,
        }


_VERBS_VOTE = r"(?:vote(?:\s+out|\s+for|\s+against)?|exile|eliminate|lynch|hang|kick\s+out|get\s+rid\s+of)"
_NEGATION = r"(?:don'?t|do\s+not|never|stop|shouldn'?t|should\s+not|let'?s\s+not)"


def _name_pattern(names: tuple[str, ...] | list[str]) -> str:
    return "(" + "|".join(re.escape(n) for n in sorted(names, key=len, reverse=True)) + ")"


def extract_proposals(
    statement_id: int, speaker: int, text: str, claims: list[dict[str, Any]], names: tuple[str, ...] | list[str]
) -> list[Proposal]:
    """Explicit requests in the text first ("vote Bob", "don't vote Bob", "protect Bob"), then the
    proposals implied by claims (an accusation proposes a vote, a vouch proposes not voting)."""
    out: list[Proposal] = []
    seen: set[tuple[str, int]] = set()
    # Names compared as everywhere else (``names.name_key``): "Inés" written decomposed is Inés.
    keys = [name_key(n) for n in names]
    index = {key: i for i, key in enumerate(keys)}
    who = _name_pattern(keys)
    lowered = name_key(text)

    def add(kind: str, target: int, source: str) -> None:
        # "Don't vote me" is a proposal (self-defence); "vote me" is not one anybody makes.
        if (target != speaker or kind == "dont_vote") and (kind, target) not in seen:
            seen.add((kind, target))
            out.append(Proposal(statement_id, speaker, kind, target, source))

    for m in re.finditer(rf"\b{_NEGATION}\s+{_VERBS_VOTE}\s+{who}\b", lowered):
        add("dont_vote", index[m.group(1)], "text")
    for m in re.finditer(rf"(?<!not )(?<!n't )\b{_VERBS_VOTE}\s+{who}\b", lowered):
        target = index[m.group(1)]
        if ("dont_vote", target) not in seen:
            add("vote", target, "text")
    for m in re.finditer(rf"\b(?:protect|save|guard)\s+{who}\b", lowered):
        add("protect", index[m.group(1)], "text")
    for c in claims:
        player = c.get("player")
        if not isinstance(player, int) or c.get("negated"):
            continue
        if c.get("kind") in ("team", "seer_result") and c.get("team") == "werewolf":
            add("vote", player, "claim")
        elif c.get("kind") in ("team", "seer_result") and c.get("team") == "village":
            add("dont_vote", player, "claim")
        elif c.get("kind") == "role" and c.get("role") == "werewolf":
            add("vote", player, "claim")
    return out
