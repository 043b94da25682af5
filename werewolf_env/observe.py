"""Observations: the prompt-ready text and the fixed-size numeric vector, from one player's view.

What a player's observation is made of, and nothing else: the events whose audience includes the
player (the history), ``visibility.knowledge`` (possible roles), the player's own state (role, notes,
suspicion row, own night results) and public state (who is alive, statements and their claims,
votes, round). The hygiene tests in ``tests/test_hygiene.py`` guard this.

``ObservationRenderer`` renders each event once and hands the line to every seat that may see it,
and caches every other part at the grain at which it changes, because ``observe()`` runs on every
step; ``tests/test_observe.py`` checks that the cached result always equals a fresh one.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache
from typing import Any

import numpy as np

from .actions import answer_format
from .config import MAX_PLAYERS, ROLE_INDEX, ROLES, GameConfig, Role
from .state import ACTION_KINDS, ActionKind, Event, GameState, Turn
from .visibility import knowledge_masks, visible

ROLE_CARDS: dict[Role, str] = {
    Role.WEREWOLF: (
        "You are a WEREWOLF (werewolf team). Each night the werewolves choose a villager to eliminate. "
        "By day, hide your identity: blend in, deflect suspicion, and steer the vote toward villagers. "
        "You win when werewolves are at least as many as everyone else alive."
    ),
    Role.SEER: (
        "You are the SEER (village team). Each night you investigate one living player and privately "
        "learn whether they are a werewolf. Use what you learn to guide the village without getting killed. "
        "You win when every werewolf is dead."
    ),
    Role.DOCTOR: (
        "You are the DOCTOR (village team). Each night you protect one living player (yourself allowed); "
        "if the werewolves target that player, nobody dies. You win when every werewolf is dead."
    ),
    Role.VILLAGER: (
        "You are a VILLAGER (village team). You have no night power. By day, reason about who is lying "
        "and vote to exile the werewolves. You win when every werewolf is dead."
    ),
}

KIND_PROMPTS: dict[ActionKind, str] = {
    ActionKind.ELIMINATE: (
        "Night: propose a player for the werewolves to eliminate (the pack's most proposed target dies)."
    ),
    ActionKind.PROTECT: "Night: choose a player to protect from the werewolves tonight.",
    ActionKind.UNMASK: "Night: choose a player to investigate.",
    ActionKind.BID: "Day: bid for the floor. The highest bid speaks next.",
    ActionKind.STATEMENT: "Day: you have the floor. Make one public statement.",
    ActionKind.SELF_ANALYSIS: "Day: analyse your own statement just now. Was it deceptive?",
    ActionKind.PEER_ANALYSIS: (
        "Day: analyse the statement just made. Was it deceptive, and how likely is the speaker a werewolf?"
    ),
    ActionKind.VOTE: "Day: vote to exile a player, or abstain. A strict majority of living players exiles.",
    ActionKind.SUMMARY: "The game is over. Give your final summary of what happened.",
}  # fmt: skip


@lru_cache(maxsize=32)
def rules_text(config: GameConfig) -> str:
    counts = config.role_counts()
    plural = {Role.WEREWOLF: "werewolves"}
    roles = ", ".join(f"{c} {plural.get(r, r.value + 's') if c > 1 else r.value}" for r, c in counts.items() if c)
    lines = [
        f"RULES: {config.num_players} players ({roles}).",
        "Night: werewolves pick a victim, the doctor protects someone, the seer investigates someone; "
        "the victim dies unless protected.",
        f"Day: up to {config.max_debate_turns} statements of at most {config.max_statement_words} words; "
        "players bid 0-"
        f"{config.max_bid} for the floor before each. Then everyone votes; a strict majority exiles.",
        f"The village wins when no werewolf lives; the werewolves win when they are at least as many as "
        f"the others. After {config.max_rounds} rounds the game ends undecided.",
    ]
    if config.reveal_role_on_death:
        lines.append("The role of every dead player is announced.")
    if not config.doctor_repeat_protect:
        lines.append("The doctor may not protect the same player two nights in a row.")
    if config.seer_learns_role:
        lines.append("The seer learns the exact role of the investigated player.")
    return "\n".join(lines)


def _n(names: tuple[str, ...], seat: int | None, viewer: int | None) -> str:
    """A seat's name as ``viewer`` reads it ("Name (you)" for the viewer's own seat)."""
    if seat is None:
        return "nobody"
    if seat == viewer:
        return f"{names[seat]} (you)"
    return names[seat]


LineFn = Callable[[Event, "int | None", tuple[str, ...]], "str | None"]


def _role_assigned(e: Event, viewer: int | None, names: tuple[str, ...]) -> str | None:
    if viewer is None:
        return None
    mates = e.data.get("teammates")
    if mates:
        return f"You are a werewolf. Your fellow werewolves: {', '.join(names[m] for m in mates)}."
    if mates is not None:
        return "You are the only werewolf."
    return f"Your role: {e.data['role']}."


def _pack(e: Event, viewer: int | None, names: tuple[str, ...]) -> str:
    d = e.data
    label = _labels(names, viewer)
    props = ", ".join([f"{label[int(w)]} -> {_n(names, t, viewer)}" for w, t in d["proposals"].items()])
    prefix = "[werewolves] " if viewer is None else ""
    return f"{prefix}The pack's proposals: {props}. Target: {_n(names, d['target'], viewer)}."


def _seer(e: Event, viewer: int | None, names: tuple[str, ...]) -> str:
    who = "You" if viewer is not None else f"[seer {names[e.actor]}]"  # type: ignore[index]
    result = e.data["result"]
    verdict = "a werewolf" if result == "werewolf" else "not a werewolf" if result == "village" else f"the {result}"
    return f"{who} investigated {_n(names, e.data['target'], viewer)}: {verdict}."


def _death(e: Event, viewer: int | None, names: tuple[str, ...]) -> str:
    d = e.data
    role = f" They were the {d['role']}." if "role" in d else ""
    if d["cause"] == "night":
        if d["victim"] is None:
            return "Dawn: nobody died in the night."
        return f"Dawn: {_n(names, d['victim'], viewer)} was killed in the night.{role}"
    return f"{_n(names, d['victim'], viewer)} is exiled.{role}"


def _statement(e: Event, viewer: int | None, names: tuple[str, ...]) -> str:
    d = e.data
    cut = " [cut to the word limit]" if d["truncated"] else ""
    return f'{_n(names, d["speaker"], viewer)}: "{d["text"]}"{cut}'


def _labels(names: tuple[str, ...], viewer: int | None) -> tuple[str, ...]:
    """Every seat's name as ``viewer`` reads it (see ``_n``), for lines that name many seats."""
    if viewer is None:
        return names
    labels = list(names)
    labels[viewer] += " (you)"
    return tuple(labels)


