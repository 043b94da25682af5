"""One immutable ``Ruleset`` per game instead of global role state (issue 33 item 3, issue 32).

* Games with different rulesets share a process: interleaved step by step, and side by side in one batch of
  vectorised envs, each writes exactly the log it writes alone.
* A default game logs byte for byte as before rulesets existed (golden hashes of logs written by the code
  before the change; the header's package version left out).
* A custom ruleset is logged, and replay rebuilds the game from the log alone.
* A ruleset of nine roles plays and observes (the numeric layout grows past eight role slots).
* The removed registry functions fail, naming their replacement.
"""

from __future__ import annotations

import hashlib
import pickle
import re
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import werewolf_env
from werewolf_deception.agents import RandomAgent
from werewolf_env import Game, GameConfig
from werewolf_env.core import roles as roles_module
from werewolf_env.core.roles import DEFAULT_RULESET, ActionKind, Role, RoleSpec, Ruleset, Team
from werewolf_env.engine.log import dumps, read_log, replay
from werewolf_env.observe.layout import OBS_SIZE, layout_of
from werewolf_env.wrappers import parallel_discrete_env

from .helpers import random_policy

BODYGUARD = RoleSpec(
    role="bodyguard",
    team=Team.VILLAGE,
    night=ActionKind.PROTECT,
    fake_claim=True,
    plural="bodyguards",
    words=("bodyguard", "guard", "protector"),
    power="the bodyguard guards someone",
    card="You are the BODYGUARD (village team). Each night you guard one living player.",
)
ELDER = RoleSpec(  # no night action
    role="elder",
    team=Team.VILLAGE,
    fake_claim=True,
    plural="elders",
    words=("elder", "chieftain"),
    card="You are the ELDER (village team). You have no night power; the village listens to you.",
)
CUSTOM = DEFAULT_RULESET.with_role(BODYGUARD, takes_over=("bodyguard", "guard", "protector")).with_role(ELDER)
CUSTOM_COUNTS = {"bodyguard": 1, "elder": 1, "doctor": 0}


def _log_lines(game: Game) -> list[str]:
    return [dumps(event.to_json()) for event in game.state.events]


# ---------------------------------------------------------------------------------------- the value


def test_a_ruleset_is_a_value() -> None:
    again = DEFAULT_RULESET.with_role(BODYGUARD, takes_over=("bodyguard", "guard", "protector")).with_role(ELDER)
    assert again == CUSTOM and hash(again) == hash(CUSTOM) and again is not CUSTOM
    assert "bodyguard" not in DEFAULT_RULESET and len(DEFAULT_RULESET) == 6  # with_role built a new one
    assert [r.value for r in CUSTOM.roles][-2:] == ["bodyguard", "elder"]
    assert CUSTOM.words["guard"] == "bodyguard" and DEFAULT_RULESET.words["guard"] is Role.DOCTOR
    assert CUSTOM.index[CUSTOM.role("elder")] == 7
    assert pickle.loads(pickle.dumps(CUSTOM)) == CUSTOM
    assert pickle.loads(pickle.dumps(DEFAULT_RULESET)) is DEFAULT_RULESET
    with pytest.raises(AttributeError):
        CUSTOM.roles = ()  # type: ignore[misc]


@pytest.mark.parametrize("name", ["register_role", "unregister_role", "on_roles_changed", "generation"])
def test_the_registry_is_gone_and_says_what_replaces_it(name: str) -> None:
    with pytest.raises(RuntimeError, match=r"[Rr]uleset"):
        getattr(roles_module, name)()


def test_the_config_logs_a_custom_ruleset_and_not_the_default() -> None:
    assert "ruleset" not in GameConfig().model_dump(mode="json")
    assert "ruleset" not in GameConfig(ruleset=DEFAULT_RULESET.with_role(ELDER).without_role("elder")).model_dump()
    dumped = GameConfig(num_players=8, role_counts=CUSTOM_COUNTS, ruleset=CUSTOM).model_dump(mode="json")
    logged = dumped["ruleset"]
    assert [spec["role"] for spec in logged["roles"]][-2:] == ["bodyguard", "elder"]
    assert logged["roles"][0] == {"role": "werewolf", "built_in": True}  # built-ins by name only
    again = GameConfig.model_validate(dumped)
    assert (
        again.ruleset == Ruleset.from_json(logged)
        and again.seat_counts() == GameConfig(num_players=8, role_counts=CUSTOM_COUNTS, ruleset=CUSTOM).seat_counts()
    )
    with pytest.raises(ValueError, match="'bodyguard' is not a role"):
        GameConfig(role_counts={"bodyguard": 1})  # the default ruleset has no bodyguard


