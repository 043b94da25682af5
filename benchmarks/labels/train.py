"""Train the claim reader's learned stage (``werewolf_env.claims.learned``) from the hand labels.

    # fit on every labelled statement, write the model
    python -m werewolf_deception.benchmarks.labels.train
    # its accuracy on sources it never saw
    python -m werewolf_deception.benchmarks.labels.evaluate --loso --labeler learned

One row per candidate (a player a statement names, or its speaker), one logistic head per claim class and
one for hedging, fitted together by full-batch gradient descent (Adam, L2) on hashed sparse features, from
zeros, in a fixed order: the same labels give the same model, byte for byte.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from werewolf_deception.benchmarks.labels.corpus import DEFAULT_CORPUS, claimed_roles, games_by_id, known_roles
from werewolf_deception.benchmarks.labels.dev import dev_sets, gold_claims, seat_of
from werewolf_deception.benchmarks.labels.labelers import ruleset_of
from werewolf_env.claims import (
    CLASSES,
    DIMENSIONS,
    HEDGE_HEAD,
    MODEL_PATH,
    Head,
    LearnedStage,
    candidate_features,
    class_of,
    extractor_for,
    hashed,
    label,
)
from werewolf_env.core import DEFAULT_RULESET, Ruleset

HEADS = [label(*c) for c in CLASSES] + [HEDGE_HEAD]


def role_names(ruleset: Ruleset = DEFAULT_RULESET) -> list[str]:
    """The role names of the public context's features ("revealed:seer", "claimed:doctor"): the game's roles."""
    return [str(role.value) for role in ruleset.roles]


def unpenalised(rulesets: Iterable[Ruleset] = (DEFAULT_RULESET,)) -> np.ndarray:
    """The hashed slots of the few general features (the first pass's claims and the public context, of the
    roles of ``rulesets``): fitted without a penalty (``fit_heads``)."""
    names = list(dict.fromkeys(name for ruleset in rulesets for name in role_names(ruleset)))
    context = ["bias", "is_speaker", "rx:hedged", "rx:firm", *(f"rx:{h}" for h in HEADS[:-1]),
               *(f"rx:{k}" for k in ("role", "team", "seer_result", "protected")),
               *(f"{what}:{role}" for what in ("revealed", "claimed") for role in names)]  # fmt: skip
    return np.unique(hashed(context))


ROLE_NAMES = role_names()  # the built-in roles' (items of games of their own roles carry a ``ruleset``)
UNPENALISED = unpenalised()
ITERATIONS, RATE, L2, THRESHOLD = 300, 0.05, 1e-2, 0.3
KEEP = 1e-3  # weights smaller than this are left out of the shipped model (they change no decision)


def item_features(item: dict[str, Any], games: dict[str, Any] | None) -> dict[int, list[str]]:
    """The candidates of one labelled item and their features: the text, the public context and the pattern
    reader's claims (its first pass)."""
    speaker = seat_of(item, item["speaker"])
    speaker = -1 if speaker is None else speaker
    known, claimed = known_roles(item, games), claimed_roles(item, games)
    first = extractor_for(tuple(item["players"]), ruleset_of(item)).extract(item["text"], speaker, known, claimed)
    context: dict[int, list[str]] = {}
    for claim in first:
        kind, role, team, negated = class_of(claim)
        context.setdefault(claim["player"], []).extend(
            [f"rx:{label(kind, role, team, negated)}", f"rx:{kind}", "rx:hedged" if claim.get("hedged") else "rx:firm"]
        )
    for role, seat in known:
        context.setdefault(seat, []).append(f"revealed:{role}")
    for seat, role in claimed:
        context.setdefault(seat, []).append(f"claimed:{role}")
    return candidate_features(item["text"], item["players"], speaker, context)


