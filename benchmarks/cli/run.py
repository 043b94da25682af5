"""``werewolf-bench run`` (and the playing half of ``tournament``): from options to a summary and an exit code.

An LLM run is either a measurement with its validity printed beside it, or a fast, clear failure:

1. every option is validated before anything starts (exit 2);
2. a preflight probes each distinct (endpoint, model) (exit 2 within seconds when one cannot answer);
3. games share one ``EndpointPool`` (a client and a concurrency cap per server, across games) and
   a response cache in the run folder (a resumed run does not pay for answered calls again);
4. a tripped circuit breaker stops the run (exit 3; finished games kept, the same command resumes);
5. per seat/model validity (answered, repaired, fallback, invalid-field rates per action kind) is in
   the summary, ``summary.json`` and the report; an LLM seat whose fallback rate exceeds
   ``--max-fallback-rate`` makes the run exit 4, said in the summary's first line;
6. the summary gives the model calls' prompt, cached and completion tokens per game and per call kind, how
   each model's were counted (server usage or an estimate) and a cost at the lineup's ``prices``
   (``werewolf_deception.benchmarks.report.tokens``); a run without model calls prints none of it.

The summary is printed once the report is written: its header gives the command's whole time (games,
replay check and report; ``seconds_total`` in ``summary.json``) and, for a resumed run, how many games an
earlier command had finished (``games_resumed``, ``games_played``). Every line fits in 100 columns
(``werewolf_deception.benchmarks.console.summary_text``), and a legend of the terms it uses follows it (``--explain``:
the full one).

Any run: the folder is locked while the command runs (a second run on it: exit 2), a disk that refuses a write stops it
with the path (exit 5), Ctrl-C and SIGTERM end it with its workers (130, 143); in each case finished games are kept and
the same command resumes (``werewolf_deception.benchmarks.console.exit_codes``).
"""

from __future__ import annotations

import argparse
import asyncio
import importlib.util
import sys
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from werewolf_deception.agents import GameResult, load_lineup
from werewolf_deception.agents.llm import EndpointPool
from werewolf_deception.agents.play import AgentSpec, Lineup, ProbeResult, seed_pool
from werewolf_deception.benchmarks.cli.report import report_lines
from werewolf_deception.benchmarks.console import (
    EXIT_BAD_OPTIONS,
    EXIT_FAILED_GAMES,
    EXIT_INVALID,
    EXIT_STOPPED,
    EXIT_STORAGE,
    MAX_GAMES,
    MAX_SEED,
    WIDTH,
    Bar,
    apply_overrides,
    check_run_flags,
    fit,
    game_config_of,
    identity_of,
    interrupted_code,
    legend_lines,
    llm_overrides,
    pack,
    print_lines,
    refuse,
    run_preflight,
)
from werewolf_deception.benchmarks.report import game_cost, priced, token_lines
from werewolf_deception.benchmarks.runs import (
    Job,
    Progress,
    RayBackend,
    RunDir,
    RunFolderError,
    RunMismatchError,
    RunStoppedError,
    check_out_folder,
    describe_os_error,
    format_validity,
    game_validity,
    play_run,
    run_validity,
    worst_fallback_rate,
)
from werewolf_env import GameConfig, __version__
from werewolf_env.analysis import ClaimsCoverage, GameRecord, action_kinds_of, claims_coverage_lines
from werewolf_env.core import DEFAULT_RULESET, Ruleset
from werewolf_env.engine import read_log, replay
from werewolf_env.record import Price, TokenTally


@dataclass
class RunPlan:
    """What to play and how: shared by ``run`` and ``tournament``."""

    out: Path
    identity: dict[str, Any]
    jobs: list[Job]
    kind: str
    label: str
    config: GameConfig
    concurrency: int
    sections: list[tuple[str, AgentSpec]]  # the LLM specs and where they sit (for the preflight and the pool)
    breaker: int = 8
    cache: bool = True
    probes: list[ProbeResult] = field(default_factory=list)
    # Written to the manifest as given (not compared on resume): the full lineup, with its transport options.
    record: dict[str, Any] = field(default_factory=dict)
    prices: dict[str, Price] = field(default_factory=dict)  # USD per million tokens by model, for the summary's cost

    @property
    def cache_dir(self) -> Path | None:
        return self.out / "cache" if self.cache and self.sections else None


