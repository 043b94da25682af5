"""The exit codes of ``werewolf-bench``, with their meanings in one place.

``MEANINGS`` is the table for the program as a whole (``werewolf-bench --help`` and the docs' command-line
page show it); ``COMMANDS`` says which codes each subcommand can return, in its own words where the program-wide
meaning would not read right for it; ``exit_codes_text(command)`` is what that command's ``--help``
ends with. The meanings are joined from the phrases below, so each is written once.
"""

from __future__ import annotations

import asyncio
import signal
import textwrap
import threading
from collections.abc import Iterator
from contextlib import contextmanager

EXIT_OK = 0
EXIT_FAILED_GAMES = 1
EXIT_BAD_OPTIONS = 2
EXIT_STOPPED = 3
EXIT_INVALID = 4
EXIT_STORAGE = 5
EXIT_INTERRUPTED = 128 + signal.SIGINT
EXIT_TERMINATED = 128 + signal.SIGTERM
EXIT_OUTPUT_CLOSED = 141  # 128 + SIGPIPE, as a shell reports a pipeline cut short

# Phrases, each written once: MEANINGS joins them for the whole program, COMMANDS picks each command's own.
_GAMES_DONE = "done: every game finished and replay-checked; every LLM seat within --max-fallback-rate"
_LOGS_WHOLE = "every log is whole and rebuilds the identical game"
_GAMES_FAILED = "some games failed (recorded in results.ndjson; the same command plays them again)"
_LOG_DIFFERS = "a log differs or is truncated (the message says where)"
_BAD = "bad options or input, nothing played or written"
_BAD_UNWRITTEN = "bad options or input, nothing written"
_UNKNOWN = "an unknown option or value"
_PREFLIGHT = "a preflight that found an endpoint that cannot answer"
_OUT = "--out at a file or at a folder of other files"
_BUSY = "a folder another run is using"
_NAME = "a tournament name that is not a plain name"
_MISSING_LOG = "a missing log"
_STOPPED = "an endpoint's circuit breaker stopped the run (finished games kept; the same command resumes)"
_INVALID = "finished, but not a valid measurement"
_STORAGE = (
    "a file could not be written or read (read-only folder, full disk, no permission): the message names the path"
)
_RESUMES = "finished games are kept and the same command resumes"
_SIGINT = "interrupted by Ctrl-C (SIGINT)"
_SIGTERM = "terminated by SIGTERM"
_KEPT = "finished games kept, worker processes ended"
_ABANDONED = "the game is abandoned"


def _bad(*cases: str, head: str = _BAD) -> str:
    return f"{head}: {', '.join(cases)}"


MEANINGS: tuple[tuple[int, str], ...] = (
    (EXIT_OK, f"{_GAMES_DONE} (replay: {_LOGS_WHOLE})"),
    (EXIT_FAILED_GAMES, f"{_GAMES_FAILED}; replay: {_LOG_DIFFERS}"),
    (EXIT_BAD_OPTIONS, _bad(_UNKNOWN, _PREFLIGHT, _OUT, _BUSY, _NAME, _MISSING_LOG)),
    (EXIT_STOPPED, _STOPPED),
    (EXIT_INVALID, f"{_INVALID}: an LLM seat's fallback rate exceeds --max-fallback-rate"),
    (EXIT_STORAGE, f"{_STORAGE}; {_RESUMES}"),
    (EXIT_INTERRUPTED, f"{_SIGINT}; {_KEPT}"),
    (EXIT_OUTPUT_CLOSED, "the output was closed before the command finished (piped into head, say)"),
    (EXIT_TERMINATED, f"{_SIGTERM}; {_KEPT}"),
)  # fmt: skip

# What every command can return: the dispatcher (``werewolf_deception.benchmarks.cli.main``) turns Ctrl-C, SIGTERM, a
# closed output and a
# file that cannot be written or read (the output included) into these. None: the meaning in MEANINGS.
_ANY: dict[int, str | None] = {EXIT_STORAGE: _STORAGE, EXIT_INTERRUPTED: _SIGINT, EXIT_OUTPUT_CLOSED: None,
                               EXIT_TERMINATED: _SIGTERM}  # fmt: skip
