"""Run directories: a run killed mid-flight resumes with nothing lost or counted twice; failures are
recorded and the run goes on; a different run on the same folder is refused."""

from __future__ import annotations

import asyncio
import json
import signal
import subprocess
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from werewolf_deception.agents import load_lineup, play_game
from werewolf_deception.agents.fake.server import FakeOpenAIServer
from werewolf_deception.benchmarks.cli.main import main
from werewolf_deception.benchmarks.runs.loop import Job, RunDir, RunMismatchError, play_run
from werewolf_env import GameConfig
from werewolf_env.engine.log import read_log_checked, replay

ROOT = Path(__file__).resolve().parents[1]
GAMES, FIRST_SEED = 12, 100
COMMAND = ["run", "--games", str(GAMES), "--seed", str(FIRST_SEED), "--concurrency", "2", "--no-report", "--quiet"]

# ``python -c STOP_AT SPEC ARG...`` runs ``werewolf-bench ARG...`` and stops it at the point SPEC (JSON) names:
# around the k-th result line it appends ("after-result", "before-result" with that game's log already in
# place, or "mid-result": half the line written), or halfway through line ``line`` of game ``game``'s log
# ("mid-log"). There it writes the game and its child processes to SPEC["note"] and sends itself
# SPEC["signal"]. No timing: the same point whatever the machine's speed.
STOP_AT = r"""
import json, os, signal, sys
from pathlib import Path

from werewolf_deception.benchmarks.cli.main import main
from werewolf_deception.benchmarks.runs.folder import RunDir
from werewolf_env.engine.log import EventLog, dumps

spec = json.loads(sys.argv[1])
at, k = spec["at"], spec.get("k")


def children():
    found = []
    for entry in Path("/proc").iterdir() if Path("/proc").is_dir() else ():
        try:
            if entry.name.isdigit() and int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1]) == os.getpid():
                found.append(int(entry.name))
        except (OSError, IndexError, ValueError):
            continue
    return found


def stop(game):
    Path(spec["note"]).write_text(json.dumps({"game": game, "children": children()}))
    os.kill(os.getpid(), getattr(signal, spec["signal"]))


append, appended = RunDir.append, [0]


def append_and_stop(self, entry):
    appended[0] += 1
    if appended[0] == k and at == "before-result":
        stop(entry["game"])
    if appended[0] == k and at == "mid-result":
        line = json.dumps(entry)
        with self.results_path.open("a", encoding="utf-8") as f:
            f.write(("\n" if f.tell() else "") + line[: len(line) // 2])
        stop(entry["game"])
    append(self, entry)
    if appended[0] == k and at == "after-result":
        stop(entry["game"])


write, lines = EventLog._write, {}


def write_and_stop(self, record):
    lines[self.path] = lines.get(self.path, 0) + 1
    if at == "mid-log" and lines[self.path] == spec["line"] and self.path.parent.name == ".playing-" + spec["game"]:
        text = dumps(record)
        with self.path.open("a", encoding="utf-8") as f:
            f.write(text[: len(text) // 2])
        stop(spec["game"])
    write(self, record)


RunDir.append = append_and_stop
EventLog._write = write_and_stop
sys.exit(main(sys.argv[2:]))
"""


