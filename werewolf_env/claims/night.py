"""Night results in speech: a seer's checks and what they showed, protections and heals, poisonings.

Each is about the speaker's own night action, so each pattern starts with "I" or "my": "I investigated
Dan, he came up as mafia", "N1: Eve=Human" (read in ``claim_reader``), "I saved Bob", "my heal went to
Bob", "I used my healing potion on Bob" (``protected``: a doctor's protection or a witch's heal), "I
poisoned Bob", "my poison went to Bob" (``poisoned``). Someone else's ("Carol said she poisoned Bob"),
a plan ("I will poison Bob"), a negation ("I never healed Bob") or a conditional ("if I poisoned Bob")
is no claim. The result patterns hold the role words: one ``NightPatterns`` per ruleset (``night_patterns``,
held by ``claim_patterns.Vocabulary``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from werewolf_env.claims import context as cc
from werewolf_env.claims import tokens as ct
from werewolf_env.claims.model import make_claim
from werewolf_env.claims.reading import ReaderView
from werewolf_env.claims.tokens import GROUP, SEAT
from werewolf_env.claims.words import Lexicon

# A seer's own check: the player checked is the target of the verb.
CHECK_VERB = (
    r"(?:checked|investigated|divined|inspected|examined|scanned|tested|probed|peeked(?:\s+at)?|looked\s+into|"
    r"used\s+my\s+(?:ability|power|vision|check|investigation|divination|night\s+action)\s+on|"
    r"chose\s+to\s+(?:check|investigate|divine|inspect))"
)
CHECK_RE = re.compile(
    rf"\b(?:i|i've|i\s+have|i\s+had|i\s+just|i\s+also|i\s+then|i\s+did)\s+(?:(?:also|just|then|last\s+night|"
    rf"tonight|\w+ly)\s+)?{CHECK_VERB}\s+(?P<group>{SEAT}(?:\s*(?:,\s*and|,|\band\b|&)\s*{SEAT})*)"
)
# A sentence about the speaker's own check: its claims about others are seer results.
CHECK_CONTEXT_RE = re.compile(
    r"\b(?:my\s+(?:\w+\s+)?(?:investigation|investigations|divination|divinations|divine|divines|check|checks|vision|visions|"
    r"result|results|reading|inspection|findings|power|ability)|(?<!'s\s)(?<!your\s)(?<!their\s)(?<!his\s)(?<!her\s)"
    r"(?:divination|investigation|inspection|check)\s+results?|i\s+(?:have\s+|had\s+|'ve\s+|haven't\s+|didn't\s+|just\s+|also\s+|\w+ly\s+)?(?:checked|investigated|"
    r"divined|divine|inspected|investigate|check)|\(me\)\s+(?:investigated|checked|divined)|"
    r"the\s+result\s+(?:came|was|is)|i\s+(?:found|saw|learned|learnt|discovered)\s+(?:out\s+)?that)"
)
_I_DID = (
    r"\b(?:i|i've|i\s+have|i\s+had|i\s+just|i\s+also|i\s+successfully|i\s+finally)\s+"
    r"(?:(?:just|also|successfully|finally|last\s+night|\w+ly)\s+)?"
)
_GROUP2 = GROUP.replace("?P<group>", "?P<group2>")
_HEAL_ITEM = r"(?:heal|healing|healing\s+potion|heal\s+potion|life\s+potion|potion\s+of\s+(?:healing|life)|antidote)"
_POISON_ITEM = r"(?:poison|poison\s+potion|death\s+potion|potion\s+of\s+(?:poison|death))"
_WENT_TO = r"(?:went\s+to|was\s+on|was\s+used\s+on|saved|was)"
# "I saved Bob", "I healed Bob with my potion", "I used my healing potion on Bob", "my heal went to Bob".
PROTECT_RE = re.compile(
    rf"{_I_DID}(?:protected|saved|healed|guarded|shielded|defended|was\s+protecting|was\s+guarding|"
    rf"chose\s+to\s+(?:protect|save|guard|heal)|used\s+my\s+{_HEAL_ITEM}\s+on)\s+{GROUP}"
    rf"|\bmy\s+(?:protection|guard|{_HEAL_ITEM})\s+{_WENT_TO}\s+{_GROUP2}"
)
# "I poisoned Bob", "I used my poison on Bob", "my poison went to Bob".
POISON_RE = re.compile(
    rf"{_I_DID}(?:poisoned|chose\s+to\s+poison|decided\s+to\s+poison|used\s+my\s+{_POISON_ITEM}\s+on|"
    rf"(?:threw|gave)\s+my\s+{_POISON_ITEM}\s+(?:at|on|to))\s+{GROUP}"
    rf"|\bmy\s+{_POISON_ITEM}\s+(?:went\s+to|was\s+on|was\s+used\s+on|hit|killed|took\s+out|was\s+for)\s+{_GROUP2}"
)
# Denials of one's own potion: "I never poisoned Bob", "I didn't heal Carla", "I didn't poison anyone", "I never
# used my heal" (no one named: a denial about every player the potion could have reached).
_I_DENIED = r"\b(?:i|i've|i\s+have|i\s+had)\s+(?:never|not|did\s+not|didn't|haven't|hadn't)\s+(?:(?:ever|yet|even)\s+)?"
_DENIED_TARGET = (
    rf"(?:\s+(?:on\s+)?(?:(?P<group>{SEAT}(?:(?:{ct.JOIN}|\s+(?:or|nor)\s+){SEAT})*)|(?P<anyone>anyone|anybody)))?"
)
DENIED_HEAL_RE = re.compile(
    rf"{_I_DENIED}(?:heal(?:ed)?(?=\s+(?:<|any))|used?\s+(?:my|the)\s+{_HEAL_ITEM}){_DENIED_TARGET}"
)
DENIED_POISON_RE = re.compile(
    rf"{_I_DENIED}(?:poison(?:ed)?(?=\s+(?:<|any))|used?\s+(?:my|the)\s+{_POISON_ITEM}){_DENIED_TARGET}"
)
NEXT_RESULT_RE = re.compile(rf"\s*(?:,\s*and|,|\band\b|&|;)?\s*(?P<seat>{SEAT})")
CHECK_WORDS: frozenset[str] = frozenset(
    "checked check investigated investigate investigation investigations divined divine divination divinations "
    "inspected inspect inspection examined scanned tested probed peeked looked used chose result results vision "
    "visions findings found reading saw learned learnt discovered".split()
)
PROTECT_WORDS: frozenset[str] = frozenset(
    "protected protecting protection saved healed heal healing guarded guarding guard shielded defended "
    "antidote".split()
)
POISON_WORDS: frozenset[str] = frozenset("poisoned poison".split())
NIGHT_WORDS = PROTECT_WORDS | POISON_WORDS


@dataclass(frozen=True, slots=True)
class NightPatterns:
    """The night-result patterns that name a ruleset's role words (``night_patterns``), and those words."""

    words: Lexicon
    # What a check showed, after the check: "... and they came up as Mafia", "... — he's the mafioso" (role words).
    result_re: re.Pattern[str]
    # "I divined Benjamin HUMAN (day0) and George HUMAN (day1)": results right after the names.
    direct_result_re: re.Pattern[str]

    def result_after(self, reader: ReaderView, s: str, start: int, targets: list[int]) -> None:
        """The result of a check of ``targets`` said after ``start``: "... he came up as mafia", "Bob HUMAN"."""
        direct = self.direct_result_re.match(s, start)
        if direct is not None and len(targets) == 1:
            # "I divined Benjamin HUMAN (day0) and George HUMAN (day1)"
            seat, pos = targets[0], start
            while direct is not None:
                self.emit_result(reader, seat, direct.group("pred"), bool(direct.group("neg")))
                pos = direct.end()
                nxt = NEXT_RESULT_RE.match(s, pos)
                if nxt is None:
                    break
                seat = ct.seats_in(nxt.group("seat"))[0]
                direct = self.direct_result_re.match(s, nxt.end())
            return
        m = self.result_re.match(s, start)
        if m is None:
            return
        others = set(ct.seats_in(m.group("gap"))) - set(targets)
        if others or ct.GAP_STOP_RE.search(m.group("gap")):
            return
        negated = bool(m.group("neg")) or bool(cc.NEGATION_RE.search(m.group("gap")))
        for seat in targets:
            self.emit_result(reader, seat, m.group("pred"), negated)

    def emit_result(self, reader: ReaderView, seat: int, pred: str, negated: bool) -> None:
        kind, value, _ = self.words.predicate(pred)
        if kind == "team":
            reader.emit(make_claim("seer_result", seat, None, value, negated))
        elif value == "villager":
            reader.emit(make_claim("seer_result", seat, None, "village", negated))
        else:
            reader.emit(make_claim("seer_result", seat, value, None, negated))