# The commands that play runs of games: finished games are kept, and the same command resumes.
_RUNS: dict[int, str | None] = {EXIT_STOPPED: None, EXIT_INVALID: None, EXIT_STORAGE: None, EXIT_INTERRUPTED: None,
                                EXIT_OUTPUT_CLOSED: None, EXIT_TERMINATED: None}  # fmt: skip

# The codes each subcommand can return (read from its code paths), each with its wording for that command
# (None: the one in MEANINGS). A test holds every subcommand's --help to this, and the codes it returns too.
COMMANDS: dict[str, dict[int, str | None]] = {
    "run": {EXIT_OK: _GAMES_DONE, EXIT_FAILED_GAMES: _GAMES_FAILED,
            EXIT_BAD_OPTIONS: _bad(_UNKNOWN, _PREFLIGHT, _OUT, _BUSY), **_RUNS},
    "tournament": {EXIT_OK: _GAMES_DONE, EXIT_FAILED_GAMES: _GAMES_FAILED,
                   EXIT_BAD_OPTIONS: _bad(_UNKNOWN, "a tournament file that cannot be read", _NAME, _PREFLIGHT, _OUT,
                                          _BUSY), **_RUNS},
    "play": {EXIT_OK: "the game finished (if the input ended first, your remaining turns were played by fallbacks, "
                      "recorded as such in the log)",
             EXIT_BAD_OPTIONS: _bad(_UNKNOWN, "a --seat that is not in the game", "a lineup that cannot be read",
                                    "a --detector that cannot be loaded", _OUT),
             EXIT_STOPPED: "an LLM seat's endpoint stopped answering (its circuit breaker tripped): the game ended "
                           "unfinished",
             **_ANY, EXIT_INTERRUPTED: f"{_SIGINT}: {_ABANDONED}", EXIT_TERMINATED: f"{_SIGTERM}: {_ABANDONED}"},
    "report": {EXIT_OK: "the report is written (metrics.json, tables, plots, report.html)",
               EXIT_BAD_OPTIONS: _bad(_UNKNOWN, "no game logs or no finished game",
                                      "a log that does not replay as a whole, identical game (without "
                                      "--allow-unverified)",
                                      "no readable labels file for --labeler (the message names the command that "
                                      "writes it)", _OUT, head=_BAD_UNWRITTEN),
               EXIT_INVALID: f"{_INVALID}: a policy's actions fell back more than the max fallback rate (the one "
                             "the run was played with, or --max-fallback-rate); the report is written and says so",
               **_ANY},
    "rescore": {EXIT_OK: "every game rescored; the report is written",
                EXIT_FAILED_GAMES: "some games were skipped (the message names them), or none could be rescored",
                EXIT_BAD_OPTIONS: _bad(_UNKNOWN, "a labeler that cannot be made", "no game logs", _PREFLIGHT, _OUT,
                                       head=_BAD_UNWRITTEN),
                EXIT_STOPPED: "a model labeler's endpoint stopped answering (its circuit breaker tripped): the games "
                              "rescored so far are kept, no report is written",
                EXIT_INVALID: f"{_INVALID}: a model labeler's analyses fell back more than --max-fallback-rate "
                              "(the report is written)",
                **_ANY},
    "replay": {EXIT_OK: _LOGS_WHOLE, EXIT_FAILED_GAMES: _LOG_DIFFERS,
               EXIT_BAD_OPTIONS: _bad(_UNKNOWN, _MISSING_LOG, "a log that cannot be read", head="bad options or input"),
               **_ANY},
    "export": {EXIT_OK: "the dataset is written (statements and games tables, a card)",
               EXIT_BAD_OPTIONS: _bad(_UNKNOWN, "a folder that is not a run", "no finished game",
                                      "--format parquet without pyarrow", _OUT, head=_BAD_UNWRITTEN),
               **_ANY},
    "serve": {EXIT_OK: "the server was stopped (Ctrl-C); every finished game's log is in --out",
              EXIT_BAD_OPTIONS: _bad(_UNKNOWN, "a lineup that cannot be read", "a --port that cannot be listened on",
                                     "the web extra not installed", _PREFLIGHT, _OUT),
              **_ANY},
    "relabel": {EXIT_OK: "every statement labelled (or failures within --max-failure-rate); files written",
                EXIT_FAILED_GAMES: "nothing could be labelled; nothing written",
                EXIT_BAD_OPTIONS: "bad options or input, or the preflight found the server unreachable, the key "
                                  "refused or the model unknown; nothing written",
                EXIT_STOPPED: "the endpoint stopped answering midway (circuit breaker); nothing written",
                EXIT_INVALID: "more than --max-failure-rate of the statements failed; files written, failures "
                              "recorded",
                **_ANY},
    "detect-eval": {EXIT_OK: "done: the detectors trained and compared (detect_eval.json in --out)",
                    EXIT_BAD_OPTIONS: _bad(_UNKNOWN, "an unknown detector", "--train without --test (or the reverse)",
                                           "runs or a dataset that cannot be used", _PREFLIGHT, _OUT),
                    EXIT_STOPPED: "the llm-judge's (or an LLM seat's) endpoint stopped answering (its circuit "
                                  "breaker tripped); played games are kept, no table is written",
                    EXIT_INVALID: f"{_INVALID}: the llm-judge left more than --max-fallback-rate of the statements "
                                  "without a valid answer",
                    **_ANY},
}  # fmt: skip


