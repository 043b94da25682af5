"""The rollout memo changes nothing but the time: the counterfactual values with it on, with it off, and
as the code computed them before the memo existed (``tests/data/rollout_memo``: four heuristic games'
logs and the digests of their values, made before any of the memo's changes) are the same."""

from __future__ import annotations

import gzip
import hashlib
import json
import shutil
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from werewolf_deception.agents import play_game_sync
from werewolf_deception.benchmarks.detect.detector import statement_rows
from werewolf_deception.benchmarks.detect.friction import Friction
from werewolf_env import Game, GameConfig
from werewolf_env.counterfactual.memo import SharedFork
from werewolf_env.counterfactual.signs import CounterfactualValuer, Proposal, determinize, fork, public_scores, rollout

from .helpers import random_policy

DATA = Path(__file__).parent / "data" / "rollout_memo"
GOLDEN: dict[str, dict[str, Any]] = json.loads((DATA / "golden.json").read_text())


def digest(rows: list[dict[str, Any]]) -> str:
    """What the golden file holds of a game's rows: each statement's counterfactual values and rollouts."""
    values = [[r["statement_id"], r["values"], r["rollouts"]] for r in rows]
    return hashlib.sha256(json.dumps(values, sort_keys=True).encode()).hexdigest()


@pytest.fixture(scope="module")
def logs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("rollout_memo")
    out = {}
    for packed in sorted(DATA.glob("*.ndjson.gz")):
        name = packed.name.removesuffix(".ndjson.gz")
        with gzip.open(packed, "rb") as f, (folder / f"{name}.ndjson").open("wb") as g:
            shutil.copyfileobj(f, g)
        out[name] = folder / f"{name}.ndjson"
    return out


# Both paths on every game at a small budget; the memo alone at the default budget (the slow path's
# share of it is covered by the small budget: the two paths share all but the memo).
CASES = [(name, "3-2-7", memo) for name in ("std8-s0", "std8-s3", "full8-s1", "six-s2") for memo in (True, False)]
CASES += [("std8-s0", "8-3-0", True), ("full8-s1", "8-3-0", True), ("six-s2", "2-1-0", True)]


@pytest.mark.parametrize(("name", "budget", "memo"), CASES)
def test_values_are_the_ones_computed_before_the_memo(
    logs: dict[str, Path], name: str, budget: str, memo: bool
) -> None:
    determinizations, rollouts, seed = (int(x) for x in budget.split("-"))
    valuer = CounterfactualValuer(determinizations, rollouts, seed, memo=memo)
    rows = statement_rows(logs[name], valuer)
    golden = GOLDEN[f"{name} {budget}"]
    assert (len(rows), sum(r["rollouts"] for r in rows)) == (golden["statements"], golden["rollouts"])
    assert digest(rows) == golden["sha256"]
    assert (valuer.played < golden["rollouts"]) if memo else (valuer.played == golden["rollouts"])


def position(seed: int, players: int, steps: int, full: bool) -> Game | None:
    """A random legal game after ``steps`` turns (None when it is over by then)."""
    extra: dict[str, Any] = {"role_counts": {"witch": 1, "hunter": 1}} if full else {}
    game = Game(GameConfig(num_players=players, num_werewolves=max(1, players // 4), **extra), seed)
    policy = random_policy(seed, fuzz=0.0)
    for _ in range(steps):
        if game.over:
            return None
        game.act(policy(game, game.current))
    return None if game.over else game


@settings(max_examples=60, deadline=None)
@given(
    st.integers(0, 10_000),
    st.integers(5, 9),
    st.integers(0, 250),
    st.booleans(),
    st.booleans(),
    st.sampled_from(["vote", "dont_vote"]),
    st.integers(0, 99),
)
def test_memo_on_and_off_give_the_same_values(
    seed: int, players: int, steps: int, full: bool, oracle: bool, kind: str, pick: int
) -> None:
    game = position(seed, players, steps, full and players >= 7)
    if game is None:
        return
    s = game.state
    living = s.living()
    if len(living) < 3:
        return
    speaker, target, listener = (living[(pick + k * 7) % len(living)] for k in range(3))
    proposal = Proposal(len(s.statements), speaker, kind, target, "claim")
    values = [CounterfactualValuer(3, 2, seed, oracle=oracle, memo=memo) for memo in (True, False)]
    on, off = (v.value(s, proposal, listener) for v in values)
    assert (on and on.to_json()) == (off and off.to_json())
    if on is not None:
        assert values[0].played <= values[1].played == on.rollouts


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 10_000), st.integers(5, 9), st.integers(0, 250), st.booleans(), st.integers(0, 2**31 - 2))
def test_a_shared_fork_ends_as_each_rollout_played_alone(
    seed: int, players: int, steps: int, full: bool, rollout_seed: int
) -> None:
    game = position(seed, players, steps, full and players >= 7)
    if game is None:
        return
    s = game.state
    n = s.num_players
    rng = np.random.default_rng(seed)
    listener = int(rng.integers(n))  # dead or alive: a dead seat's forced vote is ignored, as in a rollout
    roles = determinize(s, listener, rng)
    scores = public_scores(s)
    shared = SharedFork(s, roles, rollout_seed, listener, scores)
    for _ in range(12):
        other = int(rng.integers(n))
        forced = {listener: [None, *range(n)][int(rng.integers(n + 1))], other: int(rng.integers(n))}
        alone = rollout(fork(s, roles, rollout_seed, keep_memory_of=listener), forced, scores)
        assert shared.winner(forced) == alone
    assert shared.played <= len(shared.winners) <= n + 1


def test_a_wrong_prediction_fails_loudly(monkeypatch: pytest.MonkeyPatch) -> None:
    game = position(3, 8, 60, False)
    assert game is not None
    s = game.state
    roles = list(s.roles)
    living = s.living()
    shared = SharedFork(s, roles, 11, living[0], public_scores(s))
    forced = {living[0]: living[1], living[2]: living[1]}
    truth = shared.exiled(forced)
    monkeypatch.setattr(SharedFork, "exiled", lambda self, forced: -1 if truth is not None else living[1])
    with pytest.raises(RuntimeError, match="rollout memo"):
        shared.winner(forced)


def recorder(friction: Friction, notes: list[Any]) -> Any:
    """``friction.hook``, also noting what it showed each seat."""

    def hook(env: Any, agent: str, info: dict[str, Any]) -> None:
        friction.hook(env, agent, info)
        notes.append((agent, info.get("friction")))

    return hook


def test_friction_warnings_in_a_game_are_the_same_with_and_without_the_memo(tmp_path: Path) -> None:
    """What a friction seat is shown during a game (all its peer analyses) does not depend on the memo."""
    shown: dict[bool, list[Any]] = {True: [], False: []}
    for memo in (True, False):
        hook = recorder(Friction(None, CounterfactualValuer(3, 2, memo=memo)), shown[memo])
        play_game_sync({"num_players": 7}, "heuristic", 5, log_dir=tmp_path / str(memo), info_hook=hook)
    assert any(note is not None for _agent, note in shown[True])
    assert shown[True] == shown[False]
    logs = [sorted((tmp_path / str(memo)).rglob("*.ndjson"))[0].read_text() for memo in (True, False)]
    assert logs[0] == logs[1]
