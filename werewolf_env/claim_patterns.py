"""Words and patterns of the claim reader (``claim_text``), and the small text utilities it uses.

Statements are read lowercased, with names as seat tokens ``<i>`` (``<i@>`` when "@"-addressed):
every pattern here works on that form. What each pattern reads, with examples, is said beside it;
the reading order and the rules that drop or hedge a match are in ``claim_reader``.
"""

from __future__ import annotations

import re
from functools import lru_cache

# ---------------------------------------------------------------------------------------- words

# Role and team words -> (kind, value, hedged). ``kind`` "team": value is a team; "role": a role.
PREDICATES: dict[str, tuple[str, str, bool]] = {}
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
        PREDICATES[_word] = _meaning
PREDICATES["fortune teller"] = ("role", "seer", False)
PREDICATES["good guy"] = PREDICATES["good guys"] = ("team", "village", False)
for _side in ("village", "villager", "villagers", "town", "human", "good"):
    PREDICATES[f"{_side} team"] = PREDICATES[f"{_side} side"] = ("team", "village", False)
PREDICATES["wolf team"] = PREDICATES["werewolf team"] = PREDICATES["mafia team"] = ("team", "werewolf", False)
PREDICATES["wolf side"] = PREDICATES["werewolf side"] = PREDICATES["mafia side"] = ("team", "werewolf", False)
PREDICATES["on our side"] = PREDICATES["in the clear"] = ("team", "village", False)

PRED_ALT = "|".join(sorted((re.escape(w).replace(r"\ ", r"\s+") for w in PREDICATES), key=len, reverse=True))
# A role word used as something else: "the seer's target", "a seer claim", "wolf hunter".
NOT_A_LABEL = (
    r"(?!-)(?!'s\b|'\s)(?!\s+(?:claim|claims|claimant|claimants|claimer|claiming|candidate|candidates|target|"
    r"targets|killer|killers|hunter|hunters|role|roles|result|results|check|checks|power|powers|ability|vote|"
    r"votes|kill|kills|card|co\b|slot|count|chat|night|talk|behaviou?r|logic|strategy|play|move|tactics?|"
    r"perspective|pov|win|wins|meta|reads?|leans?|lean|side|team|pack|would|will|can|could|might|wants|needs|"
    r"tried|did|said|says|has|had|killed|attacked|died|who|that|which)\b)"
)
PRED = rf"(?P<pred>{PRED_ALT})(?!\w){NOT_A_LABEL}(?!\s+or\b|\s*/)"  # "a seer or a doctor": no claim

SEAT = r"<\d+@?>"
WORD_I = r"i(?<![\w']i)\b"  # "I" as a word; written to start with its letter, which lets the regex engine skip ahead
JOIN = r"(?:\s*(?:,\s*and|,|\band\b|&)\s*|\s+)"  # "A, B and C"; "A  B  and C" (logs that lost commas)
SUBJECT = rf"(?P<subj>(?:{SEAT}|{WORD_I})(?:{JOIN}(?:{SEAT}|\bi\b|\bme\b))*)"
GROUP = rf"(?P<group>{SEAT}(?:{JOIN}{SEAT})*)"

# Copulas, with the hedge or negation they carry.
COPULA = (
    r"(?P<cop>\s*'s|\s*'re|\s*'m|\s+(?:is|are|was|were|am)(?:\s+(?:also|still|now|both|all|then))?"
    r"(?:\s+(?:not|n't))?|\s*(?:isn't|aren't|wasn't|weren't|ain't)"
    r"|\s+(?:must|has\s+to|have\s+to|had\s+to|could|might|may|should|can't|cannot|couldn't|mustn't|"
    r"might\s+not|may\s+not|must\s+not)\s+(?:also\s+|both\s+|all\s+)?(?:have\s+)?be(?:en)?"
    r"|\s+(?:seems?|seemed|appears?|looks?|feels?|sounds?)(?:\s+(?:to\s+be|like))?"
    r"|\s+(?:strikes?\s+me|struck\s+me|reads?|comes?\s+(?:across|off)|came\s+(?:across|off))\s+as"
    r"|\s+(?:remains?|stays?)|\s+to\s+be"
    r"|\s+(?:is|was|are|were|has\s+been|have\s+been)\s+(?:divined|confirmed|cleared|revealed|outed|proven|verified|"
    r"exposed|known|identified|checked)\s+(?:as|to\s+be))"
)
# Words between the copula and the role word: articles, adverbs, adjectives.
MODIFIER_WORDS = (
    "definitely clearly probably likely surely certainly obviously really actually absolutely confirmed also "
    "still both all just only indeed undoubtedly truly genuinely simply not never no longer a an the our your "
    "their one of part on with last other real true fake false plain regular simple remaining second another "
    "fellow actual genuine lone bit kind sort pretty very more most obvious potential possible probable "
    "suspected outed known proven verified cleared hidden secret third final first ordinary normal vanilla "
    "humble mere innocent 100% for sure a-ok legit legitimate certified confirmed-"
).split()
MODIFIERS = (
    r"(?P<mods>(?:\s+(?:" + "|".join(sorted(map(re.escape, set(MODIFIER_WORDS)), key=len, reverse=True)) + r"))*)"
)