@dataclass
class RunOutcome:
    entries: dict[str, dict[str, Any]]
    stopped: str | None = None
    endpoints: list[dict[str, Any]] = field(default_factory=list)
    resumed: int = 0  # games of the plan an earlier command had finished (a resumed run)


def game_config(args: argparse.Namespace) -> GameConfig:
    """The game the rule options describe, or a ValueError of one line naming the options at fault."""
    rules: dict[str, Any] = {}
    if getattr(args, "rounds", None) is not None:
        rules["max_rounds"] = args.rounds
    if getattr(args, "debate_turns", None) is not None:
        rules["max_debate_turns"] = args.debate_turns
    if getattr(args, "role_counts", None):
        rules["role_counts"] = parse_role_counts(args.role_counts)
    if getattr(args, "vote_polls", None) is not None:
        rules["vote_polls"] = args.vote_polls
    if getattr(args, "subject_suspicion", None) is not None:
        rules["subject_suspicion"] = args.subject_suspicion
    if getattr(args, "control_subject_probability", None) is not None:
        rules["control_subject_probability"] = args.control_subject_probability
    return game_config_of({"num_players": args.players, "analysis": args.analysis, **rules})  # the default pack


def parse_role_counts(text: str) -> dict[str, int]:
    """``--role-counts witch=1,hunter=1`` as a mapping (the config checks the roles and the counts)."""
    counts: dict[str, int] = {}
    for part in text.split(","):
        role, sep, count = part.partition("=")
        if not sep or not role.strip() or not count.strip().isdigit():
            raise ValueError(f"--role-counts: {part.strip()!r} is not ROLE=N (e.g. witch=1,hunter=1)")
        counts[role.strip().lower()] = int(count)
    return counts


def run_lineup(args: argparse.Namespace, ruleset: Ruleset = DEFAULT_RULESET) -> Lineup:
    """The lineup the flags describe (its role names the game's, ``ruleset``'s), with the command line's LLM
    options on every LLM seat."""
    overrides = llm_overrides(args)
    if args.model:
        spec: dict[str, Any] = {"kind": "llm", "model": args.model, **overrides}
        if args.base_url:
            spec["base_url"] = args.base_url
        return load_lineup({"default": spec}, ruleset)
    if args.base_url:
        raise ValueError("--base-url goes with --model")
    given = load_lineup(args.lineup or args.agents or "heuristic", ruleset)
    lineup = apply_overrides(given, overrides).model_copy(update={"prices": given.prices})  # overrides keep prices
    if overrides and not lineup.llm_sections():
        raise ValueError(f"LLM options ({', '.join(overrides)}) given, but no seat of this lineup is an LLM")
    return lineup


def run_command(args: argparse.Namespace) -> int:
    started = time.perf_counter()  # the summary's total: everything the command does, its report included
    plan = plan_run(args)
    if isinstance(plan, int):
        return plan
    try:
        return play_and_sum_up(plan, args, plan.label, started)
    finally:
        RunDir(plan.out).close()


def plan_run(args: argparse.Namespace) -> RunPlan | int:
    """The run the options describe, every one of them checked; or exit 2 after one line saying what is wrong.
    Nothing is contacted or written here: a refused command leaves no trace."""
    try:
        check_run_flags(args)
        config = game_config(args)
        lineup = run_lineup(args, config.ruleset)
        lineup.check_seats(config.num_players)
        check_plan_size(args.seed, args.games)
        if args.backend == "ray" and importlib.util.find_spec("ray") is None:
            raise ValueError("--backend ray needs the 'ray' extra: pip install 'werewolf-deception[ray]'")
        check_out_folder(args.out, "--out", ("manifest.json",))
    except (ValueError, RunFolderError) as exc:
        return refuse(exc)
    label = args.model or args.lineup or args.agents or "heuristic"
    seeds = [args.seed + i for i in range(args.games)]
    return RunPlan(
        # Prices are not what a run measures: changing them does not make another run (exclude them).
        out=args.out,
        identity={
            "config": config.model_dump(mode="json"),
            "lineup_identity": identity_of(lineup.model_dump(mode="json", exclude={"prices"})),
        },
        record={"lineup": lineup.model_dump(mode="json")},
        jobs=[Job(f"seed{seed}", seed, lineup) for seed in seeds],
        kind="run",
        label=label,
        config=config,
        concurrency=args.concurrency,
        sections=lineup.llm_sections(),
        breaker=args.breaker,
        cache=not args.no_cache,
        prices=dict(lineup.prices),
    )


