"""Policies (random, heuristic, human), lineups and the runner."""

from __future__ import annotations

import io
import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

import werewolf_env
from werewolf_deception.agents import HeuristicAgent, Lineup, Policy, RandomAgent, load_lineup, play_game_sync
from werewolf_deception.agents.policies.human import INPUT_ENDED, NO_ANSWER, HumanAgent, shorthand
from werewolf_env.core.config import Role, Team
from werewolf_env.engine.log import read_log, replay


def engine_events(path: str) -> list[dict[str, Any]]:
    return [r for r in read_log(path) if r["type"] not in ("header", "agent_record")]


@pytest.mark.parametrize("kind", ["random", "heuristic"])
def test_model_free_policies_always_answer_legally(kind: str) -> None:
    for seed in range(6):
        result = play_game_sync({"num_players": 5 + seed, "num_werewolves": 1 + seed // 3}, kind, seed=seed)
        assert result.fallbacks == 0 and result.policy_errors == 0
        assert result.winner in ("village", "werewolf", None)


@pytest.mark.parametrize("kind", ["random", "heuristic"])
def test_model_free_confidence_is_the_probability_of_deception(kind: str, tmp_path: Path) -> None:
    """``confidence`` is P(deceptive) (metrics schema 3): at least 0.5 when flagged, at most 0.5 otherwise."""
    answers = []
    for seed in range(3):
        log = play_game_sync({"num_players": 8}, kind, seed=seed, log_dir=tmp_path).log_path
        assert log is not None
        answers += [
            r["data"]["parsed"]
            for r in engine_events(log)
            if r["type"] == "action" and r["data"]["kind"] in ("self_analysis", "peer_analysis")
        ]
    assert answers and all(0.0 <= a["confidence"] <= 1.0 for a in answers)
    assert all(a["confidence"] >= 0.5 if a["is_deceptive"] else a["confidence"] <= 0.5 for a in answers)
    assert {a["is_deceptive"] for a in answers} == {True, False}


def test_heuristic_werewolves_tell_every_grounded_kind_of_lie_and_villagers_do_not_lie() -> None:
    lies: Counter[tuple[str, str]] = Counter()
    env = werewolf_env.raw_env(info_events=True)
    for seed in range(25):
        env.reset(seed=seed)
        policies = [HeuristicAgent(seed * 10 + s) for s in range(8)]
        for agent in env.agent_iter():
            obs, _r, term, trunc, info = env.last()
            env.step(None if term or trunc else policies[env.agent_name_mapping[agent]].act(obs, info))
        for st in env.ground_truth()["statements"]:
            if st["lie"]:
                lies[(st["speaker_role"], st["type"])] += 1
    assert {t for r, t in lies if r == "werewolf"} == {"fabrication", "misdirection", "distortion"}
    assert not [k for k in lies if k[0] != "werewolf"], lies


def test_seer_reveals_a_werewolf_it_found() -> None:
    roles = (Role.WEREWOLF, Role.WEREWOLF, Role.SEER, Role.DOCTOR, *(Role.VILLAGER,) * 4)
    games_with_reveal = 0
    for seed in range(20):
        env = werewolf_env.raw_env(roles=roles, info_events=True)
        env.reset(seed=seed)
        policies = [HeuristicAgent(seed * 10 + s) for s in range(8)]
        for agent in env.agent_iter():
            obs, _r, term, trunc, info = env.last()
            env.step(None if term or trunc else policies[env.agent_name_mapping[agent]].act(obs, info))
        reveals = [
            st
            for st in env.game.state.statements
            if st.speaker == 2 and any(c["kind"] == "seer_result" and c["team"] == "werewolf" for c in st.claims)
        ]
        assert all(not st.verdict["lie"] for st in reveals), "the seer's reveal is the truth"
        games_with_reveal += bool(reveals)
    assert games_with_reveal >= 5


def test_heuristic_needs_events_and_says_how_to_get_them() -> None:
    env = werewolf_env.raw_env()
    env.reset(seed=0)
    obs, _r, _t, _tr, info = env.last()
    with pytest.raises(ValueError, match="info_events=True"):
        HeuristicAgent(0).act(obs, info)


def test_heuristic_villagers_beat_random_villagers() -> None:
    """Against heuristic werewolves, heuristic villagers must win clearly more often than random ones."""
    wins: dict[str, int] = {}
    games = 60
    for village in ("heuristic", "random"):
        lineup = {"default": village, "teams": {"werewolf": "heuristic"}}
        wins[village] = sum(play_game_sync({}, lineup, seed=s).winner == "village" for s in range(games))
    assert wins["heuristic"] >= wins["random"] + games // 10, wins


# ----------------------------------------------------------------------------------- lineups


def test_lineup_resolution_priority(tmp_path: Path) -> None:
    lineup = load_lineup(
        {
            "default": "random",
            "teams": {"werewolf": "heuristic"},
            "roles": {"seer": {"kind": "heuristic", "honesty": 1.0}},
            "seats": {"player_0": "human"},
        }
    )
    assert lineup.spec_for("player_0", Role.WEREWOLF).kind == "human"
    assert lineup.spec_for("player_1", Role.SEER).options == {"honesty": 1.0}
    assert lineup.spec_for("player_2", Role.WEREWOLF).kind == "heuristic"
    assert lineup.spec_for("player_3", Role.VILLAGER).kind == "random"
    toml_file = tmp_path / "lineup.toml"
    toml_file.write_text(
        'default = "heuristic"\n[teams.werewolf]\nkind = "llm"\nmodel = "m"\nbase_url = "http://127.0.0.1:9/v1"\n'
    )
    from_toml = load_lineup(toml_file)
    assert from_toml.teams[Team.WEREWOLF].label() == "llm:m"
    json_file = tmp_path / "lineup.json"
    json_file.write_text(json.dumps(from_toml.model_dump(mode="json")))
    assert load_lineup(json_file) == from_toml
    assert load_lineup("random").default.kind == "random"
    assert load_lineup(None) == Lineup()


def test_lineups_refuse_literal_keys_and_unknown_kinds(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="must not hold an API key"):
        load_lineup({"default": {"kind": "llm", "model": "m", "api_key": "sk-secret"}})
    with pytest.raises(ValueError):
        load_lineup({"default": "oracle"})
    with pytest.raises(ValueError, match="no lineup file"):
        load_lineup(tmp_path / "missing.toml")


# ------------------------------------------------------------------------------------ runner


@pytest.mark.parametrize("lineup", ["heuristic", {"default": "random", "teams": {"werewolf": "heuristic"}}])
def test_concurrency_does_not_change_the_game(tmp_path: Path, lineup: Any) -> None:
    for seed in range(3):
        one = play_game_sync({}, lineup, seed=seed, log_dir=tmp_path / "c1", concurrency=1)
        many = play_game_sync({}, lineup, seed=seed, log_dir=tmp_path / "c16", concurrency=16)
        assert engine_events(one.log_path) == engine_events(many.log_path)
        assert one.winner == many.winner and one.steps == many.steps


class Exploding(Policy):
    name = "exploding"

    def act(self, observation: dict[str, Any], info: dict[str, Any]) -> dict[str, Any]:
        raise RuntimeError("boom")


def test_a_policy_that_raises_does_not_end_the_game(tmp_path: Path) -> None:
    policies: list[Policy] = [Exploding(), *(RandomAgent(s) for s in range(1, 8))]
    result = play_game_sync({}, None, seed=1, log_dir=tmp_path, policies=policies)
    assert result.policy_errors > 0 and result.fallbacks >= result.policy_errors
    records = [r for r in read_log(result.log_path) if r["type"] == "agent_record"]
    assert records[0]["data"] == {"type": "lineup", "policies": ["exploding", *["random"] * 7]}
    errors = records[1:]
    assert errors and errors[0]["data"]["type"] == "policy_error" and "boom" in errors[0]["data"]["error"]
    assert replay(result.log_path).ok


def test_result_describes_every_player() -> None:
    result = play_game_sync({"num_players": 6, "num_werewolves": 1}, "heuristic", seed=4)
    assert len(result.players) == 6
    if result.winner is not None:
        assert all(p.won == (p.team == result.winner) for p in result.players)
        assert all(p.reward == (1.0 if p.won else -1.0) for p in result.players)
    assert json.loads(json.dumps(result.to_json()))["seed"] == 4


# ------------------------------------------------------------------------------------- human
# (Whole games with a person at the keyboard, through HumanAgent and `werewolf-bench play`: test_human_seat_games.py.)


def run_human(lines: str, kind: str = "bid", legal: list[str] | None = None) -> tuple[Any, str]:
    out = io.StringIO()
    agent = HumanAgent(input=io.StringIO(lines), output=out)
    info = {"action_kind": kind, "legal_targets": legal or [], "max_bid": 10, "answer_format": "{}"}
    obs = {"text": "HEAD\n\nHISTORY:\nline one\n\nNOW: your turn"}
    return agent.act(obs, info), out.getvalue()


def test_human_is_asked_again_until_the_answer_is_valid() -> None:
    action, shown = run_human("lots\n42\n7\n")
    assert action == {"bid": 7}
    assert shown.count("Not valid") == 2 and "HEAD" in shown
    action, _ = run_human("Zed\nbob\n", kind="vote", legal=["Bob", "Emma"])
    assert action == {"vote": "bob"}
    action, _ = run_human("abstain\n", kind="vote", legal=["Bob"])
    assert action == {"vote": None}


def test_human_end_of_input_lets_the_game_go_on() -> None:
    out = io.StringIO()
    agent = HumanAgent(input=io.StringIO(""), output=out)
    info = {"action_kind": "bid", "legal_targets": [], "max_bid": 10, "answer_format": "{}"}
    obs = {"text": "HEAD\n\nHISTORY:\nline one\n\nNOW: your turn"}
    # Told once; this turn and every later one answer NO_ANSWER, for the env's fallback (the log keeps it as raw).
    assert agent.act(obs, info) == NO_ANSWER and agent.act(obs, info) == NO_ANSWER
    assert out.getvalue().count(INPUT_ENDED) == 1 and "eliminated" not in out.getvalue()


def test_human_shorthand_for_analyses() -> None:
    assert shorthand("yes 0.8 misdirection 0.9", "peer_analysis") == {
        "is_deceptive": True,
        "confidence": 0.8,
        "deception_type": "misdirection",
        "suspicion": 0.9,
    }
    # A bare yes / no leans its way: confidence is the probability that the statement is deceptive.
    assert shorthand("no", "self_analysis") == {"is_deceptive": False, "confidence": 0.3, "deception_type": "none"}
    assert shorthand("yes", "self_analysis")["confidence"] == 0.7
    assert shorthand('{"bid": 3}', "bid") == '{"bid": 3}'


def test_invalid_action_reason_reaches_the_agents_info() -> None:
    env = werewolf_env.env()
    env.reset(seed=0)
    agent = env.agent_selection
    env.step("this is not JSON")
    assert env.unwrapped.infos[agent]["fallbacks"]["reasons"][0].startswith("unparseable JSON")