# Between the modifiers and the role word, after an article, one or two adjectives when the role word ends the
# clause ("George is the big bad wolf!", "I'm a truthful detective"). Words that start a phrase of their own
# ("a friend of wolves") are not adjectives.
_ADJECTIVE = (
    r"(?!(?:of|to|for|with|against|by|from|like|than|about|at|on|in|into|who|that|which|whom|and|or|but|not|no|is|"
    r"are|was|were|be|been|vote|voted|voting|friend|friends|enemy|ally|target|victim|reason|one|kind|sort|type|"
    r"part|member|leader|pick|choice|bait|way|same|only)\b)[a-z][a-z-]*"
)
_ROLE_ENDS_CLAUSE = (
    rf"(?=\s+(?:{PRED_ALT})(?!\w)\s*(?:[.,!;:?)—–-]|$|(?:and|but|for\s+sure|too|here|though|then|after\s+all)\b))"
)
_AFTER_ARTICLE = r"(?:(?<=\ba)|(?<=\ban)|(?<=\bthe)|(?<=\bour)|(?<=\byour))"
CLAIM_RE = re.compile(
    rf"{SUBJECT}{COPULA}{MODIFIERS}(?P<adj>{_AFTER_ARTICLE}(?:\s+{_ADJECTIVE}){{1,2}}?{_ROLE_ENDS_CLAUSE})?\s+{PRED}"
)
# "Seer Ryuji", "the outed wolf Diana", "our seer Bob", "fake seer Takumi".
LABEL_BEFORE_RE = re.compile(
    rf"(?=[sdbmwv])(?P<pred>seer|detective|doctor|bodyguard|medium|werewolf|wolf|mafioso|villager)"
    rf"(?:\s+(?P<seat>{SEAT})|\s*,\s*(?P<seat2>{SEAT})(?=\s*(?:[,.!;:—]|$)))"
    rf"(?!\s*'s\s+(?:claim|co))"
)
# "Sonnet, the Doctor, is dead", "Bob (the seer)", "Eve (wolf)".
LABEL_AFTER_RE = re.compile(
    rf"(?P<seat>{SEAT})\s*(?:,\s*(?:the|our|a|an)\s+|\(\s*(?:the\s+|a\s+|our\s+)?)(?P<mods>(?:(?:real|confirmed|"
    rf"outed|dead|fake|late)\s+)?)(?P<pred>seer|detective|doctor|bodyguard|medium|werewolf|wolf|mafioso|villager|"
    rf"human)\s*(?:,|\)|[.!]|$)"
)
# "the wolf is Bob", "our seer was Eve", "the last wolves are A and B".
SUBJECT_AFTER_RE = re.compile(
    rf"\b(?=[toa])(?P<pre>the|our|one|a)\s+(?:(?:real|true|last|remaining|other|second|only|actual|lone|fake|"
    rf"confirmed)\s+)?(?P<pred>werewolf|werewolves|wolf|wolves|mafia|mafioso|seer|detective|doctor|"
    rf"bodyguard)(?:\s+(?:member|player))?\s+(?P<cop>is|are|was|were|must\s+be|has\s+to\s+be|have\s+to\s+be|"
    rf"could\s+be|might\s+be|is\s+probably|is\s+likely|is\s+definitely|is\s+clearly|is\s+not|isn't)\s+"
    rf"(?P<either>either\s+)?{GROUP}"
)
SUBJECT_AFTER_WORDS = frozenset("werewolf werewolves wolf wolves mafia mafioso seer detective doctor bodyguard".split())
SUBJECT_AFTER_PRE = frozenset("the our one a".split())
# "Bob = Human", "N1: Eve=Werewolf", "Dan: wolf", "checked Dan — clean".
EQUALS_RE = re.compile(
    rf"(?=[<nd])(?P<night>\b(?:n|night|d|day)\s*\d+\s*[:：]?\s*)?(?P<seat>{SEAT})(?:\s*\([^)]{{0,20}}\))?\s*(?:=|:|→|->|—|–|\s-\s)\s*"
    rf"(?:(?:a|an|the)\s+)?(?P<neg>not\s+)?{PRED}"
    r"(?=\s*(?:$|[^\w\s']|<|(?:and|but|so|too|also|then|for|confirmed|i|n\d|d\d|day|night|today|tonight|yesterday|"
    r"last)\b))"
)
# Without a verb, after a word of inference: "NK shows Servas not wolf", "so Bob wolf.", "confirms Eve human".
TELEGRAPHIC_RE = re.compile(
    rf"\b(?:shows?|showed|means|proves?|proved|so|thus|therefore|hence|confirms?|confirmed)\s+{GROUP}\s+"
    rf"(?P<neg>not\s+)?(?:(?:a|an|the)\s+)?{PRED}(?=\s*(?:[.,!;:?)—–-]|$)|\s+(?:and|but)\b)"
)
# "town-lean: Eve", "wolf reads: Bob and Carol".
READ_LIST_RE = re.compile(
    rf"\b(?P<side>town|village|wolf|scum|mafia)[\s-]*(?:lean|leans|leaning|read|reads)\s*(?::|=|-|—|on|is|are)?"
    rf"\s*{GROUP}"
)
# "As the doctor, I ...", "as a villager, my ...", "speaking as the seer, ..."
AS_ROLE_RE = re.compile(
    r"(?:^|[,(]\s*|\b(?:and|so|but|speaking|well|now|here)\s+)as\s+(?:(?:the|a|an|your)\s+)?(?:(?:real|actual|true|only|"
    r"simple|plain|regular|humble|ordinary|genuine|confirmed)\s+)?(?P<pred>seer|detective|investigator|cop|doctor|"
    r"bodyguard|guard|medium|villager|townie|werewolf|wolf|mafioso|human)(?:\s+myself)?"
    r"(?:\s+(?:on\s+)?(?:the\s+)?(?:first\s+night|last\s+night|night\s+\d|n\d|tonight|today|yesterday))?"
    r"\s*,?\s+(?=i\b|i'|my\b|me\b|let\s+me|let's|we\b)"
)
# "I CO seer", "I'm coming out as the doctor", "I claim seer", "I reveal myself as the seer".
SELF_CO_RE = re.compile(
    r"\bi(?:\s+am|'m)?\s+(?:will\s+)?(?:now\s+)?(?:co|co-ing|coing|come\s+out|coming\s+out|came\s+out|claim|"
    r"claiming|reveal\s+myself|am\s+revealing\s+myself|revealing\s+myself|hereby\s+claim)\s+(?:as\s+|to\s+be\s+)?"
    r"(?:the\s+|a\s+|an\s+)?(?P<pred>seer|detective|investigator|cop|doctor|bodyguard|guard|medium|villager)\b"
)
SELF_CO_WORDS = frozenset("co coing claim claiming reveal revealing came come coming".split())
NO_ROLE_RE = re.compile(
    r"\bi\s+(?:have|had|'ve\s+got|'ve)\s+no\s+(?:special\s+)?(?:role|power|powers|ability|abilities|night\s+action)"
)
# "My role is villager", "my role: seer".
MY_ROLE_RE = re.compile(rf"\bmy\s+(?:real\s+|true\s+|actual\s+)?role\s+(?:is|was|:)\s+(?:(?:a|an|the)\s+)?{PRED}")
# "I trust Bob", "I suspect Eve", "I don't trust them".
# The word before a role used as a label ("the outed wolf Diana", "so-called seer Bob").
LABEL_PRE_RE = re.compile(
    r"\b(?P<pre>the|our|a|an|confirmed|real|true|outed|dead|fake|false|fellow|late|poor|self-proclaimed|so-called|"
    r"alleged|claimed|supposed|suspected|possible|potential|likely|obvious)\s+$"
)
TRUST_RE = re.compile(
    rf"{WORD_I}\s+(?:(?:really|strongly|slightly|somewhat|fully|still|also|now|do|totally|completely|mostly|kinda|"
    rf"kind\s+of|sort\s+of|truly|genuinely|personally|lean\s+to|leaning\s+to|tend\s+to|inclined\s+to|want\s+to)\s+)*"
    rf"(?P<verb>trust|suspect|distrust|mistrust|don't\s+trust|"
    rf"do\s+not\s+trust|vouch\s+for|can\s+vouch\s+for|clear|cleared)\s+(?:both\s+|all\s+of\s+|each\s+of\s+)?{GROUP}"
    rf"(?!\s*'s)(?!\s+(?:is|are|was|were|said|says|when|if|because|to|on|with|about|enough|'s)\b)"
)
SUSPICIOUS_OF_RE = re.compile(
    rf"{WORD_I}(?:'m|\s+am)\s+(?:(?:very|really|a\s+bit|a\s+little|quite|somewhat|most|more|also|still|now|"
    rf"highly|increasingly|getting|growing|becoming)\s+)*suspicious\s+of\s+(?:both\s+)?{GROUP}(?!\s*'s)"
)
# "May was fast and loud—I'm suspicious.": suspicion of the player the clause before was about.
SUSPICIOUS_BARE_RE = re.compile(
    rf"{WORD_I}(?:'m|\s+am)\s+(?:(?:very|really|a\s+bit|a\s+little|quite|somewhat|also|still|now|highly|getting|"
    rf"growing|becoming)\s+)*suspicious(?=\s*(?:[.!;]|$))"
)
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
PROTECT_RE = re.compile(
    rf"\b(?:i|i've|i\s+have|i\s+had|i\s+just|i\s+also|i\s+successfully)\s+(?:(?:just|also|successfully|"
    rf"last\s+night|\w+ly)\s+)?(?:protected|saved|healed|guarded|shielded|defended|was\s+protecting|was\s+guarding|"
    rf"chose\s+to\s+(?:protect|save|guard|heal))\s+{GROUP}"
    rf"|\bmy\s+(?:protection|guard|heal)\s+(?:went\s+to|was\s+on|was)\s+{GROUP.replace('?P<group>', '?P<group2>')}"
)

