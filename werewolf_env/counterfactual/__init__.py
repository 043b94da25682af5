"""Counterfactual deception signs (CTRL-D's bait, switch and edge) and the rollouts behind them.

``werewolf_env.counterfactual`` also gives the public names of ``werewolf_env.counterfactual.signs``,
loaded on first use (so that importing a sibling module does not load that one).
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
