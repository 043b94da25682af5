"""The game's facts, the lowest floor: roles, configuration, state, names, untrusted input, visibility and the
version.

The names other packages use, from the modules that define them.
"""

from __future__ import annotations

from werewolf_env.core.config import (
    DEFAULT_NAMES,
    MAX_PLAYERS,
    MIN_PLAYERS,
    GameConfig,
    arguments_table,
    statement_char_limit,
    without_new_defaults,
)
from werewolf_env.core.inert_text import terminal_safe, visible_controls
from werewolf_env.core.json_input import (
    BYTES_KEY,
    BYTES_REPAIR,
    UNSUPPORTED_KEY,
    TooDeepError,
    as_object,
    loads_bounded,
    marker_reason,
    marker_text,
    short_repr,
    to_jsonable,
)
from werewolf_env.core.moved import install_moves, reexport, removed_names
from werewolf_env.core.names import DEAD_MARK, SELF_MARK, fold, fold_with_positions, name_key, seat_finder
from werewolf_env.core.roles import (
    DEFAULT_RULESET,
    MIN_ROLE_SLOTS,
    ROLE_SPECS,
    ActionKind,
    Role,
    RoleSpec,
    Ruleset,
    Team,
)
from werewolf_env.core.state import ACTION_KINDS, KIND_NAME, PUBLIC, Event, GameState, NightChoices, Statement, Turn
from werewolf_env.core.version import package_version
from werewolf_env.core.visibility import all_roles_mask, knowledge_masks, public_config, role_bit, team_mask, visible

__all__ = [
    "ACTION_KINDS",
    "BYTES_KEY",
    "BYTES_REPAIR",
    "DEAD_MARK",
    "DEFAULT_NAMES",
    "DEFAULT_RULESET",
    "KIND_NAME",
    "MAX_PLAYERS",
    "MIN_PLAYERS",
    "MIN_ROLE_SLOTS",
    "PUBLIC",
    "ROLE_SPECS",
    "SELF_MARK",
    "UNSUPPORTED_KEY",
    "ActionKind",
    "Event",
    "GameConfig",
    "GameState",
    "NightChoices",
    "Role",
    "RoleSpec",
    "Ruleset",
    "Statement",
    "Team",
    "TooDeepError",
    "Turn",
    "all_roles_mask",
    "arguments_table",
    "as_object",
    "fold",
    "fold_with_positions",
    "install_moves",
    "knowledge_masks",
    "loads_bounded",
    "marker_reason",
    "marker_text",
    "name_key",
    "package_version",
    "public_config",
    "reexport",
    "removed_names",
    "role_bit",
    "seat_finder",
    "short_repr",
    "statement_char_limit",
    "team_mask",
    "terminal_safe",
    "to_jsonable",
    "visible",
    "visible_controls",
    "without_new_defaults",
]
