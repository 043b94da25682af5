"""What each player may know: the one place that decides it.

Two questions are answered here and nowhere else:

* ``visible(event, seat)``: may this player see this event? An event's ``audience`` (everyone, some
  seats, or nobody but the engine) is set by the rules engine when it emits it; a player's history
  holds only the events visible to it, so information hygiene reduces to those audiences.
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


_BIT = {role: 1 << i for i, role in enumerate(ROLES)}
_MASK_ROLES = [frozenset(r for r in ROLES if mask & _BIT[r]) for mask in range(1 << len(ROLES))]
_WOLF = _BIT[Role.WEREWOLF]


def knowledge(state: GameState, seat: int) -> list[frozenset[Role]]:
    """Possible roles of every seat as far as ``seat`` knows (its own entry is exact).

    It changes only with this seat's seer results, revealed roles and night deaths, so it is
    memoised on the state (the claim judge and the observation renderer both ask often).
    """
    return [_MASK_ROLES[m] for m in knowledge_masks(state, seat)]


def knowledge_masks(state: GameState, seat: int) -> tuple[int, ...]:
    """``knowledge`` as role bitmasks (bit i: ``ROLES[i]`` is possible), memoised on the state."""
    key = (len(state.seer_results.get(seat, ())), len(state.revealed), len(state.night_deaths))
    cached = state.knowledge_cache.get(seat)
    if cached is not None and cached[0] == key:
        return cached[1]
    masks = tuple(_knowledge_masks(state, seat))
    state.knowledge_cache[seat] = (key, masks)
    return masks


def _knowledge_masks(state: GameState, seat: int) -> list[int]:
    counts = state.config.role_counts()
    present = 0
    for role, count in counts.items():
        if count:
            present |= _BIT[role]
    village = present & ~_WOLF
    roles = state.roles
    own = roles[seat]
    if own is Role.WEREWOLF:
        possible = [_WOLF if r is Role.WEREWOLF else village for r in roles]
    else:
        possible = [present] * len(roles)
    possible[seat] = _BIT[own]
    for _round, target, result in state.seer_results.get(seat, ()):
        if result == "werewolf":
            possible[target] &= _WOLF
        elif result == "village":
            possible[target] &= village
        else:
            possible[target] = _BIT[Role(result)]
    for p, role in state.revealed.items():
        possible[p] = _BIT[role]
    for _round, victim in state.night_deaths:
        if victim is not None:
            possible[victim] &= ~_WOLF
    _propagate_counts(possible, counts)
    return possible


def _propagate_counts(possible: list[int], counts: dict[Role, int]) -> None:
    """Role counts are public: a role whose seats are all known is impossible elsewhere, and a role
    with exactly as many candidates as seats is certain for them."""
    changed = True
    while changed:
        changed = False
        for role, count in counts.items():
            bit = _BIT[role]
            certain = candidates = 0
            for mask in possible:
                if mask & bit:
                    candidates += 1
                    if mask == bit:
                        certain += 1
            if certain == count and candidates > count:
                for p, mask in enumerate(possible):
                    if mask & bit and mask != bit:
                        possible[p] = mask & ~bit
                changed = True
            elif candidates == count and certain < count:
                for p, mask in enumerate(possible):
                    if mask & bit:
                        possible[p] = bit
                changed = True