def _votes(e: Event, viewer: int | None, names: tuple[str, ...]) -> str:
    neutral, own = _vote_lines(e.data, names, () if viewer is None else (viewer,))
    return own[0] if own else neutral


def _vote_lines(d: dict[str, Any], names: tuple[str, ...], readers: Any) -> tuple[str, list[str]]:
    """The votes line as nobody in particular reads it, and as each of ``readers`` does (its own
    name marked "(you)"): rendered once, then copied per reader."""
    tokens = _vote_tokens(d)
    parts = [names[t] if type(t) is int else t for t in tokens]
    where: dict[int, list[int]] = {}
    for i, t in enumerate(tokens):
        if type(t) is int:
            where.setdefault(t, []).append(i)
    own = []
    for seat in readers:
        copy = parts.copy()
        for i in where.get(seat, ()):
            copy[i] += " (you)"
        own.append("".join(copy))
    return "".join(parts), own


def _vote_tokens(d: dict[str, Any]) -> list[str | int]:
    """The votes line as text pieces and seats (ints), to be filled in with names per viewer: every
    voter reads the line with its own "(you)", so it is rendered once per living player."""
    tokens: list[str | int] = ["Votes: "]
    for s, v in d["votes"].items():
        tokens += (int(s), " -> ", v, ", ") if v is not None else (int(s), " -> abstain, ")
    if len(tokens) > 1:
        tokens[-1] = tokens[-1][:-2]  # type: ignore[index]
    tokens.append(". Tally: ")
    if d["tally"]:
        for s, c in d["tally"].items():
            tokens += (int(s), f" {c}, ")
        tokens[-1] = tokens[-1][:-2]  # type: ignore[index]
    else:
        tokens.append("no votes")
    tokens.append(f"; abstained: {d['abstained']}.")
    return tokens


