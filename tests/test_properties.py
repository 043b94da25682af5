"""Rule properties over random configs, seeds and fuzzed (often invalid) actions."""

from __future__ import annotations

import json
from collections import Counter
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from tests.helpers import random_policy
from werewolf_env import Game, GameConfig
from werewolf_env.engine.rules import winner_of


@st.composite
def configs(draw: st.DrawFn) -> GameConfig:
    n = draw(st.integers(5, 16))
    wolves = draw(st.integers(1, (n - 1) // 2))
    seers = draw(st.integers(0, min(2, n - wolves)))
    doctors = draw(st.integers(0, min(2, n - wolves - seers)))
    return GameConfig(
        num_players=n,
        num_werewolves=wolves,
        num_seers=seers,
        num_doctors=doctors,
        max_rounds=draw(st.integers(1, 6)),
        max_debate_turns=draw(st.integers(1, 4)),
        max_statement_words=draw(st.integers(1, 25)),
        analysis=draw(st.sampled_from(["full", "self", "peer", "off"])),
        doctor_repeat_protect=draw(st.booleans()),
        seer_learns_role=draw(st.booleans()),
        reveal_role_on_death=draw(st.booleans()),
    )


def play(config: GameConfig, seed: int, policy_seed: int, fuzz: float) -> tuple[Game, list[dict[str, Any]]]:
    game = Game(config, seed)
    policy = random_policy(policy_seed, fuzz)
    steps = 0
    while not game.over:
        turn = game.current
        assert game.state.alive[turn.player], "a dead player was asked to act"
        game.act(policy(game, turn))
        steps += 1
        assert steps < 20_000
    return game, [e.to_json() for e in game.state.events]


@settings(max_examples=60, deadline=None)
@given(
    config=configs(),
    seed=st.integers(0, 2**31 - 1),
    policy_seed=st.integers(0, 2**20),
    fuzz=st.sampled_from([0.0, 0.3, 1.0]),
)
def test_game_invariants(config: GameConfig, seed: int, policy_seed: int, fuzz: float) -> None:
    game, events = play(config, seed, policy_seed, fuzz)
    s = game.state
    # ends within max_rounds
    assert s.over and s.round <= config.max_rounds
    # role counts never change
    assert Counter(r.value for r in s.roles) == Counter({k.value: v for k, v in config.seat_counts().items() if v})
    # the winner matches the rule
    if s.truncated:
        assert s.winner is None and s.round == config.max_rounds and winner_of(s) is None
    else:
        assert s.winner == winner_of(s) is not None
    # votes and exiles are consistent with the tally
    for record in s.vote_history:
        votes = record["votes"]
        tally = Counter(str(v) for v in votes.values() if v is not None)
        assert record["tally"] == dict(tally)
        assert record["abstained"] == sum(v is None for v in votes.values())
        top = max(tally.values(), default=0)
        if record["exiled"] is None:
            assert top * 2 <= len(votes)
        else:
            assert tally[str(record["exiled"])] * 2 > len(votes)
            assert not s.alive[record["exiled"]]
    # suspicion scores stay in [0, 1]
    assert ((s.suspicion >= 0) & (s.suspicion <= 1)).all()
    # each suspicion event follows the tempered update
    w = config.suspicion_weight
    for e in events:
        if e["type"] == "suspicion":
            d = e["data"]
            assert abs(d["score"] - (w * d["reported"] + (1 - w) * d["prior"])) < 1e-12
    # dead players never act (again, from the log)
    dead_since: dict[int, int] = {}
    for e in events:
        if e["type"] == "death":
            dead_since[e["data"]["victim"]] = e["seq"]
        if e["type"] == "action":
            assert e["actor"] not in dead_since
    # the log is plain JSON
    json.dumps(events, allow_nan=False)


@settings(max_examples=25, deadline=None)
@given(config=configs(), seed=st.integers(0, 2**31 - 1), policy_seed=st.integers(0, 2**20))
def test_same_seed_and_actions_give_the_same_events(config: GameConfig, seed: int, policy_seed: int) -> None:
    _, first = play(config, seed, policy_seed, 0.3)
    _, second = play(config, seed, policy_seed, 0.3)
    assert json.dumps(first) == json.dumps(second)


@settings(max_examples=30, deadline=None)
@given(config=configs(), seed=st.integers(0, 2**31 - 1))
def test_ground_truth_labels_match_their_claims(config: GameConfig, seed: int) -> None:
    game, _ = play(config, seed, seed % 1000, 0.0)
    for st_ in game.ground_truth()["statements"]:
        known_false = [c for c in st_["claims"] if c["known_false"]]
        assert st_["lie"] == bool(known_false)
        assert (st_["type"] == "none") == (not known_false)
        for c in st_["claims"]:
            assert c["true"] or c["kind"] in ("role", "team") or c["known_false"], c
            if c["known_false"] and c["kind"] in ("role", "team"):
                assert not c["true"], "a claim the speaker knew to be false cannot be true"
