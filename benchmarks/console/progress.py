"""Progress bars on stderr for every stage that can take more than a few seconds (no dependency).

    with Bar("report", total=len(paths), unit="logs") as bar:
        for path in paths:
            ...
            bar.advance()

On a terminal: one line, redrawn in place (``\\r``) at most ten times a second, sized to the
terminal's width at each redraw and never wider (the extra fields go first, then the elapsed time,
then the bar itself, then the rate, the ETA, the label and the percentage)::

    games   |█████████████▌            |  12/20  60%  8.3 games/s  elapsed 0:01  ETA 0:01  failed 0

When the stream is not a terminal (a log file, a pipe, CI; or ``TERM=dumb``): a plain line, no
``\\r`` and no bar, every ``interval`` seconds (5 by default) and a final one. ``quiet``: nothing at all.
A bar with ``leave=False`` (the secondary stages) is erased from the terminal when it closes, and
in a log leaves its final line only when it had already printed one (a stage that lasted).

Status goes to stderr, never stdout: stdout is for results (summaries, tables, ``--json``).
"""

from __future__ import annotations

import os
import shutil
import sys
import time
from collections.abc import Callable, Iterable, Iterator
from typing import Any, TextIO, TypeVar

from werewolf_env.core import terminal_safe

__all__ = ["Bar", "format_duration", "terminal_columns", "track"]

T = TypeVar("T")

MIN_BAR = 6  # narrower than this, the bar is left out
MAX_BAR = 30
_BLOCKS = " ▏▎▍▌▋▊▉█"


def format_duration(seconds: float) -> str:
    """``0:07``, ``12:04``, ``3:02:09``."""
    whole = max(0, round(seconds))
    hours, rest = divmod(whole, 3600)
    minutes, secs = divmod(rest, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}" if hours else f"{minutes}:{secs:02d}"


def terminal_columns(stream: Any = None) -> int:
    """The width of the terminal ``stream`` writes to: ``$COLUMNS`` if set, else the terminal's own size, else
    ``shutil.get_terminal_size()`` (which asks stdout, and falls back to 80)."""
    env = os.environ.get("COLUMNS", "")
    if env.isdigit() and int(env) > 0:
        return int(env)
    try:
        columns = os.get_terminal_size((stream or sys.stderr).fileno()).columns
        if columns > 0:
            return columns
    except (AttributeError, OSError, ValueError):
        pass
    return shutil.get_terminal_size().columns or 80


def _is_terminal(stream: Any) -> bool:
    try:
        return bool(stream.isatty()) and os.environ.get("TERM") != "dumb"
    except (AttributeError, ValueError):  # no isatty, or a closed stream
        return False


