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
   ("May", "Frank") count only when capitalised.
2. The text is cut into sentences; questions are skipped, but still move the pronoun context.
3. Pronouns are resolved when one reading is plain: "he" / "she" / "him" / "her" to the one player
   named just before (the same sentence so far, else the previous one), "they" / "them" to a group
   named just before ("Sakura and Yumi ... They have to be wolves"), "you" to the player addressed
   ("@Misaki", "Bob, ...", "..., Bob."). An ambiguous pronoun stays unresolved: no claim.
4. Patterns, on the tokenised sentence: a subject (a seat, a group "A, B and C", "I") with a
   copula ("is", "'s", "must be", "seems", "could be", "isn't", ...) and a role or team word;
   role words as labels ("Seer Ryuji", "the outed wolf Diana", "Sonnet, the Doctor,"); "the wolf is
   Bob"; "Bob = Human", "Bob: wolf"; "as the doctor, I"; "I CO seer"; "I trust / suspect Bob";
   "town-lean: Eve"; seer checks ("I divined Shion. She's a werewolf": the checked player is
   remembered into the next sentence) and protections.
5. Each match is dropped when the clause before it holds a conditional ("if", "unless", "assuming"),
   a reporting verb with someone else as its subject ("said", "claims", "accused", "thinks"), or
   a disjunction ("either Bob or Eve"); it is hedged when the clause marks belief ("I think",
   "probably", "my read", "seems", "might"), and negated once per "not" / "n't" / "I don't think".

Claims come out in canonical form (``claims.make_claim``), in text order, one per ``claim_key``
(hedged only if every reading of it was hedged).
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any

from .claims import claim_key, make_claim

# ---------------------------------------------------------------------------------------- words

# Role and team words -> (kind, value, hedged). ``kind`` "team": value is a team; "role": a role.
_PREDICATES: dict[str, tuple[str, str, bool]] = {}
for _words, _meaning in (
    (
        "werewolf werewolves wolf wolves mafia mafioso mafiosi mafiosos scum killer murderer",
        ("team", "werewolf", False),
    ),
    ("wolfy wolfish wolf-ish scummy", ("team", "werewolf", True)),
    ("human humans innocent innocents clean town townsfolk", ("team", "village", False)),
    ("seer detective investigator cop diviner oracle sheriff", ("role", "seer", False)),
    ("doctor medic healer nurse bodyguard guard guardian protector knight", ("role", "doctor", False)),
    (
        "villager villagers townie townies townsperson townspeople citizen civilian bystander commoner peasant medium",
        ("role", "villager", False),
    ),
):
    for _word in _words.split():
        _PREDICATES[_word] = _meaning
_PREDICATES["fortune teller"] = ("role", "seer", False)
_PREDICATES["good guy"] = _PREDICATES["good guys"] = ("team", "village", False)
for _side in ("village", "villager", "villagers", "town", "human", "good"):
    _PREDICATES[f"{_side} team"] = _PREDICATES[f"{_side} side"] = ("team", "village", False)
_PREDICATES["wolf team"] = _PREDICATES["werewolf team"] = _PREDICATES["mafia team"] = ("team", "werewolf", False)
_PREDICATES["wolf side"] = _PREDICATES["werewolf side"] = _PREDICATES["mafia side"] = ("team", "werewolf", False)
_PREDICATES["on our side"] = ("team", "village", False)

_PRED_ALT = "|".join(sorted((re.escape(w).replace(r"\ ", r"\s+") for w in _PREDICATES), key=len, reverse=True))
# A role word used as something else: "the seer's target", "a seer claim", "wolf hunter".
_NOT_A_LABEL = (
    r"(?!-)(?!'s\b|'\s)(?!\s+(?:claim|claims|claimant|claimants|claimer|claiming|candidate|candidates|target|"
    r"targets|killer|killers|hunter|hunters|role|roles|result|results|check|checks|power|powers|ability|vote|"
    r"votes|kill|kills|card|co\b|slot|count|chat|night|talk|behaviou?r|logic|strategy|play|move|tactics?|"
    r"perspective|pov|win|wins|meta|reads?|leans?|lean|side|team|pack|would|will|can|could|might|wants|needs|"
    r"tried|did|said|says|has|had|killed|attacked|died|who|that|which)\b)"
)
_PRED = rf"(?P<pred>{_PRED_ALT})(?!\w){_NOT_A_LABEL}(?!\s+or\b|\s*/)"  # "a seer or a doctor": no claim

_SEAT = r"<\d+@?>"
_I = r"i(?<![\w']i)\b"  # "I" as a word; written to start with its letter, which lets the regex engine skip ahead
_JOIN = r"(?:\s*(?:,\s*and|,|\band\b|&)\s*|\s+)"  # "A, B and C"; "A  B  and C" (logs that lost commas)
_SUBJECT = rf"(?P<subj>(?:{_SEAT}|{_I})(?:{_JOIN}(?:{_SEAT}|\bi\b|\bme\b))*)"
_GROUP = rf"(?P<group>{_SEAT}(?:{_JOIN}{_SEAT})*)"

# Copulas, with the hedge or negation they carry.
_COPULA = (
    r"(?P<cop>\s*'s|\s*'re|\s*'m|\s+(?:is|are|was|were|am)(?:\s+(?:also|still|now|both|all|then))?"
    r"(?:\s+(?:not|n't))?|\s*(?:isn't|aren't|wasn't|weren't|ain't)"
    r"|\s+(?:must|has\s+to|have\s+to|had\s+to|could|might|may|should|can't|cannot|couldn't|mustn't|"
    r"might\s+not|may\s+not|must\s+not)\s+(?:also\s+|both\s+|all\s+)?be"
    r"|\s+(?:seems?|seemed|appears?|looks?|feels?|sounds?)(?:\s+(?:to\s+be|like))?"
    r"|\s+(?:remains?|stays?)|\s+to\s+be"
    r"|\s+(?:is|was|are|were|has\s+been|have\s+been)\s+(?:divined|confirmed|cleared|revealed|outed|proven|verified|"
    r"exposed|known|identified|checked)\s+(?:as|to\s+be))"
)
# Words between the copula and the role word: articles, adverbs, adjectives.
_MODIFIER_WORDS = (
    "definitely clearly probably likely surely certainly obviously really actually absolutely confirmed also "
    "still both all just only indeed undoubtedly truly genuinely simply not never no longer a an the our your "
    "their one of part on with last other real true fake false plain regular simple remaining second another "
    "fellow actual genuine lone bit kind sort pretty very more most obvious potential possible probable "
    "suspected outed known proven verified cleared hidden secret third final first ordinary normal vanilla "
    "humble mere innocent 100% for sure a-ok legit legitimate certified confirmed-"
).split()
_MODIFIERS = (
    r"(?P<mods>(?:\s+(?:" + "|".join(sorted(map(re.escape, set(_MODIFIER_WORDS)), key=len, reverse=True)) + r"))*)"
)

