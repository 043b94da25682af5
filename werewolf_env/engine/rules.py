"""The rules: one handler per node of the phase graph, each a pure function of the game state.

Handlers either *open turns* (append ``Turn``s to ``state.pending``, the current simultaneous
group) or *resolve* what the finished group answered (``state.group_actions``) and emit events.
They never read a clock, touch a file or draw from a global RNG; the only randomness is the seeded
``state.rng`` (night-vote and bid ties).

This module holds the night's handlers, the winner check and the end of the game, and is the one
``graph`` and the engine import: it re-exports the day's handlers (``rules_day``) and ``winner_of``.
The primitives both handler modules share (opening turns, taking answers, tie-breaks, deaths) are in
``rules_base``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from werewolf_env.actions import ACTION_SPECS
from werewolf_env.core import PUBLIC, ActionKind, GameState, NightChoices, public_config
from werewolf_env.engine.rules_base import (
    acting_seats,
    count_choices,
    die,
    draw_seat,
    open_turns,
    take_answers,
    winner_of,
)
from werewolf_env.engine.rules_day import (
    exile,
    next_round,
    open_analyses,
    open_bid,
    open_poll,
    open_statement,
    open_vote,
    poll_moment,
    record_poll,
    score_analyses,
)

__all__ = [
    "check_winner", "decide_pack", "end_game", "exile", "next_round", "night_deaths", "open_analyses", "open_bid",
    "open_eliminate", "open_heal", "open_poison", "open_poll", "open_protect", "open_shoot", "open_statement",
    "open_summaries", "open_unmask", "open_vote", "poll_moment", "record_poll", "resolve_night",
    "resolve_shot", "rewards", "score_analyses", "start_game", "winner_of",
]  # fmt: skip


# ----------------------------------------------------------------------------------------- night


def start_game(state: GameState) -> None:
    names = list(state.names)
    # Public: the config without a hand-dealt ``roles``; the deal goes to the engine-only event below.
    state.emit("game_start", None, PUBLIC, names=names, config=public_config(state.config))
    state.emit("roles", None, (), roles=[r.value for r in state.roles], seed=state.seed)
    specs = state.config.ruleset.specs
    for seat, role in enumerate(state.roles):
        data: dict[str, Any] = {"role": role.value}
        if specs[role].knows_fellows:  # the pack knows itself
            data["teammates"] = [p for p, r in enumerate(state.roles) if r is role and p != seat]
        if specs[role].night_kinds and ActionKind.HEAL in specs[role].night_kinds:
            state.potions[seat] = {"heal", "poison"}
        state.emit("role_assigned", None, (seat,), **data)


def open_eliminate(state: GameState) -> None:
    state.night = NightChoices()
    state.emit("night_start", None, PUBLIC)
    open_turns(state, acting_seats(state, ActionKind.ELIMINATE), ActionKind.ELIMINATE)


def open_protect(state: GameState) -> None:
    open_turns(state, acting_seats(state, ActionKind.PROTECT), ActionKind.PROTECT)


def open_unmask(state: GameState) -> None:
    open_turns(state, acting_seats(state, ActionKind.UNMASK), ActionKind.UNMASK)


# The night group's kinds, and where each answer goes (the witch's come in groups of their own).
_NIGHT_GROUP = (ActionKind.ELIMINATE, ActionKind.PROTECT, ActionKind.UNMASK)


def decide_pack(state: GameState) -> None:
    """The night group's answers, and the pack's target (most proposed; ties drawn). Run by ``resolve_night``,
    or before it where a witch must learn the target first (the ``pack`` node)."""
    night = state.night
    if night.decided:
        return
    choices = {ActionKind.ELIMINATE: night.proposals, ActionKind.PROTECT: night.protections,
               ActionKind.UNMASK: night.checks}  # fmt: skip
    specs = state.config.ruleset.specs
    for seat, action in take_answers(state).items():
        kinds = specs[state.roles[seat]].night_kinds
        for kind in _NIGHT_GROUP:  # the first of the role's night kinds that the night group asks for
            if kind in kinds:
                choices[kind][seat] = action.get("target")
                break
    votes = count_choices(night.proposals.values())
    target: int | None = None
    if votes:
        top = max(votes.values())
        target = draw_seat(state, sorted(t for t, c in votes.items() if c == top))
    pack = tuple(sorted(night.proposals))
    if pack:
        state.emit(
            "pack_decision",
            None,
            pack,
            proposals={str(w): t for w, t in sorted(night.proposals.items())},
            target=target,
        )
    night.target = target
    night.decided = True


def open_heal(state: GameState) -> None:
    """The witch learns the pack's victim (whether or not she still has the potion) and may heal them."""
    decide_pack(state)
    witches = acting_seats(state, ActionKind.HEAL)
    for witch in witches:
        state.attacks_seen.setdefault(witch, []).append((state.round, state.night.target))
        state.emit("attack_seen", None, (witch,), target=state.night.target)
    if witches:
        state.facts_version += 1  # what the witch knows changed (observation caches key on it)
    # Asked only when the victim may be healed (a potion left; herself only if the rules allow it).
    target = state.night.target
    refuse = ACTION_SPECS[ActionKind.HEAL].refuse
    assert refuse is not None
    open_turns(state, [w for w in witches if target is not None and refuse(state, w, target) is None], ActionKind.HEAL)


