"""A scripted OpenAI-compatible chat server on 127.0.0.1, for tests, benchmarks and offline trials.

    with FakeOpenAIServer(latency=0.1, faults=FaultPlan(rates={"429": 0.05, "malformed": 0.05})) as server:
        agent = LLMAgent(model="fake", base_url=server.base_url)

It answers ``POST /v1/chat/completions`` with a valid Werewolf action read from the prompt (the
"Answer with exactly one JSON object" line and the allowed names), so whole games complete, and
injects faults on demand: ``latency`` (seconds added to every answer), and per request, by schedule
or by seeded rates, one of

* ``malformed``: content that is not JSON;       * ``wrong_keys``: a JSON object with other keys;
* ``invalid_target``: a name that is not playing; * ``refusal``: no content, a refusal message;
* ``429``: rate limited, with ``Retry-After``;   * ``500``: a server error;
* ``drop``: the connection closes with no answer; * ``timeout``: the answer comes after ``hang`` seconds.

``requests`` keeps every request body and ``faults_sent`` what was injected, for assertions.
"""

from __future__ import annotations

import hashlib
import json
import random
import re
import socket
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

FAULTS = ("malformed", "wrong_keys", "invalid_target", "refusal", "429", "500", "drop", "timeout")


@dataclass
class FaultPlan:
    """Which fault (if any) request ``i`` gets: ``schedule`` first, else a seeded draw from ``rates``."""

    schedule: dict[int, str] = field(default_factory=dict)
    rates: dict[str, float] = field(default_factory=dict)
    seed: int = 0

    def __post_init__(self) -> None:
        unknown = (set(self.schedule.values()) | set(self.rates)) - set(FAULTS)
        if unknown:
            raise ValueError(f"unknown faults {sorted(unknown)}; known: {FAULTS}")
        self._rng = random.Random(self.seed)
        self._lock = threading.Lock()

    def pick(self, index: int) -> str | None:
        if index in self.schedule:
            return self.schedule[index]
        with self._lock:
            draw = self._rng.random()
        for fault, rate in self.rates.items():
            if draw < rate:
                return fault
            draw -= rate
        return None


_FORMAT = re.compile(r"Answer with exactly one JSON object: (\{.*)")
_ALLOWED = re.compile(r"^Allowed: (.*?)(?: \(or null to abstain\))?\.$", re.MULTILINE)
_PLAYERS = re.compile(r"^PLAYERS: (.*)$", re.MULTILINE)


def scripted_answer(prompt: str) -> dict[str, Any]:
    """A valid action for the task the prompt asks for (deterministic in the prompt)."""
    digest = int(hashlib.sha256(prompt.encode()).hexdigest()[:8], 16)
    match = _FORMAT.search(prompt)
    wanted = match.group(1) if match else ""
    allowed_match = _ALLOWED.search(prompt)
    allowed = allowed_match.group(1).split(", ") if allowed_match else []
    players_match = _PLAYERS.search(prompt)
    players = [
        p.replace(" (you)", "") for p in (players_match.group(1).split(", ") if players_match else [])
        if "[dead]" not in p and "(you)" not in p
    ]  # fmt: skip
    pick = allowed[digest % len(allowed)] if allowed else None
    if '"target"' in wanted:
        return {"target": pick}
    if '"vote"' in wanted:
        return {"vote": pick}
    if '"bid"' in wanted:
        return {"bid": digest % 11}
    if '"statement"' in wanted:
        someone = players[digest % len(players)] if players else "nobody"
        return {"statement": f"I think {someone} is a werewolf.", "notes": f"watch {someone}"}
    if '"suspicion"' in wanted:
        return {"is_deceptive": bool(digest % 2), "confidence": 0.6, "deception_type": "none",
                "reasoning": "scripted", "suspicion": round((digest % 100) / 100, 2)}  # fmt: skip
    if '"is_deceptive"' in wanted:
        return {"is_deceptive": False, "confidence": 0.9, "deception_type": "none", "reasoning": "scripted"}
    return {"summary": "A scripted game."}


class FakeOpenAIServer:
    def __init__(self, latency: float = 0.0, faults: FaultPlan | None = None, hang: float = 5.0,
                 retry_after: float = 0.05, reject_response_format: bool = False,
                 answer: Any = None) -> None:  # fmt: skip
        self.latency = latency
        self.faults = faults or FaultPlan()
        self.hang = hang
        self.retry_after = retry_after
        self.reject_response_format = reject_response_format
        self.answer = answer or scripted_answer  # prompt -> dict or str
        self.requests: list[dict[str, Any]] = []
        self.faults_sent: list[tuple[int, str]] = []
        self._count = 0
        self._lock = threading.Lock()
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    @property
    def base_url(self) -> str:
        assert self._server is not None, "start the server first"
        return f"http://127.0.0.1:{self._server.server_address[1]}/v1"

    def start(self) -> FakeOpenAIServer:
        handler = _make_handler(self)
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, name="fake-openai", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None

    def __enter__(self) -> FakeOpenAIServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def _next(self, body: dict[str, Any]) -> tuple[int, str | None]:
        with self._lock:
            index = self._count
            self._count += 1
            self.requests.append(body)
        fault = self.faults.pick(index)
        if fault is not None:
            with self._lock:
                self.faults_sent.append((index, fault))
        return index, fault


