"""Turns asked ahead (``werewolf_deception.agents.llm.folding``, issue 19): the vote inside the day's last analyses,
the self-analysis inside the statement. One truthful outcome per turn, a call of its own whenever the answer asked
ahead is missing, invalid or stale, and the game's rules unchanged."""

from __future__ import annotations

import asyncio
import json
from collections import Counter
from typing import Any

from werewolf_deception.agents import RandomAgent, play_game_sync
from werewolf_deception.agents.fake.answers import scripted_answer
from werewolf_deception.agents.fake.server import FakeOpenAIServer
from werewolf_deception.agents.llm.agent import LLMAgent
from werewolf_deception.agents.llm.folding import is_news, living_others, own_label
from werewolf_deception.agents.llm.schemas import turn_schema
from werewolf_env import raw_env


def _game(answer: Any = None, seed: int = 2, **options: Any) -> tuple[Any, list[dict[str, Any]]]:
    with FakeOpenAIServer(answer=answer) as server:
        lineup = {"default": {"kind": "llm", "model": "fake", "base_url": server.base_url, "temperature": 0.0,
                              **options}}  # fmt: skip
        result = play_game_sync({"num_players": 8}, lineup, seed=seed, concurrency=8)
        return result, list(server.requests)


def _outcomes(result: Any) -> list[dict[str, Any]]:
    return [
        r["data"] for r in result.events if r.get("type") == "agent_record" and r["data"].get("type") == "llm_outcome"
    ]


def _turns(result: Any, kind: str) -> int:
    return sum(1 for r in result.events if r.get("type") == "action" and r["data"]["kind"] == kind)


def _asks(request: dict[str, Any], field: str) -> bool:
    return f'"{field}"' in request["messages"][-1]["content"].rsplit("Answer with exactly one JSON object:", 1)[-1]


def test_the_info_says_the_days_last_statement_as_the_game_then_plays() -> None:
    """``debate_ends`` on a statement and its analyses is true exactly when the day's next turn of the debate
    or vote is the vote (read off the turns that follow, not off the engine's counter)."""
    policies = [RandomAgent(seat) for seat in range(8)]
    seen: Counter[tuple[str, bool]] = Counter()
    for turns in (6, 2):
        env = raw_env(num_players=8, analysis="full", max_debate_turns=turns)
        for seed in range(4):
            env.reset(seed=seed)
            kinds: list[str] = []
            said: list[tuple[int, str, bool]] = []  # (step, kind, debate_ends)
            for agent in env.agent_iter():
                obs, _r, term, trunc, info = env.last()
                if term or trunc:
                    env.step(None)
                    continue
                kind, seat = info["action_kind"], env.agent_name_mapping[agent]
                assert own_label(obs["text"]) == f"{env.game.state.names[seat]} (you)"
                if kind in ("statement", "self_analysis", "peer_analysis"):
                    said.append((len(kinds), kind, info["debate_ends"]))
                    others = [env.game.state.names[p] for p in env.game.state.living() if p != seat]
                    assert living_others(obs["text"]) == others
                else:
                    assert "debate_ends" not in info
                kinds.append(kind)
                env.step(policies[seat].act(obs, info))
            for step, kind, ends in said:
                following = next((k for k in kinds[step + 1 :] if k in ("bid", "statement", "vote")), None)
                assert following is not None  # a game never ends inside the debate
                assert ends is (following == "vote"), (turns, seed, step, kind)
                seen[kind, ends] += 1
    assert set(seen) == {(k, b) for k in ("statement", "self_analysis", "peer_analysis") for b in (True, False)}


def test_a_line_is_the_seats_own_only_when_it_starts_with_its_own_label() -> None:
    own = "Hiro (you)"
    assert not is_news("You voted for Emma.", own)
    assert not is_news('Hiro (you): "I am the seer."', own)
    assert not is_news("Hiro (you) takes the floor (bid 3).", own)
    assert not is_news("", own)
    assert is_news("Alice shot Hiro (you).", own)  # names the seat, but someone else's doing
    assert is_news('Hiro (you)x: "..."', own)
    assert is_news("Emma (you) takes the floor (bid 3).", own)  # a player named "Emma (you)" is not the seat
    assert is_news("Hiro (you) takes the floor (bid 3).", None)  # no label known: everything is news


