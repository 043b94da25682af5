"""A statement that repeats the turn's instructions is no speech: recognised by meaning, not by string.

A model that copies the answer line's wording ("what you say to everyone, in your own words"), any
``<...>`` slot ("<statement>", "<what you say to everyone>") or the task line instead of speaking says
nothing: the LLM seat asks once more (repair), and the engine plays silence with the reason. Real speech
that quotes a few of those words (a table, the heuristic seats' speech, labelled transcripts) still passes.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.helpers import game_at
from werewolf_deception.agents import play_game_sync
from werewolf_deception.agents.fake.server import FakeOpenAIServer, scripted_answer
from werewolf_deception.agents.llm.agent import validate
from werewolf_deception.benchmarks.labels.corpus import DEFAULT_CORPUS, load_all_games
from werewolf_env.actions.parse import parse
from werewolf_env.core.state import ActionKind
from werewolf_env.engine.log import read_log

STATEMENT_GAME = game_at(ActionKind.STATEMENT)
INFO = {"max_statement_words": 20, "max_statement_chars": 400}

PLACEHOLDERS = [
    "What you say to everyone, in your own words",
    "what you say to everyone in your own words (at most 20 words and 400 characters)",
    "<what you say to everyone>",
    "<statement>",
    "<Your statement here>",
    "[your statement here]",
    "{statement}",
    "Statement.",
    "＜ｓｔａｔｅｍｅｎｔ＞",  # full-width: NFKC reads it as <statement>
    "What you say to evryone, in your own wrods.",  # misspelt
    "WHAT YOU SAY TO EVERYONE",
    "You have the floor. Make one public statement.",
    "Make one public statement",
    '"statement": what you say to everyone',
    "A private note to yourself",
    "Answer with exactly one JSON object",
    "In your own words: <something>",
    "<insert your statement>",
]

SPEECH = [
    "I say to everyone: Bob is a werewolf.",
    "In my own words, I trust Alice completely.",
    "What do you say, Carol?",
    "What you say is a lie, Dave.",
    "Everyone, say what you know before we vote.",
    "I have nothing to say to everyone yet.",
    "Let me say one thing to everyone: I am the seer.",
    "My statement is simple: Eve is lying.",
    "Bob said <nothing> useful",
    "<Bob> is odd",
    "<sigh> I am the doctor and I protected Carol.",
    "I <3 this village",
    "if votes < 3 and > 1 we lose",
    "Why?",
    "my role",
    "Agreed.",
    "Public statement: I am a villager.",
    "I will keep my own words short: vote Dave.",
    "Notes from last night: Alice was quiet.",
    # A field word alone decides nothing: "claim" is no misspelling of "claims", nor "note" of "notes";
    # and "what you" + "you have" are two pairs of the instructions, not three words of them in a row.
    "Everyone, claim your role!",
    "Make your claims, everyone.",
    "I have no claims to make",
    "No claims.",
    "No notes.",
    "Say what you have to say.",
    "No role claims from me today.",
    "Notes: Bob voted twice.",
    "Claims?",
    "Any claims?",
    "My claim: seer.",
    "Note: I am the doctor.",
    "Say your role, everyone.",
    "What do you say to that?",
    "You have my word.",
]


def engine_statement(text: str) -> tuple[str, list[str]]:
    assert STATEMENT_GAME.current is not None
    result = parse({"statement": text}, STATEMENT_GAME.current, STATEMENT_GAME.state)
    return result.action["statement"], result.fallbacks


@pytest.mark.parametrize("text", PLACEHOLDERS)
def test_a_statement_repeating_the_instructions_is_a_fallback_with_its_reason(text: str) -> None:
    said, fallbacks = engine_statement(text)
    assert said == "" and len(fallbacks) == 1, (said, fallbacks)
    assert fallbacks[0].startswith("statement: ") and fallbacks[0].endswith("; used silence")
    action, error = validate(json.dumps({"statement": text}), "statement", INFO)
    assert action is None and error is not None and error.startswith("statement: "), error


@pytest.mark.parametrize("text", SPEECH)
def test_speech_quoting_a_few_of_those_words_still_passes(text: str) -> None:
    said, fallbacks = engine_statement(text)
    assert said == " ".join(text.split()) and not fallbacks, fallbacks
    action, error = validate(json.dumps({"statement": text}), "statement", INFO)
    assert error is None and action is not None


def test_the_heuristic_and_random_seats_speech_is_never_a_placeholder(tmp_path: Path) -> None:
    for lineup, seed in [("heuristic", s) for s in range(6)] + [("random", s) for s in range(3)]:
        folder = tmp_path / f"{lineup}{seed}"
        play_game_sync({"num_players": 7}, lineup, seed, log_dir=folder)
        for record in read_log(next(folder.glob("*.ndjson"))):
            data = record.get("data") or {}
            if record["type"] == "action" and data.get("kind") == "statement":
                assert not any("used silence" in f for f in data.get("fallbacks", [])), data


@pytest.mark.skipif(not (DEFAULT_CORPUS / "games.jsonl").exists(), reason="needs the shared transcript corpus")
def test_real_transcript_speech_is_never_a_placeholder() -> None:
    flagged = []
    texts = [str(e.get("text") or "") for game in load_all_games() for e in game.get("events", [])]
    texts = [t for t in texts if t.strip()]
    assert len(texts) > 1000
    for text in texts:
        _, error = validate(json.dumps({"statement": text}), "statement", INFO)
        if error is not None and "statement:" in error:
            flagged.append((text, error))
    assert not flagged, flagged[:5]


WORDS = st.sampled_from(
    "Alice Bob Carol Dave seer doctor werewolf villager trust vote suspect lying quiet night protected "
    "checked innocent accuse defend".split()
)
QUOTED = st.sampled_from(
    ["what you say", "to everyone", "in your own words", "one public statement", "you have the floor"]
)


@settings(max_examples=200, deadline=None)
@given(before=st.lists(WORDS, min_size=1, max_size=4), quoted=QUOTED, after=st.lists(WORDS, max_size=4))
def test_speech_with_a_quoted_phrase_and_words_of_its_own_passes(
    before: list[str], quoted: str, after: list[str]
) -> None:
    text = " ".join([*before, quoted, *after])
    assert engine_statement(text) == (text, [])


def test_the_llm_seat_asks_again_then_the_game_plays_silence(tmp_path: Path) -> None:
    """Over HTTP: a model that answers every statement turn with the answer line's wording."""

    def copy_the_instructions(prompt: str) -> Any:
        answer = scripted_answer(prompt)
        if "statement" in answer:
            answer = {**answer, "statement": "What you say to everyone, in your own words"}
        return answer

    with FakeOpenAIServer(answer=copy_the_instructions) as server:
        lineup = {"default": {"kind": "llm", "model": "fake", "base_url": server.base_url}}
        play_game_sync({"num_players": 5, "max_rounds": 1, "max_debate_turns": 2}, lineup, 1, log_dir=tmp_path)
    records = read_log(next(tmp_path.glob("*.ndjson")))
    calls = [
        r["data"]
        for r in records
        if r["type"] == "agent_record" and r["data"]["type"] == "llm_call" and r["data"]["action_kind"] == "statement"
    ]
    assert calls and {c["attempt"] for c in calls} == {"answer", "repair"}
    assert all(c["error"] and "own" in c["error"] for c in calls), [c["error"] for c in calls]
    spoken = [r["data"] for r in records if r["type"] == "action" and r["data"]["kind"] == "statement"]
    assert spoken and all(a["parsed"]["statement"] == "" and a["fallbacks"] for a in spoken)
    assert not [r for r in records if r["type"] == "statement"]
