"""The engine's errors, in a module of their own: the compiled build (``setup.py``) compiles the engine's modules
with mypyc, which cannot compile a class deriving from a built-in exception other than ``Exception``."""

from __future__ import annotations


class GameOverError(RuntimeError):
    """An action for a game that is over: no turn is waiting for one."""
