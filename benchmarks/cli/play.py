"""``werewolf-bench play``: one game with a person at the keyboard in ``--seat``, against agents.

Each turn shows what is new and an answer prompt that names the shorthand it takes
(``werewolf_deception.agents.policies.human.SHORTHAND``); once the person is eliminated the game goes on and they keep
seeing the public game until it ends (``HumanAgent.watch``). When the input ends (Ctrl-D, or piped answers that run out)
they are told so once, the seat's remaining turns are the env's fallbacks (the log's action events say so:
``werewolf_deception.agents.policies.human.NO_ANSWER``), and the game still plays to its end (exit 0). The log goes to
``--out`` (a new folder, or one holding game logs; a folder of other files is refused, exit 2). The exit codes play can
return: ``werewolf_deception.benchmarks.console.exit_codes.COMMANDS["play"]``.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import sys
from pathlib import Path

from werewolf_deception.agents import load_lineup, play_game
from werewolf_deception.agents.llm import EndpointDownError
from werewolf_deception.benchmarks.console import EXIT_BAD_OPTIONS, EXIT_STOPPED, game_config_of, print_lines, refuse
from werewolf_deception.benchmarks.runs import RunFolderError, check_out_folder, keep_log

LOGS = "game-*.ndjson"  # what a play folder holds (werewolf_env.envs.aec names each game's log so)


def play_command(args: argparse.Namespace) -> int:
    """One game with a person in ``--seat``; shows the result and where the log is."""
    try:
        config = game_config_of({"num_players": args.players})  # the default pack for that many players
        lineup = load_lineup(args.lineup or args.agents, config.ruleset)
        lineup.check_seats(config.num_players)
        if args.seat not in [f"player_{i}" for i in range(config.num_players)]:
            raise ValueError(f"--seat must be player_0 ... player_{config.num_players - 1}")
        lineup = lineup.model_copy(update={"seats": {**lineup.seats, args.seat: load_lineup("human").default}})
        check_out_folder(Path(args.out), "--out", (LOGS,))
    except (ValueError, RunFolderError) as exc:
        return refuse(exc)
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(2**31)
    hook = None
    if args.friction:
        from werewolf_deception.benchmarks.detect import Friction

        try:
            friction = Friction.load(args.detector, seats={args.seat})
        except (ValueError, OSError) as exc:
            print(f"error: cannot load the detector {args.detector}: {exc}", file=sys.stderr)
            return EXIT_BAD_OPTIONS
        if friction.detector is None:
            print(
                f"(no detector at {args.detector}: warnings come from bait and switch alone; "
                "werewolf-bench detect-eval trains one)"
            )
        hook = friction.hook
    scratch = Path(args.out) / f".playing-{os.getpid()}"  # the env names logs by seed: an earlier game's stays
    try:
        result = asyncio.run(play_game(config, lineup, seed, log_dir=scratch, concurrency=1, info_hook=hook))
    except EndpointDownError as exc:  # an LLM seat's server stopped answering: the game cannot go on as measured
        print(f"error: the game stopped: {exc}", file=sys.stderr)
        return EXIT_STOPPED
    log = keep_log(Path(str(result.log_path)), Path(args.out))
    scratch.rmdir()
    me = next(p for p in result.players if p.agent == args.seat)
    outcome = "undecided" if result.winner is None else ("you won" if me.won else "you lost")
    print(f"\nGame over (seed {seed}): {result.winner or 'nobody'} wins; you were the {me.role}: {outcome}.")
    # names and the path are data: shown inert, as in every summary
    print_lines(["Roles: " + ", ".join(f"{p.name} {p.role}" for p in result.players), f"Log: {log}"])
    return 0
