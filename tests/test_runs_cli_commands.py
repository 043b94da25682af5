"""The command line: --version, every option's default in --help, replay of truncated logs, a person who
is eliminated in ``play``, and entrants with any printable name in a tournament."""

from __future__ import annotations

import argparse
import io
import json
import re
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from werewolf_deception.agents import RandomAgent, play_game_sync
from werewolf_deception.agents.base import Policy
from werewolf_deception.agents.policies.human import ELIMINATED, SHORTHAND, HumanAgent, prompt_of
from werewolf_deception.benchmarks.cli.main import build_parser, main
from werewolf_env import __version__
from werewolf_env.core.state import ActionKind
from werewolf_env.engine.log import replay

# ------------------------------------------------------------------------------------- --version, --help


def test_version(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as done:
        main(["--version"])
    assert done.value.code == 0 and capsys.readouterr().out.strip() == f"werewolf-bench {__version__}"


def subcommands() -> dict[str, argparse.ArgumentParser]:
    parser = build_parser()
    action = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return dict(action.choices)


def option_helps(parser: argparse.ArgumentParser) -> dict[str, str]:
    """Each option's block in ``--help``, by its first flag (the block runs until the next option or section)."""
    blocks: dict[str, str] = {}
    current = None
    for line in parser.format_help().splitlines():
        flag = re.match(r"\s{2}(-[-\w]+)", line)
        if flag:
            current = flag.group(1)
            blocks[current] = line
        elif current and line.startswith(" " * 6):
            blocks[current] += " " + line.strip()
        else:
            current = None
    return blocks


@pytest.mark.parametrize("name", sorted(subcommands()))
def test_every_option_names_its_default(name: str) -> None:
    parser = subcommands()[name]
    blocks = option_helps(parser)
    flags = {
        a.option_strings[0]
        for a in parser._actions
        if a.option_strings and a.default is not argparse.SUPPRESS and not a.required
    }
    assert flags and flags <= set(blocks), flags - set(blocks)
    lacking = sorted(f for f in flags if "default" not in blocks[f].lower())
    assert not lacking, f"werewolf-bench {name}: no default named for {lacking}"
    assert "exit codes:" in parser.format_help()


def test_the_main_help_names_the_exit_codes() -> None:
    text = build_parser().format_help()
    for code in ("0", "1", "2", "3", "4", "5", "130", "141", "143"):
        assert re.search(rf"^\s+{code}\s{{2,}}\w", text, re.MULTILINE), code


# ------------------------------------------------------------------------------------- replay


@pytest.fixture(scope="module")
def game_log(tmp_path_factory: pytest.TempPathFactory) -> Path:
    result = play_game_sync(
        {"num_players": 5, "num_werewolves": 1}, "heuristic", 3, log_dir=tmp_path_factory.mktemp("log")
    )
    return Path(str(result.log_path))


def replay_lines(path: Path, capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    code = main(["replay", str(path)])
    return code, capsys.readouterr().out


def test_a_whole_log_is_identical(game_log: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out = replay_lines(game_log, capsys)
    assert code == 0 and out.startswith(f"{game_log}: identical, ") and "TRUNCATED" not in out


def test_a_log_cut_mid_line_says_truncated_and_where(
    game_log: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = game_log.read_bytes()
    cut = tmp_path / "cut.ndjson"
    cut.write_bytes(data[: len(data) // 2])
    line = data[: len(data) // 2].count(b"\n") + 1
    code, out = replay_lines(cut, capsys)
    assert code == 1
    assert f"TRUNCATED: line {line} is cut off mid-line (at byte {len(data) // 2}" in out
    assert "identical," not in out and "DIFFERS," not in out


def test_a_log_with_missing_lines_says_where(
    game_log: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    lines = game_log.read_text().splitlines(keepends=True)
    holed = tmp_path / "holed.ndjson"
    holed.write_text("".join(lines[:6] + lines[9:]))  # three engine events gone
    code, out = replay_lines(holed, capsys)
    assert code == 1 and "TRUNCATED: events are missing: event seq 8 comes where seq 5 was due" in out


def test_a_log_that_stops_between_lines_says_the_game_did_not_end(
    game_log: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    lines = game_log.read_text().splitlines(keepends=True)
    short = tmp_path / "short.ndjson"
    short.write_text("".join(lines[:40]))
    code, out = replay_lines(short, capsys)
    last = json.loads(lines[39])
    assert code == 1
    assert f"TRUNCATED: the log ends at line 40, after event seq {last['seq']}" in out
    assert "before the game ended" in out
    assert "what it holds replays identically" in out


def test_a_log_with_a_garbage_line_says_where(
    game_log: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    lines = game_log.read_text().splitlines(keepends=True)
    bad = tmp_path / "bad.ndjson"
    bad.write_text("".join([*lines[:20], "\x00\xff garbage\n", *lines[20:]]))
    code, out = replay_lines(bad, capsys)
    assert code == 1 and "TRUNCATED: line 21 (byte " in out and f"the {len(lines) - 20} lines after it" in out


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.floats(0.0, 0.999))
def test_any_cut_of_a_log_is_truncated_never_identical(game_log: Path, tmp_path: Path, share: float) -> None:
    data = game_log.read_bytes()
    cut = tmp_path / "any.ndjson"
    cut.write_bytes(data[: int(len(data) * share)])
    result = replay(cut)
    assert result.truncated is not None
    assert not (result.ok and result.complete)


# ------------------------------------------------------------------------------------- play


def test_every_answer_prompt_documents_its_shorthand() -> None:
    for kind in ActionKind:
        assert kind.value in SHORTHAND, kind
        assert SHORTHAND[kind.value] in prompt_of(kind.value)
    assert prompt_of("vote") == "[vote] your answer (a player's name, or none to abstain; or JSON)> "


def test_an_eliminated_person_keeps_seeing_the_public_game() -> None:
    answers = io.StringIO("\n".join(["5", "I am a villager.", "no", "none", "Alice", "good game"] * 400))
    out = io.StringIO()
    policies: list[Policy] = [HumanAgent(input=answers, output=out), *(RandomAgent(s) for s in range(1, 8))]
    result = play_game_sync({}, None, seed=2, policies=policies)
    assert not result.players[0].alive, "pick a seed in which the person dies before the end"
    text = out.getvalue()
    assert text.count(ELIMINATED) == 1
    after = text.split(ELIMINATED, 1)[1]
    assert "Votes:" in after and "Game over." in after and after.rstrip().endswith("NOW: the game is over.")
    assert "your answer" not in after and "(final summary)" in after  # never asked again; shown to the end


# ------------------------------------------------------------------------------------- tournament names

ODD_NAMES = ["a | b", "a", "$x^2$ <b>bold</b> & 'q' \"dq\"", "\u202egnp.exe", "\x1b[31mred\x1b[0m", "tab\tname",
             "名前 – ünïcode"]  # fmt: skip


def test_entrants_with_any_name_play_a_tournament(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    config = tmp_path / "t.toml"
    config.write_text(
        'name = "odd names"\nblocks = 1\nplayers = 7\n'
        + "".join(
            f'[[entrants]]\nname = {json.dumps(name)}\nkind = "{"random" if i % 2 else "heuristic"}"\n'
            for i, name in enumerate(ODD_NAMES)
        )
    )
    out = tmp_path / "out"
    assert main(["tournament", str(config), "--out", str(out), "--no-plots"]) == 0
    printed = capsys.readouterr().out
    result = json.loads((out / "tournament.json").read_text())
    assert list(result["entrants"]) == ODD_NAMES
    for entrant in result["entrants"].values():
        assert entrant["games"] == len(ODD_NAMES) and entrant["win_rate_by_role"]
    assert "\x1b" not in printed and "\u202e" not in printed and "\t" not in printed  # shown inert
    assert "  a | b " in printed and "[U+202E]gnp.exe" in printed and "[U+001B][31mred" in printed


def test_a_file_that_is_no_log_is_said_to_be_none(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    for name, data in (("binary.ndjson", b"\x00\x01"), ("other.ndjson", b'{"name": "a JSON line, not a log"}\n')):
        path = tmp_path / name
        path.write_bytes(data)
        code, out = replay_lines(path, capsys)
        assert code == 1 and "NOT A GAME LOG" in out and "TRUNCATED" not in out and "identical" not in out
