"""How a name read from text is compared with the players' names: one rule, used everywhere.

``name_key`` is the form names are compared in: Unicode NFKC (a composed and a decomposed "Inés",
full-width "Ｉｎéｓ" and ligatures read alike), then case folding (``str.casefold``: "STRASSE" and
"straße" alike), runs of whitespace as one space, the ends trimmed. Game configs refuse two names
with one key, action targets, structured claims, the claim reader and the benchmarks' seat lookups
all match by it.

Folding is done per cluster (a character with the combining marks and conjoining jamo after it), so
that ``fold_with_positions`` can say where in the original text each folded character came from: the
claim reader finds names in the folded text and replaces them in the original one.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Callable, Sequence
from functools import lru_cache

# How a seat's observation marks a name: its own (after the name), a dead player's. A player name may not hold
# either (``config.GameConfig``), or another player's lines would read as the seat's own.
SELF_MARK = " (you)"
DEAD_MARK = " [dead]"


def name_key(text: str) -> str:
    """The form in which a name (or any text searched for names) is compared."""
    if text.isascii():  # the usual name: NFKC changes nothing and casefold is lower
        return " ".join(text.lower().split())
    return " ".join(fold(text).split())


def seat_finder(names: Sequence[str]) -> Callable[[object], int | None]:
    """``seat(name)``: the seat whose name has ``name``'s key; None for unknown names and non-strings."""
    seats = {name_key(str(name)): seat for seat, name in enumerate(names)}

    def seat(name: object) -> int | None:
        return seats.get(name_key(name)) if isinstance(name, str) else None

    return seat


def fold(text: str) -> str:
    """NFKC and case folding, cluster by cluster (the same as ``fold_with_positions``'s text)."""
    if text.isascii():  # the usual text: NFKC changes no ASCII character, and folds its case as lower() does
        return text.lower()
    if _is_folded(text):
        return text
    return "".join(_fold_cluster(cluster) for cluster in _clusters(text))


def fold_with_positions(text: str) -> tuple[str, list[int], list[int]]:
    """``(folded, starts, ends)``: ``fold(text)``, and for each of its characters the start and end in
    ``text`` of the cluster it came from (a match ``folded[a:b]`` is ``text[starts[a]:ends[b - 1]]``)."""
    if text.isascii() or _is_folded(text):  # one character each, where it stood (ASCII: see ``fold``)
        return fold(text), list(range(len(text))), list(range(1, len(text) + 1))
    parts: list[str] = []
    starts: list[int] = []
    ends: list[int] = []
    at = 0
    for cluster in _clusters(text):
        folded = _fold_cluster(cluster)
        parts.append(folded)
        starts += [at] * len(folded)
        at += len(cluster)
        ends += [at] * len(folded)
    return "".join(parts), starts, ends


def _is_folded(text: str) -> bool:
    """Whether folding would change nothing (checked in C: the usual text takes no Python loop)."""
    return unicodedata.is_normalized("NFKC", text) and text.casefold() == text


def _continues_cluster(char: str) -> bool:
    """Combining marks and conjoining Hangul vowels / finals compose with the character before them."""
    code = ord(char)
    return unicodedata.category(char)[0] == "M" or 0x1160 <= code <= 0x11FF or 0xD7B0 <= code <= 0xD7FF


def _clusters(text: str) -> list[str]:
    clusters: list[str] = []
    for char in text:
        if clusters and _continues_cluster(char):
            clusters[-1] += char
        else:
            clusters.append(char)
    return clusters


@lru_cache(maxsize=4096)
def _fold_cluster(cluster: str) -> str:
    # NFKC again after casefold: folding can undo a composition ("ǰ" folds to "ǰ" decomposed).
    return unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", cluster).casefold())
