"""The claim reader's patterns of roles and teams: "Bob is a wolf", "I am the seer", "Seer Ryuji", "the wolf is Bob".

Statements are read lowercased, with names as seat tokens ``<i>`` (``<i@>`` when "@"-addressed;
``claim_tokens``). What each pattern reads, with examples, is said beside it; the reading order and the
rules that drop or hedge a match are in ``claim_reader`` and ``claim_context``. The patterns that name roles
are built from one ruleset's words (``claim_words.lexicon``) by ``role_patterns``; ``vocabulary(ruleset)``
gathers them with those of ``claim_night``, ``claim_disputes`` and ``claim_reads`` into one immutable value,
built once per ruleset, which the reader passes around (no module attribute changes after import). Night
results are in ``claim_night``, disputed claims in ``claim_disputes``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from werewolf_env.claims import disputes as cd
from werewolf_env.claims import night as cn
from werewolf_env.claims import reads as cr
from werewolf_env.claims.tokens import GROUP, SEAT, SUBJECT, WORD_I
from werewolf_env.claims.words import Lexicon, lexicon
from werewolf_env.core import DEFAULT_RULESET, Ruleset

# A role word used as something else: "the seer's target", "a seer claim", "wolf hunter".
NOT_A_LABEL = (
    r"(?!-)(?!'s\b|'\s)(?!\s+(?:claim|claims|claimant|claimants|claimer|claiming|candidate|candidates|target|"
    r"targets|killer|killers|hunter|hunters|role|roles|result|results|check|checks|power|powers|ability|vote|"
    r"votes|kill|kills|card|co\b|slot|count|chat|night|talk|behaviou?r|logic|strategy|play|move|tactics?|"
    r"perspective|pov|win|wins|meta|reads?|leans?|lean|side|team|pack|would|will|can|could|might|wants|needs|"
    r"tried|did|said|says|has|had|killed|attacked|died|who|that|which)\b)"
)
# Copulas, with the hedge or negation they carry.
COPULA = (
    r"(?P<cop>\s*'s|\s*'re|\s*'m|\s+(?:is|are|was|were|am)(?:\s+(?:also|still|now|both|all|then))?"
    r"(?:\s+(?:not|n't))?|\s*(?:isn't|aren't|wasn't|weren't|ain't)"
    r"|\s+(?:must|has\s+to|have\s+to|had\s+to|could|might|may|should|can't|cannot|couldn't|mustn't|"
    r"might\s+not|may\s+not|must\s+not)\s+(?:also\s+|both\s+|all\s+)?(?:have\s+)?be(?:en)?"
    r"|\s+(?:seems?|seemed|appears?|looks?|feels?|sounds?)(?:\s+(?:to\s+be|like))?"
    r"|\s+(?:strikes?\s+me|struck\s+me|reads?|comes?\s+(?:across|off)|came\s+(?:across|off))\s+as"
    r"|\s+(?:remains?|stays?)|\s+to\s+be|\s+(?:turned|turns|turning)\s+out\s+to\s+be|\s+(?:flipped|flips|died)(?:\s+as)?"
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
    "humble mere innocent 100% for sure a-ok legit legitimate certified confirmed- forced"
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
# Words that make a label a read ("Dee (slight wolf)"): never taken as a label's adjective.
_READ_QUALIFIERS = r"(?:slight|light|lean|leaning|soft|mild|weak|strong|possible|probable|likely|suspected|potential)\b"
_AFTER_ARTICLE = r"(?:(?<=\ba)|(?<=\ban)|(?<=\bthe)|(?<=\bour)|(?<=\byour))"
# After the role word of a label: not "Seer Bob's claim".
_LABEL_END = r"(?!\s*'s\s+(?:claim|co))"
SUBJECT_AFTER_PRE = frozenset("the our one a".split())
SELF_CO_WORDS = frozenset("co coing claim claiming reveal revealing came come coming".split())
NO_ROLE_RE = re.compile(
    r"\bi\s+(?:have|had|'ve\s+got|'ve)\s+no\s+(?:special\s+)?(?:role|power|powers|ability|abilities|night\s+action)"
)
# The word before a role used as a label ("the outed wolf Diana", "so-called seer Bob").
LABEL_PRE_RE = re.compile(
    r"\b(?P<pre>the|our|a|an|confirmed|real|true|outed|dead|fake|false|fellow|late|poor|self-proclaimed|so-called|"
    r"alleged|claimed|supposed|suspected|possible|potential|likely|obvious)\s+$"
)
# The words before a role that say whose play is meant, not who holds it: "the play of a real villager".
PLAY_OF_RE = re.compile(
    r"\b(?:play|move|moves|behaviou?r|logic|instincts?|mindset|tactics?)\s+of\s+(?:an?|the)\s+(?:[a-z]+\s+)?$"
)
# "I trust Bob", "I suspect Eve", "I don't trust them".
TRUST_RE = re.compile(
    rf"{WORD_I}(?:'m|\s+am)?\s+(?:(?:really|strongly|slightly|somewhat|fully|still|also|now|do|totally|completely|"
    rf"mostly|kinda|kind\s+of|sort\s+of|truly|genuinely|personally|lean\s+to|leaning\s+to|tend\s+to|inclined\s+to|"
    rf"want\s+to|"
    rf"[a-z]+ly)\s+)*"
    rf"(?P<verb>trust|suspect|distrust|mistrust|don't\s+trust|"
    rf"do\s+not\s+trust|vouch\s+for|can\s+vouch\s+for|clear|cleared)\s+(?:both\s+|all\s+of\s+|each\s+of\s+)?{GROUP}"
    rf"(?!\s*'s)(?!\s+(?:is|are|was|were|said|says|when|if|because|to|on|with|about|enough|'s)\b)"
)
SUSPICIOUS_OF_RE = re.compile(
    rf"{WORD_I}(?:'m|\s+am|\s+was|'ve\s+been|\s+have\s+been|\s+remain|\s+stay)\s+(?:(?:very|really|a\s+bit|"
    rf"a\s+little|quite|somewhat|most|more|also|still|now|highly|increasingly|getting|growing|becoming|[a-z]+ly)\s+)*"
    rf"suspicious\s+of\s+(?:both\s+)?{GROUP}(?!\s*'s)"
)
# "May was fast and loud—I'm suspicious.": suspicion of the player the clause before was about.
SUSPICIOUS_BARE_RE = re.compile(
    rf"{WORD_I}(?:'m|\s+am)\s+(?:(?:very|really|a\s+bit|a\s+little|quite|somewhat|also|still|now|highly|getting|"
    rf"growing|becoming)\s+)*suspicious(?=\s*(?:[.!;]|$))"
)
DEATH_WORDS = frozenset(
    "dead died die dies death killed kill killing murdered eliminated elimination gone lost loss late taken passed "
    "passing demise targeted attacked slain victim losing lose rid".split()
)
INFERENCE_WORDS = frozenset(
    "shows show showed means proves prove proved so thus therefore hence confirms confirm confirmed".split()
)
EQUALS_CHARS = frozenset("=:→—–-")
TRUST_WORDS = frozenset("trust suspect distrust mistrust vouch clear cleared".split())
# "town-lean: Eve", "wolf reads: Bob and Carol".
READ_LIST_RE = re.compile(
    rf"\b(?P<side>town|village|wolf|scum|mafia)[\s-]*(?:lean|leans|leaning|read|reads)\s*(?:(?:is|are|remains?)\s+on|"
    rf":|=|-|—|on|is|are)?"
    rf"\s*{GROUP}"
)
# A sentence without any of these holds no claim (with the role words: ``TRIGGER_WORDS``).
_TRIGGERS = (
    cn.CHECK_WORDS
    | cn.PROTECT_WORDS
    | cn.POISON_WORDS
    | TRUST_WORDS
    | cr.READ_WORDS
    | cd.TACTIC_WORDS
    | frozenset(
        "co claim claiming claims role lean leans leaning read reads ish good suspicious lying liar "
        "falsehood fake fraud impostor imposter story impossible false untrue nonsense fabricated".split()
    )
)

# ---------------------------------------------------------------------------------------- built from the roles


@dataclass(frozen=True, slots=True)
class RolePatterns:
    """The patterns of roles and teams that name a ruleset's role words (``role_patterns``)."""

    pred: str  # a role or team word, not used as something else ("a seer claim", "a seer or a doctor")
    # "Bob is a wolf", "I'm the seer", "Eve and Dan are not wolves", "George is the big bad wolf"
    claim_re: re.Pattern[str]
    label_before_re: re.Pattern[str]  # "Seer Ryuji", "the outed wolf Diana", "our seer Bob", "fake seer Takumi"
    label_after_re: re.Pattern[str]  # "Sonnet, the Doctor, is dead", "Bob (the seer)", "Eve (wolf)"
    subject_after_re: re.Pattern[str]  # "the wolf is Bob", "our seer was Eve", "the last wolves are A and B"
    equals_re: re.Pattern[str]  # "Bob = Human", "N1: Eve=Werewolf", "Dan: wolf", "checked Dan — clean"
    telegraphic_re: re.Pattern[str]  # after a word of inference: "NK shows Servas not wolf", "so Bob wolf."
    as_role_re: re.Pattern[str]  # "As the doctor, I ...", "as a villager, my ...", "as the hunter, if you exile me ..."
    self_co_re: re.Pattern[str]  # "I CO seer", "I'm coming out as the doctor", "I reveal myself as the seer"
    my_role_re: re.Pattern[str]  # "My role is villager", "my role: seer"
    role_reference_re: re.Pattern[str]  # a role as its known holder: "the doctor is gone", "the seer's death"
    role_of_re: re.Pattern[str]  # "given Charlie's role as seer", "Alice's role was the doctor"
    as_predicate_re: re.Pattern[str]  # "rule out Eve being a doctor", "I see Bob as a wolf"
    trigger_words: frozenset[str]  # a sentence without one of these holds no claim


