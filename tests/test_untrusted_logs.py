"""Logs are untrusted files, and every command ends cleanly (issue 31, part D).

- a log line nested 100,000 deep, a log longer than ``MAX_LOG_LINES`` lines or with a line longer than
  ``MAX_LOG_LINE_BYTES``: ``replay`` and ``report`` say where, never ``RecursionError``;
- ``replay()`` of a cut-off log is not ok;
- ``report`` refuses logs that do not replay (hand-edited, cut off, not a game log), writing nothing, or with
  ``--allow-unverified`` reports the finished ones and lists every one;
- a write the disk refuses names its path, even when the error (a full disk's, on a file already open) names
  none: ``/dev/full`` stands in for the full disk;
- SIGTERM at a chosen point of ``report`` or ``run`` (the process signals itself there: no timing) exits 143
  with no traceback and no "Task exception was never retrieved".
"""

from __future__ import annotations

import io
import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import werewolf_env
from werewolf_deception.benchmarks.cli.main import main

ROOT = Path(__file__).resolve().parents[1]
DEEP = "[" * 100_000 + "]" * 100_000
REPORT = ["--no-plots", "--baseline-games", "0", "--resamples", "20"]


def copy_run(run_logs: Path, to: Path) -> Path:
    shutil.copytree(run_logs / "games", to / "games")
    return to


def first_log(run: Path) -> Path:
    return sorted((run / "games").glob("*.ndjson"))[0]


def files_under(folder: Path) -> set[Path]:
    return {p for p in folder.rglob("*")} if folder.exists() else set()


# ------------------------------------------------------------------------------------- nesting depth


def depth_of(value: Any) -> int:
    if isinstance(value, dict):
        return 1 + max((depth_of(v) for v in value.values()), default=0)
    if isinstance(value, list):
        return 1 + max((depth_of(v) for v in value), default=0)
    return 0


JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(alphabet='[]{}"\\ab,:'),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(alphabet='[]{}"\\a', max_size=3), inner, max_size=3)
    ),
    max_leaves=30,
)


@settings(max_examples=300, deadline=None)
@given(JSON_VALUES, st.integers(0, 8))
def test_loads_bounded_refuses_exactly_what_nests_deeper_than_its_bound(value: Any, limit: int) -> None:
    from werewolf_env.core.json_input import TooDeepError, loads_bounded

    text = json.dumps(value)
    if depth_of(value) > limit:
        with pytest.raises(TooDeepError):
            loads_bounded(text, limit)
    else:
        assert loads_bounded(text, limit) == value


@pytest.mark.parametrize("line", [0, 5], ids=["header", "event"])
def test_a_line_nested_100000_deep_is_said_never_raised(
    run_logs: Path, tmp_path: Path, line: int, capsys: pytest.CaptureFixture[str]
) -> None:
    run = copy_run(run_logs, tmp_path / "run")
    log = first_log(run)
    lines = log.read_text(encoding="utf-8").splitlines()
    if line == 0:  # the header itself, as it begins
        lines[0] = lines[0][:-1] + ',"deep":' + DEEP + "}"
    else:
        lines.insert(line, '{"type":"agent_record","seq":null,"data":' + DEEP + "}")
    log.write_text("\n".join(lines) + "\n", encoding="utf-8")
    assert main(["replay", str(log)]) == 1
    out = capsys.readouterr().out
    assert f"TRUNCATED: line {line + 1} (byte " in out and "nested deeper than 64 levels" in out
    out_dir = tmp_path / "report"
    assert main(["report", str(run), "--out", str(out_dir), *REPORT]) == 2
    err = capsys.readouterr().err
    assert "1 of 3 logs do not replay" in err and "nested deeper than 64 levels" in err and "Traceback" not in err
    assert not out_dir.exists()


# ------------------------------------------------------------------------------------- lines per log


