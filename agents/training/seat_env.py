"""``SeatEnv``: one seat of a game, driven turn by turn from outside in text; the other seats play inside.
``SeatsEnv``: several seats so driven (self-play), their simultaneous turns gathered for a batched policy.

For trainers of language models: the seat reads the env's text observation (its role card, what it knows,
the history, the turn and the JSON answer it asks for) and answers with that JSON; between two of its turns,
every other seat is played by its lineup policy (heuristic by default; random, or any OpenAI-compatible
model, a frozen one or the policy being trained behind its own server). The episode ends with the game: a
seat that dies watches the rest, so that the team's result is known. Its rewards are read from the game's
log by the ground truth (``werewolf_env.analysis.rewards``).

    env = SeatEnv({"num_players": 7}, lineup="heuristic", weights={"win": 1, "detection": 0.5})
    text = env.reset(seed=3, seat=2)
    while not env.done:
        text = env.act(my_model(text, env.turn))      # the JSON the turn asks for, as a dict or a string
    env.rewards(), env.reward()

``new_text`` is what the seat has not seen yet (the history since its last turn, its scores and the turn):
for trainers that append each observation to one growing conversation.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
from collections.abc import Coroutine, Mapping, Sequence
from pathlib import Path
from typing import Any, TypeVar

from werewolf_deception.agents.base import Policy
from werewolf_deception.agents.llm import EndpointDownError, history_of
from werewolf_deception.agents.play import Lineup, load_lineup, make_policy, seat_seed
from werewolf_env import GameConfig
from werewolf_env.analysis import RewardWeights, reward
from werewolf_env.analysis.rewards import rewards
from werewolf_env.envs import raw_env
from werewolf_env.observe import Section
from werewolf_env.record import GameRecord

# What a turn is, as the env's info gives it to a policy.
TURN_KEYS = ("action_kind", "legal_targets", "answer_format", "round", "phase")

T = TypeVar("T")


class _Table:
    """A game whose trained seats are driven from outside while a lineup plays the others: what ``SeatEnv``
    (one seat) and ``SeatsEnv`` (several) share."""

    def __init__(
        self,
        config: GameConfig | Mapping[str, Any] | None = None,
        lineup: Lineup | Mapping[str, Any] | str | Path | None = "heuristic",
        weights: RewardWeights | Mapping[str, float] | None = None,
        log_dir: str | Path | None = None,
    ) -> None:
        game_config = config if isinstance(config, GameConfig) else GameConfig(**dict(config or {}))
        self.raw = raw_env(config=game_config, log_dir=log_dir, info_events=True)
        self.lineup = load_lineup(lineup if not isinstance(lineup, Mapping) else dict(lineup), game_config.ruleset)
        self.weights = weights if isinstance(weights, RewardWeights) else RewardWeights(**dict(weights or {}))
        self.policy_errors = 0  # other seats' policies that raised (the env's fallback answered for them)
        self._policies: dict[str, Policy] = {}
        self._record: GameRecord | None = None
        self._record_events = -1  # how many events the log held when ``_record`` was read
        # One event loop for every call of the other seats' policies: an LLM seat's client keeps its
        # connections across turns, and they belong to the loop that opened them (a new loop per call, as
        # ``asyncio.run`` gives, finds them closed: "Event loop is closed", and the env's fallback plays).
        self._loop: asyncio.AbstractEventLoop | None = None
        self._forget()

    def _forget(self) -> None:
        """Clear what the trained seats saw of the last game (at construction and at every reset)."""

    @property
    def done(self) -> bool:
        """The game is over (no trained seat has anything more to answer)."""
        return not self.raw.agents

    def _turn_of(self, agent: str) -> dict[str, Any]:
        """A seat's pending turn as a trainer sees it (``TURN_KEYS`` of its info)."""
        info = self.raw.infos[agent]
        return {key: info[key] for key in TURN_KEYS if key in info}

    def _check_in_play(self) -> None:
        if self.done:
            raise ValueError("the game is over: nothing is waiting for an answer (call reset)")

    def _new_game(self, seed: int | None, trained: Sequence[int | str] | None, every_seat: bool) -> list[int]:
        """Reset the env; the trained seats (indices, ``player_<i>`` or names; when None, every seat or the
        seed's seat, ``seed % players``) and a lineup policy for every other seat. Seats that cannot play are
        refused before anything moves: the game in play, its seats and its policies stay as they were."""
        if trained is not None:
            seats = [_seat_index(seat, self.raw.config.player_names()) for seat in trained]
            if not seats or len(set(seats)) != len(seats):
                raise ValueError(f"the trained seats must be distinct and at least one: {list(trained)!r}")
        self.raw.reset(seed=seed)
        self._close_policies()
        game = self.raw.game
        assert game is not None
        state = game.state
        if trained is None:
            seats = list(range(state.num_players)) if every_seat else [(state.seed or 0) % state.num_players]
        self._policies = {
            agent: make_policy(
                self.lineup.spec_for(agent, state.roles[i], state.config.ruleset), seat_seed(state.seed, i)
            )
            for i, agent in enumerate(self.raw.possible_agents)
            if i not in seats
        }
        self.policy_errors = 0
        self._record = None
        return seats

    @property
    def events(self) -> list[dict[str, Any]]:
        """The game's events, hidden ones included: for rewards and logs, never for a seat's model."""
        game = self.raw.game
        return [] if game is None else [event.to_json() for event in game.state.events]

    @property
    def record(self) -> GameRecord:
        """The game's record so far: read again whenever the log has grown since (a record read before the
        game ended must not stand for the whole game)."""
        game = self.raw.game
        logged = -1 if game is None else len(game.state.events)
        if self._record is None or logged != self._record_events:
            self._record, self._record_events = GameRecord.from_events(self.events), logged
        return self._record

    def close(self) -> None:
        self._close_policies()
        self.raw.close()
        loop, self._loop = self._loop, None
        if loop is not None:
            loop.close()

    def _other(self, agent: str) -> Any:
        """Another seat's answer; a policy that raises is absorbed as the runner absorbs it (the env's
        fallback answers), but for a server that can no longer answer, which stops the game."""
        try:
            policy, observation, info = self._policies[agent], self.raw.observe(agent), self.raw.infos[agent]
            if type(policy).aact is Policy.aact:  # a policy of plain ``act`` (heuristic, random): no loop
                return policy.act(observation, info)
            return self._run(policy.aact(observation, info))
        except (KeyboardInterrupt, SystemExit, EndpointDownError):
            raise
        except Exception as exc:  # any policy failure is a recorded fallback, as in the runner
            self.policy_errors += 1
            return {"policy_error": type(exc).__name__}

    def _close_policies(self) -> None:
        policies, self._policies = self._policies, {}
        for policy in policies.values():
            if type(policy).aclose is not Policy.aclose:  # only LLM seats hold connections
                self._run(policy.aclose())

    def _run(self, work: Coroutine[Any, Any, T]) -> T:
        """``work`` run to its end on the env's own loop (in a worker thread when the caller's thread is
        already running a loop, as a notebook's is)."""
        if self._loop is None or self._loop.is_closed():
            self._loop = asyncio.new_event_loop()
        loop = self._loop
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            return loop.run_until_complete(work)
        with concurrent.futures.ThreadPoolExecutor(1, thread_name_prefix="seat_env") as worker:
            return worker.submit(loop.run_until_complete, work).result()


