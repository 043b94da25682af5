"""``--backend ray``: a small tournament on a local Ray instance equals the local backend's, byte for byte."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from werewolf_deception.benchmarks.cli.main import main

# Skipped without the extra; .ci/run runs it again with every extra installed, where a skip fails the run.
pytest.importorskip("ray", reason="the 'ray' extra is not installed")


def test_ray_backend_gives_the_local_results(tmp_path: Path) -> None:
    config = tmp_path / "t.toml"
    config.write_text(
        'name = "ray"\nblocks = 2\nplayers = 6\n[[entrants]]\nkind = "heuristic"\n[[entrants]]\nkind = "random"\n'
    )
    common = ["tournament", str(config), "--no-plots", "--quiet"]
    assert main([*common, "--out", str(tmp_path / "local")]) == 0
    assert main([*common, "--backend", "ray", "--out", str(tmp_path / "ray")]) == 0
    local_logs = sorted((tmp_path / "local" / "games").glob("*.ndjson"))
    assert len(local_logs) == 4
    for log in local_logs:
        assert (tmp_path / "ray" / "games" / log.name).read_bytes() == log.read_bytes()
    local = json.loads((tmp_path / "local" / "tournament.json").read_text())
    remote = json.loads((tmp_path / "ray" / "tournament.json").read_text())
    assert remote["entrants"] == local["entrants"] and remote["ratings"] == local["ratings"]
    results = [json.loads(x) for x in (tmp_path / "ray" / "results.ndjson").read_text().splitlines()]
    assert [r["status"] for r in results] == ["ok"] * 4
