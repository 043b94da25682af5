"""What governs a match in the claim reader: clause breaks, conditionals, reported speech, hedges, negations.

A match is dropped when a conditional or someone else's reported speech governs the clause before it,
hedged when the clause marks a belief, and negated once per negation (``blocked`` here, and
``claim_reader.Reader.add_predicate``). Nothing here names a role.
"""

from __future__ import annotations

import re

# Clause context before a match.
CLAUSE_BREAK_RE = re.compile(r"\b(?:but|however|although|though|whereas|yet|also)\b|[;—–:]|\s-\s|\.\.\.")
CONDITIONAL_RE = re.compile(
    r"\b(?:if|unless|whether|suppose|supposing|assuming|assume|in\s+case|imagine|pretend|hypothetically|"
    r"let's\s+say|let\s+us\s+say|even\s+if|what\s+if|would\s+mean|not\s+sure|unsure|no\s+idea|"
    r"don't\s+know\s+(?:if|whether|who)|can't\s+tell|wonder|wondering|proves?\s+that|prove|until|before|"
    r"when|once|either|or|scenarios?|possibilit(?:y|ies)|would(?!\s+say)|wouldn't|i'd(?!\s+say)|hope|hoping|hopefully|wish|afraid\s+that)\b"
)
REPORTING_VERBS = (
    r"said|says|say|saying|claimed|claims|claim|claiming|told|tells|mentioned|mentions|stated|states|accused|"
    r"accuses|accusing|insist|insists|insisted|insisting|thinks|believes|believed|thought|announced|reported|"
    r"admitted|admits|declared|declares|swore|asserted|asserts|called|calls|calling|labeled|labelled|"
    r"named|suggested|argued|argues|implied|implies|framing|framed|frame|pretending|pretend|pretends|"
    r"acting|posing|poses|faking|want|wants|wanted|trying|tries|tried"
)
REPORTED_RE = re.compile(
    rf"\b(?:{REPORTING_VERBS})\b|\baccording\s+to\b|<\d+@?>'s\s+(?:\w+\s+)?(?:divination|divinations|result|"
    rf"results|claim|claims|check|checks|investigation|reading|report|co|vision|info|information|data)\b"
)
# Verbs of evidence: someone else's when another player is their subject ("Minato saw Asuka is human").
EVIDENCE_RE = re.compile(
    r"\b(?:saw|sees|divined|checked|investigated|inspected|found|finds|confirmed|confirms|cleared|clears|revealed|"
    r"reveals|shows|showed|divines|checks|investigates)\b"
)
OWN_WORDS = frozenset("i i've i'd i'll i'm my me (me) me) we".split())
OTHER_WORDS = frozenset("he she they you he's she's they're you're his her their your".split())
OWN_SUBJECT_RE = re.compile(
    r"(?:^|\s)(?:i|i've|i'd|i'll|i'm|i\s+was|i\s+am|i've\s+been|i\s+have|i\s+had|i\s+just|i\s+already|i\s+also|"
    r"i\s+still|i\s+do|i\s+did|i\s+will|i\s+would|my\s+\w+|i\s+never)$"
)
HEDGE_RE = re.compile(
    r"\b(?:strikes?\s+me|struck\s+me|comes?\s+(?:across|off)|came\s+(?:across|off)|inclined\s+to|"
    r"i\s+(?:really\s+|still\s+|strongly\s+|honestly\s+|kind\s+of\s+|also\s+|now\s+|do\s+|kinda\s+|"
    r"personally\s+|definitely\s+|genuinely\s+|seriously\s+)*(?:think|believe|feel|suspect|guess|reckon|bet|"
    r"sense|fear|presume|lean|sus)|i'm\s+(?:fairly|pretty|quite|almost|mostly|leaning|starting\s+to\s+think)|"
    r"i\s+am\s+(?:fairly|pretty|quite|almost|mostly|leaning)|my\s+(?:\w+\s+)?(?:read|reads|gut|sense|feeling|"
    r"instinct|hunch|suspicion|guess|bet|take|impression|money|opinion|view)|in\s+my\s+(?:opinion|view|eyes)|"
    r"(?:feels?|seems?|looks?|sounds?|looking)\s+like|seems?|seemed|appears?|looks?|sounds?|probably|likely|possibly|perhaps|maybe|might|"
    r"may|could|leaning|lean|leans|suspicious\s+that|makes?\s+me\s+think|i'd\s+say|i\s+would\s+say|"
    r"suggests?|indicates?|points?\s+to|odds\s+are|chances\s+are|wolfy|wolfish|suspect|suspected|potential|"
    r"possible|probable|a\s+bit|kind\s+of|sort\s+of|feel|feeling|read|reads|hunch|guess|would\s+bet|"
    r"gut\s+says|starting\s+to\s+think|smells?|vibes?)\b"
)
MY_RESULT_RE = re.compile(r"\bmy\s+(?:(?:investigation|check|divination)\s+)?(?:read|reading|result)\b")
NEGATED_BELIEF_RE = re.compile(
    r"\bi\s+(?:really\s+|still\s+|just\s+|honestly\s+)?(?:don't|do\s+not|didn't|did\s+not|can't|cannot|no\s+longer)\s+"
    r"(?:think|believe|feel|suspect|buy|see)\b|\bi\s+doubt\b|\bi'm\s+not\s+(?:convinced|sure)\b|"
    r"\bno\s+reason\s+to\s+(?:think|suspect|believe)\b"
)
NEGATION_RE = re.compile(r"\b(?:not|never|no\s+longer|n't)\b|n't\b")

QUESTION_START = frozenset(
    "is are was were do does did could would can should who what why how which whose am isn't aren't".split()
)


def clause_before(sentence: str, at: int) -> str:
    before = sentence[:at]
    breaks = list(CLAUSE_BREAK_RE.finditer(before))
    return before[breaks[-1].end() :] if breaks else before


def count_negations(text: str) -> int:
    return len(NEGATION_RE.findall(text))


def blocked(s: str, at: int, about_self: bool = False, disputing: bool = False) -> bool:
    """A conditional, a supposition or someone else's reported speech governs the text before ``at``.

    After a conditional clause ("if Diana is the cop, Charlie is mafia") only a claim about the
    speaker itself stands ("if you're the investigator, you know I'm not the Mafioso").
    """
    clause = clause_before(s, at)
    markers = list(CONDITIONAL_RE.finditer(clause))
    if markers:
        rest = clause[markers[-1].end() :]
        if "," not in rest and " then " not in rest:
            return True
        if not about_self:
            return True
    for r in REPORTED_RE.finditer(clause):
        if r.group(0).startswith("according"):
            return True
        if r.group(0).startswith("<"):
            if disputing:
                continue  # "Alice's claim is blatant and I think she's lying": the claim is what is disputed
            return True  # "Midori's divination Shizue=Werewolf": someone else's result
        subject = clause[: r.start()].split()[-3:]  # the reporting verb's subject: the words just before it
        if subject and not OWN_SUBJECT_RE.search(" " + " ".join(subject[-2:])) and "my" not in subject:
            return True
    for r in EVIDENCE_RE.finditer(clause):
        for word in reversed(clause[: r.start()].split()[-4:]):
            if word in OWN_WORDS:
                break
            if word.startswith("<") or word in OTHER_WORDS:
                return True
    return False
