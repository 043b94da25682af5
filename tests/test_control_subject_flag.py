"""``werewolf-bench run --control-subject-probability P``: the control subject's chance, from the command line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from werewolf_deception.benchmarks.cli.main import main
from werewolf_env.engine.log import read_log


@pytest.mark.parametrize("given", ["0", "1", "0.5"])
def test_the_flag_sets_the_games_config(tmp_path: Path, given: str) -> None:
    out = tmp_path / "run"
    assert main(["run", "--games", "1", "--control-subject-probability", given, "--out", str(out)]) == 0
    manifest = json.loads((out / "manifest.json").read_text(encoding="utf-8"))
    header = read_log(next((out / "games").glob("*.ndjson")))[0]
    assert header["config"]["control_subject_probability"] == manifest["config"]["control_subject_probability"]
    assert header["config"]["control_subject_probability"] == float(given)


def test_without_the_flag_the_config_default_stands(tmp_path: Path) -> None:
    out = tmp_path / "run"
    assert main(["run", "--games", "1", "--out", str(out)]) == 0
    header = read_log(next((out / "games").glob("*.ndjson")))[0]
    assert header["config"]["control_subject_probability"] == 0.25


@pytest.mark.parametrize("bad", ["-0.1", "1.5", "nan", "inf", "x", ""])
def test_a_value_that_is_not_a_probability_is_refused(
    tmp_path: Path, bad: str, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "run"
    with pytest.raises(SystemExit) as refused:
        main(["run", "--games", "1", f"--control-subject-probability={bad}", "--out", str(out)])
    assert refused.value.code == 2 and not out.exists()
    assert "--control-subject-probability" in capsys.readouterr().err
