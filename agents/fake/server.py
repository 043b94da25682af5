"""A scripted OpenAI-compatible chat server on 127.0.0.1, for tests, benchmarks and offline trials.

    with FakeOpenAIServer(latency=0.1, faults=FaultPlan(rates={"429": 0.05, "malformed": 0.05})) as server:
        agent = LLMAgent(model="fake", base_url=server.base_url)

It answers ``POST /v1/chat/completions`` with a valid Werewolf action read from the prompt (the
"Answer with exactly one JSON object" line and the allowed names), so whole games complete, or, for
a claim-labelling request (``werewolf_deception.benchmarks.labels.labelers``), with the claims the regex reader finds in
its statement (what is answered: ``werewolf_deception.agents.fake.answers``), and ``GET /v1/models``. Errors have
OpenAI's shape: ``{"error": {"message", "type", "param", "code"}}``.

Server-wide modes (constructor keywords), each applying to every request:

* ``latency``: seconds added to every answer (not to the rejections below);
* ``api_key``: a request without ``Authorization: Bearer <api_key>`` gets 401 "Incorrect API key
  provided" (code ``invalid_api_key``; the key received is never echoed), ``GET /v1/models`` too;
* ``models``: the model ids served and listed; a chat request for another model gets 404 "The model
  `X` does not exist" (code ``model_not_found``). Default ``None``: any model, listed as ``fake``;
* ``reject_response_format``: any ``response_format`` gets 400 with ``param: "response_format"``;
* ``schema_error``: a ``json_schema`` response format gets ``schema_error_status`` (500, or 400/422)
  with llama-cpp-python's "Failed to parse grammar from json schema: ..." message; ``json_object``
  and plain text are answered;
* ``trickle``: seconds per byte: the status line and headers go out at once, then the body one byte
  at a time (a read timeout between bytes never fires; the whole answer takes long). ``stop()``
  cancels a trickle in progress;
* ``drop_system``: system messages are ignored, as by a chat template that drops them, both for
  ``usage.prompt_tokens`` (words, roughly) and for the prompt the scripted answer reads;
* ``echo_path``: error messages end with the request line, ``(POST /v1/chat/completions?key=...)``,
  as OpenAI's "Invalid URL (POST /v1/...)" does: a client must scrub secrets from error texts;
* ``headers`` (on): every reply carries ``x-request-id: req_<n>`` (``n``: the request's position in
  ``headers_seen``) and ``x-ratelimit-{limit,remaining,reset}-requests``;
* ``usage.prompt_tokens_details.cached_tokens``: the leading prompt tokens, in whole blocks of 128, that
  an earlier prompt shared (a simulated prefix cache, ``fake_answers.PrefixCache``);
* a request's ``max_tokens`` (or ``max_completion_tokens``) is honoured loosely: an answer longer than
  4 characters a token is cut there, with ``finish_reason: "length"``.

Faults per request, by ``FaultPlan`` schedule or seeded rates (``CLASSIC_FAULTS``: the first eight):

* answers, HTTP 200: ``malformed`` (not JSON), ``wrong_keys`` (a JSON object with other keys),
  ``invalid_target`` (a name that is not playing), ``refusal`` (no content, a refusal message),
  ``length`` (the first 60% of the valid JSON, ``finish_reason: "length"``), ``empty`` (content ""),
  ``placeholder`` (a statement answer saying the literal ``<what you say>``; other kinds as usual),
  ``no_choices`` (``choices: []``), ``null_content`` (content null, no refusal), ``cut_before_json``
  (``"Sure"``, ``finish_reason: "length"``), ``empty_fence`` (a code fence with nothing in it),
  ``bad_usage`` (a valid answer whose ``usage`` counts are ``"lots"``, ``"some"`` and null);
* HTTP errors: ``429`` (``Retry-After: <retry_after>`` seconds), ``429_ms`` (only
  ``retry-after-ms``), ``429_date`` (``Retry-After`` as an HTTP-date at least 2 s ahead), ``500``,
  ``401`` (as ``api_key``), ``403``, ``404`` (as ``models``), ``408``, ``409``, ``422``, ``502``,
  ``503`` (llama.cpp's "Loading model");
* transport: ``drop`` (the connection closes with no answer), ``timeout`` (the answer comes after
  ``hang`` seconds), ``trickle`` (this answer trickles at ``trickle``, or 1 s a byte if that is 0).

``requests`` keeps the body of every chat request that reached the script (the fault index counts
these), ``max_in_flight`` the most of them answered at once, ``faults_sent`` what was injected, and
``headers_seen`` every HTTP request's headers in arrival order (rejected ones and ``GET /v1/models``
too), lowercased, with ``:method`` and ``:path`` added and credentials replaced by ``***`` (the
``Authorization`` scheme, ``Bearer`` or ``Basic``, is kept as ``:auth-scheme``).
``refused_url()`` is a base URL on which nothing listens.

The fault names, ``FaultPlan`` and the error replies' texts are in ``werewolf_deception.agents.fake.faults``
(re-exported here); the content of the answers is in ``werewolf_deception.agents.fake.answers``.
"""

