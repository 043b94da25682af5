"""How well a claim labeler reads real LLM speech: claim and lie scores on hand-labelled statements.

    # the dev sets, regex labeler, JSON on stdout
    python -m werewolf_deception.benchmarks.labels.evaluate
    # any JSONL labelled per LABELING.md
    python -m werewolf_deception.benchmarks.labels.evaluate --data held_out.jsonl
    # any OpenAI-compatible model
    python -m werewolf_deception.benchmarks.labels.evaluate --labeler llm --model M --base-url URL
    # the regex and LLM claims merged
    python -m werewolf_deception.benchmarks.labels.evaluate --labeler union --model M --base-url URL
    # leave one source out: the accuracy on new speech
    python -m werewolf_deception.benchmarks.labels.evaluate --loso

Without ``--data`` it scores the two labelled sets of real speech the project has: the corpus's own 150 statements
(``dev_labeled.jsonl``) and the project's random sample (``werewolf_deception.benchmarks.labels.sample``), each alone
and together; it needs ``../shared/data/llm_werewolf_transcripts`` (exit 2 without). The LLM labeler passes the gate of
every model-calling command (``werewolf_deception.benchmarks.runs.gate``): a preflight (exit 2), a circuit breaker (exit
3) and ``--max-failure-rate`` (exit 4).

Scores (claims match when they assert the same thing: ``claims.claim_key``, i.e. kind, player and
role / team / negation after canonical form; "X is not a wolf" = "X is village"):

* ``claims``: precision, recall, F1 over all claims, hedged ones included; ``claims_strict``: the
  same with hedged claims left out on both sides; ``claims_kind_player``: matching on kind and
  player only (the corpus README's measure); ``hedge_agreement``: share of matched claims whose
  ``hedged`` flag agrees;
* ``recall_by_kind``: recall per claim kind (role, team, seer_result, protected);
* ``lies``: statement-level precision, recall, F1 of "this statement holds a lie", where the
  labeler's claims go through the project's judge with what the speaker knew (from the corpus's
  night logs when the item names its game); ``judge_on_gold``: the same judge on the hand-labelled
  claims, which separates reading errors from judging errors;
* ``coverage``: share of statements with at least one claim (hand labels and labeler);
* 95% bootstrap intervals over statements (1,000 resamples, seed 0) for every F1, precision and recall;
* ``labelled``: statements the labeler labelled (an LLM call that failed leaves its statement unlabelled:
  it is left out of every score and counted, never filled in by another labeler);
* ``by_source``: claim precision / recall / F1 and lie F1 per source of the statements;
* ``statements_per_second``: the labeler's speed on these texts, context included (the roles revealed
  and claimed before each statement, read from the game); ``werewolf_deception.benchmarks.perf.claims_speed`` times the
  reader alone.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from werewolf_deception.agents.credentials import KEY_VARIABLE_HELP
from werewolf_deception.benchmarks.labels.corpus import (
    DEFAULT_CORPUS,
    games_by_id,
    knowledge_of,
    read_jsonl,
    with_reveals,
)
from werewolf_deception.benchmarks.labels.dev import dev_sets, gold_claims, seat_of
from werewolf_deception.benchmarks.labels.labelers import (
    Labeler,
    LabelerUnavailableError,
    llm_labeler,
    regex_labeler,
    union_claims,
)
from werewolf_env.claims import CLAIM_KINDS, claim_key, judge_claims

BOOTSTRAP = 1000


# ---------------------------------------------------------------------------------------- scores


def _prf(tp: float, fp: float, fn: float) -> dict[str, float | None]:
    p = tp / (tp + fp) if tp + fp else None
    r = tp / (tp + fn) if tp + fn else None
    f = 2 * tp / (2 * tp + fp + fn) if tp + fp + fn else None
    return {"precision": p, "recall": r, "f1": f}


def _with_ci(counts: np.ndarray, rng: np.random.Generator) -> dict[str, Any]:
    """P/R/F1 of per-statement (tp, fp, fn) rows, with 95% bootstrap intervals over statements."""
    tp, fp, fn = counts.sum(axis=0)
    point = _prf(tp, fp, fn)
    n = len(counts)
    samples = {"precision": [], "recall": [], "f1": []}  # type: dict[str, list[float]]
    if n:
        for _ in range(BOOTSTRAP):
            s = counts[rng.integers(0, n, n)].sum(axis=0)
            for key, value in _prf(*s).items():
                if value is not None:
                    samples[key].append(value)
    out: dict[str, Any] = {"tp": int(tp), "fp": int(fp), "fn": int(fn)}
    for key, value in point.items():
        out[key] = None if value is None else round(float(value), 4)
        xs = samples[key]
        out[f"{key}_ci"] = (
            [round(float(np.percentile(xs, 2.5)), 4), round(float(np.percentile(xs, 97.5)), 4)] if xs else None
        )
    return out


def _match(gold: list[dict[str, Any]], pred: list[dict[str, Any]], key: Callable[[dict[str, Any]], Any]):
    g = {key(c) for c in gold}
    p = {key(c) for c in pred}
    return len(g & p), len(p - g), len(g - p)


def score(
    items: Sequence[dict[str, Any]], predicted: Sequence[list[dict[str, Any]] | None], games: dict[str, Any] | None
) -> dict[str, Any]:
    rng = np.random.default_rng(0)
    exact = claim_key
    loose: Callable[[dict[str, Any]], Any] = lambda c: (c["kind"], c["player"])  # noqa: E731
    rows: dict[str, list[tuple[int, int, int]]] = {"claims": [], "claims_strict": [], "claims_kind_player": []}
    by_kind = {k: [0, 0] for k in CLAIM_KINDS}  # found, total
    hedge_agree = hedge_total = 0
    lies, judge_gold = [], []
    covered_gold = covered_pred = 0
    errors: list[dict[str, Any]] = []
    unlabelled = 0
    for item, pred in zip(items, predicted, strict=True):
        if pred is None:
            unlabelled += 1
            continue
        gold = gold_claims(item)
        rows["claims"].append(_match(gold, pred, exact))
        rows["claims_strict"].append(
            _match([c for c in gold if not c["hedged"]], [c for c in pred if not c.get("hedged")], exact)
        )
        rows["claims_kind_player"].append(_match(gold, pred, loose))
        pred_keys = {exact(c): c for c in pred}
        for c in gold:
            by_kind[c["kind"]][1] += 1
            hit = pred_keys.get(exact(c))
            if hit is not None:
                by_kind[c["kind"]][0] += 1
                hedge_total += 1
                hedge_agree += bool(hit.get("hedged")) == c["hedged"]
        covered_gold += bool(gold)
        covered_pred += bool(pred)
        gold_lie = any(c.get("lie") for c in item.get("claims") or [])
        speaker = seat_of(item, item["speaker"])
        if speaker is None:
            continue
        know = knowledge_of(item, games)
        pred_lie = judge_claims(know, pred)["lie"]
        lies.append((int(gold_lie and pred_lie), int(pred_lie and not gold_lie), int(gold_lie and not pred_lie)))
        gold_judged = judge_claims(know, gold)["lie"]
        judge_gold.append(
            (int(gold_lie and gold_judged), int(gold_judged and not gold_lie), int(gold_lie and not gold_judged))
        )
        if rows["claims"][-1][1] or rows["claims"][-1][2] or gold_lie != pred_lie:
            errors.append(
                {
                    "id": item.get("id"),
                    "speaker": item["speaker"],
                    "text": item["text"][:300],
                    "gold": sorted(map(_show(item), gold)),
                    "predicted": sorted(map(_show(item), pred)),
                    "gold_lie": gold_lie,
                    "predicted_lie": pred_lie,
                }
            )
    n = len(items) - unlabelled
    out: dict[str, Any] = {"statements": len(items), "labelled": n}
    for name, r in rows.items():
        out[name] = _with_ci(np.array(r, dtype=float).reshape(-1, 3), rng)
    out["recall_by_kind"] = {k: (round(f / t, 4) if t else None) for k, (f, t) in by_kind.items()}
    out["gold_claims_by_kind"] = {k: t for k, (_, t) in by_kind.items()}
    out["hedge_agreement"] = round(hedge_agree / hedge_total, 4) if hedge_total else None
    out["lies"] = _with_ci(np.array(lies, dtype=float).reshape(-1, 3), rng)
    out["judge_on_gold"] = _with_ci(np.array(judge_gold, dtype=float).reshape(-1, 3), rng)
    out["coverage"] = {
        "gold": round(covered_gold / n, 4) if n else None,
        "labeler": round(covered_pred / n, 4) if n else None,
    }
    out["_errors"] = errors
    return out


def _show(item: dict[str, Any]) -> Callable[[dict[str, Any]], str]:
    def show(c: dict[str, Any]) -> str:
        kind, player, role, team, negated = claim_key(c)
        value = role or team or ""
        hedge = " (hedged)" if c.get("hedged") else ""
        return f"{kind}:{item['players'][player]}:{'not ' if negated else ''}{value}{hedge}"

    return show


def evaluate(
    sets: dict[str, list[dict[str, Any]]], labeler: Labeler, games: dict[str, Any] | None, name: str
) -> dict[str, Any]:
    report: dict[str, Any] = {"labeler": name, "sets": {}}
    everything: list[dict[str, Any]] = []
    everything_pred: list[list[dict[str, Any]] | None] = []
    elapsed = 0.0
    for set_name, items in sets.items():
        start = time.perf_counter()
        predicted = labeler(items)
        elapsed += time.perf_counter() - start
        report["sets"][set_name] = score(items, predicted, games)
        everything += items
        everything_pred += predicted
    if len(sets) > 1:
        report["sets"]["all"] = score(everything, everything_pred, games)
    report["by_source"] = by_source(everything, everything_pred, games)
    report["statements_per_second"] = round(len(everything) / elapsed, 1) if elapsed else None
    return report


def by_source(
    items: Sequence[dict[str, Any]], predicted: Sequence[list[dict[str, Any]] | None], games: dict[str, Any] | None
) -> dict[str, dict[str, Any]]:
    """Claim and lie F1 per source of the statements (``source`` field; "?" without one): where the reader is weak."""
    groups: dict[str, list[int]] = {}
    for n, item in enumerate(items):
        groups.setdefault(str(item.get("source", "?")), []).append(n)
    out = {}
    for source, members in sorted(groups.items()):
        result = score([items[n] for n in members], [predicted[n] for n in members], games)
        out[source] = {
            "statements": len(members),
            "gold_claims": sum(result["gold_claims_by_kind"].values()),
            "claim_f1": result["claims"]["f1"],
            "claim_precision": result["claims"]["precision"],
            "claim_recall": result["claims"]["recall"],
            "lies": result["lies"]["tp"] + result["lies"]["fn"],
            "lie_f1": result["lies"]["f1"],
        }
    return out


# A labeler fitted on labelled items (the training sources), for leave-one-source-out; the regex reader
# learns nothing, so its fit ignores them.
LabelerFit = Callable[[list[dict[str, Any]]], Labeler]


def loso(items: Sequence[dict[str, Any]], fit: LabelerFit, games: dict[str, Any] | None) -> dict[str, Any]:
    """Leave one source out: for each source, fit on every other source's items and score on that one.

    Per source: the figures of ``score``. Macro: the mean over sources of claim F1 (hedged included), claim
    precision and lie-statement F1, each with a 95% interval from resampling statements within every source
    (seeded); a source whose figure is undefined (no lie in its sample, say) is left out of that mean and
    named. Recall by kind is pooled over every held-out prediction (each statement read by a labeler that
    never saw its source)."""
    groups: dict[str, list[dict[str, Any]]] = {}
    for item in items:
        groups.setdefault(str(item.get("source", "?")), []).append(item)
    per_source: dict[str, Any] = {}
    held_items: list[dict[str, Any]] = []
    held_pred: list[list[dict[str, Any]] | None] = []
    rows: dict[str, dict[str, np.ndarray]] = {}
    for source, members in sorted(groups.items()):
        train = [item for other, group in groups.items() if other != source for item in group]
        predicted = fit(train)(members)
        result = score(members, predicted, games)
        result.pop("_errors")
        per_source[source] = result
        held_items += members
        held_pred += predicted
        rows[source] = {what: _rows(members, predicted, games, what) for what in ("claims", "lies")}
    pooled = score(held_items, held_pred, games)
    pooled.pop("_errors")
    figures = {"claim_f1": ("claims", "f1"), "claim_precision": ("claims", "precision"),
               "claim_recall": ("claims", "recall"), "lie_f1": ("lies", "f1")}  # fmt: skip
    macro = {name: _macro(rows, figure_of) for name, figure_of in figures.items()}
    return {
        "sources": len(groups),
        "statements": len(held_items),
        "macro": macro,
        "recall_by_kind_pooled": pooled["recall_by_kind"],
        "gold_claims_by_kind": pooled["gold_claims_by_kind"],
        "pooled": {k: pooled[k] for k in ("claims", "lies", "coverage")},
        "by_source": per_source,
    }


def _rows(
    items: Sequence[dict[str, Any]],
    predicted: Sequence[list[dict[str, Any]] | None],
    games: dict[str, Any] | None,
    what: str,
) -> np.ndarray:
    """Per-statement (tp, fp, fn) of claims or of lie statements, for resampling."""
    out = []
    for item, pred in zip(items, predicted, strict=True):
        if pred is None:
            continue
        if what == "claims":
            out.append(_match(gold_claims(item), pred, claim_key))
            continue
        if seat_of(item, item["speaker"]) is None:
            continue
        gold_lie = any(c.get("lie") for c in item.get("claims") or [])
        pred_lie = judge_claims(knowledge_of(item, games), pred)["lie"]
        out.append((int(gold_lie and pred_lie), int(pred_lie and not gold_lie), int(gold_lie and not pred_lie)))
    return np.array(out, dtype=float).reshape(-1, 3)


def _macro(rows: dict[str, dict[str, np.ndarray]], figure_of: tuple[str, str]) -> dict[str, Any]:
    what, figure = figure_of
    rng = np.random.default_rng(0)
    all_points = {s: _prf(*r[what].sum(axis=0))[figure] for s, r in rows.items()}
    points = {s: float(v) for s, v in all_points.items() if v is not None}
    defined = sorted(points)
    if not defined:
        return {"mean": None, "ci": None, "sources": [], "undefined": sorted(all_points)}
    draws = []
    for _ in range(BOOTSTRAP):
        values: list[float] = []
        for s in defined:
            r = rows[s][what]
            value = _prf(*r[rng.integers(0, len(r), len(r))].sum(axis=0))[figure]
            values.append(points[s] if value is None else float(value))  # a draw with no case keeps the point
        draws.append(float(np.mean(values)))
    return {
        "mean": round(float(np.mean([points[s] for s in defined])), 4),
        "ci": [round(float(np.percentile(draws, 2.5)), 4), round(float(np.percentile(draws, 97.5)), 4)],
        "sources": defined,
        "undefined": sorted(set(all_points) - set(defined)),
        "per_source": {s: round(points[s], 4) for s in defined},
    }


def loso_targets(result: dict[str, Any]) -> dict[str, bool]:
    """The issue's leave-one-source-out targets: macro claim F1 >= 0.80 with precision >= 0.85, macro lie F1
    >= 0.80, no claim kind (with at least 5 gold claims) below recall 0.70."""
    macro = result["macro"]
    kinds = {
        k: r
        for k, r in result["recall_by_kind_pooled"].items()
        if r is not None and result["gold_claims_by_kind"][k] >= 5
    }
    return {
        "claim_f1": (macro["claim_f1"]["mean"] or 0) >= 0.80,
        "claim_precision": (macro["claim_precision"]["mean"] or 0) >= 0.85,
        "lie_f1": (macro["lie_f1"]["mean"] or 0) >= 0.80,
        "kind_recall": all(r >= 0.70 for r in kinds.values()),
    }


def targets(result: dict[str, Any]) -> dict[str, Any]:
    """The issue's targets on a set: claim F1 >= 0.85 (hedged included), lie F1 >= 0.85, kind recall >= 0.70."""
    kinds = {
        k: r for k, r in result["recall_by_kind"].items() if r is not None and result["gold_claims_by_kind"][k] >= 5
    }
    return {
        "claim_f1": (result["claims"]["f1"] or 0) >= 0.85,
        "lie_f1": (result["lies"]["f1"] or 0) >= 0.85,
        "kind_recall": all(r >= 0.70 for r in kinds.values()),
    }


