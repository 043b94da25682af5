"""``werewolf-bench report RUN_DIR``: metrics, tidy tables, plots and an offline HTML report of a run.

    werewolf-bench report runs/demo
    werewolf-bench report runs/demo --labeler llm     # the LLM labeler's claims and lies: runs/demo/report-llm/
    build_report("runs/demo")                 # the same from Python; returns the metrics dict

Reads every game log of the run (``RUN_DIR/games/*.ndjson``, or ``RUN_DIR/*.ndjson``) and writes
into ``RUN_DIR`` (or ``--out``). With ``--labeler llm`` or ``union`` the claims and lie labels come from
``RUN_DIR/claims/<labeler>.ndjson`` (``werewolf-bench relabel``; see ``benchmarks/claim_labels.py``:
a statement that labeler could not label is left out of every lie-based figure and counted), and the
report goes to ``RUN_DIR/report-<labeler>/`` (or ``--out``), so the regex report is never overwritten.
``metrics.json`` says which labeler it rests on (``labeler``), how many statements it left unlabelled
(``unlabelled``), and the ground truth's coverage for every labeler the run has a file of
(``claims_coverage_by_labeler``: ``werewolf_env.claims_coverage``); so does the HTML report.

- ``metrics.json``: schema-versioned figures over all games with 95% intervals, by role, team and
  policy, next to the same figures for random and heuristic lineups under the same rules and seeds
  (``baselines``), plus one row per game, and ``validity``: how many answers per policy and action
  kind were the agents' own (``benchmarks/validity.py``). Detection figures count answered analyses
  only and carry their ``coverage`` (see ``werewolf_env/metrics.py``);
- ``tables/{games,players,statements,analyses,votes}.csv``: tidy tables, one row per unit
  (``pandas.read_csv`` loads them as they are);
- ``plots/*.png`` (needs the ``report`` extra: matplotlib);
- ``report.html`` and ``viewer/<game>.html``: pages that open offline in a browser.

Baseline games are played once with the run's config and the seeds of its first games
(``--baseline-games``, default 50) and kept in ``RUN_DIR/baselines/<lineup>/games``. They keep their
own logs' labels (regex; their ``metrics.labeler`` says so), except a baseline made of the run's own
games (a heuristic run's heuristic baseline), which carries the run's labeler.
"""

from __future__ import annotations

import asyncio
import csv
import json
from pathlib import Path
from typing import Any

from werewolf_env import GameConfig, __version__
from werewolf_env.claims_coverage import claims_coverage
from werewolf_env.log import read_log
from werewolf_env.metrics import METRICS_SCHEMA_VERSION, GameRecord, aggregate

from . import html_report
from .claim_labels import (
    DEFAULT_LABELER,
    LabelsError,
    available_labelers,
    labels_path,
    load_labeling,
    missing_labels_message,
)
from .validity import game_validity, run_validity

BASELINES = ("heuristic", "random")
TABLES = ("games", "players", "statements", "analyses", "votes")


def find_logs(run_dir: str | Path) -> list[Path]:
    """The run's game logs: ``RUN_DIR/games/*.ndjson`` if that folder exists, else ``RUN_DIR/*.ndjson``."""
    run_dir = Path(run_dir)
    folder = run_dir / "games" if (run_dir / "games").is_dir() else run_dir
    return sorted(folder.glob("*.ndjson"))


def load_records(paths: list[Path]) -> list[GameRecord]:
    return [GameRecord.from_events(read_log(p), source=str(p)) for p in paths]


def load_run(paths: list[Path]) -> tuple[list[GameRecord], list[dict[str, Any]]]:
    """Each log's record and its answer validity, reading every log once."""
    records, validity = [], []
    for path in paths:
        raw = read_log(path)
        records.append(GameRecord.from_events(raw, source=str(path)))
        validity.append(game_validity(raw))
    return records, validity


def write_tables(records: list[GameRecord], folder: Path, names: list[str] | None = None) -> dict[str, Path]:
    """One CSV per unit; ``game`` is the log's file stem, so rows join across tables."""
    folder.mkdir(parents=True, exist_ok=True)
    names = names or [Path(r.source).stem if r.source else str(i) for i, r in enumerate(records)]
    rows: dict[str, list[dict[str, Any]]] = {t: [] for t in TABLES}
    for name, record in zip(names, records, strict=True):
        for table, part in record.rows(game=name).items():
            rows[table].extend(part)
    paths = {}
    for table, part in rows.items():
        path = folder / f"{table}.csv"
        columns: dict[str, None] = {}
        for row in part:
            columns.update(dict.fromkeys(row))
        with path.open("w", newline="", encoding="utf-8") as f:
            writer = csv.DictWriter(f, fieldnames=list(columns), extrasaction="ignore")
            writer.writeheader()
            for row in part:
                writer.writerow({k: "" if v is None else v for k, v in row.items()})
        paths[table] = path
    return paths


