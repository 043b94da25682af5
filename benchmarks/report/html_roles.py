# ruff: noqa: E501  (HTML templates read better as one line per element than split mid-tag)
"""The report's roles section: per role its team, win rate, survival and deaths by cause, and each role's own
actions (night actions, a hunter's last shot) with what came of them. Role-specific words in captions
(poison, last shots) come from the role table and appear only when the games had that role.

Rows are the metrics document's keys (``metrics.json``'s ``deaths`` and ``role_actions``: the role and
action tables', ``werewolf_env.analysis.role_figures``), so a witch, a hunter or a role registered at run time gets
its rows like the built-ins; nothing here lists roles or kinds. Every value is escaped
(``werewolf_deception.benchmarks.report.html_base.render``); ``werewolf_deception.benchmarks.report.html_report`` puts the section on the page.
"""

from __future__ import annotations

from typing import Any

from werewolf_deception.benchmarks.report.html_base import Html, fmt, join, name, render, trusted
from werewolf_env.analysis import cause_notes, cause_order, last_acts


def _roles_table(metrics: dict[str, Any]) -> Html:
    deaths = metrics.get("deaths") or {}
    by_role = deaths.get("by_role") or {}
    players = (metrics.get("players") or {}).get("by_role") or {}
    causes = cause_order({c for row in by_role.values() for c in row.get("by_cause", {})})
    head = join(render("<th>died: {cause}</th>", cause=c) for c in causes)
    rows = join(
        render(
            "<tr><th>{role}</th><td>{team}</td><td class='num'>{n}</td><td class='num'>{win}</td><td class='num'>{survival}</td>"
            "<td class='num'>{died}</td>{causes}</tr>",
            role=name(role),
            team=row.get("team"),
            n=row.get("player_games"),
            win=fmt(players.get(role, {}).get("win_rate")),
            survival=fmt(players.get(role, {}).get("survival")),
            died=fmt(row.get("death_rate")),
            causes=join(render("<td class='num'>{n}</td>", n=row.get("by_cause", {}).get(c, 0)) for c in causes),
        )
        for role, row in by_role.items()
    )
    return render(
        "<div class='wide'><table class='roles'><caption>by role: win rate, survival and deaths (player-games; deaths counted by cause)</caption>"
        "<tr><th>role</th><th>team</th><th>player-games</th><th>win rate</th><th>survival</th><th>died</th>{head}</tr>{rows}</table></div>",
        head=head,
        rows=rows,
    )


def _roles_in_games(metrics: dict[str, Any]) -> list[str]:
    """The roles the games had (a role with no seat in any game has no row)."""
    return list(((metrics.get("deaths") or {}).get("by_role") or {}).keys())


def _causes_table(metrics: dict[str, Any]) -> Html:
    by_cause = (metrics.get("deaths") or {}).get("by_cause") or {}
    # Role-specific causes explained from the role table, for the games' roles only (no witch: no word of poison).
    notes = cause_notes(by_cause, _roles_in_games(metrics))
    rows = join(
        render(
            "<tr><th>{cause}</th><td class='num'>{n}</td><td class='num'>{per_game}</td></tr>",
            cause=cause,
            n=row.get("deaths"),
            per_game=fmt(row.get("per_game")),
        )
        for cause, row in by_cause.items()
    )
    return render(
        "<table class='causes'><caption>deaths by cause{notes}</caption>"
        "<tr><th>cause</th><th>deaths</th><th>per game</th></tr>{rows}</table>",
        rows=rows,
        notes=f" ({'; '.join(notes)})" if notes else "",
    )


def _action_row(label: Html, row: dict[str, Any]) -> Html:
    return render(
        "<tr><th>{label}</th><td class='num'>{turns}</td><td class='num'>{used}</td><td class='num'>{rate}</td>"
        "<td class='num'>{wolves}</td><td class='num'>{saves}</td><td class='num'>{kills}</td><td class='num'>{fallbacks}</td></tr>",
        label=label,
        turns=row.get("turns"),
        used=row.get("used"),
        rate=fmt(row.get("use_rate")),
        wolves=fmt(row.get("on_werewolves")),
        saves=row.get("saves"),
        kills=row.get("kills"),
        fallbacks=row.get("fallbacks"),
    )


def _actions_table(metrics: dict[str, Any]) -> Html:
    actions = metrics.get("role_actions") or {}
    rows = [
        _action_row(render("{kind} (all roles)", kind=kind), row)
        for kind, row in (actions.get("by_kind") or {}).items()
    ]
    rows += [
        _action_row(render("{role}: {kind}", role=name(role), kind=kind), row)
        for role, kinds in (actions.get("by_role") or {}).items()
        for kind, row in kinds.items()
    ]
    if not rows:
        return trusted("<p class='muted'>no role actions</p>")
    kinds = ", ".join(["night actions", *last_acts(_roles_in_games(metrics))])  # last shots only with a hunter
    return render(
        "<div class='wide'><table class='role-actions'><caption>role actions ({kinds}): turns answered, "
        "uses (a player named), share of uses on werewolves, saves of the pack's victim, kills</caption>"
        "<tr><th>action</th><th>turns</th><th>used</th><th>use rate</th><th>on werewolves</th><th>saves</th><th>kills</th>"
        "<th>fallbacks</th></tr>{rows}</table></div>",
        rows=join(rows),
        kinds=kinds,
    )


def roles_section(document: dict[str, Any]) -> list[Html]:
    """The roles: their outcomes and deaths, and their own actions."""
    metrics = document["metrics"]
    if "deaths" not in metrics:  # a document from before metrics schema 5
        return []
    return [
        trusted("<h2>Roles, deaths and night actions</h2>"),
        _roles_table(metrics),
        _causes_table(metrics),
        _actions_table(metrics),
    ]
