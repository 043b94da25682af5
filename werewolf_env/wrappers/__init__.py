"""Wrappers around the AEC environment."""

from .discrete import DiscreteActions

__all__ = ["DiscreteActions"]