def check_plan_size(first_seed: int, games: int) -> None:
    """Refuse (ValueError) more games than a run holds, or seeds past the largest."""
    if games > MAX_GAMES:
        raise ValueError(f"{games} games: a run holds at most {MAX_GAMES:,} (split it over several --out folders)")
    if first_seed + games - 1 > MAX_SEED:
        raise ValueError(f"--seed {first_seed} with {games} games goes past the largest seed, {MAX_SEED}")


def play_and_sum_up(plan: RunPlan, args: argparse.Namespace, label: str, started: float | None = None) -> int:
    """Play the run, then its summary, report and exit code. ``started``: when the command began (its total
    time, in the summary's header, counts from there; default: now)."""
    config = plan.config
    started = time.perf_counter() if started is None else started
    playing = time.perf_counter()
    outcome = execute(plan, args)
    if isinstance(outcome, int):
        return outcome
    entries = outcome.entries
    elapsed = time.perf_counter() - playing
    jobs = plan.jobs
    done = [entries[j.id] for j in jobs if entries.get(j.id, {}).get("status") == "ok"]
    results = [GameResult.from_json(e["result"]) for e in done]
    failed = [entries[j.id] for j in jobs if entries.get(j.id, {}).get("status") == "failed"]
    validities: list[dict[str, Any]] = []
    checking = time.perf_counter()
    with Bar("replay check", len(results), unit="logs", quiet=args.quiet, leave=False) as bar:
        summary = summarize(results, config, label, elapsed, bar, validities)
    summary["seconds_replay"] = round(time.perf_counter() - checking, 3)
    summary["games_resumed"] = min(outcome.resumed, len(results))  # finished by an earlier command
    summary["games_played"] = len(results) - summary["games_resumed"]
    summary["failed"] = [{"game": e["game"], "seed": e["seed"], "error": e["error"]} for e in failed]
    add_token_costs(summary, plan.prices)
    code = judge_run(summary, outcome, plan, args.max_fallback_rate, len(jobs), run_validity(validities))
    document = None
    reporting = time.perf_counter()
    try:
        if not args.no_report and results and outcome.stopped is None:
            from werewolf_deception.benchmarks.report import build_report

            document = build_report(
                args.out,
                baseline_games=args.baseline_games,
                progress=not args.quiet,
                title=f"Werewolf deception report: {label}, {args.games} games",
                max_fallback_rate=args.max_fallback_rate,
            )
    finally:  # the summary is written (and printed) even when the report fails
        if document is not None:
            summary["seconds_report"] = round(time.perf_counter() - reporting, 3)
        summary["seconds_total"] = round(time.perf_counter() - started, 3)
        RunDir(args.out).write_json("summary.json", summary)
        if not args.quiet:
            print_summary(summary, args.out, document, explain=getattr(args, "explain", False))
        elif code in (EXIT_STOPPED, EXIT_INVALID):  # quiet, but a run that measured nothing still says why
            print(summary["headline"], file=sys.stderr)
    if code == 0 and (summary["replay_ok"] != len(results) or failed):
        code = EXIT_FAILED_GAMES
    return code


