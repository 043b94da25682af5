"""One call through ``Endpoint``: retries, server waits, deadlines, cut-off answers, step-downs, over real HTTP."""

from __future__ import annotations

import asyncio
import time
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from werewolf_deception.agents.fake.server import FakeOpenAIServer, FaultPlan
from werewolf_deception.agents.llm.agent import LLMAgent
from werewolf_deception.agents.llm.endpoints import EndpointDownError, retry_after
from werewolf_deception.agents.llm.options import LLMOptions, redact_url, validate_options
from werewolf_deception.agents.llm.prompts import build_messages, fit

FAST = {"timeout": 2.0, "backoff": 0.01, "max_backoff": 0.05, "max_wait": 10.0}
BID = {"action_kind": "bid", "legal_targets": [], "max_bid": 10, "answer_format": '{"bid": <integer 0-10>}'}
STATEMENT = {"action_kind": "statement", "legal_targets": ["Bob"], "max_statement_words": 20,
             "answer_format": '{"statement": "<what you say>"}'}  # fmt: skip


def obs(kind: str) -> dict[str, Any]:
    fmt = BID["answer_format"] if kind == "bid" else '{"statement": "<what you say>", "claims": []}'
    return {
        "text": f"== t ==\n\nCARD\n\nRULES: r\n\nPLAYERS: Alice (you), Bob\n\nNOW: go\n"
        f"Answer with exactly one JSON object: {fmt}"
    }


def ask(server: FakeOpenAIServer, info: dict[str, Any] = BID, **options: Any) -> tuple[Any, list[dict[str, Any]]]:
    agent = LLMAgent(model="fake", base_url=server.base_url, **{**FAST, **options})

    async def go() -> Any:
        try:
            return await agent.aact(obs(info["action_kind"]), info)
        finally:
            await agent.aclose()

    action = asyncio.run(go())
    return action, agent.drain_records()


@pytest.mark.parametrize("fault", ["408", "409", "429", "500", "502", "503", "drop"])
def test_passing_faults_are_retried(fault: str) -> None:
    with FakeOpenAIServer(faults=FaultPlan(schedule={0: fault})) as server:
        action, records = ask(server)
    assert isinstance(action, dict) and "bid" in action
    assert (records[0]["retries"] == 1 and fault in records[0]["transport_errors"][0]) or records[0]["transport_errors"]
    assert records[-1]["outcome"] == "answered"


@pytest.mark.parametrize("fault", ["429_ms", "429_date"])
def test_every_form_of_server_wait_is_honoured(fault: str) -> None:
    with FakeOpenAIServer(faults=FaultPlan(schedule={0: fault}), retry_after=0.3) as server:
        action, records = ask(server)
    assert isinstance(action, dict)
    assert records[0]["latency_s"] >= (0.3 if fault == "429_ms" else 1.0), "the wait the server asked for was kept"


def test_a_wait_beyond_the_budget_ends_the_call_instead_of_sleeping() -> None:
    with FakeOpenAIServer(faults=FaultPlan(schedule={0: "429_date"})) as server:
        started = time.monotonic()
        action, records = ask(server, max_wait=0.5)
    assert time.monotonic() - started < 1.5
    assert "asked to wait" in records[0]["failure"] and records[-1]["outcome"] == "unanswered"
    assert action == {"llm_unavailable": records[0]["failure"]}


def test_a_wait_of_thirty_seconds_is_not_cut_to_eight() -> None:
    class Headers(dict[str, str]):
        pass

    assert retry_after(Headers({"retry-after": "30"})) == 30.0
    assert retry_after(Headers({"retry-after-ms": "1500"})) == 1.5
    assert retry_after(Headers({"retry-after": "soon"})) is None


def test_the_deadline_bounds_a_trickling_answer() -> None:
    with FakeOpenAIServer(faults=FaultPlan(schedule={0: "trickle"})) as server:  # 1 s a byte
        started = time.monotonic()
        action, records = ask(server, timeout=0.5)
    assert time.monotonic() - started < 3, "the trickle was cut at the deadline, then retried"
    assert "deadline" in records[0]["transport_errors"][0] and isinstance(action, dict) and "bid" in action


def test_a_cut_off_answer_is_counted_and_asked_again_with_room() -> None:
    with FakeOpenAIServer(faults=FaultPlan(schedule={0: "length"})) as server:
        action, records = ask(server)
        second = server.requests[1]
    assert isinstance(action, dict) and records[0]["cut_off"] is True
    assert second["max_tokens"] == 2 * server.requests[0]["max_tokens"]
    assert any("cut off" in e for e in records[0]["transport_errors"])


