"""Lie detectors for Diplomacy messages (``werewolf_deception.benchmarks.diplomacy.peskov``): logistic regressions on
words, conversation context and power, each fitted with everything it learns inside its training rows.

A detector is fit on labelled messages of training games and returns, for each message, a
probability of being a lie (NaN would mean it abstains; these never do) and a threshold; it saves to
and loads from JSON. Built in:

- ``text``: words and word pairs of the message, tf-idf (sublinear counts, rows of unit length);
- ``text+context``: also the previous message's words and the message's surface, lexicon and
  conversation features (``werewolf_deception.benchmarks.diplomacy.peskov``), standardised;
- ``text+context+power``: also the supply-centre features.

(``stacked``, separate regressions for the words and the dense features combined by a stacker, is
in ``werewolf_deception.benchmarks.diplomacy.models``, whose ``make_detector`` and ``load_detector`` take every name.)

``fit`` learns, on the training rows only, the vocabulary and its idf, the scaling of the dense features, and the
logistic regression (``werewolf_env.analysis.logistic``), with every lie weighted so the two classes weigh the same
(lies are about 5% of messages). Its L2 strength and its threshold come from an inner cross-validation over the training
games (``INNER_FOLDS`` folds of whole games; folds of dialogs when there is one game): the strength whose pooled
out-of-fold predictions reach the best lie F1, and the threshold that reaches it. A training part holding one class
predicts its smoothed base rate and is counted in ``notes``.
"""

from __future__ import annotations

import json
import math
from collections import Counter
from dataclasses import dataclass, field
from itertools import pairwise
from pathlib import Path
from typing import Any

import numpy as np

from werewolf_deception.benchmarks.diplomacy.peskov import Message
from werewolf_env.analysis import Columns, LogisticFit, Sparse, best_threshold, fit_logistic

DETECTORS: dict[str, tuple[str, ...]] = {
    "text": ("text",),
    "text+context": ("text", "prev", "surface", "context"),
    "text+context+power": ("text", "prev", "surface", "context", "power"),
}
# Chosen without looking at test-fold scores: an a priori log grid of L2 strengths, powers of 4 from 4 to 16384
# (each message weighs one on average), for every detector and every block of the stacked one; words seen in at
# least two training messages; standardised values clipped at 5 standard deviations; thermometer indicators at the
# training quintiles; three inner folds of games.
L2_GRID: tuple[float, ...] = tuple(4.0**k for k in range(1, 8))
MIN_DF = 2
CLIP = 5.0
BINS = 5
INNER_FOLDS = 3
FORMAT_VERSION = 1


def grams(words: list[str], pairs: bool = True) -> list[str]:
    return words + [f"{a} {b}" for a, b in pairwise(words)] if pairs else list(words)


@dataclass
class Vocabulary:
    """Terms seen in at least ``MIN_DF`` training messages, with their idf (fitted on training rows)."""

    index: dict[str, int]
    idf: np.ndarray

    @classmethod
    def fit(cls, docs: list[list[str]]) -> Vocabulary:
        df = Counter(t for doc in docs for t in set(doc))
        terms = sorted(t for t, c in df.items() if c >= MIN_DF)
        idf = np.array([math.log((1 + len(docs)) / (1 + df[t])) + 1 for t in terms])
        return cls({t: k for k, t in enumerate(terms)}, idf)

    def transform(self, docs: list[list[str]]) -> Sparse:
        rows: list[dict[int, float]] = []
        for doc in docs:
            counts = Counter(self.index[t] for t in doc if t in self.index)
            row = {k: (1 + math.log(c)) * float(self.idf[k]) for k, c in counts.items()}
            norm = math.sqrt(sum(v * v for v in row.values())) or 1.0
            rows.append({k: v / norm for k, v in sorted(row.items())})
        return Sparse.from_rows(rows, len(self.index))

    def to_json(self) -> dict[str, Any]:
        terms = sorted(self.index, key=self.index.__getitem__)
        return {"terms": terms, "idf": self.idf.tolist()}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Vocabulary:
        return cls({t: k for k, t in enumerate(data["terms"])}, np.array(data["idf"], dtype=np.float64))


