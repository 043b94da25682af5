"""Figures by role and by a role's own actions: deaths by cause, and the night actions and last shots.

The aggregation half for ``metrics.json``'s ``deaths`` and ``role_actions`` (``werewolf_env.analysis.aggregate``
calls ``RoleFigures``). Which roles and which kinds there are comes from the role table
(``werewolf_env.core.roles``: a role's ``night`` kinds and its ``on_death`` kind) and the action table
(``werewolf_env.actions.specs``), so a role registered at run time gets its rows like the built-ins.
Pure: no I/O.

    deaths:       {"by_cause": {cause: {"deaths", "per_game"}},
                   "by_role": {role: {"team", "player_games", "deaths", "death_rate", "by_cause": {cause: n}}}}
    role_actions: {"by_kind": {kind: figures}, "by_role": {role: {kind: figures}}}
                  figures: {"turns", "used", "use_rate", "on_werewolves", "saves", "kills", "fallbacks"}

A death's cause is the record's (``GameRecord.deaths``): "night" (the pack), "poison" (a witch's; the
public event says "night"), "exile", "shot" (a hunter's last shot). A *turn* is one answer to the
action; *used*: it named a player (heal, poison and shoot may be declined with null); *on werewolves*:
the share of uses aimed at the werewolf team; *saves*: uses that saved the pack's victim (a protection
or a heal of the victim who then lived); *kills*: uses whose target died of them that night (a pack
member's proposal of the night's victim, a poison, a shot).
"""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING, Any

import numpy as np

from werewolf_env.analysis.stats import Bootstrap
from werewolf_env.core import DEFAULT_RULESET, ActionKind, Ruleset, Team

if TYPE_CHECKING:
    from werewolf_env.record import GameRecord

# Causes in the order they are listed (any other cause a log holds follows, sorted).
DEATH_CAUSES = ("night", "poison", "exile", "shot")
# What a use of a kind does, in the engine's words: the ``night_outcome`` list naming whom a saving kind
# reached, and the death cause a killing kind brings.
SAVES = {ActionKind.PROTECT.value: "protected", ActionKind.HEAL.value: "healed"}
KILLS = {ActionKind.ELIMINATE.value: "night", ActionKind.POISON.value: "poison", ActionKind.SHOOT.value: "shot"}


def role_kinds(ruleset: Ruleset = DEFAULT_RULESET) -> tuple[str, ...]:
    """The kinds some role of ``ruleset`` takes as its own (its night actions, its action on death), in
    ``ActionKind`` order."""
    kinds: set[ActionKind] = set()
    for spec in ruleset.specs.values():
        kinds.update(spec.night_kinds)
        if spec.on_death is not None:
            kinds.add(spec.on_death)
    return tuple(kind.value for kind in ActionKind if kind in kinds)


def acting_role(kind: str | ActionKind, ruleset: Ruleset = DEFAULT_RULESET) -> str:
    """The role that takes ``kind`` (at night or on its death), from the role table: "witch" for heal; the
    kind itself when no registered role takes it."""
    kind = ActionKind(kind)
    for role, spec in ruleset.specs.items():
        if kind in spec.night_kinds or spec.on_death is kind:
            return role.value
    return kind.value


def role_order(roles: Any, ruleset: Ruleset = DEFAULT_RULESET) -> list[str]:
    """``roles`` (names) in the role table's order, names no registered role has after them, sorted."""
    given = set(roles)
    known = [role.value for role in ruleset.roles if role.value in given]
    return known + sorted(given - set(known))


def cause_order(causes: Any) -> list[str]:
    given = set(causes)
    return [c for c in DEATH_CAUSES if c in given] + sorted(given - set(DEATH_CAUSES))


def action_kinds_of(roles: Any, ruleset: Ruleset = DEFAULT_RULESET) -> set[str]:
    """The night and death action kinds (values) the named roles take, from the role table (unknown names: none)."""
    kinds: set[str] = set()
    for name in roles:
        if name in ruleset:
            spec = ruleset.spec(name)
            kinds.update(kind.value for kind in spec.night_kinds)
            if spec.on_death is not None:
                kinds.add(spec.on_death.value)
    return kinds


def cause_notes(causes: Any, roles: Any, ruleset: Ruleset = DEFAULT_RULESET) -> list[str]:
    """What the role-specific death causes among ``causes`` mean, worded from the role table, for the roles of
    ``roles`` only (the games' roles): "poison: a witch's, announced as a night death", "shot: a hunter's,
    on its death". The pack's kill and exile need no note; a game without a witch gets no word of poison."""
    present = {str(r) for r in roles}
    notes = []
    for cause in cause_order(causes):
        kind = next((k for k, c in KILLS.items() if c == cause), None)
        role = acting_role(kind, ruleset) if kind is not None else None
        if role is None or role not in present or role not in ruleset:
            continue
        spec = ruleset.spec(role)
        if spec.team is Team.WEREWOLF:
            continue
        when = "on its death" if spec.on_death is ActionKind(kind) else "announced as a night death"
        notes.append(f"{cause}: a {role}'s, {when}")
    return notes


def last_acts(roles: Any, ruleset: Ruleset = DEFAULT_RULESET) -> list[str]:
    """The actions on death of the roles of ``roles``, as words ("hunters' last shots"), from the role table."""
    out = []
    for name in role_order({str(r) for r in roles}, ruleset):
        spec = ruleset.spec(name) if name in ruleset else None
        if spec is not None and spec.on_death is not None:
            what = KILLS.get(spec.on_death.value)
            out.append(f"{spec.plural}' last {what}s" if what else f"{spec.plural}' {spec.on_death.value} on death")
    return out


