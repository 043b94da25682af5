"""The one parser that turns anything a policy sends into a legal action.

Policies answer with one JSON object (a dict, or a string holding one) whose keys depend on the
action kind (see ``action_models.ACTION_MODELS``). ``parse`` never raises: every field that is missing, of the
wrong type, out of range or illegal (a dead, unknown or forbidden target) is replaced by a
conservative fallback, and a reason per replaced field is returned so it can go into ``info`` and
the log. Unknown keys are ignored. Any action may add ``"notes"``: private text for the player's
own scratchpad.

Any value is read (``json_input``): bytes as UTF-8 text (a repair), values JSON cannot hold (NaN,
objects, self-containing or absurdly deep containers) as a fallback of their field. Names are matched
by ``names.name_key``. Texts are capped: statements by ``GameConfig.max_statement_words`` and
``statement_char_limit`` (text without spaces, or one giant word, has no word limit), reasoning, notes
and summaries by the limits below; each cut is recorded.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from pydantic import ValidationError

from werewolf_env.actions.formats import answer_format, echoes_template, placeholder_reason
from werewolf_env.actions.models import DeceptionType
from werewolf_env.actions.specs import (
    ACTION_MODELS,
    ACTION_SPECS,
    BULK_LEGAL,
    FALLBACK_FIELDS,
    KINDS_WITH_TARGETS,
    TARGET_KEYS,
)
from werewolf_env.claims import SELF_WORDS, extractor_for, normalize_claims
from werewolf_env.core import (
    BYTES_KEY,
    BYTES_REPAIR,
    UNSUPPORTED_KEY,
    ActionKind,
    GameState,
    Turn,
    as_object,
    marker_reason,
    marker_text,
    name_key,
    short_repr,
    to_jsonable,
)

__all__ = [  # answer_format, echoes_template, placeholder_reason, as_object, to_jsonable: imported from here
    "ACTION_MODELS", "NO_TARGET_WORDS", "ParseResult", "UnknownPlayerError", "answer_format", "as_object",
    "echoes_template", "legal_targets", "parse", "placeholder_reason", "resolve_target", "resolver", "to_jsonable",
]  # fmt: skip

MAX_NOTE_CHARS = 2000
MAX_REASONING_CHARS = 1000
MAX_SUMMARY_WORDS = 300
MAX_SUMMARY_CHARS = 3000  # 10 per word: the word limit alone lets one giant word (or text without spaces) through


@dataclass(slots=True)
class ParseResult:
    """The action the engine applies (players as seats) and why any part of it was replaced."""

    kind: ActionKind
    action: dict[str, Any]
    fallbacks: list[str] = field(default_factory=list)
    repairs: list[str] = field(default_factory=list)  # tolerated oddities that changed nothing


def resolver(state: GameState) -> Callable[[Any], int | None]:
    """``resolve(name)``: the seat of a player's name or agent id (compared by ``name_key``), else None."""
    extractor = extractor_for(state.names, state.config.ruleset)

    def resolve(name: Any) -> int | None:
        if not isinstance(name, str):
            return None
        return extractor.seat(name)

    return resolve


def legal_targets(state: GameState, turn: Turn) -> list[int]:
    """Seats ``turn.player`` may name for this action kind (empty for kinds without a target): every seat
    its spec's ``refuse`` lets through (``action_specs``), in seat order.

    Memoised per simultaneous group (nothing it depends on changes within one): the list is
    shared, so callers must not change it (``Game.legal_targets`` hands out copies).
    """
    kind = turn.kind
    if kind not in KINDS_WITH_TARGETS:
        return []
    cache = state.legal_cache
    if state.legal_group != state.group_id:
        cache.clear()
        state.legal_group = state.group_id
    found = cache.get(turn.player)
    if found is None:
        found = cache[turn.player] = _legal_targets(state, turn)
    return found


def _legal_targets(state: GameState, turn: Turn) -> list[int]:
    refuse = ACTION_SPECS[turn.kind].refuse
    assert refuse is not None  # KINDS_WITH_TARGETS: kinds with a refusal
    me = turn.player
    bulk = BULK_LEGAL.get(refuse)
    if bulk is not None:
        return bulk(state, me)
    return [p for p in range(state.num_players) if refuse(state, me, p) is None]


