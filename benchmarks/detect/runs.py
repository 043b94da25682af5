"""``detect-eval --train RUN... --test RUN...``: the detectors on games already played, by any lineup.

Each RUN is a run folder (``werewolf-bench run``, ``tournament``, a ``detect-eval`` split) or a folder of game logs: its
``games/*.ndjson`` (or its own ``*.ndjson``). Every game is replayed from its log
(``werewolf_deception.benchmarks.detect.detector.statement_rows``), so the counterfactual values of LLM games are
computed like those of the games ``detect-eval`` plays; rows are cached in ``OUT/features/{train,test}/``. Splits are by
game: every statement of a game is on one side. A test game with the seed and rules of a training game was dealt the
same roles to the same seats, and with the same players it is the same game: ``overlap_warnings`` says so (the table is
still made; read it as in-sample).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from werewolf_deception.benchmarks.console import Bar
from werewolf_deception.benchmarks.detect.evaluate import split_features, split_summary
from werewolf_deception.benchmarks.detect.registry import DEFAULT
from werewolf_deception.benchmarks.detect.table import detector_table
from werewolf_env.engine import read_log


def run_logs(folder: Path) -> list[Path]:
    """The finished game logs of a run folder (``games/*.ndjson``) or of a folder of logs."""
    if not folder.is_dir():
        raise ValueError(f"{folder} is not a folder (a run folder with games/*.ndjson, or a folder of logs)")
    games = folder / "games"
    logs = sorted((games if games.is_dir() else folder).glob("*.ndjson"))
    if not logs:
        raise ValueError(f"{folder} holds no game logs (games/*.ndjson)")
    return logs


def deal_of(log: Path) -> tuple[Any, str, tuple[str, ...]]:
    """(seed, rules as JSON, the seats' policies): equal seeds and rules deal the same roles to the same seats."""
    records = read_log(log)
    header = records[0] if records else {}
    policies: tuple[str, ...] = ()
    for record in records:
        data = record.get("data") or {}
        if record.get("type") == "agent_record" and data.get("type") == "lineup":  # the runner's record
            policies = tuple(str(p) for p in data.get("policies", []))
            break
    return header.get("seed"), json.dumps(header.get("config"), sort_keys=True), policies


def overlap_warnings(train_logs: list[Path], test_logs: list[Path]) -> list[str]:
    """What the test games share with the training games: seeds and rules (the same deal), and players too."""
    train: dict[tuple[Any, str], set[tuple[str, ...]]] = {}
    for log in train_logs:
        seed, rules, policies = deal_of(log)
        train.setdefault((seed, rules), set()).add(policies)
    same_deal = same_game = 0
    train_seeds = {s for s, _ in train}
    shared_seeds = set()
    for log in test_logs:
        seed, rules, policies = deal_of(log)
        if seed in train_seeds:
            shared_seeds.add(seed)
        if (seed, rules) in train:
            same_deal += 1
            same_game += policies in train[(seed, rules)]
    warnings = []
    if same_deal:
        warnings.append(
            f"{same_deal} of {len(test_logs)} test games have the seed and rules of a training game (the "
            f"same roles dealt to the same seats), {same_game} of them with the same players too (the "
            "same game, unless the agents sample): train and test overlap"
        )
    elif shared_seeds:
        warnings.append(
            f"{len(shared_seeds)} seed(s) are used by training and test games (with other rules): "
            "check that the deals differ"
        )
    return warnings


def _rows(
    out: Path, split: str, runs: list[Path], budget: tuple[int, int, int], workers: int, quiet: bool
) -> tuple[list[Path], list[dict[str, Any]]]:
    logs: list[Path] = []
    ids: list[str] = []
    for k, run in enumerate(runs):
        for log in run_logs(run):
            logs.append(log)
            ids.append(f"{split}{k}-{run.resolve().name}/{log.stem}")
    with Bar(f"{split} features", len(logs), quiet=quiet) as bar:
        rows = split_features(logs, out / "features" / split, budget, workers, bar, ids)
    return logs, rows


def run_runs_eval(
    out: Path,
    train_runs: list[Path],
    test_runs: list[Path],
    seed: int,
    determinizations: int,
    rollouts: int,
    workers: int,
    quiet: bool = False,
    detectors: list[str] | None = None,
    settings: dict[str, Any] | None = None,
) -> dict[str, Any]:
    for run in train_runs + test_runs:
        run_logs(run)  # every folder checked before any work
    budget = (determinizations, rollouts, seed)
    out.mkdir(parents=True, exist_ok=True)
    train_logs, train = _rows(out, "train", train_runs, budget, workers, quiet)
    test_logs, test = _rows(out, "test", test_runs, budget, workers, quiet)
    if not train or not test:
        raise ValueError("no statements to learn from or to test on")
    warnings = overlap_warnings(train_logs, test_logs)
    table, _ = detector_table(detectors or list(DEFAULT), train, test, seed, out, settings)
    result = {
        "train": {**split_summary(train_logs, train), "runs": [str(r) for r in train_runs]},
        "test": {**split_summary(test_logs, test), "runs": [str(r) for r in test_runs]},
        "budget": {"determinizations": determinizations, "rollouts": rollouts,
                   "rollouts_run": int(sum(r["rollouts"] for r in train + test))},
        "warnings": warnings, "table": table,
    }  # fmt: skip
    (out / "detect_eval.json").write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
    return result
