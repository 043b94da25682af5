"""The heuristic agent's memory of one game and its belief of who the werewolves are.

``GameMemory`` is rebuilt from the structured events a seat may see (``raw_env(info_events=True)``):
own role and pack, own night results (seer checks, protections, the witch's potions and the victims
she was shown), deaths, statements with their claims, votes and hunters' shots. ``wolf_probability``
turns what the player knows for sure and the public evidence into an estimate per seat.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from werewolf_env.core import DEFAULT_RULESET, ActionKind, GameConfig, Role, Ruleset

WOLF = "werewolf"


@dataclass
class Statement:
    round: int
    speaker: int
    text: str
    claims: list[dict[str, Any]]


@dataclass
class GameMemory:
    """What one player has seen of the game, rebuilt from its visible events."""

    me: int = -1
    names: list[str] = field(default_factory=list)
    role: str = ""
    teammates: set[int] = field(default_factory=set)
    config: dict[str, Any] = field(default_factory=dict)
    roles_in_game: frozenset[Role] = frozenset()
    ruleset: Ruleset = DEFAULT_RULESET  # the game's roles (from the public config)
    acting_roles: dict[ActionKind, Role] = field(default_factory=dict)  # the role of this game taking each action
    alive: list[bool] = field(default_factory=list)
    round: int = 1
    seer_results: dict[int, str] = field(default_factory=dict)  # own investigations: seat -> team or role
    protected: list[int | None] = field(default_factory=list)  # own protections
    attacks_seen: dict[int, int | None] = field(default_factory=dict)  # a witch's nights: round -> the pack's victim
    healed: dict[int, int] = field(default_factory=dict)  # own heals: round -> seat
    poisoned: dict[int, int] = field(default_factory=dict)  # own poisonings: round -> seat
    pack_targets: dict[int, int | None] = field(default_factory=dict)  # a werewolf's nights: round -> victim
    night_victims: set[int] = field(default_factory=set)
    shooters: set[int] = field(default_factory=set)  # seats that fired a hunter's last shot
    revealed: dict[int, str] = field(default_factory=dict)
    statements: list[Statement] = field(default_factory=list)
    votes: list[dict[int, int | None]] = field(default_factory=list)

    def update(self, events: list[dict[str, Any]]) -> None:
        for e in events:
            kind, d = e["type"], e["data"]
            self.round = e["round"]
            if kind == "game_start":
                self.__init__()  # type: ignore[misc]  # a new game: forget the old one
                self.names = list(d["names"])
                self.config = d["config"]
                self.roles_in_game, self.ruleset = _roles_in_game(d["config"], len(self.names))
                self.acting_roles = _acting_roles(self.roles_in_game, self.ruleset)
                self.alive = [True] * len(self.names)
            elif kind == "role_assigned":
                self.me = e["audience"][0]
                self.role = d["role"]
                self.teammates = set(d.get("teammates", []))
            elif kind == "seer_result":
                self.seer_results[d["target"]] = d["result"]
            elif kind == "action" and d["kind"] == "protect":
                self.protected.append(d["parsed"]["target"])
            elif kind == "pack_decision":
                self.pack_targets[e["round"]] = d["target"]
            elif kind == "attack_seen":
                self.attacks_seen[e["round"]] = d["target"]
            elif kind == "potion_used":
                (self.healed if d["potion"] == "heal" else self.poisoned)[e["round"]] = d["target"]
            elif kind == "death" and d["victim"] is not None:
                self.alive[d["victim"]] = False
                if d["cause"] == "night":
                    self.night_victims.add(d["victim"])
                if "role" in d:
                    self.revealed[d["victim"]] = d["role"]
            elif kind == "shot":
                self.shooters.add(d["hunter"])
            elif kind == "statement":
                self.statements.append(Statement(e["round"], d["speaker"], d["text"], d["claims"]))
            elif kind == "votes":
                self.votes.append({int(k): v for k, v in d["votes"].items()})

    # ------------------------------------------------------------------ the roles of this game

    def role_doing(self, kind: ActionKind) -> Role | None:
        """The role of this game asked for ``kind`` at night or on its death (the table says which)."""
        return self.acting_roles.get(kind)

    def my_kinds(self) -> tuple[ActionKind, ...]:
        """The actions this player's role takes at night or on its death."""
        return powers(Role(self.role), self.ruleset)

    # ------------------------------------------------------------------ what this player knows

    def living_others(self) -> list[int]:
        return [p for p, up in enumerate(self.alive) if up and p != self.me]

    def known_team(self, p: int) -> str | None:
        """The team of ``p`` if this player knows it for sure, else None."""
        if p == self.me:
            return WOLF if self.role == WOLF else "village"
        if self.role == WOLF:
            return WOLF if p in self.teammates else "village"
        if p in self.revealed:
            return WOLF if self.revealed[p] == WOLF else "village"
        if p in self.seer_results:
            return WOLF if self.seer_results[p] == WOLF else "village"
        # The pack never targets a werewolf: a victim shown to the witch is village, as is a night death
        # when nobody can poison (a poisoned werewolf dies at night too).
        if p in self.night_victims and self.role_doing(ActionKind.POISON) is None:
            return "village"
        if p in self.attacks_seen.values():
            return "village"
        if p in self.shooters:  # only a hunter shoots on his death
            hunter = self.role_doing(ActionKind.SHOOT)
            return self.ruleset.specs[hunter].team.value if hunter is not None else None
        return None

    def seer_claimants(self) -> list[int]:
        """Players who publicly claimed to be the seer (by role or by reporting a result), first first."""
        out: list[int] = []
        for st in self.statements:
            if (
                any(
                    (c["kind"] == "role" and c["role"] == "seer" and c["player"] == st.speaker and not c["negated"])
                    or c["kind"] == "seer_result"
                    for c in st.claims
                )
                and st.speaker not in out
            ):
                out.append(st.speaker)
        return out

    def claimants_of(self, role: Role) -> list[int]:
        """Players who publicly claimed ``role`` for themselves, first first."""
        out: list[int] = []
        for st in self.statements:
            if st.speaker not in out and any(
                c["kind"] == "role" and c["role"] == role.value and c["player"] == st.speaker and not c["negated"]
                for c in st.claims
            ):
                out.append(st.speaker)
        return out

    def claimed_results(self, claimant: int) -> list[tuple[int, str]]:
        return [
            (c["player"], c["team"] or ("village" if c["role"] != WOLF else WOLF))
            for st in self.statements
            if st.speaker == claimant
            for c in st.claims
            if c["kind"] == "seer_result"
        ]

    def claimed_role(self, p: int, role: str) -> bool:
        return any(
            c["kind"] == "role" and c["role"] == role and c["player"] == p and st.speaker == p and not c["negated"]
            for st in self.statements
            for c in st.claims
        )

    def wolf_probability(self) -> list[float]:
        """This player's estimate that each seat is a werewolf."""
        n = len(self.names)
        known = [self.known_team(p) for p in range(n)]
        unknown = [p for p in range(n) if known[p] is None and self.alive[p]]
        wolves_total = int(self.config.get("num_werewolves", 2))
        wolves_known = sum(1 for p in range(n) if known[p] == WOLF)
        base = max(wolves_total - wolves_known, 0) / max(len(unknown), 1)
        score = [base] * n
        claimants = self.seer_claimants()
        for c in claimants:
            trust = 1.0 if len(claimants) == 1 else 0.5
            contradicted = any(known[t] is not None and known[t] != team for t, team in self.claimed_results(c)) or (
                self.role == "seer" and c != self.me
            )
            if contradicted:
                score[c] += 0.8
                continue
            if len(claimants) > 1:
                score[c] += 0.15
            for target, team in self.claimed_results(c):
                score[target] += 0.45 * trust if team == WOLF else -0.3 * trust
        self._weigh_unique_role_claims(score)
        for st in self.statements:
            for claim in st.claims:
                t, s = claim["player"], st.speaker
                if claim["kind"] != "team" or t == s or claim["negated"]:
                    continue
                if claim["team"] == WOLF:
                    score[s] += 0.3 if known[t] == "village" else 0.0
                    score[t] += 0.05
                elif known[t] == WOLF:
                    score[s] += 0.4  # vouched for a werewolf
        for day in self.votes:
            for voter, voted in day.items():
                if voted is not None and known[voted] == "village":
                    score[voter] += 0.08
                elif voted is not None and known[voted] == WOLF:
                    score[voter] -= 0.08
        return [
            (1.0 if known[p] == WOLF else 0.0) if known[p] is not None else min(max(score[p], 0.02), 0.98)
            for p in range(n)
        ]

    def _weigh_unique_role_claims(self, score: list[float]) -> None:
        """Claims of the witch or the hunter: whoever claims the role this player holds lies, and rival
        claimants of one such role are suspect. (The seer's claims are weighed above, as they always were;
        the doctor's are left alone so that default games play as before.)"""
        for kind in (ActionKind.HEAL, ActionKind.SHOOT):
            role = self.role_doing(kind)
            if role is None:
                continue
            claimants = self.claimants_of(role)
            for c in claimants:
                if c == self.me:
                    continue
                if self.role == role.value:
                    score[c] += 0.8  # I hold the role: a lie
                elif len(claimants) > 1:
                    score[c] += 0.2


