"""Preflight: one cheap probe per distinct (endpoint, model) before the first game.

    results = await preflight(lineup)          # [ProbeResult], one per (endpoint, model)
    failed = [r for r in results if not r.ok]  # the CLI exits 2 and prints r.message()

A probe asks for a tiny JSON answer (``{"bid": 3}``) in the seat's response format, stepping down as
the run would, so it finds, within seconds: a server that is unreachable, a key that is refused
(401/403), a model the server does not know (404), a response that is not a chat completion, and an
answer with nothing in it (empty choices, null content: ``endpoint.useless_answer``). Whatever goes
wrong, the failure names the seats and the endpoint; a usage the server reports unreadably (``usage.
prompt_tokens: "lots"``) is ignored, and said.
With ``system_prompt = "auto"`` it also finds chat templates that drop system messages: it sends the
same tiny prompt with and without a system message, and when the server's prompt-token count does
not grow by the system message's length (or the server refuses a system role), the seat's rules go
into the user message instead. What it learns (working response format, system-prompt mode,
tokens per character) seeds the run's ``EndpointPool``.
"""

from __future__ import annotations

import random
import re
import time
from dataclasses import asdict, dataclass, field
from typing import Any
from urllib.parse import urlsplit

from werewolf_deception.agents.llm import (
    EndpointDownError,
    EndpointPool,
    LLMOptions,
    redact_url,
    turn_schema,
    validate_options,
)
from werewolf_deception.agents.play.lineup import AgentSpec

_PROBE = 'Reply with exactly this JSON object and nothing else: {"bid": 3}'
# About 60 words: a dropped system message shows as a prompt-token count that does not grow by ~60.
_FILLER = ("These are standing instructions for a word game between several players. " * 6).strip()
_SYSTEM_REFUSED = re.compile(r"system", re.I)


@dataclass
class ProbeResult:
    endpoint: str  # redacted
    model: str
    sections: list[str]  # where the lineup uses it: "default", "teams.werewolf", ...
    ok: bool
    cause: str | None = None
    response_format: str | None = None
    system_prompt: str | None = None
    system_prompt_evidence: str | None = None
    latency_s: float = 0.0
    answer: str | None = None
    note: str | None = None  # something odd the server did that the run can live with (unreadable usage)
    learned: dict[str, Any] = field(default_factory=dict)

    def message(self) -> str:
        seats = ", ".join(self.sections)
        if not self.ok:
            return f"{seats}: {self.endpoint} model {self.model!r}: {self.cause}"
        return (
            f"{self.endpoint} model {self.model!r} ({seats}): answered in {self.latency_s:.1f}s; "
            f"response format {self.response_format}; system prompt {self.system_prompt}"
            f"{f' ({self.system_prompt_evidence})' if self.system_prompt_evidence else ''}"
            f"{f'; {self.note}' if self.note else ''}"
        )

    def to_json(self) -> dict[str, Any]:
        return {k: v for k, v in asdict(self).items() if k != "learned"}


Sections = list[tuple[str, AgentSpec]]


def distinct_llm_options(sections: Sections) -> dict[tuple[str, str], tuple[LLMOptions, list[str]]]:
    """(endpoint, model) -> (the first seat's options, every section that uses the pair).

    ``sections`` name where each spec sits (``Lineup.llm_sections()``: "default", "teams.werewolf";
    a tournament's entrants), so a failure names the seats it concerns.
    """
    found: dict[tuple[str, str], tuple[LLMOptions, list[str]]] = {}
    for section, spec in sections:
        if spec.kind != "llm":
            continue
        options = validate_options({**spec.options, "name": spec.label()}, where=section)
        key = (options.endpoint(), options.model)
        if key in found:
            found[key][1].append(section)
        else:
            found[key] = (options, [section])
    return found


async def probe(options: LLMOptions, sections: list[str], pool: EndpointPool) -> ProbeResult:
    """One (endpoint, model): can it answer, in which format, and does its template keep system messages?"""
    result = ProbeResult(redact_url(options.endpoint()), options.model, sections, ok=False)
    # Few retries and a short budget: a preflight must fail within seconds, not minutes.
    quick = options.model_copy(
        update={"retries": min(options.retries, 1), "max_wait": min(options.max_wait, 20.0), "max_tokens": 32}
    )
    try:
        endpoint = pool.endpoint(options)
    except ValueError as exc:
        result.cause = str(exc)
        return result
    rng = random.Random(0)
    started = time.monotonic()
    try:
        ask = [{"role": "user", "content": _PROBE}]
        reply = await endpoint.complete(quick, ask, turn_schema("bid", {}), "bid", rng)
    except EndpointDownError as exc:
        result.cause = _explain(exc.reason, options)
        return result
    except Exception as exc:  # whatever the server sent: a failure that names the seats and the URL, no traceback
        result.cause = f"the probe failed: {endpoint.scrub(f'{type(exc).__name__}: {exc}')[:200]}"
        return result
    result.latency_s = round(time.monotonic() - started, 3)
    if reply.meta.get("useless"):
        result.cause = f"the server's answer holds nothing usable ({reply.meta['useless']}): it cannot play"
        return result
    if reply.content is None:
        errors = reply.meta.get("transport_errors") or []
        last = errors[-1] if errors else ""
        result.cause = _explain(f"{reply.meta.get('failure')}: {last}", options)
        return result
    result.ok = True
    result.answer = reply.content[:200]
    result.response_format = reply.meta.get("response_format")
    if options.response_format == "auto" and result.response_format:
        result.learned["response_format"] = result.response_format
    unreadable = [e for e in reply.meta.get("transport_errors") or [] if e.startswith("unreadable usage")]
    if unreadable:
        result.note = unreadable[0]
    if options.system_prompt == "auto":
        mode, evidence = await _system_mode(endpoint, quick, rng)
        result.system_prompt, result.system_prompt_evidence = mode, evidence
        result.learned["system_prompt"] = mode
    else:
        result.system_prompt = options.system_prompt
    if options.model in endpoint.chars_per_token:
        result.learned["chars_per_token"] = endpoint.chars_per_token[options.model]
    return result


