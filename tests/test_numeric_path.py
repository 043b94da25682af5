"""The numeric path (``discrete_env``, ``parallel_discrete_env``) against the wrappers it replaces for RL.

The same seeds and integers through ``DiscreteActions(raw_env(numeric_info=True))`` and ``discrete_env()`` (and
through ``ParallelDiscreteActions(parallel_env(numeric_info=True))`` and ``parallel_discrete_env()``) must give
the same observations, masks, rewards, terminations, truncations, infos and game logs byte for byte; the
PettingZoo API tests pass on the new envs; and the numeric envs never render text.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pettingzoo.test import api_test, parallel_api_test, seed_test

import werewolf_env
from werewolf_env.wrappers import (
    DiscreteActions,
    DiscreteEnv,
    ParallelDiscreteActions,
    ParallelDiscreteEnv,
    discrete_env,
    parallel_discrete_env,
)

CONFIGS: dict[str, dict[str, Any]] = {
    "default": {},
    "five_off": {"num_players": 5, "num_werewolves": 1, "analysis": "off", "show_suspicion": False},
    "witch_hunter": {"role_counts": {"werewolf": 2, "seer": 1, "doctor": 1, "witch": 1, "hunter": 1},
                     "reveal_role_on_death": True},
    "polls_debate": {"num_players": 6, "vote_polls": "after_debate", "subject_suspicion": True},
}  # fmt: skip


def _same(a: Any, b: Any) -> bool:
    """Equal values, arrays compared by dtype and content."""
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        return isinstance(a, np.ndarray) and isinstance(b, np.ndarray) and a.dtype == b.dtype and np.array_equal(a, b)
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    return bool(type(a) is type(b) and a == b)


def _choose(rng: np.random.Generator, mask: np.ndarray, num_actions: int) -> int:
    """Mostly a legal integer; now and then any integer, so fallbacks (masked-out answers) are compared too."""
    if rng.random() < 0.05:
        return int(rng.integers(num_actions))
    return int(rng.choice(np.flatnonzero(mask)))


def play_aec(env: Any, seed: int, choice_seed: int) -> list[tuple[Any, ...]]:
    """Every step of one game: who acts, what it sees, its reward, end flags and info, then what it sent."""
    rng = np.random.default_rng(choice_seed)
    env.reset(seed=seed)
    steps = []
    for agent in env.agent_iter():
        obs, reward, termination, truncation, info = env.last()
        action = None if termination or truncation else _choose(rng, obs["action_mask"], env.num_actions)
        steps.append((agent, obs, reward, termination, truncation, info, action))
        env.step(action)
    steps.append(("rewards", dict(env.rewards), dict(env._cumulative_rewards)))
    return steps


def play_parallel(env: Any, seed: int, choice_seed: int) -> list[tuple[Any, ...]]:
    rng = np.random.default_rng(choice_seed)
    observations, infos = env.reset(seed=seed)
    steps: list[tuple[Any, ...]] = [(observations, infos)]
    while env.agents:
        actions = {a: _choose(rng, observations[a]["action_mask"], env.num_actions) for a in env.agents}
        observations, rewards, terminations, truncations, infos = env.step(actions)
        steps.append((actions, observations, rewards, terminations, truncations, infos))
    return steps


def _logs(folder: Path) -> list[bytes]:
    return [path.read_bytes() for path in sorted(folder.glob("*.ndjson"))]


def check_aec(name: str, seed: int, folder: Path) -> None:
    old = DiscreteActions(werewolf_env.raw_env(numeric_info=True, log_dir=folder / "old", **CONFIGS[name]))
    new = discrete_env(log_dir=folder / "new", **CONFIGS[name])
    assert new.observation_space("player_0") == old.observation_space("player_0")
    assert new.action_space("player_0") == old.action_space("player_0")
    old_steps, new_steps = play_aec(old, seed, seed + 1), play_aec(new, seed, seed + 1)
    assert len(old_steps) == len(new_steps)
    for before, after in zip(old_steps, new_steps, strict=True):
        assert _same(dict(enumerate(before)), dict(enumerate(after))), (before, after)
    assert _logs(folder / "old") == _logs(folder / "new") != []


def check_parallel(name: str, seed: int, folder: Path) -> None:
    old = ParallelDiscreteActions(werewolf_env.parallel_env(numeric_info=True, log_dir=folder / "old", **CONFIGS[name]))
    new = parallel_discrete_env(log_dir=folder / "new", **CONFIGS[name])
    assert isinstance(new, ParallelDiscreteEnv)
    assert new.observation_space("player_0") == old.observation_space("player_0")
    assert new.action_space("player_0") == old.action_space("player_0")
    old_steps, new_steps = play_parallel(old, seed, seed + 1), play_parallel(new, seed, seed + 1)
    assert len(old_steps) == len(new_steps)
    for before, after in zip(old_steps, new_steps, strict=True):
        assert _same(dict(enumerate(before)), dict(enumerate(after))), (before, after)
    assert np.array_equal(old.state(), new.state())
    assert _logs(folder / "old") == _logs(folder / "new") != []


@pytest.mark.parametrize("name", list(CONFIGS))
def test_aec_numeric_path_plays_as_the_wrapper(name: str, tmp_path: Path) -> None:
    check_aec(name, 3, tmp_path)


@pytest.mark.parametrize("name", list(CONFIGS))
def test_parallel_numeric_path_plays_as_the_wrapper(name: str, tmp_path: Path) -> None:
    check_parallel(name, 3, tmp_path)


@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(name=st.sampled_from(list(CONFIGS)), seed=st.integers(0, 2**31 - 2), parallel=st.booleans())
def test_numeric_path_any_seed(name: str, seed: int, parallel: bool, tmp_path_factory: pytest.TempPathFactory) -> None:
    folder = tmp_path_factory.mktemp("seed")
    (check_parallel if parallel else check_aec)(name, seed, folder)


@pytest.mark.parametrize("name", ["default", "witch_hunter"])
def test_api_tests_pass(name: str) -> None:
    api_test(discrete_env(**CONFIGS[name]), num_cycles=400)
    seed_test(lambda: discrete_env(**CONFIGS[name]), num_cycles=400)
    parallel_api_test(parallel_discrete_env(**CONFIGS[name]), num_cycles=1000)


def test_numeric_envs_render_no_text() -> None:
    """No text is worded on the numeric path: the renderer refuses to give any, and rendering is refused."""
    for env in (discrete_env(), parallel_discrete_env()):
        env.reset(seed=0)
        with pytest.raises(RuntimeError, match="vectors only"):
            env._renderer.text(0, None, [])
        assert env._renderer._seats[0].head == ""
    for refused in ({"render_mode": "ansi"}, {"info_events": True}, {"numeric_info": False}):
        with pytest.raises(ValueError, match="has no text"):
            discrete_env(**refused)
        with pytest.raises(ValueError, match="has no text"):
            ParallelDiscreteEnv(**refused)


def test_the_rl_factories_choose_the_numeric_path() -> None:
    assert isinstance(discrete_env(), DiscreteEnv)
    assert isinstance(parallel_discrete_env(num_players=6), ParallelDiscreteEnv)
    # Asking for text (or text infos) keeps the wrapper, which has it.
    for kwargs in ({"keep_text": True}, {"numeric_info": False}, {"render_mode": "ansi"}):
        assert isinstance(parallel_discrete_env(**kwargs), ParallelDiscreteActions)


def test_masks_are_fresh_arrays() -> None:
    """Masks are cached per group, but a policy that writes to the one it got changes no other."""
    env = discrete_env()
    env.reset(seed=1)
    obs = env.last()[0]
    before = obs["action_mask"].copy()
    obs["action_mask"][:] = 0
    assert np.array_equal(env.observe(env.agent_selection)["action_mask"], before)


@pytest.mark.parametrize("name", ["default", "witch_hunter", "polls_debate"])
def test_one_env_many_games_plays_as_fresh_wrappers(name: str, tmp_path: Path) -> None:
    """An integer's reading is memoised across games (``DiscreteCodec.act``): one numeric env playing game
    after game logs what a fresh wrapper logs for each, fallbacks included."""
    aec = discrete_env(log_dir=tmp_path / "aec", **CONFIGS[name])
    parallel = parallel_discrete_env(log_dir=tmp_path / "parallel", **CONFIGS[name])
    for seed in range(4):
        old = DiscreteActions(werewolf_env.raw_env(numeric_info=True, log_dir=tmp_path / f"old{seed}", **CONFIGS[name]))
        assert len(play_aec(old, seed, seed + 7)) == len(play_aec(aec, seed, seed + 7))
        old_parallel = ParallelDiscreteActions(
            werewolf_env.parallel_env(numeric_info=True, log_dir=tmp_path / f"oldp{seed}", **CONFIGS[name])
        )
        assert len(play_parallel(old_parallel, seed, seed + 7)) == len(play_parallel(parallel, seed, seed + 7))
    assert aec.codec._readings and parallel.codec._readings  # the memo was used
    for new, prefix in (("aec", "old"), ("parallel", "oldp")):
        old_logs = [log for seed in range(4) for log in _logs(tmp_path / f"{prefix}{seed}")]
        assert sorted(_logs(tmp_path / new)) == sorted(old_logs) != []


ODD_ACTIONS = [True, False, 3.7, -1, 10**30, -(10**30), float("inf"), float("nan"), "3", [1], np.int64(2),
               np.float32(1.0), np.uint8(255)]  # fmt: skip


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**31 - 2), odd=st.lists(st.sampled_from(range(len(ODD_ACTIONS))), min_size=1))
def test_odd_integers_read_as_the_wrapper_reads_them(seed: int, odd: list[int]) -> None:
    """Booleans, floats, infinities, NaN, huge and NumPy integers, strings and lists: never a crash, and each
    read as the wrapper reads it (a number as its integer, the rest a recorded fallback)."""
    old, new = DiscreteActions(werewolf_env.raw_env(numeric_info=True)), discrete_env()
    old.reset(seed=seed)
    new.reset(seed=seed)
    for step, agent in enumerate(new.agent_iter(max_iter=60)):
        assert agent == old.agent_selection
        done = new.terminations[agent] or new.truncations[agent]
        action = None if done else ODD_ACTIONS[odd[step % len(odd)]]
        old.step(action)
        new.step(action)
        assert _same(new.infos, old.infos)
    assert old.unwrapped.game.snapshot() == new.game.snapshot()
