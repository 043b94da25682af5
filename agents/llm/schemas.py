"""Strict JSON schemas for one turn's answer, for servers that constrain output to a schema.

Every property is required and no other is allowed (what OpenAI's ``strict`` mode accepts and what
llama.cpp turns into a grammar). The schema is built per turn: targets are an ``enum`` of the legal
names, so a constrained model cannot name a dead or unknown player; bids are an ``enum`` of the
allowed integers. Properties come in the order the model should think: the analyses' ``reasoning``
first, then the verdict. Structured claims are left out: claims are always read from the statement
itself (``werewolf_env.claims.model``), and models that want to add some can in JSON mode.

``answer_schema(kind, info=None)`` is the public form: the schema of a valid answer to any action kind,
for one turn (with the ``info`` the env hands the player) or, without one, for any turn of that kind.
``ANSWER_KINDS`` lists the kinds.
"""

from __future__ import annotations

from typing import Any

from werewolf_env.actions import ACTION_SPECS
from werewolf_env.claims import LIE_TYPES
from werewolf_env.core import ActionKind, statement_char_limit

ANSWER_KINDS: tuple[str, ...] = tuple(kind.value for kind in ActionKind)

DECEPTION_TYPES = list(LIE_TYPES)
# Caps keep a small model from rambling to its token limit inside one string.
REASONING_CHARS = 160
NOTES_CHARS = 100
# Probabilities as an enum of steps of 0.05: llama.cpp's grammars ignore "minimum"/"maximum" on numbers
# (a 270M model answered 18.25 and 100), while an enum constrains every server; 0.05 is finer than the
# 0.1 bins of the calibration figures.
PROBABILITIES = [round(i / 20, 2) for i in range(21)]


def _obj(properties: dict[str, Any]) -> dict[str, Any]:
    return {"type": "object", "properties": properties, "required": list(properties), "additionalProperties": False}


def _text(description: str, max_chars: int) -> dict[str, Any]:
    return {"type": "string", "description": description, "maxLength": max_chars}


def answer_schema(kind: str, info: dict[str, Any] | None = None) -> dict[str, Any]:
    """The JSON schema of a valid answer to an action of ``kind`` (one of ``ANSWER_KINDS``).

    With ``info`` (as the env hands it to the player) the schema is this turn's: targets are an enum of the
    legal names, bids of the allowed integers, the statement's length the announced cap. Without it, any
    turn of that kind: a target is any string, bids run to the default maximum."""
    if kind not in ANSWER_KINDS:
        raise ValueError(f"{kind!r} is not an action kind; one of {', '.join(ANSWER_KINDS)}")
    return turn_schema(kind, info or {})


# The info keys that ask a call for later turns too (``werewolf_deception.agents.llm.folding``), by the turn they are
# for.
ASK_KEYS = {"bid": "next_bid_max", "vote": "next_vote_targets", "self_analysis": "ask_self_analysis"}


def turn_schema(kind: str, info: dict[str, Any]) -> dict[str, Any]:
    """The schema of a valid answer to this turn (``info`` as the env hands it to the policy)."""
    names = [str(n) for n in info.get("legal_targets") or []]
    notes = _text("a private note to yourself (empty if none)", NOTES_CHARS)
    spec = ACTION_SPECS.get(ActionKind(kind)) if kind in ANSWER_KINDS else None
    if spec is not None and spec.target_key is not None:
        name: dict[str, Any] = {"type": "string", "enum": names} if names else {"type": "string"}
        if not spec.null_ok:
            return _obj({spec.target_key: name})
        if "legal_targets" in info and not names:  # this turn names nobody: null is the only answer
            return _obj({spec.target_key: {"type": "null"}})
        # anyOf, not a type list with an enum: llama.cpp's grammar converter drops an enum next to a
        # list of types (a 270M model then voted for "0" and ":{").
        return _obj({spec.target_key: {"anyOf": [name, {"type": "null"}]}})
    if kind == "bid":
        return _obj({"bid": {"type": "integer", "enum": list(range(int(info.get("max_bid", 10)) + 1))}})
    if kind == "statement":
        words, chars = int(info.get("max_statement_words", 20)), statement_chars(info)
        what = f"your public words to all players (at most {words} words and {chars} characters)"
        props: dict[str, Any] = {"statement": _text(what, min(8 * words, chars)), "notes": notes}
        if info.get(
            ASK_KEYS["self_analysis"]
        ):  # the self-analysis asked with it (``werewolf_deception.agents.llm.folding``)
            props.update(_verdict())
        return _obj({**props, **_asked_ahead(info)})
    if kind in ("self_analysis", "peer_analysis"):
        props = _verdict()
        if kind == "peer_analysis":
            props["suspicion"] = {
                "type": "number",
                "enum": PROBABILITIES,
                "description": "probability that the speaker is a werewolf",
            }
            subjects = [str(n) for n in info.get("subjects") or []]
            if subjects:  # the players the statement spoke of, each scored like the speaker
                score = {"type": "number", "enum": PROBABILITIES, "description": "probability they are a werewolf"}
                props["suspicion_of"] = _obj({name: score for name in subjects})
        return _obj({**props, **_asked_ahead(info)})
    # Short: eight long summaries queued at a one-slot local server overran the deadline (every one unanswered).
    return _obj({"summary": _text("your final summary of the game, in two or three sentences", 400)})


def _verdict() -> dict[str, Any]:
    """An analysis's own fields, reasoning first."""
    return {
        "reasoning": _text("one or two short sentences of reasoning, before the verdict", REASONING_CHARS),
        "is_deceptive": {"type": "boolean"},
        "confidence": {
            "type": "number",
            "enum": PROBABILITIES,
            "description": "probability that the statement is deceptive",
        },
        "deception_type": {"type": "string", "enum": DECEPTION_TYPES},
    }


def _asked_ahead(info: dict[str, Any]) -> dict[str, Any]:
    """The later turns' fields asked with this call (``werewolf_deception.agents.llm.folding``): the next bid,
    the vote."""
    props: dict[str, Any] = {}
    if info.get(ASK_KEYS["bid"]) is not None:
        props["bid"] = {"type": "integer", "enum": list(range(int(info[ASK_KEYS["bid"]]) + 1))}
    if info.get(ASK_KEYS["vote"]):
        names = [str(n) for n in info[ASK_KEYS["vote"]]]
        props["vote"] = {"anyOf": [{"type": "string", "enum": names}, {"type": "null"}]}
    return props


def statement_chars(info: dict[str, Any]) -> int:
    """The statement's character cap the env announces (``max_statement_chars``; older infos: the default)."""
    chars = info.get("max_statement_chars")
    return statement_char_limit(int(info.get("max_statement_words", 20)), int(chars) if chars else None)
