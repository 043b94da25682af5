"""Claim labelling: labelers, the labelled transcripts, the claim reader's evaluation, relabel and rescore.

The names other packages use, from the modules that define them.
"""

from __future__ import annotations

from werewolf_deception.benchmarks.labels.agreement import format_summary
from werewolf_deception.benchmarks.labels.corpus import DEFAULT_CORPUS
from werewolf_deception.benchmarks.labels.labelers import (
    LabelerUnavailableError,
    LLMLabeler,
    llm_labeler,
    regex_labeler,
)
from werewolf_deception.benchmarks.labels.relabel import (
    EXIT_BAD,
    EXIT_DOWN,
    EXIT_INCOMPLETE,
    EXIT_NOTHING,
    Relabelled,
    StatementProgress,
    relabel_jsonl,
    relabel_run,
    write_atomic,
)
from werewolf_deception.benchmarks.labels.rescore import RescoredGame, labeler_lineup, rescore_run, slug
from werewolf_deception.benchmarks.labels.run_labels import (
    DEFAULT_LABELER,
    LABELERS,
    LabelsError,
    available_labelers,
    format_unlabelled,
    labels_path,
    logs_own,
    missing_labels_message,
    read_labels,
    relabelled,
)

__all__ = [
    "DEFAULT_CORPUS",
    "DEFAULT_LABELER",
    "EXIT_BAD",
    "EXIT_DOWN",
    "EXIT_INCOMPLETE",
    "EXIT_NOTHING",
    "LABELERS",
    "LLMLabeler",
    "LabelerUnavailableError",
    "LabelsError",
    "Relabelled",
    "RescoredGame",
    "StatementProgress",
    "available_labelers",
    "format_summary",
    "format_unlabelled",
    "labeler_lineup",
    "labels_path",
    "llm_labeler",
    "logs_own",
    "missing_labels_message",
    "read_labels",
    "regex_labeler",
    "relabel_jsonl",
    "relabel_run",
    "relabelled",
    "rescore_run",
    "slug",
    "write_atomic",
]
