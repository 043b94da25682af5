"""A seat's observation whose parts are produced when they are first read.

``Observation`` is the ``dict`` that ``observe`` returns (``{"observation": vector, "text": text}``).
Most policies read one part or none: RL policies read the vector, LLM seats the text, scripted and
random policies often only ``info``. Rendering the text (a long string joined anew on every step)
and the vector for every step was about half of an ``analysis=off`` step, so each part is made on
its first read and kept.

What a part shows is fixed when the observation is made, not when it is read: its maker holds only
immutable pieces captured then (strings, an append-only list with its length at that moment, arrays
the renderer never writes to again). An observation kept in a replay buffer and read many steps
later is the same as one read at once; ``tests/test_lazy_observation.py`` checks it.

It behaves as a plain ``dict`` for everything that reads it through the mapping protocol (``[]``,
``get``, ``in``, iteration, ``keys`` / ``values`` / ``items``, ``==``, ``copy``, ``dict(obs)``,
``{**obs}``, ``json``, ``pickle``, ``copy.deepcopy``); any of them makes the parts it touches.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any


class Observation(dict[str, Any]):
    """``{key: value}`` whose values are made by ``makers[key]()`` on first read (see the module's docstring)."""

    __slots__ = ("_makers",)

    def __init__(self, makers: dict[str, Callable[[], Any]]) -> None:
        # The keys, in order, from the start; until a part is made its maker stands in its place (the overrides
        # below never hand one out). Cheaper than a sentinel per key: this runs on every step.
        dict.__init__(self, makers)
        self._makers = makers

    def _make(self, key: str, value: Any) -> Any:
        maker = self._makers.get(key)
        if maker is not None and value is maker:
            value = maker()
            dict.__setitem__(self, key, value)
        return value

    def made(self) -> dict[str, Any]:
        """A plain ``dict`` with every part made."""
        return {key: self._make(key, value) for key, value in dict.items(self)}

    def __getitem__(self, key: str) -> Any:
        return self._make(key, dict.__getitem__(self, key))

    def get(self, key: str, default: Any = None) -> Any:
        return self._make(key, dict.__getitem__(self, key)) if dict.__contains__(self, key) else default

    # Overriding ``__iter__`` also keeps C code (``dict(obs)``, ``{**obs}``) off the raw storage: it
    # then goes through ``keys()`` and ``__getitem__``.
    def __iter__(self) -> Iterator[str]:
        return iter(list(dict.keys(self)))

    def values(self) -> Any:
        return self.made().values()

    def items(self) -> Any:
        return self.made().items()

    def copy(self) -> dict[str, Any]:
        return self.made()

    def pop(self, key: str, *default: Any) -> Any:
        if key in self:
            value = self[key]
            dict.pop(self, key)
            return value
        return dict.pop(self, key, *default)

    def popitem(self) -> tuple[str, Any]:
        key = next(reversed(list(dict.keys(self))))
        return key, self.pop(key)

    def setdefault(self, key: str, default: Any = None) -> Any:
        if key in self:
            return self[key]
        dict.__setitem__(self, key, default)
        return default

    def __eq__(self, other: object) -> bool:
        return self.made() == (other.made() if isinstance(other, Observation) else other)

    def __ne__(self, other: object) -> bool:
        return not self == other

    __hash__ = None

    def __repr__(self) -> str:
        return repr(self.made())

    def __reduce__(self) -> tuple[Any, ...]:  # pickle and copy make a plain dict: the makers stay here
        return (dict, (self.made(),))

    def __or__(self, other: Any) -> dict[str, Any]:  # type: ignore[override]
        return self.made() | dict(other)

    def __ror__(self, other: Any) -> dict[str, Any]:  # type: ignore[override]
        return dict(other) | self.made()
