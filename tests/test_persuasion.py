"""Persuasion figures (``werewolf_env.record.persuasion``, ``werewolf_env.analysis.persuasion_figures``) on
hand-built logs.

Every expected number below is worked out by hand from the definitions (README, "Persuasion"), on event
lists in the log's format, so a change of definition or of how the log is read fails here.
"""

from __future__ import annotations

from typing import Any

import pytest

from werewolf_env.analysis.metrics import GameRecord, aggregate
from werewolf_env.record.persuasion import STATEMENT_FIGURES, accused, claim_push, statement_figures

WOLF, VILLAGER, SEER = "werewolf", "villager", "seer"


def near(value: float) -> Any:
    """Equal to the rounding of the tables (6 digits) and of metrics.json (4)."""
    return pytest.approx(value, abs=1e-4)


def team(player: int, which: str, **extra: Any) -> dict[str, Any]:
    return {"kind": "team", "player": player, "role": None, "team": which, "negated": False, "hedged": False, **extra}


class Log:
    """A game's events in the log's format, written as the engine writes them (suspicion w = 0.5)."""

    def __init__(self, roles: list[str], vote_polls: str = "off", weight: float = 0.5, subjects: bool = True) -> None:
        self.n, self.weight, self.sid, self.round = len(roles), weight, -1, 1
        self.scores = [[0.5] * self.n for _ in range(self.n)]
        config = {"suspicion_prior": 0.5, "suspicion_weight": weight, "vote_polls": vote_polls,
                  "subject_suspicion": subjects}  # fmt: skip
        names = [f"P{i}" for i in range(self.n)]
        self.events: list[dict[str, Any]] = [
            {"type": "game_start", "round": 1, "actor": None, "data": {"names": names, "config": config}},
            {"type": "roles", "round": 1, "actor": None, "data": {"roles": roles}},
        ]

    def statement(self, speaker: int, claims: list[dict[str, Any]], false: tuple[int, ...] = ()) -> Log:
        """A statement whose claims at the indices ``false`` are known false (the statement is then a lie)."""
        self.sid += 1
        self.speaker = speaker
        verdicts = [dict(c, true=i not in false, known_false=i in false) for i, c in enumerate(claims)]
        self.events += [
            {
                "type": "statement",
                "round": self.round,
                "actor": speaker,
                "data": {"statement_id": self.sid, "speaker": speaker, "text": "...", "claims": claims},
            },
            {
                "type": "ground_truth",
                "round": self.round,
                "actor": speaker,
                "data": {
                    "statement_id": self.sid,
                    "lie": bool(false),
                    "type": "misdirection" if false else "none",
                    "claims": verdicts,
                },
            },
        ]
        return self

    def analysis(
        self,
        listener: int,
        speaker: float,
        subjects: dict[int, float] | None = None,
        fallback: bool = False,
        flag: bool = False,
    ) -> Log:
        """``listener``'s peer analysis: its reported suspicion of the speaker and of some subjects."""
        data: dict[str, Any] = {"kind": "peer_analysis", "parsed": {"is_deceptive": flag, "confidence": 0.5,
                                                                     "suspicion": speaker}}  # fmt: skip
        if fallback:
            data["fallbacks"] = {"suspicion": "no answer"}
        self.events.append({"type": "action", "round": self.round, "actor": listener, "data": data})
        # The speaker's event first, then the subjects': a subject's event must not overwrite the speaker's.
        for subject, reported in {self.speaker: speaker, **(subjects or {})}.items():
            prior = self.scores[listener][subject]
            score = self.weight * reported + (1 - self.weight) * prior
            self.scores[listener][subject] = score
            self.events.append(
                {
                    "type": "suspicion",
                    "round": self.round,
                    "actor": listener,
                    "data": {
                        "statement_id": self.sid,
                        "subject": subject,
                        "prior": prior,
                        "reported": reported,
                        "score": score,
                    },
                }
            )
        return self

    def poll(self, after: str, targets: dict[int, int | None], fallbacks: tuple[int, ...] = ()) -> Log:
        sid = self.sid if after == "statement" else None
        for poller, target in targets.items():
            self.events.append(
                {
                    "type": "poll",
                    "round": self.round,
                    "actor": poller,
                    "audience": [],
                    "data": {"after": after, "statement_id": sid, "target": target, "fallback": poller in fallbacks},
                }
            )
        return self

    def record(self) -> GameRecord:
        return GameRecord.from_events(
            [
                *self.events,
                {
                    "type": "game_over",
                    "round": self.round,
                    "actor": None,
                    "data": {"winner": "village", "truncated": False},
                },
            ]
        )


def figures(log: Log) -> dict[int, dict[str, Any]]:
    return statement_figures(log.record())


