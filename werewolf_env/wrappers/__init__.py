"""Wrappers around the AEC environment (and ``ParallelDiscreteActions`` around the parallel one)."""

from .discrete import DiscreteActions
from .metrics import DeceptionMetrics
from .parallel_discrete import NOOP, ParallelDiscreteActions, parallel_discrete_env

__all__ = ["NOOP", "DeceptionMetrics", "DiscreteActions", "ParallelDiscreteActions", "parallel_discrete_env"]
