"""How fast the counterfactual signs are: statements analysed per second at the default budget.

    python benchmarks/counterfactual_speed.py                 # 5 heuristic 8-player games, one core
    python benchmarks/counterfactual_speed.py --games 10 --determinizations 16 --rollouts 4

Plays the games with heuristic agents, then scores every statement of each (its first vote proposal
to every living listener) on one core and prints JSON: statements and proposals per second,
rollouts per second, seconds per game (mean and worst). The default budget must score a whole
game in under a minute.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from agents import play_game_sync
from benchmarks.detector import statement_rows
from werewolf_env.counterfactual import CounterfactualValuer


def main(argv: list[str] | None = None) -> int:
    defaults = CounterfactualValuer()
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=5)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--determinizations", type=int, default=defaults.determinizations)
    parser.add_argument("--rollouts", type=int, default=defaults.rollouts)
    args = parser.parse_args(argv)
    valuer = CounterfactualValuer(args.determinizations, args.rollouts)
    per_game = []
    statements = proposals = rollouts = 0
    with tempfile.TemporaryDirectory() as folder:
        for k in range(args.games):
            log = play_game_sync({"num_players": 8}, "heuristic", args.seed + k, log_dir=Path(folder) / str(k)).log_path
            assert log is not None  # a log directory was given
            started = time.perf_counter()
            rows = statement_rows(log, valuer)
            per_game.append(time.perf_counter() - started)
            statements += len(rows)
            proposals += sum(bool(r["values"]) for r in rows)
            rollouts += sum(r["rollouts"] for r in rows)
    total = sum(per_game)
    print(json.dumps({
        "benchmark": "counterfactual_speed", "games": args.games,
        "budget": {"determinizations": args.determinizations, "rollouts": args.rollouts},
        "statements": statements, "statements_with_a_vote_proposal": proposals, "rollouts": rollouts,
        "statements_per_s": round(statements / total, 2), "rollouts_per_s": round(rollouts / total),
        "seconds_per_game": {"mean": round(total / args.games, 2), "max": round(max(per_game), 2)},
        "under_a_minute_per_game": max(per_game) < 60,
    }, indent=1))  # fmt: skip
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
