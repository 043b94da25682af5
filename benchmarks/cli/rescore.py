"""``werewolf-bench rescore RUN_DIR --labeler L``: the run's self/peer analyses again, by another labeler.

Writes RUN_DIR/rescore/<labeler>/ (or ``--out``: a new folder, or one an earlier rescore wrote, which
holds its ``rescore.json``; a folder of other files is refused, exit 2). A model labeler passes the gate of
every model-calling command: the preflight (exit 2, nothing written), the circuit breaker (exit 3: the
games rescored so far are kept, no report) and ``--max-fallback-rate`` over the labeler's analyses (exit
4, after the report). The codes are in ``werewolf_deception.benchmarks.console.exit_codes``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import time
from pathlib import Path
from typing import Any

from werewolf_deception.agents.llm import EndpointDownError
from werewolf_deception.benchmarks.cli.report import fmt_value
from werewolf_deception.benchmarks.console import (
    EXIT_BAD_OPTIONS,
    EXIT_FAILED_GAMES,
    EXIT_INVALID,
    Bar,
    apply_overrides,
    check_run_flags,
    llm_overrides,
    track,
)
from werewolf_deception.benchmarks.report import build_report, load_records
from werewolf_deception.benchmarks.runs import RunFolderError, check_out_folder, find_logs, preflight_gate, stopped
from werewolf_env.analysis.metrics import aggregate

MARKER = "rescore.json"  # what a rescore writes first in its folder: a later rescore may write there again


def rescore_command(args: argparse.Namespace) -> int:
    from werewolf_deception.benchmarks.labels import RescoredGame, labeler_lineup, rescore_run, slug

    try:
        check_run_flags(args)
        lineup, label = labeler_lineup(args.labeler, args.base_url)
        lineup = apply_overrides(lineup, llm_overrides(args))
        sections = lineup.llm_sections()
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_BAD_OPTIONS
    if not find_logs(args.run_dir):
        print(f"error: no game logs in {args.run_dir}", file=sys.stderr)
        return EXIT_BAD_OPTIONS
    out = args.out or args.run_dir / "rescore" / slug(label)
    try:
        check_out_folder(Path(out), "--out", (MARKER,))
    except RunFolderError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_BAD_OPTIONS
    probed = preflight_gate(sections, args)
    if isinstance(probed, int):
        return probed
    Path(out).mkdir(parents=True, exist_ok=True)
    # The rate this folder is judged by (its report now, a later ``report`` of it): this command's.
    marker = {"source": str(args.run_dir), "labeler": label, "max_fallback_rate": args.max_fallback_rate}
    (Path(out) / MARKER).write_text(json.dumps(marker) + "\n")
    started = time.perf_counter()
    with Bar("rescore", len(find_logs(args.run_dir))) as bar:
        skipped = 0

        def done_one(game: RescoredGame) -> None:
            nonlocal skipped
            skipped += game.error is not None
            bar.advance(skipped=skipped)

        cache = None if args.no_cache or not sections else Path(out) / "llm-cache"
        try:
            games = asyncio.run(
                rescore_run(
                    args.run_dir, lineup, out, args.concurrency, on_game=done_one, breaker=args.breaker, cache_dir=cache
                )
            )
        except EndpointDownError as exc:
            bar.finish()
            return stopped("rescore", exc, f"the games rescored so far are kept in {out}, no report was written")
    failed = [g for g in games if g.error]
    done = [g for g in games if not g.error]
    print(
        f"rescored {len(done)} games with labeler {label} in {time.perf_counter() - started:.1f}s: "
        f"{sum(g.analyses for g in done)} analyses; {len(failed)} skipped"
    )
    for game in failed:
        print(f"  skipped {game.source}: {game.error}")
    if not done:
        return EXIT_FAILED_GAMES
    document = build_report(
        out,
        baseline_games=0,
        plots=not args.no_plots,
        title=f"Werewolf deception report: {args.run_dir}, labels by {label}",
        progress=True,
        max_fallback_rate=args.max_fallback_rate,
    )
    from werewolf_deception.benchmarks.runs import common_answers, format_coverage

    # Both sides over the same games; the comparison only on analyses answered under both labelings, so
    # a labeler whose server failed is neither scored 0 nor compared on a different subset.
    new_logs, old_logs = find_logs(out), find_logs(args.run_dir)
    with Bar("comparison", len(new_logs) + len(old_logs), unit="logs", leave=False) as bar:
        rescored = [r for r in load_records(track(new_logs, bar)) if r.complete]
        names = {Path(r.source or "").name for r in rescored}
        originals = [r for r in load_records(track(old_logs, bar)) if r.complete and Path(r.source or "").name in names]
    first, second = aggregate(originals, resamples=0), document["metrics"]
    paired = [aggregate(side, resamples=0)["detective"]["by_role"] for side in common_answers(originals, rescored)]
    print(
        f"  analyses: original labels {format_coverage(first['totals']['analysis_coverage'])}; labels by "
        f"{label} {format_coverage(second['totals']['analysis_coverage'])}"
    )
    print(f"  detection by observer role, original labels -> labels by {label}, on the analyses answered under both:")
    for role in sorted(set(paired[0]) | set(paired[1])):
        before, after = paired[0].get(role, {}), paired[1].get(role, {})
        coverages = (
            f"original {format_coverage(first['detective']['by_role'].get(role, {}).get('coverage'))}, "
            f"new {format_coverage(second['detective']['by_role'].get(role, {}).get('coverage'))}, "
            f"compared on {after.get('coverage', {}).get('answered', 0)}"
        )
        if after.get("no_valid_predictions", True):
            print(f"    {role:<9} no valid predictions; {coverages}")
            continue
        print(
            f"    {role:<9} F1 {fmt_value(before.get('f1'))} -> {fmt_value(after['f1'])}, "
            f"precision {fmt_value(before.get('precision'))} -> {fmt_value(after['precision'])}, "
            f"recall {fmt_value(before.get('recall'))} -> {fmt_value(after['recall'])}; {coverages}"
        )
    print(f"  new labels: {out / 'tables' / 'analyses.csv'}   report: {out / 'report.html'}")
    invalid = labeler_fallbacks(done, {spec.label() for _section, spec in sections}, args.max_fallback_rate)
    if invalid is not None:
        print(invalid, file=sys.stderr)
        return EXIT_INVALID
    return 0 if not failed else EXIT_FAILED_GAMES


def labeler_fallbacks(done: list[Any], labels: set[str], max_rate: float) -> str | None:
    """What makes the rescore no measurement: a model labeler whose analyses fell back more than ``max_rate``."""
    if not labels:
        return None
    from werewolf_deception.benchmarks.runs import run_validity

    policies = run_validity([g.log_path for g in done])["policies"]
    for label in sorted(labels & set(policies)):
        rate = policies[label]["overall"]["fallback_rate"]
        if rate is not None and rate > max_rate:
            return (
                f"INVALID RESCORE: the labeler {label} fell back on {rate:.0%} of its analyses, more than "
                f"--max-fallback-rate {max_rate:.0%}: its labels do not measure the model."
            )
    return None
