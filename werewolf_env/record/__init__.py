"""One game's deception record, built from its events: statements, labels, persuasion, tokens, transcript.

The names other packages use, from the modules that define them.
"""

from __future__ import annotations

from werewolf_env.record.game_record import (
    LIE_TYPES,
    ROLE_TEAM,
    TEAMS_AND_UNDECIDED,
    GameRecord,
    Label,
    StatementRecord,
    poisoned_deaths,
    ruleset_of_config,
)
from werewolf_env.record.persuasion import (
    SEAT_FIGURES,
    STATEMENT_FIGURES,
    VILLAGE,
    accused,
    claim_push,
    seat_figures,
    statement_figures,
)
from werewolf_env.record.proposals import Proposal, extract_proposals
from werewolf_env.record.token_usage import (
    CACHE_RULES,
    CHARS_PER_TOKEN,
    COUNTS,
    CacheModel,
    Price,
    TokenTally,
    cache_shares,
    cost_usd,
    prompt_segments,
    tiktoken_status,
    token_counter,
)

__all__ = [
    "CACHE_RULES",
    "CHARS_PER_TOKEN",
    "COUNTS",
    "LIE_TYPES",
    "ROLE_TEAM",
    "SEAT_FIGURES",
    "STATEMENT_FIGURES",
    "TEAMS_AND_UNDECIDED",
    "VILLAGE",
    "CacheModel",
    "GameRecord",
    "Label",
    "Price",
    "Proposal",
    "StatementRecord",
    "TokenTally",
    "accused",
    "cache_shares",
    "claim_push",
    "cost_usd",
    "extract_proposals",
    "poisoned_deaths",
    "prompt_segments",
    "ruleset_of_config",
    "seat_figures",
    "statement_figures",
    "tiktoken_status",
    "token_counter",
]
