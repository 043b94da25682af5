"""What a lineup may send as a bearer token: only a variable whose name says it is a key (``*_API_KEY``,
``*_TOKEN``) or a small key file holding one key. Anything else is refused before any game, with a message
that names the seat and the variable or file and never shows a value."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from werewolf_deception.agents.credentials import (
    MAX_KEY_FILE_BYTES,
    check_key_variable,
    read_key,
    read_key_file,
)
from werewolf_deception.agents.fake.server import FakeOpenAIServer
from werewolf_deception.agents.play.lineup import load_lineup
from werewolf_deception.benchmarks.cli.main import main

SMALL = ["--players", "5", "--rounds", "1", "--debate-turns", "1", "--no-report", "--quiet"]
CANARY = "CANARY-value-0123456789"


def lineup_file(tmp_path: Path, seat: dict[str, object]) -> Path:
    """Every seat an LLM (so that the key is used whoever dies first); the seat's options in ``seats.player_1``."""
    path = tmp_path / "lineup.json"
    llm = {"kind": "llm", "model": "fake", **seat}
    path.write_text(json.dumps({"default": llm, "seats": {"player_1": llm}}))
    return path


@pytest.mark.parametrize("name", ["OPENAI_API_KEY", "GROQ_API_KEY", "HF_TOKEN", "my_service_api_key", "API_KEY"])
def test_key_variables_are_accepted(name: str) -> None:
    assert check_key_variable(name) == name
    assert load_lineup({"default": {"kind": "llm", "model": "m", "api_key_env": name}})


@pytest.mark.parametrize(
    "name",
    [
        "HOME",
        "PATH",
        "AWS_SECRET_ACCESS_KEY",
        "OPENAI_API_KEY_OLD",
        "DATABASE_URL",
        "TOKEN",
        "_TOKEN",
        "X-API_KEY",
        "MY TOKEN",
        "1_API_KEY",
    ],
)
def test_other_variables_are_refused_naming_the_seat_and_the_variable(name: str) -> None:
    with pytest.raises(ValueError) as refused:
        load_lineup({"seats": {"player_3": {"kind": "llm", "model": "m", "api_key_env": name}}})
    text = str(refused.value)
    assert "lineup seats.player_3" in text and f"{name!r}" in text and "_API_KEY or _TOKEN" in text


def test_a_refused_variable_stops_the_cli_before_any_game(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SOME_PASSWORD", CANARY)
    with FakeOpenAIServer() as server:
        lineup = lineup_file(tmp_path, {"base_url": server.base_url, "api_key_env": "SOME_PASSWORD"})
        code = main(["run", "--lineup", str(lineup), "--games", "1", "--out", str(tmp_path / "r"), *SMALL])
        asked = len(server.headers_seen)
    err = capsys.readouterr().err
    assert code == 2 and "seats.player_1" in err and "'SOME_PASSWORD'" in err and CANARY not in err
    assert asked == 0 and not (tmp_path / "r").exists(), "nothing was sent, nothing was played"


def test_a_key_file_is_read_and_its_key_sent(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    key = tmp_path / "key.txt"
    key.write_text("sk-from-file-42\n")
    with FakeOpenAIServer(api_key="sk-from-file-42") as server:
        lineup = lineup_file(tmp_path, {"base_url": server.base_url, "api_key_file": str(key)})
        code = main(["run", "--lineup", str(lineup), "--games", "1", "--out", str(tmp_path / "r"), *SMALL])
        answered = len(server.requests)
    assert code == 0 and answered > 3
    assert "sk-from-file-42" not in capsys.readouterr().err
    assert not [p for p in (tmp_path / "r").rglob("*") if p.is_file() and b"sk-from-file-42" in p.read_bytes()]


def _fifo(tmp_path: Path) -> Path:
    path = tmp_path / "fifo"
    os.mkfifo(path)
    return path


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda d: d, "not a regular file"),
        (lambda d: d / "missing.txt", "cannot read the API key file"),
        (lambda d: _write(d / "big", "sk-" + "a" * MAX_KEY_FILE_BYTES), f"larger than {MAX_KEY_FILE_BYTES} bytes"),
        (lambda d: _write(d / "pem", f"-----BEGIN OPENSSH PRIVATE KEY-----\n{CANARY}\n-----END-----\n"), "one key"),
        (lambda d: _write(d / "creds", f"https://user:{CANARY}@github.com\n"), "one key"),
        (lambda d: _write(d / "two", f"{CANARY}\n{CANARY}\n"), "one key"),
        (lambda d: _write(d / "empty", "\n"), "one key"),
        (lambda d: _write_bytes(d / "bin", b"\xff\xfe" + CANARY.encode()), "one key"),
        pytest.param(_fifo, "not a regular file", marks=pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="posix")),
    ],
)
def test_key_files_that_are_not_one_key_are_refused_without_echoing(tmp_path: Path, make, message: str) -> None:
    path = make(tmp_path)
    with pytest.raises(ValueError) as refused:
        load_lineup({"roles": {"seer": {"kind": "llm", "model": "m", "api_key_file": str(path)}}})
    text = str(refused.value)
    assert "lineup roles.seer: api_key_file" in text and str(path) in text and message in text
    assert CANARY not in text


def _write(path: Path, text: str) -> Path:
    path.write_text(text)
    return path


def _write_bytes(path: Path, data: bytes) -> Path:
    path.write_bytes(data)
    return path


@given(st.binary(max_size=300))
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
def test_any_key_file_content_is_a_key_or_refused_never_echoed(tmp_path: Path, content: bytes) -> None:
    path = tmp_path / "key"
    path.write_bytes(content)
    try:
        key = read_key_file(path)
    except ValueError as exc:  # one of the fixed texts: the path and the reason, nothing read from the file
        assert str(exc).replace(str(path), "PATH") == (
            "the API key file PATH does not hold one key (a single line of letters, digits and - _ . ~ + / =)"
        )
    else:
        assert key and key == content.decode().strip() and "\n" not in key and " " not in key


def test_read_key_enforces_the_rule_and_falls_back_for_local_servers(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME_TOKEN", "sk-home")
    monkeypatch.delenv("UNSET_API_KEY", raising=False)
    assert read_key("HOME_TOKEN", None) == "sk-home"
    assert read_key("UNSET_API_KEY", None) == "not-needed"
    with pytest.raises(ValueError, match="'HOME' is not an API key variable"):
        read_key("HOME", None)
