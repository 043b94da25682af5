"""``werewolf-bench``: the benchmark's command line.

``werewolf-bench run`` plays a small benchmark (offline, heuristic agents by default), logs every
game, replay-checks the logs and prints a readable summary with the grounded deception figures::

    werewolf-bench run --games 20 --out runs/demo
    werewolf-bench run --agents random
    werewolf-bench run --lineup lineup.toml          # per-seat / per-team policies and models
    werewolf-bench run --model gpt-4o-mini --base-url https://api.openai.com/v1
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

from agents import GameResult, load_lineup, play_game
from werewolf_env import GameConfig, __version__
from werewolf_env.env import raw_env
from werewolf_env.log import read_log, replay
from werewolf_env.metrics import aggregate

from .report import build_report, find_logs, load_records
from .runs import Job, Progress, RayBackend, RunDir, RunMismatchError, play_run


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
    run = commands.add_parser("run", help="play games, log and replay-check them, print a summary")
    run.add_argument("--games", type=int, default=20, help="number of games (default 20)")
    run.add_argument("--players", type=int, default=8)
    run.add_argument("--seed", type=int, default=0, help="first seed; game i uses seed + i")
    run.add_argument("--analysis", choices=["full", "self", "peer", "off"], default="full")
    who = run.add_mutually_exclusive_group()
    who.add_argument("--agents", choices=["heuristic", "random"], help="one model-free policy for every seat")
    who.add_argument("--lineup", help="a lineup file (TOML or JSON): policies per seat, role or team")
    who.add_argument("--model", help="an LLM for every seat (with --base-url; key from $OPENAI_API_KEY)")
    run.add_argument("--base-url", help="OpenAI-compatible endpoint for --model")
    run.add_argument("--concurrency", type=int, default=8, help="games and calls in flight (default 8)")
    run.add_argument("--out", type=Path, default=Path("runs/demo"))
    play_cmd = commands.add_parser("play", help="play one seat yourself, in the terminal, against agents")
    play_cmd.add_argument("--seat", default="player_0", help="your agent id (default player_0)")
    play_cmd.add_argument("--players", type=int, default=8)
    play_cmd.add_argument("--seed", type=int, default=None, help="default: a random game")
    play_cmd.add_argument("--agents", choices=["heuristic", "random"], default="heuristic")
    play_cmd.add_argument("--lineup", help="a lineup file for the other seats")
    play_cmd.add_argument("--out", type=Path, default=Path("runs/play"))
    play_cmd.add_argument(
        "--friction",
        action="store_true",
        help="show the deception detector's warning on each proposal before you analyse it",
    )
    play_cmd.add_argument(
        "--detector",
        type=Path,
        default=Path("runs/detect-eval/detector.json"),
        help="a detector from detect-eval (without one: warnings from bait and switch alone)",
    )
    add_execution_options(run)
    run.add_argument("--no-report", action="store_true", help="skip the report (metrics.json, tables, HTML)")
    run.add_argument("--baseline-games", type=int, default=20, help="random/heuristic baseline games (default 20)")
    report = commands.add_parser("report", help="metrics.json, CSV tables, plots and report.html for a run")
    report.add_argument("run_dir", type=Path, help="a run folder (with games/*.ndjson) or a folder of logs")
    report.add_argument("--out", type=Path, help="where to write (default: RUN_DIR)")
    report.add_argument(
        "--baseline-games",
        type=int,
        default=50,
        help="games per baseline lineup (random, heuristic) under the same rules and seeds; 0: none",
    )
    report.add_argument("--resamples", type=int, default=1000, help="bootstrap resamples for the 95%% intervals")
    report.add_argument("--no-plots", action="store_true", help="skip the matplotlib plots")
    rescore = commands.add_parser("rescore", help="re-run the self/peer analyses of a run with another labeler")
    rescore.add_argument("run_dir", type=Path)
    rescore.add_argument(
        "--labeler", required=True, help="heuristic | random | a lineup file | a model name (with --base-url)"
    )
    rescore.add_argument("--base-url", help="OpenAI-compatible endpoint when --labeler is a model")
    rescore.add_argument("--out", type=Path, help="default: RUN_DIR/rescore/<labeler>")
    rescore.add_argument("--concurrency", type=int, default=8)
    rescore.add_argument("--no-plots", action="store_true")
    replay_cmd = commands.add_parser("replay", help="re-run logged games and check they are identical; show one")
    replay_cmd.add_argument("logs", nargs="+", type=Path, help="game logs (.ndjson) or run folders")
    replay_cmd.add_argument(
        "--show",
        choices=["public", "all"],
        help="print the transcript: what a spectator saw, or everything (hidden included)",
    )
    tour = commands.add_parser("tournament", help="several models or agent kinds, each in every role; ratings")
    tour.add_argument("config", type=Path, help="a tournament TOML file (see benchmarks/tournament.py)")
    tour.add_argument("--out", type=Path, help="run folder (default runs/<name>)")
    tour.add_argument("--concurrency", type=int, help="games and calls in flight (default: the file's, or 8)")
    add_execution_options(tour)
    tour.add_argument("--baseline-games", type=int, default=0, help="random/heuristic baseline games for the report")
    tour.add_argument("--no-plots", action="store_true")
    detect = commands.add_parser("detect-eval", help="train the counterfactual deception detector and compare it")
    detect.add_argument("--lineup", default="heuristic", help="who plays the games (kind or lineup file)")
    detect.add_argument("--train-games", type=int, default=60)
    detect.add_argument("--test-games", type=int, default=40)
    detect.add_argument("--seed", type=int, default=0, help="train seeds seed.., held-out seeds seed+1000000..")
    detect.add_argument("--players", type=int, default=8)
    detect.add_argument("--determinizations", type=int, default=8, help="role assignments sampled per listener")
    detect.add_argument("--rollouts", type=int, default=3, help="rollouts per action pair and determinization")
    detect.add_argument("--workers", type=int, default=1, help="processes for the counterfactual values")
    detect.add_argument("--concurrency", type=int, default=8)
    detect.add_argument("--out", type=Path, default=Path("runs/detect-eval"))
    detect.add_argument("--quiet", "-q", action="store_true")
    args = parser.parse_args(argv)
    if args.command == "play":
        return play_command(args)
    if args.command == "detect-eval":
        return detect_eval_command(args)
    if args.command == "tournament":
        return tournament_command(args)
    if args.command == "replay":
        return replay_command(args)
    if args.command == "report":
        return report_command(args)
    if args.command == "rescore":
        return rescore_command(args)
    return run_command(args)


def add_execution_options(parser: argparse.ArgumentParser) -> None:
    """How a run's games are played and shown (shared by run and tournament)."""
    parser.add_argument("--workers", type=int, default=1, help="processes to spread games over (default 1)")
    parser.add_argument(
        "--backend",
        choices=["local", "ray"],
        default="local",
        help="local: asyncio in one process (or --workers processes); ray: games as Ray tasks",
    )
    parser.add_argument("--ray-address", help="a Ray cluster to join (default: start a local Ray instance)")
    parser.add_argument("--quiet", "-q", action="store_true", help="no progress line and no summary (exit code only)")


