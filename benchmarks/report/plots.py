"""Report plots (matplotlib, the ``report`` extra; imported only when a report asks for plots).

Run-level: deception against detection per policy (next to the baselines), cross-perception averaged by
role pair, detection precision / recall by observer role,
the reliability diagram of stated confidence, win rates by role next to the baselines, how each role died
(by cause: the pack, a poison, an exile, a shot), the belief shifts of lies and of true statements by the
speaker's role (metrics schema 6: ``persuasion``), and the
village's suspicion over rounds with its Theil-Sen trend. Per game: the final cross-perception
heatmap and each player's suspicion over the game with deaths and exiles marked.

Any printable name works: every text is drawn as written (``_literal_text``: no mathtext, no LaTeX, so
``$x_$`` or ``a\\b`` neither crash a plot nor turn into formulas), and the names, roles and policies a
log supplies pass through ``_label``, which shows bidirectional controls inert. The per-game figures
show roles and suspicion scores: the viewer marks them as hidden information.
"""

from __future__ import annotations

import functools
import textwrap
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import matplotlib

matplotlib.use("Agg")  # files only: no display, no GUI toolkit

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.patches import Patch

from werewolf_deception.benchmarks.console import lineup_itself
from werewolf_deception.benchmarks.report.html_findings import detection_of
from werewolf_env.analysis import GameRecord, cause_order, suspicion_by_round
from werewolf_env.core import Team, visible_controls

Plotter = TypeVar("Plotter", bound=Callable[..., Any])


def _literal_text(plot: Plotter) -> Plotter:
    """Draw every text of ``plot`` as written: names come from logs, and matplotlib would otherwise read
    ``$...$`` as mathtext (raising on ``$x_$``) or hand text to LaTeX under a user's ``text.usetex``."""

    @functools.wraps(plot)
    def literal(*args: Any, **kwargs: Any) -> Any:
        with plt.rc_context({"text.parse_math": False, "text.usetex": False}), warnings.catch_warnings():
            # A name in a script the font lacks is drawn as boxes: say nothing for each missing glyph.
            warnings.filterwarnings("ignore", message="Glyph .* missing from", category=UserWarning)
            return plot(*args, **kwargs)

    return literal  # type: ignore[return-value]


def _label(value: Any) -> str:
    """A name, role or policy from a log as plot text, bidirectional controls shown inert."""
    return visible_controls(str(value))


def _save(fig: Any, path: Path) -> str:
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.tight_layout()
    fig.savefig(path, dpi=90)
    plt.close(fig)
    return str(path)


def _heatmap(ax: Any, matrix: np.ndarray, labels: list[str], title: str, annotate: bool = True) -> None:
    masked = np.ma.masked_invalid(matrix)
    image = ax.imshow(masked, vmin=0, vmax=1, cmap="Reds")
    ax.set_xticks(range(len(labels)), labels, rotation=45, ha="right")
    ax.set_yticks(range(len(labels)), labels)
    ax.set_xlabel("suspected")
    ax.set_ylabel("observer")
    ax.set_title(title)
    for i in range(matrix.shape[0] if annotate else 0):  # the game viewer's table shows per-game numbers
        for j in range(matrix.shape[1]):
            if np.isfinite(matrix[i, j]):
                ax.text(j, i, f"{matrix[i, j]:.2f}", ha="center", va="center", fontsize=7)
    plt.colorbar(image, ax=ax, fraction=0.046)


def _ci_bars(
    ax: Any, x: np.ndarray, ests: list[dict[str, Any] | None], width: float, label: str, color: str | None = None
) -> None:
    values = np.array([e["value"] if e and e["value"] is not None else np.nan for e in ests])
    low = np.array([e["ci"][0] if e and e["ci"][0] is not None else np.nan for e in ests])
    high = np.array([e["ci"][1] if e and e["ci"][1] is not None else np.nan for e in ests])
    err = np.vstack([np.nan_to_num(values - low), np.nan_to_num(high - values)])
    shown = np.isfinite(values)  # an undefined figure gets no bar: a zero-height bar would read as 0.00
    ax.bar(x[shown], values[shown], width, yerr=err[:, shown], capsize=3, label=label, color=color)


