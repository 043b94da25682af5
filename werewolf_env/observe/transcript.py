"""Transcript lines: one line of text per event, as a given viewer reads it.

``event_line`` renders one event for one viewer (a seat, or ``None``: the public); ``Transcript``
keeps one viewer's lines and their running join. Which events a viewer gets is decided by
``visibility.visible`` alone; these functions only word them.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from werewolf_env.analysis import acting_role
from werewolf_env.core import SELF_MARK, ActionKind, Event, visible
from werewolf_env.record import poisoned_deaths


def _n(names: tuple[str, ...], seat: int | None, viewer: int | None) -> str:
    """A seat's name as ``viewer`` reads it ("Name (you)" for the viewer's own seat)."""
    if seat is None:
        return "nobody"
    if seat == viewer:
        return names[seat] + SELF_MARK
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


_POTIONS = {"heal": "healing potion", "poison": "poison"}


def _attack_seen(e: Event, viewer: int | None, names: tuple[str, ...]) -> str:
    """The witch is told the pack's victim (her own line: only she, and a spectator of everything, read it)."""
    victim = _n(names, e.data["target"], viewer)
    if viewer is not None:
        return f"The werewolves attack {victim} tonight."
    return f"[{acting_role(ActionKind.HEAL)} {names[e.audience[0]]}] is told the werewolves' victim: {victim}."  # type: ignore[index]


def _potion(e: Event, viewer: int | None, names: tuple[str, ...]) -> str:
    potion = _POTIONS.get(e.data["potion"], e.data["potion"])
    target = _n(names, e.data["target"], viewer)
    if viewer is not None:
        return f"You used your {potion} on {target}."
    return f"[{acting_role(ActionKind.HEAL)} {names[e.actor]}] used the {potion} on {target}."  # type: ignore[index]


def _shot(e: Event, viewer: int | None, names: tuple[str, ...]) -> str:
    """A dead hunter's last shot (public: everyone hears it; the death follows as its own event)."""
    hunter = acting_role(ActionKind.SHOOT).capitalize()
    if e.data["target"] is None:
        return f"{hunter} {_n(names, e.data['hunter'], viewer)} shoots nobody."
    return f"{hunter} {_n(names, e.data['hunter'], viewer)} shoots {_n(names, e.data['target'], viewer)}, who dies."


def _death(e: Event, viewer: int | None, names: tuple[str, ...]) -> str:
    d = e.data
    role = f" They were the {d['role']}." if "role" in d else ""
    if d["cause"] == "night":
        if d["victim"] is None:
            return "Dawn: nobody died in the night."
        return f"Dawn: {_n(names, d['victim'], viewer)} was killed in the night.{role}"
    if d["cause"] == "shot":
        return f"{_n(names, d['victim'], viewer)} was shot.{role}"
    return f"{_n(names, d['victim'], viewer)} is exiled.{role}"


def _night_outcome(e: Event, viewer: int | None, names: tuple[str, ...]) -> str:
    d = e.data
    line = (
        f"[hidden] Night target {_n(names, d['target'], viewer)}, "
        f"protected {[names[p] for p in d['protected']]}, saved={d['saved']}"
    )
    if "healed" in d:  # a witch played tonight
        line += f", healed {[names[p] for p in d['healed']]}, poisoned {[names[p] for p in d['poisoned']]}"
    return line + "."


def _statement(e: Event, viewer: int | None, names: tuple[str, ...]) -> str:
    d = e.data
    cut = " [cut to the length limit]" if d["truncated"] else ""
    return f'{_n(names, d["speaker"], viewer)}: "{d["text"]}"{cut}'


def _labels(names: tuple[str, ...], viewer: int | None) -> tuple[str, ...]:
    """Every seat's name as ``viewer`` reads it (see ``_n``), for lines that name many seats."""
    if viewer is None:
        return names
    labels = list(names)
    labels[viewer] += SELF_MARK
    return tuple(labels)


def _votes(e: Event, viewer: int | None, names: tuple[str, ...]) -> str:
    neutral, own = vote_lines(e.data, names, () if viewer is None else (viewer,))
    return own[0] if own else neutral


