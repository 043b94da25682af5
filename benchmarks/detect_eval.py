"""``werewolf-bench detect-eval``: train the deception detector and compare it, on held-out games,
with rules on the counterfactual values, the agents' own peer judgment, and trivial baselines.

Train and held-out games come from disjoint seeds (held-out seeds start at ``seed + 1_000_000``)
and are played as ordinary resumable runs in ``OUT/train`` and ``OUT/test``; each game's statement
features (with the counterfactual values, the slow part) are cached in ``OUT/features``. The table
(precision, recall, F1 and AUROC on the held-out statements, with 95% intervals from a bootstrap over
held-out games) is printed and saved to ``OUT/detect_eval.json``; the detector to
``OUT/detector.json``. Every threshold is chosen on the training games only.
"""

from __future__ import annotations

import asyncio
import json
import multiprocessing
from concurrent.futures import ProcessPoolExecutor, as_completed
from pathlib import Path
from typing import Any

import numpy as np

from agents.lineup import Lineup
from werewolf_env import GameConfig
from werewolf_env.counterfactual import CounterfactualValuer
from werewolf_env.stats import Bootstrap

from .detector import TEXT_FEATURES, VALUE_FEATURES, best_threshold, fit, statement_rows
from .progress import Bar
from .runs import Job, Progress, RunDir, play_run

HELD_OUT_OFFSET = 1_000_000


def play_split(
    out: Path, config: GameConfig, lineup: Lineup, seeds: list[int], concurrency: int, quiet: bool,
    label: str = "games",
) -> list[Path]:  # fmt: skip
    run = RunDir(out)
    jobs = [Job(f"seed{s}", s, lineup) for s in seeds]
    identity = {"config": config.model_dump(mode="json"), "lineup": lineup.model_dump(mode="json")}
    finished = run.open(identity, [j.id for j in jobs], "run", "detect-eval", seeds)
    todo = [j for j in jobs if j.id not in finished]
    if todo:
        progress = Progress(len(jobs), len(finished), quiet=quiet, label=label)
        asyncio.run(play_run(run, config, todo, concurrency, progress))
        progress.finish()
    results = run.read_results()
    return [run.log_of(j.id) for j in jobs if results.get(j.id, {}).get("status") == "ok"]


def features_of(log: str, cache: str, determinizations: int, rollouts: int, seed: int) -> list[dict[str, Any]]:
    """A game's statement rows, from the cache when it holds this budget's."""
    path = Path(cache)
    key = {"determinizations": determinizations, "rollouts": rollouts, "seed": seed}
    if path.is_file():
        data = json.loads(path.read_text(encoding="utf-8"))
        if data.get("budget") == key:
            return data["rows"]
    valuer = CounterfactualValuer(determinizations, rollouts, seed)
    rows = statement_rows(log, valuer)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps({"budget": key, "rows": rows}), encoding="utf-8")
    tmp.replace(path)
    return rows


def split_features(
    logs: list[Path], cache: Path, budget: tuple[int, int, int], workers: int, bar: Bar | None = None
) -> list[dict[str, Any]]:
    """Every statement row of ``logs``, in their order (``bar`` advanced as each game's are ready)."""
    args = [(str(log), str(cache / f"{log.stem}.json"), *budget) for log in logs]
    parts: list[list[dict[str, Any]]] = [[] for _ in args]
    if workers > 1:
        with ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("spawn")) as pool:
            futures = {pool.submit(features_of, *a): k for k, a in enumerate(args)}
            for future in as_completed(futures):
                parts[futures[future]] = future.result()
                if bar is not None:
                    bar.advance()
    else:
        for k, a in enumerate(args):
            parts[k] = features_of(*a)
            if bar is not None:
                bar.advance()
    return [row for part in parts for row in part]


def _matrix(rows: list[dict[str, Any]], which: str) -> np.ndarray:
    if which == "text":
        return np.array([r["text_features"] for r in rows], dtype=float)
    if which == "values":
        return np.array([r["value_features"] for r in rows], dtype=float)
    return np.array([r["text_features"] + r["value_features"] for r in rows], dtype=float)


def _scores(rows: list[dict[str, Any]], name: str) -> np.ndarray:
    idx = VALUE_FEATURES.index(f"mean_{name}")
    return np.array([r["value_features"][idx] for r in rows], dtype=float)


def evaluate(name: str, pred: np.ndarray, truth: np.ndarray, game: np.ndarray, score: np.ndarray | None,
             resamples: int = 1000) -> dict[str, Any]:  # fmt: skip
    boot = Bootstrap(int(game.max()) + 1 if game.size else 0, resamples, seed=0)
    pred = pred.astype(float)
    truth = truth.astype(float)
    tp = pred * truth
    return {
        "method": name,
        "precision": boot.ratio(game, tp, pred).to_json(),
        "recall": boot.ratio(game, tp, truth).to_json(),
        "f1": boot.ratio(game, 2 * tp, pred + truth).to_json(),
        "auroc": boot.auc(game, score, truth > 0).to_json() if score is not None else None,
        "flagged": int(pred.sum()),
    }


