"""The rules: one handler per node of the phase graph, each a pure function of the game state.

Handlers either *open turns* (append ``Turn``s to ``state.pending``, the current simultaneous
group) or *resolve* what the finished group answered (``state.group_actions``) and emit events.
They never read a clock, touch a file or draw from a global RNG; the only randomness is the seeded
``state.rng`` (night-vote and bid ties).
"""

from __future__ import annotations

from typing import Any

from .claim_text import extractor_for
from .claims import merge_claims, public_role_claims
from .config import MAX_PLAYERS
from .judge import judge
from .roles import ROLE_SPECS, ActionKind, Role, Team
from .state import PUBLIC, GameState, NightChoices, Statement, Turn
from .visibility import public_config


def winner_of(state: GameState) -> Team | None:
    wolves = others = 0
    for seat, up in enumerate(state.alive):
        if up:
            if state.roles[seat].team is Team.WEREWOLF:
                wolves += 1
            else:
                others += 1
    if wolves == 0:
        return Team.VILLAGE
    if wolves >= others:
        return Team.WEREWOLF
    return None


# Turns are immutable values: one shared instance per (kind, seat) instead of one per opening.
_TURNS: dict[ActionKind, list[Turn]] = {kind: [Turn(seat, kind) for seat in range(MAX_PLAYERS)] for kind in ActionKind}


def _open(state: GameState, seats: list[int], kind: ActionKind) -> None:
    turns = _TURNS[kind]
    state.pending.extend([turns[seat] for seat in seats])


def _take(state: GameState) -> dict[int, dict[str, Any]]:
    """The answers of the group that just finished, and a fresh group."""
    answers = state.group_actions
    state.group_actions = {}
    state.group_id += 1
    return answers


def _count(choices: Any) -> dict[int, int]:
    """How often each seat was chosen (``None``, no choice, not counted), in order of first choice."""
    counts: dict[int, int] = {}
    for seat in choices:
        if seat is not None:
            counts[seat] = counts.get(seat, 0) + 1
    return counts


def _draw(state: GameState, candidates: list[int], weights: list[float] | None = None) -> int:
    """Seeded tie-break; no draw (and no RNG use) when there is a single candidate."""
    if len(candidates) == 1:
        return candidates[0]
    if weights is None:
        return candidates[int(state.rng.integers(len(candidates)))]
    total = sum(weights)
    point = state.rng.random() * total
    for seat, weight in zip(candidates, weights, strict=True):
        point -= weight
        if point < 0:
            return seat
    return candidates[-1]


def _reveal(state: GameState, seat: int) -> dict[str, Any]:
    if state.config.reveal_role_on_death:
        state.revealed[seat] = state.roles[seat]
        return {"role": state.roles[seat].value}
    return {}


def _die(state: GameState, seat: int, cause: str) -> None:
    """``seat`` dies (cause "night", "exile" or "shot"): the public death event; a role that acts on its
    death (the hunter) is queued to act before the game goes on."""
    state.kill(seat)
    state.emit("death", None, PUBLIC, victim=seat, cause=cause, **_reveal(state, seat))
    if ROLE_SPECS[state.roles[seat]].on_death is not None:
        state.shooters.append(seat)


def _acting(state: GameState, kind: ActionKind) -> list[int]:
    """Living seats whose role is asked for ``kind`` at night (the table says who: ``RoleSpec.night``)."""
    return [p for p in state.living() if kind in ROLE_SPECS[state.roles[p]].night_kinds]


# ----------------------------------------------------------------------------------------- night


def start_game(state: GameState) -> None:
    names = list(state.names)
    # Public: the config without a hand-dealt ``roles``; the deal goes to the engine-only event below.
    state.emit("game_start", None, PUBLIC, names=names, config=public_config(state.config))
    state.emit("roles", None, (), roles=[r.value for r in state.roles], seed=state.seed)
    for seat, role in enumerate(state.roles):
        data: dict[str, Any] = {"role": role.value}
        if ROLE_SPECS[role].knows_fellows:  # the pack knows itself
            data["teammates"] = [p for p, r in enumerate(state.roles) if r is role and p != seat]
        if ROLE_SPECS[role].night_kinds and ActionKind.HEAL in ROLE_SPECS[role].night_kinds:
            state.potions[seat] = {"heal", "poison"}
        state.emit("role_assigned", None, (seat,), **data)


def open_eliminate(state: GameState) -> None:
    state.night = NightChoices()
    state.emit("night_start", None, PUBLIC)
    _open(state, _acting(state, ActionKind.ELIMINATE), ActionKind.ELIMINATE)


