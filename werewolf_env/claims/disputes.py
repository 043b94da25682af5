"""Disputes and accusations in speech: someone's role claim called false, a retraction, play called a werewolf's.

Someone else's role claim called false ("Alice's claim is false", "your detective claim doesn't add up",
"Takumi's falsehood", "Bob is lying", "Mio as fake", "you can't have investigated anyone") is a denial of
the role named ("X's seer claim") or, failing that, of the one X claimed earlier in public (the reader's
``claimed``). "I retract my seer claim" denies the speaker's own. Play called a werewolf's ("that's classic
wolf play", "his voting screams wolf") is a hedged accusation of whoever played it. The patterns that name
roles are built from one ruleset's words: one ``DisputePatterns`` per ruleset (``dispute_patterns``, held by
``claim_patterns.Vocabulary``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from werewolf_env.claims import context as cc
from werewolf_env.claims import tokens as ct
from werewolf_env.claims.model import make_claim
from werewolf_env.claims.reading import ReaderView
from werewolf_env.claims.tokens import SEAT
from werewolf_env.claims.words import Lexicon

FALSE_STRONG = (
    r"false|fake|bogus|a\s+lie|lies|a\s+fabrication|fabricated|made\s+up|a\s+bluff|untrue|not\s+true|nonsense|"
    r"impossible|wrong|fiction|debunked|disproven|refuted|a\s+fraud|a\s+sham|a\s+fake|a\s+hoax|a\s+lie"
)
FALSE_WEAK = r"off|fishy|dubious|questionable|suspicious|shaky|sus|flimsy|inconsistent|doubtful|hard\s+to\s+believe"
_CLAIM_OWNER = rf"(?:(?P<seat>{SEAT})\s*'s)"
LIAR_RE = re.compile(
    rf"(?P<seat>{SEAT})\s*(?:'s|'re|\s+(?:is|are|was|were|must\s+be|has\s+been|have\s+been))\s+(?:(?:clearly|"
    rf"obviously|definitely|probably|likely|just|simply|also|now|still)\s+)*(?:lying|a\s+liar|a\s+fake|fake|"
    rf"a\s+fraud|an?\s+imp[oe]st[eo]r|bluffing|fake-?claiming)\b"
    rf"|(?P<seat2>{SEAT})\s*'s\s+(?:falsehood|lie|lies|fabrication|bluff|fake\s+claim)\b"
    rf"|(?P<seat3>{SEAT})\s+as\s+(?:an?\s+)?(?:fake|fraud|liar|imp[oe]st[eo]r)\b"
)
THAT_IS_FALSE_RE = re.compile(
    rf"^(?:wait\s+|but\s+|no\s+|okay\s+|ok\s+)?(?P<seat>{SEAT})\s*,\s*(?:that|this)\s*(?:'s|\s+is)\s+(?:[^.,;]{{0,30}},?\s+but\s+"
    rf"(?:it|that)\s*(?:'s|\s+is)\s+)?(?:(?:also|simply|just|clearly|completely|totally|obviously|absolutely)\s+)*"
    rf"(?:impossible|a\s+lie|false|not\s+true|untrue|fabricated|made\s+up|a\s+fabrication|nonsense)\b"
)
CANNOT_HAVE_CHECKED_RE = re.compile(
    rf"(?P<seat>{SEAT})\s+(?:can't|cannot|couldn't|could\s+not)\s+(?:possibly\s+)?(?:have\s+)?"
    rf"(?:investigated|checked|divined|inspected|investigate|check|divine)\b"
)
CLAIM_WORDS = frozenset("claim claims co story counterclaim counter".split())
FALSE_WORDS = frozenset("impossible lie false true untrue fabricated made fabrication nonsense".split())
LIAR_WORDS = frozenset("lying liar fake fraud impostor imposter falsehood lie lies fabrication bluff".split())
CHECKED_WORDS = frozenset("investigated checked divined inspected investigate check divine".split())
DISPUTE_WORDS = CLAIM_WORDS | LIAR_WORDS | frozenset({"bluffing"}) | CHECKED_WORDS | FALSE_WORDS
PLAY_WORDS = frozenset(
    "play plays move moves behavior behaviour tactic tactics strategy teamwork logic energy vibe vibes tell tells "
    "coordination bussing pocketing like screams scream smells smell opportunism desperation playbook mentality "
    "mindset instinct instincts agenda ploy scheme manipulation orchestration deception hallmark hallmarks what how "
    "reek reeks not".split()
)
# A werewolf's tactic by name: a read of whoever used it even with no role word in the sentence.
TACTIC_WORDS: frozenset[str] = frozenset(
    "deflection deflections misdirection bussing buddying deflect deflects deflected deflecting covers covered "
    "covering protection".split()
)


@dataclass(frozen=True, slots=True)
class DisputePatterns:
    """The patterns of disputes that name a ruleset's role words (``dispute_patterns``), and those words."""

    words: Lexicon
    retract_re: re.Pattern[str]  # "I retract my earlier Seer claim", "my seer claim was a bluff"
    false_claim_re: re.Pattern[str]  # "Takumi's seer claim is fake", "Bob's doctor CO is a lie"
    disputed_claim_re: re.Pattern[str]  # "Alice's claim is false", "Bob's seer story seems off"
    wolf_play_re: re.Pattern[str]  # "That's classic wolf play", "his voting screams wolf", "that seems wolf-like"


