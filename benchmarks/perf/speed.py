"""Speed benchmark: full games with random legal actions, against TextArena's SecretMafia-v0.

    python benchmarks/perf/speed.py [--games 200] [--rounds 5] [--players 8]

Prints one JSON object, the medians (and the spread) of interleaved rounds, for each workload:

- ``analysis_off`` / ``analysis_full``: the PettingZoo loop (``env.last()`` then ``env.step``) with the
  acting seat's text observation rendered on every step (``obs["text"]`` is read), as TextArena hands
  each player its observation;
- ``analysis_off_unread``: the same loop where no observation is read (a policy reading only ``info``,
  like the random one): observations are made only when read (``observation.Observation``);
- ``engine_only``: the bare rules engine without observations (what counterfactual rollouts use);
- ``textarena``, when installed (``pip install -e ".[compare]"``): ``SecretMafia-v0`` with 8 players and
  random legal moves, and the ratios of ``analysis_off`` (and of the unread loop) to it.

Targets (issue 19): ``analysis_off`` steps/s at least 2.0x TextArena's and games/s at least 1.0x (our
games are longer: about 171 steps against 67). Absolute figures vary by machine; the ratios are
measured in one run, the workloads interleaved so drift in machine speed hits all alike.

``--compiled PYTHON`` also runs the same workloads in ``PYTHON``, an environment where the compiled build is
installed (``WEREWOLF_COMPILE=1 pip install .``), after this one's, and prints them under ``compiled`` with the
ratios compiled/pure per workload; the compiled run's ratios to TextArena (installed there) are interleaved in
its own process. Targets (issue 36): the compiled text loop at least 1.0x TextArena's steps/s, the compiled
engine at least 2.3x, games/s at least 0.4x.
"""

from __future__ import annotations

import argparse
import json
import random
import subprocess
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from werewolf_deception.agents import RandomAgent
from werewolf_deception.benchmarks.cli.main import play
from werewolf_deception.benchmarks.console import game_option
from werewolf_deception.benchmarks.perf.compiled_identity import environment, rules_module
from werewolf_deception.benchmarks.report.memory import machine
from werewolf_env import Game, GameConfig, raw_env


def _peak_mb(run: Any) -> float:
    """Peak traced Python memory of one call of ``run`` (tracing slows it; timed runs do not trace)."""
    tracemalloc.start()
    run()
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return round(peak / 2**20, 3)


def bench_env(games: int, players: int, analysis: str, read_text: bool = True) -> dict[str, Any]:
    env = raw_env(num_players=players, analysis=analysis)
    policies = [RandomAgent(seat) for seat in range(players)]
    play(env, policies, 10**6, read_text)  # warm caches
    started = time.perf_counter()
    steps = sum(play(env, policies, seed, read_text) for seed in range(games))
    elapsed = time.perf_counter() - started
    return {
        "games": games,
        "steps": steps,
        "seconds": round(elapsed, 3),
        "games_per_s": round(games / elapsed, 2),
        "steps_per_s": round(steps / elapsed, 1),
        "steps_per_game": round(steps / games, 1),
        "text_read": read_text,
        "peak_mb_one_game": _peak_mb(lambda: play(env, policies, 10**6 + 1, read_text)),
    }


def bench_engine(games: int, players: int) -> dict[str, Any]:
    """The rules engine alone: no observation text, no env adapter (the rollout path)."""
    config = GameConfig(num_players=players, analysis="off")
    policy = RandomAgent(0)

    def play(seed: int) -> int:
        game = Game(config, seed)
        steps = 0
        while not game.over:
            turn = game.current
            assert turn is not None  # a game not over always has a turn pending
            info = {"action_kind": turn.kind.value, "max_bid": config.max_bid,
                    "legal_targets": [game.state.names[p] for p in game.legal_targets(turn)]}  # fmt: skip
            game.act(policy.act({}, info))
            steps += 1
        return steps

    started = time.perf_counter()
    steps = sum(play(seed) for seed in range(games))
    elapsed = time.perf_counter() - started
    return {
        "games": games,
        "steps": steps,
        "seconds": round(elapsed, 3),
        "games_per_s": round(games / elapsed, 2),
        "steps_per_s": round(steps / elapsed, 1),
    }


def bench_textarena(games: int, players: int) -> dict[str, Any] | None:
    try:
        import textarena as ta
    except ImportError:
        return None
    rng = random.Random(0)
    words = "I think we should vote for someone quiet today because they seem suspicious".split()

    def play(seed: int) -> int:
        env = ta.make("SecretMafia-v0")
        env.reset(num_players=players, seed=seed)
        steps = 0
        done = False
        while not done:
            _pid, _observation = env.get_observation()  # renders the player's text observation
            alive = env.state.game_state["alive_players"]
            if rng.random() < 0.5:
                action = " ".join(rng.choice(words) for _ in range(rng.randint(3, 15))) + f" [{rng.choice(alive)}]"
            else:
                action = f"[{rng.choice(alive)}]"
            done, _info = env.step(action)
            steps += 1
        env.close()
        return steps

    play(10**6)
    started = time.perf_counter()
    steps = sum(play(seed) for seed in range(games))
    elapsed = time.perf_counter() - started
    return {
        "env": "SecretMafia-v0",
        "version": getattr(ta, "__version__", "?"),
        "games": games,
        "steps": steps,
        "seconds": round(elapsed, 3),
        "games_per_s": round(games / elapsed, 2),
        "steps_per_s": round(steps / elapsed, 1),
        "steps_per_game": round(steps / games, 1),
        "peak_mb_one_game": _peak_mb(lambda: play(10**6 + 1)),
    }


