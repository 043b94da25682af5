"""The PettingZoo contract: api_test and seed_test on several configs, spaces, infos, rendering."""

from __future__ import annotations

import subprocess
import sys
from typing import Any

import numpy as np
import pytest
from pettingzoo.test import api_test, seed_test
from pydantic import ValidationError

import werewolf_env
from werewolf_env import GameConfig
from werewolf_env.engine.graph import PHASE_GRAPH, to_mermaid
from werewolf_env.wrappers import DiscreteActions

CONFIGS: dict[str, dict[str, Any]] = {
    "default": {},
    "six": {"num_players": 6, "num_werewolves": 1, "max_debate_turns": 3, "analysis": "self"},
    "twelve": {"num_players": 12, "num_werewolves": 3, "num_doctors": 2, "reveal_role_on_death": True,
               "doctor_repeat_protect": False, "seer_learns_role": True, "max_rounds": 6},
    "five_off": {"num_players": 5, "num_werewolves": 1, "analysis": "off", "show_suspicion": False},
    "events": {"info_events": True, "reveal_role_on_death": True},  # info["events"] in every turn's info
    # The witch and the hunter: heal, poison and shoot turns (a dead hunter acts), in every API test.
    "witch_hunter": {"role_counts": {"werewolf": 2, "seer": 1, "doctor": 1, "witch": 1, "hunter": 1},
                     "reveal_role_on_death": True},
    "witch_hunter_small": {"num_players": 6, "role_counts": {"werewolf": 1, "witch": 1, "hunter": 1},
                           "num_seers": 0, "num_doctors": 0, "witch_self_heal": False, "info_events": True},
    # Persuasion's inputs: scores of a statement's subjects and private polls (poll turns for every living seat).
    "polls": {"vote_polls": "after_statement", "subject_suspicion": True, "info_events": True},
    "polls_debate": {"num_players": 6, "vote_polls": "after_debate", "subject_suspicion": True},
}  # fmt: skip


@pytest.mark.parametrize(
    "name", ["default", "six", "twelve", "events", "witch_hunter", "witch_hunter_small", "polls", "polls_debate"]
)
def test_api_test(name: str) -> None:
    api_test(werewolf_env.env(**CONFIGS[name]), num_cycles=400)


@pytest.mark.parametrize(
    "name", ["default", "six", "twelve", "events", "witch_hunter", "witch_hunter_small", "polls", "polls_debate"]
)
def test_seed_test(name: str) -> None:
    seed_test(lambda: werewolf_env.env(**CONFIGS[name]), num_cycles=400)


@pytest.mark.parametrize("name", ["default", "five_off", "witch_hunter", "polls_debate"])
def test_discrete_wrapper_api_and_seed(name: str) -> None:
    api_test(DiscreteActions(werewolf_env.raw_env(**CONFIGS[name])), num_cycles=400)
    seed_test(lambda: DiscreteActions(werewolf_env.raw_env(**CONFIGS[name])), num_cycles=400)


def test_raw_env_metadata_and_agents() -> None:
    env = werewolf_env.raw_env()
    assert env.metadata["name"] == "werewolf_v2"
    env.reset(seed=1)
    assert env.agents == [f"player_{i}" for i in range(8)]
    obs = env.observe(env.agent_selection)
    assert env.observation_space(env.agent_selection).contains(obs)
    assert obs["observation"].dtype == np.float32
    info = env.infos[env.agent_selection]
    assert info["action_kind"] == "eliminate" and info["phase"] == "eliminate"
    assert '"target"' in info["answer_format"] and info["legal_targets"]
    assert info["answer_format"] in obs["text"]


