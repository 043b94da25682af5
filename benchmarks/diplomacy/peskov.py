"""Human lies in Diplomacy (Peskov et al. 2020, "It Takes Two to Lie"): the reader and each message's
features that need no fitting.

A data folder holds ``train.jsonl`` and ``validation.jsonl`` (the test split is kept aside and never
read here): one dialog between two players per line, every field a per-message list except
``game_id``. The reader is tolerant: labels may be booleans or strings ("true" / "false", any case;
"NOANNOTATION" or anything else is no label), scores strings or numbers, the score delta named
``game_score_delta`` or ``score_delta``, and any list may be missing or short (its values are then
unknown). **The lie label is the sender's**: ``sender_labels`` false means the sender marked the
message as a lie.

Each message's features read only the message itself and what was said before it in the same game
(messages ordered by ``absolute_message_index``); no label of any message is a feature:

- ``surface``: length, questions, exclamations, capitals, and counts of small hand-written word lists
  (promises and commitment, hedges, first person singular and plural, second person, negation, trust
  and honesty, agreement, moves and orders, and discourse markers in the spirit of Niculae et al.'s
  harbinger lexicon: claims, premises, contingency, comparison, planning);
- ``context``: when (year, season, message index), the dialog so far (is this a reply, the sender's
  run of consecutive messages, the lag since the last message, each side's message counts, the
  sender's usual length in this dialog), the previous message's length, question and words, and the
  sender's relations (partners so far, share of the sender's messages that go to this receiver);
- ``power``: the sender's supply centres, the difference with the receiver, the receiver's, and their
  changes since the sender's previous message in the dialog and since the sender's first message of
  the year before.
"""

from __future__ import annotations

import json
import math
import re
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

SPLITS = ("train", "validation")
TOKEN = re.compile(r"[a-z0-9']+|[?!]")
SEASONS = ("spring", "fall", "winter")

LEXICONS: dict[str, tuple[str, ...]] = {
    "promise": ("promise", "promised", "guarantee", "swear", "commit", "committed", "definitely", "certainly",
                "absolutely", "will", "won't", "never", "always", "word", "deal"),
    "hedge": ("maybe", "perhaps", "might", "possibly", "probably", "likely", "guess", "think", "seems", "unsure",
              "sort", "kind", "hopefully", "could"),
    "first_singular": ("i", "me", "my", "mine", "i'm", "i've", "i'll", "i'd", "myself"),
    "first_plural": ("we", "us", "our", "ours", "we're", "we've", "we'll", "let's"),
    "second": ("you", "your", "yours", "you're", "you've", "you'll", "you'd"),
    "negation": ("no", "not", "don't", "won't", "can't", "didn't", "isn't", "nothing", "nobody", "neither"),
    "trust": ("trust", "honest", "honestly", "truth", "true", "lie", "lying", "betray", "betrayal", "believe",
              "faith", "loyal", "backstab", "stab", "genuinely", "sincerely"),
    "agree": ("yes", "yeah", "ok", "okay", "sure", "agreed", "agree", "sounds", "good", "great", "perfect"),
    "orders": ("support", "supports", "attack", "move", "moves", "convoy", "hold", "bounce", "dmz", "take",
               "army", "fleet", "build", "retreat", "center", "centers"),
    "claim": ("clearly", "obviously", "really", "actually", "fact", "sure", "believe", "know"),
    "premise": ("because", "since", "given", "as", "so", "therefore", "reason"),
    "contingency": ("if", "unless", "then", "otherwise", "whether"),
    "comparison": ("but", "however", "although", "though", "while", "instead", "rather"),
    "planning": ("next", "turn", "later", "plan", "planning", "going", "soon", "after", "before", "first"),
    "polite": ("please", "thanks", "thank", "sorry", "appreciate", "glad"),
}  # fmt: skip


@dataclass
class Message:
    """One message, with its sender's label (``lie``: True, False, or None when unlabelled)."""

    game: str
    dialog: str
    speaker: str
    receiver: str
    text: str
    lie: bool | None
    suspected: bool | None = None  # the receiver's label, read but never a feature
    game_score: float | None = None
    score_delta: float | None = None
    absolute_index: int = 0
    relative_index: int = 0
    season: str = ""
    year: int | None = None
    tokens: list[str] = field(default_factory=list)
    prev_tokens: list[str] = field(default_factory=list)  # the previous message of the dialog, either side
    surface: dict[str, float] = field(default_factory=dict)
    context: dict[str, float] = field(default_factory=dict)
    power: dict[str, float] = field(default_factory=dict)


def truth_value(value: Any) -> bool | None:
    """True / False from a boolean or a string ("true", "False"); None for anything else."""
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.strip().lower() in ("true", "false"):
        return value.strip().lower() == "true"
    return None


