"""Each subcommand's ``--help`` lists the exit codes it can return, no other, in words that read right for it;
the codes the commands return are among those (here for a few exits of each command; ``tests/conftest.py``
checks every in-process call of the other tests too)."""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
from pathlib import Path

import pytest

from werewolf_deception.agents import play_game_sync
from werewolf_deception.benchmarks.cli import main as cli
from werewolf_deception.benchmarks.cli.main import build_parser, main
from werewolf_deception.benchmarks.console.exit_codes import (
    COMMANDS,
    EXIT_BAD_OPTIONS,
    EXIT_FAILED_GAMES,
    EXIT_INTERRUPTED,
    EXIT_OUTPUT_CLOSED,
    EXIT_STORAGE,
    EXIT_TERMINATED,
    MEANINGS,
    Terminated,
    codes_of,
)

ROOT = Path(__file__).resolve().parents[1]
CODE_LINE = re.compile(r"^  (\d+)\s+(.*)$")


def subcommands() -> dict[str, argparse.ArgumentParser]:
    parser = build_parser()
    action = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return dict(action.choices)


def listed(help_text: str) -> dict[int, str]:
    """The exit codes a ``--help`` lists, each with its meaning (wrapped lines joined)."""
    codes: dict[int, str] = {}
    last = None
    for line in help_text.split("\nexit codes", 1)[1].splitlines()[1:]:
        found = CODE_LINE.match(line)
        if found:
            last = int(found.group(1))
            codes[last] = found.group(2)
        elif last is not None and line.strip():
            codes[last] += " " + line.strip()
    return codes


def test_every_subcommand_declares_its_exit_codes() -> None:
    assert set(COMMANDS) == set(subcommands())
    shared = dict(MEANINGS)
    for name, codes in COMMANDS.items():
        assert codes and set(codes) <= set(shared), name  # the numbers of the one table, no others


@pytest.mark.parametrize("name", sorted(subcommands()))
def test_a_subcommands_help_lists_exactly_the_codes_it_can_return(name: str) -> None:
    shown = listed(subcommands()[name].format_help())
    assert list(shown) == list(codes_of(name))
    shared = dict(MEANINGS)
    for code, meaning in shown.items():
        assert meaning == " ".join((COMMANDS[name][code] or shared[code]).split()), (name, code)
        # Worded for this command alone: no "replay: ..." aside in another command's help, no tournament names
        # where there is no tournament.
        assert "replay:" not in meaning and (name == "tournament" or "tournament" not in meaning), (name, meaning)


def test_the_programs_help_keeps_the_whole_table() -> None:
    assert listed(build_parser().format_help()) == {code: " ".join(m.split()) for code, m in MEANINGS}


def test_per_command_codes_are_fewer_where_a_command_cannot_return_them() -> None:
    assert codes_of("replay") == (0, 1, 2, 5, 130, 141, 143)
    assert codes_of("export") == (0, 2, 5, 130, 141, 143)
    assert codes_of("report") == (0, 2, 4, 5, 130, 141, 143)  # 4: a policy fell back more than the run's limit
    assert codes_of("play") == (0, 2, 3, 5, 130, 141, 143)  # 3: an LLM seat's endpoint stopped answering
    assert codes_of("run") == codes_of("tournament") == tuple(code for code, _ in sorted(MEANINGS))


# ------------------------------------------------------------------------------------- the codes returned