def test_a_placeholder_statement_is_repaired() -> None:
    with FakeOpenAIServer(faults=FaultPlan(schedule={0: "placeholder"})) as server:
        action, records = ask(server, STATEMENT)
    assert "placeholder" in records[0]["error"] and records[1]["attempt"] == "repair"
    assert records[-1]["outcome"] == "repaired" and "<what you say>" not in action["statement"]


@pytest.mark.parametrize(("status", "words"), [(401, "authentication"), (403, "denied"), (404, "not found")])
def test_a_refused_key_or_model_trips_the_breaker_at_once(status: int, words: str) -> None:
    with FakeOpenAIServer(faults=FaultPlan(rates={str(status): 1.0})) as server:
        with pytest.raises(EndpointDownError, match=words):
            ask(server)
        assert len(server.requests) == 1


def test_a_422_about_the_format_steps_down_and_is_remembered() -> None:
    with FakeOpenAIServer(schema_error=True, schema_error_status=422) as server:
        agent = LLMAgent(model="fake", base_url=server.base_url, **FAST)

        async def two() -> None:
            await agent.aact(obs("bid"), BID)
            await agent.aact(obs("bid"), BID)
            await agent.aclose()

        asyncio.run(two())
        formats = [(r.get("response_format") or {}).get("type") for r in server.requests]
    assert formats == ["json_object", "json_object"], "the second call did not ask for json_schema again"


def test_options_are_validated_with_clear_messages() -> None:
    with pytest.raises(ValueError, match=r"temperature: .*finite"):
        validate_options({"model": "m", "temperature": float("nan")})
    with pytest.raises(ValueError, match="not an http"):
        validate_options({"model": "m", "base_url": "ftp://x"})
    with pytest.raises(ValueError, match="unknown option") as bad:
        validate_options({"model": "m", "api_key": "sk-SECRET-1"})
    assert "SECRET" not in str(bad.value)
    assert LLMOptions(model="m").context_budget == 4096


@given(st.text(max_size=30), st.text(max_size=30))
@settings(max_examples=50, deadline=None)
def test_redacted_urls_never_show_credentials_or_query_values(user: str, secret: str) -> None:
    secret = "Z" + secret.replace("@", "").replace("/", "") + "Q"
    url = f"https://u:{secret}@host.example:8443/v1?key={secret}"
    assert secret not in redact_url(url)


@given(st.integers(min_value=0, max_value=400), st.integers(min_value=1024, max_value=8192))
@settings(max_examples=40, deadline=None)
def test_fit_keeps_any_prompt_within_the_budget(lines: int, budget: int) -> None:
    history = "\n".join(f"Bob: line {i} " + "word " * 12 for i in range(lines))
    text = (
        f"== t ==\n\nCARD\n\nRULES: r\n\nPLAYERS: A, B\n\nYOUR SUSPICION SCORES: B 0.5\n\nHISTORY:\n{history}"
        "\n\nNOW: go\nAnswer with exactly one JSON object: {}"
    )
    messages, record = fit(build_messages(text), budget, 300, lambda chars: chars // 3 + 1)
    assert not record["over_budget"]
    assert sum(len(m["content"]) for m in messages) // 3 + 1 <= budget - 300
    assert messages[-1]["content"].endswith("Answer with exactly one JSON object: {}"), "the task is never cut"
    if record["history_lines_dropped"]:
        assert f"({record['history_lines_dropped']} earlier history lines left out" in messages[-1]["content"]


def test_the_concurrency_cap_halves_under_overload_and_recovers() -> None:
    from werewolf_deception.agents.llm.endpoints import AdaptiveLimit

    limit = AdaptiveLimit(8)
    peak = 0

    async def turn() -> None:
        nonlocal peak
        async with limit:
            peak = max(peak, limit.active)
            await asyncio.sleep(0.001)

    async def go() -> None:
        limit.overloaded()
        limit.overloaded()
        assert limit.limit == 2
        await asyncio.gather(*(turn() for _ in range(20)))

    asyncio.run(go())
    assert peak <= 2 and limit.overloads == 2
    for _ in range(200):
        limit.answered()
    assert limit.limit == 8, "answered calls bring the cap back to what was configured"
    for _ in range(10):
        limit.overloaded()
    assert limit.limit == 1


def test_the_answer_format_in_prompts_has_no_placeholder_to_copy() -> None:
    from werewolf_deception.agents.llm.prompts import answer_line
    from werewolf_env.actions.parse import echoes_template

    for kind in (
        "eliminate",
        "protect",
        "unmask",
        "vote",
        "bid",
        "statement",
        "self_analysis",
        "peer_analysis",
        "summary",
    ):
        line = answer_line(kind, {"legal_targets": ["Bob", "Emma"], "max_bid": 10, "max_statement_words": 20})
        assert "<" not in line and echoes_template(line) is None
        assert line.startswith("Answer with exactly one JSON object: {")
