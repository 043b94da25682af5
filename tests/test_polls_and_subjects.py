"""Vote polls and the scores of a statement's subjects (issue 20's engine side).

Polls (``vote_polls``) are private: recorded in the log for no seat to see, and they never change the game
(same seed, polls on or off: the same events but the polls). Subject scores (``subject_suspicion``): a peer
analysis may also score the players the statement spoke of; each score is one more suspicion update.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from werewolf_deception.agents.fake.server import FakeOpenAIServer
from werewolf_deception.agents.play.runner import play_game_sync
from werewolf_env import raw_env
from werewolf_env.actions.parse import parse
from werewolf_env.core.config import GameConfig, without_new_defaults
from werewolf_env.core.roles import ActionKind
from werewolf_env.engine.log import read_log, replay
from werewolf_env.observe.text import task_text

from .helpers import fixed_game, quiet, run_until

POLL_KINDS = ("poll",)


def _log(tmp_path: Path, name: str, lineup: Any, seed: int, **config: Any) -> list[dict[str, Any]]:
    """The records of one game's log, after checking that the log replays."""
    result = play_game_sync(GameConfig(**config), lineup, seed, log_dir=tmp_path / name)
    assert result.log_path is not None
    assert replay(result.log_path).ok
    return read_log(result.log_path)


def _without_polls(records: list[dict[str, Any]]) -> list[str]:
    """The engine events but the polls (and their actions), without sequence numbers, configs made comparable."""
    out = []
    for r in records:
        if r["type"] in ("header", "agent_record", "poll"):
            continue
        if r["type"] == "action" and r["data"]["kind"] in POLL_KINDS:
            continue
        r = {k: v for k, v in r.items() if k != "seq"}
        data = dict(r.get("data") or {})
        if isinstance(data.get("config"), dict):
            data["config"] = {k: v for k, v in data["config"].items() if k != "vote_polls"}
        if r["type"] == "snapshot":  # the polls' turns and events are counted there, nothing else of them
            data = {k: v for k, v in data.items() if k not in ("turns_taken", "events")}
        r["data"] = data
        out.append(json.dumps(r, sort_keys=True))
    return out


@pytest.mark.parametrize("lineup", ["heuristic", "random"])
@pytest.mark.parametrize("mode", ["after_statement", "after_debate"])
def test_polls_never_change_the_game(tmp_path: Path, lineup: str, mode: str) -> None:
    for seed in range(4):
        off = _log(tmp_path, f"off{seed}", {"default": lineup}, seed)
        on = _log(tmp_path, f"on{seed}", {"default": lineup}, seed, vote_polls=mode)
        assert _without_polls(on) == _without_polls(off)
        polls = [r for r in on if r["type"] == "poll"]
        assert polls and all(r["audience"] == [] for r in polls)
        assert {r["data"]["after"] for r in polls} == (
            {"day_start", "statement"} if mode == "after_statement" else {"debate"}
        )


def test_every_living_player_is_polled_at_each_moment(tmp_path: Path) -> None:
    records = _log(tmp_path, "g", {"default": "heuristic"}, 5, vote_polls="after_statement")
    alive = set(range(8))
    day_starts = statements = 0
    polls: dict[tuple[int, str, Any], list[int]] = {}
    living_then: dict[tuple[int, str, Any], set[int]] = {}
    for r in records:
        if r["type"] == "death" and r["data"].get("victim") is not None:
            alive.discard(r["data"]["victim"])
        day_starts += r["type"] == "day_start"
        statements += r["type"] == "statement"
        if r["type"] == "poll":
            key = (r["round"], r["data"]["after"], r["data"]["statement_id"])
            polls.setdefault(key, []).append(r["actor"])
            living_then[key] = set(alive)
            assert not r["data"]["fallback"]
    assert sum(1 for key in polls if key[1] == "day_start") == day_starts > 0
    assert sum(1 for key in polls if key[1] == "statement") == statements > 0
    for key, voters in polls.items():
        assert voters == sorted(living_then[key]), key


def test_no_seat_ever_sees_a_poll() -> None:
    env = raw_env(config=GameConfig(vote_polls="after_statement"), info_events=True)
    env.reset(seed=3)
    polls_answered = 0
    for agent in env.agent_iter(max_iter=5000):
        _, _, terminated, truncated, info = env.last()
        for event in info.get("events", []):
            assert event["type"] != "poll"
            assert not (event["type"] == "action" and event["data"]["kind"] == "poll")
        if terminated or truncated:
            env.step(None)
            continue
        if info["action_kind"] == "poll":
            polls_answered += 1
            assert "private" in env.observe(agent)["text"].lower()
            env.step({"vote": info["legal_targets"][0]})
        else:
            from werewolf_deception.agents.policies.random_agent import RandomAgent

            env.step(RandomAgent(seed=polls_answered).act(env.observe(agent), info))
    assert polls_answered > 0