class ModelLabeler:
    """The LLM labeler (``--labeler llm``), or its claims merged with the regex reader's (``union``), on items
    given the same context as the regex reader (roles revealed and claimed before each statement)."""

    def __init__(self, llm: Any, regex: Labeler, games: dict[str, Any] | None, union: bool) -> None:
        self.llm, self.regex, self.games, self.union = llm, regex, games, union

    def __call__(self, items: list[dict[str, Any]]) -> list[list[dict[str, Any]] | None]:
        asked = self.llm([with_reveals(item, self.games) for item in items])
        if not self.union:
            return list(asked)
        return [None if a is None else union_claims(a, r or []) for a, r in zip(asked, self.regex(items), strict=True)]

    def summary(self) -> dict[str, Any]:
        return dict(self.llm.summary())

    @property
    def down(self) -> str | None:
        """Why the endpoint stopped answering midway, if it did."""
        return self.llm.down


def make_labeler(args: argparse.Namespace, games: dict[str, Any] | None) -> Labeler:
    """The labeler named by ``--labeler``."""
    regex = regex_labeler(games)
    if args.labeler == "regex":
        return regex
    if args.labeler == "learned":
        from werewolf_deception.benchmarks.labels import train as claims_train
        from werewolf_env.claims import MODEL_PATH, LearnedStage

        if not MODEL_PATH.is_file():
            raise ValueError(f"no trained model at {MODEL_PATH}: python -m werewolf_deception.benchmarks.labels.train")
        return claims_train.labeler(LearnedStage.load(), games)
    if not args.model:
        raise ValueError(f"--labeler {args.labeler} needs --model (and --base-url for a server other than OpenAI)")
    options = {"retries": args.retries} if args.retries is not None else {}
    llm = llm_labeler(
        args.model,
        args.base_url,
        api_key_env=args.api_key_env,
        concurrency=args.concurrency,
        breaker=args.breaker,
        preflight=not args.no_preflight,
        where="claims_eval",
        **options,
    )
    return ModelLabeler(llm, regex, games, union=args.labeler == "union")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m werewolf_deception.benchmarks.labels.evaluate", description=__doc__.split("\n\n")[0]
    )
    parser.add_argument("--data", type=Path, action="append", help="a labelled JSONL (repeatable); default: dev sets")
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS, help="the transcripts corpus (night logs)")
    parser.add_argument(
        "--labeler",
        choices=("regex", "learned", "llm", "union"),
        default="regex",
        help="regex: the pattern reader; learned: it and the learned stage (default regex)",
    )
    parser.add_argument("--model", help="llm / union: the model that labels")
    parser.add_argument("--base-url", help="llm / union: its OpenAI-compatible endpoint (default: OpenAI)")
    parser.add_argument("--api-key-env", default="OPENAI_API_KEY", help=f"{KEY_VARIABLE_HELP} (default OPENAI_API_KEY)")
    parser.add_argument("--concurrency", type=int, default=8, help="llm / union: calls at once (default 8)")
    parser.add_argument("--retries", type=int, help="llm / union: retries per call (default 4)")
    parser.add_argument(
        "--breaker",
        type=int,
        default=8,
        help="llm / union: stop (exit 3) after N calls in a row without a usable answer (default 8)",
    )
    parser.add_argument("--no-preflight", action="store_true", help="llm / union: skip the probe of the endpoint")
    parser.add_argument(
        "--max-failure-rate",
        type=float,
        default=0.10,
        help="llm / union: exit 4 above this share of statements unlabelled (default 0.1)",
    )
    parser.add_argument("--errors", type=int, default=0, help="print this many misread statements to stderr")
    parser.add_argument(
        "--loso",
        action="store_true",
        help="leave one source out: fit on the other sources, score on each, macro over sources",
    )
    args = parser.parse_args(argv)
    corpus_ok = (args.corpus / "games.jsonl").exists()
    if args.data:
        sets = {p.stem: list(read_jsonl(p)) for p in args.data}
    elif corpus_ok:
        sets = dev_sets(args.corpus)
    else:
        print(f"claims_eval: no --data and no corpus at {args.corpus}", file=sys.stderr)
        return 2
    games = games_by_id(args.corpus) if corpus_ok else None
    try:  # leave-one-source-out fits the learned stage per fold: it needs no shipped model
        labeler = regex_labeler(games) if args.loso and args.labeler == "learned" else make_labeler(args, games)
    except Exception as exc:  # bad options, unreachable server, refused key: say so, score nothing
        print(f"claims_eval: {exc}", file=sys.stderr)
        return 2

    if args.loso:
        items = [item for group in sets.values() for item in group]
        fit: LabelerFit = lambda _train: labeler  # noqa: E731  (nothing to learn)
        if args.labeler == "learned":
            from werewolf_deception.benchmarks.labels import train as claims_train

            fit = lambda train: claims_train.labeler(claims_train.fit(train, games), games)  # noqa: E731
        try:
            result = loso(items, fit, games)
        except LabelerUnavailableError as exc:
            print(f"claims_eval: preflight: {exc}", file=sys.stderr)
            return 2
        result["targets_met"] = loso_targets(result)
        print(json.dumps({"labeler": args.labeler, "loso": result}, indent=2))
        return 0
    try:
        report = evaluate(sets, labeler, games, args.labeler)
    except LabelerUnavailableError as exc:  # the preflight: unreachable, key refused, unknown model
        print(f"claims_eval: preflight: {exc}", file=sys.stderr)
        return 2
    if isinstance(labeler, ModelLabeler):
        report["llm"] = labeler.summary()
        if labeler.down:  # its circuit breaker tripped: exit 3, as every model-calling command
            print(
                f"claims_eval: STOPPED: {labeler.llm.endpoint_shown}: {labeler.down}; scores would rest on too little",
                file=sys.stderr,
            )
            print(json.dumps(report, indent=2))
            return 3
    incomplete = isinstance(labeler, ModelLabeler) and report["llm"]["failed"] > args.max_failure_rate * max(
        1, report["llm"]["statements"]
    )
    report["corpus"] = str(args.corpus) if corpus_ok else None
    for set_name, result in report["sets"].items():
        result["targets_met"] = targets(result)
        errors = result.pop("_errors")
        if args.errors and set_name != "all":
            for e in errors[: args.errors]:
                print(json.dumps(e, ensure_ascii=False), file=sys.stderr)
    print(json.dumps(report, indent=2))
    if incomplete:
        print(
            f"claims_eval: INCOMPLETE LABELS: the labeler failed {report['llm']['failed']} of "
            f"{report['llm']['statements']} statements, more than --max-failure-rate {args.max_failure_rate}",
            file=sys.stderr,
        )
        return 4
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
