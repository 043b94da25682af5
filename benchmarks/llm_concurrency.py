"""LLM concurrency benchmark: how close full games get to the critical path the rules force.

    python benchmarks/llm_concurrency.py [--games 2] [--latency 0.1] [--concurrency 1 16]

Starts the scripted OpenAI-compatible server (``agents.fake_openai``) in its own process with a
fixed latency per call, plays full 8-player games with ``LLMAgent`` in every seat at each
concurrency, and prints JSON: calls per game, wall time per game, the critical path (the number of
sequential call rounds the env forces, i.e. simultaneous groups, times the latency) and the ratio
wall / critical path. Target: ratio <= 1.15 at high concurrency.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from agents import play_game_sync


def bench(base_url: str, games: int, concurrency: int, latency: float, players: int) -> dict[str, Any]:
    lineup = {"default": {"kind": "llm", "model": "fake", "base_url": base_url, "temperature": 0.0}}
    config = {"num_players": players}  # the default pack for that many players
    walls, calls, groups = [], [], []
    for seed in range(games):
        started = time.perf_counter()
        result = play_game_sync(config, lineup, seed=seed, concurrency=concurrency)
        walls.append(time.perf_counter() - started)
        calls.append(result.steps)
        groups.append(result.groups)
    wall = sum(walls) / games
    critical = sum(groups) / games * latency
    return {
        "concurrency": concurrency,
        "games": games,
        "calls_per_game": sum(calls) / games,
        "call_rounds_per_game": sum(groups) / games,
        "wall_s_per_game": round(wall, 3),
        "critical_path_s": round(critical, 3),
        "ratio_wall_to_critical": round(wall / critical, 3),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=2)
    parser.add_argument("--latency", type=float, default=0.1)
    parser.add_argument("--players", type=int, default=8)
    parser.add_argument("--concurrency", type=int, nargs="+", default=[1, 16])
    args = parser.parse_args(argv)
    server = subprocess.Popen(
        [sys.executable, "-m", "agents.fake_openai", "--latency", str(args.latency)],
        stdout=subprocess.PIPE,
        text=True,
        cwd=Path(__file__).resolve().parent.parent,
    )
    try:
        base_url = server.stdout.readline().strip()  # type: ignore[union-attr]
        results = [bench(base_url, args.games, c, args.latency, args.players) for c in args.concurrency]
    finally:
        server.terminate()
        server.wait(timeout=10)
    print(json.dumps({"latency_s": args.latency, "players": args.players, "runs": results}, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
