"""Cache-friendly prompts (issue 19): a seat's prompt grows at its end, notes are woven into the history
within a budget, and the scripted server reports the prefix a caching server would reuse."""

from __future__ import annotations

import json
import urllib.request
from typing import Any

from werewolf_deception.agents import RandomAgent, play_game_sync
from werewolf_deception.agents.fake.answers import CACHE_BLOCK
from werewolf_deception.agents.fake.server import FakeOpenAIServer
from werewolf_deception.agents.llm.prompts import NOTE_CHARS, NOTES_BUDGET, build_messages, compact_history, weave_notes
from werewolf_deception.benchmarks.perf.llm_concurrency import GameCost
from werewolf_env import raw_env
from werewolf_env.observe.text import Section


def _post(server: FakeOpenAIServer, messages: list[dict[str, str]]) -> dict[str, Any]:
    body = {"model": "fake", "messages": messages}
    request = urllib.request.Request(
        f"{server.base_url}/chat/completions",
        data=json.dumps(body).encode(),
        headers={"Content-Type": "application/json"},
    )
    with urllib.request.urlopen(request, timeout=10) as reply:  # raises on an HTTP error status
        usage: dict[str, Any] = json.load(reply)["usage"]
    return usage


def test_the_fake_server_reports_the_cached_prefix_in_whole_blocks() -> None:
    shared = " ".join(f"w{i}" for i in range(300))
    with FakeOpenAIServer() as server:
        first = _post(server, [{"role": "system", "content": shared}, {"role": "user", "content": "a b c"}])
        second = _post(server, [{"role": "system", "content": shared}, {"role": "user", "content": "d e f"}])
        other = _post(server, [{"role": "user", "content": "something else entirely"}])
    assert first["prompt_tokens_details"]["cached_tokens"] == 0, "nothing seen before"
    # 300 shared words: two whole blocks of 128
    assert second["prompt_tokens_details"]["cached_tokens"] == 2 * CACHE_BLOCK
    assert second["prompt_tokens"] == 303 and second["total_tokens"] == 303 + second["completion_tokens"]
    assert other["prompt_tokens_details"]["cached_tokens"] == 0


def test_the_fake_servers_prefix_memory_is_bounded() -> None:
    with FakeOpenAIServer() as server:
        server.prefix_cache.max_blocks = 4
        for n in range(6):
            _post(server, [{"role": "user", "content": " ".join(f"p{n}w{i}" for i in range(CACHE_BLOCK))}])
        assert len(server.prefix_cache._blocks) == 4
        again = _post(server, [{"role": "user", "content": " ".join(f"p0w{i}" for i in range(CACHE_BLOCK))}])
    assert again["prompt_tokens_details"]["cached_tokens"] == 0, "the oldest prompt was forgotten"


def test_a_seats_prompts_are_mostly_a_reusable_prefix_of_its_previous_one() -> None:
    cost = GameCost()
    with FakeOpenAIServer() as server:
        lineup = {"default": {"kind": "llm", "model": "fake", "base_url": server.base_url, "temperature": 0.0}}
        result = play_game_sync({"num_players": 8}, lineup, seed=3, concurrency=8, info_hook=cost.hook)
    records = [r["data"] for r in result.events if r.get("type") == "agent_record"]
    calls = [r for r in records if r.get("type") == "llm_call"]
    for call in calls:  # stable first: the history opens the user message, the task closes it
        user = call["messages"][-1]["content"] if call["attempt"] == "answer" else call["messages"][1]["content"]
        assert user.startswith(Section.HISTORY)
        assert user.index(Section.HISTORY) < user.index(Section.PLAYERS) < user.index(Section.TASK)
        assert Section.NOTES not in user, "notes are woven into the history"
    measured = cost.measure(result.events, str.split)  # words stand in for tokens
    assert measured["calls"] == len(calls)
    assert measured["any_prefix"] / measured["prompt_tokens"] >= 0.6


def test_history_lines_are_compacted_without_losing_what_they_say() -> None:
    history = "\n".join(
        [
            "HISTORY:",
            "--- Day 1 ---",
            "Bob takes the floor (bid 9).",
            'Bob: "I think Emma is a werewolf."',
            "You analysed the statement: deceptive=true (none, probability deceptive 0.60, suspicion 0.25, "
            "of Emma 0.25).",
            "Carla takes the floor (bid 3).",
            "Carla says nothing.",
            "You voted for Bob.",
            "Votes: Bob -> Carla, Carla -> abstain, Dmitri (you) -> Bob. Tally: Bob 1, Carla 1; abstained: 1.",
        ]
    )
    assert compact_history(history).split("\n")[2:] == [
        'Bob (bid 9): "I think Emma is a werewolf."',  # the seat's own analysis: its scores say it
        "Carla (bid 3) says nothing.",
        "Votes: Carla <- Bob; abstain <- Carla; Bob <- Dmitri (you).",  # by target; the tally follows from them
    ]
    invalid = (
        "You analysed the statement: deceptive=false (none, probability deceptive 0.50). "
        "You answered invalidly (is_deceptive: missing)."
    )
    assert compact_history(f"HISTORY:\n{invalid}") == "HISTORY:\nYou answered invalidly (is_deceptive: missing).", (
        "the invalid answer is said nowhere else"
    )
    # without suspicion scores in the prompt (``show_suspicion=False``) the seat's analyses stay, shorter
    assert compact_history(history, scores_shown=False).split("\n")[3] == (
        "You analysed it: deceptive=true (none, p=0.60, suspicion 0.25, Emma 0.25)."
    )
    opening = "HISTORY:\nThe game begins with 3 players: Bob, Carla, Dmitri.\nYour role: villager.\n--- Night 1 ---"
    assert compact_history(opening) == "HISTORY:\n--- Night 1 ---", "the players line and role card say them"


