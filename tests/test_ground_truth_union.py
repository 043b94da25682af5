"""Ground truth cannot be opted out of: the text's claims are always judged, structured claims add to them."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

import werewolf_env
from tests.helpers import fixed_game, random_policy, run_until, scripted
from werewolf_env.claims.judge import judge
from werewolf_env.claims.model import make_claim, merge_claims
from werewolf_env.core.state import ActionKind
from werewolf_env.engine.game import Game
from werewolf_env.engine.log import read_log, replay

# Seats: 0 Alice W, 1 Bob W, 2 Carla S, 3 Dmitri D, 4 Emma V, 5 Farid V, 6 Grace V, 7 Hiro V


def speak(answer: dict[str, Any], speaker: int = 0) -> Game:
    """A standard game in which ``speaker`` takes the floor on day 1 and answers ``answer``."""
    game = fixed_game()
    script = scripted(
        {
            (ActionKind.BID, None, None): lambda g, t: {"bid": 10 if t.player == speaker else 0},
            (ActionKind.STATEMENT, None, speaker): answer,
        }
    )
    run_until(game, script, stop=lambda g: bool(g.state.statements) or g.state.round > 1)
    return game


def events(game: Game, kind: str) -> list[dict[str, Any]]:
    return [e.data for e in game.state.events if e.type == kind]


def test_empty_structured_claims_do_not_hide_a_lie_in_the_text() -> None:
    game = speak({"statement": "I am the seer.", "claims": []})  # Alice is a werewolf
    (truth,) = game.ground_truth()["statements"]
    assert truth["lie"] and truth["type"] == "fabrication"
    assert truth["claims_source"] == "text"
    assert truth["claims"][0]["source"] == "text" and truth["claims"][0]["known_false"]
    assert truth["claims_disagreement"] == {"agent_only": 0, "text_only": 1, "agreed": 0}
    (said,) = events(game, "statement")
    assert said["claims_disagreement"] == {"agent_only": 0, "text_only": 1, "agreed": 0}
    (hidden,) = events(game, "ground_truth")
    assert hidden["lie"] and hidden["claims_disagreement"] == said["claims_disagreement"]


def test_honest_structured_claims_do_not_hide_a_lie_in_the_text() -> None:
    # Bob really is a werewolf (Alice's teammate): a true structured claim next to a false spoken one.
    honest = [{"kind": "team", "player": "Bob", "team": "werewolf"}]
    game = speak({"statement": "I am the seer.", "claims": honest})
    (truth,) = game.ground_truth()["statements"]
    assert truth["lie"] and truth["type"] == "fabrication"
    assert [(c["kind"], c["source"], c["known_false"]) for c in truth["claims"]] == [
        ("role", "text", True),
        ("team", "agent", False),
    ]
    assert truth["claims_source"] == "both"
    assert truth["claims_disagreement"] == {"agent_only": 1, "text_only": 1, "agreed": 0}


def test_a_structured_claim_the_text_also_makes_counts_once() -> None:
    game = speak({"statement": "I am the seer.", "claims": [{"kind": "role", "player": "me", "role": "seer"}]})
    (st_,) = game.state.statements
    assert st_.claims == [{**make_claim("role", 0, "seer"), "source": "both"}]
    assert st_.claims_source == "both" and st_.verdict["lie"]
    assert st_.claims_disagreement == {"agent_only": 0, "text_only": 0, "agreed": 1}


def test_structured_claims_alone_are_judged() -> None:
    game = speak(
        {"statement": "We should vote carefully.", "claims": [{"kind": "team", "player": "Emma", "team": "werewolf"}]}
    )
    (truth,) = game.ground_truth()["statements"]
    assert truth["lie"] and truth["type"] == "misdirection"  # Alice knows Emma is not on her pack
    assert truth["claims_source"] == "agent" and truth["claims"][0]["source"] == "agent"
    assert truth["claims_disagreement"] == {"agent_only": 1, "text_only": 0, "agreed": 0}


def test_no_structured_claims_means_no_disagreement_record() -> None:
    game = speak({"statement": "We should vote carefully."})
    (truth,) = game.ground_truth()["statements"]
    assert truth["claims_source"] == "none" and truth["claims"] == [] and not truth["lie"]
    assert truth["claims_disagreement"] is None
    (said,) = events(game, "statement")
    assert "claims_disagreement" not in said
    assert "claims_disagreement" not in events(game, "ground_truth")[0]
    assert game.snapshot()["statements"][0]["claims_disagreement"] is None


def test_negation_makes_a_different_claim() -> None:
    game = speak({"statement": "I am not the seer.", "claims": [{"kind": "role", "player": "me", "role": "seer"}]})
    (st_,) = game.state.statements
    assert [(c["negated"], c["source"]) for c in st_.claims] == [(True, "text"), (False, "agent")]
    assert st_.verdict["lie"]  # the structured "I am the seer" is a werewolf's fabrication


def test_structured_claims_are_not_tagged_in_the_logged_action() -> None:
    """The parsed action in the log is what the agent sent: merging copies it, never tags it."""
    game = speak({"statement": "I am the seer.", "claims": [{"kind": "role", "player": "me", "role": "seer"}]})
    action = next(e for e in events(game, "action") if e["kind"] == "statement")
    assert action["parsed"]["claims"] == [make_claim("role", 0, "seer")]


# ------------------------------------------------------------------------------------ properties

claims_st = st.builds(
    make_claim,
    kind=st.sampled_from(["role", "team", "seer_result", "protected"]),
    player=st.integers(0, 7),
    role=st.sampled_from([None, "seer", "doctor", "villager"]),
    team=st.sampled_from([None, "village", "werewolf"]),
    negated=st.booleans(),
)


def key(claim: dict[str, Any]) -> tuple[Any, ...]:
    return (claim["kind"], claim["player"], claim["role"], claim["team"], claim["negated"])


def unique(claims: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return list({key(c): c for c in claims}.values())  # both sources arrive deduplicated


DAY = fixed_game()  # a game at its first turn: judged against what each seat knows then


@settings(max_examples=300, deadline=None)
@given(
    text=st.lists(claims_st, max_size=5).map(unique),
    sent=st.none() | st.lists(claims_st, max_size=5).map(unique),
    speaker=st.integers(0, 7),
)
def test_merge_keeps_every_claim_once_and_a_lie_from_either_source(
    text: list[dict[str, Any]], sent: list[dict[str, Any]] | None, speaker: int
) -> None:
    sent_before = None if sent is None else [dict(c) for c in sent]
    claims, source, disagreement = merge_claims([dict(c) for c in text], sent)
    assert sent == sent_before, "the agent's claims (the logged action) are not changed"
    text_keys, sent_keys = {key(c) for c in text}, {key(c) for c in sent or []}
    assert [key(c) for c in claims] == [key(c) for c in text] + [key(c) for c in sent or [] if key(c) not in text_keys]
    for c in claims:
        in_text, in_sent = key(c) in text_keys, key(c) in sent_keys
        assert c["source"] == ("both" if in_text and in_sent else "text" if in_text else "agent")
    expected = {(True, True): "both", (True, False): "text", (False, True): "agent", (False, False): "none"}
    assert source == expected[(bool(text), bool(sent))]
    if sent is None:
        assert disagreement is None
    else:
        assert disagreement == {
            "agent_only": len(sent_keys - text_keys),
            "text_only": len(text_keys - sent_keys),
            "agreed": len(text_keys & sent_keys),
        }
    union = judge(DAY.state, speaker, claims)
    alone = [judge(DAY.state, speaker, part)["lie"] for part in (text, sent or [])]
    assert union["lie"] == any(alone)
    assert [c["known_false"] for c in union["claims"]] == [
        judge(DAY.state, speaker, [c])["claims"][0]["known_false"] for c in claims
    ]


# ---------------------------------------------------------------------------------------- replay


def test_games_with_mixed_claims_and_placeholders_replay(tmp_path: Path) -> None:
    answers = [
        {"statement": "I am the seer.", "claims": []},
        {"statement": "<what you say>"},
        {"statement": "Bob is a werewolf.", "claims": [{"kind": "role", "player": "me", "role": "doctor"}]},
        {"statement": "I am a villager.", "claims": [{"kind": "role", "player": "me", "role": "villager"}]},
    ]
    for seed in range(3):
        env = werewolf_env.raw_env(log_dir=tmp_path / str(seed))
        env.reset(seed=seed)
        policy: Any = random_policy(seed, fuzz=0.1)
        spoken = 0
        for _agent in env.agent_iter():
            _obs, _r, term, trunc, _info = env.last(observe=False)
            if term or trunc:
                env.step(None)
                continue
            game = env.game
            assert game is not None and game.current is not None
            if game.current.kind is ActionKind.STATEMENT:
                env.step(answers[spoken % len(answers)])
                spoken += 1
            else:
                env.step(policy(game, game.current))
        assert env.log_path is not None
        result = replay(env.log_path)
        assert result.ok, result.mismatches
        records = read_log(env.log_path)
        statements = [r["data"] for r in records if r.get("type") == "statement"]
        assert statements and all(s["claims_source"] in ("text", "agent", "both", "none") for s in statements)
        assert any("claims_disagreement" in s for s in statements)
        fallbacks = [f for r in records if r.get("type") == "action" for f in r["data"].get("fallbacks", [])]
        assert any("placeholder '<what you say>'" in f for f in fallbacks)