def _suspicion(e: Event, viewer: int | None, names: tuple[str, ...]) -> str | None:
    if viewer is not None:
        return None  # players see their current scores instead
    d = e.data
    return f"[{names[e.actor]}'s suspicion of {names[d['subject']]}: {d['prior']:.2f} -> {d['score']:.2f}]"  # type: ignore[index]


def _own_action(e: Event, viewer: int | None, names: tuple[str, ...]) -> str | None:
    """A player's own action, as a reminder (bids only when they were invalid: they are noise)."""
    d = e.data
    kind = d["kind"]
    p = d["parsed"]
    who = "You" if viewer is not None else f"[{names[e.actor]}]"  # type: ignore[index]

    def target(key: str) -> str:
        return names[p[key]] if p.get(key) is not None else "nobody"

    line = None
    if kind == "eliminate":
        line = f"{who} proposed to eliminate {target('target')}."
    elif kind == "protect":
        line = f"{who} protected {target('target')}."
    elif kind == "unmask":
        line = None if viewer is not None else f"{who} investigated {target('target')}."
    elif kind == "bid":
        line = None if viewer is not None else f"{who} bid {p['bid']}."
    elif kind == "vote":
        line = f"{who} voted for {target('vote') if p['vote'] is not None else 'nobody (abstain)'}."
    elif kind in ("self_analysis", "peer_analysis"):
        extra = f", suspicion {p['suspicion']:.2f}" if "suspicion" in p else ""
        # Named by its meaning, not its field: "deceptive=false (confidence 0.05)" reads as doubt in the verdict.
        line = (
            f"{who} analysed the statement: deceptive={str(p['is_deceptive']).lower()} "
            f"({p['deception_type']}, probability deceptive {p['confidence']:.2f}{extra})."
        )
    if d.get("fallbacks"):
        fix = f"{who} answered invalidly ({'; '.join(d['fallbacks'])})."
        line = f"{line} {fix}" if line else fix
    return line


_LINES: dict[str, LineFn] = {
    "game_start": lambda e, v, names: f"The game begins with {len(names)} players: {', '.join(names)}.",
    "roles": lambda e, v, names: "[hidden] Roles: " + ", ".join(
        f"{n}={r}" for n, r in zip(names, e.data["roles"], strict=True)
    ),
    "role_assigned": _role_assigned,
    "night_start": lambda e, v, names: f"--- Night {e.round} ---",
    "day_start": lambda e, v, names: f"--- Day {e.round} ---",
    "pack_decision": _pack,
    "seer_result": _seer,
    "night_outcome": lambda e, v, names: (
        f"[hidden] Night target {_n(names, e.data['target'], v)}, "
        f"protected {[names[p] for p in e.data['protected']]}, saved={e.data['saved']}."
    ),
    "death": _death,
    "floor": lambda e, v, names: f"{_n(names, e.data['speaker'], v)} takes the floor (bid {e.data['bid']}).",
    "statement": _statement,
    "pass": lambda e, v, names: f"{_n(names, e.data['speaker'], v)} says nothing.",
    "ground_truth": lambda e, v, names: (
        f"[hidden] statement {e.data['statement_id']} by a {e.data['speaker_role']}: "
        f"{e.data['type'] if e.data['lie'] else 'honest'}"
    ),
    "votes": _votes,
    "no_exile": lambda e, v, names: f"No majority ({e.data['needed']} votes needed): nobody is exiled.",
    "winner": lambda e, v, names: f"The {e.data['team']} team wins.",
    "truncated": lambda e, v, names: f"The game ends undecided after {e.data['max_rounds']} rounds.",
    "summary": lambda e, v, names: f'{_n(names, e.actor, v)} (final summary): "{e.data["text"]}"',
    "game_over": lambda e, v, names: "Game over.",
    "action": _own_action,
    "suspicion": _suspicion,
}  # fmt: skip


