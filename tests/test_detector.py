"""The deception detector: features, the classifier, detect-eval end to end, and friction warnings
that carry nothing the listener could not know."""

from __future__ import annotations

import copy
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np

from werewolf_deception.agents import play_game_sync
from werewolf_deception.benchmarks.cli.main import main
from werewolf_deception.benchmarks.detect.detector import (
    TEXT_FEATURES,
    VALUE_FEATURES,
    LogisticModel,
    StatementFeaturizer,
    fit,
    statement_rows,
    text_vector,
)
from werewolf_deception.benchmarks.detect.friction import Friction
from werewolf_env.counterfactual.signs import CounterfactualValuer

from .test_counterfactual import position
from .test_ground_truth_union import speak


def test_text_features_ignore_who_is_named() -> None:
    names = ("Alice", "Bob", "Carla")
    assert text_vector("I suspect Bob is a werewolf.", names) == text_vector("I suspect Carla is a werewolf.", names)
    assert text_vector("I am the seer.", names) != text_vector("I am a villager.", names)


def test_claims_in_text_counts_the_claims_the_words_carry() -> None:
    """Spoken claims count, those the agent only sent as structured claims do not (claims_source is
    "text" / "agent" / "both" / "none": no longer the "extracted" the feature once read)."""
    honest = [{"kind": "team", "player": "Bob", "team": "werewolf"}]
    cases: list[tuple[dict[str, Any], int, int]] = [
        ({"statement": "I am the seer.", "claims": honest}, 2, 1),
        ({"statement": "I am the seer.", "claims": [{"kind": "role", "player": "me", "role": "seer"}]}, 1, 1),
        ({"statement": "We should vote carefully.", "claims": honest}, 1, 0),
        ({"statement": "We should vote carefully."}, 0, 0),
    ]
    for answer, claims, in_text in cases:
        game = speak(answer)
        context = StatementFeaturizer().context(game.state, game.state.statements[-1], [])
        assert (context["claims"], context["claims_in_text"]) == (claims, in_text), answer


def test_classifier_learns_saves_and_loads(tmp_path: Path) -> None:
    rng = np.random.default_rng(0)
    x = rng.normal(size=(400, 3))
    y = (x[:, 0] - 0.5 * x[:, 1] + rng.normal(scale=0.3, size=400)) > 0
    groups = np.arange(400) // 20
    model = fit(x, y, ["a", "b", "c"], groups)
    accuracy = (model.predict(x) == y).mean()
    assert accuracy > 0.85 and model.weights[1] > 0 > model.weights[2]
    model.save(tmp_path / "m.json")
    loaded = LogisticModel.load(tmp_path / "m.json")
    assert np.allclose(loaded.probability(x), model.probability(x)) and loaded.threshold == model.threshold


def test_statement_rows_of_a_logged_game(tmp_path: Path) -> None:
    log = play_game_sync({"num_players": 8}, "heuristic", seed=4, log_dir=tmp_path).log_path
    rows = statement_rows(log, CounterfactualValuer(determinizations=2, rollouts=1))
    assert rows and all(len(r["text_features"]) == len(TEXT_FEATURES) for r in rows)
    assert all(len(r["value_features"]) == len(VALUE_FEATURES) for r in rows)
    valued = [r for r in rows if r["values"]]
    assert valued and all(r["rollouts"] > 0 for r in valued)
    for r in valued:
        for v in r["values"]:
            assert v["bait"]["n"] == 2 and not v["oracle"]
    assert any(r["lie"] for r in rows) and any(not r["lie"] for r in rows)


def test_detect_eval_end_to_end(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    code = main(
        [
            "detect-eval",
            "--train-games",
            "8",
            "--test-games",
            "4",
            "--determinizations",
            "2",
            "--rollouts",
            "1",
            "--out",
            str(tmp_path),
        ]
    )
    assert code == 0
    result = json.loads((tmp_path / "detect_eval.json").read_text())
    methods = [row["method"] for row in result["table"]]
    assert methods[:6] == ["rules", "text", "values", "text+values", "peers", "self"] and len(methods) == 8
    assert all(row["coverage"]["statements"] == result["test"]["statements"] for row in result["table"])
    assert result["train"]["seeds"] == [0, 7] and result["test"]["seeds"][0] == 1_000_000  # disjoint seeds
    for row in result["table"]:
        assert row["f1"]["value"] is None or 0 <= row["f1"]["value"] <= 1
    LogisticModel.load(tmp_path / "detector.json")
    out = capsys.readouterr().out
    assert "text+values" in out and "precision" in out and "coverage" in out
    # Cached features make a rerun cheap and identical.
    assert (
        main(
            [
                "detect-eval",
                "--train-games",
                "8",
                "--test-games",
                "4",
                "--determinizations",
                "2",
                "--rollouts",
                "1",
                "--out",
                str(tmp_path),
                "--quiet",
            ]
        )
        == 0
    )
    assert json.loads((tmp_path / "detect_eval.json").read_text())["table"] == result["table"]


class _Env:
    """What Friction.warning reads from the env: the game and the seat names."""

    def __init__(self, game) -> None:  # type: ignore[no-untyped-def]
        self.game = game
        self.agent_name_mapping = {f"player_{i}": i for i in range(game.state.num_players)}


def test_friction_uses_only_what_the_listener_knows() -> None:
    game = position("Alice", plan_of_bob=2)
    friction = Friction(None, CounterfactualValuer(determinizations=6, rollouts=2))
    game.state.current_statement = 3
    note = friction.warning(_Env(game), "player_3")  # Dmitri is the speaker: no proposal to himself
    assert note is None
    note = friction.warning(_Env(game), "player_2")  # Carla, the doctor, knows only her own role
    assert note is not None and note["proposal"]["target"] == 0 and "bait" in note["text"]
    # Swap two roles Carla cannot know (Alice the werewolf, Bob the seer): her warning is unchanged.
    twin = copy.deepcopy(game)
    roles = twin.state.roles
    roles[0], roles[1] = roles[1], roles[0]
    twin.state.knowledge_cache.clear()
    again = Friction(None, CounterfactualValuer(determinizations=6, rollouts=2)).warning(_Env(twin), "player_2")
    assert again == note


def test_play_with_friction_shows_warnings(tmp_path: Path) -> None:
    answers = "\n".join(["5", "I am a villager.", "no", "none", "Alice", "good game"] * 300) + "\n"
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "werewolf_deception.benchmarks.cli.main",
            "play",
            "--seed",
            "3",
            "--players",
            "6",
            "--friction",
            "--detector",
            str(tmp_path / "none.json"),
            "--out",
            str(tmp_path),
        ],
        input=answers,
        capture_output=True,
        text=True,
        timeout=300,
        cwd=Path(__file__).resolve().parent.parent,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert "no detector at" in done.stdout
    assert "bait " in done.stdout and "switch " in done.stdout


def test_text_features_read_names_as_the_engine_does() -> None:
    """A name written decomposed or in full-width letters is the same name token as the plain one."""
    import unicodedata

    from werewolf_deception.benchmarks.detect.detector import text_vector

    names = ("Inés", "Bob")
    plain = text_vector("Inés is lying, Bob too", names)
    assert text_vector(unicodedata.normalize("NFD", "Inés is lying, ＢＯＢ too"), names) == plain