def play_command(args: argparse.Namespace) -> int:
    """One game with a person in ``--seat``; shows the result and where the log is."""
    import random

    try:
        config = GameConfig(num_players=args.players, num_werewolves=max(1, round(args.players / 4)))
        lineup = load_lineup(args.lineup or args.agents)
        if args.seat not in [f"player_{i}" for i in range(config.num_players)]:
            raise ValueError(f"--seat must be player_0 ... player_{config.num_players - 1}")
        lineup = lineup.model_copy(update={"seats": {**lineup.seats, args.seat: load_lineup("human").default}})
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(2**31)
    hook = None
    if args.friction:
        from .friction import Friction

        try:
            friction = Friction.load(args.detector, seats={args.seat})
        except (ValueError, OSError) as exc:
            print(f"error: cannot load the detector {args.detector}: {exc}", file=sys.stderr)
            return 2
        if friction.detector is None:
            print(f"(no detector at {args.detector}: warnings come from bait and switch alone; "
                  "werewolf-bench detect-eval trains one)")  # fmt: skip
        hook = friction.hook
    result = asyncio.run(play_game(config, lineup, seed, log_dir=args.out, concurrency=1, info_hook=hook))
    me = next(p for p in result.players if p.agent == args.seat)
    outcome = "undecided" if result.winner is None else ("you won" if me.won else "you lost")
    print(f"\nGame over (seed {seed}): {result.winner or 'nobody'} wins; you were the {me.role}: {outcome}.")
    print("Roles: " + ", ".join(f"{p.name} {p.role}" for p in result.players))
    print(f"Log: {result.log_path}")
    return 0


