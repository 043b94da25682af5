"""Observations: the prompt-ready text and the fixed-size numeric vector, from one player's view.

Both read only ``visibility.visible`` events and ``visibility.knowledge``; nothing else about the
state reaches a player. The text is assembled lazily in ``observe()`` from per-player transcript
lines that are rendered once per event (``Transcript``), so long games stay cheap to observe.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

import numpy as np

from .actions import answer_format
from .config import MAX_PLAYERS, ROLE_INDEX, ROLES, GameConfig, Role
from .state import ACTION_KINDS, ActionKind, Event, GameState, Turn
from .visibility import knowledge, visible

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


def _name(names: tuple[str, ...], seat: int | None, viewer: int | None = None) -> str:
    if seat is None:
        return "nobody"
    if seat == viewer:
        return f"{names[seat]} (you)"
    return names[seat]


def event_line(event: Event, viewer: int | None, names: tuple[str, ...]) -> str | None:
    """One transcript line for ``event`` as ``viewer`` sees it (None: spectator), or None to skip."""
    d = event.data
    t = event.type
    n = lambda seat: _name(names, seat, viewer)  # noqa: E731
    if t == "game_start":
        return f"The game begins with {len(d['names'])} players: {', '.join(d['names'])}."
    if t == "roles":
        return "[hidden] Roles: " + ", ".join(f"{names[i]}={r}" for i, r in enumerate(d["roles"]))
    if t == "role_assigned":
        if viewer is None:
            return None
        mates = d.get("teammates")
        if mates:
            return f"You are a werewolf. Your fellow werewolves: {', '.join(names[m] for m in mates)}."
        if mates is not None:
            return "You are the only werewolf."
        return f"Your role: {d['role']}."
    if t == "night_start":
        return f"--- Night {event.round} ---"
    if t == "day_start":
        return f"--- Day {event.round} ---"
    if t == "pack_decision":
        props = ", ".join(f"{n(int(w))} -> {n(tgt)}" for w, tgt in d["proposals"].items())
        prefix = "[werewolves] " if viewer is None else ""
        return f"{prefix}The pack's proposals: {props}. Target: {n(d['target'])}."
    if t == "seer_result":
        who = "You" if viewer is not None else f"[seer {names[event.actor]}]"  # type: ignore[index]
        result = d["result"]
        verdict = "a werewolf" if result == "werewolf" else "not a werewolf" if result == "village" else f"the {result}"
        return f"{who} investigated {n(d['target'])}: {verdict}."
    if t == "night_outcome":
        return (
            f"[hidden] Night target {n(d['target'])}, protected {[names[p] for p in d['protected']]}, "
            f"saved={d['saved']}."
        )
    if t == "death":
        role = f" They were the {d['role']}." if "role" in d else ""
        if d["cause"] == "night":
            if d["victim"] is None:
                return "Dawn: nobody died in the night."
            return f"Dawn: {n(d['victim'])} was killed in the night.{role}"
        return f"{n(d['victim'])} is exiled.{role}"
    if t == "floor":
        return f"{n(d['speaker'])} takes the floor (bid {d['bid']})."
    if t == "statement":
        cut = " [cut to the word limit]" if d["truncated"] else ""
        return f'{n(d["speaker"])}: "{d["text"]}"{cut}'
    if t == "pass":
        return f"{n(d['speaker'])} says nothing."
    if t == "ground_truth":
        label = d["type"] if d["lie"] else "honest"
        return f"[hidden] statement {d['statement_id']} by a {d['speaker_role']}: {label}"
    if t == "votes":
        cast = ", ".join(f"{n(int(s))} -> {n(v) if v is not None else 'abstain'}" for s, v in d["votes"].items())
        tally = ", ".join(f"{n(int(s))} {c}" for s, c in d["tally"].items()) or "no votes"
        return f"Votes: {cast}. Tally: {tally}; abstained: {d['abstained']}."
    if t == "no_exile":
        return f"No majority ({d['needed']} votes needed): nobody is exiled."
    if t == "winner":
        return f"The {d['team']} team wins."
    if t == "truncated":
        return f"The game ends undecided after {d['max_rounds']} rounds."
    if t == "summary":
        return f'{n(event.actor)} (final summary): "{d["text"]}"'
    if t == "game_over":
        return "Game over."
    if t == "action":
        return _own_action_line(event, viewer, names)
    if t == "suspicion":
        if viewer is not None:
            return None  # shown as the current scores instead
        return (
            f"[{names[event.actor]}'s suspicion of {names[d['subject']]}: "  # type: ignore[index]
            f"{d['prior']:.2f} -> {d['score']:.2f}]"
        )
    return None


def _own_action_line(event: Event, viewer: int | None, names: tuple[str, ...]) -> str | None:
    d = event.data
    kind = d["kind"]
    p = d["parsed"]
    who = "You" if viewer is not None else f"[{names[event.actor]}]"  # type: ignore[index]
    target = lambda key: names[p[key]] if p.get(key) is not None else "nobody"  # noqa: E731
    line = None
    if kind == "eliminate":
        line = f"{who} proposed to eliminate {target('target')}."
    elif kind == "protect":
        line = f"{who} protected {target('target')}."
    elif kind == "unmask":
        line = None if viewer is not None else f"{who} investigated {target('target')}."
    elif kind == "bid":
        line = f"{who} bid {p['bid']}."
    elif kind == "vote":
        line = f"{who} voted for {target('vote') if p['vote'] is not None else 'nobody (abstain)'}."
    elif kind in ("self_analysis", "peer_analysis"):
        extra = f", suspicion {p['suspicion']:.2f}" if "suspicion" in p else ""
        line = (
            f"{who} analysed the statement: deceptive={str(p['is_deceptive']).lower()} "
            f"({p['deception_type']}, confidence {p['confidence']:.2f}{extra})."
        )
    if d.get("fallbacks"):
        fix = f"{who} answered invalidly ({'; '.join(d['fallbacks'])})."
        line = f"{line} {fix}" if line else fix
    return line


class Transcript:
    """Per-viewer transcript lines, rendered once per event as the game goes on."""

    __slots__ = ("cursor", "lines", "names", "viewer")

    def __init__(self, names: tuple[str, ...], viewer: int | None, public_only: bool = False) -> None:
        self.names = names
        self.viewer = viewer
        self.lines: list[str] = []
        self.cursor = 0

    def update(self, events: list[Event], spectator: bool = False) -> list[str]:
        viewer = self.viewer
        for event in events[self.cursor :]:
            if spectator or (event.audience is None if viewer is None else visible(event, viewer)):
                line = event_line(event, viewer, self.names)
                if line is not None:
                    self.lines.append(line)
        self.cursor = len(events)
        return self.lines


def render_text(state: GameState, seat: int, transcript: list[str], turn: Turn | None, legal: list[int]) -> str:
    """Everything ``seat`` may know, ready to paste into a prompt."""
    config = state.config
    names = state.names
    role = state.roles[seat]
    parts = [
        f"== Werewolf: you are {names[seat]} (player_{seat}) ==",
        ROLE_CARDS[role],
        rules_text(config),
        "PLAYERS: "
        + ", ".join(
            f"{names[p]}{' (you)' if p == seat else ''}{'' if state.alive[p] else ' [dead]'}"
            for p in range(state.num_players)
        ),
    ]
    facts = _facts(state, seat)
    if facts:
        parts.append("WHAT YOU KNOW:\n" + "\n".join(f"- {f}" for f in facts))
    if config.show_suspicion:
        scores = ", ".join(
            f"{names[p]} {state.suspicion[seat, p]:.2f}"
            for p in range(state.num_players)
            if p != seat and state.alive[p]
        )
        parts.append(f"YOUR SUSPICION SCORES (0 = trust, 1 = surely a werewolf): {scores}")
    parts.append("HISTORY:\n" + ("\n".join(transcript) if transcript else "(nothing yet)"))
    notes = state.notes[seat]
    if notes and config.max_notes_shown:
        shown = notes[-config.max_notes_shown :]
        older = len(notes) - len(shown)
        header = "YOUR PRIVATE NOTES" + (f" (latest {len(shown)}; {older} older not shown)" if older else "") + ":"
        parts.append(header + "\n" + "\n".join(f"- [round {r}, {ph}] {text}" for r, ph, text in shown))
    parts.append(_now(state, seat, turn, legal))
    return "\n\n".join(parts)


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


def _now(state: GameState, seat: int, turn: Turn | None, legal: list[int]) -> str:
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
    if legal and turn.kind is not ActionKind.STATEMENT:
        allowed = ", ".join(state.names[p] for p in legal)
        lines.append(f"Allowed: {allowed}" + (" (or null to abstain)." if turn.kind is ActionKind.VOTE else "."))
    lines.append("Answer with exactly one JSON object: " + answer_format(turn.kind, state.config.max_bid))
    return "\n".join(lines)


# ------------------------------------------------------------------------------- numeric encoding

NUM_ROLES = len(ROLES)
NUM_KINDS = len(ACTION_KINDS)
_KIND_INDEX = {kind: i for i, kind in enumerate(ACTION_KINDS)}
_SLICES: dict[str, tuple[int, int]] = {}


def _layout() -> int:
    sizes = [
        ("role", NUM_ROLES), ("seat", MAX_PLAYERS), ("present", MAX_PLAYERS), ("alive", MAX_PLAYERS),
        ("kind", NUM_KINDS + 1), ("round", 1), ("debate_turn", 1),
        ("known_roles", MAX_PLAYERS * NUM_ROLES), ("suspicion", MAX_PLAYERS),
        ("claimed_roles", MAX_PLAYERS * NUM_ROLES), ("accused", MAX_PLAYERS), ("last_votes", MAX_PLAYERS),
        ("legal", MAX_PLAYERS),
    ]  # fmt: skip
    start = 0
    for key, size in sizes:
        _SLICES[key] = (start, start + size)
        start += size
    return start


OBS_SIZE = _layout()


def encode(state: GameState, seat: int, turn: Turn | None, legal: list[int]) -> np.ndarray:
    """Fixed-size float32 vector in [0, 1]; padded to MAX_PLAYERS seats so policies transfer across sizes.

    Blocks (see ``_SLICES``): own role, own seat, seats present, alive, expected action kind (last
    slot: none), round / max_rounds, debate turn / max, possible roles per seat as this player knows
    them, own suspicion scores, roles publicly claimed per seat, public accusations received
    (normalised), last day's votes received (normalised), legal targets of the current turn.
    """
    obs = np.zeros(OBS_SIZE, dtype=np.float32)
    n = state.num_players

    def put(key: str, values: Any, offset: int = 0) -> None:
        start, _end = _SLICES[key]
        obs[start + offset : start + offset + len(values)] = values

    obs[_SLICES["role"][0] + ROLE_INDEX[state.roles[seat]]] = 1.0
    obs[_SLICES["seat"][0] + seat] = 1.0
    put("present", [1.0] * n)
    put("alive", [1.0 if a else 0.0 for a in state.alive])
    kind_index = _KIND_INDEX[turn.kind] if turn is not None else NUM_KINDS
    obs[_SLICES["kind"][0] + kind_index] = 1.0
    obs[_SLICES["round"][0]] = min(state.round / state.config.max_rounds, 1.0)
    obs[_SLICES["debate_turn"][0]] = state.debate_turn / state.config.max_debate_turns
    known = knowledge(state, seat)
    base = _SLICES["known_roles"][0]
    for p, roles in enumerate(known):
        for role in roles:
            obs[base + p * NUM_ROLES + ROLE_INDEX[role]] = 1.0
    if state.config.show_suspicion:
        row = state.suspicion[seat]
        put("suspicion", [0.0 if p == seat else float(row[p]) for p in range(n)])
    claimed_base = _SLICES["claimed_roles"][0]
    accused = [0] * n
    for st in state.statements:
        for claim in st.claims:
            if claim["negated"]:
                continue
            subject = claim["player"]
            if claim["kind"] == "role" and subject == st.speaker:
                obs[claimed_base + subject * NUM_ROLES + ROLE_INDEX[Role(claim["role"])]] = 1.0
            elif claim["kind"] in ("team", "seer_result") and claim["team"] == "werewolf":
                accused[subject] += 1
            if claim["kind"] == "seer_result":
                obs[claimed_base + st.speaker * NUM_ROLES + ROLE_INDEX[Role.SEER]] = 1.0
    top = max(accused, default=0)
    if top:
        put("accused", [a / top for a in accused])
    if state.vote_history:
        last = state.vote_history[-1]
        voters = max(len(last["votes"]), 1)
        base = _SLICES["last_votes"][0]
        for target, count in last["tally"].items():
            obs[base + int(target)] = count / voters
    base = _SLICES["legal"][0]
    for p in legal:
        obs[base + p] = 1.0
    return obs
