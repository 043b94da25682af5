"""The fixed text parts of a player's observation: role cards, the rules, the task section, the
player's own facts and notes. ``observe.ObservationRenderer`` puts them together with the history.
"""

from __future__ import annotations

from functools import lru_cache

from .actions import answer_format
from .config import GameConfig, Role
from .state import ActionKind, GameState, Turn

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
    return "\n".join(lines)


def notes_text(notes: list[tuple[int, str, str]], max_shown: int) -> str:
    """A player's latest private notes (the section starts with its blank-line separator)."""
    if not notes or not max_shown:
        return ""
    shown = notes[-max_shown:]
    older = len(notes) - len(shown)
    header = "YOUR PRIVATE NOTES" + (f" (latest {len(shown)}; {older} older not shown)" if older else "") + ":"
    return "\n\n" + header + "\n" + "\n".join(f"- [round {r}, {ph}] {text}" for r, ph, text in shown)


def known_facts(state: GameState, seat: int) -> list[str]:
    names = state.names
    facts = []
    role = state.roles[seat]
    if role is Role.WEREWOLF:
        mates = [names[p] for p, r in enumerate(state.roles) if r is Role.WEREWOLF and p != seat]
        facts.append("Your fellow werewolves: " + (", ".join(mates) if mates else "none (you hunt alone)") + ".")
    for rnd, target, result in state.seer_results.get(seat, ()):
        what = "a werewolf" if result == "werewolf" else "not a werewolf" if result == "village" else f"the {result}"
        facts.append(f"Night {rnd}: you investigated {names[target]}: {what}.")
    for rnd, guarded in state.protect_history.get(seat, ()):
        facts.append(f"Night {rnd}: you protected {names[guarded] if guarded is not None else 'nobody'}.")
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
    lines.append("Answer with exactly one JSON object: " + answer_format(turn.kind, state.config.max_bid))
    return "\n".join(lines)


def task_intro(state: GameState, turn: Turn | None) -> str:
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
