"""Bids folded into the analyses (``LLMOptions.bid_in_analysis``, issue 19): fewer calls, the same game rules,
truthful outcomes, and a bid call whenever the analysis gave no usable bid or the seat learnt something since."""

from __future__ import annotations

import asyncio
from collections import Counter
from typing import Any

from werewolf_deception.agents import play_game_sync
from werewolf_deception.agents.fake.answers import scripted_answer
from werewolf_deception.agents.fake.server import FakeOpenAIServer
from werewolf_deception.agents.llm.agent import LLMAgent


def _game(answer: Any = None, seed: int = 1, **options: Any) -> tuple[Any, list[dict[str, Any]]]:
    with FakeOpenAIServer(answer=answer) as server:
        lineup = {"default": {"kind": "llm", "model": "fake", "base_url": server.base_url, "temperature": 0.0,
                              **options}}  # fmt: skip
        result = play_game_sync({"num_players": 8}, lineup, seed=seed, concurrency=8)
        return result, list(server.requests)


def _records(result: Any, kind: str) -> list[dict[str, Any]]:
    return [r["data"] for r in result.events if r.get("type") == "agent_record" and r["data"].get("type") == kind]


def _asked(request: dict[str, Any], field: str) -> bool:
    return f'"{field}"' in request["messages"][-1]["content"].rsplit("Answer with exactly one JSON object:", 1)[-1]


def test_bids_come_from_the_analyses_and_every_bid_turn_has_one_truthful_outcome() -> None:
    result, requests = _game()
    outcomes = _records(result, "llm_outcome")
    bids = [o for o in outcomes if o["action_kind"] == "bid"]
    bid_turns = sum(1 for r in result.events if r.get("type") == "action" and r["data"]["kind"] == "bid")
    assert len(bids) == bid_turns, "one outcome per bid turn"
    folded = [o for o in bids if o.get("from_analysis")]
    assert folded and len(folded) > len(bids) / 2
    assert all(o["outcome"] == "answered" for o in bids)
    bid_calls = [q for q in requests if _asked(q, "bid") and not _asked(q, "is_deceptive")]
    assert len(bid_calls) == len(bids) - len(folded), "a bid call only for the bids no analysis answered"
    assert result.fallbacks == 0
    peers = [o for o in outcomes if o["action_kind"] == "peer_analysis"]
    asked = [o for o in peers if "next_bid" in o]
    assert asked and all(isinstance(o["next_bid"], int) for o in asked)
    # no bid follows the day's last statement: its analyses ask none (they ask the vote instead)
    assert all("vote" in o["ahead"] for o in peers if "next_bid" not in o)


def test_turned_off_every_bid_is_its_own_call() -> None:
    result, requests = _game(bid_in_analysis=False)
    bids = [o for o in _records(result, "llm_outcome") if o["action_kind"] == "bid"]
    assert bids and not any(o.get("from_analysis") for o in bids)
    assert sum(1 for q in requests if _asked(q, "bid")) == len(bids)
    assert not any(_asked(q, "bid") and _asked(q, "is_deceptive") for q in requests)


def _without_bid(prompt: str) -> Any:
    answer = scripted_answer(prompt)
    answer.pop("bid", None) if "is_deceptive" in answer else None
    return answer


def _bad_bid(prompt: str) -> Any:
    answer = scripted_answer(prompt)
    if "is_deceptive" in answer and "bid" in answer:
        answer["bid"] = 99
    return answer


def test_a_missing_or_invalid_bid_in_the_analysis_gets_a_bid_call_never_a_default() -> None:
    for answer, why in ((_without_bid, "no bid in the answer"), (_bad_bid, "bid: must be between 0 and 10")):
        result, requests = _game(answer)
        outcomes = _records(result, "llm_outcome")
        bids = [o for o in outcomes if o["action_kind"] == "bid"]
        assert bids and not any(o.get("from_analysis") for o in bids)
        assert sum(1 for q in requests if _asked(q, "bid") and not _asked(q, "is_deceptive")) == len(bids)
        peers = [o for o in outcomes if o["action_kind"] == "peer_analysis"]
        assert peers and all(o["outcome"] == "answered" for o in peers), "the analysis itself is valid"
        asked = [o for o in peers if "next_bid" in o]
        assert asked and all(o["next_bid"] is None for o in asked)
        assert {o["next_bid_error"] for o in asked} == {why}
        assert {o["ahead_errors"]["bid"] for o in asked} == {why}
        assert result.fallbacks == 0


_RULES = "RULES: 3 players. Day: players bid 0-10 for the floor before each."
_HEAD = f"== Werewolf: you are Bob (player_1) ==\n\nCARD\n\n{_RULES}\n\nPLAYERS: Ann, Bob (you), Cy\n\nHISTORY:\n"
_TASK = "\n\nNOW: round 1, day.\nAnswer with exactly one JSON object: {}"


def _observation(*history: str) -> dict[str, Any]:
    return {"text": _HEAD + "\n".join(history) + _TASK}


def test_a_bid_is_asked_again_when_the_seat_learnt_something_since_its_analysis() -> None:
    said = 'Ann: "Cy lies."'
    mine = "You analysed the statement: deceptive=false (none, probability deceptive 0.10, suspicion 0.20)."
    peer = {"action_kind": "peer_analysis", "round": 1, "legal_targets": []}
    bid = {"action_kind": "bid", "round": 1, "max_bid": 10, "legal_targets": []}

    async def go(server: FakeOpenAIServer) -> list[int]:
        agent = LLMAgent(model="fake", base_url=server.base_url, temperature=0.0)
        calls = []
        try:
            for later in ([mine], [mine, 'Cy: "news"'], [mine, "--- Night 2 ---"]):
                await agent.aact(_observation(said), peer)
                before = len(server.requests)
                action = await agent.aact(_observation(said, *later), bid)
                assert isinstance(action, dict) and 0 <= action["bid"] <= 10
                calls.append(len(server.requests) - before)
            # a bid turn with no analysis before it: its own call; a pending bid is used once only
            before = len(server.requests)
            await agent.aact(_observation(said, mine), bid)
            calls.append(len(server.requests) - before)
            outcomes = Counter(
                bool(r.get("from_analysis"))
                for r in agent.drain_records()
                if r.get("type") == "llm_outcome" and r["action_kind"] == "bid"
            )
            assert outcomes == Counter({True: 1, False: 3})
        finally:
            await agent.aclose()
        return calls

    with FakeOpenAIServer() as server:
        assert asyncio.run(go(server)) == [0, 1, 1, 1]


def test_the_command_line_turns_it_off(tmp_path: Any) -> None:
    from werewolf_deception.benchmarks.cli.main import main

    with FakeOpenAIServer() as server:
        argv = ["run", "--model", "fake", "--base-url", server.base_url, "--games", "1", "--players", "5",
                "--no-report", "--quiet", "--no-bid-in-analysis"]  # fmt: skip
        assert main([*argv, "--out", str(tmp_path / "off")]) == 0
        off = list(server.requests)
        assert main([*argv[:-1], "--out", str(tmp_path / "on")]) == 0
        on = list(server.requests)[len(off) :]
    assert not any(_asked(q, "bid") and _asked(q, "is_deceptive") for q in off)
    assert any(_asked(q, "bid") and _asked(q, "is_deceptive") for q in on)