def rows(
    items: Sequence[dict[str, Any]], games: dict[str, Any] | None, sources: list[str] | None = None
) -> tuple[list[np.ndarray], np.ndarray]:
    """Hashed features and targets (candidates x heads; the hedge target: any of its claims hedged); with
    ``sources``, each row's source is appended to it."""
    features, targets = [], []
    for item in items:
        gold: dict[int, list[dict[str, Any]]] = {}
        for claim in gold_claims(item):
            gold.setdefault(claim["player"], []).append(claim)
        for seat, feats in sorted(item_features(item, games).items()):
            classes = {label(*class_of(c)) for c in gold.get(seat, [])}
            target = [float(name in classes) for name in HEADS[:-1]]
            target.append(float(any(c["hedged"] for c in gold.get(seat, []))))
            features.append(hashed(feats))
            targets.append(target)
            if sources is not None:
                sources.append(str(item.get("source", "?")))
    return features, np.array(targets, dtype=np.float64).reshape(-1, len(HEADS))


def fit_heads(
    features: list[np.ndarray], targets: np.ndarray, l2: float = L2, free: np.ndarray = UNPENALISED
) -> dict[str, Head]:
    """Every head at once: logistic regressions on the shared sparse rows (the hedge head only on rows
    that carry a claim); ``free``: the slots fitted without a penalty (``unpenalised`` of the items' rulesets)."""
    n, heads = targets.shape
    lengths = np.array([len(f) for f in features], dtype=np.int64)
    indices = np.concatenate(features) if features else np.zeros(0, dtype=np.int64)
    row_of = np.repeat(np.arange(n), lengths)
    starts = np.concatenate([[0], np.cumsum(lengths)[:-1]]).astype(np.int64)
    used, local = np.unique(indices, return_inverse=True)  # fit only the slots that occur
    # The first pass's claims and the public context are few, general features: unpenalised, so that the
    # many words (penalised) only add to what the pattern reader already says where the labels support it.
    penalty = l2 * (~np.isin(used, free)).astype(np.float64)[:, None]
    weights = np.zeros((len(used), heads))
    bias = np.zeros(heads)
    mask = np.ones_like(targets)
    mask[:, -1] = targets[:, :-1].max(axis=1)  # hedging is learnt where there is a claim
    counts = np.maximum(mask.sum(axis=0), 1.0)
    m_w, v_w, m_b, v_b = (np.zeros_like(weights), np.zeros_like(weights), np.zeros_like(bias), np.zeros_like(bias))
    for step in range(1, ITERATIONS + 1):
        z = np.add.reduceat(weights[local], starts, axis=0) if n else np.zeros((0, heads))
        z[lengths == 0] = 0.0
        error = (1.0 / (1.0 + np.exp(-(z + bias))) - targets) * mask / counts
        grad_w = (
            np.stack([np.bincount(local, weights=error[row_of, h], minlength=len(used)) for h in range(heads)], axis=1)
            + penalty * weights
        )
        grad_b = error.sum(axis=0)
        for param, grad, m, v in ((weights, grad_w, m_w, v_w), (bias, grad_b, m_b, v_b)):
            m *= 0.9
            m += 0.1 * grad
            v *= 0.999
            v += 0.001 * grad * grad
            param -= RATE * (m / (1 - 0.9**step)) / (np.sqrt(v / (1 - 0.999**step)) + 1e-8)
    out = {}
    for h, name in enumerate(HEADS):
        keep = np.abs(weights[:, h]) >= KEEP
        out[name] = Head(used[keep].astype(np.int32), weights[keep, h].astype(np.float16), float(bias[h]))
    return out


THRESHOLDS = (0.05, 0.075, 0.1, 0.15, 0.2, 0.25, 0.3, 0.4, 0.5)


def fit(items: Sequence[dict[str, Any]], games: dict[str, Any] | None) -> LearnedStage:
    """The heads fitted on ``items``, with the decision threshold chosen on those items alone: the one that
    reads claims best (candidate-level F1) on each of their sources when it is left out of the fit. Heads
    fitted on some sources are less sure of others' speech, so the threshold that holds on new speech is
    lower than the in-sample one; choosing it by leaving sources out keeps it fitted on ``items`` only."""
    row_source: list[str] = []
    features, targets = rows(items, games, row_source)
    free = unpenalised({ruleset_of(item) for item in items} or {DEFAULT_RULESET})
    return LearnedStage(fit_heads(features, targets, free=free), choose_threshold(features, targets, row_source, free))


