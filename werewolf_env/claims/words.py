"""The claim reader's vocabulary: a ruleset's role words (``Ruleset.specs``) and the reader's own.

Role words come from ``RoleSpec.words`` (and ``RoleSpec.plural`` of a role with many holders) only, each
read as the one role ``ruleset.words`` gives it (the judge's mapping too): a custom role of a game's ruleset
(``DEFAULT_RULESET.with_role``) is read like a built-in one by that game's reader, and by no other.
The reader adds the words no role owns: team words ("innocent", "town", "killer"), hedged forms ("wolfy"),
sides ("the village team"). The pack's words (the role named like its team: "werewolf", "wolf", "mafia")
make *team* claims, every other role's words role claims.

A ruleset's word tables are one immutable value, a ``Lexicon``, built once per ruleset (``lexicon(ruleset)``,
cached by ruleset: equal rulesets share it). The pattern modules build their patterns from it
(``claims.patterns.vocabulary``), and the reader passes it, and them, to every pattern function: nothing here
changes after import, so readers of games with different rulesets may read at once, in any threads.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import lru_cache
from types import MappingProxyType

from werewolf_env.core import DEFAULT_RULESET, ActionKind, Role, RoleSpec, Ruleset, removed_names

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


# ---------------------------------------------------------------------------------------- one ruleset's tables

Predicate = tuple[str, str, bool]  # (kind, value, hedged): ("role", "seer", False), ("team", "werewolf", True)


@dataclass(frozen=True, slots=True)
class Lexicon:
    """The claim reader's word tables of one ruleset (``lexicon(ruleset)``): immutable, shared by its readers."""

    ruleset: Ruleset
    predicates: Mapping[str, Predicate]  # role and team words -> (kind, value, hedged)
    pred_alt: str  # every word of ``predicates``, as a regex alternation
    pred_words: frozenset[str]  # the single words in ``predicates`` (a sentence without one has no predicate)
    pack_alt: str  # the pack's words: "werewolf", "wolves", "mafia", ...
    label_alt: str  # role words that label a name: "Seer Bob", "Bob (the seer)", "as the seer, I ..."
    label_words: frozenset[str]
    claimable_alt: str  # words of roles a player claims to hold ("I CO seer", "Bob's doctor claim"): all but the pack
    unique_alt: str  # words of roles with one holder: "the doctor is gone"
    subject_after_alt: str  # "the seer is Bob", "the wolves are A and B": unique roles' and the pack's words
    subject_after_words: frozenset[str]
    checker_word: str | None  # the role whose night action checks a player ("X can't have checked"); None: no such role
    common_words: frozenset[str]  # names that are also these words count only when capitalised

    def predicate(self, word: str) -> Predicate:
        """(kind, value, hedged) of a role or team word as matched (runs of spaces allowed)."""
        found = self.predicates.get(word)
        return found if found is not None else self.predicates[" ".join(word.split())]


@lru_cache(maxsize=32)
def lexicon(ruleset: Ruleset = DEFAULT_RULESET) -> Lexicon:
    """The word tables of ``ruleset``, built the first time it is asked for (cached by ruleset)."""
    predicates: dict[str, Predicate] = {}
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
    pred_words = frozenset(w for key in predicates for w in re.findall("[a-z]+", key))
    return Lexicon(
        ruleset=ruleset,
        predicates=MappingProxyType(predicates),
        pred_alt=alternation(predicates),
        pred_words=pred_words - {"our", "on", "good", "side", "team"},
        pack_alt=alternation(pack),
        label_alt=alternation(labels),
        label_words=frozenset(w for word in [*labels, *LABEL_TEAM_WORDS] for w in word.split()),
        claimable_alt=alternation(claimable),
        unique_alt=alternation(unique),
        subject_after_alt=alternation([*unique, *pack]),
        subject_after_words=frozenset(w for word in (*unique, *pack) for w in word.split()),
        checker_word=checker or None,
        common_words=frozenset(_COMMON_NAMES) | frozenset(w for w in spoken_words if " " not in w),
    )


# Names this module had; reading one says where it went. The compiled build (setup.py) compiles this module, and
# a compiled module-level ``__getattr__`` crashes the import (Python asks it for ``__file__`` before the module's
# globals exist): the function comes from an uncompiled module.
__getattr__ = removed_names(
    __name__,
    "PREDICATES PRED_ALT PRED_WORDS PACK_ALT LABEL_ALT LABEL_WORDS CLAIMABLE_ALT UNIQUE_ALT SUBJECT_AFTER_ALT "
    "SUBJECT_AFTER_WORDS CHECKER_WORD COMMON_WORDS VERSION ACTIVE predicate rebuild use using on_words_changed".split(),
    "the claim reader's vocabulary is no longer module state. Read a ruleset's word tables from lexicon(ruleset), "
    "its patterns from claims.patterns.vocabulary(ruleset)",
)
