"""The JSON object a player must answer with, per action kind, and the check that a statement does
not just echo one of its ``<...>`` placeholders back (a small model's habit)."""

from __future__ import annotations

import difflib
import itertools
import re
from functools import lru_cache

from .action_specs import ACTION_SPECS
from .names import fold
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


# ------------------------------------------------------------------------ placeholders recognised by meaning

ANSWER_PREFIX = "Answer with exactly one JSON object: "  # the answer line's start, in observations and prompts
_STATEMENT = ACTION_SPECS[ActionKind.STATEMENT]
# The statement turn's own instructions: what a model copies instead of speaking. ``{words}``-style fields
# are numbers in the prompt; every number reads as "#".
_INSTRUCTIONS = (
    _STATEMENT.prompt,
    re.sub(r"\{\w+\}", "#", _STATEMENT.answer_words),
    ANSWER_PREFIX,
    *(token[1:-1] for token in re.findall(r"<[^<>]+>", _STATEMENT.answer_format)),
)
# Words that name the answer's fields or a template: never speech of a statement's own.
_TEMPLATE_WORDS = frozenset({"statement", "notes", "claims", "placeholder", "insert", "json", "template"})
# Function words: speech, but no meaning of a statement's own.
_FUNCTION_WORDS = frozenset(
    "a an the and or but if of to in on at by for with from as is are was be am i me my mine you your yours "
    "we us our they them their he she it its this that these those here there what which who whom whose "
    "do does did have has had will would shall should can could may might must not no so such than then "
    "too very just all any some each every up down out about into over under again #".split()
)  # fmt: skip
_TOKEN = re.compile(r"[^\W_]+|#")
_SLOT = re.compile(r"<\s*([^\W\d_][^<>\n]{0,60}?)\s*>")
_MAX_TOKENS = 1000  # a text this long with no word of its own is a placeholder however long it goes on


def _tokens(text: str) -> list[str]:
    return _TOKEN.findall(re.sub(r"\d+", "#", text))


_INSTRUCTION_TOKENS = [_tokens(fold(line)) for line in _INSTRUCTIONS]
_VOCABULARY = tuple(sorted({t for line in _INSTRUCTION_TOKENS for t in line} | _TEMPLATE_WORDS))
_PAIRS = frozenset(pair for line in _INSTRUCTION_TOKENS for pair in itertools.pairwise(line))


@lru_cache(maxsize=4096)
def _canonical(token: str) -> str:
    """``token``, or the instruction word it misspells ("evryone": "everyone"); short words as they are."""
    if len(token) < 4 or token in _VOCABULARY or token in _FUNCTION_WORDS:
        return token
    close = difflib.get_close_matches(token, _VOCABULARY, n=1, cutoff=0.8)
    return close[0] if close else token


def placeholder_reason(text: str) -> str | None:
    """Why ``text`` is not a statement of its own but a copy of the turn's instructions, or None (speech).

    An answer-format placeholder anywhere (``echoes_template``); else, read with names' folding (NFKC,
    case), numbers as "#" and misspelt instruction words as the word: text with no word of its own (every
    word a function word, a template word, an instruction word or inside a ``<...>`` slot) that holds a
    slot, a template word, or three words of the instructions' wording in a row of pairs. Speech that quotes
    a few of those words among words of its own passes.
    """
    echoed = echoes_template(text)
    if echoed is not None:
        return f"echoes the answer template's placeholder {echoed!r}"
    folded = fold(text[: _MAX_TOKENS * 16])
    slots = [" ".join(m.group(1).split()) for m in _SLOT.finditer(folded)]
    words = [_canonical(t) for t in _tokens(_SLOT.sub(" ", folded))[:_MAX_TOKENS]]
    if any(w not in _VOCABULARY and w not in _FUNCTION_WORDS for w in words):
        return None  # a word of its own: speech
    paired = [pair in _PAIRS for pair in itertools.pairwise(words)]  # paired[i]: words i and i + 1 as instructed
    copied = [w for i, w in enumerate(words) if (i and paired[i - 1]) or (i < len(paired) and paired[i])]
    if slots:
        return f"is the template slot {'<' + slots[0] + '>'!r} with no words of its own"
    if len(copied) >= 3:
        return f"repeats the turn's instructions ({' '.join(copied)[:80]!r}) with no words of its own"
    template = [w for w in words if w in _TEMPLATE_WORDS]
    if template:
        return f"is the answer's field name {template[0]!r}, not speech"
    return None