def test_notes_are_woven_after_the_statement_they_were_written_with() -> None:
    history = "\n".join(
        [
            "HISTORY:",
            "--- Day 1 ---",
            'Dmitri (you) (bid 9): "Farid lies."',
            'Bob (bid 2): "No."',
            "--- Day 2 ---",
            'Dmitri (you) (bid 4): "Still Farid."',
        ]
    )
    notes = f"{Section.NOTES}:\n- [round 1, debate] watch Farid\n- [round 2, debate] and Bob\n- [round 2, vote] hm"
    woven = weave_notes(history, notes).split("\n")
    assert woven[3] == "(Your private note: watch Farid)"
    assert woven[7] == "(Your private note: and Bob)"
    assert woven[8] == "(Your private note, round 2, vote: hm)"  # no line to follow: at the end


def test_notes_are_clipped_and_kept_within_a_per_seat_budget() -> None:
    long = "x" * 2000
    notes = f"{Section.NOTES} (latest 20; 3 older not shown):\n" + "\n".join(
        f"- [round {r}, debate] {long}" for r in range(1, 21)
    )
    woven = weave_notes("HISTORY:\n(nothing yet)", notes)
    shown = [line for line in woven.split("\n") if line.startswith("(Your private note")]
    assert len(shown) == NOTES_BUDGET // NOTE_CHARS
    assert all(len(line) < NOTE_CHARS + 40 for line in shown)
    assert shown[-1].startswith("(Your private note, round 20,"), "the latest notes are kept"
    assert woven.endswith(f"({3 + 20 - len(shown)} older private notes left out)")
    assert len(woven) < NOTES_BUDGET + 600


def test_the_system_message_is_the_same_all_game_and_the_changing_parts_come_last() -> None:
    text = (
        "== Werewolf: you are Bob (player_1) ==\n\nCARD\n\nRULES: r\n\nPLAYERS: A, Bob (you)\n\nWHAT YOU KNOW:\n- x"
        "\n\nYOUR SUSPICION SCORES (0 = trust): A 0.5\n\nHISTORY:\nline\n\nYOUR PRIVATE NOTES:\n- [round 1, vote] n"
        "\n\nNOW: go"
    )
    system, user = build_messages(text)
    assert "CARD" in system["content"] and "PLAYERS" not in system["content"]
    sections = [chunk.split("\n")[0].split(" (")[0].split(":")[0] for chunk in user["content"].split("\n\n")]
    assert sections == ["HISTORY", "PLAYERS", "WHAT YOU KNOW", "YOUR SUSPICION SCORES", "NOW"]
    assert "(Your private note, round 1, vote: n)" in user["content"]


def test_a_note_with_blank_lines_stays_within_the_notes_budget() -> None:
    text = (
        f"== t ==\n\nCARD\n\nRULES: r\n\nPLAYERS: A\n\nHISTORY:\nline\n\n{Section.NOTES}:\n"
        f"- [round 1, vote] a\n\n{'y' * 3000}\n\nNOW: go"
    )
    _system, user = build_messages(text)
    assert user["content"].startswith("HISTORY:\nline\n(Your private note, round 1, vote: a ")
    assert len(user["content"]) < NOTE_CHARS + 100 and user["content"].endswith("PLAYERS: A\n\nNOW: go")


def test_without_suspicion_scores_the_seats_analyses_stay_in_its_prompt() -> None:
    for show, kept in ((False, True), (True, False)):
        env = raw_env(num_players=8, show_suspicion=show)
        policies = [RandomAgent(seat) for seat in range(8)]
        env.reset(seed=3)
        for agent in env.agent_iter():
            obs, _r, term, trunc, info = env.last()
            if term or trunc:
                env.step(None)
                continue
            if info["action_kind"] == "vote":
                text = obs["text"]
                assert text.count("You analysed the statement") > 0
                user = build_messages(text)[-1]["content"]
                assert (Section.SUSPICION in user) == show
                assert (user.count("You analysed it: ") == text.count("You analysed the statement")) == kept
                assert kept or "You analysed" not in user, "with scores shown, the scores say what they concluded"
                break
            env.step(policies[env.agent_name_mapping[agent]].act(obs, info))
