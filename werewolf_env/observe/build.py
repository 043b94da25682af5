"""Observations: the prompt-ready text and the fixed-size numeric vector, from one player's view.

What a player's observation is made of, and nothing else: the events whose audience includes the
player (the history), ``visibility.knowledge`` (possible roles), the player's own state (role, notes,
suspicion row, own night results) and public state (who is alive, statements and their claims,
votes, round). The hygiene tests in ``tests/test_hygiene.py`` guard this.

``ObservationRenderer`` renders each event once and hands the line to every seat that may see it,
and caches every other part at the grain at which it changes, because ``observe()`` runs on every
step; ``tests/test_observe.py`` checks that the cached result always equals a fresh one. ``observe()``
returns an ``observation.Observation``: the text and the vector are joined when first read, from
pieces captured at the call (``tests/test_lazy_observation.py``). The text
parts it assembles are worded in ``observe_text`` (role card, rules, facts, notes, task) and
``transcript`` (one history line per event).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from werewolf_env.core import DEAD_MARK, SELF_MARK, ActionKind, GameState, Turn, knowledge_masks
from werewolf_env.observe.layout import (
    KIND_INDEX,
    NUM_KINDS,
    NUM_ROLES,
    OBS_LAYOUT,
    OBS_SIZE,
    layout_of,
    layout_slices,
)
from werewolf_env.observe.observation import Observation
from werewolf_env.observe.public import PublicBlocks, TurnRow
from werewolf_env.observe.text import Section, known_facts, notes_text, role_card, rules_text, task_intro, task_text
from werewolf_env.observe.transcript import Transcript, event_line, named_seats, vote_lines

# Re-exported: they were defined here first and are imported from here.
__all__ = [
    "NUM_KINDS", "NUM_ROLES", "OBS_LAYOUT", "OBS_SIZE", "ObservationRenderer", "Transcript", "event_line",
    "layout_slices", "named_seats", "rules_text",
]  # fmt: skip

_HISTORY_HEAD = f"\n\n{Section.HISTORY}\n"


class _Seat:
    """One seat's cached observation parts and the versions of the state they were built from."""

    __slots__ = (
        "facts", "facts_key", "facts_text", "head", "head_base", "history", "history_count", "masks", "notes",
        "notes_text", "scores", "scores_version", "sources", "suspicion", "vec",
    )  # fmt: skip

    def __init__(self, vec: np.ndarray) -> None:
        self.vec = vec  # the private blocks of the numeric observation (own role, knowledge, scores)
        self.head = ""  # role card, rules, players, known facts, suspicion scores
        self.head_base = ""  # the head without its suspicion scores
        self.facts = self.suspicion = -1  # state versions ``head`` and ``vec`` were checked at
        self.sources: tuple[int, ...] = ()  # what ``head`` and ``vec`` were built from (see ``_refresh``)
        self.masks: tuple[int, ...] = ()  # the knowledge in ``vec``
        self.facts_key: tuple[int, ...] = ()  # and the parts of the head, each with what it shows
        self.facts_text = ""
        self.scores: list[str] = []
        self.scores_version = -1
        self.history = ""  # the first ``history_count`` history lines, joined
        self.history_count = 0
        self.notes = 0  # number of own notes that ``notes_text`` shows
        self.notes_text = ""


