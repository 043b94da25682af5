"""Another labeler's claims and lie labels in place of a run's own: ``werewolf-bench report RUN --labeler llm``.

A game log holds the ground truth the engine computed while the game was played: the claims the
regex reader found in each statement (plus any the agent sent) and the judge's verdict. That is the
``regex`` labeler, the default. ``werewolf-bench relabel RUN --labeler llm --model M --base-url URL``
writes other labelings of the same statements, judged with what each speaker knew then:

- ``RUN/claims/llm.ndjson``: the LLM's claims;
- ``RUN/claims/union.ndjson``: the log's claims and the LLM's, merged;

one line per statement: ``{"game": <log file name>, "statement_id", "speaker", "claims", "lie",
"lie_strict", "type", "verdicts", "error"}``. ``relabelled(records, labels, labeler)`` puts each line's
claims (its ``verdicts``: the claims with the judge's reading), ``lie``, ``type`` and ``lie_strict``
into the statements of the game records, matched by log file name and statement id.

**Validity first.** A statement whose line is missing, carries an ``error``, has no label (``claims``
or ``lie`` null) or names another speaker is *unlabelled*: it keeps no claim and no lie label
(``StatementRecord.labelled`` false), so every lie-based figure leaves it out, and the report says
how many there were and why. It is never given the regex label in place of the missing one.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import replace
from pathlib import Path
from typing import Any

from werewolf_env.analysis import GameRecord, StatementRecord
from werewolf_env.core import loads_bounded
from werewolf_env.engine import MAX_LOG_DEPTH

LABELERS = ("regex", "llm", "union")
DEFAULT_LABELER = "regex"
FILE_LABELERS = ("llm", "union")  # the labelers read from RUN/claims/<labeler>.ndjson
Key = tuple[str, int]


class LabelsError(ValueError):
    """A labels file that is missing or cannot be read: the report cannot rest on it."""


def labels_path(run_dir: Path, labeler: str) -> Path:
    return Path(run_dir) / "claims" / f"{labeler}.ndjson"


def available_labelers(run_dir: Path) -> list[str]:
    """``regex`` (the logs' own labels) and every labeler whose file the run folder holds."""
    return [DEFAULT_LABELER] + [name for name in FILE_LABELERS if labels_path(run_dir, name).is_file()]


def missing_labels_message(run_dir: Path, labeler: str) -> str:
    path = labels_path(run_dir, labeler)
    also = "" if labeler == "llm" else " (with llm.ndjson)"
    return (
        f"no {labeler} labels for this run: {path} does not exist. "
        f"`werewolf-bench relabel {run_dir} --labeler llm --model M --base-url URL` writes it{also}"
    )


def read_labels(run_dir: Path, labeler: str) -> dict[Key, dict[str, Any]]:
    """The lines of ``RUN/claims/<labeler>.ndjson`` by (log file name, statement id)."""
    if labeler not in FILE_LABELERS:
        raise LabelsError(f"unknown labeler {labeler!r}: one of {', '.join(LABELERS)}")
    path = labels_path(run_dir, labeler)
    if not path.is_file():
        raise LabelsError(missing_labels_message(run_dir, labeler))
    labels: dict[Key, dict[str, Any]] = {}
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            row = loads_bounded(line, MAX_LOG_DEPTH)  # a label line holds a log line's claims: as deep, at most
            key = (str(row["game"]), int(row["statement_id"]))
        except (ValueError, KeyError, TypeError) as exc:
            raise LabelsError(f"{path} line {n}: not a label line ({type(exc).__name__}: {exc})") from exc
        if key in labels:
            raise LabelsError(f"{path} line {n}: a second line for {key[0]} statement {key[1]}")
        labels[key] = row
    return labels


def _unlabelled_reason(row: dict[str, Any] | None, st: StatementRecord) -> str | None:
    if row is None:
        return "no line"
    if row.get("error"):
        return "labeler error"
    if row.get("claims") is None or row.get("lie") is None:
        return "no label"
    if row.get("speaker") is not None and row["speaker"] != st.speaker:
        return "another speaker"
    return None


def relabelled(
    records: list[GameRecord], labels: dict[Key, dict[str, Any]], labeler: str
) -> tuple[list[GameRecord], dict[str, Any]]:
    """Copies of ``records`` whose statements hold ``labels`` (see the module docstring), and a summary:
    statements, labelled, unlabelled (and why), the labeler's errors by reason, lines matching no statement."""
    out: list[GameRecord] = []
    reasons: Counter[str] = Counter()
    errors: Counter[str] = Counter()
    used: set[Key] = set()
    total = 0
    for record in records:
        game = Path(record.source or "").name
        statements = []
        for st in record.statements:
            total += 1
            key = (game, st.id)
            row = labels.get(key)
            used.add(key)
            why = _unlabelled_reason(row, st)
            if why is not None:
                reasons[why] += 1
                if why == "labeler error" and row is not None:
                    errors[str(row["error"]).split(":", 1)[0].strip()[:60] or "?"] += 1
                statements.append(
                    replace(
                        st,
                        claims=[],
                        claims_source="unlabelled",
                        lie=False,
                        lie_type=None,
                        lie_strict=False,
                        labelled=False,
                    )
                )
                continue
            assert row is not None
            verdicts = row.get("verdicts")
            claims: list[dict[str, Any]] = verdicts if isinstance(verdicts, list) else row["claims"]
            lie = bool(row["lie"])
            statements.append(
                replace(
                    st,
                    claims=list(claims),
                    claims_source=labeler if claims else "none",
                    lie=lie,
                    lie_type=(row.get("type") or None) if lie else None,
                    lie_strict=bool(row.get("lie_strict")),
                    labelled=True,
                )
            )
        out.append(replace(record, statements=statements, labeler=labeler))
    unlabelled = sum(reasons.values())
    summary = {
        "labeler": labeler, "statements": total, "labelled": total - unlabelled, "unlabelled": unlabelled,
        "unlabelled_by_reason": dict(reasons.most_common()), "labeler_errors": dict(errors.most_common()),
        "unmatched_lines": len(set(labels) - used),
    }  # fmt: skip
    return out, summary


def logs_own(records: list[GameRecord]) -> dict[str, Any]:
    """The same summary for the logs' own labels (every statement labelled)."""
    total = sum(len(r.statements) for r in records)
    return {
        "labeler": DEFAULT_LABELER,
        "statements": total,
        "labelled": total,
        "unlabelled": 0,
        "unlabelled_by_reason": {},
        "labeler_errors": {},
        "unmatched_lines": 0,
    }


def format_unlabelled(summary: dict[str, Any]) -> str | None:
    """One line when some statements are unlabelled or some lines match no statement (else None)."""
    parts = []
    if summary["unlabelled"]:
        why = ", ".join(f"{reason} {count}" for reason, count in summary["unlabelled_by_reason"].items())
        parts.append(
            f"{summary['unlabelled']} of {summary['statements']} statements unlabelled by the {summary['labeler']} "
            f"labeler ({why}): left out of every lie-based figure, never given the regex label"
        )
    if summary["unmatched_lines"]:
        parts.append(f"{summary['unmatched_lines']} lines of its file match no statement of these games")
    return "; ".join(parts) or None


def load_labeling(records: list[GameRecord], run_dir: Path, labeler: str) -> tuple[list[GameRecord], dict[str, Any]]:
    """``records`` labelled by ``labeler`` (regex: as they are), with the summary of ``relabelled``."""
    if labeler == DEFAULT_LABELER:
        return records, logs_own(records)
    return relabelled(records, read_labels(run_dir, labeler), labeler)