# What a check showed, after the check: "... and they came up as Mafia", "... — he's the mafioso".
RESULT_RE = re.compile(
    rf"(?P<gap>[^?]{{0,80}}?)(?:\bcame\s+(?:up|back|out)|\bshowed\s+up|\bturned\s+out|\breturned|\bshowed|"
    rf"\bshows|\brevealed|\breveals|\bresult\s+(?:was|is|came\s+back)|\bis|\bwas|\bare|\bwere|'s|:|—|=|,|-|"
    rf"\bas|\bto\s+be|\bfound)"
    rf"\s*(?:as\s+|to\s+be\s+|that\s+)?(?:(?:a|an|the)\s+)?(?P<neg>not\s+)?(?P<pred>{PRED_ALT})\b"
)
# "I divined Benjamin HUMAN (day0) and George HUMAN (day1)": results right after the names.
DIRECT_RESULT_RE = re.compile(rf"\s*(?:=|:|—|-|→|->)?\s*(?P<neg>not\s+)?(?P<pred>{PRED_ALT})\b(?:\s*\([^)]{{0,20}}\))?")
NEXT_RESULT_RE = re.compile(rf"\s*(?:,\s*and|,|\band\b|&|;)?\s*(?P<seat>{SEAT})")
# A role as a reference to its known holder: "the doctor is gone", "the seer's death" (not "the doctor Bob", a label).
ROLE_REFERENCE_RE = re.compile(
    r"\b(?:the|our|one)\s+(?:(?:dead|late|poor|real|confirmed|revealed|former)\s+)?(?P<pred>seer|doctor|detective|bodyguard|medium)"
    r"\b(?!\s*<|'s\s+(?!death|elimination|loss|killing|murder|demise|passing)|\s+(?:claim|claimant|co|role|result))"
)
DEATH_WORDS = frozenset(
    "dead died die dies death killed kill killing murdered eliminated elimination gone lost loss late taken passed "
    "passing demise targeted attacked slain victim losing lose rid".split()
)
# "I retract my earlier Seer claim", "my seer claim was a bluff".
RETRACT_RE = re.compile(
    r"\bi\s+(?:hereby\s+)?(?:retract|withdraw|take\s+back)\s+my\s+(?:\w+\s+)?(?P<pred>seer|detective|doctor|"
    r"bodyguard|medium|villager)\s+(?:claim|co)|\bmy\s+(?:\w+\s+)?(?P<pred2>seer|detective|doctor|bodyguard|medium)"
    r"\s+(?:claim|co)\s+(?:was|is)\s+(?:just\s+|only\s+)?(?:fake|false|a\s+bluff|a\s+lie|a\s+trick)"
)
# "Takumi's seer claim is fake", "Bob's doctor CO is a lie".
FALSE_CLAIM_RE = re.compile(
    rf"(?P<seat>{SEAT})\s*'s\s+(?:(?:fake|false|bogus)\s+)?(?P<pred>seer|detective|doctor|bodyguard|medium|"
    rf"villager|investigator|cop)\s+(?:claim|co|counter-?claim)\s+(?:is|was|'s)\s+(?:(?:clearly|obviously|"
    rf"definitely|now|just)\s+)?(?:fake|false|bogus|a\s+lie|out|debunked|disproven|refuted|wrong|fabricated|"
    rf"made\s+up|a\s+bluff|fiction)"
)
# "given Charlie's role as seer", "Alice's role was the doctor".
ROLE_OF_RE = re.compile(
    rf"(?P<seat>{SEAT})\s*'s\s+(?:(?:true|real|actual|revealed|confirmed)\s+)?role\s+(?:as|was|is|of)\s+"
    rf"(?:(?:a|an|the)\s+)?{PRED}"
)
# "rule out Eve being a doctor", "I see Bob as a wolf", "leaning towards Deepseek as more likely to be a Werewolf".
AS_PREDICATE_RE = re.compile(
    rf"\b(?P<verb>rule\s+out|ruled\s+out|ruling\s+out|see|view|consider|considering|read|reading|lean\s+towards?|"
    rf"leaning\s+towards?|leaning\s+on|peg|pegging|mark|marking|count|counting|treat|treating|trust|with|vote|"
    rf"voting|lynch|lynching|eliminate|execute)\s+{GROUP}\s+"
    rf"(?:as\s+|being\s+|to\s+be\s+)(?:(?:more|most|very|quite|highly|the\s+most)\s+)?(?:likely\s+)?"
    rf"(?:to\s+be\s+)?(?:(?:a|an|the|our)\s+)?(?P<neg>not\s+)?{PRED}"
)