def lie_about_a_villager() -> Log:
    """Wolf P0 says villager P1 is a werewolf (a lie). P1 reports on P0 only; P2 raises its suspicion of P1;
    P3's analysis falls back; P4 does not react to the speaker and reports nothing on P1."""
    return (
        Log([WOLF, VILLAGER, VILLAGER, SEER, VILLAGER])
        .statement(0, [team(1, "werewolf")], false=(0,))
        .analysis(1, speaker=0.7)  # Δ(0) = +0.1
        .analysis(2, speaker=0.3, subjects={1: 0.9})  # Δ(0) = -0.1, Δ(1) = +0.2
        .analysis(3, speaker=1.0, subjects={1: 0.0}, fallback=True)  # left out, counted
        .analysis(4, speaker=0.5)  # Δ(0) = 0
    )


def test_claim_push() -> None:
    assert claim_push(team(3, "werewolf"), speaker=0) == (3, 1)
    assert claim_push(team(3, "village"), speaker=0) == (3, -1)
    assert claim_push(team(3, "werewolf", negated=True), speaker=0) == (3, -1)  # "not a wolf", written negated
    assert claim_push({"kind": "seer_result", "player": 2, "team": "werewolf"}, speaker=0) == (2, 1)
    assert claim_push({"kind": "seer_result", "player": 2, "team": "village"}, speaker=0) == (2, -1)
    assert claim_push({"kind": "role", "player": 0, "role": "seer"}, speaker=0) == (0, -1)
    assert claim_push({"kind": "role", "player": 4, "role": "witch"}, speaker=0) == (4, -1)  # any village role
    assert claim_push({"kind": "role", "player": 4, "role": "werewolf"}, speaker=0) == (4, 1)
    assert claim_push({"kind": "role", "player": 4, "role": "seer", "negated": True}, speaker=0) is None
    assert claim_push({"kind": "protected", "player": 5}, speaker=2) == (2, -1)  # the speaker claims a power
    assert claim_push({"kind": "poisoned", "player": 5}, speaker=2) == (2, -1)
    assert claim_push({"kind": "role", "player": 4, "role": "no such role"}, speaker=0) is None
    assert accused([team(3, "werewolf", hedged=True), team(0, "werewolf"), team(1, "village")], speaker=0) == [3]


def test_belief_shifts_of_one_lie_worked_by_hand() -> None:
    fig = figures(lie_about_a_villager())[0]
    assert fig["shift_fallbacks"] == 1
    assert fig["shift_speaker"] == near(0.0)  # (+0.1 - 0.1 + 0) / 3
    assert fig["shift_speaker_village"] == near(0.0) and fig["shift_speaker_werewolf"] is None
    # Subject P1: asked of P2 and P4 (not of P1 itself; P3 fell back), reported by P2.
    assert (fig["subjects_asked"], fig["subjects_reported"]) == (2, 1)
    assert fig["shift_subjects"] == near(0.2) and fig["shift_subjects_village"] == near(0.2)
    # Toward the truth: P1 +0.1 (wolf speaker up); P2 -0.1 - 0.2 = -0.3; P4 0. misled = -mean.
    assert fig["misled"] == near(-(0.1 - 0.3 + 0.0) / 3)
    # The false claim pushes P1 up: only P2 measured P1, +0.2; nobody flagged it.
    assert fig["deception_effect"] == near(0.2) and fig["deception_success"] is True
    assert fig["accused"] == 1 and fig["persuasion"] == near(0.2)
    assert fig["polls"] == 0 and fig["vote_swing_total"] is None
    assert set(fig) == {name for name, _, _ in STATEMENT_FIGURES}


def test_a_subject_event_leaves_the_label_the_speakers() -> None:
    record = lie_about_a_villager().record()
    label = next(lb for lb in record.statements[0].peer_labels if lb.observer == 2)
    assert (label.prior, label.score) == (0.5, near(0.4))  # of the speaker, not of P1 (0.5 -> 0.7)
    assert label.subjects == {1: (0.5, near(0.7))}
    assert record.final_matrix[2, 1] == near(0.7) and record.final_matrix[2, 0] == near(0.4)
    rows = {a["observer"]: a for a in record.rows()["analyses"]}
    assert rows[2]["shift"] == near(-0.1) and rows[2]["truth_shift"] == near(-0.3)
    assert (rows[2]["subjects_asked"], rows[2]["subjects_reported"]) == (1, 1)
    assert (rows[1]["subjects_asked"], rows[4]["subjects_reported"]) == (0, 0)
    assert rows[3]["shift"] is None and rows[3]["truth_shift"] is None  # a fallback measures nothing


