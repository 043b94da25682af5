"""The action parser: any input gives a legal action, and every replaced field a reason."""

from __future__ import annotations

import json
import math
import re
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.helpers import WITCH_AND_HUNTER_KINDS, fixed_game, game_at, random_policy, run_until
from werewolf_env.actions.parse import ACTION_MODELS, answer_format, echoes_template, legal_targets, parse
from werewolf_env.core.config import GameConfig
from werewolf_env.core.state import ActionKind, Turn
from werewolf_env.engine.game import Game

json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-(10**12), 10**12) | st.floats(allow_nan=True) | st.text(max_size=40),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=12), children, max_size=4),
    max_leaves=12,
)
field_names = st.sampled_from(
    [
        "target",
        "vote",
        "bid",
        "statement",
        "claims",
        "is_deceptive",
        "confidence",
        "deception_type",
        "reasoning",
        "suspicion",
        "summary",
        "notes",
        "other",
    ]
)
names = st.sampled_from(["Alice", "bob", " EMMA ", "player_3", "player_99", "me", "Nobody", "", "abstain"])
action_dicts = st.dictionaries(field_names, json_values | names, max_size=8)
raw_actions = action_dicts | action_dicts.map(json.dumps) | st.text(max_size=80) | json_values


GAMES = {kind: game_at(kind) for kind in ActionKind}


def check_legal(game: Game, turn: Turn, action: dict[str, Any]) -> None:
    kind = turn.kind
    if kind in (ActionKind.ELIMINATE, ActionKind.PROTECT, ActionKind.UNMASK, *WITCH_AND_HUNTER_KINDS):
        assert action["target"] is None or action["target"] in legal_targets(game.state, turn)
    elif kind in (ActionKind.VOTE, ActionKind.POLL):
        assert action["vote"] is None or action["vote"] in legal_targets(game.state, turn)
    elif kind is ActionKind.BID:
        assert isinstance(action["bid"], int) and 0 <= action["bid"] <= game.state.config.max_bid
    elif kind is ActionKind.STATEMENT:
        assert isinstance(action["statement"], str)
        assert len(action["statement"].split()) <= game.state.config.max_statement_words
        assert "\n" not in action["statement"]
        assert echoes_template(action["statement"]) is None, "a template's placeholder is never spoken"
    elif kind in (ActionKind.SELF_ANALYSIS, ActionKind.PEER_ANALYSIS):
        assert isinstance(action["is_deceptive"], bool)
        assert 0.0 <= action["confidence"] <= 1.0 and not math.isnan(action["confidence"])
        assert action["deception_type"] in ("none", "omission", "distortion", "fabrication", "misdirection")
        if kind is ActionKind.PEER_ANALYSIS:
            assert 0.0 <= action["suspicion"] <= 1.0
            subjects = game.state.analysis_subjects(turn.player)
            scored = action.get("suspicion_of", [])
            assert bool(subjects) == ("suspicion_of" in action)
            assert all(seat in subjects and 0.0 <= score <= 1.0 for seat, score in scored)
            assert [seat for seat, _ in scored] == sorted({seat for seat, _ in scored})
    else:
        assert isinstance(action["summary"], str)
    if "notes" in action:
        assert isinstance(action["notes"], str) and len(action["notes"]) <= 2000


@pytest.mark.parametrize("kind", list(ActionKind))
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(raw=raw_actions)
def test_any_input_gives_a_legal_action(kind: ActionKind, raw: Any) -> None:
    game = GAMES[kind]
    turn = game.current
    result = parse(raw, turn, game.state)
    check_legal(game, turn, result.action)
    json.dumps(result.action, allow_nan=False)  # parsed actions are plain JSON


@pytest.mark.parametrize("kind", list(ActionKind))
@settings(max_examples=60, deadline=None)
@given(raw=raw_actions)
def test_parsing_is_idempotent(kind: ActionKind, raw: Any) -> None:
    """Feeding a parsed action back in gives the same action with no new fallback."""
    game = GAMES[kind]
    turn = game.current
    first = parse(raw, turn, game.state).action
    again_input = dict(first)
    for key in ("target", "vote"):
        if again_input.get(key) is not None:
            again_input[key] = game.state.names[again_input[key]]
    again_input.pop("truncated", None)
    again_input.pop("original_words", None)
    again_input.pop("original_chars", None)
    second = parse(again_input, turn, game.state)
    assert not second.fallbacks, second.fallbacks
    expected = {k: v for k, v in first.items() if k not in ("original_words", "original_chars")}
    if kind is ActionKind.STATEMENT:
        expected["truncated"] = False  # the second pass gets the already-cut text
    assert second.action == expected


