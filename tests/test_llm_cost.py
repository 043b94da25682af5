"""Honest LLM cost (issue 36): what each provider's prompt cache would serve, an offline token counter, and
prompts trimmed without changing what any seat knows."""

from __future__ import annotations

import hashlib
import re
from collections import Counter
from typing import Any

import pytest

from werewolf_deception.agents import play_game_sync
from werewolf_deception.agents.fake.server import FakeOpenAIServer
from werewolf_deception.agents.llm.prompts import answer_line, grouped_votes, unquote_statement
from werewolf_env.observe import Section
from werewolf_env.record import CacheModel, cache_shares, prompt_segments, token_counter, token_usage


def _words(prefix: str, n: int) -> str:
    return " ".join(f"{prefix}{i}" for i in range(n))


def test_each_provider_rule_caches_what_it_says_on_hand_made_prompts() -> None:
    cache = CacheModel(str.split)  # words stand in for tokens: the counts below are exact
    rules, card_a, card_b = _words("r", 1100), _words("a", 10), _words("b", 10)
    history = _words("h", 200)
    # Segments end at the breakpoints: after the rules, after the system message, after the history.
    first = cache.add("a", [rules, card_a, history, "task1"])
    assert first == {"prompt_tokens": 1311, "any_prefix": 0, "openai": 0, "anthropic": 0}, "nothing seen before"
    second = cache.add("a", [rules, card_a, history + " " + _words("g", 50), "task2"])
    # 1,310 tokens shared; OpenAI in 128-token steps; Anthropic reads the longest breakpoint written before
    # (after the role card: the history breakpoint moved with the new lines).
    assert second == {"prompt_tokens": 1361, "any_prefix": 1310, "openai": 1280, "anthropic": 1110}
    other_seat = cache.add("b", [rules, card_b, history, "task1"])
    assert other_seat == {"prompt_tokens": 1311, "any_prefix": 1100, "openai": 1024, "anthropic": 1100}
    short = cache.add("c", [_words("r", 600), "x"])  # a shared prefix under 1,024 tokens
    assert short == {"prompt_tokens": 601, "any_prefix": 600, "openai": 0, "anthropic": 0}
    assert cache.totals["prompt_tokens"] == 1311 + 1361 + 1311 + 601
    assert cache_shares(cache.totals)["any_prefix"] == round((1310 + 1100 + 600) / 4584, 3)


def test_prompt_segments_cut_after_the_rules_the_system_message_and_the_history() -> None:
    messages = [
        {"role": "system", "content": f"How to answer.\n\n{Section.RULES} 8 players.\n\n== You ==\n\nCard."},
        {"role": "user", "content": f"{Section.HISTORY}\n--- Day 1 ---\n\n{Section.PLAYERS} A, B\n\nNOW: vote."},
    ]
    assert prompt_segments(messages) == [
        f"<system>How to answer.\n\n{Section.RULES} 8 players.",
        "\n\n== You ==\n\nCard.",
        f"<user>{Section.HISTORY}\n--- Day 1 ---",
        f"\n\n{Section.PLAYERS} A, B\n\nNOW: vote.",
    ]
    # the record package cannot import the observation's headers (observe imports it): they must agree
    assert token_usage.BREAKPOINT_SECTIONS == (Section.RULES, Section.HISTORY)


def test_the_token_counter_uses_openais_cl100k_file_as_shipped_in_a_package() -> None:
    pytest.importorskip("tiktoken", reason="the 'tokens' extra is not installed")
    pytest.importorskip("bpe_openai", reason="the 'tokens' extra is not installed")
    data = token_usage.bundled_encoding_file("cl100k_base")
    assert data is not None and hashlib.sha256(data).hexdigest() == token_usage.OPENAI_FILE_SHA256["cl100k_base"]
    name, encode = token_counter()
    assert name == "tiktoken cl100k_base"
    assert encode("hello world, werewolf!") == [15339, 1917, 11, 7205, 77799, 0]  # cl100k's ids


