"""The native ParallelEnv: PettingZoo's parallel tests, and the same game as the AEC env byte for byte."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from pettingzoo.test import parallel_api_test, parallel_seed_test
from pettingzoo.utils.conversions import aec_to_parallel_wrapper, turn_based_aec_to_parallel_wrapper

import werewolf_env
from werewolf_deception.agents import HeuristicAgent, RandomAgent
from werewolf_env.actions.spaces import JsonActionSpace
from werewolf_env.actions.specs import NIGHT_PHASES
from werewolf_env.core.roles import Role
from werewolf_env.core.state import ACTION_KINDS
from werewolf_env.envs.parallel import NO_ACTION, WerewolfParallelEnv

WITCH_HUNTER = {"role_counts": {"werewolf": 2, "seer": 1, "doctor": 1, "witch": 1, "hunter": 1}}
CONFIGS: dict[str, dict[str, Any]] = {
    "default": {},
    "witch_hunter": WITCH_HUNTER,
    "witch_hunter_reveal": {**WITCH_HUNTER, "reveal_role_on_death": True, "info_events": True},
    "six_self": {"num_players": 6, "num_werewolves": 1, "max_debate_turns": 3, "analysis": "self"},
    "numeric": {**WITCH_HUNTER, "numeric_info": True},
    "polls": {"vote_polls": "after_statement", "subject_suspicion": True},
}


@pytest.mark.parametrize("name", list(CONFIGS))
def test_parallel_api_test(name: str) -> None:
    env = werewolf_env.parallel_env(**CONFIGS[name])
    assert isinstance(env, WerewolfParallelEnv)
    assert not isinstance(env, (aec_to_parallel_wrapper, turn_based_aec_to_parallel_wrapper))
    parallel_api_test(env, num_cycles=1000)


@pytest.mark.parametrize("name", list(CONFIGS))
def test_parallel_seed_test(name: str) -> None:
    parallel_seed_test(lambda: werewolf_env.parallel_env(**CONFIGS[name]), num_cycles=1000)


# ---------------------------------------------------------------------- the same game as the AEC env

Policies = Callable[[str], Callable[[dict[str, Any], dict[str, Any]], Any]]


def heuristic_policies(seed: int) -> Policies:
    made: dict[str, HeuristicAgent] = {}

    def policy(agent: str) -> Callable[[dict[str, Any], dict[str, Any]], Any]:
        if agent not in made:
            made[agent] = HeuristicAgent(seed=seed * 100 + int(agent.split("_")[1]))
        return made[agent].act

    return policy


def fuzz_policies(seed: int) -> Policies:
    """Per seat: random legal answers (RandomAgent) and fuzzed ones (the action space's sampler)."""
    made: dict[str, Callable[[dict[str, Any], dict[str, Any]], Any]] = {}

    def policy(agent: str) -> Callable[[dict[str, Any], dict[str, Any]], Any]:
        if agent not in made:
            seat = int(agent.split("_")[1])
            legal = RandomAgent(seed * 100 + seat)
            space = JsonActionSpace(werewolf_env.GameConfig().player_names(), seed=seed * 100 + seat)
            rng = np.random.default_rng(seed * 100 + seat)

            def act(obs: dict[str, Any], info: dict[str, Any]) -> Any:
                return space.sample() if rng.random() < 0.3 else legal.act(obs, info)

            made[agent] = act
        return made[agent]

    return policy


def view(agent: str, obs: dict[str, Any], info: dict[str, Any]) -> tuple[str, str, str, str]:
    """What a policy is given on its turn, comparable byte for byte."""
    return agent, obs["text"], np.asarray(obs["observation"]).tobytes().hex(), json.dumps(info, sort_keys=True)


def play_aec(config: dict[str, Any], seed: int, policies: Policies, log_dir: Path) -> dict[str, Any]:
    env = werewolf_env.env(log_dir=log_dir, info_events=True, **config)
    env.reset(seed=seed)
    views, returns = [], dict.fromkeys(env.possible_agents, 0.0)
    for agent in env.agent_iter():
        obs, reward, term, trunc, info = env.last()
        returns[agent] += reward
        if term or trunc:
            env.step(None)
            continue
        views.append(view(agent, obs, info))
        env.step(policies(agent)(obs, info))
    base = env.unwrapped
    return {
        "views": views,
        "returns": returns,
        "truth": base.ground_truth(),
        "snapshot": base.snapshot(),
        "log": Path(base.log_path).read_bytes(),
    }


def play_parallel(config: dict[str, Any], seed: int, policies: Policies, log_dir: Path) -> dict[str, Any]:
    env = werewolf_env.parallel_env(log_dir=log_dir, info_events=True, **config)
    observations, infos = env.reset(seed=seed)
    views, returns = [], dict.fromkeys(env.possible_agents, 0.0)
    steps = 0
    while env.agents:
        group = env.simultaneous_agents()
        # Empty only on a witch's step that asks nobody (the nights of a witch game all take the same steps).
        assert (group or env.game.state.paused) and set(group) == {
            a for a in env.agents if infos[a]["action_kind"] is not None
        }
        assert all(infos[a]["action_kind"] is None for a in env.agents if a not in group)
        actions = {}
        for agent in group:  # in the order the AEC env asks them
            views.append(view(agent, observations[agent], infos[agent]))
            actions[agent] = policies(agent)(observations[agent], infos[agent])
        agents_before = list(env.agents)
        observations, rewards, terms, truncs, infos = env.step(actions)
        steps += 1
        assert set(observations) == set(rewards) == set(terms) == set(truncs) == set(infos) == set(agents_before)
        for agent, reward in rewards.items():
            returns[agent] += reward
        if env.agents:
            assert env.agents == agents_before, "every seat stays until the game ends"
            assert not any(terms.values()) and not any(truncs.values()) and not any(rewards.values())
        else:
            assert all(terms[a] or truncs[a] for a in agents_before)
    assert env.step({}) == ({}, {}, {}, {}, {})
    return {
        "views": views,
        "returns": returns,
        "truth": env.ground_truth(),
        "snapshot": env.snapshot(),
        "log": Path(env.log_path).read_bytes(),
        "steps": steps,
    }


@pytest.mark.parametrize(
    ("name", "seed", "make"),
    [
        ("default", 0, heuristic_policies),
        ("default", 1, heuristic_policies),
        ("witch_hunter", 2, heuristic_policies),
        ("witch_hunter", 3, heuristic_policies),
        ("six_self", 4, heuristic_policies),
        ("default", 5, fuzz_policies),
        ("witch_hunter", 6, fuzz_policies),
        ("polls", 7, heuristic_policies),
        ("polls", 8, fuzz_policies),
    ],
)
def test_parallel_plays_the_aec_game_byte_for_byte(name: str, seed: int, make: Policies, tmp_path: Path) -> None:
    aec = play_aec(CONFIGS[name], seed, make(seed), tmp_path / "aec")  # type: ignore[operator]
    par = play_parallel(CONFIGS[name], seed, make(seed), tmp_path / "par")  # type: ignore[operator]
    assert par["log"] == aec["log"]
    assert json.dumps(par["truth"], sort_keys=True) == json.dumps(aec["truth"], sort_keys=True)
    assert json.dumps(par["snapshot"], sort_keys=True) == json.dumps(aec["snapshot"], sort_keys=True)
    assert par["returns"] == aec["returns"]
    assert len(par["views"]) == len(aec["views"])
    assert par["steps"] < len(aec["views"])  # groups really were answered together
    # The parallel env observes every seat on every step, the AEC env only the actor: the same views show that
    # the observation caches never go stale (a witch's night knowledge once did).
    assert_same_views(aec["views"], par["views"])


def assert_same_views(aec: list[tuple[str, ...]], par: list[tuple[str, ...]]) -> None:
    """Every policy was shown the same observation (text and numbers) and info on each of its turns."""
    for i, (a, p) in enumerate(zip(aec, par, strict=True)):
        assert a[0] == p[0], f"turn {i}: {p[0]} asked instead of {a[0]}"
        for what, x, y in zip(("text", "vector", "info"), a[1:], p[1:], strict=True):
            assert x == y, f"turn {i}: the parallel env showed {p[0]} another {what}"


@pytest.mark.parametrize(("seed", "make"), [(2, heuristic_policies), (6, fuzz_policies)])
def test_witch_games_show_the_same_views(seed: int, make: Policies, tmp_path: Path) -> None:
    aec = play_aec(WITCH_HUNTER, seed, make(seed), tmp_path / "aec")  # type: ignore[operator]
    par = play_parallel(WITCH_HUNTER, seed, make(seed), tmp_path / "par")  # type: ignore[operator]
    assert_same_views(aec["views"], par["views"])


def test_idle_seats_actions_are_ignored_and_a_missing_answer_falls_back() -> None:
    def run(extra: bool) -> tuple[str, list[dict[str, Any]]]:
        env = werewolf_env.parallel_env()
        _obs, infos = env.reset(seed=3)
        rng = np.random.default_rng(0)
        seen = []
        while env.agents:
            group = env.simultaneous_agents()
            actions: dict[str, Any] = {a: RandomAgent(int(rng.integers(1000))).act({}, infos[a]) for a in group}
            if extra:  # idle and dead seats: anything at all, and one member of the group left out
                actions.update({a: {"vote": "player_0", "bid": 99} for a in env.agents if a not in group})
            _obs, _r, _t, _tr, infos = env.step(actions)
            seen.append(infos)
        return json.dumps(env.snapshot(), sort_keys=True), seen

    assert run(False)[0] == run(True)[0]
    env = werewolf_env.parallel_env()
    _obs, infos = env.reset(seed=3)
    group = env.simultaneous_agents()
    _obs, _r, _t, _tr, infos = env.step({})  # nobody answered: every member's fallback is recorded
    for agent in group:
        assert infos[agent]["fallbacks"]["reasons"], infos[agent]


def test_dead_seats_are_idle_and_stay_until_the_end() -> None:
    env = werewolf_env.parallel_env()
    observations, infos = env.reset(seed=0)
    saw_dead = False
    none_slot = -werewolf_env.MAX_PLAYERS - 3  # kind block's "none" slot (then round, debate turn, legal)
    while env.agents:
        alive = env.game.state.alive
        for agent in env.agents:
            seat = env.agent_name_mapping[agent]
            if not alive[seat] and infos[agent]["action_kind"] is None:
                saw_dead = True
            if infos[agent]["action_kind"] is None:
                vec = observations[agent]["observation"]
                assert vec[none_slot] == 1.0 and not vec[-werewolf_env.MAX_PLAYERS :].any()
        actions = {a: RandomAgent(1).act({}, infos[a]) for a in env.simultaneous_agents()}
        observations, _r, _t, _tr, infos = env.step(actions)
    assert saw_dead


@pytest.mark.parametrize("parallel", [False, True])
def test_numeric_info_holds_numbers_only(parallel: bool) -> None:
    config = {**WITCH_HUNTER, "numeric_info": True}
    keys = {"action_kind", "round", "legal_targets", "fallbacks"}
    infos_seen: list[dict[str, Any]] = []
    if parallel:
        env = werewolf_env.parallel_env(**config)
        _obs, infos = env.reset(seed=1)
        space = env.action_space("player_0")
        space.seed(1)
        while env.agents:
            infos_seen.extend(infos.values())
            assert set(infos) == set(env.agents)
            _obs, _r, _t, _tr, infos = env.step({a: space.sample() for a in env.simultaneous_agents()})
        infos_seen.extend(infos.values())
    else:
        aec = werewolf_env.env(**config)
        aec.reset(seed=1)
        aec.action_space("player_0").seed(1)
        for _agent in aec.agent_iter():
            _o, _r, term, trunc, info = aec.last()
            infos_seen.append(info)
            aec.step(None if term or trunc else aec.action_space("player_0").sample())
    kinds = set()
    for info in infos_seen:
        assert set(info) == keys, info
        assert isinstance(info["action_kind"], int) and 0 <= info["action_kind"] <= NO_ACTION
        assert isinstance(info["round"], int) and isinstance(info["fallbacks"], int)
        legal = info["legal_targets"]
        assert isinstance(legal, np.ndarray) and legal.dtype == np.int8 and legal.shape == (8,)
        kinds.add(info["action_kind"])
    assert NO_ACTION in kinds and {ACTION_KINDS.index(k) for k in ACTION_KINDS if k.value in ("vote", "bid")} <= kinds
    assert any(info["fallbacks"] for info in infos_seen)  # the fuzzer's broken answers are counted


def test_numeric_info_matches_the_text_info() -> None:
    plain = werewolf_env.parallel_env()
    numeric = werewolf_env.parallel_env(numeric_info=True)
    _o, infos = plain.reset(seed=4)
    _o, ninfos = numeric.reset(seed=4)
    names = plain.config.player_names()
    while plain.agents:
        for agent in plain.agents:
            info, ninfo = infos[agent], ninfos[agent]
            kind = info["action_kind"]
            assert ninfo["action_kind"] == (NO_ACTION if kind is None else [k.value for k in ACTION_KINDS].index(kind))
            legal = [names[p] for p in np.flatnonzero(ninfo["legal_targets"])]
            assert legal == info.get("legal_targets", [])
            assert ninfo["fallbacks"] == len(info.get("fallbacks", {}).get("reasons", []))
        actions = {a: {"vote": "Alice", "bid": 2, "target": "Bob", "statement": "hi"} for a in plain.agents}
        _o, _r, _t, _tr, infos = plain.step(actions)
        _o, _r, _t, _tr, ninfos = numeric.step(actions)


def test_numeric_info_refuses_info_events() -> None:
    with pytest.raises(ValueError, match="numeric_info"):
        werewolf_env.parallel_env(numeric_info=True, info_events=True)
    with pytest.raises(ValueError, match="numeric_info"):
        werewolf_env.raw_env(numeric_info=True, info_events=True)


def test_unseeded_resets_follow_the_seeded_sequence_as_in_the_aec_env() -> None:
    par, aec = werewolf_env.parallel_env(), werewolf_env.raw_env()
    par.reset(seed=11)
    aec.reset(seed=11)
    for _ in range(2):
        par.reset()
        aec.reset()
        assert par.game.state.seed == aec.game.state.seed != 11


@pytest.mark.parametrize("seed", range(8))
def test_every_night_of_a_witch_game_takes_the_same_steps(seed: int) -> None:
    """How many steps a night takes must not tell whether the witch lives or which potions she has left:
    her nodes are stepped every night, asking her or nobody (idle steps, nothing logged)."""
    env = werewolf_env.parallel_env(**WITCH_HUNTER)
    _obs, infos = env.reset(seed=seed)
    state = env.game.state
    witch = state.roles.index(Role.WITCH)
    rng = np.random.default_rng(seed)
    nights: list[int] = []
    steps = 0
    witch_states = set()
    while env.agents:
        if state.phase in NIGHT_PHASES:
            if steps == 0:
                witch_states.add((state.alive[witch], tuple(sorted(state.potions.get(witch, ())))))
            steps += 1
        elif steps:
            nights.append(steps)
            steps = 0
        group = env.simultaneous_agents()
        actions = {a: RandomAgent(int(rng.integers(1 << 30))).act({}, infos[a]) for a in group}
        _obs, _r, _t, _tr, infos = env.step(actions)
    assert nights and set(nights) == {3}, nights  # the pack, doctor and seer; the heal; the poison
    if seed == 0:
        assert len(witch_states) > 1  # the witch's state changed over the game, the nights did not
