"""The numeric observation's layout: its blocks in order, their sizes and offsets (``observe`` fills them).

Role blocks have room for ``max(roles.MIN_ROLE_SLOTS, len(ruleset))`` roles (``layout_of``: 8 for the default
ruleset and any ruleset of up to 8 roles, more for a larger one) and seat blocks for ``config.MAX_PLAYERS`` seats,
so seating fewer players or adding a role up to the eighth never changes ``OBS_SIZE``. The module constants
(``OBS_LAYOUT``, ``OBS_SIZE``, ``OBS_SLICES``, the ``*_START`` offsets) are the default layout's.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache

import numpy as np

from werewolf_env.core import ACTION_KINDS, MAX_PLAYERS, MIN_ROLE_SLOTS, Ruleset

NUM_ROLES = MIN_ROLE_SLOTS  # role slots of the default layout (a ruleset of up to 8 roles): ``layout_of``
NUM_KINDS = len(ACTION_KINDS)
KIND_INDEX = {kind: i for i, kind in enumerate(ACTION_KINDS)}

# Blocks of the numeric observation, in order: own role, own seat, seats present, alive, possible
# roles per seat as this player knows them, own suspicion scores, roles publicly claimed per seat,
# public accusations received (normalised), share of the last day's votes received; then the
# per-turn tail: expected action kind (last slot: none), round / max_rounds, debate turn / max,
# legal targets of the current turn.
OBS_LAYOUT: tuple[tuple[str, int], ...] = (
    ("role", NUM_ROLES), ("seat", MAX_PLAYERS), ("present", MAX_PLAYERS), ("alive", MAX_PLAYERS),
    ("known_roles", MAX_PLAYERS * NUM_ROLES), ("suspicion", MAX_PLAYERS),
    ("claimed_roles", MAX_PLAYERS * NUM_ROLES), ("accused", MAX_PLAYERS), ("last_votes", MAX_PLAYERS),
    ("kind", NUM_KINDS + 1), ("round", 1), ("debate_turn", 1), ("legal", MAX_PLAYERS),
)  # fmt: skip
ROLE_MASK_ROWS = np.array(
    [[float(mask >> i & 1) for i in range(NUM_ROLES)] for mask in range(1 << NUM_ROLES)], dtype=np.float32
)  # row ``mask``: which of ROLES the bitmask allows


def layout_slices(layout: tuple[tuple[str, int], ...]) -> tuple[dict[str, tuple[int, int]], int]:
    """Each block's ``(start, stop)`` in a vector laid out as ``layout`` (name, size), and the vector's size."""
    slices: dict[str, tuple[int, int]] = {}
    offset = 0
    for key, size in layout:
        slices[key] = (offset, offset + size)
        offset += size
    return slices, offset


OBS_SLICES, OBS_SIZE = layout_slices(OBS_LAYOUT)
PUBLIC_START = OBS_SLICES["claimed_roles"][0]  # blocks from here on are the same for every seat
KIND_START = OBS_SLICES["kind"][0] - PUBLIC_START  # offsets in the public part
CLAIMED_START = OBS_SLICES["claimed_roles"][0] - PUBLIC_START
ACCUSED_START = OBS_SLICES["accused"][0] - PUBLIC_START
VOTES_START = OBS_SLICES["last_votes"][0] - PUBLIC_START
LEGAL_START = OBS_SLICES["legal"][0] - PUBLIC_START
ALIVE_START = OBS_SLICES["alive"][0]  # offsets in a seat's private part
SUSPICION_START = OBS_SLICES["suspicion"][0]
KNOWN_START = OBS_SLICES["known_roles"][0]


def _blocks(num_roles: int) -> tuple[tuple[str, int], ...]:
    return (
        ("role", num_roles), ("seat", MAX_PLAYERS), ("present", MAX_PLAYERS), ("alive", MAX_PLAYERS),
        ("known_roles", MAX_PLAYERS * num_roles), ("suspicion", MAX_PLAYERS),
        ("claimed_roles", MAX_PLAYERS * num_roles), ("accused", MAX_PLAYERS), ("last_votes", MAX_PLAYERS),
        ("kind", NUM_KINDS + 1), ("round", 1), ("debate_turn", 1), ("legal", MAX_PLAYERS),
    )  # fmt: skip


@dataclass(frozen=True)
class ObsLayout:
    """The numeric observation's layout for ``num_roles`` role slots: blocks, offsets and size."""

    num_roles: int
    blocks: tuple[tuple[str, int], ...] = field(init=False)
    slices: dict[str, tuple[int, int]] = field(init=False, repr=False)
    size: int = field(init=False)
    public_start: int = field(init=False, repr=False)  # blocks from here on are the same for every seat
    kind_start: int = field(init=False, repr=False)  # offsets in the public part
    claimed_start: int = field(init=False, repr=False)
    accused_start: int = field(init=False, repr=False)
    votes_start: int = field(init=False, repr=False)
    legal_start: int = field(init=False, repr=False)
    round_start: int = field(init=False, repr=False)
    debate_turn_start: int = field(init=False, repr=False)
    alive_start: int = field(init=False, repr=False)  # offsets in a seat's private part
    suspicion_start: int = field(init=False, repr=False)
    known_start: int = field(init=False, repr=False)
    mask_rows: np.ndarray | None = field(init=False, repr=False)  # row ``mask``: the roles it allows (<= 8 roles)

    def __post_init__(self) -> None:
        blocks = _blocks(self.num_roles)
        slices, size = layout_slices(blocks)
        public = slices["claimed_roles"][0]
        set_ = object.__setattr__
        for key, value in {
            "blocks": blocks, "slices": slices, "size": size, "public_start": public,
            "kind_start": slices["kind"][0] - public, "claimed_start": slices["claimed_roles"][0] - public,
            "accused_start": slices["accused"][0] - public, "votes_start": slices["last_votes"][0] - public,
            "legal_start": slices["legal"][0] - public, "round_start": slices["round"][0] - public,
            "debate_turn_start": slices["debate_turn"][0] - public, "alive_start": slices["alive"][0],
            "suspicion_start": slices["suspicion"][0], "known_start": slices["known_roles"][0],
            "mask_rows": ROLE_MASK_ROWS if self.num_roles == NUM_ROLES else None,
        }.items():  # fmt: skip
            set_(self, key, value)

    def mask_row(self, mask: int) -> np.ndarray:
        """The role slots a knowledge bitmask allows, as 0/1."""
        if self.mask_rows is not None:
            return self.mask_rows[mask]
        return np.array([float(mask >> i & 1) for i in range(self.num_roles)], dtype=np.float32)


@lru_cache(maxsize=16)
def obs_layout(num_roles: int) -> ObsLayout:
    return ObsLayout(num_roles)


def layout_of(ruleset: Ruleset) -> ObsLayout:
    """The layout of a game with ``ruleset``: ``max(MIN_ROLE_SLOTS, len(ruleset))`` role slots."""
    return obs_layout(max(MIN_ROLE_SLOTS, len(ruleset.roles)))


DEFAULT_LAYOUT = obs_layout(NUM_ROLES)
