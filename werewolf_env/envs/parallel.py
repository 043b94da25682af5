"""Werewolf as a native PettingZoo ``ParallelEnv`` (``werewolf_v2``): one step = one simultaneous group.

| Import       | ``from werewolf_env import parallel_env``                                              |
|--------------|----------------------------------------------------------------------------------------|
| Name         | ``werewolf_v2`` (the same game as the AEC env ``werewolf_env.envs.aec``)                    |
| Agents       | ``player_0`` ... ``player_{n-1}``, n = 5-16 (default 8); all stay until the game ends  |
| Actions      | one JSON object per action kind (``action_specs.ACTION_SPECS``); idle seats: ignored   |
| Observation  | ``Dict(observation=Box(0, 1, (OBS_SIZE,)), text=FreeText())``, as in the AEC env       |
| State        | ``Box(0, 1, (STATE_SIZE,))``: ``parallel_state.STATE_LAYOUT`` (hidden roles included)  |
| Rewards      | +1 winning team, -1 others, 0 to all on truncation; 0 on every other step              |

    from werewolf_env import parallel_env
    env = parallel_env(num_players=8)
    observations, infos = env.reset(seed=0)
    while env.agents:
        actions = {a: env.action_space(a).sample() for a in env.agents if infos[a]["action_kind"]}
        observations, rewards, terminations, truncations, infos = env.step(actions)

One step: the engine groups the turns that are answered simultaneously (the night's eliminate,
protect and unmask; the witch's heal, then her poison; every bid of a debate turn; one statement;
the self-analysis, then all peer analyses of that statement; all votes; all summaries; a dead
hunter's shot). ``step(actions)`` applies the answers of the current group's members, in the order
the AEC env steps them (``raw_env.simultaneous_agents()``), and returns when the next group is open
or the game is over. Which seats answer now: ``infos[agent]["action_kind"]`` is the action kind for
them and None for the others (with ``numeric_info=True``: ``NO_ACTION``); their observation's kind
block has its last slot ("none") set and its legal-targets block empty. An idle or dead seat's
action is ignored (it may be left out of ``actions``); a member of the group left out answers None,
which the engine replaces with its recorded fallback (as ``raw_env.step(None)`` would). In a game with a
witch, her heal and poison steps come every night even when she is dead, out of potions or has no victim
to heal: then nobody answers (every seat idles, nothing is logged), so how long a night takes never tells
her state (the phase graph marks such nodes: ``phases.PAUSE_NODES``).

Same game as the AEC env: the same seed and the same answers give the same events, log file,
``ground_truth()`` and ``snapshot()`` byte for byte (``tests/test_parallel_env.py`` plays heuristic
and random games through both). ``info["events"]`` (``info_events=True``) and ``info["fallbacks"]``
mean what they mean in the AEC env: events come with a seat's turn, fallbacks stay until it answers
again.

Agents: dead players stay in ``agents`` (idle, their actions ignored; a dead hunter still shoots)
until the game ends, because they are still on a team and receive its reward. PettingZoo's parallel
rules allow it: an agent leaves ``agents`` when it is terminated or truncated, and every seat is
terminated (a team won) or truncated (``max_rounds`` ran out) on the last step, when ``agents``
becomes empty. ``step`` after the end returns empty dicts.

Rewards: 0 on every step but the last; then +1 to every member of the winning team and -1 to the
others, or 0 to all on truncation.

Observations, infos, ``state()`` (the privileged global state for centralised critics, never part of
an observation), ``render()``, ``ground_truth()``, ``spectator_view()``, ``snapshot()``,
``log_extra()`` and ``log_path`` are those of the AEC env (``werewolf_env.envs.aec``); so are the
arguments (``render_mode``, ``log_dir``, ``config`` or config keywords, ``info_events``,
``numeric_info``). ``simultaneous_agents()`` lists the current group's members.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, ClassVar

from pettingzoo import ParallelEnv

from werewolf_env.actions import legal_targets
from werewolf_env.core import GameConfig
from werewolf_env.engine import PAUSE_NODES, advance
from werewolf_env.envs.base import METADATA, NO_ACTION, WerewolfBase

__all__ = ["NO_ACTION", "WerewolfParallelEnv", "parallel_env"]


class WerewolfParallelEnv(WerewolfBase, ParallelEnv):
    """See the module docstring."""

    metadata: ClassVar[dict[str, Any]] = dict(METADATA)

    def __init__(
        self,
        render_mode: str | None = None,
        log_dir: str | Path | None = None,
        config: GameConfig | None = None,
        info_events: bool = False,
        numeric_info: bool = False,
        **config_kwargs: Any,
    ) -> None:
        self._setup(render_mode, log_dir, config, info_events, numeric_info, config_kwargs)
        self.agents = []
        self.infos = {}

    def reset(
        self, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, Any], dict[str, dict[str, Any]]]:
        game = self._start_game(seed)
        # The graph's pausing nodes take a step whenever the game enters them (a game that never does: no step).
        game.state.pause_when_empty = PAUSE_NODES
        self.agents = self.possible_agents[:]
        self._update_infos()
        return self._observations(), dict(self.infos)

    def step(
        self, actions: dict[str, Any]
    ) -> tuple[dict[str, Any], dict[str, float], dict[str, bool], dict[str, bool], dict[str, dict[str, Any]]]:
        game = self._game()
        state = game.state
        if state.over:
            return {}, {}, {}, {}, {}
        fallbacks = self._last_fallbacks
        if state.paused:  # the step of a pausing node that asked nobody (``phases.PAUSE_NODES``)
            state.paused = False
            advance(state)
        else:
            for turn in list(state.pending):  # the group, in the AEC env's order
                agent = self.possible_agents[turn.player]
                result = self._answer(game, actions.get(agent))
                if result.fallbacks:
                    fallbacks[agent] = {"action_kind": result.kind.value, "reasons": list(result.fallbacks)}
                else:
                    fallbacks.pop(agent, None)
        if self._log is not None:
            self._log.flush_events()
        self._update_infos()
        observations = self._observations()
        agents = self.agents
        if state.over:
            truncated = state.truncated
            rewards = dict(zip(self.possible_agents, game.rewards(), strict=True))
            terminations = {agent: not truncated for agent in agents}
            truncations = {agent: truncated for agent in agents}
            rewards = {agent: rewards[agent] for agent in agents}
            self._close_log()
            self.agents = []
        else:
            rewards = dict.fromkeys(agents, 0.0)
            terminations = dict.fromkeys(agents, False)
            truncations = dict.fromkeys(agents, False)
        if self.render_mode == "human":
            self.render()
        return observations, rewards, terminations, truncations, dict(self.infos)

    def simultaneous_agents(self) -> list[str]:
        """The current group's members (who answer in the next ``step``), in the order applied."""
        if self.game is None or self.game.over:
            return []
        return [self._agent(t.player) for t in self.game.group]

    def _observations(self) -> dict[str, Any]:
        state = self._game().state
        pending = {turn.player: turn for turn in state.pending}
        renderer = self._renderer
        observations = {}
        for agent in self.agents:
            seat = self.agent_name_mapping[agent]
            turn = pending.get(seat)
            if turn is None:
                observations[agent] = renderer.observe(seat, None, [])
            else:
                observations[agent] = renderer.observe(seat, turn, legal_targets(state, turn))
        return observations

    def _update_infos(self, actor: str | None = None) -> None:
        state = self._game().state
        pending = {turn.player: turn for turn in state.pending}
        self.infos = {
            agent: self._info(self.agent_name_mapping[agent], pending.get(self.agent_name_mapping[agent]))
            for agent in self.agents
        }


def parallel_env(**kwargs: Any) -> WerewolfParallelEnv:
    """The parallel environment: ``WerewolfParallelEnv(**kwargs)`` (keywords as for ``werewolf_env.envs.aec``)."""
    return WerewolfParallelEnv(**kwargs)
