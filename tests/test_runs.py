"""Run directories: a run killed mid-flight resumes with nothing lost or counted twice; failures are
recorded and the run goes on; a different run on the same folder is refused."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest

from agents import load_lineup, play_game, play_game_sync
from benchmarks.cli import main
from benchmarks.runs import RunDir, RunMismatchError, play_run
from werewolf_env import GameConfig
from werewolf_env.log import read_log, replay
from werewolf_env.metrics import GameRecord

GAMES, FIRST_SEED = 40, 100
COMMAND = ["run", "--games", str(GAMES), "--seed", str(FIRST_SEED), "--concurrency", "2", "--no-report", "--quiet"]


def engine_events(path: Path) -> list[dict]:
    return [r for r in read_log(path) if r["type"] not in ("agent_record",)]


def test_a_killed_run_resumes_without_losing_or_double_counting(tmp_path: Path) -> None:
    out = tmp_path / "run"
    root = Path(__file__).resolve().parents[1]
    proc = subprocess.Popen([sys.executable, "-m", "benchmarks.cli", *COMMAND, "--out", str(out)], cwd=root)
    results = out / "results.ndjson"
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and proc.poll() is None:
        if results.is_file() and results.read_text().count('"status": "ok"') >= 4:
            break
        time.sleep(0.02)
    assert proc.poll() is None, "the run finished before it could be killed: make it longer"
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    before = RunDir(out).read_results()
    assert 4 <= len(before) < GAMES
    partial = [p for p in (out / "games").glob("*.ndjson") if not GameRecord.from_events(read_log(p)).complete]
    kept = {seed: (out / "games" / f"game-00000-seed{seed}.ndjson").read_bytes() for seed in before}

    assert main([*COMMAND, "--out", str(out)]) == 0
    lines = [json.loads(x) for x in results.read_text().splitlines() if x.strip()]
    ok = Counter(e["seed"] for e in lines if e["status"] == "ok")
    assert set(ok) == set(range(FIRST_SEED, FIRST_SEED + GAMES)) and set(ok.values()) == {1}  # each game once
    for seed, data in kept.items():  # finished games were kept as they were
        assert (out / "games" / f"game-00000-seed{seed}.ndjson").read_bytes() == data
    logs = sorted((out / "games").glob("*.ndjson"))
    assert len(logs) == GAMES
    assert all(replay(p).ok and replay(p).complete for p in logs)
    del partial  # (there may have been none if the kill fell between games; the counts above still hold)
    summary = json.loads((out / "summary.json").read_text())
    assert summary["games"] == GAMES and summary["failed"] == []
    # The resumed games are the games an uninterrupted run plays.
    for seed in (FIRST_SEED, FIRST_SEED + GAMES - 1):
        fresh = play_game_sync(GameConfig(), "heuristic", seed, log_dir=tmp_path / "fresh" / str(seed))
        assert engine_events(Path(fresh.log_path)) == engine_events(out / "games" / f"game-00000-seed{seed}.ndjson")


def test_failed_games_are_recorded_and_played_again_on_resume(tmp_path: Path) -> None:
    run = RunDir(tmp_path)
    config, lineup, seeds = GameConfig(num_players=6), load_lineup("heuristic"), [1, 2, 3]

    async def flaky(*args, **kwargs):  # type: ignore[no-untyped-def]
        if args[2] == 2:
            raise ConnectionError("the judge went away")
        return await play_game(*args, **kwargs)

    finished = run.open(config, lineup, seeds, "heuristic")
    assert finished == {}
    entries = asyncio.run(play_run(run, config, lineup, seeds, 2, play=flaky))
    status = {e["seed"]: e["status"] for e in entries}
    assert status == {1: "ok", 2: "failed", 3: "ok"}
    assert "ConnectionError: the judge went away" in run.read_results()[2]["error"]
    finished = run.open(config, lineup, seeds, "heuristic")
    assert sorted(finished) == [1, 3]
    asyncio.run(play_run(run, config, lineup, [2], 2))
    assert {s: e["status"] for s, e in run.read_results().items()} == {1: "ok", 2: "ok", 3: "ok"}


def test_the_cli_counts_failures_and_exits_nonzero(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    lineup = tmp_path / "broken.json"  # a policy that cannot even be built: the game fails, the run goes on
    lineup.write_text(json.dumps({"default": "heuristic", "roles": {"seer": {"kind": "heuristic", "no_such": 1}}}))
    out = tmp_path / "run"
    assert main(["run", "--games", "3", "--lineup", str(lineup), "--out", str(out), "--no-report"]) == 1
    captured = capsys.readouterr().out
    assert "FAILED games: 3" in captured and "TypeError" in captured
    summary = json.loads((out / "summary.json").read_text())
    assert summary["games"] == 0 and len(summary["failed"]) == 3
    assert main(["run", "--games", "3", "--lineup", str(lineup), "--out", str(out), "--no-report", "--quiet"]) == 1


def test_a_different_run_is_refused_and_more_games_extend(tmp_path: Path) -> None:
    assert main(["run", "--games", "2", "--out", str(tmp_path), "--no-report", "--quiet"]) == 0
    assert main(["run", "--games", "2", "--agents", "random", "--out", str(tmp_path), "--no-report"]) == 2
    assert main(["run", "--games", "2", "--seed", "50", "--out", str(tmp_path), "--no-report"]) == 2
    with pytest.raises(RunMismatchError):
        RunDir(tmp_path).open(GameConfig(num_players=6), load_lineup("heuristic"), [0, 1], "x")
    assert main(["run", "--games", "3", "--out", str(tmp_path), "--no-report", "--quiet"]) == 0
    assert sorted(RunDir(tmp_path).read_results()) == [0, 1, 2]
    assert json.loads((tmp_path / "manifest.json").read_text())["seeds"] == [0, 1, 2]


def test_manifest_names_key_variables_never_keys(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MY_KEY", "sk-secret-123")
    lineup = load_lineup({"default": "heuristic",
                          "roles": {"seer": {"kind": "llm", "model": "m", "base_url": "http://127.0.0.1:9/v1",
                                             "api_key_env": "MY_KEY"}}})  # fmt: skip
    RunDir(tmp_path).open(GameConfig(), lineup, [0], "mixed")
    text = (tmp_path / "manifest.json").read_text()
    assert "MY_KEY" in text and "sk-secret-123" not in text
    manifest = json.loads(text)
    assert manifest["package_version"] and "git_commit" in manifest and manifest["seeds"] == [0]


def test_replay_command(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["run", "--games", "2", "--out", str(tmp_path), "--no-report", "--quiet"]) == 0
    assert main(["replay", str(tmp_path)]) == 0
    log = next((tmp_path / "games").glob("*.ndjson"))
    assert main(["replay", str(log), "--show", "all"]) == 0
    out = capsys.readouterr().out
    assert "identical" in out and "--- Day 1 ---" in out
    tampered = tmp_path / "tampered.ndjson"
    tampered.write_text(log.read_text().replace('"bid":', '"bid": 1, "x":', 1))
    assert main(["replay", str(tampered)]) == 1
    assert "DIFFERS" in capsys.readouterr().out
    assert main(["replay", str(tmp_path / "nope.ndjson")]) == 2
