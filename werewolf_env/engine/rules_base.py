"""The rules' shared primitives: who has won, opening a group of turns, taking its answers, seeded
tie-breaks, deaths and who acts at night.

Split from ``rules`` (which holds the night and end-of-game handlers, and re-exports the day's from
``rules_day``) so that both handler modules build on the same small set of state changes. Pure, like
the handlers: the only randomness is the seeded ``state.rng``.
"""

from __future__ import annotations

from typing import Any

from werewolf_env.core import MAX_PLAYERS, PUBLIC, ActionKind, GameState, Team, Turn


def winner_of(state: GameState) -> Team | None:
    wolves = others = 0
    specs = state.config.ruleset.specs
    for seat, up in enumerate(state.alive):
        if up:
            if specs[state.roles[seat]].team is Team.WEREWOLF:
                wolves += 1
            else:
                others += 1
    if wolves == 0:
        return Team.VILLAGE
    if wolves >= others:
        return Team.WEREWOLF
    return None


# Turns are immutable values: one shared instance per (kind, seat) instead of one per opening.
_TURNS: dict[ActionKind, list[Turn]] = {kind: [Turn(seat, kind) for seat in range(MAX_PLAYERS)] for kind in ActionKind}


def open_turns(state: GameState, seats: list[int], kind: ActionKind) -> None:
    turns = _TURNS[kind]
    state.pending.extend([turns[seat] for seat in seats])


def take_answers(state: GameState) -> dict[int, dict[str, Any]]:
    """The answers of the group that just finished, and a fresh group."""
    answers = state.group_actions
    state.group_actions = {}
    state.group_id += 1
    return answers


def count_choices(choices: Any) -> dict[int, int]:
    """How often each seat was chosen (``None``, no choice, not counted), in order of first choice."""
    counts: dict[int, int] = {}
    for seat in choices:
        if seat is not None:
            counts[seat] = counts.get(seat, 0) + 1
    return counts


def draw_seat(state: GameState, candidates: list[int], weights: list[float] | None = None) -> int:
    """Seeded tie-break; no draw (and no RNG use) when there is a single candidate."""
    if len(candidates) == 1:
        return candidates[0]
    if weights is None:
        return candidates[int(state.rng.integers(len(candidates)))]
    total = sum(weights)
    point = state.rng.random() * total
    for seat, weight in zip(candidates, weights, strict=True):
        point -= weight
        if point < 0:
            return seat
    return candidates[-1]


def _reveal(state: GameState, seat: int) -> dict[str, Any]:
    if state.config.reveal_role_on_death:
        state.revealed[seat] = state.roles[seat]
        return {"role": state.roles[seat].value}
    return {}


def die(state: GameState, seat: int, cause: str) -> None:
    """``seat`` dies (cause "night", "exile" or "shot"): the public death event; a role that acts on its
    death (the hunter) is queued to act before the game goes on."""
    state.kill(seat)
    state.emit("death", None, PUBLIC, victim=seat, cause=cause, **_reveal(state, seat))
    if state.config.ruleset.specs[state.roles[seat]].on_death is not None:
        state.shooters.append(seat)


def acting_seats(state: GameState, kind: ActionKind) -> list[int]:
    """Living seats whose role is asked for ``kind`` at night (the table says who: ``RoleSpec.night``)."""
    specs, roles = state.config.ruleset.specs, state.roles
    return [p for p in state.living() if kind in specs[roles[p]].night_kinds]
