"""A huge answer is stored once, capped, with its length: a 10 MB answer makes a log of kilobytes.

The LLM seat stores each answer in its ``llm_call`` record (``raw``, cut to ``ANSWER_CHARS_KEPT`` with
``raw_chars`` saying how long it was); the action it hands the game, the repair prompt it sends back and
every other record hold no more of it. The game is the same as with the answer in full: the statement
is cut to the turn's limit and marked truncated, and the log replays.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from werewolf_deception.agents import play_game_sync
from werewolf_deception.agents.llm.agent import LLMAgent
from werewolf_deception.agents.policies.heuristic import HeuristicAgent
from werewolf_env.engine.log import read_log, replay
from werewolf_env.record import token_usage
from werewolf_env.record.token_usage import TokenTally

BIG = 10_000_000
ANSWER_CHARS_KEPT = 10_000
CONFIG = {"num_players": 5, "max_rounds": 1, "max_debate_turns": 3}


class HugeAnswers:
    """A transport (the project's seam for any model) that answers statements with 10 MB and bids high."""

    def __init__(self, statement: str) -> None:
        self.statement = statement
        self.sent: list[int] = []  # characters of every request's messages
        self.statements = 0  # statement turns asked

    async def complete(self, messages: list[dict[str, str]], schema: dict[str, Any]) -> str | None:
        self.sent.append(sum(len(m["content"]) for m in messages))
        task = messages[-1]["content"]
        if '{"statement"' in task:
            self.statements += 1
            return self.statement
        if '{"bid"' in task:
            return json.dumps({"bid": 10})
        return None


def play(tmp_path: Path, statement: str) -> tuple[Path, HugeAnswers]:
    """The first seeded game in which the model's seat is asked to speak (in some seeds it dies first)."""
    for seed in range(1, 40):
        model = HugeAnswers(statement)
        seats = [LLMAgent(transport=model, label="llm:huge"), *(HeuristicAgent() for _ in range(4))]
        folder = tmp_path / f"seed{seed}"
        play_game_sync(CONFIG, None, seed, log_dir=folder, policies=seats)
        if model.statements:
            return next(folder.glob("*.ndjson")), model
    raise AssertionError("the model's seat never spoke in 39 seeded games")


def calls(log: Path) -> list[dict[str, Any]]:
    return [
        r["data"]
        for r in read_log(log)
        if r["type"] == "agent_record" and r["data"]["type"] == "llm_call" and r["data"]["action_kind"] == "statement"
    ]


def test_a_valid_10_mb_answer_is_stored_once_capped_with_its_length(tmp_path: Path) -> None:
    answer = json.dumps({"statement": "I am the seer and Bob is a werewolf " + "x" * BIG, "notes": ""})
    log, _ = play(tmp_path, answer)
    assert log.stat().st_size < 20 * ANSWER_CHARS_KEPT, log.stat().st_size
    assert calls(log)
    for call in calls(log):
        assert call["raw"] == answer[:ANSWER_CHARS_KEPT] and call["raw_chars"] == len(answer)
    spoken = [
        r["data"]["parsed"]
        for r in read_log(log)
        if r["type"] == "action" and r["data"]["kind"] == "statement" and r["actor"] == 0
    ]
    assert spoken and all(s["statement"].startswith("I am the seer and Bob is a werewolf") for s in spoken)
    assert all(s["truncated"] is True for s in spoken)
    assert replay(log)


def test_an_invalid_10_mb_answer_is_not_sent_back_in_the_repair_prompt(tmp_path: Path) -> None:
    answer = "Sure! " + "y" * BIG
    log, model = play(tmp_path, answer)
    assert log.stat().st_size < 20 * ANSWER_CHARS_KEPT, log.stat().st_size
    assert max(model.sent) < 3 * ANSWER_CHARS_KEPT + 50_000  # the prompt, and the answer cut, not 10 MB
    assert [c["attempt"] for c in calls(log)][:2] == ["answer", "repair"]
    for call in calls(log):
        assert len(call["raw"]) == ANSWER_CHARS_KEPT and call["raw_chars"] == len(answer)
    assert replay(log)


@pytest.mark.parametrize("size", [10, ANSWER_CHARS_KEPT])
def test_an_answer_within_the_cap_is_stored_whole_without_a_length(tmp_path: Path, size: int) -> None:
    answer = json.dumps({"statement": "I trust Bob", "notes": "n" * size})[: max(size, 40)]
    log, _ = play(tmp_path, answer)
    for call in calls(log):
        assert call["raw"] == answer and "raw_chars" not in call


def test_a_cut_answer_is_counted_at_its_length_when_the_server_gave_no_usage(monkeypatch: pytest.MonkeyPatch) -> None:
    # characters / 4, exactly proportional (a tokenizer's count of the cut text is not quite a tenth)
    monkeypatch.setattr(token_usage, "_encoding", lambda model: None)
    whole = TokenTally()
    whole.add_call({"model": "m", "messages": [], "raw": "word " * 2_000})
    cut = TokenTally()
    cut.add_call({"model": "m", "messages": [], "raw": "word " * 200, "raw_chars": 10_000})
    assert cut.totals["completion_tokens"] == whole.totals["completion_tokens"] > 0