def _number(value: Any) -> float | None:
    if isinstance(value, bool) or value is None:
        return None
    try:
        number = float(value)
    except (TypeError, ValueError):
        return None
    return number if math.isfinite(number) else None


def _at(values: Any, k: int) -> Any:
    return values[k] if isinstance(values, list) and k < len(values) else None


def read_dialogs(path: str | Path, split: str = "") -> list[Message]:
    """Every message of a jsonl file of dialogs (blank and unreadable lines are skipped)."""
    out: list[Message] = []
    lines = Path(path).read_text(encoding="utf-8").splitlines()
    for line_no, line in enumerate(lines):
        try:
            dialog = json.loads(line) if line.strip() else None
        except json.JSONDecodeError:
            continue
        if not isinstance(dialog, dict) or not isinstance(dialog.get("messages"), list):
            continue
        game = str(dialog.get("game_id", f"{split or Path(path).stem}-{line_no}"))
        players = [str(p).lower() for p in dialog.get("players") or []]
        delta = dialog.get("game_score_delta", dialog.get("score_delta"))
        for k, text in enumerate(dialog["messages"]):
            speaker = str(_at(dialog.get("speakers"), k) or "").lower()
            receiver = str(_at(dialog.get("receivers"), k) or "").lower()
            if not receiver and len(players) == 2 and speaker in players:
                receiver = players[1 - players.index(speaker)]
            year = _number(_at(dialog.get("years"), k))
            absolute = _number(_at(dialog.get("absolute_message_index"), k))
            relative = _number(_at(dialog.get("relative_message_index"), k))
            out.append(
                Message(
                    game=game,
                    dialog=f"{split}:{line_no}",
                    speaker=speaker,
                    receiver=receiver,
                    text=text if isinstance(text, str) else "",
                    lie=_lie(_at(dialog.get("sender_labels"), k)),
                    suspected=_lie(_at(dialog.get("receiver_labels"), k)),
                    game_score=_number(_at(dialog.get("game_score"), k)),
                    score_delta=_number(_at(delta, k)),
                    absolute_index=int(absolute) if absolute is not None else k,
                    relative_index=int(relative) if relative is not None else k,
                    season=str(_at(dialog.get("seasons"), k) or "").lower(),
                    year=int(year) if year is not None else None,
                )
            )
    return out


def _lie(label: Any) -> bool | None:
    truthful = truth_value(label)
    return None if truthful is None else not truthful


def read_split(data_dir: str | Path, split: str) -> list[Message]:
    """A split's messages with their features (``split`` is "train" or "validation"; never "test")."""
    if split not in SPLITS:
        raise ValueError(f"unknown split {split!r} (this reader knows {', '.join(SPLITS)})")
    path = Path(data_dir) / f"{split}.jsonl"
    if not path.is_file():
        raise ValueError(f"no {path}")
    messages = read_dialogs(path, split)
    add_features(messages)
    return messages


def tokens(text: str) -> list[str]:
    return TOKEN.findall(text.lower().replace("’", "'"))


def surface_features(text: str, words: list[str]) -> dict[str, float]:
    alpha = [w for w in re.findall(r"[A-Za-z]+", text) if len(w) > 1]
    counts: dict[str, float] = {
        "log_chars": math.log1p(len(text)), "log_words": math.log1p(len(words)),
        "sentences": math.log1p(len(re.findall(r"[.!?]+(\s|$)", text))),
        "questions": math.log1p(text.count("?")), "exclamations": math.log1p(text.count("!")),
        "paragraphs": math.log1p(text.count("\n")),
        "capitals": sum(w.isupper() for w in alpha) / len(alpha) if alpha else 0.0,
        "non_ascii": sum(ord(c) > 127 for c in text) / len(text) if text else 0.0,
        "digits": math.log1p(sum(c.isdigit() for c in text)),
    }  # fmt: skip
    bag: dict[str, int] = defaultdict(int)
    for w in words:
        bag[w] += 1
    for name, lexicon in LEXICONS.items():
        hits = sum(bag[w] for w in lexicon)
        counts[f"lex_{name}"] = math.log1p(hits)
        counts[f"share_{name}"] = hits / len(words) if words else 0.0
    return counts


