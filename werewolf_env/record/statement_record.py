"""One statement's record and the analyses of it (``Label``), as ``game_record.GameRecord`` holds them.

Plain values, below both the record that builds them and the figures read from them (``persuasion``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass
class Label:
    """One self or peer analysis of one statement, as the engine accepted it."""

    statement_id: int
    observer: int
    kind: str  # "self" or "peer"
    is_deceptive: bool
    confidence: float  # the stated probability (0-1) that the statement is deceptive (metrics schema 3 on)
    deception_type: str
    reasoning: str
    suspicion: float | None = None
    fallback: bool = False
    prior: float | None = None  # the observer's score of the speaker before / after this analysis
    score: float | None = None
    # The observer's score of each other player the statement's claims are about (a claim subject it reported
    # on), before and after: {seat: (prior, score)}. A subject it did not report on has no entry.
    subjects: dict[int, tuple[float, float]] = field(default_factory=dict)

    @property
    def answered(self) -> bool:
        """The agent's own answer: the env replaced no field of it (see the module docstring)."""
        return not self.fallback

    @property
    def p_deceptive(self) -> float:
        """The stated probability that the statement is deceptive: ``confidence`` itself, whatever the flag.

        Agents are asked for exactly this number (``werewolf_env.actions.parse``,
        ``werewolf_deception.agents.llm.prompts``), so it is read as given; a flag and a probability that disagree
        (``is_deceptive`` with 0.2) are the agent's own inconsistency, scored as stated. Before metrics schema 3 it was
        read as confidence in the verdict (``1 - confidence`` when not flagged).
        """
        return self.confidence


@dataclass
class StatementRecord:
    id: int
    round: int
    turn: int
    speaker: int
    text: str
    claims: list[dict[str, Any]]
    claims_source: str
    truncated: bool
    alive: list[bool]  # who was alive when it was made
    # The living players its public claims are about, speaker excluded: whom listeners are asked about besides
    # the speaker under ``config.subject_suspicion`` (``GameState.analysis_subjects``; else none). From the
    # statement event, so another labeler's claims leave it as it was.
    subjects: tuple[int, ...] = ()
    # Listener -> its control subject (a living player the statement does not mention, asked about beside the
    # subjects: ``config.control_subject_probability``), from the ground truth event; none in older logs.
    controls: dict[int, int] = field(default_factory=dict)
    lie: bool = False
    lie_type: str | None = None
    # The lie rests on a known-false claim that was not hedged (the judge's ``lie_strict``).
    lie_strict: bool = False
    # False when the labeler the figures rest on gave no label for it (``benchmarks/labels/run_labels.py``): then it
    # counts in no lie-based figure, and ``lie`` / ``lie_type`` / ``claims`` say nothing.
    labelled: bool = True
    self_label: Label | None = None
    peer_labels: list[Label] = field(default_factory=list)

    @property
    def answered_peers(self) -> list[Label]:
        """The peer analyses that are predictions (no fallback)."""
        return [label for label in self.peer_labels if label.answered]

    @property
    def self_answered(self) -> bool:
        return self.self_label is not None and self.self_label.answered

    @property
    def peer_flags(self) -> int:
        """Flags among the answered peer analyses (a fallback's ``is_deceptive`` is the env's default)."""
        return sum(label.is_deceptive for label in self.answered_peers)

    @property
    def peer_judged(self) -> bool:
        """At least one peer answered: only then can a majority have caught (or missed) the statement."""
        return any(label.answered for label in self.peer_labels)

    @property
    def peer_detected(self) -> bool:
        """A strict majority of the peers who answered flagged it (False when no peer answered)."""
        answered = self.answered_peers
        return bool(answered) and 2 * sum(label.is_deceptive for label in answered) > len(answered)