# ---------------------------------------------------------------------------------------- two rulesets, one process


def _solo(config: GameConfig, seed: int) -> list[str]:
    game = Game(config, seed)
    policy = random_policy(seed, fuzz=0.2)
    while not game.over:
        game.act(policy(game, game.current))
    return _log_lines(game)


@pytest.mark.parametrize("seed", range(6))
def test_games_of_two_rulesets_interleaved_step_by_step_log_as_alone(seed: int) -> None:
    configs = [
        GameConfig(num_players=8),
        GameConfig(num_players=8, role_counts=CUSTOM_COUNTS, ruleset=CUSTOM),
        GameConfig(num_players=9, role_counts={"witch": 1, "hunter": 1}),
    ]
    alone = [_solo(config, seed) for config in configs]
    games = [Game(config, seed) for config in configs]
    policies = [random_policy(seed, fuzz=0.2) for _ in configs]
    while not all(game.over for game in games):
        for game, policy in zip(games, policies, strict=True):
            if not game.over:
                game.act(policy(game, game.current))
    together = [_log_lines(game) for game in games]
    assert together == alone
    # The custom game did play its roles: the bodyguard guarded, and speech of its words was read as it.
    lines = "\n".join(together[1])
    assert '"role":"bodyguard"' in lines and '"role":"elder"' in lines


def _play_batch(envs: list[Any], seed: int, streams: list[int]) -> None:
    """Step ``envs`` (parallel discrete envs of one observation size) in lockstep as one batch: the observations
    stacked into one array each step, masked random actions from one generator per env (``streams``: its seed)."""
    rngs = [np.random.default_rng(seed * 10 + stream) for stream in streams]
    obs = [env.reset(seed=seed)[0] for env in envs]
    while any(env.agents for env in envs):
        batch = np.stack([o[a]["observation"] for o, env in zip(obs, envs, strict=True) for a in env.agents])
        assert batch.shape[1] == OBS_SIZE
        for i, env in enumerate(envs):
            if not env.agents:
                continue
            actions = {a: int(rngs[i].choice(np.flatnonzero(obs[i][a]["action_mask"]))) for a in env.agents}
            obs[i] = env.step(actions)[0]


def test_games_of_two_rulesets_in_one_vectorised_batch_log_as_alone(tmp_path: Path) -> None:
    kinds = {"default": {}, "custom": {"role_counts": CUSTOM_COUNTS, "ruleset": CUSTOM}}
    for seed in range(3):
        for stream, (name, extra) in enumerate(kinds.items()):
            env = parallel_discrete_env(num_players=8, log_dir=tmp_path / f"alone-{name}-{seed}", **extra)
            _play_batch([env], seed, [stream])
            env.close()
        envs = [
            parallel_discrete_env(num_players=8, log_dir=tmp_path / f"batch-{name}-{seed}", **extra)
            for name, extra in kinds.items()
        ]
        _play_batch(envs, seed, list(range(len(kinds))))
        for env in envs:
            env.close()
        for name in kinds:
            (alone,) = sorted((tmp_path / f"alone-{name}-{seed}").glob("*.ndjson"))
            (batched,) = sorted((tmp_path / f"batch-{name}-{seed}").glob("*.ndjson"))
            assert batched.read_bytes() == alone.read_bytes(), (name, seed)
    (custom_log,) = sorted((tmp_path / "batch-custom-0").glob("*.ndjson"))
    assert '"ruleset":' in custom_log.read_text(encoding="utf-8").splitlines()[0]


def test_replay_rebuilds_a_custom_ruleset_from_the_log(tmp_path: Path) -> None:
    env = werewolf_env.parallel_env(num_players=8, role_counts=CUSTOM_COUNTS, ruleset=CUSTOM, log_dir=tmp_path)
    _obs, infos = env.reset(seed=4)
    rng = np.random.default_rng(4)
    while env.agents:
        group = env.simultaneous_agents()
        _obs, _r, _t, _tr, infos = env.step(
            {a: RandomAgent(int(rng.integers(1 << 30))).act({}, infos[a]) for a in group}
        )
    env.close()
    (path,) = sorted(tmp_path.glob("*.ndjson"))
    result = replay(path)
    assert result, result
    assert result.game is not None and result.game.state.config.ruleset.to_json(8) == CUSTOM.to_json(8)
    assert read_log(path)[0]["config"]["ruleset"]["roles"][-1]["role"] == "elder"


