"""Modules that moved into sub-packages stay importable by their old names, with a ``ModuleMovedWarning``.

Each package lists its moves (old dotted name -> new) and installs them once, from its ``__init__``::

    install_moves({"werewolf_env.roles": "werewolf_env.core.roles", ...})

``import werewolf_env.roles`` then gives the very module object ``werewolf_env.core.roles`` (one module, one set of
globals, not a copy), and warns once where the old name is imported. Names kept by a sub-package of the same name
(``werewolf_env.claims``, ``werewolf_deception.benchmarks.cli``, ...) need no alias: the package re-exports the old
module's public names.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import importlib.util
import sys
import warnings
from collections.abc import Callable, Iterable, Mapping
from types import CodeType, ModuleType
from typing import Any


class ModuleMovedWarning(DeprecationWarning):
    """An old module name was imported; the warning names the new one."""


class _AliasLoader(importlib.abc.InspectLoader):
    """Loads an old name as the new module itself (``import``), or runs the new module's code (``python -m``)."""

    def __init__(self, new_name: str) -> None:
        self.new_name = new_name

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType:
        warnings.warn(
            f"{spec.name} moved to {self.new_name}; import it from there (the old name goes in a later release)",
            ModuleMovedWarning,
            stacklevel=2,
        )
        module = importlib.import_module(self.new_name)
        self._real_spec = module.__spec__
        return module

    def exec_module(self, module: ModuleType) -> None:
        """The module is the new one, already executed: it keeps its own spec (the import system gave it the
        old name's), so that ``importlib.reload`` and pickling see the module as it is."""
        module.__spec__ = self._real_spec
        module.__loader__ = self._real_spec.loader if self._real_spec is not None else None

    def get_source(self, fullname: str) -> str | None:
        loader = self._new_loader()
        return loader.get_source(self.new_name) if isinstance(loader, importlib.abc.InspectLoader) else None

    def get_code(self, fullname: str) -> CodeType | None:
        """What ``python -m old.name`` runs: the new module's code (with the warning)."""
        message = f"{fullname} moved to {self.new_name}; run it as python -m {self.new_name}"
        warnings.warn(message, ModuleMovedWarning, stacklevel=2)
        loader = self._new_loader()
        return loader.get_code(self.new_name) if isinstance(loader, importlib.abc.InspectLoader) else None

    def is_package(self, fullname: str) -> bool:
        return False

    def _new_loader(self) -> object:
        spec = importlib.util.find_spec(self.new_name)
        return spec.loader if spec is not None else None


class MovedModuleFinder(importlib.abc.MetaPathFinder):
    """Finds old module names and loads them as their new modules."""

    def __init__(self, moves: Mapping[str, str]) -> None:
        self.moves = dict(moves)

    def find_spec(
        self, fullname: str, path: object = None, target: object = None
    ) -> importlib.machinery.ModuleSpec | None:
        new_name = self.moves.get(fullname)
        if new_name is None:
            return None
        return importlib.machinery.ModuleSpec(fullname, _AliasLoader(new_name))


def install_moves(moves: Mapping[str, str]) -> None:
    """Make ``moves``' old names importable (idempotent: one finder per set of names)."""
    for finder in sys.meta_path:
        if isinstance(finder, MovedModuleFinder) and finder.moves.keys() == moves.keys():
            return
    sys.meta_path.append(MovedModuleFinder(moves))


def reexport(package: str, source: str, names: Iterable[str]) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """A package's ``__getattr__`` and ``__dir__`` that read ``names`` from module ``source`` on first use.

    For a sub-package that replaced a module of its own name: ``from werewolf_env.engine import Game`` keeps
    working, and importing a sibling (``werewolf_env.engine.rules``) does not load ``source``.
    """
    public = frozenset(names)

    def __getattr__(name: str) -> Any:  # noqa: N807 - the module protocol's name
        if name in public:
            return getattr(importlib.import_module(source), name)
        raise AttributeError(f"module {package!r} has no attribute {name!r}")

    def __dir__() -> list[str]:  # noqa: N807
        return sorted(public | set(vars(sys.modules[package])))

    return __getattr__, __dir__


def removed_names(module: str, names: Iterable[str], advice: str) -> Callable[[str], Any]:
    """A module's ``__getattr__`` for names it no longer has: reading one raises an ``AttributeError`` that says
    ``advice`` (where the name went)."""
    gone = frozenset(names)
    short = module.removeprefix("werewolf_env.")

    def __getattr__(name: str) -> Any:  # noqa: N807 - the module protocol's name
        if name in gone:
            raise AttributeError(f"{short}.{name} was removed: {advice}")
        raise AttributeError(f"module {module!r} has no attribute {name!r}")

    return __getattr__