def test_fallback_reasons_name_the_field() -> None:
    game = GAMES[ActionKind.PEER_ANALYSIS]
    result = parse({"is_deceptive": "maybe", "confidence": 2, "suspicion": 0.4}, game.current, game.state)
    reasons = " | ".join(result.fallbacks)
    assert "is_deceptive" in reasons and "confidence" in reasons and "deception_type: missing" in reasons
    assert result.action["suspicion"] == 0.4, "valid fields survive invalid neighbours"
    assert result.action["confidence"] == 0.5 and result.action["deception_type"] == "none"


def test_unparseable_and_wrong_shapes() -> None:
    game = GAMES[ActionKind.BID]
    turn = game.current
    for raw in ("not json", "[1, 2]", 42, None, b"\xff\xfe", "{"):
        result = parse(raw, turn, game.state)
        assert result.action == {"bid": 0}
        assert result.fallbacks


def test_tolerated_wrappings() -> None:
    game = GAMES[ActionKind.BID]
    turn = game.current
    fenced = parse('```json\n{"bid": 7}\n```', turn, game.state)
    assert fenced.action == {"bid": 7} and not fenced.fallbacks and fenced.repairs
    chatty = parse('Sure! Here is my answer: {"bid": 4} Hope it helps.', turn, game.state)
    assert chatty.action == {"bid": 4} and not chatty.fallbacks
    assert parse({"bid": np.int64(3)}, turn, game.state).action == {"bid": 3}
    assert parse({"bid": 5, "extra": "ignored"}, turn, game.state).action == {"bid": 5}


def test_out_of_range_bid_falls_back_to_zero() -> None:
    game = GAMES[ActionKind.BID]
    for bid in (11, -1, 10**9):
        result = parse({"bid": bid}, game.current, game.state)
        assert result.action["bid"] == 0 and "outside 0-10" in result.fallbacks[0]


def test_targets_by_name_or_id_case_insensitive() -> None:
    game = GAMES[ActionKind.VOTE]
    turn = game.current  # Alice votes
    assert parse({"vote": " emma "}, turn, game.state).action["vote"] == 4
    assert parse({"vote": "player_4"}, turn, game.state).action["vote"] == 4
    assert parse({"vote": None}, turn, game.state).action == {"vote": None}
    self_vote = parse({"vote": "Alice"}, turn, game.state)
    assert self_vote.action["vote"] is None and "yourself" in self_vote.fallbacks[0]
    unknown = parse({"vote": "Zed"}, turn, game.state)
    assert unknown.action["vote"] is None and "unknown player" in unknown.fallbacks[0]
    missing = parse({}, turn, game.state)
    assert missing.action["vote"] is None and missing.fallbacks == ["vote: missing; used null"]


def test_dead_targets_are_refused() -> None:
    game = fixed_game()
    from tests.helpers import scripted

    run_until(
        game,
        scripted({(ActionKind.ELIMINATE, 1, None): {"target": "Emma"}}),
        stop=lambda g: g.current.kind is ActionKind.VOTE,
    )
    result = parse({"vote": "Emma"}, game.current, game.state)
    assert result.action["vote"] is None and "(dead)" in result.fallbacks[0]


def test_nan_and_infinite_numbers_fall_back() -> None:
    game = GAMES[ActionKind.PEER_ANALYSIS]
    result = game.act(
        {"is_deceptive": True, "confidence": float("nan"), "deception_type": "none", "suspicion": float("inf")}
    )
    assert result.action["confidence"] == 0.5
    assert 0.0 <= result.action["suspicion"] <= 1.0
    assert len(result.fallbacks) == 2


