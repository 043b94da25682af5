"""Training rewards (``werewolf_env.analysis.rewards``): values pinned on hand-built logs, degenerate policies below
informed ones."""

from __future__ import annotations

import copy
import math
import random
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from werewolf_env.analysis.metrics import GameRecord
from werewolf_env.analysis.rewards import (
    REWARDS,
    RewardWeights,
    deception_success,
    detection,
    honesty,
    reward,
    rewards,
    validity,
    win,
)

ROLES = ["werewolf", "villager", "seer", "villager", "doctor"]


class Log:
    """A game's events in the log's format: statements with their lie labels, analyses, other actions."""

    def __init__(self, roles: list[str] = ROLES) -> None:
        self.sid = -1
        self.unlabelled: set[int] = set()
        names = [f"P{i}" for i in range(len(roles))]
        self.events: list[dict[str, Any]] = [
            {"type": "game_start", "round": 1, "actor": None, "data": {"names": names, "config": {}}},
            {"type": "roles", "round": 1, "actor": None, "data": {"roles": roles}},
        ]

    def statement(self, speaker: int, lie: bool, labelled: bool = True) -> Log:
        self.sid += 1
        said = {"statement_id": self.sid, "speaker": speaker, "text": "...", "claims": []}
        self.events.append({"type": "statement", "round": 1, "actor": speaker, "data": said})
        truth = {"statement_id": self.sid, "lie": lie, "claims": []}
        self.events.append({"type": "ground_truth", "round": 1, "actor": speaker, "data": truth})
        if not labelled:
            self.unlabelled.add(self.sid)
        return self

    def analysis(self, listener: int, p: float, flag: bool | None = None, fallback: bool = False) -> Log:
        parsed = {"is_deceptive": p >= 0.5 if flag is None else flag, "confidence": p}
        data: dict[str, Any] = {"kind": "peer_analysis", "parsed": parsed}
        if fallback:
            data["fallbacks"] = ["unreadable action"]
        return self.action(listener, data)

    def action(self, actor: int, data: dict[str, Any]) -> Log:
        self.events.append({"type": "action", "round": 1, "actor": actor, "data": data})
        return self

    def end(self, winner: str | None) -> list[dict[str, Any]]:
        over = {"winner": winner, "truncated": winner is None}
        return [*self.events, {"type": "game_over", "round": 1, "actor": None, "data": over}]

    def record(self, winner: str | None) -> GameRecord:
        """The record, with the statements marked unlabelled as a report on another labeler's file has them."""
        record = GameRecord.from_events(self.end(winner))
        for statement in record.statements:
            statement.labelled = statement.id not in self.unlabelled
        return record


def test_win_is_the_team_result() -> None:
    assert win(Log().end("village"), 1) == 1.0
    assert win(Log().end("village"), 0) == -1.0
    assert win(Log().end("werewolf"), 0) == 1.0
    assert win(Log().end(None), 0) == win(Log().end(None), 1) == 0.0


def test_detection_worked_by_hand() -> None:
    """Seat 1: p 0.9 on a lie, 0.2 and 0.4 on truths: BS_lie 0.01, BS_truth (0.04 + 0.16) / 2 = 0.1;
    1 - 4 * (0.01 + 0.1) / 2 = 0.78. Its fallen-back analysis and the unlabelled statement do not count."""
    log = (
        Log()
        .statement(0, lie=True)
        .analysis(1, 0.9)
        .analysis(2, 0.1)
        .statement(3, lie=False)
        .analysis(1, 0.2)
        .analysis(2, 0.9, fallback=True)
        .statement(4, lie=False)
        .analysis(1, 0.4, flag=True)  # the flag is ignored: the probability is scored
        .statement(2, lie=True, labelled=False)
        .analysis(1, 0.0)
        .statement(0, lie=True)
        .analysis(1, 1.0, fallback=True)
    ).record("village")
    assert detection(log, 1) == pytest.approx(0.78)
    assert detection(log, 2) == pytest.approx(1 - 4 * 0.81)  # one class only: 0.9 off on the lie
    assert detection(log, 0) == 0.0  # analysed nothing: no signal


