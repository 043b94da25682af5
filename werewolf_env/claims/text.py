"""Reading claims from what players say: templates and real language-model speech alike.

The rules of what a claim is are those of the shared corpus's ``LABELING.md``: a claim asserts one
player's role or team ("Bob is a wolf", "I am the seer", "as the doctor, I ..."), a seer result
("I investigated Dan, he came up as mafia", "N1: Eve=Human") or a protection ("I saved Bob"),
plainly or ``hedged`` ("I think Bob is a wolf", "I trust Eve", "town-lean: Eve", "she's a bit
wolfy"), possibly ``negated`` ("Bob is not the seer"; "I don't think Bob is a wolf" is hedged and
negated). Not claims: questions, conditionals ("if Bob is the seer ..."), reported speech ("Carol
said she is the seer", "you claim to be the doctor"), suppositions and plans.

How a statement is read (``ClaimExtractor.scan``):

1. Names (and ``player_<i>`` ids) become seat tokens ``<i>``; names that are also common words
   ("May", "Frank") count only when capitalised. Names are compared by ``names.name_key`` (NFKC and
   case folding: a decomposed "Inés" or a full-width "Ｂｏｂ" is the player).
2. The text is cut into sentences; questions are skipped, but still move the pronoun context.
3. Pronouns are resolved when one reading is plain: "he" / "she" / "him" / "her" to the one player
   named just before (the same sentence so far, else the previous one), "they" / "them" to a group
   named just before ("Sakura and Yumi ... They have to be wolves"), "you" to the player addressed
   ("@Misaki", "Bob, ...", "..., Bob."). An ambiguous pronoun stays unresolved: no claim.
4. Patterns, on the tokenised sentence: a subject (a seat, a group "A, B and C", "I") with a
   copula ("is", "'s", "must be", "seems", "could be", "isn't", ...) and a role or team word;
   role words as labels ("Seer Ryuji", "the outed wolf Diana", "Sonnet, the Doctor,"); "the wolf is
   Bob"; "Bob = Human", "Bob: wolf"; "as the doctor, I"; "I CO seer"; "I trust / suspect Bob";
   "town-lean: Eve"; "I'm suspicious of Bob"; seer checks ("I divined Shion. She's a werewolf": the
   checked player is remembered into the next sentence; "Dan is human by my divine") and protections;
   one or two adjectives after an article when the role word ends the clause ("the big bad wolf");
   play called a werewolf's ("that's classic wolf play", "his voting screams wolf": a hedged
   accusation of whoever the sentence, or the one before, is about); someone's claim called false
   ("Alice's claim is a lie", "Bob is lying", "Bob, that's impossible", "you can't have
   investigated anyone": a denial of the role that player claimed, named or claimed earlier in
   public, which the caller passes as ``claimed``); a role whose holder everyone knows, where the
   sentence speaks of a death ("the doctor was killed", "the seer's elimination"); reads of analytical
   speech (``claim_reads``): suspect rankings and solves ("my top suspect is Bob", "solve: A + B"),
   suspicion placed ("my suspicion falls on Eve", "I'm wary of Bob"), notation ("Bob slight+", "Eve
   reads town"), players listed with a team ("a wolf pair, A and B", "A and B (both town)"); a
   werewolf's tactic named as a player's ("Bob's deflection", "what a cornered wolf does").
5. Each match is dropped when the clause before it holds a conditional ("if", "unless", "assuming"),
   a reporting verb with someone else as its subject ("said", "claims", "accused", "thinks"), or
   a disjunction ("either Bob or Eve"); it is hedged when the clause marks belief ("I think",
   "probably", "my read", "seems", "might"; but "my read" after the speaker's own check is its
   result), and negated once per "not" / "n't" / "I don't think". A player addressed ("Bob, I'm not
   the wolf", "@Carla Dmitri is the wolf") is not a subject; "you" / "your" is the player addressed
   last before it.

Claims come out in canonical form (``claims.make_claim``), in text order, one per ``claim_key``
(hedged only if every reading of it was hedged).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable
from functools import lru_cache
from typing import Any

from werewolf_env.claims import patterns as cp
from werewolf_env.claims import tokens as ct
from werewolf_env.claims.reader import Reader
from werewolf_env.core import DEFAULT_RULESET, Ruleset, fold_with_positions, name_key

KnownRoles = tuple[tuple[str, int], ...]  # (role, seat) known to everyone, e.g. revealed on death
ClaimedRoles = tuple[tuple[int, str], ...]  # (seat, role) each player claimed in public before the statement


@lru_cache(maxsize=64)
def extractor_for(names: tuple[str, ...], ruleset: Ruleset = DEFAULT_RULESET) -> ClaimExtractor:
    """The claim reader of a game with these players and roles (memoised: its memo of what was read is kept)."""
    return ClaimExtractor(names, ruleset)


class ClaimExtractor:
    """Deterministic reader of the claims the benchmark grounds (see the module docstring)."""

    def __init__(self, names: tuple[str, ...], ruleset: Ruleset = DEFAULT_RULESET) -> None:
        self.names = names
        self.ruleset = ruleset
        self.vocab = cp.vocabulary(ruleset)  # whose role words and patterns are read (immutable, shared per ruleset)
        self._memo: dict[tuple[str, int, KnownRoles, ClaimedRoles], tuple[list[dict[str, Any]], frozenset[int]]] = {}
        self._plain: dict[tuple[str, int], tuple[list[dict[str, Any]], frozenset[int]]] = {}  # read without context
        lookup: dict[str, int] = {}
        for seat, name in enumerate(names):
            lookup[name_key(name)] = seat
            lookup[f"player_{seat}"] = seat
        self.lookup = lookup
        # Games whose players are numbered ("player_4"): models also write "Player 4", "player4" and "players
        # 5 and 6"; those are rewritten to the names before reading (``_numbered``).
        numbered = [ct.NUMBERED_NAME_RE.fullmatch(name_key(name)) for name in names]
        self._number_names = (
            {int(m.group(1)): name_key(name) for m, name in zip(numbered, names, strict=True) if m}
            if names and all(numbered)
            else {}
        )
        self._cased = frozenset(n for n in lookup if n in self.vocab.words.common_words)
        alts = sorted(lookup, key=len, reverse=True)
        name = r"(?:" + "|".join(re.escape(a) for a in alts) + r")"
        # Searched in folded text (``_name_hits``), case-sensitive: about twice as fast as IGNORECASE.
        self._folded_name_re = re.compile(r"(?<![\w])" + name + r"(?![\w])")

    def seat(self, token: str) -> int | None:
        """The seat of a name or agent id as written anywhere (compared by ``name_key``), else None."""
        return self.lookup.get(name_key(token))

    def mentions(self, text: str) -> frozenset[int]:
        """Seats named in ``text`` (names or agent ids)."""
        return frozenset(seat for _, _, seat in self._name_hits(text, text.lower()))

    def _name_hits(self, text: str, lowered: str) -> list[tuple[int, int, int]]:
        """(start, end, seat) of every name in ``lowered`` (``text.lower()``: positions are its own, which the
        tokeniser cuts); a name that is a common word only when capitalised."""
        if lowered.isascii() or (unicodedata.is_normalized("NFKC", lowered) and lowered.casefold() == lowered):
            # Folding changes nothing (checked in C): the usual statement takes no Python loop.
            found = [(m.start(), m.end(), m.group(0)) for m in self._folded_name_re.finditer(lowered)]
        else:
            folded, starts, ends = fold_with_positions(lowered)
            found = [(starts[m.start()], ends[m.end() - 1], m.group(0)) for m in self._folded_name_re.finditer(folded)]
        if len(lowered) != len(text) and self._cased:
            text = ""  # lower() moved positions (a few scripts): the case cannot be checked, so drop the ambiguous
        hits: list[tuple[int, int, int]] = []
        for start, end, key in found:
            if key in self._cased and not (text and text[start].isupper()):
                continue
            if hits and start < hits[-1][1]:
                continue  # two names folded out of one character cluster: keep the first
            hits.append((start, end, self.lookup[key]))
        return hits

    def _numbered(self, m: re.Match[str]) -> str:
        """A mention of numbered players ("Player 4", "players 5 and 6") with each number as its player's name."""
        names = self._number_names
        return ct.NUMBER_RE.sub(lambda n: names.get(int(n.group(0)), n.group(0)), ct.PLAYER_WORD_RE.sub("", m.group(0)))

    def extract(
        self, text: str, speaker: int, known: KnownRoles = (), claimed: ClaimedRoles = ()
    ) -> list[dict[str, Any]]:
        return self.scan(text, speaker, known, claimed)[0]

    def scan(
        self, text: str, speaker: int, known: KnownRoles = (), claimed: ClaimedRoles = ()
    ) -> tuple[list[dict[str, Any]], frozenset[int]]:
        """The claims in ``text`` and the seats it names, in one pass over the names.

        ``known``: (role, seat) pairs every player knows (a role revealed on death), so that "the
        doctor is gone" reads as a claim about that seat; a role word with no such holder names no one.
        ``claimed``: (seat, role) each player claimed in public earlier (``claims.public_role_claims``), so that
        "Alice's claim is false" or "Bob is lying" reads as a denial of that role.
        Memoised (template-driven agents repeat their sentences); callers get fresh claim dicts.
        """
        return self.scan_with(text, speaker, lambda: (known, claimed))

    def scan_with(
        self, text: str, speaker: int, context: Callable[[], tuple[KnownRoles, ClaimedRoles]]
    ) -> tuple[list[dict[str, Any]], frozenset[int]]:
        """``scan``, with ``known`` and ``claimed`` as ``context()``: called only when the memo cannot answer
        without them (the engine works them out from the game's statements so far).

        Two memos: most statements are read without looking at ``known`` or ``claimed`` (the reader records
        whether it did), and those are remembered by text and speaker alone, whatever the context.
        """
        found = self._plain.get((text, speaker))
        if found is None:
            known, claimed = context()
            key = (text, speaker, known, claimed)
            found = self._memo.get(key)
            if found is None:
                found, used_context = self._scan(text, speaker, known, claimed)
                memo = self._memo if used_context else self._plain
                if len(memo) >= ct.MEMO_SIZE:
                    memo.clear()
                if used_context:
                    self._memo[key] = found
                else:
                    self._plain[(text, speaker)] = found
        claims, mentioned = found
        return [claim.copy() for claim in claims], mentioned

    def _scan(
        self, text: str, speaker: int, known: KnownRoles = (), claimed: ClaimedRoles = ()
    ) -> tuple[tuple[list[dict[str, Any]], frozenset[int]], bool]:
        """The claims and the seats named, and whether reading them looked at ``known`` or ``claimed``."""
        text = ct.normalise(text)
        if self._number_names and ct.NUMBERED_MENTION_RE.search(text):
            text = ct.NUMBERED_MENTION_RE.sub(self._numbered, text)
        lowered = text.lower()
        hits = self._name_hits(text, lowered)
        mentioned = frozenset(seat for _, _, seat in hits)
        vocab = self.vocab
        if vocab.roles.trigger_words.isdisjoint(ct.WORD_RE.findall(lowered)):
            return ([], mentioned), False  # no role, team, check or trust word: nothing to read
        tokens = ct.tokenise(lowered, hits)
        reader = Reader(speaker, len(self.names), vocab, dict(known), dict(claimed))
        bare = tokens.strip(" .!")
        if bare in vocab.words.predicates and speaker >= 0:
            # A statement that is a role word and nothing else ("Villager."): the speaker's answer about itself.
            reader.add_predicate(bare, 0, [speaker], bare)
            return (reader.claims(), mentioned), False
        for sentence in ct.sentences(tokens):
            reader.read(sentence)
        return (reader.claims(), mentioned), reader.context_used