def dispute_patterns(words: Lexicon) -> DisputePatterns:
    """The patterns of disputes of one ruleset's words."""
    claimable, pack = words.claimable_alt, words.pack_alt
    return DisputePatterns(
        words=words,
        retract_re=re.compile(
            rf"\bi\s+(?:hereby\s+)?(?:retract|withdraw|take\s+back)\s+my\s+(?:\w+\s+)?(?P<pred>{claimable})\s+(?:claim|co)"
            rf"|\bmy\s+(?:\w+\s+)?(?P<pred2>{claimable})\s+(?:claim|co)\s+(?:was|is)\s+(?:just\s+|only\s+)?"
            rf"(?:fake|false|a\s+bluff|a\s+lie|a\s+trick)"
        ),
        false_claim_re=re.compile(
            rf"(?P<seat>{SEAT})\s*'s\s+(?:(?:fake|false|bogus)\s+)?(?P<pred>{claimable})\s+(?:claim|co|counter-?claim)\s+"
            rf"(?:is|was|'s)\s+(?:(?:clearly|obviously|definitely|now|just)\s+)?(?:fake|false|bogus|a\s+lie|out|"
            rf"debunked|disproven|refuted|wrong|fabricated|made\s+up|a\s+bluff|fiction)"
        ),
        disputed_claim_re=re.compile(
            rf"{_CLAIM_OWNER}\s+(?:(?:fake|false|bogus|so-called|latest|new|earlier|first|whole|entire|own|sudden)\s+)*"
            rf"(?:(?P<pred>{claimable})\s+)?(?:role\s+)?"
            rf"(?:claim|claims|co|story|counter-?claim)\s+"
            rf"(?:(?P<cop>is|was|'s|seems?|seemed|feels?|felt|looks?|sounds?|must\s+be|has\s+to\s+be)\s+"
            rf"(?:(?:clearly|obviously|definitely|now|just|not\s+only|totally|completely|also|so|very|a\s+bit|kind\s+of|"
            rf"pretty|quite|rather|all|both|simply|absolutely|entirely|likely|probably)\s+)*(?:like\s+)?"
            rf"(?:(?P<strong>{FALSE_STRONG})|(?P<weak>{FALSE_WEAK}))\b"
            rf"|(?:isn't|is\s+not|wasn't|was\s+not)\s+(?:\w+\s+)?(?:true|real|believable|credible|genuine|legit|"
            rf"legitimate|plausible|possible)\b"
            rf")"
        ),
        wolf_play_re=re.compile(
            rf"\b(?:{pack})(?:-like|\s+like)?\s+(?:play|plays|move|moves|behaviou?r|tactic|tactics|"
            rf"strategy|teamwork|logic|energy|vibes?|tell|tells|coordination|bussing|pocketing|opportunism|desperation|"
            rf"playbook|mentality|mindset|instincts?|agenda|ploy|scheme|manipulation|orchestration|deception|hallmarks?)\b"
            # A werewolf's tactic by name (docs/labeling.md): "Bob's deflection", "Eve keeps deflecting blame".
            rf"|(?P<tactic>\b(?:deflections?|misdirection|bussing|buddying)\b"
            rf"|\bdeflect(?:s|ed|ing)?\s+(?:the\s+)?(?:suspicion|attention|blame|scrutiny|heat|pressure)"
            rf"|\bcover(?:s|ed|ing)?\s+for\s+(?:a\s+|his\s+|her\s+|their\s+)?(?:partner|teammate|buddy)\b"
            rf"|\bpartner\s+protection\b)"
            # What a werewolf does, and play denied a villager's: "what a cornered wolf does", "exactly how mafia
            # respond", "not the play of a real villager".
            rf"|\bwhat\s+(?:an?\s+|the\s+)?(?:[a-z]+\s+)?(?:{pack})\s+(?:does|do|did|would\s+do)\b"
            rf"|\bhow\s+(?:an?\s+|the\s+)?(?:{pack})\s+(?:would\s+|usually\s+|typically\s+|always\s+)?(?:acts?|"
            rf"responds?|plays?|behaves?|operates?|reacts?)\b"
            rf"|\bnot\s+(?:\w+\s+){{0,2}}?(?:play|move|behaviou?r|logic|instincts?)\s+of\s+an?\s+(?:real\s+|true\s+|"
            rf"genuine\s+)?(?:villager|townie|town\s+player|innocent|civilian)\b"
            rf"|\b(?:{pack})-like\b|\bscreams?\s+(?:{pack})\b"
            rf"|\bsmells?\s+(?:like\s+)?(?:a\s+)?(?:{pack})\b|\breeks?\s+of\s+(?:[a-z]+\s+)?(?:{pack})\b"
        ),
    )


