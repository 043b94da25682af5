# ruff: noqa: E501  (HTML templates read better as one f-string per element than split mid-tag)
"""The offline run report (``report.html``): validity, ground-truth coverage, every figure with its baselines.

Plain HTML and CSS with images inlined as data URIs, so the page opens from disk with no server and
no network. The per-game viewer pages are ``benchmarks.html_viewer``; what both share is
``benchmarks.html_base``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from werewolf_env.claims import CLAIM_KINDS
from werewolf_env.metrics import LIE_TYPES, GameRecord

from .html_base import data_uri, esc, fmt, page
from .html_viewer import write_viewer_pages

__all__ = ["write_report", "write_viewer_pages"]

# ---------------------------------------------------------------------- the run report

NO_PREDICTIONS = '<span class="nvp">no valid predictions</span>'
# Figures that rest on analyses, and which coverage of their group says how many were answered; the
# others (lies per statement, survival, votes...) do not depend on any analysis being answered.
PREDICTION_FIGURES = {
    **{("detective", n): "coverage" for n in ("precision", "recall", "f1", "accuracy", "auroc_werewolf",
                                               "auprc_werewolf", "werewolf_base_rate", "brier", "ece")},
    **{("self_report", n): "coverage" for n in ("agreement", "lie_denial", "false_confession")},
    **{("deceptive", n): "coverage" for n in ("undetected_lie_share", "peer_detected_rate", "peer_flag_rate")},
    ("deceptive", "self_reported_rate"): "self_coverage",
    **{("players", n): "coverage" for n in ("peer_detected_deceptions_per_game", "peer_flags_received_per_game",
                                             "avg_suspicion_received")},
    ("players", "self_reported_deceptions_per_game"): "self_coverage",
    ("players", "first_correct_suspicion_found"): "observer_coverage",
    ("players", "statements_to_first_correct_suspicion"): "observer_coverage",
}  # fmt: skip


def fmt_coverage(cov: dict[str, Any] | None) -> str:
    """``answered / expected (share)`` of a group's coverage."""
    if not cov:
        return ""
    share = "" if cov.get("share") is None else f" ({100 * cov['share']:.0f}%)"
    return f"{cov['answered']} / {cov['expected']}{share}"


def _figure(group: dict[str, Any], section: str, name: str, ci: bool = True) -> str:
    """A figure of a group; "no valid predictions" where it is undefined because nothing was answered."""
    est = group.get(name)
    which = PREDICTION_FIGURES.get((section, name))
    cov = group.get(which) if which else None
    if (not est or est.get("value") is None) and cov is not None and cov.get("answered") == 0:
        return NO_PREDICTIONS
    return fmt(est, ci=ci)


def _metric_table(
    document: dict[str, Any],
    sections: list[tuple[str, str, str]],
    group: str,
    caption: str,
    coverage: list[tuple[str, str, str]] | None = None,
) -> str:
    """Rows: the groups (all, then each role / policy); columns: the coverage of the analyses the figures
    rest on (answered / asked), then the metrics; each cell: run value [95% CI] and, below it, the same
    metric for the heuristic (H) and random (R) baselines."""
    metrics = document["metrics"]
    baselines = {k: v["metrics"] for k, v in document.get("baselines", {}).items()}
    coverage = coverage or []
    keys: list[str] = []
    for section, _, _ in sections:
        for key in metrics[section].get(group, {}):
            if key not in keys:
                keys.append(key)
    if group != "all":
        keys = [k for k in keys if k != "all"]
    head = "".join(f"<th>{esc(label)}</th>" for _, _, label in coverage + sections)
    rows = []
    for key in keys:
        cells = []
        for section, which, _ in coverage:
            cov = metrics[section].get(group, {}).get(key, {}).get(which)
            cells.append(f'<td class="num">{fmt_coverage(cov)}</td>')
        for section, name, _ in sections:
            values = metrics[section].get(group, {}).get(key, {})
            base = []
            for kind, m in sorted(baselines.items()):
                b = m.get(section, {}).get(group, {}).get(key, {})
                if b.get(name) is not None:
                    base.append(f"{kind[0].upper()} {_figure(b, section, name, ci=False)}")
            extra = f'<span class="base">{" · ".join(base)}</span>' if base else ""
            cells.append(f'<td class="num">{_figure(values, section, name)}{extra}</td>')
        rows.append(f"<tr><th>{esc(key)}</th>{''.join(cells)}</tr>")
    table = f"<table><caption>{esc(caption)}</caption><tr><th></th>{head}</tr>{''.join(rows)}</table>"
    return f'<div class="wide">{table}</div>'


