"""The LLM policy and how it reaches OpenAI-compatible servers: prompts, answer schemas, options, folding, the
response cache, endpoints, transport, backpressure and the local llama.cpp server.

``werewolf_deception.agents.llm`` was one module before the sub-packages: its public names are still read
here, from ``werewolf_deception.agents.llm.agent``, loaded on first use (so that importing a sibling module
does not load this one).
"""

from __future__ import annotations

from werewolf_env.core.moved import reexport

__getattr__, __dir__ = reexport(
    __name__,
    "werewolf_deception.agents.llm.agent",
    (
        "ANSWER_CHARS_KEPT",
        "LLMAgent",
        "cut_texts",
        "kept_chars",
        "target_name",
        "validate",
    ),
)
