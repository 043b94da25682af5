"""The import names: ``werewolf_deception``'s public API, and the flat layout's module names kept working."""

from __future__ import annotations

import importlib
import subprocess
import sys
import warnings

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
