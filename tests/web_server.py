"""Helpers for the tests of ``werewolf-bench serve``: the real app served by uvicorn on 127.0.0.1 (a free port) in a
thread, a plain HTTP client that keeps every body it reads, and a reader of a seat's server-sent events."""

from __future__ import annotations

import http.client
import json
import threading
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from tests.helpers import uvicorn_thread
from werewolf_deception.agents import load_lineup
from werewolf_deception.benchmarks.runs import RunDir
from werewolf_deception.benchmarks.web import Host
from werewolf_env import GameConfig


def make_host(
    out: Path, players: int = 5, people: int = 2, clock: float | None = 60.0, seed: int = 3, **rules: Any
) -> Host:
    """A host whose ``out`` is a serve folder, as ``werewolf-bench serve`` opens it; ``rules``: more of the games'
    ``GameConfig``."""
    RunDir(out).open({}, [], kind="serve")
    config = GameConfig(num_players=players, **rules)
    return Host(out=out, config=config, lineup=load_lineup("heuristic", config.ruleset), humans=people, clock=clock,
                seed=seed)  # fmt: skip


@contextmanager
def served(host: Host) -> Iterator[str]:
    """``host``'s app on 127.0.0.1 (a free port) until the block ends; yields the base URL. Needs the web extra
    (the tests that call it skip without it)."""
    from werewolf_deception.benchmarks.web.app import web_app

    try:
        with uvicorn_thread(web_app(host), graceful_seconds=1) as base:
            yield base
    finally:
        host.closing = True


class Client:
    """GET and POST against the server; every body read is kept in ``bodies`` (for the hidden-information scan)."""

    def __init__(self, base: str) -> None:
        self.base = base
        self.bodies: list[str] = []

    def request(
        self, path: str, data: Any = None, raw: bytes | None = None, headers: dict[str, str] | None = None
    ) -> tuple[int, Any]:
        body = raw if raw is not None else (None if data is None else json.dumps(data).encode())
        req = urllib.request.Request(self.base + path, data=body, method="POST" if body is not None else "GET")
        if body is not None:
            req.add_header("Content-Type", "application/json")
        for name, value in (headers or {}).items():
            req.add_header(name, value)
        try:
            with urllib.request.urlopen(req, timeout=30) as response:
                status, text = response.status, response.read().decode()
        except urllib.error.HTTPError as exc:
            status, text = exc.code, exc.read().decode()
        self.bodies.append(text)
        try:
            return status, json.loads(text)
        except ValueError:
            return status, text


class EventReader(threading.Thread):
    """Reads a seat's ``/stream`` to its end (or until ``stop``), keeping every ``data:`` frame it receives."""

    def __init__(self, base: str, path: str) -> None:
        super().__init__(daemon=True)
        self.host_port = base.removeprefix("http://")
        self.path = path
        self.frames: list[str] = []
        self.status: int | None = None
        self.conn: http.client.HTTPConnection | None = None

    def run(self) -> None:
        self.conn = http.client.HTTPConnection(self.host_port, timeout=120)
        self.conn.request("GET", self.path)
        response = self.conn.getresponse()
        self.status = response.status
        try:
            for line in response:
                text = line.decode().rstrip("\n")
                if text.startswith("data: "):
                    self.frames.append(text[len("data: ") :])
        except (OSError, ValueError):
            pass

    def stop(self) -> None:
        if self.conn is not None:
            self.conn.close()
