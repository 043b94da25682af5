"""Wrappers around the AEC environment."""

from .discrete import DiscreteActions
from .metrics import DeceptionMetrics

__all__ = ["DeceptionMetrics", "DiscreteActions"]
