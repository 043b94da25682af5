"""The Inspect tasks, offline, against the project's scripted model provider (``werewolf_scripted``).

The scores must equal the project's own metrics (``werewolf_env.analysis.metrics.aggregate`` and
``werewolf_deception.benchmarks.runs.validity``) on the same games; limits must end a game without a fallback.
"""

from __future__ import annotations

import math
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

inspect_ai = pytest.importorskip("inspect_ai", reason="the 'inspect' extra (inspect-ai) is not installed")

from inspect_ai import eval as inspect_eval  # noqa: E402
from inspect_ai._util.registry import registry_log_name, registry_lookup  # noqa: E402
from inspect_ai.scorer import mean, stderr  # noqa: E402

from werewolf_deception.benchmarks.integrations.inspect_registry import werewolf, werewolf_detect  # noqa: E402
from werewolf_deception.benchmarks.integrations.inspect_scoring import DETECT_KEYS, GAME_KEYS  # noqa: E402
from werewolf_deception.benchmarks.runs.validity import game_validity  # noqa: E402
from werewolf_env.analysis.metrics import GameRecord, aggregate  # noqa: E402

GAME = {"players": 6, "rounds": 3}
# Inspect's own retry set-up warns about a tenacity parameter on every model: not ours.
pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning:inspect_ai.*")


def run(task: Any, tmp_path: Any, **kwargs: Any) -> Any:
    logs = inspect_eval(task, model="werewolf_scripted/play", log_dir=str(tmp_path), display="none", **kwargs)
    assert len(logs) == 1
    return logs[0]


def metric(log: Any, key: str, name: str) -> float:
    score = next(s for s in log.results.scores if s.name == key)
    return float(score.metrics[name].value)


def same(a: float | None, b: float | None, tol: float = 1e-4) -> bool:
    if a is None or b is None:
        return (a is None or math.isnan(a)) and (b is None or math.isnan(b))
    return abs(a - b) <= tol or (math.isnan(a) and math.isnan(b))


def test_tasks_are_registered_under_the_package_namespace() -> None:
    assert registry_lookup("task", "werewolf_deception/werewolf") is not None
    assert registry_lookup("task", "werewolf_deception/werewolf_detect") is not None


def test_werewolf_scores_equal_the_projects_metrics(tmp_path: Any) -> None:
    log = run(werewolf(games=4, **GAME), tmp_path, model_roles={"werewolf": "werewolf_scripted/wolf"})
    assert log.status == "success" and len(log.samples) == 4
    per_game: dict[str, list[float]] = {k: [] for k in GAME_KEYS}
    for sample in log.samples:
        game = sample.metadata["werewolf_game"]
        records = game["records"]
        record = GameRecord.from_events(records)
        assert record.complete and game["finished"] and len(game["llm_seats"]) == 6
        figures = aggregate([record], resamples=10)
        value = sample.scores["werewolf_scorer"].value
        winner = record.rows()["games"][0]["winner"]
        assert same(value["village_win"], None if winner is None else float(winner == "village"))
        assert same(value["lie_rate"], figures["deceptive"]["all"]["all"]["lies_per_statement"]["value"])
        assert same(value["deception_success"], figures["deceptive"]["all"]["all"]["undetected_lie_share"]["value"])
        detective = figures["detective"]["all"]["all"]
        assert same(value["detection_precision"], detective["precision"]["value"])
        assert same(value["detection_recall"], detective["recall"]["value"])
        assert same(value["detection_f1"], detective["f1"]["value"])
        validity = game_validity(records)["policies"]
        llm = [v["overall"] for v in validity.values() if v["llm"]]
        actions = sum(v["actions"] for v in llm)
        fallback = sum(v["fallback"] for v in llm)
        assert same(value["valid_answer_rate"], (actions - fallback) / actions)
        # the werewolves' seats were played by the werewolf role's model, the others by the eval's
        wolves = {p["seat"] for p in record.rows()["players"] if p["seat_team"] == "werewolf"}
        models = {e.model for e in sample.events if e.event == "model"}
        assert models == {"werewolf_scripted/play", "werewolf_scripted/wolf"} and wolves
        # the game's engine events are in the transcript
        infos = [e for e in sample.events if e.event == "info" and str(e.source).startswith("werewolf/")]
        assert len(infos) == sum(1 for r in records if r.get("type") not in ("agent_record", "header"))
        for key in GAME_KEYS:
            per_game[key].append(value[key])
    for key, values in per_game.items():  # the mean and its standard error over the games that define it
        defined = [v for v in values if v is not None and not math.isnan(v)]
        mean = sum(defined) / len(defined) if defined else math.nan
        assert same(metric(log, key, "mean"), mean)
        if len(defined) >= 2:
            sd = math.sqrt(sum((v - mean) ** 2 for v in defined) / (len(defined) - 1))
            assert same(metric(log, key, "stderr"), sd / math.sqrt(len(defined)))
        elif defined:  # Inspect's convention below two values
            assert metric(log, key, "stderr") == 0.0


def test_model_free_seats_and_invalid_answers(tmp_path: Any) -> None:
    log = run(
        werewolf(games=2, others="heuristic", **GAME), tmp_path, model_roles={"seer": "werewolf_scripted/malformed"}
    )
    for sample in log.samples:
        value = sample.scores["werewolf_scorer"].value
        seers = sample.metadata["werewolf_game"]["llm_seats"]
        assert len(seers) == 1 and value["valid_answer_rate"] == 0.0  # a model that never answers JSON
    assert metric(log, "valid_answer_rate", "mean") == 0.0


