"""The LLM agent checks an answer's target with the engine's resolver: both accept exactly the same spellings
(issue 33: the agent refused ``player_0``, which the engine accepts)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import werewolf_env
from werewolf_deception.agents.llm.agent import validate
from werewolf_deception.agents.policies.random_agent import RandomAgent
from werewolf_env.actions.parse import NO_TARGET_WORDS, parse
from werewolf_env.actions.specs import ACTION_SPECS
from werewolf_env.claims.model import SELF_WORDS

TARGET_KINDS = {
    spec_kind.value: (spec.target_key, spec.null_ok)
    for spec_kind, spec in ACTION_SPECS.items()
    if spec.target_key is not None
}


def _positions() -> list[tuple[Any, str]]:
    """(env, agent) pairs waiting on a target turn: the first night's roles and a later day's voters, each env
    left at its point (parse reads the live state)."""
    found: list[tuple[Any, str]] = []
    for seed, wanted in ((0, "eliminate"), (1, "protect"), (2, "unmask"), (3, "vote"), (4, "vote")):
        env = werewolf_env.env()
        env.reset(seed=seed)
        policy = RandomAgent(seed=seed)
        for _ in range(5000):
            agent = env.agent_selection
            observation, _, done, cut, info = env.last()
            if info.get("action_kind") == wanted and not (done or cut):
                found.append((env, agent))
                break
            env.step(None if done or cut else policy.act(observation, info))
    return found


POSITIONS = _positions()


def _agrees(env: Any, agent: str, spelling: str) -> None:
    info = env.infos[agent]
    kind = info["action_kind"]
    key, null_ok = TARGET_KINDS[kind]
    answer = {key: spelling}
    agent_error = validate(json.dumps(answer), kind, info)[1]
    seat = env.agent_name_mapping[agent]
    result = parse(answer, env.game.pending_turn(seat), env.game.state)
    engine_ok = not any(f.startswith(f"{key}:") for f in result.fallbacks) and (
        result.action[key] is not None or null_ok
    )
    assert (agent_error is None) == engine_ok, (kind, spelling, agent_error, result.fallbacks, result.action)


def test_positions_cover_the_target_kinds() -> None:
    kinds = {env.infos[agent]["action_kind"] for env, agent in POSITIONS}
    assert kinds == {"eliminate", "protect", "unmask", "vote"}


@pytest.mark.parametrize("index", range(5))
def test_agent_ids_are_accepted_as_the_engine_accepts_them(index: int) -> None:
    env, agent = POSITIONS[index]
    info = env.infos[agent]
    players = info["players"]
    for seat, name in enumerate(players):
        for spelling in (f"player_{seat}", f"Player_{seat}", name, name.upper(), f"  {name} "):
            _agrees(env, agent, spelling)
        legal = name in info["legal_targets"]
        key = TARGET_KINDS[info["action_kind"]][0]
        assert (validate(json.dumps({key: f"player_{seat}"}), info["action_kind"], info)[1] is None) == legal


def _spellings() -> st.SearchStrategy[str]:
    names = [name for env, agent in POSITIONS for name in env.infos[agent]["players"]]
    words = sorted(SELF_WORDS | NO_TARGET_WORDS | {"you", "player_", "player_99", "player_-1", "player_08"})
    base = st.one_of(
        st.sampled_from(names),
        st.sampled_from(words),
        st.integers(-2, 20).map(lambda i: f"player_{i}"),
        st.text(max_size=10),
    )
    case = st.sampled_from([str, str.upper, str.lower, str.title])
    pad = st.sampled_from(["", " ", "\t", "  "])
    return st.builds(lambda text, how, left, right: left + how(text) + right, base, case, pad, pad)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(index=st.integers(0, len(POSITIONS) - 1), spelling=_spellings())
def test_the_agent_and_the_engine_accept_the_same_spellings(index: int, spelling: str) -> None:
    env, agent = POSITIONS[index]
    _agrees(env, agent, spelling)


def test_an_info_without_players_is_read_by_names() -> None:
    info = {"action_kind": "vote", "legal_targets": ["Alice", "Bob"]}  # made by hand, as older callers do
    assert validate('{"vote": "alice"}', "vote", info)[1] is None
    refused = "vote: 'player_0' is not allowed; choose one of Alice, Bob"
    assert validate('{"vote": "player_0"}', "vote", info)[1] == refused
