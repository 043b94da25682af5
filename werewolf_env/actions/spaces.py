"""Gymnasium spaces for free text and for JSON actions.

``gymnasium.spaces.Text`` only admits a fixed character set, which a prompt or an LLM answer never
fits, so the text parts of observations and actions use ``FreeText`` (any ``str``).

``JsonActionSpace`` contains any dict or string (the environment reads them all, falling back where
needed). Its ``sample()`` is a fuzzer: a random JSON object carrying every action key at once, each
value legal or deliberately broken (unknown names, out-of-range numbers, wrong types; lists, objects
and deeply nested lists in any field; NaN and infinity in the JSON text form, bytes in the dict form;
a giant word or text without spaces as any text), sometimes a non-JSON string. Whatever the action
kind, the env picks the keys it needs, so random play with ``sample()`` runs real games and exercises
the fallbacks; PettingZoo's ``api_test`` and ``seed_test`` use exactly that.
"""

from __future__ import annotations

import copy
import json
import string
from typing import Any

import numpy as np
from gymnasium.spaces import Space

from werewolf_env.claims import LIE_TYPES

_PRINTABLE = np.array(list(string.printable))
_DECEPTION_TYPES = LIE_TYPES
_WORDS = ("I", "am", "the", "seer", "doctor", "villager", "werewolf", "is", "innocent", "a", "checked",
          "protected", "not", "vote", "for", "trust", "suspect", "she", "he", "lying")  # fmt: skip
_CJK = "我是预言家狼人村民医生投票给他她不信任你们"  # no spaces: one "word" to a word limit


def _nested(depth: int) -> list[Any]:
    value: list[Any] = []
    for _ in range(depth):
        value = [value]
    return value


# Values that test the reader (wrong shapes, deep nesting, a giant word, text without spaces, a huge
# integer), in both forms of a sampled action; and those only one form can carry (JSON text has no
# bytes; NaN never equals itself, so seed_test could not compare two sampled dicts holding it).
_HOSTILE = (["x", 1], {"role": ["seer"]}, _nested(40), "w" * 3000, _CJK * 30, 10**30, True)
_HOSTILE_TEXT_ONLY = (float("nan"), float("inf"), -float("inf"))
_HOSTILE_DICT_ONLY = (b"raw bytes \xff", bytearray(b"vote Bob"))


class FreeText(Space[str]):
    """Any Python string up to ``max_length`` characters (None: unbounded)."""

    def __init__(self, max_length: int | None = None, seed: int | np.random.Generator | None = None) -> None:
        self.max_length = max_length
        super().__init__(shape=None, dtype=None, seed=seed)

    def sample(self, mask: Any = None, probability: Any = None) -> str:
        length = int(self.np_random.integers(0, min(self.max_length or 64, 64) + 1))
        return "".join(self.np_random.choice(_PRINTABLE, size=length))

    def contains(self, x: Any) -> bool:
        return isinstance(x, str) and (self.max_length is None or len(x) <= self.max_length)

    @property
    def is_np_flattenable(self) -> bool:
        return False

    def __repr__(self) -> str:
        return f"FreeText(max_length={self.max_length})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, FreeText) and other.max_length == self.max_length


class JsonActionSpace(Space[Any]):
    """JSON actions (a dict or a string); ``sample()`` fuzzes valid and invalid actions."""

    def __init__(
        self,
        names: tuple[str, ...],
        max_bid: int = 10,
        invalid_rate: float = 0.2,
        seed: int | np.random.Generator | None = None,
    ) -> None:
        self.names = tuple(names)
        self.max_bid = max_bid
        self.invalid_rate = invalid_rate
        super().__init__(shape=None, dtype=None, seed=seed)

    def contains(self, x: Any) -> bool:
        return isinstance(x, (dict, str))

    @property
    def is_np_flattenable(self) -> bool:
        return False

    def __repr__(self) -> str:
        return f"JsonActionSpace({len(self.names)} players)"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, JsonActionSpace) and (other.names, other.max_bid) == (self.names, self.max_bid)

    def sample(self, mask: Any = None, probability: Any = None) -> Any:
        rng = self.np_random
        if rng.random() < self.invalid_rate * 0.25:
            return rng.choice(["", "not json", "{", "[1, 2]", "null", '{"bid": "lots"}', "```json\n{}\n```"])

        def broken() -> bool:
            return bool(rng.random() < self.invalid_rate)

        as_text = bool(rng.random() < 0.5)
        hostile_pool = _HOSTILE + (_HOSTILE_TEXT_ONLY if as_text else _HOSTILE_DICT_ONLY)

        def name() -> Any:
            if broken():
                return ["Nobody Known", 42, "", "player_99", ["x"]][int(rng.integers(5))]
            return self.names[int(rng.integers(len(self.names)))]

        def unit() -> Any:
            return [1.5, -0.2, "high", None][int(rng.integers(4))] if broken() else round(float(rng.random()), 3)

        words = " ".join(_WORDS[int(i)] for i in rng.integers(len(_WORDS), size=int(rng.integers(1, 30))))
        if rng.random() < 0.5:
            words += f" {self.names[int(rng.integers(len(self.names)))]} is a werewolf"
        action = {
            "target": name(),
            "vote": None if rng.random() < 0.15 else name(),
            "bid": int(rng.integers(-2, self.max_bid + 3)) if broken() else int(rng.integers(0, self.max_bid + 1)),
            "statement": words if not broken() else [None, 7, ""][int(rng.integers(3))],
            "is_deceptive": bool(rng.random() < 0.5) if not broken() else "perhaps",
            "confidence": unit(),
            "deception_type": _DECEPTION_TYPES[int(rng.integers(5))] if not broken() else "lying",
            "reasoning": "random",
            "suspicion": unit(),
            "summary": "random summary",
        }
        if rng.random() < 0.3:
            action["notes"] = f"note {int(rng.integers(1000))}"
        for key in action:  # hostile values, rarer than the ordinary broken ones
            if rng.random() < self.invalid_rate * 0.2:
                action[key] = copy.deepcopy(hostile_pool[int(rng.integers(len(hostile_pool)))])  # samples share nothing
        if as_text:
            return json.dumps(action)
        return action
