"""A deception detector on text, counterfactual values and context (CTRL-D for Werewolf).

Per statement, the features are:

- **text**: hashed word and word-pair indicators (player names replaced by one token, so the model
  learns phrasing, not people), length, the kinds of claims made (a role claim, a seer result, an
  accusation, a vouch, a protection) and how many of them the words themselves carry (the rest the
  agent only sent as structured claims), and public context: the round, the debate turn, how many
  players live, how many others have already claimed the same role;
- **values**: bait, switch and edge (``werewolf_env.counterfactual.signs``) of the statement's first vote
  proposal, averaged, maximised and minimised over its listeners, with their mean standard error.

Everything a feature reads was public when the statement was made, or is computed from each listener's own knowledge: no
hidden role reaches the detector. The classifier is an L2-regularised logistic regression
(``werewolf_env.analysis.logistic``, the project's one solver) trained on the grounded lie labels; its threshold is the
one that maximised F1 on out-of-fold predictions over the training games, each fold's standardisation fitted on that
fold's training part only. It saves to and loads from a small JSON file.
"""

from __future__ import annotations

import json
import re
import zlib
from collections.abc import Iterator
from dataclasses import dataclass, field
from itertools import pairwise
from pathlib import Path
from typing import Any

import numpy as np

from werewolf_env.analysis import GameRecord, best_threshold, fit_logistic, sigmoid
from werewolf_env.core import GameState, Statement, name_key
from werewolf_env.counterfactual import CounterfactualValuer, Proposal, ProposalValue, extract_proposals
from werewolf_env.engine import game_of_header, read_log, replayed_actions

Rows = list[dict[str, Any]]  # statement rows (``statement_rows``), what every detector fits on and predicts
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
        role_claims = {
            c.get("role")
            for c in claims
            if c.get("kind") == "role" and c.get("player") == st.speaker and not c.get("negated")
        }
        rivals = sum(len(self.claimed.get(str(r), set()) - {st.speaker}) for r in role_claims if r)
        for r in role_claims:
            self.claimed.setdefault(str(r), set()).add(st.speaker)
        return {
            "words": len(st.text.split()),
            "claims": len(claims),
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
            "round": st.round,
            "debate_turn": st.turn,
            "living": len(state.living()),
            "rival_claimants": rivals,
            "proposal_vote": float(bool(proposals) and proposals[0].kind == "vote"),
            "proposal_dont_vote": float(bool(proposals) and proposals[0].kind == "dont_vote"),
            "proposal_text": float(bool(proposals) and proposals[0].source == "text"),
        }

    def features(
        self, state: GameState, st: Statement, values: list[ProposalValue], listeners: int | None = None
    ) -> tuple[list[float], list[float]]:
        """(text and context features, value features) of ``st``, the state's latest statement.
        ``listeners`` overrides the count of valued listeners (friction values one listener only)."""
        proposals = [
            p for p in extract_proposals(st.id, st.speaker, st.text, st.claims, state.names) if p.kind != "protect"
        ]
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


def replayed_statements(records: list[dict[str, Any]]) -> Iterator[tuple[GameState, Statement]]:
    """A logged game replayed from its header: (the game's state, the statement) as each statement is made."""
    game = game_of_header(records[0])
    state = game.state
    said = 0
    for entry in replayed_actions(records, game):
        if entry["data"]["kind"] != "statement" or len(state.statements) == said:
            continue
        said = len(state.statements)
        yield state, state.statements[-1]


