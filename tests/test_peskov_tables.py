"""The Diplomacy detector tables (``werewolf_deception.benchmarks.diplomacy.evaluate``): the human receivers' row,
the lie rate and ranking figures beside Lie F1, the headline's paired differences, a priori grids and the judge's
progress."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from werewolf_deception.agents.fake.server import FakeOpenAIServer
from werewolf_deception.benchmarks.cli.main import main
from werewolf_deception.benchmarks.diplomacy.detectors import L2_GRID
from werewolf_deception.benchmarks.diplomacy.evaluate import (
    DEFAULT_DATA_DIR,
    HUMANS,
    confusion_metrics,
    headline,
    human_row,
    lie_f1_difference,
)
from werewolf_deception.benchmarks.diplomacy.judge import DiplomacyJudge
from werewolf_deception.benchmarks.diplomacy.models import GRIDS, STACKED
from werewolf_deception.benchmarks.diplomacy.peskov import Message, read_split

FIXTURE = Path(__file__).parent / "data" / "peskov2020_tiny"
HAVE_DATA = (DEFAULT_DATA_DIR / "validation.jsonl").is_file()


def _message(game: int, lie: bool, suspected: bool | None) -> Message:
    return Message(str(game), f"d{game}", "england", "france", "hello", lie, suspected)


def test_human_receivers_are_scored_on_the_messages_they_labelled() -> None:
    # (lie, the receiver suspected a lie): tp 2, fp 1, fn 1 among the labelled; two unlabelled lies are left out.
    pairs = [(True, True), (True, True), (True, False), (False, True), (False, False), (False, False),
             (True, None), (True, None)]  # fmt: skip
    rows = [_message(k % 5, lie, suspected) for k, (lie, suspected) in enumerate(pairs)]
    cluster = np.array([m.game for m in rows])
    row = human_row(rows, cluster, resamples=200, seed=0)
    assert row is not None
    assert row["lie_f1"]["value"] == pytest.approx(2 * 2 / (2 * 2 + 1 + 1), abs=1e-4)
    assert row["sample"] == {"messages": 6, "of": 8, "lies": 3} and row["lie_rate"] == 0.5 and row["baseline"]
    assert human_row([_message(1, True, None)], np.array(["1"]), 10, 0) is None


def test_rows_carry_their_lie_rate_and_average_precision() -> None:
    truth = np.array([1, 0, 1, 0, 0, 0, 0, 0, 0, 0], dtype=bool)
    p = np.array([0.9, 0.8, 0.7, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1])
    m = confusion_metrics(p, p >= 0.5, truth, np.arange(10) % 5, resamples=100)
    assert m["lie_rate"] == 0.2
    assert m["average_precision"]["value"] == pytest.approx((1 + 2 / 3) / 2, abs=1e-4)  # lies ranked 1st and 3rd
    low, high = m["average_precision"]["ci"]
    assert low is not None and high is not None and low <= high


def test_headline_differences_are_paired_and_need_both_intervals_above_zero() -> None:
    rng = np.random.default_rng(0)
    rows = [_message(k % 8, bool(rng.random() < 0.3), bool(rng.random() < 0.3)) for k in range(400)]
    truth = np.array([bool(m.lie) for m in rows])
    suspected = np.array([bool(m.suspected) for m in rows])
    cluster = np.array([m.game for m in rows])
    same = lie_f1_difference(suspected, suspected, truth, cluster, 200, 0)
    assert same["value"] == 0.0 and same["ci"] == [0.0, 0.0]  # paired: the same flags never differ
    as_good_as_humans = headline("copycat", suspected, rows, cluster, 200, 0)
    assert not as_good_as_humans["beats_both"]
    perfect = headline("oracle", truth, rows, cluster, 200, 0)
    assert perfect["beats_both"] and perfect["lie_f1_minus"][HUMANS]["ci"][0] > 0
    all_lie_f1 = 2 * truth.mean() / (1 + truth.mean())
    assert perfect["lie_f1_minus"]["all-lie"]["value"] == pytest.approx(1 - all_lie_f1, abs=1e-4)
    unlabelled = [_message(k % 8, m.lie or False, None) for k, m in enumerate(rows)]
    assert not headline("oracle", truth, unlabelled, cluster, 200, 0)["beats_both"]  # nothing to compare with


def test_every_block_searches_the_same_a_priori_grid() -> None:
    """No grid is narrowed by looking at the scored folds: one log grid, wide enough on both sides."""
    assert L2_GRID == tuple(4.0**k for k in range(1, 8))
    assert all(GRIDS[block] == L2_GRID for block in STACKED["stacked"])


def test_the_table_shows_humans_lie_rates_and_the_headline(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "out"
    assert (
        main(
            [
                "detect-eval",
                "--dataset",
                "peskov2020",
                "--data-dir",
                str(FIXTURE),
                "--out",
                str(out),
                "--detector",
                "text",
            ]
        )
        == 0
    )
    result = json.loads((out / "detect_eval.json").read_text())
    for split in result["splits"].values():
        assert set(split["detectors"]) == {"text", "random", "all-lie", HUMANS}
        assert split["lie_rate"] == round(split["lies"] / split["messages"], 4)
        assert split["headline"]["detector"] == "text" and HUMANS in split["headline"]["lie_f1_minus"]
        for row in split["detectors"].values():
            assert {"lie_f1", "auroc", "average_precision", "lie_rate"} <= set(row)
    printed = capsys.readouterr().out
    assert "lie rate" in printed and "average_precision" in printed and "headline: text" in printed
    assert printed.count(HUMANS) >= 2


def test_the_judge_reports_progress(tmp_path: Path) -> None:
    rows = read_split(FIXTURE, "validation")[:6]
    ticks: list[int] = []
    with FakeOpenAIServer() as server:
        judge = DiplomacyJudge({"model": "fake", "base_url": server.base_url}, cache_dir=tmp_path / "cache")
        judge.probability(rows, progress=lambda: ticks.append(1))
    assert len(ticks) == len(rows)


@pytest.mark.skipif(not HAVE_DATA, reason="needs ../shared/data/diplomacy_peskov2020")
def test_the_real_receivers_as_documented() -> None:
    validation = [m for m in read_split(DEFAULT_DATA_DIR, "validation") if m.lie is not None]
    row = human_row(validation, np.array([m.dialog for m in validation]), resamples=0, seed=0)
    assert row is not None and row["sample"] == {"messages": 1283, "of": 1416, "lies": 50}
    assert row["lie_f1"]["value"] == pytest.approx(0.0825, abs=1e-4)