# ---------------------------------------------------------------------------------------- disputed claims
# Someone else's role claim called false: "Alice's claim is false", "your detective claim doesn't add up",
# "Takumi's falsehood", "Bob is lying", "Mio as fake", "you can't have investigated anyone". The role is the one
# named ("X's seer claim") or, failing that, the one X claimed earlier in public (the reader's ``claimed``).
FALSE_STRONG = (
    r"false|fake|bogus|a\s+lie|lies|a\s+fabrication|fabricated|made\s+up|a\s+bluff|untrue|not\s+true|nonsense|"
    r"impossible|wrong|fiction|debunked|disproven|refuted|a\s+fraud|a\s+sham|a\s+fake|a\s+hoax|a\s+lie"
)
FALSE_WEAK = r"off|fishy|dubious|questionable|suspicious|shaky|sus|flimsy|inconsistent|doubtful|hard\s+to\s+believe"
_CLAIM_OWNER = rf"(?:(?P<seat>{SEAT})\s*'s)"
DISPUTED_CLAIM_RE = re.compile(
    rf"{_CLAIM_OWNER}\s+(?:(?:fake|false|bogus|so-called|latest|new|earlier|first|whole|entire|own|sudden)\s+)*"
    rf"(?:(?P<pred>seer|detective|investigator|cop|doctor|bodyguard|medium|villager)\s+)?(?:role\s+)?"
    rf"(?:claim|claims|co|story|counter-?claim)\s+"
    rf"(?:(?P<cop>is|was|'s|seems?|seemed|feels?|felt|looks?|sounds?|must\s+be|has\s+to\s+be)\s+"
    rf"(?:(?:clearly|obviously|definitely|now|just|not\s+only|totally|completely|also|so|very|a\s+bit|kind\s+of|"
    rf"pretty|quite|rather|all|both|simply|absolutely|entirely|likely|probably)\s+)*(?:like\s+)?"
    rf"(?:(?P<strong>{FALSE_STRONG})|(?P<weak>{FALSE_WEAK}))\b"
    rf"|(?:isn't|is\s+not|wasn't|was\s+not)\s+(?:\w+\s+)?(?:true|real|believable|credible|genuine|legit|"
    rf"legitimate|plausible|possible)\b"
    rf")"
)
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
DISPUTE_WORDS = (
    CLAIM_WORDS
    | LIAR_WORDS
    | frozenset("bluffing investigated checked divined inspected investigate check divine".split())
    | FALSE_WORDS
)
# Play called a werewolf's, a hedged accusation of whoever played it: "That's classic wolf play", "his voting
# screams wolf", "feels like wolf teamwork", "that seems wolf-like".
WOLF_PLAY_RE = re.compile(
    r"\b(?:wolf|werewolf|wolves|mafia|scum)(?:-like|\s+like)?\s+(?:play|plays|move|moves|behaviou?r|tactic|tactics|"
    r"strategy|teamwork|logic|energy|vibes?|tell|tells|coordination|bussing|pocketing)\b"
    r"|\b(?:wolf|werewolf|mafia|scum)-like\b|\bscreams?\s+(?:wolf|werewolf|mafia|scum)\b"
    r"|\bsmells?\s+(?:like\s+)?(?:a\s+)?(?:wolf|werewolf|mafia|scum)\b"
)

