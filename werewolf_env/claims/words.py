"""The claim reader's vocabulary: a ruleset's role words (``Ruleset.specs``) and the reader's own.

Role words come from ``RoleSpec.words`` (and ``RoleSpec.plural`` of a role with many holders) only, each
read as the one role ``ruleset.words`` gives it (the judge's mapping too): a custom role of a game's ruleset
(``DEFAULT_RULESET.with_role``) is read like a built-in one by that game's reader, and by no other.
The reader adds the words no role owns: team words ("innocent", "town", "killer"), hedged forms ("wolfy"),
sides ("the village team"). The pack's words (the role named like its team: "werewolf", "wolf", "mafia")
make *team* claims, every other role's words role claims.

Every pattern module builds its patterns from the tables here: ``rebuild(ruleset)`` recomputes the tables
and then calls every builder registered with ``on_words_changed``, in registration order (the word tables
first, then the patterns that use them). Readers look the tables up as module attributes (``cw.PREDICATES``)
at call time. The module attributes hold one ruleset's vocabulary at a time (``DEFAULT_RULESET``'s unless a
reader asks for another): ``using(ruleset)`` swaps a ruleset's vocabulary in for the duration of a read
(built once per ruleset, then kept: ``_VOCABULARIES``) and puts the previous one back, so readers of games
with different rulesets interleave safely in one thread. (What is left to do: a vocabulary object passed to
the pattern functions instead of module attributes, which would also make reads from several threads with
different rulesets safe.)
"""

from __future__ import annotations

import dis
import re
import sys
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from functools import lru_cache
from typing import Any

from werewolf_env.core import DEFAULT_RULESET, ActionKind, Role, RoleSpec, Ruleset

# ---------------------------------------------------------------------------------------- the reader's own words

# Team words no role owns -> (kind, value, hedged).
_TEAM_WORDS: tuple[tuple[str, tuple[str, str, bool]], ...] = (
    ("killer murderer", ("team", "werewolf", False)),
    ("wolfy wolfish wolf-ish scummy", ("team", "werewolf", True)),
    ("human humans innocent innocents clean town townsfolk", ("team", "village", False)),
)
_VILLAGE_PHRASES = ("good guy", "good guys", "on our side", "in the clear")
_SIDES = ("village", "villager", "villagers", "town", "human", "good")  # "the village team", "the good side"
_PACK_SIDES = ("wolf", "werewolf", "mafia")  # "the wolf side"
# Role words that do not label a player ("I'll guard Bob", "the wolves Bob and Eve", "scum Bob"): ordinary
# English before a name, collective or plural forms (besides each role's ``plural``).
NOT_LABELS = frozenset({"guard", "wolves", "werewolves", "mafia", "mafiosi", "mafiosos", "scum", "townspeople"})
# Team words a label may carry after a name ("Eve (human)"), and one may speak as ("as a human, I ...").
LABEL_TEAM_WORDS = ("human",)
# Names that are also common words count only when capitalised (role words are added from the table).
_COMMON_NAMES = (
    "may will mark rose grace hope faith frank bill joy june april august sun art max sage river dawn rich sky ray "
    "amber crystal autumn destiny honey penny sunny summer winter case lane page pat skip chase ace bo jack king "
    "major miles cash drew gene guy lucky nick rob sandy stone you me i he she they them"
).split()


def alternation(words: Iterable[str]) -> str:
    """A regex alternation of ``words``, longest first, a space in a word matching any run of spaces."""
    return "|".join(sorted((re.escape(w).replace(r"\ ", r"\s+") for w in set(words)), key=len, reverse=True))


def is_pack(role: Role, ruleset: Ruleset = DEFAULT_RULESET) -> bool:
    """The role named like its team (the werewolf): its words say which team, as "wolf" does."""
    return role.value == ruleset.specs[role].team.value


def _singular(spec: RoleSpec) -> list[str]:
    """The role's words that name one holder: not its plural, nor a word plus "s" / "es"."""
    words = [w.lower() for w in spec.words]
    plural = {spec.plural.lower()} | {w + "s" for w in words} | {w + "es" for w in words}
    return [w for w in words if w not in plural]


# ---------------------------------------------------------------------------------------- the derived tables
# Each is recomputed by ``rebuild``; the values at import are those of the built-in roles.

PREDICATES: dict[str, tuple[str, str, bool]] = {}  # role and team words -> (kind, value, hedged)
PRED_ALT = ""  # every word of PREDICATES
PRED_WORDS: frozenset[str] = frozenset()  # the single words in PREDICATES (a sentence without one has no predicate)
PACK_ALT = ""  # the pack's words: "werewolf", "wolves", "mafia", ...
LABEL_ALT = ""  # role words that label a name: "Seer Bob", "Bob (the seer)", "as the seer, I ..."
LABEL_WORDS: frozenset[str] = frozenset()
CLAIMABLE_ALT = ""  # words of roles a player claims to hold ("I CO seer", "Bob's doctor claim"): all but the pack
UNIQUE_ALT = ""  # words of roles with one holder: "the doctor is gone"
SUBJECT_AFTER_ALT = ""  # "the seer is Bob", "the wolves are A and B": unique roles' and the pack's words
SUBJECT_AFTER_WORDS: frozenset[str] = frozenset()
CHECKER_WORD = "seer"  # the name of the role whose night action checks a player ("X can't have checked anyone")
COMMON_WORDS: frozenset[str] = frozenset()
VERSION = 0  # rebuilds so far
ACTIVE: Ruleset = DEFAULT_RULESET  # the ruleset whose vocabulary the module attributes hold

