"""``ParallelDiscreteActions`` (always) and, with the 'rl' extra installed, TorchRL's wrapper and the
``examples/torchrl_ppo.py`` smoke path (skipped without torchrl, except in CI, which installs it)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from pettingzoo.test import parallel_api_test, parallel_seed_test

import werewolf_env
from werewolf_env.actions.specs import ACTION_SPECS, TARGET_KEYS
from werewolf_env.core.config import MAX_PLAYERS
from werewolf_env.core.state import ACTION_KINDS
from werewolf_env.envs.parallel import NO_ACTION
from werewolf_env.wrappers import (
    NOOP,
    DiscreteActions,
    ParallelDiscreteActions,
    ParallelDiscreteEnv,
    parallel_discrete_env,
)

WITCH_HUNTER: dict[str, Any] = {"role_counts": {"werewolf": 2, "seer": 1, "doctor": 1, "witch": 1, "hunter": 1}}
CONFIGS: dict[str, dict[str, Any]] = {
    "default": {},
    "witch_hunter": WITCH_HUNTER,
    "six_self": {"num_players": 6, "num_werewolves": 1, "max_debate_turns": 3, "analysis": "self"},
    "text_info": {"numeric_info": False},
}


@pytest.mark.parametrize("name", list(CONFIGS))
def test_parallel_api_test(name: str) -> None:
    env = parallel_discrete_env(**CONFIGS[name])
    assert isinstance(env, (ParallelDiscreteActions, ParallelDiscreteEnv))
    parallel_api_test(env, num_cycles=1000)


def test_parallel_seed_test() -> None:
    parallel_seed_test(lambda: parallel_discrete_env(**WITCH_HUNTER), num_cycles=1000)


def play_masked_random(env: ParallelDiscreteActions, seed: int) -> tuple[int, dict[str, float]]:
    """One game of uniformly random masked actions, checking every mask on the way; returns (steps, rewards)."""
    rng = np.random.default_rng(seed)
    observations, infos = env.reset(seed=seed)
    steps = 0
    rewards: dict[str, float] = {}
    while env.agents:
        group = env.unwrapped.simultaneous_agents()
        actions = {}
        for agent in env.agents:
            obs, info = observations[agent], infos[agent]
            mask = obs["action_mask"]
            assert obs["observation"].shape == (werewolf_env.observe.build.OBS_SIZE,)
            assert env.observation_space(agent).contains(obs)
            if agent not in group:  # idle or dead: only the no-op
                assert info["action_kind"] == NO_ACTION
                assert np.flatnonzero(mask).tolist() == [NOOP]
            else:
                kind = ACTION_KINDS[info["action_kind"]]
                legal = np.flatnonzero(mask)
                assert legal.size > 0
                if kind in TARGET_KEYS:  # seats named by the mask = the env's legal targets (+ null if allowed)
                    seats = set(legal[legal < MAX_PLAYERS].tolist())
                    assert seats == set(np.flatnonzero(info["legal_targets"]).tolist())
                    assert (MAX_PLAYERS in legal) == ACTION_SPECS[kind].null_ok
                    assert legal.max() <= MAX_PLAYERS
            actions[agent] = int(rng.choice(np.flatnonzero(mask)))
        observations, step_rewards, _term, _trunc, infos = env.step(actions)
        steps += 1
        # Masked answers are legal answers: never a fallback.
        assert all(info["fallbacks"] == 0 for info in infos.values()), infos
        rewards.update(step_rewards)
    return steps, rewards


@pytest.mark.parametrize("name", ["default", "witch_hunter", "six_self"])
def test_masked_random_play_needs_no_fallback(name: str) -> None:
    env = parallel_discrete_env(**CONFIGS[name])
    for seed in range(12):
        steps, rewards = play_masked_random(env, seed)
        game = env.unwrapped.game
        assert game.over and steps > 0
        assert rewards == dict(zip(env.possible_agents, game.rewards(), strict=True))


def test_masks_and_decoding_match_the_aec_discrete_wrapper() -> None:
    """A seat with a turn: the same mask and the same answers as DiscreteActions on the AEC env."""
    par = parallel_discrete_env(**WITCH_HUNTER)
    aec = DiscreteActions(werewolf_env.raw_env(**WITCH_HUNTER))
    rng = np.random.default_rng(1)
    for seed in range(3):
        observations, _ = par.reset(seed=seed)
        aec.reset(seed=seed)
        while par.agents:
            actions = {}
            for agent in par.unwrapped.simultaneous_agents():  # the AEC env steps the group in this order
                assert aec.agent_selection == agent
                mask = observations[agent]["action_mask"]
                np.testing.assert_array_equal(mask, aec.observe(agent)["action_mask"])
                np.testing.assert_array_equal(observations[agent]["observation"], aec.observe(agent)["observation"])
                actions[agent] = int(rng.choice(np.flatnonzero(mask)))
                assert par.decode(agent, actions[agent]) == aec.decode(agent, actions[agent])
                aec.step(actions[agent])
            observations, *_ = par.step(actions)
        assert aec.unwrapped.game.over
        assert par.unwrapped.ground_truth() == aec.unwrapped.ground_truth()


def test_idle_seats_actions_are_ignored() -> None:
    """Whatever an idle seat sends (even a masked-out index) changes nothing."""

    def run(noise: bool) -> Any:
        env = parallel_discrete_env(num_players=6)
        rng = np.random.default_rng(5)
        observations, _ = env.reset(seed=5)
        while env.agents:
            group = env.unwrapped.simultaneous_agents()
            actions = {a: int(rng.choice(np.flatnonzero(observations[a]["action_mask"]))) for a in group}
            if noise:
                actions.update({a: 17 for a in env.agents if a not in group})
            observations, *_ = env.step(actions)
        return env.unwrapped.ground_truth()

    assert run(False) == run(True)


def test_keep_text_and_wrong_env() -> None:
    env = parallel_discrete_env(keep_text=True, numeric_info=False)
    observations, _ = env.reset(seed=0)
    assert isinstance(observations["player_0"]["text"], str)
    assert env.observation_space("player_0").contains(observations["player_0"])
    with pytest.raises(TypeError):
        ParallelDiscreteActions(werewolf_env.raw_env())


# ---------------------------------------------------------------------- TorchRL (the 'rl' extra)


def _need_torchrl() -> None:
    try:
        import tensordict  # noqa: F401
        import torchrl  # noqa: F401
    except ImportError:  # .ci/run runs it again with every extra installed, where a skip fails the run
        pytest.skip("the 'rl' extra (torchrl, tensordict) is not installed")


@pytest.mark.filterwarnings("ignore:PettingZoo in TorchRL is tested")
def test_torchrl_pettingzoo_wrapper_plays_full_games() -> None:
    _need_torchrl()
    import torch
    from torchrl.envs import PettingZooWrapper
    from torchrl.envs.utils import check_env_specs

    env = PettingZooWrapper(
        parallel_discrete_env(num_players=6),
        group_map={"seats": [f"player_{i}" for i in range(6)]},
        use_mask=True,
        categorical_actions=True,
        seed=0,
        return_state=True,
    )
    check_env_specs(env)
    torch.manual_seed(0)
    data = env.rollout(400, break_when_any_done=False)  # random actions drawn from the masked action spec
    assert data["seats", "observation", "observation"].shape[1:] == (6, werewolf_env.observe.build.OBS_SIZE)
    ended = data["next", "done"].squeeze(-1)
    assert ended.sum() >= 2
    finals = data["next", "seats", "reward"][ended].squeeze(-1)
    assert set(finals.unique().tolist()) <= {-1.0, 0.0, 1.0} and finals.abs().sum() > 0
    assert data["next", "seats", "reward"][~ended].abs().sum() == 0
    assert data["next", "seats", "info", "fallbacks"].sum() == 0  # the spec's mask keeps actions legal
    assert data["state"].shape[-1] == env.state_space.shape[0]


def test_torchrl_ppo_example_smoke() -> None:
    """examples/torchrl_ppo.py --smoke: a few frames of PPO, then 2 games against each lineup."""
    _need_torchrl()
    root = Path(__file__).resolve().parents[1]
    done = subprocess.run(
        [sys.executable, "examples/torchrl_ppo.py", "--smoke"],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    result = json.loads(done.stdout.strip().splitlines()[-1])
    assert result["train"]["frames"] >= 20
    for name in ("trained_vs_random", "trained_vs_heuristic", "random_legal_vs_random", "random_legal_vs_heuristic"):
        assert result["eval"][name]["games"] == 2
        low, high = result["eval"][name]["ci95"]
        assert 0 <= low <= result["eval"][name]["rate"] <= high <= 1
