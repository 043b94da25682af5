"""Reads of players in analytical speech: suspect rankings and solves, suspicion placed on a player, reads in
notation, a werewolf's tactic named as what a player did, and lists of players given one team.

Each is a claim on a team, by ``docs/labeling.md``: a ranking, a solve or a list of suspects is a hedged
werewolf read on each player named ("Top suspect: Mira", "my solve is Mira + Oskar", "suspects (A/B/C)",
"a wolf pair, X and Y"); so is suspicion placed on a player ("my suspicion falls on X", "I'm wary of X") and
a wolf's tactic named as the player's ("X's deflection", "X keeps deflecting blame": the tactic words are in
``claim_disputes.WOLF_PLAY_RE``, which names the player as it does for "classic wolf play"). Reads in
notation are hedged too ("X slight+", "town-read: X", "X reads town"). A team said of a listed group of
players in passing ("the confirmed mafia members, A and B") is a firm claim on each. ``Reader`` calls
``read_reads`` for every sentence holding one of ``READ_WORDS``; the conditional, question and reported-speech
rules of ``claim_context`` apply as to every other pattern. Nothing here names a role but the pack's words
and the role words of a group's label, filled in per ruleset (``read_patterns``).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType

from werewolf_env.claims import context as cc
from werewolf_env.claims import tokens as ct
from werewolf_env.claims.model import make_claim
from werewolf_env.claims.reading import ReaderView
from werewolf_env.claims.tokens import SEAT, WORD_I
from werewolf_env.claims.words import Lexicon

# A list of players as written in notes: "A, B and C", "A/B/C", "A + B", "A or B".
LIST = rf"(?P<group>{SEAT}(?:\s*(?:,\s*and|,|\band\b|&|/|\+|\bor\b)\s*{SEAT}|\s+{SEAT})*)"
# Words that rank a suspect: "top suspect", "my number one suspect", "the prime suspect".
RANK = (
    r"(?:top|prime|main|primary|biggest|strongest|leading|chief|lead|number\s+one|no\.?\s*1|#\s*1|first|second|"
    r"secondary|third|current|clear|clearest|obvious|likeliest|most\s+likely|favou?rite|only|other|remaining|"
    r"two|three|final|real|new|backup|next|next-best|secondary)"
)
_ADVERB = r"(?:[a-z]+ly|still|now|also|right\s+now|today|at\s+this\s+point|so\s+far)"
# "my top suspect is X", "my suspicion is on X", "our suspects: A and B", "my solve is A + B".
MY_SUSPECT_RE = re.compile(
    rf"\b(?:my|our)\s+(?:{RANK}\s+)*(?P<noun>suspects?|suspicions?|solve|reads?|(?:wolf|scum|mafia)\s+(?:reads?|picks?|"
    rf"candidates?|suspects?))\s*(?:{_ADVERB}\s+)*(?:is|are|remains?|stays?|would\s+be|has\s+to\s+be|:|=|-|,)\s*"
    rf"(?:{_ADVERB}\s+)*(?:on\s+|with\s+)?{LIST}(?!\s*'s)"
)
# "the top suspect is X", "the prime suspects are A and B".
THE_SUSPECT_RE = re.compile(
    rf"\bthe\s+(?:{RANK}\s+)+suspects?\s+(?:{_ADVERB}\s+)*(?:is|are|remains?|has\s+to\s+be|:|=|-)\s*"
    rf"(?:{_ADVERB}\s+)*{LIST}(?!\s*'s)"
)
# "X is my top suspect", "X remains our prime suspect", "X is top suspect".
IS_SUSPECT_RE = re.compile(
    rf"{LIST}(?P<cop>\s*'s(?=\s+(?:my|our)\b)|\s+(?:is|are|was|remains?|stays?|becomes?|became|is\s+not|isn't|"
    rf"are\s+not|aren't))\s+(?:{_ADVERB}\s+)*(?:(?:my|our)\s+(?:{RANK}\s+)*|(?:the|a|an)\s+(?:{RANK}\s+)+|(?:{RANK}\s+)+)"
    rf"(?:suspects?\b|(?:wolf|scum|mafia)\s+(?:leans?|reads?|picks?)\b|(?<=my\s)reads?(?=\s*(?:[,.;!]|$|\s-\s|for\s+(?:wolf|mafia|scum)|today|now)))"
)
# "that makes X a prime suspect", "keeps A and B as my suspects".
MAKES_SUSPECT_RE = re.compile(
    rf"\b(?:makes?|made|making|keeps?|kept|keeping|puts?|putting|moves?|moved|moving|leaves?|left)\s+{LIST}\s+"
    rf"(?:as\s+)?(?:(?:my|our)\s+(?:{RANK}\s+)*|(?:the|a|an)\s+(?:{RANK}\s+)+)suspects?\b"
)
# "X is the most suspicious", "the most suspicious player is X", "focus our suspicions on A and B".
MOST_SUSPICIOUS_RE = re.compile(
    rf"{LIST}\s+(?:is|are|seems?|looks?|remains?|stays?|was|were)\s+(?:{_ADVERB}\s+)*(?:the\s+)?most\s+suspicious"
    rf"(?!\s+(?:of|about|thing|part|moment|vote|move))"
)
MOST_SUSPICIOUS_FIRST_RE = re.compile(
    rf"\bthe\s+most\s+suspicious(?:\s+(?:player|one|person|of\s+all|of\s+us|to\s+me))?\s+(?:is|are|remains?|:)\s+"
    rf"{LIST}(?!\s*'s)"
)
FOCUS_SUSPICION_RE = re.compile(
    rf"\bfocus(?:es|ed|ing)?\s+(?:our|my|your|all\s+our|the)\s+(?:suspicions?|scrutiny)\s+(?:{_ADVERB}\s+)*"
    rf"(?:on|onto|toward|towards)\s+{LIST}"
)
# "A and B are working together", "Eve is colluding with Dan": a werewolf pair named as one.
TOGETHER_RE = re.compile(
    rf"{LIST}\s+(?:are|were|seem\s+to\s+be|might\s+be|could\s+be|must\s+be|have\s+been|appear\s+to\s+be)\s+"
    rf"(?:{_ADVERB}\s+)*(?:working|coordinating|colluding|conspiring|teaming\s+up|in\s+cahoots|partners)"
    rf"(?:\s+together)?\b"
)
# "X tops my list", "X is at the top of my list".
TOP_OF_LIST_RE = re.compile(
    rf"{LIST}\s+(?:(?:still|now|also)\s+)?(?:(?:tops?|topped|heads?|headed|leads?)\s+my|(?:is|are|remains?|sits?|"
    rf"stays?)\s+(?:still\s+|now\s+)?(?:at\s+)?(?:the\s+)?top\s+of\s+my)\s+(?:suspect\s+|wolf\s+|scum\s+)?list"
)
# "my gut says X", "my money is on X" (not "my gut says X is town": the claim reader reads that one).
GUT_RE = re.compile(
    rf"\bmy\s+(?:gut|instincts?|money|bet|hunch)\s+(?:still\s+|now\s+)?(?:says?|is|are|points?\s+(?:to|at)|goes\s+to|"
    rf"tells\s+me)\s+(?:on\s+)?{LIST}(?!\s*(?:'s|'re|is|are|was|were|has|had|might|could|would|and\s+i)\b)"
)
# "suspicion falls on X", "my suspicions now point toward A and B".
SUSPICION_ON_RE = re.compile(
    rf"\bsuspicions?\s+(?:{_ADVERB}\s+)*(?:falls?|fell|lands?|landed|points?|pointed|pointing|rests?|is|are|remains?|"
    rf"goes|went|shifts?|shifted|moves?|moved|leans?|centers?|centres?|sits?|lies|lie)\s+(?:{_ADVERB}\s+)*"
    rf"(?:on|onto|to|toward|towards|with|at)\s+{LIST}(?!\s*'s)"
)
# "Suspects (A/B/C)", "suspects: A and B", "solve: A + B", "wolves: A, B".
LIST_LABEL_RE = re.compile(
    rf"(?:^|[,(.]\s*|\b(?:my|our|the|top|main|two|final|backup|next)\s+)(?P<noun>suspects?|solve|suspect\s+list|"
    rf"wolf\s+reads?|scum\s+reads?|mafia\s+reads?|{{pack}})\s*(?::|=|\(|-)\s*{LIST}"
)
# "a wolf pair, X and Y", "the mafia team of A and B", "the scum duo: A + B".
PACK_GROUP_RE = re.compile(
    rf"\b(?:a|the|our|their)\s+(?:likely\s+|probable\s+|possible\s+)?(?:{{pack}})\s+(?:pair|duo|team|partners|"
    rf"partnership|bloc|trio)\s*(?:,|:|-|\(|of|is|are|being)\s*{LIST}"
)
# "the confirmed mafia members, A and B", "eliminated wolves (A and B)": a team given in passing.
PACK_APPOSITION_RE = re.compile(
    rf"\b(?:confirmed|eliminated|dead|known|outed|revealed|flipped|lynched|executed|exposed|caught|proven)\s+"
    rf"(?:{{pack}})(?:\s+(?:members?|players?|partners?|teammates?))?\s*(?:,|\(|:)\s*(?:both\s+|namely\s+)?{LIST}"
)
# "Pro and Sonnet (both town)", "Bob (innocent)", "A, B (confirmed mafia)": a role or team in brackets after names.
BRACKETED_RE = re.compile(
    rf"{LIST}\s*\(\s*(?:(?:both|all|each|also|a|an|the|confirmed|known|proven|revealed|outed|dead|flipped)\s+)*"
    rf"(?P<pred>{{pred}})\s*\)"
)
# "Deepseek and Qwen, both villagers", "A, B, all town": a team or role given to a group after a comma.
GROUP_APPOSITION_RE = re.compile(
    rf"{LIST}\s*,\s*(?:both|all|each)\s+(?:(?:of\s+them\s+)?(?:confirmed|known|proven|revealed|dead|sharp|"
    rf"innocent|real)\s+)?(?P<pred>{{pred}})(?=\s*(?:[,.;:!)]|$|and\b|who\b|which\b))"
)
# "hit Town (Sonnet, Rick, Haiku)", "the mafia (A and B)": a team, then who holds it in brackets.
PRED_THEN_BRACKETS_RE = re.compile(rf"\b(?P<pred>{{pred}})\s*\(\s*{LIST}\s*\)")
# "confirmed-Town player_7", "known mafia Bob": a team word as a label before a name.
TEAM_LABEL_RE = re.compile(
    rf"\b(?:confirmed|known|proven|cleared|verified|outed|revealed)[\s-]+(?P<pred>town|innocent|mafia|wolf|"
    rf"werewolf|scum)\s+{LIST}"
)
# "I'm wary of X", "I remain skeptical about A and B".
WARY_RE = re.compile(
    rf"{WORD_I}(?:'m|\s+am|\s+remain|\s+stay|\s+feel|'ve\s+been|\s+have\s+been)\s+(?:{_ADVERB}\s+|a\s+bit\s+|"
    rf"a\s+little\s+|quite\s+|very\s+|more\s+|most\s+)*(?:wary|leery|skeptical|sceptical|uneasy|distrustful|"
    rf"mistrustful)\s+(?:of|about|towards?|with|around)\s+(?:both\s+)?{LIST}(?!\s*'s\s+(?:claim|read|vote))"
)
# "X gives me a bad feeling", "X gives me town vibes".
GIVES_FEELING_RE = re.compile(
    rf"{LIST}\s+(?:gives?|gave|is\s+giving|has\s+been\s+giving|keeps?\s+giving)\s+(?:me|off)\s+(?:an?\s+)?"
    rf"(?:{_ADVERB}\s+|very\s+|real\s+)*(?:(?P<town>town|good|village|trustworthy|innocent|genuine|honest)|"
    rf"uneasy|bad|wolfy|scummy|mafia|wolf|scum|off|sketchy|suspicious|weird|shady|fishy)\s+"
    rf"(?:feelings?|vibes?|reads?|impressions?|energy)"
)
# Reads in notation: "X slight+", "X (town+)", "X reads town", "light town: A, B".
PLUS_RE = re.compile(
    rf"(?P<seat>{SEAT})\s*\(?\s*(?:(?:slight|light|strong|soft|mild|weak|lean)\s*)?(?:town\s*)?\+\+?(?=\s*(?:[,.;)]|$))"
)
# "Cid light town", "Dee (slight wolf)", "Eve - town-lean".
QUALIFIED_RE = re.compile(
    rf"(?P<seat>{SEAT})\s*(?:\(|:|-)?\s*(?:slight|light|strong|soft|mild|weak|lean|leaning|null)[\s-]*"
    rf"(?P<side>town|village|wolf|scum|mafia)\b(?!\s*(?:'s|players?|members?|team))"
    rf"|(?P<seat2>{SEAT})\s*(?:\(|:|-)\s*(?P<side2>town|village|wolf|scum|mafia)[\s-]*(?:leans?|leaning|reads?|ish)\b"
)
MINUS_RE = re.compile(rf"(?P<seat>{SEAT})\s*\(?\s*(?:slight|light|strong|soft|mild|weak|lean)\s*-(?![\w-])")
READS_AS_RE = re.compile(
    rf"(?P<seat>{SEAT})\s+(?:still\s+|now\s+|also\s+)?(?:reads?|read|pings?|pinged)\s+(?:as\s+)?(?:(?:very|pretty|quite|"
    rf"strongly|slightly|kind\s+of|somewhat|more|mostly|a\s+bit|fairly)\s+)*(?:a\s+|an\s+)?(?:(?P<town>town|"
    rf"townie|village|villager|good|innocent)|wolf|wolfy|scum|scummy|mafia)\b(?!\s*(?:'s|players?|members?|team))"
)
SIDE_LIST_RE = re.compile(
    rf"(?:^|[.;,(]\s*|\b(?:light|slight|strong|soft|weak|mild|null|top|early|strongest|clearest)\s+)"
    rf"(?P<side>town|village|wolf|scum|mafia)"
    rf"(?:[\s-]*(?:leans?|reads?|ish))?\s*:\s*{LIST}"
)

READ_WORDS = frozenset(
    "suspect suspects suspicion suspicions solve wary leery skeptical sceptical uneasy distrustful mistrustful "
    "gives gave giving reads read pings pinged pair duo partners partnership bloc trio members member "
    "confirmed eliminated flipped outed revealed exposed town wolf scum mafia wolves slight light lean leaning strong "
    "soft mild weak null list tops topped heads headed leads both all each known proven cleared verified suspicious "
    "focus working coordinating colluding conspiring teaming cahoots partners gut money bet hunch instinct instincts "
    "backup next".split()
)
_SUSPECT_PATTERNS = (
    MY_SUSPECT_RE,
    THE_SUSPECT_RE,
    IS_SUSPECT_RE,
    MAKES_SUSPECT_RE,
    SUSPICION_ON_RE,
    TOP_OF_LIST_RE,
    MOST_SUSPICIOUS_RE,
    MOST_SUSPICIOUS_FIRST_RE,
    FOCUS_SUSPICION_RE,
    GUT_RE,
)
# A sentence without one of these has no ranking, suspicion or lean to read.
_SUSPECT_GATE = frozenset(
    "suspect suspects suspicion suspicions suspicious solve list tops topped heads headed leads read reads lean leans "
    "gut money bet hunch instinct instincts scrutiny".split()
)
_PACK_ALTERNATIVES = (
    LIST_LABEL_RE,
    PACK_GROUP_RE,
    PACK_APPOSITION_RE,
    BRACKETED_RE,
    GROUP_APPOSITION_RE,
    PRED_THEN_BRACKETS_RE,
)


@dataclass(frozen=True, slots=True)
class ReadPatterns:
    """The patterns of reads that name a ruleset's pack or role words (``read_patterns``), by their template."""

    built: Mapping[str, re.Pattern[str]]  # each of ``_PACK_ALTERNATIVES``'s pattern text -> it with the words in

    def __call__(self, pattern: re.Pattern[str]) -> re.Pattern[str]:
        """``pattern`` (one of ``_PACK_ALTERNATIVES``) with this ruleset's words."""
        return self.built[pattern.pattern]


