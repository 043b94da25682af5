"""``werewolf-bench detect-eval --dataset peskov2020 --data-dir DIR``: the message detectors
(``werewolf_deception.benchmarks.diplomacy.detectors``, and the stacked one of
``werewolf_deception.benchmarks.diplomacy.models``) on human lies in Diplomacy, with the metric of Peskov et al. 2020.

Two splits, each message scored by a model that never saw its game:

- ``leave_one_game_out``: every game of train + validation in turn is the test game, the detector is
  fit on the others (its L2 strength and threshold by inner cross-validation on those games only),
  and the out-of-fold predictions of all games are pooled;
- ``validation``: fit on ``train.jsonl``, tested on ``validation.jsonl``.

The figures are those of the lie class on sender labels (F1, Peskov et al.'s "Lie F1"), the AUROC and
average precision of the probabilities (which, unlike Lie F1, need no threshold), the macro F1 of the lie
and truth classes, precision and recall, each with a 95% bootstrap interval resampling whole games
(``MIN_GAME_CLUSTERS`` games at least; a test set of fewer games, such as one validation game, resamples its
dialogs instead, and says so), and the lie rate of the messages each row is scored on (a Lie F1 means
little without it: all-lie's Lie F1 is 2r / (1 + r) at lie rate r). Rows for comparison:

- ``human receivers``: the receivers' own labels (``receiver_labels`` false: they suspected a lie), scored as
  Peskov et al. score them, on the messages of the split that carry a receiver label;
- ``random`` (lie with the training lie rate) and ``all-lie``.

The headline (``headline``) asks of one detector (``stacked`` when it ran): does its Lie F1 beat the human
receivers' (on the messages they labelled) and all-lie's, with paired bootstrap intervals of the differences
above zero? The detectors fit on every game are saved to ``OUT/detectors/NAME.json``; the table to
``OUT/detect_eval.json``.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

from werewolf_deception.benchmarks.console import Bar
from werewolf_deception.benchmarks.diplomacy.models import ALL_DETECTORS, make_detector
from werewolf_deception.benchmarks.diplomacy.peskov import Message, read_split
from werewolf_deception.benchmarks.shared_data import diplomacy_dir
from werewolf_env.analysis import Bootstrap

MIN_GAME_CLUSTERS = 5
BASELINES = ("random", "all-lie")
HUMANS = "human receivers"
JUDGE = "llm-judge"  # werewolf_deception.benchmarks.diplomacy.judge: zero-shot, on a sample of each split
HEADLINE = "stacked"  # the detector the headline asks about, named before any score is seen
METRICS = ("lie_f1", "auroc", "average_precision", "macro_f1", "precision", "recall")


def _interval(values: np.ndarray, point: float | None, n: int) -> dict[str, Any]:
    values = values[np.isfinite(values)]
    low, high = np.percentile(values, [2.5, 97.5]) if values.size else (None, None)

    def r(x: Any) -> float | None:
        return None if x is None or not np.isfinite(x) else round(float(x), 4)

    return {"value": r(point), "ci": [r(low), r(high)], "n": n}


def confusion_metrics(
    probability: np.ndarray,
    pred: np.ndarray,
    truth: np.ndarray,
    cluster: np.ndarray,
    resamples: int = 1000,
    seed: int = 0,
) -> dict[str, Any]:
    """Lie F1, macro F1, precision, recall (from per-cluster confusion counts), AUROC and average precision,
    each with a bootstrap interval over clusters, and the lie rate; an abstention (NaN probability) counts as
    "not a lie"."""
    truth = np.asarray(truth, dtype=bool)
    scored = np.isfinite(probability)
    pred = np.asarray(pred, dtype=bool) & scored
    _, cluster = np.unique(cluster, return_inverse=True)
    clusters = int(cluster.max()) + 1 if cluster.size else 0
    boot = Bootstrap(clusters, resamples, seed)
    counts = np.stack(
        [
            np.bincount(cluster, (pred & truth).astype(float), clusters),
            np.bincount(cluster, (pred & ~truth).astype(float), clusters),
            np.bincount(cluster, (~pred & truth).astype(float), clusters),
            np.bincount(cluster, (~pred & ~truth).astype(float), clusters),
        ],
        axis=1,
    )

    def figures(c: np.ndarray) -> dict[str, np.ndarray]:
        tp, fp, fn, tn = c[..., 0], c[..., 1], c[..., 2], c[..., 3]
        with np.errstate(divide="ignore", invalid="ignore"):
            lie = np.where(2 * tp + fp + fn > 0, 2 * tp / (2 * tp + fp + fn), np.nan)
            honest = np.where(2 * tn + fp + fn > 0, 2 * tn / (2 * tn + fp + fn), np.nan)
            return {
                "lie_f1": lie,
                "macro_f1": (lie + honest) / 2,
                "precision": np.where(tp + fp > 0, tp / (tp + fp), np.nan),
                "recall": np.where(tp + fn > 0, tp / (tp + fn), np.nan),
            }

    point = figures(counts.sum(axis=0))
    boots = figures(boot.weights @ counts) if boot.weights.shape[0] else {k: np.zeros(0) for k in point}
    n = int(truth.size)
    out: dict[str, Any] = {k: _interval(boots[k], float(point[k]) if np.isfinite(point[k]) else None, n) for k in point}
    auc = boot.auc(cluster[scored], probability[scored], truth[scored]) if scored.any() else None
    missing = {"value": None, "ci": [None, None], "n": 0}
    out["auroc"] = auc.to_json() if auc is not None else missing
    precision = boot.average_precision(cluster[scored], probability[scored], truth[scored]) if scored.any() else None
    out["average_precision"] = precision.to_json() if precision is not None else missing
    out["lie_rate"] = round(float(truth.mean()), 4) if n else None
    out["coverage"] = round(float(scored.mean()), 4) if n else None
    out["flagged"] = int(pred.sum())
    return out


def counts(rows: list[Message]) -> dict[str, int]:
    return {
        "messages": len(rows),
        "lies": sum(bool(m.lie) for m in rows),
        "games": len({m.game for m in rows}),
        "dialogs": len({m.dialog for m in rows}),
    }


def _cluster(rows: list[Message]) -> tuple[np.ndarray, str]:
    by_game = len({m.game for m in rows}) >= MIN_GAME_CLUSTERS
    return np.array([m.game if by_game else m.dialog for m in rows]), "game" if by_game else "dialog"


def _baseline(name: str, train: list[Message], test: list[Message], rng: np.random.Generator) -> np.ndarray:
    rate = float(np.mean([bool(m.lie) for m in train])) if train else 0.0
    return rng.random(len(test)) < rate if name == "random" else np.ones(len(test), dtype=bool)


def score_split(
    name: str, folds: list[tuple[list[Message], list[Message]]], seed: int, bar: Bar | None = None
) -> tuple[np.ndarray, np.ndarray, list[dict[str, Any]]]:
    """Pooled (probability, prediction) over ``folds`` of (train, test) rows, and each fold's choices."""
    probability: list[np.ndarray] = []
    pred: list[np.ndarray] = []
    chosen: list[dict[str, Any]] = []
    rng = np.random.default_rng(seed)
    for train, test in folds:
        if name in BASELINES:
            flags = _baseline(name, train, test, rng)
            probability.append(flags.astype(float))
            pred.append(flags)
        else:
            detector = make_detector(name).fit(train)
            p = detector.probability(test)
            probability.append(p)
            pred.append(p >= detector.threshold)
            chosen.append(
                {
                    "test_games": sorted({m.game for m in test}),
                    "l2": detector.l2,
                    "threshold": round(detector.threshold, 4),
                    "inner_lie_f1": detector.inner,
                    "notes": detector.notes,
                }
            )
        if bar is not None:
            bar.advance()
    return np.concatenate(probability), np.concatenate(pred), chosen


