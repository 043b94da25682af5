"""The rules engine: ``Game``, one handler per phase-graph node, and the NDJSON log and replay.

``werewolf_env.engine`` also gives the public names of ``werewolf_env.engine.game``,
loaded on first use (so that importing a sibling module does not load that one).
"""

from __future__ import annotations

from werewolf_env.core.moved import reexport

__getattr__, __dir__ = reexport(
    __name__,
    "werewolf_env.engine.game",
    (
        "Game",
        "GameOverError",
    ),
)
