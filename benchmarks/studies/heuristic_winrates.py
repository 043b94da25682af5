"""Village win rates: heuristic villagers versus random villagers, both against heuristic werewolves.

    python benchmarks/studies/heuristic_winrates.py [--games 1000] [--players 8]

Prints JSON with each lineup's village wins, win rate and its 95% Wilson interval, and the time per
game. The heuristic village must win clearly more often than the random one.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from werewolf_deception.agents import play_game_sync
from werewolf_deception.benchmarks.console import game_option


def wilson(wins: int, n: int, z: float = 1.96) -> tuple[float, float]:
    if n == 0:
        return 0.0, 0.0
    p = wins / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return round(centre - half, 4), round(centre + half, 4)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=1000)
    game_option(parser, "num_players", help="seats per game")
    args = parser.parse_args(argv)
    config = {"num_players": args.players}  # the default pack for that many players
    out: dict[str, Any] = {"games": args.games, "players": args.players, "werewolves": "heuristic"}
    for village in ("heuristic", "random"):
        lineup = {"default": village, "teams": {"werewolf": "heuristic"}}
        started = time.perf_counter()
        winners = [play_game_sync(config, lineup, seed=s).winner for s in range(args.games)]
        wins = winners.count("village")
        out[f"village_{village}"] = {
            "village_wins": wins,
            "werewolf_wins": winners.count("werewolf"),
            "undecided": winners.count(None),
            "village_win_rate": round(wins / args.games, 4),
            "ci95": wilson(wins, args.games),
            "ms_per_game": round((time.perf_counter() - started) / args.games * 1000, 1),
        }
    print(json.dumps(out, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