_CLAIM_RE = re.compile(rf"{_SUBJECT}{_COPULA}{_MODIFIERS}\s+{_PRED}")
# "Seer Ryuji", "the outed wolf Diana", "our seer Bob", "fake seer Takumi".
_LABEL_BEFORE_RE = re.compile(
    rf"(?P<pred>seer|detective|doctor|bodyguard|medium|werewolf|wolf|mafioso|villager)"
    rf"(?:\s+(?P<seat>{_SEAT})|\s*,\s*(?P<seat2>{_SEAT})(?=\s*(?:[,.!;:—]|$)))"
    rf"(?!\s*'s\s+(?:claim|co))"
)
# "Sonnet, the Doctor, is dead", "Bob (the seer)", "Eve (wolf)".
_LABEL_AFTER_RE = re.compile(
    rf"(?P<seat>{_SEAT})\s*(?:,\s*(?:the|our)\s+|\(\s*(?:the\s+|a\s+|our\s+)?)(?P<mods>(?:(?:real|confirmed|"
    rf"outed|dead|fake|late)\s+)?)(?P<pred>seer|detective|doctor|bodyguard|medium|werewolf|wolf|mafioso|villager|"
    rf"human)\s*(?:,|\)|[.!]|$)"
)
# "the wolf is Bob", "our seer was Eve", "the last wolves are A and B".
_SUBJECT_AFTER_RE = re.compile(
    rf"\b(?P<pre>the|our|one|a)\s+(?:(?:real|true|last|remaining|other|second|only|actual|lone|fake|"
    rf"confirmed)\s+)?(?P<pred>werewolf|werewolves|wolf|wolves|mafia|mafioso|seer|detective|doctor|"
    rf"bodyguard)(?:\s+(?:member|player))?\s+(?P<cop>is|are|was|were|must\s+be|has\s+to\s+be|have\s+to\s+be|"
    rf"could\s+be|might\s+be|is\s+probably|is\s+likely|is\s+definitely|is\s+clearly|is\s+not|isn't)\s+"
    rf"(?P<either>either\s+)?{_GROUP}"
)
# "Bob = Human", "N1: Eve=Werewolf", "Dan: wolf", "checked Dan — clean".
_EQUALS_RE = re.compile(
    rf"(?P<night>\b(?:n|night|d|day)\s*\d+\s*[:：]?\s*)?(?P<seat>{_SEAT})(?:\s*\([^)]{{0,20}}\))?\s*(?:=|:|→|->|—|–|\s-\s)\s*"
    rf"(?:(?:a|an|the)\s+)?(?P<neg>not\s+)?{_PRED}"
)
# "town-lean: Eve", "wolf reads: Bob and Carol".
_READ_LIST_RE = re.compile(
    rf"\b(?P<side>town|village|wolf|scum|mafia)[\s-]*(?:lean|leans|leaning|read|reads)\s*(?::|=|-|—|on|is|are)?"
    rf"\s*{_GROUP}"
)
# "As the doctor, I ...", "as a villager, my ...", "speaking as the seer, ..."
_AS_ROLE_RE = re.compile(
    r"(?:^|[,(]\s*|\b(?:and|so|but|speaking|well|now|here)\s+)as\s+(?:(?:the|a|an|your)\s+)?(?:(?:real|actual|true|only|"
    r"simple|plain|regular|humble|ordinary|genuine|confirmed)\s+)?(?P<pred>seer|detective|investigator|cop|doctor|"
    r"bodyguard|guard|medium|villager|townie|werewolf|wolf|mafioso|human)\s*,?\s+(?=i\b|i'|my\b|me\b|let\s+me|"
    r"let's|we\b)"
)
# "I CO seer", "I'm coming out as the doctor", "I claim seer", "I reveal myself as the seer".
_SELF_CO_RE = re.compile(
    r"\bi(?:\s+am|'m)?\s+(?:will\s+)?(?:now\s+)?(?:co|co-ing|coing|come\s+out|coming\s+out|came\s+out|claim|"
    r"claiming|reveal\s+myself|am\s+revealing\s+myself|revealing\s+myself|hereby\s+claim)\s+(?:as\s+|to\s+be\s+)?"
    r"(?:the\s+|a\s+|an\s+)?(?P<pred>seer|detective|investigator|cop|doctor|bodyguard|guard|medium|villager)\b"
)
_NO_ROLE_RE = re.compile(
    r"\bi\s+(?:have|had|'ve\s+got|'ve)\s+no\s+(?:special\s+)?(?:role|power|powers|ability|abilities|night\s+action)"
)
# "My role is villager", "my role: seer".
_MY_ROLE_RE = re.compile(rf"\bmy\s+(?:real\s+|true\s+|actual\s+)?role\s+(?:is|was|:)\s+(?:(?:a|an|the)\s+)?{_PRED}")
# "I trust Bob", "I suspect Eve", "I don't trust them".
# The word before a role used as a label ("the outed wolf Diana", "so-called seer Bob").
_LABEL_PRE_RE = re.compile(
    r"\b(?P<pre>the|our|a|an|confirmed|real|true|outed|dead|fake|false|fellow|late|poor|self-proclaimed|so-called|"
    r"alleged|claimed|supposed|suspected|possible|potential|likely|obvious)\s+$"
)
_TRUST_RE = re.compile(
    rf"{_I}\s+(?:(?:really|strongly|slightly|somewhat|fully|still|also|now|do|totally|completely|mostly|kinda|"
    rf"kind\s+of|sort\s+of|truly|genuinely|personally)\s+)*(?P<verb>trust|suspect|distrust|mistrust|don't\s+trust|"
    rf"do\s+not\s+trust|vouch\s+for|can\s+vouch\s+for|clear|cleared)\s+{_GROUP}"
    rf"(?!\s*'s)(?!\s+(?:is|are|was|were|said|says|when|if|because|to|on|with|about|enough|'s)\b)"
)
# A seer's own check: the player checked is the target of the verb.
_CHECK_VERB = (
    r"(?:checked|investigated|divined|inspected|examined|scanned|tested|probed|peeked(?:\s+at)?|looked\s+into|"
    r"used\s+my\s+(?:ability|power|vision|check|investigation|divination|night\s+action)\s+on|"
    r"chose\s+to\s+(?:check|investigate|divine|inspect))"
)
_CHECK_RE = re.compile(
    rf"\b(?:i|i've|i\s+have|i\s+had|i\s+just|i\s+also|i\s+then|i\s+did)\s+(?:(?:also|just|then|last\s+night|"
    rf"tonight)\s+)?{_CHECK_VERB}\s+(?P<group>{_SEAT}(?:\s*(?:,\s*and|,|\band\b|&)\s*{_SEAT})*)"
)
# A sentence about the speaker's own check: its claims about others are seer results.
_CHECK_CONTEXT_RE = re.compile(
    r"\b(?:my\s+(?:\w+\s+)?(?:investigation|investigations|divination|divinations|check|checks|vision|visions|"
    r"result|results|reading|inspection|findings|power|ability)|(?<!'s\s)(?<!your\s)(?<!their\s)(?<!his\s)(?<!her\s)"
    r"(?:divination|investigation|inspection|check)\s+results?|i\s+(?:have\s+|had\s+|'ve\s+|haven't\s+|didn't\s+|just\s+|also\s+)?(?:checked|investigated|"
    r"divined|divine|inspected|investigate|check)|\(me\)\s+(?:investigated|checked|divined)|"
    r"the\s+result\s+(?:came|was|is)|i\s+found\s+(?:out\s+)?that)"
)
_PROTECT_RE = re.compile(
    rf"\b(?:i|i've|i\s+have|i\s+had|i\s+just|i\s+also|i\s+successfully)\s+(?:(?:just|also|successfully|"
    rf"last\s+night)\s+)?(?:protected|saved|healed|guarded|shielded|defended|was\s+protecting|was\s+guarding|"
    rf"chose\s+to\s+(?:protect|save|guard|heal))\s+{_GROUP}"
    rf"|\bmy\s+(?:protection|guard|heal)\s+(?:went\s+to|was\s+on|was)\s+{_GROUP.replace('?P<group>', '?P<group2>')}"
)

