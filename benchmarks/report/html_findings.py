# ruff: noqa: E501  (HTML templates read better as one line per element than split mid-tag)
"""The report's first screen: what a reader comes for, before any table.

- one status line (fine / caution / invalid) for answer validity and the ground truth's coverage, by the rules
  the run itself applies (``STATUS``);
- a sentence answering who lied, who caught the lies and how sure the figures are;
- a card per policy (per team when the run has one policy) with the headline figures (``HEADLINES``), each
  with its 95% interval, the baselines and a plain sentence;
- the key plots (``KEY_PLOTS``), each with a caption saying what to look for and alt text.

Every value is escaped (``werewolf_deception.benchmarks.report.html_base.render``);
``werewolf_deception.benchmarks.report.html_report`` puts these parts on the page.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from werewolf_deception.benchmarks.console import DEFAULT_MAX_FALLBACK_RATE, lineup_itself
from werewolf_deception.benchmarks.report.html_base import Html, figure, fmt, join, name, render, trusted
from werewolf_deception.benchmarks.report.html_persuasion import PREDICTION_FIGURES as PERSUASION_FIGURES
from werewolf_deception.benchmarks.runs import worst_fallback_rate
from werewolf_env.analysis import joint_key
from werewolf_env.core import Team

NO_PREDICTIONS = trusted('<span class="nvp">no valid predictions</span>')
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
    **PERSUASION_FIGURES,
}  # fmt: skip


def shown_figure(group: dict[str, Any], section: str, metric: str, ci: bool = True) -> Html:
    """A figure of a group; "no valid predictions" where it is undefined because nothing was answered."""
    est = group.get(metric)
    which = PREDICTION_FIGURES.get((section, metric))
    cov = group.get(which) if which else None
    if (not est or est.get("value") is None) and cov is not None and cov.get("answered") == 0:
        return NO_PREDICTIONS
    return fmt(est, ci=ci)


def _pct(value: float) -> str:
    """A share as a whole percentage, with one decimal near the ends: a few failures never read as 0% or 100%."""
    return f"{100 * value:.1f}%" if 0 < value < 0.01 or 0.99 < value < 1 else f"{100 * value:.0f}%"


@dataclass(frozen=True)
class Headline:
    """A headline figure: where it lives in the metrics (``section`` of ``metrics``, the persuasion speaker's as
    ``persuasion_speaker``), its label, and the plain sentence saying what its value means."""

    section: str
    metric: str
    label: str
    says: Callable[[float], str]
    undefined: str  # why a group can have no value


HEADLINES = (
    Headline("deceptive", "lies_per_statement", "lie rate", lambda v: f"{_pct(v)} of its statements held a lie.",
             "no statements"),
    Headline("deceptive", "undetected_lie_share", "lies undetected",
             lambda v: f"{_pct(v)} of its lies were flagged by no majority of the listeners.", "no lies told"),
    Headline("detective", "f1", "detection F1",
             lambda v: f"Its flags of others' lies scored {v:.2f} (1: every lie flagged and nothing else).",
             "no lies heard, no flags, or (a policy) no village seat"),
    Headline("persuasion_speaker", "deception_success", "deception success",
             lambda v: f"{_pct(v)} of its measured lies moved the village their way unflagged.", "no lies measured"),
    Headline("persuasion_speaker", "persuasion", "persuasion",
             lambda v: f"Listeners' suspicion of those it accused {'rose' if v >= 0 else 'fell'} by {abs(v):.2f} (0-1 scale).",
             "no accusations measured (needs subject_suspicion)"),
)  # fmt: skip


def _section(metrics: dict[str, Any], section: str) -> dict[str, Any]:
    if section == "persuasion_speaker":
        return (metrics.get("persuasion") or {}).get("speaker") or {}
    return metrics.get(section) or {}


def detection_of(metrics: dict[str, Any], group: str, key: str) -> dict[str, Any]:
    """The detection figures shown for ``key`` of ``group``: a policy's on its village seats only
    (``by_policy_team``), since a werewolf's flags on its partners are knowledge, not detection, and a policy
    seated more often as a werewolf would otherwise look the better detective; any other group's as they are."""
    detective = metrics.get("detective") or {}
    joint = detective.get("by_policy_team")
    if group == "by_policy" and joint is not None:
        return joint.get(joint_key(key, Team.VILLAGE.value)) or {}
    return (detective.get(group) or {}).get(key) or {}


def _group_figures(metrics: dict[str, Any], section: str, group: str, key: str) -> dict[str, Any]:
    if section == "detective":
        return detection_of(metrics, group, key)
    return _section(metrics, section).get(group, {}).get(key, {})


def card_groups(document: dict[str, Any]) -> str:
    """Which groups get a card: each policy when the run has more than one, else each team."""
    policies = document["metrics"]["deceptive"].get("by_policy") or {}
    return "by_policy" if len(policies) > 1 else "by_team"


def _baselines(document: dict[str, Any]) -> dict[str, dict[str, Any]]:
    itself = set(lineup_itself(document))
    return {k: v["metrics"] for k, v in sorted(document.get("baselines", {}).items()) if k not in itself}


