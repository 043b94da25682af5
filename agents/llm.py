"""``LLMAgent``: a policy that asks a chat model, by default through the ``openai`` SDK (any OpenAI-compatible server).

    agent = LLMAgent(model="gpt-4o-mini", base_url="https://api.openai.com/v1", temperature=0.2)
    agent = LLMAgent(options=LLMOptions(...), pool=pool, seed=seat_seed)   # as the runner makes them
    agent = LLMAgent(transport=complete, label="llm:mine")   # any async complete(messages, schema) -> text

What carries a request is a transport (``agents/transport.py``): the OpenAI-compatible one by default,
or anything with an async ``complete(messages, schema)``; the prompt, validation, repair and records
below are the same whatever carries them.

Options are one validated ``LLMOptions`` (``agents/llm_options.py``); the client, its connection
pool, retries, response-format step-down and circuit breaker belong to the run's ``EndpointPool``
(``agents/endpoints.py``), shared by every seat and game; the prompt is ``agents/prompts.py``.

One turn: the prompt (cut to the context budget), then the answer, validated with the action's
pydantic model, the legal targets and the placeholder check. An invalid answer gets one repair
prompt quoting the error; if that fails too, the answer goes to the env, whose recorded fallback
plays instead. Every call becomes a log record (``drain_records``: messages, raw output, parsed
action, usage, latency, retries, finish reason, request id, budget), and every turn one
``llm_outcome`` record: ``answered`` (the first answer was valid), ``repaired``, ``invalid`` (the
model answered, nothing valid) or ``unanswered`` (the server never answered). The API key never
reaches a record or an error text.

With ``bid_in_analysis`` (on by default) a peer analysis also asks for the seat's next bid: bids are
asked right after the analyses, all at once, so the next bid turn usually shows nothing the analysis
did not. That bid is used once, by the next bid turn, if it was valid and the seat's history gained
only its own lines since (else a bid call is made); its outcome record says ``from_analysis`` and
takes the analysis's outcome. The analysis's outcome record says ``next_bid`` (and why it is None).
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from werewolf_env.action_specs import ACTION_SPECS
from werewolf_env.actions import ACTION_MODELS, as_object, echoes_template
from werewolf_env.json_input import short_repr
from werewolf_env.names import name_key
from werewolf_env.state import ActionKind

from .base import Policy
from .endpoints import Endpoint, EndpointDownError, EndpointPool
from .llm_options import LLMOptions, validate_options
from .prompts import answer_line, build_messages, fit, history_of, max_bid_of, with_answer_line
from .schemas import turn_schema
from .transport import OpenAITransport, Transport, as_transport

# The field naming a player per action kind, and whether null is an answer (abstain, keep the potion).
_TARGET_KEYS = {k.value: (s.target_key, s.null_ok) for k, s in ACTION_SPECS.items() if s.target_key is not None}


class LLMAgent(Policy):
    name = "llm"

    def __init__(
        self,
        model: str | None = None,
        *,
        options: LLMOptions | None = None,
        pool: EndpointPool | None = None,
        seed: int | None = None,
        cache_dir: str | Path | None = None,
        label: str | None = None,
        transport: Any = None,
        **option_values: Any,
    ) -> None:
        given = as_transport(transport) if transport is not None else None
        if options is None:
            if model is None and given is None:
                raise ValueError("LLMAgent needs a model (or options, or a transport)")
            options = validate_options({"model": model or (given and given.label), **option_values})
        elif model is not None or option_values:
            raise ValueError("give LLMAgent either options or option keywords, not both")
        self.options = options
        self.model = options.model
        # The sampling seed: the option's, else this seat's (distinct per seat and game, the same on reruns).
        self.seed = options.seed if options.seed is not None else seed
        self._own_pool = pool is None and transport is None
        self.pool = pool or EndpointPool()
        self.connection: Endpoint | None = None
        if given is None:
            openai_path = OpenAITransport(options, self.pool, self.seed, cache_dir, random.Random(seed))
            self.connection = openai_path.connection
            self.transport: Transport = openai_path
        else:
            self.transport = given
        self.base_url = self.connection.base_url if self.connection is not None else self.transport.shown
        self.endpoint = self.transport.endpoint  # the runner's concurrency cap is per endpoint
        self.name = label or options.label()
        self._records: list[dict[str, Any]] = []
        self._outcome_of_last = ""  # the outcome ``answer`` recorded last
        # The bid asked inside this seat's last peer analysis (``LLMOptions.bid_in_analysis``), with what the
        # seat knew then: (round, history, bid, the analysis's outcome, cached). Used once, by the next bid.
        self._next_bid: tuple[Any, str, Any, str, bool] | None = None
        # Exceptions that end the game rather than fall back: the transport's, and the runner's caller's.
        self.passthrough: tuple[type[BaseException], ...] = tuple(self.transport.passthrough)

    def __repr__(self) -> str:  # never show the key
        return f"LLMAgent(model={self.model!r}, base_url={self.transport.shown!r})"

    def drain_records(self) -> list[dict[str, Any]]:
        records, self._records = self._records, []
        return records

    async def aclose(self) -> None:
        if self._own_pool:
            await self.pool.aclose()
        await self.transport.aclose()

    # ------------------------------------------------------------------ one turn

    async def aact(self, observation: dict[str, Any], info: dict[str, Any]) -> dict[str, Any] | str:
        try:
            return await self._turn(observation, info)
        except EndpointDownError:
            raise  # already redacted; the runner stops the run on it
        except self.passthrough:
            raise  # the caller's own (an evaluation framework's limit or cancellation): never a fallback
        except Exception as exc:  # the runner records the text: it must not carry this endpoint's secrets
            raise RuntimeError(self.transport.scrub(f"{type(exc).__name__}: {exc}")) from None

    async def _turn(self, observation: dict[str, Any], info: dict[str, Any]) -> dict[str, Any] | str:
        kind = info.get("action_kind")
        if kind is None:
            return {}
        if kind == "bid":
            bid = self._bid_from_analysis(observation["text"], info)
            if bid is not None:
                return bid
        ask_bid = kind == "peer_analysis" and self.options.bid_in_analysis
        if ask_bid:  # the schema and the answer format ask for the next bid too
            info = {**info, "next_bid_max": max_bid_of(observation["text"])}
        merge = self.transport.system_mode() == "user"
        answer_format = answer_line(kind, info)
        messages = with_answer_line(build_messages(observation["text"], merge_system=merge), answer_format)
        friction = info.get("friction")  # the detector's note on this statement (friction runs only)
        if friction:
            note = f"{messages[-1]['content']}\n\nDETECTOR NOTE: {friction['text']}"
            messages[-1] = {**messages[-1], "content": note}
        action = await self.answer(messages, kind, info, answer_format)
        if ask_bid:
            action = self._keep_bid(action, observation["text"], info)
        return action

    def _keep_bid(self, action: dict[str, Any] | str, text: str, info: dict[str, Any]) -> dict[str, Any] | str:
        """The analysis without its ``bid``, which is kept for the next bid turn if it is a valid bid. A missing
        or invalid one is not replaced by any default: the bid turn then asks its own call."""
        self._next_bid = None
        outcome = self._outcome_of_last
        if not isinstance(action, dict) or outcome not in ("answered", "repaired"):
            return action  # no valid analysis: nothing of it is used for the bid either
        action = dict(action)
        bid = action.pop("bid", None)
        _, error = validate(json.dumps({"bid": bid}), "bid", {"max_bid": info["next_bid_max"]})
        if isinstance(bid, bool):  # JSON's true is no bid, though Python counts it as 1
            error = "bid: not a whole number"
        record = self._records[-1]  # the analysis's ``llm_outcome``: what became of the bid asked with it
        record["next_bid"] = bid if error is None else None
        if error is not None:
            record["next_bid_error"] = "no bid in the answer" if bid is None else error
            return action
        self._next_bid = (info.get("round"), history_of(text), bid, outcome, bool(record.get("cached")))
        return action

    def _bid_from_analysis(self, text: str, info: dict[str, Any]) -> dict[str, Any] | None:
        """The bid answered in this seat's last peer analysis, if the seat has learnt nothing since but what it
        did itself (lines in the second person, such as its own analysis): bids are asked right after the
        analyses, all at once, so the analysis saw what the bid turn shows. Else None: ask a bid call."""
        pending, self._next_bid = self._next_bid, None
        if pending is None:
            return None
        round_, history, bid, outcome, cached = pending
        now = history_of(text)
        if round_ != info.get("round") or not now.startswith(history):
            return None
        if any(line and not line.startswith("You ") for line in now[len(history):].split("\n")):
            return None  # news (a death, a statement, the night): the bid is asked again
        action, error = validate(json.dumps({"bid": bid}), "bid", info)
        if action is None or error is not None:
            return None
        # The model's answer, given inside the analysis call: counted as that call's outcome was.
        self._records.append({"type": "llm_outcome", "action_kind": "bid", "outcome": outcome, "cached": cached,
                              "from_analysis": True})  # fmt: skip
        return action

    async def answer(
        self, messages: list[dict[str, str]], kind: str, info: dict[str, Any], answer_format: str
    ) -> dict[str, Any] | str:
        """The answer to ready ``messages`` (cut to the context budget, validated as an action of ``kind``,
        repaired once): the action, or what the env falls back on. Records as any turn
        (``drain_records``); the LLM judge (``benchmarks.llm_judge``) asks its own prompt through this."""
        messages, budget = fit(
            messages, self.options.context_budget, self.options.max_tokens,
            self.transport.estimate_tokens,
        )  # fmt: skip
        answer, error, cached = await self._ask(messages, kind, info, "answer", budget)
        if error is None:
            self._outcome(kind, "answered", cached)
            return answer  # type: ignore[return-value]
        if answer is None:  # the server never answered: the env's fallback plays
            self._outcome(kind, "unanswered", cached)
            return {"llm_unavailable": error}
        repair = [
            *messages,
            {"role": "assistant", "content": answer if isinstance(answer, str) else json.dumps(answer)},
            {"role": "user", "content": f"That answer is invalid: {error}. Reply again. {answer_format}"},
        ]  # fmt: skip
        repaired, error, cached_repair = await self._ask(repair, kind, info, "repair", budget)
        if error is None:
            self._outcome(kind, "repaired", cached and cached_repair)
            return repaired  # type: ignore[return-value]
        self._outcome(kind, "invalid" if repaired is not None else "unanswered", cached and cached_repair)
        return repaired if repaired is not None else answer  # the env records the fallback and why

    def _outcome(self, kind: str, outcome: str, cached: bool) -> None:
        self._outcome_of_last = outcome
        self._records.append({"type": "llm_outcome", "action_kind": kind, "outcome": outcome, "cached": cached})

    async def _ask(
        self, messages: list[dict[str, str]], kind: str, info: dict[str, Any], attempt: str, budget: dict[str, Any]
    ) -> tuple[dict[str, Any] | str | None, str | None, bool]:
        """(valid action, None, cached), or (raw answer or None, why it cannot be used, cached)."""
        record: dict[str, Any] = {
            "type": "llm_call", "model": self.model, "endpoint": self.transport.shown, "attempt": attempt,
            "action_kind": kind, "messages": messages, "prompt_budget": budget,
        }  # fmt: skip
        reply = await self.transport.complete(messages, turn_schema(kind, info), kind=kind)
        content, meta = reply.content, reply.meta
        record.update(meta)
        if content is None:
            record["error"] = meta.get("failure", "no answer")
            self._records.append(record)
            return None, record["error"], bool(meta.get("cached"))
        action, error = validate(content, kind, info)
        if error is not None and meta.get("cut_off"):
            error = f"the answer was cut off at the token limit ({error})"
        record["raw"] = content
        record["parsed"] = action
        record["error"] = error
        self._records.append(record)
        cached = bool(meta.get("cached"))
        return (action, None, cached) if error is None else (content, error, cached)


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
    key, null_ok = _TARGET_KEYS.get(kind, (None, True))
    if key is not None:
        value = obj.get(key)
        # Names are compared as the engine compares them (``name_key``): a decomposed "Inés" is Inés.
        legal = {name_key(n) for n in info.get("legal_targets", [])}
        if value is not None and name_key(str(value)) not in legal and not (key == "target" and value == "me"):
            allowed = ", ".join(info.get("legal_targets", []))
            return None, f"{key}: {short_repr(value)} is not allowed; choose one of {allowed}"
        if value is None and not null_ok:
            return None, "target: choose a player"
    if kind == "bid" and not 0 <= obj["bid"] <= int(info.get("max_bid", 10)):
        return None, f"bid: must be between 0 and {info.get('max_bid', 10)}"
    if kind == "statement":
        echoed = echoes_template(str(obj.get("statement", "")))
        if echoed is not None:
            return None, f"statement: {echoed!r} is the answer format's placeholder; say something of your own"
    return obj, None
