"""A fuzz test of ``werewolf-bench run``'s options (issue 31, item 9): random values of every option the parser
has (read from the parser itself, so a new option is fuzzed too). Each command line either starts (its plan is
made: the games, seeds, seats and counts it would play are sound) or exits 2 with exactly one ``error:`` line,
no traceback, no request to a server and nothing written.

The options are parsed and checked in-process and the run stopped right after its plan (``plan_run``): no game
is played, so 2,000 examples take seconds. ``WEREWOLF_FUZZ_EXAMPLES`` sets another number (e.g. for a longer
search). A few command lines that pass are then run for real, with small games, to show that they start.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import random
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from werewolf_deception.agents.fake.server import FakeOpenAIServer, refused_url
from werewolf_deception.benchmarks.cli.main import build_parser, main
from werewolf_deception.benchmarks.cli.run import RunPlan, plan_run
from werewolf_deception.benchmarks.console.values import MAX_GAMES, MAX_SEED

EXAMPLES = int(os.environ.get("WEREWOLF_FUZZ_EXAMPLES", "2000"))

RUN = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction)).choices["run"]
OPTIONS = [a for a in RUN._actions if a.option_strings and not isinstance(a, argparse._HelpAction)]

# Text a command line can carry: anything but NUL (no argv holds one) and lone surrogates.
TEXT = st.text(st.characters(codec="utf-8", exclude_characters="\x00"), max_size=30)
ODD_NUMBERS = ["0", "-0", "1e3", "nan", "inf", "-inf", "", " 7 ", "0x10", "1_000", "9" * 5000, "٣"]
NUMBERS = st.one_of(
    st.integers(-3, 40).map(str),
    st.integers(-(2**70), 2**70).map(str),
    st.sampled_from([*ODD_NUMBERS, *(str(n) for n in (MAX_GAMES, MAX_GAMES + 1, MAX_SEED, MAX_SEED + 1))]),
    st.floats(allow_nan=True, allow_infinity=True).map(repr),
    TEXT,
)


class Workplace:
    """A folder with the files an option may name (lineups good and bad, an --out of every kind), and a server."""

    def __init__(self, folder: Path, server: FakeOpenAIServer) -> None:
        self.folder = folder
        self.server = server
        llm = {"kind": "llm", "model": "m", "base_url": server.base_url}
        lineups: dict[str, str] = {
            "heuristic.toml": "default = 'heuristic'\n",
            "bom.toml": "\ufeffdefault = 'random'\n",
            "llm.json": json.dumps({"default": "heuristic", "roles": {"seer": llm}}),
            "dead.json": json.dumps({"default": {**llm, "base_url": refused_url()}}),
            "seat9.json": json.dumps({"default": "heuristic", "seats": {"player_9": "random"}}),
            "seat-name.json": json.dumps({"seats": {"nobody": "random"}}),
            "body.json": json.dumps({"default": {**llm, "extra_body": {"messages": []}}}),
            "deep.toml": "x = " + "[" * 5_000 + "]" * 5_000 + "\n",
            "deep.json": "[" * 100_000 + "]" * 100_000,
            "garbage.toml": "= = =\n",
            "list.json": "[1, 2]",
            "key.json": json.dumps({"default": {**llm, "api_key": "sk-x"}}),
        }
        for name, text in lineups.items():
            (folder / name).write_text(text, encoding="utf-8")
        (folder / "a-file").write_text("mine\n")
        (folder / "others").mkdir()
        (folder / "others" / "notes.txt").write_text("mine\n")
        (folder / "dangling").symlink_to(folder / "missing")
        (folder / "loop-a").symlink_to(folder / "loop-b")
        (folder / "loop-b").symlink_to(folder / "loop-a")
        self.lineups = [*lineups, "missing.toml", "others", ""]
        self.outs = ["runs/x", "a-file", "a-file/sub", "others", "dangling", "loop-a", "dangling/sub", "new/deep/er"]

    def snapshot(self) -> dict[str, bytes | str | None]:
        found: dict[str, bytes | str | None] = {}
        for path in sorted(self.folder.rglob("*")):
            name = str(path.relative_to(self.folder))
            found[name] = os.readlink(path) if path.is_symlink() else (path.read_bytes() if path.is_file() else None)
        return found


@pytest.fixture(scope="module")
def workplace() -> Iterator[Workplace]:
    with FakeOpenAIServer() as server, tempfile.TemporaryDirectory() as folder:
        here = Path.cwd()
        os.chdir(folder)  # the default --out, runs/demo, is relative: it would be made here
        try:
            yield Workplace(Path(folder), server)
        finally:
            os.chdir(here)


def values(action: argparse.Action, place: Workplace) -> st.SearchStrategy[list[str]]:
    """Command-line words for one option: its flag, and a value fit or unfit for it."""
    flag = st.sampled_from(action.option_strings)
    if action.nargs == 0:
        return flag.map(lambda f: [f])
    if action.choices:
        value = st.one_of(st.sampled_from([str(c) for c in action.choices]), TEXT)
    elif action.dest == "lineup":
        value = st.one_of(st.sampled_from(place.lineups), TEXT)
    elif action.dest == "out":
        value = st.one_of(st.sampled_from(place.outs), TEXT.filter(lambda t: t.strip() not in ("", ".", "..")))
    elif action.dest == "base_url":
        value = st.one_of(
            st.sampled_from(
                [place.server.base_url, refused_url(), "localhost:8080", "http://", "http://h:99999/v1", "ftp://h/v1"]
            ),
            TEXT,
        )
    elif action.dest == "role_counts":
        roles = st.sampled_from(["witch", "hunter", "seer", "doctor", "werewolf", "villager", "wizard", ""])
        pairs = st.lists(st.tuples(roles, NUMBERS), max_size=3).map(lambda ps: ",".join(f"{r}={n}" for r, n in ps))
        value = st.one_of(pairs, TEXT)
    elif action.dest == "model":
        value = st.one_of(st.just("m"), st.just("m"), TEXT)
    elif action.type is str or action.type is None:
        value = st.one_of(st.just("m"), TEXT)
    else:  # a number: whole or not; often one in the range the option takes
        value = st.one_of(st.integers(0, 600).map(str), st.floats(0, 2).map(str), NUMBERS)
    return st.tuples(flag, value).map(list)


def accepted(action: argparse.Action, candidates: list[str]) -> list[str]:
    """The candidates the option's parser takes."""
    taken = []
    for text in candidates:
        try:
            action.type(text)  # type: ignore[misc, operator]
        except (argparse.ArgumentTypeError, ValueError):
            continue
        taken.append(text)
    return taken


