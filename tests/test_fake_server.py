"""The scripted OpenAI-compatible server itself, over real HTTP on 127.0.0.1 (standard library client, no mocks):
every server-wide mode and every fault answers with the status, headers and body the LLM client tests rely on."""

from __future__ import annotations

import http.client
import json
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from dataclasses import dataclass
from email.utils import parsedate_to_datetime
from typing import Any
from urllib.parse import urlsplit

import pytest

from werewolf_deception.agents.fake.server import (
    CLASSIC_FAULTS,
    FAULTS,
    PLACEHOLDER,
    FakeOpenAIServer,
    FaultPlan,
    refused_url,
)

BID = 'PLAYERS: Alice, Bob, Carla (you)\n\nNOW: bid\nAnswer with exactly one JSON object: {"bid": 3}'
STATEMENT = (
    "PLAYERS: Alice, Bob, Carla (you)\n\nNOW: statement\n"
    'Answer with exactly one JSON object: {"statement": "<what you say>", "notes": "..."}'
)
BAD_KEY = {"message": "Incorrect API key provided", "type": "invalid_request_error", "param": None,
           "code": "invalid_api_key"}  # fmt: skip
SCHEMA = {"type": "json_schema", "json_schema": {"name": "bid", "schema": {"type": "object"}}}


@dataclass
class Reply:
    status: int
    headers: dict[str, str]  # lowercased names
    raw: bytes

    def json(self) -> Any:
        return json.loads(self.raw)

    def content(self) -> str | None:
        content: str | None = self.json()["choices"][0]["message"]["content"]
        return content


def send(
    base_url: str,
    method: str,
    path: str,
    body: dict[str, Any] | None = None,
    headers: dict[str, str] | None = None,
    timeout: float = 5.0,
) -> Reply:
    parts = urlsplit(base_url)
    connection = http.client.HTTPConnection(parts.hostname or "127.0.0.1", parts.port, timeout=timeout)
    try:
        data = json.dumps(body) if body is not None else None
        connection.request(
            method, parts.path + path, body=data, headers={"Content-Type": "application/json", **(headers or {})}
        )
        response = connection.getresponse()
        raw = response.read()
        return Reply(response.status, {k.lower(): v for k, v in response.getheaders()}, raw)
    finally:
        connection.close()


def chat(
    server: FakeOpenAIServer,
    prompt: str = BID,
    system: str | None = None,
    headers: dict[str, str] | None = None,
    **fields: Any,
) -> Reply:
    messages = ([{"role": "system", "content": system}] if system else []) + [{"role": "user", "content": prompt}]
    return send(
        server.base_url, "POST", "/chat/completions", {"model": "fake", "messages": messages, **fields}, headers
    )


def error_of(reply: Reply) -> dict[str, Any]:
    error: dict[str, Any] = reply.json()["error"]
    assert set(error) == {"message", "type", "param", "code"}, "OpenAI's error shape"
    return error


def test_fault_names_are_checked_and_the_classic_ones_come_first() -> None:
    assert FAULTS[: len(CLASSIC_FAULTS)] == CLASSIC_FAULTS and len(set(FAULTS)) == len(FAULTS)
    FaultPlan(schedule=dict(enumerate(FAULTS)), rates=dict.fromkeys(FAULTS, 0.01))
    with pytest.raises(ValueError, match="unknown faults"):
        FaultPlan(schedule={0: "418"})


def test_api_key_guards_every_route_and_is_never_echoed_or_stored() -> None:
    secret, wrong = "sk-right-0123456789", "sk-WRONG-CANARY-42"
    with FakeOpenAIServer(api_key=secret) as server:
        denied = [chat(server, headers={"Authorization": f"Bearer {wrong}"}), chat(server),
                  send(server.base_url, "GET", "/models", headers={"Authorization": f"Bearer {wrong}"})]  # fmt: skip
        allowed = [chat(server, headers={"Authorization": f"Bearer {secret}"}),
                   send(server.base_url, "GET", "/models", headers={"Authorization": f"Bearer {secret}"})]  # fmt: skip
        seen, bodies = list(server.headers_seen), list(server.requests)
    for reply in denied:
        assert reply.status == 401 and wrong.encode() not in reply.raw and secret.encode() not in reply.raw
        assert error_of(reply) == BAD_KEY
    assert [r.status for r in allowed] == [200, 200]
    assert len(seen) == 5 and len(bodies) == 1, "every arrival is seen; only the accepted chat reaches the script"
    assert [h.get("authorization") for h in seen] == ["***", None, "***", "***", "***"]
    assert secret not in repr(seen) and wrong not in repr(seen)
    assert [(h[":method"], h[":path"]) for h in seen][-1] == ("GET", "/v1/models")


