"""The one interface every policy implements."""

from __future__ import annotations

from typing import Any


class Policy:
    """A policy answers one turn: ``act(observation, info)`` returns a JSON action (dict or string).

    ``observation`` is the env's ``{"text", "observation"}`` dict; ``info`` names the expected
    ``action_kind``, the ``legal_targets`` and the ``answer_format``. ``aact`` is the async form; the
    default runs ``act``, so sync policies work in async runners too.
    """

    name = "policy"

    def act(self, observation: dict[str, Any], info: dict[str, Any]) -> dict[str, Any] | str:
        raise NotImplementedError

    async def aact(self, observation: dict[str, Any], info: dict[str, Any]) -> dict[str, Any] | str:
        return self.act(observation, info)
