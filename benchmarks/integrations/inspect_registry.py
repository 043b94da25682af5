"""The ``inspect_ai`` entry point of the package: registers the tasks and the scripted model provider.

    [project.entry-points.inspect_ai]
    werewolf_deception = "werewolf_deception.benchmarks.integrations.inspect_registry"

Inspect loads this module when a name in the ``werewolf_deception/`` namespace is asked for
(``inspect eval werewolf_deception/werewolf``) or when it looks for a model provider it does not know
(``--model werewolf_scripted/play``). The tasks are registered the documented way, with ``@task``: Inspect
names a task after the installed package its function lives in, ``werewolf_deception``, so they are
``werewolf_deception/werewolf`` and ``werewolf_deception/werewolf_detect``, installed editable or not.
"""

from __future__ import annotations

from inspect_ai import task

from werewolf_deception.benchmarks.integrations import inspect_models, inspect_tasks

NAMESPACE = "werewolf_deception"
__all__ = ["NAMESPACE", "inspect_models", "werewolf", "werewolf_detect"]

werewolf = task(inspect_tasks.werewolf)
werewolf_detect = task(inspect_tasks.werewolf_detect)
