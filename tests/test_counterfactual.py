"""Counterfactual signs: proposals, determinizations that never contradict the listener, rollouts,
and values on hand-built positions where the answer is known."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from werewolf_env import Game
from werewolf_env.core.config import Role
from werewolf_env.core.state import ActionKind as K
from werewolf_env.counterfactual.signs import (
    CounterfactualValuer,
    Proposal,
    consistent,
    determinize,
    extract_proposals,
    fork,
    rollout,
)

from .helpers import D, S, V, W, fixed_game, random_policy, run_until, scripted

NAMES = ("Alice", "Bob", "Carla", "Dmitri", "Emma")


def test_proposals_from_text_and_claims() -> None:
    def kinds(text: str, claims: list | None = None, speaker: int = 4) -> list[tuple[str, int, str]]:
        return [(p.kind, p.target, p.source) for p in extract_proposals(0, speaker, text, claims or [], NAMES)]

    assert kinds("Let's vote Bob out today.") == [("vote", 1, "text")]
    assert kinds("We should exile Carla.") == [("vote", 2, "text")]
    assert kinds("Don't vote Dmitri, he is fine.") == [("dont_vote", 3, "text")]
    assert kinds("Doctor, protect Alice tonight.") == [("protect", 0, "text")]
    assert kinds("x", [{"kind": "team", "player": 1, "team": "werewolf", "negated": False}]) == [("vote", 1, "claim")]
    assert kinds("x", [{"kind": "seer_result", "player": 2, "team": "village", "negated": False}]) == [
        ("dont_vote", 2, "claim")
    ]
    assert kinds("x", [{"kind": "team", "player": 4, "team": "village", "negated": False}]) == [
        ("dont_vote", 4, "claim")
    ]  # "I am innocent": don't vote me
    assert kinds("Vote Emma!", speaker=4) == []  # nobody proposes their own exile
    assert kinds("Nothing to add.") == []


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 10_000), st.integers(5, 10), st.integers(0, 400))
def test_determinizations_never_contradict_the_listener(seed: int, players: int, steps: int) -> None:
    from werewolf_env import GameConfig

    game = Game(GameConfig(num_players=players, num_werewolves=max(1, players // 4)), seed)
    policy = random_policy(seed, fuzz=0.0)
    for _ in range(steps):
        if game.over:
            break
        game.act(policy(game, game.current))
    s = game.state
    rng = np.random.default_rng(seed)
    for listener in range(players):
        truth = s.roles
        for _ in range(5):
            roles = determinize(s, listener, rng)
            assert consistent(s, listener, roles)
            # An independent reading of what the listener knows:
            assert roles[listener] is truth[listener]
            for role in set(truth):
                assert roles.count(role) == truth.count(role)
            if truth[listener] is Role.WEREWOLF:
                assert [r is Role.WEREWOLF for r in roles] == [r is Role.WEREWOLF for r in truth]
            for _r, target, result in s.seer_results.get(listener, ()):
                assert (roles[target] is Role.WEREWOLF) == (result == "werewolf")
            for _r, victim in s.night_deaths:
                if victim is not None:
                    assert roles[victim] is not Role.WEREWOLF
            for seat, role in s.revealed.items():
                assert roles[seat] is role


def position(accused: str, plan_of_bob: int) -> Game:
    """Night 1: Alice (the only werewolf) kills Emma; Bob, the seer, finds Alice. Day 1: Alice calls
    Carla a werewolf, Carla pleads innocent, Alice accuses Carla again, then Dmitri calls ``accused``
    a werewolf. Bob's own top suspect (his plan) is ``plan_of_bob``."""
    order = {0: 0, 1: 2, 2: 0, 3: 3}  # debate turn -> speaker

    def bid(g: Game, t: object) -> dict:
        return {"bid": 10 if order[g.state.debate_turn] == t.player else 0}  # type: ignore[attr-defined]

    def accuse(name: str) -> dict:
        return {"statement": f"{name} is a werewolf.", "claims": [{"kind": "team", "player": name, "team": "werewolf"}]}

    overrides = {
        (K.ELIMINATE, 1, 0): {"target": "Emma"}, (K.UNMASK, 1, 1): {"target": "Alice"},
        (K.PROTECT, 1, 2): {"target": "Carla"}, (K.BID, 1, None): bid,
        (K.STATEMENT, 1, 0): accuse("Carla"), (K.STATEMENT, 1, 3): accuse(accused),
        (K.STATEMENT, 1, 2): {"statement": "I am innocent.",
                              "claims": [{"kind": "team", "player": "me", "team": "village"}]},
    }  # fmt: skip
    game = fixed_game((W, S, D, V, V), seed=1, max_debate_turns=4)
    run_until(game, scripted(overrides), stop=lambda g: len(g.state.statements) == 4)
    assert not game.state.alive[4] and game.state.seer_results[1] == [(1, 0, "werewolf")]
    assert [st.speaker for st in game.state.statements] == [0, 2, 0, 3]
    game.state.suspicion[1][plan_of_bob] = 0.9  # Bob's own plan before he hears Dmitri
    return game


