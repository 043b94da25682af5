"""Werewolf as a PettingZoo AEC environment (``werewolf_v2``).

| Import       | ``from werewolf_env import env`` (``raw_env``: unwrapped)                            |
|--------------|----------------------------------------------------------------------------------------|
| Name         | ``werewolf_v2``                                                                        |
| Agents       | ``player_0`` ... ``player_{n-1}``, n = 5-16 (default 8)                                |
| Roles        | werewolf, seer, doctor, villager, witch, hunter (``roles.ROLE_SPECS``; ``role_counts``) |
| Actions      | one JSON object per action kind (``action_specs.ACTION_SPECS``)                        |
| Observation  | ``Dict(observation=Box(0, 1, (OBS_SIZE,)), text=FreeText())``                          |
| Parallel API | Yes, native: ``parallel_env()`` (``werewolf_env.envs.parallel``): one step = one group       |
| State        | ``state()``: ``Box(0, 1, (STATE_SIZE,))``, hidden roles included (``parallel_state``)  |
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
``observe.OBS_LAYOUT``; role blocks have ``max(8, len(config.ruleset))`` role slots, so a ruleset of up to
eight roles does not change its size: ``observe.layout.layout_of``). Each part is made when first read
(``observation.Observation``, a ``dict``): a policy that reads only the vector, or only ``info``, never pays
for the text. What a part shows is fixed when
the observation is made, so one kept unread (a replay buffer) and read later shows its own step.

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
once and step them in this order with exactly the sequential result. ``werewolf_env.parallel_env()``
is the same game as a native PettingZoo ``ParallelEnv`` whose step is one such group (same seed and
answers: the same log, ``ground_truth()`` and snapshot byte for byte).

Global state: ``state()`` and ``state_space`` (PettingZoo's privileged state, for centralised critics):
a fixed-size float32 vector with every seat's hidden role, who is alive, the suspicion matrix, the
potions, the pending turns and the clock (blocks: ``parallel_state.STATE_LAYOUT``). Never part of
any seat's observation or info.

Numeric info: ``raw_env(numeric_info=True)`` (and ``parallel_env(numeric_info=True)``) makes every
info the same four keys of numbers and arrays, for every seat on every step, for libraries that
cannot hold strings in ``info`` (TorchRL's ``PettingZooWrapper``): ``action_kind`` (int: index in
``state.ACTION_KINDS``, ``NO_ACTION`` = ``len(ACTION_KINDS)`` when the seat has nothing to answer),
``round`` (int), ``legal_targets`` (int8 array of ``num_players``: 1 for each seat the action may
name), ``fallbacks`` (int: how many fallbacks the seat's last action needed). Dropped: ``phase``,
``answer_format``, the statement limits, ``max_bid``, ``roles_in_game``, ``self_analysis_next``,
``debate_ends``, the fallbacks' reasons (still in the log). Cannot be combined with ``info_events``.

Rendering: ``render_mode="ansi"``: ``render()`` returns the public transcript (what a spectator sees);
``"human"``: ``render()`` prints the public lines not printed yet and returns None, and ``step`` calls
it after each action, so the transcript scrolls by once, in order (PettingZoo's ``render_test``).

Version history:
- v2, later additions (games, observations and logs unchanged): observations are made when read (same values);
  a statement's info says ``self_analysis_next`` (whether the speaker's self-analysis follows); a statement's
  and its analyses' info say ``debate_ends`` (whether it is the day's last statement, so the vote comes next).
- v2: persuasion's inputs. Peer analyses also score the players a statement speaks of (``subject_suspicion``,
  on by default: ``info["subjects"]`` names them, the answer's ``suspicion_of`` scores them, each score is a
  suspicion update); private vote polls (``vote_polls``, off by default) add the action kind ``poll``, last
  in ``ACTION_KINDS``, so the numeric observation's kind block has one slot more: ``OBS_SIZE`` differs from
  v1. A poll's events are seen by no seat, not even its own, and never change the game. With
  ``subject_suspicion=False`` and polls off, games play and log as in v1 (but the config's new fields).
- v1, later additions (the AEC game, its observations and logs unchanged: default games log byte for byte
  as before): ``parallel_env()`` (native parallel API), ``state()`` / ``state_space``, ``numeric_info``;
  ``render_mode="human"`` prints the new public lines and returns None (it printed the whole transcript
  after each step, and ``render()`` returned it).
- v1: the Witch (heal, then poison: each potion once a game) and the Hunter (a last shot on death), chosen
  with ``role_counts``; roles and action kinds as data (``roles``, ``action_specs``); new action kinds
  heal, poison and shoot, so the numeric observation's kind block and its role blocks (room for eight
  roles) change size: ``OBS_SIZE`` differs from v0. Games of v0's roles play and log exactly as before.
- v0: first release.

Arguments (``raw_env(**kwargs)`` or ``raw_env(config=GameConfig(...))``):

"""

from __future__ import annotations

from pathlib import Path
from typing import Any, ClassVar

from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from werewolf_env.actions import legal_targets
from werewolf_env.core import GameConfig, arguments_table
from werewolf_env.envs.base import METADATA, NO_ACTION, NUMERIC_INFO_KEYS, WerewolfBase

__all__ = ["NO_ACTION", "NUMERIC_INFO_KEYS", "WerewolfBase", "env", "raw_env"]

__doc__ = (__doc__ or "") + arguments_table() + "\n"


class raw_env(WerewolfBase, AECEnv):  # noqa: N801 - PettingZoo naming convention
    metadata: ClassVar[dict[str, Any]] = {**METADATA, "is_parallelizable": False}

    def __init__(
        self,
        render_mode: str | None = None,
        log_dir: str | Path | None = None,
        config: GameConfig | None = None,
        info_events: bool = False,
        numeric_info: bool = False,
        **config_kwargs: Any,
    ) -> None:
        AECEnv.__init__(self)
        self._setup(render_mode, log_dir, config, info_events, numeric_info, config_kwargs)

    # ------------------------------------------------------------------ AEC API

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        game = self._start_game(seed)
        self.agents = self.possible_agents[:]
        self.rewards = {agent: 0.0 for agent in self.agents}
        self._cumulative_rewards = {agent: 0.0 for agent in self.agents}
        self.terminations = {agent: False for agent in self.agents}
        self.truncations = {agent: False for agent in self.agents}
        self.agent_selection = self._agent(game.current.player)  # type: ignore[union-attr]
        self._update_infos()

    def step(self, action: Any) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        game = self._game()
        state = game.state
        self._cumulative_rewards[agent] = 0.0
        result = self._answer(game, action)
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
            self.render()

    def observe(self, agent: str) -> dict[str, Any]:
        game = self._game()
        state = game.state
        seat = self.agent_name_mapping[agent]
        turn = game.pending_turn(seat)
        if turn is None:
            return self._renderer.observe(seat, None, [])
        return self._renderer.observe(seat, turn, legal_targets(state, turn))

    # ------------------------------------------------------------------ runner support

    def simultaneous_agents(self) -> list[str]:
        """Agents still to answer in the current simultaneous group, in the order they must be stepped."""
        if self.game is None or self.game.over:
            return []
        return [self._agent(t.player) for t in self.game.group]

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


def env(**kwargs: Any) -> AECEnv:
    """The environment for users: ``raw_env`` behind PettingZoo's order-enforcing wrapper."""
    return wrappers.OrderEnforcingWrapper(raw_env(**kwargs))