def open_protect(state: GameState) -> None:
    _open(state, _acting(state, ActionKind.PROTECT), ActionKind.PROTECT)


def open_unmask(state: GameState) -> None:
    _open(state, _acting(state, ActionKind.UNMASK), ActionKind.UNMASK)


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
    for seat, action in _take(state).items():
        kinds = ROLE_SPECS[state.roles[seat]].night_kinds
        kind = next((k for k in _NIGHT_GROUP if k in kinds), None)
        if kind is not None:
            choices[kind][seat] = action.get("target")
    votes = _count(night.proposals.values())
    target: int | None = None
    if votes:
        top = max(votes.values())
        target = _draw(state, sorted(t for t, c in votes.items() if c == top))
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
    witches = _acting(state, ActionKind.HEAL)
    for witch in witches:
        state.attacks_seen.setdefault(witch, []).append((state.round, state.night.target))
        state.emit("attack_seen", None, (witch,), target=state.night.target)
    _open(state, [w for w in witches if "heal" in state.potions.get(w, ()) and state.night.target is not None],
          ActionKind.HEAL)  # fmt: skip


def open_poison(state: GameState) -> None:
    for witch, action in _take(state).items():
        state.night.heals[witch] = action.get("target")
    _open(state, [w for w in _acting(state, ActionKind.POISON) if "poison" in state.potions.get(w, ())],
          ActionKind.POISON)  # fmt: skip


def resolve_night(state: GameState) -> None:
    night = state.night
    witch_night = night.decided  # the witch's nodes ran: her answers are in
    if witch_night:
        for witch, action in _take(state).items():
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
        result = role.value if state.config.seer_learns_role else role.team.value
        state.seer_results.setdefault(seer, []).append((state.round, checked, result))
        state.emit("seer_result", seer, (seer,), target=checked, result=result)

    healed = _use_potions(state, "heal", night.heals, state.heal_history)
    poisoned = _use_potions(state, "poison", night.poisons, state.poison_history)
    saved = target is not None and (target in protected or target in healed)
    victim = target if target is not None and not saved else None
    witch = {"healed": sorted(healed), "poisoned": sorted(poisoned)} if witch_night else {}
    state.emit("night_outcome", None, (), target=target, protected=sorted(protected), saved=saved, **witch)
    if victim is not None:
        state.night_deaths.append((state.round, victim))
        _die(state, victim, "night")
    else:
        state.night_deaths.append((state.round, None))
        state.emit("death", None, PUBLIC, victim=None, cause="night")
    for seat in sorted(poisoned):  # announced as night deaths: nobody is told which death was the poison
        if state.alive[seat]:
            _die(state, seat, "night")
    state.night = NightChoices()
    state.facts_version += 1


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
    _open(state, [state.shooters[0]], ActionKind.SHOOT)


def resolve_shot(state: GameState) -> None:
    ((hunter, action),) = _take(state).items()
    state.shooters.pop(0)
    target = action.get("target")
    state.shots.append((state.round, hunter, target))
    state.emit("shot", hunter, PUBLIC, hunter=hunter, target=target)
    if target is not None and state.alive[target]:
        _die(state, target, "shot")
    state.facts_version += 1


def check_winner(state: GameState) -> None:
    team = winner_of(state)
    if team is not None:
        state.winner = team
        state.emit("winner", None, PUBLIC, team=team.value)
    elif state.phase == "check_winner_day" and state.round >= state.config.max_rounds:
        state.truncated = True
        state.emit("truncated", None, PUBLIC, max_rounds=state.config.max_rounds)


# ------------------------------------------------------------------------------------------- day


def open_bid(state: GameState) -> None:
    if state.debate_turn == 0:
        state.emit("day_start", None, PUBLIC, max_debate_turns=state.config.max_debate_turns)
    _open(state, [p for p in state.living() if p != state.last_speaker], ActionKind.BID)


def open_statement(state: GameState) -> None:
    top, tied = -1, []
    for seat, action in _take(state).items():
        bid = action["bid"]
        if bid > top:
            top, tied = bid, [seat]
        elif bid == top:
            tied.append(seat)
    tied.sort()
    if len(tied) == 1:
        speaker = tied[0]
    else:
        weights = [2.0 if seat in state.last_mentioned else 1.0 for seat in tied]
        speaker = _draw(state, tied, weights if len(set(weights)) > 1 else None)
    state.emit("floor", speaker, PUBLIC, speaker=speaker, bid=top, tied=tied)
    _open(state, [speaker], ActionKind.STATEMENT)


