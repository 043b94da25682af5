"""``werewolf-bench``: the benchmark's command line.

``werewolf-bench run`` plays a small benchmark (offline, heuristic agents by default), logs every
game, replay-checks the logs and prints a readable summary with the grounded deception figures::

    werewolf-bench run --games 20 --out runs/demo
    werewolf-bench run --agents random
    werewolf-bench run --lineup lineup.toml          # per-seat / per-team policies and models
    werewolf-bench run --model gpt-4o-mini --base-url https://api.openai.com/v1

Every option's help names its default; the exit codes a command can return
(``werewolf_deception.benchmarks.console.exit_codes``) close its ``--help``. A file that cannot be written or read ends
any command with a message naming it (exit 5), Ctrl-C with exit 130 and SIGTERM with 143, never with a traceback.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, NoReturn

from werewolf_deception.agents import load_lineup
from werewolf_deception.agents.llm import DEFAULT_BASE_URL, EndpointDownError
from werewolf_deception.agents.play import AgentSpec
from werewolf_deception.benchmarks.cli.play import play_command
from werewolf_deception.benchmarks.cli.relabel import add_relabel_parser, relabel_command
from werewolf_deception.benchmarks.cli.replay import replay_command
from werewolf_deception.benchmarks.cli.report import add_report_parser, report_command
from werewolf_deception.benchmarks.cli.rescore import rescore_command
from werewolf_deception.benchmarks.cli.run import run_command
from werewolf_deception.benchmarks.cli.serve import add_serve_parser, serve_command
from werewolf_deception.benchmarks.cli.tournament import tournament_command
from werewolf_deception.benchmarks.console import (
    BASELINE_GAMES,
    COUNT,
    EXIT_BAD_OPTIONS,
    EXIT_INVALID,
    EXIT_OUTPUT_CLOSED,
    EXIT_STORAGE,
    GAMES,
    IN_FLIGHT,
    MAX_GAMES,
    SEED,
    WORKERS,
    add_llm_flags,
    check_run_flags,
    exit_codes_text,
    game_config_of,
    game_option,
    interrupted_code,
    judge_settings,
    one_line,
    probability,
    refuse,
    sigterm_as_interrupt,
    whole_number,
)
from werewolf_deception.benchmarks.export import add_export_options, export_command
from werewolf_deception.benchmarks.runs import (
    RunFolderError,
    check_out_folder,
    describe_os_error,
    preflight_gate,
    stopped,
    workers_stuck,
)
from werewolf_env import GameConfig, __version__
from werewolf_env.core import MAX_PLAYERS, MIN_PLAYERS
from werewolf_env.envs import raw_env


class OneLineParser(argparse.ArgumentParser):
    """Refuses a bad command line as every command refuses bad input: one ``error:`` line (exit 2), with control
    characters shown, not its usage (``--help`` gives that)."""

    def error(self, message: str) -> NoReturn:
        self.exit(EXIT_BAD_OPTIONS, f"error: {one_line(message)} (see {self.prog} --help)\n")


class HelpWithDefaults(argparse.RawDescriptionHelpFormatter):
    """Every option's help ends with its default, unless the text already names it."""

    def _get_help_string(self, action: argparse.Action) -> str | None:
        text = action.help or ""
        if not action.option_strings or action.required or action.default is argparse.SUPPRESS:
            return text
        if "default" in text.lower():
            return text
        if action.nargs == 0 and action.default is False:  # a flag (store_true)
            return f"{text} (default: off)".strip()
        if action.default is None:
            return f"{text} (default: not set)".strip()
        return f"{text} (default: %(default)s)".strip()


def play(env: raw_env, policies: list[Any], seed: int, read_text: bool = False) -> int:
    """One game in the plain PettingZoo loop, one policy per seat; returns the number of actions. With
    ``read_text`` the acting seat's text observation is rendered on every step, read or not by its policy."""
    env.reset(seed=seed)
    steps = 0
    for agent in env.agent_iter():
        obs, _reward, termination, truncation, info = env.last()
        if termination or truncation:
            env.step(None)
            continue
        if read_text:
            obs["text"]
        env.step(policies[env.agent_name_mapping[agent]].act(obs, info))
        steps += 1
    return steps


