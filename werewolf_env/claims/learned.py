"""The claim reader's learned stage: for every player a statement may speak of, which claims it carries.

The pattern reader (``claim_text.ClaimExtractor``) is the first pass: precise, but it knows only the
phrasings it was written for. This stage reads every *candidate* (each player the statement names, and the
speaker) from the words around its mentions, and decides, one logistic head per claim class, whether the
statement asserts that class of that player; a further head says whether the claim is hedged. Its features:

- the words and word pairs of each clause that mentions the candidate (the candidate written ``<c>``,
  other players ``<p>``, so that names never become features), and the words right before and after;
- cue words from the role table (a role or team word in the clause), negation in the clause, signs
  after the name (``+``, ``-``), the candidate's place in a list, whether it is the speaker;
- the public context (the candidate's role revealed or claimed before), and the pattern reader's own
  claims about it, so that the stage can keep, add to or overrule the first pass.

Features are hashed (``zlib.crc32``, the same in every process) into ``DIMENSIONS`` slots; the weights ship
as ``data/claim_model.npz`` (one sparse head a class) and inference is numpy alone. Training is
``python -m werewolf_deception.benchmarks.labels.train`` (deterministic, from the hand labels).
"""

from __future__ import annotations

import itertools
import re
import unicodedata
import zlib
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from werewolf_env.claims import tokens as claim_tokens
from werewolf_env.core import name_key

DIMENSIONS = 1 << 18
MODEL_PATH = Path(__file__).resolve().parent / "data" / "claim_model.npz"
# A claim class: (kind, role, team, negated) in claim_key's canonical form ("not a wolf" is team village).
CLASSES: tuple[tuple[str, str | None, str | None, bool], ...] = (
    ("team", None, "werewolf", False),
    ("team", None, "village", False),
    ("role", "seer", None, False),
    ("role", "doctor", None, False),
    ("role", "villager", None, False),
    ("role", "seer", None, True),
    ("role", "doctor", None, True),
    ("seer_result", None, "werewolf", False),
    ("seer_result", None, "village", False),
)
HEDGE_HEAD = "hedged"
WINDOW = 3

_TOKEN = re.compile(r"[a-z0-9_]+(?:'[a-z]+)?|[+\-]|[.!?;:]|[(),/]")
_CLAUSE_END = frozenset({".", "!", "?", ";"})
_NEGATIONS = frozenset({"not", "no", "never", "isn't", "aren't", "wasn't", "don't", "doesn't", "can't", "cannot",
                        "won't", "nor", "neither", "n't"})  # fmt: skip
_FIRST_PERSON = frozenset({"i", "i'm", "me", "my", "myself", "i've", "i'd"})


def normalise(text: str) -> str:
    """Unicode punctuation (hyphens, dashes, quotes, non-breaking spaces) as ASCII (the pattern reader's own
    rule, ``claim_tokens.normalise``), then NFKC."""
    return unicodedata.normalize("NFKC", claim_tokens.normalise(text))


def tokens(text: str) -> list[str]:
    return _TOKEN.findall(normalise(text).lower())


def class_of(claim: dict[str, Any]) -> tuple[str, str | None, str | None, bool]:
    """A claim's class: claim_key's canonical (kind, role, team, negated)."""
    role, team, negated = claim.get("role"), claim.get("team"), bool(claim.get("negated"))
    if role == "werewolf":
        role, team = None, "werewolf"
    if team is not None and role is None and negated:
        team, negated = ("village" if team == "werewolf" else "werewolf"), False
    return (str(claim["kind"]), role, team, negated)


def _mentions(words: list[str], names: Sequence[tuple[str, ...]], speaker: int) -> dict[int, list[int]]:
    """Token positions at which each seat is mentioned (its full name, or "I"/"me"/"my" for the speaker)."""
    found: dict[int, list[int]] = {}
    for seat, parts in enumerate(names):
        if not parts:
            continue
        first, size = parts[0], len(parts)
        for at, word in enumerate(words):
            if word == first and tuple(words[at : at + size]) == parts:
                found.setdefault(seat, []).append(at)
    if speaker >= 0:
        for at, word in enumerate(words):
            if word in _FIRST_PERSON:
                found.setdefault(speaker, []).append(at)
    return found


def _clause(words: list[str], at: int) -> tuple[int, int]:
    start = at
    while start > 0 and words[start - 1] not in _CLAUSE_END:
        start -= 1
    end = at
    while end < len(words) and words[end] not in _CLAUSE_END:
        end += 1
    return start, end