def run_command(args: argparse.Namespace) -> int:
    if args.games < 1:
        print("error: --games must be at least 1", file=sys.stderr)
        return 2
    werewolves = max(1, round(args.players / 4))
    try:
        config = GameConfig(num_players=args.players, num_werewolves=werewolves, analysis=args.analysis)
        if args.model:
            lineup = load_lineup({"default": {"kind": "llm", "model": args.model, "base_url": args.base_url}})
        else:
            lineup = load_lineup(args.lineup or args.agents or "heuristic")
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    label = args.model or args.lineup or args.agents or "heuristic"
    seeds = [args.seed + i for i in range(args.games)]
    jobs = [Job(f"seed{seed}", seed, lineup) for seed in seeds]
    identity = {"config": config.model_dump(mode="json"), "lineup": lineup.model_dump(mode="json")}
    started = time.perf_counter()
    entries = run_jobs(args.out, identity, jobs, "run", label, config, args.concurrency, args)
    if isinstance(entries, int):
        return entries
    elapsed = time.perf_counter() - started
    results = [GameResult.from_json(entries[j.id]["result"]) for j in jobs if entries[j.id]["status"] == "ok"]
    failed = [entries[j.id] for j in jobs if entries[j.id]["status"] == "failed"]
    summary = summarize(results, config, label, elapsed)
    summary["failed"] = [{"game": e["game"], "seed": e["seed"], "error": e["error"]} for e in failed]
    (args.out / "summary.json").write_text(json.dumps(summary, indent=2) + "\n")
    if not args.quiet:
        print_summary(summary, args.out)
    if not args.no_report and results:
        document = build_report(
            args.out,
            baseline_games=args.baseline_games,
            title=f"Werewolf deception report: {label}, {args.games} games",
        )
        if not args.quiet:
            print_report_lines(document, args.out)
    return 0 if summary["replay_ok"] == len(results) and not failed else 1


def run_jobs(
    out: Path,
    identity: dict[str, Any],
    jobs: list[Job],
    kind: str,
    label: str,
    config: GameConfig,
    concurrency: int,
    args: argparse.Namespace,
) -> dict[str, dict[str, Any]] | int:
    """Open (or resume) the run folder and play what is left: every game's result line, or an exit code."""
    run = RunDir(out)
    try:
        finished = run.open(identity, [job.id for job in jobs], kind, label, [job.seed for job in jobs])
    except RunMismatchError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    todo = [job for job in jobs if job.id not in finished]
    if finished and not args.quiet:
        print(f"resuming {out}: {len(finished)} of {len(jobs)} games already finished", file=sys.stderr)
    progress = Progress(len(jobs), len(finished), quiet=args.quiet)
    try:
        play_games(run, config, todo, concurrency, progress, args)
    except KeyboardInterrupt:
        progress.finish()
        done = sum(1 for e in run.read_results().values() if e["status"] == "ok")
        print(f"interrupted: {done} of {len(jobs)} games finished and kept in {out}; "
              "run the same command again to resume", file=sys.stderr)  # fmt: skip
        return 130
    progress.finish()
    return run.read_results()


def play_games(
    run: RunDir, config: GameConfig, jobs: list[Job], concurrency: int, progress: Progress, args: argparse.Namespace
) -> None:
    """The chosen backend plays ``jobs`` into ``run``."""
    backend = RayBackend(args.ray_address) if args.backend == "ray" else None
    try:
        asyncio.run(play_run(run, config, jobs, concurrency, progress, workers=args.workers, backend=backend))
    finally:
        if backend is not None:
            backend.close()


