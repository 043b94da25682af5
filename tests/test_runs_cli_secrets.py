"""A secret in a seat's base URL (user:password@, ?key=) reaches no file of the run folder and no printed line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from werewolf_deception.agents.fake.server import FakeOpenAIServer
from werewolf_deception.benchmarks.cli.main import main
from werewolf_deception.benchmarks.runs.folder import redact_urls

SECRET = "s3cret"


def test_redact_urls_reaches_every_url_in_nested_data() -> None:
    data = {"lineup": {"seats": [{"base_url": f"http://u:{SECRET}@h:1/v1?key={SECRET}&a=b", "n": 1}]},
            "note": "no URL here"}  # fmt: skip
    shown = json.dumps(redact_urls(data))
    assert SECRET not in shown and "http://***@h:1/v1?key=***&a=***" in shown and "no URL here" in shown


def test_a_secret_in_base_url_is_in_no_file_and_no_output(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "run"
    with FakeOpenAIServer() as server:
        host_and_path = server.base_url.split("://", 1)[1]
        url = f"http://user:{SECRET}@{host_and_path}?key={SECRET}"
        lineup = tmp_path / "lineup.json"
        lineup.write_text(
            json.dumps({"default": "heuristic", "roles": {"seer": {"kind": "llm", "model": "m", "base_url": url}}})
        )
        code = main(
            [
                "run",
                "--games",
                "2",
                "--players",
                "5",
                "--lineup",
                str(lineup),
                "--out",
                str(out),
                "--baseline-games",
                "0",
            ]
        )
        assert server.requests  # the seer's calls went out through that URL
    printed = capsys.readouterr()
    assert code == 0, printed.err
    assert SECRET not in printed.out and SECRET not in printed.err
    manifest = (out / "manifest.json").read_text()
    assert "http://***@127.0.0.1" in manifest and "key=***" in manifest
    found = sorted(str(p.relative_to(out)) for p in out.rglob("*") if p.is_file() and SECRET.encode() in p.read_bytes())
    assert not found, f"the secret is written to {found}"  # the manifest, results, game logs' call records, cache
