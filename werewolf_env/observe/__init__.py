"""Observations: a seat's text and numeric vector, their layout and parts.

The names other packages use, from the modules that define them.
"""

from __future__ import annotations

from werewolf_env.observe.build import OBS_LAYOUT, OBS_SIZE, ObservationRenderer, layout_slices
from werewolf_env.observe.layout import KIND_INDEX, layout_of, obs_layout
from werewolf_env.observe.text import Section
from werewolf_env.observe.transcript import Transcript

__all__ = [
    "KIND_INDEX",
    "OBS_LAYOUT",
    "OBS_SIZE",
    "ObservationRenderer",
    "Section",
    "Transcript",
    "layout_of",
    "layout_slices",
    "obs_layout",
]
