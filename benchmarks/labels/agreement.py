"""How far two claim labelers agree (Cohen's kappa on statement lie labels, claim-level P/R/F1,
coverage), and the text of ``werewolf-bench relabel``'s summary.

    agreement(reference_claims, reference_lies, claims, lies, names=("llm", "regex"))

Every list has one entry per statement; a statement that either labeler could not label (``None``)
is left out of every figure, and the number of statements compared is reported. Claims match when
they assert the same thing (``werewolf_env.claims.model.claim_key``: kind, player, role / team / negation
in canonical form; ``hedged`` is not part of it), the reference labeler's claims counting as the
truth for precision and recall. Undefined figures are ``None`` with a reason, never 0.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from werewolf_env.claims import claim_key

Claims = list[dict[str, Any]]


def cohen_kappa(first: Sequence[bool], second: Sequence[bool]) -> dict[str, Any]:
    """Cohen's kappa of two binary labelings of the same statements, with the 2x2 table.

    ``kappa`` is None (with ``reason``) when there is no statement, or when chance agreement is
    certain (both labelings give every statement one and the same label): kappa is 0/0 then.
    """
    if len(first) != len(second):
        raise ValueError("both labelings must cover the same statements")
    n = len(first)
    both = sum(1 for a, b in zip(first, second, strict=True) if a and b)
    first_only = sum(1 for a, b in zip(first, second, strict=True) if a and not b)
    second_only = sum(1 for a, b in zip(first, second, strict=True) if b and not a)
    neither = n - both - first_only - second_only
    out: dict[str, Any] = {
        "kappa": None, "reason": None, "statements": n,
        "observed_agreement": round((both + neither) / n, 4) if n else None,
        "table": {"both": both, "first_only": first_only, "second_only": second_only, "neither": neither},
    }  # fmt: skip
    if n == 0:
        out["reason"] = "no statement was labelled by both labelers"
        return out
    # Chance agreement, in integers (n^2 times the probability) so that a certain one is exact.
    first_yes, second_yes = both + first_only, both + second_only
    chance = first_yes * second_yes + (n - first_yes) * (n - second_yes)
    if chance == n * n:
        label = "a lie" if first_yes else "no lie"
        out["reason"] = f"both labelers call every statement {label}, so chance agreement is 1 and kappa is 0/0"
        return out
    out["kappa"] = round((n * (both + neither) - chance) / (n * n - chance), 4)
    return out


def claim_scores(reference: Sequence[Claims], predicted: Sequence[Claims]) -> dict[str, Any]:
    """Precision, recall and F1 of ``predicted`` claims against ``reference`` ones, matched by claim_key."""
    tp = fp = fn = 0
    for ref, pred in zip(reference, predicted, strict=True):
        r, p = {claim_key(c) for c in ref}, {claim_key(c) for c in pred}
        tp, fp, fn = tp + len(r & p), fp + len(p - r), fn + len(r - p)
    out: dict[str, Any] = {"tp": tp, "fp": fp, "fn": fn}
    out["precision"] = round(tp / (tp + fp), 4) if tp + fp else None
    out["recall"] = round(tp / (tp + fn), 4) if tp + fn else None
    out["f1"] = round(2 * tp / (2 * tp + fp + fn), 4) if tp + fp + fn else None
    if tp + fp + fn == 0:
        out["reason"] = "neither labeler found any claim"
    return out


def agreement(
    reference: Sequence[Claims | None],
    reference_lies: Sequence[bool | None],
    predicted: Sequence[Claims | None],
    predicted_lies: Sequence[bool | None],
    names: tuple[str, str] = ("llm", "regex"),
) -> dict[str, Any]:
    """Agreement of ``predicted`` (``names[0]``) with ``reference`` (``names[1]``) on the statements both labelled."""
    rows = [
        (ref, ref_lie, pred, pred_lie)
        for ref, ref_lie, pred, pred_lie in zip(reference, reference_lies, predicted, predicted_lies, strict=True)
        if ref is not None and pred is not None and ref_lie is not None and pred_lie is not None
    ]
    mine, theirs = names
    kappa = cohen_kappa([bool(r[3]) for r in rows], [bool(r[1]) for r in rows])
    table = kappa.pop("table")
    kappa["table"] = {"both_lie": table["both"], f"{mine}_only": table["first_only"],
                      f"{theirs}_only": table["second_only"], "neither": table["neither"]}  # fmt: skip
    n = len(rows)
    return {
        "labeler": mine,
        "reference": theirs,
        "statements": n,
        "lie_kappa": kappa,
        "claims": claim_scores([r[0] for r in rows], [r[2] for r in rows]),
        "coverage": {
            mine: round(sum(1 for r in rows if r[2]) / n, 4) if n else None,
            theirs: round(sum(1 for r in rows if r[0]) / n, 4) if n else None,
        },
    }


def format_agreement(result: dict[str, Any]) -> list[str]:
    """The agreement as a few lines of text."""
    mine, theirs, n = result["labeler"], result["reference"], result["statements"]
    kappa, claims, coverage = result["lie_kappa"], result["claims"], result["coverage"]
    table = kappa["table"]
    whom = "the claims read when the games were played" if theirs == "logged" else f"the {theirs} labeler"
    head = f"agreement with {whom}, on the {n} statements both labelled:"
    if kappa["kappa"] is None:
        lie = f"lie labels: Cohen's kappa undefined ({kappa['reason']})"
    else:
        lie = (
            f"lie labels: Cohen's kappa {kappa['kappa']:.2f} (observed agreement "
            f"{_num(kappa['observed_agreement'])}; lies: both {table['both_lie']}, "
            f"{mine} only {table[f'{mine}_only']}, {theirs} only {table[f'{theirs}_only']})"
        )
    claim = (
        f"claims ({theirs} as reference): precision {_num(claims['precision'])}, "
        f"recall {_num(claims['recall'])}, F1 {_num(claims['f1'])} "
        f"(tp {claims['tp']}, fp {claims['fp']}, fn {claims['fn']})"
    )
    cover = f"coverage (statements with >= 1 claim): {mine} {_num(coverage[mine])}, {theirs} {_num(coverage[theirs])}"
    return [head, f"  {lie}", f"  {claim}", f"  {cover}"]


def format_summary(summary: dict[str, Any]) -> list[str]:
    """``werewolf-bench relabel``'s summary as text."""
    who = summary["labeler"]
    if summary["model"]:
        who += f" {summary['model']} at {summary['base_url']}"
    where = f"{len(summary['games'])} games" if summary["kind"] == "run" else "a JSONL file"
    lines = [f"relabel {summary['source']} with {who}: {summary['statements']} statements from {where}, "
             f"{summary['seconds']}s"]  # fmt: skip
    for skipped in summary.get("skipped_logs") or []:
        lines.append(f"  skipped {skipped['game']}: {skipped['error']}")
    lines.append(
        f"  labelled {summary['answered']} / {summary['statements']} expected; failed {summary['failed']}"
        + (
            f" ({', '.join(f'{k} {v}' for k, v in summary['failures'].items())}; each carries its error,"
            " nothing was filled in by the regex reader)"
            if summary["failed"]
            else ""
        )
    )
    if summary.get("claims_dropped"):
        lines.append(f"  claims dropped as invalid (unknown player, missing role): {summary['claims_dropped']}")
    lines.append(
        f"  claims: {summary['claims']['total']}; tokens: prompt {summary['tokens']['prompt']}, "
        f"completion {summary['tokens']['completion']}"
    )
    if summary["agreement"] is not None:
        lines += [f"  {line}" for line in format_agreement(summary["agreement"])]
    for side, found in (summary.get("hand_labels") or {}).get("scores", {}).items():
        lines.append(
            f"  against the hand labels ({summary['hand_labels']['statements']} statements), {side}: "
            f"claim F1 {_num(found['claims']['f1'])}, lie F1 {_num(found['lies']['f1'])}"
        )
    lines.append("  files: " + ", ".join(summary["files"]))
    return lines


def _num(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.2f}"