def test_a_proposal_to_exile_the_last_werewolf_is_worth_following() -> None:
    game = position("Alice", plan_of_bob=2)
    proposal = Proposal(3, 3, "vote", 0, "claim")
    value = CounterfactualValuer(determinizations=8, rollouts=4, seed=0).value(game.state, proposal, listener=1)
    assert value is not None and value.plan == 2 and value.proposed == 0 and value.promised == 0
    # Following, Bob, Dmitri and Carla exile Alice at once; with Bob voting his own plan (Carla) the
    # vote splits 2-2, the night comes, and the village, led by the accusations against Carla, may lose.
    assert value.bait.value > 0.1 and value.bait.value > 2 * value.bait.se
    assert value.bait.n == 8 * 4 and value.rollouts > 8 * 4 * 4
    oracle = CounterfactualValuer(determinizations=8, rollouts=4, seed=0, oracle=True).value(game.state, proposal, 2)
    assert oracle is not None and oracle.oracle and oracle.bait.value >= 0


def test_a_proposal_to_exile_a_villager_is_not() -> None:
    game = position("Carla", plan_of_bob=0)
    proposal = Proposal(3, 3, "vote", 2, "claim")
    value = CounterfactualValuer(determinizations=8, rollouts=4, seed=0).value(game.state, proposal, listener=1)
    assert value is not None and value.plan == 0
    assert value.bait.value < -0.1 and value.bait.value < -2 * value.bait.se


def test_identical_seeds_give_identical_values() -> None:
    game = position("Alice", plan_of_bob=2)
    proposal = Proposal(3, 3, "vote", 0, "claim")
    one = CounterfactualValuer(determinizations=4, rollouts=2, seed=5).value(game.state, proposal, 2)
    two = CounterfactualValuer(determinizations=4, rollouts=2, seed=5).value(game.state, proposal, 2)
    assert one is not None and two is not None and one.to_json() == two.to_json()
    assert game.state.statements[3].text == "Alice is a werewolf."  # the valuer left the game alone
    assert [r for r in game.state.roles] == [W, S, D, V, V] and not game.over


def test_rollouts_finish_and_do_not_touch_the_game() -> None:
    game = position("Alice", plan_of_bob=2)
    before = (list(game.state.alive), len(game.state.events), game.state.round, game.state.phase)
    for seed in range(30):
        copy = fork(game.state, list(game.state.roles), seed, keep_memory_of=1)
        assert rollout(copy, {1: 0, 3: 0}) in ("village", "werewolf", None)
    assert (list(game.state.alive), len(game.state.events), game.state.round, game.state.phase) == before
    with pytest.raises(ValueError):
        CounterfactualValuer(determinizations=0)