def test_an_unreadable_poll_is_a_recorded_fallback_and_changes_nothing() -> None:
    game = fixed_game(vote_polls="after_debate", max_debate_turns=1)
    run_until(game, quiet, stop=lambda g: g.current is not None and g.current.kind is ActionKind.POLL)
    seat = game.current.player  # type: ignore[union-attr]
    result = game.act({"vote": "Nobody Known"})
    assert result.fallbacks and result.action == {"vote": None}
    run_until(game, quiet, stop=lambda g: not g.state.pending or g.current.kind is not ActionKind.POLL)  # type: ignore[union-attr]
    polls = [e for e in game.state.events if e.type == "poll"]
    assert [e.data["fallback"] for e in polls if e.actor == seat] == [True]
    assert not any(e.data["fallback"] for e in polls if e.actor != seat)


# ---------------------------------------------------------------------------------------- subject scores


def _at_peer_analysis_of_an_accusation(**config: Any):  # type: ignore[no-untyped-def]
    """A game where Alice (seat 0) has just said "Bob and Carla are werewolves", at the first peer analysis."""
    game = fixed_game(subject_suspicion=True, **config)

    def script(g, turn):  # type: ignore[no-untyped-def]
        if turn.kind is ActionKind.BID:
            return {"bid": 10 if turn.player == 0 else 0}
        if turn.kind is ActionKind.STATEMENT:
            return {"statement": "Bob is a werewolf and Carla is a werewolf."}
        return quiet(g, turn)

    run_until(game, script, stop=lambda g: g.current is not None and g.current.kind is ActionKind.PEER_ANALYSIS)
    return game


def test_peers_are_asked_about_the_players_a_statement_speaks_of() -> None:
    game = _at_peer_analysis_of_an_accusation()
    state = game.state
    living = state.living()
    for turn in game.group:
        expected = [p for p in (1, 2) if p != turn.player and p in living]
        control = state.control_subjects.get(turn.player)  # an unmentioned player, listed among them
        assert control not in (0, 1, 2, turn.player)
        assert state.analysis_subjects(turn.player) == sorted([*expected, *([] if control is None else [control])])
        task = task_text(state, turn, [])
        asked = [name for name in ("Bob", "Carla") if f'"{name}": p' in task]
        assert asked == [state.names[p] for p in expected]
    plain = fixed_game(control_subject_probability=0.0)  # no subject and no control: nobody is asked
    run_until(plain, quiet, stop=lambda g: g.current is not None and g.current.kind is ActionKind.PEER_ANALYSIS)
    assert "suspicion_of" not in task_text(plain.state, plain.current, [])  # type: ignore[arg-type]


def test_subject_scores_update_the_matrix_and_are_logged(tmp_path: Path) -> None:
    game = _at_peer_analysis_of_an_accusation()
    state = game.state
    before = state.suspicion.copy()
    answers: dict[int, dict[str, Any]] = {}
    while game.current is not None and game.current.kind is ActionKind.PEER_ANALYSIS:
        seat = game.current.player
        names = [state.names[p] for p in state.analysis_subjects(seat)]
        answers[seat] = {name: 0.9 for name in names}
        game.act(
            {
                "is_deceptive": False,
                "confidence": 0.2,
                "deception_type": "none",
                "reasoning": "",
                "suspicion": 0.4,
                "suspicion_of": answers[seat],
            }
        )
    weight = state.config.suspicion_weight
    controls = dict(next(e for e in state.events if e.type == "ground_truth").data.get("control_subjects") or ())
    for seat, scored in answers.items():
        for name in scored:
            subject = state.names.index(name)
            # A control subject's score is logged, not kept.
            prior = before[seat, subject]
            kept = prior if controls.get(seat) == subject else weight * 0.9 + (1 - weight) * prior
            assert state.suspicion[seat, subject] == pytest.approx(kept)
    events = [e for e in state.events if e.type == "suspicion" and e.data["subject"] != 0]  # subjects and controls
    assert len(events) == sum(len(v) for v in answers.values())
    assert all(e.audience == (e.actor,) for e in events)


@settings(max_examples=150, deadline=None)
@given(
    st.one_of(
        st.none(),
        st.integers(),
        st.text(max_size=5),
        st.lists(st.floats()),
        st.dictionaries(
            st.sampled_from(["Bob", "Carla", "Alice", "bob", "player_2", "Zed", "", "me"]),
            st.one_of(st.floats(allow_nan=True), st.integers(-3, 3), st.text(max_size=3), st.none(), st.booleans()),
            max_size=6,
        ),
    )
)
def test_any_subject_scores_are_read_without_a_fallback(raw: Any) -> None:
    game = GAME_AT_ANALYSIS
    turn = game.current
    assert turn is not None
    answer = {"is_deceptive": False, "confidence": 0.2, "deception_type": "none", "reasoning": "", "suspicion": 0.4,
              "suspicion_of": raw}  # fmt: skip
    result = parse(answer, turn, game.state)
    assert not result.fallbacks, "an unusable optional score never costs the analysis"
    subjects = game.state.analysis_subjects(turn.player)
    scored = result.action["suspicion_of"]
    assert all(seat in subjects and 0.0 <= score <= 1.0 and type(score) is float for seat, score in scored)
    assert len({seat for seat, _ in scored}) == len(scored)
    if raw is None or any(p not in {s for s, _ in scored} for p in subjects):
        assert any(r.startswith("suspicion_of") for r in result.repairs), "a missing score is said"


