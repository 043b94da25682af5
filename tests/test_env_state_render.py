"""``state()`` / ``state_space`` (privileged, never in an observation) and rendering, for both APIs."""

from __future__ import annotations

import contextlib
import io
import json
from typing import Any

import numpy as np
import pytest
from gymnasium import spaces
from pettingzoo.test import render_test
from pettingzoo.test.state_test import state_test

import werewolf_env
from tests.helpers import STANDARD_ROLES, WI, H, W
from tests.test_hygiene import role_blind_answer, swapped
from werewolf_env.core.config import Role
from werewolf_env.core.roles import MAX_ROLES
from werewolf_env.core.state import ACTION_KINDS
from werewolf_env.envs.parallel_state import NUM_KINDS, STATE_LAYOUT, STATE_SIZE, STATE_SLICES

WITCH_HUNTER = {"role_counts": {"werewolf": 2, "seer": 1, "doctor": 1, "witch": 1, "hunter": 1}}
MAXP = werewolf_env.MAX_PLAYERS


@pytest.mark.parametrize("config", [{}, WITCH_HUNTER, {"num_players": 12, "num_werewolves": 3}])
def test_pettingzoo_state_test(config: dict[str, Any]) -> None:
    state_test(werewolf_env.env(**config), werewolf_env.parallel_env(**config), num_cycles=200)


def test_layout_is_fixed_and_documented() -> None:
    assert sum(size for _name, size in STATE_LAYOUT) == STATE_SIZE
    assert len({name for name, _ in STATE_LAYOUT}) == len(STATE_LAYOUT)
    for env in (werewolf_env.raw_env(), werewolf_env.parallel_env(num_players=5, num_werewolves=1)):
        assert isinstance(env.state_space, spaces.Box) and env.state_space.shape == (STATE_SIZE,)
    doc = werewolf_env.envs.parallel_state.__doc__ or ""
    for name, _size in STATE_LAYOUT:
        assert f"``{name}``" in doc, name


def decode(vec: np.ndarray, block: str) -> np.ndarray:
    start, stop = STATE_SLICES[block]
    return vec[start:stop]


SEED = 3  # a game with a heal, debates and votes (the answers are seeded)


@pytest.mark.parametrize("parallel", [False, True])
def test_state_matches_the_game_on_every_step(parallel: bool) -> None:
    config = {**WITCH_HUNTER, "reveal_role_on_death": True}
    env: Any = werewolf_env.parallel_env(**config) if parallel else werewolf_env.raw_env(**config)
    env.reset(seed=SEED)
    rng = np.random.default_rng(SEED)
    for i, agent in enumerate(env.possible_agents):
        env.action_space(agent).seed(i)
    seen_kinds: set[str] = set()
    while True:
        state = env.game.state
        vec = env.state()
        assert env.state_space.contains(vec) and vec.dtype == np.float32
        roles = decode(vec, "roles").reshape(MAXP, MAX_ROLES)
        assert [int(np.argmax(row)) for row in roles[:8]] == [r.index for r in state.roles]
        assert not roles[8:].any() and roles.sum() == 8
        assert decode(vec, "alive")[:8].tolist() == [float(a) for a in state.alive]
        assert decode(vec, "present").sum() == 8
        assert set(np.flatnonzero(decode(vec, "revealed"))) == set(state.revealed)
        pending = decode(vec, "pending").reshape(MAXP, NUM_KINDS)
        assert {(int(p), ACTION_KINDS[int(k)]) for p, k in zip(*np.nonzero(pending), strict=True)} == {
            (t.player, t.kind) for t in state.pending
        }
        scores = decode(vec, "suspicion").reshape(MAXP, MAXP)[:8, :8]
        expected = np.clip(state.suspicion, 0, 1).astype(np.float32)
        np.fill_diagonal(expected, 0.0)
        assert np.allclose(scores, expected)
        seen_kinds |= {t.kind.value for t in state.pending}
        if state.over:
            assert decode(vec, "over")[0] == 1.0 and decode(vec, "winner").sum() == (state.winner is not None)
            break
        assert decode(vec, "over")[0] == 0.0
        if parallel:
            env.step(
                {
                    a: env.action_space(a).sample() if rng.random() < 0.2 else _legal(env, a)
                    for a in env.simultaneous_agents()
                }
            )
        else:
            agent = env.agent_selection
            env.step(env.action_space(agent).sample() if rng.random() < 0.2 else _legal(env, agent))
    assert {"heal", "vote", "peer_analysis"} <= seen_kinds


def _legal(env: Any, agent: str) -> dict[str, Any]:
    from werewolf_deception.agents import RandomAgent

    return RandomAgent(len(env.game.state.events)).act({}, env.infos[agent])


