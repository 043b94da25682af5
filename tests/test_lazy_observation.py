"""Observations are made when read, and show what was true when they were made (``observation.Observation``)."""

from __future__ import annotations

import copy
import json
import pickle

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from werewolf_deception.agents import HeuristicAgent, RandomAgent
from werewolf_env import raw_env
from werewolf_env.observe.build import ObservationRenderer
from werewolf_env.observe.observation import Observation


def _fresh(env: raw_env, agent: str) -> dict[str, object]:
    """What a new renderer shows ``agent`` now: the reference for cached and lazy observations."""
    state = env.game.state  # type: ignore[union-attr]
    seat = env.agent_name_mapping[agent]
    turn = next((t for t in state.pending if t.player == seat), None)
    legal = env.game.legal_targets(turn) if turn is not None else []  # type: ignore[union-attr]
    return {
        "observation": ObservationRenderer(state).vector(seat, turn, legal),
        "text": ObservationRenderer(state).text(seat, turn, legal),
    }


def _same(a: dict[str, object], b: dict[str, object]) -> bool:
    return a["text"] == b["text"] and np.array_equal(a["observation"], b["observation"])  # type: ignore[arg-type]


@settings(max_examples=12, deadline=None)
@given(seed=st.integers(0, 10**6), analysis=st.sampled_from(["off", "full"]), heuristic=st.booleans())
def test_an_observation_read_late_shows_what_was_true_when_it_was_made(
    seed: int, analysis: str, heuristic: bool
) -> None:
    """Kept unread while the game goes on (as in a replay buffer), every observation reads as a fresh renderer
    showed it at its step; parts read at once and parts read late agree."""
    env = raw_env(num_players=8, analysis=analysis, info_events=heuristic)
    env.reset(seed=seed)
    policies = [(HeuristicAgent if heuristic else RandomAgent)(seed * 10 + seat) for seat in range(8)]
    kept: list[tuple[Observation, dict[str, object]]] = []
    for step, agent in enumerate(env.agent_iter(max_iter=400)):
        obs, _, termination, truncation, info = env.last()
        assert isinstance(obs, Observation)
        if step % 7 == 0:
            kept.append((obs, _fresh(env, agent)))
        if step % 5 == 0:  # every seat's, as the parallel env makes them, some twice at one moment
            for other in env.agents[step % 3 :: 2]:
                kept.append((env.observe(other), _fresh(env, other)))
                if step % 10 == 0:
                    env.observe(other)["text"]
        if step % 11 == 0:
            obs["text"]  # one part read now, the other later
        if termination or truncation:
            env.step(None)
            continue
        env.step(policies[env.agent_name_mapping[agent]].act(obs, info))
    assert len(kept) > 10
    for obs, reference in reversed(kept):  # newest first: older ones are then read after newer ones
        assert _same(obs, reference)


def test_it_is_a_dict_for_every_reader() -> None:
    env = raw_env(num_players=6)
    env.reset(seed=3)
    obs = env.observe(env.agent_selection)
    made = {"observation": obs["observation"], "text": obs["text"]}
    assert isinstance(obs, dict) and list(obs) == ["observation", "text"] and len(obs) == 2
    assert "text" in obs and "other" not in obs and obs.get("other", 1) == 1
    for other in (
        env.observe(env.agent_selection),
        dict(env.observe(env.agent_selection)),
        {**env.observe(env.agent_selection)},
        copy.copy(obs),
        copy.deepcopy(obs),
        pickle.loads(pickle.dumps(obs)),
    ):
        assert type(other) in (dict, Observation)
        assert _same(other, made)
        assert set(other) == {"observation", "text"}
    assert json.loads(json.dumps({k: v for k, v in obs.items() if k == "text"})) == {"text": made["text"]}
    assert [k for k, _ in obs.items()] == ["observation", "text"]
    assert env.observation_space(env.agent_selection).contains(env.observe(env.agent_selection))


def test_parts_are_made_on_first_read_only() -> None:
    made: list[str] = []
    obs = Observation({"a": lambda: made.append("a") or 1, "b": lambda: made.append("b") or 2})
    assert made == [] and "a" in obs and list(obs.keys()) == ["a", "b"]
    assert obs["b"] == 2 and obs["b"] == 2 and made == ["b"]
    assert obs.get("a") == 1 and made == ["b", "a"]
    assert obs.pop("a") == 1 and list(obs) == ["b"]
    with pytest.raises(KeyError):
        obs["a"]
    assert obs.get("a", "gone") == "gone" and "a" not in obs  # a removed part is not made again
    obs2 = Observation({"x": lambda: made.append("x") or 5})
    del obs2["x"]
    assert obs2.get("x") is None and "x" not in obs2 and "x" not in made
    obs["c"] = 3
    assert obs == {"b": 2, "c": 3} and obs.setdefault("c", 9) == 3
