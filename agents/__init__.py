"""Policies that play werewolf_env: observation (+ info) in, JSON action out."""

from .base import Policy
from .random_agent import RandomAgent

__all__ = ["Policy", "RandomAgent"]
