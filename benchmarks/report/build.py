"""``werewolf-bench report RUN_DIR``: metrics, tidy tables, plots and an offline HTML report of a run.

    werewolf-bench report runs/demo
    werewolf-bench report runs/demo --labeler llm     # the LLM labeler's claims and lies: runs/demo/report-llm/
    build_report("runs/demo")                 # the same from Python; returns the metrics dict

Reads every game log of the run (``RUN_DIR/games/*.ndjson``, or ``RUN_DIR/*.ndjson``) once, one game
at a time (``benchmarks/report/stream.py``: memory does not grow with the games' size, only by a few
kilobytes per game), and writes into ``RUN_DIR`` (or ``--out``).
With ``--labeler llm`` or ``union`` the claims and lie labels come from
``RUN_DIR/claims/<labeler>.ndjson`` (``werewolf-bench relabel``; see ``benchmarks/labels/run_labels.py``:
a statement that labeler could not label is left out of every lie-based figure and counted), and the
report goes to ``RUN_DIR/report-<labeler>/`` (or ``--out``), so the regex report is never overwritten.
``metrics.json`` says which labeler it rests on (``labeler``), how many statements it left unlabelled
(``unlabelled``), and the ground truth's coverage for every labeler the run has a file of
(``claims_coverage_by_labeler``: ``werewolf_env.analysis.coverage``); so does the HTML report.

- ``metrics.json``: schema-versioned figures over all games with 95% intervals, by role, team and
  policy, next to the same figures for random and heuristic lineups under the same rules and seeds
  (``baselines``), plus one row per game, and ``validity``: how many answers per policy and action
  kind were the agents' own (``benchmarks/runs/validity.py``), and ``tokens``: LLM calls and prompt / cached /
  completion tokens by call kind and model, how each model's were counted, and their cost at the prices in
  the run's lineup (``benchmarks/report/tokens.py``). Detection figures count answered analyses
  only and carry their ``coverage`` (see ``werewolf_env/analysis/metrics.py``);
- ``tables/{games,players,statements,analyses,votes,polls}.csv``: tidy tables, one row per unit
  (``pandas.read_csv`` loads them as they are; ``benchmarks/report/tables.py``);
- ``plots/*.png`` (needs the ``report`` extra: matplotlib);
- ``report.html`` and ``viewer/<game>.html``: pages that open offline in a browser.

Baseline games are played once with the run's config and the seeds of its first games
(``--baseline-games``, default 50) and kept in ``RUN_DIR/baselines/<lineup>/games``. They keep their
own logs' labels (regex; their ``metrics.labeler`` says so), except a baseline made of the run's own
games (a heuristic run's heuristic baseline), which carries the run's labeler; when every game of the run
is that lineup's, the baseline is the lineup itself (``lineup_itself``) and the printed summary and the
pages name it once instead of repeating the run's figures as its own.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from types import ModuleType
from typing import Any, Literal, cast

from werewolf_deception.benchmarks.console import DEFAULT_MAX_FALLBACK_RATE, Bar, is_rate, one_line_verdict, track
from werewolf_deception.benchmarks.labels import (
    DEFAULT_LABELER,
    LabelsError,
    labels_path,
    missing_labels_message,
)
from werewolf_deception.benchmarks.report import html_report
from werewolf_deception.benchmarks.report.stream import RunPass, read_run
from werewolf_deception.benchmarks.report.tables import TABLES, write_tables
from werewolf_deception.benchmarks.report.tokens import priced, run_prices
from werewolf_deception.benchmarks.runs import MAX_RUN_FILE_DEPTH, find_logs, game_validity, natural_key
from werewolf_env import GameConfig, __version__
from werewolf_env.analysis import METRICS_SCHEMA_VERSION, ClaimsCoverage, GameRecord
from werewolf_env.analysis.metrics import aggregate
from werewolf_env.core import loads_bounded
from werewolf_env.engine import read_log, replay
from werewolf_env.record import Price

BASELINES = ("heuristic", "random")
__all__ = [
    "BASELINES", "TABLES", "UnverifiedLogsError", "baseline_logs", "baseline_records", "build_report", "find_logs",
    "load_records", "load_run", "natural_key", "report_dir", "unverified_logs", "write_tables",
]  # fmt: skip
Verify = Literal["refuse", "mark"]


class UnverifiedLogsError(ValueError):
    """Logs that do not replay as whole, identical games, and a report that was told to refuse them."""


def iter_records(paths: Iterable[Path]) -> Iterator[GameRecord]:
    """Each log's record, read when asked for (one game in memory at a time)."""
    for path in paths:
        yield GameRecord.from_events(read_log(path), source=str(path))


