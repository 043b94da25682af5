"""werewolf-deception: Werewolf as a PettingZoo AEC environment with grounded deception labels.

    import werewolf_env
    env = werewolf_env.env()            # wrapped; werewolf_env.raw_env() for the bare AEC env
    env.reset(seed=0)
    par = werewolf_env.parallel_env()   # the same game as a native PettingZoo ParallelEnv
    observations, infos = par.reset(seed=0)

See ``werewolf_env.env`` for spaces, rewards and the simultaneous-group API, ``werewolf_env.parallel``
for the parallel API, ``werewolf_env.parallel_state`` for ``state()``, ``werewolf_env.graph`` for the
phase graph, and ``werewolf_env.log.replay`` to re-run a logged game.
"""

from __future__ import annotations

from .version import package_version

__version__ = package_version()  # pyproject.toml holds it (werewolf_env/version.py)

from .config import DEFAULT_NAMES, MAX_PLAYERS, MIN_PLAYERS, GameConfig, Role, Team
from .engine import Game, GameOverError
from .env import env, raw_env
from .log import ReplayResult, replay
from .parallel import WerewolfParallelEnv, parallel_env
from .state import ActionKind

__all__ = [
    "DEFAULT_NAMES", "MAX_PLAYERS", "MIN_PLAYERS", "ActionKind", "Game", "GameConfig", "GameOverError",
    "ReplayResult", "Role", "Team", "WerewolfParallelEnv", "__version__", "env", "parallel_env", "raw_env",
    "replay",
]  # fmt: skip
