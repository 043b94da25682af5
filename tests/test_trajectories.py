"""Each seat's game as a chat (``werewolf_deception.benchmarks.export.trajectories``): what it saw, what it
answered, its rewards."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from werewolf_deception.agents import play_game_sync
from werewolf_deception.benchmarks.export.trajectories import main, seat_trajectories
from werewolf_env.analysis.rewards import rewards
from werewolf_env.engine.log import ReplayError, read_log
from werewolf_env.record.game_record import GameRecord

CONFIG = {"num_players": 7}


@pytest.fixture(scope="module")
def logs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("games")
    for seed in (0, 1, 2):
        play_game_sync(CONFIG, "heuristic", seed, log_dir=folder)
    return folder


def test_each_seat_sees_its_own_observations_and_says_what_it_said(logs: Path) -> None:
    for path in sorted(logs.glob("*.ndjson")):
        records = read_log(path)
        record = GameRecord.from_events(records)
        chats = seat_trajectories(records, {"win": 1.0, "detection": 0.5})
        assert [c["seat"] for c in chats] == list(range(7))
        for chat in chats:
            seat, messages = chat["seat"], chat["messages"]
            said = [r["data"]["raw"] for r in records if r.get("type") == "action" and r.get("actor") == seat]
            answers = [json.loads(m["content"]) for m in messages if m["role"] == "assistant"]
            assert answers == said and len(chat["turns"]) == len(said)
            if said:
                assert messages[0]["role"] == "system" and messages[1]["role"] == "user"
                assert [m["role"] for m in messages[2:]] == ["assistant", "user"] * (len(said) - 1) + ["assistant"]
            text = "\n".join(m["content"] for m in messages)
            role = record.roles[seat]
            # Hidden information only where the seat had it: the pack is named to werewolves, checks to the seer.
            assert ("Your fellow werewolves" in text) == (role == "werewolf" and bool(said)), (seat, role)
            assert "You investigated" not in text or role == "seer"
            assert chat["rewards"] == rewards(record, seat)
            assert chat["reward"] == pytest.approx(chat["rewards"]["win"] + 0.5 * chat["rewards"]["detection"])


def test_a_log_that_does_not_replay_is_refused(logs: Path) -> None:
    records = read_log(sorted(logs.glob("*.ndjson"))[0])
    action = next(i for i, r in enumerate(records) if r.get("type") == "action")
    edited = [dict(r) for r in records]
    edited[action] = {**edited[action], "actor": (edited[action]["actor"] + 1) % 7}
    with pytest.raises(ReplayError, match="but the game asked"):
        seat_trajectories(edited)
    with pytest.raises(ReplayError, match="no header"):
        seat_trajectories([r for r in records if r.get("type") != "header"])


def test_the_command_writes_every_seat_or_nothing(
    logs: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "chats.jsonl"
    assert main([str(logs), "--out", str(out), "--weights", "win=1,validity=0.5"]) == 0
    rows = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert len(rows) == 3 * 7 and {row["log"] for row in rows} == {p.name for p in logs.glob("*.ndjson")}
    gone = tmp_path / "bad.jsonl"
    for bad in ("win=1,wins=2", "win=nan"):
        assert main([str(logs), "--out", str(gone), "--weights", bad]) == 2
    with pytest.raises(SystemExit) as refused:  # not name=number: argparse's usage error
        main([str(logs), "--out", str(gone), "--weights", "win"])
    assert refused.value.code == 2 and not gone.exists()
    broken = tmp_path / "broken.ndjson"
    broken.write_text('{"type":"header"}\n{"not json', encoding="utf-8")
    assert main([str(broken), "--out", str(tmp_path / "x.jsonl")]) == 2
    assert main([str(tmp_path / "nowhere"), "--out", str(tmp_path / "x.jsonl")]) == 2
    assert not (tmp_path / "x.jsonl").exists()
    assert "Traceback" not in capsys.readouterr().err
