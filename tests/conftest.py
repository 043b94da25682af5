"""Checks for every test: each exit code a ``werewolf-bench`` subcommand returns in-process
(``werewolf_deception.benchmarks.cli.main.main``) is one its ``--help`` lists
(``werewolf_deception.benchmarks.console.exit_codes.COMMANDS``), so the tests that drive commands into their exits
keep that declaration honest. ``run_logs``: a small finished run for the tests that read or spoil one."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest


@pytest.fixture(autouse=True)
def _exit_codes_are_declared(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    cli = sys.modules.get(
        "werewolf_deception.benchmarks.cli.main"
    )  # loaded by the tests that call it; no import for the others
    if cli is not None:
        from werewolf_deception.benchmarks.console.exit_codes import codes_of

        dispatch = cli._dispatch

        def checked(command: Callable[[argparse.Namespace], int], args: argparse.Namespace) -> int:
            code = dispatch(command, args)
            assert code in codes_of(args.command), (
                f"werewolf-bench {args.command} returned {code}, which its --help does not list "
                f"({codes_of(args.command)}): declare it in werewolf_deception.benchmarks.console.exit_codes.COMMANDS"
            )
            return code

        monkeypatch.setattr(cli, "_dispatch", checked)
    yield


@pytest.fixture(scope="module")
def run_logs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A small heuristic run's folder (three games, no report): copy it before changing it."""
    from werewolf_deception.benchmarks.cli.main import main

    out = tmp_path_factory.mktemp("run") / "run"
    assert main(["run", "--games", "3", "--players", "5", "--no-report", "--quiet", "--out", str(out)]) == 0
    return out
