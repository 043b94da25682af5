"""How hard to press a server: the run's adaptive concurrency cap per server, and the waits a server asks for.

    limit = AdaptiveLimit(8)          # async with limit: ... around one seat's turn
    retry_after(response.headers)     # seconds a 429 / 503 asks to wait, or None

Used by ``werewolf_deception.agents.llm.endpoints`` (re-exported there).
"""

from __future__ import annotations

import asyncio
import email.utils
import time
from typing import Any


class AdaptiveLimit:
    """A server's concurrency cap that halves when the server is overloaded and creeps back up.

    Used as ``async with limit:`` around one seat's turn. A call that hits its deadline, a 429 or a
    503 means requests are queueing at the server (a one-slot local server with 8 calls in flight
    makes the last wait for seven answers): the cap halves, down to 1. Every ``4 x cap`` answered
    calls it grows by one again, up to the configured ``--concurrency``.
    """

    def __init__(self, cap: int) -> None:
        self.cap = cap
        self.limit = cap
        self.active = 0
        self.overloads = 0
        self._answered = 0
        self._changed: asyncio.Condition | None = None

    def _condition(self) -> asyncio.Condition:
        if self._changed is None:  # made on first use, inside the run's event loop
            self._changed = asyncio.Condition()
        return self._changed

    async def __aenter__(self) -> AdaptiveLimit:
        changed = self._condition()
        async with changed:
            await changed.wait_for(lambda: self.active < self.limit)
            self.active += 1
        return self

    async def __aexit__(self, *exc: object) -> None:
        changed = self._condition()
        async with changed:
            self.active -= 1
            changed.notify_all()

    def overloaded(self) -> None:
        self.overloads += 1
        self._answered = 0
        self.limit = max(1, self.limit // 2)

    def answered(self) -> None:
        self._answered += 1
        if self.limit < self.cap and self._answered >= 4 * self.limit:
            self._answered = 0
            self.limit += 1  # waiters see it at the next release (this call's own turn is still in flight)


def retry_after(headers: Any) -> float | None:
    """Seconds a server asks to wait: ``retry-after-ms``, or ``Retry-After`` in seconds or as an HTTP date."""
    try:
        ms = headers.get("retry-after-ms")
        if ms is not None:
            return max(0.0, float(ms) / 1000)
    except (TypeError, ValueError):
        pass
    value = headers.get("retry-after")
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError):
        return None
    if when is None:
        return None
    return max(0.0, when.timestamp() - time.time())
