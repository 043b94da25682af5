"""``LearnerSeats``: an AEC env in which only some seats are learners; agents play all the others.

For RL libraries that take a PettingZoo AEC env (RLlib's ``PettingZooEnv``, for instance): the
learners act with the integers of the numeric env (``werewolf_env.wrappers.discrete_env``: the same
``DiscreteCodec``, vector and mask), and every other seat is played inside ``step()`` by its policy from a
lineup (heuristic by default), with the text and structured events it needs, which the numeric env does not
make. Seat roles follow the game seed, so a learner seat plays every role over many games.

    env = LearnerSeats({"num_players": 8}, learners=["player_0"], lineup="heuristic")
    env.reset(seed=0)
    for agent in env.agent_iter():                 # only player_0's turns, then the end of the game
        obs, reward, termination, truncation, info = env.last()
        mask = obs["action_mask"]
        env.step(None if termination or truncation else int(np.flatnonzero(mask)[0]))

Observations: ``{"observations": float32 vector, "action_mask": float32 mask}`` (the key names
RLlib's action-masking module reads). Rewards: the env's, +1 / -1 at the end, 0 on truncation.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, ClassVar

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv

from werewolf_deception.agents.base import Policy
from werewolf_deception.agents.play import Lineup, load_lineup, make_policy, seat_seed
from werewolf_env import GameConfig
from werewolf_env.envs import raw_env
from werewolf_env.observe import OBS_SIZE
from werewolf_env.wrappers import DiscreteCodec


class LearnerSeats(AECEnv):
    metadata: ClassVar[dict[str, Any]] = {
        "name": "werewolf_learner_seats_v0",
        "render_modes": [],
        "is_parallelizable": False,
    }

    def __init__(
        self,
        config: GameConfig | dict[str, Any] | None = None,
        learners: list[str] | None = None,
        lineup: Lineup | dict[str, Any] | str | Path | None = "heuristic",
        log_dir: str | Path | None = None,
    ) -> None:
        super().__init__()
        game_config = config if isinstance(config, GameConfig) else GameConfig(**(config or {}))
        self.raw = raw_env(config=game_config, log_dir=log_dir, info_events=True)
        self.codec = DiscreteCodec(game_config)
        self.lineup = load_lineup(lineup, game_config.ruleset)
        self.possible_agents = list(learners or ["player_0"])
        unknown = set(self.possible_agents) - set(self.raw.possible_agents)
        if unknown:
            raise ValueError(f"no such seats: {sorted(unknown)}; seats are {self.raw.possible_agents}")
        n = self.codec.num_actions
        space = spaces.Dict(
            {
                "observations": spaces.Box(0.0, 1.0, (OBS_SIZE,), np.float32),
                "action_mask": spaces.Box(0.0, 1.0, (n,), np.float32),
            }
        )
        self.observation_spaces = {a: space for a in self.possible_agents}
        self.action_spaces: dict[str, spaces.Space] = {a: spaces.Discrete(n) for a in self.possible_agents}
        self._policies: dict[str, Policy] = {}
        self.agents: list[str] = []

    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """A new game; one in which no learner ever gets a turn (a villager learner killed on the first
        night in a game that then ends, say) has nothing to learn from and is skipped: the next seed plays."""
        for attempt in range(100):
            self._new_game(None if seed is None else seed + attempt, options)
            if not self.raw.game.over:  # type: ignore[union-attr]
                return
        raise RuntimeError("no learner got a turn in 100 games: check the learner seats")

    def _new_game(self, seed: int | None, options: dict[str, Any] | None) -> None:
        self.raw.reset(seed=seed, options=options)
        game = self.raw.game
        assert game is not None
        roles = game.state.roles
        self._policies = {
            agent: make_policy(
                self.lineup.spec_for(agent, roles[i], game.state.config.ruleset), seat_seed(game.state.seed, i)
            )
            for i, agent in enumerate(self.raw.possible_agents)
            if agent not in self.possible_agents
        }
        self.agents = list(self.possible_agents)
        self._advance()

    def _advance(self) -> None:
        """Let the other seats act until a learner must act (or the game has retired every agent)."""
        raw = self.raw
        while raw.agents and raw.agent_selection not in self.possible_agents:
            agent = raw.agent_selection
            if raw.terminations[agent] or raw.truncations[agent]:
                raw.step(None)
            else:
                raw.step(self._policies[agent].act(raw.observe(agent), raw.infos[agent]))
        self.agents = [a for a in self.possible_agents if a in raw.agents]
        if self.agents:
            self.agent_selection = raw.agent_selection
        self.rewards = {a: raw.rewards.get(a, 0.0) for a in self.possible_agents}
        self._cumulative_rewards = {a: raw._cumulative_rewards.get(a, 0.0) for a in self.possible_agents}
        self.terminations = {a: raw.terminations.get(a, True) for a in self.possible_agents}
        self.truncations = {a: raw.truncations.get(a, False) for a in self.possible_agents}
        self.infos = {a: raw.infos.get(a, {}) for a in self.possible_agents}

    def step(self, action: Any) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self.raw.step(None)
        else:
            turn = self.codec.turn_of(self.raw, agent)
            self.raw.step(None if action is None else self.codec.decode(self.raw.game, turn, action))
        self._advance()

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        # The vector only: the observation's text is worded when read, and nothing reads it here.
        mask = self.codec.mask(self.raw.game, self.codec.turn_of(self.raw, agent))
        return {"observations": self.raw.observe(agent)["observation"], "action_mask": mask.astype(np.float32)}

    def close(self) -> None:
        self.raw.close()