def named_seats(event: Event) -> set[int | None]:
    """Seats a public event's line names: they read "(you)" after their name, so their line differs."""
    d = event.data
    named = {event.actor, d.get("speaker"), d.get("victim")}
    if event.type == "votes":
        named.update([int(s) for s in d["votes"]])
        named.update([int(s) for s in d["tally"]])
    return named


def event_line(event: Event, viewer: int | None, names: tuple[str, ...]) -> str | None:
    """One transcript line for ``event`` as ``viewer`` sees it (None: spectator), or None to skip."""
    render = _LINES.get(event.type)
    return render(event, viewer, names) if render is not None else None


class Transcript:
    """One viewer's transcript lines, rendered once per event, and their running join."""

    __slots__ = ("cursor", "lines", "names", "spectator", "text", "viewer")

    def __init__(self, names: tuple[str, ...], viewer: int | None, spectator: bool = False) -> None:
        self.names = names
        self.viewer = viewer  # None: the public (spectator without hidden information)
        self.spectator = spectator  # everything, hidden events included
        self.lines: list[str] = []
        self.text = ""
        self.cursor = 0

    def update(self, events: list[Event]) -> str:
        viewer = self.viewer
        names = self.names
        new = []
        everything = self.spectator
        for i in range(self.cursor, len(events)):
            event = events[i]
            if everything or (event.audience is None if viewer is None else visible(event, viewer)):
                line = event_line(event, viewer, names)
                if line is not None:
                    new.append(line)
        self.cursor = len(events)
        if new:
            self.lines.extend(new)
            self.text = "\n".join(new) if not self.text else self.text + "\n" + "\n".join(new)
        return self.text


