"""The PettingZoo environments: AEC, Parallel, and the privileged global state.

The names other packages use, from the modules that define them.
"""

from __future__ import annotations

from werewolf_env.envs.aec import env, raw_env
from werewolf_env.envs.base import NO_ACTION
from werewolf_env.envs.parallel import WerewolfParallelEnv, parallel_env

__all__ = [
    "NO_ACTION",
    "WerewolfParallelEnv",
    "env",
    "parallel_env",
    "raw_env",
]
