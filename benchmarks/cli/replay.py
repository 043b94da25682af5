"""``werewolf-bench replay LOG|DIR ... [--show public|all]``: re-run logged games, check they are identical.

Each log gets one verdict line: ``identical`` (the whole game, rebuilt event for event),
``DIFFERS`` (with the first differences), and, whenever the log does not hold the whole game,
``TRUNCATED`` with where it stops (a line cut mid-write, a line that is not JSON, missing events,
no final snapshot): a truncated log is never called identical. Exit codes: 0 every log is whole and
identical; 1 a log differs or is truncated; 2 a log is missing or cannot be read.
"""

from __future__ import annotations

import argparse
import sys

from werewolf_deception.benchmarks.console import EXIT_BAD_OPTIONS, EXIT_FAILED_GAMES, NOT_A_LOG, verdict
from werewolf_deception.benchmarks.runs import find_logs
from werewolf_env.core import terminal_safe
from werewolf_env.engine import replay


def replay_command(args: argparse.Namespace) -> int:
    from werewolf_env.observe import Transcript

    paths = [p for given in args.logs for p in (find_logs(given) if given.is_dir() else [given])]
    missing = [p for p in paths if not p.is_file()]
    if not paths or missing:
        print(f"error: no such log: {missing[0] if missing else args.logs[0]}", file=sys.stderr)
        return EXIT_BAD_OPTIONS
    bad = 0
    for path in paths:
        try:
            result = replay(path)
        except OSError as exc:
            print(f"error: cannot read {path}: {exc.strerror}", file=sys.stderr)
            return EXIT_BAD_OPTIONS
        if result.not_a_log is not None:
            print(f"{path}: {NOT_A_LOG}: {result.not_a_log}")
            bad += 1
            continue
        print(f"{path}: {verdict(result.matches, result.truncated)}, {result.actions} actions replayed")
        for mismatch in result.mismatches:
            print(f"  {terminal_safe(mismatch)}")
        bad += not result.ok
        if args.show and result.game is not None:
            names = tuple(result.game.state.names)
            transcript = Transcript(names, None, spectator=args.show == "all").update(result.game.state.events)
            print(terminal_safe(transcript, lines=True))
    return EXIT_FAILED_GAMES if bad else 0
