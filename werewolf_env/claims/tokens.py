"""Text utilities of the claim reader: tokenising, sentences, seats, pronouns and whom a sentence addresses.

Statements are read lowercased, with names as seat tokens ``<i>`` (``<i@>`` when "@"-addressed): every
pattern of ``claim_patterns``, ``claim_night`` and ``claim_disputes`` works on that form and is built from the
fragments here (``SEAT``, ``SUBJECT``, ``GROUP``). Nothing here names a role (``claim_words`` holds those).
"""

from __future__ import annotations

import re

SEAT = r"<\d+@?>"
WORD_I = r"i(?<![\w']i)\b"  # "I" as a word; written to start with its letter, which lets the regex engine skip ahead
JOIN = r"(?:\s*(?:,\s*and|,|\band\b|&)\s*|\s+)"  # "A, B and C"; "A  B  and C" (logs that lost commas)
SUBJECT = rf"(?P<subj>(?:{SEAT}|{WORD_I})(?:{JOIN}(?:{SEAT}|\bi\b|\bme\b))*)"
GROUP = rf"(?P<group>{SEAT}(?:{JOIN}{SEAT})*)"

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

# Numbered players: names like "player_4", and the ways models write them ("Player 4", "player4", "players 5
# and 6", "Player_6, 7, 8, and 9"); a number followed by a unit ("2 days") is no player.
NUMBERED_NAME_RE = re.compile(r"player_(\d{1,3})")
_NOT_A_PLAYER_NUMBER = r"(?!\s*(?:days?|nights?|votes?|rounds?|players?|times?|turns?|of\b|%|th\b|st\b|nd\b|rd\b))"
NUMBERED_MENTION_RE = re.compile(
    rf"\bplayers?[\s_-]*\d{{1,3}}\b{_NOT_A_PLAYER_NUMBER}"
    rf"(?:\s*(?:,\s*(?:and|or)|,|\band\b|\bor\b|&|/)\s*(?:players?[\s_-]*)?\d{{1,3}}\b{_NOT_A_PLAYER_NUMBER})*",
    re.IGNORECASE,
)
PLAYER_WORD_RE = re.compile(r"\bplayers?[\s_-]*(?=\d)", re.IGNORECASE)
NUMBER_RE = re.compile(r"\d{1,3}")
# Where a pronoun's clause starts: a dash, a semicolon or colon, or "but" / "so" (not a comma: "Bob, Eve and
# Dan voted, so they ..." names the group before it).
PRONOUN_CLAUSE_BREAK_RE = re.compile(r"\s-\s|[;:]|\b(?:but|so|because|since|while|whereas)\b")
SELF_WORDS = frozenset({"i", "me", "myself"})
MEMO_SIZE = 4096  # statements remembered per extractor
# Typographic punctuation read as its ASCII form before anything else: quotes and apostrophes, every hyphen,
# dash and minus sign ("town\u2011lean", "Vik \u2212"), non-breaking and thin spaces, full-width = and :.
TYPOGRAPHIC = {
    "\u2018": "'", "\u2019": "'", "\u201a": "'", "\u201b": "'", "\u2032": "'", "`": "'",
    "\u201c": '"', "\u201d": '"', "\u201e": '"', "\u00ab": '"', "\u00bb": '"',
    "\u2010": "-", "\u2011": "-", "\u2012": "-", "\u2013": "-", "\u2212": "-", "\u2014": " - ", "\u2015": " - ",
    "\u00a0": " ", "\u2007": " ", "\u202f": " ", "\u2009": " ", "\u200b": "", "\u2026": "...",
    "\uff1d": "=", "\uff1a": ":",
}  # fmt: skip
TYPOGRAPHIC_RE = re.compile("[" + re.escape("".join(TYPOGRAPHIC)) + "]")
APOSTROPHES = str.maketrans(TYPOGRAPHIC)


def normalise(text: str) -> str:
    """``text`` with its typographic punctuation in ASCII form (unchanged, and not copied, when it has none)."""
    return text.translate(APOSTROPHES) if TYPOGRAPHIC_RE.search(text) else text


WORD_RE = re.compile(r"[a-z]+")
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
