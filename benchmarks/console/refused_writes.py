"""Which file a refused write was for, when the error does not say.

The kernel refuses a write to a file already open (a full disk's ENOSPC, a quota's EDQUOT, EIO) through
its descriptor, so Python's ``OSError`` from ``write``, ``flush`` or ``close`` names no file. Every
command's message for such an error must still name the path: rather than wrap each of the many places
that write (logs, result lines, tables, pages, plots, exports), ``failed_file`` reads it from the
error's own traceback: the innermost file open for writing among the failing frames' locals (and the
attributes of their ``self``) is the one the write was for.
"""

from __future__ import annotations

import io
import os
from typing import Any


def failed_file(exc: BaseException) -> str | None:
    """The path of the file ``exc`` (an error that names none) was raised writing, if its frames hold it."""
    frames = []
    tb = exc.__traceback__
    while tb is not None:
        frames.append(tb.tb_frame)
        tb = tb.tb_next
    for frame in reversed(frames):  # innermost first: the write itself, then the code that called it
        owner = frame.f_locals.get("self")
        for value in list(frame.f_locals.values()):
            name = _written_path(value)
            if name is not None:
                return name
        for value in _attributes(owner):
            name = _written_path(value)
            if name is not None:
                return name
    return None


def _attributes(owner: Any) -> list[Any]:
    """An object's own attribute values (its ``__dict__``: no property is run), or none."""
    try:
        return list(vars(owner).values())
    except TypeError:  # no __dict__ (None, a builtin, slots)
        return []


def _written_path(value: Any) -> str | None:
    """A file object's path if it was opened for writing (by name, not a bare descriptor), else None."""
    if not isinstance(value, io.IOBase):
        return None
    mode = getattr(value, "mode", "")
    name = getattr(value, "name", None)
    if not isinstance(mode, str) or not any(flag in mode for flag in "wax+"):
        return None
    if isinstance(name, (str, bytes, os.PathLike)) and not (isinstance(name, str) and name.startswith("<")):
        return os.fsdecode(name)
    return None