def fitting(action: argparse.Action, place: Workplace) -> st.SearchStrategy[list[str]]:
    """Command-line words for one option with a value a user would give (which may still be refused later)."""
    flag = st.sampled_from(action.option_strings)
    if action.nargs == 0:
        return flag.map(lambda f: [f])
    fit = {"lineup": ["heuristic.toml", "bom.toml", "llm.json"], "out": ["runs/x", "new/deep/er"],
           "base_url": [place.server.base_url], "role_counts": ["witch=1", "witch=1,hunter=1", "hunter=1"]}  # fmt: skip
    if action.choices:
        options = [str(c) for c in action.choices]
    elif action.dest in fit:
        options = fit[action.dest]
    elif action.type is float:
        options = ["0", "0.1", "0.5", "1", "2", "30"]
    elif callable(action.type) and action.type is not str:
        options = accepted(action, ["1", "2", "3", "5", "8", "16", "20", "300", "600", "1000", "4096", "20000"])
    else:
        options = ["m", "127.0.0.1:6379"]
    return st.tuples(flag, st.sampled_from(options)).map(list)


def command_lines(place: Workplace) -> st.SearchStrategy[list[str]]:
    """Options with fitting values (half the time for an LLM on the fake server), and often one or two with any
    value, in any order."""
    chosen = st.lists(st.sampled_from(OPTIONS), max_size=6, unique_by=lambda a: a.dest)
    fit = chosen.flatmap(lambda actions: st.tuples(*(fitting(a, place) for a in actions)))
    hostile = st.lists(st.sampled_from(OPTIONS), max_size=2).flatmap(
        lambda actions: st.tuples(*(values(a, place) for a in actions))
    )
    llm = st.sampled_from([(), (["--model", "m"], ["--base-url", place.server.base_url])])
    return st.tuples(fit, hostile, llm, st.randoms()).map(lambda drawn: ["run", *shuffled(*drawn)])


