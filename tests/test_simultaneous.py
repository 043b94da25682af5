"""Simultaneous groups: asking a whole group at once gives exactly the sequential result."""

from __future__ import annotations

import hashlib
import json
from typing import Any

import numpy as np
import pytest

import werewolf_env
from werewolf_env.core.state import ActionKind


def deterministic_answer(obs: dict[str, Any], info: dict[str, Any]) -> dict[str, Any]:
    """A policy that depends only on what it is shown (so any change in the observation shows)."""
    digest = int(hashlib.sha256((obs["text"] + json.dumps(info, sort_keys=True)).encode()).hexdigest(), 16)
    legal = info.get("legal_targets") or []
    kind = info["action_kind"]
    if kind in ("eliminate", "protect", "unmask"):
        return {"target": legal[digest % len(legal)]}
    if kind == "vote":
        return {"vote": legal[digest % len(legal)] if digest % 3 else None}
    if kind == "bid":
        return {"bid": digest % 11}
    if kind == "statement":
        return {"statement": f"{legal[digest % len(legal)]} is a werewolf." if legal else "Hm."}
    if kind in ("self_analysis", "peer_analysis"):
        return {
            "is_deceptive": bool(digest % 2),
            "confidence": (digest % 100) / 100,
            "deception_type": "none",
            "suspicion": (digest % 97) / 96,
        }
    return {"summary": "done"}


def sequential(seed: int, **config: Any) -> list[dict[str, Any]]:
    env = werewolf_env.raw_env(**config)
    env.reset(seed=seed)
    for _agent in env.agent_iter():
        obs, _r, term, trunc, info = env.last()
        env.step(None if term or trunc else deterministic_answer(obs, info))
    return [e.to_json() for e in env.game.state.events]


def grouped(seed: int, **config: Any) -> tuple[list[dict[str, Any]], int]:
    """Ask every member of each group from the observations at the group's start, then step in order."""
    env = werewolf_env.raw_env(**config)
    env.reset(seed=seed)
    groups = 0
    while env.agents:
        members = env.simultaneous_agents()
        if not members:  # game over: retire the agents
            env.step(None)
            continue
        groups += 1
        asked = {a: (env.observe(a), dict(env.infos[a])) for a in members}
        answers = {a: deterministic_answer(*asked[a]) for a in members}
        for agent in members:
            assert env.agent_selection == agent, "the group order is the stepping order"
            obs_now = env.observe(agent)
            assert obs_now["text"] == asked[agent][0]["text"], f"{agent}'s text changed within its group"
            assert np.array_equal(obs_now["observation"], asked[agent][0]["observation"])
            assert env.infos[agent]["action_kind"] == asked[agent][1]["action_kind"]
            env.step(answers[agent])
    return [e.to_json() for e in env.game.state.events], groups


@pytest.mark.parametrize(
    "config",
    [
        {},
        {"num_players": 12, "num_werewolves": 3, "num_doctors": 2},
        {"num_players": 5, "num_werewolves": 1, "analysis": "self"},
    ],
)
def test_group_answers_equal_sequential_answers(config: dict[str, Any]) -> None:
    for seed in range(5):
        seq = sequential(seed, **config)
        grp, groups = grouped(seed, **config)
        assert seq == grp
        assert groups < sum(1 for e in seq if e["type"] == "action"), "groups must batch several turns"


def test_group_kinds() -> None:
    env = werewolf_env.raw_env()
    env.reset(seed=0)
    seen: dict[str, set[frozenset[str]]] = {}
    while env.agents and env.game is not None and not env.game.over:
        members = env.simultaneous_agents()
        kinds = frozenset(env.expected_action(a) for a in members)
        seen.setdefault(",".join(sorted(kinds)), set()).add(frozenset(members))
        for _agent in members:
            obs, _r, _t, _tr, info = env.last()
            env.step(deterministic_answer(obs, info))
    assert "eliminate,protect,unmask" in seen or "eliminate,unmask" in seen or "eliminate,protect" in seen
    assert "bid" in seen and "statement" in seen and "vote" in seen
    assert "peer_analysis,self_analysis" in seen
    assert ActionKind.SUMMARY.value in seen