def build_parser() -> argparse.ArgumentParser:
    parser = OneLineParser(
        prog="werewolf-bench",
        description="Werewolf deception benchmark.",
        epilog=exit_codes_text(),
        formatter_class=HelpWithDefaults,
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    commands = parser.add_subparsers(dest="command", required=True)

    def command(name: str, text: str) -> argparse.ArgumentParser:
        return commands.add_parser(
            name, help=text, description=text, epilog=exit_codes_text(name), formatter_class=HelpWithDefaults
        )

    rules = GameConfig.model_fields
    run = command("run", "play games, log and replay-check them, print a summary")
    run.add_argument("--games", type=GAMES, default=20, help=f"number of games, at most {MAX_GAMES:,} per run")
    game_option(run, "num_players", help=f"seats per game, {MIN_PLAYERS}-{MAX_PLAYERS} (a quarter of them werewolves)")
    run.add_argument("--seed", type=SEED, default=0, help="first seed, 0 or more; game i uses seed + i")
    run.add_argument(
        "--analysis",
        choices=["full", "self", "peer", "off"],
        default="full",
        help="which deception analyses the players answer",
    )
    game_option(run, "max_rounds", help="nights and days before the game ends undecided", unset=True)
    game_option(run, "max_debate_turns", help="statements per day", unset=True)
    run.add_argument(
        "--role-counts",
        metavar="ROLE=N,...",
        help="seats per role, e.g. witch=1,hunter=1 (roles not named keep their default: "
        "werewolves a quarter of the seats, one seer, one doctor; villagers fill the rest)",
    )
    run.add_argument(
        "--vote-polls",
        choices=["off", "after_statement", "after_debate"],
        help="private vote polls: whom each player would exile now, after each statement or after the "
        f"debate (default {rules['vote_polls'].default}; each poll is a call per model seat)",
    )
    run.add_argument(
        "--subject-suspicion",
        action=argparse.BooleanOptionalAction,
        help="peers also score the players a statement speaks of, which the persuasion figures rest "
        f"on (default {'on' if rules['subject_suspicion'].default else 'off'})",
    )
    run.add_argument(
        "--control-subject-probability",
        type=probability,
        metavar="P",
        help="with --subject-suspicion: the chance that a peer also scores a living player the statement does "
        "not mention, the control persuasion is reported net of "
        f"(default {rules['control_subject_probability'].default})",
    )
    who = run.add_mutually_exclusive_group()
    who.add_argument(
        "--agents",
        choices=["heuristic", "random"],
        help="one model-free policy for every seat (default heuristic, without --lineup or --model)",
    )
    who.add_argument("--lineup", help="a lineup file (TOML or JSON): policies per seat, role or team")
    who.add_argument("--model", help="an LLM for every seat (with --base-url; key from $OPENAI_API_KEY)")
    run.add_argument(
        "--base-url", help=f"OpenAI-compatible endpoint for --model (default $OPENAI_BASE_URL or {DEFAULT_BASE_URL})"
    )
    run.add_argument("--concurrency", type=IN_FLIGHT, default=8, help="games and calls in flight")
    run.add_argument(
        "--out",
        type=Path,
        default=Path("runs/demo"),
        help="the run folder: new, empty, or an earlier run's (resumed or extended)",
    )
    add_execution_options(run)
    run.add_argument("--no-report", action="store_true", help="skip the report (metrics.json, tables, HTML)")
    run.add_argument("--baseline-games", type=BASELINE_GAMES, default=20, help="random/heuristic baseline games")
    run.add_argument(
        "--explain",
        action="store_true",
        help="end the summary with the full legend of its terms (instead of the short one)",
    )
    add_llm_flags(run)

    play_cmd = command("play", "play one seat yourself, in the terminal, against agents")
    play_cmd.add_argument("--seat", default="player_0", help="your agent id")
    game_option(play_cmd, "num_players", help="seats in the game")
    play_cmd.add_argument("--seed", type=SEED, default=None, help="the game's seed (default: a random game)")
    play_cmd.add_argument("--agents", choices=["heuristic", "random"], default="heuristic", help="the other seats")
    play_cmd.add_argument("--lineup", help="a lineup file for the other seats (default: --agents for every seat)")
    play_cmd.add_argument("--out", type=Path, default=Path("runs/play"), help="folder for the game's log")
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

    serve = command("serve", "play in the browser: people in some seats, agents in the rest (web extra)")
    add_serve_parser(serve)

    add_report_parser(commands)
    commands.choices["report"].formatter_class = HelpWithDefaults
    commands.choices["report"].epilog = exit_codes_text("report")

    rescore = command("rescore", "re-run the self/peer analyses of a run with another labeler")
    rescore.add_argument("run_dir", type=Path, help="a run folder (games/*.ndjson) or a folder of logs")
    rescore.add_argument(
        "--labeler", required=True, help="heuristic | random | a lineup file | a model name (with --base-url)"
    )
    rescore.add_argument(
        "--base-url",
        help=f"OpenAI-compatible endpoint when --labeler is a model (default $OPENAI_BASE_URL or {DEFAULT_BASE_URL})",
    )
    rescore.add_argument("--out", type=Path, help="where to write (default: RUN_DIR/rescore/<labeler>)")
    rescore.add_argument("--concurrency", type=IN_FLIGHT, default=8, help="calls in flight")
    rescore.add_argument("--no-plots", action="store_true", help="skip the matplotlib plots")
    add_llm_flags(rescore)  # a model labeler passes the run's gate: preflight, breaker, --max-fallback-rate

    replay_cmd = command("replay", "re-run logged games and check they are identical; show one")
    replay_cmd.add_argument("logs", nargs="+", type=Path, help="game logs (.ndjson) or run folders")
    replay_cmd.add_argument(
        "--show",
        choices=["public", "all"],
        help="print the transcript: what a spectator saw, or everything, hidden included (default: no transcript)",
    )

    tour = command("tournament", "several models or agent kinds, each in every role; ratings")
    tour.add_argument("config", type=Path, help="a tournament TOML file (see benchmarks/runs/tournament.py)")
    tour.add_argument("--out", type=Path, help="run folder (default runs/<name>)")
    tour.add_argument("--concurrency", type=IN_FLIGHT, help="games and calls in flight (default: the file's, or 8)")
    add_execution_options(tour)
    tour.add_argument(
        "--baseline-games", type=BASELINE_GAMES, default=0, help="random/heuristic baseline games for the report"
    )
    tour.add_argument("--no-plots", action="store_true", help="skip the matplotlib plots")
    add_llm_flags(tour)

    add_export_options(command("export", "runs as a dataset: statements and games tables (Parquet or JSONL), a card"))

    add_relabel_parser(commands, HelpWithDefaults)
    commands.choices["relabel"].formatter_class = HelpWithDefaults

    detect = command("detect-eval", "train the counterfactual deception detector and compare it")
    detect.add_argument("--lineup", default="heuristic", help="who plays the games (kind or lineup file)")
    detect.add_argument("--train-games", type=GAMES, default=60, help="games to train on")
    detect.add_argument("--test-games", type=GAMES, default=40, help="held-out games to test on")
    detect.add_argument("--seed", type=SEED, default=0, help="train seeds seed.., held-out seeds seed+1000000..")
    game_option(detect, "num_players", help="seats per game")
    detect.add_argument("--determinizations", type=COUNT, default=8, help="role assignments sampled per listener")
    detect.add_argument("--rollouts", type=COUNT, default=3, help="rollouts per action pair and determinization")
    detect.add_argument("--workers", type=WORKERS, default=1, help="processes for the counterfactual values")
    detect.add_argument("--concurrency", type=IN_FLIGHT, default=8, help="games in flight")
    detect.add_argument("--out", type=Path, help="where to write (default runs/detect-eval[-DATASET])")
    detect.add_argument("--dataset", choices=["peskov2020"], help="instead of playing games: human Diplomacy lies")
    detect.add_argument(
        "--data-dir",
        type=Path,
        help="its folder (default: diplomacy_peskov2020 in $WEREWOLF_SHARED_DATA, else in ../shared/data)",
    )
    detect.add_argument(
        "--detector",
        action="append",
        metavar="NAME",
        help="a detector to evaluate (repeatable): peers, self, rules, text, values, text+values, llm-judge, or "
        "module:Class (your own); default: all but llm-judge. With --dataset: text, text+context, "
        "text+context+power, stacked (default: these), llm-judge",
    )
    detect.add_argument(
        "--train",
        nargs="+",
        type=Path,
        metavar="RUN",
        help="instead of playing games: run folders (games/*.ndjson) to train on (with --test)",
    )
    detect.add_argument("--test", nargs="+", type=Path, metavar="RUN", help="run folders to test on (with --train)")
    detect.add_argument("--judge-model", help="llm-judge: the model (OpenAI-compatible; key from $OPENAI_API_KEY)")
    detect.add_argument(
        "--judge-base-url", help=f"llm-judge: its endpoint (default $OPENAI_BASE_URL or {DEFAULT_BASE_URL})"
    )
    detect.add_argument(
        "--judge-sample",
        type=whole_number(0),
        default=300,
        metavar="N",
        help="with --dataset and llm-judge: messages judged per split, a seeded random sample (0: all)",
    )
    detect.add_argument("--quiet", "-q", action="store_true", help="no progress line and no table")
    add_llm_flags(detect)
    return parser


def add_execution_options(parser: argparse.ArgumentParser) -> None:
    """How a run's games are played and shown (shared by run and tournament)."""
    parser.add_argument("--workers", type=WORKERS, default=1, help="processes to spread games over")
    parser.add_argument(
        "--backend",
        choices=["local", "ray"],
        default="local",
        help="local: asyncio in one process (or --workers processes); ray: games as Ray tasks",
    )
    parser.add_argument("--ray-address", help="a Ray cluster to join (default: start a local Ray instance)")
    parser.add_argument("--quiet", "-q", action="store_true", help="no progress line and no summary (exit code only)")


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    commands: dict[str, Callable[[argparse.Namespace], int]] = {
        "run": run_command, "play": play_command, "report": report_command, "rescore": rescore_command,
        "replay": replay_command, "tournament": tournament_command, "relabel": relabel_command,
        "detect-eval": detect_eval_command, "export": export_command, "serve": serve_command,
    }  # fmt: skip
    code = _dispatch(commands[args.command], args)
    if workers_stuck():
        # A worker pool's manager thread that will not end would hang Python's exit (and hold the run's lock):
        # everything is written and the workers are gone, so leave without joining it.
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)
    return code


