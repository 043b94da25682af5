"""The day's rule handlers: bids for the floor, the statement and its judged claims, the listeners'
analyses and suspicion scores, the vote and the exile, the next round.

One handler per day node of the phase graph (``graph``), each a pure function of the game state (see
``rules``, which holds the night's handlers and re-exports these: ``graph`` reads them there).
"""

from __future__ import annotations

import numpy as np

from werewolf_env.claims import add_role_claims, extractor_for, merge_claims
from werewolf_env.claims.judge import judge
from werewolf_env.core import PUBLIC, ActionKind, GameState, Role, Statement
from werewolf_env.engine.rules_base import count_choices, die, draw_seat, open_turns, take_answers

CONTROL_STREAM = 0xC0  # the control subjects' generators: a stream no other draw of the game uses


def open_bid(state: GameState) -> None:
    if state.debate_turn == 0:
        state.emit("day_start", None, PUBLIC, max_debate_turns=state.config.max_debate_turns)
    open_turns(state, [p for p in state.living() if p != state.last_speaker], ActionKind.BID)


def open_statement(state: GameState) -> None:
    top, tied = -1, []
    for seat, action in take_answers(state).items():
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
        speaker = draw_seat(state, tied, weights if len(set(weights)) > 1 else None)
    state.emit("floor", speaker, PUBLIC, speaker=speaker, bid=top, tied=tied)
    open_turns(state, [speaker], ActionKind.STATEMENT)


def _publicly_known_roles(state: GameState) -> tuple[tuple[str, int], ...]:
    """(role, seat) of a one-holder role (``RoleSpec.unique``: the seer, the doctor, ...) whose holder everyone
    knows (revealed on death): "the doctor" names them."""
    holders: dict[Role, list[int]] = {}
    for seat, role in state.revealed.items():
        holders.setdefault(role, []).append(seat)
    return tuple(
        sorted(
            (role.value, seats[0])
            for role, seats in holders.items()
            if state.config.ruleset.specs[role].unique and len(seats) == 1
        )
    )


def _public_role_claims(state: GameState) -> tuple[tuple[int, str], ...]:
    """``claims.public_role_claims`` of the statements so far, read once each (kept on the state)."""
    done, claimed = state.role_claims_read
    if done > len(state.statements):  # a state whose statements were replaced: read them all again
        done, claimed = 0, {}
    for st in state.statements[done:]:
        add_role_claims(claimed, st.speaker, st.claims, state.config.ruleset, state.config.roles_in_game())
    state.role_claims_read = (len(state.statements), claimed)
    return tuple(sorted(claimed.items()))


