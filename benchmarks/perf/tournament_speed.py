"""Tournament throughput and memory: a heuristic tournament through the real run machinery.

    python benchmarks/perf/tournament_speed.py                 # 1,000 games, 1 and 2 worker processes
    python benchmarks/perf/tournament_speed.py --games 200 --workers 1 2 4

Plays the games of a two-entrant heuristic tournament (blocks of one seed, entrants rotated over
the seats) into a scratch run folder, exactly as ``werewolf-bench tournament`` does (logs written
and moved into place, a result line per game), without the report. Prints JSON: games/s per worker
count, the peak resident memory of the parent and of the worker processes, and the parent's
resident memory after 10%, 50% and 100% of the games: flat, because logs stream to disk and only
a small result line per game stays in memory.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import resource
import sys
import tempfile
import time
from pathlib import Path

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from werewolf_deception.benchmarks.runs import Progress, RunDir, TournamentConfig, play_run, schedule


def rss_mb() -> float:
    """This process's resident memory now (Linux), in MB."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return float("nan")


class Sampler(Progress):
    """A silent progress that records resident memory at 10%, 50% and 100% of the games."""

    def __init__(self, total: int) -> None:
        super().__init__(total, 0, quiet=True)
        self.samples: dict[str, float] = {}

    def show(self, force: bool = False) -> None:
        for share in (0.1, 0.5, 1.0):
            key = f"{int(share * 100)}%"
            if key not in self.samples and self.done >= share * self.total:
                self.samples[key] = round(rss_mb(), 1)


def measure(games: int, workers: int, concurrency: int) -> dict[str, object]:
    config = TournamentConfig.model_validate(
        {
            "name": "speed",
            "games": games,
            "entrants": [{"kind": "heuristic", "name": "heuristic-a"}, {"kind": "heuristic", "name": "heuristic-b"}],
        }
    )
    jobs = schedule(config)[:games]
    with tempfile.TemporaryDirectory() as folder:
        run = RunDir(folder)
        run.open({"config": config.game_config().model_dump(mode="json")}, [j.id for j in jobs], "tournament")
        sampler = Sampler(len(jobs))
        started = time.perf_counter()
        entries = asyncio.run(play_run(run, config.game_config(), jobs, concurrency, sampler, workers=workers))
        seconds = time.perf_counter() - started
        disk = sum(p.stat().st_size for p in Path(folder, "games").glob("*.ndjson"))
    failed = sum(e["status"] != "ok" for e in entries)
    return {
        "workers": workers,
        "games": len(jobs),
        "failed": failed,
        "seconds": round(seconds, 2),
        "games_per_s": round(len(jobs) / seconds, 2),
        "parent_rss_mb_at": sampler.samples,
        "log_mb_on_disk": round(disk / 2**20, 1),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--concurrency", type=int, default=8, help="games in flight per process")
    args = parser.parse_args(argv)
    runs = [measure(args.games, w, args.concurrency) for w in args.workers]
    self_peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    children_peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    print(
        json.dumps(
            {
                "benchmark": "tournament_speed",
                "runs": runs,
                "peak_rss_mb": {"parent": round(self_peak, 1), "largest_worker": round(children_peak, 1)},
            },
            indent=1,
        )
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
