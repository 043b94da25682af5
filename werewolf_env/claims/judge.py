"""The judge: which claims of a statement the speaker *knew* to be false.

A claim (``claims.make_claim``) asserts a role or team of one player, a seer result, or a
protection, plainly or ``hedged`` ("I think Bob is a wolf"), possibly ``negated``. The judge reads
it against what the speaker knew at that moment (``Knowledge``): its own role, its werewolf pack,
its seer checks and protections, and roles revealed in public. It never uses what the speaker could
not know, so a wrong guess is never a lie.

=============================  ===========================================  ==================
claim                          known false when                             lie type
=============================  ===========================================  ==================
about oneself (role / team)    it contradicts one's own role                fabrication
seer result                    the speaker is no seer, or has no such       fabrication
                               check with that result
protection ("I saved X")       the speaker did not protect X (a doctor's    fabrication
                               protection or a witch's heal)
poisoning ("I poisoned X")     the speaker is no witch who poisoned X       fabrication
denial ("I never poisoned X")  the speaker did poison X (a denied heal:     fabrication
                               did heal X)
"X is a werewolf" (team)       the speaker knows X is village               misdirection
any other claim about X        the speaker knows it is false (a vouch for   distortion
                               a known werewolf, a role X cannot have)
=============================  ===========================================  ==================

**Hedged claims** are judged by the same table: a werewolf's "I think Bob is a wolf" about a
villager it knows is misdirection, "I don't think Eve is a wolf" about its own packmate distortion.
A hedge marks belief, and one cannot honestly believe what one knows to be false; an honest
player's wrong guess, hedged or not, is never a lie. Each verdict keeps ``hedged``, and the
statement's ``lie_strict`` says whether it holds a known-false claim that was *not* hedged, for
readers who count only flat assertions.

A statement's lie type is the gravest of its claims', in the order fabrication, misdirection,
distortion.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from werewolf_env.core import (
    DEFAULT_RULESET,
    ActionKind,
    GameState,
    Role,
    Ruleset,
    Team,
    all_roles_mask,
    knowledge_masks,
    role_bit,
    team_mask,
)

LIE_PRECEDENCE: tuple[str, ...] = ("fabrication", "misdirection", "distortion")


@dataclass(frozen=True)
class Knowledge:
    """What one speaker knew when it spoke, with the truth the claims are checked against.

    ``possible[p]`` is a role bitmask (``visibility.role_bit``) of what player ``p`` may be as far as
    the speaker knows; ``checks`` maps a checked player to the result the speaker saw ("werewolf",
    "village" or an exact role); ``checks_known`` is False when the speaker's checks are not on
    record (a transcript without night logs): a seer's reported result is then taken as honest when
    it matches the truth.
    """

    speaker: int
    roles: tuple[Role, ...]
    possible: tuple[int, ...]
    checks: Mapping[int, str]
    protected: frozenset[int]  # whom the speaker saved at night: a doctor's protections, a witch's heal
    checks_known: bool = True
    seer_learns_role: bool = False
    poisoned: frozenset[int] = frozenset()  # whom the speaker poisoned (a witch)
    ruleset: Ruleset = DEFAULT_RULESET  # the game's roles: what a role claim and a role bit mean

    @classmethod
    def of_state(cls, state: GameState, speaker: int) -> Knowledge:
        # Judged on every statement: most speakers have no night record, so the empty cases skip the comprehensions.
        checked = state.seer_results.get(speaker)
        checks = {target: result for _round, target, result in checked} if checked else {}
        guarded, healed = state.protect_history.get(speaker), state.heal_history.get(speaker)
        protected = _NOBODY
        if guarded or healed:
            protected = frozenset([t for _, t in guarded or () if t is not None] + [t for _, t in healed or ()])
        poisoned_by = state.poison_history.get(speaker)
        return cls(
            speaker=speaker,
            roles=tuple(state.roles),
            possible=knowledge_masks(state, speaker),
            checks=checks,
            protected=protected,
            seer_learns_role=state.config.seer_learns_role,
            poisoned=frozenset([t for _, t in poisoned_by]) if poisoned_by else _NOBODY,
            ruleset=state.config.ruleset,
        )

    @classmethod
    def of_transcript(
        cls,
        players: list[str],
        roles: Mapping[str, str],
        speaker: str,
        own_role: str,
        checks: Mapping[str, str] | None = None,
        checks_known: bool = False,
        protected: Iterable[str] = (),
        revealed: Mapping[str, str] | None = None,
        ruleset: Ruleset = DEFAULT_RULESET,
    ) -> Knowledge:
        """Knowledge from a transcript: names, project role names ("werewolf", "seer", ...) or role words.

        A role word is the role the claim reader reads it as (``ruleset.role_of``: "medic" is the doctor).

        A werewolf knows its pack (the other werewolves in ``roles``) and that everyone else is
        village; others know only their own role, their checks and public reveals. The game's role
        counts are not used: transcripts come from many rule sets.
        """
        seat = {name: i for i, name in enumerate(players)}
        role_of, everything = ruleset.role_of, all_roles_mask(ruleset)

        def role_bit(role: Role) -> int:
            return 1 << ruleset.index[role]

        true_roles = tuple(role_of(roles.get(p, "villager")) for p in players)
        me = seat[speaker]
        own = role_of(own_role)
        wolf, village = team_mask(Team.WEREWOLF, ruleset), team_mask(Team.VILLAGE, ruleset)
        if ruleset.specs[own].knows_fellows:
            possible = [role_bit(own) if r is own else everything & ~role_bit(own) for r in true_roles]
        else:
            possible = [everything] * len(players)
        possible[me] = role_bit(own)
        seat_checks: dict[int, str] = {}
        for name, result in (checks or {}).items():
            if name not in seat:
                continue
            seat_checks[seat[name]] = result
            if result == "werewolf":
                possible[seat[name]] &= wolf
            elif result == "village":
                possible[seat[name]] &= village
            else:
                possible[seat[name]] = role_bit(role_of(result))
        for name, role in (revealed or {}).items():
            if name in seat and seat[name] != me:
                possible[seat[name]] = role_bit(role_of(role))
        return cls(
            speaker=me,
            roles=true_roles,
            possible=tuple(possible),
            checks=seat_checks,
            protected=frozenset(seat[p] for p in protected if p in seat),
            checks_known=checks_known,
            seer_learns_role=any(r not in ("werewolf", "village") for r in (checks or {}).values()),
            ruleset=ruleset,
        )


def asserted_mask(
    role_name: str | None, team_name: str | None, negated: bool, ruleset: Ruleset = DEFAULT_RULESET
) -> int:
    """The roles a role/team claim says the subject may have, as a bitmask (0: no such claim)."""
    if type(negated) is not bool or type(role_name) not in _NAME_TYPES or type(team_name) not in _NAME_TYPES:
        return _asserted_mask(role_name, team_name, negated, ruleset)  # not a claim's usual values: not memoised
    key = (role_name, team_name, negated, ruleset)
    found = _ASSERTED.get(key)
    if found is None:
        if len(_ASSERTED) > 4096:  # a handful of keys per ruleset; bounded however many rulesets a process sees
            _ASSERTED.clear()
        found = _ASSERTED[key] = _asserted_mask(role_name, team_name, negated, ruleset)
    return found


# ``asserted_mask`` per (role, team, negated, ruleset): a handful of keys, asked for every claim judged.
_ASSERTED: dict[tuple[str | None, str | None, bool, Ruleset], int] = {}
_NAME_TYPES = (str, type(None))
_NOBODY: frozenset[int] = frozenset()


def _asserted_mask(
    role_name: str | None, team_name: str | None, negated: bool, ruleset: Ruleset = DEFAULT_RULESET
) -> int:
    if role_name is not None:
        bit = role_bit(ruleset.role_of(role_name), ruleset)
        return all_roles_mask(ruleset) & ~bit if negated else bit
    if team_name is not None:
        wolf = Team(team_name) is Team.WEREWOLF
        return team_mask(Team.WEREWOLF, ruleset) if wolf != negated else team_mask(Team.VILLAGE, ruleset)
    return 0


def judge_claims(know: Knowledge, claims: list[dict[str, Any]]) -> dict[str, Any]:
    """Verdicts for ``claims`` (seat form) and the statement's label."""
    ruleset = know.ruleset
    own_kinds = ruleset.specs[know.roles[know.speaker]].night_kinds
    wolf = team_mask(Team.WEREWOLF, ruleset)
    verdicts = []
    worst = worst_strict = len(LIE_PRECEDENCE)
    for claim in claims:
        subject = claim["player"]
        kind = claim["kind"]
        lie_type = "none"
        if kind == "seer_result":
            true = _seer_result_true(know, claim)
            known_false = not true
            lie_type = "fabrication" if known_false else "none"
        elif kind in ("protected", "poisoned"):  # one's own night action: the speaker knows what it did
            if kind == "protected":  # a doctor's protection or a witch's heal
                did = (ActionKind.PROTECT in own_kinds or ActionKind.HEAL in own_kinds) and subject in know.protected
            else:
                did = ActionKind.POISON in own_kinds and subject in know.poisoned
            true = did != bool(claim.get("negated"))  # "I never poisoned X" is true when the speaker did not
            known_false = not true
            lie_type = "fabrication" if known_false else "none"
        else:
            asserted = asserted_mask(claim["role"], claim["team"], claim["negated"], ruleset)
            true = bool(role_bit(know.roles[subject], ruleset) & asserted)
            known_false = not (know.possible[subject] & asserted)
            if known_false:
                if subject == know.speaker:
                    lie_type = "fabrication"
                elif asserted == wolf:
                    lie_type = "misdirection"
                else:
                    lie_type = "distortion"
        if lie_type != "none":
            rank = LIE_PRECEDENCE.index(lie_type)
            worst = min(worst, rank)
            if not claim.get("hedged"):
                worst_strict = min(worst_strict, rank)
        verdicts.append({**claim, "true": bool(true), "known_false": bool(known_false), "type": lie_type})
    statement_type = LIE_PRECEDENCE[worst] if worst < len(LIE_PRECEDENCE) else "none"
    return {
        "lie": statement_type != "none",
        "lie_strict": worst_strict < len(LIE_PRECEDENCE),
        "type": statement_type,
        "claims": verdicts,
    }


