"""The JSON object a player must answer with, per action kind, and the check that a statement does
not just echo one of its ``<...>`` placeholders back (a small model's habit)."""

from __future__ import annotations

import difflib
import re
from functools import lru_cache

from werewolf_env.actions.specs import ACTION_SPECS
from werewolf_env.core import ActionKind, fold

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
# Words that name the answer's fields or a template. Alone they decide nothing ("No claims.", "Notes: ..."):
# only a ``<slot>``, a literal field key or a run of the instructions' wording makes a placeholder.
_TEMPLATE_WORDS = frozenset({"statement", "notes", "claims", "placeholder", "insert", "json", "template"})
_FIELD_KEYS = ("statement", "claims", "notes")  # the statement answer's keys
# Function words: speech, but no meaning of a statement's own.
_FUNCTION_WORDS = frozenset(
    "a an the and or but if of to in on at by for with from as is are was be am i me my mine you your yours "
    "we us our they them their he she it its this that these those here there what which who whom whose "
    "do does did have has had will would shall should can could may might must not no so such than then "
    "too very just all any some each every up down out about into over under again #".split()
)
_TOKEN = re.compile(r"[^\W_]+|#")
_SLOT = re.compile(r"<\s*([^\W\d_][^<>\n]{0,60}?)\s*>")
# "[your statement here]", "{statement}": a slot in other brackets when it holds only instruction words.
_BRACKETED = re.compile(r"[\[{]\s*([^\W\d_][^\[\]{}\n]{0,60}?)\s*[\]}]")
_KEYS = "|".join(_FIELD_KEYS)
_QUOTES = "\"'`\u201c\u201d\u2018\u2019"
_QUOTED_KEY = re.compile(f"[{_QUOTES}]" + r"\s*(" + _KEYS + r")\s*" + f"[{_QUOTES}]" + r"\s*:")
# The whole text one key: "Statement.", "notes:", '"claims"' (not "Claims?": a question is speech).
_ONLY_KEY = re.compile(r"[\s\[{(<" + _QUOTES + "]*(" + _KEYS + r")[\s\]})>.:" + _QUOTES + "]*")
_RUN = 3  # this many words in a row as in one line of the instructions: a copy of them
_MAX_TOKENS = 1000  # a text this long with no word of its own is a placeholder however long it goes on


def _tokens(text: str) -> list[str]:
    return _TOKEN.findall(re.sub(r"\d+", "#", text))


_INSTRUCTION_TOKENS = [_tokens(fold(line)) for line in _INSTRUCTIONS]
_INSTRUCTION_WORDS = tuple(sorted({t for line in _INSTRUCTION_TOKENS for t in line}))
_VOCABULARY = frozenset(_INSTRUCTION_WORDS) | _TEMPLATE_WORDS
_RUNS = frozenset(tuple(line[i : i + _RUN]) for line in _INSTRUCTION_TOKENS for i in range(len(line) - _RUN + 1))
_INFLECTIONS = ("s", "es", "d", "ed", "ing")


@lru_cache(maxsize=4096)
def _canonical(token: str) -> str:
    """``token``, or the instruction word it misspells ("evryone": "everyone"); short words as they are.

    Only instruction words are targets, and an inflection of one is a word of its own ("claim" is not
    "claims", "word" is not "words")."""
    if len(token) < 4 or token in _VOCABULARY or token in _FUNCTION_WORDS:
        return token
    close = difflib.get_close_matches(token, _INSTRUCTION_WORDS, n=1, cutoff=0.8)
    if not close:
        return token
    short, long = sorted((token, close[0]), key=len)
    if long.startswith(short) and long[len(short) :] in _INFLECTIONS:
        return token
    return close[0]


def _copied_run(words: list[str]) -> list[str]:
    """The first longest stretch of ``words`` made of runs of ``_RUN`` words as they stand in one line of
    the instructions, or []. A stretch of just ``_RUN`` words needs two words of meaning (not function
    words): "you say to" in "What do you say to that?" is speech."""
    best: list[str] = []
    i = 0
    while i + _RUN <= len(words):
        j = i
        while j + _RUN <= len(words) and tuple(words[j : j + _RUN]) in _RUNS:
            j += 1
        stretch = words[i : j + _RUN - 1] if j > i else []
        meaning = sum(w not in _FUNCTION_WORDS for w in stretch)
        if len(stretch) > len(best) and meaning and (meaning >= 2 or len(stretch) > _RUN):
            best = stretch
        i = max(j, i + 1)
    return best


def placeholder_reason(text: str) -> str | None:
    """Why ``text`` is not a statement of its own but a copy of the turn's instructions, or None (speech).

    An answer-format placeholder anywhere (``echoes_template``); else, read with names' folding (NFKC,
    case), numbers as "#" and misspelt instruction words as the word: text with no word of its own (every
    word a function word, a template word, an instruction word or inside a ``<...>`` slot) that holds a
    ``<slot>`` (or a ``[...]``/``{...}`` one of instruction words only), a literal field key (``"notes":``,
    or the whole text just "Statement."), or at least three words in a row as in one line of the
    instructions. A field word alone ("No claims.", "No notes.") decides nothing, and speech that quotes a
    few of those words among words of its own passes.
    """
    echoed = echoes_template(text)
    if echoed is not None:
        return f"echoes the answer template's placeholder {echoed!r}"
    folded = fold(text[: _MAX_TOKENS * 16])
    slots = [" ".join(m.group(1).split()) for m in _SLOT.finditer(folded)]
    words = [_canonical(t) for t in _tokens(_SLOT.sub(" ", folded))[:_MAX_TOKENS]]
    if any(w not in _VOCABULARY and w not in _FUNCTION_WORDS for w in words):
        return None  # a word of its own: speech
    if slots:
        return f"is the template slot {'<' + slots[0] + '>'!r} with no words of its own"
    for m in _BRACKETED.finditer(folded):
        inside = [_canonical(t) for t in _tokens(m.group(1))]
        if any(w not in _FUNCTION_WORDS for w in inside):  # all in the vocabulary: no word of its own
            return f"is the template slot {m.group(0)!r} with no words of its own"
    key = _QUOTED_KEY.search(folded) or _ONLY_KEY.fullmatch(folded)
    if key is not None:
        return f"is the answer's field name {key.group(1)!r}, not speech"
    copied = _copied_run(words)
    if copied:
        return f"repeats the turn's instructions ({' '.join(copied)[:80]!r}) with no words of its own"
    return None