def bench_compiled(python: str, argv: list[str]) -> dict[str, Any]:
    """This script's workloads in ``python``, an environment with the compiled build installed: run outside any
    checkout and without ``PYTHONPATH``, so it imports what it installed (``rules_module`` shows which file)."""
    env = environment(pure=False)
    with tempfile.TemporaryDirectory() as folder:
        scratch = Path(folder)
        run = [python, "-m", "werewolf_deception.benchmarks.perf.speed", *argv]
        result: dict[str, Any] = json.loads(subprocess.run(run, cwd=scratch, env=env, capture_output=True,
                                                           text=True, check=True).stdout)  # fmt: skip
        result["rules_module"] = rules_module(python, env, scratch)
    if isinstance(result.get("textarena"), dict):
        theirs = result["textarena"]["steps_per_s"]
        result["ratio_steps_per_s_engine_vs_textarena"] = round(result["engine_only"]["steps_per_s"] / theirs, 2)
        result["targets"] = {"steps_per_s_off_vs_textarena": 1.0, "steps_per_s_engine_vs_textarena": 2.3,
                             "games_per_s_off_vs_textarena": 0.4}  # fmt: skip
    return result


def _compiled_vs_pure(pure: dict[str, Any], compiled: dict[str, Any]) -> dict[str, float]:
    """Compiled steps/s over pure steps/s, per workload both ran (medians of each build's rounds)."""
    return {name: round(compiled[name]["steps_per_s"] / bench["steps_per_s"], 2) for name, bench in pure.items()
            if isinstance(bench, dict) and "steps_per_s" in bench and isinstance(compiled.get(name), dict)}  # fmt: skip


def _summary(runs: list[dict[str, Any]]) -> dict[str, Any]:
    """Median, best and worst of repeated runs (this kind of machine is noisy: single runs vary by 30%)."""
    rates = sorted(r["steps_per_s"] for r in runs)
    games = sorted(r["games_per_s"] for r in runs)
    out = {k: v for k, v in runs[0].items() if k not in ("seconds", "steps_per_s", "games_per_s")}
    out.update(
        {
            "games": sum(r["games"] for r in runs),
            "steps": sum(r["steps"] for r in runs),
            "steps_per_s": rates[len(rates) // 2],
            "steps_per_s_best": rates[-1],
            "steps_per_s_worst": rates[0],
            "games_per_s": games[len(games) // 2],
            "games_per_s_best": games[-1],
            "games_per_s_worst": games[0],
        }
    )
    return out


def _ratios(runs: dict[str, list[dict[str, Any]]], ours: str) -> dict[str, Any]:
    """Our / TextArena's steps/s and games/s per round (each round ran both), their median and spread."""
    out: dict[str, Any] = {}
    for key in ("steps_per_s", "games_per_s"):
        per_round = sorted(a[key] / b[key] for a, b in zip(runs[ours], runs["textarena"], strict=True))
        out[key] = {"median": round(per_round[len(per_round) // 2], 2), "min": round(per_round[0], 2),
                    "max": round(per_round[-1], 2)}  # fmt: skip
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=200, help="games per benchmark and round")
    parser.add_argument("--rounds", type=int, default=5, help="interleaved rounds; medians are reported")
    game_option(parser, "num_players", help="seats per game")
    parser.add_argument("--compiled", metavar="PYTHON", help="also run the workloads in this compiled build's Python")
    args = parser.parse_args(argv)
    benches: dict[str, Any] = {
        "analysis_off": lambda: bench_env(args.games, args.players, "off"),
        "analysis_off_unread": lambda: bench_env(args.games, args.players, "off", read_text=False),
        "analysis_full": lambda: bench_env(args.games, args.players, "full"),
        "engine_only": lambda: bench_engine(args.games, args.players),
    }
    try:
        import textarena  # noqa: F401

        benches["textarena"] = lambda: bench_textarena(args.games, args.players)
    except ImportError:
        pass
    runs: dict[str, list[dict[str, Any]]] = {name: [] for name in benches}
    for _ in range(args.rounds):  # interleaved, so drift in machine speed hits every benchmark alike
        for name, bench in benches.items():
            runs[name].append(bench())
    result: dict[str, Any] = {
        "machine": machine(), "processes": 1, "players": args.players, "rounds": args.rounds,
        **{name: _summary(r) for name, r in runs.items()},
    }  # fmt: skip
    if "textarena" in result:
        ours, theirs = result["analysis_off"], result["textarena"]
        result["ratio_steps_per_s_off_vs_textarena"] = round(ours["steps_per_s"] / theirs["steps_per_s"], 2)
        result["ratio_games_per_s_off_vs_textarena"] = round(ours["games_per_s"] / theirs["games_per_s"], 2)
        result["ratios_per_round"] = {name: _ratios(runs, name) for name in ("analysis_off", "analysis_off_unread")}
        result["targets"] = {"steps_per_s_off_vs_textarena": 2.0, "games_per_s_off_vs_textarena": 1.0}
    else:
        result["textarena"] = "not installed (pip install -e '.[compare]')"
    if args.compiled:
        same = ["--games", str(args.games), "--rounds", str(args.rounds), "--players", str(args.players)]
        result["compiled"] = bench_compiled(args.compiled, same)
        result["compiled_vs_pure"] = _compiled_vs_pure(result, result["compiled"])
    print(json.dumps(result, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