def test_notes_are_kept_privately_and_bad_notes_ignored() -> None:
    game = fixed_game()
    game.act({"target": "Emma", "notes": "Emma seems sharp"})
    game.act({"target": "Emma", "notes": 12})
    assert game.state.notes[0] == [(1, "eliminate", "Emma seems sharp")]
    assert game.state.notes[1] == []
    bad = next(e for e in game.state.events if e.type == "action" and e.actor == 1)
    assert bad.data["fallbacks"][0].startswith("notes:")


unit = st.one_of(st.floats(0, 1), st.integers(0, 1), st.floats(allow_nan=True), st.integers(-3, 3), st.booleans())
well_typed = st.fixed_dictionaries(
    {},
    optional={
        "target": st.none() | names,
        "vote": st.none() | names,
        "bid": st.integers(-3, 14) | st.booleans(),
        "statement": st.text(max_size=30),
        "claims": st.none() | st.lists(st.integers(), max_size=2),
        "is_deceptive": st.booleans() | st.integers(0, 1),
        "confidence": unit,
        "suspicion": unit,
        "deception_type": st.sampled_from(["none", "omission", "distortion", "fabrication", "misdirection", "x"]),
        "reasoning": st.text(max_size=10) | st.integers(),
        "summary": st.text(max_size=10),
        "notes": st.none() | st.text(max_size=10) | st.integers(),
    },
)


@pytest.mark.parametrize("kind", list(ActionKind))
@settings(max_examples=200, deadline=None)
@given(raw=well_typed)
def test_fast_path_agrees_with_pydantic(kind: ActionKind, raw: dict[str, Any]) -> None:
    from werewolf_env.actions.parse import ACTION_MODELS, _fast_fields

    fast = _fast_fields(kind, raw)
    if fast is None:
        return
    model = ACTION_MODELS[kind]
    slow = model.model_validate({k: v for k, v in raw.items() if k in model.model_fields}).model_dump()
    assert fast == slow
    assert [type(v) for v in fast.values()] == [type(slow[k]) for k in fast]


# ------------------------------------------------------------------ placeholders echoed from the answer format

# Every <...> placeholder of every answer format, read here from the formats as the prompt shows them.
FORMAT_PLACEHOLDERS = sorted(
    {token for kind in ActionKind for bid in (3, 10) for token in re.findall(r"<[^<>]+>", answer_format(kind, bid))}
)


def statement(raw: Any) -> tuple[dict[str, Any], list[str]]:
    game = GAMES[ActionKind.STATEMENT]
    assert game.current is not None
    result = parse(raw, game.current, game.state)
    return result.action, result.fallbacks


def test_the_placeholder_set_covers_every_answer_format() -> None:
    assert "<what you say>" in FORMAT_PLACEHOLDERS and "<integer 0-3>" in FORMAT_PLACEHOLDERS
    for token in FORMAT_PLACEHOLDERS:
        assert echoes_template(token) is not None, token
        assert echoes_template(f"I think {token.upper()} is odd") is not None, token
    for kind in ActionKind:
        assert echoes_template(answer_format(kind)) is not None, kind  # the JSON template itself


@pytest.mark.parametrize(
    ("text", "echoed"),
    [
        ("<what you say>", "<what you say>"),
        ("<What You Say>", "<what you say>"),
        ("  <what   you\nsay>  ", "<what you say>"),
        ("what you say", "<what you say>"),
        ('"What you say."', "<what you say>"),
        ("I am the seer and <name or me> is a werewolf", "<name or me>"),
        ('{"statement": "<what you say>", "claims": []}', "<what you say>"),
        ("<why, in a sentence or two>", "<why, in a sentence or two>"),
    ],
)
def test_a_statement_echoing_the_template_is_silence(text: str, echoed: str) -> None:
    action, fallbacks = statement({"statement": text, "claims": [{"kind": "role", "player": "me", "role": "seer"}]})
    assert action["statement"] == "" and action["claims"] is None and not action["truncated"]
    assert fallbacks == [f"statement: echoes the answer template's placeholder {echoed!r}; used silence"]


@pytest.mark.parametrize(
    "text",
    [
        "I <3 this village",
        "Bob said <nothing> useful",
        "if votes < 3 and > 1 we lose",
        "Why?",
        "What do you say?",
        "my role",
        "<Bob> is odd",
        "what you say is a lie",
    ],
)
def test_ordinary_angle_brackets_and_short_statements_are_speech(text: str) -> None:
    action, fallbacks = statement({"statement": text})
    assert action["statement"] == " ".join(text.split()) and not fallbacks


