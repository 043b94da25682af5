"""Counterfactual deception signs (CTRL-D's bait, switch and edge) and the rollouts behind them.

The names other packages use, from the modules that define them.
"""

from __future__ import annotations

from werewolf_env.counterfactual.signs import CounterfactualValuer, Proposal, ProposalValue, Sign, extract_proposals

__all__ = [
    "CounterfactualValuer",
    "Proposal",
    "ProposalValue",
    "Sign",
    "extract_proposals",
]
