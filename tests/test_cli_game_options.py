"""CLI game options are declared once (``cli_values.game_option``) with GameConfig's defaults and bounds (issue 33)."""

from __future__ import annotations

import argparse
import re
from pathlib import Path

import pytest

from werewolf_deception.benchmarks.cli.main import build_parser
from werewolf_deception.benchmarks.console.values import RULE_FLAGS, field_bounds, game_option
from werewolf_env import GameConfig

ROOT = Path(__file__).resolve().parents[1]
RULES = GameConfig.model_fields


def _command(name: str) -> argparse.ArgumentParser:
    parser = build_parser()
    commands = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return commands.choices[name]


@pytest.mark.parametrize("name", ["run", "play", "detect-eval"])
def test_players_default_and_bounds_are_the_configs(name: str) -> None:
    command = _command(name)
    assert command.parse_args([]).players == RULES["num_players"].default
    with pytest.raises(SystemExit):
        command.parse_args(["--players", str((field_bounds(GameConfig, "num_players")[1] or 0) + 1)])


def test_run_rules_left_unset_name_the_configs_default() -> None:
    run = _command("run")
    args = run.parse_args([])
    assert args.rounds is None and args.debate_turns is None  # the config keeps its own default
    text = " ".join(run.format_help().split())
    assert f"undecided (default {RULES['max_rounds'].default})" in text
    assert f"statements per day (default {RULES['max_debate_turns'].default})" in text


def test_game_option_follows_the_field() -> None:
    parser = argparse.ArgumentParser()
    game_option(parser, "num_players", help="seats")
    game_option(parser, "max_rounds", help="rounds", unset=True)
    assert vars(parser.parse_args([])) == {"players": RULES["num_players"].default, "rounds": None}
    assert [a.option_strings for a in parser._actions[1:]] == [[RULE_FLAGS["num_players"]], [RULE_FLAGS["max_rounds"]]]


def test_no_command_declares_players_with_a_literal_default() -> None:
    declared = re.compile(r"add_argument\(\s*['\"]--players['\"][^)]*default\s*=")
    offenders = [p.name for p in (ROOT / "benchmarks").glob("*.py") if declared.search(p.read_text(encoding="utf-8"))]
    assert offenders == []