class SeatEnv(_Table):
    """One seat of one game at a time; ``reset`` starts the next (see the module docstring)."""

    def _forget(self) -> None:
        self.seat = 0
        self.observation = ""  # the seat's whole text observation now (its turn's, or the end of the game)
        self.new_text = ""  # what of it the seat had not seen at its previous turn

    @property
    def agent(self) -> str:
        return f"player_{self.seat}"

    @property
    def turn(self) -> dict[str, Any] | None:
        """The seat's pending turn (``action_kind``, ``legal_targets``, ``answer_format``, ``round``,
        ``phase``); None once the game is over."""
        if self.done:
            return None
        return self._turn_of(self.agent)

    def reset(self, seed: int | None = None, seat: int | str | None = None) -> str:
        """A new game, the seat's view of its first turn. ``seat``: an index, ``"player_<i>"`` or a player's
        name; by default the seed's seat (``seed % players``), so that a seed names one deal and one seat."""
        (chosen,) = self._new_game(seed, None if seat is None else [seat], every_seat=False)
        self._forget()
        self.seat = chosen
        self._advance()
        return self.observation

    def act(self, answer: Mapping[str, Any] | str | None) -> str:
        """Answer the seat's turn (the JSON it asks for; anything else is recorded as a fallback, as for
        any policy), play the other seats until the seat's next turn, and return its observation then."""
        self._check_in_play()
        self.raw.step(dict(answer) if isinstance(answer, Mapping) else answer)
        self._advance()
        return self.observation

    # ------------------------------------------------------------------ results

    def rewards(self) -> dict[str, float]:
        """Every reward of the seat so far (``werewolf_env.analysis.rewards``); final once ``done``."""
        return rewards(self.record, self.seat)

    def reward(self) -> float:
        """The weighted reward of the seat (``weights``)."""
        return reward(self.record, self.seat, self.weights)

    # ------------------------------------------------------------------ playing the others

    def _advance(self) -> None:
        raw = self.raw
        while raw.agents:
            agent = raw.agent_selection
            if raw.terminations[agent] or raw.truncations[agent]:
                raw.step(None)
            elif agent == self.agent:
                break
            else:
                raw.step(self._other(agent))
        previous = self.observation
        if raw.agents:
            self.observation = str(raw.observe(self.agent)["text"])
        else:
            self.observation = _end_text(self.record, self.seat)
            self._close_policies()  # the game is over: its model seats' connections are not needed any more
        self.new_text = new_text_since(previous, self.observation)