def load_records(paths: Iterable[Path]) -> list[GameRecord]:
    """Every log's record in memory at once (the report streams them instead: ``iter_records``)."""
    return list(iter_records(paths))


def load_run(paths: list[Path]) -> tuple[list[GameRecord], list[dict[str, Any]]]:
    """Each log's record and its answer validity, reading every log once (all in memory)."""
    records, validity = [], []
    for path in paths:
        raw = read_log(path)
        records.append(GameRecord.from_events(raw, source=str(path)))
        validity.append(game_validity(raw))
    return records, validity


def missing_baselines(run_dir: Path, seeds: list[int], kind: str) -> list[int]:
    """The seeds whose baseline game by ``kind`` is not played yet (no log, or an unfinished one)."""
    folder = run_dir / "baselines" / kind / "games"
    wanted = {seed: folder / f"game-00000-seed{seed}.ndjson" for seed in seeds}
    return [s for s, p in wanted.items() if not p.is_file() or not GameRecord.from_events(read_log(p)).complete]


def baseline_logs(
    run_dir: Path,
    config: dict[str, Any],
    seeds: list[int],
    kind: str,
    missing: list[int] | None = None,
    on_game: Callable[[], None] | None = None,
) -> list[Path]:
    """The logs of the same rules and seeds played by one model-free lineup, in seed order (played when
    missing or unfinished, and kept in ``RUN_DIR/baselines/<kind>/games``). ``missing``: those seeds, when
    already known (``missing_baselines``); ``on_game`` is called as each one has been played."""
    from werewolf_deception.agents import play_game

    folder = run_dir / "baselines" / kind / "games"
    wanted = {seed: folder / f"game-00000-seed{seed}.ndjson" for seed in seeds}
    if missing is None:
        missing = missing_baselines(run_dir, seeds, kind)
    game_config = GameConfig.model_validate(config)

    async def play_missing() -> None:
        limit = asyncio.Semaphore(8)

        async def one(seed: int) -> None:
            async with limit:  # a fresh env per game writes game-00000-seed<seed>.ndjson, over any half-written one
                await play_game(game_config, kind, seed, log_dir=folder)
            if on_game is not None:
                on_game()

        await asyncio.gather(*(one(s) for s in missing))

    if missing:
        asyncio.run(play_missing())
    return [wanted[seed] for seed in seeds]


def baseline_records(
    run_dir: Path, config: dict[str, Any], seeds: list[int], kind: str, quiet: bool = True
) -> list[GameRecord]:
    """``baseline_logs``' records, all in memory (the report streams them)."""
    return load_records(baseline_logs(run_dir, config, seeds, kind))


def unverified_logs(paths: Iterable[Path], on_log: Callable[[], None] | None = None) -> dict[str, str]:
    """Each log whose events do not replay identically (hand-edited, or written by another version of the
    claim reader) or that is no game log, with its verdict; ``on_log`` is called after each log (a progress
    bar's). A log that ends cleanly before its game did and matches as far as it goes (a run interrupted or
    stopped by its breaker, which the same command resumes) is not among them: the report leaves it out as
    unfinished, as it always has. A log with a damaged line (cut mid-write, nested too deep) is."""
    found = {}
    for path in paths:
        result = replay(path)
        if not result.ok and not (result.matches and result.stopped_early):
            found[str(path)] = one_line_verdict(result)
        if on_log is not None:
            on_log()
    return found


def refusal(unverified: dict[str, str], logs: int, run_dir: Path) -> str:
    """Why the report refuses the run: how many logs do not replay, the first with its verdict, what to do."""
    first, verdict = next(iter(unverified.items()))
    more = f"; and {len(unverified) - 1} more" if len(unverified) > 1 else ""
    return (
        f"{len(unverified)} of {logs} logs do not replay as identical games ({first}: {verdict}{more}); "
        "nothing was written. A log differs when it was edited, or written by another version of the claim "
        f"reader; werewolf-bench replay {run_dir} says where; --allow-unverified reports them anyway, "
        "marked"
    )


def report_dir(run_dir: str | Path, out: str | Path | None = None, labeler: str = DEFAULT_LABELER) -> Path:
    """Where a report goes: ``out``, else the run folder (regex) or ``RUN_DIR/report-<labeler>``."""
    if out is not None:
        return Path(out)
    return Path(run_dir) if labeler == DEFAULT_LABELER else Path(run_dir) / f"report-{labeler}"


