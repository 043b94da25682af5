"""``werewolf-bench``: the benchmark's command line.

``werewolf-bench run`` plays a small benchmark offline, logs every game, replay-checks the logs and
prints a readable summary with the grounded deception figures::

    werewolf-bench run --games 20 --out runs/demo
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

from agents import RandomAgent
from werewolf_env import __version__
from werewolf_env.env import raw_env
from werewolf_env.log import replay


def play(env: raw_env, policies: list[Any], seed: int) -> int:
    """One game in the plain PettingZoo loop, one policy per seat; returns the number of actions."""
    env.reset(seed=seed)
    steps = 0
    for agent in env.agent_iter():
        obs, _reward, termination, truncation, info = env.last()
        if termination or truncation:
            env.step(None)
            continue
        env.step(policies[env.agent_name_mapping[agent]].act(obs, info))
        steps += 1
    return steps


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="werewolf-bench", description="Werewolf deception benchmark.")
    commands = parser.add_subparsers(dest="command", required=True)
    run = commands.add_parser("run", help="play games offline, log and replay-check them, print a summary")
    run.add_argument("--games", type=int, default=20, help="number of games (default 20)")
    run.add_argument("--players", type=int, default=8)
    run.add_argument("--seed", type=int, default=0, help="first seed; game i uses seed + i")
    run.add_argument("--analysis", choices=["full", "self", "peer", "off"], default="full")
    run.add_argument("--out", type=Path, default=Path("runs/demo"))
    args = parser.parse_args(argv)
    return run_command(args)


def run_command(args: argparse.Namespace) -> int:
    if args.games < 1:
        print("error: --games must be at least 1", file=sys.stderr)
        return 2
    werewolves = max(1, round(args.players / 4))
    try:
        env = raw_env(
            num_players=args.players, num_werewolves=werewolves, analysis=args.analysis, log_dir=args.out / "games"
        )
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2

    started = time.perf_counter()
    winners: Counter[str] = Counter()
    lies: Counter[str] = Counter()
    lies_by_role: Counter[str] = Counter()
    statements_by_role: Counter[str] = Counter()
    games: list[dict[str, Any]] = []
    actions = fallbacks = 0
    replayed_ok = 0
    for i in range(args.games):
        seed = args.seed + i
        policies = [RandomAgent(seed * 1000 + seat) for seat in range(args.players)]
        play(env, policies, seed)
        truth = env.ground_truth()
        winner = truth["winner"] or "undecided"
        winners[winner] += 1
        for st in truth["statements"]:
            statements_by_role[st["speaker_role"]] += 1
            if st["lie"]:
                lies[st["type"]] += 1
                lies_by_role[st["speaker_role"]] += 1
        events = env.game.state.events  # type: ignore[union-attr]
        game_actions = [e for e in events if e.type == "action"]
        actions += len(game_actions)
        fallbacks += sum(1 for e in game_actions if "fallbacks" in e.data)
        check = replay(env.log_path)  # type: ignore[arg-type]
        replayed_ok += bool(check)
        games.append(
            {
                "seed": seed,
                "winner": winner,
                "rounds": env.game.state.round,  # type: ignore[union-attr]
                "statements": len(truth["statements"]),
                "log": str(env.log_path),
                "replay_ok": check.ok,
            }
        )
    elapsed = time.perf_counter() - started

    n = args.games
    total_statements = sum(statements_by_role.values())
    summary = {
        "version": __version__, "games": n, "players": args.players, "werewolves": werewolves,
        "analysis": args.analysis, "policies": "random", "seconds": round(elapsed, 3),
        "winners": dict(winners), "statements": total_statements, "lies": dict(lies),
        "lies_by_role": dict(lies_by_role), "statements_by_role": dict(statements_by_role),
        "actions": actions, "fallbacks": fallbacks, "replay_ok": replayed_ok, "per_game": games,
    }  # fmt: skip
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "summary.json").write_text(json.dumps(summary, indent=2) + "\n")

    def pct(k: int, total: int) -> str:
        return f"{k} ({100 * k / total:.0f}%)" if total else "0"

    print(
        f"werewolf-deception {__version__}: {n} games, {args.players} players ({werewolves} werewolves), "
        f"random policies, analysis={args.analysis}, {elapsed:.1f}s"
    )
    print(
        f"  winners: village {pct(winners['village'], n)}, werewolves {pct(winners['werewolf'], n)}, "
        f"undecided {pct(winners['undecided'], n)}"
    )
    print(
        f"  statements: {total_statements}; grounded lies: {pct(sum(lies.values()), total_statements)} "
        f"({', '.join(f'{t} {c}' for t, c in lies.most_common()) or 'none'})"
    )
    for role, count in sorted(statements_by_role.items()):
        print(f"    {role:<9} {count:>5} statements, {pct(lies_by_role[role], count)} lies")
    print(f"  actions: {actions}; invalid answers replaced by fallbacks: {fallbacks}")
    print(f"  replay check: {replayed_ok}/{n} logs rebuild the identical game")
    print(f"  logs: {args.out / 'games'}/   summary: {args.out / 'summary.json'}")
    return 0 if replayed_ok == n else 1


if __name__ == "__main__":
    raise SystemExit(main())
