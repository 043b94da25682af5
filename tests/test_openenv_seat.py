"""The seat environment as an OpenEnv server (``werewolf_deception.agents.training.openenv_server``), played through
OpenEnv's own client.

The server is the real one (uvicorn on 127.0.0.1, a free port), the client OpenEnv's WebSocket client, and the
seat's answers come from the project's fake OpenAI-compatible server over HTTP, as a trained model's would.
"""

from __future__ import annotations

import json
import logging
import queue
import re
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from typing import Any

import openai
import pytest

pytest.importorskip("openenv.core", reason="the OpenEnv server needs the 'train' extra (openenv-core)")
uvicorn = pytest.importorskip("uvicorn", reason="serving the OpenEnv app needs the 'train' extra (uvicorn)")

from openenv.core.generic_client import GenericEnvClient  # noqa: E402

from tests.helpers import uvicorn_thread  # noqa: E402
from werewolf_deception.agents.fake.server import FakeOpenAIServer  # noqa: E402
from werewolf_deception.agents.llm.prompts import build_messages  # noqa: E402
from werewolf_deception.agents.training.openenv_server import seat_app  # noqa: E402
from werewolf_deception.agents.training.seat_env import TURN_KEYS, SeatEnv  # noqa: E402
from werewolf_env.analysis.rewards import REWARDS  # noqa: E402
from werewolf_env.core.roles import Role  # noqa: E402
from werewolf_env.core.visibility import knowledge  # noqa: E402
from werewolf_env.observe.text import Section  # noqa: E402

CONFIG = {"num_players": 7}
SEED = 5
WEIGHTS = {"win": 1.0, "validity": 0.5}
STATE_KEYS = {"episode_id", "step_count", "seed", "seat", "done"}


@pytest.fixture
def base_url() -> Iterator[str]:
    """The seat app served by uvicorn on 127.0.0.1 (port 0: a free one), stopped after the test; a session that
    ends as OpenEnv's client ends it logs no error (OpenEnv 0.3.0 alone logs a traceback for each)."""
    errors: list[logging.LogRecord] = []
    with uvicorn_thread(seat_app(CONFIG, weights=WEIGHTS), errors) as base:
        yield base
    assert [record.getMessage() for record in errors] == []


def a_villager_seat() -> int:
    """A plain villager's seat in the test's deal: it knows no other role but what becomes public."""
    env = SeatEnv(CONFIG)
    env.reset(seed=SEED)
    roles = env.raw.game.state.roles  # type: ignore[union-attr]
    env.close()
    return roles.index(Role.VILLAGER)


def test_a_rollout_through_openenvs_client_shows_the_seat_nothing_hidden(base_url: str) -> None:
    """A whole game: the observations are exactly the seat's own view (a local replay of the same answers gives
    the same texts and turns), no line names the role of a seat the villager could not know, the state holds
    bookkeeping only, and the reward is sparse: 0 until the game ends, then the seat's weighted reward."""
    from werewolf_deception.agents.training.openenv_server import SeatAction, SeatClient

    seat = a_villager_seat()
    observations: list[Any] = []
    states: list[dict[str, Any]] = []
    answers: list[str] = []
    with FakeOpenAIServer() as model_server, SeatClient(base_url=base_url).sync() as env:
        model = openai.OpenAI(base_url=model_server.base_url, api_key="unused", max_retries=0)
        result = env.reset(seed=SEED, seat=seat)
        messages = build_messages(result.observation.text)
        while True:
            observations.append(result)
            states.append(env.state().model_dump())
            if result.done:
                break
            reply = model.chat.completions.create(model="fake", messages=messages)  # type: ignore[arg-type]
            answer = reply.choices[0].message.content or ""
            answers.append(answer)  # the model's raw text is the action
            result = env.step(SeatAction(answer=answer))
            messages += [{"role": "assistant", "content": answer}, {"role": "user", "content": result.observation.text}]
        model.close()
        model_requests = len(model_server.requests)
    assert model_requests == len(answers) > 5

    final = observations[-1]
    assert final.done and final.observation.turn is None and set(final.observation.rewards) == set(REWARDS)
    assert final.observation.rewards["validity"] == 1.0  # every answer of the fake model parsed
    expected = sum(weight * final.observation.rewards[name] for name, weight in WEIGHTS.items())
    assert final.reward == pytest.approx(expected) and final.observation.reward == final.reward
    assert all(r.reward == 0.0 and not r.done and not r.observation.rewards for r in observations[:-1])
    assert states[0]["seed"] == SEED and states[0]["seat"] == seat and states[0]["step_count"] == 0
    assert [s["step_count"] for s in states] == list(range(len(answers) + 1)) and states[-1]["done"]
    assert len({s["episode_id"] for s in states}) == 1 and all(set(s) == STATE_KEYS for s in states)

    local = SeatEnv(CONFIG, weights=WEIGHTS)
    local.reset(seed=SEED, seat=seat)
    game = local.raw.game
    assert game is not None
    names, roles = game.state.names, game.state.roles
    for step, result in enumerate(observations):
        if step:
            local.act(answers[step - 1])
        observation = result.observation
        assert observation.text == local.new_text and observation.turn == local.turn, step
        assert set(observation.model_dump()) == {"text", "turn", "rewards", "done", "reward", "metadata"}
        assert observation.turn is None or set(observation.turn) <= set(TURN_KEYS)
        known = knowledge(game.state, seat)
        for other, role in enumerate(roles):
            if other == seat or len(known[other]) == 1:
                continue  # its own role, or one it learned (a public reveal)
            # statements are claims, not facts; the seat's own scores name every player beside "werewolf"
            lines = observation.text.splitlines()
            told = [line for line in lines if '"' not in line and not line.startswith(Section.SUSPICION)]
            assert not [line for line in told if names[other] in line and role.value in line], (step, other)
    assert local.done and local.rewards() == final.observation.rewards
    hidden_roles = json.dumps([role.value for role in roles])
    assert all(hidden_roles not in json.dumps(state) and "werewolf" not in json.dumps(state) for state in states)
    local.close()


