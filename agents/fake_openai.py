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

import asyncio
import hashlib
import json
import random
import re
import socket
import threading
from dataclasses import dataclass, field
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
    """Serves on its own asyncio loop in a background thread (one loop, no thread per connection, so
    many calls in flight all get their latency on time)."""

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
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._port = 0

    @property
    def base_url(self) -> str:
        assert self._port, "start the server first"
        return f"http://127.0.0.1:{self._port}/v1"

    def start(self) -> FakeOpenAIServer:
        ready = threading.Event()
        loop = self._loop = asyncio.new_event_loop()

        def serve() -> None:
            asyncio.set_event_loop(loop)
            server = loop.run_until_complete(asyncio.start_server(self._connection, "127.0.0.1", 0))
            self._port = server.sockets[0].getsockname()[1]
            ready.set()
            try:
                loop.run_forever()
            finally:
                server.close()
                pending = asyncio.all_tasks(loop)  # open connections: end them before the loop closes
                for task in pending:
                    task.cancel()
                loop.run_until_complete(asyncio.gather(*pending, return_exceptions=True))
                loop.run_until_complete(server.wait_closed())
                loop.close()

        self._thread = threading.Thread(target=serve, name="fake-openai", daemon=True)
        self._thread.start()
        ready.wait(10)
        return self

    def stop(self) -> None:
        if self._loop is not None and self._thread is not None:
            self._loop.call_soon_threadsafe(self._loop.stop)
            self._thread.join(10)
            self._loop = None
            self._port = 0

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

    async def _connection(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        """One client connection: HTTP/1.1 requests, kept alive until the client closes it."""
        sock = writer.get_extra_info("socket")
        if sock is not None:
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        try:
            while True:
                request_line = await reader.readline()
                if not request_line.strip():
                    break
                method, path = request_line.decode("latin-1").split(" ")[:2]
                headers: dict[str, str] = {}
                while True:
                    line = await reader.readline()
                    if line in (b"\r\n", b"\n", b""):
                        break
                    name, _, value = line.decode("latin-1").partition(":")
                    headers[name.strip().lower()] = value.strip()
                length = int(headers.get("content-length", "0") or 0)
                raw = await reader.readexactly(length) if length else b""
                reply = await self._reply(method, path, raw)
                if reply is None:  # a dropped connection
                    break
                status, payload, extra = reply
                data = json.dumps(payload).encode()
                head = [f"HTTP/1.1 {status} {_REASONS.get(status, 'Error')}", "Content-Type: application/json",
                        f"Content-Length: {len(data)}", *(f"{k}: {v}" for k, v in extra.items())]  # fmt: skip
                writer.write(("\r\n".join(head) + "\r\n\r\n").encode() + data)
                await writer.drain()
                if headers.get("connection", "").lower() == "close":
                    break
        except (ConnectionError, asyncio.IncompleteReadError, ValueError):
            pass  # the client went away or sent garbage: close
        finally:
            writer.close()

    async def _reply(self, method: str, path: str, raw: bytes) -> tuple[int, dict[str, Any], dict[str, str]] | None:
        route = path.split("?")[0].rstrip("/")
        if method == "GET" and route.endswith("/models"):
            return 200, {"object": "list", "data": [{"id": "fake", "object": "model", "owned_by": "tests"}]}, {}
        if method != "POST" or not route.endswith("/chat/completions"):
            return 404, {"error": {"message": "not found"}}, {}
        try:
            body = json.loads(raw or b"{}")
        except ValueError:
            return 400, {"error": {"message": "request body is not JSON"}}, {}
        if self.reject_response_format and body.get("response_format"):
            return 400, {"error": {"message": "response_format is not supported", "param": "response_format"}}, {}
        index, fault = self._next(body)
        if self.latency:
            await asyncio.sleep(self.latency)
        if fault == "429":
            return 429, {"error": {"message": "rate limited"}}, {"Retry-After": f"{self.retry_after}"}
        if fault == "500":
            return 500, {"error": {"message": "internal error"}}, {}
        if fault == "drop":
            return None
        if fault == "timeout":
            await asyncio.sleep(self.hang)
        return 200, self._completion(index, body, fault), {}

    def _completion(self, index: int, body: dict[str, Any], fault: str | None) -> dict[str, Any]:
        messages = body.get("messages", [])
        users = [str(m.get("content", "")) for m in messages if m.get("role") == "user"]
        last = users[-1] if users else ""
        answer = self.answer(last if _FORMAT.search(last) else "\n".join(users))
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
        prompt_tokens = sum(len(str(m.get("content", "")).split()) for m in messages)
        completion_tokens = len((content or refusal or "").split())
        return {
            "id": f"chatcmpl-{index}", "object": "chat.completion", "created": 0, "model": body.get("model", "fake"),
            "choices": [{"index": 0, "finish_reason": "stop",
                         "message": {"role": "assistant", "content": content, "refusal": refusal}}],
            "usage": {"prompt_tokens": prompt_tokens, "completion_tokens": completion_tokens,
                      "total_tokens": prompt_tokens + completion_tokens},
        }  # fmt: skip


_REASONS = {200: "OK", 400: "Bad Request", 404: "Not Found", 429: "Too Many Requests", 500: "Internal Server Error"}


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