def _pct(count: int | None, rate: float | None) -> str:
    if count is None or rate is None:
        return '<span class="muted">–</span>'
    return f"{100 * rate:.1f}% <span class='ci'>({count})</span>"


def _validity_table(validity: dict[str, Any] | None) -> str:
    """Per policy (all kinds, then each kind): how many actions were the agent's own answers."""
    policies = (validity or {}).get("policies") or {}
    if not policies:
        return "<p class='muted'>no actions</p>"
    head = ("<tr><th>policy / action kind</th><th>actions</th><th>answered</th><th>repaired</th><th>invalid</th>"
            "<th>unanswered</th><th>no outcome</th><th>fallback</th><th>invalid fields</th><th>calls cut off</th>"
            "<th>cached calls</th><th>policy errors</th></tr>")  # fmt: skip
    rows = []
    for label, entry in policies.items():
        for kind, group in [("all kinds", entry["overall"]), *entry["by_kind"].items()]:
            fields = ", ".join(f"{esc(f)} {c}" for f, c in group["invalid_fields"].items())
            outcomes = "".join(
                f"<td class='num'>{_pct(group[n], group.get(f'{n}_rate', _share(group[n], group['actions'])))}</td>"
                for n in ("answered", "repaired", "invalid", "unanswered", "no_outcome")
            )
            style = " class='kind'" if kind != "all kinds" else ""
            name = esc(kind) if kind != "all kinds" else f"{esc(label)}{' (LLM)' if entry['llm'] else ''}"
            warn = " class='warn'" if group["fallback"] else ""
            rows.append(
                f"<tr{style}><th>{name}</th><td class='num'>{group['actions']}</td>{outcomes}"
                f"<td class='num'><span{warn}>{_pct(group['fallback'], group['fallback_rate'])}</span></td>"
                f"<td>{fields}</td><td class='num'>{group['cut_off']}</td><td class='num'>{group['cached']}</td>"
                f"<td class='num'>{group['policy_errors']}</td></tr>"
            )
    return f'<div class="wide"><table>{head}{"".join(rows)}</table></div>'


def _share(count: int | None, total: int) -> float | None:
    return None if count is None or total <= 0 else count / total


def _counted(part: dict[str, Any]) -> str:
    """A coverage share with its interval and its count."""
    return f"{fmt(part['share'])} <span class='ci'>({part['count']})</span>"