class ObservationRenderer:
    """Renders one game's observations, caching every part at the grain at which it changes.

    ``observe``, ``text`` and ``vector`` are the only ways observations are made; they read only
    events visible to the seat (through ``Transcript``), ``visibility.knowledge`` and the seat's own
    and public state. Caches key on the engine's version counters (``GameState.facts_version``,
    ``suspicion_version``, ``group_id``); ``tests/test_observe.py`` checks that the cached result
    always equals a fresh renderer's.
    """

    def __init__(self, state: GameState, text: bool = True) -> None:
        self.state = state
        # ``text=False``: vectors only (the numeric RL envs), so nothing is ever worded: no head, scores or task.
        self.renders_text = text
        names = state.names
        n = state.num_players
        # Transcripts: every new event is rendered once and fanned out to the seats that may see it
        # (a seat named in a public line gets its own "(you)" version).
        self._cursor = 0
        self._public_lines: list[str] = []
        self._lines: list[list[str]] = [[] for _ in range(n)]  # each seat's history lines: append-only
        # The task section and the public blocks of the vector: shared by every seat of one group
        # asked the same thing (all bidders read the same task), so cached per group.
        self._turn_group = -1
        self._turn_cache: dict[tuple[Any, ...], tuple[str, TurnRow]] = {}
        self._intros: dict[ActionKind | None, str] = {}
        rules = rules_text(state.config) if text else ""
        ruleset = state.config.ruleset
        self._static_text = [  # the head's start, per seat (none without text)
            f"== Werewolf: you are {names[seat]} (player_{seat}) ==\n\n"
            f"{role_card(state.roles[seat], ruleset)}\n\n{rules}"
            for seat in range(n if text else 0)
        ]
        self._labels: list[str] = []  # players as the PLAYERS line shows them, at ``_labels_version``
        self._labels_version = -1
        # Vector blocks shared by all seats: the alive block and when it was made, and the public blocks (made
        # when a vector is read: ``observe_public``).
        self._alive = np.zeros(0, dtype=np.float32)
        self._alive_version = -1
        self._public = PublicBlocks(state)
        self._seats = []
        ruleset = state.config.ruleset
        self.layout = layout = layout_of(ruleset)
        slices = layout.slices
        for seat in range(n):
            vec = np.zeros(layout.public_start, dtype=np.float32)
            vec[slices["role"][0] + ruleset.index[state.roles[seat]]] = 1.0
            vec[slices["seat"][0] + seat] = 1.0
            vec[slices["present"][0] : slices["present"][0] + n] = 1.0
            self._seats.append(_Seat(vec))

    def observe(self, seat: int, turn: Turn | None, legal: list[int]) -> Observation:
        """``{"observation": vector, "text": text}`` for ``seat``, whose pending turn is ``turn``: each part is
        made when first read, as it is now (``observation.Observation``)."""
        self._needs_text()
        task, row = self._turn_parts(turn, legal)
        state = self.state
        cache = self._seats[seat]
        if cache.facts != state.facts_version or cache.suspicion != state.suspicion_version:
            self._refresh(seat)
        # What the parts show, captured now: strings, the seat's append-only history lines with their number now,
        # and a vector that ``_refresh`` replaces rather than writes to. (Rendering the new events stays eager: it
        # is shared by every seat, and rendering them later would need each seat's line count at every step.)
        vec = cache.vec
        if self._cursor != len(state.events):
            self._sync()
        count = len(self._lines[seat])
        head, notes = cache.head, self._notes_text(seat, cache)
        return Observation(
            {
                "observation": lambda: np.concatenate((vec, row.made())),
                "text": lambda: "".join((head, _HISTORY_HEAD, self._history_upto(seat, count), notes, "\n\n", task)),
            }
        )

    def text(self, seat: int, turn: Turn | None, legal: list[int]) -> str:
        """Everything ``seat`` may know, ready to paste into a prompt."""
        self._needs_text()
        return self._text(seat, self._turn_parts(turn, legal)[0])

    def vector(self, seat: int, turn: Turn | None, legal: list[int]) -> np.ndarray:
        """Fixed-size float32 vector in [0, 1], padded to MAX_PLAYERS seats (see ``OBS_LAYOUT``)."""
        return self._vector(seat, self._turn_parts(turn, legal)[1].made())

    def public_text(self) -> str:
        """What a spectator sees: every public event, no hidden information."""
        self._needs_text()
        self._sync()
        return "\n".join(self._public_lines)

    # ------------------------------------------------------------------ text

    def _needs_text(self) -> None:
        if not self.renders_text:
            raise RuntimeError("this renderer makes vectors only (text=False): it has no text to give")

    def _turn_parts(self, turn: Turn | None, legal: list[int]) -> tuple[str, TurnRow]:
        """The task section and the vector's public blocks. Nothing they depend on (round, phase,
        debate turn, statements, votes, the statement under analysis) changes within a simultaneous group."""
        state = self.state
        if self._turn_group != state.group_id:
            self._turn_group = state.group_id
            self._turn_cache.clear()
            self._intros.clear()
        kind = turn.kind if turn is not None else None
        key = (kind, *legal)
        if kind is ActionKind.PEER_ANALYSIS and state.config.subject_suspicion and self.renders_text:  # whom it scores
            key = (kind, *state.analysis_subjects(turn.player))  # type: ignore[union-attr]
        parts = self._turn_cache.get(key)
        if parts is None:
            intro = self._intros.get(kind)
            if intro is None:
                intro = self._intros[kind] = task_intro(state, turn) if self.renders_text else ""
            task = task_text(state, turn, legal, intro) if self.renders_text else ""
            parts = self._turn_cache[key] = (task, self._public_row(turn, legal))
        return parts

    def _text(self, seat: int, task: str) -> str:
        state = self.state
        cache = self._seats[seat]
        if cache.facts != state.facts_version or cache.suspicion != state.suspicion_version:
            self._refresh(seat)
        return self._joined(seat, cache, task)

    def _joined(self, seat: int, cache: _Seat, task: str) -> str:
        """The whole text of a seat whose cache is up to date: head, history, notes and ``task``."""
        history = self._history_text(seat)
        return "".join((cache.head, _HISTORY_HEAD, history, self._notes_text(seat, cache), "\n\n", task))

    def _notes_text(self, seat: int, cache: _Seat) -> str:
        notes = self.state.notes[seat]
        if len(notes) != cache.notes:
            cache.notes = len(notes)
            cache.notes_text = notes_text(notes, self.state.config.max_notes_shown)
        return cache.notes_text

    def _head(self, seat: int) -> str:
        """Role card and rules, players and known facts: the head but for the suspicion scores (see ``_refresh``)."""
        state = self.state
        names = state.names
        if self._labels_version != state.facts_version:  # "Name" or "Name [dead]", shared by all seats
            self._labels = [name if up else name + DEAD_MARK for name, up in zip(names, state.alive, strict=True)]
            self._labels_version = state.facts_version
        labels = self._labels.copy()
        labels[seat] = names[seat] + SELF_MARK + ("" if state.alive[seat] else DEAD_MARK)
        head = self._static_text[seat] + f"\n\n{Section.PLAYERS} " + ", ".join(labels)
        cache = self._seats[seat]
        # Everything ``known_facts`` reads that can change (the witch's: the attacks she saw, her potions).
        facts_key = (
            len(state.seer_results.get(seat, ())), len(state.protect_history.get(seat, ())), len(state.revealed),
            len(state.attacks_seen.get(seat, ())), len(state.potions.get(seat, ())),
        )  # fmt: skip
        if cache.facts_key != facts_key:
            facts = known_facts(state, seat)
            cache.facts_text = f"\n\n{Section.KNOWLEDGE}\n- " + "\n- ".join(facts) if facts else ""
            cache.facts_key = facts_key
        return head + cache.facts_text

    def _scores_line(self, seat: int) -> str:
        """The head's suspicion scores of the living others (``_refresh`` keeps ``cache.scores`` up to date)."""
        scores = self._seats[seat].scores
        shown = ", ".join([scores[p] for p in self.state.living() if p != seat])
        return f"\n\n{Section.SUSPICION} (0 = trust, 1 = surely a werewolf): " + shown

    def _history_text(self, seat: int) -> str:
        """The seat's history lines so far, joined ("(nothing yet)" before the first)."""
        self._sync()
        return self._history_upto(seat, len(self._lines[seat]))

    def _history_upto(self, seat: int, count: int) -> str:
        """The seat's first ``count`` history lines, joined. The lines are append-only, so an observation
        read late asks for the count it was made with; the latest join is kept and extended."""
        if not count:
            return "(nothing yet)"
        cache = self._seats[seat]
        done = cache.history_count
        if done == count:
            return cache.history
        lines = self._lines[seat]
        if done > count:  # an older observation, read after newer ones
            return "\n".join(lines[:count])
        more = "\n".join(lines[done:count])
        cache.history = f"{cache.history}\n{more}" if done else more
        cache.history_count = count
        return cache.history

    def _sync(self) -> None:
        """Render the events since the last call once each, and hand each line to its readers."""
        end = len(self.state.events)
        if self._cursor != end:
            self._render(end)

    def _render(self, end: int) -> None:
        """Render the events from the cursor up to ``end`` (excluded)."""
        events = self.state.events
        names = self.state.names
        pending = self._lines
        for i in range(self._cursor, end):
            event = events[i]
            audience = event.audience
            if audience is None:
                if event.type == "votes":  # names every voter: rendered once, one copy per reader
                    neutral, own = vote_lines(event.data, names, range(len(pending)))
                    self._public_lines.append(neutral)
                    for lines, own_line in zip(pending, own, strict=True):
                        lines.append(own_line)
                    continue
                line = event_line(event, None, names)
                if line is None:
                    continue
                self._public_lines.append(line)
                for lines in pending:
                    lines.append(line)
                for seat in named_seats(event):  # they read "(you)" after their name
                    if seat is not None:
                        pending[seat][-1] = event_line(event, seat, names)  # type: ignore[assignment]
            elif audience:
                if event.type == "action":
                    data = event.data
                    if data["kind"] == "bid" and not data.get("fallbacks"):
                        continue  # a player's own valid bid is not shown back to it (noise)
                for seat in audience:
                    line = event_line(event, seat, names)
                    if line is not None:
                        pending[seat].append(line)
        self._cursor = end

    # ------------------------------------------------------------------ numbers

    def _vector(self, seat: int, public: np.ndarray) -> np.ndarray:
        """The seat's private blocks (rebuilt only when their sources change) followed by the public
        blocks of this turn, in one new array."""
        state = self.state
        cache = self._seats[seat]
        if cache.facts != state.facts_version or cache.suspicion != state.suspicion_version:
            self._refresh(seat)
        return np.concatenate((cache.vec, public))

    def _refresh(self, seat: int) -> None:
        """Bring the seat's text head and private vector blocks up to date, part by part.

        Called when a night or a vote was resolved or scores moved; each part is rebuilt only if
        what it shows (deaths, own knowledge, own night results, revealed roles, scores) changed.
        """
        state = self.state
        cache = self._seats[seat]
        cache.facts, cache.suspicion = state.facts_version, state.suspicion_version
        # A new array, never written to in place: observations made earlier hold the old one (``observe``).
        vec = cache.vec = cache.vec.copy()
        n = state.num_players
        deaths = n - len(state.living())
        # What the head but for its scores shows, and the alive block (scores alone change most often: after
        # every statement's analyses, when only the scores line and block are rebuilt).
        head_sources = (
            deaths, len(state.seer_results.get(seat, ())), len(state.protect_history.get(seat, ())),
            len(state.revealed), len(state.attacks_seen.get(seat, ())), len(state.potions.get(seat, ())),
        )  # fmt: skip
        rebuilt = head_sources != cache.sources
        if rebuilt:
            if (cache.sources[0] if cache.sources else -1) != deaths:  # someone died since
                if self._alive_version != state.facts_version:
                    self._alive = np.array(state.alive, dtype=np.float32)
                    self._alive_version = state.facts_version
                start = self.layout.alive_start
                vec[start : start + n] = self._alive
            cache.sources = head_sources
            if self.renders_text:
                cache.head_base = self._head(seat)
        if state.config.show_suspicion:
            if cache.scores_version != state.suspicion_version:  # the block, and "Name 0.50" for every seat
                start = self.layout.suspicion_start
                vec[start : start + n] = state.suspicion[seat]
                vec[start + seat] = 0.0
                if self.renders_text:
                    row = state.suspicion[seat].tolist()
                    cache.scores = [f"{name} {score:.2f}" for name, score in zip(state.names, row, strict=True)]
                cache.scores_version = state.suspicion_version
                rebuilt = True
            if rebuilt and self.renders_text:
                cache.head = cache.head_base + self._scores_line(seat)
        elif rebuilt and self.renders_text:
            cache.head = cache.head_base
        masks = knowledge_masks(state, seat)  # memoised on the state: cheap when unchanged
        if masks != cache.masks:
            old_masks = cache.masks or (-1,) * n
            cache.masks = masks
            layout = self.layout
            start, slots = layout.known_start, layout.num_roles
            for p in range(n):  # after a night, usually only the victim's row changes
                if masks[p] != old_masks[p]:
                    vec[start + p * slots : start + (p + 1) * slots] = layout.mask_row(masks[p])

    def _public_row(self, turn: Turn | None, legal: list[int]) -> TurnRow:
        """The public blocks (claims, accusations, last votes, clock) and the turn's kind and legal
        targets: the same for every seat asked the same thing in one group. Made when first read."""
        return TurnRow(
            self._public, self._public.key(), KIND_INDEX[turn.kind] if turn is not None else NUM_KINDS, tuple(legal)
        )
