"""One tidy table of many games as numpy columns, filled one game at a time: what ``aggregate`` reads.

A game's rows (``GameRecord.rows()``) are dicts of every column; an aggregate over 1,000 games needs a
dozen of them per table. ``TableColumns`` keeps only the columns it was asked for: numbers as float64
(``None`` as NaN, booleans as 0 / 1, exactly the values ``np.array`` makes of the rows), text as codes
into a vocabulary, and the row's game index. Pure: no I/O.

    statements = TableColumns(numbers=("lie", "peers"), keys=("speaker_role",))
    statements.add(rows["statements"], game=0)
    statements.col("lie"); statements.keys("speaker_role"); statements.game

``grouped(cols, "speaker", fn)`` gives ``fn(mask)`` for all rows and for each role, team and policy (and
policy x role) of the unit a prefix names: the grouping of every figure in ``metrics.json``.
"""

from __future__ import annotations

from array import array
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np


class TableColumns:
    """Selected columns of one table's rows, game after game (see the module docstring).

    Each column grows in one flat buffer (8 bytes a number, 4 a code, 8 a row's game: no per-game
    objects), and becomes a numpy array when read (cached until the next ``add``)."""

    def __init__(self, numbers: Sequence[str], keys: Sequence[str]) -> None:
        self._numbers: dict[str, array[float]] = {name: array("d") for name in numbers}
        self._codes: dict[str, array[int]] = {name: array("i") for name in keys}
        self._vocab: dict[str, dict[str, int]] = {name: {} for name in keys}
        self._games: array[int] = array("q")
        self._read: dict[tuple[str, str], np.ndarray] = {}
        self.size = 0

    def add(self, rows: list[dict[str, Any]], game: int) -> None:
        if not rows:
            return
        self._read.clear()
        self.size += len(rows)
        self._games.extend([game] * len(rows))
        for name, values in self._numbers.items():
            # float() of a bool or an int is what np.array(..., dtype=float64) makes of it.
            values.extend([np.nan if r[name] is None else float(r[name]) for r in rows])
        for name, codes in self._codes.items():
            vocab = self._vocab[name]
            codes.extend([vocab.setdefault(str(r[name]), len(vocab)) for r in rows])

    def _array(self, kind: str, name: str, buffer: array[Any], dtype: Any) -> np.ndarray:
        key = (kind, name)
        if key not in self._read:
            # np.dtype of an array typecode is the same C type, so the bytes read back as they were written.
            values = np.frombuffer(buffer, dtype=np.dtype(buffer.typecode)).astype(dtype)
            values.flags.writeable = False  # shared by every caller
            self._read[key] = values
        return self._read[key]

    @property
    def game(self) -> np.ndarray:
        """Each row's game index."""
        return self._array("game", "", self._games, np.int64)

    def col(self, name: str, dtype: Any = np.float64) -> np.ndarray:
        """A number column (NaN where the row held None), as ``dtype`` (a copy: callers may change it)."""
        return self._array("number", name, self._numbers[name], np.float64).astype(dtype)

    def keys(self, name: str) -> np.ndarray:
        """A text column as an object array of str (what ``str(row[name])`` was)."""
        codes = self._array("codes", name, self._codes[name], np.int32)
        return np.array(list(self._vocab[name]) or [""], dtype=object)[codes]


def coverage(answered: int, expected: int) -> dict[str, Any]:
    """How many of the items asked (analyses, polls) were answered: the figures beside it rest on ``answered``."""
    return {"answered": answered, "expected": expected, "share": round(answered / expected, 4) if expected else None}


GROUPS = ("role", "team", "policy")  # figures by the unit's role, team and policy (and policy x role, x team)


def joint_key(policy: str, part: str) -> str:
    """The key of a policy's figures in one role or team (``by_policy_role``, ``by_policy_team``)."""
    return f"{policy} | {part}"


def unit_keys(*units: str) -> tuple[str, ...]:
    """The key columns a unit's figures are grouped by: ``speaker_role``, ``speaker_team``, ..."""
    return tuple(f"{unit}_{by}" for unit in units for by in GROUPS)


def group_masks(cols: TableColumns, prefix: str) -> dict[str, dict[str, np.ndarray]]:
    """Masks for: all, each role, each team, each policy (of the unit the prefix names)."""
    out: dict[str, dict[str, np.ndarray]] = {"all": {"all": np.ones(cols.size, dtype=bool)}}
    for by in GROUPS:
        keys = cols.keys(f"{prefix}_{by}")
        out[f"by_{by}"] = {k: keys == k for k in sorted(set(keys.tolist()))}
    policies = out["by_policy"]
    if len(policies) > 1:  # several models or agent kinds: each one's figures per role and per team too
        for by in ("role", "team"):
            keys = cols.keys(f"{prefix}_{by}")
            out[f"by_policy_{by}"] = {
                joint_key(p, k): mask & (keys == k) for p, mask in policies.items() for k in sorted(set(keys.tolist()))
            }
    return out


def grouped(cols: TableColumns, prefix: str, fn: Callable[[np.ndarray], Any]) -> dict[str, Any]:
    """``fn(mask)`` for every group of ``group_masks``: {"all": {"all": ...}, "by_role": {role: ...}, ...}."""
    return {by: {key: fn(mask) for key, mask in masks.items()} for by, masks in group_masks(cols, prefix).items()}
