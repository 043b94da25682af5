"""Persuasion figures on whole games played by the engine (subject scores and vote polls on).

The heuristic werewolves accuse villagers they know are innocent and the heuristic listeners move on what
they hear, so their lies must measurably succeed (the positive control); polls never change a game, so
every figure but the vote swings is the same with polls on and off.
"""

from __future__ import annotations

from typing import Any

import pytest

from werewolf_deception.agents import play_game_sync
from werewolf_env.analysis.metrics import GameRecord, aggregate
from werewolf_env.record.persuasion import STATEMENT_FIGURES

CONFIG = {"num_players": 8, "subject_suspicion": True}
POLL_FIGURES = ("polls", "polls_answered", "vote_swing_speaker", "vote_swing_accused", "vote_swing_total")


def records(games: int, **config: Any) -> list[GameRecord]:
    return [
        GameRecord.from_events(play_game_sync({**CONFIG, **config}, "heuristic", seed).events) for seed in range(games)
    ]


@pytest.fixture(scope="module")
def polled() -> list[GameRecord]:
    return records(12, vote_polls="after_statement")


def test_the_heuristic_wolves_lies_succeed(polled: list[GameRecord]) -> None:
    """Positive control: deception success above 0 with an interval that excludes 0; the lies move the
    village the way they push (deception effect > 0), and every shift rests on answered analyses."""
    wolves = aggregate(polled, resamples=500)["persuasion"]["speaker"]["by_team"]["werewolf"]
    assert wolves["lies_measured"] > 30 and wolves["deception_successes"] > 0
    assert wolves["deception_success"]["ci"][0] > 0
    assert wolves["deception_effect"]["value"] > 0 and wolves["deception_effect"]["ci"][0] > 0
    assert wolves["coverage"]["share"] == 1.0 and wolves["subject_coverage"]["share"] == 1.0
    assert wolves["vote_swing"]["value"] > 0 and wolves["poll_coverage"]["answered"] > 0


def test_polls_change_no_figure_but_the_vote_swings(polled: list[GameRecord]) -> None:
    unpolled = records(len(polled))
    others = [name for name, _, _ in STATEMENT_FIGURES if name not in POLL_FIGURES]
    for on, off in zip(polled, unpolled, strict=True):
        rows_on, rows_off = on.rows()["statements"], off.rows()["statements"]
        assert [{k: r[k] for k in others} for r in rows_on] == [{k: r[k] for k in others} for r in rows_off]
        assert all(r["vote_swing_total"] is None and r["polls"] == 0 for r in rows_off)
        assert any(r["vote_swing_total"] is not None for r in rows_on)
        assert not off.polls and on.polls


def test_polls_after_the_debate_are_tabled_but_swing_nothing() -> None:
    (record,) = records(1, vote_polls="after_debate")
    rows = record.rows()
    assert rows["polls"] and {p["after"] for p in rows["polls"]} == {"debate"}
    assert all(r["vote_swing_total"] is None for r in rows["statements"])
    polls = aggregate([record], resamples=0)["persuasion"]["polls"]
    assert polls["modes"] == ["after_debate"] and polls["polls"] == len(rows["polls"])
