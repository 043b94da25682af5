"""Run folders refuse what is not theirs: a file, someone's folder, a folder another run holds, a
tournament name that leaves runs/; a lock left by a dead run is taken over."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from werewolf_deception.benchmarks.cli.main import main
from werewolf_deception.benchmarks.runs.folder import LOCK_NAME, RunDir
from werewolf_deception.benchmarks.runs.tournament import TournamentConfig

ROOT = Path(__file__).resolve().parents[1]
RUN = ["run", "--games", "2", "--players", "5", "--no-report", "--quiet"]


def snapshot(folder: Path) -> dict[str, bytes | None]:
    """Every path under ``folder`` with its bytes (None for folders): to show nothing was touched."""
    return {str(p.relative_to(folder)): (p.read_bytes() if p.is_file() else None) for p in sorted(folder.rglob("*"))}


def users_folder(tmp_path: Path) -> Path:
    folder = tmp_path / "mine"
    (folder / "games").mkdir(parents=True)
    (folder / "notes.txt").write_text("precious\n")
    (folder / "games" / "seed0.ndjson").write_text("my own file\n")  # where a run would write its first log
    (folder / "summary.json").write_text("{}\n")
    return folder


def tournament_file(tmp_path: Path, name: str = "t") -> Path:
    path = tmp_path / "t.toml"
    path.write_text(
        f'name = {json.dumps(name)}\nblocks = 1\nplayers = 5\n[[entrants]]\nkind = "heuristic"\n'
        '[[entrants]]\nkind = "random"\n'
    )
    return path


@pytest.mark.parametrize("command", ["run", "tournament", "report", "rescore", "play", "detect-eval"])
def test_out_at_a_folder_of_other_files_is_refused_and_nothing_is_touched(
    tmp_path: Path, command: str, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = users_folder(tmp_path)
    before = snapshot(folder)
    source = tmp_path / "source"  # a run to report on or rescore
    if command in ("report", "rescore"):
        assert main([*RUN, "--out", str(source)]) == 0
    argv = {
        "run": [*RUN, "--out", str(folder)],
        "tournament": ["tournament", str(tournament_file(tmp_path)), "--out", str(folder), "--quiet"],
        "report": ["report", str(source), "--out", str(folder), "--baseline-games", "0", "--no-plots"],
        "rescore": ["rescore", str(source), "--labeler", "heuristic", "--out", str(folder), "--no-plots"],
        "play": ["play", "--out", str(folder)],
        "detect-eval": ["detect-eval", "--train-games", "1", "--test-games", "1", "--out", str(folder)],
    }[command]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert f"--out {folder} is a folder of other files" in err and "nothing was touched" in err
    assert snapshot(folder) == before


@pytest.mark.parametrize("command", ["run", "tournament", "report"])
def test_out_at_a_file_is_a_clear_error(tmp_path: Path, command: str, capsys: pytest.CaptureFixture[str]) -> None:
    target = tmp_path / "a-file"
    target.write_text("mine\n")
    source = tmp_path / "source"
    if command == "report":
        assert main([*RUN, "--out", str(source)]) == 0
    argv = {
        "run": [*RUN, "--out", str(target)],
        "tournament": ["tournament", str(tournament_file(tmp_path)), "--out", str(target), "--quiet"],
        "report": ["report", str(source), "--out", str(target), "--baseline-games", "0", "--no-plots"],
    }[command]
    assert main(argv) == 2
    captured = capsys.readouterr()
    assert f"--out {target} is a file, not a folder" in captured.err and "Traceback" not in captured.err
    assert target.read_text() == "mine\n"


def test_a_run_leaves_no_lock_and_resumes_in_its_own_folder(tmp_path: Path) -> None:
    out = tmp_path / "run"
    assert main([*RUN, "--out", str(out)]) == 0
    assert not (out / LOCK_NAME).exists()
    assert main([*RUN, "--games", "3", "--out", str(out)]) == 0  # an earlier run's folder: extended
    assert sorted(RunDir(out).read_results()) == ["seed0", "seed1", "seed2"]


HOLD = (
    "import sys; from pathlib import Path; from werewolf_deception.benchmarks.runs.folder import acquire_lock; "
    "acquire_lock(Path(sys.argv[1])); print('held', flush=True); sys.stdin.read()"
)


def test_a_second_run_on_a_folder_in_use_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "run"
    assert main([*RUN, "--out", str(out)]) == 0
    before = snapshot(out)
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLD, str(out)], cwd=ROOT, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline() == "held\n"
        capsys.readouterr()
        assert main([*RUN, "--games", "3", "--out", str(out)]) == 2  # would extend the run: refused, nothing done
        err = capsys.readouterr().err
        assert f"{out} is in use by another run (pid {holder.pid} on host" in err
        assert {k: v for k, v in snapshot(out).items() if k != LOCK_NAME} == before
    finally:
        holder.communicate("")  # the holder ends: its lock goes with it
    assert holder.returncode == 0
    assert main([*RUN, "--games", "3", "--out", str(out)]) == 0
    assert "taking it over" not in capsys.readouterr().err  # a run that ended cleanly left nothing to take over


def test_a_lock_left_by_a_dead_run_is_taken_over_with_a_note(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "run"
    out.mkdir()
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    pid = int(dead.stdout)
    (out / LOCK_NAME).write_text(json.dumps({"pid": pid, "host": os.uname().nodename, "started": "earlier"}))
    assert main([*RUN, "--out", str(out)]) == 0
    err = capsys.readouterr().err
    assert f"{out / LOCK_NAME} was left by a run that is no longer going (pid {pid}" in err and "taking it over" in err
    assert not (out / LOCK_NAME).exists() and len(RunDir(out).read_results()) == 2


@pytest.mark.parametrize(
    "name",
    ["../../x", "..", ".", "/tmp/abs", "a/b", "a\\b", ".hidden", "-rf", "", " x", "x" * 101, "tab\there", "new\nline"],
)
def test_a_tournament_name_that_is_not_a_plain_name_is_refused(
    tmp_path: Path, name: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    work = tmp_path / "a" / "b"
    work.mkdir(parents=True)
    monkeypatch.chdir(work)
    config = tournament_file(tmp_path, name)
    assert main(["tournament", str(config), "--quiet"]) == 2
    assert "is not a plain name" in capsys.readouterr().err
    assert sorted(p.name for p in tmp_path.rglob("*")) == ["a", "b", "t.toml"]  # nothing written anywhere


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=40))
def test_every_accepted_tournament_name_is_one_folder_inside_runs(name: str) -> None:
    entrants = [{"kind": "heuristic"}]
    try:
        TournamentConfig.model_validate({"name": name, "entrants": entrants})
    except ValueError:
        return
    runs = Path("/srv/runs")
    folder = runs / name
    assert folder.parent == runs and os.path.normpath(folder) == str(folder) and not name.startswith(("-", "."))
