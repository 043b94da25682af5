"""Observations: a seat's text and numeric vector, their layout and parts.

``werewolf_env.observe`` also gives the public names of ``werewolf_env.observe.build``,
loaded on first use (so that importing a sibling module does not load that one).
"""

from __future__ import annotations

from werewolf_env.core.moved import reexport

__getattr__, __dir__ = reexport(
    __name__,
    "werewolf_env.observe.build",
    ("ObservationRenderer",),
)