def run_detect_eval(
    out: Path, lineup: Lineup, config: GameConfig, train_games: int, test_games: int, seed: int,
    determinizations: int, rollouts: int, workers: int, concurrency: int, quiet: bool = False,
) -> dict[str, Any]:  # fmt: skip
    train_seeds = [seed + k for k in range(train_games)]
    train_logs = play_split(out / "train", config, lineup, train_seeds, concurrency, quiet, "train games")
    test_seeds = [seed + HELD_OUT_OFFSET + k for k in range(test_games)]
    test_logs = play_split(out / "test", config, lineup, test_seeds, concurrency, quiet, "test games")
    budget = (determinizations, rollouts, seed)
    # The counterfactual values are the slow part: a bar per split (games whose features are cached count at once).
    with Bar("train features", len(train_logs), quiet=quiet) as bar:
        train = split_features(train_logs, out / "features" / "train", budget, workers, bar)
    with Bar("test features", len(test_logs), quiet=quiet) as bar:
        test = split_features(test_logs, out / "features" / "test", budget, workers, bar)
    if not train or not test:
        raise ValueError("no statements to learn from or to test on: play more games")
    y_train = np.array([r["lie"] for r in train], dtype=bool)
    y_test = np.array([r["lie"] for r in test], dtype=bool)
    train_group = np.array([r["game"] for r in train])
    games = {g: k for k, g in enumerate(sorted({r["game"] for r in test}))}
    game = np.array([games[r["game"]] for r in test])
    table = []

    for sign in ("bait", "switch", "edge"):
        s_train, s_test = _scores(train, sign), _scores(test, sign)
        direction = 1.0 if _auc_sign(s_train, y_train) >= 0 else -1.0
        t = best_threshold(direction * s_train, y_train)
        table.append(evaluate(f"rule: {'' if direction > 0 else '-'}{sign} >= {direction * t:+.3f}",
                              direction * s_test >= t, y_test, game, direction * s_test))  # fmt: skip
    total_train = _scores(train, "bait") + _scores(train, "switch") + _scores(train, "edge")
    total_test = _scores(test, "bait") + _scores(test, "switch") + _scores(test, "edge")
    t = best_threshold(total_train, y_train)
    table.append(evaluate(f"linear sum: bait + switch + edge >= {t:+.3f}", total_test >= t, y_test, game, total_test))

    models = {}
    for which, features in (
        ("text", TEXT_FEATURES),
        ("values", VALUE_FEATURES),
        ("both", TEXT_FEATURES + VALUE_FEATURES),
    ):
        model = fit(_matrix(train, which), y_train, features, train_group)
        models[which] = model
        p = model.probability(_matrix(test, which))
        label = {
            "text": "classifier: text only",
            "values": "classifier: values only",
            "both": "classifier: text + values",
        }[which]
        table.append(evaluate(label, p >= model.threshold, y_test, game, p))

    uses_llm = any(spec.kind == "llm" for spec in [lineup.default, *lineup.teams.values(), *lineup.roles.values(),
                                                     *lineup.seats.values()])  # fmt: skip
    peers = np.array([r["peer_detected"] for r in test], dtype=bool)
    share = np.array([r["peer_flag_share"] for r in test], dtype=float)
    judges = "LLM direct judgment" if uses_llm else "heuristic peers"
    table.append(evaluate(f"peers' own judgment ({judges}, majority)", peers, y_test, game, share))
    majority = bool(y_train.mean() >= 0.5)
    table.append(evaluate(f"majority class ({'lie' if majority else 'no lie'})", np.full(len(test), majority),
                          y_test, game, None))  # fmt: skip
    rng = np.random.default_rng(seed)
    table.append(evaluate(f"random (lie with p = {y_train.mean():.2f})", rng.random(len(test)) < y_train.mean(),
                          y_test, game, None))  # fmt: skip

    models["both"].save(out / "detector.json")
    result = {
        "lineup": lineup.model_dump(mode="json"), "config": config.model_dump(mode="json"),
        "train": {"games": len(train_logs), "statements": len(train), "lies": int(y_train.sum()),
                  "seeds": [seed, seed + train_games - 1]},
        "test": {"games": len(test_logs), "statements": len(test), "lies": int(y_test.sum()),
                 "seeds": [test_seeds[0], test_seeds[-1]] if test_seeds else []},
        "budget": {"determinizations": determinizations, "rollouts": rollouts,
                   "rollouts_run": int(sum(r["rollouts"] for r in train + test))},
        "table": table, "detector": str(out / "detector.json"),
    }  # fmt: skip
    (out / "detect_eval.json").write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
    return result


def _auc_sign(score: np.ndarray, y: np.ndarray) -> float:
    """Positive when higher scores go with lies (AUROC above one half)."""
    if y.all() or not y.any():
        return 0.0
    est = Bootstrap(1, 0).auc(np.zeros(len(y), dtype=int), score, y)
    return (est.value or 0.5) - 0.5


def print_table(result: dict[str, Any]) -> None:
    def cell(est: dict[str, Any] | None) -> str:
        if not est or est.get("value") is None:
            return "n/a"
        low, high = est["ci"]
        return f"{est['value']:.2f} [{low:.2f},{high:.2f}]" if low is not None else f"{est['value']:.2f}"

    train, test = result["train"], result["test"]
    budget = result["budget"]
    print(f"detect-eval: trained on {train['statements']} statements ({train['lies']} lies) of {train['games']} "
          f"games; held out {test['statements']} statements ({test['lies']} lies) of {test['games']} games; "
          f"budget {budget['determinizations']} determinizations x {budget['rollouts']} rollouts")  # fmt: skip
    print(f"  {'method':<52}{'precision':<19}{'recall':<19}{'F1':<19}{'AUROC':<19}")
    for row in result["table"]:
        print(f"  {row['method']:<52}{cell(row['precision']):<19}{cell(row['recall']):<19}"
              f"{cell(row['f1']):<19}{cell(row['auroc']):<19}")  # fmt: skip
    print(f"  detector: {result['detector']}")