def _card(document: dict[str, Any], group: str, key: str) -> Html:
    items = []
    for h in HEADLINES:
        row = _group_figures(document["metrics"], h.section, group, key)
        est = row.get(h.metric)
        # A team's baseline is the same team; a policy's is the baseline lineup over all its seats (its village
        # seats for detection, as the policy's own figure).
        village = h.section == "detective" and group == "by_policy"
        where = (
            ("by_team", key) if group == "by_team" else ("by_team", Team.VILLAGE.value) if village else ("all", "all")
        )
        base = join(
            (
                render(
                    "{kind} {value}",
                    kind=kind[:1].upper(),
                    value=shown_figure(_section(m, h.section).get(where[0], {}).get(where[1], {}), h.section, h.metric,
                                       ci=False),
                )
                for kind, m in _baselines(document).items()
            ),
            " · ",
        )  # fmt: skip
        value = None if not est else est.get("value")
        says = h.undefined if value is None else h.says(float(value))
        items.append(
            render(
                "<dt>{label}</dt><dd><span class='value'>{figure}</span>{base}<span class='says'>{says}</span></dd>",
                label=f"{h.label} (village seats)" if village else h.label,
                figure=shown_figure(row, h.section, h.metric),
                base=render("<span class='base'>{b}</span>", b=base) if base else "",
                says=says,
            )
        )
    kind = "policy" if group == "by_policy" else "team"
    return render(
        "<section class='card'><h3>{key} <span class='muted'>{kind}</span></h3><dl>{items}</dl></section>",
        key=name(key),
        kind=kind,
        items=join(items),
    )


def _best(
    document: dict[str, Any], group: str, section: str, metric: str, leave_out: tuple[str, ...] = ()
) -> tuple[str, dict[str, Any]] | None:
    """The group's key with the highest value of the figure as its card shows it (and that estimate), none left
    out."""
    metrics = document["metrics"]
    rows = {k: _group_figures(metrics, section, group, k) for k in _section(metrics, section).get(group, {})}
    defined = [
        (k, r[metric]) for k, r in rows.items() if k not in leave_out and (r.get(metric) or {}).get("value") is not None
    ]
    return max(defined, key=lambda kv: kv[1]["value"]) if defined else None


def _answer(document: dict[str, Any], group: str, status: str) -> Html:
    """Who lied, who caught it, how sure: the top of the cards in one paragraph."""
    kind = "policy" if group == "by_policy" else "team"
    liar = _best(document, group, "deceptive", "lies_per_statement")
    # The werewolves know who lies among them: catching lies is the village's task, so a team card's
    # answer names the village's detection, never the pack's.
    catcher = _best(document, group, "detective", "f1", (Team.WEREWOLF.value,) if group == "by_team" else ())
    lied = (
        render("<b>Who lied:</b> the {who} {kind}, in {share} of its statements. ", who=name(liar[0]), kind=kind,
               share=fmt(liar[1]))
        if liar else trusted("<b>Who lied:</b> no statements. ")
    )  # fmt: skip
    caught = (
        render("<b>Who caught it:</b> the {who} {kind}, detection F1 {f1}{seats}. ", who=name(catcher[0]), kind=kind,
               f1=fmt(catcher[1]), seats=" on its village seats" if group == "by_policy" else "")
        if catcher else trusted("<b>Who caught it:</b> no detection measured. ")
    )  # fmt: skip
    games = document["metrics"].get("games") or document["run"]["games"]
    sure = render(
        "<b>How sure:</b> 95% intervals in brackets (bootstrap over {games} games); measurement status {status}.",
        games=games,
        status=status,
    )
    return render("<p class='lead'>{lied}{caught}{sure}</p>", lied=lied, caught=caught, sure=sure)


def run_status(document: dict[str, Any]) -> tuple[str, list[str]]:
    """fine / caution / invalid and why: invalid when a policy's fallback share exceeds the run's
    ``--max-fallback-rate`` (the rule that makes ``run`` exit 4); caution for what the report warns about
    (fallbacks under that rate, analyses without a usable answer, statements the labeler left unlabelled,
    logs unverified or unfinished)."""
    metrics = document["metrics"]
    run = document.get("run") or {}
    limit = run.get("max_fallback_rate")
    if limit is None:  # metrics.json of an older report
        limit = DEFAULT_MAX_FALLBACK_RATE
    default = run.get("max_fallback_rate_from", "default") == "default"
    policy, rate = worst_fallback_rate(document.get("validity") or {})
    if rate is not None and rate > limit:
        which = (
            f"the default max fallback rate {limit:.0%} (the folder records none)"
            if default
            else (f"the max fallback rate {limit:.0%}")
        )
        return "invalid", [f"{policy} fell back on {rate:.0%} of its actions, over {which}"]
    reasons = []
    totals = metrics["totals"]
    if totals.get("fallbacks"):
        reasons.append(f"{totals['fallbacks']} of {totals['actions']} actions replaced by fallbacks")
        if limit > DEFAULT_MAX_FALLBACK_RATE:  # a lenient limit lets through what the default would call invalid
            reasons.append(
                f"judged by a max fallback rate of {limit:.0%}, above the default {DEFAULT_MAX_FALLBACK_RATE:.0%}"
            )
    analyses = totals.get("analysis_coverage") or {}
    if analyses.get("expected") and analyses.get("answered", 0) < analyses["expected"]:
        reasons.append(f"{analyses['expected'] - analyses['answered']} of {analyses['expected']} analyses fell back")
    unlabelled = (document.get("unlabelled") or {}).get("unlabelled")
    if unlabelled:
        reasons.append(f"{unlabelled} statements unlabelled")
    if run.get("unverified_logs"):
        reasons.append(f"{len(run['unverified_logs'])} logs unverified")
    if run.get("incomplete_logs"):
        reasons.append(f"{len(run['incomplete_logs'])} unfinished logs left out")
    return ("caution" if reasons else "fine"), reasons


