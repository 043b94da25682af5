"""werewolf-deception: Werewolf as PettingZoo environments whose every statement is measured for deception.

One import name for the whole distribution, so that it installs beside anything (the OpenAI Agents SDK
also installs a top-level ``agents``):

- ``werewolf_env``: the game, its environments and the ground truth (its own top-level package);
- ``werewolf_deception.agents``: policies and the game runner (the repository's ``agents/`` folder);
- ``werewolf_deception.benchmarks``: the ``werewolf-bench`` CLI, runs, reports, detectors, labels,
  exports and integrations (the ``benchmarks/`` folder).

The public API, read from those on first use::

    import werewolf_deception as wd
    env = wd.env()
    result = wd.play_game_sync({"num_players": 7}, "heuristic", seed=0)   # a GameResult
"""

from __future__ import annotations

from werewolf_env.core.moved import reexport
from werewolf_env.core.version import package_version

__version__ = package_version()

_ENV = (
    "DEFAULT_NAMES", "MAX_PLAYERS", "MIN_PLAYERS", "ActionKind", "Game", "GameConfig", "GameOverError",
    "ReplayResult", "Role", "Team", "WerewolfParallelEnv", "env", "parallel_env", "raw_env", "replay",
)  # fmt: skip
_AGENTS = (
    "AgentSpec", "GameResult", "HeuristicAgent", "Lineup", "PlayerOutcome", "Policy", "RandomAgent",
    "load_lineup", "make_policy", "play_game", "play_game_sync",
)  # fmt: skip
_from_env = reexport(__name__, "werewolf_env", _ENV)[0]
_from_agents = reexport(__name__, "werewolf_deception.agents", _AGENTS)[0]
__all__ = ["__version__", *_ENV, *_AGENTS]


def __getattr__(name: str) -> object:
    return _from_env(name) if name in _ENV else _from_agents(name)


def __dir__() -> list[str]:
    return sorted(__all__)