def test_bad_resets_and_steps_are_refused_in_one_line_and_the_session_goes_on(base_url: str) -> None:
    """Through OpenEnv's generic client (no class of ours): a bad option or a step out of turn is an error
    naming the problem, and the same session then plays on."""
    with GenericEnvClient(base_url=base_url).sync() as env:
        with pytest.raises(RuntimeError, match="no game yet"):
            env.step({"answer": {"bid": 3}})
        for options, wanted in (({"seed": -1}, "seed"), ({"seed": 1, "seats": 2}, "unknown reset option"),
                                ({"seed": 1, "seat": 9}, "not a seat")):  # fmt: skip
            with pytest.raises(RuntimeError, match=wanted):
                env.reset(**options)
        with pytest.raises(RuntimeError, match="Invalid message"):
            env.step({"bid": 3})  # not a SeatAction (the answer goes in "answer"): OpenEnv refuses it
        result = env.reset(seed=SEED, seat=0)
        assert not result.done and "NOW:" in result.observation["text"]
        result = env.step({"answer": "not JSON at all"})  # recorded as a fallback, as for any policy
        assert env.state()["step_count"] == 1 and "NOW:" in result.observation["text"]


def test_an_idle_session_is_ended_and_frees_its_slot() -> None:
    """With one slot, a second client is refused while the first holds it; once the first has been idle for longer
    than ``idle_timeout`` (OpenEnv checks every 5 s at most often: 4 s keeps the first check from coming before
    the refusal), its slot is free again and its next step says that its session was ended."""
    errors: list[logging.LogRecord] = []
    with uvicorn_thread(seat_app(CONFIG, max_sessions=1, idle_timeout=4.0), errors) as base:
        with GenericEnvClient(base_url=base).sync() as idle:
            assert not idle.reset(seed=SEED, seat=0).done
            with pytest.raises(Exception, match=r"capacity|1000"):  # refused, or closed at once, by OpenEnv
                with GenericEnvClient(base_url=base).sync() as other:
                    other.reset(seed=SEED, seat=1)
            deadline = time.monotonic() + 60
            while True:
                try:
                    with GenericEnvClient(base_url=base).sync() as other:
                        assert "NOW:" in other.reset(seed=SEED, seat=1).observation["text"]
                    break
                except Exception:
                    if time.monotonic() > deadline:
                        raise
                    time.sleep(1)
            with pytest.raises(RuntimeError, match="idle longer than the server's idle timeout"):
                idle.step({"answer": {"bid": 3}})
    assert [record.getMessage() for record in errors] == []


def test_the_command_serves_on_127_0_0_1_by_default() -> None:
    """``python -m werewolf_deception.agents.training.openenv_server --port 0``: uvicorn on a free port of 127.0.0.1,
    which it logs; a client plays there; the process is stopped after."""
    command = [
        sys.executable,
        "-m",
        "werewolf_deception.agents.training.openenv_server",
        "--port",
        "0",
        "--weight",
        "detection=0.5",
    ]
    server = subprocess.Popen(command, stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True)
    lines: queue.Queue[str] = queue.Queue()
    threading.Thread(target=lambda: [lines.put(line) for line in server.stderr or ()], daemon=True).start()
    try:
        address = None
        while address is None:
            line = lines.get(timeout=120)
            address = re.search(r"Uvicorn running on (http://127\.0\.0\.1:\d+)", line)
        with GenericEnvClient(base_url=address[1]).sync() as env:
            result = env.reset(seed=SEED, seat=1)
            assert "NOW:" in result.observation["text"] and env.state()["seat"] == 1
    finally:
        server.terminate()
        server.wait(30)


def test_the_command_refuses_bad_options_in_one_line() -> None:
    refused = [
        (["--weight", "wins=1"], "wins"),
        (["--weight", "detection"], "NAME=VALUE"),
        (["--port", "70000"], "--port 70000"),
        (["--players", "2"], "num_players"),
        (["--max-sessions", "0"], "max_sessions"),
        (["--idle-timeout", "-5"], "idle_timeout"),
        (["--idle-timeout", "nan"], "idle_timeout"),
        (["--lineup", "no-such-lineup.toml"], "no-such-lineup"),
    ]
    for options, wanted in refused:
        bad = subprocess.run(
            [sys.executable, "-m", "werewolf_deception.agents.training.openenv_server", *options],
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert bad.returncode == 2 and "Traceback" not in bad.stderr, bad.stderr
        assert wanted in bad.stderr.splitlines()[-1], bad.stderr


def test_a_game_reset_without_a_seed_has_its_drawn_seed_in_the_state() -> None:
    """The state's ``seed`` is the game's, drawn when the reset named none: the deal can be played again."""
    from werewolf_deception.agents.training.openenv_server import SeatEnvironment

    env = SeatEnvironment(CONFIG)
    first = env.reset(seat=2)
    seed = env.state.seed
    assert isinstance(seed, int) and env.state.seat == 2
    env.reset(seed=seed, seat=2)
    assert env.state.seed == seed and env._observation().text == first.text
    env.close()
