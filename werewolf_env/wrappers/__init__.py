"""Wrappers around the AEC environment (and ``ParallelDiscreteActions`` around the parallel one)."""

from werewolf_env.wrappers.discrete import DiscreteActions
from werewolf_env.wrappers.metrics import DeceptionMetrics
from werewolf_env.wrappers.parallel_discrete import NOOP, ParallelDiscreteActions, parallel_discrete_env

__all__ = ["NOOP", "DeceptionMetrics", "DiscreteActions", "ParallelDiscreteActions", "parallel_discrete_env"]