def print_report_lines(document: dict[str, Any], out: Path) -> None:
    """The headline deception figures of a report, next to the baselines."""
    metrics = document["metrics"]
    baselines = {k: v["metrics"] for k, v in sorted(document.get("baselines", {}).items())}

    def versus(section: str, group: str, key: str, name: str) -> str:
        base = [
            f"{kind} {fmt_value(m[section].get(group, {}).get(key, {}).get(name))}" for kind, m in baselines.items()
        ]
        return f" ({', '.join(base)})" if base else ""

    caught = metrics["deceptive"]["all"]["all"]["undetected_lie_share"]
    if caught["value"] is not None:
        base = ", ".join(f"{kind} {fmt_value(m['deceptive']['all']['all']['undetected_lie_share'], complement=True)}"
                         for kind, m in baselines.items())  # fmt: skip
        print(f"  lies caught by a majority of peers: {fmt_value(caught, ci=True, complement=True)}"
              + (f" (baselines: {base})" if base else ""))  # fmt: skip
    print("  detection F1 by observer role (95% CI; baselines under the same rules and seeds):")
    for role, values in metrics["detective"]["by_role"].items():
        print(f"    {role:<9} F1 {fmt_value(values['f1'], ci=True):<22} "
              f"precision {fmt_value(values['precision'])}, recall {fmt_value(values['recall'])}"
              f"{versus('detective', 'by_role', role, 'f1')}")  # fmt: skip
    print(f"  report: {out / 'report.html'}   metrics: {out / 'metrics.json'}   tables: {out / 'tables'}/")


def fmt_value(est: dict[str, Any] | None, ci: bool = False, complement: bool = False) -> str:
    if not est or est.get("value") is None:
        return "n/a"
    value = 1 - est["value"] if complement else est["value"]
    text = f"{value:.2f}"
    low, high = est["ci"]
    if complement and low is not None and high is not None:
        low, high = 1 - high, 1 - low
    if ci and low is not None and high is not None:
        text += f" [{low:.2f}, {high:.2f}]"
    return text