def judge(state: GameState, speaker: int, claims: list[dict[str, Any]]) -> dict[str, Any]:
    """Which claims ``speaker`` knew to be false in the current state, with the statement's label."""
    return judge_claims(Knowledge.of_state(state, speaker), claims)


def _seer_result_true(know: Knowledge, claim: dict[str, Any]) -> bool:
    """A seer-result claim is honest only from a seer who checked that player with that result."""
    if ActionKind.UNMASK not in know.ruleset.specs[know.roles[know.speaker]].night_kinds:
        return False
    actual = know.roles[claim["player"]]
    if claim["player"] not in know.checks:
        # Without a night log the seer gets the benefit of the doubt: honest when it matches the truth.
        return not know.checks_known and _matches(claim, actual, exact=True, ruleset=know.ruleset)
    return _matches(claim, actual, exact=know.seer_learns_role, ruleset=know.ruleset)


def _matches(claim: dict[str, Any], actual: Role, exact: bool, ruleset: Ruleset) -> bool:
    if claim["role"] is not None:
        # With team-only results the seer knows no exact village role: an exact role is a stretch
        # only when the team is wrong.
        claimed = ruleset.role_of(claim["role"])
        return actual == claimed if exact else ruleset.specs[claimed].team is ruleset.specs[actual].team
    team = Team(claim["team"]) if claim["team"] else None
    if claim.get("negated") and team is not None:
        team = Team.VILLAGE if team is Team.WEREWOLF else Team.WEREWOLF
    return team is ruleset.specs[actual].team
