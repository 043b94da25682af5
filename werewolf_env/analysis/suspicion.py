"""Suspicion over games: the mean final score by role pair, the village's suspicion by round and its trend.

Part of ``werewolf_env.analysis.metrics`` (re-exported there). Each figure can be fed one game at a time
(``RolePairs``, ``SuspicionTrend``) and keeps a few numbers per game, never the game; the functions
over a list of records (``matrix_by_role_pair``, ``suspicion_trend``) read their records once.
``GameOverview`` is what a run-level page needs of one game (its row in report.html, its points in the
suspicion plot): a report over many games keeps one per game instead of the record. Pure: no I/O.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from werewolf_env.analysis.stats import theil_sen

if TYPE_CHECKING:
    from werewolf_env.record import GameRecord

SUBJECT_TEAMS = ("werewolf", "village")
RoundMeans = dict[str, dict[int, float]]  # subject team -> round -> mean suspicion


@dataclass(frozen=True)
class StatementOutcome:
    """What a run page reads of a statement: whether it was a lie (two shared instances, no text)."""

    lie: bool


_OUTCOMES = {False: StatementOutcome(False), True: StatementOutcome(True)}


@dataclass(frozen=True)
class GameOverview:
    """One game as run-level pages read it, without its events, matrices or text.

    It answers the attributes those pages read of a ``GameRecord`` (``source``, ``seed``, ``winner``,
    ``rounds``, ``policies``, ``labeler``, ``len(statements)`` and each statement's ``lie``), and
    ``suspicion_by_round`` gives its stored means, so it can stand in for the record there."""

    source: str | None
    seed: int | None
    winner: str | None
    rounds: int
    policies: tuple[str, ...]
    labeler: str
    statements: tuple[StatementOutcome, ...]
    suspicion_rounds: RoundMeans

    @classmethod
    def of(cls, record: GameRecord) -> GameOverview:
        return cls(
            source=record.source,
            seed=record.seed,
            winner=record.winner,
            rounds=record.rounds,
            policies=tuple(record.policies),
            labeler=record.labeler,
            statements=tuple(_OUTCOMES[bool(st.lie)] for st in record.statements),
            suspicion_rounds=suspicion_by_round(record),
        )


def suspicion_by_round(record: GameRecord | GameOverview) -> RoundMeans:
    """Mean suspicion of living village-team observers toward werewolves and toward village players,
    after each round's debate."""
    if isinstance(record, GameOverview):
        return {team: dict(means) for team, means in record.suspicion_rounds.items()}
    out: RoundMeans = {team: {} for team in SUBJECT_TEAMS}
    last_of_round: dict[int, int] = {}
    for k, st in enumerate(record.statements, start=1):
        last_of_round[st.round] = k
    for rnd, k in sorted(last_of_round.items()):
        m = record.matrices[k]
        alive = record.statements[k - 1].alive
        for subject_team in SUBJECT_TEAMS:
            observers = [i for i in range(record.num_players) if alive[i] and record.team(i) == "village"]
            subjects = [s for s in range(record.num_players) if record.team(s) == subject_team]
            values = [m[i, s] for i in observers for s in subjects if i != s]
            if values:
                out[subject_team][rnd] = float(np.mean(values))
    return out


class SuspicionTrend:
    """The points (round, mean suspicion) of every game so far, for the Theil-Sen trend."""

    def __init__(self) -> None:
        self.points: dict[str, list[tuple[int, float]]] = {team: [] for team in SUBJECT_TEAMS}

    def add(self, record: GameRecord | GameOverview) -> None:
        for team, means in suspicion_by_round(record).items():
            self.points[team].extend(means.items())

    def result(self) -> dict[str, Any]:
        """Theil-Sen slope per round of the village's suspicion toward werewolves and toward its own."""
        out: dict[str, Any] = {}
        for team in SUBJECT_TEAMS:
            points = self.points[team]
            if len(points) >= 2:
                x, y = zip(*points, strict=True)
                slope, intercept = theil_sen(x, y)
            else:
                slope = intercept = None
            by_round: dict[int, list[float]] = {}
            for rnd, v in points:
                by_round.setdefault(rnd, []).append(v)
            out[f"toward_{team}"] = {
                "slope_per_round": None if slope is None else round(slope, 5),
                "intercept": None if intercept is None else round(intercept, 5),
                "mean_by_round": {str(r): round(float(np.mean(v)), 4) for r, v in sorted(by_round.items())},
                "points": len(points),
            }
        return out


def suspicion_trend(records: Iterable[GameRecord]) -> dict[str, Any]:
    """Theil-Sen slope per round of the village's suspicion toward werewolves and toward its own."""
    trend = SuspicionTrend()
    for record in records:
        trend.add(record)
    return trend.result()


class RolePairs:
    """Sums and counts of final suspicion scores, observer role -> subject role (self excluded)."""

    def __init__(self) -> None:
        self.sums: defaultdict[tuple[str, str], float] = defaultdict(float)
        self.counts: Counter[tuple[str, str]] = Counter()
        self.roles: set[str] = set()

    def add(self, record: GameRecord) -> None:
        m = record.final_matrix
        self.roles.update(record.roles)
        for i, ri in enumerate(record.roles):
            for k, rk in enumerate(record.roles):
                if i != k:
                    self.sums[(ri, rk)] += float(m[i, k])
                    self.counts[(ri, rk)] += 1

    def result(self) -> dict[str, dict[str, float | None]]:
        roles = sorted(self.roles)
        sums, counts = self.sums, self.counts
        return {
            a: {b: round(sums[(a, b)] / counts[(a, b)], 4) if counts[(a, b)] else None for b in roles} for a in roles
        }


def matrix_by_role_pair(records: Iterable[GameRecord]) -> dict[str, dict[str, float | None]]:
    """Mean final suspicion score, observer role -> subject role (self excluded)."""
    pairs = RolePairs()
    for record in records:
        pairs.add(record)
    return pairs.result()
