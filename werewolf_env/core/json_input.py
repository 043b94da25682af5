"""What an agent sends, made plain JSON before it is read: the engine logs exactly what it parses.

An agent's answer is untrusted: an LLM's text, or any Python value a policy returns. ``to_jsonable``
turns every value into plain JSON without ever raising: numpy numbers become Python numbers, tuples
lists, lone surrogates "?". What JSON cannot hold becomes a *marker* the parser recognises, so the
log keeps what was sent and a replay of the log reads it the same way:

- bytes: ``{"$bytes": "<the bytes as UTF-8 text>"}``: read as that text, the repair recorded;
- anything else: ``{"$unsupported": "<what it was>"}``: NaN and infinite floats, integers too large
  to print, sets and other objects, a container nested deeper than ``MAX_DEPTH``, a container that
  holds itself. The field falls back, with the reason.

``as_object`` reads a JSON object from a dict or a string (code fences and text around it tolerated).
``loads_bounded`` reads a JSON text from a file (a log line) only when it nests no deeper than a bound:
the standard parser recurses once per level, so a line nested 100,000 deep would end in ``RecursionError``.
"""

from __future__ import annotations

import json
import math
import re
from typing import Any

import numpy as np

MAX_DEPTH = 32  # an action is 4 levels deep (object, claims, claim, value): anything far deeper is not an answer
MAX_INT_BITS = 1024  # larger integers are no answer, and Python refuses to print those above ~14,000 bits
BYTES_KEY = "$bytes"
UNSUPPORTED_KEY = "$unsupported"
BYTES_REPAIR = "read bytes as UTF-8 text"


class TooDeepError(ValueError):
    """A JSON text nested deeper than the reader's bound."""

    def __init__(self, limit: int) -> None:
        super().__init__(f"nested deeper than {limit} levels")
        self.limit = limit


def loads_bounded(text: str | bytes, max_depth: int) -> Any:
    """``json.loads(text)``, refusing (``TooDeepError``, a ValueError) a value nested deeper than ``max_depth``.

    The parser recurses once per level and stops at Python's recursion limit (``RecursionError``, about 1,000
    levels): that is refused the same way. A text with no more opening brackets than ``max_depth`` (brackets
    inside strings counted too) cannot be deeper, so only the rare other line is measured after parsing."""
    try:
        value = json.loads(text)
    except RecursionError:
        raise TooDeepError(max_depth) from None
    brackets = text.count(b"[") + text.count(b"{") if isinstance(text, bytes) else text.count("[") + text.count("{")
    if brackets > max_depth and nests_deeper_than(value, max_depth):
        raise TooDeepError(max_depth)
    return value


def nests_deeper_than(value: Any, limit: int) -> bool:
    """Do the lists and dicts of a parsed JSON value nest deeper than ``limit`` levels? Never recurses."""
    pending: list[tuple[Any, int]] = [(value, 0)]
    while pending:
        item, depth = pending.pop()
        if isinstance(item, dict):
            children: Any = item.values()
        elif isinstance(item, list):
            children = item
        else:
            continue
        if depth >= limit:
            return True
        pending.extend((child, depth + 1) for child in children)
    return False


def to_jsonable(value: Any) -> Any:
    """Plain JSON types, with markers for what JSON cannot hold (see the module docstring); never raises."""
    if type(value) is dict:  # the usual flat action: no recursion
        out = {}
        for key, item in value.items():
            item_kind = type(item)
            if type(key) is not str or not key.isascii():
                return _convert(value, 0, set())
            if (
                (item_kind is str and item.isascii())
                or item_kind is bool
                or item is None
                or (item_kind is int and item.bit_length() <= MAX_INT_BITS)
            ):
                out[key] = item
            else:
                out[key] = _convert(item, 1, {id(value)})
        return out
    return _convert(value, 0, set())


def unsupported(what: str) -> dict[str, str]:
    return {UNSUPPORTED_KEY: what}


def _marker(value: Any, key: str) -> str | None:
    """The text a one-key marker ``{key: text}`` holds, else None."""
    if type(value) is dict and len(value) == 1:
        text = value.get(key)
        if type(text) is str:
            return text
    return None


def marker_text(value: Any) -> str | None:
    """The text of a bytes marker, else None."""
    return _marker(value, BYTES_KEY)


def marker_reason(value: Any) -> str | None:
    """What an unsupported-value marker stands for, else None."""
    return _marker(value, UNSUPPORTED_KEY)


