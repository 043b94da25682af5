"""Inspect models behind LLM seats: the transport, the seats' model roles, and a scripted provider for tests.

* ``InspectTransport``: an ``werewolf_deception.agents.llm.transport.Transport`` whose ``complete`` is Inspect's
``Model.generate``
  (the turn's JSON schema goes as ``GenerateConfig(response_schema=...)``). Inspect's limit errors pass
  through (``LimitExceededError`` ends the game; the sample records the limit), cancellation too; any other
  failure of the model is an unanswered call (the env's fallback plays, and validity counts it), as on
  the OpenAI path.
* ``ModelGate``: the gate every model-calling command passes (``werewolf_deception.benchmarks.runs.gate``), for one
Inspect
  model: a preflight before its first game (``preflight``: a tiny JSON answer; a refused key, an
  unreachable server or an answer with nothing in it fails the sample at once, naming the model and
  URL), and one circuit breaker (``werewolf_deception.agents.llm.endpoint.Breaker``) for every seat it plays:
  ``breaker``
  calls in a row without a usable answer (errors and useless answers alike), or one 401/403/404, raise
  ``EndpointDownError``, which ends the game (the sample errors) instead of playing it on fallbacks.
* ``seat_bindings(model_roles, config)``: which Inspect model role each seat plays under: the seat's
  (``player_3``), else its role's (``seer``), else its team's (``village``, ``werewolf``); a bound name that
  is none of these is an error.
* ``werewolf_scripted/<variant>``: a model provider registered with ``@modelapi`` that answers every
  request offline and deterministically (``werewolf_deception.agents.fake.answers``: a valid answer for each action
  kind);
  ``werewolf_scripted/malformed`` answers text that is not JSON. No network, no tokenizer.
"""

from __future__ import annotations

import asyncio
import difflib
import hashlib
import json
import weakref
from typing import Any

from inspect_ai.model import (
    ChatMessage,
    ChatMessageAssistant,
    ChatMessageSystem,
    ChatMessageUser,
    GenerateConfig,
    Model,
    ModelAPI,
    ModelOutput,
    ModelUsage,
    ResponseSchema,
    modelapi,
)
from inspect_ai.tool import ToolChoice, ToolInfo
from inspect_ai.util import JSONSchema, LimitExceededError

from werewolf_deception.agents.credentials import redact_url
from werewolf_deception.agents.fake import FIXED_CONTENT, answer_for, scripted_answer
from werewolf_deception.agents.llm import (
    FATAL_STATUSES,
    Breaker,
    EndpointDownError,
    Messages,
    Reply,
    Transport,
    turn_schema,
    useless_answer,
)
from werewolf_env import GameConfig
from werewolf_env.core import Role, Team

DETECT_MARKER = "WEREWOLF DETECTION TASK"
SCRIPTED = "werewolf_scripted"


def to_chat(messages: Messages) -> list[ChatMessage]:
    out: list[ChatMessage] = []
    for m in messages:
        role, content = m.get("role"), str(m.get("content", ""))
        if role == "system":
            out.append(ChatMessageSystem(content=content))
        elif role == "assistant":
            out.append(ChatMessageAssistant(content=content))
        else:
            out.append(ChatMessageUser(content=content))
    return out


class PreflightError(RuntimeError):
    """An Inspect model cannot answer (its preflight failed): the sample ends before any game is played."""


class ModelGate:
    """The preflight and the circuit breaker of one Inspect model, shared by every seat and game that plays it."""

    def __init__(self, model: Model, breaker: int) -> None:
        base_url = getattr(model.api, "base_url", None)
        self.where = f"model {str(model)!r}" + (f" at {redact_url(str(base_url))}" if base_url else "")
        self.circuit = Breaker(str(base_url or model), breaker)
        self.checked = False
        self._lock: asyncio.Lock | None = None

    async def preflight(self, model: Model) -> None:
        """Once per model: ask for a tiny JSON answer; raise ``PreflightError`` (naming the model and URL) if the
        model cannot give one."""
        self._lock = self._lock or asyncio.Lock()
        async with self._lock:
            if self.checked:
                return
            probe = InspectTransport(model, seed=0, max_tokens=32, gate=self)
            ask = [{"role": "user", "content": 'Reply with exactly this JSON object and nothing else: {"bid": 3}'}]
            try:
                reply = await probe.complete(ask, turn_schema("bid", {}), kind="bid")
            except EndpointDownError as exc:
                raise PreflightError(f"preflight: {self.where}: {exc.reason}") from None
            cause = reply.meta.get("useless") or (reply.meta.get("failure") if reply.content is None else None)
            if cause:
                raise PreflightError(f"preflight: {self.where}: the model cannot answer ({cause})")
            self.checked = True


_GATES: weakref.WeakKeyDictionary[Model, ModelGate] = weakref.WeakKeyDictionary()


def gate_of(model: Model, breaker: int = 8) -> ModelGate:
    """The gate of ``model`` (one per model object, as Inspect hands them out for an eval)."""
    found = _GATES.get(model)
    if found is None:
        found = _GATES[model] = ModelGate(model, breaker)
    return found