def _grouped_bars(
    ax: Any,
    categories: list[str],
    series: dict[str, list[dict[str, Any] | None]],
    title: str,
    no_predictions: list[bool] | None = None,
) -> None:
    """One group of bars per category, one bar (with its 95% CI) per series, on a 0-1 scale; categories
    flagged in ``no_predictions`` are marked as such instead of drawn."""
    x = np.arange(len(categories))
    width = 0.8 / max(1, len(series))
    for k, (label, ests) in enumerate(series.items()):
        # A fixed colour per series: with no bar drawn, the colour cycle would not advance.
        _ci_bars(ax, x + (k - (len(series) - 1) / 2) * width, ests, width, label, color=f"C{k}")
    for i, missing in enumerate(no_predictions or []):
        if missing:
            ax.text(x[i], 0.5, "no valid\npredictions", ha="center", va="center", fontsize=8, color="#b00020")
    ax.set_xticks(x, categories)
    ax.set_ylim(0, 1.05)
    ax.set_title(title)
    # Legend patches of our own: a series with no bar drawn would otherwise get no colour in the legend.
    ax.legend(handles=[Patch(color=f"C{k}", label=_label(label)) for k, label in enumerate(series)], fontsize=8)


def _legend(ax: Any) -> None:
    if ax.get_legend_handles_labels()[0]:  # an empty legend only warns
        ax.legend(fontsize=8)


def _coverage_tick(cov: dict[str, Any] | None) -> str:
    return f"{cov['answered']}/{cov['expected']}" if cov else ""


@_literal_text
def run_plots(document: dict[str, Any], records: list[GameRecord], folder: Path) -> dict[str, str]:
    """The run-level figures as PNG files; returns caption -> path."""
    metrics = document["metrics"]
    out: dict[str, str] = {}

    out["deception against detection"] = _save(
        _deception_against_detection(document), folder / "deception_against_detection.png"
    )

    pairs = metrics["matrix_by_role_pair"]
    roles = list(pairs)
    matrix = np.array([[np.nan if pairs[a][b] is None else pairs[a][b] for b in roles] for a in roles])
    fig, ax = plt.subplots(figsize=(5, 4.2))
    _heatmap(ax, matrix, [_label(r) for r in roles], "Final suspicion, mean by role pair")
    out["cross-perception by role pair"] = _save(fig, folder / "cross_perception_by_role.png")

    detective = metrics["detective"]["by_role"]
    roles = list(detective)
    fig, ax = plt.subplots(figsize=(6, 3.8))
    series = {name: [detective[r][name] for r in roles] for name in ("precision", "recall", "f1")}
    # Each role's coverage under its name: the bars rest on the answered analyses only.
    ticks = [f"{_label(r)}\n{_coverage_tick(detective[r].get('coverage'))}" for r in roles]
    missing = [bool(detective[r].get("no_valid_predictions")) for r in roles]
    _grouped_bars(ax, ticks, series, "Peer detection of grounded lies, by observer role (95% CI)", missing)
    ax.set_xlabel("observer role (analyses answered / asked)")
    out["detection by observer role"] = _save(fig, folder / "detection_by_role.png")

    fig, ax = plt.subplots(figsize=(5, 4.2))
    ax.plot([0, 1], [0, 1], color="#999", linestyle="--", linewidth=1)
    curves = {"all": metrics["detective"]["all"]["all"], **detective}
    for name, values in curves.items():
        points = values.get("reliability") or []
        if points:
            ax.plot([p["stated"] for p in points], [p["observed"] for p in points], marker="o", label=_label(name))
    if not any(values.get("reliability") for values in curves.values()):  # nothing answered: say so, draw no curve
        ax.text(0.5, 0.5, "no valid predictions", ha="center", va="center", color="#b00020")
    ax.set_xlabel("stated probability that the statement is deceptive")
    ax.set_ylabel("observed share of lies")
    cov = metrics["detective"]["all"]["all"].get("coverage")
    answered = f"\n{_coverage_tick(cov)} analyses answered" if cov else ""
    ax.set_title(f"Calibration of peer analyses (reliability){answered}")
    _legend(ax)
    out["calibration"] = _save(fig, folder / "calibration.png")

    itself = set(lineup_itself(document))  # the run's own lineup as a baseline: the same bars again, left out
    lineups = {"this run": metrics} | {
        k: v["metrics"] for k, v in sorted(document.get("baselines", {}).items()) if k not in itself
    }
    roles = sorted({r for m in lineups.values() for r in m["players"]["by_role"]})
    fig, ax = plt.subplots(figsize=(6.5, 3.8))
    series = {
        label: [m["players"]["by_role"].get(r, {}).get("win_rate") for r in roles] for label, m in lineups.items()
    }
    _grouped_bars(ax, [_label(r) for r in roles], series, "Win rate by role and lineup (95% CI)")
    out["win rates"] = _save(fig, folder / "win_rates.png")

    deaths = _deaths_by_role(metrics)
    if deaths is not None:
        out["deaths by role and cause"] = _save(deaths, folder / "deaths_by_role.png")

    shifts = _shifts_by_role(metrics)
    if shifts is not None:
        out["belief shifts of lies and truths by speaker role"] = _save(shifts, folder / "belief_shift_by_role.png")

    fig, ax = plt.subplots(figsize=(6, 3.8))
    trend = metrics["suspicion_trend"]
    for team, colour in (("werewolf", "#c0392b"), ("village", "#2e86c1")):
        points = [(rnd, v) for rec in records for rnd, v in suspicion_by_round(rec)[team].items()]
        if not points:
            continue
        xs, ys = np.array(points).T
        jitter = np.random.default_rng(0).uniform(-0.12, 0.12, xs.size)
        ax.scatter(xs + jitter, ys, s=8, alpha=0.35, color=colour)
        t = trend[f"toward_{team}"]
        if t["slope_per_round"] is not None:
            line = np.linspace(xs.min(), xs.max(), 2)
            ax.plot(
                line,
                t["intercept"] + t["slope_per_round"] * line,
                color=colour,
                label=f"toward {team}: slope {t['slope_per_round']:+.2f}/round",
            )
    ax.set_xlabel("round")
    ax.set_ylabel("village's mean suspicion")
    # Suspicion is a probability: a steep trend line is cut at the axes instead of stretching them past 0 or 1.
    ax.set_ylim(-0.02, 1.02)
    ax.set_title("Suspicion over rounds (Theil-Sen trend)")
    _legend(ax)
    out["suspicion trend"] = _save(fig, folder / "suspicion_trend.png")
    return out