def human_row(test_rows: list[Message], cluster: np.ndarray, resamples: int, seed: int) -> dict[str, Any] | None:
    """The receivers' own labels as a detector, Peskov et al.'s way: a message its receiver marked false is
    flagged, on the messages with a receiver label only (None when no message has one)."""
    labelled = np.array([m.suspected is not None for m in test_rows], dtype=bool)
    if not labelled.any():
        return None
    flags = np.array([bool(m.suspected) for m in test_rows])[labelled]
    truth = np.array([bool(m.lie) for m in test_rows])[labelled]
    return {
        **confusion_metrics(flags.astype(float), flags, truth, cluster[labelled], resamples, seed),
        "baseline": True,
        "folds": [],
        "sample": {"messages": int(labelled.sum()), "of": len(test_rows), "lies": int(truth.sum())},
    }


def lie_f1_difference(
    pred: np.ndarray, reference: np.ndarray, truth: np.ndarray, cluster: np.ndarray, resamples: int, seed: int
) -> dict[str, Any]:
    """Lie F1 of ``pred`` minus that of ``reference`` on the same messages, with a paired bootstrap interval
    over ``cluster`` (both are recomputed on each resample of the same clusters)."""
    truth = np.asarray(truth, dtype=bool)
    _, index = np.unique(cluster, return_inverse=True)
    clusters = int(index.max()) + 1 if index.size else 0
    boot = Bootstrap(clusters, resamples, seed)

    def f1(flags: np.ndarray, weights: np.ndarray) -> np.ndarray:
        flags = np.asarray(flags, dtype=bool)
        tp, flagged, lies = (
            weights @ np.bincount(index, v.astype(float), clusters) for v in (flags & truth, flags, truth)
        )
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(flagged + lies > 0, 2 * tp / (flagged + lies), np.nan)

    ones = np.ones((1, clusters))
    value = float((f1(pred, ones) - f1(reference, ones))[0])
    draws = f1(pred, boot.weights) - f1(reference, boot.weights) if boot.weights.shape[0] else np.zeros(0)
    rate = round(float(truth.mean()), 4) if truth.size else None
    return {**_interval(draws, value, int(truth.size)), "lie_rate": rate}