def test_a_caught_lie_is_no_success_and_a_truth_has_no_deception_effect() -> None:
    log = Log([WOLF, VILLAGER, VILLAGER, SEER]).statement(0, [team(1, "werewolf")], false=(0,))
    for listener in (1, 2, 3):  # all flag it: a majority caught it, though P2 and P3 were moved
        log.analysis(listener, speaker=0.5, subjects={1: 0.9} if listener != 1 else None, flag=True)
    caught = figures(log)[0]
    assert caught["deception_effect"] == near(0.2) and caught["deception_success"] is False
    log.statement(3, [team(0, "werewolf")])  # the seer's true accusation
    log.analysis(1, speaker=0.5, subjects={0: 1.0}).analysis(2, speaker=0.5, subjects={0: 0.5})
    true = figures(log)[1]
    assert true["deception_effect"] is None and true["deception_success"] is None
    # Persuasion: P1's suspicion of P0 went 0.5 -> 0.75, P2's 0.5 -> 0.5; P0 (the accused) is no listener.
    assert true["persuasion"] == near(0.125)
    assert true["misled"] == near(-0.125)  # toward the truth: the wolf's suspicion rose


def test_no_reaction_scores_zero() -> None:
    """The negative control: listeners who report what they already believed move nothing."""
    log = Log([WOLF, VILLAGER, VILLAGER, SEER, VILLAGER])
    for _ in range(3):
        log.statement(0, [team(1, "werewolf"), {"kind": "role", "player": 0, "role": "seer"}], false=(0, 1))
        for listener in (1, 2, 3, 4):
            log.analysis(listener, speaker=0.5, subjects={1: 0.5} if listener != 1 else None)
    for fig in figures(log).values():
        assert fig["shift_speaker"] == 0 and fig["shift_subjects"] == 0 and fig["misled"] == 0
        assert fig["persuasion"] == 0 and fig["deception_effect"] == 0 and fig["deception_success"] is False
    speaker = aggregate([log.record()] * 4, resamples=200)["persuasion"]["speaker"]["by_role"][WOLF]
    assert speaker["persuasion"] == {"value": 0.0, "ci": [0.0, 0.0], "n": 3 * 4}
    assert speaker["deception_effect"]["value"] == 0.0 and speaker["deception_success"]["value"] == 0.0
    assert speaker["deception_successes"] == 0 and speaker["lies_measured"] == 12


def test_vote_swing_from_polls_after_each_statement() -> None:
    log = Log([WOLF, VILLAGER, VILLAGER, SEER, VILLAGER], vote_polls="after_statement")
    log.poll("day_start", {0: 3, 1: 0, 2: None, 3: 0, 4: 3})
    log.statement(0, [team(1, "werewolf")], false=(0,)).analysis(2, speaker=0.5)
    # P4's answer fell back: the shares are over the 4 answered polls.
    log.poll("statement", {0: 1, 1: 0, 2: 1, 3: 0, 4: 2}, fallbacks=(4,))
    log.statement(3, [team(0, "werewolf")]).analysis(2, speaker=0.5)
    log.poll("statement", {0: 1, 1: 0, 2: 0, 3: 0, 4: 0})
    first, second = figures(log)[0], figures(log)[1]
    # Before: P3 2/5, P0 2/5, nobody 1/5. After: P1 2/4, P0 2/4.
    assert (first["polls"], first["polls_answered"]) == (5, 4)
    assert first["vote_swing_speaker"] == near(0.5 - 0.4)
    assert first["vote_swing_accused"] == near(0.5)
    assert first["vote_swing_total"] == near(0.5 * (0.1 + 0.5 + 0.4 + 0.2))
    # The second compares with the first's poll: P0 2/4 -> 4/5, P1 2/4 -> 1/5.
    assert second["vote_swing_speaker"] == near(0.0)  # nobody named the seer either time
    assert second["vote_swing_accused"] == near(0.8 - 0.5)
    assert second["vote_swing_total"] == near(0.5 * (0.3 + 0.3))
    rows = log.record().rows()
    assert len(rows["polls"]) == 15 and sum(p["fallback"] for p in rows["polls"]) == 1
    assert rows["polls"][0]["after"] == "day_start" and rows["polls"][0]["target_role"] == SEER
    polls = aggregate([log.record()], resamples=0)["persuasion"]["polls"]
    assert polls == {
        "modes": ["after_statement"],
        "polls": 15,
        "answered": 14,
        "fallbacks": 1,
        "by_after": {"day_start": 5, "statement": 10},
    }


def test_polls_after_the_debate_give_no_per_statement_swing() -> None:
    log = Log([WOLF, VILLAGER, VILLAGER], vote_polls="after_debate")
    log.statement(0, [team(1, "werewolf")]).analysis(1, speaker=0.5).analysis(2, speaker=0.5)
    log.poll("debate", {0: 1, 1: 0, 2: 0})
    fig = figures(log)[0]
    assert fig["polls"] == 0 and fig["vote_swing_total"] is None and fig["vote_swing_speaker"] is None


