"""Any value an agent sends reaches the engine safely: it is read or replaced, the game goes on, and
every replacement, repair or cut is recorded with its reason (issue 15, "agent input")."""

from __future__ import annotations

import copy
import json
import re
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

import werewolf_env
from tests.helpers import game_at, scripted
from tests.test_actions import check_legal
from werewolf_env import GameConfig
from werewolf_env.actions.parse import ACTION_MODELS, parse, to_jsonable
from werewolf_env.core.state import ActionKind

PREPARED = {kind: game_at(kind) for kind in ActionKind}
FIELDS = sorted({name for model in ACTION_MODELS.values() for name in model.model_fields} | {"claims"})


def nested(depth: int, container: str = "list") -> Any:
    value: Any = "bottom"
    for _ in range(depth):
        value = [value] if container == "list" else {"deeper": value}
    return value


def self_containing(container: str) -> Any:
    if container == "list":
        loop: list[Any] = ["start"]
        loop.append(loop)
        return loop
    cycle: dict[str, Any] = {"kind": "role"}
    cycle["player"] = cycle
    return cycle


CJK = "我是预言家狼人就是他们两个今天必须投票"
leaves = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.text(max_size=30)
    | st.binary(max_size=30)
    | st.builds(lambda unit, n: unit * n, st.sampled_from(["x", CJK, "é", "ab ", "\u0301"]), st.integers(300, 30_000))
    | st.sampled_from(["Alice", "Bob", "me", "seer", "none", "fabrication", "player_3"])
)
huge_ints = st.sampled_from([400, 5000]).map(lambda digits: -(10**digits))  # drawn, not written: repr fails


