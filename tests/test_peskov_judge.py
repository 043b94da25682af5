"""The LLM judge on Diplomacy messages (``werewolf_deception.benchmarks.diplomacy.judge``), offline against the
project's fake server."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from werewolf_deception.agents.fake.server import FakeOpenAIServer, FaultPlan
from werewolf_deception.benchmarks.cli.main import main
from werewolf_deception.benchmarks.diplomacy.judge import HISTORY, DiplomacyJudge, earlier_messages
from werewolf_deception.benchmarks.diplomacy.peskov import read_split

FIXTURE = Path(__file__).parent / "data" / "peskov2020_tiny"


def test_the_judge_reads_only_the_dialog_so_far_and_answers(tmp_path: Path) -> None:
    rows = read_split(FIXTURE, "validation")
    with FakeOpenAIServer() as server:
        url = server.base_url
        judge = DiplomacyJudge(
            {"model": "fake", "base_url": server.base_url}, concurrency=4, cache_dir=tmp_path / "cache"
        )
        p = judge.fit(rows).probability(rows)
        users = [m["content"] for request in server.requests for m in request["messages"] if m["role"] == "user"]
    assert len(p) == len(rows) and all(x == 0.1 for x in p)  # the scripted analysis: not deceptive, confidence 0.1
    cost = judge.cost()
    assert cost["calls"] == len(rows) and cost["prompt_tokens"] > 0 and cost["outcomes"] == {"answered": len(rows)}
    earlier = earlier_messages(rows)
    for k, m in enumerate(rows):
        assert len(earlier[k]) <= HISTORY and all(e.dialog == m.dialog for e in earlier[k])
        assert all(e.absolute_index <= m.absolute_index for e in earlier[k])
    # Each prompt shows its message after "MESSAGE TO JUDGE" and no later message of the dialog.
    for text in users:
        assert "MESSAGE TO JUDGE" in text and '"is_deceptive"' in text
        assert "sender_label" not in text and "receiver_label" not in text
    again = DiplomacyJudge({"model": "fake", "base_url": url, "retries": 0}, cache_dir=tmp_path / "cache")
    assert list(again.probability(rows)) == list(p) and again.cost()["cached_calls"] == len(rows)


def test_the_judge_abstains_when_the_server_fails() -> None:
    rows = read_split(FIXTURE, "validation")[:5]
    with FakeOpenAIServer(faults=FaultPlan(rates={"500": 1.0})) as server:
        judge = DiplomacyJudge({"model": "fake", "base_url": server.base_url, "retries": 0}, breaker=50)
        p = judge.probability(rows)
    assert all(math.isnan(x) for x in p) and judge.cost()["outcomes"] == {"unanswered": len(rows)}


def test_detect_eval_runs_the_judge_on_a_sample_of_each_split(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:

    out = tmp_path / "out"
    args = ["detect-eval", "--dataset", "peskov2020", "--data-dir", str(FIXTURE), "--out", str(out),
            "--detector", "llm-judge", "--judge-sample", "20", "--judge-model", "fake"]  # fmt: skip
    with FakeOpenAIServer() as server:
        assert main([*args, "--judge-base-url", server.base_url, "--out", str(tmp_path / "ok")]) == 0
    result = json.loads((tmp_path / "ok" / "detect_eval.json").read_text())
    for split in result["splits"].values():
        row = split["detectors"]["llm-judge"]
        assert row["sample"]["messages"] == 20 and row["coverage"] == 1.0 and row["cost"]["calls"] == 20
        assert set(split["detectors"]) == {"llm-judge", "random", "all-lie", "human receivers"}
    assert "20 of" in capsys.readouterr().out
    with FakeOpenAIServer(faults=FaultPlan(rates={"malformed": 1.0})) as server:
        code = main([*args, "--judge-base-url", server.base_url, "--out", str(tmp_path / "bad"), "--no-preflight"])
    assert code == 4  # nothing answered validly: not a measurement
    stopped = tmp_path / "stopped"  # a judge run stopped early left its cache only: a rerun resumes there
    (stopped / "llm-cache").mkdir(parents=True)
    (stopped / "llm-cache" / "x.json").write_text("{}")
    with FakeOpenAIServer() as server:
        assert main([*args, "--judge-base-url", server.base_url, "--out", str(stopped)]) == 0
    assert main(["detect-eval", "--dataset", "peskov2020", "--data-dir", str(FIXTURE), "--out", str(tmp_path / "n"),
                 "--detector", "llm-judge"]) == 2  # fmt: skip  # no model
