"""Any printable name can be plotted: matplotlib draws names, roles and titles as written (a ``$``
pair is no formula, ``$x_$`` no crash) and shows bidirectional controls inert."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from werewolf_deception.benchmarks.report import plots
from werewolf_env.analysis.metrics import GameRecord
from werewolf_env.engine.log import read_log

from .report_pages_runs import ODD_NAMES, play_games

# Printable text rich in what mathtext and LaTeX read specially, and in bidirectional controls.
SPECIAL = "$\\^_{}%&#~| ab\u202e\u202d\u2066\u2067\u2069"
NAME = st.one_of(
    st.text(alphabet=SPECIAL, min_size=1, max_size=10),
    st.text(alphabet=st.characters(categories=("L", "N", "P", "S")), min_size=1, max_size=14),
)


@pytest.fixture(scope="module")
def record(tmp_path_factory: pytest.TempPathFactory) -> GameRecord:
    log = play_games(tmp_path_factory.mktemp("games"), seeds=(3,))[0]
    return GameRecord.from_events(read_log(log), source=str(log))


def test_the_odd_names_of_the_fixture_are_plotted(record: GameRecord, tmp_path: Path) -> None:
    assert set(ODD_NAMES) <= set(record.names)
    written = plots.game_plots(record, "game$x_$", tmp_path)
    assert all(Path(png).stat().st_size > 0 for png in written.values())


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(names=st.lists(NAME, min_size=8, max_size=8))
def test_any_printable_names_are_plotted(record: GameRecord, tmp_path: Path, names: list[str]) -> None:
    renamed = dataclasses.replace(record, names=names)
    written = plots.game_plots(renamed, "game", tmp_path)
    assert all(Path(png).stat().st_size > 0 for png in written.values())