def read_disputes(reader: ReaderView, patterns: DisputePatterns, s: str, words: set[str]) -> None:
    """Someone's role claim called false: a negated claim of the role named, or of the one claimed before."""
    found: list[tuple[int, int, str | None, bool]] = []  # (at, seat, role word, weak)
    if not CLAIM_WORDS.isdisjoint(words):
        for m in patterns.disputed_claim_re.finditer(s):
            found.append((m.start(), ct.seats_in(m.group("seat"))[0], m.group("pred"), bool(m.group("weak"))))
    if not LIAR_WORDS.isdisjoint(words) and reader.claimed:  # whose role "lying" denies: one claimed before
        for m in LIAR_RE.finditer(s):
            seat = m.group("seat") or m.group("seat2") or m.group("seat3")
            found.append((m.start(), ct.seats_in(seat)[0], None, False))
    if ("that" in words or "this" in words) and not FALSE_WORDS.isdisjoint(words) and reader.claimed:
        for m in THAT_IS_FALSE_RE.finditer(s):
            found.append((m.start(), ct.seats_in(m.group("seat"))[0], None, False))
    checker = patterns.words.checker_word  # "X can't have checked anyone" denies the role that checks, if any
    if checker is not None and not CHECKED_WORDS.isdisjoint(words):
        for m in CANNOT_HAVE_CHECKED_RE.finditer(s):
            found.append((m.start(), ct.seats_in(m.group("seat"))[0], checker, False))
    for at, seat, word, weak in found:
        role = patterns.words.predicate(word)[1] if word else reader.claimed.get(seat)
        if role is None or seat == reader.speaker or cc.blocked(s, at, disputing=True) or ct.disjunction(s[:at]):
            continue
        hedged = weak or bool(cc.HEDGE_RE.search(s[at : at + 60].split(",")[0]))
        reader.add_predicate(s, at, [seat], role, negated=1, hedged=hedged)


def read_wolf_play(reader: ReaderView, s: str, m: Any, topics_before: str) -> None:
    """A hedged accusation of whoever's play is called a werewolf's (named in this sentence, else the last)."""
    if cc.blocked(s, m.start()) or cc.count_negations(cc.clause_before(s, m.start())) % 2:
        return
    before = s[: m.start()]
    together = m.group(0).split()[-1] in ("teamwork", "coordination")
    if together:
        # Teamwork is the work of everyone named with it, here or just before.
        named = ct.seats_in(before) or [seat for group in reader.previous for seat in group]
        targets = [x for x in dict.fromkeys(named) if x != reader.speaker]
    else:
        targets = ct.topic_seats(before, reader.speaker, object_if_alone=False) if "<" in before else []
        if not targets and not ct.SEAT_RE.search(before):
            targets = ct.topic_seats(topics_before, reader.speaker) if topics_before else []
        if not targets:
            # "Not the play of a real villager, Bob.": the one player the sentence names, after the remark.
            after = [seat for seat in ct.seats_in(s[m.end() :]) if seat != reader.speaker]
            targets = after if len(set(after)) == 1 else []
    if not targets or len(targets) > 2:
        return
    if m.group("tactic") and len(targets) > 1:
        # "I can't trust Diana's claim - but Bob's insistence feels like deflection": the tactic's own clause first.
        breaks = list(ct.PRONOUN_CLAUSE_BREAK_RE.finditer(before))
        nearest = ct.topic_seats(before[breaks[-1].end() :], reader.speaker, object_if_alone=False) if breaks else []
        targets = nearest or targets
    if m.group("tactic") and len(targets) > 1:
        # A tactic named ("Bob's pivot after Eve spoke feels like deflection") is one player's, unless the
        # players are named together ("Bob and Eve keep deflecting").
        together_group = next((g for g in ct.mention_groups(before) if set(targets) <= set(g)), None)
        targets = targets if together_group else targets[:1]
    for seat in targets:
        reader.emit(make_claim("team", seat, None, "werewolf", False, True))