from __future__ import annotations

import asyncio
import json
import socket
import threading
import time
from email.utils import formatdate
from typing import Any

from werewolf_deception.agents.fake.answers import PLACEHOLDER, PrefixCache, completion, scripted_answer
from werewolf_deception.agents.fake.faults import (
    CLASSIC_FAULTS,
    ERROR_FAULTS,
    FAULTS,
    SCHEMA_ERROR,
    STATUS_REASONS,
    FaultPlan,
    HttpReply,
    error_reply,
)

__all__ = ["CLASSIC_FAULTS", "FAULTS", "PLACEHOLDER", "FakeOpenAIServer", "FaultPlan", "refused_url", "scripted_answer"]

_CREDENTIAL_HEADERS = ("authorization", "proxy-authorization", "api-key", "x-api-key")


def refused_url() -> str:
    """A base URL on which nothing listens (a port the OS just handed out and took back): connection refused."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    return f"http://127.0.0.1:{port}/v1"


_RATE_LIMIT = 10_000  # requests a minute, as advertised in x-ratelimit-limit-requests


class FakeOpenAIServer:
    """Serves on its own asyncio loop in a background thread (one loop, no thread per connection, so
    many calls in flight all get their latency on time)."""

    def __init__(
        self,
        latency: float = 0.0,
        faults: FaultPlan | None = None,
        hang: float = 5.0,
        retry_after: float = 0.05,
        reject_response_format: bool = False,
        answer: Any = None,
        *,
        api_key: str | None = None,
        models: tuple[str, ...] | None = None,
        schema_error: bool = False,
        schema_error_status: int = 500,
        trickle: float = 0.0,
        drop_system: bool = False,
        headers: bool = True,
        port: int = 0,
        echo_path: bool = False,
    ) -> None:
        self.latency = latency
        self.faults = faults or FaultPlan()
        self.hang = hang
        self.retry_after = retry_after
        self.reject_response_format = reject_response_format
        self.answer = answer or scripted_answer  # prompt -> dict or str
        self.api_key = api_key
        self.models = tuple(models) if models is not None else None
        self.schema_error = schema_error
        self.schema_error_status = schema_error_status
        self.trickle = trickle
        self.drop_system = drop_system
        self.headers = headers
        self.echo_path = echo_path
        self.port = port  # 0: any free port (a fixed one lets a test restart "the same" server)
        self.requests: list[dict[str, Any]] = []
        self.faults_sent: list[tuple[int, str]] = []
        self.headers_seen: list[dict[str, str]] = []
        self.in_flight = 0  # chat requests being answered now, and the most at once (concurrency caps are checked here)
        self.max_in_flight = 0
        self.prefix_cache = PrefixCache()  # ``usage.prompt_tokens_details.cached_tokens``, as a caching server
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
            server = loop.run_until_complete(asyncio.start_server(self._connection, "127.0.0.1", self.port))
            self._port = server.sockets[0].getsockname()[1]
            ready.set()
            try:
                loop.run_forever()
            finally:
                server.close()
                # open connections (a hang, a trickle): end them before the loop closes
                pending = asyncio.all_tasks(loop)
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
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)  # a trickle goes out byte by byte
        try:
            while True:
                request_line = await reader.readline()
                if not request_line.strip():
                    break
                method, path = request_line.decode("latin-1").split(" ")[:2]
                headers: dict[str, str] = {":method": method, ":path": path}
                while True:
                    line = await reader.readline()
                    if line in (b"\r\n", b"\n", b""):
                        break
                    name, _, value = line.decode("latin-1").partition(":")
                    headers[name.strip().lower()] = value.strip()
                with self._lock:
                    arrival = len(self.headers_seen)
                    seen = {k: "***" if k in _CREDENTIAL_HEADERS else v for k, v in headers.items()}
                    if "authorization" in headers:
                        seen[":auth-scheme"] = headers["authorization"].partition(" ")[0]
                    self.headers_seen.append(seen)
                length = int(headers.get("content-length", "0") or 0)
                raw = await reader.readexactly(length) if length else b""
                reply = await self._reply(method, path, raw, headers.get("authorization", ""))
                if reply is None:  # a dropped connection
                    break
                if self.echo_path and reply.status >= 400 and isinstance(reply.body.get("error"), dict):
                    reply.body["error"]["message"] += f" ({method} {path})"
                await self._send(writer, reply, arrival)
                if headers.get("connection", "").lower() == "close":
                    break
        except (ConnectionError, asyncio.IncompleteReadError, ValueError, asyncio.CancelledError):
            pass  # the client went away, sent garbage, or the server stops: close (a cancelled handler task
            # would make Python 3.11's stream callback print a spurious traceback)
        finally:
            writer.close()

    async def _send(self, writer: asyncio.StreamWriter, reply: HttpReply, arrival: int) -> None:
        data = json.dumps(reply.body).encode()
        extra = {**self._standard_headers(arrival, reply.status), **reply.headers}
        head = [f"HTTP/1.1 {reply.status} {STATUS_REASONS.get(reply.status, 'Error')}",
                "Content-Type: application/json", f"Content-Length: {len(data)}",
                *(f"{k}: {v}" for k, v in extra.items())]  # fmt: skip
        writer.write(("\r\n".join(head) + "\r\n\r\n").encode())
        rate = reply.trickle or self.trickle
        if not rate:
            writer.write(data)
        else:
            await writer.drain()  # the head goes out now, so the client sees a live, answering server
            for i in range(len(data)):
                await asyncio.sleep(rate)  # cancelled by stop(): the connection just closes
                writer.write(data[i : i + 1])
                await writer.drain()
        await writer.drain()

    def _standard_headers(self, arrival: int, status: int) -> dict[str, str]:
        if not self.headers:
            return {}
        limited = status == 429
        return {
            "x-request-id": f"req_{arrival}",
            "x-ratelimit-limit-requests": str(_RATE_LIMIT),
            "x-ratelimit-remaining-requests": "0" if limited else str(max(0, _RATE_LIMIT - 1 - arrival)),
            "x-ratelimit-reset-requests": f"{max(1, round(self.retry_after * 1000))}ms" if limited else "6ms",
        }

    async def _reply(self, method: str, path: str, raw: bytes, authorization: str) -> HttpReply | None:
        if self.api_key is not None and authorization != f"Bearer {self.api_key}":
            return self._fault_error("401", "")
        route = path.split("?")[0].rstrip("/")
        if method == "GET" and route.endswith("/models"):
            listed = [{"id": m, "object": "model", "owned_by": "tests"} for m in self.models or ("fake",)]
            return HttpReply(200, {"object": "list", "data": listed})
        if method != "POST" or not route.endswith("/chat/completions"):
            return error_reply(404, "not found")
        try:
            body = json.loads(raw or b"{}")
        except ValueError:
            return error_reply(400, "request body is not JSON")
        model = str(body.get("model", ""))
        if self.models is not None and model not in self.models:
            return self._fault_error("404", model)
        response_format = body.get("response_format")
        if self.reject_response_format and response_format:
            return error_reply(400, "response_format is not supported", param="response_format")
        if self.schema_error and isinstance(response_format, dict) and response_format.get("type") == "json_schema":
            kind = "internal_server_error" if self.schema_error_status >= 500 else "invalid_request_error"
            return error_reply(self.schema_error_status, SCHEMA_ERROR, kind)
        self.in_flight += 1  # on the server's one loop: no lock needed
        self.max_in_flight = max(self.max_in_flight, self.in_flight)
        try:
            return await self._answer(body, model)
        finally:
            self.in_flight -= 1

    async def _answer(self, body: dict[str, Any], model: str) -> HttpReply | None:
        index, fault = self._next(body)
        if self.latency:
            await asyncio.sleep(self.latency)
        if fault in ERROR_FAULTS:
            return self._fault_error(fault, model)
        if fault == "drop":
            return None
        if fault == "timeout":
            await asyncio.sleep(self.hang)
        reply = HttpReply(200, self._completion(index, body, fault))
        if fault == "trickle":
            reply.trickle = self.trickle or 1.0
        return reply

    def _fault_error(self, fault: str, model: str) -> HttpReply:
        status, message, kind, code = ERROR_FAULTS[fault]
        reply = error_reply(status, message.format(model=model), kind, code)
        if fault == "429":
            reply.headers["Retry-After"] = f"{self.retry_after}"
        elif fault == "429_ms":
            reply.headers["retry-after-ms"] = str(round(self.retry_after * 1000))
        elif fault == "429_date":  # whole seconds only: 2 s ahead at least, so the wait is still positive on arrival
            reply.headers["Retry-After"] = formatdate(time.time() + max(self.retry_after, 2.0), usegmt=True)
        return reply

    def _completion(self, index: int, body: dict[str, Any], fault: str | None) -> dict[str, Any]:
        return completion(index, body, fault, self.answer, self.drop_system, self.prefix_cache)


def main(argv: list[str] | None = None) -> None:
    """``python -m werewolf_deception.agents.fake.server``: serve until interrupted; prints the base URL first."""
    import argparse

    parser = argparse.ArgumentParser(description="A scripted OpenAI-compatible server on 127.0.0.1.")
    parser.add_argument("--latency", type=float, default=0.0, help="seconds added to every answer")
    parser.add_argument(
        "--fault-rate",
        type=float,
        default=0.0,
        help=f"share of requests given a random fault among {', '.join(CLASSIC_FAULTS)}",
    )
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--api-key", default=None, help="require 'Authorization: Bearer KEY' (else 401)")
    parser.add_argument("--schema-error", action="store_true", help="answer json_schema response formats with 500")
    parser.add_argument("--trickle", type=float, default=0.0, help="send reply bodies at this many seconds a byte")
    parser.add_argument("--drop-system", action="store_true", help="ignore system messages, as some templates do")
    args = parser.parse_args(argv)
    # the classic faults only: the newer ones (401, trickle, ...) would stall or stop an interactive trial
    rates = {fault: args.fault_rate / len(CLASSIC_FAULTS) for fault in CLASSIC_FAULTS} if args.fault_rate else {}
    server = FakeOpenAIServer(
        latency=args.latency,
        faults=FaultPlan(rates=rates, seed=args.seed),
        api_key=args.api_key,
        schema_error=args.schema_error,
        trickle=args.trickle,
        drop_system=args.drop_system,
    ).start()
    print(server.base_url, flush=True)
    try:
        threading.Event().wait()
    except KeyboardInterrupt:
        pass
    finally:
        server.stop()


if __name__ == "__main__":
    main()
