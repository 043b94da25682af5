"""Each engine fact in one place (issue 33): rollouts answer from the engine's legal actions, the phase graph
says which nodes pause when nobody can act there, and a night's deaths and their causes are read by one
function (``rules.night_deaths``) that both the engine and the game record use.

Custom roles added here (rulesets built with ``DEFAULT_RULESET.with_role``) take the night actions of built-in
roles, so a rule that names a built-in role where it should read the game's ruleset fails these tests.
"""

from __future__ import annotations

import ast
from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import werewolf_env
from werewolf_deception.agents import RandomAgent
from werewolf_env import Game, GameConfig
from werewolf_env.actions.specs import ACTION_SPECS, NIGHT_PHASES, TARGET_KEYS
from werewolf_env.core.roles import DEFAULT_RULESET, ActionKind, Role, RoleSpec, Ruleset, Team
from werewolf_env.core.state import GameState, Turn
from werewolf_env.counterfactual.rollouts import RolloutPolicy, fork, play_out
from werewolf_env.engine.phases import PHASE_GRAPH
from werewolf_env.engine.rules import night_deaths, open_vote
from werewolf_env.envs import parallel as parallel_module
from werewolf_env.record.game_record import GameRecord

from .helpers import random_policy

SENTINEL = RoleSpec(
    role="sentinel",
    team=Team.VILLAGE,
    card="You are the SENTINEL (village team).",
    words=("sentinel",),
    plural="sentinels",
    night=ActionKind.PROTECT,
)
MYSTIC = RoleSpec(
    role="mystic",
    team=Team.VILLAGE,
    card="You are the MYSTIC (village team).",
    words=("mystic",),
    plural="mystics",
    night=ActionKind.UNMASK,
)
BREWER = RoleSpec(
    role="brewer",
    team=Team.VILLAGE,
    card="You are the BREWER (village team).",
    words=("brewer",),
    plural="brewers",
    night=(ActionKind.HEAL, ActionKind.POISON),
)

# Games whose night actions are all taken by roles the rollout policy has never heard of, besides the usual ones.
CUSTOM = {"sentinel": 1, "mystic": 1, "seer": 0, "doctor": 0, "hunter": 1}
BUILT_IN = {"witch": 1, "hunter": 1}


WITH_CUSTOM = DEFAULT_RULESET.with_role(SENTINEL).with_role(MYSTIC)
WITH_BREWER = DEFAULT_RULESET.with_role(BREWER).with_role(SENTINEL)


# ---------------------------------------------------------------------------------------- rollouts


class CheckedPolicy(RolloutPolicy):
    """The rollout policy, each answer checked against the engine's own refusals (``ACTION_SPECS``)."""

    def __init__(self, state: GameState) -> None:
        super().__init__(state)
        self.acted: Counter[tuple[str, ActionKind]] = Counter()  # (role, kind) of every answer that named a player

    def answer(self, turns: list[Turn], forced: dict[int, int | None] | None) -> dict[int, dict[str, Any]]:
        answers = super().answer(turns, forced)
        state = self.state
        assert sorted(answers) == sorted(turn.player for turn in turns), "every turn of the group is answered"
        for turn in turns:
            target = answers[turn.player][TARGET_KEYS[turn.kind]]
            refuse = ACTION_SPECS[turn.kind].refuse
            assert refuse is not None
            if target is not None:
                assert refuse(state, turn.player, target) is None, (turn, target, refuse(state, turn.player, target))
                self.acted[(state.roles[turn.player].value, turn.kind)] += 1
        return answers


def play_rollouts(
    counts: dict[str, int], seed: int, steps: int, rollouts: int = 4, ruleset: Ruleset = WITH_CUSTOM
) -> Counter[tuple[str, ActionKind]]:
    """A game played ``steps`` random answers in, then ``rollouts`` rollouts of it with the checked policy."""
    game = Game(GameConfig(num_players=9, role_counts=counts, ruleset=ruleset), seed)
    policy: Any = random_policy(seed, fuzz=0.1)  # answers (game, turn)
    for _ in range(steps):
        if game.over:
            break
        game.act(policy(game, game.current))
    acted: Counter[tuple[str, ActionKind]] = Counter()
    if game.over:
        return acted
    for k in range(rollouts):
        copy = fork(game.state, list(game.state.roles), seed * 10 + k, keep_memory_of=k % 9)
        checked = CheckedPolicy(copy)
        open_vote(copy)
        play_out(copy, checked, checked.answer(copy.pending, None) if copy.pending else {})
        assert copy.over or copy.winner is not None or copy.truncated
        acted += checked.acted
    return acted


def test_roles_the_rollout_policy_does_not_name_take_their_night_actions() -> None:
    acted: Counter[tuple[str, ActionKind]] = Counter()
    for seed in range(12):
        acted += play_rollouts(CUSTOM, seed, steps=seed * 7)
    assert acted[("sentinel", ActionKind.PROTECT)] > 0, acted
    assert acted[("mystic", ActionKind.UNMASK)] > 0, acted
    assert acted[("werewolf", ActionKind.ELIMINATE)] > 0, acted


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 100_000), st.integers(0, 300), st.booleans())
def test_rollouts_never_choose_what_the_engine_refuses(seed: int, steps: int, custom: bool) -> None:
    play_rollouts(
        CUSTOM if custom else BUILT_IN, seed, steps, rollouts=2, ruleset=WITH_CUSTOM if custom else DEFAULT_RULESET
    )


def test_the_witch_and_hunter_act_in_rollouts() -> None:
    acted: Counter[tuple[str, ActionKind]] = Counter()
    for seed in range(12):
        acted += play_rollouts(BUILT_IN, seed, steps=seed * 5)
    for role, kind in (("witch", ActionKind.HEAL), ("witch", ActionKind.POISON), ("hunter", ActionKind.SHOOT)):
        assert acted[(role, kind)] > 0, acted


