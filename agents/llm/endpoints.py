"""Endpoints: one client, one connection pool and one concurrency cap per server, for a whole run.

    pool = EndpointPool(concurrency=8, breaker=8)       # once per run (``play_run`` makes one)
    endpoint = pool.endpoint(options)                    # options: an ``LLMOptions``
    reply = await endpoint.complete(options, messages, kind, schema, rng)
    await pool.aclose()

The pool (this module) keeps one ``Endpoint`` per server and key, with a concurrency cap per server
shared by every game and seat, and reports what the run learned of each for the manifest. What one
call does (deadlines, retries, response-format step-downs, the circuit breaker, secrets) is in
``agents/llm/endpoint.py``; its names (``Breaker`` and ``useless_answer`` too) are re-exported here, with
``AdaptiveLimit`` and ``retry_after`` (``agents/llm/backpressure.py``).
"""

from __future__ import annotations

import hashlib
from typing import Any

from werewolf_deception.agents.credentials import EndpointURL, read_key
from werewolf_deception.agents.llm.backpressure import AdaptiveLimit, retry_after
from werewolf_deception.agents.llm.endpoint import (
    FATAL_STATUSES,
    RETRY_STATUSES,
    STEP_DOWN,
    Breaker,
    Endpoint,
    EndpointDownError,
    Reply,
    useless_answer,
)
from werewolf_deception.agents.llm.options import LLMOptions

__all__ = [
    "FATAL_STATUSES", "RETRY_STATUSES", "STEP_DOWN", "AdaptiveLimit", "Breaker", "Endpoint", "EndpointDownError",
    "EndpointPool", "Reply", "retry_after", "useless_answer",
]  # fmt: skip


class EndpointPool:
    """The endpoints of one run: a client each, a concurrency cap each across all games, a breaker each."""

    def __init__(self, concurrency: int = 8, breaker: int = 8) -> None:
        if concurrency < 1:
            raise ValueError("concurrency must be at least 1")
        if breaker < 1:
            raise ValueError("the circuit breaker needs at least 1 failure to trip")
        self.concurrency = concurrency
        self.breaker = breaker
        self._endpoints: dict[tuple[str, str], Endpoint] = {}
        self._limits: dict[str, AdaptiveLimit] = {}

    def endpoint(self, options: LLMOptions) -> Endpoint:
        url = EndpointURL(options.endpoint())
        key = read_key(options.api_key_env, options.api_key_file)
        ident = (url.url, hashlib.sha256(key.encode()).hexdigest())  # the key itself is not kept as an index
        found = self._endpoints.get(ident)
        if found is None:
            found = self._endpoints[ident] = Endpoint(url, key, self.breaker, self.limit(url))
        return found

    def limit(self, base_url: str | EndpointURL) -> AdaptiveLimit:
        """The concurrency cap of one server, shared by every game and seat of the run."""
        url = base_url.url if isinstance(base_url, EndpointURL) else base_url
        found = self._limits.get(url)
        if found is None:
            found = self._limits[url] = AdaptiveLimit(self.concurrency)
        return found

    def endpoints(self) -> list[Endpoint]:
        return list(self._endpoints.values())

    def state(self) -> list[dict[str, Any]]:
        """What the run learned of each endpoint, for the manifest (never a key)."""
        out = []
        for e in self._endpoints.values():
            models = sorted(set(e.formats) | set(e.system_modes) | set(e.chars_per_token))
            limit = e.limit
            out.append(
                {
                    "endpoint": e.shown,
                    "calls": e.calls,
                    "unanswered": e.unanswered,
                    "useless": e.useless,
                    "tripped": e.tripped,
                    "concurrency": limit and {"cap": limit.cap, "final": limit.limit, "overloads": limit.overloads},
                    "models": {
                        m: {
                            "response_format": e.formats.get(m),
                            "system_prompt": e.system_modes.get(m),
                            "token_param": e.token_param.get(m, "max_tokens"),
                            "chars_per_token": round(e.chars_per_token[m], 3) if m in e.chars_per_token else None,
                        }
                        for m in models
                    },
                }
            )
        return out

    async def aclose(self) -> None:
        for e in self._endpoints.values():
            try:
                await e.client.close()
            except Exception:  # closing is best effort: the results do not depend on it
                pass
        self._endpoints.clear()
        self._limits.clear()
