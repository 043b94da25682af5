# ruff: noqa: E501  (HTML templates read better as one f-string per element than split mid-tag)
"""Offline HTML: the run report (``report.html``) and one viewer page per game (``viewer/<game>.html``).

Plain HTML and CSS with images inlined as data URIs, so a page opens from disk with no server and
no network. The only script on a viewer page is the switch that hides or shows hidden information
(roles, night actions, private analyses, ground-truth labels), which is always marked as such.
"""

from __future__ import annotations

import base64
import html
from pathlib import Path
from typing import Any

from werewolf_env.metrics import LIE_TYPES, GameRecord, StatementRecord

CSS = """
body{font-family:system-ui,-apple-system,Segoe UI,sans-serif;margin:2rem auto;max-width:72rem;padding:0 1rem;
color:#1d1d1f;line-height:1.45}
h1{font-size:1.6rem}h2{font-size:1.25rem;margin-top:2.2rem;border-bottom:1px solid #ddd}h3{font-size:1.05rem}
table{border-collapse:collapse;margin:.6rem 0;font-size:.86rem}td,th{border:1px solid #ddd;padding:.25rem .45rem;
vertical-align:top}th{background:#f5f5f7;text-align:left}td.num{text-align:right;white-space:nowrap}
.ci{color:#666;font-size:.78rem}.base{color:#888;font-size:.75rem;display:block}
.hidden-info{background:#fff4e5;border-left:3px solid #f0a030}.hidden-info::before{content:"hidden \\1F512  ";
font-size:.7rem;color:#a06000;font-weight:600}td.hidden-info::before,span.hidden-info::before{content:""}
body.hide-hidden .hidden-info{display:none}
.statement{border:1px solid #ddd;border-radius:6px;padding:.5rem .8rem;margin:.7rem 0}
.statement .text{font-size:1.02rem;margin:.3rem 0}.lie{color:#b00020;font-weight:600}.truthful{color:#186a3b}
.wide{overflow-x:auto}.event{margin:.2rem 0;font-size:.9rem}.phase{margin-top:1.4rem}.muted{color:#777}
.badge{display:inline-block;border-radius:3px;padding:0 .35rem;font-size:.75rem;background:#eee;margin-left:.3rem}
.cov{color:#555;font-size:.75rem;display:block}.nvp{color:#b00020;font-weight:600}
.warn{background:#fdecea;border-left:3px solid #b00020;padding:.3rem .6rem}tr.kind th{font-weight:400;padding-left:1.2rem}
img{max-width:100%;border:1px solid #eee;margin:.4rem 0}.plots{display:grid;grid-template-columns:repeat(auto-fill,
minmax(30rem,1fr));gap:1rem}
"""

_TOGGLE = """<label><input type="checkbox" id="hide-hidden"> hide hidden information (what no player saw)</label>
<script>
document.getElementById("hide-hidden").addEventListener("change", function (e) {
  document.body.classList.toggle("hide-hidden", e.target.checked);
});
</script>"""


def esc(value: Any) -> str:
    return html.escape("" if value is None else str(value), quote=True)


def page(title: str, body: str) -> str:
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        f'<meta name="viewport" content="width=device-width, initial-scale=1"><title>{esc(title)}</title>'
        # An inline icon: without one the browser asks for /favicon.ico, which fails from a file: URL.
        '<link rel="icon" href="data:,">'
        f"<style>{CSS}</style></head>\n<body>\n{body}\n</body></html>\n"
    )


def data_uri(png: Path) -> str:
    return "data:image/png;base64," + base64.b64encode(png.read_bytes()).decode("ascii")


def fmt(est: dict[str, Any] | None, digits: int = 2, ci: bool = True) -> str:
    if not est or est.get("value") is None:
        return '<span class="muted">n/a</span>'
    text = f"{est['value']:.{digits}f}"
    low, high = est.get("ci", [None, None])
    if ci and low is not None and high is not None:
        text += f' <span class="ci">[{low:.{digits}f}, {high:.{digits}f}]</span>'
    return text


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
        f"analysis={esc(config.get('analysis'))}. {esc(document['generated_by'])}.</p>",
        "<p>Each figure is followed by its 95% interval (bootstrap over games; Wilson for team wins) and, "
        f"below it, the same figure for the baselines under the same rules and seeds: {esc(base_note or 'none')} "
        "(H = heuristic, R = random).</p>",
    ]  # fmt: skip
    if run["incomplete_logs"]:
        parts.append(f"<p>Unfinished logs left out: {len(run['incomplete_logs'])}.</p>")
    parts.extend(_validity_section(document))
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
        f"<p>{totals['statements']} statements, {totals['lies']} grounded lies; {totals['actions']} actions, "
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