def night_actions(record: GameRecord) -> list[dict[str, Any]]:
    """Every answer to a role's own action in ``record``, in order, with what came of it:
    {"round", "actor", "role", "kind", "target" (None: nobody named), "on_werewolf", "saved", "killed",
    "fallback"}."""
    kinds = set(role_kinds())
    outcomes: dict[int, dict[str, Any]] = {}
    died: dict[tuple[int, int], str] = {}
    for death in record.deaths:
        died.setdefault((int(death["round"]), int(death["victim"])), str(death["cause"]))
    for e in record.events:
        if e.get("type") == "night_outcome":
            outcomes[int(e.get("round") or 0)] = e.get("data") or {}
    out = []
    for e in record.events:
        data = e.get("data") or {}
        actor = e.get("actor")
        if e.get("type") != "action" or data.get("kind") not in kinds or not isinstance(actor, int):
            continue
        kind, rnd = str(data["kind"]), int(e.get("round") or 0)
        target = (data.get("parsed") or {}).get("target")
        target = target if isinstance(target, int) and 0 <= target < record.num_players else None
        night = outcomes.get(rnd, {})
        saved = (
            kind in SAVES
            and target is not None
            and bool(night.get("saved"))
            and night.get("target") == target
            and target in (night.get(SAVES[kind]) or ())
        )
        out.append(
            {
                "round": rnd,
                "actor": actor,
                "role": record.roles[actor] if actor < len(record.roles) else "?",
                "kind": kind,
                "target": target,
                "on_werewolf": target is not None and record.team(target) == Team.WEREWOLF.value,
                "saved": saved,
                "killed": target is not None and kind in KILLS and KILLS[kind] == died.get((rnd, target)),
                "fallback": "fallbacks" in data,
            }
        )
    return out


class RoleFigures:
    """Deaths and role actions of the games added so far (a few numbers per player and per action)."""

    def __init__(self) -> None:
        self.games = 0
        self.deaths_per_game: list[Counter[str]] = []
        self.players: list[tuple[int, str, str, str | None]] = []  # (game, role, team, cause of death or None)
        self.actions: list[tuple[int, str, str, bool, bool, bool, bool, bool]] = []

    def add(self, record: GameRecord) -> None:
        game = self.games
        self.games += 1
        cause_of = {int(d["victim"]): str(d["cause"]) for d in record.deaths}
        self.deaths_per_game.append(Counter(cause_of.values()))
        for seat, role in enumerate(record.roles):
            self.players.append((game, role, record.team(seat), cause_of.get(seat)))
        for a in night_actions(record):
            self.actions.append(
                (
                    game,
                    a["role"],
                    a["kind"],
                    a["target"] is not None,
                    a["on_werewolf"],
                    a["saved"],
                    a["killed"],
                    a["fallback"],
                )
            )

    def result(self, resamples: int = 1000, seed: int = 0) -> dict[str, Any]:
        boot = Bootstrap(self.games, resamples, seed)
        return {"deaths": self._deaths(boot), "role_actions": self._actions(boot)}

    def _deaths(self, boot: Bootstrap) -> dict[str, Any]:
        causes = cause_order({c for counts in self.deaths_per_game for c in counts})
        games = np.arange(self.games)
        by_cause = {
            cause: {
                "deaths": sum(c[cause] for c in self.deaths_per_game),
                "per_game": boot.ratio(games, [c[cause] for c in self.deaths_per_game]).to_json(),
            }
            for cause in causes
        }
        by_role: dict[str, Any] = {}
        game = np.array([p[0] for p in self.players], dtype=np.int64)
        role = np.array([p[1] for p in self.players], dtype=object)
        dead = np.array([p[3] is not None for p in self.players], dtype=np.float64)
        for name in role_order(role.tolist()):
            mask = role == name
            rows = [p for p in self.players if p[1] == name]
            counts = Counter(p[3] for p in rows if p[3] is not None)
            by_role[name] = {
                "team": rows[0][2], "player_games": len(rows), "deaths": int(dead[mask].sum()),
                "death_rate": boot.ratio(game[mask], dead[mask]).to_json(),
                "by_cause": {cause: counts[cause] for cause in cause_order(counts)},
            }  # fmt: skip
        return {"by_cause": by_cause, "by_role": by_role}

    def _actions(self, boot: Bootstrap) -> dict[str, Any]:
        if not self.actions:
            return {"by_kind": {}, "by_role": {}}
        cols = list(zip(*self.actions, strict=True))
        game = np.array(cols[0], dtype=np.int64)
        role, kind = np.array(cols[1], dtype=object), np.array(cols[2], dtype=object)
        used, wolf, saved, killed, fallback = (np.array(c, dtype=np.float64) for c in cols[3:])

        def figures(mask: np.ndarray) -> dict[str, Any]:
            g = game[mask]
            return {
                "turns": int(mask.sum()),
                "used": int(used[mask].sum()),
                "use_rate": boot.ratio(g, used[mask]).to_json(),
                "on_werewolves": boot.ratio(g, wolf[mask], used[mask]).to_json(),
                "saves": int(saved[mask].sum()),
                "kills": int(killed[mask].sum()),
                "fallbacks": int(fallback[mask].sum()),
            }

        kinds = [k for k in (*role_kinds(), *sorted(set(kind.tolist()))) if k in set(kind.tolist())]
        kinds = list(dict.fromkeys(kinds))
        return {
            "by_kind": {k: figures(kind == k) for k in kinds},
            "by_role": {
                r: {k: figures((role == r) & (kind == k)) for k in kinds if ((role == r) & (kind == k)).any()}
                for r in role_order(role.tolist())
            },
        }


__all__ = [
    "DEATH_CAUSES", "RoleFigures", "acting_role", "action_kinds_of", "cause_notes", "cause_order", "last_acts",
    "night_actions", "role_kinds", "role_order",
]  # fmt: skip
