"""Denials of the witch's potions are read as negated night-result claims, and judged by what she did."""

from __future__ import annotations

from typing import Any

import pytest

from werewolf_env.claims.judge import Knowledge, judge_claims
from werewolf_env.claims.model import claim_key, make_claim
from werewolf_env.claims.text import extractor_for

NAMES = ("Alice", "Bob", "Carla", "Dmitri")
A, B, C, D = range(4)
X = extractor_for(NAMES)


def keys(text: str, speaker: int = A) -> set[tuple[Any, ...]]:
    return {(*claim_key(c), c["hedged"]) for c in X.extract(text, speaker)}


def denied(kind: str, *seats: int) -> set[tuple[Any, ...]]:
    return {(*claim_key(make_claim(kind, seat, negated=True)), False) for seat in seats}


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("I never poisoned Bob.", denied("poisoned", B)),
        ("I did not poison Bob.", denied("poisoned", B)),
        ("I didn't poison Bob or Carla.", denied("poisoned", B, C)),
        ("I haven't used my poison on Dmitri.", denied("poisoned", D)),
        ("I never healed Carla.", denied("protected", C)),
        ("I didn't poison anyone.", denied("poisoned", B, C, D)),  # everyone but the speaker
        ("I haven't poisoned anybody yet.", denied("poisoned", B, C, D)),
        ("I haven't used my poison on anyone, Bob.", denied("poisoned", B, C, D)),
        ("I never used my heal.", denied("protected", A, B, C, D)),  # a witch may heal herself
        ("I have not used my healing potion yet.", denied("protected", A, B, C, D)),
        # not denials of one's own potion
        ("Carla said she never poisoned Bob.", set()),
        ("If I didn't poison Bob, who did?", set()),
        (
            "I didn't poison Bob, he is a wolf.",
            denied("poisoned", B) | {(*claim_key(make_claim("team", B, team="werewolf")), False)},
        ),
    ],
)
def test_denials_of_potions_are_read(text: str, expected: set[tuple[Any, ...]]) -> None:
    assert keys(text) == expected


def test_a_denial_read_from_text_is_judged_against_the_witchs_night() -> None:
    roles = {"Alice": "witch", "Bob": "werewolf", "Carla": "villager", "Dmitri": "seer"}
    know = Knowledge.of_transcript(list(NAMES), roles, "Alice", "witch", protected=["Carla"])
    assert judge_claims(know, X.extract("I never used my heal.", A))["type"] == "fabrication"
    assert not judge_claims(know, X.extract("I never healed Bob.", A))["lie"]


def test_a_denial_claims_no_potion() -> None:
    """A denial ("I never poisoned Bob") does not make its speaker a claimed witch (public role claims)."""
    from werewolf_env.claims.model import public_role_claims

    assert public_role_claims([(A, X.extract("I never poisoned Bob.", A))]) == ()
    assert public_role_claims([(A, X.extract("I poisoned Bob.", A))]) == ((A, "witch"),)
