"""A person's seat in a browser: the policy the runner asks (``WebSeat``) and what the seat's page is shown.

The runner asks ``WebSeat.aact`` for a turn; the seat opens the turn (a numbered ``Turn`` with the choices the
env's info allows) and waits for the page's answer (``answer``) until the seat's clock runs out. An answer is
checked as the terminal seat checks it (``validate``, with the shorthand of ``HumanAgent``): a bad one is refused
with the reason and the turn stays open. An answer to a turn that is over (a replayed or stale request) is
refused. When the clock runs out, or nobody has followed the seat for ``AWAY_SECONDS`` (no page open, no request),
the seat answers ``TIMED_OUT``: no field the env reads, so the env's fallback plays it and the log's action event
keeps that answer as the turn's ``raw`` beside its fallbacks; the seat's ``timeout`` record says which turn, why
(``clock`` or ``away``) and after how long. A seat's streams wake only when its own view changes.

What the page shows comes only from the env's observation of the seat (its text, which the env's visibility
rules filter) and the info of its own turn: ``SeatView`` cuts the text into the seat's card (title, role card,
rules, players, what it knows, its scores) and its history. Nothing of the game's ground truth is in it until
the game is over (``Table.reveal``).
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import time
from dataclasses import dataclass, field
from typing import Any

from werewolf_deception.agents.base import Policy
from werewolf_deception.agents.llm import validate
from werewolf_deception.agents.policies import SHORTHAND, shorthand
from werewolf_env.actions import ACTION_SPECS, ANSWER_PREFIX
from werewolf_env.claims import LIE_TYPES
from werewolf_env.observe import Section

# The answer of a turn whose clock ran out: no field the env reads, so its fallback plays (and is logged as such).
TIMED_OUT = {"no_answer": "the seat's clock ran out"}
ANALYSIS_KINDS = ("self_analysis", "peer_analysis")
# A seat nobody has followed for this long (no page open, no request) is away: its turns are the fallback's.
AWAY_SECONDS = 90.0
# Kinds answered with a player's name, and whether "nobody" is an answer (abstain, keep a potion).
TARGET_KINDS = {kind.value: spec.null_ok for kind, spec in ACTION_SPECS.items() if spec.target_key}


class AnswerRefusedError(ValueError):
    """An answer the seat does not take: for a turn that is over, or not valid for the open one (the reason)."""

    def __init__(self, reason: str, stale: bool = False) -> None:
        super().__init__(reason)
        self.stale = stale


@dataclass
class Turn:
    """One open turn of the seat: what the page needs to draw its controls."""

    number: int
    kind: str
    task: str  # the observation's "NOW:" part: what is asked, in the env's words
    targets: list[str]
    null_ok: bool
    subjects: list[str]
    max_bid: int | None
    max_words: int | None
    max_chars: int | None
    clock: float | None  # seconds the seat has, None: no clock
    opened: float  # time.monotonic() when it opened
    info: dict[str, Any] = field(repr=False, default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        left = None if self.clock is None else max(0.0, self.clock - (time.monotonic() - self.opened))
        return {
            "number": self.number,
            "kind": self.kind,
            "task": self.task,
            "hint": SHORTHAND.get(self.kind, ""),
            "targets": self.targets,
            "null_ok": self.null_ok,
            "subjects": self.subjects,
            "max_bid": self.max_bid,
            "max_words": self.max_words,
            "max_chars": self.max_chars,
            "lie_types": list(LIE_TYPES),
            "clock": self.clock,
            "seconds_left": None if left is None else round(left, 1),
        }


@dataclass
class SeatView:
    """The seat's page content, cut from the env's text observation of the seat."""

    card: str = ""  # everything before the history: title, role card, rules, players, knowledge, scores
    history: list[str] = field(default_factory=list)
    alive: bool = True

    @classmethod
    def of(cls, text: str, alive: bool) -> SeatView:
        head, found, rest = text.partition(f"\n\n{Section.HISTORY}\n")
        if not found:
            return cls(card=head.partition(f"\n\n{Section.TASK}")[0], alive=alive)
        history = rest.partition(f"\n\n{Section.TASK}")[0]
        return cls(card=head, history=history.splitlines(), alive=alive)


class WebSeat(Policy):
    """A seat played by a person through the seat's page; ``changed``/``wait_change`` tell that page's streams when
    to send the seat's view again."""

    name = "human"

    def __init__(self, agent: str, clock: float | None, away: float = AWAY_SECONDS) -> None:
        self.agent = agent
        self.clock = clock
        self.away = away
        self.view = SeatView()
        self.turn: Turn | None = None
        self.notice = ""  # a line for the page: the last turn played by the fallback, and why
        self.answered = 0
        self.timeouts = 0
        self.version = 0  # this seat's own: it moves only when what this seat's page shows changes
        self.streams = 0  # pages following the seat now
        self.last_seen = time.monotonic()  # the last request of the seat's page
        self._changed = asyncio.Event()
        self._numbers = itertools.count(1)
        self._answer: asyncio.Future[dict[str, Any]] | None = None
        self._records: list[dict[str, Any]] = []

    def changed(self) -> None:
        """What this seat's page shows changed: wake its streams (and no other seat's)."""
        self.version += 1
        self._changed.set()
        self._changed = asyncio.Event()

    async def wait_change(self, version: int, timeout: float) -> None:
        """Until the seat's version passes ``version``, at most ``timeout`` seconds."""
        if self.version == version:
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(self._changed.wait(), timeout)

    def seen(self) -> None:
        """The seat's page asked for something: the person is there."""
        self.last_seen = time.monotonic()

    def present(self, now: float) -> bool:
        """Someone follows the seat: a page holds its stream, or asked within the last ``away`` seconds."""
        return self.streams > 0 or now - self.last_seen < self.away

    async def aact(self, observation: dict[str, Any], info: dict[str, Any]) -> dict[str, Any] | str:
        kind = info.get("action_kind")
        if kind is None:
            return {}
        self.view = SeatView.of(observation["text"], self.view.alive)
        task = observation["text"].rpartition(f"\n\n{Section.TASK}")[2].strip()
        # The JSON the env asks of agents: a person answers with the page's controls instead.
        task = "\n".join(line for line in task.splitlines() if not line.startswith(ANSWER_PREFIX))
        self.turn = Turn(
            number=next(self._numbers),
            kind=kind,
            task=task,
            targets=[str(name) for name in info.get("legal_targets") or []],
            null_ok=TARGET_KINDS.get(kind, False),
            subjects=[str(name) for name in info.get("subjects") or []],
            max_bid=info.get("max_bid"),
            max_words=info.get("max_statement_words"),
            max_chars=info.get("max_statement_chars"),
            clock=self.clock,
            opened=time.monotonic(),
            info=info,
        )
        self._answer = asyncio.get_running_loop().create_future()
        self.changed()
        try:
            action = await self._wait(self._answer, kind)
        finally:
            self.turn, self._answer = None, None
            self.changed()
        return action

    async def _wait(self, answer: asyncio.Future[dict[str, Any]], kind: str) -> dict[str, Any]:
        """The person's answer; or, once the clock runs out or nobody has followed the seat for ``away`` seconds,
        ``TIMED_OUT`` (the env's fallback plays the turn) and a ``timeout`` record saying which and why."""
        assert self.turn is not None
        deadline = None if self.clock is None else self.turn.opened + self.clock
        while True:
            now = time.monotonic()
            step = 1.0 if deadline is None else max(0.0, min(1.0, deadline - now))
            try:
                return await asyncio.wait_for(asyncio.shield(answer), step)
            except asyncio.TimeoutError:
                now = time.monotonic()
                if deadline is not None and now >= deadline:
                    reason, told = "clock", f"Your time for the {kind} ran out"
                elif not self.present(now):
                    reason, told = "away", f"Nobody was on your page for the {kind}"
                else:
                    continue
            self.timeouts += 1
            self.notice = f"{told}: the game's fallback answered for you."
            record = {"type": "timeout", "kind": kind, "turn": self.turn.number, "reason": reason}
            self._records.append({**record, "seconds": round(now - self.turn.opened, 1)})
            return dict(TIMED_OUT)

    def answer(self, number: int, answer: Any) -> None:
        """The page's answer to turn ``number``: a JSON object, or the shorthand a person types (a name, a number,
        the text, ``yes 0.8 fabrication 0.9``). Raises ``AnswerRefusedError`` for a turn that is not open or an answer
        that is not valid for it; the turn then stays open."""
        turn, pending = self.turn, self._answer
        if turn is None or pending is None or pending.done() or number != turn.number:
            raise AnswerRefusedError("that turn is over (the page will show the current one)", stale=True)
        if isinstance(answer, str):
            answer = shorthand(answer.strip(), turn.kind, turn.subjects)
        if not isinstance(answer, (dict, str)):
            raise AnswerRefusedError("the answer must be a JSON object or text")
        content = answer if isinstance(answer, str) else json.dumps(answer)
        action, error = validate(content, turn.kind, turn.info)
        if error is not None or action is None:
            raise AnswerRefusedError(error or "not a valid answer")
        if turn.kind in ANALYSIS_KINDS and action["is_deceptive"] != (action["deception_type"] != "none"):
            # A person's verdict and kind must agree: a baseline of people is read as they meant it.
            raise AnswerRefusedError(
                "deception_type: 'none' goes with a statement judged honest, a kind of lie with a deceptive one"
            )
        self.answered += 1
        self.notice = ""
        self.seen()
        pending.set_result(action)

    def watch(self, observation: dict[str, Any], alive: bool, over: bool) -> None:
        """After every step of the game (the runner calls it): redraw the page when what the seat sees changed."""
        view = SeatView.of(observation["text"], alive)
        if view != self.view:
            self.view = view
            self.changed()

    def note_study(self, participant: str, consent: str, consent_id: str) -> None:
        """A study's participant took this seat: their anonymous id and the consent they accepted, in the log."""
        record = {"type": "study", "participant": participant, "consent": consent, "consent_id": consent_id}
        self._records.append(record)

    def drain_records(self) -> list[dict[str, Any]]:
        records, self._records = self._records, []
        return records