# ---------------------------------------------------------------------------------------- more than eight roles


def _extra_role(i: int) -> RoleSpec:
    name = f"sage{'abc'[i]}"
    return RoleSpec(role=name, team=Team.VILLAGE, card=f"You are a {name}.", words=(name,), plural=f"{name}s")


NINE = DEFAULT_RULESET.with_role(_extra_role(0)).with_role(_extra_role(1)).with_role(_extra_role(2))


@pytest.mark.parametrize("seed", range(3))
def test_nine_roles_play_and_observe(seed: int) -> None:
    assert len(NINE) == 9 and layout_of(NINE).num_roles == 9 and layout_of(DEFAULT_RULESET).size == OBS_SIZE
    counts = {"sagea": 1, "sageb": 1, "sagec": 1, "witch": 1, "hunter": 1}
    env = werewolf_env.parallel_env(num_players=10, role_counts=counts, ruleset=NINE)
    obs, infos = env.reset(seed=seed)
    size = layout_of(NINE).size
    assert size > OBS_SIZE
    space = env.observation_space(env.possible_agents[0])["observation"]
    assert space.shape == (size,)
    state = env.game.state  # type: ignore[union-attr]
    sage = NINE.role("sagec")
    seat = state.roles.index(sage)
    vector = obs[f"player_{seat}"]["observation"]
    assert vector.shape == (size,) and vector[layout_of(NINE).slices["role"][0] + 8] == 1.0  # the ninth slot
    assert "You are a sagec." in obs[f"player_{seat}"]["text"]
    rng = np.random.default_rng(seed)
    while env.agents:
        group = env.simultaneous_agents()
        for a in group:
            assert space.contains(obs[a]["observation"])
        obs, _r, _t, _tr, infos = env.step(
            {a: RandomAgent(int(rng.integers(1 << 30))).act({}, infos[a]) for a in group}
        )
    assert env.state().shape == env.state_space.shape


# ---------------------------------------------------------------------------------------- default logs unchanged

# sha256 of logs written before rulesets existed (``werewolf-bench run``, heuristic agents unless random), with
# the header's package version blanked: a default game must log byte for byte as it did.
GOLDEN: dict[tuple[str, ...], str] = {
    ("--players", "8", "--seed", "0"): "3ad5bd860a69e4f8d979124356283f786434b24fd1f5a91ad1f1cbe2612b020e",
    ("--players", "8", "--seed", "1"): "71337089980fabae4208b010e7c6d1010e7dc0a1f6110fff43e8d4feb602ae36",
    (
        "--players",
        "12",
        "--seed",
        "200",
        "--role-counts",
        "witch=1,hunter=1",
    ): "4c698af4bf898e4f74a0e3f64a0677f89bdba78a1b2ade1889494d1201772eaf",
    (
        "--players",
        "9",
        "--seed",
        "300",
        "--role-counts",
        "witch=1",
        "--vote-polls",
        "after_statement",
    ): "e2b8797406498da0fb6059f3b2bf64c663b49f8fa152fc8d9cb1fbecd0fc32fb",
    (
        "--players",
        "7",
        "--seed",
        "400",
        "--role-counts",
        "hunter=1",
        "--agents",
        "random",
    ): "0d6058e31900e5b254104b061acf8004c19f00e3cadbaf09109cc14aeb0347f1",
    ("--players", "5", "--seed", "100"): "25dabc8a079f760dfac184ad4bdfc14afdfb3bc2b63feac144f3016886a96284",
}


def golden_hash(data: bytes) -> str:
    return hashlib.sha256(re.sub(rb'"package_version":"[^"]*"', b'"package_version":""', data, count=1)).hexdigest()


@pytest.mark.parametrize("args", list(GOLDEN))
def test_default_game_logs_are_byte_identical_to_before_rulesets(tmp_path: Path, args: tuple[str, ...]) -> None:
    from werewolf_deception.benchmarks.cli.main import main

    out = tmp_path / "run"
    assert main(["run", "--games", "1", *args, "--out", str(out), "--no-report", "--quiet"]) == 0
    (path,) = sorted((out / "games").glob("*.ndjson"))
    assert golden_hash(path.read_bytes()) == GOLDEN[args]
