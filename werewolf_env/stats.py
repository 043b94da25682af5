"""Estimates with 95% confidence intervals, resampling whole games (pure numpy, seeded).

Statements, analyses and votes inside one game are not independent (the same players, the same
lies), so intervals come from a bootstrap over games: each resample draws the games with
replacement and every per-item figure is recomputed with the games' multiplicities as weights.
Ratios are computed from per-game sums, so a resample costs one matrix product.

    boot = Bootstrap(game_count=20, resamples=1000, seed=0)
    est = boot.ratio(game_of_item, numerator, denominator)   # Estimate(value, low, high, n)
    est = boot.auc(game_of_item, scores, labels)             # AUROC
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

ArrayLike = Any


@dataclass(frozen=True)
class Estimate:
    """A point estimate with its 95% interval and the number of items it was computed from."""

    value: float | None
    low: float | None
    high: float | None
    n: int

    def to_json(self, digits: int = 4) -> dict[str, Any]:
        def r(x: float | None) -> float | None:
            return None if x is None else round(x, digits)

        return {"value": r(self.value), "ci": [r(self.low), r(self.high)], "n": self.n}

    def __str__(self) -> str:
        if self.value is None:
            return "n/a"
        if self.low is None or self.high is None:
            return f"{self.value:.2f}"
        return f"{self.value:.2f} [{self.low:.2f}, {self.high:.2f}]"


def wilson(successes: int, trials: int, z: float = 1.959964) -> Estimate:
    """A proportion with its Wilson score interval (for independent trials such as whole games)."""
    if trials <= 0:
        return Estimate(None, None, None, 0)
    p = successes / trials
    denom = 1 + z * z / trials
    centre = (p + z * z / (2 * trials)) / denom
    half = z * math.sqrt(p * (1 - p) / trials + z * z / (4 * trials * trials)) / denom
    return Estimate(p, max(0.0, centre - half), min(1.0, centre + half), trials)


def _percentiles(samples: np.ndarray) -> tuple[float | None, float | None]:
    samples = samples[np.isfinite(samples)]
    if samples.size == 0:
        return None, None
    low, high = np.percentile(samples, [2.5, 97.5])
    return float(low), float(high)


class Bootstrap:
    """Bootstrap over games: ``weights[b, g]`` is how often game g appears in resample b."""

    def __init__(self, game_count: int, resamples: int = 1000, seed: int = 0) -> None:
        self.game_count = game_count
        rng = np.random.default_rng(seed)
        if game_count > 0 and resamples > 0:
            self.weights = rng.multinomial(game_count, np.full(game_count, 1.0 / game_count), size=resamples)
            self.weights = self.weights.astype(np.float64)
        else:
            self.weights = np.zeros((0, max(game_count, 0)))

    def _per_game(self, game: ArrayLike, values: ArrayLike) -> np.ndarray:
        return np.bincount(np.asarray(game, dtype=np.int64), np.asarray(values, dtype=np.float64), self.game_count)

    def ratio(self, game: ArrayLike, numerator: ArrayLike, denominator: ArrayLike | None = None) -> Estimate:
        """sum(numerator) / sum(denominator) over the items (denominator defaults to 1 per item)."""
        game = np.asarray(game, dtype=np.int64)
        if denominator is None:
            denominator = np.ones(game.shape[0])
        num = self._per_game(game, numerator)
        den = self._per_game(game, denominator)
        total = den.sum()
        n = int(np.count_nonzero(np.asarray(denominator)))
        if total <= 0:
            return Estimate(None, None, None, n)
        value = float(num.sum() / total)
        if self.weights.shape[0] == 0:
            return Estimate(value, None, None, n)
        with np.errstate(divide="ignore", invalid="ignore"):
            boots = (self.weights @ num) / (self.weights @ den)
        low, high = _percentiles(boots)
        return Estimate(value, low, high, n)

    def mean(self, game: ArrayLike, values: ArrayLike) -> Estimate:
        return self.ratio(game, values)

    def ece(self, game: ArrayLike, probability: ArrayLike, outcome: ArrayLike, bins: int = 10) -> Estimate:
        """Expected calibration error: sum over equal-width bins of |observed - stated| / items."""
        game = np.asarray(game, dtype=np.int64)
        p = np.asarray(probability, dtype=np.float64)
        y = np.asarray(outcome, dtype=np.float64)
        if p.size == 0:
            return Estimate(None, None, None, 0)
        which = np.minimum((p * bins).astype(np.int64), bins - 1)
        cell = game * bins + which
        size = self.game_count * bins
        gap = (np.bincount(cell, y, size) - np.bincount(cell, p, size)).reshape(self.game_count, bins)
        count = np.bincount(game, minlength=self.game_count).astype(np.float64)
        value = float(np.abs(gap.sum(axis=0)).sum() / count.sum())
        if self.weights.shape[0] == 0:
            return Estimate(value, None, None, int(p.size))
        with np.errstate(divide="ignore", invalid="ignore"):
            boots = np.abs(self.weights @ gap).sum(axis=1) / (self.weights @ count)
        low, high = _percentiles(boots)
        return Estimate(value, low, high, int(p.size))

    def auc(self, game: ArrayLike, score: ArrayLike, label: ArrayLike) -> Estimate:
        """Area under the ROC curve (ties count one half)."""
        return self._ranked(game, score, label, _auroc)

    def average_precision(self, game: ArrayLike, score: ArrayLike, label: ArrayLike) -> Estimate:
        """Area under the precision-recall curve, as average precision (thresholds at each distinct score)."""
        return self._ranked(game, score, label, _average_precision)

    def _ranked(self, game: ArrayLike, score: ArrayLike, label: ArrayLike, fn: Any) -> Estimate:
        game = np.asarray(game, dtype=np.int64)
        score = np.asarray(score, dtype=np.float64)
        y = np.asarray(label, dtype=bool)
        n = int(score.size)
        if n == 0 or y.all() or not y.any():
            return Estimate(None, None, None, n)
        order = np.argsort(-score, kind="stable")
        score, y, game = score[order], y[order], game[order]
        starts = np.flatnonzero(np.r_[True, score[1:] != score[:-1]])  # one block per distinct score, descending
        value = fn(np.ones((1, n)), y, starts)[0]
        if self.weights.shape[0] == 0:
            return Estimate(float(value), None, None, n)
        boots = [fn(self.weights[b : b + 64][:, game], y, starts) for b in range(0, self.weights.shape[0], 64)]
        low, high = _percentiles(np.concatenate(boots))
        return Estimate(float(value), low, high, n)


def _blocks(weights: np.ndarray, y: np.ndarray, starts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Positive and negative weight per distinct-score block (rows: resamples)."""
    pos = np.add.reduceat(weights * y, starts, axis=1)
    neg = np.add.reduceat(weights * ~y, starts, axis=1)
    return pos, neg