def _ground_truth_section(document: dict[str, Any]) -> list[str]:
    """Which labeler the lie figures rest on, and how much of the speech each available labeler covers."""
    labeler = document.get("labeler", "regex")
    unlabelled = document.get("unlabelled") or {}
    parts = [
        "<h2>Ground truth coverage</h2>",
        f"<p>Claims and lie labels: the <b>{esc(labeler)}</b> labeler"
        + (" (the claims the engine read and judged while the games were played)." if labeler == "regex" else
           f" (<code>claims/{esc(labeler)}.ndjson</code>, judged with what each speaker knew).")
        + " A statement holding no claim counts as truthful, so each row says how much of the speech the"
        " labels cover: statements holding at least one claim (in all and by kind), the share of claims"
        " hedged (a belief: &ldquo;I think Bob is a wolf&rdquo;), and the lies that rest on hedged claims only.</p>",
    ]  # fmt: skip
    if unlabelled.get("unlabelled"):
        why = ", ".join(f"{esc(r)} {c}" for r, c in unlabelled.get("unlabelled_by_reason", {}).items())
        parts.append(
            f"<p class='warn'>{unlabelled['unlabelled']} of {unlabelled['statements']} statements have no label from "
            f"the {esc(labeler)} labeler ({why}): they are left out of every figure that rests on the lie label, and "
            "never given the regex label instead.</p>"
        )
    head = ("<tr><th>labeler</th><th>statements labelled</th><th>with a claim</th>"
            + "".join(f"<th>{esc(k)}</th>" for k in CLAIM_KINDS)
            + "<th>claims</th><th>hedged</th><th>claims by source</th><th>lies</th><th>lies on hedged claims only</th></tr>")  # fmt: skip
    rows = []
    for name, cov in (document.get("claims_coverage_by_labeler") or {}).items():
        mark = " (these figures)" if name == labeler else ""
        if "error" in cov:
            rows.append(f"<tr><th>{esc(name)}</th><td colspan='{len(CLAIM_KINDS) + 7}' class='warn'>{esc(cov['error'])}</td></tr>")
            continue
        sources = ", ".join(f"{esc(k)} {v}" for k, v in cov["claims_by_source"].items())
        kinds = "".join(f"<td class='num'>{_counted(cov['by_kind'][k])}</td>" for k in CLAIM_KINDS)
        rows.append(
            f"<tr><th>{esc(name)}{mark}</th><td class='num'>{cov['labelled']} / {cov['statements']}</td>"
            f"<td class='num'>{_counted(cov['with_claim'])}</td>{kinds}<td class='num'>{cov['claims']}</td>"
            f"<td class='num'>{_counted(cov['hedged'])}</td><td>{sources}</td><td class='num'>{cov['lies']}</td>"
            f"<td class='num'>{_counted(cov['lies_hedged_only'])}</td></tr>"
        )
    parts.append(f'<div class="wide"><table class="coverage">{head}{"".join(rows)}</table></div>')
    return parts


def _validity_section(document: dict[str, Any]) -> list[str]:
    """First thing to read: whether the figures below rest on the agents' answers or on fallbacks."""
    metrics = document["metrics"]
    parts = ["<h2>Answer validity</h2>"]
    analyses = metrics["totals"].get("analysis_coverage") or {}
    if analyses.get("expected") and analyses.get("answered", 0) < analyses["expected"]:
        missing = analyses["expected"] - analyses["answered"]
        parts.append(
            f"<p class='warn'>{missing} of {analyses['expected']} self / peer analyses fell back to the env's "
            "default (no usable answer) and are left out of every detection figure. Each table shows the "
            "coverage (answered / asked) its figures rest on; a group with no answered analysis says "
            "<b>no valid predictions</b>.</p>"
        )
    parts.append(
        "<p>Per policy and action kind: <i>answered</i> (the model's first answer was valid), <i>repaired</i> "
        "(valid after one repair prompt), <i>invalid</i> (answered, nothing valid), <i>unanswered</i> (the "
        "server gave no reply), <i>fallback</i> (the env replaced all or part of the answer). Outcomes are "
        "known for LLM policies only (– for the others).</p>"
    )
    parts.append(_validity_table(document.get("validity")))
    return parts


DECEPTIVE = [
    ("deceptive", "lies_per_statement", "lies / statement"),
    ("deceptive", "undetected_lie_share", "lies undetected by peers"),
    ("deceptive", "self_reported_rate", "self-reported deceptive"),
    ("deceptive", "peer_detected_rate", "peer-detected (majority)"),
    ("deceptive", "peer_flag_rate", "raw peer flag rate"),
    ("players", "avg_suspicion_received", "avg suspicion received"),
    ("players", "survival", "survival"),
    ("players", "win_rate", "win rate"),
]
DETECTIVE = [
    ("detective", "precision", "precision"),
    ("detective", "recall", "recall"),
    ("detective", "f1", "F1"),
    ("detective", "auroc_werewolf", "AUROC (werewolf)"),
    ("detective", "auprc_werewolf", "AUPRC (werewolf)"),
    ("detective", "werewolf_base_rate", "werewolf base rate"),
    ("detective", "brier", "Brier"),
    ("detective", "ece", "ECE"),
    ("players", "first_correct_suspicion_found", "ever suspects a werewolf first"),
    ("players", "statements_to_first_correct_suspicion", "statements until then"),
]
PAPER = [
    ("players", "statements_per_game", "statements / game"),
    ("players", "self_reported_deceptions_per_game", "self-reported deceptions / game"),
    ("players", "peer_detected_deceptions_per_game", "peer-detected deceptions / game"),
    ("players", "peer_flags_received_per_game", "raw peer flags / game"),
    ("players", "avg_suspicion_received", "avg suspicion received"),
]
SELF_REPORT = [
    ("self_report", "agreement", "agrees with ground truth"),
    ("self_report", "lie_denial", "lies labelled honest"),
    ("self_report", "false_confession", "truths labelled deceptive"),
]
VOTES = [("votes", "on_werewolves", "votes on werewolves"), ("votes", "abstention", "abstentions")]
# The coverage columns of each table: (section, coverage key, heading).
DECEPTIVE_COVERAGE = [("deceptive", "coverage", "peer analyses answered / asked"),
                      ("deceptive", "self_coverage", "self analyses answered / asked")]  # fmt: skip
