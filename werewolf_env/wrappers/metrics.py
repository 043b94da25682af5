"""``DeceptionMetrics``: per-game deception figures in the plain PettingZoo loop, with any policies.

    env = DeceptionMetrics(werewolf_env.env(), policies=["heuristic"] * 8)   # policy labels optional
    env.reset(seed=0)
    for agent in env.agent_iter():
        obs, reward, termination, truncation, info = env.last()
        env.step(None if termination or truncation else my_policy(obs, info))
    env.metrics["players"][0]["lies"]       # this game's figures (see werewolf_env.analysis.metrics)
    env.record.matrices                     # the cross-perception matrix after every statement
    aggregate(env.history)                  # every game since the wrapper was made, with 95% intervals

The self and peer labels are the analyses the env accepted (after any fallback), read from the
engine's event stream, the same events the log and ``info["events"]`` carry; the ground truth
(roles, the grounded lie labels) is read from the unwrapped env once the game is over, so nothing
hidden is computed or exposed while the game runs. When the game ends, each agent's ``info`` gets
``"deception"``: its own row of per-player figures.
"""

from __future__ import annotations

import json
from typing import Any

from pettingzoo.utils.env import AECEnv
from pettingzoo.utils.wrappers import BaseWrapper

from werewolf_env.analysis import GameRecord
from werewolf_env.engine import dumps


class DeceptionMetrics(BaseWrapper):
    def __init__(self, env: AECEnv, policies: list[str] | None = None, keep_history: bool = True) -> None:
        super().__init__(env)
        self.base = env.unwrapped
        self.policies = list(policies) if policies is not None else None
        self.keep_history = keep_history
        self.history: list[GameRecord] = []
        self.record: GameRecord | None = None
        self.metrics: dict[str, Any] | None = None

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        super().reset(seed=seed, options=options)
        self.record = None
        self.metrics = None

    def step(self, action: Any) -> None:
        super().step(action)
        game = self.base.game
        if self.record is None and game is not None and game.over:
            self._finish()

    def _finish(self) -> None:
        game = self.base.game
        events = [json.loads(dumps(e.to_json())) for e in game.state.events]
        header = {"type": "header", "seed": game.state.seed, "config": game.state.config.model_dump(mode="json")}
        records: list[dict[str, Any]] = [header, *events]
        if self.policies is not None:
            if len(self.policies) != game.state.num_players:
                raise ValueError(f"{len(self.policies)} policy labels for {game.state.num_players} seats")
            records.append({"type": "agent_record", "data": {"type": "lineup", "policies": self.policies}})
        records.append({"type": "snapshot", "data": {}})
        self.record = GameRecord.from_events(records)
        self.metrics = self.record.metrics()
        if self.keep_history:
            self.history.append(self.record)
        for row in self.metrics["players"]:
            agent = self.base.possible_agents[row["seat"]]
            if agent in self.base.infos:
                self.base.infos[agent]["deception"] = row

    def __str__(self) -> str:
        return str(self.env)