PLAY_WORDS = frozenset(
    "play plays move moves behavior behaviour tactic tactics strategy teamwork logic energy vibe vibes tell tells "
    "coordination bussing pocketing like screams scream smells smell".split()
)
INFERENCE_WORDS = frozenset("shows show showed means proves prove proved so thus therefore hence confirms confirm "
                            "confirmed".split())

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

# Pronouns.
# (The lookahead on the first letters lets the regex engine skip most positions at once: twice as fast.)
PRONOUN_RE = re.compile(
    r"\b(?=[hsty])(?:(?P<he>he|she)|(?P<him>him|her)(?=\s*(?:[.,!;:?—)-]|$|\s+(?:and|too|more|less|now|either|completely|"
    r"fully|at\s+all|is|are|of|as|for|at|over|most|anymore|yet|though|right|last\s+night|tonight|yesterday|"
    r"on\s+night|first|today)\b))|(?P<poss>his|her|their|your)|(?P<they>they|them)|(?P<you>you))\b"
)
# Whom a sentence addresses: "Bob, ...", "..., Bob.", "@Bob".
LEAD_ADDRESS_RE = re.compile(r"<(\d+)@?>\s*[,:!]")
END_ADDRESS_RE = re.compile(r",\s*<(\d+)@?>\s*[.!?]*\s*$")
AT_ADDRESS_RE = re.compile(r"<(\d+)@>")
# Someone addressed before a "you": "@Bob ...", "Bob, ...", "..., Bob, ...".
ADDRESSED_BEFORE_RE = re.compile(r"<(\d+)@>|(?:^|[,.!;:—]\s*)<(\d+)>\s*[,:!]")
AT_LEAD_RE = re.compile(r"^(?:<\d+@>\s*)+(?=\S)")
SEAT_RE = re.compile(r"<(\d+)@?>")
NAME_SUFFIX_RE = re.compile(r"(<\d+>)-(?:san|chan|kun|sama|dono|sensei)\b")
AT_SEAT_RE = re.compile(r"@\s*<(\d+)>")
STRAY_AT_RE = re.compile(r"@(?!>)")
NOISE_CHARS = '"*_#'
QUOTE_MARK_RE = re.compile(r"'(?:(?!\w)|(?<![\w>]'))")  # a quote mark, not an apostrophe
HONORIFIC_RE = re.compile(r"\b(?:ms|mr|mrs|dr)\.")
SPACES_RE = re.compile(r"[ \t]{2,}|\t")
YOU_RE = re.compile(r"\byou\b")
MID_VOCATIVE_RE = re.compile(r",\s*<(\d+)@?>\s*,")
LEAD_VOCATIVE_RE = re.compile(r"<(\d+)@?>\s+(?!'|is\b|was\b|are\b|and\b|has\b|had\b|'s\b)")
GAP_STOP_RE = re.compile(r"\b(?:vote|but|because|since|if|and\s+i)\b")
LIKE_RE = re.compile(rf"\s*,?\s*(?:just\s+)?like\s+{GROUP}")
AND_RE = re.compile(r"\band\b|&")
SELF_SUBJECT_RE = re.compile(r"\b(?:i|me)\b")
OR_RE = re.compile(r"\bor\b|\beither\b")
CLAUSE_END_RE = re.compile(
    r"\s*(?:[.,!;:—)-]|$|\s*(?:and|but|for|too|now|though|then|right|here|after|because|so|already|anyway)\b)"
)
GROUP_JOIN_RE = re.compile(rf"{SEAT}(?:{JOIN}{SEAT})+")

