"""Transports: what carries an LLM seat's prompt to a model and brings back the answer's text.

    agent = LLMAgent(transport=my_complete)              # any ``async (messages, schema) -> str``
    agent = LLMAgent(transport=MyTransport(), label="llm:mine")

``LLMAgent`` (``agents/llm/agent.py``) owns everything that defines the measurement: the prompt, the context
budget, validation of the answer, the one repair prompt, the ``llm_call`` and ``llm_outcome`` records
and so validity accounting. A transport only answers one request: ``complete(messages, schema,
kind=...)`` returns the reply's text (or a ``Reply`` with its text and what happened on the way, or
None when the model never answered). ``schema`` is the turn's strict JSON schema
(``werewolf_deception.agents.llm.schemas.answer_schema``); a transport may constrain its model with it or ignore it.

* ``OpenAITransport`` is the OpenAI-compatible path: the run's ``Endpoint`` (retries, deadlines,
  response-format step-downs, the circuit breaker, secrets kept out of every text) and the on-disk
  response cache. ``LLMAgent(model=..., base_url=...)`` builds one.
* ``as_transport(obj)`` wraps any object with an async ``complete(messages, schema)`` method, or an
  async function of ``(messages, schema)``, so that it can back a seat.
* ``werewolf_deception.benchmarks.integrations.inspect_tasks`` has one that calls Inspect's ``Model.generate``.

``passthrough`` names the exception types a transport's caller must see as they are (an evaluation
framework's limit or cancellation errors): ``LLMAgent`` re-raises them, and ``play_game(...,
passthrough=...)`` lets them end the game instead of turning them into the env's fallback.
"""

from __future__ import annotations

import inspect
import random
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from werewolf_deception.agents.credentials import EndpointURL
from werewolf_deception.agents.llm.cache import ResponseCache
from werewolf_deception.agents.llm.endpoints import Endpoint, EndpointPool, Reply
from werewolf_deception.agents.llm.options import LLMOptions

Messages = list[dict[str, str]]
CompleteFn = Callable[[Messages, dict[str, Any]], Awaitable["str | Reply | None"]]


class Transport:
    """The seam behind an LLM seat. Subclasses implement ``complete``; the rest has safe defaults."""

    label = "custom"  # the model's name in call records
    shown = "custom"  # where the calls go, as records show it (never a secret)
    endpoint: EndpointURL | None = None  # the runner's concurrency cap is per endpoint (None: no cap of ours)
    passthrough: tuple[type[BaseException], ...] = ()  # exceptions that must reach the caller unchanged

    async def complete(self, messages: Messages, schema: dict[str, Any], *, kind: str = "answer") -> Reply:
        raise NotImplementedError

    def system_mode(self) -> str:
        """``"system"``: the rules go in a system message; ``"user"``: merged into the first user message."""
        return "system"

    def estimate_tokens(self, chars: int) -> int:
        """Prompt tokens for ``chars`` characters (the context budget's estimate): 3 characters a token."""
        return int(chars / 3.0) + 1

    def scrub(self, text: str) -> str:
        """An error text fit for a log (a transport holding secrets removes them here)."""
        return text[:500]

    async def aclose(self) -> None:
        """Release what the transport holds of its own."""


class CallableTransport(Transport):
    """Any async ``complete(messages, schema)`` (a function, or an object's method) as a transport."""

    def __init__(
        self, complete: CompleteFn, label: str = "custom", passthrough: tuple[type[BaseException], ...] = ()
    ) -> None:
        self._complete = complete
        self.label = self.shown = label
        self.passthrough = passthrough

    async def complete(self, messages: Messages, schema: dict[str, Any], *, kind: str = "answer") -> Reply:
        answer: Any = self._complete(messages, schema)
        if inspect.isawaitable(answer):
            answer = await answer
        return as_reply(answer)


