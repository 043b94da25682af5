"""Werewolf as a PettingZoo AEC environment (``werewolf_v1``).

| Import       | ``from werewolf_env import env`` (``raw_env``: unwrapped)                            |
|--------------|----------------------------------------------------------------------------------------|
| Name         | ``werewolf_v1``                                                                        |
| Agents       | ``player_0`` ... ``player_{n-1}``, n = 5-16 (default 8)                                |
| Roles        | werewolf, seer, doctor, villager, witch, hunter (``roles.ROLE_SPECS``; ``role_counts``) |
| Actions      | one JSON object per action kind (``action_specs.ACTION_SPECS``)                        |
| Observation  | ``Dict(observation=Box(0, 1, (OBS_SIZE,)), text=FreeText())``                          |
| Parallel API | No; ``simultaneous_agents()`` lists a group                                            |
| Rewards      | +1 winning team, -1 others, 0 to all on truncation                                     |

    from werewolf_env import env
    e = env(num_players=8, role_counts={"werewolf": 2, "seer": 1, "doctor": 1, "witch": 1, "hunter": 1})
    e.reset(seed=0)
    for agent in e.agent_iter():
        obs, reward, termination, truncation, info = e.last()
        action = None if termination or truncation else e.action_space(agent).sample()
        e.step(action)

Agents: ``player_0`` ... ``player_{n-1}``. Dead players stay in ``agents`` (never selected, but for a dead
hunter's last shot) until the game ends, so they receive their team's final reward.

Observation space (per agent): ``Dict(observation=Box(0, 1, (OBS_SIZE,), float32), text=FreeText())``.
``text`` is everything the player may know, ready to paste into a prompt (role card, rules, players,
own knowledge, own suspicion scores, public history, own private notes, the current task and the
exact JSON to answer with). ``observation`` is the numeric encoding for RL (blocks listed in
``observe.OBS_LAYOUT``; role blocks have room for ``roles.MAX_ROLES`` roles, so registering a role does not
change its size).

Action space: ``JsonActionSpace``: one JSON object (dict or string) whose keys depend on the action
kind named in ``info["action_kind"]`` (each kind's spec: ``action_specs.ACTION_SPECS``):
``{"bid": int}``, ``{"statement": str, "claims": [...]}``, ``{"vote": name | null}``, ``{"target": name}``
(eliminate, protect, unmask; heal, poison and shoot take null too), the deception protocol's self / peer
analysis, ``{"summary": str}``; any may add ``"notes"``. Names or agent ids are accepted. Bad input never
raises: it is replaced by a conservative fallback recorded in ``info["fallbacks"]`` and in the log. For a
``Discrete`` space with an action mask, wrap with ``DiscreteActions``.

Rewards: at the end only: +1 to every member of the winning team, -1 to the losers, 0 to all when
``max_rounds`` runs out (a truncation).

Episode end: termination when a team wins (the village when no werewolf lives; the werewolves when they
are at least as many as the others), checked after each night's deaths and after each exile (and a dead
hunter's shot); truncation after ``max_rounds`` nights and days.

Structured events: with ``raw_env(info_events=True)``, ``info["events"]`` on each of a player's
turns holds the events visible to it since its previous turn, as plain JSON (the log's format): what
a scripted policy reads instead of parsing text. Off by default, because it costs time per step.
Each event's ``seq`` counts the player's own stream (0, 1, 2, ... with no gaps), not the log's global
index, whose gaps would count the hidden events in between (the werewolves' night, the seer's check).
The public ``game_start`` event's ``config`` never names the roles (``roles`` is null).

Simultaneous groups: ``simultaneous_agents()`` lists the agents still to answer in the current group
(one turn's bids, the night actions, the votes, the analyses of one statement, the summaries). Their
observations do not change while the others in the group answer, so a runner may ask them all at
once and step them in this order with exactly the sequential result.

Version history:
- v1: the Witch (heal, then poison: each potion once a game) and the Hunter (a last shot on death), chosen
  with ``role_counts``; roles and action kinds as data (``roles``, ``action_specs``); new action kinds
  heal, poison and shoot, so the numeric observation's kind block and its role blocks (room for eight
  roles) change size: ``OBS_SIZE`` differs from v0. Games of v0's roles play and log exactly as before.
- v0: first release.

Arguments (``raw_env(**kwargs)`` or ``raw_env(config=GameConfig(...))``):

"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, ClassVar

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from .action_specs import KIND_PHASE, KINDS_WITH_TARGETS
from .actions import answer_format, legal_targets, to_jsonable
from .config import GameConfig, arguments_table
from .engine import Game
from .log import EventLog, dumps
from .observe import OBS_SIZE, ObservationRenderer, Transcript
from .spaces import FreeText, JsonActionSpace
from .state import KIND_NAME, ActionKind, Turn
from .visibility import visible

__doc__ = (__doc__ or "") + arguments_table() + "\n"

class raw_env(AECEnv):  # noqa: N801 - PettingZoo naming convention
    metadata: ClassVar[dict[str, Any]] = {
        "name": "werewolf_v1",
        "render_modes": ["ansi", "human"],
        "is_parallelizable": False,
    }

    def __init__(
        self,
        render_mode: str | None = None,
        log_dir: str | Path | None = None,
        config: GameConfig | None = None,
        info_events: bool = False,
        **config_kwargs: Any,
    ) -> None:
        super().__init__()
        if config is not None and config_kwargs:
            raise TypeError("pass either config=GameConfig(...) or config keywords, not both")
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be one of {self.metadata['render_modes']}, got {render_mode!r}")
        self.config = config if config is not None else GameConfig(**config_kwargs)
        self.render_mode = render_mode
        self.log_dir = Path(log_dir) if log_dir is not None else None
        self.info_events = info_events
        n = self.config.num_players
        self.possible_agents = [f"player_{i}" for i in range(n)]
        self.agent_name_mapping = {agent: i for i, agent in enumerate(self.possible_agents)}
        names = self.config.player_names()
        self.observation_spaces = {
            agent: spaces.Dict(
                {
                    "observation": spaces.Box(0.0, 1.0, (OBS_SIZE,), np.float32),
                    "text": FreeText(),
                }
            )
            for agent in self.possible_agents
        }
        self.action_spaces = {agent: JsonActionSpace(names, self.config.max_bid) for agent in self.possible_agents}
        self.game: Game | None = None
        self._log: EventLog | None = None
        self._episode = 0
        self._seed_rng: np.random.Generator | None = None
        self._seed_source: int | None = None
        self._last_fallbacks: dict[str, dict[str, Any]] = {}
        self._last_log_path: Path | None = None
        self._info_group = -1
        self._info_template: dict[str, Any] | None = None
        self._info_template_key: tuple[ActionKind, int] | None = None

    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    # ------------------------------------------------------------------ AEC API

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        if seed is not None:
            # Later unseeded resets draw from a generator seeded here, made only when needed.
            self._seed_rng, self._seed_source = None, seed
            game_seed = int(seed)
        else:
            if self._seed_rng is None:
                self._seed_rng = np.random.default_rng(self._seed_source)
            game_seed = int(self._seed_rng.integers(2**31 - 1))
        self._close_log()
        self.game = Game(self.config, game_seed)
        self._renderer = ObservationRenderer(self.game.state)
        self.agents = self.possible_agents[:]
        self.rewards = {agent: 0.0 for agent in self.agents}
        self._cumulative_rewards = {agent: 0.0 for agent in self.agents}
        self.terminations = {agent: False for agent in self.agents}
        self.truncations = {agent: False for agent in self.agents}
        self._last_fallbacks = {}
        self._reset_event_streams()
        if self.log_dir is not None:
            path = self.log_dir / f"game-{self._episode:05d}-seed{game_seed}.ndjson"
            self._log = EventLog(path, self.game)
        self._episode += 1
        self.agent_selection = self._agent(self.game.current.player)  # type: ignore[union-attr]
        self._update_infos()

    def step(self, action: Any) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        game = self._game()
        state = game.state
        self._cumulative_rewards[agent] = 0.0
        result = game.act(action)
        if result.fallbacks:
            self._last_fallbacks[agent] = {"action_kind": result.kind.value, "reasons": list(result.fallbacks)}
        else:
            self._last_fallbacks.pop(agent, None)
        if self._log is not None:
            self._log.flush_events()
        if state.over:
            truncated = state.truncated
            for a, reward in zip(self.possible_agents, game.rewards(), strict=True):
                self.rewards[a] = reward
                self.terminations[a] = not truncated
                self.truncations[a] = truncated
            self._close_log()
            self.agent_selection = self.agents[0]
            self._update_infos(agent)
            self._accumulate_rewards()  # rewards are paid only at the end: nothing to accumulate before
        else:
            self.agent_selection = self.possible_agents[state.pending[0].player]
            if state.group_id == self._info_group:  # same group: only the actor's info changed
                self.infos[agent] = self._info(self.agent_name_mapping[agent], None)
            else:
                self._update_infos(agent)
        if self.render_mode == "human":
            print(self.render())

    def observe(self, agent: str) -> dict[str, Any]:
        state = self._game().state
        seat = self.agent_name_mapping[agent]
        for turn in state.pending:
            if turn.player == seat:
                return self._renderer.observe(seat, turn, legal_targets(state, turn))
        return self._renderer.observe(seat, None, [])

    def render(self) -> str | None:
        if self.render_mode is None:
            return None
        if self.game is None:
            return ""
        return self._renderer.public_text()

    def close(self) -> None:
        self._close_log()

    # ------------------------------------------------------------------ runner support

    def simultaneous_agents(self) -> list[str]:
        """Agents still to answer in the current simultaneous group, in the order they must be stepped."""
        if self.game is None or self.game.over:
            return []
        return [self._agent(t.player) for t in self.game.group]

    def refresh_infos(self) -> None:
        """Rebuild every info now (after changing ``info_events`` between reset and the first step)."""
        self._reset_event_streams()
        self._update_infos()

    def expected_action(self, agent: str) -> str | None:
        """The action kind ``agent`` must answer with now, or None."""
        if self.game is None:
            return None
        turn = self.game.pending_turn(self.agent_name_mapping[agent])
        return turn.kind.value if turn is not None else None

    def log_extra(self, agent: str | None, record: dict[str, Any]) -> None:
        """Attach a policy's record (prompt, raw output, tokens, latency) to the game log, if any."""
        if self._log is not None:
            seat = self.agent_name_mapping[agent] if agent is not None else None
            self._log.record(seat, to_jsonable(record))

    @property
    def log_path(self) -> Path | None:
        """The current game's log file (after the game ends: the file it was written to)."""
        return self._log.path if self._log is not None else self._last_log_path

    # ------------------------------------------------------------------ evaluation (hidden from agents)

    def ground_truth(self) -> dict[str, Any]:
        """Roles, night outcomes and the grounded lie label of every statement so far."""
        return self._game().ground_truth()

    def spectator_view(self) -> str:
        """The whole game with hidden information (roles, night actions, analyses, labels): for debugging."""
        game = self._game()
        return Transcript(game.state.names, None, spectator=True).update(game.state.events)

    def snapshot(self) -> dict[str, Any]:
        return self._game().snapshot()

    # ------------------------------------------------------------------ helpers

    def _game(self) -> Game:
        if self.game is None:
            raise RuntimeError("call reset() before using the environment")
        return self.game

    def _agent(self, seat: int) -> str:
        return self.possible_agents[seat]

    def _close_log(self) -> None:
        if self._log is not None:
            self._log.close()
            self._last_log_path = self._log.path
            self._log = None

    def _update_infos(self, actor: str | None = None) -> None:
        """Rebuild the infos that can have changed when a group ends: the actor's and the new
        members'. (The other old members' infos were set when each answered, by ``step``; within a
        group the others' turns and legal targets stay fixed.)"""
        state = self._game().state
        self._info_group = state.group_id
        if actor is None or state.over:
            pending = {t.player: t for t in state.pending}
            self.infos = {
                agent: self._info(seat, pending.get(seat))
                for seat, agent in enumerate(self.possible_agents)
                if agent in self.agents
            }
            return
        infos = self.infos
        seat = self.agent_name_mapping[actor]
        infos[actor] = self._info(seat, None)
        for turn in state.pending:  # after the actor's: a player may be asked again at once
            infos[self.possible_agents[turn.player]] = self._info(turn.player, turn)

    def _reset_event_streams(self) -> None:
        """Every seat's ``info["events"]`` starts again from the game's first event, numbered from 0."""
        n = self.config.num_players
        self._event_cursor = [0] * n  # engine events already looked at, per seat
        self._events_given = [0] * n  # events handed to the seat: the next one's ``seq``

    def _new_events(self, seat: int) -> list[dict[str, Any]]:
        """The events ``seat`` may see that it has not been given yet, as plain JSON (as in the log),
        numbered in the seat's own stream: the engine's index would show how many hidden events fell
        in between."""
        events = self._game().state.events
        given = self._events_given[seat]
        new = []
        for event in events[self._event_cursor[seat] :]:
            if visible(event, seat):
                record = event.to_json()
                record["seq"] = given
                given += 1
                new.append(json.loads(dumps(record)))  # a JSON round trip: copies, never the engine's data
        self._event_cursor[seat] = len(events)
        self._events_given[seat] = given
        return new

    def _info(self, seat: int, turn: Turn | None) -> dict[str, Any]:
        if turn is None:
            info: dict[str, Any] = {"action_kind": None}
        else:
            state = self._game().state
            kind = turn.kind
            # Kinds without targets give every member of the group the same info: build it once.
            key = (kind, state.group_id) if kind in _NO_TARGET_KINDS else None
            template = self._info_template if key is not None and self._info_template_key == key else None
            if template is None:
                template = {
                    "action_kind": KIND_NAME[kind],
                    "phase": KIND_PHASE[kind],
                    "round": state.round,
                    "legal_targets": [state.names[p] for p in legal_targets(state, turn)],
                    "answer_format": answer_format(kind, state.config.max_bid),
                }
                if kind is ActionKind.BID:
                    template["max_bid"] = state.config.max_bid
                elif kind is ActionKind.STATEMENT:
                    template["max_statement_words"] = state.config.max_statement_words
                    template["max_statement_chars"] = state.config.statement_char_limit
                    # Public (the rules list the role counts): what a statement may claim to be.
                    template["roles_in_game"] = [r.value for r in state.roles_in_game]
                if key is not None:
                    self._info_template, self._info_template_key = template, key
            info = template.copy()
            legal = template["legal_targets"]
            info["legal_targets"] = legal.copy() if legal else []  # policies may edit their copy
            if self.info_events:
                info["events"] = self._new_events(seat)
        fallback = self._last_fallbacks.get(self.possible_agents[seat])
        if fallback is not None:
            info["fallbacks"] = fallback
        return info


_NO_TARGET_KINDS = frozenset(ActionKind) - KINDS_WITH_TARGETS


def env(**kwargs: Any) -> AECEnv:
    """The environment for users: ``raw_env`` behind PettingZoo's order-enforcing wrapper."""
    return wrappers.OrderEnforcingWrapper(raw_env(**kwargs))
