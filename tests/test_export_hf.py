"""An export folder as Hugging Face ``datasets`` loads it: the generic loader, the card's configs, the licence.

Offline (``HF_HUB_OFFLINE``) with a cache in the test's folder: nothing is fetched.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

datasets = pytest.importorskip("datasets", reason="the 'hf' extra (datasets) is not installed")

from werewolf_deception.benchmarks.cli.main import main  # noqa: E402

SMALL = ["--players", "5", "--rounds", "2", "--no-report", "--quiet"]


@pytest.fixture(scope="module")
def exports(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("hf")
    assert main(["run", "--games", "2", "--out", str(root / "run"), *SMALL]) == 0
    out = {}
    for fmt in ("parquet", "jsonl"):
        out[fmt] = root / fmt
        assert main(["export", str(root / "run"), "--out", str(out[fmt]), "--format", fmt]) == 0
    return out


@pytest.fixture(autouse=True)
def offline(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("HF_DATASETS_CACHE", str(tmp_path / "cache"))


def rows(folder: Path, table: str, fmt: str) -> int:
    data = folder / table
    return sum(1 for _ in datasets.load_dataset(fmt.replace("jsonl", "json"), data_dir=str(data), split="train"))


@pytest.mark.parametrize("fmt", ["parquet", "jsonl"])
def test_the_generic_loader_reads_the_folder_as_its_default_table(exports: dict[str, Path], fmt: str) -> None:
    folder = exports[fmt]
    loaded = datasets.load_dataset(fmt.replace("jsonl", "json"), data_dir=str(folder))
    assert list(loaded) == ["train"]  # the manifest and the games table are not read as statements
    assert loaded["train"].num_rows == rows(folder, "statements", fmt) > 0
    assert "speaker_name" in loaded["train"].column_names


@pytest.mark.parametrize("fmt", ["parquet", "jsonl"])
def test_the_cards_configs_load_each_table(exports: dict[str, Path], fmt: str) -> None:
    folder = exports[fmt]
    default = datasets.load_dataset(str(folder), split="train")
    statements = datasets.load_dataset(str(folder), "statements", split="train")
    games = datasets.load_dataset(str(folder), "games", split="train")
    assert default.num_rows == statements.num_rows == rows(folder, "statements", fmt)
    assert games.num_rows == rows(folder, "games", fmt) == 2
    assert "winner" in games.column_names and "winner" not in statements.column_names


def test_the_cards_licence_fields_are_valid(exports: dict[str, Path]) -> None:
    folder = exports["parquet"]
    meta = yaml.safe_load((folder / "README.md").read_text(encoding="utf-8").split("---\n")[1])
    card = datasets.load_dataset_builder(str(folder)).info  # the card parses as datasets reads it
    assert card is not None
    if meta["license"] == "other":  # the Hub's rule: a custom licence has an id and a link
        assert meta["license_name"] and meta["license_name"] == meta["license_name"].lower()
        assert " " not in meta["license_name"]
        link = meta["license_link"]
        assert link.startswith("https://") or (folder / link).is_file()