def as_reply(reply: Any) -> Reply:
    """A transport's answer as a ``Reply``: a ``Reply`` as it is, text as its content, None as no answer."""
    if isinstance(reply, Reply):
        return reply
    if reply is None:
        return Reply(None, {"failure": "no answer"})
    if not isinstance(reply, str):
        raise TypeError(f"a transport must answer with text, a Reply or None, not {type(reply).__name__}")
    return Reply(reply, {})


def as_transport(obj: Any, label: str | None = None) -> Transport:
    """A ``Transport`` from a transport, an object with an async ``complete(messages, schema)``, or such a function."""
    if isinstance(obj, Transport):
        if label is not None:
            obj.label = label
        return obj
    method = getattr(obj, "complete", None)
    fn = method if callable(method) else obj if callable(obj) else None
    if fn is None:
        raise TypeError("a transport is an async complete(messages, schema) function or an object with one")
    passthrough = tuple(getattr(obj, "passthrough", ()) or ())
    name = label or str(getattr(obj, "label", None) or getattr(obj, "__name__", None) or "custom")
    return CallableTransport(fn, name, passthrough)


class OpenAITransport(Transport):
    """An OpenAI-compatible server through the run's ``EndpointPool``, with the response cache."""

    def __init__(
        self,
        options: LLMOptions,
        pool: EndpointPool,
        seed: int | None,
        cache_dir: str | Path | None = None,
        rng: random.Random | None = None,
    ) -> None:
        self.options = options
        self.connection: Endpoint = pool.endpoint(options)  # raises ValueError on an unreadable key file
        self.label = options.model
        self.seed = seed
        self.cache = ResponseCache(cache_dir) if cache_dir is not None else None
        self._rng = rng or random.Random(seed)
        self._calls = 0

    @property
    def endpoint(self) -> EndpointURL:  # type: ignore[override]  # derived: the connection holds the URL
        return self.connection.url

    @property
    def shown(self) -> str:  # type: ignore[override]
        return self.connection.url.shown

    def system_mode(self) -> str:
        return self.connection.system_mode(self.options)

    def estimate_tokens(self, chars: int) -> int:
        return self.connection.estimate_tokens(self.options.model, chars)

    def scrub(self, text: str) -> str:
        return self.connection.scrub(text)

    async def complete(self, messages: Messages, schema: dict[str, Any], *, kind: str = "answer") -> Reply:
        """The reply (from the cache when this exact request was answered before) and its meta."""
        self._calls += 1
        o = self.options
        fmt = self.connection.format_for(o)
        request = {
            # the redacted URL: a key in it must not be recoverable from cache names by guessing
            "endpoint": self.shown, "model": o.model, "messages": messages, "temperature": o.temperature,
            "top_p": o.top_p, "max_tokens": o.max_tokens, "response_format": fmt, "extra_body": o.extra_body,
            "schema": schema if fmt in ("json_schema", "json_object_schema") else None, "seed": self.seed,
        }  # fmt: skip
        if o.temperature > 0:
            request["sample"] = self._calls  # sampled answers are replayed per call, not shared between calls
        key = ResponseCache.key(request) if self.cache is not None else ""
        if self.cache is not None:
            hit = self.cache.get(key)
            if hit is not None:
                return Reply(
                    hit["content"],
                    {
                        "cached": True,
                        "usage": hit.get("usage"),
                        "latency_s": 0.0,
                        "retries": 0,
                        "response_format": fmt,
                        "finish_reason": hit.get("finish_reason"),
                        "cut_off": bool(hit.get("cut_off")),
                    },
                )
        reply = await self.connection.complete(o, messages, schema, kind, self._rng, seed=self.seed, fmt=fmt)
        if reply.content is not None and not reply.meta.get("useless") and self.cache is not None:
            kept = {k: reply.meta.get(k) for k in ("usage", "finish_reason", "cut_off")}
            self.cache.put(key, {"content": reply.content, **kept})
        return reply
