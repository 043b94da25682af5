"""A deception detector on text, counterfactual values and context (CTRL-D for Werewolf).

Per statement, the features are:

- **text**: hashed word and word-pair indicators (player names replaced by one token, so the model
  learns phrasing, not people), length, the kinds of claims made (a role claim, a seer result, an
  accusation, a vouch, a protection) and how many of them the words themselves carry (the rest the
  agent only sent as structured claims), and public context: the round, the debate turn, how many
  players live, how many others have already claimed the same role;
- **values**: bait, switch and edge (``werewolf_env.counterfactual``) of the statement's first vote
  proposal, averaged, maximised and minimised over its listeners, with their mean standard error.

Everything a feature reads was public when the statement was made, or is computed from each
listener's own knowledge: no hidden role reaches the detector. The classifier is an L2-regularised
logistic regression (numpy, Newton's method) trained on the grounded lie labels; its threshold is
the one that maximised F1 on out-of-fold predictions over the training games. It saves to and
loads from a small JSON file.
"""

from __future__ import annotations

import json
import re
import zlib
from dataclasses import dataclass
from itertools import pairwise
from pathlib import Path
from typing import Any

import numpy as np

from werewolf_env.counterfactual import CounterfactualValuer, Proposal, ProposalValue, extract_proposals
from werewolf_env.log import game_of_header, read_log, replayed_actions
from werewolf_env.metrics import GameRecord
from werewolf_env.names import name_key
from werewolf_env.state import GameState, Statement

TEXT_BUCKETS = 128
# 2: "claims_extracted" (read "extracted" claims_source values the engine no longer writes, so it was
# always 0) became "claims_in_text"; a version-1 file's weights would misread that column.
DETECTOR_VERSION = 2
VALUE_FEATURES = [f"{stat}_{sign}" for sign in ("bait", "switch", "edge") for stat in ("mean", "max", "min")] + [
    "mean_se",
    "listeners_valued",
]
CONTEXT_FEATURES = [
    "words", "claims", "claims_in_text", "claim_role_self", "claim_role_power", "claim_seer_result",
    "claim_accuse", "claim_vouch", "claim_protected", "claim_negated", "round", "debate_turn", "living",
    "rival_claimants", "proposal_vote", "proposal_dont_vote", "proposal_text",
]  # fmt: skip
TEXT_FEATURES = [f"text_{i}" for i in range(TEXT_BUCKETS)] + CONTEXT_FEATURES


def _tokens(text: str, names: tuple[str, ...]) -> list[str]:
    # Names compared as everywhere (``name_key``: NFKC and case folding), so "Inés" written decomposed is a name.
    lowered = name_key(text)
    for name in sorted((name_key(n) for n in names), key=len, reverse=True):
        lowered = re.sub(rf"\b{re.escape(name)}\b", " <name> ", lowered)
    return re.findall(r"<name>|[a-z']+", lowered)


def text_vector(text: str, names: tuple[str, ...]) -> list[float]:
    """Hashed word and word-pair indicators (crc32: the same on every run and machine)."""
    tokens = _tokens(text, names)
    vector = [0.0] * TEXT_BUCKETS
    for gram in tokens + [f"{a} {b}" for a, b in pairwise(tokens)]:
        vector[zlib.crc32(gram.encode()) % TEXT_BUCKETS] = 1.0
    return vector


