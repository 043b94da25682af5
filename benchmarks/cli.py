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
from pathlib import Path
from typing import Any

from agents import load_lineup, play_game
from werewolf_env import GameConfig
from werewolf_env.env import raw_env
from werewolf_env.log import replay
from werewolf_env.metrics import aggregate

from .llm_flags import (
    EXIT_BAD_OPTIONS,
    EXIT_FAILED_GAMES,
    EXIT_INVALID,
    EXIT_STOPPED,
    add_llm_flags,
    check_run_flags,
    identity_of,
    llm_overrides,
    with_overrides,
)
from .relabel import add_relabel_parser, relabel_command
from .report import build_report, find_logs, load_records
from .report_cli import add_report_parser, fmt_value, report_command
from .run_command import RunPlan, execute, run_command
from .runs import RunDir, RunMismatchError
from .validity import format_validity, run_validity, worst_fallback_rate


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
    run.add_argument("--rounds", type=int, help="nights and days before the game ends undecided (default 10)")
    run.add_argument("--debate-turns", type=int, help="statements per day (default 6)")
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
    add_llm_flags(run)
    add_report_parser(commands)
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
    add_llm_flags(tour)
    add_relabel_parser(commands)
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
    if args.command == "relabel":
        return relabel_command(args)
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
        check_run_flags(args)
        tour = load_tournament(args.config)
        overrides = llm_overrides(args)
        if overrides:
            tour = tour.model_copy(update={"entrants": [with_overrides(e, overrides) for e in tour.entrants]})
        config = tour.game_config()
    except (ValueError, OSError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_BAD_OPTIONS
    out = args.out or Path("runs") / tour.name
    jobs = schedule(tour)
    plan = RunPlan(
        out=out, identity={"config": config.model_dump(mode="json"),
                           "entrants_identity": identity_of([e.model_dump(mode="json") for e in tour.entrants]),
                           "seed": tour.seed},
        record={"entrants": [e.model_dump(mode="json") for e in tour.entrants]},
        jobs=jobs, kind="tournament", label=tour.name, config=config,
        concurrency=args.concurrency or tour.concurrency, breaker=args.breaker, cache=not args.no_cache,
        sections=[(f"entrant {e.label()}", e) for e in tour.entrants if e.kind == "llm"],
    )  # fmt: skip
    started = time.perf_counter()
    outcome = execute(plan, args)
    if isinstance(outcome, int):
        return outcome
    entries = outcome.entries
    run = RunDir(out)
    done = [j for j in jobs if entries.get(j.id, {}).get("status") == "ok"]
    failed = [entries[j.id] for j in jobs if entries.get(j.id, {}).get("status") == "failed"]
    validity = run_validity([run.log_of(j.id) for j in done])
    if outcome.stopped is not None:
        print(f"TOURNAMENT STOPPED: {outcome.stopped}. {len(done)} of {len(jobs)} games finished and kept; "
              "fix the endpoint and run the same command to resume.", file=sys.stderr)  # fmt: skip
        return EXIT_STOPPED
    records = [r for r in load_records([run.log_of(j.id) for j in done])]
    if not records:
        print(f"error: no game finished ({len(failed)} failed; see {run.results_path})", file=sys.stderr)
        return EXIT_FAILED_GAMES
    document = build_report(out, baseline_games=args.baseline_games, plots=not args.no_plots,
                            title=f"Werewolf deception tournament: {tour.name}")  # fmt: skip
    ratings = fit_ratings(records, tour.names)
    table = entrant_table(tour, document, records, ratings)
    worst = worst_fallback_rate(validity)
    invalid = worst is not None and worst[1] is not None and worst[1] > args.max_fallback_rate
    result = {
        "name": tour.name, "games": len(records),
        "failed": [{"game": e["game"], "error": e["error"]} for e in failed],
        "seconds": round(time.perf_counter() - started, 2),
        "seating": "blocks of one seed, entrants rotated over seats",
        "ratings": ratings, "entrants": table, "validity": validity,
        "status": "invalid" if invalid else "ok", "endpoints": outcome.endpoints,
    }  # fmt: skip
    (out / "tournament.json").write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
    if invalid and worst is not None:
        print(f"INVALID TOURNAMENT: {worst[0]} fell back on {worst[1]:.0%} of its actions, more than "
              f"--max-fallback-rate {args.max_fallback_rate:.0%}: its figures do not measure the model.")  # fmt: skip
    if not args.quiet:
        print_tournament(result, out)
        for line in format_validity(validity):
            print(f"  {line}")
    if invalid:
        return EXIT_INVALID
    return EXIT_FAILED_GAMES if failed else 0


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
    from .validity import common_answers, format_coverage

    # Both sides over the same games; the comparison only on analyses answered under both labelings, so
    # a labeler whose server failed is neither scored 0 nor compared on a different subset.
    rescored = [r for r in load_records(find_logs(out)) if r.complete]
    names = {Path(r.source or "").name for r in rescored}
    originals = [r for r in load_records(find_logs(args.run_dir)) if r.complete and Path(r.source or "").name in names]
    first, second = aggregate(originals, resamples=0), document["metrics"]
    paired = [aggregate(side, resamples=0)["detective"]["by_role"] for side in common_answers(originals, rescored)]
    print(f"  analyses: original labels {format_coverage(first['totals']['analysis_coverage'])}; labels by "
          f"{label} {format_coverage(second['totals']['analysis_coverage'])}")  # fmt: skip
    print(f"  detection by observer role, original labels -> labels by {label}, on the analyses answered under both:")
    for role in sorted(set(paired[0]) | set(paired[1])):
        before, after = paired[0].get(role, {}), paired[1].get(role, {})
        coverages = (
            f"original {format_coverage(first['detective']['by_role'].get(role, {}).get('coverage'))}, "
            f"new {format_coverage(second['detective']['by_role'].get(role, {}).get('coverage'))}, "
            f"compared on {after.get('coverage', {}).get('answered', 0)}"
        )
        if after.get("no_valid_predictions", True):
            print(f"    {role:<9} no valid predictions; {coverages}")
            continue
        print(f"    {role:<9} F1 {fmt_value(before.get('f1'))} -> {fmt_value(after['f1'])}, "
              f"precision {fmt_value(before.get('precision'))} -> {fmt_value(after['precision'])}, "
              f"recall {fmt_value(before.get('recall'))} -> {fmt_value(after['recall'])}; {coverages}")  # fmt: skip
    print(f"  new labels: {out / 'tables' / 'analyses.csv'}   report: {out / 'report.html'}")
    return 0 if not failed else 1


if __name__ == "__main__":
    raise SystemExit(main())