@dataclass
class Scaler:
    """Dense features, standardised (clipped at ``CLIP``), then thermometer indicators (x > each training
    quintile edge) so the linear model can bend each feature's effect."""

    names: list[str]
    mean: np.ndarray
    scale: np.ndarray
    edges: np.ndarray  # features x (BINS - 1)

    @classmethod
    def fit(cls, names: list[str], x: np.ndarray) -> Scaler:
        if not x.size:
            return cls(names, np.zeros(len(names)), np.ones(len(names)), np.zeros((len(names), BINS - 1)))
        scale = x.std(axis=0)
        scale[scale == 0] = 1.0
        edges = np.percentile(x, np.linspace(0, 100, BINS + 1)[1:-1], axis=0).T
        return cls(names, x.mean(axis=0), scale, edges)

    def transform(self, x: np.ndarray) -> np.ndarray:
        z = np.clip((x - self.mean) / self.scale, -CLIP, CLIP)
        above = (x[:, :, None] > self.edges[None, :, :]).reshape(len(x), -1)
        return np.hstack([z, above.astype(np.float64)])

    def to_json(self) -> dict[str, Any]:
        return {
            "names": self.names,
            "mean": self.mean.tolist(),
            "scale": self.scale.tolist(),
            "edges": self.edges.tolist(),
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Scaler:
        edges = np.array(data["edges"], dtype=np.float64).reshape(len(data["names"]), BINS - 1)
        return cls(list(data["names"]), np.array(data["mean"]), np.array(data["scale"]), edges)


def dense_names(blocks: tuple[str, ...], rows: list[Message]) -> list[str]:
    sample = rows[0] if rows else Message("", "", "", "", "", None)
    names: list[str] = []
    for block in ("surface", "context", "power"):
        if block in blocks:
            names += [f"{block}:{k}" for k in getattr(sample, block)]
    return names


def dense_matrix(names: list[str], rows: list[Message]) -> np.ndarray:
    blocks = [name.split(":", 1) for name in names]
    values = [[getattr(m, block).get(key, 0.0) for block, key in blocks] for m in rows]
    return np.array(values, dtype=np.float64).reshape(len(rows), len(names))


@dataclass
class Pipeline:
    """The fitted transformations and regression of one detector (no threshold)."""

    blocks: tuple[str, ...]
    words: Vocabulary | None = None
    prev: Vocabulary | None = None
    scaler: Scaler | None = None
    model: LogisticFit | None = None

    @classmethod
    def prepare(cls, blocks: tuple[str, ...], rows: list[Message]) -> Pipeline:
        """The transformations, fitted on ``rows`` (the regression comes from ``fit``)."""
        pipe = cls(blocks)
        if "text" in blocks:
            pipe.words = Vocabulary.fit([grams(m.tokens) for m in rows])
        if "prev" in blocks:
            pipe.prev = Vocabulary.fit([grams(m.prev_tokens, pairs=False) for m in rows])
        names = dense_names(blocks, rows)
        if names:
            pipe.scaler = Scaler.fit(names, dense_matrix(names, rows))
        return pipe

    def design(self, rows: list[Message]) -> Columns:
        parts: list[Sparse | np.ndarray] = []
        if self.words is not None:
            parts.append(self.words.transform([grams(m.tokens) for m in rows]))
        if self.prev is not None:
            parts.append(self.prev.transform([grams(m.prev_tokens, pairs=False) for m in rows]))
        if self.scaler is not None:
            parts.append(self.scaler.transform(dense_matrix(self.scaler.names, rows)))
        return Columns(parts or [np.zeros((len(rows), 0))])

    def probability(self, rows: list[Message]) -> np.ndarray:
        if self.model is None:
            raise ValueError("the detector is not fitted")
        return self.model.probability(self.design(rows))

    def to_json(self) -> dict[str, Any]:
        return {
            "blocks": list(self.blocks),
            "words": self.words.to_json() if self.words else None,
            "prev": self.prev.to_json() if self.prev else None,
            "scaler": self.scaler.to_json() if self.scaler else None,
            "model": self.model.to_json() if self.model else None,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Pipeline:
        return cls(
            tuple(data["blocks"]),
            Vocabulary.from_json(data["words"]) if data.get("words") else None,
            Vocabulary.from_json(data["prev"]) if data.get("prev") else None,
            Scaler.from_json(data["scaler"]) if data.get("scaler") else None,
            LogisticFit.from_json(data["model"]) if data.get("model") else None,
        )


def balanced_weights(y: np.ndarray) -> np.ndarray:
    """Each class weighs half of the rows' total (one weight per row when only one class is present)."""
    y = np.asarray(y, dtype=bool)
    weights = np.ones(len(y))
    if y.all() or not y.any():
        return weights
    for cls in (True, False):
        weights[y == cls] = len(y) / (2 * int((y == cls).sum()))
    return weights


def fit_path(pipe: Pipeline, rows: list[Message], grid: tuple[float, ...]) -> list[LogisticFit]:
    """One regression per L2 strength of ``grid`` (strongest first, each warm-starting the next)."""
    x = pipe.design(rows)
    y = np.array([bool(m.lie) for m in rows])
    weights = balanced_weights(y)
    fits: dict[float, LogisticFit] = {}
    previous = None
    for l2 in sorted(set(grid), reverse=True):
        previous = fits[l2] = fit_logistic(x, y, l2=l2, sample_weight=weights, init=previous)
    return [fits[l2] for l2 in grid]


def inner_folds(rows: list[Message], folds: int = INNER_FOLDS) -> np.ndarray:
    """A fold number per row: whole games dealt round-robin (in sorted order); dialogs with one game."""
    games = sorted({m.game for m in rows})
    units = games if len(games) >= 2 else sorted({m.dialog for m in rows})
    fold_of = {u: k % folds for k, u in enumerate(units)}
    return np.array([fold_of[m.game if len(games) >= 2 else m.dialog] for m in rows], dtype=int)


@dataclass
class MessageDetector:
    """One built-in detector (``DETECTORS``): ``fit`` on training rows, then ``probability``."""

    name: str
    grid: tuple[float, ...] = L2_GRID
    folds: int = INNER_FOLDS
    pipeline: Pipeline | None = None
    threshold: float = 0.5
    l2: float | None = None
    notes: list[str] = field(default_factory=list)
    inner: dict[str, float] = field(default_factory=dict)  # inner-CV lie F1 per L2 strength

    def __post_init__(self) -> None:
        if self.name not in DETECTORS:
            raise ValueError(f"unknown detector {self.name!r} (known: {', '.join(DETECTORS)})")

    def fit(self, rows: list[Message]) -> MessageDetector:
        rows = [m for m in rows if m.lie is not None]
        if not rows:
            raise ValueError("no labelled messages to train on")
        blocks = DETECTORS[self.name]
        y = np.array([bool(m.lie) for m in rows])
        fold = inner_folds(rows, self.folds)
        oof = np.zeros((len(self.grid), len(rows)))
        one_class = 0
        for k in range(int(fold.max()) + 1):
            train = [m for m, f in zip(rows, fold, strict=True) if f != k]
            test = [m for m, f in zip(rows, fold, strict=True) if f == k]
            if not train or not test:
                continue
            pipe = Pipeline.prepare(blocks, train)
            x_test = pipe.design(test)
            for g, fitted in enumerate(fit_path(pipe, train, self.grid)):
                oof[g, fold == k] = fitted.probability(x_test)
                one_class += fitted.one_class
        if one_class:
            self.notes.append(f"{one_class // len(self.grid)} inner fold(s) trained on one class predict its base rate")
        best = -1.0
        for l2 in sorted(self.grid, reverse=True):  # ties go to the stronger penalty
            scores = oof[self.grid.index(l2)]
            t = best_threshold(scores, y)
            f1 = _f1(scores >= t, y)
            self.inner[str(l2)] = round(f1, 4)
            if f1 > best:
                best, self.l2, self.threshold = f1, l2, t
        self.pipeline = Pipeline.prepare(blocks, rows)
        assert self.l2 is not None
        (self.pipeline.model,) = fit_path(self.pipeline, rows, (self.l2,))
        if self.pipeline.model.one_class:
            self.notes.append("trained on one class: predicts its base rate")
        return self

    def probability(self, rows: list[Message]) -> np.ndarray:
        if self.pipeline is None:
            raise ValueError("the detector is not fitted")
        return self.pipeline.probability(rows) if rows else np.zeros(0)

    def predict(self, rows: list[Message]) -> np.ndarray:
        return self.probability(rows) >= self.threshold

    def to_json(self) -> dict[str, Any]:
        return {
            "version": FORMAT_VERSION,
            "kind": "peskov_message_detector",
            "name": self.name,
            "grid": list(self.grid),
            "folds": self.folds,
            "l2": self.l2,
            "threshold": self.threshold,
            "notes": self.notes,
            "inner": self.inner,
            "pipeline": self.pipeline.to_json() if self.pipeline else None,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> MessageDetector:
        if data.get("kind") != "peskov_message_detector" or data.get("version") != FORMAT_VERSION:
            raise ValueError("not a Diplomacy message detector of this version")
        return cls(
            data["name"],
            tuple(data["grid"]),
            int(data["folds"]),
            Pipeline.from_json(data["pipeline"]) if data.get("pipeline") else None,
            float(data["threshold"]),
            data.get("l2"),
            list(data.get("notes") or []),
            dict(data.get("inner") or {}),
        )

    def save(self, path: str | Path) -> None:
        Path(path).write_text(json.dumps(self.to_json()) + "\n", encoding="utf-8")

    @classmethod
    def load(cls, path: str | Path) -> MessageDetector:
        return cls.from_json(json.loads(Path(path).read_text(encoding="utf-8")))


def _f1(pred: np.ndarray, y: np.ndarray) -> float:
    tp = float((pred & y).sum())
    denom = float(pred.sum() + y.sum())
    return 2 * tp / denom if denom else 0.0
