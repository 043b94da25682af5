"""Answer validity per policy and action kind (benchmarks/runs/validity.py): hand-made logs with known
counts, logs written before ``llm_outcome`` existed, torn and malformed logs, re-scored logs, sums over
a run, the terminal lines, and a real game against the scripted OpenAI-compatible server."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from werewolf_deception.agents import play_game_sync
from werewolf_deception.agents.fake.server import FakeOpenAIServer, FaultPlan
from werewolf_deception.benchmarks.runs.validity import (
    format_validity,
    game_validity,
    reason_field,
    run_validity,
    worst_fallback_rate,
)
from werewolf_env.engine.log import read_log


def agent(seat: int | None, **data: Any) -> dict[str, Any]:
    return {"type": "agent_record", "actor": seat, "data": data}


def call(seat: int, kind: str, attempt: str = "answer", error: str | None = None, **extra: Any) -> dict[str, Any]:
    fields = {"cached": False, "finish_reason": "stop", "cut_off": False, "usage": {"prompt_tokens": 10}, **extra}
    return agent(seat, type="llm_call", attempt=attempt, action_kind=kind, error=error, **fields)


def outcome(seat: int, kind: str, value: str, cached: bool = False) -> dict[str, Any]:
    return agent(seat, type="llm_outcome", action_kind=kind, outcome=value, cached=cached)


def action(seat: int, kind: str, *fallbacks: str) -> dict[str, Any]:
    data: dict[str, Any] = {"kind": kind, "raw": {}, "parsed": {}}
    if fallbacks:
        data["fallbacks"] = list(fallbacks)
    return {"seq": 0, "round": 1, "phase": "day", "type": "action", "actor": seat, "audience": [seat], "data": data}


def hand_made_log() -> list[dict[str, Any]]:
    """Seats 0 and 2 are one LLM policy, seat 1 is heuristic; every outcome kind appears once or twice."""
    return [
        {"type": "header", "schema_version": 1, "seed": 0, "config": {}},
        agent(None, type="lineup", policies=["llm:m", "heuristic", "llm:m"]),
        {"seq": 1, "round": 0, "phase": "night", "type": "game_start", "actor": None, "audience": "all", "data": {}},
        call(0, "bid"),
        outcome(0, "bid", "answered"),
        action(0, "bid"),
        action(1, "bid", "bid: 11 is outside 0-10; used 0"),
        call(2, "bid", error="bid: not an integer"),
        call(2, "bid", "repair"),
        outcome(2, "bid", "repaired"),
        action(2, "bid"),
        call(0, "vote", error="vote: Zed is not playing", finish_reason="length"),
        call(0, "vote", "repair", error="vote: Zed is not playing", cut_off=True),
        outcome(0, "vote", "invalid"),
        action(0, "vote", "vote: unknown player 'Zed'; used abstain"),
        call(2, "peer_analysis", error="retries exhausted", failure="retries exhausted"),
        outcome(2, "peer_analysis", "unanswered"),
        action(
            2,
            "peer_analysis",
            "unparseable JSON: no object found",
            "is_deceptive: missing; used false",
            "suspicion: missing; used your current score",
        ),
        agent(0, type="policy_error", policy="llm:m", error="RuntimeError: boom"),
        action(0, "statement", 'statement: missing; used ""'),
        agent(2, type="llm_call", attempt="answer", action_kind="vote", error=None, cached=True),
        outcome(2, "vote", "answered", cached=True),
        action(2, "vote"),
        {"type": "snapshot", "data": {}},
    ]


def test_counts_per_policy_and_kind() -> None:
    v = game_validity(hand_made_log())
    assert (v["games"], v["incomplete_games"], v["skipped_records"]) == (1, 0, 0)
    llm = v["policies"]["llm:m"]
    assert llm["llm"] is True and llm["seat_games"] == 2
    o = llm["overall"]
    assert {k: o[k] for k in ("actions", "answered", "repaired", "invalid", "unanswered", "no_outcome")} == {
        "actions": 6,
        "answered": 2,
        "repaired": 1,
        "invalid": 1,
        "unanswered": 1,
        "no_outcome": 1,
    }
    assert (o["fallback"], o["field_replaced"], o["calls"], o["cut_off"], o["cached"], o["policy_errors"]) == (
        3,
        3,
        7,
        2,
        1,
        1,
    )
    assert o["invalid_fields"] == {"vote": 1, "unparseable JSON": 1, "is_deceptive": 1, "suspicion": 1, "statement": 1}
    assert (o["answered_rate"], o["repaired_rate"], o["fallback_rate"], o["invalid_field_rate"]) == (
        0.3333,
        0.1667,
        0.5,
        0.5,
    )
    assert (o["cut_off_rate"], o["policy_error_rate"], o["inferred_outcomes"]) == (0.2857, 0.1667, 0)
    kinds = llm["by_kind"]
    assert set(kinds) == {"bid", "vote", "peer_analysis", "statement"}
    assert (kinds["bid"]["actions"], kinds["bid"]["answered"], kinds["bid"]["repaired"], kinds["bid"]["fallback"]) == (
        2,
        1,
        1,
        0,
    )
    assert (kinds["vote"]["invalid"], kinds["vote"]["cut_off"], kinds["vote"]["cached"]) == (1, 2, 1)
    assert kinds["peer_analysis"]["unanswered_rate"] == 1.0 and kinds["statement"]["no_outcome"] == 1
    # A model-free seat: outcomes unknown, fallbacks still counted.
    h = v["policies"]["heuristic"]
    assert h["llm"] is False and h["seat_games"] == 1
    assert (h["overall"]["answered"], h["overall"]["answered_rate"], h["overall"]["no_outcome"]) == (None, None, None)
    assert (h["overall"]["actions"], h["overall"]["fallback"], h["overall"]["fallback_rate"]) == (1, 1, 1.0)
    assert h["overall"]["invalid_fields"] == {"bid": 1}
    json.dumps(v, allow_nan=False)  # metrics.json material


def test_outcomes_inferred_from_calls_in_older_logs() -> None:
    """Logs written before llm_outcome existed: the calls say the same, the last call deciding."""
    older = [r for r in hand_made_log() if r.get("data", {}).get("type") != "llm_outcome"]
    o = game_validity(older)["policies"]["llm:m"]["overall"]
    assert (o["answered"], o["repaired"], o["invalid"], o["unanswered"], o["no_outcome"]) == (2, 1, 1, 1, 1)
    assert o["inferred_outcomes"] == 5
    # An invalid answer whose repair got no reply is unanswered, as LLMAgent words it.
    no_reply = call(0, "bid", "repair", error="retries exhausted", failure="retries exhausted")
    log = [
        agent(None, type="lineup", policies=["llm:m"]),
        call(0, "bid", error="bad"),
        no_reply,
        action(0, "bid", "bid: x"),
    ]
    assert game_validity(log)["policies"]["llm:m"]["overall"]["unanswered"] == 1


def test_reason_field() -> None:
    assert reason_field("target: unknown player 'Zed'; used no target") == "target"
    assert reason_field("unparseable JSON: no object found") == "unparseable JSON"
    assert reason_field("unreadable action") == "unreadable action"
    assert len(reason_field("x" * 500)) == 40


def test_rescored_logs_count_analyses_under_the_labeler() -> None:
    log = [
        agent(None, type="lineup", policies=["heuristic", "heuristic"]),
        agent(None, type="labeler", policies=["llm:judge", "llm:judge"], source="x"),
        action(0, "bid"),
        call(1, "peer_analysis"), outcome(1, "peer_analysis", "answered"), action(1, "peer_analysis"),
        call(0, "self_analysis", error="bad"), call(0, "self_analysis", "repair", error="bad"),
        outcome(0, "self_analysis", "invalid"), action(0, "self_analysis", "confidence: missing; used 0.5"),
    ]  # fmt: skip
    v = game_validity(log)
    assert set(v["policies"]) == {"heuristic", "llm:judge"}
    assert v["policies"]["heuristic"]["overall"]["actions"] == 1 and not v["policies"]["heuristic"]["llm"]
    assert v["policies"]["llm:judge"]["seat_games"] == 2 and v["policies"]["llm:judge"]["llm"]
    judge = v["policies"]["llm:judge"]["overall"]
    assert (judge["actions"], judge["answered"], judge["invalid"], judge["fallback"]) == (2, 1, 1, 1)


OUTCOME_PARTS = ("answered", "repaired", "invalid", "unanswered", "no_outcome")


def test_torn_and_malformed_logs(tmp_path: Path) -> None:
    full = hand_made_log()
    for cut in range(len(full) + 1):
        v = game_validity(full[:cut])
        for entry in v["policies"].values():
            o = entry["overall"]
            if entry["llm"]:
                assert sum(o[k] for k in OUTCOME_PARTS) == o["actions"]
        assert v["incomplete_games"] == (0 if cut == len(full) else 1)
    # Calls made for an action the log never got still count as calls.
    torn = game_validity(full[:9])
    assert torn["policies"]["llm:m"]["overall"]["calls"] == 3 and torn["policies"]["llm:m"]["overall"]["actions"] == 1
    odd = [
        "not a record", None, 7, {"type": "agent_record", "actor": 0, "data": "x"},
        agent(None, type="llm_call"), {"type": "agent_record", "actor": "zero", "data": {"type": "policy_error"}},
        agent(0, type="prompt", text="hi"),
        {"type": "something_new", "data": {}}, {"type": "action", "actor": 0, "data": None},
        {"type": "action", "actor": None, "data": {"kind": "vote", "fallbacks": "vote: odd"}},
        {"type": "action", "actor": 5, "data": {}},
    ]  # fmt: skip
    v = game_validity([*full[:5], *odd, *full[5:]])
    assert v["skipped_records"] == 7
    assert v["policies"]["llm:m"]["overall"]["actions"] == 6
    assert v["policies"]["unknown"]["overall"]["actions"] == 2
    assert v["policies"]["unknown"]["overall"]["invalid_fields"] == {"vote": 1}
    path = tmp_path / "torn.ndjson"
    path.write_text("\n".join(json.dumps(r) for r in full[:12]) + '\n{"type": "act', encoding="utf-8")
    assert run_validity([path])["policies"]["llm:m"]["overall"]["actions"] == 2


ODD_RECORDS = ["junk", None, {"type": "action"}, {"type": "agent_record"}, agent(0, type="llm_outcome", outcome="odd"),
               agent(9, type="llm_call"), action(7, "vote", "vote: x")]  # fmt: skip
RECORDS = st.sampled_from(hand_made_log()) | st.sampled_from(ODD_RECORDS)


@settings(max_examples=200, deadline=None)
@given(st.lists(RECORDS, max_size=40))
def test_any_sequence_of_records_gives_consistent_counts(records: list[Any]) -> None:
    v = game_validity(records)
    for entry in v["policies"].values():
        for group in [entry["overall"], *entry["by_kind"].values()]:
            assert 0 <= group["field_replaced"] <= group["fallback"] <= group["actions"]
            if entry["llm"]:
                assert sum(group[k] for k in OUTCOME_PARTS) == group["actions"] and group["no_outcome"] >= 0
            else:
                assert group["answered"] is None
        assert entry["overall"]["actions"] == sum(g["actions"] for g in entry["by_kind"].values())
    json.dumps(run_validity([v, v]), allow_nan=False)


def test_run_validity_sums_games(tmp_path: Path) -> None:
    path = tmp_path / "game.ndjson"
    path.write_text("\n".join(json.dumps(r) for r in hand_made_log()) + "\n", encoding="utf-8")
    one = game_validity(hand_made_log())
    run = run_validity([path, one, hand_made_log()])
    assert run["games"] == 3
    llm = run["policies"]["llm:m"]
    assert llm["seat_games"] == 6 and llm["overall"]["actions"] == 18 and llm["overall"]["answered"] == 6
    assert llm["overall"]["answered_rate"] == 0.3333 and llm["overall"]["invalid_fields"]["vote"] == 3
    assert llm["by_kind"]["bid"]["repaired"] == 3
    assert one["policies"]["llm:m"]["overall"]["actions"] == 6  # the inputs are not changed
    # The same label without LLM records in another game: those actions have no known outcome.
    plain = game_validity([agent(None, type="lineup", policies=["llm:m"]), action(0, "bid")])
    mixed = run_validity([one, plain])["policies"]["llm:m"]["overall"]
    assert (mixed["actions"], mixed["answered"], mixed["no_outcome"]) == (7, 2, 2)
    assert run_validity([]) == {"games": 0, "incomplete_games": 0, "skipped_records": 0, "policies": {}}


def test_worst_fallback_rate_and_terminal_lines() -> None:
    v = run_validity([hand_made_log()])
    assert worst_fallback_rate(v) == ("heuristic", 1.0)
    assert worst_fallback_rate({"policies": {}}) == (None, None)
    lines = format_validity(v)
    # Per policy: its actions, a small table (all kinds, then each kind that fell back), its invalid fields.
    assert lines[:5] == [
        "heuristic: 1 action",
        "  action kind  actions  fallback",
        "  all kinds          1      100%",
        "  bid                1      100%",
        "  invalid fields: bid 1",
    ]
    assert lines[5:8] == [
        "llm:m: 6 actions",
        "  action kind    actions  answered  repaired  invalid  unanswered  no outcome  fallback",
        "  all kinds            6       33%       17%      17%         17%         17%       50%",
    ]
    assert lines[-2:] == [
        "  invalid fields: vote 1, unparseable JSON 1, is_deceptive 1, suspicion 1, statement 1",
        "  1 policy error, 2 calls cut off, 1 cached call",
    ]
    kinds = [line.split()[0] for line in lines if line.startswith("  ") and line.split()[0].islower()]
    kinds = [k for k in kinds if k not in ("action", "all", "invalid")]
    assert kinds == ["bid", "peer_analysis", "statement", "vote"]  # heuristic's bid; the LLM's bid had none
    assert lines[8].split() == ["peer_analysis", "1", "0%", "0%", "0%", "100%", "0%", "100%"]
    assert all(len(line) <= 96 for line in lines)  # printed with a 4-space indent: within 100 columns
    # Model-free policies that never fell back print nothing.
    quiet = game_validity([agent(None, type="lineup", policies=["heuristic"]), action(0, "bid")])
    assert format_validity(run_validity([quiet])) == []


def test_a_real_game_against_a_faulty_server(tmp_path: Path) -> None:
    faults = FaultPlan(rates={"malformed": 0.3, "invalid_target": 0.15, "500": 0.05}, seed=3)
    with FakeOpenAIServer(faults=faults) as server:
        llm = {"kind": "llm", "model": "fake", "base_url": server.base_url, "retries": 0}
        result = play_game_sync(
            {"num_players": 6}, {"default": "heuristic", "teams": {"werewolf": llm}}, seed=2, log_dir=tmp_path
        )
    assert result.log_path is not None
    records = read_log(result.log_path)
    v = game_validity(records)
    lineup = next(r["data"]["policies"] for r in records if r.get("data", {}).get("type") == "lineup")
    seats = {s for s, label in enumerate(lineup) if label == "llm:fake"}
    o = v["policies"]["llm:fake"]["overall"]
    stated = Counter(r["data"]["outcome"] for r in records if r.get("data", {}).get("type") == "llm_outcome")
    assert {k: o[k] for k in stated} == dict(stated) and sum(stated.values()) == o["actions"] > 10
    actions = [r for r in records if r.get("type") == "action" and r["actor"] in seats]
    assert o["fallback"] == sum("fallbacks" in r["data"] for r in actions) > 0
    assert o["calls"] == sum(r.get("data", {}).get("type") == "llm_call" and r["actor"] in seats for r in records)
    heuristic = v["policies"]["heuristic"]["overall"]
    assert heuristic["answered"] is None and heuristic["actions"] + o["actions"] == result.steps
    lines = format_validity(v)
    head = lines.index(f"llm:fake: {o['actions']} actions")
    assert lines[head + 1].split()[:4] == ["action", "kind", "actions", "answered"]


@pytest.mark.parametrize("bad", [[], [{"type": "header"}], [agent(None, type="lineup", policies="oops")]])
def test_empty_logs(bad: list[dict[str, Any]]) -> None:
    assert game_validity(bad)["policies"] == {}
