"""The last readers of the default ruleset read the game's own: a bodyguard that takes "guard" from the doctor.

Each reader is given a game whose ruleset adds a bodyguard (taking "bodyguard", "guard" and "protector" from the
doctor) and seats it instead of the doctor, and must read, ask, push, sum up and answer with that game's roles:
the LLM labeler's prompt and schema, the regex labeler, the learned stage's training features, the discrete
wrapper's templates, persuasion's pushes, the report's roles that know their partners, lineups of the CLI and the
training shapes, and the role a night result claims.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

import pytest

from werewolf_deception.agents.training.learner_seats import LearnerSeats
from werewolf_deception.benchmarks.cli.report import detection_lines, knows_partners, run_ruleset
from werewolf_deception.benchmarks.cli.run import run_lineup
from werewolf_deception.benchmarks.labels import train
from werewolf_deception.benchmarks.labels.labelers import (
    build_messages,
    claims_schema,
    regex_labeler,
    ruleset_of,
    system_prompt,
)
from werewolf_env import GameConfig
from werewolf_env.actions.parse import resolver
from werewolf_env.claims import extractor_for, make_claim, normalize_claims, public_role_claims, role_of_result
from werewolf_env.core import DEFAULT_RULESET, ActionKind, RoleSpec, Statement, Team
from werewolf_env.envs.aec import raw_env
from werewolf_env.record import accused, claim_push, ruleset_of_config
from werewolf_env.wrappers.discrete import NUM_STATEMENTS, DiscreteActions, statement_templates

NAMES = ("Alice", "Bob", "Carla", "Dmitri", "Emma", "Farid", "Grace")
BODYGUARD = RoleSpec(
    role="bodyguard",
    team=Team.VILLAGE,
    night=ActionKind.PROTECT,
    fake_claim=True,
    plural="bodyguards",
    words=("bodyguard", "guard", "protector"),
    power="the bodyguard guards someone",
    card="You are the BODYGUARD (village team). Each night you guard one living player.",
)
ORACLE = RoleSpec(
    role="oracle",
    team=Team.VILLAGE,
    night=ActionKind.UNMASK,
    fake_claim=True,
    plural="oracles",
    words=("oracle", "prophet"),
    power="the oracle learns someone's team",
    card="You are the ORACLE (village team). Each night you learn one player's team.",
)
ALPHA = RoleSpec(  # a second role of the pack, which knows its fellows
    role="alpha",
    team=Team.WEREWOLF,
    knows_fellows=True,
    plural="alphas",
    words=("alpha",),
    card="You are the ALPHA (werewolf team).",
)
GUARDED = DEFAULT_RULESET.with_role(BODYGUARD, takes_over=("bodyguard", "guard", "protector"))
SEATED = {"werewolf", "seer", "villager", "bodyguard"}  # a game of GUARDED with a bodyguard and no doctor
COUNTS = {"bodyguard": 1, "doctor": 0}


def guarded_config(**more: Any) -> GameConfig:
    return GameConfig(num_players=7, names=NAMES, ruleset=GUARDED, role_counts=COUNTS, **more)


# ---------------------------------------------------------------------------------------- the labelers


def test_the_llm_labelers_prompt_and_schema_name_the_games_roles() -> None:
    item = {"speaker": "Alice", "players": list(NAMES), "text": "I am the bodyguard.", "ruleset": GUARDED}
    system, user = (message["content"] for message in build_messages(item))
    assert system == system_prompt(GUARDED) != system_prompt()
    assert "a bodyguard" in system or "the bodyguard" in system
    doctor_words = system.split("Role words:")[1].split('role "doctor"')[0].rsplit(";", 1)[-1]
    doctor_words = [word.strip() for word in doctor_words.split(",")]
    assert "guard" not in doctor_words and "medic" in doctor_words  # the doctor's words in this game
    assert "|bodyguard" in user  # the answer line's role values
    schema_roles = claims_schema(NAMES, GUARDED)["properties"]["claims"]["items"]["properties"]["role"]
    assert "bodyguard" in schema_roles["anyOf"][0]["enum"]
    # The default prompt is the one it was.
    default = {key: value for key, value in item.items() if key != "ruleset"}
    assert build_messages(default)[0]["content"] == system_prompt(DEFAULT_RULESET)
    assert "bodyguard" not in json.dumps(claims_schema(NAMES))


def test_an_items_ruleset_may_be_its_json() -> None:
    logged = ruleset_of({"ruleset": GUARDED.to_json(7)})  # the logged form: each default count as its value
    assert logged.roles == GUARDED.roles and logged.words == GUARDED.words
    assert ruleset_of({}) is DEFAULT_RULESET


def test_the_regex_labeler_reads_with_the_items_ruleset() -> None:
    item = {"speaker": "Alice", "players": list(NAMES), "text": "I am the bodyguard."}
    (default,) = regex_labeler()([item])
    (guarded,) = regex_labeler()([{**item, "ruleset": GUARDED}])
    assert default == [make_claim("role", 0, "doctor")]
    assert guarded == [make_claim("role", 0, "bodyguard")]


def test_the_learned_stages_features_are_the_games_roles() -> None:
    assert train.role_names() == ["werewolf", "seer", "doctor", "villager", "witch", "hunter"]
    assert train.role_names(GUARDED)[-1] == "bodyguard"
    assert set(train.unpenalised()) < set(train.unpenalised([DEFAULT_RULESET, GUARDED]))
    item = {"speaker": "Alice", "players": list(NAMES), "text": "Bob is the bodyguard.", "claimed": {}}
    default = train.item_features(item, None)
    guarded = train.item_features({**item, "ruleset": GUARDED}, None)
    assert default != guarded  # the first pass read a bodyguard, not a doctor


# ---------------------------------------------------------------------------------------- the discrete wrapper


def test_the_discrete_templates_are_the_games_roles() -> None:
    env = DiscreteActions(raw_env(config=guarded_config()))
    texts = [text for text, _role in env.templates.roles]
    assert "I am the bodyguard." in texts and "I am the doctor." in texts
    assert env.num_actions == max(NUM_STATEMENTS, env.templates.size) and env.templates.size == NUM_STATEMENTS + 1
    assert statement_templates() == statement_templates(DEFAULT_RULESET)
    env.reset(seed=0)
    state = env.unwrapped.game.state
    read = extractor_for(NAMES, GUARDED)
    for index in range(env.templates.size):
        action = DiscreteActions._statement(index, 0, NAMES, env.templates)
        structured, errors = normalize_claims(action["claims"], resolver(state), 0)
        assert not errors
        assert read.extract(action["statement"], speaker=0) == structured, action["statement"]


def test_a_check_is_claimed_as_the_games_checking_role() -> None:
    oracle = DEFAULT_RULESET.without_role("seer").with_role(ORACLE, takes_over=("oracle",))
    templates = statement_templates(oracle, frozenset({"werewolf", "oracle", "doctor", "villager"}))
    assert templates.checker == ("I am the oracle.", "oracle")
    action = DiscreteActions._statement(templates.first_seat + 2 + 4 * 1, 0, NAMES, templates)
    assert action["statement"] == "I am the oracle. I checked Bob, a werewolf."
    assert extractor_for(NAMES, oracle).extract(action["statement"], 0) == [
        make_claim("role", 0, "oracle"),
        make_claim("seer_result", 1, None, "werewolf"),
    ]


# ---------------------------------------------------------------------------------------- persuasion, the report


def test_a_custom_role_claim_pushes_as_its_team() -> None:
    pack = GUARDED.with_role(ALPHA)
    assert claim_push({"kind": "role", "player": 4, "role": "bodyguard"}, 0) is None  # no built-in role
    assert claim_push({"kind": "role", "player": 4, "role": "bodyguard"}, 0, pack) == (4, -1)
    assert claim_push({"kind": "role", "player": 4, "role": "alpha"}, 0, pack) == (4, 1)
    assert accused([{"kind": "role", "player": 4, "role": "alpha"}], 0, pack) == [4]
    config = guarded_config().model_dump(mode="json")
    assert ruleset_of_config(config).words == GUARDED.words and ruleset_of_config({}) is DEFAULT_RULESET


def test_the_report_sets_apart_the_games_roles_that_know_their_partners() -> None:
    pack = GUARDED.with_role(ALPHA)
    assert knows_partners("alpha", pack) and not knows_partners("alpha")
    figure = {"value": 1.0, "ci": [1.0, 1.0]}
    figures = {"f1": figure, "precision": figure, "recall": figure}
    metrics = {"detective": {"by_role": {"villager": figures, "alpha": figures, "werewolf": figures}}}
    lines = detection_lines(metrics, {}, pack)
    assert "  alphas and werewolves, apart: they know their partners" in "\n".join(lines), lines
    config = GameConfig(num_players=8, ruleset=pack, role_counts={"alpha": 1})
    document = {"run": {"config": config.model_dump(mode="json")}}
    assert run_ruleset(document).words == pack.words and run_ruleset({}) is DEFAULT_RULESET


# ---------------------------------------------------------------------------------------- lineups


def test_the_training_shapes_read_lineups_with_the_games_roles() -> None:
    seats = LearnerSeats(guarded_config(), lineup={"roles": {"bodyguard": {"kind": "random"}}})
    assert "bodyguard" in seats.lineup.roles


def test_the_run_command_reads_its_lineup_with_the_games_roles(tmp_path: Path) -> None:
    path = tmp_path / "lineup.json"
    path.write_text(json.dumps({"default": {"kind": "heuristic"}, "roles": {"bodyguard": {"kind": "random"}}}))
    args = argparse.Namespace(model=None, base_url=None, lineup=str(path), agents=None)
    assert "bodyguard" in run_lineup(args, GUARDED).roles
    with pytest.raises(ValueError, match="not a role"):
        run_lineup(args)  # the built-in roles have no bodyguard


# ---------------------------------------------------------------------------------------- night results


def test_a_night_result_claims_the_role_the_speaker_could_hold_in_that_game() -> None:
    assert role_of_result("protected", GUARDED, SEATED) == "bodyguard"  # no doctor seated
    assert role_of_result("protected", GUARDED, SEATED | {"doctor"}) == "doctor"
    assert role_of_result("protected", GUARDED) == "doctor"  # seats unknown: the first that protects
    assert role_of_result("protected") == "doctor" and role_of_result("poisoned") == "witch"
    assert role_of_result("seer_result", DEFAULT_RULESET.without_role("seer"), SEATED) is None  # no role checks
    said = [(0, [make_claim("protected", 1)]), (2, [make_claim("role", 2, "seer")])]
    assert public_role_claims(said, GUARDED, SEATED) == ((0, "bodyguard"), (2, "seer"))
    assert public_role_claims(said) == ((0, "doctor"), (2, "seer"))  # the built-in roles: as their logs had it


def test_a_games_reader_denies_the_role_a_night_result_claimed() -> None:
    """The engine passes the game's seated roles: "Alice is lying" after her protection denies the bodyguard."""
    from werewolf_env.engine.rules_day import _public_role_claims

    config = guarded_config()
    env = raw_env(config=config)
    env.reset(seed=0)
    state = env.unwrapped.game.state
    reader = extractor_for(NAMES, GUARDED)

    text = "I protected Bob last night."
    said = Statement(id=0, round=1, turn=0, speaker=0, text=text, claims=reader.extract(text, 0),
                     claims_source="text", truncated=False, verdict={})  # fmt: skip
    state.statements = [said]
    claimed = _public_role_claims(state)
    assert claimed == ((0, "bodyguard"),)
    assert reader.extract("Alice is lying.", 3, (), claimed) == [make_claim("role", 0, "bodyguard", negated=True)]
