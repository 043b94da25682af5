"""``LLMAgent``: a policy that asks a chat model, by default through the ``openai`` SDK (any OpenAI-compatible server).

    agent = LLMAgent(model="gpt-4o-mini", base_url="https://api.openai.com/v1", temperature=0.2)
    agent = LLMAgent(options=LLMOptions(...), pool=pool, seed=seat_seed)   # as the runner makes them
    agent = LLMAgent(transport=complete, label="llm:mine")   # any async complete(messages, schema) -> text

What carries a request is a transport (``agents/llm/transport.py``): the OpenAI-compatible one by default,
or anything with an async ``complete(messages, schema)``; the prompt, validation, repair and records
below are the same whatever carries them.

Options are one validated ``LLMOptions`` (``agents/llm/options.py``); the client, its connection
pool, retries, response-format step-down and circuit breaker belong to the run's ``EndpointPool``
(``agents/llm/endpoints.py``), shared by every seat and game; the prompt is ``agents/llm/prompts.py``.

One turn: the prompt (cut to the context budget), then the answer, validated with the action's
pydantic model, the legal targets and the placeholder check. An invalid answer gets one repair
prompt quoting the error; if that fails too, the answer goes to the env, whose recorded fallback
plays instead. Every call becomes a log record (``drain_records``: messages, raw output (stored once,
cut to ``ANSWER_CHARS_KEPT`` characters, with ``raw_chars`` when cut), parsed action, usage, latency,
retries, finish reason, request id, budget), and every turn one
``llm_outcome`` record: ``answered`` (the first answer was valid), ``repaired``, ``invalid`` (the
model answered, nothing valid) or ``unanswered`` (the server never answered). The API key never
reaches a record or an error text.

Later turns asked ahead (``werewolf_deception.agents.llm.folding``, all on by default): a peer analysis also asks the
seat's next bid, the analyses of the day's last statement (or that statement's call) its vote, and a statement the
speaker's self-analysis. Such an answer is used once, by the next turn of its kind, if it is valid and the seat has
learnt nothing since but its own doings (else that turn makes its own call); its outcome record says ``asked_in``
(``from_analysis`` too for a bid or vote from an analysis) and takes the asking call's outcome. The asking call's
outcome record says ``ahead`` (what each asked field became) and ``ahead_errors``, and for bids ``next_bid`` /
``next_bid_error`` as before.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from werewolf_deception.agents.base import Policy
from werewolf_deception.agents.credentials import EndpointURL
from werewolf_deception.agents.llm.endpoints import Endpoint, EndpointDownError, EndpointPool
from werewolf_deception.agents.llm.folding import AHEAD_FIELDS, AskedAhead, what_to_ask
from werewolf_deception.agents.llm.options import LLMOptions, validate_options
from werewolf_deception.agents.llm.prompts import answer_line, build_messages, fit, history_of, with_answer_line
from werewolf_deception.agents.llm.schemas import ASK_KEYS, statement_chars, turn_schema
from werewolf_deception.agents.llm.transport import OpenAITransport, Transport, as_transport
from werewolf_env.actions import (
    ACTION_MODELS,
    ACTION_SPECS,
    UnknownPlayerError,
    as_object,
    placeholder_reason,
    resolve_target,
)
from werewolf_env.core import ActionKind, name_key, short_repr

# An answer is stored once, in its ``llm_call`` record's ``raw``, cut to this many characters (``raw_chars``: its
# length, when cut); the repair prompt quotes no more of it. The action handed to the game holds no text longer
# than ``kept_chars`` (far more than the game keeps of any text, so the game is the same).
ANSWER_CHARS_KEPT = 10_000

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
        self.name = label or options.label()
        self._records: list[dict[str, Any]] = []
        self._outcome_of_last = ""  # the outcome ``answer`` recorded last
        # Answers for later turns asked inside an earlier call (``werewolf_deception.agents.llm.folding``), by the turn
        # they are for.
        self._ahead: dict[str, AskedAhead] = {}
        # Exceptions that end the game rather than fall back: the transport's, and the runner's caller's.
        self.passthrough: tuple[type[BaseException], ...] = tuple(self.transport.passthrough)

    @property
    def endpoint(self) -> EndpointURL | None:  # type: ignore[override]  # derived: the transport's
        """The server the calls go to (None: a transport of the caller's); the runner's concurrency cap is per
        endpoint."""
        return self.transport.endpoint

    @property
    def base_url(self) -> str:
        """Where the calls go, as messages and records show it (redacted; a custom transport's label)."""
        return self.transport.shown

    def __repr__(self) -> str:  # never show the key
        return f"LLMAgent(model={self.model!r}, base_url={self.base_url!r})"

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
        text = observation["text"]
        if kind in AHEAD_FIELDS:
            ready = self._from_ahead(kind, text, info)
            if ready is not None:
                return ready
        asks = what_to_ask(kind, text, info, self.options)
        if asks:  # the schema and the answer format ask for the later turns too
            info = {**info, **asks}
        merge = self.transport.system_mode() == "user"
        answer_format = answer_line(kind, info)
        messages = with_answer_line(build_messages(text, merge_system=merge), answer_format)
        friction = info.get("friction")  # the detector's note on this statement (friction runs only)
        if friction:
            note = f"{messages[-1]['content']}\n\nDETECTOR NOTE: {friction['text']}"
            messages[-1] = {**messages[-1], "content": note}
        action = await self.answer(messages, kind, info, answer_format)
        if asks:
            action = self._keep_ahead(action, kind, text, info)
        return action

    def _keep_ahead(
        self, action: dict[str, Any] | str, kind: str, text: str, info: dict[str, Any]
    ) -> dict[str, Any] | str:
        """The answer without the fields asked for later turns; each valid part is kept for its turn. A missing
        or invalid one is not replaced by any default: that turn then asks its own call."""
        outcome = self._outcome_of_last
        asked = [later for later, key in ASK_KEYS.items() if info.get(key)]
        for later in asked:
            self._ahead.pop(later, None)
        if not isinstance(action, dict) or outcome not in ("answered", "repaired"):
            return action  # no valid answer: nothing of it is used for the later turns either
        action = dict(action)
        record = self._records[-1]  # the call's ``llm_outcome``: what became of what was asked with it
        ahead: dict[str, Any] = {}
        errors: dict[str, str] = {}
        for later in asked:
            fields = AHEAD_FIELDS[later]
            part = {f: action.pop(f) for f in fields if f in action}
            later_info = {
                "bid": {"max_bid": info.get(ASK_KEYS["bid"])},
                "vote": {
                    "legal_targets": info.get(ASK_KEYS["vote"]),
                    "players": info.get("players"),
                    "seat": info.get("seat"),
                },
            }.get(later, {})
            error = self._check_ahead(later, part, later_info)
            ahead[later] = part if error is None else None
            if error is not None:
                errors[later] = error
                continue
            statement = str(action.get("statement", "")) if later == "self_analysis" else None
            targets = tuple(str(n) for n in info[ASK_KEYS["vote"]]) if later == "vote" else None
            self._ahead[later] = AskedAhead(
                later,
                kind,
                info.get("round"),
                history_of(text),
                part,
                outcome,
                bool(record.get("cached")),
                statement,
                targets,
            )
        record["ahead"] = ahead
        if errors:
            record["ahead_errors"] = errors
        if "bid" in ahead:  # as before the other fields could be asked ahead
            record["next_bid"] = ahead["bid"]["bid"] if ahead["bid"] is not None else None
            if "bid" in errors:
                record["next_bid_error"] = errors["bid"]
        return action

    @staticmethod
    def _check_ahead(later: str, part: dict[str, Any], info: dict[str, Any]) -> str | None:
        """Why an answer asked ahead is not a valid answer to its turn (None if it is)."""
        if not part:
            return f"no {later.replace('_', ' ')} in the answer"
        if later == "bid" and isinstance(part.get("bid"), bool):  # JSON's true is no bid, though Python counts it as 1
            return "bid: not a whole number"
        _, error = validate(json.dumps(part), later, info)
        return error

    def _from_ahead(self, kind: str, text: str, info: dict[str, Any]) -> dict[str, Any] | None:
        """This turn's answer asked inside an earlier call, if it is still good (``AskedAhead.usable``) and valid
        for this very turn; else None: ask a call."""
        pending = self._ahead.pop(kind, None)
        if pending is None or not pending.usable(text, info):
            return None
        action, error = validate(json.dumps(pending.answer), kind, info)
        if action is None or error is not None:
            return None
        # The model's answer, given inside the earlier call: counted as that call's outcome was.
        record: dict[str, Any] = {"type": "llm_outcome", "action_kind": kind, "outcome": pending.outcome,
                                  "cached": pending.cached, "asked_in": pending.asked_in}  # fmt: skip
        if pending.asked_in.endswith("analysis"):
            record["from_analysis"] = True
        self._records.append(record)
        return action

    async def answer(
        self, messages: list[dict[str, str]], kind: str, info: dict[str, Any], answer_format: str
    ) -> dict[str, Any] | str:
        """The answer to ready ``messages`` (cut to the context budget, validated as an action of ``kind``,
        repaired once): the action, or what the env falls back on. Records as any turn
        (``drain_records``); the LLM judge (``werewolf_deception.benchmarks.detect.llm_judge``) asks its own prompt
        through this."""
        messages, budget = fit(
            messages,
            self.options.context_budget,
            self.options.max_tokens,
            self.transport.estimate_tokens,
        )
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
        record["raw"] = content[:ANSWER_CHARS_KEPT]
        if len(content) > ANSWER_CHARS_KEPT:
            record["raw_chars"] = len(content)
        limit = kept_chars(info)
        action = cut_texts(action, limit) if action is not None else None
        record["parsed"] = action
        record["error"] = error
        self._records.append(record)
        cached = bool(meta.get("cached"))
        return (action, None, cached) if error is None else (content[:limit], error, cached)


def kept_chars(info: dict[str, Any]) -> int:
    """The most of any text of an answer handed to the game: ``ANSWER_CHARS_KEPT``, or twice the turn's
    statement limit when that is longer (the game cuts the statement to its limit and marks it truncated)."""
    return max(ANSWER_CHARS_KEPT, 2 * statement_chars(info))


def cut_texts(value: Any, limit: int) -> Any:
    """``value`` (a validated action: shallow) with every string cut to ``limit`` characters."""
    if isinstance(value, str):
        return value[:limit]
    if isinstance(value, dict):
        return {key: cut_texts(item, limit) for key, item in value.items()}
    if isinstance(value, list):
        return [cut_texts(item, limit) for item in value]
    return value


def target_name(value: Any, info: dict[str, Any]) -> str | None:
    """The player an answer's target names, read as the engine reads it (``actions.resolve_target``, against the
    turn's ``players`` and ``seat``: names, agent ids, "me"); None for a word for no one ("none", "abstain").
    A name no player has comes back as written (so that it is refused). An info without ``players`` (a
    hand-made one) is read by names alone."""
    players, seat = info.get("players"), info.get("seat")
    if not isinstance(players, (list, tuple)) or not isinstance(seat, int) or not 0 <= seat < len(players):
        return str(value)
    names = tuple(str(name) for name in players)
    try:
        found = resolve_target(str(value), names, seat)
    except UnknownPlayerError:
        return str(value)
    return None if found is None else names[found]


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
        named = target_name(value, info) if value is not None else None
        # Names are compared as the engine compares them (``name_key``): a decomposed "Inés" is Inés.
        legal = {name_key(n) for n in info.get("legal_targets", [])}
        if named is not None and name_key(named) not in legal:
            allowed = ", ".join(info.get("legal_targets", []))
            return None, f"{key}: {short_repr(value)} is not allowed; choose one of {allowed}"
        if named is None and not null_ok:
            return None, "target: choose a player"
    if kind == "bid" and not 0 <= obj["bid"] <= int(info.get("max_bid", 10)):
        return None, f"bid: must be between 0 and {info.get('max_bid', 10)}"
    if kind == "statement":
        copied = placeholder_reason(str(obj.get("statement", "")))
        if copied is not None:
            return None, f"statement: {copied}; say something of your own"
    return obj, None
