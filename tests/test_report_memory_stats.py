"""Figures fed a game at a time equal the figures over all games at once, in bounded memory.

Theil-Sen selects the median slope from blocks (the same slopes, never all of them at once), the
ranked bootstrap works in blocks of resamples, and ``RunAggregator`` / ``ClaimsCoverage`` /
``TableWriter`` take games one by one.
"""

from __future__ import annotations

import csv
import tracemalloc
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from werewolf_deception.agents import play_game_sync
from werewolf_deception.benchmarks.report.tables import TableWriter, inert_cell
from werewolf_env.analysis import stats
from werewolf_env.analysis.coverage import ClaimsCoverage, claims_coverage
from werewolf_env.analysis.metrics import GameRecord, RunAggregator, aggregate
from werewolf_env.analysis.stats import Bootstrap, theil_sen
from werewolf_env.engine.log import read_log


def reference_theil_sen(x: list[float], y: list[float]) -> tuple[float | None, float | None]:
    """Theil-Sen from every pairwise slope at once (what the report computed before), zero slopes as 0.0."""
    xa, ya = np.asarray(x, dtype=np.float64), np.asarray(y, dtype=np.float64)
    i, j = np.triu_indices(xa.size, k=1)
    dx = xa[j] - xa[i]
    keep = dx != 0
    if not keep.any():
        return None, None
    slope = float(np.median((ya[j] - ya[i])[keep] / dx[keep])) + 0.0
    return slope, float(np.median(ya - slope * xa))


POINTS = st.integers(2, 60).flatmap(
    lambda n: st.tuples(
        st.lists(st.integers(1, 6).map(float), min_size=n, max_size=n),  # rounds: few distinct x, many ties
        st.lists(st.sampled_from([0.0, 0.25, 0.5, 0.5, 0.75, 1.0]) | st.floats(0, 1), min_size=n, max_size=n),
    )
)


@settings(max_examples=200, deadline=None)
@given(points=POINTS, block=st.integers(1, 40))
def test_theil_sen_in_blocks_is_the_median_of_every_slope(points: tuple[list[float], list[float]], block: int) -> None:
    x, y = points
    with pytest.MonkeyPatch.context() as m:
        m.setattr(stats, "SLOPE_BLOCK_ITEMS", block)  # force the blocked selection on small inputs
        assert theil_sen(x, y) == reference_theil_sen(x, y)


def test_theil_sen_of_thousands_of_points_fits_in_bounded_memory() -> None:
    """3,000 points have 4.5 million slopes: all at once took about 175 MB; blocks keep it under 80 MB."""
    rng = np.random.default_rng(7)
    x = rng.integers(1, 10, 3000).astype(np.float64)
    y = np.round(rng.random(3000), 2)
    tracemalloc.start()
    try:
        got = theil_sen(x, y)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 80 * 2**20
    assert got == reference_theil_sen(x.tolist(), y.tolist())


def test_theil_sen_of_points_that_are_not_numbers_is_no_line() -> None:
    assert theil_sen([1, 2, 3], [0.1, float("nan"), 0.3]) == (None, None)


def test_ranked_bootstrap_does_not_depend_on_its_block_size(monkeypatch: pytest.MonkeyPatch) -> None:
    rng = np.random.default_rng(3)
    game = rng.integers(0, 30, 2000)
    score, label = np.round(rng.random(2000), 2), rng.random(2000) < 0.3
    boot = Bootstrap(30, resamples=200, seed=0)
    whole = (boot.auc(game, score, label), boot.average_precision(game, score, label))
    monkeypatch.setattr(stats, "RANKED_BLOCK_ITEMS", 2000 * 3)  # three resamples per block instead of 64
    assert (boot.auc(game, score, label), boot.average_precision(game, score, label)) == whole


@pytest.fixture(scope="module")
def records(tmp_path_factory: pytest.TempPathFactory) -> list[GameRecord]:
    folder = tmp_path_factory.mktemp("games")
    for seed in range(5):
        play_game_sync({"num_players": 6}, "heuristic" if seed % 2 else "random", seed, log_dir=folder)
    return [GameRecord.from_events(read_log(p), source=str(p)) for p in sorted(folder.glob("*.ndjson"))]


def test_aggregate_of_a_generator_equals_aggregate_of_a_list(records: list[GameRecord]) -> None:
    assert aggregate(iter(records), resamples=100) == aggregate(records, resamples=100)
    assert claims_coverage(iter(records), resamples=100) == claims_coverage(records, resamples=100)


def test_results_can_be_asked_for_between_games(records: list[GameRecord]) -> None:
    """A result read halfway does not freeze the columns: later games still count."""
    totals, coverage = RunAggregator(), ClaimsCoverage()
    for k, record in enumerate(records):
        totals.add(record)
        coverage.add(record)
        assert totals.result(resamples=20) == aggregate(records[: k + 1], resamples=20)
    assert coverage.result(resamples=20) == claims_coverage(records, resamples=20)


def test_an_empty_run_aggregates_to_empty_figures() -> None:
    summary = RunAggregator().result(resamples=10)
    assert summary["games"] == 0 and summary["totals"]["statements"] == 0
    assert summary["detective"]["all"]["all"]["f1"]["value"] is None


def dictwriter_table(rows: list[dict[str, Any]], path: Path) -> None:
    """The tables as the report wrote them with every row in memory: the header is every column of any row."""
    columns: dict[str, None] = {}
    for row in rows:
        columns.update(dict.fromkeys(row))
    with path.open("w", newline="", encoding="utf-8") as f:
        writer = csv.DictWriter(f, fieldnames=list(columns), extrasaction="ignore")
        writer.writeheader()
        for row in rows:
            writer.writerow({k: inert_cell(v) for k, v in row.items()})  # "=1+1" is written as text


def test_a_column_that_appears_late_gets_the_same_file(tmp_path: Path) -> None:
    games: list[list[dict[str, Any]]] = [
        [{"game": "a", "x": 1, "note": 'say "hi",\nthen'}],
        [{"game": "b", "x": None, "late": "=1+1"}, {"game": "b", "x": 2.5}],
        [{"game": "c", "late": "z", "later": True}],
    ]
    with TableWriter(tmp_path / "streamed") as tables:
        for rows in games:
            tables.write({"votes": rows})
    dictwriter_table([row for rows in games for row in rows], tmp_path / "votes.csv")
    assert (tmp_path / "streamed" / "votes.csv").read_bytes() == (tmp_path / "votes.csv").read_bytes()
    dictwriter_table([], tmp_path / "empty.csv")  # a table with no row: the same (empty) header line
    assert (tmp_path / "streamed" / "games.csv").read_bytes() == (tmp_path / "empty.csv").read_bytes()
