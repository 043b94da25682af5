"""One endpoint (a server's base URL and key): its client, the call with its retries, format step-downs and circuit
breaker, and what the run learns of it. ``werewolf_deception.agents.llm.endpoints`` holds the run's pool of them and
re-exports these names (import them from there).

What a call does, and why:

* **One attempt is bounded by a wall-clock deadline** (``options.timeout``, an asyncio timeout
  around the whole request), so a server that trickles a byte a second cannot hold a call past it;
  connecting has its own short limit (``options.connect_timeout``).
* **Retries** (``options.retries``, exponential backoff with full jitter) after a timeout, a dropped
  connection, and HTTP 408, 409, 429 and 5xx, as the ``openai`` SDK retries. A server's wait
  (``retry-after-ms``, ``Retry-After`` in seconds or as an HTTP date) is honoured up to what is
  left of ``options.max_wait``; a longer one ends the call rather than sleeping past the budget.
* **Response format** steps down json_schema → json_object with a schema (llama-cpp-python's form)
  → json_object → none on any error the server ties to the request format (400 or 422, or a 500
  whose body names the schema, grammar or format), and the working mode is remembered per
  (endpoint, model) for the rest of the run.
* **A cut-off answer** (``finish_reason: "length"``) is counted as such and asked again once with
  twice the room.
* **Circuit breaker** (``Breaker``): ``breaker`` calls in a row that got no usable answer (or one 401,
  403 or 404: a key or model that will not start working) trip the endpoint; the call that trips it
  and every later call raise ``EndpointDownError``, which the runner does not absorb: the run stops
  and says why, naming the kinds of failure counted. An answer that holds nothing a task can use
  counts like no answer (``useless_answer``: empty choices, null content, an empty answer, one cut
  off before any JSON, or one that reading leaves nothing of: only a code fence, or ``{}``).
* **A hung server** trips the breaker by time, whatever the concurrency cap has fallen to: once
  ``HANG_TIMEOUTS`` attempts have timed out with no response of any kind from the server for
  ``HANG_WINDOW`` times the attempt timeout (2 minutes at the defaults), the call raises
  ``EndpointDownError`` at once, so a server that stops answering mid-run stops it within about 2
  minutes, not after ``breaker`` calls of ``max_wait`` each.

Request ids and rate-limit headers are kept in each call's meta; the API key never is, nor does it
appear in any error text. Secrets in the base URL are sent but never shown: its query (``?key=...``)
goes with every request, its ``user:password@`` as HTTP Basic auth when no API key is set (an API
key takes the Authorization header); every error text is scrubbed of the key, the password and the
query values (``agents/credentials.py``). The concurrency cap and a server's requested waits are in
``agents/llm/backpressure.py``.
"""

from __future__ import annotations

import asyncio
import json
import random
import re
import ssl
import time
from collections import Counter
from dataclasses import dataclass, field
from functools import cache
from typing import Any

import openai
from openai import AsyncOpenAI

from werewolf_deception.agents.credentials import (
    NO_KEY,
    EndpointURL,
    redact_url,
    register_secrets,
    scrub,
    split_url,
)
from werewolf_deception.agents.llm.backpressure import AdaptiveLimit, retry_after
from werewolf_deception.agents.llm.options import LLMOptions

# json_object_schema is llama-cpp-python's form (JSON mode with a "schema" that becomes a grammar): its
# server refuses the json_schema type but constrains output to a schema given this way.
STEP_DOWN = {"json_schema": "json_object_schema", "json_object_schema": "json_object", "json_object": "none"}
RETRY_STATUSES = frozenset({408, 409, 429})
FATAL_STATUSES = frozenset({401, 403, 404})
# A server error that names these is about the response format, not a passing fault.
_FORMAT_ERROR = re.compile(r"response_format|json[_ ]?schema|grammar|json_object|structured output|guided", re.I)
_MAX_COMPLETION = re.compile(r"max_completion_tokens", re.I)
# A hung server: this many attempt timeouts, and no response for this many attempt timeouts, trip the breaker.
HANG_TIMEOUTS = 2
HANG_WINDOW = 2.0
# What a task call's answer can be that holds nothing usable (``useless_answer``); the breaker counts them.
EMPTY_CHOICES = "empty choices"
NULL_CONTENT = "null content"
EMPTY_ANSWER = "empty answer"
CUT_BEFORE_JSON = "cut off before any JSON"
REPAIRED_TO_NOTHING = "repaired to nothing"
# Fences, blanks or {} only, matched with every run of white space made one space first: a pattern with
# unbounded white space between its optional parts backtracks cubically on a long run of blanks then text.
_HOLLOW = re.compile(r"(?:```[A-Za-z]*)? ?(?:\{ ?\})? ?(?:```)?")
_RATE_HEADERS = ("x-ratelimit-limit-requests", "x-ratelimit-remaining-requests", "x-ratelimit-reset-requests",
                 "x-ratelimit-limit-tokens", "x-ratelimit-remaining-tokens", "x-ratelimit-reset-tokens")  # fmt: skip