class SeatsEnv(_Table):
    """Several seats driven from outside (self-play, or a team), their simultaneous turns gathered.

    ``pending`` holds every trained seat that must answer now, with its turn: the seats of one simultaneous
    group (one turn's bids, the analyses of one statement, the votes, the night), whose observations do not
    depend on each other's answers, so that a batched policy answers them in one batch; ``act_all`` takes their
    answers together. The other seats of the group are played by the lineup, and the group is stepped in the
    env's order, so the game is the one the runner would play with the same answers.

        env = SeatsEnv({"num_players": 7})
        texts = env.reset(seed=3, seats=[0, 4])        # {seat: observation} of the seats to answer first
        while not env.done:
            texts = env.act_all(my_model.batch(texts))  # {seat: answer} for exactly those seats
    """

    def _forget(self) -> None:
        self.seats: list[int] = []
        self.observations: dict[int, str] = {}  # each trained seat's whole observation at its latest turn
        self.new_texts: dict[int, str] = {}  # what each pending seat had not seen at its previous turn
        self._group: list[str] = []  # the simultaneous group waiting for the trained seats, in the env's order
        self._others: dict[str, Any] = {}  # the lineup's answers for the rest of that group

    @property
    def pending(self) -> dict[int, dict[str, Any]]:
        """The trained seats that must answer now, each with its turn (as ``SeatEnv.turn``)."""
        out = {}
        for agent in self._group:
            seat = self.raw.agent_name_mapping[agent]
            if seat in self.seats:
                out[seat] = self._turn_of(agent)
        return out

    def reset(self, seed: int | None = None, seats: Sequence[int | str] | None = None) -> dict[int, str]:
        """A new game with these trained seats (every seat by default); the observations of the seats that
        must answer first."""
        chosen = sorted(self._new_game(seed, seats, every_seat=True))
        self._forget()
        self.seats = chosen
        return self._advance()

    def act_all(self, answers: Mapping[int, Mapping[str, Any] | str | None]) -> dict[int, str]:
        """Answer every pending seat (``{seat: answer}``, exactly the seats of ``pending``), play on until some
        trained seat must answer again; the observations of the seats that must answer then."""
        self._check_in_play()
        wanted = set(self.pending)
        given = set(answers)
        if given != wanted:
            raise ValueError(f"answers for seats {sorted(given)}, but the seats to answer are {sorted(wanted)}")
        for agent in self._group:
            seat = self.raw.agent_name_mapping[agent]
            answer = answers[seat] if seat in wanted else self._others[agent]
            self.raw.step(dict(answer) if isinstance(answer, Mapping) else answer)
        self._group, self._others = [], {}
        return self._advance()

    def rewards(self, seat: int) -> dict[str, float]:
        """Every reward of a trained seat so far (``werewolf_env.analysis.rewards``); final once ``done``."""
        return rewards(self.record, seat)

    def reward(self, seat: int) -> float:
        """The weighted reward of a trained seat (``weights``)."""
        return reward(self.record, seat, self.weights)

    def _advance(self) -> dict[int, str]:
        raw = self.raw
        while raw.agents:
            members = raw.simultaneous_agents()
            if not members:  # the game is over: retire every agent
                raw.step(None)
                continue
            if any(raw.agent_name_mapping[agent] in self.seats for agent in members):
                # Within a group no observation depends on another member's answer: the lineup's answers
                # can be taken now, and the group stepped in order once the trained seats have answered.
                self._group = members
                self._others = {a: self._other(a) for a in members if raw.agent_name_mapping[a] not in self.seats}
                break
            for agent in members:
                raw.step(self._other(agent))
        texts: dict[int, str] = {}
        if raw.agents:
            for seat in self.pending:
                text = str(raw.observe(raw.possible_agents[seat])["text"])
                self.new_texts[seat] = new_text_since(self.observations.get(seat, ""), text)
                self.observations[seat] = texts[seat] = text
        else:
            for seat in self.seats:
                self.observations[seat] = _end_text(self.record, seat)
            self._close_policies()  # the game is over: its model seats' connections are not needed any more
        return texts