def test_a_log_of_more_than_the_most_lines_is_read_up_to_there(run_logs: Path, tmp_path: Path) -> None:
    from werewolf_env.engine.log import MAX_LOG_LINES, read_log_checked, replay

    log = tmp_path / "long.ndjson"
    whole = first_log(run_logs).read_bytes()
    kept = whole.count(b"\n")
    log.write_bytes(whole + b"\n" * (MAX_LOG_LINES - kept) + b"{}\n" * 3)  # blank lines are lines too
    reading = read_log_checked(log)
    assert reading.damage == (
        f"the log has more than {MAX_LOG_LINES:,} lines, the most a log may have: line "
        f"{MAX_LOG_LINES + 1:,} and the 2 lines after it were not read"
    )
    assert len(reading.records) == kept and reading.lines == MAX_LOG_LINES
    result = replay(log)
    assert not result.ok and result.matches and result.truncated == reading.damage


def test_a_line_longer_than_the_most_bytes_stops_the_reading(
    run_logs: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import werewolf_env.engine.log as log_module

    monkeypatch.setattr(log_module, "MAX_LOG_LINE_BYTES", 4096)
    lines = first_log(run_logs).read_text(encoding="utf-8").splitlines(keepends=True)
    long = json.dumps({"type": "agent_record", "seq": None, "data": {"raw": "x" * 10_000}}) + "\n"
    log = tmp_path / "wide.ndjson"
    log.write_text("".join([*lines[:4], long, *lines[4:]]), encoding="utf-8")
    reading = log_module.read_log_checked(log)
    assert reading.damage is not None and reading.damage.startswith("line 5 (byte ")
    assert (
        f"is longer than 4,096 bytes, the most a log line may have; it and the {len(lines) - 4:,} lines after "
        "it were not read" in reading.damage
    )
    assert len(reading.records) == 4


# ------------------------------------------------------------------------------------- replay() of a cut log


def test_a_cut_off_log_does_not_replay_ok(run_logs: Path, tmp_path: Path) -> None:
    from werewolf_env.engine.log import replay

    data = first_log(run_logs).read_bytes()
    cut = tmp_path / "cut.ndjson"
    cut.write_bytes(data[: len(data) // 2])
    result = replay(cut)
    assert result.truncated is not None
    assert not result.ok and not result  # a truncated log is never "ok", whatever it holds
    assert result.matches  # ... though what it holds replays identically (replay's verdict says so)
    assert replay(first_log(run_logs)).ok


# ------------------------------------------------------------------------------------- report: logs that do not replay


def hand_edited(log: Path) -> None:
    """A statement's text changed in the log (the action that made it left as it was)."""
    lines = log.read_text(encoding="utf-8").splitlines()
    for i, line in enumerate(lines):
        record = json.loads(line)
        if record.get("type") == "statement":
            record["data"]["text"] = "I am the seer and Bob is a werewolf."
            lines[i] = json.dumps(record)
            break
    log.write_text("\n".join(lines) + "\n", encoding="utf-8")


def cut_off(log: Path) -> None:
    data = log.read_bytes()
    log.write_bytes(data[: len(data) // 2])


def not_a_log(log: Path) -> None:
    """A header whose config the engine cannot read: ``replay`` says NOT A GAME LOG."""
    lines = log.read_text(encoding="utf-8").splitlines()
    header = json.loads(lines[0])
    header["config"]["num_players"] = "many"
    log.write_text("\n".join([json.dumps(header), *lines[1:]]) + "\n", encoding="utf-8")


# (how the log is spoiled, what replay calls it, games the report counts with --allow-unverified)
SPOILED = {"hand-edited": (hand_edited, "DIFFERS", 3), "cut off": (cut_off, "TRUNCATED", 2),
           "not a game log": (not_a_log, "NOT A GAME LOG", 3)}  # fmt: skip
# (a header the engine cannot read still holds a game the report can read: with the switch it is shown, marked)


@pytest.mark.parametrize("how", list(SPOILED))
def test_report_refuses_a_log_that_does_not_replay_or_marks_it(
    run_logs: Path, tmp_path: Path, how: str, capsys: pytest.CaptureFixture[str]
) -> None:
    spoil, verdict, counted = SPOILED[how]
    run = copy_run(run_logs, tmp_path / "run")
    log = first_log(run)
    spoil(log)
    before = files_under(run)
    assert main(["report", str(run), *REPORT]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err
    assert f"1 of 3 logs do not replay as identical games ({log}: {verdict}" in err
    assert "--allow-unverified" in err and f"werewolf-bench replay {run}" in err
    assert files_under(run) == before  # nothing written
    assert main(["report", str(run), "--allow-unverified", *REPORT]) == 0
    out = capsys.readouterr().out
    assert "UNVERIFIED: 1 logs do not replay" in out and f"{log}: {verdict}" in out
    document = json.loads((run / "metrics.json").read_text(encoding="utf-8"))
    assert list(document["run"]["unverified_logs"]) == [str(log)]
    assert document["run"]["unverified_logs"][str(log)].startswith(verdict)
    assert document["run"]["games"] == counted


def test_report_of_logs_that_all_replay_says_none_is_unverified(run_logs: Path, tmp_path: Path) -> None:
    run = copy_run(run_logs, tmp_path / "run")
    assert main(["report", str(run), *REPORT]) == 0
    assert json.loads((run / "metrics.json").read_text(encoding="utf-8"))["run"]["unverified_logs"] == {}


# ------------------------------------------------------------------------------------- storage errors name the path


@pytest.fixture
def full_disk(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[Path]]:
    """Files opened for writing under the folders put in the list are on a full disk: they open, and every write
    to them fails with ENOSPC naming no file, as the kernel's does (their descriptor is ``/dev/full``'s)."""
    folders: list[Path] = []
    real_open = io.open

    def full_open(file: Any, mode: str = "r", *args: Any, **kwargs: Any) -> Any:
        opened = real_open(file, mode, *args, **kwargs)
        if any(flag in mode for flag in "wax+") and isinstance(file, (str, os.PathLike)):
            path = Path(os.fspath(file)).absolute()
            if any(path.is_relative_to(folder.absolute()) for folder in folders):
                full = os.open("/dev/full", os.O_WRONLY)
                os.dup2(full, opened.fileno())
                os.close(full)
        return opened

    monkeypatch.setattr(io, "open", full_open)
    monkeypatch.setattr("builtins.open", full_open)
    yield folders


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs /dev/full")
def test_a_full_disk_under_a_report_names_the_file(
    run_logs: Path, tmp_path: Path, full_disk: list[Path], capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "report"
    full_disk.append(out)
    assert main(["report", str(run_logs), "--out", str(out), *REPORT]) == 5
    err = capsys.readouterr().err
    assert f"error: cannot write {out}{os.sep}" in err and "(ENOSPC)" in err and "Traceback" not in err


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs /dev/full")
def test_a_full_disk_under_a_run_names_the_game_log(
    tmp_path: Path, full_disk: list[Path], capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "run"
    full_disk.append(out / "games")
    assert main(["run", "--games", "2", "--players", "5", "--no-report", "--quiet", "--out", str(out)]) == 5
    err = capsys.readouterr().err
    assert f"error: cannot write {out / 'games'}{os.sep}" in err and ".ndjson: No space left on device (ENOSPC)" in err


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs /dev/full")
def test_a_report_whose_metrics_file_is_on_a_full_disk_names_it(run_logs: Path, tmp_path: Path) -> None:
    """The same with the real device, in a real process: ``metrics.json`` is ``/dev/full``."""
    out = tmp_path / "report"
    out.mkdir()
    (out / "metrics.json").symlink_to("/dev/full")
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "werewolf_deception.benchmarks.cli.main",
            "report",
            str(run_logs),
            "--out",
            str(out),
            *REPORT,
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 5, done.stderr
    assert done.stderr == f"error: cannot write {out / 'metrics.json'}: No space left on device (ENOSPC)\n"


# ------------------------------------------------------------------------------------- SIGTERM at any stage

# ``python -c SIGTERM_AT SPEC ARG...`` runs ``werewolf-bench ARG...`` and sends itself SIGTERM at the point SPEC
# (JSON) names: at the k-th line written to a game log whose path contains SPEC["log"] (inside a game's task of
# the event loop), or at the k-th log read ("read": the report's replay check and pass, the run's replay check).
SIGTERM_AT = r"""
import json, os, signal, sys

import werewolf_env.engine.log as log
from werewolf_deception.benchmarks.cli.main import main

spec = json.loads(sys.argv[1])
count = [0]


def signal_at_k():
    count[0] += 1
    if count[0] == spec["k"]:
        os.kill(os.getpid(), signal.SIGTERM)


write, read = log.EventLog._write, log.read_log_checked


def write_and_signal(self, record):
    if spec["at"] == "write" and spec["log"] in str(self.path):
        signal_at_k()
    write(self, record)


def read_and_signal(path):
    if spec["at"] == "read":
        signal_at_k()
    return read(path)


log.EventLog._write = write_and_signal
log.read_log_checked = read_and_signal
sys.exit(main(sys.argv[2:]))
"""

STAGES = {
    "report: replay check": (["report", "{run}", "--out", "{out}", "--no-plots", "--baseline-games", "2"],
                             {"at": "read", "k": 2}),
    "report: reading the logs": (["report", "{run}", "--out", "{out}", "--no-plots", "--baseline-games", "2"],
                                 {"at": "read", "k": 5}),
    "report: playing a baseline": (["report", "{run}", "--out", "{out}", "--no-plots", "--baseline-games", "2"],
                                   {"at": "write", "log": "baselines", "k": 30}),
    "run: playing a game": (["run", "--games", "2", "--players", "5", "--workers", "1", "--out", "{out}"],
                            {"at": "write", "log": ".playing-", "k": 30}),
    "run: replay check": (["run", "--games", "2", "--players", "5", "--workers", "1", "--out", "{out}"],
                          {"at": "read", "k": 1}),
}  # fmt: skip


@pytest.mark.parametrize("stage", list(STAGES))
def test_sigterm_at_any_stage_exits_143_without_a_traceback(run_logs: Path, tmp_path: Path, stage: str) -> None:
    command, spec = STAGES[stage]
    run = copy_run(run_logs, tmp_path / "run")
    args = [part.format(run=run, out=tmp_path / "out") for part in command]
    done = subprocess.run(
        [sys.executable, "-c", SIGTERM_AT, json.dumps(spec), *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 143, done.stderr
    for noise in ("Traceback", "never retrieved", "never awaited", "Exception ignored", "Task was destroyed"):
        assert noise not in done.stderr, done.stderr
    assert "interrupted" in done.stderr


def test_a_log_that_stops_cleanly_is_left_out_as_unfinished_not_refused(
    run_logs: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """An interrupted run (or one its breaker stopped) leaves a log that ends between two whole lines: the report
    leaves it out as unfinished, as it always has, and the same command resumes the game."""
    run = copy_run(run_logs, tmp_path / "run")
    log = first_log(run)
    lines = log.read_text(encoding="utf-8").splitlines()
    log.write_text("\n".join(lines[: len(lines) // 2]) + "\n", encoding="utf-8")
    result = werewolf_env.replay(log)
    assert not result.ok and result.matches and result.stopped_early
    assert main(["report", str(run), *REPORT]) == 0
    document = json.loads((run / "metrics.json").read_text(encoding="utf-8"))
    assert document["run"]["unverified_logs"] == {} and document["run"]["games"] == 2