def _publicly_known_roles(state: GameState) -> tuple[tuple[str, int], ...]:
    """(role, seat) of a seer / doctor whose role everyone knows (revealed on death): "the doctor" names them."""
    holders: dict[Role, list[int]] = {}
    for seat, role in state.revealed.items():
        holders.setdefault(role, []).append(seat)
    return tuple(
        sorted((role.value, seats[0]) for role, seats in holders.items()
               if role in (Role.SEER, Role.DOCTOR) and len(seats) == 1)
    )  # fmt: skip


def open_analyses(state: GameState) -> None:
    ((speaker, action),) = _take(state).items()
    text = action["statement"]
    said = ((st.speaker, st.claims) for st in state.statements)
    extracted, mentioned = extractor_for(state.names).scan(
        text, speaker, _publicly_known_roles(state), public_role_claims(said)
    )
    state.debate_turn += 1
    state.last_speaker = speaker
    state.last_mentioned = mentioned
    if not text:
        state.emit("pass", speaker, PUBLIC, speaker=speaker)
        state.current_statement = None
        return
    # The text's claims are always judged; structured claims can only add to them.
    claims, source, disagreement = merge_claims(extracted, action["claims"])
    statement = Statement(
        id=len(state.statements),
        round=state.round,
        turn=state.debate_turn,
        speaker=speaker,
        text=text,
        claims=claims,
        claims_source=source,
        truncated=action["truncated"],
        verdict=judge(state, speaker, claims),
        claims_disagreement=disagreement,
    )
    state.statements.append(statement)
    state.current_statement = statement.id
    # Only when the agent sent structured claims: there is nothing to compare otherwise.
    compared = {} if disagreement is None else {"claims_disagreement": disagreement}
    state.emit(
        "statement",
        speaker,
        PUBLIC,
        statement_id=statement.id,
        speaker=speaker,
        text=text,
        claims=claims,
        claims_source=source,
        **compared,
        truncated=statement.truncated,
    )
    state.emit(
        "ground_truth",
        speaker,
        (),
        statement_id=statement.id,
        speaker_role=state.roles[speaker].value,
        **statement.verdict,
        **compared,
    )
    if state.config.analysis_self:
        _open(state, [speaker], ActionKind.SELF_ANALYSIS)
    if state.config.analysis_peer:
        _open(state, [p for p in state.living() if p != speaker], ActionKind.PEER_ANALYSIS)


def score_analyses(state: GameState) -> None:
    answers = _take(state)
    if state.current_statement is None:
        return
    statement = state.statements[state.current_statement]
    speaker = statement.speaker
    weight = state.config.suspicion_weight
    for seat in sorted(answers):
        action = answers[seat]
        if seat == speaker:
            continue
        prior = float(state.suspicion[seat, speaker])
        score = weight * action["suspicion"] + (1.0 - weight) * prior
        state.suspicion[seat, speaker] = score
        state.suspicion_version += 1
        state.emit(
            "suspicion",
            seat,
            (seat,),
            statement_id=statement.id,
            subject=speaker,
            prior=prior,
            reported=action["suspicion"],
            score=score,
        )
    state.current_statement = None


def open_vote(state: GameState) -> None:
    _open(state, state.living(), ActionKind.VOTE)


def exile(state: GameState) -> None:
    votes = {seat: a["vote"] for seat, a in sorted(_take(state).items())}
    tally = _count(votes.values())
    voters = len(votes)
    exiled = None
    if tally:
        target, count = max(sorted(tally.items()), key=lambda tc: tc[1])
        if count * 2 > voters:
            exiled = target
    record = {
        "round": state.round,
        "votes": {str(s): v for s, v in votes.items()},
        "tally": {str(t): c for t, c in sorted(tally.items())},
        "abstained": sum(1 for v in votes.values() if v is None),
        "exiled": exiled,
    }
    state.vote_history.append(record)
    state.emit("votes", None, PUBLIC, **{k: v for k, v in record.items() if k != "round"})
    state.exiles.append((state.round, exiled))
    if exiled is not None:
        _die(state, exiled, "exile")
    else:
        state.emit("no_exile", None, PUBLIC, needed=voters // 2 + 1)
    state.facts_version += 1


def next_round(state: GameState) -> None:
    state.round += 1
    state.debate_turn = 0
    state.last_speaker = None
    state.last_mentioned = frozenset()


def open_summaries(state: GameState) -> None:
    _open(state, state.living(), ActionKind.SUMMARY)


def end_game(state: GameState) -> None:
    for seat, action in sorted(_take(state).items()):
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
    return [1.0 if role.team is state.winner else -1.0 for role in state.roles]
