"""Figures over games with intervals: metrics, aggregates, suspicion, persuasion, coverage, rewards.

The names other packages use, from the modules that define them.
"""

from __future__ import annotations

from werewolf_env.analysis.columns import joint_key
from werewolf_env.analysis.coverage import ClaimsCoverage, claims_coverage_lines, shown_kinds
from werewolf_env.analysis.logistic import Columns, LogisticFit, Sparse, best_threshold, fit_logistic, sigmoid
from werewolf_env.analysis.metrics import (
    LIE_TYPES,
    METRICS_SCHEMA_VERSION,
    STATEMENT_FIGURES,
    GameOverview,
    GameRecord,
    Label,
    RunAggregator,
    StatementRecord,
    statement_figures,
    suspicion_by_round,
)
from werewolf_env.analysis.rewards import REWARD_FUNCTIONS, REWARDS, RewardWeights, reward
from werewolf_env.analysis.role_figures import (
    acting_role,
    action_kinds_of,
    cause_notes,
    cause_order,
    last_acts,
    role_kinds,
)
from werewolf_env.analysis.stats import Bootstrap

__all__ = [
    "LIE_TYPES",
    "METRICS_SCHEMA_VERSION",
    "REWARDS",
    "REWARD_FUNCTIONS",
    "STATEMENT_FIGURES",
    "Bootstrap",
    "ClaimsCoverage",
    "Columns",
    "GameOverview",
    "GameRecord",
    "Label",
    "LogisticFit",
    "RewardWeights",
    "RunAggregator",
    "Sparse",
    "StatementRecord",
    "acting_role",
    "action_kinds_of",
    "best_threshold",
    "cause_notes",
    "cause_order",
    "claims_coverage_lines",
    "fit_logistic",
    "joint_key",
    "last_acts",
    "reward",
    "role_kinds",
    "shown_kinds",
    "sigmoid",
    "statement_figures",
    "suspicion_by_round",
]