def run_stopped_at(out: Path, command: list[str], **spec: Any) -> tuple[subprocess.CompletedProcess[str], Any]:
    """``werewolf-bench *command --out out``, stopped where ``spec`` says (``STOP_AT``); the run and its note."""
    note = out.parent / f"{out.name}-stopped.json"
    spec = {"signal": "SIGKILL", **spec, "note": str(note)}
    done = subprocess.run(
        [sys.executable, "-c", STOP_AT, json.dumps(spec), *command, "--out", str(out)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert note.is_file(), f"the run never reached {spec}:\n{done.stderr}"
    return done, json.loads(note.read_text())


def comparable(entry: dict[str, Any]) -> dict[str, Any]:
    """A result line without what differs between two runs of the same games (time taken, folder)."""
    result = {k: v for k, v in entry["result"].items() if k not in ("seconds", "log_path")}
    return {**entry, "result": result}


@pytest.fixture(scope="module")
def uninterrupted(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict[str, bytes], dict[str, Any]]:
    """The logs (by file name) and result lines (by game) of the run played without a stop."""
    out = tmp_path_factory.mktemp("uninterrupted") / "run"
    assert main([*COMMAND, "--out", str(out)]) == 0
    logs = {p.name: p.read_bytes() for p in (out / "games").glob("*.ndjson")}
    assert len(logs) == GAMES and all(replay(out / "games" / name).complete for name in logs)
    results = {gid: comparable(entry) for gid, entry in RunDir(out).read_results().items()}
    return logs, results


# Where the run is killed: (what, k). "mid-log" is in line 40 of the k-th game's log (by seed).
KILLS = [("after-result", 1), ("after-result", 5), ("after-result", GAMES), ("before-result", 4),
         ("mid-result", 6), ("mid-log", 8)]  # fmt: skip


@pytest.mark.parametrize(("at", "k"), KILLS, ids=[f"{at}-{k}" for at, k in KILLS])
def test_a_killed_run_resumes_without_losing_or_double_counting(
    tmp_path: Path, at: str, k: int, uninterrupted: tuple[dict[str, bytes], dict[str, Any]]
) -> None:
    reference_logs, reference_results = uninterrupted
    out = tmp_path / "run"
    results, games = out / "results.ndjson", out / "games"
    spec: dict[str, Any] = {"at": at, "k": k}
    if at == "mid-log":
        spec.update(game=f"seed{FIRST_SEED + k - 1}", line=40)
    done, note = run_stopped_at(out, COMMAND, **spec)
    assert done.returncode == -signal.SIGKILL, done.stderr
    game = note["game"]

    # Killed exactly there: the results and logs on disk say so.
    kept = RunDir(out).read_results()
    placed = {p.stem for p in games.glob("*.ndjson")}
    before = results.read_text(encoding="utf-8") if results.is_file() else ""
    assert all(entry["status"] == "ok" for entry in kept.values())
    if at == "after-result":
        assert len(kept) == k and game in kept and placed == set(kept)
    elif at in ("before-result", "mid-result"):  # the log is in place; its result is not counted
        assert len(kept) == k - 1 and game not in kept and placed == {*kept, game}
        assert before.endswith("}") == (at == "before-result")  # a torn line: half a JSON object
    else:
        assert game not in kept and game not in placed
        (cut,) = (games / f".playing-{game}").glob("*.ndjson")
        damage = read_log_checked(cut).damage
        assert damage is not None and damage.startswith("line 40 is cut off mid-line"), damage
    for gid in kept:  # what was kept is what the uninterrupted run wrote
        assert (games / f"{gid}.ndjson").read_bytes() == reference_logs[f"{gid}.ndjson"]

    # The same command resumes: every game once, the logs byte for byte those of the uninterrupted run.
    assert main([*COMMAND, "--out", str(out)]) == 0
    after = results.read_text(encoding="utf-8")
    assert after.startswith(before)  # the lines written before the kill stay (a torn one alone on its line)
    entries, torn = [], []
    for line in after.splitlines():
        try:
            entries.append(json.loads(line))
        except ValueError:
            torn.append(line)
    assert len(torn) == (at == "mid-result")
    assert Counter(e["game"] for e in entries) == Counter(f"seed{s}" for s in range(FIRST_SEED, FIRST_SEED + GAMES))
    assert {e["game"]: comparable(e) for e in entries} == reference_results
    assert {p.name: p.read_bytes() for p in games.iterdir()} == reference_logs  # no scratch folder left
    assert sorted(p.name for p in out.iterdir()) == ["games", "manifest.json", "results.ndjson", "summary.json"]
    summary = json.loads((out / "summary.json").read_text())
    assert summary["games"] == GAMES and summary["failed"] == []


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
    manifest = json.loads((tmp_path / "manifest.json").read_text())
    assert manifest["games"] == 3 and manifest["seeds"] == {"first": 0, "last": 2}  # its size does not grow


def test_manifest_names_key_variables_never_keys(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MY_API_KEY", "sk-secret-123")
    out = tmp_path / "run"  # the lineup file beside it, not in it: a run folder holds only what the run writes
    with FakeOpenAIServer() as server:
        lineup = load_lineup(
            {
                "default": "heuristic",
                "roles": {
                    "seer": {"kind": "llm", "model": "m", "base_url": server.base_url, "api_key_env": "MY_API_KEY"}
                },
            }
        )
        assert (
            main(
                [
                    "run",
                    "--games",
                    "1",
                    "--out",
                    str(out),
                    "--lineup",
                    str(_write(tmp_path, lineup)),
                    "--no-report",
                    "--quiet",
                ]
            )
            == 0
        )
    text = (out / "manifest.json").read_text()
    assert "MY_API_KEY" in text and "sk-secret-123" not in text
    manifest = json.loads(text)
    assert manifest["package_version"] and "git_commit" in manifest and manifest["games"] == 1
    assert manifest["seeds"] == {"first": 0, "last": 0}
    assert manifest["lineup"]["roles"]["seer"]["api_key_env"] == "MY_API_KEY"
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
    # Written by a version that named every field (``max_statement_chars`` at its default, null), or by one from
    # before a field existed: both are the same run as today's, which leaves fields at their default out.
    assert "max_statement_chars" not in manifest["config"] and "role_counts" not in manifest["config"]
    manifest["config"]["max_statement_chars"] = None
    del manifest["config"]["doctor_repeat_protect"]  # a field this test pretends is newer than the manifest
    (tmp_path / "manifest.json").write_text(json.dumps(manifest))
    assert main(["run", "--games", "2", "--out", str(tmp_path), "--no-report", "--quiet"]) == 0
    assert main(["run", "--games", "3", "--out", str(tmp_path), "--no-report", "--quiet"]) == 0
    assert sorted(RunDir(tmp_path).read_results()) == ["seed0", "seed1", "seed2"]
    # A field the old manifest does not name but that this command sets away from its default is a difference.
    changed = {**manifest["config"], "max_statement_chars": 99}
    with pytest.raises(RunMismatchError):
        RunDir(tmp_path).open({"config": changed}, ["seed0"])