def test_models_restrict_chat_and_are_listed() -> None:
    with FakeOpenAIServer(models=("fake", "tiny")) as server:
        listed = send(server.base_url, "GET", "/models").json()
        missing = chat(server, model="gpt-9")
        served = chat(server, model="tiny")
    assert [m["id"] for m in listed["data"]] == ["fake", "tiny"] and listed["object"] == "list"
    assert missing.status == 404
    assert error_of(missing)["message"] == "The model `gpt-9` does not exist"
    assert error_of(missing)["code"] == "model_not_found"
    assert served.status == 200 and served.json()["model"] == "tiny"
    with FakeOpenAIServer() as server:  # the default serves any model
        assert chat(server, model="anything").status == 200
        assert [m["id"] for m in send(server.base_url, "GET", "/models").json()["data"]] == ["fake"]


@pytest.mark.parametrize(
    ("status", "kind"), [(500, "internal_server_error"), (400, "invalid_request_error"), (422, "invalid_request_error")]
)
def test_schema_error_refuses_json_schema_only(status: int, kind: str) -> None:
    with FakeOpenAIServer(schema_error=True, schema_error_status=status) as server:
        refused = chat(server, response_format=SCHEMA)
        json_mode = chat(server, response_format={"type": "json_object"})
        plain = chat(server)
        reached = len(server.requests)
    assert refused.status == status
    error = error_of(refused)
    assert error["message"].startswith("Failed to parse grammar from json schema: ") and error["type"] == kind
    assert json_mode.status == plain.status == 200 and json.loads(plain.content() or "")["bid"] in range(11)
    assert reached == 2, "the refused request never reached the script"


def test_trickle_sends_the_head_at_once_and_the_body_a_byte_at_a_time() -> None:
    rate, read_timeout = 0.01, 0.3
    with FakeOpenAIServer(trickle=rate) as server:
        parts = urlsplit(server.base_url)
        connection = http.client.HTTPConnection("127.0.0.1", parts.port, timeout=read_timeout)
        started = time.monotonic()
        connection.request("GET", "/v1/models")
        response = connection.getresponse()
        head_after = time.monotonic() - started
        raw = response.read()  # a read timeout between bytes would raise here
        total = time.monotonic() - started
        connection.close()
    assert response.status == 200 and json.loads(raw)["data"][0]["id"] == "fake"
    assert head_after < 0.2, "status line and headers are not trickled"
    assert total >= 0.95 * len(raw) * rate and total > read_timeout, "the whole body took longer than a read timeout"


def test_trickle_fault_slows_only_its_request_and_stop_cuts_it_short() -> None:
    # no server-wide rate: the fault trickles at 1 s a byte, so its body would take minutes
    server = FakeOpenAIServer(faults=FaultPlan(schedule={0: "trickle"})).start()
    parts = urlsplit(server.base_url)
    connection = http.client.HTTPConnection("127.0.0.1", parts.port, timeout=5)
    try:
        body = {"model": "fake", "messages": [{"role": "user", "content": BID}]}
        started = time.monotonic()
        connection.request("POST", "/v1/chat/completions", body=json.dumps(body))
        response = connection.getresponse()
        assert response.status == 200 and time.monotonic() - started < 0.5, "the head came at once"
        started = time.monotonic()
        other = chat(server)
        assert other.status == 200 and "bid" in json.loads(other.content() or "")
        assert time.monotonic() - started < 0.5, "other requests are not slowed down"
        started = time.monotonic()
        server.stop()
        assert time.monotonic() - started < 0.5, "stop() cancels the trickle instead of waiting for it"
        with pytest.raises((http.client.IncompleteRead, ConnectionError)):
            response.read()
        assert server.faults_sent == [(0, "trickle")]
    finally:
        server.stop()
        connection.close()


def test_drop_system_ignores_system_messages_for_tokens_and_the_prompt() -> None:
    system = "You are Carla, the seer. " * 10  # 50 words
    system_task = f"RULES\n{BID}"
    with FakeOpenAIServer() as server:
        kept = chat(server, system=system).json()["usage"]["prompt_tokens"]
        kept_task = json.loads(chat(server, prompt="go on", system=system_task).content() or "")
    with FakeOpenAIServer(drop_system=True) as server:
        dropped = chat(server, system=system).json()["usage"]["prompt_tokens"]
        dropped_task = json.loads(chat(server, prompt="go on", system=system_task).content() or "")
    assert dropped == len(BID.split()) and kept == dropped + 50
    assert "bid" in kept_task, "a task given in the system message is found..."
    assert dropped_task == {"summary": "A scripted game."}, "...unless the template dropped it"


def test_every_reply_carries_a_request_id_and_rate_limit_headers() -> None:
    with FakeOpenAIServer(faults=FaultPlan(schedule={1: "429"})) as server:
        replies = [chat(server), chat(server), send(server.base_url, "GET", "/models")]
    assert [r.headers["x-request-id"] for r in replies] == ["req_0", "req_1", "req_2"]
    for reply in replies:
        assert int(reply.headers["x-ratelimit-limit-requests"]) > 0
        assert reply.headers["x-ratelimit-reset-requests"].endswith("ms")
    remaining = [int(r.headers["x-ratelimit-remaining-requests"]) for r in replies]
    assert remaining[1] == 0 and remaining[0] > remaining[2] > 0, "spent by the 429, counting down otherwise"
    with FakeOpenAIServer(headers=False) as server:
        assert not any(name.startswith("x-") for name in chat(server).headers)