def choose_threshold(
    features: list[np.ndarray], targets: np.ndarray, row_source: list[str], free: np.ndarray = UNPENALISED
) -> float:
    """The threshold in ``THRESHOLDS`` with the best claim F1 over out-of-source probabilities (each source's
    rows scored by heads fitted on the other sources); ``THRESHOLD`` when there are fewer than 3 sources."""
    groups = sorted(set(row_source))
    if len(groups) < 3:
        return THRESHOLD
    probabilities = np.zeros((len(features), len(HEADS) - 1))
    where = np.array(row_source)
    for source in groups:
        held = np.flatnonzero(where == source)
        kept = np.flatnonzero(where != source)
        stage = LearnedStage(fit_heads([features[k] for k in kept], targets[kept], free=free), THRESHOLD)
        for k in held:
            p = stage.slot_probabilities(features[k])
            probabilities[k] = [p[name] for name in HEADS[:-1]]
    truth = targets[:, :-1] > 0
    best, best_f1 = THRESHOLD, -1.0
    for threshold in THRESHOLDS:
        predicted = probabilities >= threshold
        tp = float((predicted & truth).sum())
        f1 = 2 * tp / max(2 * tp + float((predicted & ~truth).sum()) + float((~predicted & truth).sum()), 1.0)
        if f1 > best_f1:
            best, best_f1 = threshold, f1
    return best


def labeler(stage: LearnedStage, games: dict[str, Any] | None) -> Callable[[list[dict[str, Any]]], list[Any]]:
    """The two passes as a claims_eval labeler: the learned stage decides every class it models; the
    pattern reader's claims of other kinds (protections, poisonings) are kept as they are."""
    modelled = {(kind, role, team, negated) for kind, role, team, negated in CLASSES}

    def label_items(items: list[dict[str, Any]]) -> list[Any]:
        out = []
        for item in items:
            speaker = seat_of(item, item["speaker"])
            speaker = -1 if speaker is None else speaker
            known, claimed = known_roles(item, games), claimed_roles(item, games)
            first = extractor_for(tuple(item["players"]), ruleset_of(item)).extract(
                item["text"], speaker, known, claimed
            )
            claims = [c for c in first if class_of(c) not in modelled]
            for seat, feats in sorted(item_features(item, games).items()):
                claims += stage.claims(seat, feats)
            out.append(claims)
        return out

    return label_items


def save(stage_heads: dict[str, Head], path: Path = MODEL_PATH) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    arrays: dict[str, Any] = {"names": np.array(list(stage_heads)), "threshold": np.array(THRESHOLD),
                              "dimensions": np.array(DIMENSIONS)}  # fmt: skip
    for name, head in stage_heads.items():
        arrays[f"{name}_slots"], arrays[f"{name}_values"] = head.slots, head.values
        arrays[f"{name}_bias"] = np.array(head.bias)
    with open(path, "wb") as handle:
        np.savez_compressed(handle, **arrays)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m werewolf_deception.benchmarks.labels.train", description=__doc__.split("\n\n")[0]
    )
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    parser.add_argument("--out", type=Path, default=MODEL_PATH)
    args = parser.parse_args(argv)
    if not (args.corpus / "games.jsonl").exists():
        print(f"claims_train: no corpus at {args.corpus}", file=sys.stderr)
        return 3
    items = [item for group in dev_sets(args.corpus).values() for item in group]
    features, targets = rows(items, games_by_id(args.corpus))
    heads = fit_heads(features, targets, free=unpenalised({ruleset_of(item) for item in items} or {DEFAULT_RULESET}))
    save(heads, args.out)
    kept = sum(len(h.slots) for h in heads.values())
    print(
        f"claims_train: {len(items)} statements, {len(targets)} candidates, {len(heads)} heads, "
        f"{kept} weights kept -> {args.out}",
        file=sys.stderr,
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
