"""Determinism: the same seed and the same policies give the same game, step by step, in both envs.

PettingZoo's ``parallel_seed_test`` stops after its first step (it applies ``any()`` to a dict of agents, which is
true at once), so passing it says little. Here whole games of the AEC env and of the Parallel env are played
twice per seed and every step is compared: who acts, the observations, rewards, terminations, truncations and
infos.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import werewolf_env
from werewolf_deception.agents import HeuristicAgent, RandomAgent

CONFIGS: dict[str, dict[str, Any]] = {
    "default": {"info_events": True},  # the heuristic agent reads the events
    "witch_hunter_reveal": {
        "role_counts": {"werewolf": 2, "seer": 1, "doctor": 1, "witch": 1, "hunter": 1},
        "reveal_role_on_death": True,
        "info_events": True,
    },
    "polls": {"vote_polls": "after_statement", "subject_suspicion": True, "info_events": True},
}
SEEDS = (0, 3)
Policy = Callable[[dict[str, Any], dict[str, Any]], Any]


def canonical(value: Any) -> Any:
    """A value as JSON-comparable data: arrays by dtype, shape and bytes (NaN-safe), mappings by sorted key."""
    if isinstance(value, np.ndarray):
        return {"dtype": str(value.dtype), "shape": list(value.shape), "bytes": value.tobytes().hex()}
    if isinstance(value, np.generic):
        return canonical(value.item())
    if isinstance(value, dict):
        return {str(k): canonical(v) for k, v in sorted(value.items(), key=lambda kv: str(kv[0]))}
    if isinstance(value, (list, tuple)):
        return [canonical(v) for v in value]
    if isinstance(value, float) and value != value:
        return "NaN"
    return value


def step_record(**parts: Any) -> str:
    return json.dumps(canonical(parts), sort_keys=True)


def seat_policies(seed: int, switch_after: int | None = None) -> Callable[[str], Policy]:
    """Per seat: a heuristic agent, with random legal answers mixed in (seeded per seat). With ``switch_after``,
    every seat's random answers use another seed from that many decisions on: a late divergence."""
    made: dict[str, Policy] = {}
    decisions = [0]

    def policy(agent: str) -> Policy:
        if agent not in made:
            seat = int(agent.split("_")[1])
            heuristic = HeuristicAgent(seed=seed * 100 + seat)
            legal, other = RandomAgent(seed * 100 + seat), RandomAgent(seed * 100 + seat + 50)
            rng = np.random.default_rng(seed * 100 + seat)

            def act(obs: dict[str, Any], info: dict[str, Any]) -> Any:
                decisions[0] += 1
                late = switch_after is not None and decisions[0] > switch_after
                answer = heuristic.act(obs, info)  # on every turn: the agent keeps its memory from the events
                return (other if late else legal).act(obs, info) if rng.random() < 0.25 else answer

            made[agent] = act
        return made[agent]

    return policy


def aec_trace(config: dict[str, Any], seed: int, policies: Callable[[str], Policy]) -> list[str]:
    env = werewolf_env.env(**config)
    env.reset(seed=seed)
    trace = []
    for agent in env.agent_iter(max_iter=100_000):
        obs, reward, term, trunc, info = env.last()
        trace.append(
            step_record(
                agent=agent,
                obs=obs,
                reward=reward,
                term=term,
                trunc=trunc,
                info=info,
                rewards=env.rewards,
                terminations=env.terminations,
            )
        )
        env.step(None if term or trunc else policies(agent)(obs, info))
    assert not env.agents, "the game did not end"
    return trace


def parallel_trace(config: dict[str, Any], seed: int, policies: Callable[[str], Policy]) -> list[str]:
    env = werewolf_env.parallel_env(**config)
    observations, infos = env.reset(seed=seed)
    trace = [step_record(observations=observations, infos=infos)]
    while env.agents:
        actions = {a: policies(a)(observations[a], infos[a]) for a in env.simultaneous_agents()}
        observations, rewards, terms, truncs, infos = env.step(actions)
        trace.append(
            step_record(
                actions=actions, observations=observations, rewards=rewards, terms=terms, truncs=truncs, infos=infos
            )
        )
        assert len(trace) < 100_000, "the game did not end"
    return trace


TRACES = {"aec": aec_trace, "parallel": parallel_trace}


def first_difference(a: list[str], b: list[str]) -> int | None:
    return next(
        (i for i, (x, y) in enumerate(zip(a, b, strict=False)) if x != y),
        None if len(a) == len(b) else min(len(a), len(b)),
    )


@pytest.mark.parametrize("kind", list(TRACES))
@pytest.mark.parametrize("name", list(CONFIGS))
def test_a_whole_game_is_the_same_step_by_step(kind: str, name: str) -> None:
    play = TRACES[kind]
    for seed in SEEDS:
        first = play(CONFIGS[name], seed, seat_policies(seed))
        again = play(CONFIGS[name], seed, seat_policies(seed))
        assert len(first) > 20, "a whole game, not its first step"
        where = first_difference(first, again)
        assert where is None, f"seed {seed}: the runs differ at step {where} of {len(first)}"


@pytest.mark.parametrize("kind", list(TRACES))
def test_the_comparison_sees_a_late_difference(kind: str) -> None:
    """The check itself: policies that change only after many decisions give traces that differ late, never at
    the first step (where PettingZoo's test stops); another seed differs at once."""
    play = TRACES[kind]
    same = play(CONFIGS["default"], 0, seat_policies(0))
    late = play(CONFIGS["default"], 0, seat_policies(0, switch_after=20))
    where = first_difference(same, late)
    assert where is not None and where > 1
    assert first_difference(same, play(CONFIGS["default"], 1, seat_policies(1))) is not None