def _roles_in_game(config: dict[str, Any], players: int) -> tuple[frozenset[Role], Ruleset]:
    """The roles the public config deals; an old or foreign log's config that no longer validates: the
    default game's roles (the heuristic also labels logged games)."""
    try:
        validated = GameConfig.model_validate(config)
        return validated.roles_in_game(), validated.ruleset
    except ValueError:
        specs = DEFAULT_RULESET.specs
        return frozenset(r for r, s in specs.items() if s.default_count(players) or r is Role.VILLAGER), DEFAULT_RULESET


def powers(role: Role, ruleset: Ruleset = DEFAULT_RULESET) -> tuple[ActionKind, ...]:
    """The actions ``role`` takes at night or on its death (the witch: heal, poison; the hunter: shoot)."""
    spec = ruleset.specs[role]
    return (*spec.night_kinds, *((spec.on_death,) if spec.on_death is not None else ()))


def _acting_roles(roles: frozenset[Role], ruleset: Ruleset = DEFAULT_RULESET) -> dict[ActionKind, Role]:
    """Per action kind, the first role (in role order) of ``roles`` that takes it at night or on its death."""
    acting: dict[ActionKind, Role] = {}
    for role in sorted(roles, key=ruleset.index.__getitem__):
        for kind in powers(role, ruleset):
            acting.setdefault(kind, role)
    return acting
