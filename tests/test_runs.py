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
from typing import Any

import pytest

from agents import load_lineup, play_game, play_game_sync
from agents.fake_openai import FakeOpenAIServer
from benchmarks.cli import main
from benchmarks.runs import Job, RunDir, RunMismatchError, play_run
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
    kept = {gid: (out / "games" / f"{gid}.ndjson").read_bytes() for gid in before}

    assert main([*COMMAND, "--out", str(out)]) == 0
    lines = [json.loads(x) for x in results.read_text().splitlines() if x.strip()]
    ok = Counter(e["seed"] for e in lines if e["status"] == "ok")
    assert set(ok) == set(range(FIRST_SEED, FIRST_SEED + GAMES)) and set(ok.values()) == {1}  # each game once
    for gid, data in kept.items():  # finished games were kept as they were
        assert (out / "games" / f"{gid}.ndjson").read_bytes() == data
    assert not list((out / "games").glob(".playing-*"))  # no scratch left
    logs = sorted((out / "games").glob("*.ndjson"))
    assert len(logs) == GAMES
    assert all(replay(p).ok and replay(p).complete for p in logs)
    del partial  # (there may have been none if the kill fell between games; the counts above still hold)
    summary = json.loads((out / "summary.json").read_text())
    assert summary["games"] == GAMES and summary["failed"] == []
    # The resumed games are the games an uninterrupted run plays.
    for seed in (FIRST_SEED, FIRST_SEED + GAMES - 1):
        fresh = play_game_sync(GameConfig(), "heuristic", seed, log_dir=tmp_path / "fresh" / str(seed))
        assert engine_events(Path(fresh.log_path)) == engine_events(out / "games" / f"seed{seed}.ndjson")


def test_failed_games_are_recorded_and_played_again_on_resume(tmp_path: Path) -> None:
    run = RunDir(tmp_path)
    config, lineup = GameConfig(num_players=6), load_lineup("heuristic")
    jobs = [Job(f"seed{s}", s, lineup) for s in (1, 2, 3)]
    identity = {"config": config.model_dump(mode="json")}

    async def flaky(*args, **kwargs):  # type: ignore[no-untyped-def]
        if args[2] == 2:
            raise ConnectionError("the judge went away")
        return await play_game(*args, **kwargs)

    assert run.open(identity, [j.id for j in jobs]) == {}
    entries = asyncio.run(play_run(run, config, jobs, 2, play=flaky))
    assert {e["seed"]: e["status"] for e in entries} == {1: "ok", 2: "failed", 3: "ok"}
    assert "ConnectionError: the judge went away" in run.read_results()["seed2"]["error"]
    assert sorted(p.name for p in (tmp_path / "games").iterdir()) == ["seed1.ndjson", "seed3.ndjson"]
    finished = run.open(identity, [j.id for j in jobs])
    assert sorted(finished) == ["seed1", "seed3"]
    asyncio.run(play_run(run, config, [jobs[1]], 2))
    assert {g: e["status"] for g, e in run.read_results().items()} == {"seed1": "ok", "seed2": "ok", "seed3": "ok"}


def test_worker_processes_play_the_same_games(tmp_path: Path) -> None:
    common = ["run", "--games", "4", "--players", "6", "--no-report", "--quiet"]
    assert main([*common, "--out", str(tmp_path / "one")]) == 0
    assert main([*common, "--workers", "2", "--out", str(tmp_path / "two")]) == 0
    for log in sorted((tmp_path / "one" / "games").glob("*.ndjson")):
        assert log.read_bytes() == (tmp_path / "two" / "games" / log.name).read_bytes()


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
        RunDir(tmp_path).open({"config": GameConfig(num_players=6).model_dump(mode="json")}, ["seed0"])
    assert main(["run", "--games", "3", "--out", str(tmp_path), "--no-report", "--quiet"]) == 0
    assert sorted(RunDir(tmp_path).read_results()) == ["seed0", "seed1", "seed2"]
    assert json.loads((tmp_path / "manifest.json").read_text())["games"] == ["seed0", "seed1", "seed2"]


def test_manifest_names_key_variables_never_keys(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MY_API_KEY", "sk-secret-123")
    out = tmp_path / "run"  # the lineup file beside it, not in it: a run folder holds only what the run writes
    with FakeOpenAIServer() as server:
        lineup = load_lineup({"default": "heuristic",
                              "roles": {"seer": {"kind": "llm", "model": "m", "base_url": server.base_url,
                                                 "api_key_env": "MY_API_KEY"}}})  # fmt: skip
        assert main(["run", "--games", "1", "--out", str(out), "--lineup", str(_write(tmp_path, lineup)),
                     "--no-report", "--quiet"]) == 0  # fmt: skip
    text = (out / "manifest.json").read_text()
    assert "MY_API_KEY" in text and "sk-secret-123" not in text
    manifest = json.loads(text)
    assert manifest["package_version"] and "git_commit" in manifest and manifest["games"] == ["seed0"]
    assert manifest["seeds"] == [0] and manifest["lineup"]["roles"]["seer"]["api_key_env"] == "MY_API_KEY"
    for path in [out / "results.ndjson", out / "summary.json", *(out / "games").glob("*")]:
        assert "sk-secret-123" not in path.read_text()
    assert json.loads((out / "results.ndjson").read_text())["result"]["tokens"]["prompt_tokens"] > 0


def _write(folder: Path, lineup: Any) -> Path:
    path = folder / "lineup.json"
    path.write_text(json.dumps(lineup.model_dump(mode="json")))
    return path


def test_a_run_folder_from_before_a_config_field_existed_resumes_and_extends(tmp_path: Path) -> None:
    assert main(["run", "--games", "2", "--out", str(tmp_path), "--no-report", "--quiet"]) == 0
    manifest = json.loads((tmp_path / "manifest.json").read_text())
    del manifest["config"]["max_statement_chars"]  # as written before the statement character cap existed
    (tmp_path / "manifest.json").write_text(json.dumps(manifest))
    assert main(["run", "--games", "2", "--out", str(tmp_path), "--no-report", "--quiet"]) == 0
    assert main(["run", "--games", "3", "--out", str(tmp_path), "--no-report", "--quiet"]) == 0
    assert sorted(RunDir(tmp_path).read_results()) == ["seed0", "seed1", "seed2"]
    # A field the old manifest does not name but that this command sets away from its default is a difference.
    changed = {**manifest["config"], "max_statement_chars": 99}
    with pytest.raises(RunMismatchError):
        RunDir(tmp_path).open({"config": changed}, ["seed0"])
