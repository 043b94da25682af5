"""Persuasion's controls (issue 32): the control subject, day-start poll ties, the day's first statement, the
lies-minus-truths difference, resistance beside its truth control and the per-seat columns.

A listener that moves whoever it is asked about must net zero persuasion; a day-start poll where every
suspicion is equal must record a tie, not name the first seat.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from tests.test_persuasion import VILLAGER, WOLF, Log, near, team
from werewolf_deception.agents import play_game_sync
from werewolf_env.analysis.metrics import GameRecord, aggregate
from werewolf_env.core.config import GameConfig
from werewolf_env.record.persuasion import SEAT_FIGURES, seat_figures, statement_figures

CONFIG = {"num_players": 8, "subject_suspicion": True, "vote_polls": "after_statement"}


def with_controls(log: Log, controls: dict[int, int]) -> Log:
    """The last statement's ground truth names each listener's control subject, as the engine writes it."""
    truth = next(e for e in reversed(log.events) if e["type"] == "ground_truth")
    truth["data"]["control_subjects"] = sorted(controls.items())
    return log


def accusing_game(persuaded: bool) -> GameRecord:
    """Wolf P0 calls villager P1 a werewolf. P2 and P3 are asked about P1 and a control each (P4, P5). A
    persuaded listener moves P1 only; an unpersuaded one moves whoever it is asked about by the same +0.2."""
    log = Log([WOLF, VILLAGER, VILLAGER, VILLAGER, VILLAGER, VILLAGER])
    with_controls(log.statement(0, [team(1, "werewolf")], false=(0,)), {2: 4, 3: 5})
    for listener, control in ((2, 4), (3, 5)):
        log.analysis(listener, speaker=0.5, subjects={1: 0.9, control: 0.5 if persuaded else 0.9})
    return log.record()


def test_a_listener_that_shifts_whoever_it_is_asked_about_nets_zero_persuasion() -> None:
    record = accusing_game(persuaded=False)
    (row,) = statement_figures(record).values()
    assert row["persuasion"] == near(0.2) and row["shift_control"] == near(0.2)
    assert (row["controls_asked"], row["controls_reported"]) == (2, 2)
    # The control's shift is in no other figure: P1's +0.2 only (toward the lie, so the village is misled).
    assert row["shift_subjects"] == near(0.2) and row["misled"] == near(0.2)
    wolves = aggregate([record] * 3, resamples=200)["persuasion"]["speaker"]["by_team"]["werewolf"]
    assert wolves["persuasion"]["value"] == near(0.2)
    assert wolves["persuasion_net"]["value"] == near(0.0) and wolves["persuasion_net"]["ci"] == [0.0, 0.0]
    assert wolves["control_coverage"]["answered"] == 6


def test_a_persuaded_listener_keeps_its_persuasion_net_of_the_control() -> None:
    wolves = aggregate([accusing_game(persuaded=True)], resamples=0)["persuasion"]["speaker"]["by_team"]["werewolf"]
    assert wolves["shift_control"]["value"] == near(0.0) and wolves["persuasion_net"]["value"] == near(0.2)


def test_a_recorded_tie_shares_its_vote_and_an_unchanged_tie_swings_nothing() -> None:
    log = Log([WOLF, VILLAGER, VILLAGER, VILLAGER], vote_polls="after_statement")
    log.poll("day_start", {0: None, 1: None, 2: None, 3: None})
    for event in log.events[-4:]:  # every poller could not choose between P1, P2 and P3
        event["data"]["tied"] = [1, 2, 3]
    log.statement(1, []).analysis(2, speaker=0.5)
    log.poll("statement", {0: None, 1: None, 2: None, 3: None})
    for event in log.events[-4:]:
        event["data"]["tied"] = [1, 2, 3]
    log.statement(2, [team(3, "werewolf")]).analysis(1, speaker=0.5)
    log.poll("statement", {0: 3, 1: 3, 2: 3, 3: 1})
    first, second = statement_figures(log.record()).values()
    assert first["day_first"] and not second["day_first"]
    assert first["vote_swing_total"] == near(0.0) and first["vote_swing_speaker"] == near(0.0)
    # P3: a third of four polls -> three of four; P1 a third -> one; P2 a third -> none.
    assert second["vote_swing_accused"] == near(0.75 - 1 / 3)
    assert second["vote_swing_total"] == near(0.5 * ((0.75 - 1 / 3) + (1 / 3 - 0.25) + 1 / 3))


@pytest.fixture(scope="module")
def heuristic_games() -> list[GameRecord]:
    return [GameRecord.from_events(play_game_sync(CONFIG, "heuristic", seed).events) for seed in range(6)]


def test_the_seat_order_tie_no_longer_moves_vote_swing(heuristic_games: list[GameRecord]) -> None:
    """At the first day's start every suspicion is equal: the heuristic's polls record a tie over the players it
    could name (a werewolf's: the non-werewolves), so no seat is favoured and no first statement swings a
    vote that a seat-order pick made up."""
    day_start = [(r, p) for r in heuristic_games for p in r.polls if p["after"] == "day_start" and p["round"] == 1]
    assert day_start and not any(p["target"] == 0 for _, p in day_start)
    for record, poll in day_start:  # a tie: at least two players the poller could vote for, none a teammate
        others = [s for s in range(record.num_players) if s != poll["poller"]]
        if record.team(poll["poller"]) == WOLF:
            others = [s for s in others if record.team(s) != WOLF]
        assert not poll["tied"] or (len(poll["tied"]) >= 2 and set(poll["tied"]) <= set(others))
    assert sum(bool(p["tied"]) for _, p in day_start) > len(day_start) / 2
    swings = aggregate(heuristic_games, resamples=0)["persuasion"]["speaker"]["all"]["all"]
    assert swings["vote_swing_without_first"]["n"] < swings["vote_swing"]["n"]


def test_control_subjects_are_unmentioned_and_never_change_play() -> None:
    def play(chance: float) -> GameRecord:
        return GameRecord.from_events(
            play_game_sync({**CONFIG, "control_subject_probability": chance}, "heuristic", 3).events
        )

    always, never = play(1.0), play(0.0)
    assert not any(st.controls for st in never.statements)
    asked = [st for st in always.statements if st.controls]
    assert asked
    for st in asked:
        spoken_of = {c["player"] for c in st.claims} | {st.speaker}
        assert all(i != j and j not in spoken_of and st.alive[j] for i, j in st.controls.items())
    # The control's own generator: the game plays the same whether controls are asked or not.
    assert [st.text for st in always.statements] == [st.text for st in never.statements]
    assert (always.winner, always.rounds) == (never.winner, never.rounds)
    assert GameConfig().control_subject_probability == 0.25
    assert GameConfig.from_record({}).control_subject_probability == 0.0  # older logs asked no control


def test_misled_difference_and_resistance_beside_its_control() -> None:
    def game(lie: bool) -> GameRecord:
        log = Log([WOLF, VILLAGER, VILLAGER])
        log.statement(0, [team(1, "werewolf")], false=(0,) if lie else ())
        return log.analysis(2, speaker=0.5, subjects={1: 0.9 if lie else 0.7}).record()

    figures = aggregate([game(True), game(False), game(True), game(False)], resamples=200)["persuasion"]
    wolves = figures["speaker"]["by_team"]["werewolf"]
    assert wolves["misled_lies"]["value"] == near(0.2) and wolves["misled_truths"]["value"] == near(0.1)
    assert wolves["misled_difference"]["value"] == near(0.1) and None not in wolves["misled_difference"]["ci"]
    village = figures["listener"]["by_team"]["village"]
    assert village["resistance_net"]["value"] == near(-0.2 - -0.1)


def test_seat_persuasion_columns_in_players_rows(heuristic_games: list[GameRecord]) -> None:
    rows = heuristic_games[0].rows()
    names = [name for name, _, _ in SEAT_FIGURES]
    assert all(set(names) <= set(row) for row in rows["players"])
    wolves = [row for row in rows["players"] if row["seat_team"] == WOLF and row["persuasion"] is not None]
    assert wolves
    statements = [r for r in rows["statements"] if r["speaker"] == wolves[0]["seat"] and r["persuasion"] is not None]
    expected = sum(r["persuasion"] for r in statements) / len(statements)
    assert wolves[0]["persuasion"] == pytest.approx(expected, abs=1e-6)
    assert all(row["resistance"] is None for row in rows["players"] if row["seat_team"] == WOLF)


def test_seat_figures_are_in_the_export_schema() -> None:
    from werewolf_deception.benchmarks.export.schema import GAME_COLUMNS

    names = {name for name, _, _ in GAME_COLUMNS}
    assert {f"hidden_seat_{name}" for name, _, _ in SEAT_FIGURES} <= names


@pytest.mark.parametrize(
    ("tied", "expected"),
    [
        (["Bob", "Carla"], [1, 2]),  # a tie: recorded, the vote left out
        (["Bob"], []),  # a tie of one is no tie: the vote stands
        (["Bob", "Nobody Here", 3], []),  # unknown names and non-strings are dropped: one left, no tie
        ("Bob, Carla", []),  # not a list: ignored
    ],
)
def test_a_poll_answer_may_record_a_tie_and_a_malformed_one_is_ignored(tied: object, expected: list[int]) -> None:
    from tests.helpers import fixed_game, quiet, run_until
    from werewolf_env.core.roles import ActionKind

    game = fixed_game(vote_polls="after_statement")
    run_until(game, quiet, stop=lambda g: g.current is not None and g.current.kind is ActionKind.POLL)
    first = game.current
    assert first is not None and first.player == 0
    game.act({"vote": "Dmitri", "tied": tied})
    run_until(game, quiet, stop=lambda g: any(e.type == "poll" for e in g.state.events))
    poll = next(e for e in game.state.events if e.type == "poll" and e.actor == 0)
    assert poll.data.get("tied", []) == expected
    assert poll.data["target"] == (None if expected else 3)
    answer = next(e for e in game.state.events if e.type == "action" and e.actor == 0 and e.data["kind"] == "poll")
    assert "fallbacks" not in answer.data


def test_persuasion_net_compares_the_same_statements() -> None:
    """Wolf P0 accuses twice. The first time P2 is asked about a control (P4) and moves both by +0.2; the
    second time no control is drawn and P2 does not move P3. Net of the control is over the statements with
    both: 0.2 - 0.2 = 0, not (0.2 + 0.0) / 2 - 0.2 = -0.1 (each side over its own statements)."""
    log = Log([WOLF, VILLAGER, VILLAGER, VILLAGER, VILLAGER, VILLAGER])
    with_controls(log.statement(0, [team(1, "werewolf")], false=(0,)), {2: 4})
    log.analysis(2, speaker=0.5, subjects={1: 0.9, 4: 0.9})
    log.statement(0, [team(3, "werewolf")], false=(0,)).analysis(2, speaker=0.5, subjects={3: 0.5})
    record = log.record()
    first, second = statement_figures(record).values()
    assert first["persuasion"] == near(0.2) and first["shift_control"] == near(0.2)
    assert second["persuasion"] == near(0.0) and second["shift_control"] is None
    wolves = aggregate([record] * 3, resamples=200)["persuasion"]["speaker"]["by_team"]["werewolf"]
    assert wolves["persuasion"]["value"] == near(0.1) and wolves["shift_control"]["value"] == near(0.2)
    assert wolves["persuasion_net"]["value"] == near(0.0) and wolves["persuasion_net"]["ci"] == [0.0, 0.0]
    seat = seat_figures(record, statement_figures(record))[0]
    assert seat["persuasion"] == near(0.1) and seat["shift_control"] == near(0.2)
    assert seat["persuasion_net"] == near(0.0)


def _marks_a_control(value: object) -> bool:
    if isinstance(value, dict):
        return any("control" in str(key) or _marks_a_control(v) for key, v in value.items())
    if isinstance(value, list | tuple):
        return any(_marks_a_control(v) for v in value)
    return isinstance(value, str) and "control" in value.lower()


def test_no_event_a_seat_sees_marks_its_control_subject() -> None:
    """The listener scores its control among its subjects, and nothing it sees tells it which one it was: not
    its ``info["events"]`` (its own ``suspicion`` events included), not its observation. The log's ground truth
    names the controls, and ``GameRecord`` keeps a control's score out of the running matrix by it."""
    import werewolf_env
    from werewolf_deception.agents import HeuristicAgent
    from werewolf_env.observe.transcript import Transcript

    env = werewolf_env.raw_env(info_events=True, subject_suspicion=True, control_subject_probability=1.0)
    env.reset(seed=3)
    policies = [HeuristicAgent(30 + s) for s in range(env.config.num_players)]
    seen: list[dict[str, Any]] = []
    for agent in env.agent_iter():
        obs, _r, term, trunc, info = env.last()
        seen += info.get("events", [])
        assert not _marks_a_control(obs.get("text", "")) if isinstance(obs, dict) else True
        env.step(None if term or trunc else policies[env.agent_name_mapping[agent]].act(obs, info))
    assert env.game is not None
    state = env.game.state
    controls = {
        (e.data["statement_id"], i): j
        for e in state.events
        if e.type == "ground_truth"
        for i, j in e.data.get("control_subjects", ())
    }
    assert controls
    own = [e for e in seen if e["type"] == "suspicion"]
    assert any((e["data"]["statement_id"], e["actor"]) in controls for e in own)  # controls' scores were seen
    assert {e["type"] for e in seen if _marks_a_control(e["data"])} == {"game_start"}  # its config's probability
    assert not any(e.type == "ground_truth" for e in state.events if e.audience != ())
    # The controls' scores are still told apart where the ground truth is known: not kept, and said so.
    record = GameRecord.from_events([e.to_json() for e in state.events])
    assert np.allclose(record.matrices[-1], state.suspicion)
    spectator = Transcript(state.names, None, spectator=True).update(state.events)
    kept_out = [e for e in state.events if e.type == "suspicion" and (e.data["statement_id"], e.actor) in controls]
    kept_out = [e for e in kept_out if controls[(e.data["statement_id"], e.actor)] == e.data["subject"]]
    assert kept_out and spectator.count("(control subject: not kept)") == len(kept_out)
