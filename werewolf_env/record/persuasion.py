"""Persuasion: what each statement did to the other players' beliefs and votes (per statement, per listener).

Part of ``werewolf_env.analysis.metrics`` (definitions there and in docs/reports.md, "Persuasion"); the figures over
games are ``werewolf_env.analysis.persuasion_figures``. Pure: no I/O.

After a statement s by speaker p, each living listener i's peer analysis updates its suspicion of p (a
``suspicion`` event: prior, reported, score = w * reported + (1 - w) * prior) and, where it reported one,
of each *subject* of s (a living player the claims are about, neither p nor i). Only answered analyses
count (an analysis with ``fallbacks`` is the env's default): the others are left out and counted
(``shift_fallbacks``). With L the answering listeners:

- Δ_i(j) = score - prior of i's suspicion of j at s; t(j) = +1 when j is on the werewolf team, else -1;
  the toward-truth shift τ_i(j) = t(j) Δ_i(j).
- ``shift_speaker`` = mean_{i in L} Δ_i(p), and the same over village / werewolf listeners.
- ``shift_subjects`` = mean over the reported (i, j) pairs, j a subject, of Δ_i(j) (split by listener
  team); ``subjects_asked`` pairs (i in L, j a subject other than i), ``subjects_reported`` of them.
- ``truth_shift`` of a listener = τ_i(p) + Σ_{j reported} τ_i(j);
  ``misled`` = - mean over village listeners in L of truth_shift (positive: the village moved away
  from the truth; null with no village listener).
- push(c) of a claim c (``claim_push``): a team or seer-result claim of team werewolf pushes its player up
  (+1), of team village down (-1); a role claim (not negated) of a role of the village team pushes its
  player down (-1), of the werewolf team up; a "protected" or "poisoned" claim pushes the speaker down (it
  claims a village power); a negated role claim pushes nothing.
- ``deception_effect`` (lies only) = mean over village listeners in L with a measured term of
  Σ over the known-false claims c of push(c) Δ_i(subject of c) (positive: the lie moved the village the
  way it pushed); ``deception_success`` = deception_effect > 0 and no strict majority of the answering
  peers flagged the statement.
- ``persuasion`` = mean over reported (i in L, j accused) pairs of Δ_i(j), the accused being the players
  other than p that s claims are werewolves (hedged or not): null when s accuses no one.
- The control (``config.control_subject_probability``): a listener i may also be asked about c_i, a living
  player s does not mention (``StatementRecord.controls``); ``shift_control`` = mean over the reported
  (i, c_i) of Δ_i(c_i). A control's shift counts in no other figure. Persuasion net of the control (over
  games: ``persuasion_figures``; per seat: ``seat_figures``) is persuasion minus the control's shift on the
  same statements: the accusing statements with both a persuasion and a reported control shift (a statement
  with only one of them counts on neither side). A listener that moves whoever it is asked about nets zero.
- Vote swing (``vote_polls = "after_statement"``): share_k(j) = answered polls naming j (or nobody) in poll
  wave k, a poll that ties k players giving each 1/k (a tie is recorded, never broken by seat);
  Δshare(j) = share after s - share in the day's previous wave (the day-start poll before the first
  statement); ``vote_swing_speaker`` = Δshare(p), ``vote_swing_accused`` = mean Δshare over the accused,
  ``vote_swing_total`` = ½ Σ_j |Δshare(j)| over the players and "nobody" (total variation).
  ``day_first`` marks the day's first statement, the one compared with the day-start poll.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Protocol

import numpy as np

from werewolf_env.core import DEFAULT_RULESET, Ruleset, Team
from werewolf_env.record.statement_record import Label, StatementRecord


class RecordView(Protocol):
    """What the figures read of a game's record (``game_record.GameRecord``, which builds its rows from them)."""

    statements: list[StatementRecord]
    polls: list[dict[str, Any]]

    @property
    def num_players(self) -> int: ...

    @property
    def ruleset(self) -> Ruleset:
        """The game's roles (``GameRecord.ruleset``: from the logged config)."""
        ...

    def team(self, seat: int) -> str: ...


