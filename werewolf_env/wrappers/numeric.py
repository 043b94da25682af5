"""The numeric path for RL: ``discrete_env()`` (AEC) and ``parallel_discrete_env()`` (Parallel).

The same game, integers, masks and spaces as ``DiscreteActions`` and ``ParallelDiscreteActions`` with
``numeric_info=True``, built for speed: each env *is* the PettingZoo env (a subclass, no attribute-forwarding
wrapper between the library and the engine), its ``step`` decodes the integer and acts on the engine (the
reading of an integer memoised where it cannot depend on the game: ``DiscreteCodec.act``), and its
``observe`` makes only the vector and the mask (no text is rendered). Masks and numeric infos are built once
per simultaneous group for the seats whose turn cannot change in it. Same seed and integers: the same
observations, masks, rewards, terminations, infos and game log as the wrappers
(``tests/test_numeric_path.py``).

    from werewolf_env.wrappers import discrete_env
    env = discrete_env(num_players=8)
    env.reset(seed=0)
    for agent in env.agent_iter():
        obs, reward, termination, truncation, info = env.last()
        action = None if termination or truncation else env.action_space(agent).sample(obs["action_mask"])
        env.step(action)

No text means no ``render()`` transcript and no ``info_events``; for those, wrap ``werewolf_env.env()`` in
``DiscreteActions`` (``keep_text=True`` keeps the text observation too).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
from gymnasium import spaces

from werewolf_env.actions import ParseResult, legal_targets
from werewolf_env.core import GameConfig
from werewolf_env.engine import Game
from werewolf_env.envs import WerewolfParallelEnv, raw_env
from werewolf_env.observe import layout_of
from werewolf_env.wrappers.discrete import DiscreteCodec

__all__ = ["DiscreteEnv", "ParallelDiscreteEnv", "discrete_env"]


def _numeric_only(render_mode: str | None, info_events: bool, numeric_info: bool, instead: str) -> None:
    """Refuse what needs text: rendering, structured events, text infos (the wrappers have them)."""
    if render_mode is not None or info_events or not numeric_info:
        raise ValueError(f"the numeric env has no text (no render_mode, info_events or text infos): {instead}")


def _discrete_spaces(env: Any, codec: DiscreteCodec) -> None:
    """Give ``env`` the discrete faces' spaces: the vector and the mask; one ``Discrete`` per seat."""
    obs = spaces.Dict(
        {
            "observation": spaces.Box(0.0, 1.0, (layout_of(env.config.ruleset).size,), np.float32),
            "action_mask": spaces.Box(0, 1, (codec.num_actions,), np.int8),
        }
    )
    env.observation_spaces = {agent: obs for agent in env.possible_agents}
    env.action_spaces = {agent: spaces.Discrete(codec.num_actions) for agent in env.possible_agents}


class DiscreteEnv(raw_env):
    """The AEC env with integer actions and numeric observations and infos (see the module docstring)."""

    text_observations = False

    def __init__(
        self, render_mode: str | None = None, log_dir: str | Path | None = None, config: GameConfig | None = None,
        info_events: bool = False, numeric_info: bool = True, **config_kwargs: Any,
    ) -> None:  # fmt: skip
        _numeric_only(render_mode, info_events, numeric_info, "wrap werewolf_env.env() in DiscreteActions")
        super().__init__(log_dir=log_dir, config=config, numeric_info=True, **config_kwargs)
        self.codec = DiscreteCodec(self.config)
        self.num_actions = self.codec.num_actions
        _discrete_spaces(self, self.codec)

    def observe(self, agent: str) -> dict[str, Any]:
        game = self._game()
        state = game.state
        seat = self.agent_name_mapping[agent]
        turn = game.pending_turn(seat)
        legal = legal_targets(state, turn) if turn is not None else []
        return {
            "observation": self._renderer.vector(seat, turn, legal),
            "action_mask": self.codec.mask(game, turn),
        }

    def _answer(self, game: Game, action: Any) -> ParseResult:
        return self.codec.act(game, action)  # the selected agent's turn is the first pending

    def action_mask(self, agent: str) -> np.ndarray:
        """The legal integers of ``agent`` now (all zero without a turn)."""
        return self.codec.mask(self._game(), self.codec.turn_of(self, agent))

    def decode(self, agent: str, action: Any) -> dict[str, Any]:
        """The JSON action an integer stands for in ``agent``'s current turn."""
        return self.codec.decode(self._game(), self.codec.turn_of(self, agent), action)


class ParallelDiscreteEnv(WerewolfParallelEnv):
    """The Parallel env with integer actions and numeric observations and infos (see the module docstring;
    masks and ``NOOP`` as in ``ParallelDiscreteActions``: ``DiscreteCodec.mask_or_noop``)."""

    text_observations = False

    def __init__(
        self, render_mode: str | None = None, log_dir: str | Path | None = None, config: GameConfig | None = None,
        info_events: bool = False, numeric_info: bool = True, **config_kwargs: Any,
    ) -> None:  # fmt: skip
        _numeric_only(render_mode, info_events, numeric_info, "use ParallelDiscreteActions(parallel_env())")
        super().__init__(log_dir=log_dir, config=config, numeric_info=True, **config_kwargs)
        self.codec = DiscreteCodec(self.config)
        self.num_actions = self.codec.num_actions
        _discrete_spaces(self, self.codec)

    def _answer(self, game: Game, action: Any) -> ParseResult:
        return self.codec.act(game, action)  # only the current group's answers are read; the others are ignored

    def _observations(self) -> dict[str, Any]:
        game = self._game()
        state = game.state
        pending = {turn.player: turn for turn in state.pending}
        vector, mask = self._renderer.vector, self.codec.mask_or_noop
        observations = {}
        for agent in self.agents:
            seat = self.agent_name_mapping[agent]
            turn = pending.get(seat)
            legal = legal_targets(state, turn) if turn is not None else []
            observations[agent] = {"observation": vector(seat, turn, legal), "action_mask": mask(game, turn)}
        return observations

    def action_mask(self, agent: str) -> np.ndarray:
        """The legal actions of ``agent`` now: its turn's answers, or only ``NOOP`` without a turn."""
        return self.codec.mask_or_noop(self._game(), self.codec.turn_of(self, agent))

    def decode(self, agent: str, action: Any) -> dict[str, Any]:
        """The JSON action an integer stands for in ``agent``'s current turn (``{}`` without a turn)."""
        return self.codec.decode(self._game(), self.codec.turn_of(self, agent), action)


def discrete_env(**kwargs: Any) -> DiscreteEnv:
    """The numeric AEC env for RL: ``DiscreteEnv(**kwargs)`` (game keywords, ``config``, ``log_dir``)."""
    return DiscreteEnv(**kwargs)