class StatementFeaturizer:
    """Features of each statement in turn (it remembers who has claimed which role so far)."""

    def __init__(self) -> None:
        self.claimed: dict[str, set[int]] = {}

    def context(self, state: GameState, st: Statement, proposals: list[Proposal]) -> dict[str, float]:
        claims = st.claims
        role_claims = {c.get("role") for c in claims if c.get("kind") == "role" and c.get("player") == st.speaker
                       and not c.get("negated")}  # fmt: skip
        rivals = sum(len(self.claimed.get(str(r), set()) - {st.speaker}) for r in role_claims if r)
        for r in role_claims:
            self.claimed.setdefault(str(r), set()).add(st.speaker)
        return {
            "words": len(st.text.split()), "claims": len(claims),
            # Claims the text carries (source "text" or "both"); with "claims", how many the agent asserted only
            # in structured form (public as claims, but never said in words).
            "claims_in_text": sum(c.get("source") in ("text", "both") for c in claims),
            "claim_role_self": sum(c.get("kind") == "role" and c.get("player") == st.speaker for c in claims),
            "claim_role_power": sum(c.get("kind") == "role" and c.get("role") in ("seer", "doctor") for c in claims),
            "claim_seer_result": sum(c.get("kind") == "seer_result" for c in claims),
            "claim_accuse": sum(c.get("team") == "werewolf" and c.get("player") != st.speaker for c in claims),
            "claim_vouch": sum(c.get("team") == "village" and c.get("player") != st.speaker for c in claims),
            "claim_protected": sum(c.get("kind") == "protected" for c in claims),
            "claim_negated": sum(bool(c.get("negated")) for c in claims),
            "round": st.round, "debate_turn": st.turn, "living": len(state.living()), "rival_claimants": rivals,
            "proposal_vote": float(bool(proposals) and proposals[0].kind == "vote"),
            "proposal_dont_vote": float(bool(proposals) and proposals[0].kind == "dont_vote"),
            "proposal_text": float(bool(proposals) and proposals[0].source == "text"),
        }  # fmt: skip

    def features(
        self, state: GameState, st: Statement, values: list[ProposalValue], listeners: int | None = None
    ) -> tuple[list[float], list[float]]:
        """(text and context features, value features) of ``st``, the state's latest statement.
        ``listeners`` overrides the count of valued listeners (friction values one listener only)."""
        proposals = [p for p in extract_proposals(st.id, st.speaker, st.text, st.claims, state.names)
                     if p.kind != "protect"]  # fmt: skip
        context = self.context(state, st, proposals)
        value_features: dict[str, float] = {}
        for name in ("bait", "switch", "edge"):
            xs = [getattr(v, name).value for v in values]
            value_features[f"mean_{name}"] = float(np.mean(xs)) if xs else 0.0
            value_features[f"max_{name}"] = float(np.max(xs)) if xs else 0.0
            value_features[f"min_{name}"] = float(np.min(xs)) if xs else 0.0
        ses = [v.bait.se + v.switch.se + v.edge.se for v in values]
        value_features["mean_se"] = float(np.mean(ses) / 3) if ses else 0.0
        value_features["listeners_valued"] = float(len(values) if listeners is None else listeners)
        text = text_vector(st.text, state.names) + [float(context[k]) for k in CONTEXT_FEATURES]
        return text, [value_features[k] for k in VALUE_FEATURES]


def statement_rows(
    log_path: str | Path, valuer: CounterfactualValuer | None, game_id: str | None = None
) -> list[dict[str, Any]]:
    """One row per statement of a logged game: features, the grounded label and the peers' verdict."""
    records = read_log(log_path)
    header = records[0]
    record = GameRecord.from_events(records)
    by_id = {st.id: st for st in record.statements}
    game = game_of_header(header)
    state = game.state
    featurizer = StatementFeaturizer()
    rows: list[dict[str, Any]] = []
    said = 0
    for entry in replayed_actions(records, game):
        if entry["data"]["kind"] != "statement" or len(state.statements) == said:
            continue
        said = len(state.statements)
        st = state.statements[-1]
        values = valuer.statement_values(state) if valuer is not None else []
        text_features, value_features = featurizer.features(state, st, values)
        logged = by_id.get(st.id)
        peers = logged.peer_labels if logged is not None else []
        rows.append({
            "game": game_id or Path(log_path).stem, "statement_id": st.id, "speaker": st.speaker,
            "text": st.text, "lie": bool(st.verdict.get("lie")), "lie_type": st.verdict.get("type"),
            "text_features": text_features, "value_features": value_features,
            "values": [v.to_json() for v in values],
            "rollouts": sum(v.rollouts for v in values),
            "peer_flag_share": (sum(lb.is_deceptive for lb in peers) / len(peers)) if peers else 0.0,
            "peer_detected": bool(logged.peer_detected) if logged is not None else False,
        })  # fmt: skip
    return rows


