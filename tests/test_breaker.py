"""The circuit breaker sees what a failing server does: useless answers, hung servers, odd usage, slow connects.

Real HTTP to the project's fake server (or to a socket that never accepts) on 127.0.0.1; nothing is mocked.
A hung server is tested with a short clock: the attempt limits are the defaults divided by ``SCALE``, so
"within 3 minutes" at the defaults is "within 180 / SCALE seconds" here.
"""

from __future__ import annotations

import asyncio
import json
import random
import socket
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from werewolf_deception.agents.fake.server import FakeOpenAIServer, FaultPlan
from werewolf_deception.agents.llm.endpoints import EndpointDownError, EndpointPool
from werewolf_deception.agents.llm.options import LLMOptions, validate_options
from werewolf_deception.agents.llm.schemas import turn_schema
from werewolf_deception.benchmarks.cli.main import main

SMALL = ["--players", "5", "--rounds", "1", "--debate-turns", "1", "--no-report", "--quiet"]
PROBES = 3  # the preflight's requests come first
SCALE = 12  # the hung-server test's clock: the default attempt limits divided by this
DEFAULT = LLMOptions(model="fake")


def run(out: Path, base_url: str, *extra: str) -> int:
    return main(["run", "--model", "fake", "--base-url", base_url, "--games", "1", "--out", str(out), *SMALL, *extra])


def summary(out: Path) -> dict[str, Any]:
    return json.loads((out / "summary.json").read_text())


# ---------------------------------------------------------------- useless answers count as failures


@pytest.mark.parametrize(
    "fault, kind",
    [
        ("no_choices", "empty choices"),
        ("null_content", "null content"),
        ("empty", "empty answer"),
        ("cut_before_json", "cut off before any JSON"),
        ("empty_fence", "repaired to nothing"),
    ],
)
def test_useless_answers_trip_the_breaker_early_and_name_their_kind(tmp_path: Path, fault: str, kind: str) -> None:
    with FakeOpenAIServer(faults=FaultPlan(rates={fault: 1.0})) as server:
        code = run(tmp_path / "r", server.base_url, "--no-preflight", "--breaker", "4")
        requests = len(server.requests)
    assert code == 3, "a server whose answers hold nothing stops the run (it does not play it out)"
    assert requests < 20, f"{requests} requests: the run went on after the breaker's 4"
    headline = summary(tmp_path / "r")["headline"]
    assert "4 calls in a row" in headline and kind in headline and "127.0.0.1" in headline


def test_the_preflight_refuses_a_server_whose_answers_hold_nothing(tmp_path: Path, capsys) -> None:
    with FakeOpenAIServer(faults=FaultPlan(rates={"no_choices": 1.0})) as server:
        code = run(tmp_path / "r", server.base_url)
    err = capsys.readouterr().err
    assert code == 2 and "empty choices" in err and "lineup default" in err
    assert not (tmp_path / "r" / "games").exists()


def test_usable_answers_between_useless_ones_keep_the_breaker_shut(tmp_path: Path) -> None:
    plan = FaultPlan(rates={"empty": 0.3}, seed=3)
    with FakeOpenAIServer(faults=plan) as server:
        code = run(tmp_path / "r", server.base_url, "--no-preflight", "--max-fallback-rate", "1")
    assert code == 0, summary(tmp_path / "r").get("headline")


# ---------------------------------------------------------------- a hung server


def test_a_server_that_hangs_mid_run_stops_a_default_run_within_three_minutes(tmp_path: Path) -> None:
    hung = FaultPlan(schedule={i: "timeout" for i in range(PROBES + 4, PROBES + 10_000)})
    clock = ["--timeout", f"{DEFAULT.timeout / SCALE:g}", "--max-wait", f"{DEFAULT.max_wait / SCALE:g}",
             "--connect-timeout", f"{DEFAULT.connect_timeout / SCALE:g}"]  # fmt: skip
    with FakeOpenAIServer(faults=hung, hang=3600) as server:
        started = time.monotonic()
        code = run(tmp_path / "r", server.base_url, *clock)
        elapsed = time.monotonic() - started
    assert code == 3
    assert elapsed < 180 / SCALE, f"{elapsed:.1f} s, over 3 minutes at the defaults' scale"
    headline = summary(tmp_path / "r")["headline"]
    assert "hung" in headline and "127.0.0.1" in headline and "--timeout" in headline