def baseline_records(
    run_dir: Path, config: dict[str, Any], seeds: list[int], kind: str, quiet: bool = True
) -> list[GameRecord]:
    """The same rules and seeds played by one model-free lineup (cached in ``RUN_DIR/baselines``)."""
    from agents import play_game

    folder = run_dir / "baselines" / kind / "games"
    wanted = {seed: folder / f"game-00000-seed{seed}.ndjson" for seed in seeds}
    records = []
    missing = [s for s, p in wanted.items() if not p.is_file() or not GameRecord.from_events(read_log(p)).complete]
    game_config = GameConfig.model_validate(config)

    async def play_missing() -> None:
        limit = asyncio.Semaphore(8)

        async def one(seed: int) -> None:
            async with limit:  # a fresh env per game writes game-00000-seed<seed>.ndjson, over any half-written one
                await play_game(game_config, kind, seed, log_dir=folder)

        await asyncio.gather(*(one(s) for s in missing))

    if missing:
        asyncio.run(play_missing())
    for seed in seeds:
        records.append(GameRecord.from_events(read_log(wanted[seed]), source=str(wanted[seed])))
    return records


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
) -> dict[str, Any]:
    """Write metrics.json, tables, plots, report.html and the per-game viewer pages; return the metrics.

    ``labeler``: whose claims and lie labels the figures rest on (raises ``claim_labels.LabelsError``
    when its file is missing or unreadable)."""
    run_dir = Path(run_dir)
    out_dir = report_dir(run_dir, out, labeler)
    if labeler != DEFAULT_LABELER and not labels_path(run_dir, labeler).is_file():
        raise LabelsError(missing_labels_message(run_dir, labeler))  # before reading any log
    paths = find_logs(run_dir)
    if not paths:
        raise FileNotFoundError(f"no game logs (*.ndjson) in {run_dir} or {run_dir / 'games'}")
    all_records, all_validity = load_run(paths)
    records = [r for r in all_records if r.complete]
    # Validity over the same games as the figures, so its counts reconcile with the totals.
    validity = run_validity([v for r, v in zip(all_records, all_validity, strict=True) if r.complete])
    incomplete = [r.source for r in all_records if not r.complete]
    if not records:
        raise ValueError(f"none of the {len(paths)} logs in {run_dir} holds a finished game")
    logged = records
    records, unlabelled = load_labeling(logged, run_dir, labeler)
    out_dir.mkdir(parents=True, exist_ok=True)
    names = [Path(r.source).stem for r in records]  # type: ignore[arg-type]
    write_tables(records, out_dir / "tables", names)
    metrics = aggregate(records, resamples=resamples)
    coverage_by_labeler: dict[str, Any] = {}
    for name in available_labelers(run_dir):
        if name == labeler:
            coverage_by_labeler[name] = metrics["claims_coverage"]
            continue
        try:
            coverage_by_labeler[name] = claims_coverage(load_labeling(logged, run_dir, name)[0], resamples)
        except LabelsError as exc:  # another labeler's broken file does not stop this report: it is shown
            coverage_by_labeler[name] = {"labeler": name, "error": str(exc)}
    config = records[0].config
    mixed = [r.source for r in records if r.config != config]
    seeds = [int(r.seed) for r in records if r.seed is not None][: max(0, baseline_games)]
    baseline_metrics: dict[str, Any] = {}
    if seeds and not mixed:
        for kind in baselines:
            same = [r for r in records if set(r.policies) == {kind}][: len(seeds)]
            played = same if len(same) == len(seeds) else baseline_records(run_dir, config, seeds, kind)
            baseline_metrics[kind] = aggregate(played, resamples=resamples)
    lineups = sorted({"+".join(sorted(set(r.policies))) for r in records})
    document = {
        "schema_version": METRICS_SCHEMA_VERSION,
        "generated_by": f"werewolf-deception {__version__}",
        "labeler": labeler,
        "unlabelled": unlabelled,
        "claims_coverage_by_labeler": coverage_by_labeler,
        "run": {
            "dir": str(run_dir), "games": len(records), "incomplete_logs": incomplete, "lineups": lineups,
            "config": config, "mixed_configs": mixed,
        },
        "validity": validity,
        "metrics": metrics,
        "baselines": {k: {"games": len(seeds), "seeds": seeds, "metrics": m} for k, m in baseline_metrics.items()},
        "per_game": [record.rows(game=name)["games"][0] for name, record in zip(names, records, strict=True)],
    }  # fmt: skip
    (out_dir / "metrics.json").write_text(json.dumps(document, indent=1, allow_nan=False) + "\n", encoding="utf-8")
    images: dict[str, str] = {}
    game_images: dict[str, dict[str, str]] = {}
    plot_note = None
    if plots:
        try:
            from . import plots as plotting
        except ImportError:
            plot_note = "plots need matplotlib: pip install 'werewolf-deception[report]'"
        else:
            images = plotting.run_plots(document, records, out_dir / "plots")
            for name, record in list(zip(names, records, strict=True))[:max_game_plots]:
                game_images[name] = plotting.game_plots(record, name, out_dir / "plots" / "games")
    html_report.write_viewer_pages(records, names, out_dir / "viewer", game_images)
    html_report.write_report(document, names, records, images, out_dir / "report.html", title, plot_note)
    return document
