"""The ``inspect_ai`` entry point of the package: registers the tasks and the scripted model provider.

    [project.entry-points.inspect_ai]
    werewolf_deception = "benchmarks.integrations.inspect_registry"

Inspect loads this module when a name in the ``werewolf_deception/`` namespace is asked for
(``inspect eval werewolf_deception/werewolf``) or when it looks for a model provider it does not know
(``--model werewolf_scripted/play``). Tasks get their registry name from the package they are installed
in; this project's modules live in ``benchmarks``, not in a package named after the distribution, so the
names are given here: ``werewolf_deception/werewolf`` and ``werewolf_deception/werewolf_detect`` whether the
project is installed editable or not.
"""

from __future__ import annotations

from collections.abc import Callable
from inspect import signature
from typing import Any

from inspect_ai import Task, task

from benchmarks.integrations import inspect_models, inspect_tasks

NAMESPACE = "werewolf_deception"
__all__ = ["NAMESPACE", "inspect_models", "werewolf", "werewolf_detect"]


def _register(fn: Callable[..., Task], short: str) -> Callable[..., Task]:
    full = f"{NAMESPACE}/{short}"
    try:  # Inspect prefixes a task's name with the installed package it is found in ("benchmarks" in a wheel)
        from inspect_ai._util.package import get_installed_package_name

        prefix = get_installed_package_name(fn)
    except ImportError:  # pragma: no cover - a future Inspect without the helper
        prefix = None
    decorated: Callable[..., Task] = task(name=full if prefix is None else short)(fn)
    if prefix is not None and prefix != NAMESPACE:  # also under the documented name
        from inspect_ai._eval.registry import task_register

        params: list[str] = list(signature(fn).parameters)
        attribs: dict[str, Any] = {}
        task_register(decorated, full, attribs, params)
    return decorated


werewolf = _register(inspect_tasks.werewolf, "werewolf")
werewolf_detect = _register(inspect_tasks.werewolf_detect, "werewolf_detect")
