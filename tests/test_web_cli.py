"""``werewolf-bench serve`` as a user starts it: it listens on 127.0.0.1 unless told otherwise (and then warns),
prints the host page and one invite link per person, serves them, and stops on Ctrl-C with exit 0."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

pytest.importorskip("starlette", reason="werewolf-bench serve needs the web extra (starlette)")
pytest.importorskip("uvicorn", reason="werewolf-bench serve needs the web extra (uvicorn)")

COMMAND = [sys.executable, "-m", "werewolf_deception.benchmarks.cli.main", "serve", "--port", "0"]


def start(tmp_path: Path, *args: str) -> tuple[subprocess.Popen[str], list[str]]:
    process = subprocess.Popen(
        [*COMMAND, "--out", str(tmp_path / "out"), *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    lines: list[str] = []
    assert process.stdout is not None
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        line = process.stdout.readline()
        if not line:
            break
        lines.append(line.rstrip("\n"))
        if line.startswith("Ctrl-C"):
            break
    return process, lines


def stop(process: subprocess.Popen[str]) -> tuple[int, str, str]:
    process.send_signal(signal.SIGINT)
    out, err = process.communicate(timeout=30)
    return process.returncode, out, err


def test_serve_listens_on_this_machine_prints_the_links_and_stops_on_ctrl_c(tmp_path: Path) -> None:
    process, lines = start(tmp_path, "--players", "5", "--people", "2")
    try:
        host_page = next(line.split(": ", 1)[1] for line in lines if line.startswith("Host page: "))
        invites = [line.split(": ", 1)[1] for line in lines if line.startswith("  player_")]
        assert host_page.startswith("http://127.0.0.1:") and len(invites) == 2
        with urllib.request.urlopen(host_page, timeout=10) as response:
            page = response.read().decode()
        assert all(invite in page for invite in invites)
        with urllib.request.urlopen(invites[0], timeout=10) as response:
            assert response.status == 200 and "/static/seat.js" in response.read().decode()
    finally:
        code, out, err = stop(process)
    assert code == 0, err
    assert "Server stopped: 0 finished games" in out and "warning" not in err


def test_serve_on_another_address_warns_that_links_are_the_only_keys(tmp_path: Path) -> None:
    process, lines = start(tmp_path, "--host", "0.0.0.0")
    host_page = next(line.split(": ", 1)[1] for line in lines if line.startswith("Host page: "))
    try:
        with urllib.request.urlopen(host_page, timeout=10) as response:  # serving (on every address)
            assert response.status == 200
    finally:
        code, _, err = stop(process)
    assert code == 0
    assert "warning: listening on 0.0.0.0" in err and "only key" in err
    assert host_page.startswith("http://")  # this machine's address on the network: others can reach it


def test_serve_prints_links_at_the_address_people_reach_it_at(tmp_path: Path) -> None:
    process, lines = start(tmp_path, "--host", "0.0.0.0", "--url", "http://werewolf.lan:8765/")
    stop(process)
    assert any(line.startswith("Host page: http://werewolf.lan:8765/host/") for line in lines), lines
    assert any(line.startswith("  player_0: http://werewolf.lan:8765/seat/") for line in lines), lines


def test_ctrl_c_with_a_game_playing_keeps_its_log_as_unfinished_and_says_so(tmp_path: Path) -> None:
    process, lines = start(tmp_path, "--players", "5", "--people", "1")
    invite = next(line.split(": ", 1)[1] for line in lines if line.startswith("  player_0: "))
    api = invite.replace("/seat/", "/api/seat/")
    try:
        join = urllib.request.Request(api + "/join", data=b"{}", method="POST")
        with urllib.request.urlopen(join, timeout=10) as response:  # the person's page opens: the game starts
            assert response.status == 200
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:  # until the game waits for the person
            with urllib.request.urlopen(api, timeout=10) as response:
                if json.loads(response.read())["turn"] is not None:
                    break
            time.sleep(0.05)
    finally:
        code, out, err = stop(process)
    assert code == 0, err
    assert "1 unfinished kept in" in out and "Traceback" not in err, err
    assert len(list((tmp_path / "out" / "unfinished").glob("*.ndjson"))) == 1
    assert json.loads((tmp_path / "out" / "manifest.json").read_text())["kind"] == "serve"


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["--study", "--clock", "0"], "--study needs a clock"),
        (["--people", "9"], "--people must be 1 to 8"),
        (["--consent", "x.txt"], "--consent goes with --study"),
    ],
)
def test_serve_refuses_options_that_cannot_work(tmp_path: Path, args: list[str], said: str) -> None:
    done = subprocess.run([*COMMAND, "--out", str(tmp_path / "out"), *args], capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and said in done.stderr and not (tmp_path / "out").exists()


def test_serve_refuses_a_run_folder(tmp_path: Path) -> None:
    (tmp_path / "run").mkdir()
    (tmp_path / "run" / "manifest.json").write_text(json.dumps({"schema_version": 1, "kind": "run", "games": 4}))
    done = subprocess.run([*COMMAND, "--out", str(tmp_path / "run")], capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and "error:" in done.stderr
