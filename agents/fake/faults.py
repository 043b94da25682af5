"""The scripted server's faults and error replies (``werewolf_deception.agents.fake.server``, which re-exports the
public names).

``FAULTS`` names every fault a request can be given, ``CLASSIC_FAULTS`` the first eight (what the
server's ``--fault-rate`` draws from); ``FaultPlan`` says which fault request ``i`` gets. The error
replies have OpenAI's shape and texts (llama.cpp's for a schema it cannot compile and for a model still
loading), with the HTTP reason phrases the server sends. What each fault does is described, and done,
in ``werewolf_deception.agents.fake.server`` (transport and HTTP faults) and ``werewolf_deception.agents.fake.answers``
(faulty answers).
"""

from __future__ import annotations

import random
import threading
from dataclasses import dataclass, field
from typing import Any

CLASSIC_FAULTS = ("malformed", "wrong_keys", "invalid_target", "refusal", "429", "500", "drop", "timeout")
FAULTS = (*CLASSIC_FAULTS, "length", "empty", "placeholder", "401", "403", "404", "408", "409", "422",
          "429_ms", "429_date", "502", "503", "trickle", "no_choices", "null_content", "cut_before_json",
          "empty_fence", "bad_usage")  # fmt: skip


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


@dataclass
class HttpReply:
    status: int
    body: dict[str, Any]
    headers: dict[str, str] = field(default_factory=dict)
    trickle: float = 0.0  # seconds per body byte for this reply; 0: the server-wide rate


def error_reply(
    status: int, message: str, kind: str = "invalid_request_error", code: str | None = None, param: str | None = None
) -> HttpReply:
    return HttpReply(status, {"error": {"message": message, "type": kind, "param": param, "code": code}})


# HTTP error faults: status, message, type, code (OpenAI's texts where it has them; 503 is llama.cpp's
# answer while it loads the model). "{model}" is the requested model.
ERROR_FAULTS: dict[str, tuple[int, str, str, str | None]] = {
    "401": (401, "Incorrect API key provided", "invalid_request_error", "invalid_api_key"),
    "403": (403, "Country, region, or territory not supported", "request_forbidden",
            "unsupported_country_region_territory"),
    "404": (404, "The model `{model}` does not exist", "invalid_request_error", "model_not_found"),
    "408": (408, "Request timed out", "timeout_error", None),
    "409": (409, "The request conflicted with another request; please try again", "conflict_error", None),
    "422": (422, "Unprocessable request: messages could not be read", "invalid_request_error", None),
    "429": (429, "rate limited", "requests", "rate_limit_exceeded"),
    "429_ms": (429, "rate limited", "requests", "rate_limit_exceeded"),
    "429_date": (429, "rate limited", "requests", "rate_limit_exceeded"),
    "500": (500, "internal error", "server_error", None),
    "502": (502, "Bad gateway", "server_error", None),
    "503": (503, "Loading model", "unavailable_error", None),
}  # fmt: skip
SCHEMA_ERROR = "Failed to parse grammar from json schema: Unrecognized schema: {'$ref': '#/$defs/Action'}"


STATUS_REASONS = {
    200: "OK", 400: "Bad Request", 401: "Unauthorized", 403: "Forbidden", 404: "Not Found",
    408: "Request Timeout", 409: "Conflict", 422: "Unprocessable Entity", 429: "Too Many Requests",
    500: "Internal Server Error", 502: "Bad Gateway", 503: "Service Unavailable",
}  # fmt: skip
