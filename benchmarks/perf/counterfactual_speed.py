"""How fast the counterfactual signs are: statements analysed per second at the default budget, with the
rollout memo and without it.

    python benchmarks/perf/counterfactual_speed.py                 # 5 heuristic 8-player games, one core
    python benchmarks/perf/counterfactual_speed.py --games 10 --determinizations 16 --rollouts 4 --rounds 5

Plays the games with heuristic agents once, then scores every statement of each (its first vote
proposal to every living listener) on one core, ``--rounds`` times with the memo
(``werewolf_env.counterfactual.memo``) and as many without, interleaved (the order alternates each round,
so drift on a shared machine hits both alike), and prints JSON: the medians of statements per second
(``statements_per_s``, ``statements_per_s_no_memo``) and their ratio, rollouts per second, seconds
per game (mean and worst, with the memo), the rollouts actually played, the machine, and whether
both paths gave the same rows (they must: the memo only skips rollouts that would end alike). The
default budget must score a whole game in under a minute.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from werewolf_deception.agents import play_game_sync
from werewolf_deception.benchmarks.detect import statement_rows
from werewolf_deception.benchmarks.report.memory import machine
from werewolf_env.counterfactual import CounterfactualValuer


def score(logs: list[Path], valuer: CounterfactualValuer) -> tuple[list[float], list[list[dict[str, Any]]]]:
    """Seconds per game and the rows of every game."""
    seconds, rows = [], []
    for log in logs:
        started = time.perf_counter()
        rows.append(statement_rows(log, valuer))
        seconds.append(time.perf_counter() - started)
    return seconds, rows


def main(argv: list[str] | None = None) -> int:
    defaults = CounterfactualValuer()
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=5)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--determinizations", type=int, default=defaults.determinizations)
    parser.add_argument("--rollouts", type=int, default=defaults.rollouts)
    parser.add_argument("--rounds", type=int, default=3, help="timed rounds per path (medians reported)")
    args = parser.parse_args(argv)
    timings: dict[bool, list[list[float]]] = {True: [], False: []}
    rows: dict[bool, list[list[dict[str, Any]]]] = {}
    played: dict[bool, int] = {}
    with tempfile.TemporaryDirectory() as folder:
        logs = []
        for k in range(args.games):
            log = play_game_sync({"num_players": 8}, "heuristic", args.seed + k, log_dir=Path(folder) / str(k)).log_path
            assert log is not None  # a log directory was given
            logs.append(Path(log))
        for r in range(args.rounds):
            for memo in (True, False) if r % 2 == 0 else (False, True):
                valuer = CounterfactualValuer(args.determinizations, args.rollouts, memo=memo)
                seconds, rows[memo] = score(logs, valuer)
                timings[memo].append(seconds)
                played[memo] = valuer.played
    statements = sum(len(game) for game in rows[True])
    proposals = sum(bool(r["values"]) for game in rows[True] for r in game)
    rollouts = sum(r["rollouts"] for game in rows[True] for r in game)
    rate = {memo: statistics.median(statements / sum(t) for t in runs) for memo, runs in timings.items()}
    per_game = [statistics.median(run[k] for run in timings[True]) for k in range(args.games)]
    total = statistics.median(sum(t) for t in timings[True])
    print(
        json.dumps(
            {
                "benchmark": "counterfactual_speed",
                "games": args.games,
                "rounds": args.rounds,
                "budget": {"determinizations": args.determinizations, "rollouts": args.rollouts},
                "statements": statements,
                "statements_with_a_vote_proposal": proposals,
                "rollouts": rollouts,
                "rollouts_played": {"memo": played[True], "no_memo": played[False]},
                "statements_per_s": round(rate[True], 2),
                "statements_per_s_no_memo": round(rate[False], 2),
                "ratio": round(rate[True] / rate[False], 2),
                "rollouts_per_s": round(rollouts / total),
                "seconds_per_game": {"mean": round(total / args.games, 2), "max": round(max(per_game), 2)},
                "under_a_minute_per_game": max(per_game) < 60,
                "identical_rows": rows[True] == rows[False],
                "machine": machine(),
            },
            indent=1,
        )
    )
    return 0 if rows[True] == rows[False] else 1


if __name__ == "__main__":
    raise SystemExit(main())
