"""The JSON object a player must answer with, per action kind, and the check that a statement does
not just echo one of its ``<...>`` placeholders back (a small model's habit)."""

from __future__ import annotations

import re
from functools import lru_cache

from .action_specs import ACTION_SPECS
from .roles import ActionKind

# The JSON object a player must answer with, per kind (``answer_format`` fills in ``{max_bid}``): each
# spec's ``answer_format``. The ``<...>`` placeholders there are also what ``echoes_template`` looks for.
_ANSWER_FORMATS: dict[ActionKind, str] = {kind: spec.answer_format for kind, spec in ACTION_SPECS.items()}
_NOTES_FORMAT = ', "notes": "<optional private note>"}'
_MAX_BID = "{max_bid}"


@lru_cache(maxsize=128)
def answer_format(kind: ActionKind, max_bid: int = 10) -> str:
    """The exact JSON object a player must answer with, for observation text and prompts."""
    return _ANSWER_FORMATS[kind].replace(_MAX_BID, str(max_bid))[:-1] + _NOTES_FORMAT


def _placeholders() -> tuple[tuple[str, ...], re.Pattern[str], tuple[str, ...], re.Pattern[str], int]:
    """Every ``<...>`` placeholder of the answer formats and a regex finding any of them (case and
    spacing free; the bid's bound any number); the multi-word ones and a regex for a whole text that
    is one of them without brackets; the longest of those. Each regex has one group per placeholder.

    Innermost ``<...>`` only: the statement format's ``<optional: {...}>`` holds ``<name or me>``,
    which an echo of it contains anyway.
    """
    tokens: list[str] = []
    for template in [*_ANSWER_FORMATS.values(), _NOTES_FORMAT]:
        for token in re.findall(r"<[^<>]+>", template):
            if token not in tokens:
                tokens.append(token)
    bodies, bare, bare_bodies = [], [], []
    for token in tokens:
        words = token[1:-1].split()
        body = "(" + r"\s+".join(re.escape(w).replace(re.escape(_MAX_BID), r"\d+") for w in words) + ")"
        bodies.append(body)
        # A whole statement of a bare one-word placeholder ("Why?", "role") can be honest speech.
        if len(words) > 1 and _MAX_BID not in token:
            bare.append(token)
            bare_bodies.append(body)
    # "<" outside the groups: a pattern with a literal first character lets re jump from "<" to "<".
    anywhere = re.compile(r"<\s*(?:" + "|".join(bodies) + r")\s*>", re.IGNORECASE)
    edge = r"[\s\"'`.,;:!?<>]*"  # quotes, punctuation and half brackets around a bare placeholder
    whole = re.compile(edge + "(?:" + "|".join(bare_bodies) + ")" + edge, re.IGNORECASE)
    return tuple(tokens), anywhere, tuple(bare), whole, max(map(len, bare))


_PLACEHOLDERS, _PLACEHOLDER_RE, _BARE_PLACEHOLDERS, _BARE_RE, _LONGEST_BARE = _placeholders()
_BARE_MAX_CHARS = _LONGEST_BARE + 16  # longer texts cannot be a bare placeholder with a little around it


def echoes_template(text: str) -> str | None:
    """The answer-format placeholder ``text`` echoes (e.g. ``<what you say>``), or None.

    Flags any ``<...>`` placeholder of any answer format anywhere in the text (so also the JSON
    template itself), case-insensitively; and a text that is nothing but a multi-word placeholder
    without its brackets ("what you say"). Other angle brackets are ordinary speech. Cheap when the
    text has no "<" and is longer than any bare placeholder: the usual statement.
    """
    if "<" in text:
        found = _PLACEHOLDER_RE.search(text)
        if found is not None:
            token = _PLACEHOLDERS[found.lastindex - 1]  # type: ignore[operator]  # one group per placeholder
            return " ".join(found.group(0).split()) if _MAX_BID in token else token
    if len(text) <= _BARE_MAX_CHARS:
        whole = _BARE_RE.fullmatch(text)
        if whole is not None:
            return _BARE_PLACEHOLDERS[whole.lastindex - 1]  # type: ignore[operator]
    return None