# ---------------------------------------------------------------------- one game


def _claim(claim: dict[str, Any], names: list[str]) -> str:
    who = (
        names[claim["player"]]
        if isinstance(claim.get("player"), int) and claim["player"] < len(names)
        else claim.get("player")
    )
    what = claim.get("role") or claim.get("team") or ""
    neg = "not " if claim.get("negated") else ""
    text = f"{esc(claim.get('kind'))}: {esc(who)} {neg}{esc(what)}"
    if "known_false" in claim:
        verdict = "known false" if claim["known_false"] else ("true" if claim.get("true") else "false, not known")
        text += f' <span class="badge hidden-info">{verdict}</span>'
    return f"<li>{text}</li>"


def _peer_verdict(st: StatementRecord) -> str:
    """The peers' majority, from the analyses they answered (fallbacks are no verdict)."""
    answered = len(st.answered_peers)
    fell_back = len(st.peer_labels) - answered
    if st.peer_labels and not answered:
        return f"no valid predictions (all {fell_back} peer analyses fell back)"
    text = f"peers flagged {st.peer_flags}/{answered}{' (detected)' if st.peer_detected else ''}"
    return text + (f"; {fell_back} peer analyses fell back and are not counted" if fell_back else "")


def _statement(st: StatementRecord, record: GameRecord) -> str:
    names = record.names
    truth = f'<span class="lie">LIE ({esc(st.lie_type)})</span>' if st.lie else '<span class="truthful">truthful</span>'
    claims = "".join(_claim(c, names) for c in st.claims) or "<li class='muted'>no claims</li>"
    parts = [
        f'<article class="statement" data-statement="{st.id}">',
        f"<div>#{st.id} · {esc(names[st.speaker])} "
        f'<span class="badge hidden-info">{esc(record.roles[st.speaker])}</span>'
        + (' <span class="badge">truncated</span>' if st.truncated else "")
        + "</div>",
        f'<p class="text">“{esc(st.text)}”</p>',
        f"<ul class='claims'>{claims}</ul>",
        f'<div class="hidden-info">ground truth: {truth}; {_peer_verdict(st)}</div>',
    ]
    if st.self_label is not None:
        s = st.self_label
        parts.append(
            f'<div class="hidden-info">self-analysis: {"deceptive" if s.is_deceptive else "honest"} '
            f"({s.confidence:.2f}, {esc(s.deception_type)}){' [fallback]' if s.fallback else ''}: {esc(s.reasoning)}</div>"
        )
    if st.peer_labels:
        rows = "".join(
            f"<tr><td>{esc(names[lb.observer])}</td><td>{'yes' if lb.is_deceptive else 'no'}</td>"
            f"<td class='num'>{lb.confidence:.2f}</td><td>{esc(lb.deception_type)}</td>"
            f"<td class='num'>{'' if lb.suspicion is None else f'{lb.suspicion:.2f}'}</td>"
            f"<td class='num'>{'' if lb.score is None else f'{lb.score:.3f}'}</td>"
            f"<td>{esc(lb.reasoning)}{' [fallback]' if lb.fallback else ''}</td></tr>"
            for lb in st.peer_labels
        )
        parts.append(
            '<table class="peers hidden-info"><tr><th>peer</th><th>deceptive</th><th>confidence</th><th>type</th>'
            f"<th>suspicion</th><th>score after</th><th>reasoning</th></tr>{rows}</table>"
        )
    parts.append("</article>")
    return "\n".join(parts)


def _matrix(record: GameRecord) -> str:
    names = record.names
    m = record.final_matrix
    head = "".join(f"<th>{esc(n)}</th>" for n in names)
    rows = []
    for i, n in enumerate(names):
        cells = "".join(
            "<td></td>"
            if i == j
            else f'<td class="num" style="background:rgba(200,30,30,{m[i, j]:.2f})">{m[i, j]:.2f}</td>'
            for j in range(len(names))
        )
        rows.append(f"<tr><th>{esc(n)}</th>{cells}</tr>")
    return f'<table class="hidden-info"><caption>final cross-perception (row suspects column)</caption><tr><th></th>{head}</tr>{"".join(rows)}</table>'