@pytest.fixture(scope="module")
def game_log(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("log")
    return Path(str(play_game_sync({"num_players": 5, "num_werewolves": 1}, "heuristic", 3, log_dir=folder).log_path))


@pytest.fixture(scope="module")
def cut_log(game_log: Path) -> Path:
    """The game log cut in half: replay says TRUNCATED (exit 1)."""
    data = game_log.read_bytes()
    cut = game_log.with_name("cut.ndjson")
    cut.write_bytes(data[: len(data) // 2])
    return cut


def exits(tmp_path: Path, cut_log: Path) -> list[tuple[list[str], int]]:
    """Commands driven into one of their non-zero exits, and the code each must return."""
    empty = tmp_path / "empty"
    empty.mkdir()
    file = tmp_path / "a-file"
    file.write_text("not a folder\n")
    missing = tmp_path / "missing"
    return [
        (["run", "--max-fallback-rate", "2", "--out", str(tmp_path / "r")], EXIT_BAD_OPTIONS),
        (["run", "--games", "1", "--out", str(file), "--no-report", "-q"], EXIT_BAD_OPTIONS),
        (["play", "--seat", "player_9", "--out", str(tmp_path / "p")], EXIT_BAD_OPTIONS),
        (["play", "--lineup", str(missing / "lineup.toml"), "--out", str(tmp_path / "p")], EXIT_BAD_OPTIONS),
        (["play", "--out", str(file)], EXIT_BAD_OPTIONS),
        (["report", str(missing)], EXIT_BAD_OPTIONS),
        (["rescore", str(empty), "--labeler", "heuristic"], EXIT_BAD_OPTIONS),
        (["replay", str(missing / "game.ndjson")], EXIT_BAD_OPTIONS),
        (["replay", str(cut_log)], EXIT_FAILED_GAMES),
        (["tournament", str(missing / "t.toml")], EXIT_BAD_OPTIONS),
        (["export", str(empty), "--out", str(tmp_path / "x")], EXIT_BAD_OPTIONS),
        (["relabel", str(missing / "s.jsonl"), "--labeler", "regex"], EXIT_BAD_OPTIONS),
        (["detect-eval", "--train", str(empty), "--out", str(tmp_path / "d")], EXIT_BAD_OPTIONS),
        (["serve", "--people", "9", "--out", str(tmp_path / "s")], EXIT_BAD_OPTIONS),
    ]


def test_the_codes_commands_return_are_the_ones_they_declare(
    tmp_path: Path, cut_log: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cases = exits(tmp_path, cut_log)
    assert {argv[0] for argv, _ in cases} == set(COMMANDS)
    for argv, code in cases:
        assert main(argv) == code, argv
        assert code in codes_of(argv[0]), argv
    for name in COMMANDS:  # argparse's own refusal
        with pytest.raises(SystemExit) as refused:
            main([name, "--no-such-option"])
        assert refused.value.code == EXIT_BAD_OPTIONS and EXIT_BAD_OPTIONS in codes_of(name)
    capsys.readouterr()


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_what_the_dispatcher_turns_into_codes_every_command_declares(
    name: str, capsys: pytest.CaptureFixture[str]
) -> None:
    def raising(error: BaseException) -> object:
        def command(_args: argparse.Namespace) -> int:
            raise error

        return command

    args = argparse.Namespace(command=name)
    for error, code in (
        (KeyboardInterrupt(), EXIT_INTERRUPTED),
        (Terminated(), EXIT_TERMINATED),
        (PermissionError(13, "Permission denied", "x"), EXIT_STORAGE),
    ):
        assert cli._dispatch(raising(error), args) == code  # type: ignore[arg-type]
        assert code in codes_of(name), (name, code)
    capsys.readouterr()


@pytest.mark.skipif(sys.platform == "win32", reason="SIGPIPE")
@pytest.mark.parametrize("argv", [["replay", "--show", "all"], ["play", "--seed", "3", "--players", "6"]])
def test_an_output_closed_early_ends_with_the_declared_code(argv: list[str], game_log: Path, tmp_path: Path) -> None:
    # replay: more output than a pipe's buffer, so that a write meets the closed pipe (play flushes each line)
    extra = [str(game_log)] * 40 if argv[0] == "replay" else ["--out", str(tmp_path)]
    proc = subprocess.Popen(
        [sys.executable, "-m", "werewolf_deception.benchmarks.cli.main", *argv, *extra],
        cwd=ROOT,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    )
    assert proc.stdout is not None
    proc.stdout.readline()
    proc.stdout.close()  # | head -1
    assert proc.wait(timeout=120) == EXIT_OUTPUT_CLOSED and EXIT_OUTPUT_CLOSED in codes_of(argv[0])


def test_play_stops_with_exit_3_when_an_llm_seats_server_stops_answering(tmp_path: Path) -> None:
    """An LLM seat whose endpoint refuses every call trips its breaker: ``play`` says so and exits 3 (declared),
    never a traceback."""
    import os
    import subprocess
    import sys

    from werewolf_deception.agents.fake.server import FakeOpenAIServer, FaultPlan

    with FakeOpenAIServer(faults=FaultPlan(rates={"401": 1.0})) as server:
        lineup = tmp_path / "lineup.toml"
        lineup.write_text(f'[default]\nkind = "llm"\nmodel = "fake"\nbase_url = "{server.base_url}"\n')
        done = subprocess.run(
            [
                sys.executable,
                "-m",
                "werewolf_deception.benchmarks.cli.main",
                "play",
                "--lineup",
                str(lineup),
                "--seat",
                "player_0",
                "--players",
                "5",
                "--seed",
                "1",
                "--out",
                str(tmp_path / "out"),
            ],
            capture_output=True,
            text=True,
            timeout=300,
            stdin=subprocess.DEVNULL,
            env={**os.environ, "OPENAI_API_KEY": "sk-test"},
        )
    assert done.returncode == 3, done.stderr[-2000:]
    assert "error: the game stopped:" in done.stderr and "Traceback" not in done.stderr
    assert 3 in codes_of("play")