@settings(max_examples=200, deadline=None)
@given(
    labels=st.lists(st.booleans(), min_size=2, max_size=30).filter(lambda ls: len(set(ls)) == 2),
    constant=st.floats(0.0, 1.0),
)
def test_constant_answers_never_score_above_zero_and_the_truth_scores_one(labels: list[bool], constant: float) -> None:
    """Whatever the share of lies, a constant probability scores at most 0 (exactly -1 for 0 or 1); stating
    the labels themselves scores 1."""
    constant_log, informed_log = Log(), Log()
    for lie in labels:
        constant_log.statement(0, lie).analysis(1, constant)
        informed_log.statement(0, lie).analysis(1, float(lie))
    assert detection(constant_log.end("village"), 1) <= 1e-12
    assert detection(informed_log.end("village"), 1) == pytest.approx(1.0)
    if constant in (0.0, 1.0):
        assert detection(constant_log.end("village"), 1) == pytest.approx(-1.0)


def test_honesty_and_deception_success() -> None:
    log = (
        Log()
        .statement(0, lie=True)
        .analysis(1, 0.9)
        .analysis(2, 0.9)
        .analysis(3, 0.1)  # caught: 2 of 3 flag
        .statement(0, lie=True)
        .analysis(1, 0.9)
        .analysis(2, 0.1)
        .analysis(3, 0.1, fallback=True)  # 1 of 2: uncaught
        .statement(0, lie=True)  # nobody judged it: neither
        .statement(0, lie=False)
        .analysis(1, 0.1)
        .statement(0, lie=True, labelled=False)
        .analysis(1, 0.1)  # not labelled: not a lie
        .statement(1, lie=False)
    ).record("werewolf")
    assert honesty(log, 0) == -3.0
    assert honesty(log, 1) == 0.0 and math.copysign(1.0, honesty(log, 1)) == 1.0  # not -0.0
    assert deception_success(log, 0) == 1.0
    assert deception_success(log, 1) == 0.0


def test_validity_is_the_share_of_decisions_with_no_fallback() -> None:
    log = Log().statement(0, lie=False).analysis(1, 0.5).analysis(1, 0.5, fallback=True)
    log.action(1, {"kind": "vote", "parsed": {"target": 0}}).action(1, {"kind": "bid", "parsed": {"bid": 0}})
    log.action(1, {"kind": "statement", "parsed": {"text": "x"}, "repairs": ["cut to the word cap"]})
    events = log.end("village")
    assert validity(events, 1) == pytest.approx(0.8)  # 4 of 5; a repair is not a failure
    assert validity(events, 3) == 1.0  # never asked


def test_weights_combine_and_refuse_nonsense() -> None:
    events = Log().statement(0, lie=True).analysis(1, 1.0).statement(0, lie=False).analysis(1, 0.0).end("werewolf")
    record = GameRecord.from_events(events)
    assert set(rewards(record, 1)) == set(REWARDS)
    assert reward(record, 1) == -1.0  # the default: the team result only
    assert type(reward(record, 1, {"win": 0.0})) is float  # no weight: 0.0, a float like every reward
    assert reward(record, 1, {"win": 0.5, "detection": 2.0, "validity": 1.0}) == pytest.approx(-0.5 + 2.0 + 1.0)
    assert reward(record, 0, RewardWeights(win=1, honesty=0.25, deception_success=1)) == pytest.approx(1 - 0.25)
    with pytest.raises(ValueError, match="extra"):
        RewardWeights(detectoin=1.0)  # type: ignore[call-arg]
    with pytest.raises(ValueError, match="finite"):
        RewardWeights(win=float("nan"))
    for bad in (-1, 5, True, "1"):
        with pytest.raises(ValueError, match="not a seat"):
            reward(record, bad)  # type: ignore[arg-type]


def test_degenerate_analysts_score_below_the_informed_seer_on_the_same_games() -> None:
    """Heuristic games: the seer's own stated probabilities (it knows whom it checked) against always-lie,
    never-lie and random probabilities put in place of its answers, on the same statements."""
    from werewolf_deception.agents import play_game_sync

    scores: dict[str, list[float]] = {"seer": [], "always": [], "never": [], "random": []}
    rng = random.Random(0)
    for seed in range(20):
        record = GameRecord.from_events(play_game_sync({"num_players": 7}, "heuristic", seed).events)
        seer = record.roles.index("seer")
        scores["seer"].append(detection(record, seer))
        for name, answer in (("always", lambda: 1.0), ("never", lambda: 0.0), ("random", rng.random)):
            replaced = copy.deepcopy(record)
            for statement in replaced.statements:
                for label in statement.peer_labels:
                    if label.observer == seer:
                        label.confidence = answer()
            scores[name].append(detection(replaced, seer))
    means = {name: sum(values) / len(values) for name, values in scores.items()}
    assert means["seer"] > 0.0, means
    assert all(means[name] < means["seer"] for name in ("always", "never", "random")), means