def test_votes_and_self_analyses_come_ahead_with_one_truthful_outcome_per_turn() -> None:
    result, requests = _game()
    outcomes = _outcomes(result)
    assert result.fallbacks == 0
    for kind, asked_in in (("vote", {"peer_analysis", "self_analysis", "statement"}), ("self_analysis", {"statement"})):
        mine = [o for o in outcomes if o["action_kind"] == kind]
        assert len(mine) == _turns(result, kind), "one outcome per turn"
        ahead = [o for o in mine if o.get("asked_in")]
        assert ahead and {o["asked_in"] for o in ahead} <= asked_in
        assert all(o["outcome"] == "answered" for o in mine)
    vote_calls = [
        q for q in requests if _asks(q, "vote") and not _asks(q, "is_deceptive") and not _asks(q, "statement")
    ]
    votes = [o for o in outcomes if o["action_kind"] == "vote"]
    assert len(vote_calls) == sum(1 for o in votes if not o.get("asked_in")), "a vote call only when none came ahead"
    self_calls = [
        q for q in requests if _asks(q, "is_deceptive") and not _asks(q, "statement") and not _asks(q, "suspicion")
    ]
    selfs = [o for o in outcomes if o["action_kind"] == "self_analysis"]
    assert len(self_calls) == sum(1 for o in selfs if not o.get("asked_in"))
    statements = [q for q in requests if _asks(q, "statement")]
    assert statements and all(_asks(q, "is_deceptive") for q in statements)
    # the self-analysis the log keeps is the one the model gave with its statement
    logged = [r["data"] for r in result.events if r.get("type") == "action" and r["data"]["kind"] == "self_analysis"]
    assert logged and all(
        a["parsed"]["deception_type"] in ("none", "omission", "distortion", "fabrication", "misdirection")
        for a in logged
    )


def test_turned_off_every_vote_and_self_analysis_is_its_own_call() -> None:
    result, requests = _game(vote_in_analysis=False, self_analysis_in_statement=False)
    outcomes = _outcomes(result)
    for kind in ("vote", "self_analysis"):
        mine = [o for o in outcomes if o["action_kind"] == kind]
        assert mine and not any(o.get("asked_in") for o in mine)
    assert not any(_asks(q, "vote") and _asks(q, "is_deceptive") for q in requests)
    assert not any(_asks(q, "statement") and _asks(q, "is_deceptive") for q in requests)
    assert result.fallbacks == 0


def _strip(*fields: str) -> Any:
    def answer(prompt: str) -> Any:
        given = scripted_answer(prompt)
        if "statement" in given or "is_deceptive" in given:
            for field in fields:
                if field in given and ("statement" in given or field == "vote"):
                    given.pop(field)
        return given

    return answer


def test_a_missing_vote_or_self_analysis_gets_its_own_call_never_a_default() -> None:
    result, _requests = _game(_strip("vote", "is_deceptive", "confidence", "deception_type", "reasoning"))
    outcomes = _outcomes(result)
    for kind in ("vote", "self_analysis"):
        mine = [o for o in outcomes if o["action_kind"] == kind]
        assert mine and not any(o.get("asked_in") for o in mine)
        assert all(o["outcome"] == "answered" for o in mine)
    errors = [o["ahead_errors"] for o in outcomes if o.get("ahead_errors")]
    assert {"no vote in the answer", "no self analysis in the answer"} <= {e for x in errors for e in x.values()}
    assert result.fallbacks == 0


_HEAD = (
    "== Werewolf: you are Bob (player_1) ==\n\nCARD\n\nRULES: 3 players.\nDay: up to 2 statements of at most "
    "20 words; players bid 0-10 for the floor before each.\n\nPLAYERS: Ann, Bob (you), Cy\n\n"
    "HISTORY:\n--- Day 1 ---\n"
)


