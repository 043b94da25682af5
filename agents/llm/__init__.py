"""The LLM policy and how it reaches OpenAI-compatible servers: prompts, answer schemas, options, folding, the
response cache, endpoints, transport, backpressure and the local llama.cpp server.

The names other packages use, from the modules that define them.
"""

from __future__ import annotations

from werewolf_deception.agents.llm.agent import (
    ANSWER_CHARS_KEPT,
    LLMAgent,
    cut_texts,
    kept_chars,
    target_name,
    validate,
)
from werewolf_deception.agents.llm.endpoints import (
    FATAL_STATUSES,
    AdaptiveLimit,
    Breaker,
    Endpoint,
    EndpointDownError,
    EndpointPool,
    Reply,
    useless_answer,
)
from werewolf_deception.agents.llm.local_server import MODEL_NAME, LocalModelServer
from werewolf_deception.agents.llm.options import (
    DEFAULT_BASE_URL,
    MAX_SEED,
    LLMOptions,
    redact_url,
    suggestion,
    validate_options,
)
from werewolf_deception.agents.llm.prompts import (
    DECEPTION_DEFINITIONS,
    answer_line,
    build_messages,
    history_of,
    living_others,
)
from werewolf_deception.agents.llm.schemas import turn_schema
from werewolf_deception.agents.llm.transport import Messages, Transport

__all__ = [
    "ANSWER_CHARS_KEPT",
    "DECEPTION_DEFINITIONS",
    "DEFAULT_BASE_URL",
    "FATAL_STATUSES",
    "MAX_SEED",
    "MODEL_NAME",
    "AdaptiveLimit",
    "Breaker",
    "Endpoint",
    "EndpointDownError",
    "EndpointPool",
    "LLMAgent",
    "LLMOptions",
    "LocalModelServer",
    "Messages",
    "Reply",
    "Transport",
    "answer_line",
    "build_messages",
    "cut_texts",
    "history_of",
    "kept_chars",
    "living_others",
    "redact_url",
    "suggestion",
    "target_name",
    "turn_schema",
    "useless_answer",
    "validate",
    "validate_options",
]
