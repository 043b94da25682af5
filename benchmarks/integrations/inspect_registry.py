"""The ``inspect_ai`` entry point of the package: registers the tasks and the scripted model provider.

    [project.entry-points.inspect_ai]
    werewolf_deception = "werewolf_deception.benchmarks.integrations.inspect_registry"

Inspect loads this module when a name in the ``werewolf_deception/`` namespace is asked for
(``inspect eval werewolf_deception/werewolf``) or when it looks for a model provider it does not know
(``--model werewolf_scripted/play``). The tasks are registered the documented way, with ``@task``: Inspect
names a task after the installed package its function lives in, ``werewolf_deception``. Where Inspect does
not see the package as installed (a source tree that comes first on ``sys.path`` beside a stale
``*.egg-info``, as when the tests run from the checkout), the name is given whole, so the tasks are
``werewolf_deception/werewolf`` and ``werewolf_deception/werewolf_detect`` either way.
"""

from __future__ import annotations

from collections.abc import Callable

from inspect_ai import Task, task
from inspect_ai.util import registry_info

from werewolf_deception.benchmarks.integrations import inspect_models, inspect_tasks

NAMESPACE = "werewolf_deception"
__all__ = ["NAMESPACE", "inspect_models", "werewolf", "werewolf_detect"]


def registered(fn: Callable[..., Task], short: str) -> Callable[..., Task]:
    """``fn`` as the task ``werewolf_deception/<short>``."""
    decorated: Callable[..., Task] = task(name=short)(fn)
    if registry_info(decorated).name != f"{NAMESPACE}/{short}":
        decorated = task(name=f"{NAMESPACE}/{short}")(fn)
    return decorated


werewolf = registered(inspect_tasks.werewolf, "werewolf")
werewolf_detect = registered(inspect_tasks.werewolf_detect, "werewolf_detect")
