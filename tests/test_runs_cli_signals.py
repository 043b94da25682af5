"""SIGTERM or Ctrl-C (or SIGKILL) to a run with worker processes: every worker ends with the parent, the
exit code says which signal, and the same command resumes to exactly the games of an uninterrupted run.

Each run is signalled at a chosen point (it signals itself right after its k-th result line: see
``tests.test_runs.STOP_AT``), so what it kept is known exactly; the only waits poll, with a deadline, for
the workers to end.
"""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.test_runs import run_stopped_at
from werewolf_deception.benchmarks.cli.main import main
from werewolf_deception.benchmarks.console.exit_codes import EXIT_INTERRUPTED, EXIT_TERMINATED
from werewolf_deception.benchmarks.runs.folder import RunDir

ROOT = Path(__file__).resolve().parents[1]
GAMES = 8
RUN = ["run", "--games", str(GAMES), "--players", "6", "--workers", "2", "--no-report", "--quiet"]
DEADLINE = 120.0


def wait_for(condition: Callable[[], bool], what: str, deadline: float = DEADLINE) -> None:
    end = time.monotonic() + deadline
    while not condition():
        assert time.monotonic() < end, f"timed out waiting for {what}"
        time.sleep(0.05)


def running(pid: int) -> bool:
    """The process exists and is not a zombie (a zombie has ended; only its exit status is left)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


@pytest.fixture(scope="module")
def reference(tmp_path_factory: pytest.TempPathFactory) -> dict[str, bytes]:
    out = tmp_path_factory.mktemp("reference") / "run"
    assert main([*RUN, "--workers", "1", "--out", str(out)]) == 0
    return {p.name: p.read_bytes() for p in (out / "games").glob("*.ndjson")}


@pytest.mark.skipif(not Path("/proc/self/stat").is_file(), reason="reads the process table from /proc")
@pytest.mark.parametrize(
    ("signum", "code", "k"),
    [
        (signal.SIGTERM, EXIT_TERMINATED, 1),
        (signal.SIGINT, EXIT_INTERRUPTED, 3),
        # No clean-up runs on SIGKILL: the kernel tells each worker that its parent died (Linux).
        pytest.param(
            signal.SIGKILL,
            -signal.SIGKILL,
            5,
            marks=pytest.mark.skipif(not sys.platform.startswith("linux"), reason="PR_SET_PDEATHSIG is Linux's"),
        ),
    ],
)
def test_a_signal_ends_every_worker_and_the_run_resumes(
    tmp_path: Path, signum: signal.Signals, code: int, k: int, reference: dict[str, bytes]
) -> None:
    """The run signals itself right after its k-th result line (``STOP_AT``), while its workers play the next
    games: the point is chosen, not waited for."""
    out = tmp_path / "run"
    done, note = run_stopped_at(out, RUN, at="after-result", k=k, signal=signum.name)
    assert done.returncode == code, done.stderr
    if signum != signal.SIGKILL:
        err = done.stderr
        assert "interrupted:" in err and "run the same command again to resume" in err and "Traceback" not in err
    workers = set(note["children"])  # the two workers and the pool's resource tracker, when it was signalled
    assert len(workers) >= 2, note
    wait_for(lambda: not any(running(pid) for pid in workers), "the workers to end")
    kept = RunDir(out).read_results()
    assert len(kept) == k and note["game"] in kept and all(entry["status"] == "ok" for entry in kept.values())
    assert {p.stem for p in (out / "games").glob("*.ndjson")} == set(kept)  # the games in hand left no log
    assert main([*RUN, "--out", str(out)]) == 0
    lines = [json.loads(line) for line in (out / "results.ndjson").read_text().splitlines()]
    assert sorted(entry["game"] for entry in lines) == sorted(f"seed{s}" for s in range(GAMES))  # each game once
    assert {p.name: p.read_bytes() for p in (out / "games").iterdir()} == reference  # no scratch folder either


def test_a_worker_outcome_is_small_and_the_log_stays_on_disk(tmp_path: Path) -> None:
    """A worker killed while sending its outcome must not leave half a message in the pool's pipe (the pool's
    manager thread would wait for the rest forever): the outcome is one small write, the log is a file."""
    import pickle

    from werewolf_deception.agents import Lineup
    from werewolf_deception.benchmarks.runs.workers import play_job
    from werewolf_env import GameConfig

    scratch = tmp_path / "scratch"
    outcome = play_job(GameConfig().model_dump(mode="json"), Lineup().model_dump(mode="json"), 3, 4, None, str(scratch))
    assert outcome["status"] == "ok" and "log" not in outcome
    assert len(pickle.dumps(outcome)) < 4096  # below PIPE_BUF: the kernel writes it whole or not at all
    assert len(list(scratch.glob("*.ndjson"))) == 1


def test_a_pool_thread_that_never_ends_does_not_keep_the_command_alive(tmp_path: Path) -> None:
    """Should a pool's manager thread hang after its workers were ended, the command still exits, with its code."""
    script = (
        "import threading, sys\n"
        "import werewolf_deception.benchmarks.runs.workers as workers\n"
        "from werewolf_deception.benchmarks.cli.main import main\n"
        "threading.Thread(target=threading.Event().wait).start()  # a non-daemon thread that never ends\n"
        "workers._stuck.set()\n"
        "sys.exit(main(['replay', sys.argv[1]]))\n"
    )
    missing = tmp_path / "no-such.ndjson"
    done = subprocess.run(
        [sys.executable, "-c", script, str(missing)],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=Path(__file__).resolve().parents[1],
    )
    assert done.returncode == 2, done.stderr  # replay of a missing log: exit 2, and the process did end