class EndpointDownError(RuntimeError):
    """An endpoint's circuit breaker tripped: no further call to it can succeed in this run."""

    def __init__(self, endpoint: str | EndpointURL, reason: str) -> None:
        self.endpoint = endpoint.shown if isinstance(endpoint, EndpointURL) else redact_url(endpoint)
        super().__init__(f"{self.endpoint}: {reason}")
        self.reason = reason


@dataclass
class Reply:
    """The text of one call (None: the server never answered) and what happened on the way."""

    content: str | None
    meta: dict[str, Any] = field(default_factory=dict)


class Breaker:
    """A circuit breaker: calls in a row without a usable answer, counted by kind; at ``limit`` it trips, and
    the call that trips it raises ``EndpointDownError`` (so does every later ``check``). ``Endpoint`` has
    one per server; ``werewolf_deception.benchmarks.integrations.inspect_models`` one per Inspect model."""

    def __init__(self, endpoint: str | EndpointURL, limit: int) -> None:
        self.endpoint = endpoint  # a server's URL or a model's name: shown redacted in every message
        self.limit = limit
        self.failures_in_row = 0
        self.streak: Counter[str] = Counter()  # the kinds of failure in the current run of failures
        self.tripped: str | None = None

    def check(self) -> None:
        if self.tripped:
            raise EndpointDownError(self.endpoint, self.tripped)

    def answered(self) -> None:
        self.failures_in_row = 0
        self.streak.clear()

    def failed(self, kind: str, last: str) -> None:
        """One more call in a row without a usable answer (``kind``: what it got; ``last``: its error)."""
        self.failures_in_row += 1
        self.streak[kind] += 1
        if self.failures_in_row >= self.limit:
            if self.failures_in_row == 1:  # a breaker of 1 (the preflight's): the one failure says it all
                raise self.trip(f"no usable answer ({last})")
            kinds = ", ".join(f"{count} {name}" for name, count in self.streak.most_common())
            raise self.trip(f"{self.failures_in_row} calls in a row got no usable answer ({kinds}; last: {last})")

    def trip(self, reason: str) -> EndpointDownError:
        """Trip now (a key or model that will not start working, a hung server): the error for the caller to raise."""
        if self.tripped is None:
            self.tripped = reason[:400]
        return EndpointDownError(self.endpoint, self.tripped)


def useless_answer(choices: list[Any], content: Any, refusal: Any, finish: Any) -> str | None:
    """Why a task call's answer holds nothing usable (one of the kinds above), or None. A refusal is the
    model's answer (validity counts it), not a useless one."""
    if not choices:
        return EMPTY_CHOICES
    if content is None:
        return None if refusal else NULL_CONTENT
    text = str(content)
    if not text.strip():
        return EMPTY_ANSWER
    if finish == "length" and "{" not in text:
        return CUT_BEFORE_JSON
    if _HOLLOW.fullmatch(" ".join(text.split())):
        return REPAIRED_TO_NOTHING
    return None


def token_count(value: Any) -> int | None:
    """A usage count as a server should send it (a whole number, not negative), else None."""
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else None


def clean_usage(usage: Any) -> tuple[dict[str, Any] | None, str | None]:
    """A response's ``usage`` with its counts checked: (usage with unreadable counts as None, what was wrong)."""
    if not isinstance(usage, dict):
        return None, None if usage is None else f"usage is {type(usage).__name__}, not an object"
    clean = dict(usage)
    wrong = []
    for name in ("prompt_tokens", "completion_tokens", "total_tokens"):
        if name in clean and token_count(clean[name]) is None:
            wrong.append(f"usage.{name} {str(clean[name])[:40]!r}")
            clean[name] = None
    return clean, ("unreadable " + ", ".join(wrong) + " (ignored)") if wrong else None


def _query_mapping(pairs: list[tuple[str, str]]) -> dict[str, str | list[str]]:
    """Query pairs as the SDK's default_query: a name given twice is sent twice."""
    mapping: dict[str, str | list[str]] = {}
    for name, value in pairs:
        old = mapping.get(name)
        mapping[name] = value if old is None else [*([old] if isinstance(old, str) else old), value]
    return mapping