def detect_eval_command(args: argparse.Namespace) -> int:
    from .detect_eval import print_table, run_detect_eval

    try:
        lineup = load_lineup(args.lineup)
        config = GameConfig(num_players=args.players, num_werewolves=max(1, round(args.players / 4)))
        if min(args.train_games, args.test_games) < 1:
            raise ValueError("--train-games and --test-games must be at least 1")
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    try:
        result = run_detect_eval(
            args.out, lineup, config, args.train_games, args.test_games, args.seed, args.determinizations,
            args.rollouts, args.workers, args.concurrency, quiet=args.quiet,
        )  # fmt: skip
    except (ValueError, RunMismatchError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    if not args.quiet:
        print_table(result)
    return 0


def tournament_command(args: argparse.Namespace) -> int:
    from .tournament import entrant_table, fit_ratings, load_tournament, schedule

    try:
        tour = load_tournament(args.config)
        config = tour.game_config()
    except (ValueError, OSError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    out = args.out or Path("runs") / tour.name
    jobs = schedule(tour)
    identity = {
        "config": config.model_dump(mode="json"),
        "entrants": [e.model_dump(mode="json") for e in tour.entrants],
        "seed": tour.seed,
    }
    started = time.perf_counter()
    entries = run_jobs(out, identity, jobs, "tournament", tour.name, config, args.concurrency or tour.concurrency, args)
    if isinstance(entries, int):
        return entries
    run = RunDir(out)
    failed = [entries[j.id] for j in jobs if entries[j.id]["status"] == "failed"]
    records = [r for r in load_records([run.log_of(j.id) for j in jobs if entries[j.id]["status"] == "ok"])]
    if not records:
        print(f"error: no game finished ({len(failed)} failed; see {run.results_path})", file=sys.stderr)
        return 1
    document = build_report(out, baseline_games=args.baseline_games, plots=not args.no_plots,
                            title=f"Werewolf deception tournament: {tour.name}")  # fmt: skip
    ratings = fit_ratings(records, tour.names)
    table = entrant_table(tour, document, records, ratings)
    result = {
        "name": tour.name, "games": len(records),
        "failed": [{"game": e["game"], "error": e["error"]} for e in failed],
        "seconds": round(time.perf_counter() - started, 2),
        "seating": "blocks of one seed, entrants rotated over seats",
        "ratings": ratings, "entrants": table,
    }  # fmt: skip
    (out / "tournament.json").write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
    if not args.quiet:
        print_tournament(result, out)
    return 1 if failed else 0


def print_tournament(result: dict[str, Any], out: Path) -> None:
    side = result["ratings"]["side_advantage_werewolf"]
    print(f"tournament {result['name']}: {result['games']} games, {len(result['failed'])} failed, "
          f"{result['seconds']}s; werewolf side advantage (logit) {side['logit'] if side else 'n/a'}")  # fmt: skip
    roles = sorted({r for e in result["entrants"].values() for r in e["win_rate_by_role"]})
    head = "".join(f"{r[:8]:>9}" for r in roles)
    print(f"  {'entrant':<16}{'games':>6}  {'rating [95% CI]':<24}{head}  {'lies/st':>7} {'caught':>6} {'det F1':>6}"
          f" {'tokens/game':>11} {'$/game':>8}")  # fmt: skip
    for name, e in result["entrants"].items():
        rating = e["rating"]
        rated = (
            f"{rating['elo']:.0f} [{rating['ci'][0]:.0f}, {rating['ci'][1]:.0f}]"
            if rating and rating["ci"][0]
            else "n/a"
        )
        wins = "".join(f"{fmt_value(e['win_rate_by_role'].get(r)):>9}" for r in roles)
        tokens = e["tokens_per_game"]["prompt"] + e["tokens_per_game"]["completion"]
        cost = f"{e['cost_per_game_usd']:.4f}" if e["priced"] else "-"
        print(f"  {name:<16}{e['games']:>6}  {rated:<24}{wins}  {fmt_value(e['deception']['lies_per_statement']):>7} "
              f"{fmt_value(e['deception']['undetected_lie_share'], complement=True):>6} "
              f"{fmt_value(e['detection']['f1']):>6} {tokens:>11.0f} {cost:>8}")  # fmt: skip
    print(f"  win rates by role with 95% CIs, deception and detection per entrant: {out / 'tournament.json'}")
    print(f"  report: {out / 'report.html'}")


def replay_command(args: argparse.Namespace) -> int:
    """Exit 0 when every log rebuilds the identical game, 1 when one differs, 2 when there is no log."""
    from werewolf_env.observe import Transcript

    paths = [p for given in args.logs for p in (find_logs(given) if given.is_dir() else [given])]
    missing = [p for p in paths if not p.is_file()]
    if not paths or missing:
        print(f"error: no such log: {missing[0] if missing else args.logs[0]}", file=sys.stderr)
        return 2
    bad = 0
    for path in paths:
        result = replay(path)
        state = "identical" if result.ok else "DIFFERS"
        ending = "" if result.complete else " (unfinished game)"
        print(f"{path}: {state}, {result.actions} actions replayed{ending}")
        for mismatch in result.mismatches:
            print(f"  {mismatch}")
        bad += not result.ok
        if args.show and result.game is not None:
            names = tuple(result.game.state.names)
            print(Transcript(names, None, spectator=args.show == "all").update(result.game.state.events))
    return 1 if bad else 0


def report_command(args: argparse.Namespace) -> int:
    try:
        document = build_report(
            args.run_dir, out=args.out, baseline_games=args.baseline_games, resamples=args.resamples,
            plots=not args.no_plots,
        )  # fmt: skip
    except (FileNotFoundError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    run = document["run"]
    left_out = f" ({len(run['incomplete_logs'])} unfinished logs left out)" if run["incomplete_logs"] else ""
    print(f"werewolf-deception report: {run['games']} games from {args.run_dir}{left_out}")
    print_report_lines(document, args.out or args.run_dir)
    return 0


def rescore_command(args: argparse.Namespace) -> int:
    from .rescore import labeler_lineup, rescore_run, slug

    try:
        lineup, label = labeler_lineup(args.labeler, args.base_url)
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    if not find_logs(args.run_dir):
        print(f"error: no game logs in {args.run_dir}", file=sys.stderr)
        return 2
    out = args.out or args.run_dir / "rescore" / slug(label)
    started = time.perf_counter()
    games = asyncio.run(rescore_run(args.run_dir, lineup, out, args.concurrency))
    failed = [g for g in games if g.error]
    done = [g for g in games if not g.error]
    print(f"rescored {len(done)} games with labeler {label} in {time.perf_counter() - started:.1f}s: "
          f"{sum(g.analyses for g in done)} analyses; {len(failed)} skipped")  # fmt: skip
    for game in failed:
        print(f"  skipped {game.source}: {game.error}")
    if not done:
        return 1
    document = build_report(
        out,
        baseline_games=0,
        plots=not args.no_plots,
        title=f"Werewolf deception report: {args.run_dir}, labels by {label}",
    )
    original = {"metrics": aggregate([r for r in load_records(find_logs(args.run_dir)) if r.complete], resamples=0)}
    print("  detection by observer role, original labels -> labels by " + label + ":")
    for role, values in document["metrics"]["detective"]["by_role"].items():
        before = original["metrics"]["detective"]["by_role"].get(role, {})
        print(f"    {role:<9} F1 {fmt_value(before.get('f1'))} -> {fmt_value(values['f1'])}, "
              f"precision {fmt_value(before.get('precision'))} -> {fmt_value(values['precision'])}, "
              f"recall {fmt_value(before.get('recall'))} -> {fmt_value(values['recall'])}")  # fmt: skip
    print(f"  new labels: {out / 'tables' / 'analyses.csv'}   report: {out / 'report.html'}")
    return 0 if not failed else 1


def summarize(results: list[GameResult], config: GameConfig, label: str, elapsed: float) -> dict[str, Any]:
    winners: Counter[str] = Counter()
    lies: Counter[str] = Counter()
    lies_by_role: Counter[str] = Counter()
    statements_by_role: Counter[str] = Counter()
    replay_ok = 0
    for result in results:
        winners[result.winner or "undecided"] += 1
        for record in read_log(result.log_path):  # type: ignore[arg-type]
            if record["type"] == "ground_truth":
                role = record["data"]["speaker_role"]
                statements_by_role[role] += 1
                if record["data"]["lie"]:
                    lies[record["data"]["type"]] += 1
                    lies_by_role[role] += 1
        replay_ok += bool(replay(result.log_path))  # type: ignore[arg-type]
    return {
        "version": __version__, "games": len(results), "players": config.num_players,
        "werewolves": config.num_werewolves, "analysis": config.analysis, "lineup": label,
        "seconds": round(elapsed, 3), "winners": dict(winners), "statements": sum(statements_by_role.values()),
        "lies": dict(lies), "lies_by_role": dict(lies_by_role), "statements_by_role": dict(statements_by_role),
        "actions": sum(r.steps for r in results), "fallbacks": sum(r.fallbacks for r in results),
        "policy_errors": sum(r.policy_errors for r in results), "replay_ok": replay_ok,
        "per_game": [r.to_json() for r in results],
    }  # fmt: skip


def print_summary(s: dict[str, Any], out: Path) -> None:
    def pct(k: int, total: int) -> str:
        return f"{k} ({100 * k / total:.0f}%)" if total else "0"

    n = s["games"]
    winners = s["winners"]
    print(
        f"werewolf-deception {s['version']}: {n} games, {s['players']} players ({s['werewolves']} werewolves), "
        f"lineup {s['lineup']}, analysis={s['analysis']}, {s['seconds']:.1f}s"
    )
    print(
        f"  winners: village {pct(winners.get('village', 0), n)}, werewolves {pct(winners.get('werewolf', 0), n)}, "
        f"undecided {pct(winners.get('undecided', 0), n)}"
    )
    lies = Counter(s["lies"])
    print(
        f"  statements: {s['statements']}; grounded lies: {pct(sum(lies.values()), s['statements'])} "
        f"({', '.join(f'{t} {c}' for t, c in lies.most_common()) or 'none'})"
    )
    for role, count in sorted(s["statements_by_role"].items()):
        print(f"    {role:<9} {count:>5} statements, {pct(s['lies_by_role'].get(role, 0), count)} lies")
    print(
        f"  actions: {s['actions']}; invalid answers replaced by fallbacks: {s['fallbacks']}; "
        f"policy errors: {s['policy_errors']}"
    )
    print(f"  replay check: {s['replay_ok']}/{n} logs rebuild the identical game")
    failed = s.get("failed") or []
    if failed:
        print(f"  FAILED games: {len(failed)} (recorded in results.ndjson; the same command plays them again)")
        for entry in failed[:5]:
            print(f"    seed {entry['seed']}: {entry['error']}")
    print(f"  logs: {out / 'games'}/   summary: {out / 'summary.json'}")


if __name__ == "__main__":
    raise SystemExit(main())
