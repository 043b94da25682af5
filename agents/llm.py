"""``LLMAgent``: a policy that asks a chat model through the ``openai`` SDK (any OpenAI-compatible server).

Prompts: the system message holds the role card and the rules (the head of the observation text)
and how to answer; the user message holds the rest of the observation (players, what the player
knows, its suspicion scores, the public history, its private notes, the task and the exact JSON to
answer with). The model's ``notes`` are kept by the env as the player's private scratchpad and
shown back on every turn.

Answers are validated with the action's pydantic model and the legal targets. An invalid answer gets
one repair prompt quoting the error; if that fails too, the answer goes to the env, whose recorded
fallback plays instead. Timeouts, connection errors, 429 (honouring ``Retry-After``) and 5xx are
retried with exponential backoff and jitter, bounded by ``max_retries`` and ``max_wait`` seconds;
after that the env's fallback plays and the game goes on. ``response_format`` ``"auto"`` asks for a
JSON schema, and steps down to JSON mode and then to plain text when the server refuses it.

Every call's messages, raw output, parsed action, token usage, latency and retries become a log
record (``drain_records``); the API key never does, nor does it appear in any error text.
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import ssl
import time
from functools import cache
from pathlib import Path
from typing import Any, Literal

import openai
from openai import AsyncOpenAI
from pydantic import ValidationError

from werewolf_env.actions import ACTION_MODELS, as_object
from werewolf_env.state import ActionKind

from .base import Policy
from .cache import ResponseCache

ResponseFormat = Literal["auto", "json_schema", "json_object", "none"]
_STEP_DOWN = {"json_schema": "json_object", "json_object": "none"}
_TARGET_KEYS = {"eliminate": "target", "protect": "target", "unmask": "target", "vote": "vote"}
# Response formats a server refused, per (endpoint, model): shared by every agent in the process.
_REFUSED_FORMATS: dict[tuple[str, str], str] = {}

SYSTEM_RULES = (
    "You are a player in a game of Werewolf. Stay in your role and play to win for your team.\n"
    "Every reply must be exactly one JSON object with the keys the task asks for, and nothing else: "
    'no prose, no code fences. Put private thoughts you want to remember in the optional "notes" key.'
)


class LLMAgent(Policy):
    name = "llm"

    def __init__(
        self,
        model: str,
        base_url: str | None = None,
        api_key_env: str = "OPENAI_API_KEY",
        api_key_file: str | None = None,
        temperature: float = 0.7,
        max_tokens: int = 400,
        response_format: ResponseFormat = "auto",
        timeout: float = 60.0,
        max_retries: int = 4,
        backoff: float = 0.5,
        max_backoff: float = 8.0,
        max_wait: float = 120.0,
        seed: int | None = None,
        cache_dir: str | Path | None = None,
        extra_body: dict[str, Any] | None = None,
        label: str | None = None,
        system_prompt: Literal["system", "user"] = "system",
    ) -> None:
        self.model = model
        self.base_url = base_url or os.environ.get("OPENAI_BASE_URL") or "https://api.openai.com/v1"
        self._api_key = _read_key(api_key_env, api_key_file)
        self.temperature = temperature
        self.max_tokens = max_tokens
        self.response_format: ResponseFormat = response_format
        self.max_retries = max_retries
        self.backoff = backoff
        self.max_backoff = max_backoff
        self.max_wait = max_wait
        self.seed = seed
        self.extra_body = extra_body or {}
        # Some chat templates (Gemma's among them) have no system role and drop system messages:
        # "user" puts the rules and role card at the top of the user message instead.
        self.system_prompt = system_prompt
        self.name = label or f"llm:{model}"
        self.endpoint = self.base_url
        self.cache = ResponseCache(cache_dir) if cache_dir is not None else None
        self._rng = random.Random(seed)
        self._calls = 0
        self._records: list[dict[str, Any]] = []
        # The SDK's own retries are off: this class retries, so that every attempt is logged.
        self.client = AsyncOpenAI(
            base_url=self.base_url,
            api_key=self._api_key,
            max_retries=0,
            timeout=timeout,
            http_client=openai.DefaultAsyncHttpxClient(verify=_ssl_context(), timeout=timeout),
        )

    def __repr__(self) -> str:  # never show the key
        return f"LLMAgent(model={self.model!r}, base_url={self.base_url!r})"

    def drain_records(self) -> list[dict[str, Any]]:
        records, self._records = self._records, []
        return records

    # ------------------------------------------------------------------ one turn

    async def aact(self, observation: dict[str, Any], info: dict[str, Any]) -> dict[str, Any] | str:
        kind = info.get("action_kind")
        if kind is None:
            return {}
        messages = build_messages(observation["text"], merge_system=self.system_prompt == "user")
        friction = info.get("friction")  # the detector's note on this statement (friction runs only)
        if friction:
            messages[-1] = {
                **messages[-1],
                "content": f"{messages[-1]['content']}\n\nDETECTOR NOTE: {friction['text']}",
            }
        answer, error = await self._ask(messages, kind, info, attempt="answer")
        if error is None:
            return answer  # type: ignore[return-value]
        if answer is None:  # the server never answered: let the env's fallback play
            return {"llm_unavailable": error}
        messages = [
            *messages,
            {"role": "assistant", "content": answer if isinstance(answer, str) else json.dumps(answer)},
            {
                "role": "user",
                "content": (
                    f"That answer is invalid: {error}. Reply again with exactly one JSON object: "
                    f"{info.get('answer_format', '')}"
                ),
            },
        ]
        repaired, error = await self._ask(messages, kind, info, attempt="repair")
        if error is None:
            return repaired  # type: ignore[return-value]
        return repaired if repaired is not None else answer  # the env records the fallback and why

    async def _ask(
        self, messages: list[dict[str, str]], kind: str, info: dict[str, Any], attempt: str
    ) -> tuple[dict[str, Any] | str | None, str | None]:
        """(valid action, None), or (raw answer or None, why it cannot be used)."""
        self._calls += 1
        record: dict[str, Any] = {
            "type": "llm_call",
            "model": self.model,
            "endpoint": self.base_url,
            "attempt": attempt,
            "action_kind": kind,
            "messages": messages,
        }
        content, meta = await self._complete(messages, kind)
        record.update(meta)
        if content is None:
            record["error"] = meta.get("failure", "no answer")
            self._records.append(record)
            return None, record["error"]
        action, error = validate(content, kind, info)
        record["raw"] = content
        record["parsed"] = action
        record["error"] = error
        self._records.append(record)
        return (action, None) if error is None else (content, error)

    async def _complete(self, messages: list[dict[str, str]], kind: str) -> tuple[str | None, dict[str, Any]]:
        """The model's reply text with retries; meta holds usage, latency, retries, errors, cache use."""
        fmt = self._format()
        request = {
            "endpoint": self.base_url,
            "model": self.model,
            "messages": messages,
            "temperature": self.temperature,
            "max_tokens": self.max_tokens,
            "response_format": fmt,
            "extra_body": self.extra_body,
        }
        if self.temperature > 0:
            request["sample"] = [self.seed, self._calls]
        key = ResponseCache.key(request) if self.cache is not None else ""
        if self.cache is not None:
            hit = self.cache.get(key)
            if hit is not None:
                return hit["content"], {
                    "cached": True,
                    "usage": hit.get("usage"),
                    "latency_s": 0.0,
                    "retries": 0,
                    "response_format": fmt,
                }
        errors: list[str] = []
        started = time.monotonic()
        retries = 0
        while True:
            call_started = time.monotonic()
            try:
                # The SDK's low-level post: the same client, retries off, the same error classes as
                # chat.completions.create, but no per-call re-validation of the whole prompt and no
                # typed response models: a few ms of CPU per call that, on one event loop, delay
                # every other call in flight (benchmarks/llm_concurrency.py).
                response = await self.client.post(
                    "/chat/completions", body=self._arguments(messages, kind, fmt), cast_to=dict
                )
            except openai.BadRequestError as exc:
                if fmt != "none" and "response_format" in str(exc):
                    fmt = _STEP_DOWN[fmt]  # the server cannot do this format: step down and try again
                    _REFUSED_FORMATS[(self.base_url, self.model)] = fmt
                    errors.append(self._scrub(f"response_format refused; using {fmt}"))
                    continue
                errors.append(self._scrub(f"BadRequestError: {exc}"))
                return None, self._meta(fmt, started, retries, errors, failure="the server rejected the request")
            except (
                openai.APITimeoutError,
                openai.APIConnectionError,
                openai.RateLimitError,
                openai.InternalServerError,
            ) as exc:
                errors.append(self._scrub(f"{type(exc).__name__}: {exc}"))
                delay = self._delay(retries, exc)
                if retries >= self.max_retries or time.monotonic() - started + delay > self.max_wait:
                    return None, self._meta(fmt, started, retries, errors, failure="retries exhausted")
                retries += 1
                await asyncio.sleep(delay)
                continue
            except openai.APIStatusError as exc:
                errors.append(self._scrub(f"{type(exc).__name__}: {exc}"))
                return None, self._meta(fmt, started, retries, errors, failure=f"HTTP {exc.status_code}")
            break
        choices = response.get("choices") if isinstance(response, dict) else None
        message = (choices[0] or {}).get("message") or {} if choices else {}
        content = message.get("content")
        usage = response.get("usage") if isinstance(response, dict) else None
        meta = self._meta(fmt, started, retries, errors)
        meta["usage"] = usage
        meta["call_latency_s"] = round(time.monotonic() - call_started, 4)
        if not isinstance(content, str):
            refusal = message.get("refusal")
            meta["refusal"] = refusal
            return (f"(refused: {refusal})" if refusal else ""), meta
        if self.cache is not None:
            self.cache.put(key, {"content": content, "usage": usage})
        return content, meta

    def _format(self) -> str:
        """The response format to ask for: the configured one, or for "auto" the best not yet refused."""
        if self.response_format != "auto":
            return self.response_format
        return _REFUSED_FORMATS.get((self.base_url, self.model), "json_schema")

    def _arguments(self, messages: list[dict[str, str]], kind: str, fmt: str) -> dict[str, Any]:
        args: dict[str, Any] = {
            "model": self.model,
            "messages": messages,
            "temperature": self.temperature,
            "max_tokens": self.max_tokens,
        }
        if self.seed is not None:
            args["seed"] = self.seed
        if fmt == "json_object":
            args["response_format"] = {"type": "json_object"}
        elif fmt == "json_schema":
            args["response_format"] = {"type": "json_schema", "json_schema": {"name": kind, "schema": _schema(kind)}}
        if self.extra_body:
            args.update(self.extra_body)  # the raw body: server-specific fields go in as they are
        return args

    def _delay(self, retries: int, exc: Exception) -> float:
        """Exponential backoff with full jitter; a server's Retry-After wins when it asks for longer."""
        delay = min(self.max_backoff, self.backoff * 2**retries) * (0.5 + self._rng.random() / 2)
        response = getattr(exc, "response", None)
        header = response.headers.get("retry-after") if response is not None else None
        if header:
            try:
                delay = max(delay, min(float(header), self.max_backoff))
            except ValueError:
                pass
        return delay

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

    def _scrub(self, text: str) -> str:
        """Errors may echo request details; the key must never reach a log."""
        if self._api_key and self._api_key not in ("not-needed",) and len(self._api_key) >= 4:
            text = text.replace(self._api_key, "***")
        return text[:500]


