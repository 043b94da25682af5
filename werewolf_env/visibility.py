"""What each player may know: the one place that decides it.

Two questions are answered here and nowhere else:

* ``visible(event, seat)``: may this player see this event? Observations are rendered only from the
  events this returns true for (plus the player's own role card), so information hygiene reduces to
  the audiences the rules engine gives its events.
* ``knowledge(state, seat)``: which roles each seat can still have, from this player's point of view
  (own role, werewolf teammates, own seer results, publicly revealed roles, the public rule that night
  victims are never werewolves, and the role counts). The claim judge uses it to decide which claims
  a speaker *knew* to be false; the numeric encoder shows it to RL policies.
"""

from __future__ import annotations

from .config import ROLES, Role
from .state import Event, GameState

VILLAGE_ROLES = frozenset(r for r in ROLES if r is not Role.WEREWOLF)


def visible(event: Event, seat: int) -> bool:
    return event.audience is None or seat in event.audience


def knowledge(state: GameState, seat: int) -> list[frozenset[Role]]:
    """Possible roles of every seat as far as ``seat`` knows (its own entry is exact)."""
    counts = state.config.role_counts()
    present = frozenset(role for role, count in counts.items() if count > 0)
    village = present & VILLAGE_ROLES
    own = state.roles[seat]
    possible: list[set[Role]] = [set(present) for _ in state.roles]
    possible[seat] = {own}
    if own is Role.WEREWOLF:
        for p, role in enumerate(state.roles):
            possible[p] = {Role.WEREWOLF} if role is Role.WEREWOLF else set(village)
    for _round, target, result in state.seer_results.get(seat, ()):
        if result in ("werewolf", "village"):
            possible[target] &= {Role.WEREWOLF} if result == "werewolf" else village
        else:
            possible[target] = {Role(result)}
    for p, role in state.revealed.items():
        possible[p] = {role}
    for _round, victim in state.night_deaths:
        if victim is not None:
            possible[victim].discard(Role.WEREWOLF)
    _propagate_counts(possible, counts)
    return [frozenset(s) for s in possible]


def _propagate_counts(possible: list[set[Role]], counts: dict[Role, int]) -> None:
    """Role counts are public: a role whose seats are all known is impossible elsewhere, and a role
    with exactly as many candidates as seats is certain for them."""
    changed = True
    while changed:
        changed = False
        for role, count in counts.items():
            certain = [p for p, s in enumerate(possible) if s == {role}]
            if len(certain) == count:
                for s in possible:
                    if role in s and len(s) > 1:
                        s.discard(role)
                        changed = True
            candidates = [p for p, s in enumerate(possible) if role in s]
            if len(candidates) == count:
                for p in candidates:
                    if len(possible[p]) > 1:
                        possible[p] = {role}
                        changed = True
