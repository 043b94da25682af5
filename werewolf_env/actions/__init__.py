"""What a policy may send: the action models and specs, the one parser, answer formats, spaces.

``werewolf_env.actions`` also gives the public names of ``werewolf_env.actions.parse``,
loaded on first use (so that importing a sibling module does not load that one).
"""

from __future__ import annotations

from werewolf_env.core.moved import reexport

__getattr__, __dir__ = reexport(
    __name__,
    "werewolf_env.actions.parse",
    (
        "MAX_NOTE_CHARS",
        "MAX_REASONING_CHARS",
        "MAX_SUMMARY_CHARS",
        "MAX_SUMMARY_WORDS",
        "NO_TARGET_WORDS",
        "ParseResult",
        "UnknownPlayerError",
        "legal_targets",
        "parse",
        "resolve_target",
        "resolver",
    ),
)
