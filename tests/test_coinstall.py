"""The project installs beside the OpenAI Agents SDK (``pip install openai-agents``), whose import name is
``agents``: both import and work in one environment. Ours are ``werewolf_env`` and ``werewolf_deception``.

Needs openai-agents installed beside the project; CI installs both, from a built wheel, in an environment of
their own. The checks run in a fresh interpreter started outside the checkout, as a user's script would be
(the checkout's own ``agents/`` folder must not be what ``import agents`` finds).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from importlib import metadata
from pathlib import Path

import pytest

try:
    metadata.distribution("openai-agents")
except metadata.PackageNotFoundError:
    pytest.skip(
        "openai-agents is not installed (CI installs it beside the project in an environment of its own)",
        allow_module_level=True,
    )

BOTH = """
import json, sys
import agents, werewolf_deception, werewolf_env
from agents import Agent, Runner, function_tool
from werewolf_deception.agents import HeuristicAgent, play_game_sync

@function_tool
def accuse(name: str) -> str:
    \"\"\"Accuse a player.\"\"\"
    return name

sdk_agent = Agent(name="moderator", instructions="Run the game.", tools=[accuse])
result = play_game_sync({"num_players": 5}, "heuristic", seed=1)
print(json.dumps({
    "sdk": agents.__file__, "ours": werewolf_deception.agents.__file__, "env": werewolf_env.__file__,
    "tools": [t.name for t in sdk_agent.tools], "runner": hasattr(Runner, "run_sync"),
    "winner": result.winner, "policy": HeuristicAgent.__module__,
}))
"""


def clean_env() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if k not in {"PYTHONPATH", "PYTHONSAFEPATH"}}


def test_both_import_and_work_in_one_environment(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-c", BOTH], cwd=tmp_path, env=clean_env(), capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr
    found = json.loads(done.stdout.strip().splitlines()[-1])
    sdk = Path(found["sdk"]).resolve()
    assert "werewolf_deception" not in sdk.parts and sdk.parent.name == "agents", found
    assert Path(found["ours"]).parent.name == "agents" and "werewolf_deception" in Path(found["ours"]).parts, found
    assert found["tools"] == ["accuse"] and found["runner"], found
    assert found["winner"] in {"village", "werewolf", None}, found
    assert found["policy"].startswith("werewolf_deception.agents."), found


def test_the_command_line_runs_beside_the_sdk(tmp_path: Path) -> None:
    bench = Path(sys.executable).with_name("werewolf-bench")
    done = subprocess.run(
        [str(bench), "run", "--agents", "heuristic", "--games", "2", "--players", "5", "--out", "run", "--quiet"],
        cwd=tmp_path,
        env=clean_env(),
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "run" / "summary.json").is_file() and (tmp_path / "run" / "report.html").is_file()