def _dispatch(command: Callable[[argparse.Namespace], int], args: argparse.Namespace) -> int:
    try:
        with sigterm_as_interrupt():
            return command(args)
    except KeyboardInterrupt as exc:  # a run says what it kept; other commands have nothing to keep
        print("interrupted", file=sys.stderr)
        return interrupted_code(exc)
    except BrokenPipeError:  # the reader went away (| head): nothing more to say, and nowhere to say it
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_OUTPUT_CLOSED
    except OSError as exc:  # a read-only folder, a full disk, a file that cannot be read: named, not a traceback
        print(f"error: {describe_os_error(exc)}", file=sys.stderr)
        return EXIT_STORAGE


def detect_eval_command(args: argparse.Namespace) -> int:
    if args.dataset:
        from werewolf_deception.benchmarks.diplomacy import dataset_command

        return dataset_command(args)
    from werewolf_deception.benchmarks.detect import (
        DEFAULT,
        DetectorError,
        make_detector,
        print_table,
        run_detect_eval,
        run_runs_eval,
    )
    from werewolf_deception.benchmarks.runs import RunMismatchError, RunStoppedError

    args.out = args.out or Path("runs/detect-eval")
    specs = list(dict.fromkeys(args.detector or DEFAULT))
    try:
        check_run_flags(args)
        if bool(args.train) != bool(args.test):
            raise ValueError("--train and --test go together")
        settings = judge_settings(args, specs)
        for spec in specs:
            make_detector(spec, **settings)  # an unknown name or a broken module:Class, before any game
        config = game_config_of({"num_players": args.players})  # the default pack for that many players
        lineup = load_lineup(args.lineup, config.ruleset)
        lineup.check_seats(config.num_players)
        check_out_folder(args.out, "--out", ("train/manifest.json", "detect_eval.json"))
    except (ValueError, RunFolderError) as exc:  # DetectorError is a ValueError
        return refuse(exc)
    judge = [("llm-judge", AgentSpec.model_validate({"kind": "llm", **settings["options"]}))] if settings else []
    probed = preflight_gate(judge + ([] if args.train else lineup.llm_sections()), args)
    if isinstance(probed, int):
        return probed
    try:
        if args.train:
            result = run_runs_eval(
                args.out,
                args.train,
                args.test,
                args.seed,
                args.determinizations,
                args.rollouts,
                args.workers,
                quiet=args.quiet,
                detectors=specs,
                settings=settings,
            )
        else:
            result = run_detect_eval(
                args.out,
                lineup,
                config,
                args.train_games,
                args.test_games,
                args.seed,
                args.determinizations,
                args.rollouts,
                args.workers,
                args.concurrency,
                quiet=args.quiet,
                detectors=specs,
                settings=settings,
            )
    except (ValueError, RunMismatchError, DetectorError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_BAD_OPTIONS
    except (EndpointDownError, RunStoppedError) as exc:  # the judge's or an LLM seat's breaker tripped
        return stopped("detect-eval", exc, f"played games are kept in {args.out}, no table was written")
    if not args.quiet:
        print_table(result)
    judged = next((row for row in result["table"] if row.get("detector") == "llm-judge"), None)
    if judged is not None and 1 - judged["coverage"]["share"] > args.max_fallback_rate:
        print(
            f"llm-judge answered {judged['coverage']['share']:.0%} of the statements: more than "
            f"--max-fallback-rate {args.max_fallback_rate} went without a valid answer",
            file=sys.stderr,
        )
        return EXIT_INVALID
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
