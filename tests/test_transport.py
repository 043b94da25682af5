"""The transport seam of LLM seats, the policy factory, pass-through errors and the game's events on the result."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

from werewolf_deception.agents.fake.answers import answer_for, scripted_answer
from werewolf_deception.agents.llm.agent import LLMAgent
from werewolf_deception.agents.llm.schemas import ANSWER_KINDS, answer_schema
from werewolf_deception.agents.play.runner import Seat, play_game, play_game_sync
from werewolf_env.analysis.metrics import GameRecord
from werewolf_env.engine.log import read_log

CONFIG = {"num_players": 6, "max_rounds": 2}


async def scripted(messages: list[dict[str, str]], schema: dict[str, Any]) -> str:
    """A plain async function as a transport: valid answers for every action kind (the fake server's)."""
    assert schema["type"] == "object" and schema["additionalProperties"] is False
    return json.dumps(answer_for(messages, scripted_answer))


def test_any_async_function_backs_an_llm_seat(tmp_path: Any) -> None:
    seen: list[Seat] = []

    def factory(seat: Seat) -> LLMAgent:
        seen.append(seat)
        return LLMAgent(transport=scripted, seed=seat.seed)

    result = play_game_sync(CONFIG, None, seed=4, log_dir=tmp_path, policy_factory=factory)
    assert [s.seat for s in seen] == list(range(6)) and len({s.seed for s in seen}) == 6
    assert result.fallbacks == 0 and result.policy_errors == 0
    records = read_log(result.log_path)
    outcomes = [r["data"]["outcome"] for r in records if r.get("data", {}).get("type") == "llm_outcome"]
    assert outcomes and set(outcomes) == {"answered"}
    calls = [r["data"] for r in records if r.get("data", {}).get("type") == "llm_call"]
    assert all(c["model"] == "scripted" and c["endpoint"] == "scripted" for c in calls)
    # the events on the result are the log, record for record
    assert json.dumps(result.events, sort_keys=True) == json.dumps(records, sort_keys=True)
    assert GameRecord.from_events(result.events).complete


def test_an_object_with_complete_and_a_bad_answer_is_repaired_then_valid() -> None:
    class Flaky:
        label = "flaky"

        def __init__(self) -> None:
            self.calls = 0

        async def complete(self, messages: list[dict[str, str]], schema: dict[str, Any]) -> str:
            self.calls += 1
            return "not json" if self.calls == 1 else await scripted(messages, schema)

    flaky = Flaky()
    agents = [LLMAgent(transport=flaky) for _ in range(6)]
    result = play_game_sync(CONFIG, None, seed=1, policies=agents)  # type: ignore[arg-type]
    assert result.fallbacks == 0 and agents[0].model == "flaky"


class StopError(Exception):
    """Stands for an evaluation framework's limit error."""


def _stopping(after: int) -> Any:
    count = {"n": 0}

    async def complete(messages: list[dict[str, str]], schema: dict[str, Any]) -> str:
        count["n"] += 1
        if count["n"] > after:
            raise StopError("limit reached")
        return await scripted(messages, schema)

    return complete


def test_passthrough_errors_end_the_game_instead_of_falling_back() -> None:
    complete = _stopping(5)

    class Limited:
        passthrough = (StopError,)

        async def complete(self, messages: list[dict[str, str]], schema: dict[str, Any]) -> str:
            return await complete(messages, schema)

    seen: list[dict[str, Any]] = []
    with pytest.raises(StopError):
        play_game_sync(
            CONFIG,
            None,
            seed=2,
            policy_factory=lambda seat: LLMAgent(transport=Limited()),
            passthrough=(StopError,),
            on_records=seen.extend,
        )
    actions = [r for r in seen if r.get("type") == "action"]
    assert actions and not any("fallbacks" in r["data"] for r in actions)
    assert not any(r.get("data", {}).get("type") == "policy_error" for r in seen)


def test_the_callers_passthrough_reaches_through_a_transport_that_does_not_declare_it() -> None:
    """``play_game(passthrough=...)`` alone is enough: an LLM seat must not turn the caller's error into its own."""
    with pytest.raises(StopError):
        play_game_sync(
            CONFIG, None, seed=2, policy_factory=lambda seat: LLMAgent(transport=_stopping(5)), passthrough=(StopError,)
        )


def test_without_passthrough_an_error_is_a_fallback() -> None:
    result = play_game_sync(CONFIG, None, seed=2, policy_factory=lambda seat: LLMAgent(transport=_stopping(5)))
    assert result.policy_errors > 0 and result.fallbacks > 0


def test_play_game_sync_inside_a_running_loop() -> None:
    async def inside() -> Any:
        return play_game_sync(CONFIG, "heuristic", seed=3)

    inside_result = asyncio.run(inside())
    outside = play_game_sync(CONFIG, "heuristic", seed=3)
    assert inside_result.to_json() | {"seconds": 0} == outside.to_json() | {"seconds": 0}
    assert asyncio.run(play_game(CONFIG, "heuristic", seed=3)).winner == outside.winner


def test_a_seat_the_game_does_not_have_is_an_error() -> None:
    with pytest.raises(ValueError, match=r"seats\.player_9: no such seat in a 6-player game"):
        play_game_sync(CONFIG, {"seats": {"player_9": "random"}}, seed=0)
    with pytest.raises(ValueError, match="not a role"):
        play_game_sync(CONFIG, {"roles": {"seeer": "random"}}, seed=0)


def test_answer_schema_is_public_for_every_kind() -> None:
    assert "heal" in ANSWER_KINDS and "summary" in ANSWER_KINDS
    for kind in ANSWER_KINDS:
        schema = answer_schema(kind)
        assert schema["type"] == "object" and set(schema["required"]) == set(schema["properties"])
    heal = answer_schema("heal", {"legal_targets": ["Ann"]})["properties"]["target"]
    assert heal == {"anyOf": [{"type": "string", "enum": ["Ann"]}, {"type": "null"}]}
    assert answer_schema("eliminate", {"legal_targets": ["Ann"]})["properties"]["target"]["enum"] == ["Ann"]
    with pytest.raises(ValueError, match="not an action kind"):
        answer_schema("dance")


def test_to_json_leaves_the_events_out() -> None:
    result = play_game_sync(CONFIG, "random", seed=0)
    data = result.to_json()
    assert "trail" not in data and "events" not in data
    assert type(result).from_json(json.loads(json.dumps(data))).winner == result.winner
