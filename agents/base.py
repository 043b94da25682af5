"""The one interface every policy implements."""

from __future__ import annotations

import asyncio
from typing import Any

from werewolf_deception.agents.credentials import EndpointURL


class Policy:
    """A policy answers one turn: ``act(observation, info)`` returns a JSON action (dict or string).

    ``observation`` is the env's ``{"text", "observation"}`` dict; ``info`` names the expected
    ``action_kind``, the ``legal_targets`` and the ``answer_format`` (and, with
    ``raw_env(info_events=True)``, the newly visible ``events``). ``aact`` is the async form.
    Implement either: the default ``aact`` runs ``act``, the default ``act`` runs ``aact``.

    Class attributes the runner reads:
    * ``needs_events``: the policy reads ``info["events"]`` (the runner then turns them on);
    * ``endpoint``: calls to the same endpoint share one concurrency limit (None: no limit).

    A policy may raise ``werewolf_deception.agents.llm.endpoints.EndpointDownError`` when its server can no longer
    answer (a tripped circuit breaker): the runner does not absorb it, and the run stops. Any other exception is
    absorbed: the env's recorded fallback answers for that turn.
    """

    name = "policy"
    needs_events = False
    endpoint: EndpointURL | None = None

    def act(self, observation: dict[str, Any], info: dict[str, Any]) -> dict[str, Any] | str:
        if type(self).aact is Policy.aact:
            raise NotImplementedError(f"{type(self).__name__} implements neither act nor aact")
        return asyncio.run(self.aact(observation, info))

    async def aact(self, observation: dict[str, Any], info: dict[str, Any]) -> dict[str, Any] | str:
        return self.act(observation, info)

    async def aclose(self) -> None:
        """Release what the policy holds (connections of its own); the runner calls it after each game."""

    def drain_records(self) -> list[dict[str, Any]]:
        """Records to attach to the game log since the last call (LLM calls, errors); default none."""
        return []