# What a check showed, after the check: "... and they came up as Mafia", "... — he's the mafioso".
_RESULT_RE = re.compile(
    rf"(?P<gap>[^?]{{0,80}}?)(?:\bcame\s+(?:up|back|out)|\bshowed\s+up|\bturned\s+out|\breturned|\bshowed|"
    rf"\bshows|\brevealed|\breveals|\bresult\s+(?:was|is|came\s+back)|\bis|\bwas|\bare|\bwere|'s|:|—|=|,|-|"
    rf"\bas|\bto\s+be|\bfound)"
    rf"\s*(?:as\s+|to\s+be\s+|that\s+)?(?:(?:a|an|the)\s+)?(?P<neg>not\s+)?(?P<pred>{_PRED_ALT})\b"
)
# "I divined Benjamin HUMAN (day0) and George HUMAN (day1)": results right after the names.
_DIRECT_RESULT_RE = re.compile(
    rf"\s*(?:=|:|—|-|→|->)?\s*(?P<neg>not\s+)?(?P<pred>{_PRED_ALT})\b(?:\s*\([^)]{{0,20}}\))?"
)
_NEXT_RESULT_RE = re.compile(rf"\s*(?:,\s*and|,|\band\b|&|;)?\s*(?P<seat>{_SEAT})")
# A role as a reference to its known holder: "the doctor is gone" (not "the doctor Bob", a label).
_ROLE_REFERENCE_RE = re.compile(
    r"\b(?:the|our)\s+(?:(?:dead|late|poor|real|confirmed|revealed|former)\s+)?(?P<pred>seer|doctor|detective|bodyguard|medium)"
    r"\b(?!\s*<|'s|\s+(?:claim|claimant|co|role|result))"
)
# "I retract my earlier Seer claim", "my seer claim was a bluff".
_RETRACT_RE = re.compile(
    r"\bi\s+(?:hereby\s+)?(?:retract|withdraw|take\s+back)\s+my\s+(?:\w+\s+)?(?P<pred>seer|detective|doctor|"
    r"bodyguard|medium|villager)\s+(?:claim|co)|\bmy\s+(?:\w+\s+)?(?P<pred2>seer|detective|doctor|bodyguard|medium)"
    r"\s+(?:claim|co)\s+(?:was|is)\s+(?:just\s+|only\s+)?(?:fake|false|a\s+bluff|a\s+lie|a\s+trick)"
)
# "Takumi's seer claim is fake", "Bob's doctor CO is a lie".
_FALSE_CLAIM_RE = re.compile(
    rf"(?P<seat>{_SEAT})\s*'s\s+(?:(?:fake|false|bogus)\s+)?(?P<pred>seer|detective|doctor|bodyguard|medium|"
    rf"villager|investigator|cop)\s+(?:claim|co|counter-?claim)\s+(?:is|was|'s)\s+(?:(?:clearly|obviously|"
    rf"definitely|now|just)\s+)?(?:fake|false|bogus|a\s+lie|out|debunked|disproven|refuted|wrong|fabricated|"
    rf"made\s+up|a\s+bluff|fiction)"
)
# "rule out Eve being a doctor", "I see Bob as a wolf", "leaning towards Deepseek as more likely to be a Werewolf".
_AS_PREDICATE_RE = re.compile(
    rf"\b(?P<verb>rule\s+out|ruled\s+out|ruling\s+out|see|view|consider|considering|read|reading|lean\s+towards?|"
    rf"leaning\s+towards?|leaning\s+on|peg|pegging|mark|marking|count|counting|treat|treating|trust)\s+{_GROUP}\s+"
    rf"(?:as\s+|being\s+|to\s+be\s+)(?:(?:more|most|very|quite|highly|the\s+most)\s+)?(?:likely\s+)?"
    rf"(?:to\s+be\s+)?(?:(?:a|an|the|our)\s+)?(?P<neg>not\s+)?{_PRED}"
)

