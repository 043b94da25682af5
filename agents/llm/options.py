"""The options of an LLM seat, validated once: CLI flags, lineup files and tournaments all go through here.

    LLMOptions(model="gpt-4o-mini", base_url="https://api.openai.com/v1", temperature=0.2)

A bad value (a temperature of "hot" or NaN, a negative timeout, a URL without a host) is refused
when the lineup is loaded, before any game starts, with a message that names the option (and, for a
misspelt one, the option it was probably meant to be). API keys never belong here: ``api_key_env``
names an environment variable whose name says it holds a key (``*_API_KEY``, ``*_TOKEN``) and
``api_key_file`` a small file holding one key; both rules live in ``agents/credentials.py``.
"""

from __future__ import annotations

import difflib
import math
import os
import re
from typing import Any, Literal
from urllib.parse import urlsplit

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from werewolf_deception.agents.credentials import check_key_variable, read_key_file, redact_url, redacted

ResponseFormat = Literal["auto", "json_schema", "json_object_schema", "json_object", "none"]
SystemPromptMode = Literal["auto", "system", "user"]

DEFAULT_BASE_URL = "https://api.openai.com/v1"
BASE_URL_VARIABLE = "OPENAI_BASE_URL"  # the endpoint of a seat without base_url, checked like base_url
MAX_SEED = 2**63 - 1  # servers take a 64-bit seed
# Request fields the client sets itself (each from its option), or that change what an answer is or what it
# costs: extra_body may not override them.
REQUEST_FIELDS: dict[str, str] = {
    "model": "the model option", "messages": "the game", "temperature": "the temperature option",
    "top_p": "the top_p option", "max_tokens": "the max_tokens option",
    "max_completion_tokens": "the max_tokens option",
    "seed": "the seed option", "response_format": "the response_format option", "stream": "answers are read whole",
    "stream_options": "answers are read whole", "n": "one answer is read per call",
    "tools": "answers are read as text", "tool_choice": "answers are read as text",
    "functions": "answers are read as text", "function_call": "answers are read as text",
}  # fmt: skip


def checked_url(value: str) -> str:
    """``value`` without its trailing slash if it is an http(s) URL with a host and a valid port, else ValueError."""
    value = value.strip()
    parts = urlsplit(value)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ValueError(f"{redact_url(value)!r} is not an http(s) URL with a host (e.g. http://127.0.0.1:8080/v1)")
    try:
        parts.port  # noqa: B018 - raises on a port that is not a number
    except ValueError:
        raise ValueError(f"{redact_url(value)!r} has an invalid port") from None
    return value.rstrip("/")


