"""The shared data sets are found where ``WEREWOLF_SHARED_DATA`` says, not only beside a source checkout."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from werewolf_deception.benchmarks import shared_data

ROOT = Path(__file__).resolve().parents[1]


def _run(args: list[str], data_dir: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, shared_data.ENV_VAR: str(data_dir)}
    return subprocess.run([sys.executable, *args], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)


def test_the_variable_names_the_folder(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv(shared_data.ENV_VAR, str(tmp_path))
    assert shared_data.shared_data_dir() == tmp_path
    assert shared_data.transcripts_corpus() == tmp_path / "llm_werewolf_transcripts"
    assert shared_data.diplomacy_dir() == tmp_path / "diplomacy_peskov2020"


def test_without_the_variable_the_checkout_sibling(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(shared_data.ENV_VAR, raising=False)
    assert shared_data.shared_data_dir() == ROOT.parent / "shared" / "data"
    monkeypatch.setenv(shared_data.ENV_VAR, "  ")  # blank: as if unset
    assert shared_data.shared_data_dir() == ROOT.parent / "shared" / "data"


@pytest.mark.parametrize(
    ("args", "missing"),
    [
        (["-m", "werewolf_deception.benchmarks.labels.evaluate"], "llm_werewolf_transcripts"),
        (
            [
                "-m",
                "werewolf_deception.benchmarks.cli.main",
                "detect-eval",
                "--dataset",
                "peskov2020",
                "--detector",
                "text",
            ],
            "diplomacy_peskov2020",
        ),
    ],
)
def test_commands_read_the_folder_the_variable_names(args: list[str], missing: str, tmp_path: Path) -> None:
    """An empty folder: the commands look there (and say so), not in ../shared, and stop with exit 2."""
    done = _run(args, tmp_path)
    assert done.returncode == 2, done.stderr
    assert str(tmp_path / missing) in done.stderr
    assert "Traceback" not in done.stderr


@pytest.mark.skipif(
    not (ROOT.parent / "shared" / "data" / "llm_werewolf_transcripts").is_dir(),
    reason="needs ../shared/data/llm_werewolf_transcripts",
)
def test_a_corpus_elsewhere_is_read(tmp_path: Path) -> None:
    """The corpus linked into another folder: the evaluation runs from there."""
    (tmp_path / "llm_werewolf_transcripts").symlink_to(ROOT.parent / "shared" / "data" / "llm_werewolf_transcripts")
    done = _run(["-m", "werewolf_deception.benchmarks.labels.evaluate"], tmp_path)
    assert done.returncode == 0, done.stderr
    assert '"corpus_dev"' in done.stdout