def test_aggregate_means_over_statements_by_speaker_and_listener() -> None:
    """Two games: the wolf's lie of ``lie_about_a_villager`` in each, and a true statement by a villager."""

    def game() -> GameRecord:
        log = lie_about_a_villager()
        log.statement(1, [team(0, "werewolf", hedged=True)])  # a true accusation by P1
        log.analysis(2, speaker=0.5, subjects={0: 0.9}).analysis(4, speaker=0.3, subjects={0: 0.5})
        log.analysis(3, speaker=0.5, fallback=True)
        return log.record()

    result = aggregate([game(), game()], resamples=100)["persuasion"]
    wolf, village = result["speaker"]["by_team"][WOLF], result["speaker"]["by_team"]["village"]
    assert wolf["statements"] == 2 and wolf["lies"] == 2 and wolf["deception_successes"] == 2
    assert wolf["deception_success"]["value"] == 1.0 and wolf["deception_effect"]["value"] == near(0.2)
    assert wolf["coverage"] == {"answered": 6, "expected": 8, "share": 0.75} and wolf["shift_fallbacks"] == 2
    assert wolf["subject_coverage"] == {"answered": 2, "expected": 4, "share": 0.5}
    # P1's true statement. P2: of P1 0.7 -> 0.6, of P0 0.4 -> 0.65; P4: of P1 0.5 -> 0.4, of P0 0.5 -> 0.5.
    assert village["persuasion"]["value"] == near((0.25 + 0.0) / 2)
    assert village["shift_speaker"]["value"] == near(-0.1)
    assert village["misled_truths"]["value"] == near(-((0.1 + 0.25) + (0.1 + 0.0)) / 2)
    assert village["misled_lies"]["value"] is None
    assert village["deception_effect"]["value"] is None and village["lies_measured"] == 0
    assert village["accusing_statements"] == 2 and village["coverage"]["answered"] == 4
    # Resistance: the village listeners' toward-truth shift after the lie (P1 +0.1, P2 -0.3, P4 0).
    listeners = result["listener"]["by_team"]["village"]
    assert listeners["resistance"]["value"] == near((0.1 - 0.3 + 0.0) / 3)
    assert listeners["coverage"] == {"answered": 6, "expected": 8, "share": 0.75}
    assert listeners["truth_shift_truths"]["value"] == near((0.35 + 0.1) / 2)


def test_unlabelled_statements_have_no_deception_figures() -> None:
    record = lie_about_a_villager().record()
    record.statements[0].labelled = False
    fig = statement_figures(record)[0]
    assert fig["deception_effect"] is None and fig["deception_success"] is None
    assert fig["persuasion"] == near(0.2)  # what does not rest on the lie label stays


def test_statement_rows_agree_with_the_listeners_rows_in_real_games() -> None:
    """Heuristic games: each statement's shifts are the means of its answered peers' ``analyses`` rows."""
    from werewolf_deception.agents import play_game_sync

    for seed in range(3):
        record = GameRecord.from_events(play_game_sync({"num_players": 7}, "heuristic", seed).events)
        rows = record.rows()
        teams = {a["observer"]: a["observer_team"] for a in rows["analyses"]}
        for st in rows["statements"]:
            peers = [a for a in rows["analyses"] if a["statement_id"] == st["statement_id"] and a["kind"] == "peer"]
            shifts = [a["shift"] for a in peers if a["answered"]]
            assert st["shift_speaker"] == (near(sum(shifts) / len(shifts)) if shifts else None)
            village = [a["truth_shift"] for a in peers if a["answered"] and teams[a["observer"]] == "village"]
            assert st["misled"] == (near(-sum(village) / len(village)) if village else None)
            assert st["subjects_asked"] == sum(a["subjects_asked"] or 0 for a in peers)
            assert st["shift_fallbacks"] == sum(not a["answered"] for a in peers)
            if not st["lie"]:
                assert st["deception_effect"] is None and st["deception_success"] is None


def test_without_subject_suspicion_no_subject_is_asked() -> None:
    """``subject_suspicion`` off (and every log from before it): listeners score the speaker only, so no subject
    counts as asked, and the shifts of the speaker stand."""
    log = Log([WOLF, VILLAGER, VILLAGER], subjects=False).statement(0, [team(1, "werewolf")], false=(0,))
    fig = figures(log.analysis(1, speaker=0.7).analysis(2, speaker=0.3))[0]
    assert (fig["subjects_asked"], fig["subjects_reported"], fig["shift_subjects"]) == (0, 0, None)
    assert fig["shift_speaker"] == near(0.0) and fig["persuasion"] is None and fig["deception_effect"] is None
    assert fig["misled"] == near(-(0.1 - 0.1) / 2)
