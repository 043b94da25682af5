"""``werewolf-bench report RUN [--labeler regex|llm|union]``: the report command and the report's printed lines.

    werewolf-bench report runs/demo                   # the logs' own ground truth (regex): runs/demo/
    werewolf-bench report runs/demo --labeler llm     # runs/demo/claims/llm.ndjson: runs/demo/report-llm/

The report itself is ``werewolf_deception.benchmarks.report.build.build_report``; whose claims and lie labels it rests
on, ``werewolf_deception.benchmarks.labels.run_labels``. Exit codes: 0 written; 2 no logs, no finished game, no readable
labels file for ``--labeler`` (the message names the file and the command that writes it), a log that does not replay as
a whole, identical game (without ``--allow-unverified``), or an ``--out`` that is a file or a folder of other files
(nothing is written there); 4 written, but a policy's actions fell back more than the max fallback rate (the rate
the folder was made with, from its ``summary.json``, ``tournament.json`` or ``rescore.json``, or
``--max-fallback-rate``; the first line says so); 5 a file that cannot be written (the message names it).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from werewolf_deception.benchmarks.console import (
    BASELINE_GAMES,
    DEFAULT_MAX_FALLBACK_RATE,
    EXIT_BAD_OPTIONS,
    EXIT_INVALID,
    MAX_RESAMPLES,
    RESAMPLES,
    WIDTH,
    fit,
    is_rate,
    legend_lines,
    lineup_itself,
    pack,
    print_lines,
    table,
)
from werewolf_deception.benchmarks.labels import DEFAULT_LABELER, LABELERS, format_unlabelled
from werewolf_deception.benchmarks.report import build_report, report_dir, run_status, token_lines
from werewolf_deception.benchmarks.runs import check_out_folder
from werewolf_env.analysis import action_kinds_of, claims_coverage_lines
from werewolf_env.core import DEFAULT_RULESET, Ruleset, terminal_safe
from werewolf_env.record import ruleset_of_config

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
        type=BASELINE_GAMES,
        default=50,
        help="games per baseline lineup (random, heuristic) under the same rules and seeds; 0: none",
    )
    report.add_argument(
        "--resamples",
        type=RESAMPLES,
        default=1000,
        help=f"bootstrap resamples for the 95%% intervals (default %(default)s, at most {MAX_RESAMPLES:,}; 0: none)",
    )
    report.add_argument("--no-plots", action="store_true", help="skip the matplotlib plots")
    report.add_argument(
        "--labeler",
        choices=LABELERS,
        default=DEFAULT_LABELER,
        help="whose claims and lie labels: regex (the logs' own, default), or llm / union from RUN_DIR/claims/ "
        "(werewolf-bench relabel)",
    )
    report.add_argument(
        "--max-fallback-rate",
        type=float,
        default=None,
        help="call the run invalid when a policy's share of actions played by the env's fallback exceeds this "
        "(default: the rate the run was played with, from RUN_DIR's summary.json, tournament.json or rescore.json; "
        "else "
        f"{DEFAULT_MAX_FALLBACK_RATE})",
    )
    report.add_argument(
        "--explain", action="store_true", help="end with the full legend of the terms (instead of the short one)"
    )
    report.add_argument(
        "--allow-unverified",
        action="store_true",
        help="report logs that do not replay as identical games (edited, another reader's, a damaged line) instead "
        "of refusing the run: finished ones are counted and every one is listed (metrics.json: "
        "run.unverified_logs); default: refuse, writing nothing",
    )


def report_command(args: argparse.Namespace) -> int:
    labeler = getattr(args, "labeler", DEFAULT_LABELER)
    try:
        rate = getattr(args, "max_fallback_rate", None)
        if rate is not None and not is_rate(rate):
            raise ValueError(f"--max-fallback-rate must be between 0 and 1 (got {rate})")
        if args.out is not None:
            check_out_folder(args.out, "--out", REPORT_FOLDERS)
        document = build_report(
            args.run_dir,
            out=args.out,
            baseline_games=args.baseline_games,
            resamples=args.resamples,
            plots=not args.no_plots,
            labeler=labeler,
            verify="mark" if getattr(args, "allow_unverified", False) else "refuse",
            max_fallback_rate=rate,
        )
    except (FileNotFoundError, ValueError) as exc:  # claim_labels.LabelsError and RunFolderError are ValueErrors
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_BAD_OPTIONS
    lines = []
    status, reasons = run_status(document)
    if status == "invalid":  # before any figure: what follows does not measure the policy that fell back
        lines += fit(
            f"INVALID RUN: {terminal_safe(reasons[0])}: the figures do not measure it (the report says so too).",
            subsequent="  ",
        )
    run = document["run"]
    left_out = f" ({len(run['incomplete_logs'])} unfinished logs left out)" if run["incomplete_logs"] else ""
    lines += pack(
        "werewolf-deception report: ",
        [f"{run['games']} games from {args.run_dir}{left_out}", f"claims and lie labels: {labeler} labeler"],
        indent="  ",
    )
    unverified = run.get("unverified_logs") or {}
    if unverified:
        lines += fit(
            f"UNVERIFIED: {len(unverified)} logs do not replay as whole, identical games (--allow-unverified);"
            " the finished ones are counted:",
            indent="  ",
            subsequent="    ",
        )
        lines += [f"    {path}: {verdict}" for path, verdict in list(unverified.items())[:5]]
        lines += (
            [f"    and {len(unverified) - 5} more (metrics.json: run.unverified_logs)"] if len(unverified) > 5 else []
        )
    unlabelled = format_unlabelled(document["unlabelled"])
    if unlabelled:
        lines += fit(unlabelled, indent="  ", subsequent="    ")
    lines += coverage_lines(document)
    lines += [f"  {line}" for line in token_lines(document.get("tokens") or {})]  # ``run``: in its own summary
    lines += report_lines(document, report_dir(args.run_dir, args.out, labeler))
    print_lines(lines + legend_lines("\n".join(lines), full=getattr(args, "explain", False)))
    return EXIT_INVALID if status == "invalid" else 0


def coverage_lines(document: dict[str, Any]) -> list[str]:
    """The ground truth's coverage under each labeler the run has (``claims_coverage_lines``), indented two
    spaces; claim kinds about a night action only when a role of the games takes it."""
    roles = ((document["metrics"].get("deaths") or {}).get("by_role") or {}).keys()
    acting = action_kinds_of(roles, run_ruleset(document))
    lines = []
    for cov in document["claims_coverage_by_labeler"].values():
        if "error" in cov:
            lines += fit(f"labeler {cov['labeler']}: {cov['error']}", indent="  ", subsequent="    ")
        else:
            lines += [f"  {line}" for line in claims_coverage_lines(cov, acting)]
    return lines


def report_lines(document: dict[str, Any], out: Path | None = None) -> list[str]:
    """The headline deception figures of a report, next to the baselines, each with the coverage of the
    analyses it rests on (answered / expected): fallback analyses are never predictions. Lines of at most
    ``summary_text.WIDTH`` columns; with ``out``, a last line naming the report's files.

    A baseline whose lineup is the run's own is named once ("the lineup itself"), its figures not repeated;
    roles that know their partners (werewolves) get their detection row apart from the village's table."""
    from werewolf_deception.benchmarks.runs import format_coverage

    metrics = document["metrics"]
    itself = lineup_itself(document)
    every = document.get("baselines") or {}
    baselines = {k: v["metrics"] for k, v in sorted(every.items()) if k not in itself}
    lines: list[str] = []
    if every:
        games = max(v.get("games", 0) for v in every.values())
        parts = [" and ".join(baselines)] if baselines else []
        parts += [f"{kind} = the lineup itself (not repeated)" for kind in itself]
        lines += pack(f"  baselines, same rules and seeds ({games} games): ", parts, indent="    ")
    analyses = metrics["totals"].get("analysis_coverage")
    if analyses and analyses["answered"] < analyses["expected"]:
        lines.append(f"  analyses: {format_coverage(analyses)}; the figures below count the answered ones only")
    peers = metrics["deceptive"]["all"]["all"]
    caught = peers["undetected_lie_share"]
    if caught["value"] is not None or (peers.get("no_valid_predictions") and peers["coverage"]["expected"]):
        groups = {kind: m["deceptive"]["all"]["all"] for kind, m in baselines.items()}
        base = [
            f"{kind} {fmt_value(g['undetected_lie_share'], complement=True, group=g)}" for kind, g in groups.items()
        ]
        lines += pack(
            "  lies caught by a majority of peers: ",
            [
                fmt_value(caught, ci=True, complement=True, group=peers),
                *base,
                f"peer analyses {format_coverage(peers['coverage'])}",
            ],
            indent="    ",
        )
    lines += detection_lines(metrics, baselines, run_ruleset(document))
    lines += [f"  {line}" for line in persuasion_lines(metrics)]
    if out is not None:
        lines += pack(
            "  ",
            [f"report: {out / 'report.html'}", f"metrics: {out / 'metrics.json'}", f"tables: {out / 'tables'}/"],
            indent="  ",
            sep="   ",
        )
    return lines