def build_report(
    run_dir: str | Path,
    out: str | Path | None = None,
    baselines: tuple[str, ...] = BASELINES,
    baseline_games: int = 50,
    resamples: int = 1000,
    plots: bool = True,
    max_game_plots: int = 8,
    title: str | None = None,
    labeler: str = DEFAULT_LABELER,
    progress: bool = False,
    verify: Verify | None = None,
    max_fallback_rate: float | None = None,
) -> dict[str, Any]:
    """Write metrics.json, tables, plots, report.html and the per-game viewer pages; return the metrics.

    ``labeler``: whose claims and lie labels the figures rest on (raises ``claim_labels.LabelsError`` when its file
    is missing or unreadable). ``progress``: a bar on stderr for each stage (the logs read, the baselines played and
    scored, the plots and pages; ``werewolf_deception.benchmarks.console.progress``), erased when it is done.
    ``verify``: replay every log first (``unverified_logs``); "refuse" raises ``UnverifiedLogsError`` before anything
    is written when one does not replay identically, "mark" reports every log it can read as a finished game (what
    cannot be read as one is left out) and lists them all in ``run.unverified_logs``. None: the caller has replayed
    them (``run`` and ``tournament`` check each game they play). ``max_fallback_rate``: the share of a policy's
    actions played by fallbacks over which the report calls the run invalid; None: the one the run was judged by
    (``judged_fallback_limit``), else ``DEFAULT_MAX_FALLBACK_RATE``. ``run.max_fallback_rate`` in the metrics says
    which, and ``run.max_fallback_rate_from`` where it came from ("command": this argument, a file of
    ``JUDGED_IN``, or "default")."""
    run_dir = Path(run_dir)
    if max_fallback_rate is not None and not is_rate(max_fallback_rate):
        raise ValueError(f"max_fallback_rate must be a number between 0 and 1 (got {max_fallback_rate!r})")
    out_dir = report_dir(run_dir, out, labeler)
    if labeler != DEFAULT_LABELER and not labels_path(run_dir, labeler).is_file():
        raise LabelsError(missing_labels_message(run_dir, labeler))  # before reading any log
    prices = run_prices(run_dir)  # a manifest that cannot be read is refused before anything is written
    paths = find_logs(run_dir)
    if not paths:
        raise FileNotFoundError(f"no game logs (*.ndjson) in {run_dir} or {run_dir / 'games'}")
    unverified: dict[str, str] | None = None
    if verify is not None:
        with Bar("replay check", len(paths), unit="logs", quiet=not progress, leave=False) as bar:
            unverified = unverified_logs(paths, on_log=bar.advance)
        if unverified and verify == "refuse":
            raise UnverifiedLogsError(refusal(unverified, len(paths), run_dir))
    plotting: ModuleType | None = None
    plot_note = None
    if plots:
        try:
            from werewolf_deception.benchmarks.report import plots as plotting
        except ImportError:
            plot_note = "plots need matplotlib: pip install 'werewolf-deception[report]'"

    def game_page(record: GameRecord, name: str, images: dict[str, str]) -> None:
        html_report.write_viewer_pages([record], [name], out_dir / "viewer", {name: images})

    def game_plots(record: GameRecord, name: str) -> dict[str, str]:
        assert plotting is not None
        return plotting.game_plots(record, name, out_dir / "plots" / "games")

    with Bar("report", len(paths), unit="logs", quiet=not progress, leave=False) as bar:
        run = read_run(
            paths,
            run_dir,
            labeler,
            out_dir,
            baselines,
            baseline_games,
            game_page,
            game_plots if plotting is not None else None,
            max_game_plots,
            on_game=bar.advance,
            untrusted=frozenset(unverified or ()),
        )
    found = _baselines(run, run_dir, baselines, resamples, progress)  # each bootstrap has its own seeded generator
    # The run pages read a few attributes of each game (GameOverview's docstring): its overview stands in
    # for the record, so no page needs every game in memory.
    overviews = cast("list[GameRecord]", run.overviews)
    steps = 3 if plotting is not None else 2  # the figures' intervals, the plots, the pages
    with Bar("report figures", steps, unit="steps", quiet=not progress, leave=False) as bar:
        metrics = run.totals.result(resamples=resamples)
        document = _document(run, run_dir, labeler, metrics, found, resamples, prices)
        limit, limit_from = (
            (max_fallback_rate, "command") if max_fallback_rate is not None else judged_fallback_limit(run_dir)
        )
        document["run"].update(max_fallback_rate=limit, max_fallback_rate_from=limit_from)
        if unverified is not None:  # only when checked here: "none" would otherwise read as "checked, all fine"
            document["run"]["unverified_logs"] = unverified
        (out_dir / "metrics.json").write_text(json.dumps(document, indent=1, allow_nan=False) + "\n", encoding="utf-8")
        bar.advance()
        images: dict[str, str] = {}
        if plotting is not None:
            images = plotting.run_plots(document, overviews, out_dir / "plots")
            bar.advance()
        html_report.write_report(document, run.names, overviews, images, out_dir / "report.html", title, plot_note)
        bar.advance()
    return document


