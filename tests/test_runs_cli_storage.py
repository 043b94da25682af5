"""A disk that refuses writes (read-only, full, no permission) ends a run with a message naming the path
and exit 5, never a traceback; finished games are kept and the same command resumes to the same games.

As root, chmod does not stop writes, so the faults are also injected where the run writes (the run
folder's methods, the game log's writer) as the OSError the kernel would raise; no client is mocked.
"""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from werewolf_deception.benchmarks.cli.main import main
from werewolf_deception.benchmarks.runs.folder import RunDir
from werewolf_env.engine.log import EventLog

GAMES = 6
RUN = ["run", "--games", str(GAMES), "--players", "5", "--concurrency", "2", "--no-report", "--quiet"]


@pytest.fixture(scope="module")
def reference(tmp_path_factory: pytest.TempPathFactory) -> dict[str, bytes]:
    """The logs of the same run played without a fault."""
    out = tmp_path_factory.mktemp("reference") / "run"
    assert main([*RUN, "--out", str(out)]) == 0
    return {p.name: p.read_bytes() for p in (out / "games").glob("*.ndjson")}


def failing_after(
    calls: int, code: int, path_of: Callable[..., Any], original: Callable[..., Any]
) -> Callable[..., Any]:
    """``original``, which raises OSError(code) naming ``path_of(*args)`` from its ``calls``-th call on."""
    count = [0]

    def write(*args: Any, **kwargs: Any) -> Any:
        count[0] += 1
        if count[0] >= calls:
            raise OSError(code, os.strerror(code), str(path_of(*args)))
        return original(*args, **kwargs)

    return write


# (what is written, the method that writes it, the path it names, after how many calls it fails)
FAULTS = {
    "manifest": (RunDir, "write_json", lambda run, name, data: run.path / name, 1),
    "results": (RunDir, "append", lambda run, entry: run.results_path, 3),
    "game log": (EventLog, "_write", lambda log, obj: log.path, 400),
}


@pytest.mark.parametrize("code", [errno.ENOSPC, errno.EROFS, errno.EACCES])
@pytest.mark.parametrize("where", list(FAULTS))
def test_a_refused_write_stops_the_run_with_the_path_and_the_run_resumes(
    tmp_path: Path,
    where: str,
    code: int,
    reference: dict[str, bytes],
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    out = tmp_path / "run"
    owner, method, path_of, calls = FAULTS[where]
    with monkeypatch.context() as patch:
        patch.setattr(owner, method, failing_after(calls, code, path_of, getattr(owner, method)))
        assert main([*RUN, "--out", str(out)]) == 5
    err = capsys.readouterr().err
    assert "Traceback" not in err
    named = {"manifest": out / "manifest.json", "results": out / "results.ndjson", "game log": out / "games"}[where]
    assert f"{named}" in err and f"({errno.errorcode[code]})" in err, err
    before = RunDir(out).read_results()
    assert all(entry["status"] == "ok" for entry in before.values())  # a refused write is never a failed game
    assert main([*RUN, "--out", str(out)]) == 0  # the disk takes writes again: the same command resumes
    after = RunDir(out).read_results()
    assert sorted(after) == sorted(f"seed{s}" for s in range(GAMES))
    assert {p.name: p.read_bytes() for p in (out / "games").glob("*.ndjson")} == reference
    assert not list((out / "games").glob(".playing-*"))


def test_a_refused_write_from_a_worker_game_stops_the_run(
    tmp_path: Path, reference: dict[str, bytes], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "run"
    # A worker writes its game's log into the game's scratch folder; the driver moves it into place.
    place = failing_after(2, errno.ENOSPC, lambda run, game_id: run.log_of(game_id).parent, RunDir.place_log)
    with monkeypatch.context() as patch:
        patch.setattr(RunDir, "place_log", place)
        assert main([*RUN, "--workers", "2", "--out", str(out)]) == 5
    err = capsys.readouterr().err
    assert f"cannot write {out / 'games'}" in err and "(ENOSPC)" in err and "Traceback" not in err
    assert main([*RUN, "--workers", "2", "--out", str(out)]) == 0
    assert {p.name: p.read_bytes() for p in (out / "games").glob("*.ndjson")} == reference


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes to read-only folders: the injected faults above cover it")
def test_a_read_only_folder_is_named(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    parent = tmp_path / "ro"
    parent.mkdir()
    parent.chmod(stat.S_IRUSR | stat.S_IXUSR)
    try:
        assert main([*RUN, "--out", str(parent / "run")]) == 5
    finally:
        parent.chmod(stat.S_IRWXU)
    err = capsys.readouterr().err
    assert str(parent / "run") in err and "Traceback" not in err


def test_a_read_only_run_folder_is_named_when_not_root(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "run"
    assert main([*RUN, "--games", "2", "--out", str(out)]) == 0
    if os.geteuid() == 0:
        pytest.skip("root writes to read-only folders: the injected faults above cover it")
    out.chmod(stat.S_IRUSR | stat.S_IXUSR)
    try:
        assert main([*RUN, "--games", "3", "--out", str(out)]) == 5
    finally:
        out.chmod(stat.S_IRWXU)
    err = capsys.readouterr().err
    assert str(out) in err and "Traceback" not in err
    assert main([*RUN, "--games", "3", "--out", str(out)]) == 0