WOLF, VILLAGE = Team.WEREWOLF.value, Team.VILLAGE.value
LISTENER_TEAMS = (VILLAGE, WOLF)
Column = tuple[str, str, str]  # name, type, meaning (the export's column form: ``benchmarks/export/schema.py``)

# The per-statement columns of the ``statements`` table (and, with the prefix ``hidden_``, of the export).
STATEMENT_FIGURES: tuple[Column, ...] = (
    ("shift_fallbacks", "int32", "peer analyses of the statement that fell back: left out of every shift"),
    ("shift_speaker", "float64", "mean over answering listeners of the change (score - prior) in their "
     "suspicion of the speaker"),
    *((f"shift_speaker_{t}", "float64", f"the same over {t}-team listeners") for t in LISTENER_TEAMS),
    ("subjects_asked", "int32", "(answering listener, claim subject) pairs: the living players the claims are "
     "about, neither the speaker nor the listener"),
    ("subjects_reported", "int32", "of them, the pairs whose listener reported its suspicion of the subject"),
    ("shift_subjects", "float64", "mean change of the listeners' suspicion of the claim subjects (reported pairs)"),
    *((f"shift_subjects_{t}", "float64", f"the same over {t}-team listeners") for t in LISTENER_TEAMS),
    ("misled", "float64", "minus the mean toward-truth shift of the village listeners (speaker and reported "
     "subjects): positive = the village moved away from the truth"),
    ("deception_effect", "float64", "lies only: mean over village listeners of the sum over known-false claims of "
     "push x shift of the pushed player: positive = the lie moved the village the way it pushed"),
    ("deception_success", "bool", "lies only: deception_effect > 0 and no majority of answering peers flagged it"),
    ("accused", "int32", "players other than the speaker the statement says are werewolves (hedged or not)"),
    ("persuasion", "float64", "mean change of the listeners' suspicion of the accused (reported pairs); null "
     "when it accuses no one"),
    ("controls_asked", "int32", "answering listeners also asked about a control subject (a living player the "
     "statement does not mention)"),
    ("controls_reported", "int32", "of them, the listeners that reported it"),
    ("shift_control", "float64", "mean change of the listeners' suspicion of their control subject (reported): "
     "what asking alone does; persuasion is reported net of it"),
    ("polls", "int32", "vote polls asked right after the statement (vote_polls = after_statement)"),
    ("polls_answered", "int32", "of them, answered (no fallback)"),
    ("vote_swing_speaker", "float64", "change of the speaker's share of answered poll votes since the previous poll"),
    ("vote_swing_accused", "float64", "the same, mean over the accused"),
    ("vote_swing_total", "float64", "half the sum over players (and nobody) of the absolute change of poll shares"),
    ("day_first", "bool", "the day's first statement (its vote swing is measured against the day-start poll)"),
)  # fmt: skip
# The per-listener columns of the ``analyses`` table (peer analyses; null for self analyses and fallbacks).
LISTENER_FIGURES = ("shift", "truth_shift", "subjects_asked", "subjects_reported", "shift_control")

# Per seat (``players`` rows; the export's game table as ``hidden_seat_<name>`` lists): means over the seat's own
# statements (as speaker) and over its answered peer analyses (as a village listener), null where none counts.
SEAT_FIGURES: tuple[Column, ...] = (
    ("persuasion", "float64", "mean persuasion of the seat's accusing statements"),
    ("shift_control", "float64", "mean control subjects' shift on the seat's accusing statements"),
    ("persuasion_net", "float64", "persuasion - shift_control over the accusing statements with both (null: none)"),
    ("misled", "float64", "mean misled of the seat's statements (positive: the village moved from the truth)"),
    ("vote_swing_without_first", "float64", "mean vote swing of the seat's statements, each day's first left out"),
    ("resistance", "float64", "village seats: mean toward-truth shift over the lies it heard"),
    ("truth_shift_truths", "float64", "village seats: the same over the true statements it heard (the control)"),
)


