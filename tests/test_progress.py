"""Progress bars (``werewolf_deception.benchmarks.console.progress``): never wider than the terminal, rate and ETA,
plain lines when the output is not a terminal, nothing when quiet; and what ``werewolf-bench run`` prints when piped."""

from __future__ import annotations

import io
import subprocess
import sys
from pathlib import Path

import pytest

from werewolf_deception.benchmarks.console.progress import Bar, format_duration, terminal_columns, track
from werewolf_deception.benchmarks.runs.loop import Progress

ROOT = Path(__file__).resolve().parents[1]


class Clock:
    """A clock the test moves: no sleeping."""

    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


class Terminal(io.StringIO):
    """What a terminal would receive, with the encoding a UTF-8 terminal has."""

    encoding = "utf-8"  # type: ignore[assignment]

    def drawn(self) -> list[str]:
        """Every state of the line: what follows each carriage return, up to the next one or a newline."""
        return [part.split("\n")[0] for part in self.getvalue().split("\r") if part.split("\n")[0].strip()]


def bar_on(stream: io.StringIO, clock: Clock, **options: object) -> Bar:
    return Bar("games", 200, stream=stream, clock=clock, **options)  # type: ignore[arg-type]


@pytest.mark.parametrize("columns", [10, 40, 80, 200])
@pytest.mark.parametrize("unicode", [True, False])
def test_the_bar_never_reaches_the_terminal_width(columns: int, unicode: bool) -> None:
    clock = Clock()
    stream = Terminal() if unicode else io.StringIO()
    bar = bar_on(stream, clock, tty=True, width=columns)
    bar.fields.update({"failed": 3, "tokens": 1_234_567, "calls in flight": 12})
    for _ in range(200):
        clock.now += 0.37
        bar.advance()
    bar.close()
    lines = stream.getvalue().split("\r")
    assert len(lines) > 100  # redrawn as it went
    assert all(len(line.rstrip("\n")) < columns for line in lines), max(lines, key=len)
    assert stream.getvalue().endswith("\n") and stream.getvalue().count("\n") == 1


def test_the_extra_fields_are_cut_first_then_the_rest_in_order() -> None:
    clock = Clock()
    bar = bar_on(Terminal(), clock, tty=True)
    bar.fields.update({"failed": 3, "tokens": 12_345, "calls in flight": 12})
    clock.now += 10
    bar.done = 50
    wide = bar.render(199)
    assert "|" in wide and "ETA 0:30" in wide and "5.0 games/s" in wide and "calls in flight 12" in wide
    assert "tokens 12,345" in wide and "failed 3" in wide and "elapsed 0:10" in wide
    at_80 = bar.render(79)
    assert "ETA 0:30" in at_80 and "games/s" in at_80 and "|" in at_80 and "calls in flight" not in at_80
    narrow = bar.render(39)
    assert "failed" not in narrow and "ETA 0:30" in narrow and narrow.startswith("games")
    assert bar.render(12) == "50/200  25%" and bar.render(9) == "50/200" and bar.render(4) == "50/2"
    for width in range(1, 200):
        assert len(bar.render(width)) <= width


def test_rate_and_eta() -> None:
    clock = Clock()
    stream = Terminal()
    bar = Bar("games", 10, stream=stream, clock=clock, tty=True, width=120)
    clock.now += 2
    bar.advance(4)
    line = stream.drawn()[-1]
    assert "4/10" in line and "40%" in line and "2.0 games/s" in line and "ETA 0:03" in line
    slow = Bar("games", 10, stream=Terminal(), clock=clock, tty=True, width=120)
    clock.now += 30
    slow.done = 2
    assert "15.0s per game" in slow.render(119) and "ETA 2:00" in slow.render(119)
    assert format_duration(59.6) == "1:00" and format_duration(3725) == "1:02:05"


def test_resumed_items_are_not_in_the_rate() -> None:
    clock = Clock()
    progress = Progress(20, 10, stream=Terminal(), clock=clock, tty=True, width=200)
    clock.now += 5
    progress.done += 5
    line = progress.render(199)
    assert "15/20" in line and "1.0 games/s" in line and "ETA 0:05" in line


def test_a_terminal_is_redrawn_at_most_ten_times_a_second() -> None:
    clock = Clock()
    stream = Terminal()
    bar = bar_on(stream, clock, tty=True, width=100)
    for _ in range(100):
        clock.now += 0.01  # a hundred items a second for a second
        bar.advance()
    assert 9 <= stream.getvalue().count("\r") <= 11