def test_without_an_encoding_the_counter_says_it_estimates(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(token_usage, "_encoding", lambda model: None)
    name, encode = token_counter()
    assert name == f"characters/{token_usage.CHARS_PER_TOKEN}"  # never whitespace words, never unnamed
    assert encode("abcdefghij") == ["abcd", "efgh", "ij"]


def _ungrouped(line: str) -> Counter[tuple[str, str]]:
    pairs: Counter[tuple[str, str]] = Counter()
    for group in line.removeprefix("Votes: ").removesuffix(".").split("; "):
        target, _, voters = group.partition(" <- ")
        pairs.update((voter, target) for voter in voters.split(", "))
    return pairs


def test_the_trimmed_lines_say_the_same_facts() -> None:
    votes = "Votes: Alice -> Hiro, Bob (you) -> Hiro, Carla -> abstain, Emma -> Bob (you)."
    grouped = grouped_votes(votes)
    assert grouped == "Votes: Hiro <- Alice, Bob (you); abstain <- Carla; Bob (you) <- Emma."
    assert _ungrouped(grouped) == Counter(
        [("Alice", "Hiro"), ("Bob (you)", "Hiro"), ("Carla", "abstain"), ("Emma", "Bob (you)")]
    )
    assert grouped_votes("Votes: something else.") == "Votes: something else.", "not the env's format: as it is"
    history = 'HISTORY:\n--- Day 1 ---\nBob (bid 9): "I think Emma lies."'
    task = 'NOW: round 1, day.\nThe statement: Bob: "I think Emma lies."\nAnswer with exactly one JSON object: {}'
    assert unquote_statement(history, task).split("\n")[1] == "The statement: Bob's, the history's last line."
    assert unquote_statement(history + "\nCarla (bid 2) says nothing.", task) == task, "not the last line: kept"
    line = answer_line("peer_analysis", {"subjects": ["Emma"]})
    assert line.count("0-1 in steps of 0.05") == 1 and line.count("a probability") == 3, line


_STATEMENT = re.compile(r'^(\w+)(?: \(you\))?(?: \(bid \d+\))?: "(.*)"$')


def test_every_seat_still_sees_each_public_event_once_in_its_prompt() -> None:
    with FakeOpenAIServer() as server:
        lineup = {"default": {"kind": "llm", "model": "fake", "base_url": server.base_url, "temperature": 0.0}}
        result = play_game_sync({"num_players": 8}, lineup, seed=0, concurrency=8)
    calls: list[dict[str, Any]] = [
        r for r in result.events if r.get("type") == "agent_record" and r["data"].get("type") == "llm_call"
    ]
    players = re.search(r"^PLAYERS: (.*)$", calls[-1]["data"]["messages"][-1]["content"], re.MULTILINE)
    assert players is not None
    names = [re.sub(r" \(you\)| \[dead\]", "", p) for p in players.group(1).split(", ")]
    said = Counter((names[e["data"]["speaker"]], e["data"]["text"]) for e in result.events if e["type"] == "statement")
    voted = Counter(
        (names[int(voter)], names[target] if target is not None else "abstain")
        for e in result.events
        if e["type"] == "votes"
        for voter, target in e["data"]["votes"].items()
    )
    summaries = []
    for call in calls:
        user = call["data"]["messages"][-1]["content"]
        if call["data"].get("action_kind") == "summary":
            summaries.append(user)
        if call["data"].get("action_kind") == "peer_analysis" and "The statement: " in user:
            history = user[: user.index("\n\n" + Section.PLAYERS)]
            speaker = re.search(r"The statement: (\w+)'s, the history's last line\.", user)
            assert speaker is not None and history.rsplit("\n", 1)[1].startswith(speaker.group(1)), user[-900:]
    assert summaries
    for user in summaries:  # the end-of-game summary: the whole history
        lines = user[: user.index("\n\n" + Section.PLAYERS)].split("\n")
        seen = Counter((m.group(1), m.group(2)) for m in map(_STATEMENT.match, lines) if m)
        assert seen == said
        votes = sum((_ungrouped(line.replace(" (you)", "")) for line in lines if line.startswith("Votes: ")), Counter())
        assert votes == voted
