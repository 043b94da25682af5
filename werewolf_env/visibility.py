"""What each player may know: the one place that decides it.

Three questions are answered here and nowhere else:

* ``public_config(config)``: the game's configuration as every player may read it (the public
  ``game_start`` event): the rules and role counts, never the hand-dealt ``roles`` (the log's
  header, the god view, keeps the full config; the engine-only ``roles`` event holds the deal).
* ``visible(event, seat)``: may this player see this event? An event's ``audience`` (everyone, some
  seats, or nobody but the engine) is set by the rules engine when it emits it; a player's history
  holds only the events visible to it, so information hygiene reduces to those audiences.
* ``knowledge(state, seat)``: which roles each seat can still have, from this player's point of view
  (own role, werewolf teammates, own seer results, publicly revealed roles, the public rule that night
  victims are never werewolves, and the role counts). The claim judge uses it to decide which claims
  a speaker *knew* to be false; the numeric encoder shows it to RL policies.
"""

from __future__ import annotations

from collections import Counter
from functools import lru_cache
from typing import Any

from .config import ROLES, GameConfig, Role
from .state import Event, GameState

VILLAGE_ROLES = frozenset(r for r in ROLES if r is not Role.WEREWOLF)


def public_config(config: GameConfig) -> dict[str, Any]:
    """``config`` as plain JSON with ``roles`` blanked: what the public ``game_start`` event carries.

    ``roles`` stays as ``None`` rather than disappearing, so the public config has the shape of a
    ``GameConfig`` and games whose roles are dealt by the seed log the same event as they always did.
    """
    public = config.model_dump(mode="json")
    public["roles"] = None
    return public


def visible(event: Event, seat: int) -> bool:
    return event.audience is None or seat in event.audience


_BIT = {role: 1 << i for i, role in enumerate(ROLES)}


def role_bit(role: Role) -> int:
    """The bit of ``role`` in the masks of ``knowledge_masks``."""
    return _BIT[role]


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
    masks = _knowledge_masks(state, seat)
    state.knowledge_cache[seat] = (key, masks)
    return masks


def _knowledge_masks(state: GameState, seat: int) -> tuple[int, ...]:
    config = state.config
    counts = (config.num_werewolves, config.num_seers, config.num_doctors, config.num_villagers)
    present, village = _present_masks(counts)
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
    return _propagated(tuple(possible), counts)


@lru_cache(maxsize=64)
def _present_masks(counts: tuple[int, ...]) -> tuple[int, int]:
    """(roles in the game, village roles in the game) as masks, for role counts in ``_COUNTED_ROLES`` order."""
    present = 0
    for role, count in zip(_COUNTED_ROLES, counts, strict=True):
        if count:
            present |= _BIT[role]
    return present, present & ~_WOLF


_COUNTED_ROLES = (Role.WEREWOLF, Role.SEER, Role.DOCTOR, Role.VILLAGER)  # the order of ``_propagated``'s counts


def _propagated(possible: tuple[int, ...], counts: tuple[int, ...]) -> tuple[int, ...]:
    """``_propagate_counts`` as a pure function, memoised. The rules change a seat's mask according
    to its mask and the multiset of all masks only, so the memo keys on the sorted multiset (the
    same few patterns recur game after game, in any seat order) and maps each mask to its result."""
    mapping = _propagation_map(tuple(sorted(possible)), counts)
    return tuple([mapping[mask] for mask in possible])


@lru_cache(maxsize=1 << 12)
def _propagation_map(multiset: tuple[int, ...], counts: tuple[int, ...]) -> dict[int, int]:
    result = list(multiset)
    _propagate_counts(result, dict(zip(_COUNTED_ROLES, counts, strict=True)))
    return dict(zip(multiset, result, strict=True))


def _propagate_counts(possible: list[int], counts: dict[Role, int]) -> None:
    """Role counts are public: a role whose seats are all known is impossible elsewhere, and a role
    with exactly as many candidates as seats is certain for them. Applied until nothing changes
    (each rule only removes possibilities, so the order does not change the result)."""
    rules = [(_BIT[role], count) for role, count in counts.items()]
    changed = True
    while changed:
        changed = False
        tally = Counter(possible)  # a handful of distinct masks: cheaper than a pass per role
        for bit, count in rules:
            certain = tally.get(bit, 0)
            candidates = sum([n for mask, n in tally.items() if mask & bit])
            if certain == count and candidates > count:
                possible[:] = [mask & ~bit if mask & bit and mask != bit else mask for mask in possible]
            elif candidates == count and certain < count:
                possible[:] = [bit if mask & bit else mask for mask in possible]
            else:
                continue
            changed = True
            break  # recount