def shuffled(
    fit: tuple[list[str], ...], hostile: tuple[list[str], ...], llm: tuple[list[str], ...], rng: random.Random
) -> list[str]:
    """The options' words, the options in a random order."""
    parts = [*fit, *hostile, *llm]
    rng.shuffle(parts)
    return [word for part in parts for word in part]


def check(argv: list[str], place: Workplace) -> RunPlan | None:
    """Parse and plan ``argv``: the plan, or None after checking the refusal is one line, exit 2, nothing done."""
    before = place.snapshot()
    asked = len(place.server.requests)
    err = io.StringIO()
    plan: RunPlan | int
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        try:
            plan = plan_run(build_parser().parse_args(argv))
        except SystemExit as refused:
            plan = refused.code  # type: ignore[assignment]
    text = err.getvalue()
    assert place.snapshot() == before, f"{argv} wrote something"
    assert len(place.server.requests) == asked, f"{argv} called a server"
    if isinstance(plan, int):
        assert plan == 2, (argv, plan, text)
        lines = text.splitlines()
        assert len(lines) == 1 and lines[0].startswith("error: ") and "\x1b" not in text, (argv, text)
        return None
    assert text == "", (argv, text)
    return plan


def sound(plan: RunPlan, argv: list[str]) -> None:
    """What a plan that starts must be: bounded counts, seeds that exist, every seat in the game."""
    args = build_parser().parse_args(argv)
    assert 1 <= len(plan.jobs) == args.games <= MAX_GAMES
    assert all(0 <= job.seed <= MAX_SEED for job in (plan.jobs[0], plan.jobs[-1]))
    assert plan.concurrency >= 1 and args.workers >= 1 and args.baseline_games >= 0 and args.breaker >= 1
    seats = {f"player_{i}" for i in range(plan.config.num_players)}
    assert set(plan.jobs[0].lineup.seats) <= seats


@settings(
    max_examples=EXAMPLES,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(data=st.data())
def test_every_run_command_line_starts_or_is_refused_in_one_line(data: st.DataObject, workplace: Workplace) -> None:
    argv = data.draw(command_lines(workplace))
    plan = check(argv, workplace)
    if plan is not None:
        sound(plan, argv)


SMALL = ["--games", "1", "--players", "5", "--rounds", "1", "--debate-turns", "1", "--baseline-games", "0",
         "--no-report", "--quiet", "--max-tokens", "300", "--retries", "0", "--breaker", "2"]  # fmt: skip


@settings(
    max_examples=8, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow]
)
@given(data=st.data())
def test_a_command_line_that_passes_the_checks_starts(data: st.DataObject, workplace: Workplace) -> None:
    """The plan is what the run plays: a command line the checks pass, made small, plays (or stops as a run may)."""
    argv = data.draw(command_lines(workplace).filter(lambda a: "--workers" not in a and "--backend" not in a))
    argv = [*argv, *SMALL, "--out", tempfile.mkdtemp(dir=workplace.folder / "others")]
    plan = check(argv, workplace)  # the out folder is new: nothing there yet
    if plan is None:
        return
    code = main(argv)
    assert code in (0, 2, 3, 4), argv  # played; a preflight refusal; a breaker; an invalid measurement