def parse(raw: Any, turn: Turn, state: GameState) -> ParseResult:
    """Read ``raw`` as an action of ``turn.kind`` by ``turn.player``; never raises."""
    kind = turn.kind
    repairs: list[str] = []
    fallbacks: list[str] = []
    obj: dict[str, Any]
    if type(raw) is dict and BYTES_KEY not in raw and UNSUPPORTED_KEY not in raw:
        obj = raw  # the usual answer: its fields are checked one by one below
    else:
        found, error = as_object(raw, repairs)
        if found is None:
            fallbacks.append(error or "unreadable action")
        # JSON read from text may hold NaN, huge integers or deep nesting: the same markers as a dict's
        obj = {} if found is None else to_jsonable(found)
    values = _fast_fields(kind, obj)
    if values is None:
        values = _validate_fields(kind, obj, fallbacks, repairs)
    action: dict[str, Any] = {}
    notes = values.pop("notes", None)
    if kind is ActionKind.BID:  # the most frequent kind first
        bid = values["bid"]
        if not 0 <= bid <= state.config.max_bid:
            fallbacks.append(f"bid: {short_repr(bid)} is outside 0-{state.config.max_bid}; used 0")
            bid = 0
        action["bid"] = bid
    elif kind in TARGET_KEYS:
        key = TARGET_KEYS[kind]
        action[key] = _target(values[key], key, state, turn, fallbacks)
        if kind is ActionKind.POLL and "tied" in obj:
            tied = _poll_tie(obj["tied"], state, turn)
            if tied:  # a tie, recorded as one: the single vote is left out
                action["tied"], action[key] = tied, None
    elif kind is ActionKind.STATEMENT:
        _statement(values, state, turn, action, fallbacks, repairs)
    elif kind in (ActionKind.SELF_ANALYSIS, ActionKind.PEER_ANALYSIS):
        action["is_deceptive"] = values["is_deceptive"]
        action["confidence"] = values["confidence"]
        action["deception_type"] = values["deception_type"]
        action["reasoning"] = _clip_chars(values["reasoning"], MAX_REASONING_CHARS, "reasoning", repairs)
        if kind is ActionKind.PEER_ANALYSIS:
            suspicion = values["suspicion"]
            if suspicion is None:  # fallback: keep the observer's current score
                if not any(f.startswith("suspicion") for f in fallbacks):
                    fallbacks.append("suspicion: null; kept your current score")
                subject = state.statements[state.current_statement].speaker  # type: ignore[index]
                suspicion = float(state.suspicion[turn.player, subject])
            action["suspicion"] = suspicion
            subjects = state.analysis_subjects(turn.player)
            if subjects:
                action["suspicion_of"] = _subject_scores(obj.get("suspicion_of"), subjects, state, repairs)
    elif kind is ActionKind.SUMMARY:
        action["summary"] = _cap_text(values["summary"], MAX_SUMMARY_WORDS, MAX_SUMMARY_CHARS, "summary", repairs)[0]
    if notes is not None:
        action["notes"] = _clip_chars(notes, MAX_NOTE_CHARS, "notes", repairs)
    return ParseResult(kind, action, fallbacks, repairs)


def _validate_fields(kind: ActionKind, obj: dict[str, Any], fallbacks: list[str], repairs: list[str]) -> dict[str, Any]:
    """Pydantic validation with a per-field fallback, so one bad field does not cost the others
    (``parse`` tries ``_fast_fields`` first). Values JSON cannot hold are settled first (``json_input``)."""
    model = ACTION_MODELS[kind]
    defaults = FALLBACK_FIELDS[kind]
    data: dict[str, Any] = {}
    for name, raw_value in obj.items():
        if name not in model.model_fields:
            continue
        value = to_jsonable(raw_value)  # a no-op after the engine's own call; for direct callers
        text = marker_text(value)
        if text is not None:
            repairs.append(f"{name}: {BYTES_REPAIR}")
            value = text
        what = marker_reason(value)
        if what is None:
            data[name] = value
        elif name == "notes":
            fallbacks.append(f"notes: not a JSON value ({what}); ignored")
        else:
            used = "your current score" if name == "suspicion" else _show(defaults.get(name))
            fallbacks.append(f"{name}: not a JSON value ({what}); used {used}")
            data[name] = defaults.get(name)
    for _ in range(2):
        try:
            values = model.model_validate(data).model_dump()
            return values
        except ValidationError as exc:
            for err in exc.errors():
                name = str(err["loc"][0]) if err["loc"] else ""
                if name not in data and err["type"] != "missing":
                    continue
                if name == "notes":
                    fallbacks.append(f"notes: {err['msg'].lower()}; ignored")
                    data.pop("notes", None)
                    continue
                if err["type"] == "missing":
                    shown = "missing"
                else:
                    shown = f"{err['msg'].lower()} (got {short_repr(data.get(name))})"
                used = "your current score" if name == "suspicion" else _show(defaults.get(name))
                fallbacks.append(f"{name}: {shown}; used {used}")
                data[name] = defaults.get(name)
    return {**defaults, "notes": None}  # not reached: the fallback values always validate