def test_not_a_terminal_prints_a_plain_line_every_few_seconds_and_a_final_one() -> None:
    clock = Clock()
    stream = io.StringIO()
    bar = Bar("games", 30, stream=stream, clock=clock, tty=False, interval=5.0)
    for _ in range(30):
        clock.now += 1
        bar.advance(failed=0)
    bar.close()
    text = stream.getvalue()
    lines = text.splitlines()
    assert "\r" not in text and "|" not in text and "█" not in text
    assert [line.split()[1] for line in lines] == ["5/30", "10/30", "15/30", "20/30", "25/30", "30/30", "30/30"]
    assert lines[0] == "games  5/30  17%  1.0 games/s  elapsed 0:05  ETA 0:25  failed 0"
    assert lines[-1] == "games  30/30  100%  1.0 games/s  in 0:30  failed 0"


def test_quiet_prints_nothing() -> None:
    clock = Clock()
    for tty in (True, False):
        stream = Terminal()
        with Bar("games", 5, stream=stream, clock=clock, tty=tty, quiet=True) as bar:
            for _ in range(5):
                clock.now += 10
                bar.advance()
        assert stream.getvalue() == ""


def test_a_secondary_stage_leaves_nothing_behind() -> None:
    clock = Clock()
    screen = Terminal()
    with Bar("report", 3, stream=screen, clock=clock, tty=True, width=60, leave=False) as bar:
        for _ in range(3):
            clock.now += 1
            bar.advance()
    assert screen.getvalue().endswith("\r") and screen.getvalue().split("\r")[-2].strip() == ""
    log = io.StringIO()
    with Bar("report", 3, stream=log, clock=clock, tty=False, leave=False) as bar:
        for _ in range(3):
            clock.now += 0.5
            bar.advance()
    assert log.getvalue() == ""  # a short stage says nothing in a log...
    with Bar("report", 3, stream=log, clock=clock, tty=False, leave=False, interval=5) as bar:
        for _ in range(3):
            clock.now += 3
            bar.advance()
    assert log.getvalue().splitlines()[-1].startswith("report  3/3  100%")  # ...a long one ends its lines


def test_a_run_shows_failures_and_llm_fields_only_when_there_are_calls() -> None:
    progress = Progress(10, 0, stream=Terminal(), clock=Clock(), tty=True, width=200)
    assert "failed 0" in progress.render(199) and "tokens" not in progress.render(199)
    progress.tokens = 1500
    assert "tokens 1,500" in progress.render(199) and "calls in flight 0" in progress.render(199)


def test_track_advances_after_each_item_and_the_width_follows_columns(monkeypatch: pytest.MonkeyPatch) -> None:
    clock = Clock()
    bar = Bar("logs", 3, stream=io.StringIO(), clock=clock, tty=False)
    seen = [bar.done for _ in track(range(3), bar)]
    assert seen == [0, 1, 2] and bar.done == 3
    monkeypatch.setenv("COLUMNS", "37")
    assert terminal_columns(io.StringIO()) == 37
    monkeypatch.delenv("COLUMNS")
    assert terminal_columns(io.StringIO()) > 0  # not a terminal: shutil's answer (80 by default)


def test_werewolf_bench_run_piped_prints_plain_lines_and_a_final_one(tmp_path: Path) -> None:
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "werewolf_deception.benchmarks.cli.main",
            "run",
            "--games",
            "3",
            "--baseline-games",
            "2",
            "--out",
            str(tmp_path / "run"),
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    assert "\r" not in done.stdout and "\r" not in done.stderr
    # The games bar's final line; a secondary stage (the report) that outlasts 5 s adds plain lines after it,
    # each ending at 100% too (how long it takes depends on the machine's load, so either is right).
    finals = [line for line in done.stderr.splitlines() if "100%" in line]
    assert finals and finals[0].startswith("games  3/3  100%"), done.stderr
    assert all(
        not line.startswith("games") or "100%" in line or "elapsed" in line for line in done.stderr.splitlines()
    ), done.stderr
    assert "games/s" in done.stderr and "failed 0" in done.stderr
    assert "games  3/3" not in done.stdout  # the status stays out of the results
    assert done.stdout.startswith("werewolf-deception ")
    quiet = subprocess.run(
        [
            sys.executable,
            "-m",
            "werewolf_deception.benchmarks.cli.main",
            "run",
            "--games",
            "3",
            "--no-report",
            "--quiet",
            "--out",
            str(tmp_path / "quiet"),
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert quiet.returncode == 0 and quiet.stdout == "" and quiet.stderr == "", quiet.stderr
