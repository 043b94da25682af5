"""Caches added for speed give exactly what reading afresh gives.

``ClaimExtractor.scan`` remembers a statement read without looking at the public context (the roles known
to all, the roles claimed before) by its text and speaker alone: whatever the context of a later call, the
answer must be that of a fresh read with that context.
"""

from __future__ import annotations

import itertools

from werewolf_deception.agents import HeuristicAgent, RandomAgent
from werewolf_env import GameConfig
from werewolf_env.claims.text import ClaimExtractor
from werewolf_env.envs.aec import raw_env

NAMES = ("Alice", "Bob", "Carol", "Dave", "Eve", "Frank")
CONTEXTS: list[tuple[tuple[tuple[str, int], ...], tuple[tuple[int, str], ...]]] = [
    ((), ()),
    ((("doctor", 1),), ()),
    ((), ((1, "seer"), (2, "doctor"))),
    ((("seer", 2), ("doctor", 3)), ((1, "doctor"), (4, "seer"))),
]
HANDWRITTEN = [
    "I am the seer.",
    "Bob is a werewolf.",
    "Carol is innocent.",
    "I checked Dave, a werewolf.",
    "The doctor died last night.",
    "Our late seer was right about Eve.",
    "We should keep an eye on the doctor.",
    "Bob is lying.",
    "Bob is lying, he is no seer.",
    "Alice's claim is false.",
    "That is false, Bob.",
    "Bob, that's impossible.",
    "You can't have investigated anyone, Carol.",
    "I retract my seer claim.",
    "The seer is gone, so the wolves are Bob and Eve.",
    "If Bob is the seer, Carol is a wolf.",
    "I think Frank is a wolf. He is lying about the doctor.",
    "Nothing to say today.",
]


def _game_statements(policy: type, seeds: range) -> list[str]:
    """Statements policies make in real games (names of the default config)."""
    env = raw_env(num_players=6, analysis="off", info_events=True)
    texts = []
    for seed in seeds:
        env.reset(seed=seed)
        agents = [policy(seat) for seat in range(6)]
        for agent in env.agent_iter():
            obs, _reward, termination, truncation, info = env.last()
            env.step(None if termination or truncation else agents[env.agent_name_mapping[agent]].act(obs, info))
        assert env.game is not None
        texts += [st.text for st in env.game.state.statements]
    return texts


def _check(names: tuple[str, ...], texts: list[str]) -> int:
    """Every text, speaker and context through one shared extractor, in an order that mixes contexts, against a
    fresh extractor each time; returns how many reads looked at the context."""
    shared = ClaimExtractor(names)
    used = 0
    for text, speaker, (known, claimed) in itertools.product(texts, (0, 1, 3), CONTEXTS):
        (claims, mentioned), context_used = ClaimExtractor(names)._scan(text, speaker, known, claimed)
        used += context_used
        assert shared.scan(text, speaker, known, claimed) == (claims, mentioned), (text, speaker, known, claimed)
    for text, speaker, (known, claimed) in itertools.product(texts, (0, 1, 3), reversed(CONTEXTS)):
        (claims, mentioned), _ = ClaimExtractor(names)._scan(text, speaker, known, claimed)
        assert shared.scan(text, speaker, known, claimed) == (claims, mentioned), (text, speaker, known, claimed)
    return used


def test_statements_read_without_context_are_remembered_by_text_and_speaker() -> None:
    assert _check(NAMES, HANDWRITTEN) > 0  # some of them do read the context: both memos are exercised


def test_policies_statements_read_alike_from_the_memo() -> None:
    names = GameConfig(num_players=6).player_names()
    texts = list(dict.fromkeys(_game_statements(RandomAgent, range(3)) + _game_statements(HeuristicAgent, range(6))))
    assert texts
    _check(names, texts)


def test_the_context_is_worked_out_only_when_the_reading_needs_it() -> None:
    extractor = ClaimExtractor(NAMES)
    asked = []

    def context() -> tuple[tuple[tuple[str, int], ...], tuple[tuple[int, str], ...]]:
        asked.append(1)
        return (), ((1, "seer"),)

    first = extractor.scan_with("Carol is a werewolf.", 0, context)
    again = extractor.scan_with("Carol is a werewolf.", 0, context)
    assert first == again and len(asked) == 1  # read once; remembered without its context
    lying = extractor.scan_with("Bob is lying.", 0, context)
    assert [(c["player"], c["role"], c["negated"]) for c in lying[0]] == [(1, "seer", True)]
    other = extractor.scan("Bob is lying.", 0, (), ((1, "doctor"),))
    assert [(c["player"], c["role"], c["negated"]) for c in other[0]] == [(1, "doctor", True)]


class _EventsAfresh(raw_env):
    """``info["events"]`` as it was built before each event was serialised once for all seats."""

    def _new_events(self, seat: int) -> list[dict[str, object]]:
        import json

        from werewolf_env.core.visibility import visible
        from werewolf_env.engine.log import dumps
        from werewolf_env.envs.base import seat_form

        events = self._game().state.events
        given = self._events_given[seat]
        new = []
        for event in events[self._event_cursor[seat] :]:
            if visible(event, seat):
                record = event.to_json()
                record["seq"] = given
                given += 1
                new.append(seat_form(json.loads(dumps(record))))
        self._event_cursor[seat] = len(events)
        self._events_given[seat] = given
        return new


def test_info_events_serialised_once_equal_each_seats_own_serialisation() -> None:
    """Same games, same policies: every seat's ``info["events"]`` equals the per-seat serialisation, at every step
    (an event changed after it was emitted would show here)."""
    for seed, kinds in itertools.product(range(3), ({}, {"werewolf": 2, "seer": 1, "witch": 1, "hunter": 1})):
        config = GameConfig(num_players=8, role_counts=kinds or None, vote_polls="after_statement")
        envs = [cls(config=config, info_events=True) for cls in (raw_env, _EventsAfresh)]
        policies = [[HeuristicAgent(seed * 10 + s) for s in range(8)] for _ in envs]
        for env in envs:
            env.reset(seed=seed)
        while envs[0].agents:
            agent = envs[0].agent_selection
            assert envs[1].agent_selection == agent
            assert envs[0].infos == envs[1].infos
            _, _, termination, truncation, _ = envs[0].last()
            for env, seats in zip(envs, policies, strict=True):
                policy = seats[env.agent_name_mapping[agent]]
                env.step(None if termination or truncation else policy.act({}, env.infos[agent]))
        assert envs[0].infos == envs[1].infos
