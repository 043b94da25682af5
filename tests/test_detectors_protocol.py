"""The detector protocol of ``detect-eval``: a user's ``module:Class``, abstentions, thresholds from training
games only, runs given as --train / --test with their overlap warning, and the LLM judge on the fake server."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from werewolf_deception.agents.fake.server import FakeOpenAIServer, FaultPlan
from werewolf_deception.benchmarks.cli.main import main
from werewolf_deception.benchmarks.console.exit_codes import EXIT_BAD_OPTIONS, EXIT_INVALID
from werewolf_deception.benchmarks.detect.evaluate import split_features
from werewolf_deception.benchmarks.detect.llm_judge import LLMJudge
from werewolf_deception.benchmarks.detect.registry import DetectorError, JsonDetector, make_detector
from werewolf_deception.benchmarks.detect.runs import overlap_warnings, run_logs
from werewolf_deception.benchmarks.detect.table import detector_table

HERE = "tests.test_detectors_protocol"
FAST = ["--determinizations", "1", "--rollouts", "1", "--quiet"]


class EveryOtherAbstains:
    """A user's detector: says "lie" with certainty on the statements of even id, abstains on the others."""

    name = "every-other"

    def fit(self, rows: list[dict[str, Any]]) -> None:
        self.seen = len(rows)

    def predict(self, rows: list[dict[str, Any]]) -> list[float | None]:
        return [1.0 if r["statement_id"] % 2 == 0 else None for r in rows]

    def save(self, path: str | Path) -> None:
        Path(path).write_text(json.dumps({"seen": self.seen}))

    @classmethod
    def load(cls, path: str | Path) -> EveryOtherAbstains:
        made = cls()
        made.seen = json.loads(Path(path).read_text())["seen"]
        return made


class ReadsScore(EveryOtherAbstains):
    """Returns each row's ``score``; no threshold of its own, so detect-eval picks one."""

    name = "reads-score"

    def predict(self, rows: list[dict[str, Any]]) -> list[float | None]:
        return [r["score"] for r in rows]


class NoPredict:
    name = "broken"

    def fit(self, rows: list[dict[str, Any]]) -> None: ...


def _rows(game_scores: dict[str, list[tuple[bool, float | None]]]) -> list[dict[str, Any]]:
    return [
        {"game": g, "statement_id": k, "lie": lie, "lie_type": "fabrication" if lie else None, "score": s}
        for g, items in game_scores.items()
        for k, (lie, s) in enumerate(items)
    ]


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    base = tmp_path_factory.mktemp("runs")
    made = {}
    for name, seed in (("a", 0), ("b", 100), ("a_again", 0)):
        made[name] = base / name
        assert (
            main(
                [
                    "run",
                    "--games",
                    "2",
                    "--players",
                    "5",
                    "--seed",
                    str(seed),
                    "--no-report",
                    "--quiet",
                    "--out",
                    str(made[name]),
                ]
            )
            == 0
        )
    return made


def test_a_users_detector_plugs_in_as_module_class(runs: dict[str, Path], tmp_path: Path) -> None:
    out = tmp_path / "eval"
    argv = ["detect-eval", "--train", str(runs["a"]), "--test", str(runs["b"]), "--out", str(out),
            "--detector", f"{HERE}:EveryOtherAbstains", "--detector", "peers", *FAST]  # fmt: skip
    assert main(argv) == 0
    result = json.loads((out / "detect_eval.json").read_text())
    mine, peers = result["table"][:2]
    assert mine["method"] == "every-other" and mine["detector"] == f"{HERE}:EveryOtherAbstains"
    assert peers["method"] == "peers" and result["warnings"] == []
    statements = result["test"]["statements"]
    assert 0 < mine["coverage"]["scored"] < mine["coverage"]["statements"] == statements
    assert mine["flagged"] == mine["coverage"]["scored"]  # every scored statement flagged, no abstention counted
    saved = EveryOtherAbstains.load(out / "detectors" / f"{HERE}.EveryOtherAbstains.json")
    assert saved.seen == result["train"]["statements"]


