"""Counterfactual deception signs (CTRL-D's bait, switch and edge) and the rollouts behind them.

``werewolf_env.counterfactual`` was one module before the sub-packages: its public names are still read
here, from ``werewolf_env.counterfactual.signs``, loaded on first use (so that importing a sibling module
does not load this one).
"""

from __future__ import annotations

from werewolf_env.core.moved import reexport

__getattr__, __dir__ = reexport(
    __name__,
    "werewolf_env.counterfactual.signs",
    (
        "CounterfactualValuer",
        "ProposalValue",
        "Sign",
    ),
)
