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
from werewolf_env.core.roles import DEFAULT_RULESET, ActionKind, Role, Ruleset, Team
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


# Role bitmasks: bit ``ruleset.index[role]`` (the ruleset's role order). Tables derived from the roles are cached
# per ruleset (a ruleset is immutable and hashable).
def role_bit(role: Role, ruleset: Ruleset = DEFAULT_RULESET) -> int:
    """The bit of ``role`` in the masks of ``knowledge_masks``."""
    return 1 << ruleset.index[role]


@lru_cache(maxsize=64)
def team_mask(team: Team, ruleset: Ruleset = DEFAULT_RULESET) -> int:
    """The roles of ``team``, as a mask."""
    return sum(1 << i for i, r in enumerate(ruleset.roles) if ruleset.specs[r].team is team)


@lru_cache(maxsize=64)
def all_roles_mask(ruleset: Ruleset = DEFAULT_RULESET) -> int:
    return (1 << len(ruleset.roles)) - 1


@lru_cache(maxsize=1 << 8)
def mask_roles(mask: int, ruleset: Ruleset = DEFAULT_RULESET) -> frozenset[Role]:
    """The roles a mask allows."""
    return frozenset(r for i, r in enumerate(ruleset.roles) if mask >> i & 1)


def knowledge(state: GameState, seat: int) -> list[frozenset[Role]]:
    """Possible roles of every seat as far as ``seat`` knows (its own entry is exact).

    It changes only with this seat's seer results, revealed roles and night deaths, so it is
    memoised on the state (the claim judge and the observation renderer both ask often).
    """
    ruleset = state.config.ruleset
    return [mask_roles(m, ruleset) for m in knowledge_masks(state, seat)]


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
    ruleset = state.config.ruleset
    index = ruleset.index
    present, village = _present_masks(counts, ruleset)
    roles = state.roles
    own = roles[seat]
    bit = 1 << index[own]
    wolf = 1 << index[Role.WEREWOLF]
    knows_fellows = ruleset.specs[own].knows_fellows
    if knows_fellows:  # the pack: its fellows, and that nobody else holds its role
        possible = [bit if r is own else present & ~bit for r in roles]
    else:
        possible = [present] * len(roles)
    possible[seat] = bit
    for _round, target, result in state.seer_results.get(seat, ()):
        if result == "werewolf":
            possible[target] &= team_mask(Team.WEREWOLF, ruleset)
        elif result == "village":
            possible[target] &= village
        else:
            possible[target] = 1 << index[Role(result)]
    for p, role in state.revealed.items():
        possible[p] = 1 << index[role]
    # The pack never attacks a werewolf. Who its victims were is public unless a witch's poison also kills at
    # night (the deaths are announced alike); the witch is told each night's victim herself.
    if ActionKind.POISON not in state.kinds_in_game or knows_fellows:
        for _round, victim in state.night_deaths:
            if victim is not None:
                possible[victim] &= ~wolf
    for _round, victim in state.attacks_seen.get(seat, ()):
        if victim is not None:
            possible[victim] &= ~wolf
    return _propagated(tuple(possible), counts, ruleset)


@lru_cache(maxsize=64)
def _present_masks(counts: tuple[int, ...], ruleset: Ruleset = DEFAULT_RULESET) -> tuple[int, int]:
    """(roles in the game, village roles in the game) as masks, for role counts in role order."""
    present = 0
    for i, count in enumerate(counts):
        if count:
            present |= 1 << i
    return present, present & team_mask(Team.VILLAGE, ruleset)


def _propagated(
    possible: tuple[int, ...], counts: tuple[int, ...], ruleset: Ruleset = DEFAULT_RULESET
) -> tuple[int, ...]:
    """``_propagate_counts`` as a pure function, memoised. The rules change a seat's mask according
    to its mask and the multiset of all masks only, so the memo keys on the sorted multiset (the
    same few patterns recur game after game, in any seat order) and maps each mask to its result."""
    mapping = _propagation_map(tuple(sorted(possible)), counts, len(ruleset.roles))
    # (``counts`` is per role, in role order: ``GameConfig.seat_counts``.)
    return tuple([mapping[mask] for mask in possible])


@lru_cache(maxsize=1 << 12)
def _propagation_map(multiset: tuple[int, ...], counts: tuple[int, ...], num_roles: int) -> dict[int, int]:
    # Only bits and counts matter (bit i: the i-th role of the ruleset), not which roles they are.
    result = list(multiset)
    _propagate_counts(result, dict(zip(range(num_roles), counts, strict=True)))
    return dict(zip(multiset, result, strict=True))


def _propagate_counts(possible: list[int], counts: dict[int, int]) -> None:
    """Role counts are public: a role whose seats are all known is impossible elsewhere, and a role
    with exactly as many candidates as seats is certain for them. Applied until nothing changes
    (each rule only removes possibilities, so the order does not change the result)."""
    rules = [(1 << i, count) for i, count in counts.items()]
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