@pytest.mark.parametrize(
    ("spec", "says"),
    [
        ("no_such_module_xyz:Thing", "cannot import 'no_such_module_xyz'"),
        (f"{HERE}:Missing", "has no 'Missing'"),
        (f"{HERE}:NoPredict", "lacks predict, save, load"),
        ("peer", "unknown detector 'peer'"),
    ],
)
def test_a_bad_detector_is_a_clear_error_before_anything_runs(
    spec: str, says: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "eval"
    assert main(["detect-eval", "--detector", spec, "--out", str(out), *FAST]) == EXIT_BAD_OPTIONS
    assert says in capsys.readouterr().err and not out.exists()
    with pytest.raises(DetectorError):
        make_detector(spec)


def test_abstentions_lower_coverage_and_are_never_predictions() -> None:
    train = _rows({"t": [(True, 1.0), (False, 0.0)]})
    test = _rows({"g1": [(True, 1.0), (True, None), (False, None), (False, 0.0)]})
    row = detector_table([f"{HERE}:ReadsScore"], train, test, seed=0)[0][0]
    assert row["coverage"] == {"scored": 2, "statements": 4, "share": 0.5}
    assert row["flagged"] == 1 and row["precision"]["value"] == 1.0
    assert row["recall"]["value"] == 0.5  # the lie abstained on is a miss
    assert row["recall_by_type"] == {"fabrication": {"lies": 2, "recall": 0.5}}


def test_thresholds_come_from_training_games_only() -> None:
    # Lies score 0.3 in training and 0.2 in test: the training threshold (0.3) catches no test lie; a threshold
    # chosen on the test games would catch them all.
    train = _rows({"t1": [(True, 0.3), (False, 0.1), (False, 0.1)], "t2": [(True, 0.3), (False, 0.1)]})
    test = _rows({"g1": [(True, 0.2), (False, 0.05)], "g2": [(True, 0.2), (False, 0.05)]})
    row = detector_table([f"{HERE}:ReadsScore"], train, test, seed=0)[0][0]
    assert row["threshold"] == 0.3 and row["threshold_from"] == "best F1 on training rows"
    assert row["recall"]["value"] == 0.0 and row["auroc"]["value"] == 1.0


def test_built_in_detectors_save_and_load(runs: dict[str, Path], tmp_path: Path) -> None:
    out = tmp_path / "eval"
    argv = ["detect-eval", "--train", str(runs["a"]), "--test", str(runs["b"]), "--out", str(out), *FAST]
    assert main(argv) == 0
    result = json.loads((out / "detect_eval.json").read_text())
    assert [r["method"] for r in result["table"][:6]] == ["rules", "text", "values", "text+values", "peers", "self"]
    test_rows = [
        r for f in sorted((out / "features" / "test").glob("*.json")) for r in json.loads(f.read_text())["rows"]
    ]
    for name in ("rules", "text+values", "peers"):
        loaded = JsonDetector.load(out / "detectors" / f"{name}.json")
        assert loaded.name == name
        p = np.array([np.nan if v is None else v for v in loaded.predict(test_rows)], dtype=float)  # type: ignore[attr-defined]
        row = next(r for r in result["table"] if r["method"] == name)
        assert int(np.isfinite(p).sum()) == row["coverage"]["scored"]
        assert int((np.nan_to_num(p, nan=-1) >= row["threshold"]).sum()) == row["flagged"]


def test_train_and_test_runs_that_share_deals_are_warned_about(
    runs: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert overlap_warnings(run_logs(runs["a"]), run_logs(runs["b"])) == []
    warnings = overlap_warnings(run_logs(runs["a"]), run_logs(runs["a_again"]))
    assert len(warnings) == 1 and "2 of 2 test games have the seed and rules" in warnings[0]
    assert "2 of them with the same players" in warnings[0]
    argv = ["detect-eval", "--train", str(runs["a"]), "--test", str(runs["a_again"]), "--out", str(tmp_path / "e"),
            "--detector", "peers", "--determinizations", "1", "--rollouts", "1"]  # fmt: skip
    assert main(argv) == 0
    assert "warning: 2 of 2 test games have the seed and rules of a training game" in capsys.readouterr().out


def test_train_without_test_is_refused(runs: dict[str, Path], tmp_path: Path) -> None:
    assert main(["detect-eval", "--train", str(runs["a"]), "--out", str(tmp_path / "e"), *FAST]) == EXIT_BAD_OPTIONS
    assert (
        main(
            [
                "detect-eval",
                "--train",
                str(runs["a"]),
                "--test",
                str(tmp_path / "nothing"),
                "--out",
                str(tmp_path / "e"),
                *FAST,
            ]
        )
        == EXIT_BAD_OPTIONS
    )


def _judge_rows(runs: dict[str, Path], tmp_path: Path) -> list[dict[str, Any]]:
    return split_features(run_logs(runs["b"]), tmp_path / "features", (1, 1, 0), workers=1)


def test_the_llm_judge_reads_public_history_and_answers(runs: dict[str, Path], tmp_path: Path) -> None:
    rows = _judge_rows(runs, tmp_path)
    with FakeOpenAIServer() as server:
        url = server.base_url
        judge = LLMJudge({"model": "fake", "base_url": url}, concurrency=4, cache_dir=tmp_path / "cache")
        p = judge.fit(rows).predict(rows)
        prompts = [m["content"] for request in server.requests for m in request["messages"]]
    assert p == [0.1] * len(rows)  # the scripted analysis: not deceptive, confidence 0.1
    cost = judge.cost()
    assert cost["calls"] == len(rows) and cost["tokens"] > 0 and cost["outcomes"] == {"answered": len(rows)}
    assert not any(marker in text for text in prompts for marker in ("[hidden]", "[werewolves]", "[seer", "role:"))
    assert any('"is_deceptive"' in text and "deceptive?" in text for text in prompts)
    again = LLMJudge({"model": "fake", "base_url": url, "retries": 0}, cache_dir=tmp_path / "cache")
    assert again.predict(rows) == p and again.cost()["cached_calls"] == len(rows)  # the server is gone: the cache


def test_the_llm_judge_abstains_when_the_server_fails(
    runs: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rows = _judge_rows(runs, tmp_path)[:6]
    with FakeOpenAIServer(faults=FaultPlan(rates={"500": 1.0})) as server:
        judge = LLMJudge({"model": "fake", "base_url": server.base_url, "retries": 0}, breaker=50)
        assert judge.predict(rows) == [None] * len(rows)
    assert judge.cost()["outcomes"] == {"unanswered": len(rows)}
    with FakeOpenAIServer(faults=FaultPlan(rates={"malformed": 1.0})) as server:
        argv = ["detect-eval", "--train", str(runs["a"]), "--test", str(runs["b"]), "--out", str(tmp_path / "e"),
                "--detector", "llm-judge", "--judge-model", "fake", "--judge-base-url", server.base_url,
                "--no-preflight", *FAST]  # fmt: skip
        assert main(argv) == EXIT_INVALID  # every answer invalid, even after the repair: no prediction at all
    row = json.loads((tmp_path / "e" / "detect_eval.json").read_text())["table"][0]
    assert row["coverage"]["scored"] == 0 and row["flagged"] == 0 and row["auroc"]["value"] is None
    assert row["cost"]["outcomes"] == {"invalid": row["coverage"]["statements"]}
    assert "--max-fallback-rate" in capsys.readouterr().err
