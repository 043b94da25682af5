"""A misspelt option in an LLM seat of a lineup is reported before any game: exit 2, a message naming the
seat, the unknown key and the closest valid one, and never a value (a value may be a key in the wrong place)."""

from __future__ import annotations

from pathlib import Path

import pytest

from werewolf_deception.agents.play.lineup import load_lineup
from werewolf_deception.benchmarks.cli.main import main

SMALL = ["--players", "5", "--rounds", "1", "--debate-turns", "1", "--no-report", "--quiet"]


def run(tmp_path: Path, toml: str) -> int:
    lineup = tmp_path / "lineup.toml"
    lineup.write_text(toml)
    return main(["run", "--lineup", str(lineup), "--games", "1", "--out", str(tmp_path / "r"), *SMALL])


def test_a_typo_in_a_seat_table_exits_2_before_any_game(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = run(
        tmp_path, '[seats.player_0]\nkind = "llm"\nmodel = "m"\nbase_url = "http://127.0.0.1:9/v1"\ntemprature = 0.2\n'
    )
    err = capsys.readouterr().err
    assert code == 2
    assert "lineup seats.player_0: temprature: unknown option (did you mean 'temperature'?)" in err
    assert "Traceback" not in err and "input_value" not in err and "0.2" not in err
    assert not (tmp_path / "r").exists(), "no game was played, no folder made"


def test_a_typo_never_echoes_a_secret_nearby(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = run(
        tmp_path,
        '[teams.werewolf]\nkind = "llm"\nmodel = "m"\n'
        'base_url = "http://u:s3cret@127.0.0.1:9/v1?key=s3cret"\nmax_token = 200\n'
        'apikey = "sk-s3cret"\n',
    )
    err = capsys.readouterr().err
    assert code == 2 and "s3cret" not in err
    assert "lineup teams.werewolf: max_token: unknown option (did you mean 'max_tokens'?)" in err
    assert "apikey: unknown option (keys go in an environment variable: api_key_env" in err


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (
            {"default": {"kind": "llm", "model": "m", "top-p": 0.9}},
            "lineup default: top-p: unknown option (did you mean 'top_p'?)",
        ),
        ({"seets": {"player_0": "llm"}}, "seets: not a lineup section (did you mean 'seats'?)"),
        ({"roles": {"seeer": "heuristic"}}, "lineup roles.'seeer': not a role (did you mean 'seer'?)"),
        ({"default": {"kind": "llm", "model": "m", "zzz": 1}}, "zzz: unknown option; valid: model, base_url"),
    ],
)
def test_lineup_problems_name_where_and_what(data: dict[str, object], message: str) -> None:
    with pytest.raises(ValueError) as refused:
        load_lineup(data)
    assert message in str(refused.value)
