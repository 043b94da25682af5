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
  random legal moves, and the ratios of ``analysis_off`` (and of the unread loop) to it;
- the RL path, integers and masks, with a uniformly random legal integer per decision: ``discrete_aec`` (the
  numeric AEC env, ``discrete_env()``), ``discrete_aec_wrapper`` (the same game through the ``DiscreteActions``
  wrapper around the text env, as before the numeric path), ``discrete_parallel`` (``parallel_discrete_env()``:
  one step per simultaneous group); with ``decisions_per_s`` (turns answered per second: a step of the AEC env
  or of a board game is one decision, a Parallel step answers its whole group);
- ``tictactoe``, ``connect_four``, with pygame (``pip install -e ".[compare]"``): PettingZoo's ``tictactoe_v3``
  and ``connect_four_v3`` in the same AEC loop with the same policy, and the ratios of the RL workloads to them
  (``rl_ratios``: per round, median, min and max).

``--compiled PYTHON`` also runs the same workloads in ``PYTHON``, an environment where the compiled build is
installed (``WEREWOLF_COMPILE=1 pip install .``), after this one's, and prints them under ``compiled`` with the
ratios compiled/pure per workload; the compiled run's ratios to TextArena (installed there) are interleaved in
its own process.

Targets (issue 36): the compiled text loop at least 1.0x TextArena's steps/s, the compiled engine at least 2.3x,
games/s at least 0.4x (our games are longer: every living player bids before each statement); ``discrete_aec``
steps/s at least 1.3x ``tictactoe_v3``'s. Absolute figures vary by machine; the ratios are measured in one run,
the workloads interleaved so drift in machine speed hits all alike.
"""

from __future__ import annotations

import argparse
import importlib
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
from werewolf_env import Game, GameConfig, env, raw_env
from werewolf_env.envs import NO_ACTION
from werewolf_env.wrappers import DiscreteActions, discrete_env, parallel_discrete_env

# PettingZoo's board games, the references of the RL workloads: (name, module, games per one of ours). A game of
# ours has about 170 steps, tic-tac-toe about 9 and connect four about 22: about as many steps each.
BOARD_GAMES = (("tictactoe", "tictactoe_v3", 18), ("connect_four", "connect_four_v3", 8))


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


def _legal_choice(rng: random.Random, mask: Any) -> int:
    """A uniformly random legal integer: the one policy of every RL workload and board game."""
    return rng.choice(mask.nonzero()[0].tolist())


def play_aec(env: Any, seed: int, rng: random.Random) -> tuple[int, int]:
    """One game in PettingZoo's AEC loop; returns (steps, decisions: the steps of an agent still in play)."""
    env.reset(seed=seed)
    steps = decisions = 0
    for _agent in env.agent_iter():
        observation, _reward, termination, truncation, _info = env.last()
        if termination or truncation:
            env.step(None)
        else:
            env.step(_legal_choice(rng, observation["action_mask"]))
            decisions += 1
        steps += 1
    return steps, decisions


def play_parallel(env: Any, seed: int, rng: random.Random) -> tuple[int, int]:
    """One game of the Parallel env, every seat answering each step; returns (steps, decisions: turns answered)."""
    observations, infos = env.reset(seed=seed)
    steps = decisions = 0
    while env.agents:
        decisions += sum(info["action_kind"] != NO_ACTION for info in infos.values())
        actions = {agent: _legal_choice(rng, observations[agent]["action_mask"]) for agent in env.agents}
        observations, _rewards, _terminations, _truncations, infos = env.step(actions)
        steps += 1
    return steps, decisions


def bench_paired(workloads: dict[str, tuple[Any, Any, int]], games: int) -> dict[str, dict[str, Any]]:
    """The RL workloads and their references, interleaved game by game (``name: (make, play, games per
    unit)``: each unit plays that many games, one of ours or about as many steps of a board game), so that a
    busy machine slows them alike and their ratios hold; each env is made once and warmed up first."""
    envs = {name: make() for name, (make, _play, _per) in workloads.items()}
    rngs = {name: random.Random(0) for name in workloads}  # one each: the wrapper plays the numeric env's games
    for name, (_make, play_game, _per) in workloads.items():
        play_game(envs[name], 10**6, rngs[name])
    totals = {name: [0.0, 0, 0] for name in workloads}  # seconds, steps, decisions
    for unit in range(games):
        for name, (_make, play_game, per) in workloads.items():
            total, game_env, rng = totals[name], envs[name], rngs[name]
            started = time.perf_counter()
            for seed in range(unit * per, (unit + 1) * per):
                game_steps, game_decisions = play_game(game_env, seed, rng)
                total[1] += game_steps
                total[2] += game_decisions
            total[0] += time.perf_counter() - started
    out = {}
    for name, (elapsed, steps, decisions) in totals.items():
        played = games * workloads[name][2]
        out[name] = {
            "games": played,
            "steps": steps,
            "seconds": round(elapsed, 3),
            "games_per_s": round(played / elapsed, 2),
            "steps_per_s": round(steps / elapsed, 1),
            "decisions_per_s": round(decisions / elapsed, 1),
            "steps_per_game": round(steps / played, 1),
            "decisions_per_game": round(decisions / played, 1),
        }
    return out


def board_game(module: str) -> Any:
    """PettingZoo's classic ``module``'s ``env`` maker, or None without pygame (which it imports)."""
    try:
        return importlib.import_module(f"pettingzoo.classic.{module}").env
    except ImportError:
        return None


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

    play(10**6)  # warm caches, as every other workload does
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


_RATES = ("steps_per_s", "games_per_s", "decisions_per_s")