def _options(base_url: str, **values: Any) -> LLMOptions:
    return validate_options({"model": "fake", "base_url": base_url, **values})


def test_timeouts_trip_the_breaker_in_a_time_window_even_one_call_at_a_time() -> None:
    async def calls(base_url: str) -> tuple[float, str]:
        pool = EndpointPool(concurrency=8, breaker=1000)  # the count breaker alone would never trip
        options = _options(base_url, timeout=0.3, retries=10, max_wait=3)
        endpoint = pool.endpoint(options)
        assert endpoint.limit is not None
        endpoint.limit.limit = 1  # as after the cap halved under the timeouts
        started = time.monotonic()
        try:
            for _ in range(3):  # one call at a time: the cap cannot make the calls pile up
                await endpoint.complete(
                    options, [{"role": "user", "content": "bid"}], turn_schema("bid", {}), "bid", random.Random(0)
                )
        except EndpointDownError as exc:
            return time.monotonic() - started, str(exc)
        finally:
            await pool.aclose()
        return time.monotonic() - started, "three calls of 3 s failed, and the breaker never tripped"

    with FakeOpenAIServer(faults=FaultPlan(rates={"timeout": 1.0}), hang=3600) as server:
        elapsed, message = asyncio.run(calls(server.base_url))
    assert elapsed < 3, f"{elapsed:.1f} s for a 0.3 s timeout"
    assert "hung" in message and "127.0.0.1" in message and "no complete answer within 0.3 s" in message


# ---------------------------------------------------------------- what a server reports, and how it is worded


def test_an_unreadable_token_count_is_ignored_and_said_not_a_traceback(tmp_path: Path, capsys) -> None:
    with FakeOpenAIServer(faults=FaultPlan(rates={"bad_usage": 1.0})) as server:
        code = main(
            [
                "run",
                "--model",
                "fake",
                "--base-url",
                server.base_url,
                "--games",
                "1",
                "--out",
                str(tmp_path / "r"),
                *SMALL[:-1],
            ]
        )
    err = capsys.readouterr().err
    assert "invalid literal" not in err and "Traceback" not in err
    assert code == 0, err
    preflight = [line for line in err.splitlines() if line.startswith("preflight:")]
    assert preflight and "127.0.0.1" in preflight[0] and "'lots'" in preflight[0], err


@pytest.fixture
def unaccepting_url() -> Iterator[str]:
    """A port whose listen queue is full: a connection attempt hangs (SYNs dropped), as behind a firewall."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(0)
    port = listener.getsockname()[1]
    fillers = []
    for _ in range(8):
        filler = socket.socket()
        filler.setblocking(False)
        try:
            filler.connect(("127.0.0.1", port))
        except BlockingIOError:
            pass
        fillers.append(filler)
    try:
        yield f"http://127.0.0.1:{port}/v1"
    finally:
        for s in [*fillers, listener]:
            s.close()


def test_a_hung_connect_is_named_as_the_connect_timeout(tmp_path: Path, capsys, unaccepting_url: str) -> None:
    code = run(tmp_path / "r", unaccepting_url, "--connect-timeout", "0.3", "--timeout", "7", "--retries", "1")
    err = capsys.readouterr().err
    assert code == 2
    assert "within 0.3 s" in err and "--connect-timeout" in err, err
    assert "within 7 s" not in err


def test_a_long_run_of_blanks_before_text_is_read_at_once() -> None:
    # The check of a hollow answer backtracked cubically on blanks followed by text (4,000 blanks took two
    # minutes and stalled every game in flight); the whole check is now linear in the answer.
    from werewolf_deception.agents.llm.endpoint import REPAIRED_TO_NOTHING, useless_answer

    assert useless_answer([1], " " * 20_000 + "x", None, "stop") is None
    assert useless_answer([1], "```json" + "\n" * 20_000 + "Hello", None, "stop") is None
    assert useless_answer([1], "```json\n{ }\n```", None, "stop") == REPAIRED_TO_NOTHING