class _Seat:
    """One seat's cached observation parts and the versions of the state they were built from."""

    __slots__ = (
        "facts", "facts_key", "facts_text", "head", "history", "masks", "notes", "notes_text", "scores",
        "scores_version", "sources", "suspicion", "vec",
    )  # fmt: skip

    def __init__(self, vec: np.ndarray) -> None:
        self.vec = vec  # the private blocks of the numeric observation (own role, knowledge, scores)
        self.head = ""  # role card, rules, players, known facts, suspicion scores
        self.facts = self.suspicion = -1  # state versions ``head`` and ``vec`` were checked at
        self.sources: tuple[int, ...] = ()  # what ``head`` and ``vec`` were built from (see ``_refresh``)
        self.masks: tuple[int, ...] = ()  # the knowledge in ``vec``
        self.facts_key: tuple[int, ...] = ()  # and the parts of the head, each with what it shows
        self.facts_text = ""
        self.scores: list[str] = []
        self.scores_version = -1
        self.history = ""
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

    def __init__(self, state: GameState) -> None:
        self.state = state
        names = state.names
        n = state.num_players
        # Transcripts: every new event is rendered once and fanned out to the seats that may see it
        # (a seat named in a public line gets its own "(you)" version).
        self._cursor = 0
        self._public_lines: list[str] = []
        self._pending: list[list[str]] = [[] for _ in range(n)]
        # The task section and the public blocks of the vector: shared by every seat of one group
        # asked the same thing (all bidders read the same task), so cached per group.
        self._turn_group = -1
        self._turn_cache: dict[tuple[Any, ...], tuple[str, np.ndarray]] = {}
        self._intros: dict[ActionKind | None, str] = {}
        rules = rules_text(state.config)
        self._static_text = [
            f"== Werewolf: you are {names[seat]} (player_{seat}) ==\n\n{ROLE_CARDS[state.roles[seat]]}\n\n{rules}"
            for seat in range(n)
        ]
        self._labels: list[str] = []  # players as the PLAYERS line shows them, at ``_labels_version``
        self._labels_version = -1
        # Vector blocks shared by all seats, and what they were last brought up to date with.
        self._alive = np.zeros(0, dtype=np.float32)
        self._alive_version = -1
        self._public_base = np.zeros(OBS_SIZE - _PUBLIC, dtype=np.float32)  # kind and legal left at 0
        self._claims_done = 0  # statements whose claims are in the base
        self._accusation_counts = [0] * n
        self._public_facts = -1  # facts_version of the last-votes block
        self._clock = (-1, -1)  # (round, debate turn) in the base
        self._seats = []
        for seat in range(n):
            vec = np.zeros(_PUBLIC, dtype=np.float32)
            vec[_SLICES["role"][0] + ROLE_INDEX[state.roles[seat]]] = 1.0
            vec[_SLICES["seat"][0] + seat] = 1.0
            vec[_SLICES["present"][0] : _SLICES["present"][0] + n] = 1.0
            self._seats.append(_Seat(vec))

    def observe(self, seat: int, turn: Turn | None, legal: list[int]) -> dict[str, Any]:
        """``{"observation": vector, "text": text}`` for ``seat``, whose pending turn is ``turn``."""
        task, row = self._turn_parts(turn, legal)
        return {"observation": self._vector(seat, row), "text": self._text(seat, task)}

    def text(self, seat: int, turn: Turn | None, legal: list[int]) -> str:
        """Everything ``seat`` may know, ready to paste into a prompt."""
        return self._text(seat, self._turn_parts(turn, legal)[0])

    def vector(self, seat: int, turn: Turn | None, legal: list[int]) -> np.ndarray:
        """Fixed-size float32 vector in [0, 1], padded to MAX_PLAYERS seats (see ``OBS_LAYOUT``)."""
        return self._vector(seat, self._turn_parts(turn, legal)[1])

    def public_text(self) -> str:
        """What a spectator sees: every public event, no hidden information."""
        self._sync()
        return "\n".join(self._public_lines)

    # ------------------------------------------------------------------ text

    def _turn_parts(self, turn: Turn | None, legal: list[int]) -> tuple[str, np.ndarray]:
        """The task section and the vector's public blocks. Nothing they depend on (round, phase,
        debate turn, statements, votes, the statement under analysis) changes within a simultaneous group."""
        state = self.state
        if self._turn_group != state.group_id:
            self._turn_group = state.group_id
            self._turn_cache.clear()
            self._intros.clear()
        kind = turn.kind if turn is not None else None
        key = (kind, *legal)
        parts = self._turn_cache.get(key)
        if parts is None:
            intro = self._intros.get(kind)
            if intro is None:
                intro = self._intros[kind] = _task_intro(state, turn)
            parts = self._turn_cache[key] = (_now(state, turn, legal, intro), self._public_row(turn, legal))
        return parts

    def _text(self, seat: int, task: str) -> str:
        state = self.state
        cache = self._seats[seat]
        if cache.facts != state.facts_version or cache.suspicion != state.suspicion_version:
            self._refresh(seat)
        history = self._history_text(seat) or "(nothing yet)"
        notes = state.notes[seat]
        if len(notes) != cache.notes:
            cache.notes = len(notes)
            cache.notes_text = _notes_text(notes, state.config.max_notes_shown)
        return "".join((cache.head, "\n\nHISTORY:\n", history, cache.notes_text, "\n\n", task))

    def _head(self, seat: int) -> str:
        """Role card and rules, players, known facts and suspicion scores (see ``_refresh``)."""
        state = self.state
        names = state.names
        if self._labels_version != state.facts_version:  # "Name" or "Name [dead]", shared by all seats
            self._labels = [name if up else name + " [dead]" for name, up in zip(names, state.alive, strict=True)]
            self._labels_version = state.facts_version
        labels = self._labels.copy()
        labels[seat] = names[seat] + " (you)" + ("" if state.alive[seat] else " [dead]")
        head = self._static_text[seat] + "\n\nPLAYERS: " + ", ".join(labels)
        cache = self._seats[seat]
        facts_key = (
            len(state.seer_results.get(seat, ())), len(state.protect_history.get(seat, ())), len(state.revealed)
        )  # fmt: skip
        if cache.facts_key != facts_key:
            facts = _facts(state, seat)
            cache.facts_text = "\n\nWHAT YOU KNOW:\n- " + "\n- ".join(facts) if facts else ""
            cache.facts_key = facts_key
        head += cache.facts_text
        if state.config.show_suspicion:
            if cache.scores_version != state.suspicion_version:  # "Name 0.50" for every seat
                row = state.suspicion[seat].tolist()
                cache.scores = [f"{name} {score:.2f}" for name, score in zip(names, row, strict=True)]
                cache.scores_version = state.suspicion_version
            scores = cache.scores
            shown = ", ".join([scores[p] for p in state.living() if p != seat])
            head += "\n\nYOUR SUSPICION SCORES (0 = trust, 1 = surely a werewolf): " + shown
        return head

    def _history_text(self, seat: int) -> str:
        self._sync()
        pending = self._pending[seat]
        if pending:
            cache = self._seats[seat]
            if cache.history:
                pending.insert(0, cache.history)  # one copy of the (long) history, not two
            cache.history = "\n".join(pending)
            pending.clear()
        return self._seats[seat].history

    def _sync(self) -> None:
        """Render the events since the last call once each, and hand each line to its readers."""
        events = self.state.events
        if self._cursor == len(events):
            return
        names = self.state.names
        pending = self._pending
        for i in range(self._cursor, len(events)):
            event = events[i]
            audience = event.audience
            if audience is None:
                if event.type == "votes":  # names every voter: rendered once, one copy per reader
                    neutral, own = _vote_lines(event.data, names, range(len(pending)))
                    self._public_lines.append(neutral)
                    for lines, line in zip(pending, own, strict=True):
                        lines.append(line)
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
        self._cursor = len(events)

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
        vec = cache.vec
        n = state.num_players
        deaths = n - len(state.living())
        head_sources = (
            deaths, len(state.seer_results.get(seat, ())), len(state.protect_history.get(seat, ())),
            len(state.revealed), state.suspicion_version,
        )  # fmt: skip
        if head_sources != cache.sources:
            old = cache.sources or (-1, -1, -1, -1, -1)
            if old[0] != deaths:  # someone died since
                if self._alive_version != state.facts_version:
                    self._alive = np.array(state.alive, dtype=np.float32)
                    self._alive_version = state.facts_version
                start = _SLICES["alive"][0]
                vec[start : start + n] = self._alive
            if state.config.show_suspicion and old[4] != state.suspicion_version:
                start = _SLICES["suspicion"][0]
                vec[start : start + n] = state.suspicion[seat]
                vec[start + seat] = 0.0
            cache.sources = head_sources
            cache.head = self._head(seat)
        masks = knowledge_masks(state, seat)  # memoised on the state: cheap when unchanged
        if masks != cache.masks:
            old_masks = cache.masks or (-1,) * n
            cache.masks = masks
            start = _SLICES["known_roles"][0]
            for p in range(n):  # after a night, usually only the victim's row changes
                if masks[p] != old_masks[p]:
                    vec[start + p * NUM_ROLES : start + (p + 1) * NUM_ROLES] = _MASK_ROWS[masks[p]]

    def _public_row(self, turn: Turn | None, legal: list[int]) -> np.ndarray:
        """The public blocks (claims, accusations, last votes, clock) and the turn's kind and legal
        targets: the same for every seat asked the same thing in one group."""
        state = self.state
        base = self._public_base  # kept up to date in place, block by block
        if self._claims_done != len(state.statements):
            self._update_claims()
        if self._public_facts != state.facts_version:
            self._update_votes()
        if self._clock != (state.round, state.debate_turn):
            self._clock = (state.round, state.debate_turn)
            base[_SLICES["round"][0] - _PUBLIC] = min(state.round / state.config.max_rounds, 1.0)
            base[_SLICES["debate_turn"][0] - _PUBLIC] = state.debate_turn / state.config.max_debate_turns
        row = base.copy()
        row[_KIND_START + (_KIND_INDEX[turn.kind] if turn is not None else NUM_KINDS)] = 1.0
        for p in legal:
            row[_LEGAL_START + p] = 1.0
        return row

    def _update_claims(self) -> None:
        """Roles publicly claimed per seat, and public accusations received (normalised)."""
        state = self.state
        base = self._public_base
        counts = self._accusation_counts
        accused = False
        for st in state.statements[self._claims_done :]:
            for claim in st.claims:
                if claim["negated"]:
                    continue
                subject = claim["player"]
                kind = claim["kind"]
                if kind == "role" and subject == st.speaker:
                    base[_CLAIMED_START + subject * NUM_ROLES + ROLE_INDEX[claim["role"]]] = 1.0
                elif (kind == "team" or kind == "seer_result") and claim["team"] == "werewolf":
                    counts[subject] += 1
                    accused = True
                if kind == "seer_result":
                    base[_CLAIMED_START + st.speaker * NUM_ROLES + ROLE_INDEX[Role.SEER]] = 1.0
        self._claims_done = len(state.statements)
        if accused:
            top = max(counts)
            base[_ACCUSED_START : _ACCUSED_START + len(counts)] = [c / top for c in counts]

    def _update_votes(self) -> None:
        """Share of the last day's votes each seat received."""
        state = self.state
        self._public_facts = state.facts_version
        if not state.vote_history:
            return
        last = state.vote_history[-1]
        voters = max(len(last["votes"]), 1)
        block = [0.0] * state.num_players
        for target, count in last["tally"].items():
            block[int(target)] = count / voters
        self._public_base[_VOTES_START : _VOTES_START + state.num_players] = block