def test_metrics_are_inspects_own_under_the_same_names_however_installed(tmp_path: Any) -> None:
    """Inspect's ``mean``/``stderr`` are logged by their bare names; a metric of this package would be logged as
    ``nanmean`` from an editable install but ``benchmarks/nanmean`` from a wheel."""
    game = werewolf(games=2, others="heuristic", **GAME)
    logs = [run(game, tmp_path / "game", model_roles={"seer": "werewolf_scripted/play"}),
            run(werewolf_detect(games=1, players=6), tmp_path / "detect")]  # fmt: skip
    for log, keys in zip(logs, (GAME_KEYS, DETECT_KEYS), strict=True):
        assert [s.name for s in log.results.scores] == list(keys)
        for score in log.results.scores:
            assert set(score.metrics) == {"mean", "stderr"}, score.metrics
            assert {registry_log_name(m) for m in (mean(), stderr())} == set(score.metrics)


def test_a_misspelt_model_role_fails_before_any_sample(tmp_path: Any) -> None:
    with pytest.raises(ValueError, match=r"werewolfs: not a team, role or seat.*did you mean 'werewolf'"):
        inspect_eval(
            "werewolf_deception/werewolf",
            task_args={"games": 2, **GAME},
            model="werewolf_scripted/play",
            model_roles={"werewolfs": "werewolf_scripted/wolf"},
            log_dir=str(tmp_path),
            display="none",
        )
    assert not list(tmp_path.rglob("*.eval"))  # no eval log: no sample ran


def test_inspect_eval_exits_non_zero_on_a_misspelt_model_role(tmp_path: Any) -> None:
    inspect_cli = Path(sys.executable).with_name("inspect")
    cmd = [str(inspect_cli), "eval", "werewolf_deception/werewolf", "--model", "werewolf_scripted/play",
           "--model-role", "werewolfs=werewolf_scripted/wolf", "-T", "games=1", "-T", "players=6",
           "--log-dir", str(tmp_path), "--display", "none"]  # fmt: skip
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=240, cwd=tmp_path)
    assert done.returncode != 0, done.stdout + done.stderr
    assert "werewolfs: not a team, role or seat" in done.stdout + done.stderr
    assert not list(tmp_path.rglob("*.eval"))


def test_an_unknown_model_role_is_an_error(tmp_path: Any) -> None:
    log = run(werewolf(games=1, **GAME), tmp_path, model_roles={"werewolfs": "werewolf_scripted/wolf"})
    assert log.status == "error"
    assert "werewolfs: not a team, role or seat" in log.error.message and "did you mean 'werewolf'" in log.error.message


def test_a_limit_ends_the_game_cleanly(tmp_path: Any) -> None:
    log = run(werewolf(games=1, **GAME), tmp_path, token_limit=15_000)
    assert log.status == "success"
    sample = log.samples[0]
    assert sample.limit is not None and sample.limit.type == "token"
    game = sample.metadata["werewolf_game"]
    assert not game["finished"] and game["stopped"].startswith("token limit")
    records = game["records"]
    assert any(r.get("type") == "action" for r in records)
    assert not any("fallbacks" in (r.get("data") or {}) for r in records if r.get("type") == "action")
    assert not any((r.get("data") or {}).get("type") == "policy_error" for r in records)
    value = sample.scores["werewolf_scorer"].value
    assert all(v is None or math.isnan(v) for v in value.values())


def test_werewolf_detect_against_ground_truth(tmp_path: Any) -> None:
    task = werewolf_detect(games=3, players=6)
    log = run(task, tmp_path)
    assert log.status == "success"
    from werewolf_deception.agents.play.runner import play_game_sync

    truth: dict[str, bool] = {}
    for seed in range(3):
        rows = GameRecord.from_events(play_game_sync({"num_players": 6}, "heuristic", seed=seed).events).rows()
        truth.update({f"seed{seed}#{s['statement_id']}": bool(s["lie"]) for s in rows["statements"] if s["labelled"]})
    assert {str(s.id) for s in log.samples} == set(truth)
    correct: dict[str, list[float]] = {}
    for sample in log.samples:
        assert (sample.target == "lie") == truth[str(sample.id)]
        value = sample.scores["detect_scorer"].value
        assert value["valid"] == 1.0
        correct.setdefault(sample.metadata["game"], []).append(value["correct"])
    values = [v for vs in correct.values() for v in vs]
    mean = sum(values) / len(values)
    assert same(metric(log, "correct", "mean"), mean)
    clusters = [sum(v - mean for v in vs) for vs in correct.values()]
    c = len(clusters)
    clustered = math.sqrt(sum(d * d for d in clusters) * c / (c - 1)) / len(values)
    assert same(metric(log, "correct", "stderr"), clustered)
    lies = [float(truth[str(s.id)]) for s in log.samples]
    assert same(metric(log, "lie", "mean"), sum(lies) / len(lies))


def test_werewolf_detect_reads_a_runs_logs(tmp_path: Any) -> None:
    from werewolf_deception.agents.play.runner import play_game_sync

    play_game_sync({"num_players": 6}, "heuristic", seed=7, log_dir=tmp_path / "games")
    task = werewolf_detect(logs=str(tmp_path / "games"))
    assert len(task.dataset) > 0
    with pytest.raises(ValueError, match="no game logs"):
        werewolf_detect(logs=str(tmp_path / "empty"))
