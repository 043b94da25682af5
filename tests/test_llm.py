"""LLMAgent against a real HTTP server on 127.0.0.1 (the scripted fake), under every fault."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from werewolf_deception.agents import play_game_sync
from werewolf_deception.agents.fake.server import CLASSIC_FAULTS, FakeOpenAIServer, FaultPlan
from werewolf_deception.agents.llm.agent import LLMAgent, validate
from werewolf_deception.agents.llm.endpoints import EndpointDownError
from werewolf_deception.agents.llm.prompts import build_messages
from werewolf_env.engine.log import read_log, replay

SMALL = {"num_players": 5, "num_werewolves": 1, "max_debate_turns": 2, "max_rounds": 3}
FAST = {"timeout": 0.5, "backoff": 0.01, "max_backoff": 0.05, "max_wait": 5.0}


def llm_lineup(server: FakeOpenAIServer, **options: Any) -> dict[str, Any]:
    return {"default": {"kind": "llm", "model": "fake", "base_url": server.base_url, **FAST, **options}}


def calls(log_path: str) -> list[dict[str, Any]]:
    return [r["data"] for r in read_log(log_path) if r["type"] == "agent_record" and r["data"]["type"] == "llm_call"]


@pytest.mark.parametrize("fault", CLASSIC_FAULTS)
def test_every_fault_is_absorbed_and_logged(tmp_path: Path, fault: str) -> None:
    plan = FaultPlan(schedule={i: fault for i in range(0, 400, 7)})
    with FakeOpenAIServer(faults=plan, hang=1.0) as server:
        result = play_game_sync(SMALL, llm_lineup(server), seed=1, log_dir=tmp_path, concurrency=4)
        sent = list(server.faults_sent)
    assert result.winner in ("village", "werewolf", None) and result.policy_errors == 0
    assert sent, "the fault was injected"
    records = calls(result.log_path)
    assert records and all("messages" in r and "latency_s" in r for r in records)
    if fault in ("429", "500", "drop", "timeout"):
        assert any(r["retries"] > 0 and r["transport_errors"] for r in records), "retried and logged"
    else:
        assert any(r["error"] for r in records), "the invalid answer was recorded"
        assert any(r["attempt"] == "repair" for r in records), "one repair prompt was sent"
    assert replay(result.log_path).ok


def test_clean_game_logs_every_call_with_tokens(tmp_path: Path) -> None:
    with FakeOpenAIServer() as server:
        result = play_game_sync(SMALL, llm_lineup(server), seed=3, log_dir=tmp_path)
        requests = len(server.requests)
    records = calls(result.log_path)
    # every step is a call but the turns answered ahead (``werewolf_deception.agents.llm.folding``, on by default):
    # bids and votes inside
    # the analyses, self-analyses inside the statements
    folded = [
        r["data"]
        for r in read_log(result.log_path)
        if r["type"] == "agent_record" and r["data"]["type"] == "llm_outcome" and r["data"].get("asked_in")
    ]
    assert {r["action_kind"] for r in folded} == {"bid", "vote", "self_analysis"}
    assert all(bool(r.get("from_analysis")) == r["asked_in"].endswith("analysis") for r in folded)
    assert len(records) == requests == result.steps - len(folded)
    assert all(r["usage"]["prompt_tokens"] > 0 and r["parsed"] is not None and r["error"] is None for r in records)
    assert result.fallbacks == 0
    first = records[0]["messages"]
    assert first[0]["role"] == "system" and "RULES:" in first[0]["content"] and "You are" in first[0]["content"]
    assert first[1]["content"].startswith("HISTORY:") and "Answer with exactly one JSON object" in first[1]["content"]


def test_persistent_failure_trips_the_breaker_instead_of_playing_fallbacks(tmp_path: Path) -> None:
    with FakeOpenAIServer(faults=FaultPlan(rates={"500": 1.0})) as server:
        lineup = llm_lineup(server, retries=2)
        with pytest.raises(EndpointDownError, match=r"8 calls in a row got no usable answer \(8 HTTP 500;"):
            play_game_sync(SMALL, lineup, seed=2, log_dir=tmp_path)
        attempts = len(server.requests)
    assert attempts == 8 * 3, "each of the 8 calls: one attempt and two retries, then nothing more"


def test_retry_after_is_honoured(tmp_path: Path) -> None:
    with FakeOpenAIServer(faults=FaultPlan(schedule={0: "429"}), retry_after=0.3) as server:
        agent = LLMAgent(model="fake", base_url=server.base_url, **{**FAST, "max_backoff": 1.0})
        info = {"action_kind": "bid", "legal_targets": [], "max_bid": 10, "answer_format": '{"bid": 1}'}
        obs = {"text": 'HEAD\n\nPLAYERS: Alice\n\nNOW: bid\nAnswer with exactly one JSON object: {"bid": 3}'}
        action = asyncio.run(agent.aact(obs, info))
    (record, outcome) = agent.drain_records()
    assert outcome == {"type": "llm_outcome", "action_kind": "bid", "outcome": "answered", "cached": False}
    assert isinstance(action, dict) and "bid" in action
    assert record["retries"] == 1 and record["latency_s"] >= 0.3


def test_response_format_steps_down_when_the_server_refuses_it(tmp_path: Path) -> None:
    with FakeOpenAIServer(reject_response_format=True) as server:
        result = play_game_sync(SMALL, llm_lineup(server), seed=4, log_dir=tmp_path)
    records = calls(result.log_path)
    assert records[0]["response_format"] == "none"
    assert any("response_format refused" in e for e in records[0]["transport_errors"])
    assert result.fallbacks == 0


@pytest.mark.parametrize("temperature", [0.0, 0.8])
def test_cache_makes_a_rerun_free_and_identical(tmp_path: Path, temperature: float) -> None:
    with FakeOpenAIServer() as server:
        lineup = llm_lineup(server, temperature=temperature)
        first = play_game_sync(SMALL, lineup, seed=5, log_dir=tmp_path / "a", cache_dir=tmp_path / "cache")
        before = len(server.requests)
        second = play_game_sync(SMALL, lineup, seed=5, log_dir=tmp_path / "b", cache_dir=tmp_path / "cache")
        assert len(server.requests) == before, "the rerun made no calls"
    engine = [
        [r for r in read_log(p) if r["type"] not in ("header", "agent_record")]
        for p in (first.log_path, second.log_path)
    ]
    assert engine[0] == engine[1]
    assert all(r["cached"] for r in calls(second.log_path))


def test_api_key_never_reaches_logs_or_errors(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    secret = "sk-CANARY-0123456789abcdef"
    monkeypatch.setenv("OPENAI_API_KEY", secret)
    with FakeOpenAIServer(faults=FaultPlan(rates={"500": 0.2, "malformed": 0.2}, seed=3)) as server:
        result = play_game_sync(SMALL, llm_lineup(server), seed=6, log_dir=tmp_path)
        agent = LLMAgent(model="fake", base_url=server.base_url)
        assert server.requests, "the key was used"
        assert all(h["authorization"] == "***" for h in server.headers_seen if "authorization" in h)
    assert secret not in Path(result.log_path).read_text()
    assert secret not in repr(agent) and secret not in str(agent.__dict__.get("name"))
    assert secret not in repr(agent.connection) and secret not in repr(agent.options)
    assert secret[-8:] not in agent.connection.scrub(f"boom {secret} boom")


def test_key_file(tmp_path: Path) -> None:
    key = tmp_path / "key.txt"
    key.write_text("sk-from-file\n")
    agent = LLMAgent(model="m", base_url="http://127.0.0.1:9/v1", api_key_file=str(key))
    assert agent.connection._api_key == "sk-from-file"
    with pytest.raises(ValueError, match="cannot read the API key file"):
        LLMAgent(model="m", base_url="http://127.0.0.1:9/v1", api_key_file=str(tmp_path / "none"))


def test_validation_messages_quote_the_problem() -> None:
    info = {"legal_targets": ["Bob", "Emma"], "max_bid": 10}
    assert validate('{"vote": "Zed"}', "vote", info)[1] == "vote: 'Zed' is not allowed; choose one of Bob, Emma"
    assert validate('{"vote": null}', "vote", info) == ({"vote": None}, None)
    assert validate('```json\n{"bid": 4}\n```', "bid", info) == ({"bid": 4}, None)
    assert validate('{"bid": 40}', "bid", info)[1] == "bid: must be between 0 and 10"
    assert (
        "suspicion"
        in validate('{"is_deceptive": true, "confidence": 1, "deception_type": "none"}', "peer_analysis", info)[1]
    )
    assert validate("no json here", "bid", info)[0] is None


def test_messages_split_role_card_from_the_rest() -> None:
    system, user = build_messages("== title ==\n\nROLE CARD\n\nRULES: x\n\nPLAYERS: A, B\n\nNOW: go")
    assert "ROLE CARD" in system["content"] and "RULES: x" in system["content"]
    assert user["content"] == "PLAYERS: A, B\n\nNOW: go"


def test_system_prompt_can_go_into_the_user_message() -> None:
    (only,) = build_messages("== t ==\n\nCARD\n\nPLAYERS: A\n\nNOW: go", merge_system=True)
    assert only["role"] == "user" and "CARD" in only["content"] and only["content"].endswith("NOW: go")