def _auroc(weights: np.ndarray, y: np.ndarray, starts: np.ndarray) -> np.ndarray:
    pos, neg = _blocks(weights, y, starts)
    # Blocks run from the highest score down: a positive beats every negative in later blocks.
    neg_below = neg.sum(axis=1, keepdims=True) - np.cumsum(neg, axis=1)
    wins = (pos * (neg_below + 0.5 * neg)).sum(axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        return wins / (pos.sum(axis=1) * neg.sum(axis=1))


def _average_precision(weights: np.ndarray, y: np.ndarray, starts: np.ndarray) -> np.ndarray:
    pos, neg = _blocks(weights, y, starts)
    tp = np.cumsum(pos, axis=1)
    fp = np.cumsum(neg, axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        precision = np.where(tp + fp > 0, tp / (tp + fp), 0.0)
        return (pos * precision).sum(axis=1) / pos.sum(axis=1)


def theil_sen(x: ArrayLike, y: ArrayLike) -> tuple[float | None, float | None]:
    """Theil-Sen line (slope = median of pairwise slopes, intercept = median of y - slope x)."""
    x = np.asarray(x, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    i, j = np.triu_indices(x.size, k=1)
    dx = x[j] - x[i]
    keep = dx != 0
    if not keep.any():
        return None, None
    slope = float(np.median((y[j] - y[i])[keep] / dx[keep]))
    return slope, float(np.median(y - slope * x))