def vote_lines(d: dict[str, Any], names: tuple[str, ...], readers: Any) -> tuple[str, list[str]]:
    """The votes line as nobody in particular reads it, and as each of ``readers`` does (its own
    name marked "(you)"): rendered once, then copied per reader."""
    tokens = _vote_tokens(d)
    parts: list[str] = [names[t] if isinstance(t, int) else t for t in tokens]
    where: dict[int, list[int]] = {}
    for i, t in enumerate(tokens):
        if type(t) is int:
            where.setdefault(t, []).append(i)
    own = []
    for seat in readers:
        copy = parts.copy()
        for i in where.get(seat, ()):
            copy[i] += SELF_MARK
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
    if kind == "poll":  # the ``poll`` event says it; its own player is never reminded (polls change nothing)
        return None
    p = d["parsed"]
    who = "You" if viewer is not None else f"[{names[e.actor]}]"  # type: ignore[index]

    def target(key: str) -> str:
        return names[p[key]] if p.get(key) is not None else "nobody"

    line = None
    if kind in _POTIONS:  # a used potion has its own line (``potion_used``); a kept one is said here
        potion = _POTIONS[kind]
        if p.get("target") is None:
            line = f"{who} kept {'your' if viewer is not None else 'the'} {potion}."
        elif viewer is None:
            line = f"{who} chose to {kind} {target('target')}."
    elif kind == "shoot":
        line = None  # the public ``shot`` line says it
    elif kind == "eliminate":
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
        extra += "".join(f", of {names[seat]} {score:.2f}" for seat, score in p.get("suspicion_of", ()))
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
    "attack_seen": _attack_seen,
    "potion_used": _potion,
    "night_outcome": _night_outcome,
    "death": _death,
    "shot": _shot,
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
    "poll": lambda e, v, names: (
        f"[hidden] poll after the {e.data['after'].replace('_', ' ')}: {names[e.actor]} would exile "  # type: ignore[index]
        f"{names[e.data['target']] if e.data['target'] is not None else 'nobody'}"
        + (" (no valid answer)" if e.data["fallback"] else "")
    ),
    "action": _own_action,
    "suspicion": _suspicion,
}  # fmt: skip


def named_seats(event: Event) -> set[int | None]:
    """Seats a public event's line names: they read "(you)" after their name, so their line differs."""
    d = event.data
    named = {event.actor, d.get("speaker"), d.get("victim")}
    if event.type == "shot":
        named.add(d["target"])
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

    __slots__ = ("controls", "cursor", "lines", "names", "poisoned", "spectator", "text", "viewer")

    def __init__(self, names: tuple[str, ...], viewer: int | None, spectator: bool = False) -> None:
        self.names = names
        self.viewer = viewer  # None: the public (spectator without hidden information)
        self.spectator = spectator  # everything, hidden events included
        self.lines: list[str] = []
        self.text = ""
        self.cursor = 0
        self.poisoned: set[int] = set()  # tonight's poison victims, for a spectator of everything
        # (statement id, listener) -> its control subject, from the ground truth events: the suspicion event
        # (which its listener sees) does not say it was a control.
        self.controls: dict[tuple[int, int], int] = {}

    def update(self, events: list[Event]) -> str:
        viewer = self.viewer
        names = self.names
        new = []
        everything = self.spectator
        for i in range(self.cursor, len(events)):
            event = events[i]
            if everything or (event.audience is None if viewer is None else visible(event, viewer)):
                line = event_line(event, viewer, names)
                if everything:
                    line = self._hidden_cause(event, line)
                if line is not None:
                    new.append(line)
        self.cursor = len(events)
        if new:
            self.lines.extend(new)
            self.text = "\n".join(new) if not self.text else self.text + "\n" + "\n".join(new)
        return self.text

    def _hidden_cause(self, event: Event, line: str | None) -> str | None:
        """A spectator of everything reads which night death was the witch's poison (the public death
        event says "night" for both: ``game_record.poisoned_deaths``), and which suspicion score was a control
        subject's (not kept: the ground truth event's ``control_subjects``)."""
        if event.type == "night_outcome":
            self.poisoned = poisoned_deaths(event.data)
        elif event.type == "death" and line is not None and event.data.get("victim") in self.poisoned:
            return f"{line} [hidden] Poisoned by the {acting_role(ActionKind.POISON)}."
        elif event.type == "ground_truth":
            sid = int(event.data["statement_id"])
            for listener, subject in event.data.get("control_subjects") or ():
                self.controls[(sid, int(listener))] = int(subject)
        elif event.type == "suspicion" and line is not None and event.actor is not None:
            data = event.data
            if self.controls.get((int(data["statement_id"]), event.actor)) == data["subject"]:
                return f"{line[:-1]} (control subject: not kept)]"
        return line
