"""The single source of truth of one game: plain slotted dataclasses, no validation in the hot path.

Players are referred to by seat index (0..n-1) everywhere inside the engine; agent ids
(``player_3``) and display names are an edge concern of the adapter and the renderers.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from werewolf_env.core.config import GameConfig
from werewolf_env.core.roles import ActionKind, Role, Team

ACTION_KINDS: tuple[ActionKind, ...] = tuple(ActionKind)

KIND_NAME: dict[ActionKind, str] = {kind: kind.value for kind in ActionKind}  # enum .value is slow in hot loops

# Who may see an event: ``PUBLIC`` (everyone), or a tuple of seats (``()``: the engine only).
PUBLIC = None
Audience = tuple[int, ...] | None


@dataclass(slots=True)
class Event:
    """One change of state. The log writes these; observations, metrics and replay read them."""

    seq: int
    round: int
    phase: str
    type: str
    actor: int | None
    audience: Audience
    data: dict[str, Any]

    def to_json(self) -> dict[str, Any]:
        return {
            "seq": self.seq,
            "round": self.round,
            "phase": self.phase,
            "type": self.type,
            "actor": self.actor,
            "audience": "all" if self.audience is None else list(self.audience),
            "data": self.data,
        }


@dataclass(slots=True, frozen=True)
class Turn:
    """One decision the engine waits for: ``player`` must answer with an action of ``kind``."""

    player: int
    kind: ActionKind


@dataclass(slots=True)
class NightChoices:
    """What the night's actors chose; cleared every night."""

    proposals: dict[int, int | None] = field(default_factory=dict)  # werewolf -> target
    protections: dict[int, int | None] = field(default_factory=dict)  # doctor -> target
    checks: dict[int, int | None] = field(default_factory=dict)  # seer -> target
    decided: bool = False  # the pack's target is settled (before the witch acts, in games with one)
    target: int | None = None  # the pack's target, once decided
    heals: dict[int, int | None] = field(default_factory=dict)  # witch -> whom she healed (the pack's target)
    poisons: dict[int, int | None] = field(default_factory=dict)  # witch -> whom she poisoned


@dataclass(slots=True)
class Statement:
    """One public statement with its claims and the engine's ground-truth verdict."""

    id: int
    round: int
    turn: int
    speaker: int
    text: str
    claims: list[dict[str, Any]]  # read from the text and sent by the agent, each with its "source" (claims.py)
    claims_source: str  # which sources gave claims: "text", "agent", "both" or "none"
    truncated: bool
    verdict: dict[str, Any]  # {"lie": bool, "type": str, "claims": [...]}: never shown to agents
    # {"agent_only": n, "text_only": m, "agreed": k} when the agent sent structured claims, else None
    claims_disagreement: dict[str, int] | None = None