# Where a folder says which --max-fallback-rate judged it: a run's summary, a tournament's result, a rescore's marker.
JUDGED_IN = ("summary.json", "tournament.json", "rescore.json")


def judged_fallback_limit(run_dir: Path) -> tuple[float, str]:
    """The ``--max-fallback-rate`` the command that played ``run_dir`` judged it by, and the file that says so
    (``JUDGED_IN``); ``(DEFAULT_MAX_FALLBACK_RATE, "default")`` for a folder of logs, or one whose file holds no
    readable rate (a run folder's files are never trusted blindly)."""
    for name in JUDGED_IN:
        try:
            data = loads_bounded((run_dir / name).read_text(encoding="utf-8"), MAX_RUN_FILE_DEPTH)
        except (OSError, ValueError):  # missing, unreadable, not JSON, nested too deep
            continue
        rate = data.get("max_fallback_rate") if isinstance(data, dict) else None
        if is_rate(rate):
            return abs(float(rate)), name  # abs: -0.0 is 0
    return DEFAULT_MAX_FALLBACK_RATE, "default"


def _baselines(
    run: RunPass, run_dir: Path, kinds: tuple[str, ...], resamples: int, progress: bool = False
) -> dict[str, dict[str, Any]]:
    """Per lineup: the run's own games played by it alone when there are enough, else games played
    (or cached) with the run's config and the seeds of its first games; none when configs are mixed.

    ``progress``: a bar over the baseline games to play, then to score (each lineup's ``len(seeds)``)."""
    seeds = run.seeds
    if not seeds or run.mixed or run.config is None:
        return {}
    config = run.config
    own_kinds = {kind for kind in kinds if len(run.own_baseline_paths.get(kind, [])) >= len(seeds)}
    missing = {kind: missing_baselines(run_dir, seeds, kind) for kind in kinds if kind not in own_kinds}
    total = sum(len(m) for m in missing.values()) + len(kinds) * len(seeds)
    out: dict[str, dict[str, Any]] = {}
    with Bar("baselines", total, unit="games", quiet=not progress, leave=False) as bar:
        for kind in kinds:
            if kind in own_kinds:
                own = run.own_baseline_paths[kind]
                totals = run.own_baselines[kind]
                # Fed up to --baseline-games of them; fewer seeds (logs without one): the first len(seeds) again.
                if totals.games == len(seeds):
                    metrics = totals.result(resamples)
                    bar.advance(len(seeds))
                else:
                    metrics = aggregate(
                        (run.labeling.relabel(r) for r in track(iter_records(own[: len(seeds)]), bar)), resamples
                    )
            else:
                logs = baseline_logs(run_dir, config, seeds, kind, missing[kind], on_game=bar.advance)
                metrics = aggregate(track(iter_records(logs), bar), resamples)
            out[kind] = {"games": len(seeds), "seeds": seeds, "metrics": metrics}
            if kind in own_kinds and run.lineups == {kind}:  # every game of the run is this lineup's: named once
                out[kind] = {**out[kind], "lineup_itself": True}
    return out


def _document(
    run: RunPass,
    run_dir: Path,
    labeler: str,
    metrics: dict[str, Any],
    baselines: dict[str, Any],
    resamples: int,
    prices: dict[str, Price],
) -> dict[str, Any]:
    coverage_by_labeler: dict[str, Any] = {}
    for name, coverage in run.coverage_by_labeler.items():
        if coverage is None:  # the figures' own labeler
            coverage_by_labeler[name] = metrics["claims_coverage"]
        elif isinstance(coverage, ClaimsCoverage):
            coverage_by_labeler[name] = coverage.result(resamples)
        else:
            coverage_by_labeler[name] = coverage
    return {
        "schema_version": METRICS_SCHEMA_VERSION,
        "generated_by": f"werewolf-deception {__version__}",
        "labeler": labeler,
        "unlabelled": run.labeling.summary(),
        "claims_coverage_by_labeler": coverage_by_labeler,
        "run": {
            "dir": str(run_dir),
            "games": run.games,
            "incomplete_logs": run.incomplete,
            "lineups": sorted(run.lineups),
            "config": run.config,
            "mixed_configs": run.mixed,
        },
        "validity": run.validity,
        # LLM calls and tokens by call kind and model, how they were counted, and their cost at the run's prices.
        "tokens": priced(metrics["totals"].get("tokens") or {}, prices, games=run.games),
        "metrics": metrics,
        "baselines": baselines,
        "per_game": run.per_game,
    }