def headline(
    name: str, pred: np.ndarray, test_rows: list[Message], cluster: np.ndarray, resamples: int, seed: int
) -> dict[str, Any]:
    """Does ``name`` beat the human receivers (on the messages they labelled) and all-lie (on every message) in
    Lie F1, with the intervals of both differences above zero?"""
    truth = np.array([bool(m.lie) for m in test_rows])
    versus: dict[str, Any] = {"all-lie": lie_f1_difference(pred, np.ones(truth.size, dtype=bool), truth, cluster,
                                                           resamples, seed)}  # fmt: skip
    labelled = np.array([m.suspected is not None for m in test_rows], dtype=bool)
    if labelled.any():
        suspected = np.array([bool(m.suspected) for m in test_rows])
        versus[HUMANS] = lie_f1_difference(
            pred[labelled], suspected[labelled], truth[labelled], cluster[labelled], resamples, seed
        )
    beats = HUMANS in versus and all(d["ci"][0] is not None and d["ci"][0] > 0 for d in versus.values())
    return {"detector": name, "lie_f1_minus": versus, "beats_both": beats}


def judge_split(
    judge: Any, test_rows: list[Message], sample: int, seed: int, resamples: int, bar: Bar | None = None
) -> dict[str, Any]:
    """The zero-shot judge on a seeded random sample of ``sample`` of ``test_rows`` (all of them when 0 or
    more), each read with the earlier messages of its dialog; its figures rest on the sample."""
    rng = np.random.default_rng(seed)
    k = len(test_rows) if sample <= 0 or sample >= len(test_rows) else sample
    picked = (
        sorted(rng.choice(len(test_rows), size=k, replace=False).tolist())
        if k < len(test_rows)
        else list(range(len(test_rows)))
    )
    rows = [test_rows[i] for i in picked]
    before = judge.cost()
    p = judge.probability(rows, context=test_rows, progress=bar.advance if bar is not None else None)
    after = judge.cost()
    cost = {key: after[key] - before[key] for key in ("calls", "cached_calls", "prompt_tokens", "completion_tokens")}
    cost["outcomes"] = {
        o: n - before["outcomes"].get(o, 0) for o, n in after["outcomes"].items() if n - before["outcomes"].get(o, 0)
    }
    cluster, _ = _cluster(rows)
    truth = np.array([bool(m.lie) for m in rows])
    return {
        **confusion_metrics(p, p >= judge.threshold, truth, cluster, resamples, seed),
        "baseline": False,
        "sample": {"messages": len(rows), "of": len(test_rows), "lies": int(truth.sum())},
        "cost": cost,
        "threshold": judge.threshold,
        "folds": [],
    }


