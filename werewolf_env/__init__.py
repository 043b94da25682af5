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

from werewolf_env.version import package_version

__version__ = package_version()  # pyproject.toml holds it (werewolf_env/version.py)

from werewolf_env.config import DEFAULT_NAMES, MAX_PLAYERS, MIN_PLAYERS, GameConfig, Role, Team
from werewolf_env.engine import Game, GameOverError
from werewolf_env.env import env, raw_env
from werewolf_env.log import ReplayResult, replay
from werewolf_env.parallel import WerewolfParallelEnv, parallel_env
from werewolf_env.state import ActionKind

__all__ = [
    "DEFAULT_NAMES", "MAX_PLAYERS", "MIN_PLAYERS", "ActionKind", "Game", "GameConfig", "GameOverError",
    "ReplayResult", "Role", "Team", "WerewolfParallelEnv", "__version__", "env", "parallel_env", "raw_env",
    "replay",
]  # fmt: skip
