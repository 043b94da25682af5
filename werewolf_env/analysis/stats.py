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
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np

ArrayLike = Any
# Most items held at once by one block of work: the ranked bootstrap's block of resamples, Theil-Sen's block
# of pairwise slopes. Figures do not depend on it; peak memory does (a few arrays of this many float64s).
RANKED_BLOCK_ITEMS = 1 << 19
SLOPE_BLOCK_ITEMS = 1 << 19


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
        self.weights: np.ndarray
        if game_count > 0 and resamples > 0:
            counts = rng.multinomial(game_count, np.full(game_count, 1.0 / game_count), size=resamples)
            self.weights = counts.astype(np.float64)
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

    def difference(self, game_a: ArrayLike, values_a: ArrayLike, game_b: ArrayLike, values_b: ArrayLike) -> Estimate:
        """mean(values_a) - mean(values_b), each over its own items, with a game-clustered interval: both means
        are taken in the same resamples of games, so what the two sets share (the games) is not counted twice."""
        a, b = self.mean(game_a, values_a), self.mean(game_b, values_b)
        n = a.n + b.n
        if a.value is None or b.value is None:
            return Estimate(None, None, None, n)
        value = a.value - b.value
        if self.weights.shape[0] == 0:
            return Estimate(value, None, None, n)

        def boots(game: ArrayLike, values: ArrayLike) -> np.ndarray:
            items = self._per_game(game, np.ones(np.asarray(game).shape[0]))
            with np.errstate(divide="ignore", invalid="ignore"):
                return (self.weights @ self._per_game(game, values)) / (self.weights @ items)

        low, high = _percentiles(boots(game_a, values_a) - boots(game_b, values_b))
        return Estimate(value, low, high, n)

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
        # Resamples in blocks of about RANKED_BLOCK_ITEMS weights: each row is computed on its own, so the block
        # size changes memory only (64 rows of a 100,000-item run would be 51 MB per temporary).
        rows = max(1, min(64, RANKED_BLOCK_ITEMS // n))
        resamples = self.weights.shape[0]
        boots = [fn(self.weights[b : b + rows][:, game], y, starts) for b in range(0, resamples, rows)]
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
    """Theil-Sen line (slope = median of pairwise slopes, intercept = median of y - slope x).

    Exact in bounded memory: n points have n(n-1)/2 pairwise slopes (3,000 points, 4.5 million), so beyond
    ``SLOPE_BLOCK_ITEMS`` of them the median is selected from blocks of slopes (``_median_of_slopes``)
    instead of from one array of all of them; each slope is computed the same way, so the line is the same.
    """
    x = np.asarray(x, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    if not (np.isfinite(x).all() and np.isfinite(y).all()):
        return None, None  # no line through points that are not numbers (metrics.json holds no NaN)
    if x.size * (x.size - 1) // 2 <= SLOPE_BLOCK_ITEMS:
        i, j = np.triu_indices(x.size, k=1)
        dx = x[j] - x[i]
        keep = dx != 0
        if not keep.any():
            return None, None
        slope = float(np.median((y[j] - y[i])[keep] / dx[keep]))
    else:
        median = _median_of_slopes(x, y)
        if median is None:
            return None, None
        slope = median
    # + 0.0: a zero slope is 0.0, never -0.0 (which of the equal zeros np.median picks is an accident of sorting).
    slope += 0.0
    return slope, float(np.median(y - slope * x))


def _slope_blocks(x: np.ndarray, y: np.ndarray) -> Iterator[np.ndarray]:
    """Every slope (y[j] - y[i]) / (x[j] - x[i]) over pairs i < j with x[j] != x[i], a block of rows at a time."""
    n = x.size
    rows = max(1, SLOPE_BLOCK_ITEMS // n)
    later = np.arange(n)
    for start in range(0, n, rows):
        first = np.arange(start, min(n, start + rows))
        dx = x[None, :] - x[first, None]
        keep = (later[None, :] > first[:, None]) & (dx != 0)
        yield (y[None, :] - y[first, None])[keep] / dx[keep]


def _median_of_slopes(x: np.ndarray, y: np.ndarray) -> float | None:
    """``np.median`` of every pairwise slope, never holding more than a block of them plus a bounded window.

    Selection by counting: a window (low, high) known to hold the wanted ranks shrinks around them, each
    pass cutting it at two slopes sampled from inside it, until the slopes in it fit in a block and are
    sorted. A cut that is itself a wanted rank ends the search for that rank (a median repeated many
    times is found without sorting its copies).
    """
    total = sum(int(block.size) for block in _slope_blocks(x, y))
    if total == 0:
        return None
    ranks = sorted({(total - 1) // 2, total // 2})  # the middle one, or the middle two (np.median averages them)
    low, high = -np.inf, np.inf
    below, inside = 0, total  # slopes <= low; slopes in (low, high)
    found: dict[int, float] = {}

    def window() -> Iterator[np.ndarray]:
        for block in _slope_blocks(x, y):
            yield block[(block > low) & (block < high)]

    while len(found) < len(ranks):
        wanted = [k - below for k in ranks if k not in found]  # ranks inside the window
        if inside <= SLOPE_BLOCK_ITEMS:
            values = np.sort(np.concatenate(list(window())))
            found.update({k + below: float(values[k]) for k in wanted})
            break
        step = max(1, inside // 4096)
        sample = np.sort(np.concatenate([block[::step] for block in window()]))
        at = [k * (sample.size - 1) / max(1, inside - 1) for k in (wanted[0], wanted[-1])]
        cuts = (sample[max(0, int(at[0]) - 8)], sample[min(sample.size - 1, int(np.ceil(at[1])) + 8)])
        less, leq = [0, 0], [0, 0]  # per cut: window slopes < cut and <= cut
        for block in window():
            for c, cut in enumerate(cuts):
                less[c] += int((block < cut).sum())
                leq[c] += int((block <= cut).sum())
        for c, cut in enumerate(cuts):
            found.update({k + below: float(cut) for k in wanted if less[c] <= k < leq[c]})
        wanted = [k - below for k in ranks if k not in found]
        if not wanted:
            break
        # Either cut lies below every wanted rank (it becomes ``low``) or above them (``high``); never between
        # two consecutive ranks without holding one, so every pass finds a rank or shrinks the window.
        upper = [c for c in range(2) if less[c] > wanted[-1]]
        lower = [c for c in range(2) if leq[c] <= wanted[0]]
        top = inside
        if upper:
            c = min(upper, key=lambda c: less[c])
            high, top = cuts[c], less[c]
        if lower:
            c = max(lower, key=lambda c: leq[c])
            low, below, inside = cuts[c], below + leq[c], top - leq[c]
        else:
            inside = top
    middle = [found[k] for k in ranks]
    return float(np.mean(middle)) if len(middle) == 2 else middle[0]