_DECEPTION_TYPES = frozenset(DeceptionType.__args__)  # type: ignore[attr-defined]


def _unit(value: Any) -> float | None:
    """A JSON number in [0, 1] as float, else None (NaN fails the comparison)."""
    if type(value) in (int, float) and 0.0 <= value <= 1.0:
        return float(value)
    return None


def _fast_fields(kind: ActionKind, obj: dict[str, Any]) -> dict[str, Any] | None:
    """The usual well-typed answer, read without pydantic; None sends it through full validation.

    Accepts only exact JSON types, for which pydantic would return the same values, so both paths
    agree (a test checks this); anything unusual (coercible strings, missing keys, bad values) goes
    the slow way, which also words the fallback reasons.
    """
    notes = obj.get("notes")
    if notes is not None and type(notes) is not str:
        return None
    key = TARGET_KEYS.get(kind)
    if key is not None:
        if key not in obj:
            return None
        value = obj[key]
        return {key: value, "notes": notes} if value is None or type(value) is str else None
    if kind is ActionKind.BID:
        bid = obj.get("bid")
        return {"bid": bid, "notes": notes} if type(bid) is int else None
    if kind is ActionKind.STATEMENT:
        text, claims = obj.get("statement"), obj.get("claims")
        if type(text) is str and (claims is None or type(claims) is list):
            return {"statement": text, "claims": claims, "notes": notes}
        return None
    if kind is ActionKind.SUMMARY:
        summary = obj.get("summary")
        return {"summary": summary, "notes": notes} if type(summary) is str else None
    deceptive, kind_name = obj.get("is_deceptive"), obj.get("deception_type")
    confidence, reasoning = _unit(obj.get("confidence")), obj.get("reasoning", "")
    if type(deceptive) is not bool or confidence is None or type(kind_name) is not str:
        return None
    if kind_name not in _DECEPTION_TYPES:  # only a str is looked up: a list or dict is unhashable
        return None
    if type(reasoning) is not str:
        return None
    values = {"is_deceptive": deceptive, "confidence": confidence, "deception_type": kind_name,
              "reasoning": reasoning, "notes": notes}  # fmt: skip
    if kind is ActionKind.PEER_ANALYSIS:
        suspicion = _unit(obj.get("suspicion"))
        if suspicion is None:
            return None
        values["suspicion"] = suspicion
    return values


def _subject_scores(raw: Any, subjects: list[int], state: GameState, repairs: list[str]) -> list[list[Any]]:
    """``suspicion_of`` as ``[[seat, score], ...]`` in seat order, for the asked ``subjects`` it scores.

    Optional: a missing or unusable entry is left out and noted among the repairs, never a fallback of the
    analysis (its verdict and its suspicion of the speaker stand); metrics count the subjects not scored."""
    if not isinstance(raw, dict):
        if raw is not None:
            repairs.append(f"suspicion_of: {short_repr(raw)} is not an object of name: probability; ignored")
        else:
            repairs.append("suspicion_of: missing; no score of " + ", ".join(state.names[p] for p in subjects))
        return []
    scores: dict[int, float] = {}
    seat_of = extractor_for(state.names, state.config.ruleset).seat
    for key, value in raw.items():
        seat = seat_of(key) if isinstance(key, str) else None
        score = _unit(value)
        if seat not in subjects:
            repairs.append(f"suspicion_of: {short_repr(key)} is not one of the players asked about; ignored")
        elif score is None:
            repairs.append(f"suspicion_of: {short_repr(value)} for {state.names[seat]} is not a probability; ignored")
        else:
            scores[seat] = score
    missing = [state.names[p] for p in subjects if p not in scores]
    if missing:
        repairs.append("suspicion_of: no score of " + ", ".join(missing))
    return [[seat, scores[seat]] for seat in sorted(scores)]


def _show(value: Any) -> str:
    if value is None:
        return "null"
    return json.dumps(value)


# Answers that name no one: read as null (an abstention, no target), not as an unknown player.
NO_TARGET_WORDS = frozenset({"", "none", "nobody", "abstain", "null", "no one", "noone", "skip", "pass"})


class UnknownPlayerError(LookupError):
    """A target that names no player and is no word for oneself or for no one."""


