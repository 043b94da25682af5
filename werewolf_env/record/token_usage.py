"""Token accounting of LLM calls: what each call cost in prompt, cached and completion tokens, and what a
price table makes of it. Pure (no I/O); the runner, the game records and the reports share it.

    tally = TokenTally()
    for record in llm_call_records:          # a log's ``llm_call`` records (``werewolf_deception.agents.llm.agent``)
        tally.add_call(record)
    tally.to_json()                          # totals, ``by_kind`` (statement, vote, ...), ``by_model``
    TokenTally.merged([game_a, game_b])      # a run's totals from its games' ``to_json``
    cost_usd(entry, Price(prompt=0.15, cached_prompt=0.075, completion=0.6))

Where the numbers come from, per call, said per model (``counter_label``):

* **server usage**: the reply's ``usage`` (``prompt_tokens``, ``completion_tokens``); cached prompt tokens
  from ``usage.prompt_tokens_details.cached_tokens`` (OpenAI, vLLM, llama.cpp's server) or
  ``usage.prompt_cache_hit_tokens`` (DeepSeek). A server that reports no cached field counts 0 cached,
  and ``cached_reported_calls`` says so.
* **an estimate** when a model answered without usage: tiktoken (the optional ``tokens`` extra; the
  model's encoding when tiktoken knows the model, else cl100k_base; its files must be cached or
  downloadable) or, without it, characters / 4. Either adds 3 tokens per message and 3 for the
  reply's priming, as OpenAI's chat format does. An estimate never counts cached tokens.
* a call the server never answered is counted (``unanswered_calls``) with no tokens: nothing measured.

The encoding files: tiktoken downloads them, which fails offline; ``bpe-openai`` (in the ``tokens`` extra)
ships OpenAI's cl100k_base and o200k_base files byte for byte (their SHA-256 is OpenAI's), and tiktoken
encodes with them (``load_encoding``). Without either, characters / 4, said as an estimate wherever shown.

What each provider's prompt cache would serve (``CacheModel``, from the prompts themselves, whatever the
server reported), per rule in ``CACHE_RULES``; a seat's prompt is compared with every seat's previous one:

* ``any_prefix``: the longest prefix shared with an earlier prompt, token for token (vLLM, llama.cpp, SGLang);
* ``openai``: that prefix when at least 1,024 tokens, in 128-token increments (shorter prompts: nothing);
* ``anthropic``: explicit breakpoints (``prompt_segments``): after the rules (the same for every seat), after
  the system message (the seat's role card), after the history (append-only); a breakpoint's prefix is read
  when an earlier prompt wrote the same one and it is at least 1,024 tokens long.

Cost = (uncached prompt x prompt + cached x cached_prompt + completion x completion) / 1e6, prices in USD
per million tokens; without ``cached_prompt`` cached tokens are charged at the prompt price (never an
invented discount). A model with no price has no cost (None), never a made-up one.
"""

from __future__ import annotations

import functools
import gzip
import hashlib
from collections.abc import Callable, Iterable
from importlib import resources
from typing import Any, NamedTuple

from pydantic import BaseModel, ConfigDict, Field

COUNTS = ("calls", "prompt_tokens", "cached_tokens", "completion_tokens")
# Per model, beside COUNTS: how each call was counted.
# ``replayed_calls``: answers replayed from the local response cache (a resumed run): no request was sent, so they
# count no call, no token and no cost.
SOURCES = ("usage_calls", "estimated_calls", "unanswered_calls", "cached_reported_calls", "replayed_calls")
SERVER = "server usage"
CHARS_PER_TOKEN = 4  # the common rule of thumb for English text; labelled as an estimate wherever it is used
MESSAGE_OVERHEAD = 3  # tokens the chat format adds per message, and once for the reply (OpenAI's count)


class Price(BaseModel):
    """A model's prices in USD per million tokens (a lineup's or a tournament's ``[prices.NAME]``)."""

    model_config = ConfigDict(extra="forbid")
    prompt: float = Field(ge=0)  # required, as completion: a missing field would price those tokens at $0
    completion: float = Field(ge=0)
    cached_prompt: float | None = Field(None, ge=0)  # None: cached prompt tokens at the prompt price


class Usage(NamedTuple):
    prompt: int
    cached: int
    completion: int
    cached_reported: bool  # the server said how many prompt tokens were cached (0 included)


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else None


def read_usage(usage: Any) -> Usage | None:
    """A reply's ``usage`` as counts, or None when it holds no token count."""
    if not isinstance(usage, dict):
        return None
    prompt, completion = _int(usage.get("prompt_tokens")), _int(usage.get("completion_tokens"))
    if prompt is None and completion is None:
        return None
    details = usage.get("prompt_tokens_details")
    cached = _int(details.get("cached_tokens")) if isinstance(details, dict) else None
    if cached is None:
        cached = _int(usage.get("prompt_cache_hit_tokens"))
    prompt = prompt or 0
    return Usage(prompt, min(cached or 0, prompt), completion or 0, cached is not None)


