"""Command-line values checked as they are parsed, so that a bad one is refused before anything starts (exit 2).

    parser.add_argument("--games", type=GAMES)     # "argument --games: must be from 1 to 100000 (got 0)"
    parser.add_argument("--rounds", type=rule_number("max_rounds"))  # GameConfig's own bounds
    game_option(parser, "num_players", help="seats per game")   # --players: GameConfig's bounds and default
    config = game_config_of({"num_players": 5, ...})  # or a ValueError of one line naming the options, never a dump

Every bound is a named constant here or a field's bound in ``werewolf_env.core.config.GameConfig`` (one place each);
the options' help texts name them.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from typing import Any

from pydantic import BaseModel, ValidationError

from werewolf_deception.agents.llm import (
    MAX_SEED,  # int64, for game seeds too: what any reader of the logs takes
)
from werewolf_deception.benchmarks.console.exit_codes import EXIT_BAD_OPTIONS
from werewolf_env import GameConfig
from werewolf_env.core import terminal_safe

__all__ = ["BASELINE_GAMES", "COUNT", "GAMES", "IN_FLIGHT", "MAX_CONCURRENCY", "MAX_GAMES", "MAX_RESAMPLES",
           "MAX_SEED", "MAX_WORKERS", "RESAMPLES", "RULE_FLAGS", "SEED", "WORKERS", "field_bounds", "game_config_of",
           "game_option", "one_line", "probability", "refuse", "rule_number", "whole_number"]  # fmt: skip

MAX_GAMES = 100_000  # games per run: a run folder's results and the summary are read whole
MAX_CONCURRENCY = 4096  # games and calls in flight
MAX_WORKERS = 256  # processes
MAX_RESAMPLES = 10_000  # bootstrap resamples: each holds a weight per game (10,000 x 100,000 games: 8 GB)
_SHOWN_CHARS = 24  # of a refused value, in the message

# GameConfig field -> the run option that sets it (messages name what the user typed)
RULE_FLAGS = {
    "num_players": "--players", "max_rounds": "--rounds", "max_debate_turns": "--debate-turns",
    "role_counts": "--role-counts", "vote_polls": "--vote-polls", "subject_suspicion": "--subject-suspicion",
    "analysis": "--analysis", "control_subject_probability": "--control-subject-probability",
}  # fmt: skip


def one_line(text: str) -> str:
    """``text`` as one line, control characters shown: a path or a name in a message may hold any."""
    return " ".join(terminal_safe(text).split())


def refuse(problem: Exception) -> int:
    """Say ``problem`` on one line of stderr (``error: ...``); the exit code for bad options."""
    print(f"error: {one_line(str(problem))}", file=sys.stderr)
    return EXIT_BAD_OPTIONS


def cut(text: str) -> str:
    """``text`` short enough to quote in a message."""
    return text if len(text) <= _SHOWN_CHARS else f"{text[:_SHOWN_CHARS]}..."


def probability(text: str) -> float:
    """An argparse ``type``: a number from 0 to 1, or an error saying what was given."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {cut(text)!r}") from None
    if not 0.0 <= value <= 1.0:  # NaN fails both comparisons
        raise argparse.ArgumentTypeError(f"{cut(text)!r} is not a probability from 0 to 1")
    return value


def whole_number(least: int, most: int | None = None) -> Callable[[str], int]:
    """An argparse ``type``: an integer in ``[least, most]``, or an error saying the bound and what was given."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:  # a word, a fraction, or more digits than Python converts
            raise argparse.ArgumentTypeError(f"not a whole number: {cut(text)!r}") from None
        if value < least or (most is not None and value > most):
            bound = f"at least {least}" if most is None else f"from {least} to {most}"
            raise argparse.ArgumentTypeError(f"must be {bound} (got {cut(str(value))})")
        return value

    parse.__name__ = "whole number"
    return parse


# The option types the commands share: each bound above in one place.
COUNT = whole_number(1)  # how many of something, where none is meaningless
SEED = whole_number(0, MAX_SEED)
GAMES = whole_number(1, MAX_GAMES)
BASELINE_GAMES = whole_number(0, MAX_GAMES)  # 0: none
IN_FLIGHT = whole_number(1, MAX_CONCURRENCY)
WORKERS = whole_number(1, MAX_WORKERS)
RESAMPLES = whole_number(0, MAX_RESAMPLES)  # 0: no intervals


def field_bounds(model: type[BaseModel], field: str) -> tuple[int, int | None]:
    """The least and most a whole-number field of ``model`` takes (its ``ge`` and ``le``; no ``ge``: 0)."""
    least, most = 0, None
    for rule in model.model_fields[field].metadata:
        if getattr(rule, "ge", None) is not None:  # annotated_types.Ge, as pydantic keeps Field(ge=...)
            least = int(rule.ge)
        elif getattr(rule, "le", None) is not None:
            most = int(rule.le)
    return least, most


def rule_number(field: str) -> Callable[[str], int]:
    """An argparse ``type`` for a whole-number game rule, with the bounds the config sets for it."""
    return whole_number(*field_bounds(GameConfig, field))


def game_option(parser: argparse.ArgumentParser, field: str, help: str, *, unset: bool = False) -> argparse.Action:
    """Declare the option that sets the whole-number ``GameConfig`` rule ``field`` (its flag: ``RULE_FLAGS``), with
    the field's bounds and the field's default. ``unset``: the option defaults to None (the config keeps its own
    default, which the help names), so that a run can tell whether it was given."""
    default = GameConfig.model_fields[field].default
    if unset:
        return parser.add_argument(RULE_FLAGS[field], type=rule_number(field), help=f"{help} (default {default})")
    return parser.add_argument(RULE_FLAGS[field], type=rule_number(field), default=default, help=help)


def game_config_of(fields: dict[str, Any], flags: dict[str, str] | None = None) -> GameConfig:
    """``GameConfig(**fields)``, or a ValueError of one line naming each problem's option (``flags``: field -> the
    option that sets it), never a library's dump."""
    flags = RULE_FLAGS if flags is None else flags
    try:
        return GameConfig(**fields)
    except ValidationError as exc:
        problems = []
        for err in exc.errors():
            field = str(err["loc"][0]) if err["loc"] else ""
            where = flags.get(field, field)
            if err["type"] == "value_error":  # the config's own checks: they say what to change
                problems.append(" ".join(str(err["ctx"]["error"]).split()))
            else:
                problems.append(f"{where}: {err['msg'][:1].lower()}{err['msg'][1:]}")
        raise ValueError("; ".join(problems)) from None