def resolve_target(value: str, names: tuple[str, ...], player: int) -> int | None:
    """The seat an answer's target names: a player's name or agent id (``player_3``), compared by ``name_key``,
    or ``player`` for a word for oneself ("me"); None for a word for no one ("none", "abstain"); else
    ``UnknownPlayerError``. The engine reads targets with it, and policies check their answers with it."""
    name = name_key(value)
    if name in SELF_WORDS:
        return player
    seat = extractor_for(names).seat(value)
    if seat is None and name not in NO_TARGET_WORDS:
        raise UnknownPlayerError(value)
    return seat


def _target(value: Any, key: str, state: GameState, turn: Turn, fallbacks: list[str]) -> int | None:
    if value is None:
        return None
    fallback = "abstain" if key == "vote" else "no target"
    try:
        seat = resolve_target(value, state.names, turn.player)
    except UnknownPlayerError:
        fallbacks.append(f"{key}: unknown player {short_repr(value)}; used {fallback}")
        return None
    if seat is None:
        return None
    if seat not in legal_targets(state, turn):
        refuse = ACTION_SPECS[turn.kind].refuse
        why = (refuse(state, turn.player, seat) if refuse is not None else None) or "not allowed"
        fallbacks.append(f"{key}: {state.names[seat]} is not a legal target ({why}); used {fallback}")
        return None
    return seat


def _poll_tie(value: Any, state: GameState, turn: Turn) -> list[int]:
    """A poll answer's ``tied`` (optional, not in the schema): the legal players it could not choose between,
    in seat order; empty unless at least two (a tie of one is a vote)."""
    if not isinstance(value, list) or len(value) > len(state.names):
        return []
    legal = set(legal_targets(state, turn))
    reader = extractor_for(state.names, state.config.ruleset)
    seats = {reader.seat(name) for name in value if isinstance(name, str)}
    tied = sorted(s for s in seats if s is not None and s in legal)
    return tied if len(tied) >= 2 else []


def _clip_chars(text: str, limit: int, key: str, repairs: list[str]) -> str:
    if len(text) > limit:
        repairs.append(f"{key} cut to {limit} characters")
        return text[:limit]
    return text


def _cap_text(text: str, max_words: int, max_chars: int, key: str, repairs: list[str]) -> tuple[str, int, int]:
    """``text`` with whitespace collapsed, cut to ``max_words`` words, then to ``max_chars`` characters;
    each cut recorded in ``repairs``. Returns the text, its word count before the word cut and its
    character count before the character cut.

    The character cut falls on the last space before the limit (no half word) unless that would drop more
    than half of it: one giant word, or text without spaces (Chinese, Japanese), is cut at the limit.
    """
    words = text.split()
    if len(words) > max_words:
        repairs.append(f"{key} cut from {len(words)} to {max_words} words")
        kept = " ".join(words[:max_words])
    else:
        kept = " ".join(words)
    chars = len(kept)
    if chars > max_chars:
        cut = kept[:max_chars]
        space = cut.rfind(" ")
        if kept[max_chars] != " " and space > max_chars // 2:
            cut = cut[:space]
        kept = cut.rstrip()
        repairs.append(f"{key} cut from {chars} to {len(kept)} characters")
    return kept, len(words), chars


_CONTROL = re.compile(r"[\x00-\x1f\x7f]")


def _statement(
    values: dict[str, Any],
    state: GameState,
    turn: Turn,
    action: dict[str, Any],
    fallbacks: list[str],
    repairs: list[str],
) -> None:
    # Whitespace (newlines included) collapses to single spaces: a statement is one transcript line
    # and cannot forge lines such as "Moderator: ..." in the other players' observations.
    text = values["statement"]
    if not text.isprintable():  # printable: no control characters
        text = _CONTROL.sub(" ", text)
    # A statement that copies the answer format's placeholder or the turn's instructions says nothing: a
    # pass, with a reason (the whole text is checked, so a placeholder past the word limit counts too).
    copied = placeholder_reason(text)
    if copied is not None:
        fallbacks.append(f"statement: {copied}; used silence")
        action["truncated"] = False
        action["statement"] = ""
        action["claims"] = None
        return
    config = state.config
    max_words, max_chars = config.max_statement_words, config.statement_char_limit
    kept, words, chars = _cap_text(text, max_words, max_chars, "statement", repairs)
    action["truncated"] = words > max_words or chars > max_chars
    if words > max_words:
        action["original_words"] = words
    if chars > max_chars:
        action["original_chars"] = chars
    action["statement"] = kept
    claims = values.get("claims")
    if claims is None:
        action["claims"] = None
        return
    # Direct callers may pass any value here; after the engine's own call this changes nothing.
    normalized, errors = normalize_claims(to_jsonable(claims), resolver(state), turn.player)
    fallbacks.extend(errors)
    action["claims"] = normalized
