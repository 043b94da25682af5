"""The witch's and the hunter's rules where they meet hidden information: what the night's announcements, the
witch's turns and the judge give away or get right."""

from __future__ import annotations

from tests.helpers import FULL_ROLES, fixed_game, run_until, scripted
from werewolf_env.claims.judge import Knowledge, judge_claims
from werewolf_env.core.state import PUBLIC, ActionKind

# Seats: 0 Alice W, 1 Bob W, 2 Carla S, 3 Dmitri D, 4 Emma WI, 5 Farid H, 6 Grace V, 7 Hiro V
ELIMINATE, HEAL, POISON = ActionKind.ELIMINATE, ActionKind.HEAL, ActionKind.POISON


def _first_night(overrides: dict) -> object:
    game = fixed_game(FULL_ROLES)
    run_until(game, scripted(overrides), stop=lambda g: g.state.phase == "bid")
    return game


def test_the_nights_dead_are_announced_in_seat_order_whatever_killed_them() -> None:
    """The pack kills Hiro (7), the witch poisons Grace (6): Grace's death comes first, as it would if the
    causes were the other way round; both are "night" deaths."""
    for victim, poisoned in ((7, 6), (6, 7)):
        game = _first_night(
            {
                (ELIMINATE, 1, None): {
                    "target": ["Alice", "Bob", "Carla", "Dmitri", "Emma", "Farid", "Grace", "Hiro"][victim]
                },
                (POISON, 1, 4): {"target": "Grace" if poisoned == 6 else "Hiro"},
            }
        )
        deaths = [e.data for e in game.state.events if e.type == "death" and e.audience == PUBLIC]
        assert [d["victim"] for d in deaths] == [6, 7]
        assert {d["cause"] for d in deaths} == {"night"}


def test_a_witch_who_may_not_heal_herself_is_not_asked_when_she_is_the_victim() -> None:
    asked = []

    def heal(game, turn):
        asked.append(turn.player)
        return {"target": "Emma"}

    for self_heal, expected in ((False, []), (True, [4])):
        asked.clear()
        game = fixed_game(FULL_ROLES, witch_self_heal=self_heal)
        run_until(
            game,
            scripted({(ELIMINATE, 1, None): {"target": "Emma"}, (HEAL, 1, 4): heal}),
            stop=lambda g: g.state.phase == "bid",
        )
        assert asked == expected
        assert game.state.alive[4] == self_heal  # healed only where she may heal herself
        fallbacks = [e for e in game.state.events if e.type == "action" and "fallbacks" in e.data]
        assert not fallbacks


def test_a_denied_potion_is_judged_against_what_the_witch_did() -> None:
    """ "I never poisoned Grace" is true from a witch who did not, a lie from one who did."""
    for poisoned in (None, "Grace"):
        game = _first_night({(POISON, 1, 4): {"target": poisoned}})
        know = Knowledge.of_state(game.state, 4)
        claims = [
            {"kind": "poisoned", "player": 6, "role": None, "team": None, "negated": True, "hedged": False},
            {"kind": "protected", "player": 6, "role": None, "team": None, "negated": True, "hedged": False},
        ]
        verdict = judge_claims(know, claims)
        poisoned_verdict, healed_verdict = verdict["claims"]
        assert poisoned_verdict["known_false"] == (poisoned is not None)
        assert not healed_verdict["known_false"]  # she healed nobody
        assert verdict["lie"] == (poisoned is not None)


def test_a_turn_that_names_nobody_may_only_be_answered_null() -> None:
    from werewolf_deception.agents.llm.schemas import turn_schema

    schema = turn_schema("heal", {"legal_targets": []})
    assert schema["properties"]["target"] == {"type": "null"}
    assert "enum" in str(turn_schema("heal", {"legal_targets": ["Emma"]}))
