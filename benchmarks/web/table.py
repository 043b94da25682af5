"""Hosted games: a ``Table`` is one engine game with people in some seats and agents in the rest; ``Host`` holds
the tables of one server and the links that open them.

Each person's seat has a link with a secret token (``secrets.token_urlsafe``); the table starts once every person's
page is open (or the host starts it), plays ``play_game`` (the same engine game as ``werewolf-bench run``: the
same log, replay, report and export) and writes its log to the host's run folder (``games/``) when it ends; a
game the server stops keeps its log so far in ``unfinished/``. A seat's page asks the table
for ``seat_view(token)``: the env's observation of that seat and its open turn while the game runs, and the
reveal (``reveal``: every role, which statements were lies and whose analyses caught them) once it is over.

In a study (``StudySettings``) each participant gets a game of their own with one human seat; the log holds the
consent text they accepted and an anonymous participant id (random, never a name or an address) in a ``study``
record of that seat.
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
import secrets
import shutil
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from werewolf_deception.agents import GameResult, Lineup, Policy, make_policy, play_game
from werewolf_deception.agents.llm import EndpointPool
from werewolf_deception.agents.play import Seat
from werewolf_deception.benchmarks.runs import keep_log
from werewolf_deception.benchmarks.web.seat import AWAY_SECONDS, AnswerRefusedError, WebSeat
from werewolf_env import GameConfig
from werewolf_env.record import GameRecord

log = logging.getLogger(__name__)
KEEP_DONE_SECONDS = 24 * 3600.0  # how long a finished game's pages (its reveal) stay reachable

# What a participant of a study reads and accepts before their game (``--consent`` replaces it).
DEFAULT_CONSENT = (
    "This is a research study of deception in the game Werewolf. You will play one game in one seat; the other "
    "seats are played by computer agents. Your moves, statements and analyses are recorded with an anonymous "
    "participant id and used for research. No name, e-mail or network address of yours is recorded. You may "
    "stop at any time by closing the page; a game you leave is finished by the game's fallbacks."
)


class TooManyTablesError(ValueError):
    """The host has ``max_open`` games waiting or playing: a new one waits until one ends."""


@dataclass(frozen=True)
class StudySettings:
    """A study: one human seat per game; the consent text each participant accepts first."""

    consent: str = DEFAULT_CONSENT

    @property
    def consent_id(self) -> str:
        """A short fingerprint of the consent text, so that a log says which text was accepted."""
        return hashlib.sha256(self.consent.encode()).hexdigest()[:12]


@dataclass
class HumanSeat:
    token: str
    agent: str
    seat: WebSeat
    joined: bool = False
    participant: str | None = None  # a study's anonymous participant id


@dataclass
class Table:
    """One hosted game. ``humans``: the agent ids played by people; the rest follow ``lineup``."""

    host: Host
    config: GameConfig
    lineup: Lineup
    seed: int
    humans: list[str]
    clock: float | None
    study: bool = False
    id: str = field(default_factory=lambda: secrets.token_urlsafe(6))
    host_token: str = field(default_factory=lambda: secrets.token_urlsafe(18))
    seats: dict[str, HumanSeat] = field(default_factory=dict)  # token -> seat
    result: GameResult | None = None
    error: str | None = None
    log_path: Path | None = None
    created: float = field(default_factory=time.monotonic)
    _task: asyncio.Task[None] | None = None
    _reveal: dict[str, Any] | None = None

    def __post_init__(self) -> None:
        for agent in self.humans:
            token = secrets.token_urlsafe(18)
            self.seats[token] = HumanSeat(token, agent, WebSeat(agent, self.clock, self.host.away_seconds))

    @property
    def state(self) -> str:
        """waiting (for people to open their links), playing, over, failed, stopped (the server stopped it), or
        expired (nobody started it within the host's ``wait_limit``)."""
        if self.error is not None:
            return "stopped" if self.host.closing else "failed"
        if self.result is not None:
            return "over"
        if self._task is not None:
            return "playing"
        return "expired" if time.monotonic() - self.created > self.host.wait_limit else "waiting"

    def changed(self) -> None:
        """Something every page of the table shows changed (who has joined, the game's state): wake them all."""
        for human in self.seats.values():
            human.seat.changed()

    def join(self, token: str, participant: str | None = None) -> HumanSeat:
        """A person's page is open (its script joined): the game starts once every person's is."""
        seat = self.seats[token]
        if not seat.joined and self.state == "waiting":
            seat.joined = True
            if participant is not None:
                seat.participant = participant
                seat.seat.note_study(participant, self.host.study.consent if self.host.study else "", self.study_id)
            if all(s.joined for s in self.seats.values()):
                self.start()
            self.changed()
        return seat

    @property
    def study_id(self) -> str:
        return self.host.study.consent_id if self.host.study else ""

    def start(self) -> None:
        """Play the game now; a seat nobody has opened is away, so its turns are the fallback's until someone does."""
        if self._task is None and self.state == "waiting":
            self._task = asyncio.get_running_loop().create_task(self._play())
            self.changed()

    def stop(self) -> None:
        """The server stops: end the game where it is (its log so far is kept, as unfinished)."""
        if self._task is not None and not self._task.done():
            self._task.cancel()
        self.changed()

    async def _play(self) -> None:
        humans = {s.agent: s.seat for s in self.seats.values()}
        pool = EndpointPool(concurrency=8)

        def policy_of(where: Seat) -> Policy:
            if where.agent in humans:
                return humans[where.agent]
            policy = make_policy(where.spec, where.seed, self.host.cache_dir, pool)
            policy.name = where.spec.label()  # the report groups seats by their lineup label, as in a run
            return policy

        scratch = self.host.out / f".table-{self.id}"
        try:
            result = await play_game(self.config, self.lineup, self.seed, log_dir=scratch, policy_factory=policy_of)
            if result.log_path:
                games = self.host.out / "games"
                games.mkdir(parents=True, exist_ok=True)
                self.log_path = keep_log(Path(result.log_path), games)
            self._reveal = reveal_of(GameRecord.from_events(result.events), set(self.humans))
            result.trail = None  # the game's events are in its log: a long study keeps no game in memory
            self.result = result
        except asyncio.CancelledError:
            self.error = "the server stopped before the game ended"
            self._keep_unfinished(scratch)
            raise
        except Exception as exc:  # an LLM seat's server went away, a disk filled: the page says so
            log.exception("table %s stopped", self.id)
            self.error = f"the game stopped: {type(exc).__name__}: {exc}"
            self._keep_unfinished(scratch)
        finally:
            await pool.aclose()
            shutil.rmtree(scratch, ignore_errors=True)
            self.changed()

    def _keep_unfinished(self, scratch: Path) -> None:
        """A game that did not end keeps what its log holds, apart from the finished games (reports read those)."""
        for partial in scratch.glob("*.ndjson"):
            folder = self.host.out / "unfinished"
            folder.mkdir(parents=True, exist_ok=True)
            self.log_path = keep_log(partial, folder)

    def seat_view(self, token: str) -> dict[str, Any]:
        """What seat ``token``'s page shows now (only what that seat may see; the reveal once the game is over)."""
        human = self.seats[token]
        seat = human.seat
        turn = seat.turn
        view: dict[str, Any] = {
            "table": self.id,
            "state": self.state,
            "agent": human.agent,
            "name": self.config.player_names()[int(human.agent.rsplit("_", 1)[1])],
            "card": seat.view.card,
            "history": seat.view.history,
            "alive": seat.view.alive,
            "turn": turn.to_json() if turn is not None else None,
            "notice": seat.notice,
            "waiting_for": sorted(s.agent for s in self.seats.values() if not s.joined),
            "study": self.study,
            "error": self.error,
            "reveal": None,
            # The seat's own count of changes to what it sees (``WebSeat.version``): the page drops a view older
            # than one it has drawn (a GET answered before a streamed view but arriving after it).
            "version": seat.version,
        }
        if self.result is not None:
            view["reveal"] = self.reveal(human.agent)
        return view

    def answer(self, token: str, number: int, answer: Any) -> None:
        if self.state != "playing":
            raise AnswerRefusedError("the game is over", stale=True)
        self.seats[token].seat.answer(number, answer)

    def reveal(self, agent: str) -> dict[str, Any]:
        """The end of the game for the seat ``agent``: every role, the ground truth of each statement and who
        caught its lies; the seat's own record as a lie catcher."""
        assert self._reveal is not None, "a reveal before the game is over"
        seat = int(agent.rsplit("_", 1)[1])
        mine = [s for s in self._reveal["statements"] if s["speaker_seat"] != seat]
        judged = [s for s in mine if seat in s["judged_by"]]
        flagged = [s for s in judged if seat in s["flagged_by"]]
        return {
            **self._reveal,
            "you": {
                "seat": seat,
                "lies_judged": sum(1 for s in judged if s["lie"]),
                "lies_caught": sum(1 for s in flagged if s["lie"]),
                "truths_judged": sum(1 for s in judged if s["lie"] is False),
                "false_alarms": sum(1 for s in flagged if s["lie"] is False),
                "lies_told": sum(1 for s in self._reveal["statements"] if s["speaker_seat"] == seat and s["lie"]),
            },
        }


def reveal_of(record: GameRecord, humans: set[str]) -> dict[str, Any]:
    """The ground truth of a finished game, for every seat's end page: roles, winners, each statement's truth and
    the analyses of it (who flagged it; an analysis the env's fallback answered counts as none)."""
    names = record.names
    statements = []
    for st in record.statements:
        answered = [label for label in st.peer_labels if label.answered]
        statements.append(
            {
                "id": st.id,
                "round": st.round,
                "speaker": names[st.speaker],
                "speaker_seat": st.speaker,
                "text": st.text,
                "lie": st.lie if st.labelled else None,
                "lie_type": st.lie_type,
                "judged_by": [label.observer for label in answered],
                "flagged_by": [label.observer for label in answered if label.is_deceptive],
                "caught_by": [names[label.observer] for label in answered if label.is_deceptive],
                "missed_by": [names[label.observer] for label in answered if not label.is_deceptive],
                "self_flagged": st.self_label.is_deceptive if st.self_answered and st.self_label else None,
            }
        )
    alive = record.alive_at_end()
    return {
        "winner": record.winner,
        "players": [
            {
                "seat": seat,
                "name": names[seat],
                "role": record.roles[seat],
                "team": record.team(seat),
                "human": f"player_{seat}" in humans,
                "alive": alive[seat],
            }
            for seat in range(record.num_players)
        ],
        "statements": statements,
    }


@dataclass
class Host:
    """The tables of one server, the defaults of a new one, and where their logs go."""

    out: Path
    config: GameConfig
    lineup: Lineup
    humans: int = 1
    clock: float | None = 180.0
    seed: int | None = None
    study: StudySettings | None = None
    cache_dir: Path | None = None
    max_open: int = 64  # games waiting or playing at once: a page that anyone can reach cannot fill the memory
    wait_limit: float = 3600.0  # seconds a game waits for its people before its links expire
    away_seconds: float = AWAY_SECONDS  # a seat nobody follows for this long: its turns are the fallback's
    tables: dict[str, Table] = field(default_factory=dict)
    closing: bool = False  # the server is shutting down: streams end
    _seat_tokens: dict[str, Table] = field(default_factory=dict)
    _host_tokens: dict[str, Table] = field(default_factory=dict)
    _seeds: int = 0

    def new_table(
        self,
        config: GameConfig | None = None,
        humans: int | None = None,
        clock: float | None = None,
        study: bool = False,
    ) -> Table:
        """A table of ``humans`` people (the first seats) and the lineup's agents in the rest; ``clock``: seconds
        per turn (0: none; None: the host's)."""
        config = config or self.config
        count = self.humans if humans is None else humans
        self._forget_old()
        open_tables = sum(1 for table in self.tables.values() if table.state in ("waiting", "playing"))
        if open_tables >= self.max_open:
            raise TooManyTablesError(f"{open_tables} games are waiting or playing here already; try again later")
        if not 1 <= count <= config.num_players:
            raise ValueError(f"people: between 1 and {config.num_players} for a {config.num_players}-player game")
        if self.seed is None:
            seed = secrets.randbelow(2**31)
        else:
            seed, self._seeds = self.seed + self._seeds, self._seeds + 1
        table = Table(
            host=self,
            config=config,
            lineup=self.lineup,
            seed=seed,
            humans=[f"player_{i}" for i in range(count)],
            clock=(self.clock if clock is None else clock) or None,
            study=study,
        )
        self.tables[table.id] = table
        self._host_tokens[table.host_token] = table
        for token in table.seats:
            self._seat_tokens[token] = table
        return table

    def _forget_old(self) -> None:
        """Tables done with for a day (their logs are on disk) leave memory, and their links stop working."""
        now = time.monotonic()
        for table in list(self.tables.values()):
            if table.state not in ("waiting", "playing") and now - table.created > KEEP_DONE_SECONDS:
                del self.tables[table.id], self._host_tokens[table.host_token]
                for token in table.seats:
                    del self._seat_tokens[token]

    def shutdown(self) -> None:
        """The server stops: streams end, games end where they are (their logs kept as unfinished)."""
        self.closing = True
        for table in self.tables.values():
            table.stop()

    def table_of_seat(self, token: str) -> Table | None:
        return self._seat_tokens.get(token)

    def table_of_host(self, token: str) -> Table | None:
        return self._host_tokens.get(token)