def _make_handler(server: FakeOpenAIServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def setup(self) -> None:
            super().setup()
            # Headers and body go out in two writes; without this, Nagle's algorithm and the
            # client's delayed ACK add ~40 ms to every answer.
            self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

        def log_message(self, format: str, *args: Any) -> None:
            return

        def do_GET(self) -> None:
            if self.path.rstrip("/").endswith("/models"):
                self._json(200, {"object": "list", "data": [{"id": "fake", "object": "model", "owned_by": "tests"}]})
            else:
                self._json(404, {"error": {"message": "not found"}})

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length", 0))
            try:
                body = json.loads(self.rfile.read(length) or b"{}")
            except ValueError:
                self._json(400, {"error": {"message": "request body is not JSON"}})
                return
            if not self.path.rstrip("/").endswith("/chat/completions"):
                self._json(404, {"error": {"message": "not found"}})
                return
            if server.reject_response_format and body.get("response_format"):
                self._json(400, {"error": {"message": "response_format is not supported", "param": "response_format"}})
                return
            _index, fault = server._next(body)
            if server.latency:
                time.sleep(server.latency)
            if fault == "429":
                self._json(429, {"error": {"message": "rate limited"}}, {"Retry-After": f"{server.retry_after}"})
                return
            if fault == "500":
                self._json(500, {"error": {"message": "internal error"}})
                return
            if fault == "drop":
                self.close_connection = True
                with_socket = self.connection
                with_socket.shutdown(socket.SHUT_RDWR)
                return
            if fault == "timeout":
                time.sleep(server.hang)
            prompt = "\n".join(str(m.get("content", "")) for m in body.get("messages", []) if m.get("role") == "user")
            last_prompt = next(
                (str(m.get("content", "")) for m in reversed(body.get("messages", [])) if m.get("role") == "user"), ""
            )
            task_prompt = last_prompt if _FORMAT.search(last_prompt) else prompt
            answer = server.answer(task_prompt)
            content: str | None = answer if isinstance(answer, str) else json.dumps(answer)
            refusal = None
            if fault == "malformed":
                content = "Sure! I think I would like to vote for someone {not json"
            elif fault == "wrong_keys":
                content = json.dumps({"answer": "yes", "thoughts": "none"})
            elif fault == "invalid_target":
                content = json.dumps({"target": "Nobody Known", "vote": "Nobody Known", "bid": 99})
            elif fault == "refusal":
                content, refusal = None, "I can't help with deceiving people."
            words = sum(len(str(m.get("content", "")).split()) for m in body.get("messages", []))
            completion_words = len((content or refusal or "").split())
            self._json(200, {
                "id": f"chatcmpl-{_index}", "object": "chat.completion", "created": 0,
                "model": body.get("model", "fake"),
                "choices": [{"index": 0, "finish_reason": "stop",
                             "message": {"role": "assistant", "content": content, "refusal": refusal}}],
                "usage": {"prompt_tokens": words, "completion_tokens": completion_words,
                          "total_tokens": words + completion_words},
            })  # fmt: skip

        def _json(self, status: int, payload: dict[str, Any], headers: dict[str, str] | None = None) -> None:
            data = json.dumps(payload).encode()
            try:
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                for key, value in (headers or {}).items():
                    self.send_header(key, value)
                self.end_headers()
                self.wfile.write(data)
            except (BrokenPipeError, ConnectionResetError):
                pass  # the client gave up (its timeout): nothing to answer

    return Handler


def main(argv: list[str] | None = None) -> None:
    """``python -m agents.fake_openai``: serve until interrupted; prints the base URL first."""
    import argparse

    parser = argparse.ArgumentParser(description="A scripted OpenAI-compatible server on 127.0.0.1.")
    parser.add_argument("--latency", type=float, default=0.0, help="seconds added to every answer")
    parser.add_argument("--fault-rate", type=float, default=0.0, help="share of requests given a random fault")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    rates = {fault: args.fault_rate / len(FAULTS) for fault in FAULTS} if args.fault_rate else {}
    server = FakeOpenAIServer(latency=args.latency, faults=FaultPlan(rates=rates, seed=args.seed)).start()
    print(server.base_url, flush=True)
    try:
        threading.Event().wait()
    except KeyboardInterrupt:
        pass
    finally:
        server.stop()


if __name__ == "__main__":
    main()