def role_team(role: Any, ruleset: Ruleset = DEFAULT_RULESET) -> str | None:
    """The team of a role name in ``ruleset``; None for no role."""
    return ruleset.specs[ruleset.role(role)].team.value if isinstance(role, str) and role in ruleset else None


def claim_push(claim: dict[str, Any], speaker: int, ruleset: Ruleset = DEFAULT_RULESET) -> tuple[int, int] | None:
    """(player, direction) a claim pushes listeners' suspicion in (+1 up, -1 down); None: it pushes nothing.
    A role's team is the game's ruleset's (a custom role of the game pushes as its team does)."""
    player, kind, negated = claim.get("player"), claim.get("kind"), bool(claim.get("negated"))
    if not isinstance(player, int) or isinstance(player, bool):
        return None
    if kind in ("protected", "poisoned"):  # "I protected Bob": the speaker claims a village power
        return None if negated else (speaker, -1)
    if kind in ("team", "seer_result"):
        team = claim.get("team") or role_team(claim.get("role"), ruleset)
        if team not in LISTENER_TEAMS:
            return None
        if negated:  # the canonical form never negates a team ("not a wolf" is village); older claims might
            team = VILLAGE if team == WOLF else WOLF
        return player, 1 if team == WOLF else -1
    if kind == "role" and not negated:  # "Bob is not the seer" says nothing about his team
        team = role_team(claim.get("role"), ruleset)
        return None if team is None else (player, 1 if team == WOLF else -1)
    return None


def accused(claims: Iterable[dict[str, Any]], speaker: int, ruleset: Ruleset = DEFAULT_RULESET) -> list[int]:
    """The players other than the speaker the claims push up: those it says are werewolves."""
    pushes = (claim_push(c, speaker, ruleset) for c in claims)
    out = {push[0] for push in pushes if push and push[1] > 0 and push[0] != speaker}
    return sorted(out)


def _mean(values: list[float]) -> float | None:
    return round(float(np.mean(values)), 6) if values else None


def shifts(label: Label, speaker: int, control: int | None = None) -> dict[int, float]:
    """Δ_i(j) of one answered analysis: the speaker's (when scored) and each reported subject's, the listener's
    control subject (``control``) left out."""
    out = {j: score - prior for j, (prior, score) in label.subjects.items() if j != control}
    if label.prior is not None and label.score is not None:
        out[speaker] = label.score - label.prior
    return out


def control_shift(label: Label, control: int | None) -> float | None:
    """Δ_i(c_i) of one answered analysis: the change of its suspicion of its control subject, if reported."""
    if control is None or control not in label.subjects:
        return None
    prior, score = label.subjects[control]
    return score - prior


def truth_sign(record: RecordView, seat: int) -> int:
    return 1 if record.team(seat) == WOLF else -1


def listener_figures(record: RecordView, st: StatementRecord, label: Label) -> dict[str, Any]:
    """The ``analyses`` columns of one analysis (``LISTENER_FIGURES``): null unless an answered peer's."""
    if label.kind != "peer" or not label.answered:
        return dict.fromkeys(LISTENER_FIGURES)
    control = st.controls.get(label.observer)
    delta = shifts(label, st.speaker, control)
    asked = [j for j in st.subjects if j != label.observer]
    moved = control_shift(label, control)
    return {
        "shift": None if st.speaker not in delta else round(delta[st.speaker], 6),
        "truth_shift": round(sum(truth_sign(record, j) * d for j, d in delta.items()), 6),
        "subjects_asked": len(asked),
        "subjects_reported": sum(j in delta for j in asked),
        "shift_control": None if moved is None else round(moved, 6),
    }