class InspectTransport(Transport):
    """An LLM seat's calls as Inspect ``Model.generate`` calls (recorded as model events in the sample), through
    the model's ``ModelGate`` breaker."""

    passthrough = (LimitExceededError,)

    def __init__(
        self, model: Model, seed: int | None = None, max_tokens: int = 300, gate: ModelGate | None = None
    ) -> None:
        self.model = model
        self.label = self.shown = str(model)
        self.seed = seed
        self.max_tokens = max_tokens
        self.gate = gate or gate_of(model)

    async def complete(self, messages: Messages, schema: dict[str, Any], *, kind: str = "answer") -> Reply:
        given = self.model.config
        config = GenerateConfig(
            response_schema=ResponseSchema(name=kind, json_schema=JSONSchema.model_validate(schema), strict=True),
            max_tokens=None if given.max_tokens is not None else self.max_tokens,
            seed=None if given.seed is not None else self.seed,
        )
        circuit = self.gate.circuit
        circuit.check()
        try:
            output = await self.model.generate(to_chat(messages), config=config)
        except Exception as exc:  # limits pass through (LLMAgent re-raises ``passthrough``); this is a failure
            if isinstance(exc, self.passthrough):
                raise
            failure = f"{type(exc).__name__}: {exc}"[:300]
            status = getattr(exc, "status_code", None)
            if status in FATAL_STATUSES:  # a key or model that will not start working
                raise circuit.trip(f"HTTP {status}: {failure[:200]}") from None
            circuit.failed(f"HTTP {status}" if status else type(exc).__name__, failure)
            return Reply(None, {"failure": failure, "response_format": "json_schema"})
        usage = output.usage
        meta: dict[str, Any] = {
            "response_format": "json_schema", "finish_reason": output.stop_reason,
            "cut_off": output.stop_reason == "max_tokens", "retries": 0, "cached": False,
            "usage": {"prompt_tokens": usage.input_tokens, "completion_tokens": usage.output_tokens} if usage else None,
        }  # fmt: skip
        if output.error:
            meta["failure"] = output.error[:300]
            circuit.failed("model errors", meta["failure"])
            return Reply(None, meta)
        finish = "length" if meta["cut_off"] else output.stop_reason
        useless = useless_answer(output.choices, output.completion if output.choices else None, None, finish)
        if useless is not None:
            meta["useless"] = useless
            circuit.failed(useless, f"{useless} (stop reason {output.stop_reason!r})")
        else:
            circuit.answered()
        return Reply(output.completion, meta)


# ---------------------------------------------------------------------------------------- model roles


def seat_names(config: GameConfig) -> dict[str, str]:
    """Every name a model role may bind in a game of ``config``, and what it is."""
    names = {team.value: "team" for team in Team}
    for role in sorted(config.roles_in_game(), key=lambda r: r.value):
        names.setdefault(role.value, "role")
    names.update({f"player_{i}": "seat" for i in range(config.num_players)})
    return names


def check_model_roles(bound: list[str], config: GameConfig) -> None:
    """An error naming the first model role that is no team, role or seat of this game."""
    known = seat_names(config)
    for name in bound:
        if name not in known:
            close = difflib.get_close_matches(name, list(known), n=1)
            hint = f" (did you mean {close[0]!r}?)" if close else ""
            roles = ", ".join(k for k, v in known.items() if v != "seat")
            raise ValueError(
                f"--model-role {name}: not a team, role or seat of this game{hint}; "
                f"model roles are {roles}, or a seat player_0 to player_{config.num_players - 1}"
            )


def binding_for(bound: set[str], agent: str, role: Role, team: Team | None = None) -> str | None:
    """The model role a seat plays under: its seat's, else its role's, else its team's (default: the built-in
    role's), else None."""
    for name in (agent, role.value, (team or role.team).value):
        if name in bound:
            return name
    return None


# ---------------------------------------------------------------------------------------- scripted provider


def scripted_reply(messages: Messages, variant: str) -> str:
    """What ``werewolf_scripted/<variant>`` answers (deterministic in the messages)."""
    if variant == "malformed":
        return FIXED_CONTENT["malformed"]
    everything = "\n".join(str(m.get("content", "")) for m in messages)
    if DETECT_MARKER in everything:
        digest = int(hashlib.sha256(everything.encode()).hexdigest()[:8], 16)
        flagged = bool(digest % 3 == 0)
        return json.dumps({"reasoning": "scripted", "is_deceptive": flagged, "confidence": 0.7 if flagged else 0.3})
    reply = answer_for(messages, scripted_answer)
    return reply if isinstance(reply, str) else json.dumps(reply)


@modelapi(name=SCRIPTED)
def _scripted() -> type[ModelAPI]:
    return ScriptedModelAPI


class ScriptedModelAPI(ModelAPI):
    """``werewolf_scripted/play`` (or any name): valid answers for every action kind, offline."""

    def __init__(
        self,
        model_name: str,
        base_url: str | None = None,
        api_key: str | None = None,
        config: GenerateConfig = GenerateConfig(),  # noqa: B008 - Inspect's constructor signature
        **model_args: Any,
    ) -> None:
        super().__init__(model_name, base_url, api_key, [], config)

    async def generate(
        self, input: list[ChatMessage], tools: list[ToolInfo], tool_choice: ToolChoice, config: GenerateConfig
    ) -> ModelOutput:
        messages = [{"role": m.role, "content": m.text} for m in input]
        content = scripted_reply(messages, self.model_name)
        output = ModelOutput.from_content(model=self.model_name, content=content)
        prompt = sum(len(m["content"].split()) for m in messages)
        output.usage = ModelUsage(
            input_tokens=prompt, output_tokens=len(content.split()), total_tokens=prompt + len(content.split())
        )
        return output

    async def count_text_tokens(self, text: str) -> int:  # never a tokenizer download
        return len(text) // 4 + 1

    def max_connections(self) -> int:
        return 64
