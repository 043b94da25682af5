"""The heuristic agent as witch and hunter, werewolves faking those roles, and the balance benchmark."""

from __future__ import annotations

import io
import json
from collections import Counter
from contextlib import redirect_stdout
from dataclasses import dataclass, field
from typing import Any

import pytest

import werewolf_env
from werewolf_deception.agents import HeuristicAgent
from werewolf_deception.benchmarks.studies import balance
from werewolf_env import GameConfig
from werewolf_env.core.roles import ROLE_SPECS, ActionKind, Role, Team

WITCH, HUNTER = Role.WITCH.value, Role.HUNTER.value
BOTH = {WITCH: 1, HUNTER: 1}


@dataclass
class Played:
    """What seeded heuristic games did: power actions, fallbacks and the judged statements."""

    actions: Counter[tuple[str, bool]] = field(default_factory=Counter)  # (kind, named someone)
    fallbacks: int = 0
    statements: list[dict[str, Any]] = field(default_factory=list)
    all_targets_legal: bool = True


def play(role_counts: dict[str, int] | None, games: int, first_seed: int = 0) -> Played:
    config = GameConfig(num_players=8, role_counts=role_counts)
    env = werewolf_env.raw_env(config=config, info_events=True)
    out = Played()
    for seed in range(first_seed, first_seed + games):
        env.reset(seed=seed)
        policies = [HeuristicAgent(seed * 10 + s) for s in range(8)]
        for agent in env.agent_iter():
            obs, _r, term, trunc, info = env.last()
            out.fallbacks += "fallbacks" in info
            if term or trunc:
                env.step(None)
                continue
            action = policies[env.agent_name_mapping[agent]].act(obs, info)
            kind = info["action_kind"]
            if kind in (ActionKind.HEAL, ActionKind.POISON, ActionKind.SHOOT):
                out.actions[(kind, action["target"] is not None)] += 1
                if action["target"] is not None and action["target"] not in info["legal_targets"]:
                    out.all_targets_legal = False
            env.step(action)
        out.statements += env.ground_truth()["statements"]
    return out


@pytest.fixture(scope="module")
def witch_and_hunter() -> Played:
    return play(BOTH, 40)


def test_witch_heals_and_poisons_and_hunter_shoots_always_legally(witch_and_hunter: Played) -> None:
    acts = witch_and_hunter.actions
    assert witch_and_hunter.fallbacks == 0 and witch_and_hunter.all_targets_legal
    for kind in (ActionKind.HEAL, ActionKind.POISON):
        assert acts[(kind, True)] >= 3, acts  # she uses the potion in some games ...
        assert acts[(kind, False)] >= 1, acts  # ... and keeps it in others (or for later)
    assert acts[(ActionKind.SHOOT, True)] >= 5, acts


def claims_of(statements: list[dict[str, Any]], speaker_role: str) -> list[dict[str, Any]]:
    return [claim for st in statements if st["speaker_role"] == speaker_role for claim in st["claims"]]


def claimed_roles(claims: list[dict[str, Any]]) -> set[str]:
    return {c["role"] for c in claims if c["kind"] == "role" and not c["negated"] and c["role"]}


def test_real_witch_and_hunter_claims_are_true_and_village_never_lies(witch_and_hunter: Played) -> None:
    statements = witch_and_hunter.statements
    witch = claims_of(statements, WITCH)
    kinds = Counter(c["kind"] for c in witch)
    assert kinds["role"] and kinds["poisoned"] and kinds["protected"], kinds
    assert all(c["true"] and not c["known_false"] for c in witch if c["kind"] in ("role", "protected", "poisoned"))
    hunter = [c for c in claims_of(statements, HUNTER) if c["kind"] == "role"]
    assert hunter and all(c["true"] and not c["known_false"] for c in hunter)
    liars = {st["speaker_role"] for st in statements if st["lie"]}
    assert liars == {Role.WEREWOLF.value}, liars


def test_werewolf_fake_claims_are_judged_lies(witch_and_hunter: Played) -> None:
    wolf_role_claims = [
        c
        for st in witch_and_hunter.statements
        if st["speaker_role"] == Role.WEREWOLF.value
        for c in st["claims"]
        if c["kind"] == "role" and c["player"] == st["speaker"] and not c["negated"]
    ]
    assert {c["role"] for c in wolf_role_claims} >= {WITCH, HUNTER}
    assert all(c["known_false"] and c["type"] == "fabrication" for c in wolf_role_claims)
    wolf_results = [
        c
        for c in claims_of(witch_and_hunter.statements, Role.WEREWOLF.value)
        if c["kind"] in ("protected", "poisoned", "seer_result")
    ]
    assert wolf_results and all(c["known_false"] for c in wolf_results)


@pytest.mark.parametrize(
    ("role_counts", "absent"),
    [
        (None, {WITCH, HUNTER}),
        ({WITCH: 1}, {HUNTER}),
        ({HUNTER: 1}, {WITCH}),
        ({Role.SEER.value: 0, WITCH: 1}, {Role.SEER.value, HUNTER}),
    ],
)
def test_werewolves_fake_only_roles_of_the_game(role_counts: dict[str, int] | None, absent: set[str]) -> None:
    played = play(role_counts, 15, first_seed=100)
    faked = claimed_roles(claims_of(played.statements, Role.WEREWOLF.value))
    in_game = {r.value for r in GameConfig(num_players=8, role_counts=role_counts).roles_in_game()}
    assert faked, "the pack fakes some role"
    assert faked <= in_game and not faked & absent, faked
    assert all(ROLE_SPECS[Role(r)].fake_claim for r in faked)
    assert played.fallbacks == 0


def test_fakeable_roles_come_from_the_table_and_the_game() -> None:
    agent = HeuristicAgent(0)
    agent.memory.roles_in_game = GameConfig(num_players=8).roles_in_game()
    assert agent._fakeable_roles() == [Role.SEER]  # the default game: as before, a fake seer only
    agent.memory.roles_in_game = GameConfig(num_players=8, role_counts=BOTH).roles_in_game()
    assert agent._fakeable_roles() == [Role.SEER, Role.WITCH, Role.HUNTER]
    assert all(r.team is Team.VILLAGE for r in agent._fakeable_roles())


def test_balance_smoke_and_workers_agree() -> None:
    def run(*argv: str) -> dict[str, Any]:
        buffer = io.StringIO()
        with redirect_stdout(buffer):
            assert balance.main(list(argv)) == 0
        return json.loads(buffer.getvalue())

    alone = run("--games", "20", "--workers", "1", "--seed", "5")
    assert set(balance.ROLE_SETS) <= set(alone)
    for name in balance.ROLE_SETS:
        row = alone[name]
        assert row["games"] == 20 and row["fallbacks"] == 0
        assert row["village_wins"] + row["werewolf_wins"] + row["undecided"] == 20
        low, high = row["ci95"]
        assert 0 <= low <= row["village_win_rate"] <= high <= 1
        assert row["mean_rounds"] >= 1 and row["sd_rounds"] >= 0
    assert alone["+witch+hunter"]["config"]["role_counts"] == BOTH
    pooled = run("--games", "20", "--workers", "2", "--seed", "5")  # the same games, shared by two processes
    for name in balance.ROLE_SETS:
        assert {k: v for k, v in pooled[name].items() if k != "seconds"} == {
            k: v for k, v in alone[name].items() if k != "seconds"
        }