def add_features(messages: list[Message]) -> None:
    """Fill each message's tokens and surface, context and power features (in place; past only)."""
    by_game: dict[str, list[Message]] = defaultdict(list)
    for m in messages:
        by_game[m.game].append(m)
    for game in by_game.values():
        game.sort(key=lambda m: (m.absolute_index, m.dialog, m.relative_index))
        first_year = min((m.year for m in game if m.year is not None), default=1901)
        last_in_dialog: dict[str, Message] = {}
        run: dict[str, int] = defaultdict(int)
        said: dict[tuple[str, str], int] = defaultdict(int)  # (dialog, speaker) -> messages so far
        length_sum: dict[tuple[str, str], float] = defaultdict(float)
        sent: dict[str, int] = defaultdict(int)
        sent_to: dict[tuple[str, str], int] = defaultdict(int)
        partners: dict[str, set[str]] = defaultdict(set)
        last_sent_at: dict[str, int] = {}
        own_prev: dict[tuple[str, str], Message] = {}  # (dialog, speaker) -> the sender's previous message there
        year_start: dict[tuple[str, int], float | None] = {}  # (speaker, year) -> score at their first message
        said_in_game = 0
        for m in game:
            m.tokens = tokens(m.text)
            m.surface = surface_features(m.text, m.tokens)
            prev = last_in_dialog.get(m.dialog)
            m.prev_tokens = prev.tokens if prev is not None else []
            key = (m.dialog, m.speaker)
            other = (m.dialog, m.receiver)
            mine, theirs = said[key], said[other]
            season = [float(m.season == s) for s in SEASONS]
            m.context = {
                "year": float((m.year or first_year) - first_year), "spring": season[0], "fall": season[1],
                "winter": season[2], "log_relative_index": math.log1p(m.relative_index),
                "log_absolute_index": math.log1p(m.absolute_index), "first_in_dialog": float(prev is None),
                "is_reply": float(prev is not None and prev.speaker != m.speaker),
                "log_run": math.log1p(run[m.dialog] if prev is not None and prev.speaker == m.speaker else 0),
                "log_lag": math.log1p(max(0, m.absolute_index - prev.absolute_index)) if prev is not None else 0.0,
                "log_lag_sender": math.log1p(max(0, m.absolute_index - last_sent_at[m.speaker]))
                if m.speaker in last_sent_at else 0.0,
                "log_said": math.log1p(mine), "log_heard": math.log1p(theirs),
                "share_said": (mine + 1) / (mine + theirs + 2),
                "length_vs_usual": m.surface["log_chars"] - length_sum[key] / mine if mine else 0.0,
                "prev_log_chars": prev.surface["log_chars"] if prev is not None else 0.0,
                "prev_questions": prev.surface["questions"] if prev is not None else 0.0,
                "prev_trust": prev.surface["lex_trust"] if prev is not None else 0.0,
                "prev_promise": prev.surface["lex_promise"] if prev is not None else 0.0,
                "length_vs_prev": m.surface["log_chars"] - prev.surface["log_chars"] if prev is not None else 0.0,
                "log_partners": math.log1p(len(partners[m.speaker] | {m.receiver})),
                "share_to_receiver": (sent_to[(m.speaker, m.receiver)] + 1) / (sent[m.speaker] + 2),
                "log_sent": math.log1p(sent[m.speaker]),
                # How much of the game's talk so far comes from the sender and from the receiver.
                "sender_share_game": (sent[m.speaker] + 1) / (said_in_game + 7),
                "receiver_share_game": (sent[m.receiver] + 1) / (said_in_game + 7),
            }  # fmt: skip
            m.power = _power(m, own_prev.get(key), year_start)
            if m.year is not None and m.game_score is not None:
                year_start.setdefault((m.speaker, m.year), m.game_score)
            run[m.dialog] = run[m.dialog] + 1 if prev is not None and prev.speaker == m.speaker else 1
            last_in_dialog[m.dialog] = m
            own_prev[key] = m
            said[key] += 1
            length_sum[key] += m.surface["log_chars"]
            sent[m.speaker] += 1
            sent_to[(m.speaker, m.receiver)] += 1
            partners[m.speaker].add(m.receiver)
            last_sent_at[m.speaker] = m.absolute_index
            said_in_game += 1


def _power(m: Message, before: Message | None, year_start: dict[tuple[str, int], float | None]) -> dict[str, float]:
    score, delta = m.game_score, m.score_delta
    receiver = score - delta if score is not None and delta is not None else None
    last_year = year_start.get((m.speaker, m.year - 1)) if m.year is not None else None

    def change(now: float | None, then: float | None) -> float:
        return now - then if now is not None and then is not None else 0.0

    return {
        "score": score or 0.0,
        "delta": delta or 0.0,
        "receiver_score": receiver or 0.0,
        "abs_delta": abs(delta or 0.0),
        "stronger": float((delta or 0.0) > 0),
        "weaker": float((delta or 0.0) < 0),
        "score_missing": float(score is None),
        "delta_missing": float(delta is None),
        "score_change": change(score, before.game_score if before else None),
        "delta_change": change(delta, before.score_delta if before else None),
        "score_change_year": change(score, last_year),
        "score_share": (score or 0.0) / 18.0,
    }