def _notes_text(notes: list[tuple[int, str, str]], max_shown: int) -> str:
    """A player's latest private notes (the section starts with its blank-line separator)."""
    if not notes or not max_shown:
        return ""
    shown = notes[-max_shown:]
    older = len(notes) - len(shown)
    header = "YOUR PRIVATE NOTES" + (f" (latest {len(shown)}; {older} older not shown)" if older else "") + ":"
    return "\n\n" + header + "\n" + "\n".join(f"- [round {r}, {ph}] {text}" for r, ph, text in shown)


def _facts(state: GameState, seat: int) -> list[str]:
    names = state.names
    facts = []
    role = state.roles[seat]
    if role is Role.WEREWOLF:
        mates = [names[p] for p, r in enumerate(state.roles) if r is Role.WEREWOLF and p != seat]
        facts.append("Your fellow werewolves: " + (", ".join(mates) if mates else "none (you hunt alone)") + ".")
    for rnd, target, result in state.seer_results.get(seat, ()):
        what = "a werewolf" if result == "werewolf" else "not a werewolf" if result == "village" else f"the {result}"
        facts.append(f"Night {rnd}: you investigated {names[target]}: {what}.")
    for rnd, target in state.protect_history.get(seat, ()):
        facts.append(f"Night {rnd}: you protected {names[target] if target is not None else 'nobody'}.")
    for p, r in sorted(state.revealed.items()):
        facts.append(f"{names[p]} was the {r.value} (revealed on death).")
    return facts