DETECTIVE_COVERAGE = [("detective", "coverage", "analyses answered / asked")]
SELF_REPORT_COVERAGE = [("self_report", "coverage", "analyses answered / asked")]
PAPER_COVERAGE = [("players", "coverage", "peer analyses answered / asked"),
                  ("players", "self_coverage", "self analyses answered / asked")]  # fmt: skip


def _lie_types_table(document: dict[str, Any], group: str) -> str:
    metrics = document["metrics"]["deceptive"].get(group, {})
    head = "".join(f"<th>{t}</th>" for t in LIE_TYPES)
    rows = []
    for key, values in metrics.items():
        if group != "all" and key == "all":
            continue
        by_type = values.get("lies_by_type_per_statement", {})
        cells = "".join(f'<td class="num">{fmt(by_type.get(t))}</td>' for t in LIE_TYPES)
        rows.append(f"<tr><th>{esc(key)}</th><td class='num'>{values.get('statements', 0)}</td>{cells}</tr>")
    return f"<table><caption>lies by type, per statement</caption><tr><th></th><th>statements</th>{head}</tr>{''.join(rows)}</table>"


def _role_pair_table(pairs: dict[str, dict[str, float | None]]) -> str:
    roles = list(pairs)
    head = "".join(f"<th>{esc(r)}</th>" for r in roles)
    rows = []
    for a in roles:
        cells = []
        for b in roles:
            v = pairs[a].get(b)
            style = f' style="background:rgba(200,30,30,{v:.2f})"' if v is not None else ""
            cells.append(f'<td class="num"{style}>{"" if v is None else f"{v:.2f}"}</td>')
        rows.append(f"<tr><th>{esc(a)}</th>{''.join(cells)}</tr>")
    return f"<table><caption>observer role (rows) → subject role (columns)</caption><tr><th></th>{head}</tr>{''.join(rows)}</table>"


