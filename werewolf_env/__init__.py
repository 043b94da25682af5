"""werewolf-deception: Werewolf as a PettingZoo AEC environment with grounded deception labels.

    import werewolf_env
    env = werewolf_env.env()            # wrapped; werewolf_env.raw_env() for the bare AEC env
    env.reset(seed=0)
    par = werewolf_env.parallel_env()   # the same game as a native PettingZoo ParallelEnv
    observations, infos = par.reset(seed=0)

See ``werewolf_env.envs.aec`` for spaces, rewards and the simultaneous-group API, ``werewolf_env.envs.parallel``
for the parallel API, ``werewolf_env.envs.parallel_state`` for ``state()``, ``werewolf_env.engine.phases`` for the
phase graph, and ``werewolf_env.engine.log.replay`` to re-run a logged game.
"""

from __future__ import annotations

from werewolf_env.core import install_moves, package_version

__version__ = package_version()  # pyproject.toml holds it (werewolf_env/core/version.py)

from werewolf_env.core import DEFAULT_NAMES, MAX_PLAYERS, MIN_PLAYERS, ActionKind, GameConfig, Role, Team
from werewolf_env.engine import Game, GameOverError, ReplayResult, replay
from werewolf_env.envs import WerewolfParallelEnv, env, parallel_env, raw_env

__all__ = [
    "DEFAULT_NAMES", "MAX_PLAYERS", "MIN_PLAYERS", "ActionKind", "Game", "GameConfig", "GameOverError",
    "ReplayResult", "Role", "Team", "WerewolfParallelEnv", "__version__", "env", "parallel_env", "raw_env",
    "replay",
]  # fmt: skip

# The flat layout's module names, kept importable with a ModuleMovedWarning (werewolf_env/core/moved.py). Not
# ``env``: ``werewolf_env.env`` is the environment function (the AEC module is ``werewolf_env.envs.aec``).
_MOVED = {
    "action_models":       "actions.models",
    "action_specs":        "actions.specs",
    "aggregate":           "analysis.aggregate",
    "answer_formats":      "actions.formats",
    "claim_context":       "claims.context",
    "claim_disputes":      "claims.disputes",
    "claim_learned":       "claims.learned",
    "claim_night":         "claims.night",
    "claim_patterns":      "claims.patterns",
    "claim_pronouns":      "claims.pronouns",
    "claim_reader":        "claims.reader",
    "claim_reading":       "claims.reading",
    "claim_reads":         "claims.reads",
    "claim_text":          "claims.text",
    "claim_tokens":        "claims.tokens",
    "claim_words":         "claims.words",
    "claims_coverage":     "analysis.coverage",
    "columns":             "analysis.columns",
    "config":              "core.config",
    "env_base":            "envs.base",
    "game_record":         "record.game_record",
    "graph":               "engine.graph",
    "inert_text":          "core.inert_text",
    "json_input":          "core.json_input",
    "judge":               "claims.judge",
    "log":                 "engine.log",
    "metrics":             "analysis.metrics",
    "names":               "core.names",
    "observation":         "observe.observation",
    "observe_layout":      "observe.layout",
    "observe_public":      "observe.public",
    "observe_text":        "observe.text",
    "parallel":            "envs.parallel",
    "parallel_state":      "envs.parallel_state",
    "persuasion":          "record.persuasion",
    "persuasion_figures":  "analysis.persuasion_figures",
    "proposals":           "record.proposals",
    "rewards":             "analysis.rewards",
    "role_figures":        "analysis.role_figures",
    "roles":               "core.roles",
    "rollout_memo":        "counterfactual.memo",
    "rollouts":            "counterfactual.rollouts",
    "rules":               "engine.rules",
    "rules_base":          "engine.rules_base",
    "rules_day":           "engine.rules_day",
    "spaces":              "actions.spaces",
    "state":               "core.state",
    "statement_record":    "record.statement_record",
    "stats":               "analysis.stats",
    "suspicion":           "analysis.suspicion",
    "token_usage":         "record.token_usage",
    "transcript":          "observe.transcript",
    "version":             "core.version",
    "visibility":          "core.visibility",
}  # fmt: skip
install_moves({f"{__name__}.{old}": f"{__name__}.{new}" for old, new in _MOVED.items()})
