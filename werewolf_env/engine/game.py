"""``Game``: the pure rules engine behind the environment (no I/O, no clock, no global RNG).

    game = Game(GameConfig(), seed=7)
    while not game.over:
        turn = game.current                # Turn(player=seat, kind=ActionKind...)
        game.act({"bid": 3})               # any raw action; bad input becomes a recorded fallback

``game.group`` lists the turns of the current simultaneous group: their players' observations do
not change while the others in the group answer, so they may be asked all at once.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from werewolf_env.actions import KIND_PHASE, UNSEEN_KINDS, ParseResult, legal_targets, parse, to_jsonable
from werewolf_env.core import KIND_NAME, Event, GameConfig, GameState, Turn
from werewolf_env.engine.errors import GameOverError
from werewolf_env.engine.phases import advance
from werewolf_env.engine.rules import rewards, start_game


class Game:
    def __init__(self, config: GameConfig, seed: int) -> None:
        rng = np.random.default_rng(seed)
        n = config.num_players
        if config.roles is not None:
            roles = list(config.roles)
        else:
            pool = [role for role, count in config.seat_counts().items() for _ in range(count)]
            roles = [pool[i] for i in rng.permutation(n)]
        self.state = GameState(
            config=config,
            seed=seed,
            rng=rng,
            names=config.player_names(),
            roles=roles,
            alive=[True] * n,
            suspicion=np.full((n, n), config.suspicion_prior, dtype=np.float64),
            notes=[[] for _ in range(n)],
        )
        start_game(self.state)
        advance(self.state)

    # ---------------------------------------------------------------- turn order

    @property
    def over(self) -> bool:
        return self.state.over

    @property
    def current(self) -> Turn | None:
        return self.state.pending[0] if self.state.pending else None

    @property
    def group(self) -> list[Turn]:
        """Turns still to be answered in the current simultaneous group, in the order they are applied."""
        return list(self.state.pending)

    def pending_turn(self, seat: int) -> Turn | None:
        for turn in self.state.pending:
            if turn.player == seat:
                return turn
        return None

    def legal_targets(self, turn: Turn) -> list[int]:
        return list(legal_targets(self.state, turn))

    # ---------------------------------------------------------------- acting

    def act(self, raw: Any) -> ParseResult:
        """Apply ``raw`` as the current turn's answer and advance until someone must answer again."""
        state = self.state
        if state.over or not state.pending:
            raise GameOverError("the game is over: no turn is waiting for an action")
        turn = state.pending[0]
        raw = to_jsonable(raw)
        return self._apply(state, turn, raw, parse(raw, turn, state))

    def act_parsed(self, raw: Any, result: ParseResult) -> ParseResult:
        """Apply an answer already read: ``raw`` a JSON value and ``result`` what ``parse(raw, turn, state)``
        returned for the current turn, as ``act(raw)`` would. For callers that build their answers and memoise
        their reading where it cannot depend on the game (``DiscreteCodec.act``); the logged game is the same."""
        state = self.state
        if state.over or not state.pending:
            raise GameOverError("the game is over: no turn is waiting for an action")
        turn = state.pending[0]
        if result.kind is not turn.kind:
            raise ValueError(f"a {result.kind.value} answer cannot answer a {turn.kind.value} turn")
        return self._apply(state, turn, raw, result)

    def _apply(self, state: GameState, turn: Turn, raw: Any, result: ParseResult) -> ParseResult:
        action = result.action
        data: dict[str, Any] = {"kind": KIND_NAME[turn.kind], "raw": raw, "parsed": action}
        if result.fallbacks:
            data["fallbacks"] = result.fallbacks
        if result.repairs:
            data["repairs"] = result.repairs
        phase = KIND_PHASE[turn.kind]
        events = state.events
        audience = () if turn.kind in UNSEEN_KINDS else (turn.player,)
        events.append(Event(len(events), state.round, phase, "action", turn.player, audience, data))
        notes = action.get("notes")
        if notes:
            state.notes[turn.player].append((state.round, phase, notes))
        state.group_actions[turn.player] = action
        state.pending.pop(0)
        state.turns_taken += 1
        if not state.pending:
            advance(state)
        return result

    # ---------------------------------------------------------------- evaluation (never shown to agents)

    def rewards(self) -> list[float]:
        return rewards(self.state)

    def ground_truth(self) -> dict[str, Any]:
        """Hidden roles, night outcomes and the grounded lie label of every statement."""
        s = self.state
        return {
            "roles": [r.value for r in s.roles],
            "names": list(s.names),
            "statements": [
                {
                    "statement_id": st.id,
                    "round": st.round,
                    "turn": st.turn,
                    "speaker": st.speaker,
                    "speaker_role": s.roles[st.speaker].value,
                    "text": st.text,
                    "claims_source": st.claims_source,
                    "claims_disagreement": st.claims_disagreement,
                    "truncated": st.truncated,
                    **st.verdict,
                }
                for st in s.statements
            ],
            "night_deaths": [{"round": r, "victim": v} for r, v in s.night_deaths],
            "exiles": [{"round": r, "exiled": e} for r, e in s.exiles],
            "seer_results": {str(k): [list(x) for x in v] for k, v in sorted(s.seer_results.items())},
            "protections": {str(k): [list(x) for x in v] for k, v in sorted(s.protect_history.items())},
            "winner": s.winner.value if s.winner else None,
            "truncated": s.truncated,
        }

    def snapshot(self) -> dict[str, Any]:
        """The whole state as plain JSON (what the log's final line holds and replay compares)."""
        s = self.state
        return {
            "seed": s.seed,
            "config": s.config.model_dump(mode="json"),
            "names": list(s.names),
            "roles": [r.value for r in s.roles],
            "alive": list(s.alive),
            "round": s.round,
            "phase": s.phase,
            "debate_turn": s.debate_turn,
            "over": s.over,
            "winner": s.winner.value if s.winner else None,
            "truncated": s.truncated,
            "rewards": rewards(s),
            "pending": [[t.player, t.kind.value] for t in s.pending],
            "suspicion": s.suspicion.tolist(),
            "notes": [[list(n) for n in notes] for notes in s.notes],
            "night_deaths": [list(x) for x in s.night_deaths],
            "exiles": [list(x) for x in s.exiles],
            "revealed": {str(k): v.value for k, v in sorted(s.revealed.items())},
            "seer_results": {str(k): [list(x) for x in v] for k, v in sorted(s.seer_results.items())},
            "protections": {str(k): [list(x) for x in v] for k, v in sorted(s.protect_history.items())},
            "votes": s.vote_history,
            "statements": [
                {
                    "id": st.id,
                    "round": st.round,
                    "turn": st.turn,
                    "speaker": st.speaker,
                    "text": st.text,
                    "claims": st.claims,
                    "claims_source": st.claims_source,
                    "claims_disagreement": st.claims_disagreement,
                    "truncated": st.truncated,
                    "verdict": st.verdict,
                }
                for st in s.statements
            ],
            "turns_taken": s.turns_taken,
            "events": len(s.events),
        }
