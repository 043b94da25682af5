"""The numeric observation's layout: its blocks in order, their sizes and offsets (``observe`` fills them).

Role blocks have room for ``roles.MAX_ROLES`` roles and seat blocks for ``config.MAX_PLAYERS`` seats, so
registering a role or seating fewer players never changes ``OBS_SIZE``.
"""

from __future__ import annotations

import numpy as np

from werewolf_env.core.config import MAX_PLAYERS
from werewolf_env.core.roles import MAX_ROLES
from werewolf_env.core.state import ACTION_KINDS

NUM_ROLES = MAX_ROLES  # room for every role, registered ones too (``roles.register_role``): the layout is fixed
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