def role_patterns(words: Lexicon) -> RolePatterns:
    """The patterns of roles and teams of one ruleset's words."""
    pred_alt, labels = words.pred_alt, words.label_alt
    pred = rf"(?P<pred>{pred_alt})(?!\w){NOT_A_LABEL}(?!\s+or\b|\s*/)"
    role_ends_clause = (
        rf"(?=\s+(?:{pred_alt})(?!\w)\s*(?:[.,!;:?)—–-]|$|(?:and|but|for\s+sure|too|here|though|then|after\s+all)\b))"
    )
    # A role word is no adjective of another ("I'm a wolf hunter").
    adjective = rf"(?!(?:{pred_alt})\b){_ADJECTIVE}"
    return RolePatterns(
        pred=pred,
        claim_re=re.compile(
            rf"{SUBJECT}(?P<adv>\s+(?:likely|probably|possibly|definitely|clearly|surely|obviously|certainly|actually|"
            rf"really|also|still|both|all))?{COPULA}{MODIFIERS}(?P<adj>{_AFTER_ARTICLE}(?:\s+{adjective}){{1,2}}?{role_ends_clause})?\s+{pred}"
        ),
        label_before_re=re.compile(
            rf"\b(?P<pred>{labels})"
            rf"(?:\s+(?P<seat>{SEAT})|\s*,\s*(?P<seat2>{SEAT})(?=\s*(?:[,.!;:—]|$))){_LABEL_END}"
        ),
        label_after_re=re.compile(
            rf"(?P<seat>{SEAT})\s*(?:,\s*(?:the|our|a|an|another)\s+|\(\s*(?:the\s+|a\s+|our\s+|another\s+)?)"
            rf"(?P<mods>(?:(?:real|confirmed|outed|dead|fake|late)\s+)?)(?:(?!{labels}|human|{_READ_QUALIFIERS})[a-z-]+\s+)?"
            rf"(?P<pred>{labels}|human)\s*(?:,|\)|[.!;:]|\s-\s|$)"
        ),
        subject_after_re=re.compile(
            rf"\b(?=[toa])(?P<pre>the|our|one|a)\s+(?:(?:real|true|last|remaining|other|second|only|actual|lone|fake|"
            rf"confirmed)\s+)?(?P<pred>{words.subject_after_alt})(?:\s+(?:member|player))?\s+(?P<cop>is|are|was|were|"
            rf"must\s+be|has\s+to\s+be|have\s+to\s+be|could\s+be|might\s+be|is\s+probably|is\s+likely|is\s+definitely|"
            rf"is\s+clearly|is\s+not|isn't)\s+(?P<either>either\s+)?{GROUP}"
        ),
        equals_re=re.compile(
            rf"(?=[<nd])(?P<night>\b(?:n|night|d|day)\s*\d+\s*[:：]?\s*)?(?P<seat>{SEAT})(?:\s*\([^)]{{0,20}}\))?\s*"
            rf"(?:=|:|→|->|—|–|\s-\s)\s*(?:(?:a|an|the)\s+)?(?P<neg>not\s+)?{pred}"
            r"(?=\s*(?:$|[^\w\s']|<|(?:and|but|so|too|also|then|for|confirmed|i|n\d|d\d|day|night|today|tonight|yesterday|"
            r"last)\b))"
        ),
        telegraphic_re=re.compile(
            rf"\b(?:shows?|showed|means|proves?|proved|so|thus|therefore|hence|confirms?|confirmed)\s+{GROUP}\s+"
            rf"(?P<neg>not\s+)?(?:(?:a|an|the)\s+)?{pred}(?=\s*(?:[.,!;:?)—–-]|$)|\s+(?:and|but)\b)"
        ),
        as_role_re=re.compile(
            r"(?:^|[,(]\s*|\b(?:and|so|but|speaking|well|now|here)\s+)as\s+(?:(?:the|a|an|your)\s+)?(?:(?:real|actual|"
            rf"true|only|simple|plain|regular|humble|ordinary|genuine|confirmed)\s+)?(?P<pred>{labels}|guard|human)"
            r"(?:\s+myself)?(?:\s+(?:on\s+)?(?:the\s+)?(?:first\s+night|last\s+night|night\s+\d|n\d|tonight|today|"
            r"yesterday))?\s*,?\s+(?=i\b|i'|my\b|me\b|let\s+me|let's|we\b|if\b|when\b|once\b|should\b|exile|vote|lynch|kill)"
        ),
        self_co_re=re.compile(
            r"\bi(?:\s+am|'m)?\s+(?:will\s+)?(?:now\s+)?(?:co|co-ing|coing|come\s+out|coming\s+out|came\s+out|claim|"
            r"claiming|reveal\s+myself|am\s+revealing\s+myself|revealing\s+myself|hereby\s+claim)\s+(?:as\s+|to\s+be\s+)?"
            rf"(?:the\s+|a\s+|an\s+)?(?P<pred>{words.claimable_alt})\b"
        ),
        my_role_re=re.compile(
            rf"\bmy\s+(?:real\s+|true\s+|actual\s+)?role\s+(?:is|was|:)\s+(?:(?:a|an|the)\s+)?{pred}"
        ),
        role_reference_re=re.compile(
            r"\b(?:the|our|one)\s+(?:(?:dead|late|poor|real|confirmed|revealed|former)\s+)?"
            rf"(?P<pred>{words.unique_alt})"
            r"\b(?!\s*<|'s\s+(?!death|elimination|loss|killing|murder|demise|passing)|\s+(?:claim|claimant|co|role|result))"
        ),
        role_of_re=re.compile(
            rf"(?P<seat>{SEAT})\s*'s\s+(?:(?:true|real|actual|revealed|confirmed)\s+)?role\s+(?:as|was|is|of)\s+"
            rf"(?:(?:a|an|the)\s+)?{pred}"
        ),
        as_predicate_re=re.compile(
            rf"\b(?P<verb>rule\s+out|ruled\s+out|ruling\s+out|see|view|consider|considering|read|reading|lean\s+towards?|"
            rf"leaning\s+towards?|leaning\s+on|peg|pegging|mark|marking|count|counting|treat|treating|trust|with|vote|"
            rf"voting|lynch|lynching|eliminate|execute)\s+{GROUP}\s+"
            rf"(?:as\s+|being\s+|to\s+be\s+)(?:(?:more|most|very|quite|highly|the\s+most)\s+)?(?:likely\s+)?"
            rf"(?:to\s+be\s+)?(?:(?:a|an|the|our)\s+)?(?P<neg>not\s+)?{pred}"
        ),
        trigger_words=words.pred_words | _TRIGGERS,
    )


@dataclass(frozen=True, slots=True)
class Vocabulary:
    """Everything the claim reader reads with that depends on the roles: one ruleset's word tables and the
    patterns built from them, one immutable value per ruleset (``vocabulary``), passed to every pattern function."""

    words: Lexicon
    roles: RolePatterns
    night: cn.NightPatterns
    disputes: cd.DisputePatterns
    reads: cr.ReadPatterns


@lru_cache(maxsize=32)
def vocabulary(ruleset: Ruleset = DEFAULT_RULESET) -> Vocabulary:
    """The claim reader's vocabulary of ``ruleset``, built the first time it is asked for (cached by ruleset)."""
    words = lexicon(ruleset)
    return Vocabulary(
        words=words,
        roles=role_patterns(words),
        night=cn.night_patterns(words),
        disputes=cd.dispute_patterns(words),
        reads=cr.read_patterns(words),
    )
