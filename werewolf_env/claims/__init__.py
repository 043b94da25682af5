"""The claim reader and the judge: which claims a statement makes, and which the speaker knew to be false.

The names other packages use, from the modules that define them.
"""

from __future__ import annotations

from werewolf_env.claims.judge import Knowledge, judge_claims
from werewolf_env.claims.learned import (
    CLASSES,
    DIMENSIONS,
    HEDGE_HEAD,
    MODEL_PATH,
    Head,
    LearnedStage,
    candidate_features,
    class_of,
    hashed,
    label,
)
from werewolf_env.claims.model import (
    CLAIM_KINDS,
    CLAIM_SOURCES,
    LIE_TYPES,
    ROLE_OF_RESULT,
    SELF_WORDS,
    ClaimIn,
    ClaimKind,
    DeceptionType,
    add_role_claims,
    claim_key,
    make_claim,
    merge_claims,
    normalize_claims,
    public_role_claims,
    role_of_result,
    roles_acting,
)
from werewolf_env.claims.text import ClaimExtractor, extractor_for

__all__ = [
    "CLAIM_KINDS",
    "CLAIM_SOURCES",
    "CLASSES",
    "DIMENSIONS",
    "HEDGE_HEAD",
    "LIE_TYPES",
    "MODEL_PATH",
    "ROLE_OF_RESULT",
    "SELF_WORDS",
    "ClaimExtractor",
    "ClaimIn",
    "ClaimKind",
    "DeceptionType",
    "Head",
    "Knowledge",
    "LearnedStage",
    "add_role_claims",
    "candidate_features",
    "claim_key",
    "class_of",
    "extractor_for",
    "hashed",
    "judge_claims",
    "label",
    "make_claim",
    "merge_claims",
    "normalize_claims",
    "public_role_claims",
    "role_of_result",
    "roles_acting",
]