def _encoding_name(model: str) -> str | None:
    """The tiktoken encoding of ``model`` (cl100k_base for a model tiktoken does not know), None without tiktoken.
    Imported here, at first need: tiktoken is an optional extra."""
    try:
        from tiktoken.model import encoding_name_for_model
    except ImportError:
        return None
    try:
        return encoding_name_for_model(model)
    except KeyError:
        return "cl100k_base"


# OpenAI's encoding files as tiktoken checks them after a download; the copies ``bpe-openai`` ships must match.
OPENAI_FILE_SHA256 = {
    "cl100k_base": "223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7",
    "o200k_base": "446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d",
}


def bundled_encoding_file(name: str) -> bytes | None:
    """OpenAI's encoding file ``name`` as ``bpe-openai`` ships it, None when that package is absent or its copy
    is not OpenAI's file (checked by hash: an encoding never counts with a changed vocabulary)."""
    if name not in OPENAI_FILE_SHA256:
        return None
    try:
        data = gzip.decompress(resources.files("bpe_openai.data").joinpath(f"{name}.tiktoken.gz").read_bytes())
    except (ImportError, OSError):
        return None
    return data if hashlib.sha256(data).hexdigest() == OPENAI_FILE_SHA256[name] else None


@functools.cache
def load_encoding(name: str) -> Any:
    """tiktoken's encoding ``name`` from the file a package ships (offline), else as tiktoken loads it (cached
    or downloaded); None when neither works. A failure is remembered, so an offline run pays for it once."""
    try:
        import tiktoken
    except ImportError:
        return None
    if bundled_encoding_file(name) is not None:
        from bpe_openai.registry import ENCODING_CONSTRUCTORS  # parses the same file, checked above

        return tiktoken.Encoding(**ENCODING_CONSTRUCTORS[name]())
    try:
        return tiktoken.get_encoding(name)
    except Exception:  # a network or file error, whatever tiktoken raises for it: the rough estimate instead
        return None


def _encoding(model: str) -> Any:
    name = _encoding_name(model)
    return None if name is None else load_encoding(name)


def tiktoken_status(model: str = "gpt-4") -> str:
    """Why an estimate is (not) tiktoken's: ``"ok"``, ``"not installed"`` or ``"encoding unavailable"``."""
    if _encoding_name(model) is None:
        return "not installed"
    return "ok" if _encoding(model) is not None else "encoding unavailable"


def estimator_name(model: str) -> str:
    """What ``estimate_tokens`` counts ``model``'s text with: ``tiktoken <encoding>`` or ``characters/4``."""
    encoding = _encoding(model)
    return f"tiktoken {encoding.name}" if encoding is not None else f"characters/{CHARS_PER_TOKEN}"