def game_page(record: GameRecord, name: str, images: dict[str, str] | None = None) -> str:
    names = record.names
    by_id = {st.id: st for st in record.statements}
    alive = record.alive_at_end()
    roster = "".join(
        f"<tr><td>{esc(n)}</td><td class='hidden-info'>{esc(record.roles[s])}</td><td>{esc(record.policies[s])}</td>"
        f"<td>{'alive' if alive[s] else 'dead'}</td></tr>"
        for s, n in enumerate(names)
    )
    parts = [
        f"<h1>Game {esc(name)}</h1>",
        f"<p>seed {record.seed}; winner: <b>{esc(record.winner or 'nobody (undecided)')}</b>; {record.rounds} rounds; "
        f"{len(record.statements)} statements, {sum(s.lie for s in record.statements)} lies. "
        '<a href="../report.html">back to the report</a></p>',
        _TOGGLE,
        f"<table><tr><th>player</th><th>role</th><th>policy</th><th>at the end</th></tr>{roster}</table>",
    ]  # fmt: skip
    for e in record.events:
        kind, data, actor = e["type"], e.get("data") or {}, e.get("actor")
        who = names[actor] if isinstance(actor, int) else None
        if kind == "night_start":
            parts.append(f'<h2 class="phase">Night {e["round"]}</h2>')
        elif kind == "day_start":
            parts.append(f'<h2 class="phase">Day {e["round"]}</h2>')
        elif kind == "action" and data.get("kind") in ("eliminate", "protect", "unmask") and isinstance(actor, int):
            target = (data.get("parsed") or {}).get("target")
            tname = names[target] if isinstance(target, int) else "nobody"
            parts.append(
                f'<div class="event hidden-info">{esc(who)} ({esc(record.roles[actor])}) {data["kind"]}s {esc(tname)}</div>'
            )
        elif kind == "pack_decision":
            target = data.get("target")
            parts.append(
                f'<div class="event hidden-info">the pack chooses {esc(names[target] if isinstance(target, int) else "nobody")}</div>'
            )
        elif kind == "seer_result":
            parts.append(
                f'<div class="event hidden-info">{esc(who)} learns: {esc(names[data["target"]])} is {esc(data.get("result"))}</div>'
            )
        elif kind == "night_outcome":
            saved = " but the doctor saved them" if data.get("saved") else ""
            target = data.get("target")
            parts.append(
                f'<div class="event hidden-info">night outcome: target {esc(names[target] if isinstance(target, int) else "nobody")}{saved}</div>'
            )
        elif kind == "death":
            victim = data.get("victim")
            if victim is None:
                parts.append('<div class="event">Nobody died in the night.</div>')
            else:
                how = "was exiled" if data.get("cause") == "exile" else "died in the night"
                parts.append(f'<div class="event"><b>{esc(names[victim])}</b> {how}.</div>')
        elif kind == "floor":
            parts.append(
                f'<div class="event muted">{esc(names[data["speaker"]])} takes the floor (bid {esc(data.get("bid"))})</div>'
            )
        elif kind == "statement":
            st = by_id.get(int(data["statement_id"]))
            if st is not None:
                parts.append(_statement(st, record))
        elif kind == "votes":
            rows = "".join(
                f"<tr><td>{esc(names[int(v)])}</td><td>{esc(names[t] if t is not None else 'abstain')}</td></tr>"
                for v, t in data["votes"].items()
            )
            exiled = data.get("exiled")
            result = f"{names[exiled]} exiled" if exiled is not None else "no majority: nobody exiled"
            parts.append(
                f'<table class="votes"><caption>votes: {esc(result)}</caption><tr><th>voter</th><th>vote</th></tr>{rows}</table>'
            )
        elif kind == "summary":
            parts.append(f'<div class="event">{esc(who)} sums up: “{esc(data.get("text"))}”</div>')
        elif kind == "game_over":
            parts.append(f'<h2 class="phase">End: {esc(data.get("winner") or "undecided")}</h2>')
    parts.append(_matrix(record))
    for caption, png in (images or {}).items():
        parts.append(
            f'<figure><img src="{data_uri(Path(png))}" alt="{esc(caption)}"><figcaption>{esc(caption)}</figcaption></figure>'
        )
    return page(f"Werewolf game {name}", "\n".join(parts))


def write_viewer_pages(
    records: list[GameRecord], names: list[str], folder: Path, images: dict[str, dict[str, str]] | None = None
) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    for name, record in zip(names, records, strict=True):
        (folder / f"{name}.html").write_text(game_page(record, name, (images or {}).get(name)), encoding="utf-8")
