"""``werewolf-bench report RUN [--labeler regex|llm|union]``: the report command and the report's printed lines.

    werewolf-bench report runs/demo                   # the logs' own ground truth (regex): runs/demo/
    werewolf-bench report runs/demo --labeler llm     # runs/demo/claims/llm.ndjson: runs/demo/report-llm/

The report itself is ``benchmarks.report.build_report``; whose claims and lie labels it rests on,
``benchmarks.claim_labels``. Exit codes: 0 written; 2 no logs, no finished game, no readable
labels file for ``--labeler`` (the message names the file and the command that writes it), or an
``--out`` that is a file or a folder of other files (nothing is written there); 5 a file that
cannot be written (the message names it).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from werewolf_env.claims_coverage import format_claims_coverage

from .claim_labels import DEFAULT_LABELER, LABELERS, format_unlabelled
from .exit_codes import EXIT_BAD_OPTIONS
from .report import build_report, report_dir
from .report_tokens import token_lines
from .run_folder import check_out_folder

# What a folder a report may be written into holds: a run, or an earlier report.
REPORT_FOLDERS = ("manifest.json", "metrics.json", "report.html")


def add_report_parser(commands: Any) -> None:
    report = commands.add_parser("report", help="metrics.json, CSV tables, plots and report.html for a run")
    report.add_argument("run_dir", type=Path, help="a run folder (with games/*.ndjson) or a folder of logs")
    report.add_argument(
        "--out", type=Path, help="where to write (default: RUN_DIR; with --labeler llm/union, RUN_DIR/report-<labeler>)"
    )
    report.add_argument(
        "--baseline-games",
        type=int,
        default=50,
        help="games per baseline lineup (random, heuristic) under the same rules and seeds; 0: none",
    )
    report.add_argument("--resamples", type=int, default=1000, help="bootstrap resamples for the 95%% intervals")
    report.add_argument("--no-plots", action="store_true", help="skip the matplotlib plots")
    report.add_argument(
        "--labeler",
        choices=LABELERS,
        default=DEFAULT_LABELER,
        help="whose claims and lie labels: regex (the logs' own, default), or llm / union from RUN_DIR/claims/ "
        "(werewolf-bench relabel)",
    )


def report_command(args: argparse.Namespace) -> int:
    labeler = getattr(args, "labeler", DEFAULT_LABELER)
    try:
        if args.out is not None:
            check_out_folder(args.out, "--out", REPORT_FOLDERS)
        document = build_report(
            args.run_dir, out=args.out, baseline_games=args.baseline_games, resamples=args.resamples,
            plots=not args.no_plots, labeler=labeler,
        )  # fmt: skip
    except (FileNotFoundError, ValueError) as exc:  # claim_labels.LabelsError and RunFolderError are ValueErrors
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_BAD_OPTIONS
    run = document["run"]
    left_out = f" ({len(run['incomplete_logs'])} unfinished logs left out)" if run["incomplete_logs"] else ""
    print(f"werewolf-deception report: {run['games']} games from {args.run_dir}{left_out}; "
          f"claims and lie labels: {labeler} labeler")  # fmt: skip
    unlabelled = format_unlabelled(document["unlabelled"])
    if unlabelled:
        print(f"  {unlabelled}")
    for cov in document["claims_coverage_by_labeler"].values():
        text = f"labeler {cov['labeler']}: {cov['error']}" if "error" in cov else format_claims_coverage(cov)
        print(f"  {text}")
    for line in token_lines(document.get("tokens") or {}):  # ``run`` prints these in its own summary
        print(f"  {line}")
    print_report_lines(document, report_dir(args.run_dir, args.out, labeler))
    return 0


def print_report_lines(document: dict[str, Any], out: Path) -> None:
    """The headline deception figures of a report, next to the baselines, each with the coverage of the
    analyses it rests on (answered / expected): fallback analyses are never predictions."""
    from .validity import format_coverage

    metrics = document["metrics"]
    baselines = {k: v["metrics"] for k, v in sorted(document.get("baselines", {}).items())}

    def versus(section: str, group: str, key: str, name: str) -> str:
        base = []
        for kind, m in baselines.items():
            values = m[section].get(group, {}).get(key, {})
            base.append(f"{kind} {fmt_value(values.get(name), group=values)}")
        return f" ({', '.join(base)})" if base else ""

    analyses = metrics["totals"].get("analysis_coverage")
    if analyses and analyses["answered"] < analyses["expected"]:
        print(f"  analyses: {format_coverage(analyses)}; the figures below count the answered ones only")
    peers = metrics["deceptive"]["all"]["all"]
    caught = peers["undetected_lie_share"]
    if caught["value"] is not None or (peers.get("no_valid_predictions") and peers["coverage"]["expected"]):
        base_groups = {kind: m["deceptive"]["all"]["all"] for kind, m in baselines.items()}
        base = ", ".join(f"{kind} {fmt_value(g['undetected_lie_share'], complement=True, group=g)}"
                         for kind, g in base_groups.items())  # fmt: skip
        print(f"  lies caught by a majority of peers: {fmt_value(caught, ci=True, complement=True, group=peers)}; "
              f"peer analyses {format_coverage(peers['coverage'])}"
              + (f" (baselines: {base})" if base else ""))  # fmt: skip
    print("  detection F1 by observer role (95% CI; analyses answered / expected; baselines under the same rules"
          " and seeds):")  # fmt: skip
    for role, values in metrics["detective"]["by_role"].items():
        coverage = format_coverage(values.get("coverage"))
        if values.get("unlabelled_analyses"):  # answered, but on statements the labeler gave no label
            coverage += f" ({values['unlabelled_analyses']} on unlabelled statements left out)"
        if values.get("no_valid_predictions"):
            print(f"    {role:<9} F1 no valid predictions; {coverage}{versus('detective', 'by_role', role, 'f1')}")
            continue
        print(f"    {role:<9} F1 {fmt_value(values['f1'], ci=True):<22} "
              f"precision {fmt_value(values['precision'])}, recall {fmt_value(values['recall'])}; {coverage}"
              f"{versus('detective', 'by_role', role, 'f1')}")  # fmt: skip
    for line in persuasion_lines(metrics):
        print(f"  {line}")
    print(f"  report: {out / 'report.html'}   metrics: {out / 'metrics.json'}   tables: {out / 'tables'}/")


def persuasion_lines(metrics: dict[str, Any]) -> list[str]:
    """What statements did to the listeners, by the speaker's team, and what that rests on (README, "Persuasion")."""
    from .validity import format_coverage

    persuasion = metrics.get("persuasion")
    if not persuasion:  # a document from before metrics schema 6
        return []
    every = persuasion["speaker"]["all"]["all"]
    polls = persuasion["polls"]
    poll_note = "off" if not polls["polls"] else f"{polls['answered']} answered / {polls['polls']} asked"
    subjects = every["subject_coverage"]
    # Without subject scores (subject_suspicion off) no accusation's effect can be measured: say why, once.
    subject_note = f"reported {_ratio(subjects)}" if subjects["expected"] else "not asked (subject_suspicion off)"
    lines = [
        f"persuasion (95% CI; answered peer analyses {_ratio(every['coverage'])}, {every['shift_fallbacks']} fallbacks "
        f"left out; claim subjects {subject_note}; vote polls {poll_note}):"
    ]
    for team, row in persuasion["speaker"]["by_team"].items():
        polled = row["vote_swing"]["value"] is not None
        swing = f"; vote swing {fmt_value(row['vote_swing'], ci=True)}" if polled else ""
        lines.append(
            f"  {team:<9} persuasion {signed(row['persuasion'])} ({row['accusing_statements']} accusing); "
            f"lie success {fmt_value(row['deception_success'], ci=True)} ({row['lies_measured']} lies measured), "
            f"effect {signed(row['deception_effect'])}; village misled by lies {signed(row['misled_lies'])}, "
            f"by truths {signed(row['misled_truths'])}{swing}"
        )
    village = persuasion["listener"]["by_team"].get("village")
    if village:
        lines.append(f"  village listeners' resistance to lies (toward-truth shift) {signed(village['resistance'])}; "
                     f"{format_coverage(village['coverage'])}")  # fmt: skip
    return lines


def _ratio(cov: dict[str, Any]) -> str:
    return f"{cov['answered']}/{cov['expected']}"


def signed(est: dict[str, Any] | None) -> str:
    """A shift with its sign and 95% interval ("+0.03 [-0.01, 0.07]"), or "n/a"."""
    if not est or est.get("value") is None:
        return "n/a"
    low, high = est["ci"]
    interval = f" [{low:+.2f}, {high:+.2f}]" if low is not None and high is not None else ""
    return f"{est['value']:+.2f}{interval}"


def fmt_value(
    est: dict[str, Any] | None, ci: bool = False, complement: bool = False, group: dict[str, Any] | None = None
) -> str:
    """A figure as text; undefined: "no valid predictions" when its ``group`` had no answered analysis
    (a dead server is not a score of 0), else "n/a"."""
    if not est or est.get("value") is None:
        return "no valid predictions" if group and group.get("no_valid_predictions") else "n/a"
    value = 1 - est["value"] if complement else est["value"]
    text = f"{value:.2f}"
    low, high = est["ci"]
    if complement and low is not None and high is not None:
        low, high = 1 - high, 1 - low
    if ci and low is not None and high is not None:
        text += f" [{low:.2f}, {high:.2f}]"
    return text
