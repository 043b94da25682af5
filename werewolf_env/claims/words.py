"""The claim reader's vocabulary: the role table's words (``roles.ROLE_SPECS``) and the reader's own.

Role words come from ``RoleSpec.words`` (and ``RoleSpec.plural`` of a role with many holders) only, each
read as the one role ``roles.role_words`` gives it (the judge's mapping too): a role registered at run
time (``roles.register_role``) is read like a built-in one, and an unregistered role is no longer read.
The reader adds the words no role owns: team words ("innocent", "town", "killer"), hedged forms ("wolfy"),
sides ("the village team"). The pack's words (the role named like its team: "werewolf", "wolf", "mafia")
make *team* claims, every other role's words role claims.

Every pattern module builds its patterns from the tables here, once at import and again whenever the
set of roles changes: ``rebuild`` (subscribed to ``roles.on_roles_changed``) recomputes the tables and
then calls every builder registered with ``on_words_changed``, in registration order (the word tables
first, then the patterns that use them). Readers look the tables up as module attributes
(``cw.PREDICATES``) at call time, so a rebuild is seen at once; ``VERSION`` counts rebuilds, so that
caches of what was read (``claim_text``) know when to forget it.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from functools import lru_cache

from werewolf_env.core.roles import ROLE_SPECS, ActionKind, Role, RoleSpec, on_roles_changed, role_words

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


def is_pack(role: Role) -> bool:
    """The role named like its team (the werewolf): its words say which team, as "wolf" does."""
    return role.value == ROLE_SPECS[role].team.value


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

_builders: list[Callable[[], None]] = []


def on_words_changed(builder: Callable[[], None]) -> None:
    """Call ``builder`` now and after every rebuild of the tables (pattern modules recompile)."""
    _builders.append(builder)
    builder()


def rebuild() -> None:
    """Recompute every table from ``ROLE_SPECS``, then run the registered builders."""
    global PREDICATES, PRED_ALT, PRED_WORDS, PACK_ALT, LABEL_ALT, LABEL_WORDS, CLAIMABLE_ALT, UNIQUE_ALT
    global SUBJECT_AFTER_ALT, SUBJECT_AFTER_WORDS, CHECKER_WORD, COMMON_WORDS, VERSION
    predicates: dict[str, tuple[str, str, bool]] = {}
    pack: list[str] = []
    labels: list[str] = []
    claimable: list[str] = []
    unique: list[str] = []
    spoken_words: list[str] = []
    checker = ""
    owner = role_words()  # the one mapping of words to roles, the judge's too: no word is read as two roles
    for role, spec in ROLE_SPECS.items():
        # A role with one holder has no plural in claims ("Takumi and May can't both be seers" says no one's role).
        spoken = [w.lower() for w in spec.words] + ([] if spec.unique else [spec.plural.lower()])
        words = [w for w in dict.fromkeys(spoken) if owner.get(" ".join(w.split())) is role]
        singular = _singular(spec)
        spoken_words += words
        labels += [w for w in singular if w not in NOT_LABELS]
        if is_pack(role):
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


rebuild()
on_roles_changed(rebuild)
