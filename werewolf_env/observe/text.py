"""The fixed text parts of a player's observation: role cards, the rules, the task section, the
player's own facts and notes. ``observe.ObservationRenderer`` puts them together with the history.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Final

from werewolf_env.actions import ACTION_SPECS, ANSWER_PREFIX, NIGHT_PHASES, answer_format
from werewolf_env.core import DEFAULT_RULESET, ActionKind, GameConfig, GameState, Role, RoleSpec, Ruleset, Turn


class Section:
    """The headers of an observation's text sections, in the order they come: the contract between the renderer (here
    and ``observe``) and the agents that cut a prompt into parts (``werewolf_deception.agents.llm.prompts``,
    ``werewolf_deception.agents.policies.human``). A section starts on a line of its own after a blank line, with its
    header."""

    RULES: Final = "RULES:"
    PLAYERS: Final = "PLAYERS:"
    KNOWLEDGE: Final = "WHAT YOU KNOW:"
    HISTORY: Final = "HISTORY:"
    SUSPICION: Final = "YOUR SUSPICION SCORES"  # followed by the scale, then ":"
    NOTES: Final = "YOUR PRIVATE NOTES"  # followed by how many are shown, then ":"
    TASK: Final = "NOW:"


def role_card(role: Role, ruleset: Ruleset = DEFAULT_RULESET) -> str:
    """The role card a player reads first (``RoleSpec.card``)."""
    return ruleset.specs[role].card


_KIND_ORDER = {kind: i for i, kind in enumerate(ActionKind)}


def _acting_order(spec: RoleSpec) -> int:
    """Roles in the order their actions come in the night (werewolves, doctor, seer, witch; then the hunter)."""
    kinds = [*spec.night_kinds, *([spec.on_death] if spec.on_death else [])]
    return min((_KIND_ORDER[k] for k in kinds), default=len(_KIND_ORDER))


@lru_cache(maxsize=32)
def rules_text(config: GameConfig) -> str:
    counts = config.seat_counts()
    specs = config.ruleset.specs
    roles = ", ".join(f"{c} {specs[r].plural if c > 1 else r.value}" for r, c in counts.items() if c)
    # What the roles of this game do at night or on death, from the table ("the seer investigates someone").
    powers = [
        specs[r].power
        for r in sorted((r for r, c in counts.items() if c), key=lambda r: _acting_order(specs[r]))
        if specs[r].power
    ]
    protector = any(ActionKind.PROTECT in specs[r].night_kinds for r, c in counts.items() if c)
    lines = [
        f"{Section.RULES} {config.num_players} players ({roles}).",
        f"Night: {', '.join(powers)}; the victim dies unless "
        + ("protected" if protector else "healed" if config.acts(ActionKind.HEAL) else "the night fails")
        + ".",
        f"Day: up to {config.max_debate_turns} statements of at most {config.max_statement_words} words "
        f"and {config.statement_char_limit} characters; "
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
    if config.acts(ActionKind.HEAL) and not config.witch_self_heal:
        lines.append("The witch may not heal herself.")
    return "\n".join(lines)


def notes_text(notes: list[tuple[int, str, str]], max_shown: int) -> str:
    """A player's latest private notes (the section starts with its blank-line separator)."""
    if not notes or not max_shown:
        return ""
    shown = notes[-max_shown:]
    older = len(notes) - len(shown)
    header = Section.NOTES + (f" (latest {len(shown)}; {older} older not shown)" if older else "") + ":"
    return "\n\n" + header + "\n" + "\n".join(f"- [round {r}, {ph}] {text}" for r, ph, text in shown)


def known_facts(state: GameState, seat: int) -> list[str]:
    names = state.names
    facts = []
    role = state.roles[seat]
    spec = state.config.ruleset.specs[role]
    if spec.knows_fellows:
        mates = [names[p] for p, r in enumerate(state.roles) if r is role and p != seat]
        fellows = f"fellow {spec.plural}"
        facts.append(f"Your {fellows}: " + (", ".join(mates) if mates else "none (you hunt alone)") + ".")
    for rnd, target, result in state.seer_results.get(seat, ()):
        what = "a werewolf" if result == "werewolf" else "not a werewolf" if result == "village" else f"the {result}"
        facts.append(f"Night {rnd}: you investigated {names[target]}: {what}.")
    for rnd, guarded in state.protect_history.get(seat, ()):
        facts.append(f"Night {rnd}: you protected {names[guarded] if guarded is not None else 'nobody'}.")
    for rnd, victim in state.attacks_seen.get(seat, ()):
        facts.append(f"Night {rnd}: the werewolves attacked {names[victim] if victim is not None else 'nobody'}.")
    for rnd, healed in state.heal_history.get(seat, ()):
        facts.append(f"Night {rnd}: you healed {names[healed]} (your healing potion is used).")
    for rnd, poisoned in state.poison_history.get(seat, ()):
        facts.append(f"Night {rnd}: you poisoned {names[poisoned]} (your poison is used).")
    if seat in state.potions:
        left = sorted(state.potions[seat])
        facts.append("Potions left: " + (", ".join(left) if left else "none") + ".")
    for p, r in sorted(state.revealed.items()):
        facts.append(f"{names[p]} was the {r.value} (revealed on death).")
    return facts


def task_text(state: GameState, turn: Turn | None, legal: list[int], intro: str | None = None) -> str:
    """The task section; ``intro`` is ``task_intro(state, turn)`` when the caller has it already."""
    if state.over or turn is None:
        return task_intro(state, turn)
    lines = [intro if intro is not None else task_intro(state, turn)]
    if legal and turn.kind is not ActionKind.STATEMENT:
        allowed = ", ".join([state.names[p] for p in legal])
        lines.append(f"Allowed: {allowed}" + (" (or null to abstain)." if turn.kind is ActionKind.VOTE else "."))
    answer = answer_format(turn.kind, state.config.max_bid)
    subjects = state.analysis_subjects(turn.player) if turn.kind is ActionKind.PEER_ANALYSIS else []
    if subjects:
        listed = ", ".join(f'"{state.names[p]}": p' for p in subjects)
        lines.append(
            f"Also score the players it speaks of, p = how likely each is a werewolf (0-1): "
            f'"suspicion_of": {{{listed}}}.'
        )
        answer = answer[:-1] + ', "suspicion_of": {' + listed + "}}"
    lines.append(ANSWER_PREFIX + answer)
    return "\n".join(lines)


def task_intro(state: GameState, turn: Turn | None) -> str:
    """The task section up to the allowed targets: the same for every seat asked the same kind."""
    if state.over:
        return f"{Section.TASK} the game is over."
    phase = "night" if state.phase in NIGHT_PHASES else "day"
    head = f"{Section.TASK} round {state.round}, {phase}."
    if turn is None:
        return head + " You have nothing to do right now."
    lines = [head, ACTION_SPECS[turn.kind].prompt]
    if turn.kind is ActionKind.HEAL and state.night.target is not None:
        lines.append(f"The werewolves' victim tonight: {state.names[state.night.target]}.")
    if turn.kind in (ActionKind.SELF_ANALYSIS, ActionKind.PEER_ANALYSIS) and state.current_statement is not None:
        st = state.statements[state.current_statement]
        lines.append(f'The statement: {state.names[st.speaker]}: "{st.text}"')
    if turn.kind is ActionKind.BID and state.debate_turn:
        lines.append(f"Statements so far today: {state.debate_turn} of {state.config.max_debate_turns}.")
    return "\n".join(lines)
