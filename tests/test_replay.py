"""NDJSON logs and replay."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import werewolf_env
from tests.helpers import random_policy
from werewolf_env.engine.log import read_log, replay


def play_logged(log_dir: Path, seed: int, fuzz: float = 0.3, extra: bool = False, **config: Any) -> Path:
    env = werewolf_env.raw_env(log_dir=log_dir, **config)
    env.reset(seed=seed)
    policy = random_policy(seed, fuzz)
    for agent in env.agent_iter():
        _obs, _r, term, trunc, _info = env.last(observe=False)
        if term or trunc:
            env.step(None)
            continue
        action = policy(env.game, env.game.current)
        if extra:
            env.log_extra(agent, {"prompt": "You are...", "latency_ms": 12.5, "tokens": {"prompt": 100}})
        env.step(action)
    assert env.log_path is not None
    return env.log_path


CONFIGS = [
    {},
    {"num_players": 5, "num_werewolves": 1, "analysis": "off"},
    {"num_players": 12, "num_werewolves": 3, "reveal_role_on_death": True, "seer_learns_role": True},
    {"num_players": 7, "num_werewolves": 2, "num_doctors": 0, "analysis": "peer", "max_rounds": 3},
]


@pytest.mark.parametrize("config_index", range(len(CONFIGS)))
def test_many_random_games_replay_identically(tmp_path: Path, config_index: int) -> None:
    for seed in range(8):
        path = play_logged(tmp_path, seed * 31 + config_index, **CONFIGS[config_index])
        result = replay(path)
        assert result.ok, result.mismatches
        assert result.complete and result.actions > 0


def test_log_structure(tmp_path: Path) -> None:
    path = play_logged(tmp_path, 3, extra=True)
    records = read_log(path)
    assert records[0]["type"] == "header" and records[0]["schema_version"] == 1
    assert records[0]["seed"] == 3 and records[0]["config"]["num_players"] == 8
    assert records[-1]["type"] == "snapshot" and records[-1]["data"]["over"] is True
    engine = [r for r in records[1:-1] if r["type"] != "agent_record"]
    assert [r["seq"] for r in engine] == list(range(len(engine)))
    for r in engine:
        assert set(r) == {"seq", "round", "phase", "type", "actor", "audience", "data"}
    types = {r["type"] for r in engine}
    assert {
        "game_start",
        "roles",
        "role_assigned",
        "night_start",
        "action",
        "pack_decision",
        "death",
        "floor",
        "statement",
        "ground_truth",
        "suspicion",
        "votes",
        "game_over",
    } <= types
    actions = [r for r in engine if r["type"] == "action"]
    assert all({"kind", "raw", "parsed"} <= set(r["data"]) for r in actions)
    assert any("fallbacks" in r["data"] for r in actions), "fuzzed play should record fallbacks"
    extras = [r for r in records if r["type"] == "agent_record"]
    assert extras and extras[0]["data"]["latency_ms"] == 12.5
    assert replay(path).ok, "agent records do not disturb replay"


def test_same_seed_and_actions_give_byte_identical_logs(tmp_path: Path) -> None:
    a = play_logged(tmp_path / "a", 9)
    b = play_logged(tmp_path / "b", 9)
    assert a.read_bytes() == b.read_bytes()


def test_tampered_log_is_detected(tmp_path: Path) -> None:
    path = play_logged(tmp_path, 4, fuzz=0.0)
    lines = path.read_text().splitlines()
    for i, line in enumerate(lines):
        record = json.loads(line)
        if record.get("type") == "action" and record["data"]["kind"] == "vote":
            record["data"]["raw"] = {"vote": None if record["data"]["parsed"]["vote"] is not None else "Alice"}
            lines[i] = json.dumps(record)
            break
    path.write_text("\n".join(lines) + "\n")
    result = replay(path)
    assert not result.ok and result.mismatches


def test_unfinished_game_log_replays_without_snapshot(tmp_path: Path) -> None:
    env = werewolf_env.raw_env(log_dir=tmp_path)
    env.reset(seed=1)
    policy = random_policy(1, 0.0)
    for _ in range(40):
        env.step(policy(env.game, env.game.current))
    path = env.log_path
    env.reset(seed=2)  # abandons the first game: its log is closed without a snapshot
    result = replay(path)
    # What it holds replays identically, but it is no whole game: never ok.
    assert result.matches and not result.ok and not result.complete and result.actions == 40
    assert result.truncated is not None
    # a crash mid-line leaves a half-written line, which the reader skips
    with path.open("a") as f:
        f.write('{"seq": 999, "type": "act')
    assert replay(path).matches


def test_bad_logs_are_reported_not_raised(tmp_path: Path) -> None:
    empty = tmp_path / "empty.ndjson"
    empty.write_text("")
    assert not replay(empty).ok
    wrong = tmp_path / "wrong.ndjson"
    wrong.write_text(json.dumps({"type": "header", "schema_version": 99}) + "\n")
    assert "schema_version" in replay(wrong).mismatches[0]


def _without_config_key(path: Path, key: str) -> None:
    """Rewrite a log as a version before ``key`` existed would have written it (header, game_start, snapshot)."""
    lines = []
    for line in path.read_text().splitlines():
        record = json.loads(line)
        for config in (record.get("config"), (record.get("data") or {}).get("config")):
            if isinstance(config, dict):
                config.pop(key, None)
        lines.append(json.dumps(record))
    path.write_text("\n".join(lines) + "\n")


def test_a_log_from_before_a_config_field_existed_still_replays(tmp_path: Path) -> None:
    path = play_logged(tmp_path, 5, fuzz=0.0)
    _without_config_key(path, "max_statement_chars")  # added with the statement character cap
    assert replay(path).ok
    # A field the log does name is compared: a changed value is a difference, not a tolerance.
    text = path.read_text().replace('"max_statement_words": 20', '"max_statement_words": 21', 1)
    path.write_text(text)
    assert not replay(path).ok


def test_a_log_from_before_roles_left_the_public_game_start_still_replays(tmp_path: Path) -> None:
    """Logs written before the public ``game_start`` stopped naming hand-dealt roles still replay identically."""
    roles = ["werewolf", "seer", "doctor", "villager", "villager"]
    path = play_logged(tmp_path, 6, fuzz=0.0, num_players=5, num_werewolves=1, roles=roles)
    lines = []
    for line in path.read_text().splitlines():
        record = json.loads(line)
        if record.get("type") == "game_start":
            assert record["data"]["config"]["roles"] is None  # today: hidden
            record["data"]["config"]["roles"] = roles  # as the earlier engine wrote it
        lines.append(json.dumps(record))
    path.write_text("\n".join(lines) + "\n")
    assert replay(path).ok
    # Roles in game_start that are not the header's deal are a difference.
    lines = []
    for line in path.read_text().splitlines():
        record = json.loads(line)
        if record.get("type") == "game_start":
            record["data"]["config"]["roles"] = roles[::-1]
        lines.append(json.dumps(record))
    path.write_text("\n".join(lines) + "\n")
    assert not replay(path).ok
