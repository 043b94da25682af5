"""The report's one pass over a run's logs: each game is read, used and dropped before the next.

``werewolf-bench report`` (``benchmarks/report/build.py``) reads a run's logs once through ``read_run``. For
each log, in order: its record and answer validity; if the game finished, its labels (``--labeler``),
its rows into the CSV tables, its figures into ``RunAggregator`` (and into each baseline made of the
run's own games), its claims coverage under every other labeler, its viewer page (with its plots, for
the first few games), and a ``GameOverview`` for the run pages. What stays in memory per game is its
row of ``per_game``, its overview and the aggregator's columns: kilobytes, not
the game (1,000 heuristic games: see ``benchmarks/report/memory.py``).

The figures are the same as reading every game first: each part is fed in the same order.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from werewolf_deception.benchmarks.labels import (
    DEFAULT_LABELER,
    LabelsError,
    available_labelers,
    logs_own,
    read_labels,
    relabelled,
)
from werewolf_deception.benchmarks.report.tables import TableWriter
from werewolf_deception.benchmarks.runs import game_validity, run_validity
from werewolf_env.analysis import ClaimsCoverage, GameOverview, GameRecord, RunAggregator
from werewolf_env.engine import read_log


class RunLabeling:
    """One labeler's claims and lie labels, put into a game at a time, with the summary that
    ``claim_labels.load_labeling`` gives over all the games (raises ``LabelsError`` at once when the
    labeler's file is missing or unreadable)."""

    def __init__(self, run_dir: Path, labeler: str) -> None:
        self.labeler = labeler
        self.labels = None if labeler == DEFAULT_LABELER else read_labels(run_dir, labeler)
        self.totals: dict[str, Any] | None = None
        self.reasons: dict[str, Counter[str]] = {"unlabelled_by_reason": Counter(), "labeler_errors": Counter()}
        self.matched = 0  # label lines that named a statement of these games

    def _labelled(self, record: GameRecord) -> tuple[GameRecord, dict[str, Any]]:
        if self.labels is None:
            return record, logs_own([record])
        (labelled,), part = relabelled([record], self.labels, self.labeler)
        return labelled, part

    def relabel(self, record: GameRecord) -> GameRecord:
        """The record under this labeler, not counted in the summary (a game read a second time)."""
        return self._labelled(record)[0]

    def apply(self, record: GameRecord) -> GameRecord:
        """The record under this labeler, counted in the summary (each game once)."""
        labelled, part = self._labelled(record)
        if self.labels is not None:
            self.matched += len(self.labels) - part["unmatched_lines"]  # games never share a (log, statement) key
        if self.totals is None:
            self.totals = dict(part)
        else:
            for key in ("statements", "labelled", "unlabelled"):
                self.totals[key] += part[key]
        for key, counts in self.reasons.items():
            counts.update(part[key])
        return labelled

    def summary(self) -> dict[str, Any]:
        """As ``load_labeling`` says it for all the games (reasons most frequent first)."""
        summary = dict(self.totals or logs_own([]))
        summary.update({key: dict(counts.most_common()) for key, counts in self.reasons.items()})
        summary["unmatched_lines"] = len(self.labels) - self.matched if self.labels is not None else 0
        return summary


@dataclass
class RunPass:
    """What the report keeps of a run after its one pass (see the module docstring)."""

    labeling: RunLabeling
    totals: RunAggregator = field(default_factory=RunAggregator)
    names: list[str] = field(default_factory=list)
    per_game: list[dict[str, Any]] = field(default_factory=list)
    overviews: list[GameOverview] = field(default_factory=list)
    validity: dict[str, Any] = field(default_factory=lambda: run_validity([]))  # merged as games come
    incomplete: list[str] = field(default_factory=list)
    config: dict[str, Any] | None = None
    mixed: list[str] = field(default_factory=list)
    seeds: list[int] = field(default_factory=list)
    lineups: set[str] = field(default_factory=set)
    # Baselines the run's own games can stand for: the first of its games played by that policy alone.
    own_baselines: dict[str, RunAggregator] = field(default_factory=dict)
    own_baseline_paths: dict[str, list[Path]] = field(default_factory=dict)
    # Per available labeler: its coverage so far, its file's error, or None for the figures' own labeler
    # (whose coverage is the figures' ``claims_coverage``).
    coverage_by_labeler: dict[str, ClaimsCoverage | dict[str, Any] | None] = field(default_factory=dict)
    game_images: dict[str, dict[str, str]] = field(default_factory=dict)

    @property
    def games(self) -> int:
        return len(self.names)


GamePage = Callable[[GameRecord, str, dict[str, str]], None]
GamePlots = Callable[[GameRecord, str], dict[str, str]]


def read_run(
    paths: list[Path],
    run_dir: Path,
    labeler: str,
    out_dir: Path,
    baselines: tuple[str, ...],
    baseline_games: int,
    game_page: GamePage,
    game_plots: GamePlots | None,
    max_game_plots: int,
    on_game: Callable[[], None] | None = None,
    untrusted: frozenset[str] = frozenset(),
) -> RunPass:
    """Read every log once (see the module docstring). The tables are written to ``out_dir / "tables"``
    only when some game finished; raises ``ValueError`` (and writes nothing) when none did. ``on_game`` is
    called after each log (a progress bar's). ``untrusted``: logs known not to replay (a report told to
    include them anyway): one whose records cannot be read as a game is left out like an unfinished one."""
    run = RunPass(RunLabeling(run_dir, labeler))  # an unreadable labels file: raised before any log is read
    others: list[tuple[RunLabeling, ClaimsCoverage]] = []
    for name in available_labelers(run_dir):
        if name == labeler:
            run.coverage_by_labeler[name] = None
            continue
        try:
            other = RunLabeling(run_dir, name)
        except LabelsError as exc:  # another labeler's broken file does not stop this report: it is shown
            run.coverage_by_labeler[name] = {"labeler": name, "error": str(exc)}
            continue
        run.coverage_by_labeler[name] = coverage = ClaimsCoverage()
        others.append((other, coverage))
    limit = max(0, baseline_games)
    tables: TableWriter | None = None

    def read_game(path: Path) -> None:
        """One log, start to end: its locals (the game) are gone before the next log is read."""
        nonlocal tables
        raw = read_log(path)
        try:
            logged = GameRecord.from_events(raw, source=str(path))
        except (KeyError, TypeError, ValueError, IndexError, AttributeError):
            if str(path) not in untrusted:
                raise
            run.incomplete.append(str(path))  # a hand-edited log the records do not make a game of
            return
        if not logged.complete:
            run.incomplete.append(str(path))
            return
        # Over the same games as the figures, so counts reconcile; a merged total merges like a game.
        run.validity = run_validity([run.validity, game_validity(raw)])
        del raw
        record = run.labeling.apply(logged)
        for other, coverage in others:
            coverage.add(other.apply(logged))
        name = path.stem
        rows = record.rows(game=name)
        if tables is None:
            out_dir.mkdir(parents=True, exist_ok=True)
            tables = TableWriter(out_dir / "tables")
        tables.write(rows)
        _add_game(run, record, rows, name, path, baselines, limit)
        images = {}
        if game_plots is not None and run.games <= max_game_plots:
            images = run.game_images[name] = game_plots(record, name)
        game_page(record, name, images)

    try:
        for path in paths:
            read_game(path)
            if on_game is not None:
                on_game()
        if tables is None:
            raise ValueError(f"none of the {len(paths)} logs in {run_dir} holds a finished game")
    except BaseException:
        if tables is not None:
            tables.discard()
        raise
    tables.close()
    return run


def _add_game(
    run: RunPass,
    record: GameRecord,
    rows: dict[str, list[dict[str, Any]]],
    name: str,
    path: Path,
    baselines: tuple[str, ...],
    limit: int,
) -> None:
    run.totals.add(record, rows)
    run.names.append(name)
    run.per_game.append(rows["games"][0])
    run.overviews.append(GameOverview.of(record))
    if run.config is None:
        run.config = record.config
    elif record.config != run.config:
        run.mixed.append(str(path))
    if record.seed is not None and len(run.seeds) < limit:
        run.seeds.append(int(record.seed))
    run.lineups.add("+".join(sorted(set(record.policies))))
    for kind in baselines:
        if set(record.policies) == {kind} and len(run.own_baseline_paths.setdefault(kind, [])) < limit:
            run.own_baseline_paths[kind].append(path)
            run.own_baselines.setdefault(kind, RunAggregator()).add(record, rows)