def test_an_echoed_statement_is_a_pass_in_the_game() -> None:
    from tests.helpers import scripted

    game = fixed_game()
    script = scripted(
        {
            (ActionKind.BID, None, None): lambda g, t: {"bid": 10 if t.player == 0 else 0},
            (ActionKind.STATEMENT, None, 0): {"statement": "<what you say>"},
        }
    )
    run_until(game, script, stop=lambda g: any(e.type == "pass" for e in g.state.events))
    assert not game.state.statements
    action = next(e for e in game.state.events if e.type == "action" and e.data["kind"] == "statement")
    assert "placeholder '<what you say>'" in action.data["fallbacks"][0]


spacing = st.sampled_from([" ", "  ", "\n", "\t"])


@st.composite
def echoed_placeholders(draw: st.DrawFn) -> str:
    token = draw(st.sampled_from(FORMAT_PLACEHOLDERS))
    words = token[1:-1].split()
    cased = [draw(st.sampled_from([w, w.upper(), w.title()])) for w in words]
    inner = cased[0] + "".join(draw(spacing) + w for w in cased[1:])
    return f"<{draw(st.sampled_from(['', ' ']))}{inner}{draw(st.sampled_from(['', ' ']))}>"


@settings(max_examples=300, deadline=None)
@given(before=st.text(max_size=40), token=echoed_placeholders(), after=st.text(max_size=200))
def test_a_statement_containing_a_placeholder_is_never_accepted(before: str, token: str, after: str) -> None:
    action, fallbacks = statement({"statement": before + token + after})
    assert action["statement"] == ""
    assert fallbacks and fallbacks[0].startswith("statement: echoes the answer template's placeholder")


# ---------------------------------------------------------------------------------- analysis answers


@pytest.mark.parametrize("kind", [ActionKind.SELF_ANALYSIS, ActionKind.PEER_ANALYSIS])
def test_analyses_ask_for_reasoning_before_the_verdict(kind: ActionKind) -> None:
    keys = re.findall(r'"(\w+)":', answer_format(kind))
    peer = kind is ActionKind.PEER_ANALYSIS
    verdict = ["is_deceptive", "confidence", "deception_type", *(["suspicion"] if peer else [])]
    assert keys == ["reasoning", *verdict, "notes"]
    schema = ACTION_MODELS[kind].model_json_schema()
    assert list(schema["properties"]) == ["reasoning", *verdict, "notes"]
    # llama.cpp's schema grammar puts required properties first: reasoning must be one of them
    assert schema["required"] == ["reasoning", *verdict]
    assert "probability" in schema["properties"]["confidence"]["description"]
    game = GAMES[kind]
    assert game.current is not None
    without = {"is_deceptive": True, "confidence": 0.7, "deception_type": "fabrication", "suspicion": 0.6}
    result = parse(without, game.current, game.state)
    assert result.action["reasoning"] == "" and not result.fallbacks, "reasoning stays optional to the parser"


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10_000), steps=st.integers(0, 400), witch_hunter=st.booleans())
def test_bulk_legal_targets_equal_the_refusal_asked_seat_by_seat(seed: int, steps: int, witch_hunter: bool) -> None:
    """``action_specs.BULK_LEGAL`` is a faster form of a refusal: at any point of any game, for every kind, it
    lets through exactly the seats the refusal does."""
    from werewolf_env.actions.specs import ACTION_SPECS, BULK_LEGAL

    extra = {"role_counts": {"witch": 1, "hunter": 1}} if witch_hunter else {}
    game = Game(GameConfig(**extra), seed)
    policy = random_policy(seed)
    for _ in range(steps):
        if game.over or game.current is None:
            break
        game.act(policy(game, game.current))
    state = game.state
    for refuse, bulk in BULK_LEGAL.items():
        kinds = [k for k, spec in ACTION_SPECS.items() if spec.refuse is refuse]
        assert kinds
        for actor in range(state.num_players):
            expected = [p for p in range(state.num_players) if refuse(state, actor, p) is None]
            assert bulk(state, actor) == expected