# ---------------------------------------------------------------------------------------- pausing nodes


def code_names(source: str) -> list[str]:
    """Every identifier and string constant of a module's code, docstrings and comments left out."""
    tree = ast.parse(source)
    docstrings = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                docstrings.add(id(first.value))
    names: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            names.append(node.id)
        elif isinstance(node, ast.Attribute):
            names.append(node.attr)
        elif isinstance(node, ast.alias):
            names.extend(filter(None, (node.name, node.asname)))
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings:
            names.append(node.value)
    return names


def test_the_parallel_env_names_no_role() -> None:
    names = code_names(Path(parallel_module.__file__).read_text(encoding="utf-8"))
    assert "WerewolfParallelEnv" in names  # the reader found the module's code
    # The game's own name (werewolf_env, WerewolfBase, werewolf_v2) is no role's; a bare "werewolf" would be.
    words = [name.lower() for name in names if not (name.lower().startswith("werewolf") and len(name) > 8)]
    named = sorted({role.value for role in Role for word in words if role.value in word})
    assert named == [], f"werewolf_env/envs/parallel.py names roles in its code: {named}"
    assert not {"Role", "ROLE_SPECS", "RoleSpec"} & set(names), "the parallel env reads no role table either"


def test_the_parallel_env_pauses_where_the_graph_says() -> None:
    marked = {name for name, node in PHASE_GRAPH.items() if node.pause_when_empty}
    assert marked and all(PHASE_GRAPH[name].kind == "collect" for name in marked)
    for counts in ({}, BUILT_IN):
        env = werewolf_env.parallel_env(num_players=8, role_counts=counts)
        env.reset(seed=0)
        assert env.game is not None and env.game.state.pause_when_empty == marked


@pytest.mark.parametrize("seed", range(4))
def test_a_potion_role_of_a_ruleset_takes_the_same_night_steps(seed: int) -> None:
    """A role of its own with the witch's night actions (and no witch in the game): its nodes are stepped every
    night, asking it or nobody, as the witch's are."""
    env = werewolf_env.parallel_env(
        num_players=8, role_counts={"brewer": 1, "sentinel": 1, "doctor": 0}, ruleset=WITH_BREWER
    )
    _obs, infos = env.reset(seed=seed)
    assert env.game is not None
    state = env.game.state
    assert WITH_BREWER.role("brewer") in state.roles and Role.WITCH not in state.roles
    rng = np.random.default_rng(seed)
    nights: list[int] = []
    steps = 0
    kinds: set[str] = set()
    while env.agents:
        if state.phase in NIGHT_PHASES:
            steps += 1
        elif steps:
            nights.append(steps)
            steps = 0
        group = env.simultaneous_agents()
        kinds.update(str(infos[a]["action_kind"]) for a in group)
        actions = {a: RandomAgent(int(rng.integers(1 << 30))).act({}, infos[a]) for a in group}
        _obs, _r, _t, _tr, infos = env.step(actions)
    assert nights and set(nights) == {3}, nights  # the night group; the heal; the poison
    assert {"protect", "eliminate"} <= kinds


# ---------------------------------------------------------------------------------------- night deaths


def test_night_deaths_reads_a_night_outcome() -> None:
    assert night_deaths({"target": 3, "protected": [], "saved": False}) == {3: "night"}
    assert night_deaths({"target": 3, "protected": [3], "saved": True}) == {}
    assert night_deaths({"target": None, "protected": [], "saved": False}) == {}
    outcome = {"target": 5, "protected": [], "saved": False, "healed": [], "poisoned": [2, 5]}
    assert night_deaths(outcome) == {2: "poison", 5: "night"}  # the pack's kill stood: that death is the pack's
    assert list(night_deaths({**outcome, "poisoned": [7, 2]})) == [2, 5, 7]  # seat order
    assert night_deaths({**outcome, "saved": True, "healed": [5]}) == {2: "poison", 5: "poison"}


@pytest.mark.parametrize("seed", range(40))
def test_the_engine_kills_and_the_record_names_causes_as_night_deaths_says(seed: int) -> None:
    game = Game(GameConfig(num_players=8, role_counts=BUILT_IN), seed)
    policy: Any = random_policy(seed, fuzz=0.0)  # answers (game, turn)
    while not game.over:
        game.act(policy(game, game.current))
    records = [event.to_json() for event in game.state.events]
    expected: list[dict[str, Any]] = []
    for i, record in enumerate(records):
        if record["type"] != "night_outcome":
            continue
        causes = night_deaths(record["data"])
        following: list[int | None] = []  # the night's death events: right after its outcome
        for later in records[i + 1 :]:
            if later["type"] != "death" or later["data"]["cause"] != "night":
                break
            following.append(later["data"]["victim"])
        dead: list[int | None] = [*causes] if causes else [None]  # nobody died: one death event, victim None
        assert following == dead, (record, following)
        expected += [{"round": record["round"], "victim": seat, "cause": cause} for seat, cause in causes.items()]
    deaths = GameRecord.from_events(records).deaths
    named = [{k: d[k] for k in ("round", "victim", "cause")} for d in deaths if d["cause"] in ("night", "poison")]
    assert named == expected
    # The engine's own memory agrees: the pack's victims and the poisoned.
    state = game.state
    pack = {(rnd, seat) for rnd, seat in state.night_deaths if seat is not None}
    assert {(d["round"], d["victim"]) for d in named if d["cause"] == "night"} == pack
    poisoned = {(rnd, seat) for uses in state.poison_history.values() for rnd, seat in uses} - pack
    assert {(d["round"], d["victim"]) for d in named if d["cause"] == "poison"} == poisoned
