"""Inspect models behind LLM seats: the transport, the seats' model roles, and a scripted provider for tests.

* ``InspectTransport``: an ``agents.transport.Transport`` whose ``complete`` is Inspect's ``Model.generate``
  (the turn's JSON schema goes as ``GenerateConfig(response_schema=...)``). Inspect's limit errors pass
  through (``LimitExceededError`` ends the game; the sample records the limit), cancellation too; any other
  failure of the model is an unanswered call (the env's fallback plays, and validity counts it), as on
  the OpenAI path.
* ``seat_bindings(model_roles, config)``: which Inspect model role each seat plays under: the seat's
  (``player_3``), else its role's (``seer``), else its team's (``village``, ``werewolf``); a bound name that
  is none of these is an error.
* ``werewolf_scripted/<variant>``: a model provider registered with ``@modelapi`` that answers every
  request offline and deterministically (``agents.fake_answers``: a valid answer for each action kind);
  ``werewolf_scripted/malformed`` answers text that is not JSON. No network, no tokenizer.
"""

from __future__ import annotations

import difflib
import hashlib
import json
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

from agents.endpoints import Reply
from agents.fake_answers import FIXED_CONTENT, answer_for, scripted_answer
from agents.transport import Messages, Transport
from werewolf_env import GameConfig
from werewolf_env.config import Role, Team

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


class InspectTransport(Transport):
    """An LLM seat's calls as Inspect ``Model.generate`` calls (recorded as model events in the sample)."""

    passthrough = (LimitExceededError,)

    def __init__(self, model: Model, seed: int | None = None, max_tokens: int = 300) -> None:
        self.model = model
        self.label = self.shown = str(model)
        self.seed = seed
        self.max_tokens = max_tokens

    async def complete(self, messages: Messages, schema: dict[str, Any], *, kind: str = "answer") -> Reply:
        given = self.model.config
        config = GenerateConfig(
            response_schema=ResponseSchema(name=kind, json_schema=JSONSchema.model_validate(schema), strict=True),
            max_tokens=None if given.max_tokens is not None else self.max_tokens,
            seed=None if given.seed is not None else self.seed,
        )
        try:
            output = await self.model.generate(to_chat(messages), config=config)
        except Exception as exc:  # limits pass through (LLMAgent re-raises ``passthrough``); this is a failure
            if isinstance(exc, self.passthrough):
                raise
            return Reply(None, {"failure": f"{type(exc).__name__}: {exc}"[:300], "response_format": "json_schema"})
        usage = output.usage
        meta: dict[str, Any] = {
            "response_format": "json_schema", "finish_reason": output.stop_reason,
            "cut_off": output.stop_reason == "max_tokens", "retries": 0, "cached": False,
            "usage": {"prompt_tokens": usage.input_tokens, "completion_tokens": usage.output_tokens} if usage else None,
        }  # fmt: skip
        if output.error:
            meta["failure"] = output.error[:300]
            return Reply(None, meta)
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


def binding_for(bound: set[str], agent: str, role: Role) -> str | None:
    """The model role a seat plays under: its seat's, else its role's, else its team's, else None."""
    for name in (agent, role.value, role.team.value):
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
        output.usage = ModelUsage(input_tokens=prompt, output_tokens=len(content.split()),
                                  total_tokens=prompt + len(content.split()))  # fmt: skip
        return output

    async def count_text_tokens(self, text: str) -> int:  # never a tokenizer download
        return len(text) // 4 + 1

    def max_connections(self) -> int:
        return 64