def _now(state: GameState, turn: Turn | None, legal: list[int], intro: str | None = None) -> str:
    """The task section; ``intro`` is ``_task_intro(state, turn)`` when the caller has it already."""
    if state.over or turn is None:
        return _task_intro(state, turn)
    lines = [intro if intro is not None else _task_intro(state, turn)]
    if legal and turn.kind is not ActionKind.STATEMENT:
        allowed = ", ".join([state.names[p] for p in legal])
        lines.append(f"Allowed: {allowed}" + (" (or null to abstain)." if turn.kind is ActionKind.VOTE else "."))
    lines.append("Answer with exactly one JSON object: " + answer_format(turn.kind, state.config.max_bid))
    return "\n".join(lines)


def _task_intro(state: GameState, turn: Turn | None) -> str:
    """The task section up to the allowed targets: the same for every seat asked the same kind."""
    if state.over:
        return "NOW: the game is over."
    phase = "night" if state.phase in ("eliminate", "protect", "unmask") else "day"
    head = f"NOW: round {state.round}, {phase}."
    if turn is None:
        return head + " You have nothing to do right now."
    lines = [head, KIND_PROMPTS[turn.kind]]
    if turn.kind in (ActionKind.SELF_ANALYSIS, ActionKind.PEER_ANALYSIS) and state.current_statement is not None:
        st = state.statements[state.current_statement]
        lines.append(f'The statement: {state.names[st.speaker]}: "{st.text}"')
    if turn.kind is ActionKind.BID and state.debate_turn:
        lines.append(f"Statements so far today: {state.debate_turn} of {state.config.max_debate_turns}.")
    return "\n".join(lines)


