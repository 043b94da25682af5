"""What the AEC env (``env.raw_env``) and the parallel env (``parallel.WerewolfParallelEnv``) share: the game
behind them, spaces, the log, infos (full or numeric), the global state, rendering and ground truth.

The two differ only in how turns are handed out (one agent per step, or one simultaneous group per step);
everything a seat receives is built here, so both show a seat the same observation and info.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, ClassVar

import numpy as np
from gymnasium import spaces

from werewolf_env.actions import (
    KIND_PHASE,
    FreeText,
    JsonActionSpace,
    ParseResult,
    answer_format,
    legal_targets,
    to_jsonable,
)
from werewolf_env.core import ACTION_KINDS, KIND_NAME, ActionKind, GameConfig, GameState, Turn, visible
from werewolf_env.engine import EventLog, Game, dumps
from werewolf_env.envs.parallel_state import global_state, state_space
from werewolf_env.observe import KIND_INDEX, ObservationRenderer, Transcript, layout_of

# PettingZoo metadata both envs share (the AEC env adds that it is not parallelizable by conversion).
METADATA: dict[str, Any] = {"name": "werewolf_v2", "render_modes": ["ansi", "human"]}
# What a statement event says about how its claims were found (read from the text, sent by the agent, both):
# it tells which seats' policies send structured claims, and a lineup may give each team its own policy.
# The log keeps it; a seat's ``info["events"]`` does not.
_AGENT_SIDE = ("claims_source", "claims_disagreement")


def seat_form(record: dict[str, Any]) -> dict[str, Any]:
    """An event record as a seat receives it: a statement without how its claims were found."""
    if record.get("type") == "statement":
        data = record["data"]
        for key in _AGENT_SIDE:
            data.pop(key, None)
        data["claims"] = [{k: v for k, v in claim.items() if k != "source"} for claim in data.get("claims", ())]
    return record


class WerewolfBase:
    """What the AEC env (``raw_env``) and the parallel env (``parallel.WerewolfParallelEnv``) share: the
    config and spaces, seeding, the game log, the infos, ``state()``, rendering and the evaluation API."""

    metadata: ClassVar[dict[str, Any]]
    # Whether observations carry text: the numeric RL envs (``werewolf_env.wrappers.numeric``) make vectors only.
    text_observations: ClassVar[bool] = True
    possible_agents: list[str]
    agents: list[str]
    infos: dict[str, dict[str, Any]]

    def _setup(
        self,
        render_mode: str | None,
        log_dir: str | Path | None,
        config: GameConfig | None,
        info_events: bool,
        numeric_info: bool,
        config_kwargs: dict[str, Any],
    ) -> None:
        if config is not None and config_kwargs:
            raise TypeError("pass either config=GameConfig(...) or config keywords, not both")
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be one of {self.metadata['render_modes']}, got {render_mode!r}")
        if numeric_info and info_events:
            raise ValueError("numeric_info=True keeps info numeric: it cannot carry info_events")
        self.config = config if config is not None else GameConfig(**config_kwargs)
        self.render_mode = render_mode
        self.log_dir = Path(log_dir) if log_dir is not None else None
        self.info_events = info_events
        self.numeric_info = numeric_info
        n = self.config.num_players
        self.possible_agents = [f"player_{i}" for i in range(n)]
        self.agent_name_mapping = {agent: i for i, agent in enumerate(self.possible_agents)}
        names = self.config.player_names()
        obs_size = layout_of(self.config.ruleset).size  # OBS_SIZE unless the ruleset has more than 8 roles
        self.observation_spaces = {
            agent: spaces.Dict(
                {
                    "observation": spaces.Box(0.0, 1.0, (obs_size,), np.float32),
                    "text": FreeText(),
                }
            )
            for agent in self.possible_agents
        }
        self.action_spaces = {agent: JsonActionSpace(names, self.config.max_bid) for agent in self.possible_agents}
        self.state_space = state_space(self.config.ruleset)
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
        self._legal_rows: dict[int, np.ndarray] = {}  # numeric infos' legal targets per seat, for one group:
        self._legal_rows_state: GameState | None = None  # (the game's state and its group id: the state itself,
        self._legal_rows_group = -1  # not its id, which a new game's state may reuse)
        self._rendered = 0  # characters of the public text already printed (render_mode="human")

    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    def _start_game(self, seed: int | None) -> Game:
        """A new game: seeded with ``seed``, or (None) with the next seed of the sequence the last
        seed started; its renderer, event streams and log."""
        if seed is not None:
            # Later unseeded resets draw from a generator seeded here, made only when needed.
            self._seed_rng, self._seed_source = None, seed
            game_seed = int(seed)
        else:
            if self._seed_rng is None:
                self._seed_rng = np.random.default_rng(self._seed_source)
            game_seed = int(self._seed_rng.integers(2**31 - 1))
        self._close_log()
        game = self.game = Game(self.config, game_seed)
        self._renderer = ObservationRenderer(game.state, text=self.text_observations)
        self._info_template_key = None  # keyed by group: the new game's groups count from 0 again
        self._rendered = 0
        self._last_fallbacks = {}
        self._reset_event_streams()
        if self.log_dir is not None:
            path = self.log_dir / f"game-{self._episode:05d}-seed{game_seed}.ndjson"
            self._log = EventLog(path, game)
        self._episode += 1
        return game

    def state(self) -> np.ndarray:
        """The privileged global state for centralised critics (``parallel_state.STATE_LAYOUT``): every
        seat's hidden role, who is alive, the suspicion matrix, the clock... Never shown to a seat."""
        game = self._game()
        return global_state(game.state, self._renderer)

    def render(self) -> str | None:
        """The public transcript (what a spectator sees). ``"ansi"``: returns it; ``"human"``: prints
        the lines not printed yet and returns None (``step`` does it after each action)."""
        if self.render_mode is None:
            return None
        if self.game is None:
            return "" if self.render_mode == "ansi" else None
        text = self._renderer.public_text()
        if self.render_mode == "ansi":
            return text
        if len(text) > self._rendered:  # the lines added since (after the "\n" that joins them on)
            print(text[self._rendered + 1 :] if self._rendered else text)
            self._rendered = len(text)
        return None

    def close(self) -> None:
        self._close_log()

    # ------------------------------------------------------------------ runner support

    def refresh_infos(self) -> None:
        """Rebuild every info now (after changing ``info_events`` between reset and the first step)."""
        self._reset_event_streams()
        self._update_infos()

    def _update_infos(self, actor: str | None = None) -> None:
        raise NotImplementedError

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

    def _answer(self, game: Game, action: Any) -> ParseResult:
        """Apply a policy's ``action`` as the current turn's answer (the numeric envs read integers here)."""
        return game.act(action)

    def _close_log(self) -> None:
        if self._log is not None:
            self._log.close()
            self._last_log_path = self._log.path
            self._log = None

    def _reset_event_streams(self) -> None:
        """Every seat's ``info["events"]`` starts again from the game's first event, numbered from 0."""
        n = self.config.num_players
        self._event_cursor = [0] * n  # engine events already looked at, per seat
        self._event_forms: list[str | None] = []  # each engine event as a seat receives it, serialised once
        self._events_given = [0] * n  # events handed to the seat: the next one's ``seq``

    def _new_events(self, seat: int) -> list[dict[str, Any]]:
        """The events ``seat`` may see that it has not been given yet, as plain JSON (as in the log),
        numbered in the seat's own stream: the engine's index would show how many hidden events fell
        in between."""
        events = self._game().state.events
        given = self._events_given[seat]
        new = []
        forms = self._event_forms
        forms.extend([None] * (len(events) - len(forms)))  # one slot per engine event
        for index in range(self._event_cursor[seat], len(events)):
            event = events[index]
            if visible(event, seat):
                # Every seat that sees an event gets the same record but for ``seq``: serialise it once, and give
                # each seat its own copy (a JSON round trip: copies, never the engine's objects).
                form = forms[index]
                if form is None:
                    record = event.to_json()
                    if event.type == "statement":  # ``seat_form`` edits it: a copy first, never the engine's
                        record = seat_form(json.loads(dumps(record)))
                    form = forms[index] = dumps(record)
                record = json.loads(form)
                record["seq"] = given
                given += 1
                new.append(record)
        self._event_cursor[seat] = len(events)
        self._events_given[seat] = given
        return new

    def _info(self, seat: int, turn: Turn | None) -> dict[str, Any]:
        if self.numeric_info:
            return self._numeric_info(seat, turn)
        if turn is None:
            info: dict[str, Any] = {"action_kind": None}
        else:
            state = self.game.state  # type: ignore[union-attr]  # a turn is pending: the game exists
            kind = turn.kind
            # Every member of a group asked the same kind gets the same info but for its legal targets (filled in
            # below, in their place): build it once per group and kind.
            key = (kind, state.group_id)
            template = self._info_template if self._info_template_key == key else None
            if template is None:
                template = {
                    "action_kind": KIND_NAME[kind],
                    "phase": KIND_PHASE[kind],
                    "round": state.round,
                    "legal_targets": None,
                    "answer_format": answer_format(kind, state.config.max_bid),
                }
                if kind is ActionKind.BID:
                    template["max_bid"] = state.config.max_bid
                elif kind is ActionKind.STATEMENT:
                    template["max_statement_words"] = state.config.max_statement_words
                    template["max_statement_chars"] = state.config.statement_char_limit
                    # Public (the rules list the role counts): what a statement may claim to be.
                    template["roles_in_game"] = [r.value for r in state.roles_in_game]
                    # Whether the speaker's self-analysis comes next (``config.analysis``): a policy may
                    # answer it with the statement (``werewolf_deception.agents.llm.folding``).
                    template["self_analysis_next"] = state.config.analysis_self
                if kind in _DEBATE_KINDS:
                    # Whether the statement made (or analysed) is the day's last, so the vote comes next: the
                    # debate always runs its full number of turns. A statement is counted once it is made.
                    made = state.debate_turn + (kind is ActionKind.STATEMENT)
                    template["debate_ends"] = made >= state.config.max_debate_turns
                self._info_template, self._info_template_key = template, key
            info = template.copy()
            names = state.names
            info["legal_targets"] = [names[p] for p in legal_targets(state, turn)]  # a new list: policies may edit it
            # Who the seat is and the names by seat: what ``actions.resolve_target`` reads an answer's target
            # against ("player_3", "me"), so that a policy can check its answer as the engine will read it.
            info["players"], info["seat"] = names, seat
            if kind is ActionKind.PEER_ANALYSIS and state.config.subject_suspicion:
                subjects = state.analysis_subjects(seat)
                if subjects:  # the players the statement spoke of, to score in ``suspicion_of``
                    info["subjects"] = [state.names[p] for p in subjects]
            if self.info_events:
                info["events"] = self._new_events(seat)
        if self._last_fallbacks:
            fallback = self._last_fallbacks.get(self.possible_agents[seat])
            if fallback is not None:
                info["fallbacks"] = fallback
        return info

    def _numeric_info(self, seat: int, turn: Turn | None) -> dict[str, Any]:
        """``numeric_info=True``: the same keys for every seat on every step, numbers and arrays only
        (see ``NUMERIC_INFO_KEYS``)."""
        state = self._game().state
        fallback = self._last_fallbacks.get(self.possible_agents[seat]) if self._last_fallbacks else None
        fallbacks = len(fallback["reasons"]) if fallback is not None else 0
        if turn is None:
            return {
                "action_kind": NO_ACTION,
                "round": state.round,
                "legal_targets": np.zeros(self.config.num_players, dtype=np.int8),
                "fallbacks": fallbacks,
            }
        # A turn's targets cannot change within its group: the row is built once per group and member.
        if self._legal_rows_state is not state or self._legal_rows_group != state.group_id:
            self._legal_rows_state, self._legal_rows_group = state, state.group_id
            self._legal_rows.clear()
        row = self._legal_rows.get(turn.player)
        if row is None:
            row = self._legal_rows[turn.player] = np.zeros(self.config.num_players, dtype=np.int8)
            row[legal_targets(state, turn)] = 1
        return {
            "action_kind": KIND_INDEX[turn.kind],
            "round": state.round,
            "legal_targets": row.copy(),  # each info its own array: a caller may write to it
            "fallbacks": fallbacks,
        }


# The turns whose info says ``debate_ends``: a statement and its analyses.
_DEBATE_KINDS = frozenset({ActionKind.STATEMENT, ActionKind.SELF_ANALYSIS, ActionKind.PEER_ANALYSIS})
NO_ACTION = len(ACTION_KINDS)  # numeric_info's action_kind when the seat has nothing to answer
# What ``numeric_info=True`` keeps in every info (each seat, each step, the same keys and shapes).
NUMERIC_INFO_KEYS: dict[str, str] = {
    "action_kind": "int: the kind's index in state.ACTION_KINDS (the observation's kind block); "
    "len(ACTION_KINDS) = nothing to answer",
    "round": "int: the current round",
    "legal_targets": "int8 array (num_players,): 1 for each seat the current action may name",
    "fallbacks": "int: how many fallbacks the seat's last action needed (0: none)",
}
