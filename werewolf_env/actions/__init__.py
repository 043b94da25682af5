"""What a policy may send: the action models and specs, the one parser, answer formats, spaces.

The names other packages use, from the modules that define them.
"""

from __future__ import annotations

from werewolf_env.actions.formats import ANSWER_PREFIX
from werewolf_env.actions.parse import (
    ACTION_MODELS,
    MAX_NOTE_CHARS,
    MAX_REASONING_CHARS,
    MAX_SUMMARY_CHARS,
    MAX_SUMMARY_WORDS,
    NO_TARGET_WORDS,
    ParseResult,
    UnknownPlayerError,
    answer_format,
    as_object,
    echoes_template,
    legal_targets,
    parse,
    placeholder_reason,
    resolve_target,
    resolver,
    to_jsonable,
)
from werewolf_env.actions.spaces import FreeText, JsonActionSpace
from werewolf_env.actions.specs import ACTION_SPECS, KIND_PHASE, NIGHT_PHASES, TARGET_KEYS, UNSEEN_KINDS

__all__ = [
    "ACTION_MODELS",
    "ACTION_SPECS",
    "ANSWER_PREFIX",
    "KIND_PHASE",
    "MAX_NOTE_CHARS",
    "MAX_REASONING_CHARS",
    "MAX_SUMMARY_CHARS",
    "MAX_SUMMARY_WORDS",
    "NIGHT_PHASES",
    "NO_TARGET_WORDS",
    "TARGET_KEYS",
    "UNSEEN_KINDS",
    "FreeText",
    "JsonActionSpace",
    "ParseResult",
    "UnknownPlayerError",
    "answer_format",
    "as_object",
    "echoes_template",
    "legal_targets",
    "parse",
    "placeholder_reason",
    "resolve_target",
    "resolver",
    "to_jsonable",
]