def _interval(est: dict[str, Any] | None) -> tuple[float, float, float] | None:
    """An estimate as (value, distance down to its interval's low end, up to its high end); None when undefined."""
    if not est or est.get("value") is None:
        return None
    low, high = est.get("ci") or (None, None)
    value = float(est["value"])
    return value, value - (value if low is None else low), (value if high is None else high) - value


def _deception_against_detection(document: dict[str, Any]) -> Any:
    """One point per policy of the run (filled) and per baseline lineup (hollow, its figures over all seats):
    the share of its lies that no majority of listeners flagged against the F1 of its own flags on its village
    seats (a werewolf's flags on its partners are knowledge: ``html_findings.detection_of``), with 95% intervals
    on both axes. A policy that told no lie (or flagged nothing as a villager) has no point and is named below."""
    metrics = document["metrics"]
    itself = set(lineup_itself(document))
    village = Team.VILLAGE.value
    points = [
        (str(p), metrics["deceptive"]["by_policy"].get(p, {}), detection_of(metrics, "by_policy", p), True)
        for p in metrics["deceptive"]["by_policy"]
    ] + [
        (
            f"{k} (baseline)",
            v["metrics"]["deceptive"]["all"]["all"],
            detection_of(v["metrics"], "by_team", village),
            False,
        )
        for k, v in sorted(document.get("baselines", {}).items())
        if k not in itself
    ]
    fig, ax = plt.subplots(figsize=(6, 4.2))
    missing = []
    for k, (label, deceptive, detective, own) in enumerate(points):
        x, y = _interval(deceptive.get("undetected_lie_share")), _interval(detective.get("f1"))
        if x is None or y is None:
            missing.append(_label(label))
            continue
        colour = f"C{k}"
        ax.errorbar(
            x[0], y[0], xerr=[[x[1]], [x[2]]], yerr=[[y[1]], [y[2]]], fmt="o" if own else "s", color=colour,
            markerfacecolor=colour if own else "white", capsize=3, label=_label(label),
        )  # fmt: skip
    ax.set_xlim(0, 1.02)
    ax.set_ylim(0, 1.02)
    ax.set_xlabel("its lies left unflagged by the listeners (share)")
    ax.set_ylabel("its detection of others' lies on village seats (F1)")
    title = "Deception against detection, per policy (95% CI)"
    if missing:
        title += "\n" + textwrap.fill("no point (no lie or no flag): " + ", ".join(missing), 70)  # names are any length
    ax.set_title(title, fontsize=10)
    _legend(ax)
    return fig