def judge_run(
    summary: dict[str, Any],
    outcome: RunOutcome,
    plan: RunPlan,
    max_fallback_rate: float,
    planned: int,
    validity: dict[str, Any] | None = None,
) -> int:
    """Put validity (``validity``, else read from the logs), the stop reason and the verdict into the summary;
    the exit code they give."""
    if validity is None:
        validity = run_validity([r["log_path"] for r in summary["per_game"] if r.get("log_path")])
    summary["validity"] = validity
    summary["preflight"] = [p.to_json() for p in plan.probes]
    summary["endpoints"] = outcome.endpoints
    summary["max_fallback_rate"] = max_fallback_rate
    if outcome.stopped is not None:
        done = len(summary["per_game"])
        summary["status"] = "stopped"
        summary["headline"] = (
            f"RUN STOPPED: {outcome.stopped}. {done} of {planned} games finished and kept; "
            "fix the endpoint and run the same command to resume."
        )
        return EXIT_STOPPED
    worst = worst_fallback_rate(validity)
    if worst is not None and worst[1] is not None and worst[1] > max_fallback_rate:
        policy, rate = worst
        summary["status"] = "invalid"
        summary["headline"] = (
            f"INVALID RUN: {policy} fell back on {rate:.0%} of its actions, over the "
            f"--max-fallback-rate {max_fallback_rate:.0%}: the figures do not measure the model."
        )
        return EXIT_INVALID
    failed = summary.get("failed") or []
    if failed:  # the figures rest on fewer games than asked for: say so before anything that looks like a result
        finished = len(summary["per_game"])
        summary["headline"] = (
            f"FAILED GAMES: {len(failed)} of {finished + len(failed)} games failed (listed below; "
            f"the same command plays them again); the figures rest on the {finished} that finished."
        )
    summary["status"] = "ok"
    return 0