# Names that are also common words count only when capitalised.
COMMON_WORDS = frozenset(
    "may will mark rose grace hope faith frank bill joy june april august sun art max sage river dawn rich sky ray "
    "amber crystal autumn destiny honey penny sunny summer winter case lane page pat skip chase hunter guard seer "
    "doctor wolf ace bo jack king major miles cash drew gene guy hunter lucky nick rob sandy stone will wolf "
    "you me i he she they them".split()
)
SELF_WORDS = frozenset({"i", "me", "myself"})
MEMO_SIZE = 4096  # statements remembered per extractor
TYPOGRAPHIC_RE = re.compile("[’‘“”＝：`]")
APOSTROPHES = str.maketrans({"’": "'", "‘": "'", "“": '"', "”": '"', "＝": "=", "：": ":", "`": "'"})
WORD_RE = re.compile(r"[a-z]+")
EQUALS_CHARS = frozenset("=:→—–-")
PRED_WORDS = frozenset(w for key in PREDICATES for w in WORD_RE.findall(key)) - {"our", "on", "good", "side", "team"}
LABEL_WORDS = frozenset("seer detective doctor bodyguard medium werewolf wolf mafioso villager human".split())
CHECK_WORDS = frozenset(
    "checked check investigated investigate investigation investigations divined divine divination divinations "
    "inspected inspect inspection examined scanned tested probed peeked looked used chose result results vision "
    "visions findings found reading saw learned learnt discovered".split()
)
PROTECT_WORDS = frozenset(
    "protected protecting protection saved healed heal guarded guarding guard shielded defended".split()
)
TRUST_WORDS = frozenset("trust suspect distrust mistrust vouch clear cleared".split())
# A sentence without any of these holds no claim.
TRIGGER_WORDS = (
    PRED_WORDS
    | CHECK_WORDS
    | PROTECT_WORDS
    | TRUST_WORDS
    | frozenset("co claim claiming claims role lean leans leaning read reads ish good suspicious lying liar "
                "falsehood fake fraud impostor imposter story impossible false untrue nonsense fabricated".split())
)
PRONOUN_WORDS = frozenset("he she him her his their they them you your".split())
SUBJECT_WORDS = PRONOUN_WORDS | frozenset("i my me im".split())


