"""The streamed report: the same bytes as the report that held every game, and never every game at once.

``tests/data/report_golden`` holds a small run and what ``werewolf-bench report`` wrote for it before
the report streamed its games (see its ``make_fixture.py``): ``metrics.json`` and the CSV tables under
the logs' own labels (regex) and under an ``llm`` labels file.
"""

from __future__ import annotations

import gzip
import json
import weakref
from pathlib import Path
from typing import Any

import pytest

import werewolf_env
from tests.data.report_golden.make_fixture import LABELERS, REPORT_OPTIONS
from werewolf_deception.agents import play_game_sync
from werewolf_deception.benchmarks.report import build as report_module
from werewolf_deception.benchmarks.report.build import TABLES, build_report
from werewolf_env.analysis.metrics import GameRecord

GOLDEN = Path(__file__).parent / "data" / "report_golden"


def unpack(source: Path, target: Path) -> Path:
    """The fixture's gzipped files, uncompressed under ``target``."""
    for packed in source.rglob("*.gz"):
        out = target / packed.relative_to(source).with_suffix("")
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_bytes(gzip.decompress(packed.read_bytes()))
    return target


def normalised(text: str, run: Path) -> str:
    """A report's text with the run folder and the generator's version as the fixture writes them."""
    generated_by = f'"generated_by": "werewolf-deception {werewolf_env.__version__}"'
    return text.replace(str(run), "{RUN}").replace(generated_by, '"generated_by": "{GENERATED_BY}"')


@pytest.fixture(scope="module")
def golden_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return unpack(GOLDEN / "run", tmp_path_factory.mktemp("golden") / "run")


@pytest.mark.parametrize("labeler", LABELERS)
def test_streamed_report_writes_the_stored_bytes(golden_run: Path, tmp_path: Path, labeler: str) -> None:
    expected = unpack(GOLDEN / "expected" / labeler, tmp_path / "expected")
    out = tmp_path / "out"
    document = build_report(golden_run, out=out, labeler=labeler, **REPORT_OPTIONS)  # type: ignore[arg-type]
    assert document["run"]["games"] == 5 and len(document["run"]["incomplete_logs"]) == 1
    metrics = (out / "metrics.json").read_text(encoding="utf-8")
    assert normalised(metrics, golden_run) == (expected / "metrics.json").read_text(encoding="utf-8")
    assert json.loads(metrics) == document
    for table in TABLES:
        got = (out / "tables" / f"{table}.csv").read_bytes().decode("utf-8")
        want = (expected / "tables" / f"{table}.csv").read_bytes().decode("utf-8")  # "\r\n" line ends kept
        assert normalised(got, golden_run) == want, table
    assert not list((out / "tables").glob(".*")), "no partial table left behind"


class LiveRecords:
    """How many GameRecord objects exist at once, at most (counted as they are made and freed)."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.live = self.peak = 0
        original = GameRecord.__init__

        def init(record: GameRecord, *args: Any, **kwargs: Any) -> None:
            original(record, *args, **kwargs)
            self.live += 1
            self.peak = max(self.peak, self.live)
            weakref.finalize(record, self._freed)

        monkeypatch.setattr(GameRecord, "__init__", init)

    def _freed(self) -> None:
        self.live -= 1


def play_run(folder: Path, games: int) -> Path:
    for seed in range(games):
        play_game_sync({"num_players": 5}, "heuristic", seed, log_dir=folder / "games")
    return folder


@pytest.mark.parametrize("labeler", ["regex", "llm"])
def test_report_holds_a_few_games_at_a_time_whatever_their_number(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, labeler: str
) -> None:
    """The report's memory is flat in the number of games: it never holds more than a few records at
    once (a game, its relabelled copy, one baseline game), for 3 games as for 12. (It held all of them.)"""
    run = play_run(tmp_path / "run", 12)
    if labeler == "llm":  # another labeler's copies of each game are made and dropped a game at a time too
        (run / "claims").mkdir()
        (run / "claims" / "llm.ndjson").write_text("", encoding="utf-8")
    counter = LiveRecords(monkeypatch)
    build_report(run, out=tmp_path / "out", baseline_games=2, resamples=20, plots=False, labeler=labeler)
    assert counter.peak <= 3
    assert counter.live == 0  # nothing kept once the report is written


def test_a_report_that_fails_halfway_leaves_the_previous_tables_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    run = play_run(tmp_path / "run", 4)
    build_report(run, baseline_games=0, resamples=10, plots=False)
    before = {t: (run / "tables" / f"{t}.csv").read_bytes() for t in TABLES}
    original = GameRecord.from_events.__func__  # type: ignore[attr-defined]
    calls = {"n": 0}

    def third_fails(cls: type[GameRecord], records: list[dict[str, Any]], source: str | None = None) -> GameRecord:
        calls["n"] += 1
        if calls["n"] == 3:
            raise OSError("disk gone")
        return original(cls, records, source)

    monkeypatch.setattr(GameRecord, "from_events", classmethod(third_fails))
    with pytest.raises(OSError, match="disk gone"):
        build_report(run, baseline_games=0, resamples=10, plots=False)
    assert {t: (run / "tables" / f"{t}.csv").read_bytes() for t in TABLES} == before
    assert sorted(p.name for p in (run / "tables").iterdir()) == sorted(f"{t}.csv" for t in TABLES)


def test_no_finished_game_writes_nothing(tmp_path: Path) -> None:
    run = play_run(tmp_path / "run", 1)
    log = next((run / "games").glob("*.ndjson"))
    lines = log.read_text(encoding="utf-8").splitlines(keepends=True)
    log.write_text("".join(lines[:10]), encoding="utf-8")
    with pytest.raises(ValueError, match="none of the 1 logs"):
        build_report(run, out=tmp_path / "out", baseline_games=0, plots=False)
    assert not (tmp_path / "out").exists()


def test_load_records_and_write_tables_still_take_lists(golden_run: Path, tmp_path: Path) -> None:
    """The in-memory helpers other commands use keep their behaviour (a list in, every game at once)."""
    paths = report_module.find_logs(golden_run)
    records = [r for r in report_module.load_records(paths) if r.complete]
    written = report_module.write_tables(records, tmp_path / "tables")
    streamed = report_module.write_tables(iter(records), tmp_path / "streamed")
    for table in TABLES:
        assert written[table].read_bytes() == streamed[table].read_bytes()