# Clause context before a match.
_CLAUSE_BREAK_RE = re.compile(r"\b(?:but|however|although|though|whereas|yet|also)\b|[;—–:]|\s-\s|\.\.\.")
_CONDITIONAL_RE = re.compile(
    r"\b(?:if|unless|whether|suppose|supposing|assuming|assume|in\s+case|imagine|pretend|hypothetically|"
    r"let's\s+say|let\s+us\s+say|even\s+if|what\s+if|would\s+mean|not\s+sure|unsure|no\s+idea|"
    r"don't\s+know\s+(?:if|whether|who)|can't\s+tell|wonder|wondering|proves?\s+that|prove|until|before|"
    r"when|once|either|or|scenarios?|possibilit(?:y|ies)|would(?!\s+say)|wouldn't|i'd(?!\s+say)|hope|hoping|hopefully|wish|afraid\s+that)\b"
)
_REPORTING_VERBS = (
    r"said|says|say|saying|claimed|claims|claim|claiming|told|tells|mentioned|mentions|stated|states|accused|"
    r"accuses|accusing|insist|insists|insisted|thinks|believes|believed|thought|announced|reported|"
    r"admitted|admits|declared|declares|swore|asserted|asserts|called|calls|calling|labeled|labelled|"
    r"named|suggested|argued|argues|implied|implies|framing|framed|frame|pretending|pretend|pretends|"
    r"acting|posing|poses|faking|want|wants|wanted|trying|tries|tried"
)
_REPORTED_RE = re.compile(
    rf"\b(?:{_REPORTING_VERBS})\b|\baccording\s+to\b|<\d+@?>'s\s+(?:\w+\s+)?(?:divination|divinations|result|"
    rf"results|claim|claims|check|checks|investigation|reading|report|co|vision|info|information|data)\b"
)
# Verbs of evidence: someone else's when another player is their subject ("Minato saw Asuka is human").
_EVIDENCE_RE = re.compile(
    r"\b(?:saw|sees|divined|checked|investigated|inspected|found|finds|confirmed|confirms|cleared|clears|revealed|"
    r"reveals|shows|showed|divines|checks|investigates)\b"
)
_OWN_WORDS = frozenset("i i've i'd i'll i'm my me (me) me) we".split())
_OTHER_WORDS = frozenset("he she they you he's she's they're you're his her their your".split())
_OWN_SUBJECT_RE = re.compile(
    r"(?:^|\s)(?:i|i've|i'd|i'll|i'm|i\s+was|i\s+am|i've\s+been|i\s+have|i\s+had|i\s+just|i\s+already|i\s+also|"
    r"i\s+still|i\s+do|i\s+did|i\s+will|i\s+would|my\s+\w+|i\s+never)$"
)
_HEDGE_RE = re.compile(
    r"\b(?:i\s+(?:really\s+|still\s+|strongly\s+|honestly\s+|kind\s+of\s+|also\s+|now\s+|do\s+|kinda\s+|"
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
_NEGATED_BELIEF_RE = re.compile(
    r"\bi\s+(?:really\s+|still\s+|just\s+|honestly\s+)?(?:don't|do\s+not|didn't|did\s+not|can't|cannot|no\s+longer)\s+"
    r"(?:think|believe|feel|suspect|buy|see)\b|\bi\s+doubt\b|\bi'm\s+not\s+(?:convinced|sure)\b|"
    r"\bno\s+reason\s+to\s+(?:think|suspect|believe)\b"
)
_NEGATION_RE = re.compile(r"\b(?:not|never|no\s+longer|n't)\b|n't\b")

_QUESTION_START = frozenset(
    "is are was were do does did could would can should who what why how which whose am isn't aren't".split()
)

# Pronouns.
_PRONOUN_RE = re.compile(
    r"\b(?:(?P<he>he|she)|(?P<him>him|her)(?=\s*(?:[.,!;:?—)-]|$|\s+(?:and|too|more|less|now|either|completely|"
    r"fully|at\s+all|is|are|of|as|for|at|over|most|anymore|yet|though|right|last\s+night|tonight|yesterday|"
    r"on\s+night|first|today)\b))|(?P<they>they|them)|(?P<you>you))\b"
)
# Whom a sentence addresses: "Bob, ...", "..., Bob.", "@Bob".
_LEAD_ADDRESS_RE = re.compile(r"<(\d+)@?>\s*[,:!]")
_END_ADDRESS_RE = re.compile(r",\s*<(\d+)@?>\s*[.!?]*\s*$")
_AT_ADDRESS_RE = re.compile(r"<(\d+)@>")
_SEAT_RE = re.compile(r"<(\d+)@?>")
_NAME_SUFFIX_RE = re.compile(r"(<\d+>)-(?:san|chan|kun|sama|dono|sensei)\b")
_AT_SEAT_RE = re.compile(r"@\s*<(\d+)>")
_STRAY_AT_RE = re.compile(r"@(?!>)")
_NOISE_CHARS = '"*_#'
_QUOTE_MARK_RE = re.compile(r"'(?:(?!\w)|(?<![\w>]'))")  # a quote mark, not an apostrophe
_HONORIFIC_RE = re.compile(r"\b(?:ms|mr|mrs|dr)\.")
_SPACES_RE = re.compile(r"[ \t]{2,}|\t")
_YOU_RE = re.compile(r"\byou\b")
_MID_VOCATIVE_RE = re.compile(r",\s*<(\d+)@?>\s*,")
_LEAD_VOCATIVE_RE = re.compile(r"<(\d+)@?>\s+(?!'|is\b|was\b|are\b|and\b|has\b|had\b|'s\b)")
_GAP_STOP_RE = re.compile(r"\b(?:vote|but|because|since|if|and\s+i)\b")
_LIKE_RE = re.compile(rf"\s*,?\s*(?:just\s+)?like\s+{_GROUP}")
_AND_RE = re.compile(r"\band\b|&")
_SELF_SUBJECT_RE = re.compile(r"\b(?:i|me)\b")
_OR_RE = re.compile(r"\bor\b|\beither\b")
_CLAUSE_END_RE = re.compile(
    r"\s*(?:[.,!;:—)-]|$|\s*(?:and|but|for|too|now|though|then|right|here|after|because|so|already|anyway)\b)"
)
_GROUP_JOIN_RE = re.compile(rf"{_SEAT}(?:{_JOIN}{_SEAT})+")

# Names that are also common words count only when capitalised.
_COMMON_WORDS = frozenset(
    "may will mark rose grace hope faith frank bill joy june april august sun art max sage river dawn rich sky ray "
    "amber crystal autumn destiny honey penny sunny summer winter case lane page pat skip chase hunter guard seer "
    "doctor wolf ace bo jack king major miles cash drew gene guy hunter lucky nick rob sandy stone will wolf "
    "you me i he she they them".split()
)
_SELF_WORDS = frozenset({"i", "me", "myself"})
_MEMO_SIZE = 4096  # statements remembered per extractor
_TYPOGRAPHIC_RE = re.compile("[’‘“”＝：`]")
_APOSTROPHES = str.maketrans({"’": "'", "‘": "'", "“": '"', "”": '"', "＝": "=", "：": ":", "`": "'"})
_WORD_RE = re.compile(r"[a-z]+")
_EQUALS_CHARS = frozenset("=:→—–-")
_PRED_WORDS = frozenset(w for key in _PREDICATES for w in _WORD_RE.findall(key)) - {"our", "on", "good", "side", "team"}
_LABEL_WORDS = frozenset("seer detective doctor bodyguard medium werewolf wolf mafioso villager human".split())
_CHECK_WORDS = frozenset(
    "checked check investigated investigate investigation investigations divined divine divination divinations "
    "inspected inspect inspection examined scanned tested probed peeked looked used chose result results vision "
    "visions findings found reading".split()
)
_PROTECT_WORDS = frozenset(
    "protected protecting protection saved healed heal guarded guarding guard shielded defended".split()
)
_TRUST_WORDS = frozenset("trust suspect distrust mistrust vouch clear cleared".split())
# A sentence without any of these holds no claim.
_TRIGGER_WORDS = (
    _PRED_WORDS
    | _CHECK_WORDS
    | _PROTECT_WORDS
    | _TRUST_WORDS
    | frozenset("co claim claiming role lean leans leaning read reads ish good".split())
)
_PRONOUN_WORDS = frozenset("he she him her they them you".split())
_SUBJECT_WORDS = _PRONOUN_WORDS | frozenset("i my me im".split())


KnownRoles = tuple[tuple[str, int], ...]  # (role, seat) known to everyone, e.g. revealed on death


@lru_cache(maxsize=64)
def extractor_for(names: tuple[str, ...]) -> ClaimExtractor:
    return ClaimExtractor(names)


class ClaimExtractor:
    """Deterministic reader of the claims the benchmark grounds (see the module docstring)."""

    def __init__(self, names: tuple[str, ...]) -> None:
        self.names = names
        self._memo: dict[tuple[str, int, KnownRoles], tuple[list[dict[str, Any]], frozenset[int]]] = {}
        lookup: dict[str, int] = {}
        for seat, name in enumerate(names):
            lookup[name.lower()] = seat
            lookup[f"player_{seat}"] = seat
        self.lookup = lookup
        self._cased = frozenset(n for n in lookup if n in _COMMON_WORDS)
        alts = sorted(lookup, key=len, reverse=True)
        name = r"(?:" + "|".join(re.escape(a) for a in alts) + r")"
        self.name_re = re.compile(r"(?<![\w])" + name + r"(?![\w])", re.IGNORECASE)
        # The same on lowercased text, case-sensitive: about twice as fast.
        self._lower_name_re = re.compile(r"(?<![\w])" + name + r"(?![\w])")

    def seat(self, token: str) -> int | None:
        return self.lookup.get(token.lower())

    def mentions(self, text: str) -> frozenset[int]:
        """Seats named in ``text`` (names or agent ids)."""
        return frozenset(seat for _, _, seat in self._name_hits(text, text.lower()))

    def _name_hits(self, text: str, lowered: str) -> list[tuple[int, int, int]]:
        """(start, end, seat) of every name; a name that is a common word only when capitalised."""
        if len(lowered) == len(text):  # lower() kept every position (true for all but a few scripts)
            found = [(m.start(), m.end(), m.group(0)) for m in self._lower_name_re.finditer(lowered)]
        else:
            found = [(m.start(), m.end(), m.group(0).lower()) for m in self.name_re.finditer(text)]
            if self._cased:
                text = lowered = ""  # positions differ: cannot check the case, so drop the ambiguous ones
        hits = []
        for start, end, key in found:
            if key in self._cased and not (text and text[start].isupper()):
                continue
            hits.append((start, end, self.lookup[key]))
        return hits

    def extract(self, text: str, speaker: int, known: KnownRoles = ()) -> list[dict[str, Any]]:
        return self.scan(text, speaker, known)[0]

    def scan(self, text: str, speaker: int, known: KnownRoles = ()) -> tuple[list[dict[str, Any]], frozenset[int]]:
        """The claims in ``text`` and the seats it names, in one pass over the names.

        ``known``: (role, seat) pairs every player knows (a role revealed on death), so that "the
        doctor is gone" reads as a claim about that seat; a role word with no such holder names no one.
        Memoised (template-driven agents repeat their sentences); callers get fresh claim dicts.
        """
        key = (text, speaker, known)
        found = self._memo.get(key)
        if found is None:
            if len(self._memo) >= _MEMO_SIZE:
                self._memo.clear()
            found = self._memo[key] = self._scan(text, speaker, known)
        claims, mentioned = found
        return [claim.copy() for claim in claims], mentioned

    def _scan(self, text: str, speaker: int, known: KnownRoles = ()) -> tuple[list[dict[str, Any]], frozenset[int]]:
        if _TYPOGRAPHIC_RE.search(text):
            text = text.translate(_APOSTROPHES)
        lowered = text.lower()
        hits = self._name_hits(text, lowered)
        mentioned = frozenset(seat for _, _, seat in hits)
        if _TRIGGER_WORDS.isdisjoint(_WORD_RE.findall(lowered)):
            return [], mentioned  # no role, team, check or trust word: nothing to read
        tokens = _tokenise(lowered, hits)
        reader = _Reader(speaker, len(self.names), dict(known))
        for sentence in _sentences(tokens):
            reader.read(sentence)
        return reader.claims(), mentioned


def _tokenise(lowered: str, hits: list[tuple[int, int, int]]) -> str:
    """Names as seat tokens; quotes, markdown and honorifics out; someone else's words quoted inside the
    statement (three words or more: 'Sakura's quick "George is a wolf" looks rushed') dropped."""
    parts, last = [], 0
    for start, end, seat in hits:
        parts.append(lowered[last:start])
        parts.append(f"<{seat}>")
        last = end
    parts.append(lowered[last:])
    text = "".join(parts).strip()
    if ">-" in text:
        text = _NAME_SUFFIX_RE.sub(r"\1", text)  # "Yumi-san" is Yumi
    if len(text) > 1 and text[0] == '"' and text[-1] == '"' and text.count('"') == 2:
        text = text[1:-1]  # a statement wrapped in quotes
    if '"' in text:
        text = _QUOTED_RE.sub(_drop_long_quote, text)
    # Quotes, markdown, @-mentions, honorifics.
    for char in _NOISE_CHARS:
        if char in text:
            text = text.replace(char, " ")
    if "'" in text:
        text = _QUOTE_MARK_RE.sub(" ", text)
    if "." in text and ("ms." in text or "mr" in text or "dr." in text):
        text = _HONORIFIC_RE.sub(" ", text)
    if "@" in text:
        # "@Bob" addresses Bob: kept as a mark on the seat token; any other "@" goes.
        text = _STRAY_AT_RE.sub(" ", _AT_SEAT_RE.sub(r"<\1@>", text))
    return _SPACES_RE.sub(" ", text) if "  " in text or "\t" in text else text


_QUOTED_RE = re.compile(r'"[^"]*"')


def _drop_long_quote(m: re.Match[str]) -> str:
    return " ... " if len(m.group(0).split()) >= 3 else m.group(0)


_SENTENCE_RE = re.compile(r"[^.!?;\n]+[.!?]*")


def _sentences(text: str) -> list[str]:
    """Sentences, each with its end mark ("?" makes a question); ";" and line breaks end one too."""
    return [s for s in (m.group(0).strip() for m in _SENTENCE_RE.finditer(text)) if s.strip(" .!?")]


class _Reader:
    """Reads one statement sentence by sentence, keeping what pronouns may refer to."""

    def __init__(self, speaker: int, n_seats: int, known: dict[str, int] | None = None) -> None:
        self.speaker = speaker
        self.n_seats = n_seats
        self.known = known or {}
        self.found: list[dict[str, Any]] = []
        self.previous: list[tuple[int, ...]] = []  # the names (groups) of the previous sentence with any
        self.addressee: int | None = None
        self.pending_check: frozenset[int] = frozenset()
        self.check_context = False
        self.sentence_start = 0  # where the previous sentence's claims start in ``found``
        self.medium = False  # the statement speaks of the medium: "X=Human" lists are execution results

    # ------------------------------------------------------------------ pronouns and vocatives
    def _note_address(self, sentence: str) -> None:
        """Remember the last player this sentence addresses by name."""
        found = []
        lead = _LEAD_ADDRESS_RE.match(sentence)
        if lead:
            found.append(lead.group(1))
        if "@>" in sentence:
            found += _AT_ADDRESS_RE.findall(sentence)
        if "," in sentence:
            end = _END_ADDRESS_RE.search(sentence)
            if end:
                found.append(end.group(1))
        for seat in map(int, found):
            if seat != self.speaker:
                self.addressee = seat

    def _resolve(self, sentence: str, has_pronoun: bool = True) -> str:
        self._note_address(sentence)
        you = "you" in sentence and _YOU_RE.search(sentence)
        mid = you and _MID_VOCATIVE_RE.search(sentence)
        if mid and int(mid.group(1)) != self.speaker:
            self.addressee = int(mid.group(1))
        lead = you and _LEAD_VOCATIVE_RE.match(sentence)
        if lead and int(lead.group(1)) != self.speaker:
            self.addressee = int(lead.group(1))
        pronouns = list(_PRONOUN_RE.finditer(sentence)) if has_pronoun else None
        if not pronouns:
            return sentence
        out, last = [], 0
        for m in pronouns:
            before = sentence[: m.start()]
            mentions = (_mention_groups(before) if "<" in before else None) or self.previous
            target: tuple[int, ...] | None = None
            if m.group("you"):
                target = (self.addressee,) if self.addressee is not None else None
            elif m.group("they"):
                if len(mentions) == 1:
                    target = mentions[0]
            else:
                singles = {g[0] for g in mentions if len(g) == 1 and g[0] != self.speaker}
                groups = [g for g in mentions if len(g) > 1]
                if len(singles) == 1 and not groups:
                    target = (next(iter(singles)),)
            if target is None:
                continue
            out.append(sentence[last : m.start()])
            out.append(" and ".join(f"<{s}>" for s in target))
            last = m.end()
        out.append(sentence[last:])
        return "".join(out)

    # ------------------------------------------------------------------ claims
    def read(self, raw: str) -> None:
        words = set(_WORD_RE.findall(raw))
        if _TRIGGER_WORDS.isdisjoint(words) or (
            # Every claim has a subject: a name, "I" / "my", a pronoun, or a role everyone knows the holder of.
            "<" not in raw and _SUBJECT_WORDS.isdisjoint(words) and not (self.known and "the" in words)
        ):
            # Nothing to read here; only what later pronouns may refer to changes.
            groups = _mention_groups(raw) if "<" in raw else None
            if groups:
                self.previous = groups
            if "<" in raw:
                self._note_address(raw)
            self.pending_check = frozenset()
            self.check_context = False
            self.sentence_start = len(self.found)
            return
        self.medium = self.medium or "medium" in words
        has_pronoun = not _PRONOUN_WORDS.isdisjoint(words)
        sentence = self._resolve(raw, has_pronoun) if has_pronoun or "<" in raw else raw
        groups = _mention_groups(sentence) if "<" in sentence else None
        if groups:
            self.previous = groups
        if sentence.rstrip().endswith("?") or sentence.split(" ", 1)[0] in _QUESTION_START:
            # A question asserts nothing; a statement before it in the same sentence still does ("I suspect
            # Bob — are you the seer?").
            breaks = list(_CLAUSE_BREAK_RE.finditer(sentence))
            if not breaks or sentence.split(" ", 1)[0] in _QUESTION_START:
                self.pending_check = frozenset()
                self.check_context = False
                return
            sentence = sentence[: breaks[-1].start()]
        hints_check = not _CHECK_WORDS.isdisjoint(words) or "(me)" in sentence
        check_context = self.check_context or (hints_check and bool(_CHECK_CONTEXT_RE.search(sentence)))
        checked = set(self.pending_check)
        found_before = len(self.found)
        for m in _CHECK_RE.finditer(sentence) if hints_check else ():
            if self._blocked(sentence, m.start()):
                continue
            targets = _seats(m.group("group"))
            checked.update(targets)
            self._result_after(sentence, m.end(), targets)
        if self.pending_check:
            self._result_after(sentence, 0, sorted(self.pending_check))
        if checked and not self.pending_check:
            # "Charlie is the mafioso. I investigated them last night.": the claim just before was the result.
            for claim in self.found[self.sentence_start : found_before]:
                if claim["kind"] == "team" and claim["player"] in checked and not claim["hedged"]:
                    claim["kind"] = "seer_result"
        self.sentence_start = found_before
        self._read_patterns(sentence, words, check_context, checked)
        new = self.found[found_before:]
        # A check with no result in its sentence: the next sentence may give it ("She's a Werewolf").
        results = {c["player"] for c in new if c["kind"] == "seer_result"}
        self.pending_check = frozenset(checked - results) if hints_check and _CHECK_RE.search(sentence) else frozenset()
        # "I stand by my investigation. Diana is the Mafioso.": the reference carries one sentence on.
        self.check_context = hints_check and bool(_CHECK_CONTEXT_RE.search(sentence)) and not new

    def _result_after(self, s: str, start: int, targets: list[int]) -> None:
        direct = _DIRECT_RESULT_RE.match(s, start)
        if direct is not None and len(targets) == 1:
            # "I divined Benjamin HUMAN (day0) and George HUMAN (day1)"
            seat, pos = targets[0], start
            while direct is not None:
                self._emit_result(s, start, seat, direct.group("pred"), bool(direct.group("neg")))
                pos = direct.end()
                nxt = _NEXT_RESULT_RE.match(s, pos)
                if nxt is None:
                    break
                seat = _seats(nxt.group("seat"))[0]
                direct = _DIRECT_RESULT_RE.match(s, nxt.end())
            return
        m = _RESULT_RE.match(s, start)
        if m is None:
            return
        others = set(_seats(m.group("gap"))) - set(targets)
        if others or _GAP_STOP_RE.search(m.group("gap")):
            return
        negated = bool(m.group("neg")) or bool(_NEGATION_RE.search(m.group("gap")))
        for seat in targets:
            self._emit_result(s, start, seat, m.group("pred"), negated)

    def _emit_result(self, s: str, at: int, seat: int, pred: str, negated: bool) -> None:
        kind, value, _ = _predicate(pred)
        if kind == "team":
            self._emit(s, at, make_claim("seer_result", seat, None, value, negated))
        elif value == "villager":
            self._emit(s, at, make_claim("seer_result", seat, None, "village", negated))
        else:
            self._emit(s, at, make_claim("seer_result", seat, value, None, negated))

    def _read_patterns(self, s: str, words: set[str], check_context: bool, checked: set[int]) -> None:
        preds = not _PRED_WORDS.isdisjoint(words)
        labels = not _LABEL_WORDS.isdisjoint(words)
        if self.known and labels:
            # "the doctor is gone", "our late seer": a role everyone knows the holder of names that player.
            for m in _ROLE_REFERENCE_RE.finditer(s):
                role = _predicate(m.group("pred"))[1]
                seat = self.known.get(role)
                if seat is not None and seat != self.speaker and not self._blocked(s, m.start()):
                    self._emit(s, m.start(), make_claim("role", seat, role))
        if "retract" in words or "withdraw" in words or "fake" in words or "bluff" in words:
            for m in _RETRACT_RE.finditer(s):
                if not self._blocked(s, m.start(), True):
                    pred = m.group("pred") or m.group("pred2")
                    self._add_predicate(s, m.start(), [self.speaker], pred, 1, False, False, False, set())
        for m in _CLAIM_RE.finditer(s) if preds else ():
            subjects = _subject_seats(m.group("subj"), self.speaker)
            if not subjects or self._blocked(s, m.start(), subjects == [self.speaker]) or _disjunction(m.group("subj")):
                continue
            if m.group("cop").strip() == "'s" and not m.group("mods") and not _CLAUSE_END_RE.match(s, m.end()):
                continue  # "Rin's medium info": a possessive, not "Rin is a medium"
            if _object_of_previous_word(s, m.start()):
                continue  # "whoever keeps defending Cal is on the wolf side": Cal is not the subject
            negated = _count_negations(m.group("cop") + m.group("mods"))
            mods = m.group("mods")
            fake = "fake" in mods or "false" in mods
            hedged = bool(_HEDGE_RE.search(m.group("cop") + mods))
            self._add_predicate(s, m.start(), subjects, m.group("pred"), negated, hedged, fake, check_context, checked)
            if "i" in m.group("subj").split() or subjects == [self.speaker]:
                # "I'm just a regular townie like Bob and Diana"
                like = "like" in s and _LIKE_RE.match(s, m.end())
                if like:
                    others = _seats(like.group("group"))
                    self._add_predicate(s, m.start(), others, m.group("pred"), negated, hedged, fake, False, set())
        for m in _LABEL_BEFORE_RE.finditer(s) if labels else ():
            if m.start() and (s[m.start() - 1].isalnum() or s[m.start() - 1] == "-"):
                continue  # inside a word ("werewolf" holds "wolf")
            pre_m = _LABEL_PRE_RE.search(s, max(0, m.start() - 24), m.start())
            pre = pre_m.group("pre") if pre_m else ""
            if pre in ("self-proclaimed", "so-called", "alleged", "claimed", "supposed") or self._blocked(s, m.start()):
                continue
            hedged = pre in ("suspected", "possible", "potential", "likely", "obvious")
            self._add_predicate(s, m.start(), _seats(m.group("seat") or m.group("seat2")), m.group("pred"), 0, hedged,
                                pre in ("fake", "false"), False, set())  # fmt: skip
        if labels and ("," in s or "(" in s):
            for m in _LABEL_AFTER_RE.finditer(s):
                if self._blocked(s, m.start()):
                    continue
                fake = "fake" in m.group("mods")
                self._add_predicate(
                    s, m.start(), _seats(m.group("seat")), m.group("pred"), 0, False, fake, False, set()
                )
        for m in _SUBJECT_AFTER_RE.finditer(s) if preds else ():
            if m.group("either") or self._blocked(s, m.start()) or _disjunction(m.group("group")):
                continue
            negated = _count_negations(m.group("cop"))
            hedged = bool(_HEDGE_RE.search(m.group("cop")))
            subjects = _seats(m.group("group"))
            self._add_predicate(s, m.start(), subjects, m.group("pred"), negated, hedged, False, check_context, checked)
        if preds and not _EQUALS_CHARS.isdisjoint(s):
            for m in _EQUALS_RE.finditer(s):
                if self._blocked(s, m.start()):
                    continue
                # "N1: Eve=Werewolf" reports a check, unless the speaker speaks as the medium (executions' results).
                as_result = not self.medium and (check_context or bool(m.group("night")))
                seats = _seats(m.group("seat"))
                self._add_predicate(s, m.start(), seats, m.group("pred"), 1 if m.group("neg") else 0, False, False,
                                    as_result, checked | set(seats) if as_result else set())  # fmt: skip
        if "'s" in s and ("claim" in s or " co" in s):
            for m in _FALSE_CLAIM_RE.finditer(s):
                if not self._blocked(s, m.start()):
                    self._add_predicate(
                        s, m.start(), _seats(m.group("seat")), m.group("pred"), 1, False, False, False, set()
                    )
        if preds and ("as " in s or "being " in s or "to be " in s):
            for m in _AS_PREDICATE_RE.finditer(s):
                if self._blocked(s, m.start()) or _disjunction(m.group("group")):
                    continue
                verb = m.group("verb")
                negated = int(bool(m.group("neg"))) + int(verb.startswith(("rule", "ruled", "ruling")))
                hedged = not verb.startswith(("rule", "ruled", "ruling"))
                self._add_predicate(s, m.start(), _seats(m.group("group")), m.group("pred"), negated, hedged, False,
                                    False, set())  # fmt: skip
        if "lean" in s or "read" in s:
            for m in _READ_LIST_RE.finditer(s):
                if self._blocked(s, m.start()):
                    continue
                team = "werewolf" if m.group("side") in ("wolf", "scum", "mafia") else "village"
                for seat in _seats(m.group("group")):
                    self._emit(s, m.start(), make_claim("team", seat, None, team, False, True))
        if preds and "as " in s:
            for m in _AS_ROLE_RE.finditer(s):
                self._add_predicate(s, m.start(), [self.speaker], m.group("pred"), 0, False, False, False, set(),
                                    check_block=False)  # fmt: skip
        if "co" in s or "claim" in s or "reveal" in s or "came out" in s or "come out" in s or "coming out" in s:
            for m in _SELF_CO_RE.finditer(s):
                if not self._blocked(s, m.start(), True):
                    self._add_predicate(s, m.start(), [self.speaker], m.group("pred"), 0, False, False, False, set())
        if "my " in s and "role" in s:
            for m in _MY_ROLE_RE.finditer(s):
                if not self._blocked(s, m.start()):
                    self._add_predicate(s, m.start(), [self.speaker], m.group("pred"), 0, False, False, False, set())
        if " no " in s:
            for m in _NO_ROLE_RE.finditer(s):
                if not self._blocked(s, m.start()):
                    self._emit(s, m.start(), make_claim("role", self.speaker, "villager"))
        if not _TRUST_WORDS.isdisjoint(words):
            for m in _TRUST_RE.finditer(s):
                if self._blocked(s, m.start()):
                    continue
                verb = m.group("verb")
                distrust = verb in ("distrust", "mistrust") or verb.startswith(("don't", "do not"))
                team = "werewolf" if verb == "suspect" or distrust else "village"
                hedged = "vouch" not in verb and "clear" not in verb
                kind = "seer_result" if verb in ("clear", "cleared") and check_context else "team"
                for seat in _seats(m.group("group")):
                    if seat != self.speaker:
                        self._emit(s, m.start(), make_claim(kind, seat, None, team, False, hedged))
        if not _PROTECT_WORDS.isdisjoint(words):
            for m in _PROTECT_RE.finditer(s):
                if self._blocked(s, m.start()):
                    continue
                for seat in _seats(m.group("group") or m.group("group2") or ""):
                    self._emit(s, m.start(), make_claim("protected", seat))

    def _add_predicate(
        self,
        s: str,
        at: int,
        subjects: list[int],
        pred: str,
        negated: int,
        hedged: bool,
        fake: bool,
        check_context: bool,
        checked: set[int],
        check_block: bool = True,
    ) -> None:
        kind, value, word_hedged = _predicate(pred)
        clause = _clause_before(s, at)
        if _NEGATED_BELIEF_RE.search(clause):
            negated += 1
            hedged = True
        elif _HEDGE_RE.search(clause):
            hedged = True
        hedged = hedged or word_hedged
        negated += int(fake)
        is_negated = negated % 2 == 1
        for seat in subjects:
            if kind == "team":
                result_kind = (
                    "seer_result"
                    if seat != self.speaker and not hedged and (seat in checked or (check_context and not checked))
                    else "team"
                )
                self._emit(s, at, make_claim(result_kind, seat, None, value, is_negated, hedged), check_block)
            elif (
                value == "villager"
                and seat != self.speaker
                and not hedged
                and (seat in checked or (check_context and not checked))
            ):
                self._emit(s, at, make_claim("seer_result", seat, None, "village", is_negated), check_block)
            else:
                self._emit(s, at, make_claim("role", seat, value, None, is_negated, hedged), check_block)

    def _emit(self, s: str, at: int, claim: dict[str, Any], check_block: bool = False) -> None:
        if claim["player"] is None or not 0 <= claim["player"] < self.n_seats:
            return
        self.found.append(claim)

    def _blocked(self, s: str, at: int, about_self: bool = False) -> bool:
        """A conditional, a supposition or someone else's reported speech governs the text before ``at``.

        After a conditional clause ("if Diana is the cop, Charlie is mafia") only a claim about the
        speaker itself stands ("if you're the investigator, you know I'm not the Mafioso").
        """
        clause = _clause_before(s, at)
        markers = list(_CONDITIONAL_RE.finditer(clause))
        if markers:
            rest = clause[markers[-1].end() :]
            if "," not in rest and " then " not in rest:
                return True
            if not about_self:
                return True
        for r in _REPORTED_RE.finditer(clause):
            if r.group(0).startswith("according"):
                return True
            if r.group(0).startswith("<"):
                return True  # "Midori's divination Shizue=Werewolf": someone else's result
            subject = clause[: r.start()].split()[-3:]  # the reporting verb's subject: the words just before it
            if subject and not _OWN_SUBJECT_RE.search(" " + " ".join(subject[-2:])) and "my" not in subject:
                return True
        for r in _EVIDENCE_RE.finditer(clause):
            for word in reversed(clause[: r.start()].split()[-4:]):
                if word in _OWN_WORDS:
                    break
                if word.startswith("<") or word in _OTHER_WORDS:
                    return True
        return False

    def claims(self) -> list[dict[str, Any]]:
        merged: dict[tuple[Any, ...], dict[str, Any]] = {}
        for claim in self.found:
            key = claim_key(claim)
            if key in merged:
                merged[key]["hedged"] = merged[key]["hedged"] and claim["hedged"]
            else:
                merged[key] = claim
        # A seer result about a player also stated as a team claim of the same sentence: keep the result.
        results = {(c["player"], c["team"]) for c in merged.values() if c["kind"] == "seer_result"}
        return [
            c
            for c in merged.values()
            if not (c["kind"] == "team" and not c["hedged"] and (c["player"], c["team"]) in results)
        ]


@lru_cache(maxsize=256)
def _predicate(word: str) -> tuple[str, str, bool]:
    return _PREDICATES[" ".join(word.split())]


_GOVERNING_WORDS = frozenset(
    "of to for with about against by from at on into toward towards over than onto upon without like unlike "
    "defending protecting accusing attacking targeting voting lynching trusting suspecting following pushing "
    "killing eliminating executing exiling questioning supporting blaming framing".split()
)


def _object_of_previous_word(sentence: str, at: int) -> bool:
    """The name at ``at`` is the object of the word before it (a preposition or a verb in -ing), not a subject."""
    before = sentence[max(0, at - 24) : at].split()
    return bool(before) and before[-1] in _GOVERNING_WORDS


def _clause_before(sentence: str, at: int) -> str:
    before = sentence[:at]
    breaks = list(_CLAUSE_BREAK_RE.finditer(before))
    return before[breaks[-1].end() :] if breaks else before


def _count_negations(text: str) -> int:
    return len(_NEGATION_RE.findall(text))


def _seats(text: str) -> list[int]:
    return [int(x) for x in _SEAT_RE.findall(text)]


def _subject_seats(subject: str, speaker: int) -> list[int]:
    seats = _seats(subject)
    if len(seats) > 1 and "," in subject and not _AND_RE.search(subject):
        seats = seats[-1:]  # "Charlie, Diana is mafia": a vocative, then the subject
    if "i" in subject and _SELF_SUBJECT_RE.search(subject):
        seats.append(speaker)
    return list(dict.fromkeys(seats))


def _disjunction(text: str) -> bool:
    return "or" in text and bool(_OR_RE.search(text))


def _mention_groups(text: str) -> list[tuple[int, ...]]:
    """The players named in ``text``, conjoined names ("A and B") as one group, in order."""
    seats = _SEAT_RE.findall(text)
    if len(seats) < 2 or not ("and" in text or "," in text or "&" in text):
        return [(int(x),) for x in dict.fromkeys(seats)]
    groups: list[tuple[int, ...]] = []
    covered: list[tuple[int, int]] = []
    for m in _GROUP_JOIN_RE.finditer(text):
        groups.append(tuple(dict.fromkeys(_seats(m.group(0)))))
        covered.append((m.start(), m.end()))
    for m in _SEAT_RE.finditer(text):
        if not any(a <= m.start() < b for a, b in covered):
            groups.append((int(m.group(1)),))
    seen: list[tuple[int, ...]] = []
    for g in groups:
        if g not in seen:
            seen.append(g)
    return seen