def tokenise(lowered: str, hits: list[tuple[int, int, int]]) -> str:
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
        text = NAME_SUFFIX_RE.sub(r"\1", text)  # "Yumi-san" is Yumi
    if len(text) > 1 and text[0] == '"' and text[-1] == '"' and text.count('"') == 2:
        text = text[1:-1]  # a statement wrapped in quotes
    if '"' in text:
        text = QUOTED_RE.sub(drop_long_quote, text)
    # Quotes, markdown, @-mentions, honorifics.
    for char in NOISE_CHARS:
        if char in text:
            text = text.replace(char, " ")
    if "'" in text:
        text = QUOTE_MARK_RE.sub(" ", text)
    if "." in text and ("ms." in text or "mr" in text or "dr." in text):
        text = HONORIFIC_RE.sub(" ", text)
    if "@" in text:
        # "@Bob" addresses Bob: kept as a mark on the seat token; any other "@" goes.
        text = STRAY_AT_RE.sub(" ", AT_SEAT_RE.sub(r"<\1@>", text))
    return SPACES_RE.sub(" ", text) if "  " in text or "\t" in text else text


QUOTED_RE = re.compile(r'"[^"]*"')


def drop_long_quote(m: re.Match[str]) -> str:
    return " ... " if len(m.group(0).split()) >= 3 else m.group(0)


SENTENCE_RE = re.compile(r"[^.!?;\n]+[.!?]*")


def sentences(text: str) -> list[str]:
    """Sentences, each with its end mark ("?" makes a question); ";" and line breaks end one too."""
    return [s for s in (m.group(0).strip() for m in SENTENCE_RE.finditer(text)) if s.strip(" .!?")]


@lru_cache(maxsize=256)
def predicate(word: str) -> tuple[str, str, bool]:
    return PREDICATES[" ".join(word.split())]