def _seat_index(seat: int | str, names: Sequence[str]) -> int:
    if isinstance(seat, int) and not isinstance(seat, bool) and 0 <= seat < len(names):
        return seat
    if isinstance(seat, str):
        if seat.startswith("player_") and seat[7:].isdigit() and int(seat[7:]) < len(names):
            return int(seat[7:])
        if seat in names:
            return names.index(seat)
    raise ValueError(f"seat {seat!r} is not a seat of this game: an index 0-{len(names) - 1}, player_<i> or a name")


def _end_text(record: GameRecord, seat: int) -> str:
    if record.winner is None:
        return "The game is over: it ended undecided."
    outcome = "won" if record.team(seat) == record.winner else "lost"
    return f"The game is over: the {record.winner} team won. You ({record.roles[seat]}) {outcome}."


def new_text_since(previous: str, current: str) -> str:
    """What ``current`` shows that ``previous`` did not: the history lines since, the seat's scores and the
    sections after the history (its notes, the turn); all of ``current`` when there was nothing before."""
    if not previous or Section.HISTORY not in current:
        return current
    before, now = history_of(previous), history_of(current)
    lines = now[len(before) :] if before and now.startswith(before) else now
    scores = next((line for line in current.splitlines() if line.startswith(Section.SUSPICION)), "")
    after_history = current.find(now) + len(now) if now else current.find("\n\n" + Section.TASK)
    tail = current[max(after_history, 0) :]
    parts = [part.strip("\n") for part in (lines, scores, tail) if part.strip()]
    return "\n\n".join(parts)
