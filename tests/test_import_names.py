"""The import names: ``werewolf_deception``'s public API, and the flat layout's module names kept working."""

from __future__ import annotations

import importlib
import subprocess
import sys
import warnings
from pathlib import Path

import pytest

import werewolf_deception as wd
import werewolf_env
from werewolf_env.core.moved import ModuleMovedWarning


def test_the_public_api_is_read_from_the_layers() -> None:
    assert wd.env is werewolf_env.env and wd.GameConfig is werewolf_env.GameConfig
    from werewolf_deception.agents import HeuristicAgent, play_game_sync

    assert wd.play_game_sync is play_game_sync and wd.HeuristicAgent is HeuristicAgent
    result = wd.play_game_sync({"num_players": 5}, "heuristic", seed=2)
    assert result.events and result.winner in {"village", "werewolf", None}
    assert set(wd.__all__) <= set(dir(wd))
    with pytest.raises(AttributeError, match="no attribute 'nothing'"):
        _ = wd.nothing  # type: ignore[attr-defined]


def test_importing_the_package_loads_no_layer_above_the_env() -> None:
    code = "import sys, werewolf_deception; print(sorted(m for m in sys.modules if m.startswith('werewolf')))"
    loaded = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert "werewolf_deception.agents" not in loaded and "werewolf_deception.benchmarks" not in loaded


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("werewolf_env.roles", "werewolf_env.core.roles"),
        ("werewolf_env.claim_tokens", "werewolf_env.claims.tokens"),
        ("werewolf_env.graph", "werewolf_env.engine.graph"),
    ],
)
def test_an_old_module_name_is_the_new_module_with_a_warning(old: str, new: str) -> None:
    sys.modules.pop(old, None)
    with pytest.warns(ModuleMovedWarning, match=f"{old} moved to {new}"):
        module = importlib.import_module(old)
    assert module is importlib.import_module(new)
    sys.modules.pop(old, None)


def test_the_env_function_keeps_its_name() -> None:
    assert callable(werewolf_env.env) and werewolf_env.env().metadata["name"] == "werewolf_v2"
    with pytest.raises(ModuleNotFoundError):
        importlib.import_module("werewolf_env.env")  # the function's name, never a module's


def test_a_sub_package_of_an_old_modules_name_gives_its_names() -> None:
    from werewolf_deception.agents.llm import LLMAgent
    from werewolf_env.claims import make_claim
    from werewolf_env.engine import Game

    assert Game.__module__ == "werewolf_env.engine.game" and make_claim.__module__ == "werewolf_env.claims.model"
    assert LLMAgent.__module__ == "werewolf_deception.agents.llm.agent"
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        importlib.import_module("werewolf_env.engine.rules")  # a sibling loads without the facade's module
    with pytest.raises(AttributeError):
        _ = importlib.import_module("werewolf_env.engine").not_a_name


def runnable_modules() -> list[str]:
    root = Path(__file__).resolve().parent.parent
    found = []
    for folder, name in (("agents", "werewolf_deception.agents"), ("benchmarks", "werewolf_deception.benchmarks")):
        for path in sorted((root / folder).rglob("*.py")):
            if 'if __name__ == "__main__"' in path.read_text(encoding="utf-8"):
                found.append(".".join([name, *path.relative_to(root / folder).with_suffix("").parts]))
    return found


@pytest.mark.parametrize("module", runnable_modules())
def test_a_module_one_runs_is_not_loaded_before_it_runs(module: str, tmp_path: Path) -> None:
    """A package face that loaded a module one runs with ``python -m`` would make runpy run a second copy."""
    done = subprocess.run(
        [sys.executable, "-W", "error::RuntimeWarning", "-m", module, "--help"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert "RuntimeWarning" not in done.stderr and done.returncode == 0, done.stderr[-2000:]


def test_an_old_name_leaves_the_module_reloadable_and_runnable() -> None:
    sys.modules.pop("werewolf_env.graph", None)
    with pytest.warns(ModuleMovedWarning):
        old = importlib.import_module("werewolf_env.graph")
    new = importlib.import_module("werewolf_env.engine.graph")
    assert old is new and new.__spec__.name == "werewolf_env.engine.graph"
    assert importlib.reload(new) is new and new.__name__ == "werewolf_env.engine.graph"
    sys.modules.pop("werewolf_env.graph", None)
    command = [sys.executable, "-W", "default", "-m", "werewolf_env.graph"]
    ran = subprocess.run(command, capture_output=True, text=True, timeout=120)
    assert ran.returncode == 0 and ran.stdout.startswith("stateDiagram-v2") and "moved to" in ran.stderr