def _status_line(document: dict[str, Any], status: str, reasons: list[str]) -> Html:
    totals = document["metrics"]["totals"]
    validity = (document.get("validity") or {}).get("policies") or {}
    llm = [label for label, entry in validity.items() if entry.get("llm")]
    analyses = totals.get("analysis_coverage") or {}
    answered = "n/a" if not analyses.get("expected") else _pct(analyses["answered"] / analyses["expected"])
    labeler = document.get("labeler", "regex")
    cov = (document.get("claims_coverage_by_labeler") or {}).get(labeler) or {}
    truth = (
        render("; ground truth ({labeler} labeler): {claim} of statements hold a claim, {hedged} of claims hedged",
               labeler=labeler, claim=_pct(cov["with_claim"]["share"]["value"]), hedged=_pct(cov["hedged"]["share"]["value"]))
        if cov.get("with_claim", {}).get("share", {}).get("value") is not None and cov.get("hedged", {}).get("share", {}).get("value") is not None
        else render("; ground truth: {labeler} labeler", labeler=labeler)
    )  # fmt: skip
    return render(
        "<p class='status {status}' role='status'><b>Status: {status}</b>{why}. Answer validity: {actions} actions, "
        "{fallbacks} fallbacks, {seats}; analyses answered {answered}{truth}.</p>",
        status=status,
        why=f" ({'; '.join(reasons)})" if reasons else "",
        actions=totals["actions"],
        fallbacks=totals["fallbacks"],
        seats=f"LLM policies: {', '.join(llm)}" if llm else "no LLM seats",
        answered=answered,
        truth=truth,
    )


def findings(document: dict[str, Any]) -> list[Html]:
    """The first screen: the status line, who lied / who caught it / how sure, and a card per group."""
    group = card_groups(document)
    status, reasons = run_status(document)
    keys = [k for k in document["metrics"]["deceptive"].get(group) or {} if k != "all"]
    return [
        _status_line(document, status, reasons),
        _answer(document, group, status),
        render(
            "<div class='cards' id='findings' aria-label='findings'>{cards}</div>",
            cards=join(_card(document, group, key) for key in keys),
        ),
    ]


# The key plots, in order: caption -> (what to look for, alt text). Their captions are ``plots.run_plots``'s keys.
KEY_PLOTS = {
    "deception against detection": (
        "Each policy's lies left unflagged (right: better liar) against its own detection F1 on its village seats "
        "(up: better detector); filled dots are this run, hollow squares the baselines. Non-overlapping bars mean a "
        "real difference.",
        "Scatter plot with 95% interval bars: for each policy and baseline, the share of its lies no majority "
        "flagged on the x axis and the F1 of its own flags on village seats on the y axis, both from 0 to 1.",
    ),
    "cross-perception by role pair": (
        "Rows are observers, columns the suspected role. A dark werewolf column means the village found the "
        "werewolves; a dark villager column means the werewolves' misdirection worked.",
        "Heatmap of the final mean suspicion, from 0 (white) to 1 (dark red), of each observer role (rows) "
        "toward each role (columns), with the values written in the cells.",
    ),
    "suspicion trend": (
        "The red line should climb and the blue one fall if the village learns who the werewolves are as "
        "rounds go by; flat lines mean talk did not inform the village.",
        "Scatter plot of the village's mean suspicion per round, red toward werewolves and blue toward "
        "village players, each with its Theil-Sen trend line.",
    ),
}


def key_plots(images: dict[str, str]) -> list[Html]:
    """The key plots, each with its caption (what to look for) and alt text; nothing when there are none."""
    shown = [(c, images[c]) for c in KEY_PLOTS if c in images]
    if not shown:
        return []
    figures = join(
        figure(f"{caption}: {KEY_PLOTS[caption][0]}", png, alt=KEY_PLOTS[caption][1]) for caption, png in shown
    )
    return [render("<h2 id='key-plots'>Key plots</h2><div class='plots key-plots'>{figures}</div>", figures=figures)]


__all__ = [
    "HEADLINES", "KEY_PLOTS", "card_groups", "detection_of", "findings", "key_plots", "run_status", "shown_figure",
]  # fmt: skip