# ------------------------------------------------------------------------------- numeric layout

NUM_ROLES = len(ROLES)
NUM_KINDS = len(ACTION_KINDS)
_KIND_INDEX = {kind: i for i, kind in enumerate(ACTION_KINDS)}

# Blocks of the numeric observation, in order: own role, own seat, seats present, alive, possible
# roles per seat as this player knows them, own suspicion scores, roles publicly claimed per seat,
# public accusations received (normalised), share of the last day's votes received; then the
# per-turn tail: expected action kind (last slot: none), round / max_rounds, debate turn / max,
# legal targets of the current turn.
OBS_LAYOUT: tuple[tuple[str, int], ...] = (
    ("role", NUM_ROLES), ("seat", MAX_PLAYERS), ("present", MAX_PLAYERS), ("alive", MAX_PLAYERS),
    ("known_roles", MAX_PLAYERS * NUM_ROLES), ("suspicion", MAX_PLAYERS),
    ("claimed_roles", MAX_PLAYERS * NUM_ROLES), ("accused", MAX_PLAYERS), ("last_votes", MAX_PLAYERS),
    ("kind", NUM_KINDS + 1), ("round", 1), ("debate_turn", 1), ("legal", MAX_PLAYERS),
)  # fmt: skip
_MASK_ROWS = np.array(
    [[float(mask >> i & 1) for i in range(NUM_ROLES)] for mask in range(1 << NUM_ROLES)], dtype=np.float32
)  # row ``mask``: which of ROLES the bitmask allows
_SLICES: dict[str, tuple[int, int]] = {}
_offset = 0
for _key, _size in OBS_LAYOUT:
    _SLICES[_key] = (_offset, _offset + _size)
    _offset += _size
OBS_SIZE = _offset
_PUBLIC = _SLICES["claimed_roles"][0]  # blocks from here on are the same for every seat
_KIND_START = _SLICES["kind"][0] - _PUBLIC  # offsets in the public part
_CLAIMED_START = _SLICES["claimed_roles"][0] - _PUBLIC
_ACCUSED_START = _SLICES["accused"][0] - _PUBLIC
_VOTES_START = _SLICES["last_votes"][0] - _PUBLIC
_LEGAL_START = _SLICES["legal"][0] - _PUBLIC
