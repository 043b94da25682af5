"""``werewolf-bench detect-eval``: play training and held-out games, then fit every detector
(``werewolf_deception.benchmarks.detect.registry``) on the training games and compare them on the held-out ones.

Train and held-out games come from disjoint seeds (held-out seeds start at ``seed + 1_000_000``) and are played as
ordinary resumable runs in ``OUT/train`` and ``OUT/test``; each game's statement rows (with the counterfactual values,
the slow part) are cached in ``OUT/features``. The table (``werewolf_deception.benchmarks.detect.table``: precision,
recall, F1 and AUROC on the held-out statements with 95% intervals from a bootstrap over held-out games, coverage,
recall per lie type, model cost) is printed and saved to ``OUT/detect_eval.json``; each fitted detector to
``OUT/detectors/``, the text+values classifier also to ``OUT/detector.json``. Every threshold is chosen on the training
games only. ``--train RUN... --test RUN...`` evaluates on games already played instead
(``werewolf_deception.benchmarks.detect.runs``).
"""

from __future__ import annotations

import asyncio
import json
import multiprocessing
from concurrent.futures import ProcessPoolExecutor, as_completed
from pathlib import Path
from typing import Any

from werewolf_deception.agents.play import Lineup
from werewolf_deception.benchmarks.console import Bar
from werewolf_deception.benchmarks.detect.detector import statement_rows
from werewolf_deception.benchmarks.detect.registry import DEFAULT
from werewolf_deception.benchmarks.detect.table import detector_table
from werewolf_deception.benchmarks.runs import Job, Progress, RunDir, play_run
from werewolf_env import GameConfig
from werewolf_env.counterfactual import CounterfactualValuer

HELD_OUT_OFFSET = 1_000_000


def play_split(
    out: Path,
    config: GameConfig,
    lineup: Lineup,
    seeds: list[int],
    concurrency: int,
    quiet: bool,
    label: str = "games",
) -> list[Path]:
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


ROWS_VERSION = 2  # 2: answered peers' share and the speaker's own answer (``statement_rows``)


def features_of(
    log: str, cache: str, determinizations: int, rollouts: int, seed: int, game_id: str | None = None
) -> list[dict[str, Any]]:
    """A game's statement rows, from the cache when it holds this budget's for this log."""
    path = Path(cache)
    key = {"determinizations": determinizations, "rollouts": rollouts, "seed": seed, "rows": ROWS_VERSION,
           "log_bytes": Path(log).stat().st_size}  # fmt: skip
    rows: list[dict[str, Any]] | None = None
    if path.is_file():
        data = json.loads(path.read_text(encoding="utf-8"))
        if data.get("budget") == key:
            rows = data["rows"]
    if rows is None:
        valuer = CounterfactualValuer(determinizations, rollouts, seed)
        rows = statement_rows(log, valuer)
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(".tmp")
        tmp.write_text(json.dumps({"budget": key, "rows": rows}), encoding="utf-8")
        tmp.replace(path)
    for row in rows:  # where the rows came from, as this run names it (the LLM judge reads the log again)
        row["game"] = game_id or Path(log).stem
        row["log"] = str(log)
    return rows


def split_features(
    logs: list[Path],
    cache: Path,
    budget: tuple[int, int, int],
    workers: int,
    bar: Bar | None = None,
    game_ids: list[str] | None = None,
) -> list[dict[str, Any]]:
    """Every statement row of ``logs``, in their order (``bar`` advanced as each game's are ready); each cached
    in ``cache`` under its game id (default: the log's name)."""
    ids = game_ids or [log.stem for log in logs]
    args = [
        (str(log), str(cache / f"{gid.replace('/', '.')}.json"), *budget, gid)
        for log, gid in zip(logs, ids, strict=True)
    ]
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


def split_summary(logs: list[Path], rows: list[dict[str, Any]]) -> dict[str, Any]:
    return {"games": len(logs), "statements": len(rows), "lies": sum(bool(r["lie"]) for r in rows)}


def run_detect_eval(
    out: Path,
    lineup: Lineup,
    config: GameConfig,
    train_games: int,
    test_games: int,
    seed: int,
    determinizations: int,
    rollouts: int,
    workers: int,
    concurrency: int,
    quiet: bool = False,
    detectors: list[str] | None = None,
    settings: dict[str, Any] | None = None,
) -> dict[str, Any]:
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
    table, fitted = detector_table(detectors or list(DEFAULT), train, test, seed, out, settings)
    classifier = fitted.get("text+values")
    if classifier is not None:  # the classifier alone, as ``play --friction --detector`` reads it
        classifier.model.save(out / "detector.json")
    result = {
        "lineup": lineup.model_dump(mode="json"), "config": config.model_dump(mode="json"),
        "train": {**split_summary(train_logs, train), "seeds": [seed, seed + train_games - 1]},
        "test": {**split_summary(test_logs, test), "seeds": [test_seeds[0], test_seeds[-1]] if test_seeds else []},
        "budget": {"determinizations": determinizations, "rollouts": rollouts,
                   "rollouts_run": int(sum(r["rollouts"] for r in train + test))},
        "table": table, "detector": str(out / "detector.json") if classifier is not None else None,
    }  # fmt: skip
    (out / "detect_eval.json").write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
    return result