def test_state_potions_and_night_target() -> None:
    roles = (W, W, Role.SEER, Role.DOCTOR, WI, H, Role.VILLAGER, Role.VILLAGER)
    env = werewolf_env.parallel_env(
        roles=roles, role_counts={"werewolf": 2, "seer": 1, "doctor": 1, "witch": 1, "hunter": 1}
    )
    env.reset(seed=0)
    assert decode(env.state(), "potions")[8:10].tolist() == [1.0, 1.0]  # Emma (seat 4): both potions
    env.step({"player_0": {"target": "Grace"}, "player_1": {"target": "Grace"}})
    assert env.simultaneous_agents() == ["player_4"]  # the witch is told the victim
    assert np.flatnonzero(decode(env.state(), "night_target")).tolist() == [6]
    env.step({"player_4": {"target": "Grace"}})  # heal
    env.step({"player_4": {"target": None}})  # no poison; the night is resolved
    assert decode(env.state(), "potions")[8:10].tolist() == [0.0, 1.0]
    assert decode(env.state(), "alive")[6] == 1.0


def parallel_viewer_trace(roles: tuple[Role, ...], viewer: int, rounds: int) -> tuple[list[tuple[str, ...]], list[str]]:
    """What ``viewer`` holds after each parallel step (when it changed), and the global states."""
    env = werewolf_env.parallel_env(
        num_players=8, roles=roles, max_rounds=rounds, num_werewolves=roles.count(W), info_events=True
    )
    observations, infos = env.reset(seed=7)
    names = env.game.state.names
    trace: list[tuple[str, ...]] = []
    states = []
    agent = f"player_{viewer}"
    while True:
        states.append(env.state().tobytes().hex())
        if agent in observations:
            seen = observations[agent]
            view = (
                seen["text"],
                np.asarray(seen["observation"]).tobytes().hex(),
                json.dumps(infos[agent], sort_keys=True),
            )
            if not trace or trace[-1] != view:
                trace.append(view)
        if not env.agents:
            break
        state = env.game.state
        actions = {
            a: role_blind_answer(
                env.game.pending_turn(env.agent_name_mapping[a]).kind, env.agent_name_mapping[a], state.round, names
            )
            for a in env.simultaneous_agents()
        }
        observations, _r, _t, _tr, infos = env.step(actions)
    return trace, states


@pytest.mark.parametrize(("viewer", "a", "b"), [(4, 2, 6), (4, 1, 6), (4, 3, 5), (0, 2, 3)])
def test_state_reveals_what_no_observation_does(viewer: int, a: int, b: int) -> None:
    """Swapping two hidden roles leaves a third seat's parallel observations and infos byte-identical
    (as ``tests/test_hygiene.py`` checks for the AEC env), while ``state()`` shows the swap."""
    first, states_first = parallel_viewer_trace(STANDARD_ROLES, viewer, 2)
    second, states_second = parallel_viewer_trace(swapped(STANDARD_ROLES, a, b), viewer, 2)
    assert len(first) == len(second) > 5
    for i, (x, y) in enumerate(zip(first, second, strict=True)):
        assert x == y, f"step {i}: the viewer's observation reveals the swap"
    assert states_first[0] != states_second[0]  # the roles block differs from the start
    roles_first = np.frombuffer(bytes.fromhex(states_first[0]), np.float32)
    start, stop = STATE_SLICES["roles"]
    assert not np.array_equal(
        roles_first[start:stop], np.frombuffer(bytes.fromhex(states_second[0]), np.float32)[start:stop]
    )


def test_state_is_not_an_observation() -> None:
    env = werewolf_env.parallel_env()
    observations, _infos = env.reset(seed=0)
    vec = env.state()
    for obs in observations.values():
        assert obs["observation"].shape != vec.shape
        assert set(obs) == {"observation", "text"}


# ---------------------------------------------------------------------- rendering


def test_pettingzoo_render_test() -> None:
    with contextlib.redirect_stdout(io.StringIO()):
        render_test(werewolf_env.env)
        render_test(lambda render_mode: werewolf_env.env(render_mode=render_mode, **WITCH_HUNTER))


@pytest.mark.parametrize("parallel", [False, True])
def test_human_prints_the_public_transcript_once_and_ansi_returns_it(parallel: bool) -> None:
    def play(mode: str) -> tuple[Any, str]:
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            if parallel:
                env: Any = werewolf_env.parallel_env(render_mode=mode)
                env.reset(seed=2)
                first = env.render()  # right after reset: the opening lines
                assert first is None if mode == "human" else first == env.render()
                while env.agents:
                    env.step({a: _legal(env, a) for a in env.simultaneous_agents()})
            else:
                env = werewolf_env.env(render_mode=mode)
                env.reset(seed=2)
                for agent in env.agent_iter():
                    _o, _r, term, trunc, _i = env.last()
                    env.step(None if term or trunc else _legal(env.unwrapped, agent))
            result = env.render()
        return result, out.getvalue()

    human_result, printed = play("human")
    text, nothing = play("ansi")
    assert human_result is None and nothing == ""
    assert isinstance(text, str) and "The game begins" in text and "[hidden]" not in text
    assert printed == text + "\n"  # every line printed once, in order, as the game went
    assert werewolf_env.raw_env(render_mode="ansi").render() == ""  # before reset
    assert werewolf_env.parallel_env().render() is None  # no render mode
