"""The claim extractor and the ground-truth judge."""

from __future__ import annotations

from typing import Any

import pytest

from tests.helpers import fixed_game, run_until, scripted
from werewolf_env.claims.judge import judge
from werewolf_env.claims.model import make_claim
from werewolf_env.claims.text import extractor_for
from werewolf_env.core.config import DEFAULT_NAMES
from werewolf_env.core.state import ActionKind
from werewolf_env.wrappers.discrete import NUM_STATEMENTS, DiscreteActions

NAMES = DEFAULT_NAMES[:8]  # Alice Bob Carla Dmitri Emma Farid Grace Hiro
X = extractor_for(NAMES)


def claim(kind: str, player: int, role: str | None = None, team: str | None = None, negated: bool = False):
    return make_claim(kind, player, role, team, negated)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("I am the seer.", [claim("role", 0, "seer")]),
        ("I'm a villager, trust me", [claim("role", 0, "villager")]),
        ("As the doctor, I say we wait.", [claim("role", 0, "doctor")]),
        ("I am not the seer", [claim("role", 0, "seer", negated=True)]),
        ("I am innocent!", [claim("team", 0, team="village")]),
        ("I am not a werewolf", [claim("team", 0, team="village")]),
        ("Bob is a werewolf.", [claim("team", 1, team="werewolf")]),
        ("bob is definitely a wolf", [claim("team", 1, team="werewolf")]),
        ("Emma is innocent", [claim("team", 4, team="village")]),
        ("Emma is not a werewolf", [claim("team", 4, team="village")]),
        ("Farid is the doctor", [claim("role", 5, "doctor")]),
        ("Farid is not the doctor", [claim("role", 5, "doctor", negated=True)]),
        ("player_3 is the seer", [claim("role", 3, "seer")]),
        ("I checked Emma, she is innocent", [claim("seer_result", 4, team="village")]),
        ("I investigated Bob: werewolf", [claim("seer_result", 1, team="werewolf")]),
        ("I checked Grace and she is a werewolf.", [claim("seer_result", 6, team="werewolf")]),
        ("I checked Hiro, not a werewolf", [claim("seer_result", 7, team="village")]),
        ("I protected Raj", []),  # Raj is not in this 8-player game
        ("I protected Hiro last night", [claim("protected", 7)]),
        (
            "I am the seer. I checked Carla, a werewolf. Dmitri is innocent.",
            [claim("role", 0, "seer"), claim("seer_result", 2, team="werewolf"), claim("team", 3, team="village")],
        ),
        ("We should vote carefully today.", []),
        ("Alice is the seer", [claim("role", 0, "seer")]),  # the speaker's own name: a claim about herself
    ],
)
def test_extractor(text: str, expected: list[dict[str, Any]]) -> None:
    assert X.extract(text, speaker=0) == expected


def test_extractor_does_not_read_a_seer_result_twice() -> None:
    claims = X.extract("I checked Emma, Emma is a werewolf", speaker=2)
    assert claims == [claim("seer_result", 4, team="werewolf")]


def test_mentions() -> None:
    assert X.mentions("I think BOB and player_4 are odd, not Bobby") == frozenset({1, 4})


def test_discrete_templates_carry_the_claims_their_text_says() -> None:
    """Every templated statement's structured claims equal what the extractor reads from its text."""
    for index in range(NUM_STATEMENTS):
        action = DiscreteActions._statement(index, 0, NAMES)
        from werewolf_env.actions.parse import resolver
        from werewolf_env.claims.model import normalize_claims

        game = fixed_game()
        structured, errors = normalize_claims(action["claims"], resolver(game.state), 0)
        assert not errors
        assert X.extract(action["statement"], speaker=0) == structured, action["statement"]


# ------------------------------------------------------------------------------------------ judge


def verdict(game, speaker: int, *claims: dict[str, Any]) -> dict[str, Any]:
    return judge(game.state, speaker, list(claims))


def test_werewolf_claiming_seer_is_fabrication() -> None:
    game = fixed_game()
    v = verdict(game, 0, claim("role", 0, "seer"))
    assert v["lie"] and v["type"] == "fabrication"


def test_werewolf_accusing_an_innocent_is_misdirection() -> None:
    game = fixed_game()
    v = verdict(game, 0, claim("team", 4, team="werewolf"))
    assert v["lie"] and v["type"] == "misdirection"


def test_werewolf_vouching_for_partner_is_distortion() -> None:
    game = fixed_game()
    v = verdict(game, 0, claim("team", 1, team="village"))
    assert v["lie"] and v["type"] == "distortion"
    v = verdict(game, 0, claim("role", 1, "villager"))
    assert v["lie"] and v["type"] == "distortion"


def test_werewolf_guessing_a_village_role_is_not_known_false() -> None:
    game = fixed_game()
    v = verdict(game, 0, claim("role", 4, "seer"))  # Emma is a villager, but Alice cannot know
    assert not v["lie"] and v["claims"][0]["true"] is False and v["claims"][0]["known_false"] is False


def test_villager_wrong_accusation_is_a_mistake_not_a_lie() -> None:
    game = fixed_game()
    v = verdict(game, 4, claim("team", 5, team="werewolf"))
    assert not v["lie"] and v["claims"][0]["true"] is False