@pytest.mark.parametrize(
    ("fault", "status", "message", "code"),
    [
        ("401", 401, "Incorrect API key provided", "invalid_api_key"),
        ("403", 403, "Country, region, or territory not supported", "unsupported_country_region_territory"),
        ("404", 404, "The model `fake` does not exist", "model_not_found"),
        ("408", 408, "Request timed out", None),
        ("409", 409, "The request conflicted with another request; please try again", None),
        ("422", 422, "Unprocessable request: messages could not be read", None),
        ("500", 500, "internal error", None),
        ("502", 502, "Bad gateway", None),
        ("503", 503, "Loading model", None),
    ],
)
def test_http_error_faults(fault: str, status: int, message: str, code: str | None) -> None:
    with FakeOpenAIServer(faults=FaultPlan(schedule={0: fault})) as server:
        failed, recovered = chat(server), chat(server)
    assert failed.status == status and failed.headers["content-type"] == "application/json"
    assert error_of(failed)["message"] == message and error_of(failed)["code"] == code
    assert "retry-after" not in failed.headers and "retry-after-ms" not in failed.headers
    assert recovered.status == 200 and server.faults_sent == [(0, fault)]


def test_rate_limit_faults_say_when_to_come_back_three_ways() -> None:
    plan = FaultPlan(schedule={0: "429", 1: "429_ms", 2: "429_date"})
    with FakeOpenAIServer(faults=plan, retry_after=0.25) as server:
        seconds, millis, date = chat(server), chat(server), chat(server)
    assert [r.status for r in (seconds, millis, date)] == [429, 429, 429]
    assert error_of(seconds)["code"] == "rate_limit_exceeded"
    assert seconds.headers["retry-after"] == "0.25" and "retry-after-ms" not in seconds.headers
    assert millis.headers["retry-after-ms"] == "250" and "retry-after" not in millis.headers
    assert "retry-after-ms" not in date.headers and date.headers["retry-after"].endswith(" GMT")
    ahead = parsedate_to_datetime(date.headers["retry-after"]).timestamp() - time.time()
    assert 0.5 < ahead <= 3.0, "a few seconds ahead (whole seconds: at least 2 when sent)"


def test_answer_faults_length_empty_placeholder() -> None:
    plan = FaultPlan(schedule={1: "length", 2: "empty", 3: "placeholder", 4: "placeholder"})
    with FakeOpenAIServer(faults=plan) as server:
        whole, cut, empty = chat(server, STATEMENT), chat(server, STATEMENT), chat(server, STATEMENT)
        placeholder, bid = chat(server, STATEMENT), chat(server, BID)
    full = whole.content() or ""
    assert json.loads(full)["statement"].startswith("I think ")
    assert cut.json()["choices"][0]["finish_reason"] == "length"
    partial = cut.content() or ""
    assert len(partial) == len(full) * 3 // 5 and full.startswith(partial)
    with pytest.raises(ValueError):
        json.loads(partial)
    assert empty.content() == "" and empty.json()["choices"][0]["finish_reason"] == "stop"
    assert json.loads(placeholder.content() or "")["statement"] == PLACEHOLDER == "<what you say>"
    assert set(json.loads(bid.content() or "")) == {"bid"}, "other kinds answer as usual"


def test_max_tokens_is_honoured_loosely() -> None:
    with FakeOpenAIServer() as server:
        full = chat(server, STATEMENT, max_tokens=400)
        short = chat(server, STATEMENT, max_tokens=5)
        newer = chat(server, STATEMENT, max_completion_tokens=5)
    assert full.json()["choices"][0]["finish_reason"] == "stop"
    whole = full.content() or ""
    assert len(whole) > 20
    for reply in (short, newer):
        assert reply.json()["choices"][0]["finish_reason"] == "length" and reply.content() == whole[:20]


def test_refused_url_refuses_connections() -> None:
    url = refused_url()
    assert url.startswith("http://127.0.0.1:") and url.endswith("/v1")
    with pytest.raises(urllib.error.URLError) as caught:
        urllib.request.urlopen(f"{url}/models", timeout=2)
    assert isinstance(caught.value.reason, ConnectionRefusedError)


def test_command_line_flags() -> None:
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "werewolf_deception.agents.fake.server",
            "--api-key",
            "sk-cli",
            "--schema-error",
            "--drop-system",
            "--trickle",
            "0",
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stdout is not None
        base_url = process.stdout.readline().strip()
        key = {"Authorization": "Bearer sk-cli"}
        body = {"model": "fake", "messages": [{"role": "system", "content": "one two"},
                                              {"role": "user", "content": BID}]}  # fmt: skip
        assert send(base_url, "GET", "/models").status == 401
        assert send(base_url, "POST", "/chat/completions", {**body, "response_format": SCHEMA}, key).status == 500
        answered = send(base_url, "POST", "/chat/completions", body, key)
        assert answered.status == 200 and answered.json()["usage"]["prompt_tokens"] == len(BID.split())
    finally:
        process.send_signal(signal.SIGINT)  # main() stops the server on Ctrl-C
        process.wait(10)