GOVERNING_WORDS = frozenset(
    "of to for with about against by from at on into toward towards over than onto upon without like unlike "
    "defending protecting accusing attacking targeting voting lynching trusting suspecting following pushing "
    "killing eliminating executing exiling questioning supporting blaming framing".split()
)
# Verbs whose object is not what a remark on someone's play is about ("Silent votes against Jonathan", "you voted
# Servas so fast": Jonathan and Servas are not the ones playing).
OBJECT_VERBS = GOVERNING_WORDS | frozenset(
    "vote voted votes accused accuse accuses suspected suspect trusted defended defend attacked attack killed kill "
    "pushed push targeted target questioned blamed framed supported protected protect checked investigated divined "
    "lynched lynch eliminated".split()
)
# "I'm voting Ryuji — staying silent is classic wolf behavior": the speaker's own vote names whom it is about.
OWN_VOTE_RE = re.compile(r"\bi(?:'m|\s+am|\s+will|'ll)?\s+(?:now\s+)?(?:vote|voting)\s+(?:for\s+|on\s+)?<(\d+)")


def topic_seats(sentence: str, speaker: int, object_if_alone: bool = True) -> list[int]:
    """The players a sentence is about: those named, other than as the object of a preposition or verb
    ("Servas kept voting with George": Servas); with ``object_if_alone``, the only player named even as an
    object ("I am voting Victoria. Dodging CO all day feels like a wolf move": Victoria)."""
    named = [(m.start(), int(m.group(1))) for m in SEAT_RE.finditer(sentence)]
    others = [(at, seat) for at, seat in named if seat != speaker]
    voted = {int(x) for x in OWN_VOTE_RE.findall(sentence)}
    subjects = [seat for at, seat in others if seat in voted or not object_of_previous_word(sentence, at, OBJECT_VERBS)]
    if not subjects and object_if_alone and len({seat for _, seat in others}) == 1:
        subjects = [others[0][1]]
    return list(dict.fromkeys(subjects))


def object_of_previous_word(sentence: str, at: int, governing: frozenset[str] = GOVERNING_WORDS) -> bool:
    """The name at ``at`` is the object of the word before it (a preposition or a verb in -ing), not a subject."""
    before = sentence[max(0, at - 24) : at].split()
    return bool(before) and before[-1] in governing


def clause_before(sentence: str, at: int) -> str:
    before = sentence[:at]
    breaks = list(CLAUSE_BREAK_RE.finditer(before))
    return before[breaks[-1].end() :] if breaks else before


def count_negations(text: str) -> int:
    return len(NEGATION_RE.findall(text))


def seats_in(text: str) -> list[int]:
    return [int(x) for x in SEAT_RE.findall(text)]


def subject_seats(subject: str, speaker: int) -> list[int]:
    if "," in subject and not AND_RE.search(subject):
        # "Charlie, Diana is mafia", "Bob, I'm not the wolf": a vocative, then the subject.
        subject = subject.rsplit(",", 1)[1]
    if "@>" in subject and not AND_RE.search(subject):
        # "@Daisuke Servas is confirmed wolf": the player addressed, then the subject.
        subject = AT_LEAD_RE.sub("", subject)
    seats = seats_in(subject)
    if "i" in subject and SELF_SUBJECT_RE.search(subject):
        seats.append(speaker)
    return list(dict.fromkeys(seats))


def disjunction(text: str) -> bool:
    return ("or" in text or "either" in text) and bool(OR_RE.search(text))


def mention_groups(text: str) -> list[tuple[int, ...]]:
    """The players named in ``text``, conjoined names ("A and B") as one group, in order."""
    seats = SEAT_RE.findall(text)
    if len(seats) < 2 or not ("and" in text or "," in text or "&" in text):
        return [(int(x),) for x in dict.fromkeys(seats)]
    groups: list[tuple[int, ...]] = []
    covered: list[tuple[int, int]] = []
    for m in GROUP_JOIN_RE.finditer(text):
        groups.append(tuple(dict.fromkeys(seats_in(m.group(0)))))
        covered.append((m.start(), m.end()))
    for m in SEAT_RE.finditer(text):
        if not any(a <= m.start() < b for a, b in covered):
            groups.append((int(m.group(1)),))
    seen: list[tuple[int, ...]] = []
    for g in groups:
        if g not in seen:
            seen.append(g)
    return seen