@cache
def _ssl_context() -> ssl.SSLContext:
    """One TLS context for every agent: building one loads the CA bundle (tens of ms per agent)."""
    return ssl.create_default_context()


@cache
def _schema(kind: str) -> dict[str, Any]:
    """The JSON schema of an action kind (pydantic builds it in milliseconds: once is enough)."""
    return ACTION_MODELS[ActionKind(kind)].model_json_schema()


def _read_key(env_name: str, key_file: str | None) -> str:
    if key_file:
        try:
            return Path(key_file).expanduser().read_text(encoding="utf-8").strip()
        except OSError as exc:
            raise ValueError(f"cannot read the API key file {key_file}: {exc.strerror}") from None
    return os.environ.get(env_name) or "not-needed"  # local servers accept any key


def build_messages(observation_text: str, merge_system: bool = False) -> list[dict[str, str]]:
    """System: rules and role card (the observation's head). User: everything else, ending in the task.

    ``merge_system`` puts both in one user message, for chat templates without a system role.
    """
    head, sep, rest = observation_text.partition("\n\nPLAYERS:")
    system = f"{SYSTEM_RULES}\n\n{head}" if sep else SYSTEM_RULES
    user = f"PLAYERS:{rest}" if sep else observation_text
    if merge_system:
        return [{"role": "user", "content": f"{system}\n\n{user}"}]
    return [{"role": "system", "content": system}, {"role": "user", "content": user}]


def validate(content: str, kind: str, info: dict[str, Any]) -> tuple[dict[str, Any] | None, str | None]:
    """The answer as an action dict if it is valid for this turn, else (None, the reason)."""
    obj, error = as_object(content, [])
    if obj is None:
        return None, error
    model = ACTION_MODELS[ActionKind(kind)]
    try:
        model.model_validate(obj)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(x) for x in first["loc"]) or "answer"
        return None, f"{where}: {first['msg']}"
    key = _TARGET_KEYS.get(kind)
    if key is not None:
        value = obj.get(key)
        legal = {n.lower() for n in info.get("legal_targets", [])}
        if value is not None and str(value).strip().lower() not in legal and not (key == "target" and value == "me"):
            allowed = ", ".join(info.get("legal_targets", []))
            return None, f"{key}: {value!r} is not allowed; choose one of {allowed}"
        if value is None and key == "target":
            return None, "target: choose a player"
    if kind == "bid" and not 0 <= obj["bid"] <= int(info.get("max_bid", 10)):
        return None, f"bid: must be between 0 and {info.get('max_bid', 10)}"
    return obj, None
