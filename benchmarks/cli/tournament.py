"""``werewolf-bench tournament CONFIG.toml``: the command (the tournament itself is
``werewolf_deception.benchmarks.runs.tournament``).

Exit codes are those of ``run`` (``werewolf_deception.benchmarks.console.exit_codes``); a tournament name that is not a
plain name (it names the folder ``runs/<name>``) is refused with exit 2 before anything is written. Entrant names may be
any text: they are keys, never split, and are shown inert in the terminal.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any

from werewolf_deception.benchmarks.cli.report import fmt_value, signed
from werewolf_deception.benchmarks.cli.run import RunPlan, execute
from werewolf_deception.benchmarks.console import (
    EXIT_FAILED_GAMES,
    EXIT_INVALID,
    EXIT_STOPPED,
    Bar,
    check_run_flags,
    identity_of,
    llm_overrides,
    refuse,
    with_overrides,
)
from werewolf_deception.benchmarks.report import build_report, token_lines
from werewolf_deception.benchmarks.runs import (
    RunDir,
    TournamentConfig,
    TournamentGame,
    entrant_table,
    fit_ratings,
    format_validity,
    game_validity,
    load_tournament,
    run_validity,
    schedule,
    worst_fallback_rate,
)
from werewolf_env.analysis import GameRecord
from werewolf_env.core import terminal_safe
from werewolf_env.engine import read_log


def tournament_command(args: argparse.Namespace) -> int:
    try:
        check_run_flags(args)
        tour = load_tournament(args.config)
        overrides = llm_overrides(args)
        if overrides:
            tour = tour.model_copy(update={"entrants": [with_overrides(e, overrides) for e in tour.entrants]})
        config = tour.game_config()
    except (ValueError, OSError) as exc:
        return refuse(exc)  # one line, whatever the file holds
    out = args.out or Path("runs") / tour.name
    plan = RunPlan(
        out=out,
        identity={
            "config": config.model_dump(mode="json"),
            "entrants_identity": identity_of([e.model_dump(mode="json") for e in tour.entrants]),
            "seed": tour.seed,
        },
        record={
            "entrants": [e.model_dump(mode="json") for e in tour.entrants],
            "prices": {m: p.model_dump() for m, p in tour.model_prices().items()},
        },  # the report's costs by model
        jobs=schedule(tour),
        kind="tournament",
        label=tour.name,
        config=config,
        concurrency=args.concurrency or tour.concurrency,
        breaker=args.breaker,
        cache=not args.no_cache,
        sections=[(f"entrant {e.label()}", e) for e in tour.entrants if e.kind == "llm"],
        prices=tour.model_prices(),
    )
    try:
        return play_tournament(plan, tour, args)
    finally:
        RunDir(out).close()


def play_tournament(plan: RunPlan, tour: TournamentConfig, args: argparse.Namespace) -> int:
    out, jobs = plan.out, plan.jobs
    started = time.perf_counter()
    outcome = execute(plan, args)
    if isinstance(outcome, int):
        return outcome
    entries = outcome.entries
    run = RunDir(out)
    done = [j for j in jobs if entries.get(j.id, {}).get("status") == "ok"]
    failed = [entries[j.id] for j in jobs if entries.get(j.id, {}).get("status") == "failed"]
    if outcome.stopped is not None:
        print(
            f"TOURNAMENT STOPPED: {outcome.stopped}. {len(done)} of {len(jobs)} games finished and kept; "
            "fix the endpoint and run the same command to resume.",
            file=sys.stderr,
        )
        return EXIT_STOPPED
    records, validity = read_games([run.log_of(j.id) for j in done], args.quiet)
    if not records:
        print(f"error: no game finished ({len(failed)} failed; see {run.results_path})", file=sys.stderr)
        return EXIT_FAILED_GAMES
    document = build_report(
        out,
        baseline_games=args.baseline_games,
        plots=not args.no_plots,
        progress=not args.quiet,
        title=f"Werewolf deception tournament: {tour.name}",
        max_fallback_rate=args.max_fallback_rate,
    )
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
        "status": "invalid" if invalid else "ok", "max_fallback_rate": args.max_fallback_rate,
        "endpoints": outcome.endpoints,
        "tokens": document.get("tokens") or {},  # by call kind and model, with the cost at the prices by model
    }  # fmt: skip
    run.write_json("tournament.json", result)
    if invalid and worst is not None:
        entrant = terminal_safe(str(worst[0]))
        print(
            f"INVALID TOURNAMENT: {entrant} fell back on {worst[1]:.0%} of its actions, more than "
            f"--max-fallback-rate {args.max_fallback_rate:.0%}: its figures do not measure the model."
        )
    if not args.quiet:
        print_tournament(result, out)
        for line in format_validity(validity):
            print(f"  {terminal_safe(line)}")
    if invalid:
        return EXIT_INVALID
    return EXIT_FAILED_GAMES if failed else 0


def read_games(paths: list[Path], quiet: bool) -> tuple[list[TournamentGame], dict[str, Any]]:
    """Each finished game's few fields for the ratings, and the answer validity over them: one read per log
    (``tournament.tournament_games`` and ``validity.run_validity`` in one pass), with a progress bar."""
    records, validities = [], []
    with Bar("reading games", len(paths), unit="logs", quiet=quiet, leave=False) as bar:
        for path in paths:
            raw = read_log(path)
            validities.append(game_validity(raw))
            records.append(TournamentGame.of(GameRecord.from_events(raw, source=str(path))))
            del raw
            bar.advance()
    return records, run_validity(validities)


def print_tournament(result: dict[str, Any], out: Path) -> None:
    side = result["ratings"]["side_advantage_werewolf"]
    print(
        f"tournament {result['name']}: {result['games']} games, {len(result['failed'])} failed, "
        f"{result['seconds']}s; werewolf side advantage (logit) {side['logit'] if side else 'n/a'}"
    )
    roles = sorted({r for e in result["entrants"].values() for r in e["win_rate_by_role"]})
    head = "".join(f"{r[:8]:>9}" for r in roles)
    print(
        f"  {'entrant':<16}{'games':>6}  {'rating [95% CI]':<24}{head}  {'lies/st':>7} {'caught':>6} {'det F1':>6}"
        f" {'tokens/game':>11} {'$/game':>8}"
    )
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
        print(
            f"  {terminal_safe(name):<16}{e['games']:>6}  {rated:<24}{wins}  "
            f"{fmt_value(e['deception']['lies_per_statement']):>7} "
            f"{fmt_value(e['deception']['undetected_lie_share'], complement=True):>6} "
            f"{fmt_value(e['detection']['f1']):>6} {tokens:>11.0f} {cost:>8}"
        )
    print_persuasion(result)
    for line in token_lines(result.get("tokens") or {}):  # nothing when no entrant called a model
        print(f"  {line}")
    print(f"  win rates by role with 95% CIs, deception and detection per entrant: {out / 'tournament.json'}")
    print(f"  report: {out / 'report.html'}")


def print_persuasion(result: dict[str, Any]) -> None:
    """Beside the ratings: each entrant's persuasion and lie success (95% CIs), and what they rest on."""
    print(
        f"  {'entrant':<16}{'persuasion [95% CI]':>24}  {'lie success [95% CI]':>22} {'lies':>5}  "
        f"{'resistance [95% CI]':>24}  {'peer analyses':>13}"
    )
    for name, e in result["entrants"].items():
        p = e.get("persuasion") or {}
        cov = p.get("coverage") or {}
        print(
            f"  {terminal_safe(name):<16}{signed(p.get('persuasion')):>24}  "
            f"{fmt_value(p.get('deception_success'), ci=True):>22} {p.get('lies_measured') or 0:>5}  "
            f"{signed(p.get('resistance')):>24}  {cov.get('answered', 0):>6}/{cov.get('expected', 0)}"
        )