@dataclass(slots=True)
class GameState:
    config: GameConfig
    seed: int
    rng: np.random.Generator
    names: tuple[str, ...]
    roles: list[Role]
    alive: list[bool]
    round: int = 1
    phase: str = "start"
    debate_turn: int = 0
    last_speaker: int | None = None
    last_mentioned: frozenset[int] = frozenset()
    pending: list[Turn] = field(default_factory=list)
    group_id: int = 0
    group_actions: dict[int, dict[str, Any]] = field(default_factory=dict)
    night: NightChoices = field(default_factory=NightChoices)
    last_protected: dict[int, int | None] = field(default_factory=dict)
    seer_results: dict[int, list[tuple[int, int, str]]] = field(default_factory=dict)  # seer -> (round, target, result)
    protect_history: dict[int, list[tuple[int, int | None]]] = field(default_factory=dict)
    night_deaths: list[tuple[int, int | None]] = field(default_factory=list)  # (round, the pack's victim or None)
    potions: dict[int, set[str]] = field(default_factory=dict)  # witch -> potions left ("heal", "poison")
    heal_history: dict[int, list[tuple[int, int]]] = field(default_factory=dict)  # witch -> (round, healed)
    poison_history: dict[int, list[tuple[int, int]]] = field(default_factory=dict)  # witch -> (round, poisoned)
    attacks_seen: dict[int, list[tuple[int, int | None]]] = field(default_factory=dict)  # witch -> (round, victim)
    shooters: list[int] = field(default_factory=list)  # dead hunters who still shoot, in order of death
    shots: list[tuple[int, int, int | None]] = field(default_factory=list)  # (round, hunter, shot or None)
    rollout: bool = False  # a counterfactual rollout's fork: no debate, the vote follows the night
    # Collect nodes that stop ``graph.advance`` even when they ask nobody (``paused`` set): the parallel env
    # steps the witch's nodes every night, so that the night's length never shows whether she lives or
    # which potions she has left. The AEC env, which steps acting seats only, leaves it empty.
    pause_when_empty: frozenset[str] = frozenset()
    paused: bool = False
    exiles: list[tuple[int, int | None]] = field(default_factory=list)  # (round, exiled or None)
    revealed: dict[int, Role] = field(default_factory=dict)
    suspicion: np.ndarray = field(default_factory=lambda: np.zeros((0, 0)))
    notes: list[list[tuple[int, str, str]]] = field(default_factory=list)  # seat -> (round, phase, text)
    statements: list[Statement] = field(default_factory=list)
    current_statement: int | None = None
    vote_history: list[dict[str, Any]] = field(default_factory=list)
    # (statement id, its living subjects but the speaker): ``analysis_subjects``'s memo for the current statement.
    subjects_memo: tuple[int, tuple[int, ...]] = (-1, ())
    # Listener -> the control subject its peer analysis of the current statement also scores (one living player
    # the statement does not mention; ``config.control_subject_probability``): drawn by ``rules_day``.
    control_subjects: dict[int, int] = field(default_factory=dict)
    poll_moment: str | None = None  # the vote poll being taken: "day_start", "statement" or "debate"
    winner: Team | None = None
    truncated: bool = False
    over: bool = False
    events: list[Event] = field(default_factory=list)
    turns_taken: int = 0
    suspicion_version: int = 0  # bumped on every suspicion update (observation caches key on it)
    # Bumped whenever a night or a vote is resolved: deaths, seer results, protections, revealed
    # roles and the vote record change only then (observation caches key on it).
    facts_version: int = 0
    _living: list[int] | None = None
    knowledge_cache: dict[int, tuple[tuple[int, ...], tuple[int, ...]]] = field(default_factory=dict)  # see visibility
    legal_cache: dict[int, list[int]] = field(default_factory=dict)  # seat -> legal targets in group legal_group
    legal_group: int = -1
    # (statements read, seat -> role claimed in public so far): ``rules_day._public_role_claims``'s memo.
    role_claims_read: tuple[int, dict[int, str]] = field(default_factory=lambda: (0, {}))
    # The config's role tables, read on every turn (``GameConfig.seat_counts`` and ``acts`` as plain values).
    counts_in_role_order: tuple[int, ...] = field(init=False, repr=False)
    kinds_in_game: frozenset[ActionKind] = field(init=False, repr=False)
    roles_in_game: tuple[Role, ...] = field(init=False, repr=False)  # in role order

    def __post_init__(self) -> None:
        counts = self.config.seat_counts()
        self.counts_in_role_order = tuple(counts.values())
        self.roles_in_game = tuple(role for role, count in counts.items() if count)
        self.kinds_in_game = self.config.kinds_in_game()

    @property
    def num_players(self) -> int:
        return len(self.roles)

    def living(self) -> list[int]:
        """Living seats in seat order (cached: deaths go through ``kill``; do not mutate the list)."""
        if self._living is None:
            self._living = [p for p, up in enumerate(self.alive) if up]
        return self._living

    def kill(self, seat: int) -> None:
        self.alive[seat] = False
        self._living = None

    def analysis_subjects(self, listener: int) -> list[int]:
        """Whom a peer analysis of the current statement also scores (``config.subject_suspicion``): the living
        players its claims are about, in seat order, but its speaker (scored anyway) and the listener, and the
        listener's control subject if it was drawn one (``control_subjects``)."""
        if not self.config.subject_suspicion or self.current_statement is None:
            return []
        said, about = self.subjects_memo
        if said != self.current_statement:  # asked four times per listener (info, text, parse, score): read once
            statement = self.statements[self.current_statement]
            players = {claim["player"] for claim in statement.claims}
            players.discard(statement.speaker)
            about = tuple(sorted(p for p in players if self.alive[p]))
            self.subjects_memo = (self.current_statement, about)
        control = self.control_subjects.get(listener)
        if control is None:
            return [p for p in about if p != listener]
        # In seat order among the others: nothing tells the listener which one it is.
        return sorted(p for p in (*about, control) if p != listener)

    def living_with_role(self, role: Role) -> list[int]:
        return [p for p, up in enumerate(self.alive) if up and self.roles[p] is role]

    def team_of(self, seat: int) -> Team:
        return self.config.ruleset.specs[self.roles[seat]].team

    def emit(self, type_: str, actor: int | None, audience: Audience, **data: Any) -> Event:
        event = Event(len(self.events), self.round, self.phase, type_, actor, audience, data)
        self.events.append(event)
        return event