def _deaths_by_role(metrics: dict[str, Any]) -> Any:
    """Stacked bars: per role (the metrics' rows, in the role table's order), the share of its player-games
    that ended in each cause of death; one colour and legend entry per cause. None before metrics schema 5."""
    by_role = (metrics.get("deaths") or {}).get("by_role") or {}
    if not by_role:
        return None
    roles = list(by_role)
    causes = cause_order({c for row in by_role.values() for c in row.get("by_cause", {})})
    fig, ax = plt.subplots(figsize=(6.5, 3.8))
    x = np.arange(len(roles))
    bottom = np.zeros(len(roles))
    for k, cause in enumerate(causes):
        share = np.array([by_role[r]["by_cause"].get(cause, 0) / max(1, by_role[r]["player_games"]) for r in roles])
        ax.bar(x, share, 0.6, bottom=bottom, color=f"C{k}", label=_label(cause))
        bottom += share
    ax.set_xticks(x, [f"{_label(r)}\n{by_role[r]['player_games']}" for r in roles])
    ax.set_xlabel("role (player-games)")
    ax.set_ylabel("share of player-games")
    ax.set_ylim(0, 1.05)
    ax.set_title("How each role died (cause of death)")
    _legend(ax)
    return fig


def _shifts_by_role(metrics: dict[str, Any]) -> Any:
    """Per speaker role, lies beside true statements (95% CIs): the listeners' shift of suspicion of the speaker,
    and how far the village moved away from the truth (``misled``). None before metrics schema 6."""
    by_role = ((metrics.get("persuasion") or {}).get("speaker") or {}).get("by_role") or {}
    if not by_role:
        return None
    roles = list(by_role)
    x = np.arange(len(roles))
    fig, axes = plt.subplots(1, 2, figsize=(9, 3.8), sharey=True)
    panels = (("shift_speaker", "listeners' suspicion of the speaker"), ("misled", "village moved away from the truth"))
    for ax, (figure, title) in zip(axes, panels, strict=True):
        for k, (which, label) in enumerate((("lies", "lies"), ("truths", "true statements"))):
            ests = [by_role[r].get(f"{figure}_{which}") for r in roles]
            _ci_bars(ax, x + (k - 0.5) * 0.4, ests, 0.4, label, color=("C3", "C2")[k])  # lies red
        ax.axhline(0, color="#777", linewidth=0.8)
        ax.set_xticks(x, [f"{_label(r)}\n{by_role[r]['lies']}/{by_role[r]['statements']}" for r in roles])
        ax.set_xlabel("speaker role (lies / statements)")
        ax.set_title(f"{title} (95% CI)", fontsize=9)
    axes[0].set_ylabel("mean change per statement (0-1 scale)")
    axes[0].legend(handles=[Patch(color="C3", label="lies"), Patch(color="C2", label="true statements")], fontsize=8)
    fig.suptitle("Belief shift after lies vs true statements, by speaker role", fontsize=10)
    return fig


@_literal_text
def game_plots(record: GameRecord, name: str, folder: Path) -> dict[str, str]:
    """One game's heatmap and suspicion curves; returns caption -> path."""
    out: dict[str, str] = {}
    labels = [_label(f"{n} ({r[:4]})") for n, r in zip(record.names, record.roles, strict=True)]
    matrix = record.final_matrix.astype(float).copy()
    np.fill_diagonal(matrix, np.nan)
    fig, ax = plt.subplots(figsize=(6, 5))
    _heatmap(ax, matrix, labels, _label(f"{name}: final cross-perception"), annotate=False)
    out["cross-perception"] = _save(fig, folder / f"{name}-matrix.png")

    n = record.num_players
    steps = np.arange(record.matrices.shape[0])
    fig, ax = plt.subplots(figsize=(7, 3.8))
    for j in range(n):
        others = [i for i in range(n) if i != j]
        curve = record.matrices[:, others, j].mean(axis=1)
        style = "-" if record.team(j) == Team.WEREWOLF.value else ":"
        ax.plot(steps, curve, style, label=labels[j], linewidth=1.6 if style == "-" else 1.1)
    for death in record.deaths:
        marker = str(death["cause"])  # night, poison, exile, shot
        ax.axvline(death["after_statements"], color="#bbb" if marker == "night" else "#555", linewidth=0.8)
        ax.text(
            death["after_statements"],
            1.0,
            _label(f"{record.names[death['victim']]} ({marker})"),
            rotation=90,
            fontsize=6,
            va="top",
            ha="right",
        )
    ax.set_ylim(0, 1.02)
    ax.set_xlabel("statements so far")
    ax.set_ylabel("mean suspicion received")
    ax.set_title(_label(f"{name}: suspicion of each player (solid: werewolves; lines: deaths)"))
    ax.legend(fontsize=6, ncol=2)
    out["suspicion over the game"] = _save(fig, folder / f"{name}-suspicion.png")
    return out