GAME_AT_ANALYSIS = _at_peer_analysis_of_an_accusation()


def test_subject_scores_are_off_in_old_logs_and_replay_as_played(tmp_path: Path) -> None:
    recorded = GameConfig().model_dump(mode="json")
    recorded.pop("subject_suspicion")  # a config written before the field existed
    assert GameConfig.from_record(recorded).subject_suspicion is False
    assert without_new_defaults(recorded, GameConfig.from_record(recorded).model_dump(mode="json")) == recorded
    for setting in (True, False):
        result = play_game_sync(
            GameConfig(subject_suspicion=setting, vote_polls="after_statement"),
            {"default": "heuristic"},
            2,
            log_dir=tmp_path / str(setting),
        )
        assert result.log_path is not None and replay(result.log_path).ok


def test_heuristic_listeners_score_the_accused(tmp_path: Path) -> None:
    records = _log(tmp_path, "g", {"default": "heuristic"}, 1, subject_suspicion=True)
    speakers = {r["data"]["statement_id"]: r["data"]["speaker"] for r in records if r["type"] == "statement"}
    subject_events = [
        r for r in records if r["type"] == "suspicion" and r["data"]["subject"] != speakers[r["data"]["statement_id"]]
    ]
    assert subject_events, "heuristic games accuse players: their listeners score the accused"
    analyses = [
        r
        for r in records
        if r["type"] == "action" and r["data"]["kind"] == "peer_analysis" and "suspicion_of" in r["data"]["parsed"]
    ]
    assert analyses and not any("repairs" in r["data"] for r in analyses)


def test_model_seats_answer_subject_scores_and_polls_through_the_server(tmp_path: Path) -> None:
    config = GameConfig(
        num_players=5, max_rounds=2, max_debate_turns=2, subject_suspicion=True, vote_polls="after_statement"
    )
    with FakeOpenAIServer() as server:
        lineup = {"default": {"kind": "llm", "model": "fake", "base_url": server.base_url, "timeout": 2.0}}
        result = play_game_sync(config, lineup, 0, log_dir=tmp_path)
        bodies = list(server.requests)
    assert result.log_path is not None
    records = read_log(result.log_path)
    polls = [r for r in records if r["type"] == "poll"]
    assert polls and not any(r["data"]["fallback"] for r in polls)
    scored = [
        r
        for r in records
        if r["type"] == "action" and r["data"]["kind"] == "peer_analysis" and r["data"]["parsed"].get("suspicion_of")
    ]
    asked = [
        r
        for r in records
        if r["type"] == "action" and r["data"]["kind"] == "peer_analysis" and "suspicion_of" in r["data"]["parsed"]
    ]
    assert asked and len(scored) == len(asked), "every analysis asked for subject scores gave them"
    schemas = [
        b["response_format"]["json_schema"]
        for b in bodies
        if (b.get("response_format") or {}).get("type") == "json_schema"
    ]
    with_subjects = [s for s in schemas if "suspicion_of" in s["schema"].get("properties", {})]
    assert with_subjects and all(
        s["schema"]["properties"]["suspicion_of"]["additionalProperties"] is False for s in with_subjects
    )
    assert any(s["name"] == "poll" for s in schemas)


@pytest.mark.parametrize("lineup", ["heuristic", "random"])
def test_scoring_subjects_changes_no_move_of_the_built_in_agents(tmp_path: Path, lineup: str) -> None:
    """The scores are private updates of the matrix: the built-in agents' public moves stay as they were."""

    def public(records: list[dict[str, Any]]) -> list[str]:
        return [
            json.dumps({k: r.get(k) for k in ("type", "round", "actor", "data")}, sort_keys=True)
            for r in records
            if r.get("audience") == "all" and r["type"] != "game_start"
        ]

    for seed in range(3):
        on = _log(tmp_path, f"on{seed}", {"default": lineup}, seed, subject_suspicion=True)
        off = _log(tmp_path, f"off{seed}", {"default": lineup}, seed, subject_suspicion=False)
        assert public(on) == public(off)
        assert len(public(on)) > 20
        assert sum(r["type"] == "suspicion" for r in on) > sum(r["type"] == "suspicion" for r in off)
