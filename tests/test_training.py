"""``LearnerSeats`` (one learning seat among agents) and the RLlib PPO example as a smoke test."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np

import werewolf_env
from werewolf_deception.agents.training.learner_seats import LearnerSeats
from werewolf_env.engine.log import read_log, replay
from werewolf_env.wrappers import DiscreteActions


def test_only_learner_turns_are_exposed_and_games_finish(tmp_path: Path) -> None:
    env = LearnerSeats({"num_players": 6}, learners=["player_0", "player_3"], log_dir=tmp_path)
    faces = DiscreteActions(env.raw)  # the wrapper's view of the same table: the learners see the same
    rng = np.random.default_rng(0)
    for seed in range(6):
        env.reset(seed=seed)
        final: dict[str, float] = {}
        for agent in env.agent_iter():
            obs, reward, termination, truncation, _ = env.last()
            assert agent in ("player_0", "player_3")
            assert obs["observations"].shape == env.observation_space(agent)["observations"].shape
            expected = faces.observe(agent)
            assert np.array_equal(obs["observations"], expected["observation"])
            assert np.array_equal(obs["action_mask"], expected["action_mask"].astype(np.float32))
            if termination or truncation:
                final[agent] = reward  # the team's reward, seen once the game is over
                env.step(None)
                continue
            legal = np.flatnonzero(obs["action_mask"])
            assert legal.size > 0  # a learner is only asked when it has a turn
            env.step(int(rng.choice(legal)))
        game = env.raw.game
        assert game.over
        rewards = dict(zip(env.raw.possible_agents, game.rewards(), strict=True))
        assert final == {a: rewards[a] for a in ("player_0", "player_3")}
    logs = sorted(tmp_path.glob("*.ndjson"))
    assert logs and all(replay(p).ok for p in logs)
    actors = {r["actor"] for r in read_log(logs[0]) if r["type"] == "action"}
    assert actors - {0, 3}  # the other seats acted through the env like any policy


def test_games_without_a_learner_turn_are_skipped() -> None:
    env = LearnerSeats({"num_players": 8}, learners=["player_0"])
    for seed in range(40):
        env.reset(seed=seed)
        assert not env.raw.game.over
        obs = env.observe(env.agent_selection)
        assert obs["action_mask"].any()


def test_discrete_analyses_state_the_probability_of_deception() -> None:
    """Peer index k: suspicion and confidence (P(deceptive)) k/10, flagged from 6 up; self: 0.2 honest, 0.8 not."""
    env = DiscreteActions(werewolf_env.raw_env(info_events=True))
    env.reset(seed=3)
    seen: set[str] = set()
    for agent in env.agent_iter():
        obs, _r, term, trunc, info = env.last()
        kind = info.get("action_kind")
        if kind == "peer_analysis" and kind not in seen:
            answers = [env.decode(agent, k) for k in range(11)]
            assert [a["confidence"] for a in answers] == [k / 10 for k in range(11)]
            assert [a["is_deceptive"] for a in answers] == [k >= 6 for k in range(11)]
            seen.add(kind)
        if kind == "self_analysis" and kind not in seen:
            assert [env.decode(agent, k)["confidence"] for k in range(5)] == [0.2, 0.8, 0.8, 0.8, 0.8]
            seen.add(kind)
        env.step(None if term or trunc else env.action_space(agent).sample(obs["action_mask"]))
    assert seen == {"peer_analysis", "self_analysis"}


def test_rllib_ppo_example_smoke(tmp_path: Path) -> None:
    """One tiny PPO iteration through RLlib's PettingZoo wrapper (the 'rllib' extra; CI installs it)."""
    try:
        import ray.rllib  # noqa: F401
        import torch  # noqa: F401
    except ImportError:  # .ci/run runs it again with every extra installed, where a skip fails the run
        import pytest

        pytest.skip("the 'rllib' extra (ray[rllib], torch) is not installed")
    root = Path(__file__).resolve().parents[1]
    done = subprocess.run(
        [sys.executable, "examples/rllib_ppo.py", "--iterations", "1", "--batch", "128", "--out", str(tmp_path)],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    curve = json.loads((tmp_path / "learning_curve.json").read_text())
    assert curve[0]["iteration"] == 1 and curve[0]["env_steps"] >= 128
