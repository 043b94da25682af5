"""PettingZoo's privileged global state (``state()``, ``state_space``): for centralised critics only.

Both the AEC env (``raw_env``) and the parallel env (``parallel_env``) return this vector from
``state()``. It holds hidden information (every seat's true role, the pack's chosen victim, every
seat's suspicion scores, the witches' potions) and is **never** part of any seat's observation or
``info``: ``tests/test_env_state_render.py`` checks that a seat's observation stays byte-identical
when only hidden roles differ, while the state changes.

A fixed-size float32 vector in [0, 1], padded to ``MAX_PLAYERS`` seats and ``MAX_ROLES`` (8) role slots (as
the observation, ``observe.OBS_LAYOUT``; a ruleset of more roles has as many slots, ``state_space(ruleset)``),
so its size does not depend on the rest of the config. Blocks, in order
(``STATE_LAYOUT``; ``STATE_SLICES[name]`` gives each block's ``(start, stop)``):

==================  =========================  ==========================================================
block               size                       content
==================  =========================  ==========================================================
``roles``           MAX_PLAYERS x MAX_ROLES    every seat's true role, one-hot (row ``p``: seat ``p``;
                                               column ``ruleset.index[role]``)
``present``         MAX_PLAYERS                1 for the seats of this game
``alive``           MAX_PLAYERS                1 for the living seats
``revealed``        MAX_PLAYERS                1 where the role was made public (``reveal_role_on_death``)
``potions``         MAX_PLAYERS x 2            a witch's unused heal, poison (0 for other roles)
``night_target``    MAX_PLAYERS                the pack's victim of the latest night, once decided
``suspicion``       MAX_PLAYERS x MAX_PLAYERS  row ``i``: seat ``i``'s suspicion score of each seat
                                               (0 = trust, 1 = werewolf; its own entry 0)
``claimed_roles``   MAX_PLAYERS x MAX_ROLES    public: roles claimed per seat (as in the observation)
``accused``         MAX_PLAYERS                public: accusations received, normalised (as there)
``last_votes``      MAX_PLAYERS                public: share of the last day's votes received (as there)
``pending``         MAX_PLAYERS x NUM_KINDS    who must answer now, with which action kind (row ``p``:
                                               seat ``p``; column: index in ``state.ACTION_KINDS``)
``round``           1                          round / max_rounds
``debate_turn``     1                          debate turn / max_debate_turns
``over``            1                          1 once the game has ended
``winner``          2                          the winning team, one-hot (werewolf, village)
==================  =========================  ==========================================================
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np
from gymnasium import spaces

from werewolf_env.core import ACTION_KINDS, DEFAULT_RULESET, MAX_PLAYERS, MIN_ROLE_SLOTS, GameState, Ruleset, Team
from werewolf_env.observe import KIND_INDEX, OBS_LAYOUT, ObservationRenderer, layout_of, layout_slices

__all__ = ["STATE_LAYOUT", "STATE_SIZE", "STATE_SLICES", "global_state", "state_space"]

NUM_KINDS = len(ACTION_KINDS)
_TEAMS = tuple(Team)


def _state_blocks(slots: int) -> tuple[tuple[str, int], ...]:
    return (
        ("roles", MAX_PLAYERS * slots), ("present", MAX_PLAYERS), ("alive", MAX_PLAYERS),
        ("revealed", MAX_PLAYERS), ("potions", MAX_PLAYERS * 2), ("night_target", MAX_PLAYERS),
        ("suspicion", MAX_PLAYERS * MAX_PLAYERS), ("claimed_roles", MAX_PLAYERS * slots),
        ("accused", MAX_PLAYERS), ("last_votes", MAX_PLAYERS), ("pending", MAX_PLAYERS * NUM_KINDS),
        ("round", 1), ("debate_turn", 1), ("over", 1), ("winner", len(_TEAMS)),
    )  # fmt: skip


# The default layout (8 role slots); a ruleset of more roles has more (``_state_layout``).
STATE_LAYOUT: tuple[tuple[str, int], ...] = _state_blocks(MIN_ROLE_SLOTS)

STATE_SLICES, STATE_SIZE = layout_slices(STATE_LAYOUT)

# The observation's public blocks copied as they are (claimed roles, accusations, last votes).
_OBS_SLICES, _ = layout_slices(OBS_LAYOUT)
_OBS_PUBLIC = (_OBS_SLICES["claimed_roles"][0], _OBS_SLICES["last_votes"][1])
_STATE_PUBLIC = (STATE_SLICES["claimed_roles"][0], STATE_SLICES["last_votes"][1])


@lru_cache(maxsize=16)
def _state_layout(slots: int) -> tuple[dict[str, tuple[int, int]], int, tuple[int, int], tuple[int, int]]:
    """(slices, size, the public blocks in the state, the public blocks in the observation) for ``slots`` roles."""
    slices, size = layout_slices(_state_blocks(slots))
    obs = layout_of_slots(slots)
    return (
        slices,
        size,
        (slices["claimed_roles"][0], slices["last_votes"][1]),
        (obs["claimed_roles"][0], obs["last_votes"][1]),
    )


def layout_of_slots(slots: int) -> dict[str, tuple[int, int]]:
    return _OBS_SLICES if slots == MIN_ROLE_SLOTS else layout_slices(_obs_blocks(slots))[0]


def _obs_blocks(slots: int) -> tuple[tuple[str, int], ...]:
    from werewolf_env.observe import obs_layout

    return obs_layout(slots).blocks


def state_space(ruleset: Ruleset = DEFAULT_RULESET) -> spaces.Box:
    """``Box(0, 1, (STATE_SIZE,), float32)`` (larger for a ruleset of more than 8 roles)."""
    return spaces.Box(0.0, 1.0, (_state_layout(layout_of(ruleset).num_roles)[1],), np.float32)


def global_state(state: GameState, renderer: ObservationRenderer) -> np.ndarray:
    """The global state vector of ``state`` (see the module docstring); a new array each call."""
    ruleset = state.config.ruleset
    slots = layout_of(ruleset).num_roles
    STATE_SLICES, size, state_public, obs_public = _state_layout(slots)  # noqa: N806 (the default's names)
    vec = np.zeros(size, dtype=np.float32)
    n = state.num_players
    start = STATE_SLICES["roles"][0]
    for seat, role in enumerate(state.roles):
        vec[start + seat * slots + ruleset.index[role]] = 1.0
    start = STATE_SLICES["present"][0]
    vec[start : start + n] = 1.0
    start = STATE_SLICES["alive"][0]
    vec[start : start + n] = np.asarray(state.alive, dtype=np.float32)
    start = STATE_SLICES["revealed"][0]
    for seat in state.revealed:
        vec[start + seat] = 1.0
    start = STATE_SLICES["potions"][0]
    for seat, left in state.potions.items():
        vec[start + 2 * seat] = float("heal" in left)
        vec[start + 2 * seat + 1] = float("poison" in left)
    night = state.night
    if night.decided and night.target is not None:
        vec[STATE_SLICES["night_target"][0] + night.target] = 1.0
    start = STATE_SLICES["suspicion"][0]
    scores = np.clip(np.asarray(state.suspicion, dtype=np.float32), 0.0, 1.0)
    for seat in range(n):
        row = scores[seat].copy()
        row[seat] = 0.0
        vec[start + seat * MAX_PLAYERS : start + seat * MAX_PLAYERS + n] = row
    # The public blocks, from the renderer (any seat's view of them is the same; no turn, no targets).
    public = renderer.vector(0, None, [])
    vec[state_public[0] : state_public[1]] = public[obs_public[0] : obs_public[1]]
    start = STATE_SLICES["pending"][0]
    for turn in state.pending:
        vec[start + turn.player * NUM_KINDS + KIND_INDEX[turn.kind]] = 1.0
    config = state.config
    vec[STATE_SLICES["round"][0]] = min(state.round / config.max_rounds, 1.0)
    vec[STATE_SLICES["debate_turn"][0]] = min(state.debate_turn / max(config.max_debate_turns, 1), 1.0)
    if state.over:
        vec[STATE_SLICES["over"][0]] = 1.0
        if state.winner is not None:
            vec[STATE_SLICES["winner"][0] + _TEAMS.index(state.winner)] = 1.0
    return vec