@cache
def _ssl_context() -> ssl.SSLContext:
    """One TLS context for every client: building one loads the CA bundle (tens of ms)."""
    return ssl.create_default_context()


class Endpoint:
    """One server (base URL and key): its client, its state for the run, and its breaker."""

    def __init__(
        self, base_url: str | EndpointURL, api_key: str, breaker: int, limit: AdaptiveLimit | None = None
    ) -> None:
        self.url = base_url if isinstance(base_url, EndpointURL) else EndpointURL(base_url)
        self.limit = limit  # the run's cap for this server: told when the server is overloaded
        self._api_key = api_key
        self._secrets = [*self.url.secrets(), *([api_key] if api_key != NO_KEY else [])]
        register_secrets(self._secrets)
        self.circuit = Breaker(self.url, breaker)
        # The client gets a URL without secrets (they would show in its errors and logs, and a query in a
        # base URL breaks the SDK's path joining): the query goes with every request, user:password as
        # Basic auth unless an API key takes the Authorization header.
        plain, query, user, password = split_url(self.url.url)
        basic = (user or "", password or "") if (user or password) and api_key == NO_KEY else None  # Basic auth
        self.client = AsyncOpenAI(
            base_url=plain,
            api_key=api_key,
            default_query=_query_mapping(query) or None,
            max_retries=0,  # retries are ours, so that every attempt is logged and bounded
            http_client=openai.DefaultAsyncHttpxClient(verify=_ssl_context(), auth=basic),
        )
        self.formats: dict[str, str] = {}  # model -> the best response format the server accepted
        self.system_modes: dict[str, str] = {}  # model -> "system" or "user" (detected or configured)
        self.token_param: dict[str, str] = {}  # model -> "max_tokens" or "max_completion_tokens"
        self.chars_per_token: dict[str, float] = {}  # model -> a conservative ratio seen in usage
        self.calls = 0
        self.unanswered = 0
        self.useless = 0  # answers that held nothing usable (``useless_answer``)
        self.timeouts_since_response = 0  # attempts timed out since the server last responded at all
        self.silent_since: float | None = None  # when the oldest of those attempts started

    @property
    def tripped(self) -> str | None:
        """Why the breaker tripped (None: it has not)."""
        return self.circuit.tripped

    def __repr__(self) -> str:  # never the key
        return f"Endpoint({self.url.shown!r})"

    @property
    def base_url(self) -> str:
        """The URL as sent (it may hold secrets: never show it; ``shown`` is for messages)."""
        return self.url.url

    @property
    def shown(self) -> str:
        return self.url.shown

    def scrub(self, text: str) -> str:
        """Error texts may echo request details (the URL, a header): no secret of this endpoint may reach a log."""
        return scrub(text, self._secrets)[:500]

    def format_for(self, options: LLMOptions) -> str:
        if options.response_format != "auto":
            return options.response_format
        return self.formats.get(options.model, "json_schema")

    def system_mode(self, options: LLMOptions) -> str:
        if options.system_prompt != "auto":
            return options.system_prompt
        return self.system_modes.get(options.model, "system")

    def estimate_tokens(self, model: str, chars: int) -> int:
        """Prompt tokens for ``chars`` characters: 3 chars a token until usage says otherwise."""
        return int(chars / self.chars_per_token.get(model, 3.0)) + 1

    def _learn_ratio(self, model: str, chars: int, prompt_tokens: Any) -> None:
        if (token_count(prompt_tokens) or 0) > 16:
            seen = chars / prompt_tokens
            old = self.chars_per_token.get(model)
            # Conservative: follow a denser tokenisation at once, a sparser one slowly.
            self.chars_per_token[model] = seen if old is None or seen < old else 0.9 * old + 0.1 * seen

    # ------------------------------------------------------------------ one call

    async def complete(
        self,
        options: LLMOptions,
        messages: list[dict[str, str]],
        schema: dict[str, Any] | None,
        schema_name: str,
        rng: random.Random,
        seed: int | None = None,
        fmt: str | None = None,
        allow_longer: bool = True,
    ) -> Reply:
        """The model's reply with retries, step-downs and (``allow_longer``) one longer try after a cut-off."""
        self.circuit.check()
        self.calls += 1
        fmt = fmt or self.format_for(options)
        max_tokens = options.max_tokens
        errors: list[str] = []
        started = time.monotonic()
        retries = longer = 0
        cut_off = False
        chars = sum(len(m["content"]) for m in messages)
        while True:
            body = self._body(options, messages, schema, schema_name, fmt, max_tokens, seed)
            attempt_started = time.monotonic()
            try:
                raw = await asyncio.wait_for(
                    self.client.chat.completions.with_raw_response.create(
                        **body, timeout=openai.Timeout(options.timeout, connect=options.connect_timeout)
                    ),
                    timeout=options.timeout,
                )
                self._responded()
                response = json.loads(raw.text)
                if not isinstance(response, dict) or not isinstance(response.get("choices"), list):
                    raise ValueError("not a chat completion")
            except asyncio.CancelledError:
                raise
            except (ValueError, TypeError, RecursionError) as exc:
                errors.append(f"unparseable response: {self.scrub(str(exc))[:200]}")
                return self._failed(
                    fmt,
                    started,
                    retries,
                    errors,
                    "the server's response is not a chat completion",
                    "unparseable responses",
                )
            except Exception as exc:  # classified below; anything unknown ends the call
                status = getattr(exc, "status_code", None)
                if status is not None:
                    self._responded()
                text = self.scrub(f"{type(exc).__name__}: {exc}")
                errors.append(text)
                if status in FATAL_STATUSES:
                    why = {
                        401: "authentication failed (HTTP 401)",
                        403: "access denied (HTTP 403)",
                        404: "model or path not found (HTTP 404)",
                    }[status]
                    raise self.circuit.trip(f"{why}: {text[:200]}") from None
                if (
                    fmt != "none"
                    and (status in (400, 422) or (status is not None and status >= 500))
                    and (_FORMAT_ERROR.search(str(exc)))
                ):
                    fmt = STEP_DOWN[fmt]  # the server cannot do this format: step down, remember, try again
                    if options.response_format == "auto":
                        self.formats[options.model] = fmt
                    errors.append(f"response_format refused (HTTP {status}); using {fmt}")
                    continue
                if status == 400 and _MAX_COMPLETION.search(str(exc)) and "max_tokens" in body:
                    self.token_param[options.model] = "max_completion_tokens"
                    errors.append("max_tokens refused; using max_completion_tokens")
                    continue
                retryable = (
                    isinstance(exc, (asyncio.TimeoutError, openai.APITimeoutError, openai.APIConnectionError))
                    or status in RETRY_STATUSES
                    or (status is not None and status >= 500)
                )
                kind = f"HTTP {status}" if status else type(exc).__name__
                if not retryable:
                    return self._failed(fmt, started, retries, errors, kind, kind)
                timed_out = isinstance(exc, (asyncio.TimeoutError, openai.APITimeoutError))
                if timed_out:
                    kind = "timeouts"
                    errors[-1] = self._timeout_text(exc, options)
                    self._timed_out(options, attempt_started, errors[-1])  # a hung server: raises
                elif isinstance(exc, openai.APIConnectionError):
                    kind = "connection failures"
                if self.limit is not None and (timed_out or status in (429, 503)):
                    self.limit.overloaded()
                delay, asked = self._delay(options, retries, exc, rng)
                left = options.max_wait - (time.monotonic() - started)
                if retries >= options.retries:
                    return self._failed(fmt, started, retries, errors, "retries exhausted", kind)
                if delay > left:
                    why = "max_wait exhausted"
                    if asked:
                        why = f"the server asked to wait {asked:.1f} s, more than the {max(left, 0):.1f} s left"
                    return self._failed(fmt, started, retries, errors, why, kind)
                retries += 1
                await asyncio.sleep(delay)
                continue
            choices = response["choices"]
            choice = choices[0] if choices and isinstance(choices[0], dict) else {}
            message = choice.get("message") or {}
            content = message.get("content")
            finish = choice.get("finish_reason")
            usage, usage_error = clean_usage(response.get("usage"))
            if usage_error is not None:
                errors.append(self.scrub(usage_error))
            if finish == "length":
                cut_off = True
                room = options.context_budget - (token_count((usage or {}).get("prompt_tokens")) or 0)
                if allow_longer and longer == 0 and room > max_tokens * 2 - 1:
                    longer += 1
                    errors.append(f"answer cut off at {max_tokens} tokens; asking again with {max_tokens * 2}")
                    max_tokens *= 2
                    continue
            if self.limit is not None:
                self.limit.answered()
            if usage:
                self._learn_ratio(options.model, chars, usage.get("prompt_tokens"))
            useless = useless_answer(choices, content, message.get("refusal"), finish) if schema is not None else None
            if useless is None:
                self.circuit.answered()
            else:  # an answer with nothing in it: as good as none, for the breaker
                self.useless += 1
                self.circuit.failed(useless, f"{useless} (finish_reason {str(finish)[:40]!r})")
            meta = self._meta(fmt, started, retries, errors)
            meta.update(
                usage=usage,
                finish_reason=finish,
                cut_off=cut_off,
                call_latency_s=round(time.monotonic() - attempt_started, 4),
                request_id=raw.headers.get("x-request-id") or response.get("id"),
                rate_limit={h: raw.headers[h] for h in _RATE_HEADERS if h in raw.headers} or None,
            )
            if useless is not None:
                meta["useless"] = useless
            if not isinstance(content, str):
                refusal = message.get("refusal")
                meta["refusal"] = refusal
                return Reply(f"(refused: {refusal})" if refusal else "", meta)
            return Reply(content, meta)

    def _body(
        self,
        options: LLMOptions,
        messages: list[dict[str, str]],
        schema: dict[str, Any] | None,
        schema_name: str,
        fmt: str,
        max_tokens: int,
        seed: int | None,
    ) -> dict[str, Any]:
        body: dict[str, Any] = {"model": options.model, "messages": messages, "temperature": options.temperature}
        body[self.token_param.get(options.model, "max_tokens")] = max_tokens
        if options.top_p is not None:
            body["top_p"] = options.top_p
        if seed is not None:
            body["seed"] = seed
        if fmt == "json_object" or (fmt == "json_object_schema" and schema is None):
            body["response_format"] = {"type": "json_object"}
        elif fmt == "json_object_schema":
            body["response_format"] = {"type": "json_object", "schema": schema}
        elif fmt == "json_schema" and schema is not None:
            body["response_format"] = {
                "type": "json_schema",
                "json_schema": {"name": schema_name, "schema": schema, "strict": True},
            }
        if options.extra_body:
            body["extra_body"] = dict(options.extra_body)  # server-specific fields go in as they are
        return body

    def _delay(self, options: LLMOptions, retries: int, exc: Exception, rng: random.Random) -> tuple[float, float]:
        """(seconds to wait, what the server asked for or 0): full-jitter backoff, or the server's wait if longer."""
        delay = min(options.max_backoff, options.backoff * 2**retries) * (0.5 + rng.random() / 2)
        response = getattr(exc, "response", None)
        asked = retry_after(response.headers) if response is not None else None
        if asked is not None:
            return max(delay, asked), asked
        return delay, 0.0

    def _failed(
        self, fmt: str, started: float, retries: int, errors: list[str], failure: str, kind: str = "no answer"
    ) -> Reply:
        self.unanswered += 1
        self.circuit.failed(kind, f"{failure}; {errors[-1]}" if errors else failure)
        return Reply(None, self._meta(fmt, started, retries, errors, failure))

    def _responded(self) -> None:
        """The server sent a response (an answer or an HTTP error): it is not hung."""
        self.timeouts_since_response = 0
        self.silent_since = None

    def _timed_out(self, options: LLMOptions, attempt_started: float, error: str) -> None:
        """Count an attempt timeout; raise ``EndpointDownError`` when the server looks hung: ``HANG_TIMEOUTS``
        attempts timed out and nothing came back for ``HANG_WINDOW`` attempt timeouts."""
        self.timeouts_since_response += 1
        if self.silent_since is None or attempt_started < self.silent_since:
            self.silent_since = attempt_started
        silent = time.monotonic() - self.silent_since
        if self.timeouts_since_response >= HANG_TIMEOUTS and silent >= HANG_WINDOW * options.timeout:
            why = f"no response for {silent:.0f} s, {self.timeouts_since_response} attempts timed out (last: {error})"
            raise self.circuit.trip(f"the server looks hung: {why}") from None

    @staticmethod
    def _timeout_text(exc: BaseException, options: LLMOptions) -> str:
        """A timeout in words that name the limit that fired: connecting, or the whole answer."""
        if type(exc.__cause__).__name__ == "ConnectTimeout":  # httpx's (the SDK raises APITimeoutError from it)
            return f"connect timeout: no connection within {options.connect_timeout:g} s (--connect-timeout)"
        return f"deadline: no complete answer within {options.timeout:g} s (--timeout)"

    def _meta(
        self, fmt: str, started: float, retries: int, errors: list[str], failure: str | None = None
    ) -> dict[str, Any]:
        meta: dict[str, Any] = {
            "cached": False,
            "response_format": fmt,
            "retries": retries,
            "latency_s": round(time.monotonic() - started, 4),
            "transport_errors": errors,
        }
        if failure is not None:
            meta["failure"] = failure
        return meta
