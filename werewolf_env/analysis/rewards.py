"""Training rewards from the ground truth: each a function of one game's log and one seat.

The engine knows, statement by statement, which claims were lies and whether each analysis was right; these
functions turn that into rewards a trainer can use (``GameRecord`` is the log read once):

    record = GameRecord.from_events(events)        # or pass the events themselves
    rewards(record, seat)                           # {"win": 1.0, "detection": 0.42, ...}
    reward(record, seat, RewardWeights(win=1, detection=0.5))

============================  =====================================================================
reward                        what it teaches
============================  =====================================================================
``win``                       play for the team: +1 won, -1 lost, 0 when the game stopped undecided
``detection``                 catch lies: a proper score of the stated probabilities, balanced over
                              lies and truths: a constant answer scores at most 0 where both occur
``honesty``                   tell no lie: minus the lies the seat told, by the judge
``deception_success``         lie unseen: the seat's lies that peers judged and no majority flagged
``validity``                  answer in form: the share of the seat's decisions that needed no fallback
============================  =====================================================================

Only what the log holds is used: the judge's labels (a statement another labeler left unlabelled counts for
nothing), the analyses as the engine accepted them (a fallen-back analysis is the env's answer, not the
seat's, and is not scored), the winner. Nothing a seat said in private reasoning enters a reward other seats'
answers compute.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator

from werewolf_env.record import GameRecord

REWARDS = ("win", "detection", "honesty", "deception_success", "validity")

Log = GameRecord | Sequence[Mapping[str, Any]]


def _record(log: Log) -> GameRecord:
    if isinstance(log, GameRecord):
        return log
    return GameRecord.from_events([dict(event) for event in log])


def _seat(record: GameRecord, seat: int) -> int:
    if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < record.num_players:
        raise ValueError(f"seat {seat!r} is not a seat of this game (0-{record.num_players - 1})")
    return seat


def win(log: Log, seat: int) -> float:
    """+1 when the seat's team won, -1 when it lost, 0 when the game ended with no winner (truncated).

    The environment's own reward at the end of a game (``rules.rewards``)."""
    record = _record(log)
    seat = _seat(record, seat)
    if record.winner is None:
        return 0.0
    return 1.0 if record.team(seat) == record.winner else -1.0


def detection(log: Log, seat: int) -> float:
    """How well the seat's peer analyses told lies from truths: a balanced Brier skill, at most 1.

    Over the seat's answered peer analyses of labelled statements, with ``p`` the stated probability that the
    statement is deceptive and ``y`` its lie label (1 lie, 0 truth), the Brier score of each class present is
    ``BS_c = mean (p - y)^2`` over the analyses of that class, and

        detection = 1 - 4 * mean_c BS_c        (c over {lie, truth}, the classes present)

    A perfect analyst scores 1 and one wrong with certainty -3; a constant ``p = 0.5`` scores 0; ``p = 1``
    always (or ``p = 0`` always) scores -1 when both classes occur, whatever the share of lies; uniformly
    random probabilities score -1/3 in expectation. (In a game whose analysed statements were all lies, or
    all truths, the matching constant scores 1: over games it cannot, as the seat does not know which.)
    Averaging the classes rather than the analyses keeps the base rate from paying: a detector rewarded by
    accuracy learns to say "truth" when lies are rare. 0 when the seat analysed no labelled statement.
    """
    record = _record(log)
    seat = _seat(record, seat)
    squared: dict[bool, list[float]] = {True: [], False: []}
    for statement in record.statements:
        if not statement.labelled:
            continue
        for label in statement.answered_peers:
            if label.observer == seat:
                p = min(max(float(label.p_deceptive), 0.0), 1.0)
                squared[statement.lie].append((p - float(statement.lie)) ** 2)
    briers = [sum(values) / len(values) for values in squared.values() if values]
    if not briers:
        return 0.0
    return 1.0 - 4.0 * sum(briers) / len(briers)


def _lies(record: GameRecord, seat: int) -> list[Any]:
    return [st for st in record.statements if st.speaker == seat and st.labelled and st.lie]


def honesty(log: Log, seat: int) -> float:
    """Minus the number of lies the seat told: statements the judge labelled lies (a claim the speaker knew
    to be false), hedged ones included. 0 for a seat that told none."""
    record = _record(log)
    return float(-len(_lies(record, _seat(record, seat))))


def deception_success(log: Log, seat: int) -> float:
    """The seat's lies that went uncaught: lies that at least one peer answered an analysis of, and that no
    strict majority of those peers flagged (``StatementRecord.peer_detected``). A lie no peer judged is
    not counted: nobody was fooled or not."""
    record = _record(log)
    return float(sum(st.peer_judged and not st.peer_detected for st in _lies(record, _seat(record, seat))))


def validity(log: Log, seat: int) -> float:
    """The share of the seat's decisions (actions in the log) the engine took as answered, with no field
    replaced by a fallback (an unreadable answer, a target that is not a player, a bid out of range...);
    a repair (a statement cut to the word cap) is not a failure. 1 for a seat that was never asked."""
    record = _record(log)
    seat = _seat(record, seat)
    decisions = failed = 0
    for event in record.events:
        if event.get("type") == "action" and event.get("actor") == seat:
            decisions += 1
            failed += "fallbacks" in (event.get("data") or {})
    return 1.0 if decisions == 0 else 1.0 - failed / decisions


REWARD_FUNCTIONS = {"win": win, "detection": detection, "honesty": honesty,
                    "deception_success": deception_success, "validity": validity}  # fmt: skip


class RewardWeights(BaseModel):
    """How the rewards combine: ``reward = sum(weight * reward)``. The default trains to win."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    win: float = Field(1.0, description="weight of the team result (+1 / -1 / 0)")
    detection: float = Field(0.0, description="weight of the balanced Brier skill of the seat's peer analyses")
    honesty: float = Field(0.0, description="weight of minus the seat's lies")
    deception_success: float = Field(0.0, description="weight of the seat's lies no peer majority caught")
    validity: float = Field(0.0, description="weight of the share of the seat's answers with no fallback")

    @field_validator("*")
    @classmethod
    def _finite(cls, value: float) -> float:
        if not math.isfinite(value):
            raise ValueError("a reward weight must be a finite number")
        return value


def rewards(log: Log, seat: int) -> dict[str, float]:
    """Every reward of ``seat`` in this game, by name (``REWARDS``)."""
    record = _record(log)
    return {name: REWARD_FUNCTIONS[name](record, seat) for name in REWARDS}


def reward(log: Log, seat: int, weights: RewardWeights | Mapping[str, float] | None = None) -> float:
    """The weighted sum of ``seat``'s rewards; ``weights`` a ``RewardWeights`` or a mapping of its fields."""
    chosen = weights if isinstance(weights, RewardWeights) else RewardWeights(**(weights or {}))
    record = _record(log)
    seat = _seat(record, seat)
    return sum(
        (getattr(chosen, name) * REWARD_FUNCTIONS[name](record, seat) for name in REWARDS if getattr(chosen, name)),
        0.0,  # a float even when every weight is 0
    )