class Bar:
    """One stage's progress: ``done``/``total`` (``total`` None: a count only), the rate since the bar
    started (items already done when it started, e.g. a resumed run's, are not counted), the ETA,
    and extra fields (``fields``, or override ``extra_fields``).

    ``clock``, ``tty`` and ``width`` (columns, or a function giving them) are for tests; by default the
    monotonic clock, whether ``stream`` is a terminal, and ``terminal_columns(stream)`` at each redraw.
    """

    def __init__(
        self,
        label: str,
        total: int | None = None,
        *,
        done: int = 0,
        unit: str = "games",
        quiet: bool = False,
        leave: bool = True,
        stream: TextIO | None = None,
        tty: bool | None = None,
        width: int | Callable[[], int] | None = None,
        clock: Callable[[], float] = time.monotonic,
        interval: float = 5.0,
        redraw: float = 0.1,
    ) -> None:
        # A label or field may hold a name (a model's, a seat's): shown made visible, never obeyed by the terminal.
        self.label, self.total, self.done, self.unit = terminal_safe(label), total, done, unit
        self.quiet, self.leave = quiet, leave
        self.stream: Any = stream if stream is not None else sys.stderr
        self.tty = _is_terminal(self.stream) if tty is None else tty
        self.width = width
        self.clock = clock
        self.interval, self.redraw = interval, redraw
        self.fields: dict[str, Any] = {}
        self.started = clock()
        self.resumed = done
        self.closed = False
        self.lines = 0  # plain lines printed (not a terminal)
        self._drawn = 0  # characters of the line now on the terminal
        self._last = self.started  # last redraw (terminal) or plain line
        self._bar_width: dict[int, int] = {}  # the bar's width at the terminal's width: it only narrows
        self._unicode = "utf" in (getattr(self.stream, "encoding", None) or "").lower()

    # ------------------------------------------------------------------ updating

    def advance(self, n: int = 1, **fields: Any) -> None:
        """``n`` more items done (and ``fields`` updated, ``failed=2`` shown as ``failed 2``); redraws if due."""
        self.done += n
        self.fields.update(fields)
        self.show()

    def show(self, force: bool = False) -> None:
        """Redraw (a terminal: at most every ``redraw`` seconds; else a plain line every ``interval`` seconds)."""
        if self.quiet or self.closed:
            return
        now = self.clock()
        if self.tty:
            if force or now - self._last >= self.redraw:
                self._draw(self.render(self.columns() - 1, now))
                self._last = now
        elif force or now - self._last >= self.interval:
            self._write(self.render(None, now) + "\n")
            self.lines += 1
            self._last = now

    def close(self) -> None:
        """The final line (or, ``leave=False``, the bar erased); the bar shows nothing after this."""
        if self.quiet or self.closed:
            self.closed = True
            return
        now = self.clock()
        if self.tty:
            if self.leave:
                self._draw(self.render(self.columns() - 1, now, final=True))
                self._write("\n")
            elif self._drawn:
                self._write("\r" + " " * self._drawn + "\r")
            self._drawn = 0
        elif self.leave or self.lines:
            self._write(self.render(None, now, final=True) + "\n")
            self.lines += 1
        self.closed = True

    finish = close

    def clear(self) -> None:
        """Erase the bar from the terminal (before printing something else); the next update draws it again."""
        if self.tty and self._drawn and not self.quiet:
            self._write("\r" + " " * self._drawn + "\r")
            self._drawn = 0
            self._last = self.started - self.redraw  # redraw at the next update

    def __enter__(self) -> Bar:
        self.show(force=self.tty)
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ------------------------------------------------------------------ rendering

    def columns(self) -> int:
        if callable(self.width):
            return max(1, self.width())
        if self.width is not None:
            return max(1, self.width)
        return terminal_columns(self.stream)

    def extra_fields(self) -> list[str]:
        """The extra fields as shown, most important first (the first to be cut is the last)."""
        return [
            f"{name} {value:,}" if isinstance(value, int) else f"{name} {value}" for name, value in self.fields.items()
        ]

    def rate(self, now: float | None = None) -> float | None:
        elapsed = (self.clock() if now is None else now) - self.started
        played = self.done - self.resumed
        return played / elapsed if elapsed > 0 and played > 0 else None

    def render(self, width: int | None, now: float | None = None, final: bool = False) -> str:
        """The status line, at most ``width`` characters (None: all of it, without the bar)."""
        now = self.clock() if now is None else now
        elapsed = now - self.started
        rate = self.rate(now)
        if self.total is not None:
            digits = len(str(self.total))
            count = f"{self.done:>{digits}}/{self.total}"
            percent: str | None = f"{100 * self.done / self.total if self.total else 100:.0f}%".rjust(4)
        else:
            count, percent = f"{self.done} {self.unit}", None
        if rate is None:
            speed = None
        elif rate >= 1:
            speed = f"{rate:4.1f} {self.unit}/s"
        else:
            speed = f"{1 / rate:4.1f}s per {self.unit.rstrip('s') or self.unit}"
        if final:
            clock_text, eta = None, f"in {format_duration(elapsed)}"
        else:
            clock_text = f"elapsed {format_duration(elapsed)}"
            if self.total is None:
                eta = None
            elif self.done >= self.total:
                eta = "ETA 0:00"
            else:
                eta = f"ETA {format_duration((self.total - self.done) / rate)}" if rate else "ETA ?".ljust(8)
        extras = [terminal_safe(field) for field in self.extra_fields()]
        if width is None:
            return "  ".join(p.strip() for p in (self.label, count, percent, speed, clock_text, eta, *extras) if p)
        return self._fit(width, count, percent, speed, clock_text, eta, extras)

    def _fit(
        self,
        width: int,
        count: str,
        percent: str | None,
        speed: str | None,
        clock_text: str | None,
        eta: str | None,
        extras: list[str],
    ) -> str:
        """The most that fits in ``width``: the extra fields are cut first (from the last), then the elapsed time,
        the bar, the rate, the ETA, the label and the percentage; then the count itself is cut."""
        head = f"{self.label}  {count}"
        shown: dict[str, str | None] = {"percent": percent, "speed": speed, "clock": clock_text, "eta": eta}
        with_bar = self.total is not None
        extra_cuts = [f"extra {i}" for i in reversed(range(len(extras)))]
        cuts = [*extra_cuts, "clock", "bar", "speed", "eta", "label", "percent"]
        for cut in [None, *cuts]:
            if cut == "bar":
                with_bar = False
            elif cut == "label":
                head = count.strip()
                shown["percent"] = percent.strip() if percent else None
            elif cut is not None and cut.startswith("extra "):
                extras = extras[: int(cut.split()[1])]
            elif cut is not None:
                shown[cut] = None
            tail = "  ".join(p for p in (shown["percent"], shown["speed"], shown["clock"], shown["eta"], *extras) if p)
            if with_bar:
                room = width - len(head) - len(tail) - (4 if tail else 3)  # the bar's ends and a space each side
                if shown["speed"] is None and speed is None:  # no rate yet: keep room for it (the bar stays put)
                    room -= len(f"99.9 {self.unit}/s") + 2
                if room >= MIN_BAR:
                    # The bar only narrows while the terminal keeps its width (it does not jump as the figures do).
                    inner = min(room, MAX_BAR, self._bar_width.get(width, MAX_BAR))
                    self._bar_width = {width: inner}
                    return f"{head} {self._bar(inner)}" + (f" {tail}" if tail else "")
                continue
            line = f"{head}  {tail}" if tail else head
            if len(line) <= width:
                return line
        return line[:width]

    def _bar(self, inner: int) -> str:
        share = min(1.0, max(0.0, self.done / self.total)) if self.total else 1.0
        if not self._unicode:
            filled = int(share * inner)
            return "[" + "#" * filled + "-" * (inner - filled) + "]"
        eighths = int(share * inner * 8)
        full, part = divmod(eighths, 8)
        body = "█" * full + (_BLOCKS[part] if part and full < inner else "")
        return "|" + body.ljust(inner) + "|"

    # ------------------------------------------------------------------ writing

    def _draw(self, line: str) -> None:
        pad = max(0, self._drawn - len(line))  # wipe what is left of a longer line
        self._write("\r" + line + " " * pad)
        self._drawn = len(line)

    def _write(self, text: str) -> None:
        try:
            self.stream.write(text)
            self.stream.flush()
        except (OSError, ValueError):  # a closed or broken stderr: progress is not worth failing for
            self.quiet = True


def track(items: Iterable[T], bar: Bar) -> Iterator[T]:
    """``items``, advancing ``bar`` after each one has been used."""
    for item in items:
        yield item
        bar.advance()