def run_peskov_eval(
    data_dir: Path,
    out: Path,
    detectors: list[str] | None = None,
    resamples: int = 1000,
    seed: int = 0,
    quiet: bool = False,
    judge: Any = None,
    judge_sample: int = 300,
) -> dict[str, Any]:
    """Every detector of ``detectors`` (default: the fitted ones) on both splits. ``llm-judge`` needs ``judge``
    (``werewolf_deception.benchmarks.diplomacy.judge.DiplomacyJudge``) and reads ``judge_sample`` messages per split."""
    started = time.monotonic()
    names = list(detectors or ALL_DETECTORS)
    unknown = [n for n in names if n not in (*ALL_DETECTORS, JUDGE)]
    if unknown:
        raise ValueError(f"unknown detector(s) {', '.join(unknown)} (known: {', '.join((*ALL_DETECTORS, JUDGE))})")
    if JUDGE in names and judge is None:
        raise ValueError("--detector llm-judge needs --judge-model (and --judge-base-url for another server)")
    judged = JUDGE in names
    names = [n for n in names if n != JUDGE]
    train = [m for m in read_split(data_dir, "train") if m.lie is not None]
    validation = [m for m in read_split(data_dir, "validation") if m.lie is not None]
    everything = train + validation
    games = sorted({m.game for m in everything})
    if len(games) < 2 or not train or not validation:
        raise ValueError("need labelled messages in train.jsonl and validation.jsonl, and two games at least")
    logo = [([m for m in everything if m.game != g], [m for m in everything if m.game == g]) for g in games]
    splits = {"leave_one_game_out": (logo, [m for _, test in logo for m in test]),
              "validation": ([(train, validation)], validation)}  # fmt: skip
    result: dict[str, Any] = {"dataset": "peskov2020", "data_dir": str(data_dir), "label": "sender (lie = sender_label "
                              "false)", "splits": {}}  # fmt: skip
    out.mkdir(parents=True, exist_ok=True)
    with Bar("peskov2020 fits", len(names) * (len(logo) + 2), unit="fits", quiet=quiet) as bar:
        for split, (folds, test_rows) in splits.items():
            cluster, unit = _cluster(test_rows)
            truth = np.array([bool(m.lie) for m in test_rows])
            table: dict[str, Any] = {}
            predictions: dict[str, np.ndarray] = {}
            for name in [*names, *BASELINES]:
                p, predictions[name], chosen = score_split(name, folds, seed, bar if name in ALL_DETECTORS else None)
                table[name] = {**confusion_metrics(p, predictions[name], truth, cluster, resamples, seed),
                               "baseline": name in BASELINES, "folds": chosen}  # fmt: skip
            humans = human_row(test_rows, cluster, resamples, seed)
            if humans is not None:
                table[HUMANS] = humans
            result["splits"][split] = {**counts(test_rows), "lie_rate": round(float(truth.mean()), 4),
                                       "interval_clusters": unit, "clusters": len(set(cluster.tolist())),
                                       "detectors": table}  # fmt: skip
            if names:
                chief = HEADLINE if HEADLINE in names else names[-1]
                result["splits"][split]["headline"] = headline(
                    chief, predictions[chief], test_rows, cluster, resamples, seed
                )
        (out / "detectors").mkdir(exist_ok=True)
        for name in names:
            make_detector(name).fit(everything).save(out / "detectors" / f"{name}.json")
            bar.advance()
    if judged:  # zero-shot: it reads no training game, so both splits are just the messages judged
        sampled = sum(min(judge_sample, len(rows)) if judge_sample > 0 else len(rows) for _, rows in splits.values())
        with Bar("peskov2020 judge", sampled, unit="messages", quiet=quiet) as bar:
            for split, (_, test_rows) in splits.items():
                result["splits"][split]["detectors"][JUDGE] = judge_split(
                    judge, test_rows, judge_sample, seed, resamples, bar
                )
    result["detectors_saved"] = {n: str(out / "detectors" / f"{n}.json") for n in names}
    result["seconds"] = round(time.monotonic() - started, 1)
    (out / "detect_eval.json").write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
    return result