class LLMOptions(BaseModel):
    """How one LLM seat talks to its server. Every field has a safe default except ``model``."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    model: str = Field(min_length=1, description="the model name the server knows")
    base_url: str | None = Field(None, description="OpenAI-compatible endpoint (default $OPENAI_BASE_URL or OpenAI)")
    api_key_env: str = Field(
        "OPENAI_API_KEY",
        min_length=1,
        description="environment variable holding the key (its name ends in _API_KEY or _TOKEN)",
    )
    api_key_file: str | None = Field(
        None, description="a small file holding one key, on one line (wins over api_key_env)"
    )
    name: str | None = Field(None, description="the seat's label in reports (default llm:<model>)")
    response_format: ResponseFormat = Field(
        "auto", description="auto: a strict JSON schema, stepping down to JSON mode and plain text as the server allows"
    )
    temperature: float = Field(0.7, ge=0.0, le=2.0, allow_inf_nan=False)
    top_p: float | None = Field(None, gt=0.0, le=1.0, allow_inf_nan=False)
    max_tokens: int = Field(300, ge=16, le=65_536, description="room for one answer (a cut-off answer gets more)")
    seed: int | None = Field(
        None, ge=0, le=MAX_SEED, description="sampling seed sent to the server (default: one per seat and game)"
    )
    timeout: float = Field(60.0, gt=0.0, le=3600.0, allow_inf_nan=False, description="wall-clock limit per attempt (s)")
    connect_timeout: float = Field(5.0, gt=0.0, le=300.0, allow_inf_nan=False, description="limit to connect (s)")
    retries: int = Field(4, ge=0, le=50, description="retries after a timeout, a dropped connection, 408/409/429/5xx")
    max_wait: float = Field(
        120.0,
        gt=0.0,
        le=86_400.0,
        allow_inf_nan=False,
        description="most seconds one call may spend in retries and server-requested waits",
    )
    backoff: float = Field(0.5, ge=0.0, le=60.0, allow_inf_nan=False, description="first retry delay (s), doubling")
    max_backoff: float = Field(8.0, ge=0.0, le=600.0, allow_inf_nan=False, description="largest backoff delay (s)")
    system_prompt: SystemPromptMode = Field(
        "auto", description="auto: detected by the preflight (templates that drop system messages get 'user')"
    )
    context_budget: int = Field(
        4096, ge=512, le=10_000_000, description="tokens for prompt + answer; the oldest history is dropped to fit"
    )
    bid_in_analysis: bool = Field(
        True,
        description="ask for the next bid inside each peer analysis (one call fewer per listener and "
        "statement); a missing or invalid one, or news in between, gets its own bid call",
    )
    vote_in_analysis: bool = Field(
        True,
        description="ask for the vote inside the analyses of the day's last statement and that statement's "
        "own call (the vote comes next); a missing or invalid one gets its own vote call",
    )
    self_analysis_in_statement: bool = Field(
        True,
        description="ask the speaker's self-analysis inside its statement call (it comes next); a missing "
        "or invalid one, or a statement the env cut, gets its own call",
    )
    extra_body: dict[str, Any] = Field(default_factory=dict, description="server-specific request fields, as they are")

    @field_validator("base_url")
    @classmethod
    def _url(cls, value: str | None) -> str | None:
        return None if value is None else checked_url(value)

    @field_validator("api_key_env")
    @classmethod
    def _key_variable(cls, value: str) -> str:
        return check_key_variable(value)

    @field_validator("api_key_file")
    @classmethod
    def _key_file(cls, value: str | None) -> str | None:
        if value is not None:
            read_key_file(value)  # refused now, before any game, rather than when the first seat is made
        return value

    @field_validator("extra_body")
    @classmethod
    def _no_key_in_body(cls, value: dict[str, Any]) -> dict[str, Any]:
        if any(re.search(r"api[_-]?key|authorization|secret|token$", str(k), re.IGNORECASE) for k in value):
            raise ValueError("extra_body must not hold keys or tokens (it is written to the run folder)")
        overriding = [str(k) for k in value if k in REQUEST_FIELDS]
        if overriding:
            field = overriding[0]
            raise ValueError(f"may not set {field!r}, a field of the request itself ({REQUEST_FIELDS[field]})")
        return value

    @model_validator(mode="after")
    def _consistent(self) -> LLMOptions:
        if self.max_tokens >= self.context_budget:
            raise ValueError(f"max_tokens ({self.max_tokens}) must be below context_budget ({self.context_budget})")
        if self.max_backoff < self.backoff:
            raise ValueError("max_backoff must be at least backoff")
        if self.base_url is None and os.environ.get(BASE_URL_VARIABLE, "").strip():
            try:  # the endpoint this seat would call: refused now, like a base_url, not at the first call
                checked_url(os.environ[BASE_URL_VARIABLE])
            except ValueError as exc:
                raise ValueError(f"${BASE_URL_VARIABLE} (the endpoint of a seat without base_url): {exc}") from None
        return self

    def __repr_args__(self) -> Any:  # the base URL may carry a key: never in a repr
        for name, value in super().__repr_args__():
            yield name, redacted(value)

    def endpoint(self) -> str:
        """The base URL this seat calls."""
        from_environment = os.environ.get(BASE_URL_VARIABLE, "").strip()
        return self.base_url or (checked_url(from_environment) if from_environment else DEFAULT_BASE_URL)

    def label(self) -> str:
        return self.name or f"llm:{self.model}"


# Fields whose bad value is safe to quote back (not base_url: it may carry credentials; redact_url shows it).
_SHOWN_FIELDS = frozenset(LLMOptions.model_fields) - {"base_url", "extra_body", "api_key_file", "api_key_env"}


def validate_options(options: dict[str, Any], where: str = "llm seat") -> LLMOptions:
    """``LLMOptions`` from plain data, or a ValueError that names the seat and every bad option."""
    try:
        return LLMOptions.model_validate(options)
    except ValidationError as exc:
        problems = []
        for err in exc.errors():
            field = ".".join(str(x) for x in err["loc"]) or "options"
            if err["type"] == "extra_forbidden":  # never echo the value: it may be a key put in the wrong place
                problems.append(f"{field}: unknown option{suggestion(field, LLMOptions.model_fields)}")
                continue
            if err["type"] == "value_error":  # our own validators' messages say what is wrong, and redact
                problems.append(f"{field}: {err['ctx']['error']}" if err["loc"] else str(err["ctx"]["error"]))
                continue
            shown = err.get("input")
            got = ""
            # Numbers only: any text may be a key put in the wrong place ("temperature = 'sk-...'").
            if field in _SHOWN_FIELDS and isinstance(shown, (int, float, bool)) and len(repr(shown)) <= 60:
                finite = not isinstance(shown, float) or math.isfinite(shown)
                got = f" (got {shown!r})" if finite else f" (got {shown})"
            problems.append(f"{field}: {err['msg']}{got}")
        raise ValueError(f"{where}: " + "; ".join(problems)) from None


def suggestion(unknown: str, known: Any) -> str:
    """`` (did you mean 'temperature'?)`` for a misspelt name, else the list of valid names (never a value)."""
    names = [str(name) for name in known]
    if "key" in unknown.lower() and "api_key_env" in names:
        return " (keys go in an environment variable: api_key_env, or a file: api_key_file)"
    close = difflib.get_close_matches(unknown, names, n=1, cutoff=0.6)
    if close:
        return f" (did you mean {close[0]!r}?)"
    return f"; valid: {', '.join(names)}"