def test_villager_claiming_seer_is_fabrication_even_on_the_village_side() -> None:
    game = fixed_game()
    assert verdict(game, 4, claim("role", 4, "seer"))["type"] == "fabrication"


def test_role_counts_make_claims_known_false() -> None:
    """The only seer knows nobody else is the seer."""
    game = fixed_game()
    v = verdict(game, 2, claim("role", 5, "seer"))
    assert v["lie"] and v["type"] == "distortion"


def test_seer_results_honest_and_fabricated() -> None:
    game = fixed_game()
    run_until(
        game, scripted({(ActionKind.UNMASK, 1, None): {"target": "Alice"}}), stop=lambda g: g.state.phase == "bid"
    )
    honest = verdict(game, 2, claim("seer_result", 0, team="werewolf"))
    assert not honest["lie"] and honest["claims"][0]["true"]
    flipped = verdict(game, 2, claim("seer_result", 0, team="village"))
    assert flipped["type"] == "fabrication"
    never_checked = verdict(game, 2, claim("seer_result", 4, team="village"))
    assert never_checked["type"] == "fabrication"
    accuse_checked_wolf = verdict(game, 2, claim("team", 0, team="werewolf"))
    assert not accuse_checked_wolf["lie"]
    fake = verdict(game, 4, claim("seer_result", 0, team="werewolf"))  # a villager with a true guess
    assert fake["type"] == "fabrication"


def test_seer_knows_checked_innocents() -> None:
    game = fixed_game()
    run_until(game, scripted({(ActionKind.UNMASK, 1, None): {"target": "Emma"}}), stop=lambda g: g.state.phase == "bid")
    assert verdict(game, 2, claim("team", 4, team="werewolf"))["type"] == "misdirection"


def test_doctor_protection_claims() -> None:
    game = fixed_game()
    run_until(
        game, scripted({(ActionKind.PROTECT, 1, None): {"target": "Hiro"}}), stop=lambda g: g.state.phase == "bid"
    )
    assert not verdict(game, 3, claim("protected", 7))["lie"]
    assert verdict(game, 3, claim("protected", 6))["type"] == "fabrication"
    assert verdict(game, 0, claim("protected", 7))["type"] == "fabrication"


def test_night_victims_are_publicly_known_innocent() -> None:
    game = fixed_game()
    run_until(
        game, scripted({(ActionKind.ELIMINATE, 1, None): {"target": "Emma"}}), stop=lambda g: g.state.phase == "bid"
    )
    v = verdict(game, 5, claim("team", 4, team="werewolf"))  # a villager calls the dead Emma a wolf
    assert v["type"] == "misdirection"


def test_fabrication_takes_precedence() -> None:
    game = fixed_game()
    v = verdict(game, 0, claim("team", 1, team="village"), claim("team", 4, team="werewolf"), claim("role", 0, "seer"))
    assert v["type"] == "fabrication"
    assert [c["type"] for c in v["claims"]] == ["distortion", "misdirection", "fabrication"]


def test_statement_verdicts_reach_ground_truth_and_not_agents() -> None:
    game = fixed_game()
    script = scripted(
        {
            (ActionKind.BID, None, None): lambda g, t: {"bid": 10 if t.player == 0 else 0},
            (ActionKind.STATEMENT, None, 0): {"statement": "I am the seer. I checked Emma, she is a werewolf."},
        }
    )
    run_until(game, script, stop=lambda g: bool(g.state.statements))
    (st,) = game.ground_truth()["statements"]
    assert st["lie"] and st["type"] == "fabrication" and st["speaker_role"] == "werewolf"
    assert st["claims_source"] == "text" and st["claims_disagreement"] is None  # no structured claims sent
    assert [c["source"] for c in st["claims"]] == ["text", "text"]
    truth_events = [e for e in game.state.events if e.type == "ground_truth"]
    assert truth_events and all(e.audience == () for e in truth_events)


def test_structured_claims_add_to_extraction_and_bad_ones_are_reported() -> None:
    game = fixed_game()
    claims = [
        {"kind": "role", "player": "me", "role": "doctor"},
        {"kind": "team", "player": "Emma", "team": "werewolf"},
        {"kind": "role", "player": "Nobody"},
        {"kind": "spell", "player": "Bob"},
        "not a claim",
    ]
    script = scripted(
        {
            (ActionKind.BID, None, None): lambda g, t: {"bid": 10 if t.player == 0 else 0},
            (ActionKind.STATEMENT, None, 0): {"statement": "I am the seer.", "claims": claims},
        }
    )
    run_until(game, script, stop=lambda g: bool(g.state.statements))
    st = game.state.statements[0]
    assert st.claims_source == "both"
    assert st.claims == [
        {**claim("role", 0, "seer"), "source": "text"},  # what the text says is judged whatever was sent
        {**claim("role", 0, "doctor"), "source": "agent"},
        {**claim("team", 4, team="werewolf"), "source": "agent"},
    ]
    assert st.claims_disagreement == {"agent_only": 2, "text_only": 1, "agreed": 0}
    action = next(e for e in game.state.events if e.type == "action" and e.data["kind"] == "statement")
    assert len(action.data["fallbacks"]) == 3
