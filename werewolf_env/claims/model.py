"""Claims in statements, and the judge that says which ones the speaker knew to be false.

A claim is a small dict with seat indices (the engine's internal form)::

    {"kind": "role",        "player": 3, "role": "seer", "team": None,       "negated": False, "hedged": False}
    {"kind": "team",        "player": 1, "role": None,   "team": "werewolf", "negated": False, "hedged": True}
    {"kind": "seer_result", "player": 4, "role": None,   "team": "village",  "negated": False, "hedged": False}
    {"kind": "protected",   "player": 6, "role": None,   "team": None,       "negated": False, "hedged": False}
    {"kind": "poisoned",    "player": 2, "role": None,   "team": None,       "negated": False, "hedged": False}

``role`` claims are about any role but the werewolf (seer, doctor, witch, hunter, villager, a registered
role); "X is a werewolf" is a ``team`` claim, and so is
"X is innocent" (team village); a team claim is stored with its team made positive ("X is not a wolf"
is team village). ``hedged`` marks a belief rather than an assertion ("I think Bob is a wolf", "I
trust Eve"); the rules of what counts as a claim are those of the shared corpus's ``LABELING.md``.
``claim_text.ClaimExtractor`` always reads claims from the statement's text with deterministic
patterns; agents may also send claims in that shape (``player`` as a name, an agent id,
or "me"), which are *added* to the extracted ones (``merge_claims``), never put in their place: an
agent cannot opt out of having its words judged by sending ``"claims": []``. Each claim of a statement
then carries a ``source``: "text", "agent" or "both".

The judge (``judge.py``) says which of them the speaker knew to be false.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable
from functools import lru_cache
from typing import Any, Literal, get_args

from pydantic import BaseModel, ConfigDict, ValidationError

from werewolf_env.core import DEFAULT_RULESET, ActionKind, Role, Ruleset, Team, name_key, short_repr

# "protected": the speaker saved the player at night (a doctor's protection, a witch's heal); "poisoned": the
# speaker poisoned the player (a witch). Night-result claims are about the speaker's own night actions.
ClaimKind = Literal["role", "team", "seer_result", "protected", "poisoned"]
CLAIM_KINDS: tuple[str, ...] = ("role", "team", "seer_result", "protected", "poisoned")
# The kinds of deception an analysis names (and "none"): the one list, for models, prompts, spaces and agents.
DeceptionType = Literal["none", "omission", "distortion", "fabrication", "misdirection"]
LIE_TYPES: tuple[str, ...] = get_args(DeceptionType)
SELF_WORDS = frozenset({"me", "i", "myself", "self"})


class ClaimIn(BaseModel):
    """A structured claim as an agent sends it."""

    model_config = ConfigDict(extra="ignore")

    kind: ClaimKind
    player: str
    role: Role | None = None
    team: Team | None = None
    negated: bool = False
    hedged: bool = False


def make_claim(
    kind: str,
    player: int,
    role: str | None = None,
    team: str | None = None,
    negated: bool = False,
    hedged: bool = False,
) -> dict[str, Any]:
    """A claim in canonical form: a negated team claim becomes the other team ("not a wolf" -> village)."""
    if team is not None and negated and role is None:
        team, negated = ("village" if team == "werewolf" else "werewolf"), False
    return {"kind": kind, "player": player, "role": role, "team": team, "negated": negated, "hedged": hedged}


def claim_key(claim: dict[str, Any]) -> tuple[Any, ...]:
    """What a claim asserts, whatever its wording: kind, player and the canonical role / team / negation.

    ``hedged`` is not part of it: "I think Bob is a wolf" and "Bob is a wolf" assert the same fact.
    """
    role, team, negated = claim.get("role"), claim.get("team"), bool(claim.get("negated"))
    if role == "werewolf":
        role, team = None, "werewolf"
    if team is not None and role is None and negated:
        team, negated = ("village" if team == "werewolf" else "werewolf"), False
    return (claim["kind"], claim["player"], role, team, negated)


def public_role_claims(
    statements: Iterable[tuple[int, list[dict[str, Any]]]],
    ruleset: Ruleset = DEFAULT_RULESET,
    seated: Collection[str] = (),
) -> tuple[tuple[int, str], ...]:
    """(seat, role) each speaker has claimed for itself in public, from (speaker, claims) in the order said.

    A plain role claim about oneself counts ("I am the seer", "as the doctor, I ..."), as do one's own night
    results (a seer result: the role whose night action checks; a protection: the doctor, or the witch if the
    speaker claimed her; a poisoning: the witch: ``role_of_result``, of the game's ruleset and seated roles); a
    later denial of that role withdraws it, and a later claim replaces it. The claim reader uses it to read
    "Alice's claim is false" as a denial of her role.
    """
    claimed: dict[int, str] = {}
    for speaker, claims in statements:
        add_role_claims(claimed, speaker, claims, ruleset, seated)
    return tuple(sorted(claimed.items()))


def add_role_claims(
    claimed: dict[int, str],
    speaker: int,
    claims: Iterable[dict[str, Any]],
    ruleset: Ruleset = DEFAULT_RULESET,
    seated: Collection[str] = (),
) -> None:
    """``public_role_claims`` one statement at a time: ``claimed`` (seat -> role) updated with ``claims``."""
    for claim in claims:
        kind = claim["kind"]
        if kind == "team" or claim.get("hedged"):
            continue
        acting = role_of_result(kind, ruleset, seated)
        if acting is not None and kind != "seer_result" and claim.get("negated"):
            continue  # "I never poisoned Bob" claims no potion
        if acting is not None:
            if claimed.get(speaker) not in roles_acting(kind, ruleset):  # "I'm the witch. I healed Bob": the witch
                claimed[speaker] = acting
        elif kind == "role" and claim["player"] == speaker and claim.get("role"):
            if not claim.get("negated"):
                claimed[speaker] = claim["role"]
            elif claimed.get(speaker) == claim["role"]:
                del claimed[speaker]


# The night actions a night-result claim reports.
_RESULT_ACTIONS: dict[str, frozenset[ActionKind]] = {
    "seer_result": frozenset({ActionKind.UNMASK}),
    "protected": frozenset({ActionKind.PROTECT, ActionKind.HEAL}),
    "poisoned": frozenset({ActionKind.POISON}),
}


@lru_cache(maxsize=64)
def roles_acting(kind: str, ruleset: Ruleset = DEFAULT_RULESET) -> tuple[str, ...]:
    """The roles of ``ruleset`` whose night action a night-result claim of ``kind`` reports (protected: doctor,
    witch)."""
    actions = _RESULT_ACTIONS.get(kind, frozenset())
    return tuple(role.value for role, spec in ruleset.specs.items() if actions.intersection(spec.night_kinds))


# The role a night-result claim makes its speaker claim in a game of the built-in roles (the first built-in role
# whose night action it reports: seer, doctor, witch), unless the speaker claimed another role whose night action
# it is (``roles_acting``).
ROLE_OF_RESULT: dict[str, str] = {kind: roles_acting(kind)[0] for kind in _RESULT_ACTIONS}


def role_of_result(kind: str, ruleset: Ruleset = DEFAULT_RULESET, seated: Collection[str] = ()) -> str | None:
    """The role a night-result claim of ``kind`` makes its speaker claim; None for a kind that is no night result.

    In a game of a ruleset of its own, the first role of the ruleset acting so that the game seats (``seated``:
    its roles with seats, ``GameConfig.roles_in_game``; the bodyguard, not the doctor, of a game with a
    bodyguard and no doctor), else the first acting so at all, else None (no role of the ruleset acts so). A
    game of the built-in roles keeps ``ROLE_OF_RESULT``, as its logs always had it.
    """
    acting = ROLE_OF_RESULT.get(kind)
    if acting is None or ruleset is DEFAULT_RULESET or ruleset == DEFAULT_RULESET:
        return acting
    actors = roles_acting(kind, ruleset)
    return next((role for role in actors if role in seated), actors[0] if actors else None)


def normalize_claims(raw: Any, resolve: Any, speaker: int) -> tuple[list[dict[str, Any]], list[str]]:
    """Validate structured claims; returns the valid ones (seat form) and a reason per dropped one.

    ``resolve(name) -> seat | None`` maps names and agent ids to seats (by ``names.name_key``, like
    the words for oneself here). Reasons quote at most a short piece of what was sent.
    """
    if not isinstance(raw, list):
        return [], [f"claims must be a list, got {type(raw).__name__}"]
    claims: list[dict[str, Any]] = []
    errors: list[str] = []
    for i, item in enumerate(raw[:20]):
        try:
            claim = ClaimIn.model_validate(item)
        except ValidationError as exc:
            errors.append(f"claims[{i}] dropped: {_first_error(exc)}")
            continue
        seat = speaker if name_key(claim.player) in SELF_WORDS else resolve(claim.player)
        if seat is None:
            errors.append(f"claims[{i}] dropped: unknown player {short_repr(claim.player)}")
            continue
        role, team = claim.role, claim.team
        if role is Role.WEREWOLF:  # "X is a werewolf" is a team claim
            role, team = None, Team.WEREWOLF
        if claim.kind == "role" and role is None and team is not None:
            claim_kind = "team"
        else:
            claim_kind = claim.kind
        if claim_kind == "role" and role is None:
            errors.append(f"claims[{i}] dropped: a role claim needs 'role'")
            continue
        if claim_kind in ("team", "seer_result") and role is None and team is None:
            errors.append(f"claims[{i}] dropped: a {claim_kind} claim needs 'team' or 'role'")
            continue
        if claim_kind == "team" and team is None and role is not None:
            claim_kind = "role"
        claims.append(
            make_claim(
                claim_kind,
                seat,
                role.value if role else None,
                team.value if team else None,
                claim.negated,
                claim.hedged,
            )
        )
    if len(raw) > 20:
        errors.append(f"only the first 20 of {len(raw)} claims were kept")
    return _dedupe(claims), errors


def _first_error(exc: ValidationError) -> str:
    err = exc.errors()[0]
    loc = ".".join(str(x) for x in err["loc"]) or "claim"
    return f"{loc}: {err['msg']}"


def _dedupe(claims: list[dict[str, Any]]) -> list[dict[str, Any]]:
    seen: set[tuple[Any, ...]] = set()
    out = []
    for c in claims:
        key = claim_key(c)
        if key not in seen:
            seen.add(key)
            out.append(c)
    return out


# Where a statement's claims came from (``merge_claims``); per claim one of the first three.
CLAIM_SOURCES: tuple[str, ...] = ("text", "agent", "both", "none")


def merge_claims(
    extracted: list[dict[str, Any]], structured: list[dict[str, Any]] | None
) -> tuple[list[dict[str, Any]], str, dict[str, int] | None]:
    """The claims a statement is judged on: those read from its text plus those the agent sent.

        Returns ``(claims, claims_source, disagreement)``. Every claim gets a ``source``: "text" (read
        from the text only), "agent" (sent only) or "both" (identical kind / player / role / team /
        negated from both: counted once; ``claim_key`` decides, so a hedge does not make two claims of one, and the
    text's wording, hedge included, is kept). Extracted claims come first, in text order, then the
        agent-only ones. ``claims_source`` says which sources contributed any claim: "text", "agent",
        "both", or "none" (no claims). ``disagreement`` is None when the agent sent no ``claims`` at
        all (nothing to compare), else ``{"agent_only": n, "text_only": m, "agreed": k}``.

        ``extracted`` must be fresh dicts (``ClaimExtractor.scan`` hands out copies): they are tagged in
        place. ``structured`` dicts are copied: they are also the logged parsed action.
    """
    for claim in extracted:
        claim["source"] = "text"
    if structured is None:  # the common path: nothing sent, nothing to compare
        return extracted, ("text" if extracted else "none"), None
    read = len(extracted)
    merged = extracted
    index = {claim_key(claim): i for i, claim in enumerate(extracted)}
    agreed = agent_only = 0
    for claim in structured:
        i = index.get(claim_key(claim))
        if i is None:
            merged.append({**claim, "source": "agent"})
            agent_only += 1
        elif merged[i]["source"] == "text":  # normalize_claims deduplicates, but do not count twice
            merged[i]["source"] = "both"
            agreed += 1
    text_only = read - agreed
    has_text, has_agent = read > 0, agent_only + agreed > 0
    source = "both" if has_text and has_agent else "text" if has_text else "agent" if has_agent else "none"
    return merged, source, {"agent_only": agent_only, "text_only": text_only, "agreed": agreed}
