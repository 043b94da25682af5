"""The rules engine: ``Game``, the phase graph and one handler per node, and the NDJSON log and replay.

The names other packages use, from the modules that define them.
"""

from __future__ import annotations

from werewolf_env.engine.errors import GameOverError
from werewolf_env.engine.game import Game
from werewolf_env.engine.log import (
    MAX_LOG_DEPTH,
    SCHEMA_VERSION,
    EventLog,
    ReplayError,
    ReplayResult,
    dumps,
    game_of_header,
    read_log,
    read_log_checked,
    replay,
    replayed_actions,
)
from werewolf_env.engine.phases import PAUSE_NODES, PHASE_GRAPH, advance
from werewolf_env.engine.rules import night_deaths, open_vote
from werewolf_env.engine.rules_base import count_choices

__all__ = [
    "MAX_LOG_DEPTH",
    "PAUSE_NODES",
    "PHASE_GRAPH",
    "SCHEMA_VERSION",
    "EventLog",
    "Game",
    "GameOverError",
    "ReplayError",
    "ReplayResult",
    "advance",
    "count_choices",
    "dumps",
    "game_of_header",
    "night_deaths",
    "open_vote",
    "read_log",
    "read_log_checked",
    "replay",
    "replayed_actions",
]
