"""``ParallelDiscreteActions``: the ``DiscreteActions`` variant for the native ``ParallelEnv``.

For multi-agent RL libraries that take a PettingZoo ``ParallelEnv`` and need fixed-size numeric
tensors (TorchRL's ``PettingZooWrapper``, BenchMARL, MARL loops of one's own):

    from werewolf_env.wrappers import parallel_discrete_env
    env = parallel_discrete_env(num_players=8)       # the numeric path: ParallelDiscreteEnv (``numeric``)
    observations, infos = env.reset(seed=0)
    while env.agents:
        actions = {a: env.action_space(a).sample(observations[a]["action_mask"]) for a in env.agents}
        observations, rewards, terminations, truncations, infos = env.step(actions)

* Action space: ``Discrete(num_actions)`` for every seat, the integers of ``DiscreteActions`` (the
  same ``decode`` and the same mask for a seat that has a turn).
* Observation: ``Dict(observation=Box(0, 1, (OBS_SIZE,), float32), action_mask=Box(0, 1, (num_actions,),
  int8))``; no text (``keep_text=True`` adds the env's ``text``, which tensor libraries cannot hold).
* Every seat acts on every step, as parallel libraries expect: a seat in the current group gets the
  mask of its legal answers; an idle or dead seat (and every seat on the last step) gets a mask with
  only ``NOOP`` (index 0) set, and whatever it sends is ignored. So a masked policy never needs a
  fallback, and idle steps carry no policy gradient (one legal action: log-probability 0).
* Infos, rewards, terminations, ``state()`` / ``state_space``: the wrapped env's. Use it with
  ``numeric_info=True`` for libraries that put infos in tensors.

``parallel_discrete_env()`` returns the numeric ``ParallelDiscreteEnv`` (the same integers, masks, spaces and
game, faster: no text, no wrapper); it returns this wrapper only when text is asked for.

A masked-out or out-of-range index of a seat with a turn is passed on anyway and becomes the env's
recorded fallback, as in ``DiscreteActions``.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo.utils.wrappers import BaseParallelWrapper

from werewolf_env.envs import WerewolfParallelEnv, parallel_env
from werewolf_env.wrappers.discrete import NOOP, DiscreteCodec
from werewolf_env.wrappers.numeric import ParallelDiscreteEnv

__all__ = ["NOOP", "ParallelDiscreteActions", "ParallelDiscreteEnv", "parallel_discrete_env"]


class ParallelDiscreteActions(BaseParallelWrapper):
    """See the module docstring."""

    def __init__(self, env: WerewolfParallelEnv, keep_text: bool = False) -> None:
        super().__init__(env)
        base = env.unwrapped
        if not isinstance(base, WerewolfParallelEnv):
            raise TypeError(f"ParallelDiscreteActions wraps werewolf_env.parallel_env(), not {type(base).__name__}")
        self.base = base
        self.keep_text = keep_text
        # The integer <-> answer mapping and the legal-action mask are the AEC wrapper's (``DiscreteCodec``): they
        # read only the game, never the AEC turn order.
        self.codec = DiscreteCodec(base.config)
        self.num_actions = self.codec.num_actions
        obs: dict[str, spaces.Space] = {
            "observation": base.observation_spaces[base.possible_agents[0]]["observation"],
            "action_mask": spaces.Box(0, 1, (self.num_actions,), np.int8),
        }
        if keep_text:
            obs["text"] = base.observation_spaces[base.possible_agents[0]]["text"]
        self.observation_spaces = {a: spaces.Dict(obs) for a in base.possible_agents}
        self.action_spaces: dict[str, spaces.Space] = {
            a: spaces.Discrete(self.num_actions) for a in base.possible_agents
        }
        self.possible_agents = base.possible_agents[:]
        self.metadata = dict(base.metadata)

    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    def reset(
        self, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, Any], dict[str, dict[str, Any]]]:
        observations, infos = self.env.reset(seed=seed, options=options)
        return self._wrap(observations), infos

    def step(
        self, actions: dict[str, Any]
    ) -> tuple[dict[str, Any], dict[str, float], dict[str, bool], dict[str, bool], dict[str, dict[str, Any]]]:
        game = self.base.game
        if game is None or game.over:
            return self.env.step({})
        decoded: dict[str, Any] = {}
        for turn in game.group:  # only the current group's answers matter; the others are ignored
            agent = self.possible_agents[turn.player]
            action = actions.get(agent)
            decoded[agent] = None if action is None else self.codec.decode(game, turn, action)
        observations, rewards, terminations, truncations, infos = self.env.step(decoded)
        return self._wrap(observations), rewards, terminations, truncations, infos

    def action_mask(self, agent: str) -> np.ndarray:
        """The legal actions of ``agent`` now: its turn's answers, or only ``NOOP`` without a turn."""
        return self.codec.mask_or_noop(self.base.game, self.codec.turn_of(self.base, agent))

    def decode(self, agent: str, action: Any) -> dict[str, Any]:
        """The JSON action an integer stands for in ``agent``'s current turn (``{}`` without a turn)."""
        return self.codec.decode(self.base.game, self.codec.turn_of(self.base, agent), action)

    def _wrap(self, observations: dict[str, Any]) -> dict[str, Any]:
        out = {}
        for agent, inner in observations.items():
            wrapped = {"observation": inner["observation"], "action_mask": self.action_mask(agent)}
            if self.keep_text:
                wrapped["text"] = inner["text"]
            out[agent] = wrapped
        return out


def parallel_discrete_env(keep_text: bool = False, **kwargs: Any) -> ParallelDiscreteEnv | ParallelDiscreteActions:
    """The Parallel env with integer actions for RL: the numeric ``ParallelDiscreteEnv`` (no text, numeric infos),
    or, when asked for text (``keep_text``, ``render_mode``, ``info_events``, ``numeric_info=False``),
    ``ParallelDiscreteActions(parallel_env(**kwargs))`` with ``numeric_info=True`` unless told otherwise."""
    wants_text = keep_text or kwargs.get("render_mode") is not None or kwargs.get("info_events")
    if not wants_text and kwargs.pop("numeric_info", True):
        return ParallelDiscreteEnv(**kwargs)
    kwargs.setdefault("numeric_info", True)
    return ParallelDiscreteActions(parallel_env(**kwargs), keep_text=keep_text)