# ---------------------------------------------------------------------- the classifier


@dataclass
class LogisticModel:
    features: list[str]
    mean: np.ndarray
    scale: np.ndarray
    weights: np.ndarray  # bias first
    threshold: float
    l2: float

    def probability(self, x: np.ndarray) -> np.ndarray:
        z = ((x - self.mean) / self.scale) @ self.weights[1:] + self.weights[0]
        return 1 / (1 + np.exp(-np.clip(z, -30, 30)))

    def predict(self, x: np.ndarray) -> np.ndarray:
        return self.probability(x) >= self.threshold

    def to_json(self) -> dict[str, Any]:
        return {
            "version": DETECTOR_VERSION, "kind": "logistic_regression", "features": self.features,
            "mean": self.mean.tolist(), "scale": self.scale.tolist(), "weights": self.weights.tolist(),
            "threshold": self.threshold, "l2": self.l2,
        }  # fmt: skip

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> LogisticModel:
        if data.get("version") != DETECTOR_VERSION or data.get("kind") != "logistic_regression":
            raise ValueError("not a detector file of this version")
        return cls(list(data["features"]), np.array(data["mean"]), np.array(data["scale"]),
                   np.array(data["weights"]), float(data["threshold"]), float(data["l2"]))  # fmt: skip

    def save(self, path: str | Path) -> None:
        Path(path).write_text(json.dumps(self.to_json()) + "\n", encoding="utf-8")

    @classmethod
    def load(cls, path: str | Path) -> LogisticModel:
        return cls.from_json(json.loads(Path(path).read_text(encoding="utf-8")))


def _fit_weights(x: np.ndarray, y: np.ndarray, l2: float) -> np.ndarray:
    design = np.hstack([np.ones((x.shape[0], 1)), x])
    w = np.zeros(design.shape[1])
    penalty = np.full(design.shape[1], l2)
    penalty[0] = 0.0
    for _ in range(100):
        p = 1 / (1 + np.exp(-np.clip(design @ w, -30, 30)))
        grad = design.T @ (y - p) - penalty * w
        hess = (design * (p * (1 - p))[:, None]).T @ design + np.diag(penalty + 1e-9)
        step = np.linalg.solve(hess, grad)
        w += step
        if np.abs(step).max() < 1e-8:
            break
    return w


def best_threshold(scores: np.ndarray, y: np.ndarray) -> float:
    """The score threshold (predict positive at or above it) with the best F1."""
    best, best_f1 = 0.5, -1.0
    for t in np.unique(scores):
        pred = scores >= t
        tp = float((pred & y).sum())
        f1 = 2 * tp / (pred.sum() + y.sum()) if pred.sum() + y.sum() else 0.0
        if f1 > best_f1:
            best, best_f1 = float(t), f1
    return best


def fit(
    x: np.ndarray, y: np.ndarray, features: list[str], groups: np.ndarray, l2: float = 1.0, folds: int = 5
) -> LogisticModel:
    """Fit on all rows; the threshold maximises F1 over out-of-fold predictions (folds by game)."""
    y = y.astype(bool)
    mean = x.mean(axis=0)
    scale = x.std(axis=0)
    scale[scale == 0] = 1.0
    z = (x - mean) / scale
    unique = np.unique(groups)
    fold_of = {g: k % folds for k, g in enumerate(unique)}
    fold = np.array([fold_of[g] for g in groups])
    oof = np.zeros(len(y))
    for k in range(min(folds, len(unique))):
        train, test = fold != k, fold == k
        if train.sum() == 0 or test.sum() == 0 or y[train].all() or not y[train].any():
            continue
        w = _fit_weights(z[train], y[train].astype(float), l2)
        oof[test] = 1 / (1 + np.exp(-np.clip(z[test] @ w[1:] + w[0], -30, 30)))
    weights = _fit_weights(z, y.astype(float), l2)
    return LogisticModel(features, mean, scale, weights, best_threshold(oof, y), l2)