def statement_figures(record: RecordView) -> dict[int, dict[str, Any]]:
    """Each statement's ``STATEMENT_FIGURES`` columns, by statement id."""
    swings = poll_waves(record)
    firsts = {
        min((st for st in record.statements if st.round == rnd), key=lambda st: st.turn).id
        for rnd in {st.round for st in record.statements}
    }
    return {
        st.id: {**_statement(record, st, swings.get(st.id)), "day_first": st.id in firsts} for st in record.statements
    }


def _statement(record: RecordView, st: StatementRecord, waves: Waves | None) -> dict[str, Any]:
    p = st.speaker
    listeners = [
        (lb, shifts(lb, p, st.controls.get(lb.observer)), record.team(lb.observer)) for lb in st.answered_peers
    ]
    village = [(lb, d) for lb, d, team in listeners if team == VILLAGE]
    targets = accused(st.claims, p, record.ruleset)
    out: dict[str, Any] = {"shift_fallbacks": len(st.peer_labels) - len(listeners)}
    out["shift_speaker"] = _mean([d[p] for _, d, _ in listeners if p in d])
    for team in LISTENER_TEAMS:
        out[f"shift_speaker_{team}"] = _mean([d[p] for _, d, t in listeners if t == team and p in d])
    pairs = [(lb.observer, j, t) for lb, _, t in listeners for j in st.subjects if j != lb.observer]
    by_listener = {lb.observer: d for lb, d, _ in listeners}
    reported = [(by_listener[i][j], t) for i, j, t in pairs if j in by_listener[i]]
    out["subjects_asked"], out["subjects_reported"] = len(pairs), len(reported)
    out["shift_subjects"] = _mean([d for d, _ in reported])
    for team in LISTENER_TEAMS:
        out[f"shift_subjects_{team}"] = _mean([d for d, t in reported if t == team])
    toward = [sum(truth_sign(record, j) * dj for j, dj in d.items()) for _, d in village]
    out["misled"] = None if not toward else round(-float(np.mean(toward)), 6) + 0.0  # + 0.0: never -0.0
    out["deception_effect"] = out["deception_success"] = None
    if st.lie and st.labelled:
        pushes = [push for c in st.claims if c.get("known_false") and (push := claim_push(c, p, record.ruleset))]
        # A village listener counts when some pushed player's shift is measured (it cannot report on itself).
        measured = [d for _, d in village if any(j in d for j, _ in pushes)]
        effects = [sum(sign * d[j] for j, sign in pushes if j in d) for d in measured]
        if effects:
            out["deception_effect"] = round(float(np.mean(effects)), 6)
            out["deception_success"] = out["deception_effect"] > 0 and not st.peer_detected
    out["accused"] = len(targets)
    out["persuasion"] = _mean([d[j] for _, d, _ in listeners for j in targets if j in d])
    asked = [lb for lb, _, _ in listeners if lb.observer in st.controls]
    controls = [m for lb in asked if (m := control_shift(lb, st.controls[lb.observer])) is not None]
    out["controls_asked"], out["controls_reported"] = len(asked), len(controls)
    out["shift_control"] = _mean(controls)
    out.update(_swings(waves, p, targets))
    return out


