"""LLM concurrency benchmark: how close full games get to the critical path the rules force, and what they cost.

    python benchmarks/perf/llm_concurrency.py [--games 2] [--latency 0.1] [--concurrency 1 16]

Starts the scripted OpenAI-compatible server (``werewolf_deception.agents.fake.server``) in its own process with a
fixed latency per call, plays full 8-player games with ``LLMAgent`` in every seat (default options)
at each concurrency, and prints JSON per run:

* ``calls_per_game``: model calls (``llm_call`` records, repairs included);
* ``call_rounds_per_game``: simultaneous groups in which at least one call went out (a group answered
  without a call, such as bids folded into the analyses, costs no latency);
* ``wall_s_per_game``, ``critical_path_s`` (call rounds times the latency) and ``ratio_wall_to_critical``
  (target: <= 1.15 at high concurrency);
* ``prompt_tokens_per_game`` (and ``prompt_tokens_per_call``: how long a game runs follows the scripted
  answers, which follow the prompts, so games differ in length between versions): the tokens of every
  prompt sent, counted by ``token_counter`` (``werewolf_env.record``): tiktoken's cl100k_base from the file
  the ``tokens`` extra ships (offline), else characters / 4, which ``token_counter`` names (an estimate:
  docs/performance.md says how far off it is);
* ``cacheable_share``: per provider rule (``CACHE_RULES``: any prefix, OpenAI, Anthropic), the share of
  those tokens its prompt cache would serve (``CacheModel``), and ``uncached_prompt_tokens_per_game``;
* with ``--price PROMPT CACHED COMPLETION`` (USD per million tokens, as a lineup's ``[prices]``),
  ``cost_usd_per_game`` per rule (``cost_usd``; completion tokens are the scripted answers').
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from werewolf_deception.agents import play_game_sync
from werewolf_deception.benchmarks.console import game_option
from werewolf_env.record import CACHE_RULES, CacheModel, Price, cache_shares, cost_usd, prompt_segments, token_counter

Encode = Callable[[str], list[Any]]  # text -> tokens


class GameCost:
    """Calls, call rounds, prompt tokens and the reusable prefix of one game, from its log records."""

    def __init__(self) -> None:
        self.group_starts: list[int] = []  # engine events before each group was asked
        self._group = -1

    def hook(self, env: Any, agent: str, info: dict[str, Any]) -> None:
        """``play_game``'s ``info_hook``: notes where each simultaneous group starts (adds nothing to ``info``)."""
        state = env.game.state
        if state.group_id != self._group:
            self._group = state.group_id
            self.group_starts.append(len(state.events))

    def measure(self, records: list[dict[str, Any]], encode: Encode) -> dict[str, Any]:
        calls, rounds, completion = 0, set(), 0
        cache = CacheModel(encode)
        events = 0
        group = 0
        for record in records:
            if record.get("type") != "agent_record":
                events += record.get("type") not in ("header", "snapshot")
                continue
            data = record["data"]
            if data.get("type") != "llm_call":
                continue
            while group + 1 < len(self.group_starts) and self.group_starts[group + 1] <= events:
                group += 1  # a group's records come after its start and before the next group's first step
            calls += 1
            rounds.add(group)
            cache.add(record.get("actor"), prompt_segments(data.get("messages") or []))
            completion += len(encode(str(data.get("raw") or "")))
        return {"calls": calls, "call_rounds": len(rounds), "completion_tokens": completion, **cache.totals}


def bench(
    base_url: str, games: int, concurrency: int, latency: float, players: int, price: Price | None = None
) -> dict[str, Any]:
    lineup = {"default": {"kind": "llm", "model": "fake", "base_url": base_url, "temperature": 0.0}}
    config = {"num_players": players}  # the default pack for that many players
    counter, encode = token_counter()
    walls, costs = [], []
    for seed in range(games):
        cost = GameCost()
        started = time.perf_counter()
        result = play_game_sync(config, lineup, seed=seed, concurrency=concurrency, info_hook=cost.hook)
        walls.append(time.perf_counter() - started)
        costs.append(cost.measure(result.events, encode))
    wall = sum(walls) / games
    rounds = sum(c["call_rounds"] for c in costs) / games
    critical = rounds * latency
    totals = {key: sum(c[key] for c in costs) for key in ("prompt_tokens", "completion_tokens", *CACHE_RULES)}
    tokens = totals["prompt_tokens"]
    run: dict[str, Any] = {
        "concurrency": concurrency,
        "games": games,
        "calls_per_game": sum(c["calls"] for c in costs) / games,
        "call_rounds_per_game": rounds,
        "prompt_tokens_per_game": round(tokens / games),
        # per call too: a scripted game's length (and so its tokens) follows its answers, not the prompts alone
        "prompt_tokens_per_call": round(tokens / max(1, sum(c["calls"] for c in costs))),
        "completion_tokens_per_game": round(totals["completion_tokens"] / games),
        "token_counter": counter,
        "cacheable_share": cache_shares(totals),
        # what each provider's server still has to evaluate
        "uncached_prompt_tokens_per_game": {rule: round((tokens - totals[rule]) / games) for rule in CACHE_RULES},
    }
    if price is not None:
        run["price"] = price.model_dump()
        run["cost_usd_per_game"] = {
            rule: round(cost_usd({**totals, "cached_tokens": totals[rule]}, price) / games, 6) for rule in CACHE_RULES
        }
    return {
        **run,
        "wall_s_per_game": round(wall, 3),
        "critical_path_s": round(critical, 3),
        "ratio_wall_to_critical": round(wall / critical, 3),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=2)
    parser.add_argument("--latency", type=float, default=0.1)
    game_option(parser, "num_players", help="seats per game")
    parser.add_argument("--concurrency", type=int, nargs="+", default=[1, 16])
    parser.add_argument(
        "--price", type=float, nargs=3, metavar=("PROMPT", "CACHED", "COMPLETION"),
        help="USD per million tokens (a lineup's [prices]): adds cost_usd_per_game per cache rule",
    )  # fmt: skip
    args = parser.parse_args(argv)
    price = Price(prompt=args.price[0], cached_prompt=args.price[1], completion=args.price[2]) if args.price else None
    server = subprocess.Popen(
        [sys.executable, "-m", "werewolf_deception.agents.fake.server", "--latency", str(args.latency)],
        stdout=subprocess.PIPE,
        text=True,
        cwd=Path(__file__).resolve().parents[2],
    )
    try:
        base_url = server.stdout.readline().strip()  # type: ignore[union-attr]
        results = [bench(base_url, args.games, c, args.latency, args.players, price) for c in args.concurrency]
    finally:
        server.terminate()
        server.wait(timeout=10)
    rules = {"cache_rules": CACHE_RULES}
    print(json.dumps({"latency_s": args.latency, "players": args.players, **rules, "runs": results}, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
