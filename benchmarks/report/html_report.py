# ruff: noqa: E501  (HTML templates read better as one line per element than split mid-tag)
"""The offline run report (``report.html``): the findings first (``html_findings``: status, who lied and who
caught it, a card per policy or team, the key plots), then every table with its baselines, folded.

Plain HTML and CSS with images inlined as data URIs, so the page opens from disk with no server and
no network. Every value is escaped (``werewolf_deception.benchmarks.report.html_base.render``). The per-game viewer pages are
``werewolf_deception.benchmarks.report.html_viewer``; the answer-validity and ground-truth sections ``werewolf_deception.benchmarks.report.html_sections``.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any
from urllib.parse import quote

from werewolf_deception.benchmarks.console import lineup_itself
from werewolf_deception.benchmarks.report.html_base import (
    Html,
    esc,
    figure,
    fmt,
    fold,
    join,
    name,
    page,
    render,
    trusted,
)
from werewolf_deception.benchmarks.report.html_findings import KEY_PLOTS, findings, key_plots, shown_figure
from werewolf_deception.benchmarks.report.html_persuasion import persuasion_section
from werewolf_deception.benchmarks.report.html_roles import roles_section
from werewolf_deception.benchmarks.report.html_sections import (
    fmt_coverage,
    ground_truth_section,
    token_section,
    unverified_notice,
    validity_section,
)
from werewolf_deception.benchmarks.report.html_viewer import write_viewer_page, write_viewer_pages
from werewolf_env.analysis import LIE_TYPES, GameRecord

__all__ = ["write_report", "write_run_report", "write_viewer_page", "write_viewer_pages"]


def _metric_table(
    document: dict[str, Any],
    sections: list[tuple[str, str, str]],
    group: str,
    caption: str,
    coverage: list[tuple[str, str, str]] | None = None,
) -> Html:
    """Rows: the groups (all, then each role / policy); columns: the coverage of the analyses the figures
    rest on (answered / asked), then the metrics, at most ``MAX_COLUMNS`` a table (so a table fits the page);
    each cell: run value [95% CI] and, below it, the same metric for the heuristic (H) and random (R)
    baselines (the run's own lineup as a baseline is not repeated)."""
    metrics = document["metrics"]
    coverage = coverage or []
    keys: list[str] = []
    for section, _, _ in sections:
        for key in metrics[section].get(group, {}):
            if key not in keys:
                keys.append(key)
    if group != "all":
        keys = [k for k in keys if k != "all"]
    columns = [(True, c) for c in coverage] + [(False, c) for c in sections]
    chunks = [columns[i : i + MAX_COLUMNS] for i in range(0, len(columns), MAX_COLUMNS)]
    return join(
        _metric_chunk(
            document, chunk, group, caption if len(chunks) == 1 else f"{caption} ({n} of {len(chunks)})", keys
        )
        for n, chunk in enumerate(chunks, 1)
    )


def _metric_chunk(
    document: dict[str, Any],
    columns: list[tuple[bool, tuple[str, str, str]]],
    group: str,
    caption: str,
    keys: list[str],
) -> Html:
    metrics = document["metrics"]
    itself = set(lineup_itself(document))
    baselines = {k: v["metrics"] for k, v in document.get("baselines", {}).items() if k not in itself}
    head = join(render("<th>{label}</th>", label=label) for _, (_, _, label) in columns)
    rows = []
    for key in keys:
        cells = []
        for is_coverage, (section, metric, _) in columns:
            if is_coverage:
                cov = metrics[section].get(group, {}).get(key, {}).get(metric)
                cells.append(render('<td class="num">{cov}</td>', cov=fmt_coverage(cov)))
                continue
            values = metrics[section].get(group, {}).get(key, {})
            base = []
            for kind, m in sorted(baselines.items()):
                b = m.get(section, {}).get(group, {}).get(key, {})
                if b.get(metric) is not None:
                    base.append(
                        render(
                            "{kind} {value}", kind=kind[:1].upper(), value=shown_figure(b, section, metric, ci=False)
                        )
                    )
            extra = render('<span class="base">{base}</span>', base=join(base, " · ")) if base else ""
            cells.append(
                render('<td class="num">{value}{extra}</td>', value=shown_figure(values, section, metric), extra=extra)
            )
        rows.append(render("<tr><th>{key}</th>{cells}</tr>", key=name(key), cells=join(cells)))
    return render(
        '<div class="wide"><table><caption>{caption}</caption><tr><th></th>{head}</tr>{rows}</table></div>',
        caption=caption,
        head=head,
        rows=join(rows),
    )


MAX_COLUMNS = 6  # a table's columns besides the row names: wider ones are split, so none outgrows a 1280 px window
GAMES_PER_TABLE = 50  # the games table is split into tables of this many rows
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


def _lie_types_table(document: dict[str, Any], group: str) -> Html:
    metrics = document["metrics"]["deceptive"].get(group, {})
    head = join(render("<th>{t}</th>", t=t) for t in LIE_TYPES)
    rows = []
    for key, values in metrics.items():
        if group != "all" and key == "all":
            continue
        by_type = values.get("lies_by_type_per_statement", {})
        cells = join(render('<td class="num">{v}</td>', v=fmt(by_type.get(t))) for t in LIE_TYPES)
        rows.append(
            render(
                "<tr><th>{key}</th><td class='num'>{n}</td>{cells}</tr>",
                key=name(key),
                n=values.get("statements", 0),
                cells=cells,
            )
        )
    return render(
        "<table><caption>lies by type, per statement</caption><tr><th></th><th>statements</th>{head}</tr>{rows}</table>",
        head=head,
        rows=join(rows),
    )


def _shade(value: float | None) -> Html:
    """A heat cell's background: the darker, the higher (0-1)."""
    return esc("") if value is None else render(' style="background:rgba(200,30,30,{alpha:.2f})"', alpha=float(value))


def _role_pair_table(pairs: dict[str, dict[str, float | None]]) -> Html:
    roles = list(pairs)
    head = join(render("<th>{r}</th>", r=r) for r in roles)
    rows = []
    for a in roles:
        cells = join(
            render('<td class="num"{style}>{value}</td>', style=_shade(v), value="" if v is None else f"{v:.2f}")
            for v in (pairs[a].get(b) for b in roles)
        )
        rows.append(render("<tr><th>{a}</th>{cells}</tr>", a=a, cells=cells))
    return render(
        "<table><caption>observer role (rows) → subject role (columns)</caption><tr><th></th>{head}</tr>{rows}</table>",
        head=head,
        rows=join(rows),
    )


def viewer_href(game: str) -> str:
    """The report's link to a game's viewer page (``html_viewer.viewer_file``), any file name percent-encoded."""
    return f"viewer/{quote(game, safe='')}.html"


def _games_table(per_game: Iterable[dict[str, Any]]) -> list[Html]:
    """One row per game, from the metrics document's per-game rows (no game record needed), in tables of
    ``GAMES_PER_TABLE`` rows."""
    rows = [
        render(
            "<tr><td><a href='{href}'>{game}</a></td><td class='num'>{seed}</td><td>{winner}</td><td class='num'>{rounds}</td>"
            "<td class='num'>{statements}</td><td class='num'>{lies}</td><td>{policies}</td></tr>",
            href=viewer_href(str(row["game"])),
            game=name(row["game"]),
            seed=row.get("seed"),
            winner=row.get("winner") or "undecided",
            rounds=row.get("rounds"),
            statements=row.get("statements"),
            lies=row.get("lies"),
            policies=name(row.get("policies")),
        )
        for row in per_game
    ]
    return [trusted("<h2>Games</h2>")] + [
        render(
            "<table><caption>games {first} to {last}</caption><tr><th>game</th><th>seed</th><th>winner</th>"
            "<th>rounds</th><th>statements</th><th>lies</th><th>policies</th></tr>{rows}</table>",
            first=start + 1,
            last=start + len(rows[start : start + GAMES_PER_TABLE]),
            rows=join(rows[start : start + GAMES_PER_TABLE]),
        )
        for start in range(0, len(rows), GAMES_PER_TABLE)
    ]


def _outcomes(document: dict[str, Any]) -> Html:
    rows = []
    itself = set(lineup_itself(document))
    for team, est in document["metrics"]["outcomes"].items():
        base = join(
            (
                render("{kind} {value}", kind=k[:1].upper(), value=fmt(v["metrics"]["outcomes"].get(team), ci=False))
                for k, v in sorted(document.get("baselines", {}).items())
                if k not in itself
            ),
            " · ",
        )
        rows.append(
            render(
                "<tr><th>{team}</th><td class='num'>{value}<span class='base'>{base}</span></td></tr>",
                team=team,
                value=fmt(est),
                base=base,
            )
        )
    return render("<h2>Outcomes</h2><table><tr><th>team</th><th>win rate</th></tr>{rows}</table>", rows=join(rows))


def _totals(totals: dict[str, Any]) -> Html:
    unlabelled = (
        render(" ({n} unlabelled)", n=totals["unlabelled_statements"]) if totals.get("unlabelled_statements") else ""
    )
    return render(
        "<p>{statements} statements{unlabelled}, {lies} grounded lies; {actions} actions, {fallbacks} replaced by "
        "fallbacks; analyses answered: {analyses}; tokens: {prompt} prompt ({cached} cached), {completion} completion.</p>",
        statements=totals["statements"],
        unlabelled=unlabelled,
        lies=totals["lies"],
        actions=totals["actions"],
        fallbacks=totals["fallbacks"],
        analyses=fmt_coverage(totals.get("analysis_coverage")) or "n/a",
        prompt=totals["prompt_tokens"],
        cached=totals.get("cached_tokens", 0),
        completion=totals["completion_tokens"],
    )


def _intro(document: dict[str, Any], title: str | None) -> list[Html]:
    """The title and one line on what was run (shown on the first screen), and the unverified logs, if any."""
    run = document["run"]
    config = run["config"] if isinstance(run.get("config"), dict) else {}
    parts = [
        render("<h1>{title}</h1>", title=title or "Werewolf deception report"),
        render("<p class='lead'>{games} games from <code>{dir}</code>; lineups: {lineups}; {players} players ({wolves} werewolves), "
               "analysis={analysis}; claims and lie labels: {labeler} labeler. Baselines (same rules and seeds): {note}.</p>",
               games=run["games"], dir=run["dir"], lineups=join((name(x) for x in run["lineups"]), ", "),
               players=config.get("num_players"), wolves=config.get("num_werewolves"), analysis=config.get("analysis"),
               labeler=document.get("labeler", "regex"), note=_baseline_note(document) or "none"),
    ]  # fmt: skip
    return parts + unverified_notice(document)


def _baseline_note(document: dict[str, Any]) -> str:
    itself = set(lineup_itself(document))
    return ", ".join(
        f"{k} = the lineup itself, not repeated"
        if k in itself
        else f"{k} ({v['games']} games; {k[:1].upper()} beside the figures)"
        for k, v in document.get("baselines", {}).items()
    )


def _intro_details(document: dict[str, Any]) -> list[Html]:
    run = document["run"]
    parts = [
        render("<p>{generated_by}. Each figure is followed by its 95% interval (bootstrap over games; Wilson for "
               "team wins) and, beside or below it, the same figure for the baselines under the same rules and "
               "seeds: {note}.</p>", generated_by=document["generated_by"], note=_baseline_note(document) or "none"),
    ]  # fmt: skip
    if run["incomplete_logs"]:
        parts.append(render("<p>Unfinished logs left out: {n}.</p>", n=len(run["incomplete_logs"])))
    return parts


def _more_plots(images: dict[str, str], plot_note: str | None) -> list[Html]:
    """The plots that are not key plots (``KEY_PLOTS``), or why there are none."""
    if not images:
        return [trusted("<h2>More plots</h2>"), render("<p class='muted'>{note}</p>", note=plot_note or "no plots")]
    rest = {c: png for c, png in images.items() if c not in KEY_PLOTS}
    return [
        trusted("<h2>More plots</h2>"),
        render('<div class="plots">{figures}</div>', figures=join((figure(c, png) for c, png in rest.items()), "\n")),
    ]


def _slope(value: float | None) -> str:
    """A slope with two decimals and its sign, as every other figure of the page (5 decimals once showed)."""
    return "n/a" if value is None else f"{value:+.2f}"


def _detail_sections(
    document: dict[str, Any], images: dict[str, str], plot_note: str | None
) -> list[tuple[str, str, list[Html]]]:
    """The folded sections, in order: (anchor, title, parts)."""
    metrics = document["metrics"]
    out = [
        (
            "run",
            "Run, outcomes and totals",
            [*_intro_details(document), _outcomes(document), _totals(metrics["totals"])],
        ),
        ("validity", "Answer validity", validity_section(document)),
        ("ground-truth", "Ground truth coverage", ground_truth_section(document)),
    ]
    tokens = token_section(document)
    if tokens:
        out.append(("tokens", "LLM calls and tokens", tokens))
    for anchor, heading, sections, note, coverage in (
        ("deceptive", "Deceptive capacity", DECEPTIVE, "by the speaker's", DECEPTIVE_COVERAGE),
        ("detective", "Detective capacity", DETECTIVE, "by the observer's", DETECTIVE_COVERAGE),
        ("self-report", "Self-report honesty", SELF_REPORT, "by the speaker's", SELF_REPORT_COVERAGE),
        ("votes", "Votes", VOTES, "by the voter's", None),
        ("paper", "The design paper's per-player metrics", PAPER, "by the player's", PAPER_COVERAGE),
    ):
        parts = [
            _metric_table(document, sections, group, "all" if group == "all" else f"{note} {group[3:]}", coverage)
            for group in ("all", "by_role", "by_team", "by_policy")
        ]
        if anchor == "deceptive":
            parts.append(_lie_types_table(document, "by_role"))
        out.append((anchor, heading, parts))
    roles = roles_section(document)
    if roles:
        out.append(("roles", "Roles, deaths and night actions", roles))
    persuasion = persuasion_section(document, _metric_table)
    if persuasion:
        out.append(("persuasion", "Persuasion: what statements did to the listeners", persuasion))
    trend = metrics["suspicion_trend"]
    out.append(
        (
            "perception",
            "Cross-perception and suspicion over rounds",
            [
                _role_pair_table(metrics["matrix_by_role_pair"]),
                render(
                    "<p>Theil-Sen slope per round of the village's mean suspicion: toward werewolves {wolves}, "
                    "toward village players {village}.</p>",
                    wolves=_slope(trend["toward_werewolf"]["slope_per_round"]),
                    village=_slope(trend["toward_village"]["slope_per_round"]),
                ),
            ],
        )
    )
    out.append(("plots", "More plots", _more_plots(images, plot_note)))
    out.append(("games", "Games", _games_table(document.get("per_game") or [])))
    return out


def write_run_report(
    document: dict[str, Any], images: dict[str, str], path: Path, title: str | None = None, plot_note: str | None = None
) -> None:
    """Write ``report.html`` from the metrics document (its ``per_game`` rows list the games) and the
    run-level plots (caption -> PNG path); nothing here needs a game record. The answer first (status,
    findings cards), the key plots next, then every table folded, with a table of contents."""
    details = _detail_sections(document, images, plot_note)
    toc = join(
        (render("<a href='#{anchor}'>{title}</a>", anchor=a, title=t) for a, t, _ in
         [("findings", "Findings", []), ("key-plots", "Key plots", []), *details]),
        " ",
    )  # fmt: skip
    parts = [
        *_intro(document, title),
        render("<nav class='toc' aria-label='contents'><b>Contents:</b> {links}</nav>", links=toc),
        *findings(document),
        *key_plots(images),
        *(fold(anchor, heading, section) for anchor, heading, section in details),
    ]
    path.write_text(page(title or "Werewolf deception report", join(parts, "\n")), encoding="utf-8")


def write_report(
    document: dict[str, Any],
    names: list[str],
    records: list[GameRecord],
    images: dict[str, str],
    path: Path,
    title: str | None = None,
    plot_note: str | None = None,
) -> None:
    """``write_run_report`` under its earlier signature: the games table now comes from ``document``'s
    per-game rows, so ``names`` and ``records`` are not read (callers that stream games can drop them)."""
    write_run_report(document, images, path, title, plot_note)
