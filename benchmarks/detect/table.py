"""``detect-eval``'s one table: every detector (``werewolf_deception.benchmarks.detect.registry``) fit on the training
games' statement rows and scored on the test games', with two trivial baselines.

Per detector: precision (over the statements it flagged), recall (over every lie: a lie it abstained
on is a miss), F1 and AUROC (over the statements it scored), each with a 95% interval from a
bootstrap over test games; coverage (statements scored / statements); recall per lie type; its
threshold and where it came from (always the training rows); and, for a model-based detector, its
calls and tokens. Detectors are fit on the training rows only and never see a test label.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import numpy as np

from werewolf_deception.benchmarks.detect.registry import Rows, decision_threshold, make_detector, probabilities
from werewolf_env.analysis import Bootstrap

TYPE_SHORT = {"fabrication": "fab", "misdirection": "mis", "distortion": "dis", "omission": "omi"}


def evaluate(
    name: str,
    pred: np.ndarray,
    truth: np.ndarray,
    game: np.ndarray,
    score: np.ndarray | None,
    lie_type: list[str | None] | None = None,
    resamples: int = 1000,
) -> dict[str, Any]:
    """One row of the table. ``score`` NaN marks an abstention (not scored, never flagged); None: no scores."""
    boot = Bootstrap(int(game.max()) + 1 if game.size else 0, resamples, seed=0)
    truth = truth.astype(bool)
    scored = np.isfinite(score) if score is not None else np.ones(len(truth), dtype=bool)
    flagged = pred.astype(bool) & scored
    tp = (flagged & truth).astype(float)
    by_type: dict[str, dict[str, Any]] = {}
    for t in sorted({lt for lt, lie in zip(lie_type or [], truth, strict=False) if lie and lt}):
        of_type = np.array([lt == t for lt in lie_type or []]) & truth
        by_type[t] = {"lies": int(of_type.sum()), "recall": round(float(tp[of_type].sum() / of_type.sum()), 4)}
    auroc = None
    if score is not None:
        auroc = boot.auc(game[scored], score[scored], truth[scored]).to_json() if scored.any() else {"value": None}
    return {
        "method": name,
        "precision": boot.ratio(game, tp, flagged.astype(float)).to_json(),
        "recall": boot.ratio(game, tp, truth.astype(float)).to_json(),
        "f1": boot.ratio(game, 2 * tp, flagged.astype(float) + truth).to_json(),
        "auroc": auroc,
        "flagged": int(flagged.sum()),
        "coverage": {
            "scored": int(scored.sum()),
            "statements": len(truth),
            "share": round(float(scored.mean()), 4) if len(truth) else None,
        },
        "recall_by_type": by_type,
    }


def detector_table(
    specs: list[str],
    train: Rows,
    test: Rows,
    seed: int,
    out: Path | None = None,
    settings: dict[str, Any] | None = None,
) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """The table: each detector of ``specs`` fit on ``train`` and evaluated on ``test`` (saved to
    ``out/detectors/``), then the baselines: the training majority class, and random flags at the training
    lie rate; and the fitted detectors by spec."""
    y_train = np.array([r["lie"] for r in train], dtype=bool)
    truth = np.array([r["lie"] for r in test], dtype=bool)
    games = {g: k for k, g in enumerate(sorted({r["game"] for r in test}))}
    game = np.array([games[r["game"]] for r in test], dtype=int)
    types = [r.get("lie_type") for r in test]
    table = []
    fitted: dict[str, Any] = {}
    for spec in specs:
        detector = fitted[spec] = make_detector(spec, **(settings or {}))
        detector.fit(train)
        threshold, source = decision_threshold(detector, train)
        p = probabilities(detector, test)
        row = evaluate(detector.name, np.nan_to_num(p, nan=-np.inf) >= threshold, truth, game, p, types)
        cost = detector.cost() if callable(getattr(detector, "cost", None)) else None
        table.append({**row, "detector": spec, "threshold": threshold, "threshold_from": source, "cost": cost})
        if out is not None:
            folder = out / "detectors"
            folder.mkdir(parents=True, exist_ok=True)
            detector.save(folder / f"{spec.replace(':', '.').replace('/', '_')}.json")
    majority = bool(y_train.mean() >= 0.5) if len(y_train) else False
    table.append(
        evaluate(
            f"majority class ({'lie' if majority else 'no lie'})",
            np.full(len(test), majority),
            truth,
            game,
            None,
            types,
        )
    )
    rate = float(y_train.mean()) if len(y_train) else 0.0
    rng = np.random.default_rng(seed)
    table.append(evaluate(f"random (lie with p = {rate:.2f})", rng.random(len(test)) < rate, truth, game, None, types))
    return table, fitted


def _cell(est: dict[str, Any] | None) -> str:
    if not est or est.get("value") is None:
        return "n/a"
    low, high = est.get("ci") or (None, None)
    return f"{est['value']:.2f} [{low:.2f},{high:.2f}]" if low is not None else f"{est['value']:.2f}"


def print_table(result: dict[str, Any], file: Any = None) -> None:
    """The table as text (``result`` as ``detect_eval.json`` holds it)."""
    out = file or sys.stdout
    train, test = result["train"], result["test"]
    budget = result["budget"]
    print(
        f"detect-eval: trained on {train['statements']} statements ({train['lies']} lies) of {train['games']} "
        f"games; tested on {test['statements']} statements ({test['lies']} lies) of {test['games']} games; "
        f"budget {budget['determinizations']} determinizations x {budget['rollouts']} rollouts; 95% intervals: "
        "bootstrap over test games",
        file=out,
    )
    for warning in result.get("warnings", []):
        print(f"warning: {warning}", file=out)
    print(
        f"  {'detector':<28}{'precision':<18}{'recall':<18}{'F1':<18}{'AUROC':<18}{'coverage':<10}"
        f"{'recall by lie type':<28}calls/tokens",
        file=out,
    )
    for row in result["table"]:
        by_type = " ".join(f"{TYPE_SHORT.get(t, t[:3])} {v['recall']:.2f}" for t, v in row["recall_by_type"].items())
        cost = row.get("cost")
        spent = f"{cost['calls']}/{cost['tokens']}" if cost else ""
        print(
            f"  {row['method'][:27]:<28}{_cell(row['precision']):<18}{_cell(row['recall']):<18}"
            f"{_cell(row['f1']):<18}{_cell(row['auroc']):<18}{row['coverage']['share']:<10.2f}"
            f"{by_type:<28}{spent}",
            file=out,
        )
    if result.get("detector"):
        print(f"  text+values classifier: {result['detector']}", file=out)