def open_poison(state: GameState) -> None:
    for witch, action in take_answers(state).items():
        state.night.heals[witch] = action.get("target")
    open_turns(
        state,
        [w for w in acting_seats(state, ActionKind.POISON) if "poison" in state.potions.get(w, ())],
        ActionKind.POISON,
    )


def resolve_night(state: GameState) -> None:
    night = state.night
    witch_night = night.decided  # the witch's nodes ran: her answers are in
    if witch_night:
        for witch, action in take_answers(state).items():
            night.poisons[witch] = action.get("target")
    decide_pack(state)
    target = night.target

    protected = set()
    for doctor, guarded in sorted(night.protections.items()):
        state.last_protected[doctor] = guarded
        state.protect_history.setdefault(doctor, []).append((state.round, guarded))
        if guarded is not None:
            protected.add(guarded)

    for seer, checked in sorted(night.checks.items()):
        if checked is None:
            continue
        role = state.roles[checked]
        result = role.value if state.config.seer_learns_role else state.config.ruleset.specs[role].team.value
        state.seer_results.setdefault(seer, []).append((state.round, checked, result))
        state.emit("seer_result", seer, (seer,), target=checked, result=result)

    healed = _use_potions(state, "heal", night.heals, state.heal_history)
    poisoned = _use_potions(state, "poison", night.poisons, state.poison_history)
    saved = target is not None and (target in protected or target in healed)
    victim = target if target is not None and not saved else None
    potions = {"healed": sorted(healed), "poisoned": sorted(poisoned)} if witch_night else {}
    outcome = {"target": target, "protected": sorted(protected), "saved": saved, **potions}
    state.emit("night_outcome", None, (), **outcome)
    state.night_deaths.append((state.round, victim))
    # The night's dead in seat order, whatever killed them: neither the cause nor the order of the
    # announcements tells the pack's victim from the witch's poison.
    dead = [seat for seat in night_deaths(outcome) if state.alive[seat]]
    if not dead:
        state.emit("death", None, PUBLIC, victim=None, cause="night")
    for seat in dead:
        die(state, seat, "night")
    state.night = NightChoices()
    state.facts_version += 1


def night_deaths(outcome: Mapping[str, Any]) -> dict[int, str]:
    """Who dies of a night and of what, from its ``night_outcome`` (the event's data), in seat order: "night" for
    the pack's victim (its kill stood), "poison" for the witch's other victims. The one reading of a night's
    deaths: ``resolve_night`` kills them and ``game_record`` names their causes. The public ``death`` events
    say "night" for both: nobody is told which death was the poison."""
    deaths = {int(seat): "poison" for seat in outcome.get("poisoned") or ()}
    target = outcome.get("target")
    if target is not None and not outcome.get("saved"):
        deaths[int(target)] = "night"
    return dict(sorted(deaths.items()))


def _use_potions(
    state: GameState, potion: str, chosen: dict[int, int | None], history: dict[int, list[tuple[int, int]]]
) -> set[int]:
    """Whom the witches' ``potion`` reached tonight; each potion so used is gone (the witch is told)."""
    reached = set()
    for witch, seat in sorted(chosen.items()):
        if seat is None or potion not in state.potions.get(witch, ()):
            continue
        state.potions[witch].discard(potion)
        history.setdefault(witch, []).append((state.round, seat))
        state.emit("potion_used", witch, (witch,), potion=potion, target=seat)
        reached.add(seat)
    return reached


def open_shoot(state: GameState) -> None:
    """The first dead hunter still to shoot takes aim (a shot hunter shoots in turn)."""
    open_turns(state, [state.shooters[0]], ActionKind.SHOOT)


def resolve_shot(state: GameState) -> None:
    ((hunter, action),) = take_answers(state).items()
    state.shooters.pop(0)
    target = action.get("target")
    state.shots.append((state.round, hunter, target))
    state.emit("shot", hunter, PUBLIC, hunter=hunter, target=target)
    if target is not None and state.alive[target]:
        die(state, target, "shot")
    state.facts_version += 1


def check_winner(state: GameState) -> None:
    team = winner_of(state)
    if team is not None:
        state.winner = team
        state.emit("winner", None, PUBLIC, team=team.value)
    elif state.phase == "check_winner_day" and state.round >= state.config.max_rounds:
        state.truncated = True
        state.emit("truncated", None, PUBLIC, max_rounds=state.config.max_rounds)


def open_summaries(state: GameState) -> None:
    open_turns(state, state.living(), ActionKind.SUMMARY)


def end_game(state: GameState) -> None:
    for seat, action in sorted(take_answers(state).items()):
        state.emit("summary", seat, PUBLIC, text=action["summary"])
    state.over = True
    state.emit(
        "game_over",
        None,
        PUBLIC,
        winner=state.winner.value if state.winner else None,
        truncated=state.truncated,
        rewards=rewards(state),
    )


def rewards(state: GameState) -> list[float]:
    """+1 to every member of the winning team, -1 to the others; 0 for all on truncation."""
    if state.winner is None:
        return [0.0] * state.num_players
    specs = state.config.ruleset.specs
    return [1.0 if specs[role].team is state.winner else -1.0 for role in state.roles]