def run_ruleset(document: dict[str, Any]) -> Ruleset:
    """The roles of the report's games: the ruleset of its logged config (the built-in roles unless it has one)."""
    return ruleset_of_config((document.get("run") or {}).get("config"))


def knows_partners(role: str, ruleset: Ruleset = DEFAULT_RULESET) -> bool:
    """A role whose holders know each other (werewolves: ``RoleSpec.knows_fellows``), from the game's ruleset."""
    return role in ruleset and ruleset.spec(role).knows_fellows


def detection_lines(
    metrics: dict[str, Any], baselines: dict[str, dict[str, Any]], ruleset: Ruleset = DEFAULT_RULESET
) -> list[str]:
    """Detection by observer role as a table: F1 with its interval, precision, recall, the analyses answered
    of those expected, and each baseline's F1. Roles that know their partners come apart, below, with why:
    their flags on their partners are knowledge, not detection (a werewolf's recall is 1.00)."""
    by_role = metrics["detective"]["by_role"]
    header = ["role", "F1 (95% CI)", "precision", "recall", "answered/expected", *(f"{k} F1" for k in baselines)]
    notes = []

    def row(role: str, values: dict[str, Any]) -> list[str]:
        cov = values.get("coverage") or {}
        if values.get("unlabelled_analyses"):  # answered, but on statements the labeler gave no label
            notes.append(f"    {role}: {values['unlabelled_analyses']} analyses on unlabelled statements left out")
        base = [
            fmt_value(m["detective"]["by_role"].get(role, {}).get("f1"), group=m["detective"]["by_role"].get(role))
            for m in baselines.values()
        ]
        counted = f"{cov.get('answered', 0)}/{cov.get('expected', 0)}" if cov else ""
        if values.get("no_valid_predictions"):
            return [role, "no valid predictions", "-", "-", counted, *base]
        return [
            role,
            fmt_value(values["f1"], ci=True),
            fmt_value(values["precision"]),
            fmt_value(values["recall"]),
            counted,
            *base,
        ]

    village = [(role, values) for role, values in by_role.items() if not knows_partners(role, ruleset)]
    apart = [(role, values) for role, values in by_role.items() if knows_partners(role, ruleset)]
    rows = [header] + [row(r, v) for r, v in village] + [row(r, v) for r, v in apart]
    laid = table(rows, "llrrr" + "r" * len(baselines))
    lines = ["  detection F1 by observer role (flags against the grounded lies; 95% CI):", *laid[: 1 + len(village)]]
    if apart:
        names = " and ".join(ruleset.spec(role).plural for role, _ in apart)
        lines.append(f"  {names}, apart: they know their partners, so this is not a measure of detection skill:")
        lines += laid[1 + len(village) :]
    return lines + notes