def codes_of(command: str) -> tuple[int, ...]:
    """The exit codes ``command`` can return, in order."""
    return tuple(sorted(COMMANDS[command]))


def exit_codes_text(command: str | None = None, width: int = 100) -> str:
    """What ``--help`` ends with: the codes ``command`` can return (None: every code of the program), each in
    that command's words, one code a paragraph wrapped to ``width``."""
    if command is None:
        lines = ["exit codes (of all commands; a command's --help lists those it can return):"]
        rows = list(MEANINGS)
    else:
        shared = dict(MEANINGS)
        lines = ["exit codes:"]
        rows = [(code, meaning or shared[code]) for code, meaning in sorted(COMMANDS[command].items())]
    for code, meaning in rows:
        lines.extend(
            textwrap.wrap(
                meaning, width, initial_indent=f"  {code:<5}", subsequent_indent=" " * 7, break_on_hyphens=False
            )
        )
    return "\n".join(lines)


class Terminated(KeyboardInterrupt):
    """SIGTERM, raised like Ctrl-C's KeyboardInterrupt so that the same clean-up runs (and exit 143)."""


def _raise_terminated(_signum: int, _frame: object) -> None:
    try:
        loop = asyncio.get_running_loop()
    except RuntimeError:  # no event loop in this thread: raise where the program is
        raise Terminated from None
    # Inside an event loop, raised in a task's step the exception would be stored on that task too, which
    # nobody awaits any more ("Task exception was never retrieved" on stderr). Raised from a callback of
    # the loop instead, outside every task, it leaves the loop; asyncio.run then cancels the tasks (their
    # clean-up runs) and it reaches the command like Ctrl-C's KeyboardInterrupt.
    loop.call_soon_threadsafe(_raise_terminated_now)


def _raise_terminated_now() -> None:
    raise Terminated


@contextmanager
def sigterm_as_interrupt() -> Iterator[None]:
    """While inside, SIGTERM raises ``Terminated``: runs stop as on Ctrl-C (workers ended, games kept)."""
    if threading.current_thread() is not threading.main_thread():  # only the main thread may set handlers
        yield
        return
    previous = signal.signal(signal.SIGTERM, _raise_terminated)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def interrupted_code(exc: KeyboardInterrupt) -> int:
    """130 for Ctrl-C, 143 for SIGTERM."""
    return EXIT_TERMINATED if isinstance(exc, Terminated) else EXIT_INTERRUPTED
