"""The claim reader and the judge: which claims a statement makes, and which the speaker knew to be false.

``werewolf_env.claims`` also gives the public names of ``werewolf_env.claims.model``,
loaded on first use (so that importing a sibling module does not load that one).
"""

from __future__ import annotations

from werewolf_env.core.moved import reexport

__getattr__, __dir__ = reexport(
    __name__,
    "werewolf_env.claims.model",
    (
        "CLAIM_KINDS",
        "CLAIM_SOURCES",
        "ClaimIn",
        "ClaimKind",
        "DeceptionType",
        "LIE_TYPES",
        "ROLE_OF_RESULT",
        "SELF_WORDS",
        "add_role_claims",
        "claim_key",
        "make_claim",
        "merge_claims",
        "normalize_claims",
        "public_role_claims",
        "roles_acting",
    ),
)
