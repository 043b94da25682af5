"""Balance of the role sets: village win rates of heuristic games with and without the witch and the hunter.

    python benchmarks/studies/balance.py [--games 2000] [--players 8] [--seed 0] [--workers 2]

Every role set plays the same seeds, all seats heuristic: "default" (the default pack, a seer, a
doctor, villagers), "+witch" and "+hunter" (the role in place of a villager), "+witch+hunter". Prints
JSON: per role set the village win rate with its 95% Wilson interval, the mean and sd of the rounds
played, undecided games (``max_rounds`` reached), fallbacks (should be 0), games and seconds.
"""

from __future__ import annotations

import argparse
import datetime
import json
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from werewolf_deception.agents import play_game_sync
from werewolf_deception.benchmarks.console import game_option
from werewolf_deception.benchmarks.runs import worker_pool
from werewolf_deception.benchmarks.studies.heuristic_winrates import wilson
from werewolf_env.core import Role

# The roles each set adds to the default game, each in place of a villager.
ROLE_SETS: dict[str, tuple[Role, ...]] = {
    "default": (),
    "+witch": (Role.WITCH,),
    "+hunter": (Role.HUNTER,),
    "+witch+hunter": (Role.WITCH, Role.HUNTER),
}


def role_set_config(players: int, added: tuple[Role, ...]) -> dict[str, Any]:
    """The game config of a role set: the default game of ``players``, plus one seat of each added role."""
    config: dict[str, Any] = {"num_players": players}
    if added:
        config["role_counts"] = {role.value: 1 for role in added}
    return config


def play_seeds(config: dict[str, Any], seeds: list[int]) -> list[tuple[str | None, int, int]]:
    """(winner, rounds, fallbacks) of heuristic games, one per seed (a worker's share)."""
    outcomes = []
    for seed in seeds:
        result = play_game_sync(config, "heuristic", seed)
        outcomes.append((result.winner, result.rounds, result.fallbacks))
    return outcomes


def summarize(outcomes: list[tuple[str | None, int, int]], seconds: float) -> dict[str, Any]:
    games = len(outcomes)
    winners = [winner for winner, _, _ in outcomes]
    rounds = [r for _, r, _ in outcomes]
    wins = winners.count("village")
    return {
        "games": games,
        "village_wins": wins,
        "werewolf_wins": winners.count("werewolf"),
        "undecided": winners.count(None),
        "village_win_rate": round(wins / games, 4) if games else None,
        "ci95": wilson(wins, games),
        "mean_rounds": round(statistics.fmean(rounds), 3) if rounds else None,
        "sd_rounds": round(statistics.stdev(rounds), 3) if len(rounds) > 1 else None,
        "fallbacks": sum(f for _, _, f in outcomes),
        "seconds": round(seconds, 2),
    }


def run(games: int, players: int, seed: int, workers: int) -> dict[str, Any]:
    seeds = list(range(seed, seed + games))
    out: dict[str, Any] = {
        "date": datetime.date.today().isoformat(), "games_per_set": games, "players": players,
        "seeds": [seed, seed + games - 1], "workers": workers, "lineup": "heuristic",
    }  # fmt: skip
    started = time.perf_counter()
    pool = worker_pool(workers) if workers > 1 else None
    try:
        for name, added in ROLE_SETS.items():
            config = role_set_config(players, added)
            set_started = time.perf_counter()
            if pool is None:
                outcomes = play_seeds(config, seeds)
            else:
                # Interleaved shares, so each worker gets as many long games as the other.
                shares = [seeds[i::workers] for i in range(workers)]
                parts = list(pool.map(play_seeds, [config] * workers, shares))
                by_seed = {
                    s: o for share, part in zip(shares, parts, strict=True) for s, o in zip(share, part, strict=True)
                }
                outcomes = [by_seed[s] for s in seeds]
            out[name] = {"config": config, **summarize(outcomes, time.perf_counter() - set_started)}
    finally:
        if pool is not None:
            pool.shutdown()
    out["seconds"] = round(time.perf_counter() - started, 2)
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=2000, help="games per role set")
    game_option(parser, "num_players", help="seats per game")
    parser.add_argument("--seed", type=int, default=0, help="first seed; every role set plays the same seeds")
    parser.add_argument("--workers", type=int, default=2, help="processes (1: play in this process)")
    args = parser.parse_args(argv)
    if args.games < 1 or args.workers < 1:
        parser.error("--games and --workers must be at least 1")
    print(json.dumps(run(args.games, args.players, args.seed, args.workers), indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