def statement_rows(
    log_path: str | Path, valuer: CounterfactualValuer | None, game_id: str | None = None
) -> list[dict[str, Any]]:
    """One row per statement of a logged game: features, the grounded label and the peers' verdict."""
    records = read_log(log_path)
    record = GameRecord.from_events(records)
    by_id = {st.id: st for st in record.statements}
    featurizer = StatementFeaturizer()
    rows: list[dict[str, Any]] = []
    for state, st in replayed_statements(records):
        values = valuer.statement_values(state) if valuer is not None else []
        text_features, value_features = featurizer.features(state, st, values)
        logged = by_id.get(st.id)
        peers = logged.peer_labels if logged is not None else []
        answered = logged.answered_peers if logged is not None else []
        told = logged.self_label if logged is not None and logged.self_answered else None
        rows.append(
            {
                "game": game_id or Path(log_path).stem,
                "statement_id": st.id,
                "speaker": st.speaker,
                "text": st.text,
                "lie": bool(st.verdict.get("lie")),
                "lie_type": st.verdict.get("type"),
                "text_features": text_features,
                "value_features": value_features,
                "values": [v.to_json() for v in values],
                "rollouts": sum(v.rollouts for v in values),
                "peer_flag_share": (sum(lb.is_deceptive for lb in peers) / len(peers)) if peers else 0.0,
                "peer_detected": bool(logged.peer_detected) if logged is not None else False,
                # Answered analyses only (a fallback is the env's default, not a verdict): None when nobody answered.
                "peers_answered": len(answered),
                "peer_share": sum(lb.is_deceptive for lb in answered) / len(answered) if answered else None,
                "self_flag": told.is_deceptive if told is not None else None,
                "self_confidence": told.confidence if told is not None else None,
            }
        )
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
    notes: list[str] = field(default_factory=list)

    def probability(self, x: np.ndarray) -> np.ndarray:
        return sigmoid(((x - self.mean) / self.scale) @ self.weights[1:] + self.weights[0])

    def predict(self, x: np.ndarray) -> np.ndarray:
        return self.probability(x) >= self.threshold

    def to_json(self) -> dict[str, Any]:
        return {
            "version": DETECTOR_VERSION,
            "kind": "logistic_regression",
            "features": self.features,
            "mean": self.mean.tolist(),
            "scale": self.scale.tolist(),
            "weights": self.weights.tolist(),
            "threshold": self.threshold,
            "l2": self.l2,
            "notes": self.notes,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> LogisticModel:
        if data.get("version") != DETECTOR_VERSION or data.get("kind") != "logistic_regression":
            raise ValueError("not a detector file of this version")
        return cls(
            list(data["features"]),
            np.array(data["mean"]),
            np.array(data["scale"]),
            np.array(data["weights"]),
            float(data["threshold"]),
            float(data["l2"]),
            list(data.get("notes") or []),
        )

    def save(self, path: str | Path) -> None:
        Path(path).write_text(json.dumps(self.to_json()) + "\n", encoding="utf-8")

    @classmethod
    def load(cls, path: str | Path) -> LogisticModel:
        return cls.from_json(json.loads(Path(path).read_text(encoding="utf-8")))


def _standardiser(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    mean = x.mean(axis=0)
    scale = x.std(axis=0)
    scale[scale == 0] = 1.0
    return mean, scale


def _weights(z: np.ndarray, y: np.ndarray, l2: float) -> tuple[np.ndarray, bool]:
    """[bias, coefficients] of the shared solver, and whether the rows held one class only."""
    fitted = fit_logistic(z, y.astype(float), l2=l2)
    return np.concatenate([[fitted.intercept], fitted.coef]), fitted.one_class


def out_of_fold_scores(
    x: np.ndarray, y: np.ndarray, groups: np.ndarray, l2: float = 1.0, folds: int = 5
) -> tuple[np.ndarray, int]:
    """Each row's probability from a model fit on the other folds (whole groups dealt round-robin), and
    how many folds trained on one class. Each fold standardises with its own training part's means and
    scales, so a held-out row is never seen before it is scored; a fold whose training part holds one
    class scores its held-out rows with that part's smoothed base rate."""
    y = y.astype(bool)
    unique = np.unique(groups)
    fold_of = {g: k % folds for k, g in enumerate(unique)}
    fold = np.array([fold_of[g] for g in groups])
    oof = np.zeros(len(y))
    one_class = 0
    for k in range(min(folds, len(unique))):
        train, test = fold != k, fold == k
        if train.sum() == 0 or test.sum() == 0:
            continue
        mean, scale = _standardiser(x[train])
        w, single = _weights((x[train] - mean) / scale, y[train], l2)
        one_class += single
        oof[test] = sigmoid(((x[test] - mean) / scale) @ w[1:] + w[0])
    return oof, one_class


def fit(
    x: np.ndarray, y: np.ndarray, features: list[str], groups: np.ndarray, l2: float = 1.0, folds: int = 5
) -> LogisticModel:
    """Fit on all rows; the threshold maximises F1 over out-of-fold predictions (``out_of_fold_scores``,
    folds by game); the model's ``notes`` say how many folds trained on one class."""
    y = y.astype(bool)
    oof, one_class = out_of_fold_scores(x, y, groups, l2, folds)
    mean, scale = _standardiser(x)
    weights, single = _weights((x - mean) / scale, y, l2)
    notes = [f"{one_class} cross-validation fold(s) trained on one class scored with their base rate"] * bool(one_class)
    if single:
        notes.append("trained on one class: predicts its base rate")
    return LogisticModel(features, mean, scale, weights, best_threshold(oof, y), l2, notes)
