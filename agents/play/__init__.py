"""Playing games: lineups of policies and the runner.

The names other packages use, from the modules that define them.
"""

from __future__ import annotations

from werewolf_deception.agents.play.lineup import AgentSpec, Lineup, load_lineup, make_policy, read_settings_file
from werewolf_deception.agents.play.probes import ProbeResult, preflight, probe, seed_pool
from werewolf_deception.agents.play.runner import (
    GameResult,
    PlayerOutcome,
    Seat,
    calls_in_flight,
    play_game,
    play_game_sync,
    seat_seed,
)

__all__ = [
    "AgentSpec",
    "GameResult",
    "Lineup",
    "PlayerOutcome",
    "ProbeResult",
    "Seat",
    "calls_in_flight",
    "load_lineup",
    "make_policy",
    "play_game",
    "play_game_sync",
    "preflight",
    "probe",
    "read_settings_file",
    "seat_seed",
    "seed_pool",
]
