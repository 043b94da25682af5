"""The exit codes of ``werewolf-bench``: ``MEANINGS`` is the one table (``--help`` and the README show it)."""

from __future__ import annotations

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

MEANINGS: tuple[tuple[int, str], ...] = (
    (EXIT_OK, "done: every game finished and replay-checked; every LLM seat within --max-fallback-rate "
              "(replay: every log is whole and rebuilds the identical game)"),
    (EXIT_FAILED_GAMES, "some games failed (recorded in results.ndjson; the same command plays them again); "
                        "replay: a log differs or is truncated (the message says where)"),
    (EXIT_BAD_OPTIONS, "bad options or input, nothing played or written: an unknown option or value, a preflight "
                       "that found an endpoint that cannot answer, --out at a file or at a folder of other files, "
                       "a folder another run is using, a tournament name that is not a plain name, a missing log"),
    (EXIT_STOPPED, "an endpoint's circuit breaker stopped the run (finished games kept; the same command resumes)"),
    (EXIT_INVALID, "finished, but not a valid measurement: an LLM seat's fallback rate exceeds --max-fallback-rate"),
    (EXIT_STORAGE, "a file could not be written or read (read-only folder, full disk, no permission): the message "
                   "names the path; finished games are kept and the same command resumes"),
    (EXIT_INTERRUPTED, "interrupted by Ctrl-C (SIGINT); finished games kept, worker processes ended"),
    (EXIT_OUTPUT_CLOSED, "the output was closed before the command finished (piped into head, say)"),
    (EXIT_TERMINATED, "terminated by SIGTERM; finished games kept, worker processes ended"),
)  # fmt: skip


def exit_codes_text(width: int = 100) -> str:
    """The table as ``--help`` shows it: one code a paragraph, wrapped to ``width``."""
    lines = ["exit codes:"]
    for code, meaning in MEANINGS:
        lines.extend(
            textwrap.wrap(
                meaning, width, initial_indent=f"  {code:<5}", subsequent_indent=" " * 7, break_on_hyphens=False
            )
        )
    return "\n".join(lines)


class Terminated(KeyboardInterrupt):
    """SIGTERM, raised like Ctrl-C's KeyboardInterrupt so that the same clean-up runs (and exit 143)."""


def _raise_terminated(_signum: int, _frame: object) -> None:
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