def open_analyses(state: GameState) -> None:
    ((speaker, action),) = take_answers(state).items()
    text = action["statement"]
    # The public context is worked out only if the reader needs it (``ClaimExtractor.scan_with``).
    extracted, mentioned = extractor_for(state.names, state.config.ruleset).scan_with(
        text, speaker, lambda: (_publicly_known_roles(state), _public_role_claims(state))
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
    state.control_subjects = _draw_control_subjects(state, statement, mentioned)
    # Seen by nobody: which listener's extra subject is the control (left out when none was drawn, as before).
    # Pairs as lists, as the log writes them: an event's data is JSON values (Inspect refuses tuples).
    pairs = [[listener, subject] for listener, subject in sorted(state.control_subjects.items())]
    controls = {"control_subjects": pairs} if pairs else {}
    state.emit(
        "ground_truth",
        speaker,
        (),
        statement_id=statement.id,
        speaker_role=state.roles[speaker].value,
        **statement.verdict,
        **compared,
        **controls,
    )
    if state.config.analysis_self:
        open_turns(state, [speaker], ActionKind.SELF_ANALYSIS)
    if state.config.analysis_peer:
        open_turns(state, [p for p in state.living() if p != speaker], ActionKind.PEER_ANALYSIS)


def _draw_control_subjects(state: GameState, statement: Statement, mentioned: frozenset[int]) -> dict[int, int]:
    """Listener -> a control subject: with ``config.control_subject_probability``, one living player the statement
    neither names nor makes claims about (not the speaker, not the listener). Drawn from a generator of its own per
    (game, statement, listener), so that asking never changes the game's other draws: play stays as it was."""
    chance = state.config.control_subject_probability
    if not (chance > 0 and state.config.subject_suspicion and state.config.analysis_peer):
        return {}
    spoken_of = {claim["player"] for claim in statement.claims} | set(mentioned) | {statement.speaker}
    controls: dict[int, int] = {}
    for listener in state.living():
        if listener == statement.speaker:
            continue
        rng = np.random.default_rng((state.seed & (2**64 - 1), statement.id, listener, CONTROL_STREAM))
        if rng.random() >= chance:
            continue
        candidates = [p for p in state.living() if p != listener and p not in spoken_of]
        if candidates:
            controls[listener] = candidates[int(rng.integers(len(candidates)))]
    return controls


def score_analyses(state: GameState) -> None:
    answers = take_answers(state)
    if state.current_statement is None:
        return
    statement = state.statements[state.current_statement]
    speaker = statement.speaker
    weight = state.config.suspicion_weight
    for seat in sorted(answers):
        action = answers[seat]
        if seat == speaker:
            continue
        _update_suspicion(state, seat, speaker, action["suspicion"], statement.id, weight)
        # The players the statement spoke of, as the listener scored them (``config.subject_suspicion``).
        for subject, reported in action.get("suspicion_of", ()):
            _update_suspicion(
                state,
                seat,
                subject,
                reported,
                statement.id,
                weight,
                control=state.control_subjects.get(seat) == subject,
            )
    state.current_statement = None
    state.control_subjects = {}


def _update_suspicion(
    state: GameState, seat: int, subject: int, reported: float, statement_id: int, weight: float, control: bool = False
) -> None:
    """The listener's new score of ``subject``, as a ``suspicion`` event. A control subject's score is recorded
    but not kept (``control``): a control measures what asking does, and must leave later priors as they were.
    The event does not say it was a control (the listener sees it, and nothing may tell it which subject was
    its control): the ground truth event's ``control_subjects`` says so (``GameRecord``)."""
    prior = float(state.suspicion[seat, subject])
    score = weight * reported + (1.0 - weight) * prior
    if not control:
        state.suspicion[seat, subject] = score
        state.suspicion_version += 1
    state.emit(
        "suspicion",
        seat,
        (seat,),
        statement_id=statement_id,
        subject=subject,
        prior=prior,
        reported=reported,
        score=score,
    )


def poll_moment(state: GameState) -> str | None:
    """The vote poll due now (``config.vote_polls``), if any: at the day's start and after each statement
    ("after_statement"), or once the debate is over ("after_debate"). Never in a rollout (no debate)."""
    mode = state.config.vote_polls
    if mode == "off" or state.rollout:
        return None
    if mode == "after_statement" and state.debate_turn == 0:
        return "day_start"
    said = (
        bool(state.statements)
        and state.statements[-1].round == state.round
        and (state.statements[-1].turn == state.debate_turn)
    )  # the turn just over made a statement (not a pass)
    if mode == "after_statement":
        return "statement" if said else None
    return "debate" if state.debate_turn >= state.config.max_debate_turns else None


def open_poll(state: GameState) -> None:
    state.poll_moment = poll_moment(state)
    open_turns(state, state.living(), ActionKind.POLL)


def record_poll(state: GameState) -> None:
    """Each answer as a ``poll`` event that no seat sees (the log keeps it): a poll never changes the game."""
    answers = take_answers(state)
    moment, state.poll_moment = state.poll_moment, None
    said = state.statements[-1].id if moment == "statement" else None
    fell_back = _poll_fallbacks(state, len(answers))
    for seat in sorted(answers):
        # A tie (``tied``: the players the answer could not choose between) is recorded as one, never broken.
        tied = {"tied": answers[seat]["tied"]} if answers[seat].get("tied") else {}
        state.emit(
            "poll",
            seat,
            (),
            after=moment,
            statement_id=said,
            target=answers[seat]["vote"],
            fallback=seat in fell_back,
            **tied,
        )


def _poll_fallbacks(state: GameState, answers: int) -> set[int]:
    """Who of the poll just answered gave no usable answer (its action events, the latest ``answers`` polls)."""
    fell_back: set[int] = set()
    seen = 0
    for event in reversed(state.events):
        if seen == answers:
            break
        if event.type == "action" and event.data["kind"] == "poll":
            seen += 1
            if event.data.get("fallbacks") and event.actor is not None:
                fell_back.add(event.actor)
    return fell_back


def open_vote(state: GameState) -> None:
    open_turns(state, state.living(), ActionKind.VOTE)


def exile(state: GameState) -> None:
    votes = {seat: a["vote"] for seat, a in sorted(take_answers(state).items())}
    tally = count_choices(votes.values())
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
        die(state, exiled, "exile")
    else:
        state.emit("no_exile", None, PUBLIC, needed=voters // 2 + 1)
    state.facts_version += 1


def next_round(state: GameState) -> None:
    state.round += 1
    state.debate_turn = 0
    state.last_speaker = None
    state.last_mentioned = frozenset()