def seat_figures(record: RecordView, figures: dict[int, dict[str, Any]]) -> list[dict[str, Any]]:
    """``SEAT_FIGURES`` of every seat, from the game's ``statement_figures``."""
    out = []
    for seat in range(record.num_players):
        own = [figures[st.id] for st in record.statements if st.speaker == seat]
        accusing = [f for f in own if f["accused"]]
        persuasion = _mean([f["persuasion"] for f in accusing if f["persuasion"] is not None])
        control = _mean([f["shift_control"] for f in accusing if f["shift_control"] is not None])
        # Net of the control on the same statements: those with both a persuasion and a control shift.
        paired = [f for f in accusing if f["persuasion"] is not None and f["shift_control"] is not None]
        paired_persuasion = _mean([f["persuasion"] for f in paired])
        paired_control = _mean([f["shift_control"] for f in paired])
        heard: dict[bool, list[float]] = {True: [], False: []}  # lie -> toward-truth shifts after it
        if record.team(seat) == VILLAGE:
            for st in record.statements:
                label = next((lb for lb in st.answered_peers if lb.observer == seat), None)
                if label is not None and st.labelled:
                    heard[st.lie].append(listener_figures(record, st, label)["truth_shift"])
        out.append(
            {
                "persuasion": persuasion,
                "shift_control": control,
                "persuasion_net": None
                if paired_persuasion is None or paired_control is None
                else round(paired_persuasion - paired_control, 6),
                "misled": _mean([f["misled"] for f in own if f["misled"] is not None]),
                "vote_swing_without_first": _mean(
                    [f["vote_swing_total"] for f in own if f["vote_swing_total"] is not None and not f["day_first"]]
                ),
                "resistance": _mean(heard[True]),
                "truth_shift_truths": _mean(heard[False]),
            }
        )
    return out


# An answered poll: the players it named, one (None: nobody) or several when it recorded a tie.
PollAnswer = tuple[int | None, ...]
# Poll waves: (the answered polls of the wave before the statement or None, those after, polls after)
Waves = tuple[list[PollAnswer] | None, list[PollAnswer], int]


def poll_waves(record: RecordView) -> dict[int, Waves]:
    """Per statement followed by a poll wave: the day's previous wave's answered targets, its own, and how many
    polls it asked. A wave is the polls of one moment (day start, after a statement, after the debate)."""
    waves: dict[tuple[int, str, int | None], list[dict[str, Any]]] = {}
    for poll in record.polls:
        waves.setdefault((poll["round"], poll["after"], poll["statement_id"]), []).append(poll)
    out: dict[int, Waves] = {}
    previous: dict[int, list[PollAnswer]] = {}  # round -> the answered polls of its latest wave

    def answered(polls: list[dict[str, Any]]) -> list[PollAnswer]:
        return [tuple(poll.get("tied") or ()) or (poll["target"],) for poll in polls if not poll["fallback"]]

    for (rnd, after, sid), polls in waves.items():
        if after == "statement" and sid is not None:
            out[sid] = (previous.get(rnd), answered(polls), len(polls))
        previous[rnd] = answered(polls)
    return out


def _swings(waves: Waves | None, speaker: int, targets: list[int]) -> dict[str, Any]:
    out: dict[str, Any] = {"polls": 0, "polls_answered": 0, "vote_swing_speaker": None, "vote_swing_accused": None,
                           "vote_swing_total": None}  # fmt: skip
    if waves is None:
        return out
    before, after, asked = waves
    out["polls"], out["polls_answered"] = asked, len(after)
    if not before or not after:  # no baseline, or nobody answered: no share to compare
        return out

    def share(votes: list[PollAnswer], who: int | None) -> float:  # a tie of k gives each of them 1/k
        return sum(1 / len(v) for v in votes if who in v) / len(votes)

    named = {who for votes in (before, after) for v in votes for who in v}
    delta = {who: share(after, who) - share(before, who) for who in {*named, speaker, *targets}}
    out["vote_swing_speaker"] = round(delta[speaker], 6)
    out["vote_swing_accused"] = _mean([delta[j] for j in targets])
    out["vote_swing_total"] = round(0.5 * sum(abs(d) for d in delta.values()), 6)
    return out


__all__ = [
    "LISTENER_FIGURES", "SEAT_FIGURES", "STATEMENT_FIGURES", "accused", "claim_push", "control_shift",
    "listener_figures", "poll_waves", "role_team", "seat_figures", "shifts", "statement_figures", "truth_sign",
]  # fmt: skip
