"""``werewolf-bench rescore RUN_DIR --labeler L``: the run's self/peer analyses again, by another labeler.

Writes RUN_DIR/rescore/<labeler>/ (or ``--out``: a new folder, or one an earlier rescore wrote, which
holds its ``rescore.json``; a folder of other files is refused, exit 2). Exit codes: 0 every game
rescored; 1 some skipped (or none done); 2 bad options or no logs.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import time
from pathlib import Path

from werewolf_env.metrics import aggregate

from .exit_codes import EXIT_BAD_OPTIONS, EXIT_FAILED_GAMES
from .progress import Bar, track
from .report import build_report, find_logs, load_records
from .report_cli import fmt_value
from .run_folder import RunFolderError, check_out_folder

MARKER = "rescore.json"  # what a rescore writes first in its folder: a later rescore may write there again


def rescore_command(args: argparse.Namespace) -> int:
    from .rescore import RescoredGame, labeler_lineup, rescore_run, slug

    try:
        lineup, label = labeler_lineup(args.labeler, args.base_url)
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
    Path(out).mkdir(parents=True, exist_ok=True)
    (Path(out) / MARKER).write_text(json.dumps({"source": str(args.run_dir), "labeler": label}) + "\n")
    started = time.perf_counter()
    with Bar("rescore", len(find_logs(args.run_dir))) as bar:
        skipped = 0

        def done_one(game: RescoredGame) -> None:
            nonlocal skipped
            skipped += game.error is not None
            bar.advance(skipped=skipped)

        games = asyncio.run(rescore_run(args.run_dir, lineup, out, args.concurrency, on_game=done_one))
    failed = [g for g in games if g.error]
    done = [g for g in games if not g.error]
    print(f"rescored {len(done)} games with labeler {label} in {time.perf_counter() - started:.1f}s: "
          f"{sum(g.analyses for g in done)} analyses; {len(failed)} skipped")  # fmt: skip
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
    )
    from .validity import common_answers, format_coverage

    # Both sides over the same games; the comparison only on analyses answered under both labelings, so
    # a labeler whose server failed is neither scored 0 nor compared on a different subset.
    new_logs, old_logs = find_logs(out), find_logs(args.run_dir)
    with Bar("comparison", len(new_logs) + len(old_logs), unit="logs", leave=False) as bar:
        rescored = [r for r in load_records(track(new_logs, bar)) if r.complete]
        names = {Path(r.source or "").name for r in rescored}
        originals = [r for r in load_records(track(old_logs, bar)) if r.complete and Path(r.source or "").name in names]
    first, second = aggregate(originals, resamples=0), document["metrics"]
    paired = [aggregate(side, resamples=0)["detective"]["by_role"] for side in common_answers(originals, rescored)]
    print(f"  analyses: original labels {format_coverage(first['totals']['analysis_coverage'])}; labels by "
          f"{label} {format_coverage(second['totals']['analysis_coverage'])}")  # fmt: skip
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
        print(f"    {role:<9} F1 {fmt_value(before.get('f1'))} -> {fmt_value(after['f1'])}, "
              f"precision {fmt_value(before.get('precision'))} -> {fmt_value(after['precision'])}, "
              f"recall {fmt_value(before.get('recall'))} -> {fmt_value(after['recall'])}; {coverages}")  # fmt: skip
    print(f"  new labels: {out / 'tables' / 'analyses.csv'}   report: {out / 'report.html'}")
    return 0 if not failed else EXIT_FAILED_GAMES