def persuasion_lines(metrics: dict[str, Any]) -> list[str]:
    """What statements did to the listeners, by the speaker's team, and what that rests on (docs/reports.md,
    "Persuasion"): a small table, a column per speaker team (lines indented by the caller's two spaces: at most
    98 columns)."""
    from werewolf_deception.benchmarks.runs import format_coverage

    persuasion = metrics.get("persuasion")
    if not persuasion:  # a document from before metrics schema 6
        return []
    every = persuasion["speaker"]["all"]["all"]
    polls = persuasion["polls"]
    poll_note = "off" if not polls["polls"] else f"{polls['answered']} answered / {polls['polls']} asked"
    subjects = every["subject_coverage"]
    # Without subject scores (subject_suspicion off) no accusation's effect can be measured: say why, once.
    subject_note = f"reported {_ratio(subjects)}" if subjects["expected"] else "not asked (subject_suspicion off)"
    lines = ["persuasion and lies, by the speaker's team (95% CI):"]
    lines += pack(
        "  rests on: ",
        [
            f"answered peer analyses {_ratio(every['coverage'])} ({every['shift_fallbacks']} fallbacks left out)",
            f"claim subjects {subject_note}",
            f"vote polls {poll_note}",
        ],
        indent="    ",
        width=WIDTH - 2,
    )
    teams = persuasion["speaker"]["by_team"]
    figures: list[tuple[str, Any]] = [
        ("persuasion", lambda row: signed(row["persuasion"])),
        ("  accusing statements", lambda row: str(row["accusing_statements"])),
    ]
    # Net of the control subjects' shift (what asking alone does), where controls were asked (metrics from
    # before issue 32 have none).
    if any((row.get("control_coverage") or {}).get("expected") for row in teams.values()):
        figures += [
            ("  control subject", lambda row: signed(row["shift_control"])),
            ("  net of control", lambda row: signed(row["persuasion_net"])),
        ]
    figures += [
        ("lie success", lambda row: fmt_value(row["deception_success"], ci=True)),
        ("  lies measured", lambda row: str(row["lies_measured"])),
        ("effect of lies", lambda row: signed(row["deception_effect"])),
        ("village misled by lies", lambda row: signed(row["misled_lies"])),
        ("village misled by truths", lambda row: signed(row["misled_truths"])),
        ("  lies - truths", lambda row: signed(row.get("misled_difference"))),
    ]
    if any(row["vote_swing"]["value"] is not None for row in teams.values()):
        figures.append(("vote swing", lambda row: fmt_value(row["vote_swing"], ci=True)))
        figures.append(("  without day's first", lambda row: fmt_value(row.get("vote_swing_without_first"), ci=True)))
    rows = [["", *teams]] + [[label, *(cell(row) for row in teams.values())] for label, cell in figures]
    lines += table(rows, "l" * (1 + len(teams)), indent="  ")
    village = persuasion["listener"]["by_team"].get("village")
    if village:
        lines += pack(
            "village listeners' resistance to lies: ",
            [
                signed(village["resistance"]),
                f"after truths (control) {signed(village.get('truth_shift_truths'))}",
                format_coverage(village["coverage"]),
            ],
            indent="  ",
            width=WIDTH - 2,
        )
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