def read_patterns(words: Lexicon) -> ReadPatterns:
    """The patterns of reads of one ruleset's words."""
    return ReadPatterns(
        MappingProxyType(
            {
                pattern.pattern: re.compile(
                    pattern.pattern.replace("{pack}", words.pack_alt).replace("{pred}", words.pred_alt)
                )
                for pattern in _PACK_ALTERNATIVES
            }
        )
    )


def _negated(s: str, at: int, matched: str) -> bool:
    """A read the sentence denies: "X is not my top suspect", "I don't think my suspicion is on X"."""
    return bool(cc.count_negations(matched) % 2 or cc.NEGATED_BELIEF_RE.search(cc.clause_before(s, at)))


def read_reads(reader: ReaderView, patterns: ReadPatterns, s: str, words: set[str]) -> None:
    """The reads of one sentence (in seat-token form), emitted as team claims on the reader."""
    reads: list[tuple[int, str, list[int], str, bool]] = []  # (at, matched text, seats, team, hedged)
    if not words.isdisjoint(_SUSPECT_GATE):
        for pattern in _SUSPECT_PATTERNS:
            for m in pattern.finditer(s):
                reads.append((m.start(), m.group(0), ct.seats_in(m.group(0)), "werewolf", True))
    if ":" in s or "=" in s or "(" in s or "-" in s:
        for m in patterns(LIST_LABEL_RE).finditer(s):
            reads.append((m.start(), m.group("group"), ct.seats_in(m.group("group")), "werewolf", True))
        for m in SIDE_LIST_RE.finditer(s):
            team = "werewolf" if m.group("side") in ("wolf", "scum", "mafia") else "village"
            reads.append((m.start(), m.group("group"), ct.seats_in(m.group("group")), team, True))
    if not words.isdisjoint(("pair", "duo", "team", "partners", "partnership", "bloc", "trio")):
        for m in patterns(PACK_GROUP_RE).finditer(s):
            reads.append((m.start(), m.group("group"), ct.seats_in(m.group("group")), "werewolf", True))
    if "," in s or "(" in s or ":" in s:
        for m in patterns(PACK_APPOSITION_RE).finditer(s):
            reads.append((m.start(), m.group("group"), ct.seats_in(m.group("group")), "werewolf", False))
    for pattern, gate in ((BRACKETED_RE, "("), (PRED_THEN_BRACKETS_RE, "("), (GROUP_APPOSITION_RE, ",")):
        for m in patterns(pattern).finditer(s) if gate in s else ():
            if not cc.blocked(s, m.start()):
                reader.add_predicate(s, m.start(), ct.seats_in(m.group("group")), m.group("pred"))
    if not words.isdisjoint(("confirmed", "known", "proven", "cleared", "verified", "outed", "revealed")):
        for m in TEAM_LABEL_RE.finditer(s):
            if not cc.blocked(s, m.start()):
                reader.add_predicate(s, m.start(), ct.seats_in(m.group("group")), m.group("pred"))
    if not words.isdisjoint(("working", "coordinating", "colluding", "conspiring", "teaming", "cahoots", "partners")):
        for m in TOGETHER_RE.finditer(s):
            seats = ct.seats_in(m.group("group"))
            if len(set(seats)) > 1:  # a pair or more: "Eve is working hard" is no read
                reads.append((m.start(), m.group(0), seats, "werewolf", True))
    if not words.isdisjoint(("wary", "leery", "skeptical", "sceptical", "uneasy", "distrustful", "mistrustful")):
        for m in WARY_RE.finditer(s):
            reads.append((m.start(), m.group("group"), ct.seats_in(m.group("group")), "werewolf", True))
    if not words.isdisjoint(("gives", "gave", "giving")):
        for m in GIVES_FEELING_RE.finditer(s):
            team = "village" if m.group("town") else "werewolf"
            reads.append((m.start(), m.group("group"), ct.seats_in(m.group("group")), team, True))
    if "+" in s:
        for m in PLUS_RE.finditer(s):
            reads.append((m.start(), "", ct.seats_in(m.group("seat")), "village", True))
    if "-" in s:
        for m in MINUS_RE.finditer(s):
            reads.append((m.start(), "", ct.seats_in(m.group("seat")), "werewolf", True))
    if not words.isdisjoint(("slight", "light", "strong", "soft", "mild", "weak", "lean", "leaning", "null")):
        for m in QUALIFIED_RE.finditer(s):
            side = m.group("side") or m.group("side2")
            team = "werewolf" if side in ("wolf", "scum", "mafia") else "village"
            reads.append((m.start(), "", ct.seats_in(m.group("seat") or m.group("seat2")), team, True))
    if not words.isdisjoint(("reads", "read", "pings", "pinged")):
        for m in READS_AS_RE.finditer(s):
            team = "village" if m.group("town") else "werewolf"
            reads.append((m.start(), "", ct.seats_in(m.group("seat")), team, True))
    for at, matched, seats, team, hedged in reads:
        if cc.blocked(s, at) or _negated(s, at, matched):
            continue
        for seat in seats:
            if seat != reader.speaker:
                reader.emit(make_claim("team", seat, None, team, False, hedged))