def _summary(runs: list[dict[str, Any]]) -> dict[str, Any]:
    """Median, best and worst of repeated runs (this kind of machine is noisy: single runs vary by 30%)."""
    out = {k: v for k, v in runs[0].items() if k not in ("seconds", *_RATES)}
    out.update({"games": sum(r["games"] for r in runs), "steps": sum(r["steps"] for r in runs)})
    for key in _RATES:
        if key in runs[0]:
            rates = sorted(r[key] for r in runs)
            out[key], out[f"{key}_best"], out[f"{key}_worst"] = rates[len(rates) // 2], rates[-1], rates[0]
    return out


def _ratios(
    runs: dict[str, list[dict[str, Any]]], ours: str, theirs: str = "textarena",
    keys: tuple[str, ...] = ("steps_per_s", "games_per_s"),
) -> dict[str, Any]:  # fmt: skip
    """Ours / theirs per round (each round ran both), for each rate in ``keys``: the median and spread."""
    out: dict[str, Any] = {}
    for key in keys:
        per_round = sorted(a[key] / b[key] for a, b in zip(runs[ours], runs[theirs], strict=True))
        out[key] = {"median": round(per_round[len(per_round) // 2], 2), "min": round(per_round[0], 2),
                    "max": round(per_round[-1], 2)}  # fmt: skip
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=200, help="games per benchmark and round")
    parser.add_argument("--rounds", type=int, default=5, help="interleaved rounds; medians are reported")
    game_option(parser, "num_players", help="seats per game")
    parser.add_argument("--compiled", metavar="PYTHON", help="also run the workloads in this compiled build's Python")
    parser.add_argument(
        "--rl-analysis", choices=("off", "self", "peer", "full"), default="off",
        help="the deception analyses of the RL workloads' games (off: as analysis_off; full: the env's default)",
    )  # fmt: skip
    args = parser.parse_args(argv)
    game = {"num_players": args.players, "analysis": args.rl_analysis}
    benches: dict[str, Any] = {
        "analysis_off": lambda: bench_env(args.games, args.players, "off"),
        "analysis_off_unread": lambda: bench_env(args.games, args.players, "off", read_text=False),
        "analysis_full": lambda: bench_env(args.games, args.players, "full"),
        "engine_only": lambda: bench_engine(args.games, args.players),
    }
    rl: dict[str, tuple[Any, Any, int]] = {
        "discrete_aec": (lambda: discrete_env(**game), play_aec, 1),
        "discrete_aec_wrapper": (lambda: DiscreteActions(env(numeric_info=True, **game)), play_aec, 1),
        "discrete_parallel": (lambda: parallel_discrete_env(**game), play_parallel, 1),
    }
    boards = []
    for name, module, per_game in BOARD_GAMES:
        make = board_game(module)
        if make is not None:
            boards.append(name)
            rl[name] = (make, play_aec, per_game)
    benches["rl"] = lambda: bench_paired(rl, args.games)
    try:
        import textarena  # noqa: F401

        benches["textarena"] = lambda: bench_textarena(args.games, args.players)
    except ImportError:
        pass
    runs: dict[str, list[dict[str, Any]]] = {name: [] for name in [*benches, *rl] if name != "rl"}
    for _ in range(args.rounds):  # interleaved, so drift in machine speed hits every benchmark alike
        for name, bench in benches.items():
            if name == "rl":  # several workloads, interleaved game by game
                for workload, measured in bench().items():
                    runs[workload].append(measured)
            else:
                runs[name].append(bench())
    result: dict[str, Any] = {
        "machine": machine(), "processes": 1, "players": args.players, "rounds": args.rounds,
        "rl_analysis": args.rl_analysis, **{name: _summary(r) for name, r in runs.items()},
    }  # fmt: skip
    rl_keys = ("steps_per_s", "decisions_per_s")
    result["rl_ratios"] = {
        f"{ours}_vs_{board}": _ratios(runs, ours, board, rl_keys)
        for board in boards
        for ours in ("discrete_aec", "discrete_parallel", "discrete_aec_wrapper")
    }
    result["rl_ratios"]["discrete_aec_vs_discrete_aec_wrapper"] = _ratios(
        runs, "discrete_aec", "discrete_aec_wrapper", rl_keys
    )
    if "tictactoe" in result:
        ours, theirs = result["discrete_aec"], result["tictactoe"]
        result["ratio_steps_per_s_discrete_aec_vs_tictactoe"] = round(ours["steps_per_s"] / theirs["steps_per_s"], 2)
        result["rl_targets"] = {"steps_per_s_discrete_aec_vs_tictactoe": 1.3}
    else:
        result["tictactoe"] = "pygame not installed (pip install -e '.[compare]')"
    if "textarena" in result:
        ours, theirs = result["analysis_off"], result["textarena"]
        result["ratio_steps_per_s_off_vs_textarena"] = round(ours["steps_per_s"] / theirs["steps_per_s"], 2)
        result["ratio_games_per_s_off_vs_textarena"] = round(ours["games_per_s"] / theirs["games_per_s"], 2)
        result["ratios_per_round"] = {
            name: _ratios(runs, name) for name in ("analysis_off", "analysis_off_unread", "engine_only")
        }
    else:
        result["textarena"] = "not installed (pip install -e '.[compare]')"
    if args.compiled:
        same = ["--games", str(args.games), "--rounds", str(args.rounds), "--players", str(args.players),
                "--rl-analysis", args.rl_analysis]  # fmt: skip
        result["compiled"] = bench_compiled(args.compiled, same)
        result["compiled_vs_pure"] = _compiled_vs_pure(result, result["compiled"])
    print(json.dumps(result, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
