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

from werewolf_env.core.config import GameConfig
from werewolf_env.core.roles import ActionKind, Role, Team, on_roles_changed
from werewolf_env.core.state import Event, GameState


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


# Role bitmasks: bit ``role.index`` (registration order, ``roles``). Tables derived from the set of roles are
# rebuilt when a role is registered (``_roles_changed``).
def role_bit(role: Role) -> int:
    """The bit of ``role`` in the masks of ``knowledge_masks``."""
    return 1 << role.index


_TEAM_MASKS: dict[Team, int] = {}


def team_mask(team: Team) -> int:
    """The roles of ``team``, as a mask."""
    found = _TEAM_MASKS.get(team)
    if found is None:
        found = _TEAM_MASKS[team] = sum(role_bit(r) for r in Role if r.team is team)
    return found


def all_roles_mask() -> int:
    return team_mask(Team.WEREWOLF) | team_mask(Team.VILLAGE)


@lru_cache(maxsize=1 << 8)
def mask_roles(mask: int) -> frozenset[Role]:
    """The roles a mask allows."""
    return frozenset(r for r in Role if mask & role_bit(r))


def _roles_changed() -> None:
    _TEAM_MASKS.clear()
    mask_roles.cache_clear()
    _present_masks.cache_clear()
    _propagation_map.cache_clear()


_WOLF = role_bit(Role.WEREWOLF)


def knowledge(state: GameState, seat: int) -> list[frozenset[Role]]:
    """Possible roles of every seat as far as ``seat`` knows (its own entry is exact).

    It changes only with this seat's seer results, revealed roles and night deaths, so it is
    memoised on the state (the claim judge and the observation renderer both ask often).
    """
    return [mask_roles(m) for m in knowledge_masks(state, seat)]


def knowledge_masks(state: GameState, seat: int) -> tuple[int, ...]:
    """``knowledge`` as role bitmasks (bit i: ``ROLES[i]`` is possible), memoised on the state."""
    key = (len(state.seer_results.get(seat, ())), len(state.revealed), len(state.night_deaths),
           len(state.attacks_seen.get(seat, ())))  # fmt: skip
    cache = state.knowledge_cache
    cached = cache.get(seat)
    if cached is not None and cached[0] == key:
        return cached[1]
    masks = _knowledge_masks(state, seat)
    cache[seat] = (key, masks)
    return masks


def _knowledge_masks(state: GameState, seat: int) -> tuple[int, ...]:
    counts = state.counts_in_role_order
    present, village = _present_masks(counts)
    roles = state.roles
    own = roles[seat]
    bit = role_bit(own)
    if own.spec.knows_fellows:  # the pack: its fellows, and that nobody else holds its role
        possible = [bit if r is own else present & ~bit for r in roles]
    else:
        possible = [present] * len(roles)
    possible[seat] = bit
    for _round, target, result in state.seer_results.get(seat, ()):
        if result == "werewolf":
            possible[target] &= team_mask(Team.WEREWOLF)
        elif result == "village":
            possible[target] &= village
        else:
            possible[target] = role_bit(Role(result))
    for p, role in state.revealed.items():
        possible[p] = role_bit(role)
    # The pack never attacks a werewolf. Who its victims were is public unless a witch's poison also kills at
    # night (the deaths are announced alike); the witch is told each night's victim herself.
    if ActionKind.POISON not in state.kinds_in_game or own.spec.knows_fellows:
        for _round, victim in state.night_deaths:
            if victim is not None:
                possible[victim] &= ~_WOLF
    for _round, victim in state.attacks_seen.get(seat, ()):
        if victim is not None:
            possible[victim] &= ~_WOLF
    return _propagated(tuple(possible), counts)


@lru_cache(maxsize=64)
def _present_masks(counts: tuple[int, ...]) -> tuple[int, int]:
    """(roles in the game, village roles in the game) as masks, for role counts in role order."""
    present = 0
    for role, count in zip(Role, counts, strict=True):
        if count:
            present |= role_bit(role)
    return present, present & team_mask(Team.VILLAGE)


def _propagated(possible: tuple[int, ...], counts: tuple[int, ...]) -> tuple[int, ...]:
    """``_propagate_counts`` as a pure function, memoised. The rules change a seat's mask according
    to its mask and the multiset of all masks only, so the memo keys on the sorted multiset (the
    same few patterns recur game after game, in any seat order) and maps each mask to its result."""
    mapping = _propagation_map(tuple(sorted(possible)), counts)
    # (``counts`` is per role, in role order: ``GameConfig.seat_counts``.)
    return tuple([mapping[mask] for mask in possible])


@lru_cache(maxsize=1 << 12)
def _propagation_map(multiset: tuple[int, ...], counts: tuple[int, ...]) -> dict[int, int]:
    result = list(multiset)
    _propagate_counts(result, dict(zip(Role, counts, strict=True)))
    return dict(zip(multiset, result, strict=True))


def _propagate_counts(possible: list[int], counts: dict[Role, int]) -> None:
    """Role counts are public: a role whose seats are all known is impossible elsewhere, and a role
    with exactly as many candidates as seats is certain for them. Applied until nothing changes
    (each rule only removes possibilities, so the order does not change the result)."""
    rules = [(role_bit(role), count) for role, count in counts.items()]
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


on_roles_changed(_roles_changed)