def estimate_tokens(model: str, text: str) -> int:
    encoding = _encoding(model)
    if encoding is not None:
        return len(encoding.encode(text, disallowed_special=()))
    return -(-len(text) // CHARS_PER_TOKEN)


def estimate_call(model: str, messages: Any, answer: str) -> tuple[int, int]:
    """(prompt, completion) tokens of a call the server gave no usage for."""
    texts = [str(m.get("content") or "") for m in messages if isinstance(m, dict)] if isinstance(messages, list) else []
    prompt = sum(estimate_tokens(model, t) + MESSAGE_OVERHEAD for t in texts) + MESSAGE_OVERHEAD
    return prompt, estimate_tokens(model, answer)


# The provider rules of ``CacheModel`` (see the module docstring), with what each assumes.
CACHE_RULES = {
    "any_prefix": "any shared prefix (vLLM, llama.cpp, SGLang)",
    "openai": "OpenAI (prompts of at least 1,024 tokens, in 128-token increments)",
    "anthropic": "Anthropic (breakpoints after the rules, the system message and the history; 1,024 tokens at least)",
}
OPENAI_MIN_TOKENS, OPENAI_INCREMENT = 1024, 128
ANTHROPIC_MIN_TOKENS = 1024  # Claude Sonnet and Opus (Haiku: 2,048); a shorter prefix is never cached
Encode = Callable[[str], list[Any]]  # text -> tokens
# The observation's section headers the breakpoints follow: ``werewolf_env.observe.Section``'s RULES and HISTORY
# (the observe package imports this one, so not from there; tests/test_prompt_cache.py checks they agree).
BREAKPOINT_SECTIONS = ("RULES:", "HISTORY:")


def prompt_segments(messages: Any) -> list[str]:
    """The prompt's text cut at its cache breakpoints (``anthropic``): after the rules section, after the system
    message, after the history section; each message opens with its role. A section a prompt lacks leaves no
    breakpoint."""
    segments: list[str] = []
    for message in messages if isinstance(messages, list) else []:
        if not isinstance(message, dict):
            continue
        content = str(message.get("content") or "")
        text = f"<{message.get('role')}>"
        for header in BREAKPOINT_SECTIONS:
            start = 0 if content.startswith(header) else content.find("\n\n" + header)
            end = content.find("\n\n", start + 2) if start >= 0 else -1
            if end >= 0:
                segments.append(text + content[:end])
                text, content = "", content[end:]
        segments.append(text + content)
    return segments


def shared_prefix(a: list[Any], b: list[Any]) -> int:
    n = 0
    for x, y in zip(a, b, strict=False):
        if x != y:
            break
        n += 1
    return n


class CacheModel:
    """The prompt tokens each provider rule (``CACHE_RULES``) would read from its cache over one game's prompts,
    in the order they were sent (see the module docstring); ``totals`` has them with ``prompt_tokens``."""

    def __init__(self, encode: Encode) -> None:
        self.encode = encode
        self.totals = _blank(("prompt_tokens", *CACHE_RULES))
        self._last: dict[Any, list[Any]] = {}  # each seat's previous prompt, as tokens
        self._written: set[tuple[Any, ...]] = set()  # prefixes cached at a breakpoint (anthropic)

    def add(self, seat: Any, segments: list[str]) -> dict[str, int]:
        tokens: list[Any] = []
        breakpoints = []
        for text in segments:
            tokens.extend(self.encode(text))
            breakpoints.append(len(tokens))
        shared = max((shared_prefix(p, tokens) for p in self._last.values()), default=0)
        prefixes = [tuple(tokens[:b]) for b in breakpoints[:-1]]
        counts = {
            "prompt_tokens": len(tokens),
            "any_prefix": shared,
            "openai": shared // OPENAI_INCREMENT * OPENAI_INCREMENT if shared >= OPENAI_MIN_TOKENS else 0,
            "anthropic": max(
                (len(p) for p in prefixes if len(p) >= ANTHROPIC_MIN_TOKENS and p in self._written), default=0
            ),
        }
        self._written.update(prefixes)
        self._last[seat] = tokens
        for key, value in counts.items():
            self.totals[key] += value
        return counts


def character_chunks(text: str) -> list[str]:
    """Text as chunks of ``CHARS_PER_TOKEN`` characters: the rough count, as tokens a prefix can be compared in."""
    return [text[i : i + CHARS_PER_TOKEN] for i in range(0, len(text), CHARS_PER_TOKEN)]


def token_counter(model: str = "gpt-4") -> tuple[str, Encode]:
    """(name, encode) of what counts ``model``'s prompt tokens here: ``estimator_name`` and its encoding."""
    encoding = _encoding(model)
    if encoding is None:
        return estimator_name(model), character_chunks
    return estimator_name(model), functools.partial(encoding.encode, disallowed_special=())


def cache_shares(totals: dict[str, int]) -> dict[str, float | None]:
    """Each rule's cached tokens as a share of the prompt tokens (``CacheModel.totals`` or a sum of them)."""
    prompt = totals.get("prompt_tokens") or 0
    return {rule: round(totals.get(rule, 0) / prompt, 3) if prompt else None for rule in CACHE_RULES}


def _blank(fields: Iterable[str]) -> dict[str, int]:
    return dict.fromkeys(fields, 0)


class TokenTally:
    """Calls and tokens, in all and by call kind and by model (see the module docstring)."""

    def __init__(self) -> None:
        self.totals = _blank(COUNTS)
        self.by_kind: dict[str, dict[str, int]] = {}
        self.by_model: dict[str, dict[str, Any]] = {}
        # What each provider's prompt cache would serve (``CacheModel``), per model, from the prompts themselves;
        # a merged tally keeps only the sums (``cache_json``).
        self._caches: dict[str, CacheModel] = {}
        self.cache_json: dict[str, dict[str, Any]] = {}

    def add_call(self, record: dict[str, Any], seat: Any = None) -> tuple[int, int, int]:
        """One ``llm_call`` record (of ``seat``: with it, its prompt also feeds the cache shares); returns its
        (prompt, cached, completion) tokens as counted."""
        model = str(record.get("model") or "?")
        entry = self._model(model)
        if record.get("cached"):  # replayed from the response cache: the usage is the original call's
            entry["replayed_calls"] += 1
            return (0, 0, 0)
        if seat is not None and record.get("messages"):
            if model not in self._caches:
                self._caches[model] = CacheModel(token_counter(model)[1])
            self._caches[model].add(seat, prompt_segments(record.get("messages")))
        usage = read_usage(record.get("usage"))
        answer = record.get("raw")
        if usage is not None:
            counts = (usage.prompt, usage.cached, usage.completion)
            entry["usage_calls"] += 1
            entry["cached_reported_calls"] += usage.cached_reported
        elif isinstance(answer, str):
            prompt, completion = estimate_call(model, record.get("messages"), answer)
            length = record.get(
                "raw_chars"
            )  # the answer was stored cut (``werewolf_deception.agents.llm.agent``): scaled to its length
            if type(length) is int and len(answer) < length:
                completion = completion * length // max(1, len(answer))
            counts = (prompt, 0, completion)
            entry["estimated_calls"] += 1
            name = estimator_name(model)
            entry["estimators"][name] = entry["estimators"].get(name, 0) + 1
        else:
            counts = (0, 0, 0)
            entry["unanswered_calls"] += 1
        kind = str(record.get("action_kind") or "other")
        for target in (self.totals, self.by_kind.setdefault(kind, _blank(COUNTS)), entry):
            target["calls"] += 1
            for key, value in zip(COUNTS[1:], counts, strict=True):
                target[key] += value
        return counts

    def _model(self, model: str) -> dict[str, Any]:
        if model not in self.by_model:
            self.by_model[model] = {**_blank(COUNTS), **_blank(SOURCES), "estimators": {}}
        return self.by_model[model]

    def add(self, data: dict[str, Any]) -> None:
        """Another tally's ``to_json`` (a game's), added in."""
        for key in COUNTS:
            self.totals[key] += int(data.get(key) or 0)
        for kind, counts in (data.get("by_kind") or {}).items():
            mine = self.by_kind.setdefault(kind, _blank(COUNTS))
            for key in COUNTS:
                mine[key] += int(counts.get(key) or 0)
        for model, counts in (data.get("by_model") or {}).items():
            entry = self._model(model)
            for key in (*COUNTS, *SOURCES):
                entry[key] += int(counts.get(key) or 0)
            for name, n in (counts.get("estimators") or {}).items():
                entry["estimators"][name] = entry["estimators"].get(name, 0) + int(n)
            if isinstance(counts.get("cache"), dict):
                mine = self.cache_json.setdefault(model, {"counter": counts["cache"].get("counter")})
                for key in ("prompt_tokens", *CACHE_RULES):
                    mine[key] = mine.get(key, 0) + int(counts["cache"].get(key) or 0)

    @classmethod
    def merged(cls, tallies: Iterable[dict[str, Any]]) -> TokenTally:
        tally = cls()
        for data in tallies:
            if data:
                tally.add(data)
        return tally

    def to_json(self) -> dict[str, Any]:
        """Totals, ``by_kind`` and ``by_model`` (with ``counter``: how its tokens were counted); {} without calls."""
        if not self.totals["calls"] and not any(e["replayed_calls"] for e in self.by_model.values()):
            return {}
        by_model = {
            m: {**e, "estimators": dict(e["estimators"]), "counter": counter_label(e), **self._cache_of(m)}
            for m, e in sorted(self.by_model.items())
        }
        return {**self.totals, "by_kind": {k: dict(v) for k, v in sorted(self.by_kind.items())}, "by_model": by_model}

    def _cache_of(self, model: str) -> dict[str, Any]:
        """``{"cache": {counter, prompt_tokens, one count per CACHE_RULES}}`` for ``model``, {} when no seat's
        prompt was seen (a tally fed without seats, or from games that had none)."""
        if model in self._caches:
            return {"cache": {"counter": token_counter(model)[0], **self._caches[model].totals}}
        return {"cache": dict(self.cache_json[model])} if model in self.cache_json else {}


def counter_label(entry: dict[str, Any]) -> str:
    """How a model's tokens were counted: ``server usage``, ``tiktoken cl100k_base estimate``, ``characters/4
    estimate``, or server usage with so many calls estimated."""
    estimated = entry.get("estimated_calls", 0)
    names = ", ".join(sorted(entry.get("estimators") or {})) or f"characters/{CHARS_PER_TOKEN}"
    if not estimated:
        return SERVER if entry.get("usage_calls") else "none (no call answered)"
    if not entry.get("usage_calls"):
        return f"{names} estimate"
    return f"{SERVER}; {estimated} calls without usage: {names} estimate"


def cost_usd(entry: dict[str, Any], price: Price) -> float:
    """What ``entry``'s tokens cost at ``price`` (see the module docstring)."""
    prompt, cached = int(entry.get("prompt_tokens") or 0), int(entry.get("cached_tokens") or 0)
    cached_price = price.prompt if price.cached_prompt is None else price.cached_prompt
    return (
        (prompt - cached) * price.prompt
        + cached * cached_price
        + int(entry.get("completion_tokens") or 0) * price.completion
    ) / 1e6