def execute(plan: RunPlan, args: argparse.Namespace) -> RunOutcome | int:
    """Preflight, open (or resume) the run folder and play what is left; the results, or an exit code.

    The folder stays locked (another run on it is refused) until the caller's ``RunDir(out).close()``,
    so that its summary and report are written under the lock too.
    """
    ids, seeds = [job.id for job in plan.jobs], [job.seed for job in plan.jobs]
    try:  # before the preflight: a run that cannot be played in --out costs no call
        check_plan_size(min(seeds, default=0), len(ids))  # a tournament's games come from its file: bounded too
        RunDir(plan.out).check(plan.identity, ids, seeds)
    except (ValueError, RunFolderError) as exc:  # RunMismatchError is a ValueError
        return refuse(exc)
    if plan.sections and not getattr(args, "no_preflight", False):
        probes = run_preflight(plan.sections, args.quiet)
        if isinstance(probes, int):
            return probes
        plan.probes = probes
    run = RunDir(plan.out)
    try:
        finished = run.open(plan.identity, ids, plan.kind, plan.label, seeds)
    except (RunMismatchError, RunFolderError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_BAD_OPTIONS
    except OSError as exc:
        print(f"error: {describe_os_error(exc)}; nothing was played", file=sys.stderr)
        return EXIT_STORAGE
    todo = [job for job in plan.jobs if job.id not in finished]
    if finished and not args.quiet:
        print(f"resuming {plan.out}: {len(finished)} of {len(plan.jobs)} games already finished", file=sys.stderr)
    progress = Progress(len(plan.jobs), len(finished), quiet=args.quiet)
    outcome = RunOutcome({}, resumed=sum(1 for job in plan.jobs if job.id in finished))
    kept = f"games finished and kept in {plan.out}; run the same command again to resume"
    try:
        run.note(**plan.record, **({"preflight": [p.to_json() for p in plan.probes]} if plan.probes else {}))
        play_games(run, plan, todo, progress, args, outcome)
    except KeyboardInterrupt as exc:  # Ctrl-C or SIGTERM: the workers are ended, finished games kept
        progress.finish()
        done = sum(1 for e in run.read_results().values() if e["status"] == "ok")
        print(f"interrupted: {done} of {len(plan.jobs)} {kept}", file=sys.stderr)
        return interrupted_code(exc)
    except RunStoppedError as exc:
        outcome.stopped = exc.reason
    except OSError as exc:  # the disk refused a write: no game can be kept from here on
        progress.finish()
        done = sum(1 for e in run.read_results().values() if e["status"] == "ok")
        print(
            f"error: {describe_os_error(exc)}\nthe run stopped: {done} of {len(plan.jobs)} {kept} "
            "once the disk takes writes again",
            file=sys.stderr,
        )
        return EXIT_STORAGE
    progress.finish()
    if outcome.endpoints:
        run.note(endpoints=outcome.endpoints)
    outcome.entries = run.read_results()
    return outcome


def play_games(
    run: RunDir, plan: RunPlan, jobs: list[Job], progress: Progress, args: argparse.Namespace, outcome: RunOutcome
) -> None:
    """The chosen backend plays ``jobs`` into ``run``, with one endpoint pool for the whole run."""
    backend = RayBackend(args.ray_address) if args.backend == "ray" else None

    async def main() -> None:
        pool = EndpointPool(concurrency=max(1, plan.concurrency), breaker=plan.breaker)
        seed_pool(pool, plan.sections, plan.probes)
        try:
            await play_run(
                run,
                plan.config,
                jobs,
                plan.concurrency,
                progress,
                workers=args.workers,
                backend=backend,
                pool=pool,
                cache_dir=plan.cache_dir,
            )
        finally:
            outcome.endpoints = pool.state()
            await pool.aclose()

    try:
        asyncio.run(main())
    finally:
        if backend is not None:
            backend.close()


def summarize(
    results: list[GameResult],
    config: GameConfig,
    label: str,
    elapsed: float,
    bar: Bar | None = None,
    validities: list[dict[str, Any]] | None = None,
) -> dict[str, Any]:
    """The run's summary, reading and replaying each game's log once (``bar`` advanced after each); each game's
    answer validity appended to ``validities`` when given (the same read)."""
    winners: Counter[str] = Counter()
    lies: Counter[str] = Counter()
    lies_by_role: Counter[str] = Counter()
    statements_by_role: Counter[str] = Counter()
    replay_ok = 0
    coverage = ClaimsCoverage()  # one game at a time: the summary's memory does not grow with the games
    for result in results:
        winners[result.winner or "undecided"] += 1
        raw = read_log(result.log_path)  # type: ignore[arg-type]
        coverage.add(GameRecord.from_events(raw, source=result.log_path))
        for record in raw:
            if record["type"] == "ground_truth":
                role = record["data"]["speaker_role"]
                statements_by_role[role] += 1
                if record["data"]["lie"]:
                    lies[record["data"]["type"]] += 1
                    lies_by_role[role] += 1
        replay_ok += bool(replay(result.log_path))  # type: ignore[arg-type]
        if validities is not None:
            validities.append(game_validity(raw))
        if bar is not None:
            bar.advance()
    return {
        "version": __version__,
        "games": len(results),
        "players": config.num_players,
        "werewolves": config.num_werewolves,
        "analysis": config.analysis,
        "lineup": label,
        "roles": {role.value: n for role, n in config.seat_counts().items() if n},  # seats per role of each game
        "seconds": round(elapsed, 3),
        "winners": dict(winners),
        "statements": sum(statements_by_role.values()),
        "lies": dict(lies),
        "lies_by_role": dict(lies_by_role),
        "statements_by_role": dict(statements_by_role),
        "actions": sum(r.steps for r in results),
        "fallbacks": sum(r.fallbacks for r in results),
        "policy_errors": sum(r.policy_errors for r in results),
        "replay_ok": replay_ok,
        "claims_coverage": coverage.result(resamples=0),  # the logs' own ground truth (regex)
        "per_game": [r.to_json() for r in results],
    }


def add_token_costs(summary: dict[str, Any], prices: dict[str, Price]) -> None:
    """The run's token block (``summary["tokens"]``: totals, per game, by call kind and model, cost) and each
    game's cost beside its tokens (``per_game[i]["token_usage"]["cost_usd"]``; None: no price set)."""
    games = summary["per_game"]
    summary["tokens"] = priced(
        TokenTally.merged(g.get("token_usage") or {} for g in games).to_json(), prices, games=len(games)
    )
    for game in games:
        if game.get("token_usage"):
            game["token_usage"] = {**game["token_usage"], "cost_usd": game_cost(game["token_usage"], prices)}


def print_summary(s: dict[str, Any], out: Path, document: dict[str, Any] | None = None, explain: bool = False) -> None:
    """The summary (``summary_lines``), the report's headline figures when there is a report ``document``,
    where the files are, and the legend of the terms printed (``explain``: the full legend)."""
    lines = summary_lines(s, out, document)
    print_lines(lines + legend_lines("\n".join(lines), full=explain))


def summary_lines(s: dict[str, Any], out: Path, document: dict[str, Any] | None = None) -> list[str]:
    """The run summary as lines of at most ``summary_text.WIDTH`` columns: labelled lines and small tables,
    wrapped between items, never inside a number."""

    def pct(k: int, total: int) -> str:
        return f"{k} ({100 * k / total:.0f}%)" if total else "0"

    lines: list[str] = []
    if s.get("headline"):  # a stopped or invalid run says so before anything that looks like a result
        lines += fit(s["headline"])
    n = s["games"]
    resumed = s.get("games_resumed") or 0
    games = f"{n} games" + (
        f" ({resumed} from an earlier run, {s.get('games_played', n - resumed)} played now)" if resumed else ""
    )
    total = s.get("seconds_total", s["seconds"])
    parts = [f"games {s['seconds']:.1f}s"]
    if s.get("seconds_replay") is not None:
        parts.append(f"replay check {s['seconds_replay']:.1f}s")
    if s.get("seconds_report") is not None:
        parts.append(f"report {s['seconds_report']:.1f}s")
    head = f"werewolf-deception {s['version']}: {games}, {total:.1f}s in all"
    if len(f"{head} ({', '.join(parts)})") <= WIDTH:  # the time's parts beside it, or on a line of their own
        lines.append(f"{head} ({', '.join(parts)})")
    else:
        lines += [head, f"  time: {', '.join(parts)}"]
    wolves = f"{s['werewolves']} {'werewolf' if s['werewolves'] == 1 else 'werewolves'}"
    lines += pack(
        "  ",
        [f"{s['players']} players ({wolves})", f"lineup {s['lineup']}", f"analysis={s['analysis']}"],
        indent="    ",
        sep=", ",
    )
    winners = s["winners"]
    lines.append(
        f"  winners: village {pct(winners.get('village', 0), n)}, werewolves "
        f"{pct(winners.get('werewolf', 0), n)}, undecided {pct(winners.get('undecided', 0), n)}"
    )
    lies = Counter(s["lies"])
    lines += pack(
        f"  statements: {s['statements']}; grounded lies: {pct(sum(lies.values()), s['statements'])} ",
        [f"({', '.join(f'{t} {c}' for t, c in lies.most_common()) or 'none'})"],
        indent="    ",
    )
    width = max((len(role) for role in s["statements_by_role"]), default=0)
    for role, count in sorted(s["statements_by_role"].items()):
        lines.append(f"    {role:<{width}} {count:>5} statements, {pct(s['lies_by_role'].get(role, 0), count)} lies")
    if s.get("claims_coverage"):
        acting = action_kinds_of(s["roles"]) if "roles" in s else None  # no word of poison without a witch
        lines += [f"  {line}" for line in claims_coverage_lines(s["claims_coverage"], acting)]
    lines.append(
        f"  actions: {s['actions']}; invalid answers replaced by fallbacks: {s['fallbacks']}; "
        f"policy errors: {s['policy_errors']}"
    )
    lines += [f"  {line}" for line in token_lines(s.get("tokens") or {})]  # nothing when no seat called a model
    validity_lines = format_validity(s["validity"]) if s.get("validity") else []
    if validity_lines:
        lines += fit(
            f"validity (max fallback rate {s.get('max_fallback_rate', 0.1):.0%}): shares of actions the model "
            "answered (its first answer valid), repaired (valid after a repair prompt), left invalid, or "
            "the game replaced (fallback):",
            indent="  ",
            subsequent="    ",
        )
        lines += [f"    {line}" for line in validity_lines]
    lines.append(f"  replay check: {s['replay_ok']}/{n} logs rebuild the identical game")
    failed = s.get("failed") or []
    if failed:
        lines += fit(
            f"FAILED games: {len(failed)} (recorded in results.ndjson; the same command plays them again)", indent="  "
        )
        for entry in failed[:5]:
            lines += fit(f"seed {entry['seed']}: {entry['error']}", indent="    ", subsequent="      ")
    files = ["games/", "summary.json"]
    if document is not None:
        lines += report_lines(document)
        files += ["report.html", "metrics.json", "tables/"]
    lines += pack(f"  files in {out}/: ", files, indent="    ", sep=", ")
    return lines
