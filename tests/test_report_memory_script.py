"""``benchmarks/report/memory.py``: plays (or reuses) games, reports the report's peak RSS as JSON."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from werewolf_deception.benchmarks.report import memory as report_memory


def test_the_benchmark_prints_peak_rss_per_size_and_reuses_its_cache(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["--cache", str(tmp_path), "--games", "2", "3", "--players", "5", "--workers", "1",
            "--baseline-games", "0", "--resamples", "10", "--no-plots", "--target-mb", "100000"]  # fmt: skip
    assert report_memory.main(argv) == 0
    result = json.loads(capsys.readouterr().out)
    assert [r["games"] for r in result["results"]] == [2, 3]
    for r in result["results"]:
        assert r["exit_code"] == 0 and r["peak_rss_mb"] > 0
    assert result["ok"] is True and result["machine"]["cpus"] >= 1
    played = tmp_path / "heuristic-3-5p" / "games"
    logs = sorted(played.glob("*.ndjson"))
    assert len(logs) == 3
    stamps = [p.stat().st_mtime_ns for p in logs]
    assert report_memory.main([*argv[:-1], "0.001"]) == 1  # the same games again; a target nobody meets
    assert [p.stat().st_mtime_ns for p in sorted(played.glob("*.ndjson"))] == stamps  # reused, not replayed
    assert json.loads(capsys.readouterr().out)["ok"] is False


def test_bad_sizes_are_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_:
        report_memory.main(["--cache", str(tmp_path), "--games", "0"])
    assert exit_.value.code == 2
    assert "--games" in capsys.readouterr().err