def _observation(history: list[str], task: str) -> dict[str, Any]:
    task_section = f"\n\nNOW: round 1, day.\n{task}\nAnswer with exactly one JSON object: {{}}"
    return {"text": _HEAD + "\n".join(history) + task_section}


def test_a_self_analysis_is_asked_again_when_the_recorded_statement_is_not_the_one_made() -> None:
    floor = ["Ann takes the floor (bid 3).", 'Ann: "Cy lies."', "Bob (you) takes the floor (bid 9)."]
    speak = {"action_kind": "statement", "round": 1, "max_statement_words": 20, "legal_targets": ["Ann", "Cy"],
             "self_analysis_next": True}  # fmt: skip
    analyse = {"action_kind": "self_analysis", "round": 1, "legal_targets": []}

    async def go(server: FakeOpenAIServer) -> list[int]:
        agent = LLMAgent(model="fake", base_url=server.base_url, temperature=0.0)
        calls = []
        try:
            for cut in (False, True):
                said = await agent.aact(_observation(floor, "Day: you have the floor."), speak)
                assert isinstance(said, dict) and set(said) == {"statement", "notes"}, "the analysis is kept apart"
                assert "vote" in json.dumps(server.requests[-1]), "the day's last statement: its vote is asked too"
                text = said["statement"][:5] if cut else said["statement"]
                before = len(server.requests)
                seen = [*floor, f'Bob (you): "{text}"']
                action = await agent.aact(_observation(seen, f'The statement: Bob: "{text}"'), analyse)
                assert isinstance(action, dict) and "is_deceptive" in action
                calls.append(len(server.requests) - before)
        finally:
            await agent.aclose()
        return calls

    with FakeOpenAIServer() as server:
        assert asyncio.run(go(server)) == [0, 1]


def test_the_schema_asks_what_the_answer_line_asks() -> None:
    info = {"legal_targets": [], "ask_self_analysis": True, "next_vote_targets": ["Ann", "Cy"]}
    schema = turn_schema("statement", info)
    assert list(schema["properties"])[:2] == ["statement", "notes"], "the statement first, then its analysis"
    assert {"reasoning", "is_deceptive", "confidence", "deception_type", "vote"} <= set(schema["required"])
    assert schema["properties"]["vote"]["anyOf"][0]["enum"] == ["Ann", "Cy"]


def test_a_statement_asks_no_self_analysis_when_none_follows() -> None:
    with FakeOpenAIServer() as server:
        lineup = {"default": {"kind": "llm", "model": "fake", "base_url": server.base_url, "temperature": 0.0}}
        result = play_game_sync({"num_players": 8, "analysis": "peer"}, lineup, seed=2, concurrency=8)
        requests = list(server.requests)
    statements = [q for q in requests if _asks(q, "statement")]
    assert statements and not any(_asks(q, "is_deceptive") for q in statements)
    votes = [o for o in _outcomes(result) if o["action_kind"] == "vote"]
    assert {o.get("asked_in") for o in votes} >= {"peer_analysis"}, "the vote still comes with the last analyses"
    assert result.fallbacks == 0


def test_a_vote_offered_a_different_choice_than_the_turn_is_asked_again() -> None:
    """Names the players line cannot carry (a comma in a name) give the analysis a different choice than the
    vote turn's: the vote turn then asks its own call. (Names holding "(you)" or "[dead]" are refused.)"""
    names = ["Ann", "Bo, Jr", "Cy, Sr", "Di, III", "Ed", "Flo", "Gus", "Hal"]
    with FakeOpenAIServer() as server:
        lineup = {"default": {"kind": "llm", "model": "fake", "base_url": server.base_url, "temperature": 0.0}}
        result = play_game_sync({"num_players": 8, "names": names}, lineup, seed=2, concurrency=8)
    votes = [r["data"] for r in result.events if r.get("type") == "action" and r["data"]["kind"] == "vote"]
    outcomes = [o for o in _outcomes(result) if o["action_kind"] == "vote"]
    assert len(outcomes) == len(votes) and result.fallbacks == 0
    assert not any(o.get("asked_in", "").endswith("analysis") for o in outcomes), "the analyses' lists were wrong"
