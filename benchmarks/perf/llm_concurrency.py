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
  prompt sent, counted by ``token_counter``: tiktoken's
  cl100k_base when it is installed and its encoding loads (``TIKTOKEN_CACHE_DIR`` offline), else
  whitespace-separated words (about 0.75 of cl100k's count on English text; the name says which);
* ``cacheable_prefix_share``: the share of those tokens that are a reusable prefix of the same seat's
  previous prompt, in whole 128-token blocks (what OpenAI's prompt caching reuses; target >= 0.6), and
  ``uncached_prompt_tokens_per_game``, the rest.
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

BLOCK = 128  # tokens per reusable block (OpenAI's prompt caching grain)
Encode = Callable[[str], list[Any]]  # text -> tokens


def token_counter() -> tuple[str, Encode]:
    """(name, encode) of the counter: tiktoken's cl100k_base if it loads (offline it may not), else the server's."""
    try:
        import tiktoken

        encoding = tiktoken.get_encoding("cl100k_base")
    except Exception:  # not installed, or its encoding file cannot be fetched (offline)
        return "whitespace-separated words (tiktoken's cl100k_base could not load)", str.split
    return "tiktoken cl100k_base", encoding.encode


def prompt_tokens(messages: list[dict[str, Any]], encode: Encode) -> list[Any]:
    """A prompt as tokens: each message's role (standing for the chat template's few tokens), then its text."""
    tokens: list[Any] = []
    for message in messages:
        tokens.append(f"<{message.get('role')}>")
        tokens.extend(encode(str(message.get("content", ""))))
    return tokens


def shared_prefix(a: list[Any], b: list[Any]) -> int:
    n = 0
    for x, y in zip(a, b, strict=False):
        if x != y:
            break
        n += 1
    return n


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
        calls, rounds, total, reusable = 0, set(), 0, 0
        previous: dict[Any, list[Any]] = {}
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
            tokens = prompt_tokens(data.get("messages") or [], encode)
            total += len(tokens)
            seat = record.get("actor")
            reusable += shared_prefix(previous.get(seat, []), tokens) // BLOCK * BLOCK
            previous[seat] = tokens
        return {"calls": calls, "call_rounds": len(rounds), "prompt_tokens": total, "reusable": reusable}


def bench(base_url: str, games: int, concurrency: int, latency: float, players: int) -> dict[str, Any]:
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
    tokens = sum(c["prompt_tokens"] for c in costs)
    reusable = sum(c["reusable"] for c in costs)
    return {
        "concurrency": concurrency,
        "games": games,
        "calls_per_game": sum(c["calls"] for c in costs) / games,
        "call_rounds_per_game": rounds,
        "prompt_tokens_per_game": round(tokens / games),
        # per call too: a scripted game's length (and so its tokens) follows its answers, not the prompts alone
        "prompt_tokens_per_call": round(tokens / max(1, sum(c["calls"] for c in costs))),
        "token_counter": counter,
        "cacheable_prefix_share": round(reusable / tokens, 3) if tokens else None,
        # what a prefix-caching server still has to evaluate
        "uncached_prompt_tokens_per_game": round((tokens - reusable) / games),
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
    args = parser.parse_args(argv)
    server = subprocess.Popen(
        [sys.executable, "-m", "werewolf_deception.agents.fake.server", "--latency", str(args.latency)],
        stdout=subprocess.PIPE,
        text=True,
        cwd=Path(__file__).resolve().parents[2],
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