async def _system_mode(endpoint: Any, options: LLMOptions, rng: random.Random) -> tuple[str, str]:
    """("system" or "user", why): compare prompt tokens with and without a system message."""
    tiny = options.model_copy(update={"max_tokens": 1})
    user = {"role": "user", "content": "Say OK."}
    try:
        with_system = await endpoint.complete(
            tiny, [{"role": "system", "content": _FILLER}, user], None, "p", rng, fmt="none", allow_longer=False
        )
        without = await endpoint.complete(tiny, [user], None, "p", rng, fmt="none", allow_longer=False)
    except EndpointDownError as exc:
        return "system", f"not detected: {exc.reason[:120]}"
    except Exception as exc:  # what a server sends cannot end the preflight with a traceback
        return "system", f"not detected: {type(exc).__name__}: {str(exc)[:100]}"
    if with_system.content is None:
        errors = " ".join(with_system.meta.get("transport_errors") or [])
        if _SYSTEM_REFUSED.search(errors):
            return "user", "the server refused a system message"
        return "system", "not detected: the probe got no answer"
    grown = _prompt_tokens(with_system) - _prompt_tokens(without)
    if _prompt_tokens(with_system) <= 0 or _prompt_tokens(without) <= 0:
        return "system", "not detected: the server reports no token usage"
    expected = len(_FILLER.split())
    if grown < expected // 3:
        return "user", f"the chat template drops system messages ({grown} more prompt tokens for ~{expected} words)"
    return "system", f"kept ({grown} more prompt tokens for ~{expected} words)"


def _prompt_tokens(reply: Any) -> int:
    usage = reply.meta.get("usage") or {}
    value = usage.get("prompt_tokens")
    return value if isinstance(value, int) else -1


def _explain(reason: str, options: LLMOptions) -> str:
    """The probe's failure in words a user can act on."""
    text = reason or "no answer"
    lowered = text.lower()
    key_source = f"the key file {options.api_key_file}" if options.api_key_file else f"${options.api_key_env}"
    if "401" in text or "authentication" in lowered:
        userinfo = "@" in urlsplit(options.endpoint()).netloc
        why = " (the user:password in base_url is sent only when no API key is set)" if userinfo else ""
        return f"the server refused the API key (HTTP 401): check {key_source}{why}"
    if "403" in text:
        return f"access denied (HTTP 403) for this key or model: check {key_source}"
    if "404" in text:
        return (
            f"the server does not know model {options.model!r} (HTTP 404), or "
            f"{redact_url(options.endpoint())} is not an OpenAI-compatible /v1 URL"
        )
    if "connect timeout" in lowered:
        return (
            f"unreachable: no connection to {redact_url(options.endpoint())} within {options.connect_timeout:g} s "
            f"(--connect-timeout) ({text[:160]})"
        )
    if "connect" in lowered or "refused" in lowered or "unreachable" in lowered:
        return f"unreachable: nothing answered at {redact_url(options.endpoint())} ({text[:160]})"
    if "deadline" in lowered or "timeout" in lowered or "timed out" in lowered:
        return f"connected, but no complete answer within {options.timeout:g} s (--timeout) ({text[:160]})"
    if "not a chat completion" in lowered or "unparseable" in lowered:
        return f"the response cannot be parsed as a chat completion ({text[:160]})"
    return text[:300]


async def preflight(sections: Sections, pool: EndpointPool | None = None) -> list[ProbeResult]:
    """Probe every distinct (endpoint, model), one after another (they are cheap)."""
    own = pool is None
    pool = pool or EndpointPool(concurrency=1, breaker=1)
    try:
        return [await probe(options, where, pool) for options, where in distinct_llm_options(sections).values()]
    finally:
        if own:
            await pool.aclose()


def seed_pool(pool: EndpointPool, sections: Sections, results: list[ProbeResult]) -> None:
    """Give the run's pool what the preflight learned, so the first game's calls need no step-down."""
    learned = {(r.endpoint, r.model): r.learned for r in results if r.ok}
    for options, _where in distinct_llm_options(sections).values():
        found = learned.get((redact_url(options.endpoint()), options.model))
        if not found:
            continue
        endpoint = pool.endpoint(options)
        if "response_format" in found:
            endpoint.formats[options.model] = found["response_format"]
        if "system_prompt" in found:
            endpoint.system_modes[options.model] = found["system_prompt"]
        if "chars_per_token" in found:
            endpoint.chars_per_token[options.model] = found["chars_per_token"]