def candidate_features(
    text: str, names: Sequence[str], speaker: int, context: dict[int, list[str]] | None = None
) -> dict[int, list[str]]:
    """For each candidate seat, its feature strings. ``context``: extra features per seat (the public roles
    revealed or claimed, the pattern reader's claims), added as they are."""
    words = tokens(text)
    name_parts = [tuple(tokens(name_key(name))) for name in names]
    mentions = _mentions(words, name_parts, speaker)
    marked = list(words)
    spans = {
        seat: [
            (at, at + len(name_parts[seat]) if seat != speaker or words[at] not in _FIRST_PERSON else at + 1)
            for at in ats
        ]
        for seat, ats in mentions.items()
    }
    for ranges in spans.values():
        for start, end in ranges:
            for k in range(start, end):
                marked[k] = "<p>"
    out: dict[int, list[str]] = {}
    candidates = set(mentions) | set(context or ())
    for seat in candidates:
        own = list(marked)
        for start, end in spans.get(seat, []):
            for k in range(start, end):
                own[k] = "<c>"
        features = ["bias", f"mentions:{min(len(spans.get(seat, [])), 4)}"]
        if seat == speaker:
            features.append("is_speaker")
        for n, (start, end) in enumerate(spans.get(seat, [])[:6]):
            lo, hi = _clause(own, start)
            clause = own[lo:hi]
            features += [f"w:{w}" for w in clause]
            features += [f"b:{a}_{b}" for a, b in itertools.pairwise(clause)]
            features += [f"l{k}:{own[start - k]}" for k in range(1, WINDOW + 1) if start - k >= 0]
            features += [f"r{k}:{own[end - 1 + k]}" for k in range(1, WINDOW + 1) if end - 1 + k < len(own)]
            if any(w in _NEGATIONS for w in clause):
                features += ["neg"] + [f"neg&{w}" for w in clause if w not in _NEGATIONS]
            if end < len(own) and own[end] in ("+", "-"):
                features.append(f"sign:{own[end]}")
            if n == 0:
                features.append(f"first_at:{min(start * 10 // max(len(own), 1), 9)}")
            if lo < start and own[start - 1] in (",", "/", "and", "("):
                features.append("in_list")
        out[seat] = features + (context or {}).get(seat, [])
    return out


def hashed(features: Sequence[str]) -> np.ndarray:
    """The slots of ``features`` (repeats kept: a word twice counts twice)."""
    return np.fromiter((zlib.crc32(f.encode()) % DIMENSIONS for f in features), dtype=np.int64, count=len(features))


@dataclass(frozen=True)
class Head:
    """One logistic head: sparse weights (slots, values) and a bias."""

    slots: np.ndarray
    values: np.ndarray
    bias: float

    def dense(self) -> np.ndarray:
        weights = np.zeros(DIMENSIONS, dtype=np.float32)
        weights[self.slots] = self.values
        return weights


class LearnedStage:
    """The trained heads; ``claims(features)`` turns one candidate's features into its claims."""

    def __init__(self, heads: dict[str, Head], threshold: float = 0.5) -> None:
        self.threshold = threshold
        self._weights = {name: (head.dense(), head.bias) for name, head in heads.items()}

    @classmethod
    def load(cls, path: Path = MODEL_PATH) -> LearnedStage:
        with np.load(path) as data:
            names = [str(n) for n in data["names"]]
            heads = {
                name: Head(
                    data[f"{name}_slots"], data[f"{name}_values"].astype(np.float32), float(data[f"{name}_bias"])
                )
                for name in names
            }
            threshold = float(data["threshold"])
        return cls(heads, threshold)

    def probabilities(self, features: Sequence[str]) -> dict[str, float]:
        return self.slot_probabilities(hashed(features))

    def slot_probabilities(self, slots: np.ndarray) -> dict[str, float]:
        """Each head's probability for a candidate given as hashed slots."""
        out = {}
        for name, (weights, bias) in self._weights.items():
            z = float(weights[slots].sum()) + bias
            out[name] = 1.0 / (1.0 + np.exp(-z))
        return out

    def claims(self, seat: int, features: Sequence[str]) -> list[dict[str, Any]]:
        p = self.probabilities(features)
        hedged = p.get(HEDGE_HEAD, 0.0) >= 0.5
        found = []
        for kind, role, team, negated in CLASSES:
            if p[label(kind, role, team, negated)] >= self.threshold:
                found.append(
                    {
                        "kind": kind,
                        "player": seat,
                        "role": role,
                        "team": team,
                        "negated": negated,
                        "hedged": hedged,
                        "source": "learned",
                    }
                )
        return found


def label(kind: str, role: str | None, team: str | None, negated: bool) -> str:
    """A class's head name, e.g. ``team:werewolf`` or ``role:not-seer``."""
    return f"{kind}:{'not-' if negated else ''}{role or team}"