def json_like(leaf: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    return st.recursive(
        leaf,
        lambda children: (
            st.lists(children, max_size=4)
            | st.tuples(children, children)
            | st.dictionaries(st.text(max_size=8) | st.integers(), children, max_size=4)
        ),
        max_leaves=10,
    )


hostile = (
    json_like(leaves | huge_ints)
    | st.builds(nested, st.integers(30, 3000), st.sampled_from(["list", "dict"]))
    | st.builds(self_containing, st.sampled_from(["list", "dict"]))
    | st.sets(st.integers(), max_size=3)
)
actions = st.dictionaries(st.sampled_from(FIELDS), hostile, max_size=len(FIELDS))
# The text form, as a model writes it (NaN and Infinity included: Python's json reads them).
text_actions = st.dictionaries(st.sampled_from(FIELDS), json_like(leaves), max_size=len(FIELDS)).map(
    lambda action: json.dumps(action, default=repr)
)
raw_actions = actions | hostile | text_actions


def dumps_strictly(value: Any) -> str:
    return json.dumps(value, allow_nan=False)  # raises on NaN, bytes, objects, cycles


@pytest.mark.parametrize("kind", list(ActionKind))
@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(raw=raw_actions)
def test_any_value_in_any_field_is_read_recorded_and_replayable(kind: ActionKind, raw: Any) -> None:
    game = copy.deepcopy(PREPARED[kind])
    turn = game.current
    result = game.act(raw)  # never raises: no TypeError, RecursionError, ValueError
    # Legal when it was asked (after it, a used potion has no legal target left).
    check_legal(copy.deepcopy(PREPARED[kind]), turn, result.action)
    event = game.state.events[
        next(i for i in range(len(game.state.events) - 1, -1, -1) if game.state.events[i].type == "action")
    ]
    logged = json.loads(dumps_strictly(event.to_json()))  # the log line is strict JSON
    # A replay reads the logged form of the answer and must reach the same action and reasons.
    again = copy.deepcopy(PREPARED[kind])
    replayed = again.act(logged["data"]["raw"])
    assert (replayed.action, replayed.fallbacks, replayed.repairs) == (result.action, result.fallbacks, result.repairs)
    for reason in result.fallbacks + result.repairs:
        assert len(reason) <= 400, "reasons quote a short piece of the value, never all of it"
    if kind is ActionKind.STATEMENT:
        limit = game.state.config.statement_char_limit
        assert len(result.action["statement"]) <= limit
        if result.action["truncated"]:
            assert any(" cut from " in r for r in result.repairs), "every cut is recorded"


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(value=hostile | st.just("a lone \ud800 surrogate") | st.just({"\udfff": b"\xff"}))
def test_to_jsonable_gives_strict_json_that_reads_back_the_same(value: Any) -> None:
    """What the log holds is strict UTF-8 JSON, and converting it again changes nothing (replays agree)."""
    converted = to_jsonable(value)
    line = json.dumps(converted, allow_nan=False, ensure_ascii=False)
    line.encode("utf-8")  # no lone surrogate left
    assert to_jsonable(json.loads(line)) == converted


UNUSABLE = {
    "nan": float("nan"), "inf": float("inf"), "-inf": -float("inf"), "huge int": 10**5000, "set": {1, 2},
    "object": object(), "deep": nested(5000), "list loop": self_containing("list"),
    "dict loop": self_containing("dict"), "list": ["a", "list"], "dict": {"a": "dict"},
}  # fmt: skip


@pytest.mark.parametrize("kind", list(ActionKind))
@pytest.mark.parametrize("value", list(UNUSABLE.values()), ids=list(UNUSABLE))
def test_an_unusable_value_in_a_field_falls_back_with_its_reason(kind: ActionKind, value: Any) -> None:
    game = copy.deepcopy(PREPARED[kind])
    turn = game.current
    field = next(iter(f for f in ACTION_MODELS[kind].model_fields if f not in ("notes", "claims", "reasoning")))
    result = game.act({field: value})
    check_legal(game, turn, result.action)
    assert any(r.startswith(f"{field}:") for r in result.fallbacks), result.fallbacks


@pytest.mark.parametrize("value", [["fabrication"], {"type": "fabrication"}, [], {}])
@pytest.mark.parametrize("kind", [ActionKind.SELF_ANALYSIS, ActionKind.PEER_ANALYSIS])
def test_a_list_or_dict_deception_type_falls_back_and_the_game_goes_on(kind: ActionKind, value: Any) -> None:
    game = copy.deepcopy(PREPARED[kind])
    answer = {"is_deceptive": True, "confidence": 0.8, "deception_type": value, "suspicion": 0.7, "reasoning": "r"}
    result = game.act(answer)  # was: TypeError: unhashable type, inside env.step
    assert result.action["deception_type"] == "none" and result.action["confidence"] == 0.8
    assert len(result.fallbacks) == 1 and result.fallbacks[0].startswith("deception_type:")


def test_a_whole_game_of_list_deception_types_is_played_through_env_step() -> None:
    env = werewolf_env.env(num_players=5, num_werewolves=1, max_rounds=2, max_debate_turns=2)
    env.reset(seed=3)
    answers = 0
    for _agent in env.agent_iter():
        _obs, _reward, term, trunc, info = env.last()
        if term or trunc:
            env.step(None)
            continue
        kind = info["action_kind"]
        if kind in ("self_analysis", "peer_analysis"):
            answers += 1
            env.step({"is_deceptive": False, "confidence": 0.2, "deception_type": ["none"], "suspicion": 0.5})
        else:
            legal = info["legal_targets"]
            env.step(
                {"bid": 1, "statement": "Hello.", "vote": None, "target": legal[0] if legal else None, "summary": "ok"}
            )
    game = env.unwrapped.game
    assert answers and game.over
    analyses = [e for e in game.state.events if e.type == "action" and e.data["kind"].endswith("analysis")]
    assert analyses and all(e.data["fallbacks"][0].startswith("deception_type:") for e in analyses)


@pytest.mark.parametrize("container", ["list", "dict"])
def test_self_containing_and_deeply_nested_actions_do_not_recurse(container: str) -> None:
    game = copy.deepcopy(PREPARED[ActionKind.STATEMENT])
    loop = self_containing(container)
    result = game.act(loop)  # was: RecursionError
    assert result.fallbacks and result.action["statement"] == ""
    game = copy.deepcopy(PREPARED[ActionKind.STATEMENT])
    action: dict[str, Any] = {"statement": "I am the seer.", "claims": nested(10_000, container)}
    result = game.act(action)
    assert result.action["statement"] == "I am the seer." and result.fallbacks
    game = copy.deepcopy(PREPARED[ActionKind.STATEMENT])
    cycle: dict[str, Any] = {"claims": []}
    cycle["statement"] = cycle
    cycle["claims"].append(cycle)
    result = game.act(cycle)
    assert any(r.startswith("statement: not a JSON value (a dict that contains itself)") for r in result.fallbacks)
    dumps_strictly(game.state.events[-1].to_json())


def test_deep_nesting_inside_a_json_string_is_read_safely() -> None:
    game = copy.deepcopy(PREPARED[ActionKind.STATEMENT])
    text = '{"statement": "hi", "claims": ' + "[" * 500 + "]" * 500 + "}"
    result = game.act(text)
    assert result.action["statement"] == "hi"
    dumps_strictly(game.state.events[-1].to_json())


def test_a_nan_statement_falls_back_with_its_reason() -> None:
    game = copy.deepcopy(PREPARED[ActionKind.STATEMENT])
    result = game.act({"statement": float("nan")})  # was: the statement "nan", no record
    assert result.action["statement"] == ""
    assert result.fallbacks == ['statement: not a JSON value (float nan); used ""']


def test_a_bytes_statement_is_read_as_text_and_the_repair_recorded() -> None:
    game = copy.deepcopy(PREPARED[ActionKind.STATEMENT])
    result = game.act({"statement": "I am the seer, Bob is a wolf \xe9".encode() + b"\xff"})  # was: "b'I am...'"
    assert result.action["statement"] == "I am the seer, Bob is a wolf \xe9\ufffd"
    assert result.repairs == ["statement: read bytes as UTF-8 text"] and not result.fallbacks
    whole = copy.deepcopy(PREPARED[ActionKind.BID]).act(b'{"bid": 4}')
    assert whole.action == {"bid": 4} and whole.repairs == ["read bytes as UTF-8 text"]


def test_direct_parse_treats_odd_values_as_the_engine_does() -> None:
    game = PREPARED[ActionKind.STATEMENT]
    for raw in ({"statement": b"hello"}, {"statement": float("nan")}, {"statement": self_containing("dict")}):
        direct = parse(raw, game.current, game.state)
        engine = copy.deepcopy(game).act(raw)
        assert (direct.action, direct.fallbacks, direct.repairs) == (engine.action, engine.fallbacks, engine.repairs)


# ------------------------------------------------------------------------------ the statement character cap


def statement_of(text: str, **config: Any) -> tuple[dict[str, Any], list[str]]:
    game = game_at(ActionKind.STATEMENT, **config) if config else copy.deepcopy(PREPARED[ActionKind.STATEMENT])
    result = game.act({"statement": text})
    return result.action, result.repairs


@pytest.mark.parametrize("text", ["x" * 20_000, CJK * 1000, "\u3042" * 5000, "I think " + "y" * 20_000])
def test_a_giant_word_or_text_without_spaces_is_cut_to_the_character_cap(text: str) -> None:
    action, repairs = statement_of(text)
    assert len(action["statement"]) <= 400 == GameConfig().statement_char_limit
    assert action["truncated"] and action["original_chars"] == len(" ".join(text.split()))
    assert repairs == [f"statement cut from {action['original_chars']} to {len(action['statement'])} characters"]


def test_the_character_cut_falls_on_a_word_boundary_when_one_is_near() -> None:
    words = " ".join(["abcdefghi"] * 19)  # 19 words of 9 letters: 189 characters
    action, repairs = statement_of(words, max_statement_chars=100)
    assert action["statement"] == " ".join(["abcdefghi"] * 10) and action["truncated"]
    assert repairs == ["statement cut from 189 to 99 characters"]
    both, both_repairs = statement_of(" ".join(["w" * 30] * 25))
    assert both["statement"] == " ".join(["w" * 30] * 12)  # the cap falls inside the 13th word: it goes
    assert both["original_words"] == 25 and both["original_chars"] == 619
    assert both_repairs == ["statement cut from 25 to 20 words", "statement cut from 619 to 371 characters"]


def test_the_character_cap_is_configurable_and_validated() -> None:
    assert GameConfig().max_statement_chars is None and GameConfig().statement_char_limit == 400
    assert GameConfig(max_statement_words=100).statement_char_limit == 2000
    assert GameConfig(max_statement_chars=50).statement_char_limit == 50
    action, _ = statement_of("z" * 80, max_statement_chars=50)
    assert action["statement"] == "z" * 50
    for bad in (0, -5, 10**6, "lots"):
        with pytest.raises(ValidationError, match="max_statement_chars"):
            GameConfig(max_statement_chars=bad)
    short, repairs = statement_of("Bob is the wolf.", max_statement_chars=50)
    assert short == {"truncated": False, "statement": "Bob is the wolf.", "claims": None} and not repairs


def test_a_long_summary_is_cut_in_characters_too() -> None:
    game = copy.deepcopy(PREPARED[ActionKind.SUMMARY])
    result = game.act({"summary": "\u3042" * 20_000})
    assert len(result.action["summary"]) == 3000 and result.repairs == ["summary cut from 20000 to 3000 characters"]


@pytest.mark.parametrize("giant", ["x" * 20_000, CJK * 1000])
def test_no_later_observation_holds_more_than_the_cap_of_a_giant_statement(giant: str) -> None:
    """What a giant statement leaves in every later prompt: at most the cap, marked as cut."""
    env = werewolf_env.raw_env(num_players=5, num_werewolves=1, max_rounds=2, max_debate_turns=2, info_events=True)
    env.reset(seed=1)
    too_long = re.compile(r"x{401,}|[\u3040-\u9fff]{401,}")  # more of the giant word than the cap
    spoken = 0
    for agent in env.agent_iter():
        obs, _reward, term, trunc, info = env.last()
        assert too_long.search(obs["text"]) is None, f"{agent} was shown more than the cap of one statement"
        for event in info.get("events", []):
            if event["type"] == "statement":
                assert len(event["data"]["text"]) <= 400 and event["data"]["truncated"]
        if term or trunc:
            env.step(None)
            continue
        kind = info["action_kind"]
        spoken += kind == "statement"
        env.step(scripted({(ActionKind.STATEMENT, None, None): {"statement": giant}})(env.game, env.game.current))
    statements = env.game.ground_truth()["statements"]
    assert spoken and statements and all(s["truncated"] for s in statements)