def print_peskov_table(result: dict[str, Any]) -> None:
    def cell(est: dict[str, Any]) -> str:
        if est.get("value") is None:
            return "n/a"
        low, high = est["ci"]
        return f"{est['value']:.3f} [{low:.2f},{high:.2f}]" if low is not None else f"{est['value']:.3f}"

    for split, part in result["splits"].items():
        clusters = f"{part['clusters']} {part['interval_clusters']}s"
        print(
            f"{split}: {part['messages']} messages, {part['lies']} lies (lie rate {part['lie_rate']:.1%}), "
            f"{part['games']} game(s); 95% intervals resample {clusters}"
        )
        print(f"  {'detector':<22}{'lie rate':<10}" + "".join(f"{m:<22}" for m in METRICS))
        for name, row in part["detectors"].items():
            print(f"  {name:<22}{row['lie_rate']:<10.1%}" + "".join(f"{cell(row[m]):<22}" for m in METRICS))
            sample, cost = row.get("sample"), row.get("cost")
            if sample is not None and cost is not None:
                print(
                    f"    {name}: {sample['messages']} of {sample['of']} messages judged ({sample['lies']} lies), "
                    f"answered {row['coverage']:.0%}; {cost['calls']} calls ({cost['cached_calls']} cached), "
                    f"{cost['prompt_tokens']:,} prompt + {cost['completion_tokens']:,} completion tokens; "
                    f"outcomes {cost['outcomes']}"
                )
            elif sample is not None:
                print(
                    f"    {name}: the {sample['messages']:,} of {sample['of']:,} messages with a receiver label "
                    f"({sample['lies']} lies)"
                )
        if "headline" in part:
            print("  " + headline_text(part["headline"]))
    print(f"detectors fit on every game: {', '.join(result['detectors_saved'].values())} ({result['seconds']} s)")


def headline_text(head: dict[str, Any]) -> str:
    """One line: whether the headline detector beats the human receivers and all-lie, with the differences."""

    def diff(name: str) -> str:
        d = head["lie_f1_minus"][name]
        low, high = d["ci"]
        interval = f" [{low:+.3f}, {high:+.3f}]" if low is not None else ""
        return f"{name} {d['value']:+.3f}{interval} (on {d['n']:,} messages, lie rate {d['lie_rate']:.1%})"

    verdict = "beats" if head["beats_both"] else "does NOT beat"
    compared = "; ".join(diff(name) for name in (HUMANS, "all-lie") if name in head["lie_f1_minus"])
    missing = "" if HUMANS in head["lie_f1_minus"] else " (no receiver labels to compare with)"
    return (
        f"headline: {head['detector']} {verdict} the human receivers and the all-lie baseline with intervals "
        f"above both{missing}. Lie F1 minus {compared}"
    )


DEFAULT_DATA_DIR = diplomacy_dir()  # $WEREWOLF_SHARED_DATA, else ../shared/data


def dataset_command(args: Any) -> int:
    """``detect-eval --dataset peskov2020``: the options of ``werewolf_deception.benchmarks.cli.main``'s detect-eval."""
    from werewolf_deception.agents.llm import EndpointDownError
    from werewolf_deception.agents.play import AgentSpec
    from werewolf_deception.benchmarks.console import EXIT_BAD_OPTIONS, EXIT_INVALID, check_run_flags, judge_settings
    from werewolf_deception.benchmarks.diplomacy.judge import DiplomacyJudge
    from werewolf_deception.benchmarks.runs import RunFolderError, check_out_folder, preflight_gate, stopped

    args.out = args.out or Path(f"runs/detect-eval-{args.dataset}")
    specs = list(dict.fromkeys(args.detector or ALL_DETECTORS))
    try:
        check_run_flags(args)
        settings = judge_settings(args, specs)
        # ``llm-cache`` alone: a judge run stopped early, which a rerun resumes from its cached answers.
        check_out_folder(args.out, "--out", ("detect_eval.json", "detectors", "llm-cache/*"))
    except (ValueError, RunFolderError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_BAD_OPTIONS
    probed = preflight_gate(
        [(JUDGE, AgentSpec.model_validate({"kind": "llm", **settings["options"]}))] if settings else [], args
    )
    if isinstance(probed, int):
        return probed
    try:
        result = run_peskov_eval(
            args.data_dir or DEFAULT_DATA_DIR,
            args.out,
            specs,
            seed=args.seed,
            quiet=args.quiet,
            judge=DiplomacyJudge(**settings) if settings else None,
            judge_sample=args.judge_sample,
        )
    except (ValueError, RunFolderError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_BAD_OPTIONS
    except EndpointDownError as exc:  # the judge's breaker tripped
        return stopped("detect-eval", exc, f"the judge's answers so far are cached in {args.out / 'llm-cache'}")
    if not args.quiet:
        print_peskov_table(result)
    for split, part in result["splits"].items():
        row = part["detectors"].get(JUDGE)
        if row is not None and 1 - (row["coverage"] or 0.0) > args.max_fallback_rate:
            print(
                f"llm-judge answered {row['coverage'] or 0:.0%} of the {split} messages it read: more than "
                f"--max-fallback-rate {args.max_fallback_rate} went without a valid answer",
                file=sys.stderr,
            )
            return EXIT_INVALID
    return 0