@pytest.mark.parametrize(
    ("name", "seed", "special"),
    [
        ("default", 3, {"unmask", "protect"}),
        ("witch_hunter", 3, {"heal", "poison", "shoot"}),
        ("witch_hunter", 5, {"heal", "poison", "shoot"}),
    ],
)
def test_masked_discrete_play_needs_no_fallbacks(name: str, seed: int, special: set[str]) -> None:
    env = DiscreteActions(werewolf_env.raw_env(**CONFIGS[name]))
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)  # the spaces' own sampler is unseeded
    kinds: set[str] = set()
    for _agent in env.agent_iter():
        obs, _r, term, trunc, info = env.last()
        assert "fallbacks" not in info, info
        if info.get("action_kind"):
            kinds.add(info["action_kind"])
        env.step(None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    assert not env.agents
    assert {"vote", "statement", "eliminate"} | special <= kinds, kinds


def test_game_ends_with_every_agent_removed_and_rewards_paid() -> None:
    env = werewolf_env.env()
    env.reset(seed=5)
    total: dict[str, float] = {a: 0.0 for a in env.possible_agents}
    for agent in env.agent_iter():
        _obs, reward, term, trunc, _info = env.last()
        total[agent] += reward
        env.step(None if term or trunc else env.action_space(agent).sample())
    assert not env.agents
    truth = env.unwrapped.ground_truth()
    roles = truth["roles"]
    if truth["winner"] is None:
        assert set(total.values()) == {0.0}
    else:
        for seat, agent in enumerate(env.possible_agents):
            won = (roles[seat] == "werewolf") == (truth["winner"] == "werewolf")
            assert total[agent] == (1.0 if won else -1.0)


def test_reset_without_seed_continues_a_seeded_sequence() -> None:
    a, b = werewolf_env.raw_env(), werewolf_env.raw_env()
    a.reset(seed=11)
    b.reset(seed=11)
    a.reset()
    b.reset()
    assert a.game.state.seed == b.game.state.seed != 11
    assert a.game.state.roles == b.game.state.roles


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"num_players": 4}, "greater than or equal to 5"),
        ({"num_players": 17}, "less than or equal to 16"),
        ({"num_players": 6, "num_werewolves": 3}, "werewolves must be fewer"),
        ({"num_werewolves": 0}, "greater than or equal to 1"),
        ({"num_players": 5, "num_werewolves": 2, "num_seers": 2, "num_doctors": 2}, "do not fit"),
        ({"names": ("A", "B")}, "names has 2 entries"),
        ({"names": ("Al", "al", "C", "D", "E", "F", "G", "H")}, "unique"),
        ({"names": ("me", "B", "C", "D", "E", "F", "G", "H")}, "reserved word"),
        ({"roles": ("werewolf",) * 8}, "do not match"),
        ({"analysis": "sometimes"}, "analysis"),
        ({"colour": "red"}, "Extra inputs are not permitted"),
    ],
)
def test_impossible_configs_are_refused_clearly(kwargs: dict[str, Any], message: str) -> None:
    with pytest.raises(ValidationError, match=message):
        GameConfig(**kwargs)
    with pytest.raises(ValidationError):
        werewolf_env.raw_env(**kwargs)


def test_render_is_the_public_transcript_and_spectator_sees_all() -> None:
    env = werewolf_env.raw_env(render_mode="ansi")
    env.reset(seed=2)
    for agent in env.agent_iter():
        _o, _r, term, trunc, _i = env.last()
        env.step(None if term or trunc else env.action_space(agent).sample())
    public = env.render()
    assert "The game begins" in public and "[hidden]" not in public and "You " not in public
    spectator = env.spectator_view()
    assert "[hidden] Roles:" in spectator and "[hidden] statement" in spectator
    assert len(spectator.splitlines()) > len(public.splitlines())


def test_graph_table_and_mermaid() -> None:
    for node in (
        "eliminate",
        "protect",
        "unmask",
        "resolve_night",
        "check_winner_night",
        "bid",
        "debate",
        "analyze",
        "vote",
        "exile",
        "check_winner_day",
        "summarize",
        "end",
    ):
        assert node in PHASE_GRAPH
    for name, node in PHASE_GRAPH.items():
        for _guard, _label, target in node.routes:
            assert target in PHASE_GRAPH, f"{name} routes to unknown {target}"
    text = to_mermaid()
    assert text.startswith("stateDiagram-v2") and "n_check_winner_day --> n_summarize" in text
    out = subprocess.run(
        [sys.executable, "-m", "werewolf_env.engine.graph"], capture_output=True, text=True, check=True
    )
    assert out.stdout.strip() == text


@pytest.mark.parametrize("name", ["default", "witch_hunter"])
def test_numeric_info_passes_api_and_seed_tests(name: str) -> None:
    api_test(werewolf_env.env(numeric_info=True, **CONFIGS[name]), num_cycles=400)
    seed_test(lambda: werewolf_env.env(numeric_info=True, **CONFIGS[name]), num_cycles=400)
    api_test(DiscreteActions(werewolf_env.raw_env(numeric_info=True, **CONFIGS[name])), num_cycles=400)


def test_state_reaches_through_the_wrappers() -> None:
    from werewolf_env.envs.parallel_state import STATE_SIZE

    for env in (werewolf_env.env(), DiscreteActions(werewolf_env.raw_env())):
        env.reset(seed=0)
        assert env.state_space.shape == (STATE_SIZE,)
        assert env.state_space.contains(env.state())