def night_patterns(words: Lexicon) -> NightPatterns:
    """The night-result patterns of one ruleset's words."""
    return NightPatterns(
        words=words,
        result_re=re.compile(
            rf"(?P<gap>[^?]{{0,80}}?)(?:\bcame\s+(?:up|back|out)|\bshowed\s+up|\bturned\s+out|\breturned|\bshowed|"
            rf"\bshows|\brevealed|\breveals|\bresult\s+(?:was|is|came\s+back)|\bis|\bwas|\bare|\bwere|'s|:|—|=|,|-|"
            rf"\bas|\bto\s+be|\bfound)"
            rf"\s*(?:as\s+|to\s+be\s+|that\s+)?(?:(?:a|an|the)\s+)?(?P<neg>not\s+)?(?P<pred>{words.pred_alt})\b"
        ),
        direct_result_re=re.compile(
            rf"\s*(?:=|:|—|-|→|->)?\s*(?P<neg>not\s+)?(?P<pred>{words.pred_alt})\b(?:\s*\([^)]{{0,20}}\))?"
        ),
    )


def read_night_actions(reader: ReaderView, s: str, words: set[str]) -> None:
    """The speaker's protections and heals (``protected``) and poisonings (``poisoned``), and denials of potions."""
    denying = not _DENIAL_WORDS.isdisjoint(words)
    for kind, pattern, trigger, negated in _NIGHT_PATTERNS:
        if trigger.isdisjoint(words) or (negated and not denying):
            continue
        for m in pattern.finditer(s):
            if cc.blocked(s, m.start()):
                continue
            hedged = bool(cc.HEDGE_RE.search(cc.clause_before(s, m.start())))
            seats = ct.seats_in(m.group("group") or (m.group("group2") if not negated else "") or "")
            if negated and not seats:  # "I didn't poison anyone", "I never used my heal" (a witch may heal herself)
                seats = [p for p in range(reader.n_seats) if kind == "protected" or p != reader.speaker]
            for seat in seats:
                reader.emit(make_claim(kind, seat, negated=negated, hedged=hedged))


_NIGHT_PATTERNS = (
    ("protected", PROTECT_RE, PROTECT_WORDS, False),
    ("poisoned", POISON_RE, POISON_WORDS, False),
    ("protected", DENIED_HEAL_RE, PROTECT_WORDS, True),
    ("poisoned", DENIED_POISON_RE, POISON_WORDS, True),
)
_DENIAL_WORDS = frozenset("never not didn t haven hadn".split())