def short_repr(value: Any, limit: int = 60) -> str:
    """``repr(value)`` cut to ``limit`` characters, for messages; never raises."""
    try:
        text = repr(value)
    except Exception:  # a policy's object may break in its own __repr__
        text = f"<{type(value).__name__}>"
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _convert(value: Any, depth: int, open_containers: set[int]) -> Any:
    try:
        return _convert_unsafe(value, depth, open_containers)
    except Exception as exc:  # a hostile object (an items() or __iter__ that raises) is no answer
        return unsupported(f"{type(value).__name__} that could not be read ({type(exc).__name__})")


def _convert_unsafe(value: Any, depth: int, open_containers: set[int]) -> Any:
    if value is None or type(value) is bool:
        return value
    if isinstance(value, str):  # subclasses too: a plain str, whatever they override
        if str.isascii(value):
            return str.__str__(value)
        return str.encode(value, "utf-8", "replace").decode("utf-8")  # lone surrogates cannot be logged
    if isinstance(value, np.generic):
        return _convert(value.item(), depth, open_containers)
    if isinstance(value, int):
        whole = int(value)
        bits = whole.bit_length()
        return whole if bits <= MAX_INT_BITS else unsupported(f"an integer of {bits} bits")
    if isinstance(value, float):
        number = float(value)
        return number if math.isfinite(number) else unsupported(f"float {number!r}")
    if isinstance(value, (bytes, bytearray, memoryview)):
        return {BYTES_KEY: bytes(value).decode("utf-8", errors="replace")}
    if isinstance(value, np.ndarray):
        value = value.tolist()
    if isinstance(value, (dict, list, tuple)):
        if depth >= MAX_DEPTH:
            if isinstance(value, dict) and (marker_reason(value) is not None or marker_text(value) is not None):
                # A marker is a leaf (its one value a str): converting the log's form again changes nothing.
                return {_key(k): _convert(v, depth, open_containers) for k, v in dict.items(value)}
            return unsupported(f"a {type(value).__name__} nested deeper than {MAX_DEPTH} levels")
        if id(value) in open_containers:
            return unsupported(f"a {type(value).__name__} that contains itself")
        open_containers.add(id(value))
        try:
            if isinstance(value, dict):
                return {_key(k): _convert(v, depth + 1, open_containers) for k, v in dict.items(value)}
            return [_convert(v, depth + 1, open_containers) for v in value]
        finally:
            open_containers.discard(id(value))
    return unsupported(f"{type(value).__name__} {short_repr(value)}")


def _key(key: Any) -> str:
    if isinstance(key, str):
        return _convert(key, 0, set())
    if key is None or isinstance(key, (bool, int, float)):
        return str(key) if not isinstance(key, int) or key.bit_length() <= MAX_INT_BITS else "<large integer>"
    return short_repr(key)


_FENCE = re.compile(r"^\s*```(?:json)?\s*(.*?)\s*```\s*$", re.DOTALL | re.IGNORECASE)


def as_object(raw: Any, repairs: list[str]) -> tuple[dict[str, Any] | None, str | None]:
    """A JSON object from a dict or a string (tolerating code fences and text around it), or (None, why).

    Bytes (or a bytes marker) are read as UTF-8 text, recorded in ``repairs``; an unsupported-value
    marker is refused with what it stands for.
    """
    if isinstance(raw, (bytes, bytearray)):
        raw = raw.decode("utf-8", errors="replace")
        repairs.append(BYTES_REPAIR)
    elif isinstance(raw, dict):
        text = marker_text(raw)
        if text is None:
            what = marker_reason(raw)
            if what is not None:
                return None, f"an action must be a JSON object or a string holding one, got {what}"
            return raw, None
        raw = text
        repairs.append(BYTES_REPAIR)
    if not isinstance(raw, str):
        return None, f"an action must be a JSON object or a string holding one, got {type(raw).__name__}"
    text = raw
    fenced = _FENCE.match(text)
    if fenced:
        text = fenced.group(1)
        repairs.append("removed a code fence around the JSON")
    try:
        value = json.loads(text)
    except (ValueError, RecursionError):
        start, end = text.find("{"), text.rfind("}")
        if start < 0 or end <= start:
            return None, "unparseable JSON: no object found"
        inner = text[start : end + 1]
        try:
            value = json.loads(inner)
        except (ValueError, RecursionError) as exc:
            # A raw newline or tab inside a string (llama.cpp's JSON grammars allow them): the answer
            # is otherwise what the model meant, so it is read, and the tolerance recorded.
            try:
                value = json.loads(inner, strict=False)
            except (ValueError, RecursionError):
                return None, f"unparseable JSON: {exc}"
            repairs.append("read a control character inside a JSON string")
        if inner != text:
            repairs.append("ignored text around the JSON object")
    if not isinstance(value, dict):
        return None, f"the JSON must be an object, got {type(value).__name__}"
    return value, None
