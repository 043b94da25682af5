"""Integer actions for RL libraries, and deception metrics in the PettingZoo loop.

``discrete_env()`` and ``parallel_discrete_env()``: the numeric path (``numeric``), what RL libraries use;
``DiscreteActions`` and ``ParallelDiscreteActions``: the same integers as wrappers, for envs that keep their text;
``DiscreteCodec``, what every one of them reads an integer as (for envs of your own); ``DeceptionMetrics`` around
the AEC env.
"""

from werewolf_env.wrappers.discrete import DiscreteActions, DiscreteCodec
from werewolf_env.wrappers.metrics import DeceptionMetrics
from werewolf_env.wrappers.numeric import DiscreteEnv, ParallelDiscreteEnv, discrete_env
from werewolf_env.wrappers.parallel_discrete import NOOP, ParallelDiscreteActions, parallel_discrete_env

__all__ = [
    "NOOP",
    "DeceptionMetrics",
    "DiscreteActions",
    "DiscreteCodec",
    "DiscreteEnv",
    "ParallelDiscreteActions",
    "ParallelDiscreteEnv",
    "discrete_env",
    "parallel_discrete_env",
]