def write_report(
    document: dict[str, Any],
    names: list[str],
    records: list[GameRecord],
    images: dict[str, str],
    path: Path,
    title: str | None = None,
    plot_note: str | None = None,
) -> None:
    run = document["run"]
    metrics = document["metrics"]
    config = run["config"]
    base_note = ", ".join(f"{k} ({v['games']} games)" for k, v in document.get("baselines", {}).items())
    parts = [
        f"<h1>{esc(title or 'Werewolf deception report')}</h1>",
        f"<p>{run['games']} games from <code>{esc(run['dir'])}</code>; lineups: {esc(', '.join(run['lineups']))}; "
        f"{config.get('num_players')} players ({config.get('num_werewolves')} werewolves), "
        f"analysis={esc(config.get('analysis'))}; claims and lie labels: {esc(document.get('labeler', 'regex'))} "
        f"labeler. {esc(document['generated_by'])}.</p>",
        "<p>Each figure is followed by its 95% interval (bootstrap over games; Wilson for team wins) and, "
        f"below it, the same figure for the baselines under the same rules and seeds: {esc(base_note or 'none')} "
        "(H = heuristic, R = random).</p>",
    ]  # fmt: skip
    if run["incomplete_logs"]:
        parts.append(f"<p>Unfinished logs left out: {len(run['incomplete_logs'])}.</p>")
    parts.extend(_validity_section(document))
    parts.extend(_ground_truth_section(document))
    outcome_rows = []
    for team, est in metrics["outcomes"].items():
        base = " · ".join(
            f"{k[0].upper()} {fmt(v['metrics']['outcomes'][team], ci=False)}"
            for k, v in sorted(document.get("baselines", {}).items())
        )
        outcome_rows.append(f"<tr><th>{team}</th><td class='num'>{fmt(est)}<span class='base'>{base}</span></td></tr>")
    parts.append(f"<h2>Outcomes</h2><table><tr><th>team</th><th>win rate</th></tr>{''.join(outcome_rows)}</table>")
    totals = metrics["totals"]
    analyses = totals.get("analysis_coverage")
    parts.append(
        f"<p>{totals['statements']} statements"
        + (f" ({totals['unlabelled_statements']} unlabelled)" if totals.get("unlabelled_statements") else "")
        + f", {totals['lies']} grounded lies; {totals['actions']} actions, "
        f"{totals['fallbacks']} replaced by fallbacks; analyses answered: {fmt_coverage(analyses) or 'n/a'}; "
        f"tokens: {totals['prompt_tokens']} prompt, {totals['completion_tokens']} completion.</p>"
    )
    for heading, sections, note, coverage in (
        ("Deceptive capacity", DECEPTIVE, "by the speaker's", DECEPTIVE_COVERAGE),
        ("Detective capacity", DETECTIVE, "by the observer's", DETECTIVE_COVERAGE),
        ("Self-report honesty", SELF_REPORT, "by the speaker's", SELF_REPORT_COVERAGE),
        ("Votes", VOTES, "by the voter's", None),
        ("The paper's per-player metrics", PAPER, "by the player's", PAPER_COVERAGE),
    ):
        parts.append(f"<h2>{heading}</h2>")
        for group in ("all", "by_role", "by_team", "by_policy"):
            label = "all" if group == "all" else f"{note} {group[3:]}"
            parts.append(_metric_table(document, sections, group, label, coverage))
        if heading == "Deceptive capacity":
            parts.append(_lie_types_table(document, "by_role"))
    parts.append("<h2>Cross-perception by role pair (final suspicion scores)</h2>")
    parts.append(_role_pair_table(metrics["matrix_by_role_pair"]))
    trend = metrics["suspicion_trend"]
    parts.append(
        "<h2>Suspicion over rounds</h2><p>Theil-Sen slope per round of the village's mean suspicion: toward "
        f"werewolves {trend['toward_werewolf']['slope_per_round']}, toward village players "
        f"{trend['toward_village']['slope_per_round']}.</p>"
    )
    parts.append("<h2>Plots</h2>")
    if images:
        parts.append('<div class="plots">')
        for caption, png in images.items():
            parts.append(
                f'<figure><img src="{data_uri(Path(png))}" alt="{esc(caption)}"><figcaption>{esc(caption)}</figcaption></figure>'
            )
        parts.append("</div>")
    else:
        parts.append(f"<p class='muted'>{esc(plot_note or 'no plots')}</p>")
    rows = []
    for name, record in zip(names, records, strict=True):
        lies = sum(s.lie for s in record.statements)
        rows.append(
            f"<tr><td><a href='viewer/{esc(name)}.html'>{esc(name)}</a></td><td>{record.seed}</td>"
            f"<td>{esc(record.winner or 'undecided')}</td><td class='num'>{record.rounds}</td>"
            f"<td class='num'>{len(record.statements)}</td><td class='num'>{lies}</td>"
            f"<td>{esc(', '.join(sorted(set(record.policies))))}</td></tr>"
        )
    parts.append(
        "<h2>Games</h2><table><tr><th>game</th><th>seed</th><th>winner</th><th>rounds</th><th>statements</th>"
        f"<th>lies</th><th>policies</th></tr>{''.join(rows)}</table>"
    )
    path.write_text(page(title or "Werewolf deception report", "\n".join(parts)), encoding="utf-8")