# The pattern modules' builders (at import), and the module attributes each sets (its ``global`` names).
_builders: list[Callable[[], None]] = []
_built: list[tuple[dict[str, Any], tuple[str, ...]]] = []
# Each ruleset's vocabulary once built: the values of every built attribute, in ``_built`` order.
_VOCABULARIES: dict[Ruleset, list[tuple[Any, ...]]] = {}
_MAX_VOCABULARIES = 32


def _globals_set(function: Callable[..., Any]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(i.argval for i in dis.get_instructions(function) if i.opname == "STORE_GLOBAL"))


def on_words_changed(builder: Callable[[], None]) -> None:
    """Register a pattern module's builder: called now and whenever a ruleset's vocabulary is built."""
    _builders.append(builder)
    _built.append((sys.modules[builder.__module__].__dict__, _globals_set(builder)))
    builder()
    _VOCABULARIES.clear()  # the default vocabulary is snapshotted again, with this module's patterns
    _VOCABULARIES[ACTIVE] = _snapshot()


def _snapshot() -> list[tuple[Any, ...]]:
    return [tuple(namespace[name] for name in names) for namespace, names in _built]


def _restore(values: list[tuple[Any, ...]]) -> None:
    for (namespace, names), row in zip(_built, values, strict=True):
        namespace.update(zip(names, row, strict=True))
    predicate.cache_clear()


def use(ruleset: Ruleset) -> Ruleset:
    """Make the module attributes hold ``ruleset``'s vocabulary (built the first time); the previous ruleset."""
    global ACTIVE
    previous = ACTIVE
    if ruleset is previous or ruleset == previous:
        return previous
    values = _VOCABULARIES.get(ruleset)
    if values is None:
        rebuild(ruleset)
        values = _snapshot()
        if len(_VOCABULARIES) >= _MAX_VOCABULARIES:
            for stale in [r for r in _VOCABULARIES if r != DEFAULT_RULESET]:
                del _VOCABULARIES[stale]
        _VOCABULARIES[ruleset] = values
    else:
        _restore(values)
    ACTIVE = ruleset
    return previous


@contextmanager
def using(ruleset: Ruleset) -> Iterator[None]:
    """``ruleset``'s vocabulary for the duration of the block; the previous one back after."""
    previous = use(ruleset)
    try:
        yield
    finally:
        use(previous)


_built.append((globals(), ()))  # filled in below, once ``rebuild``'s attributes are known


def rebuild(ruleset: Ruleset = DEFAULT_RULESET) -> None:
    """Recompute every table from ``ruleset``, then run the registered builders."""
    global PREDICATES, PRED_ALT, PRED_WORDS, PACK_ALT, LABEL_ALT, LABEL_WORDS, CLAIMABLE_ALT, UNIQUE_ALT
    global SUBJECT_AFTER_ALT, SUBJECT_AFTER_WORDS, CHECKER_WORD, COMMON_WORDS, VERSION
    predicates: dict[str, tuple[str, str, bool]] = {}
    pack: list[str] = []
    labels: list[str] = []
    claimable: list[str] = []
    unique: list[str] = []
    spoken_words: list[str] = []
    checker = ""
    owner = ruleset.words  # the one mapping of words to roles, the judge's too: no word is read as two roles
    for role, spec in ruleset.specs.items():
        # A role with one holder has no plural in claims ("Takumi and May can't both be seers" says no one's role).
        spoken = [w.lower() for w in spec.words] + ([] if spec.unique else [spec.plural.lower()])
        words = [w for w in dict.fromkeys(spoken) if owner.get(" ".join(w.split())) is role]
        singular = _singular(spec)
        spoken_words += words
        labels += [w for w in singular if w not in NOT_LABELS]
        if is_pack(role, ruleset):
            pack += words
            meaning = ("team", spec.team.value, False)
        else:
            claimable += singular
            unique += singular if spec.unique else []
            meaning = ("role", role.value, False)
        if not checker and ActionKind.UNMASK in spec.night_kinds:
            checker = role.value
        for word in words:
            predicates[word] = meaning
    for words_, meaning in _TEAM_WORDS:
        for word in words_.split():
            predicates.setdefault(word, meaning)
    village = ("team", "village", False)
    for phrase in _VILLAGE_PHRASES:
        predicates[phrase] = village
    for side in _SIDES:
        predicates[f"{side} team"] = predicates[f"{side} side"] = village
    for side in _PACK_SIDES:
        predicates[f"{side} team"] = predicates[f"{side} side"] = ("team", "werewolf", False)
    PREDICATES = predicates
    PRED_ALT = alternation(predicates)
    PRED_WORDS = frozenset(w for key in predicates for w in re.findall("[a-z]+", key)) - {
        "our",
        "on",
        "good",
        "side",
        "team",
    }
    PACK_ALT = alternation(pack)
    LABEL_ALT = alternation(labels)
    LABEL_WORDS = frozenset(w for word in [*labels, *LABEL_TEAM_WORDS] for w in word.split())
    CLAIMABLE_ALT = alternation(claimable)
    UNIQUE_ALT = alternation(unique)
    SUBJECT_AFTER_ALT = alternation([*unique, *pack])
    SUBJECT_AFTER_WORDS = frozenset(w for word in (*unique, *pack) for w in word.split())
    CHECKER_WORD = checker or "seer"
    COMMON_WORDS = frozenset(_COMMON_NAMES) | frozenset(w for w in spoken_words if " " not in w)
    VERSION += 1
    predicate.cache_clear()
    for builder in list(_builders):
        builder()


@lru_cache(maxsize=256)
def predicate(word: str) -> tuple[str, str, bool]:
    """(kind, value, hedged) of a role or team word as matched (runs of spaces allowed)."""
    return PREDICATES[" ".join(word.split())]


_built[0] = (globals(), tuple(name for name in _globals_set(rebuild) if name != "VERSION"))
rebuild()
