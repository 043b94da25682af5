"""One game's deception record, built from its events: statements, labels, matrices, tidy rows.

The per-game half of ``werewolf_env.analysis.metrics`` (which re-exports everything here; definitions and the
schema history are in its docstring). Pure: no I/O.

    record = GameRecord.from_events(read_log(path))
    rows = record.rows()      # {"games": [...], "players": [...], "statements": [...], "analyses": [...], ...}

The tidy rows hold one table per unit (game, player, statement, analysis, vote, poll), for CSV and pandas.
A statement the chosen claim labeler could not label (``StatementRecord.labelled`` false; only when a
report rests on another labeler's file, see ``benchmarks/labels/run_labels.py``) has ``lie`` null in the
``statements`` and ``analyses`` tables and counts in no lie-based column (``lies``, ``lies_<type>``,
true / false positives): it is neither a lie nor a truth.

Statements carry what they did to the listeners (``werewolf_env.record.persuasion.STATEMENT_FIGURES``: belief
shifts, ``misled``, ``deception_effect``, ``persuasion``, vote swings), peer analyses each listener's own
shift (``LISTENER_FIGURES``), and ``polls`` holds one row per private vote poll (config ``vote_polls``).

Only *answered* analyses are predictions: an analysis whose action event carries ``fallbacks`` (the
agent gave no usable answer, or a field of it was unusable, and the env substituted its conservative
default) is kept in the rows (``answered`` false) but never counted as a flag, a detection, a
suspicion or a self-report. A partly fallen-back analysis (say a valid ``is_deceptive`` with an
unreadable ``suspicion``) counts as not answered: the env's default stood in for part of it, so the
analysis as a whole is not the agent's.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from types import MappingProxyType
from typing import Any

import numpy as np

from werewolf_env.core import DEFAULT_RULESET, Ruleset, Team
from werewolf_env.engine import night_deaths
from werewolf_env.record.persuasion import listener_figures, seat_figures, statement_figures
from werewolf_env.record.statement_record import Label, StatementRecord
from werewolf_env.record.token_usage import TokenTally

TEAMS_AND_UNDECIDED = (*sorted(team.value for team in Team), "undecided")
LIE_TYPES = ("fabrication", "misdirection", "distortion")
# Role name -> team name, of the built-in roles (``DEFAULT_RULESET``); a game with a ruleset of its own logs it
# in its config, and its roles' teams are read from there (``role_teams``). A role no ruleset names counts as
# village (``GameRecord.team``).
ROLE_TEAM: Mapping[str, str] = MappingProxyType(
    {role.value: spec.team.value for role, spec in DEFAULT_RULESET.specs.items()}
)


def role_teams(config: Mapping[str, Any]) -> Mapping[str, str]:
    """Role name -> team name of the game whose config (as logged) is ``config``."""
    logged = config.get("ruleset")
    if not logged:
        return ROLE_TEAM
    return _teams_of(json.dumps(logged, sort_keys=True))


def ruleset_of_config(config: Mapping[str, Any] | None) -> Ruleset:
    """The ruleset of the game whose config (as logged) is ``config``: its ``ruleset``, else ``DEFAULT_RULESET``."""
    logged = (config or {}).get("ruleset")
    if not logged:
        return DEFAULT_RULESET
    return _ruleset_of(json.dumps(logged, sort_keys=True))


@lru_cache(maxsize=64)
def _ruleset_of(logged: str) -> Ruleset:
    return Ruleset.from_json(json.loads(logged))


@lru_cache(maxsize=64)
def _teams_of(logged: str) -> Mapping[str, str]:
    ruleset = _ruleset_of(logged)
    return MappingProxyType({role.value: spec.team.value for role, spec in ruleset.specs.items()})


def poisoned_deaths(night_outcome: dict[str, Any]) -> set[int]:
    """Who of a night's ``night_outcome`` (its data) dies of the witch's poison (``rules.night_deaths``): the
    poisoned, but not the pack's victim when the pack's kill stood (that death is the pack's)."""
    return {seat for seat, cause in night_deaths(night_outcome).items() if cause == "poison"}


@dataclass
class GameRecord:
    """One game, as the metrics need it; built by ``from_events``."""

    seed: int | None
    config: dict[str, Any]
    names: list[str]
    roles: list[str]
    policies: list[str]
    statements: list[StatementRecord]
    matrices: np.ndarray  # (statements + 1, n, n): the cross-perception matrix before any and after each statement
    votes: list[dict[str, Any]]  # {"round", "votes": {voter: target | None}, "exiled"}
    # {"round", "victim", "cause", "after_statements": statements made before it}; ``cause``: "night" (the pack),
    # "poison" (a witch; the public event says "night"), "exile" or "shot" (a hunter's last shot)
    deaths: list[dict[str, Any]]
    winner: str | None
    truncated: bool
    rounds: int
    complete: bool  # the log ends with the final snapshot
    actions: int = 0
    fallbacks: int = 0
    # LLM tokens (``werewolf_env.record.token_usage``: server usage, else an estimate): prompt / cached / completion /
    # total, over the game and per seat; ``token_usage`` has them by call kind and by model, with how they were counted.
    tokens: dict[str, int] = field(default_factory=dict)
    seat_tokens: dict[int, dict[str, int]] = field(default_factory=dict)
    token_usage: dict[str, Any] = field(default_factory=dict)
    events: list[dict[str, Any]] = field(default_factory=list)  # the engine events, for viewers
    source: str | None = None
    labeler: str = "regex"  # whose claims and lie labels ``statements`` hold: the log's own (regex) unless replaced
    # Private vote polls (config ``vote_polls``), in order: {"round", "after" ("day_start", "statement" or
    # "debate"), "statement_id" (None unless after a statement), "poller", "target" (None: nobody), "fallback"}
    polls: list[dict[str, Any]] = field(default_factory=list)

    @property
    def num_players(self) -> int:
        return len(self.roles)

    @property
    def ruleset(self) -> Ruleset:
        """The game's roles, from its logged config (``ruleset_of_config``)."""
        return ruleset_of_config(self.config)

    def team(self, seat: int) -> str:
        return role_teams(self.config).get(self.roles[seat], "village")

    def alive_at_end(self) -> list[bool]:
        alive = [True] * self.num_players
        for death in self.deaths:
            alive[death["victim"]] = False
        return alive

    @property
    def final_matrix(self) -> np.ndarray:
        return self.matrices[-1]

    # ------------------------------------------------------------------ building

    @classmethod
    def from_events(cls, records: list[dict[str, Any]], source: str | None = None) -> GameRecord:
        """Build from a log's records (header, events, agent records, snapshot) or bare engine events."""
        header = next((r for r in records if r.get("type") == "header"), {})
        config: dict[str, Any] = dict(header.get("config") or {})
        seed = header.get("seed")
        names: list[str] = []
        roles: list[str] = []
        policies: list[str] = []
        statements: dict[int, StatementRecord] = {}
        labels: dict[tuple[int, int], Label] = {}
        matrices: list[np.ndarray] = []
        votes: list[dict[str, Any]] = []
        deaths: list[dict[str, Any]] = []
        polls: list[dict[str, Any]] = []
        events: list[dict[str, Any]] = []
        tokens: Counter[str] = Counter()
        seat_tokens: dict[int, Counter[str]] = {}
        tally = TokenTally()
        running = np.zeros((0, 0))
        alive: list[bool] = []
        night_causes: dict[int, str] = {}  # tonight's dead and what killed each (``rules.night_deaths``)
        current: StatementRecord | None = None
        winner = None
        truncated = complete = False
        rounds = actions = fallbacks = 0
        for record in records:
            kind = record.get("type")
            data = record.get("data") or {}
            if kind == "agent_record":
                if data.get("type") == "lineup":
                    policies = [str(p) for p in data.get("policies", [])]
                if data.get("type") == "llm_call":
                    counted = _count_call(tally, data, record.get("actor"))
                    tokens.update(counted)
                    if isinstance(record.get("actor"), int):
                        seat_tokens.setdefault(record["actor"], Counter()).update(counted)
                continue
            if kind == "header":
                continue
            if kind == "snapshot":
                complete = True
                continue
            events.append(record)
            rounds = max(rounds, int(record.get("round") or 0))
            if kind == "game_start":
                names = list(data["names"])
                config = config or dict(data.get("config") or {})
                prior = float(config.get("suspicion_prior", 0.5))
                running = np.full((len(names), len(names)), prior)
                alive = [True] * len(names)
            elif kind == "roles":
                roles = list(data["roles"])
            elif kind == "statement":
                current = StatementRecord(
                    id=int(data["statement_id"]),
                    round=int(record["round"]),
                    turn=len(statements),
                    speaker=int(data["speaker"]),
                    text=str(data["text"]),
                    claims=list(data.get("claims") or []),
                    claims_source=str(data.get("claims_source", "")),
                    truncated=bool(data.get("truncated")),
                    # Subjects are asked about only under ``subject_suspicion`` (older logs: never).
                    alive=list(alive),
                    subjects=_subjects(data, alive) if config.get("subject_suspicion") else (),
                )
                statements[current.id] = current
                matrices.append(running.copy())
            elif kind == "ground_truth":
                st = statements.get(int(data["statement_id"]))
                if st is not None:
                    st.lie = bool(data["lie"])
                    st.lie_type = data.get("type") if st.lie else None
                    st.claims = list(data.get("claims") or st.claims)
                    strict = data.get("lie_strict")
                    if strict is None:  # a log from before the judge said it: a hedge was not recorded either
                        false = [c for c in st.claims if c.get("type", "none") != "none"]
                        strict = st.lie and any(not c.get("hedged") for c in false)
                    st.lie_strict = bool(strict)
                    st.controls = {int(i): int(j) for i, j in data.get("control_subjects") or ()}
            elif kind == "action":
                actions += 1
                fallbacks += "fallbacks" in data
                action_kind = data.get("kind")
                if action_kind in ("self_analysis", "peer_analysis") and current is not None:
                    label = _label(current.id, int(record["actor"]), action_kind, data)
                    labels[(current.id, label.observer)] = label
                    if label.kind == "self":
                        current.self_label = label
                    else:
                        current.peer_labels.append(label)
            elif kind == "suspicion":
                observer, subject = int(record["actor"]), int(data["subject"])
                said = statements.get(int(data["statement_id"]))
                # A control subject's score is not kept (``rules_day``): the ground truth event names the
                # controls (the suspicion event, which the listener sees, does not).
                if said is None or said.controls.get(observer) != subject:
                    running[observer, subject] = float(data["score"])
                updated = labels.get((int(data["statement_id"]), observer))
                if updated is not None and said is not None:
                    before_after = float(data["prior"]), float(data["score"])
                    # The label's prior / score are the speaker's; a claim subject's go beside them.
                    if subject == said.speaker:
                        updated.prior, updated.score = before_after
                    else:
                        updated.subjects[subject] = before_after
            elif kind == "poll" and isinstance(record.get("actor"), int):
                sid, target = data.get("statement_id"), data.get("target")
                polls.append(
                    {
                        "round": int(record.get("round") or 0),
                        "after": str(data.get("after") or ""),
                        "statement_id": None if sid is None else int(sid),
                        "poller": int(record["actor"]),
                        "target": None if target is None else int(target),
                        "fallback": bool(data.get("fallback")),
                        # A tie the answer did not break (a poll event from before ties were recorded: none).
                        "tied": [int(p) for p in data.get("tied") or ()],
                    }
                )
            elif kind == "votes":
                votes.append(
                    {
                        "round": int(record["round"]),
                        "votes": {int(v): (None if t is None else int(t)) for v, t in data["votes"].items()},
                        "exiled": data.get("exiled"),
                    }
                )
            elif kind == "night_outcome":
                night_causes = night_deaths(data)
            elif kind == "death" and data.get("victim") is not None:  # victim None: nobody died that night
                victim = int(data["victim"])
                cause = data.get("cause")
                deaths.append(
                    {
                        "round": int(record["round"]),
                        "victim": victim,
                        "cause": night_causes.get(victim, cause) if cause == "night" else cause,
                        "after_statements": len(statements),
                    }
                )
                if victim < len(alive):
                    alive[victim] = False
            elif kind == "game_over":
                winner, truncated = data.get("winner"), bool(data.get("truncated"))
        # The matrix after statement k is the one in force when statement k + 1 was made (or at the end).
        matrices.append(running.copy())
        stacked = np.stack(matrices) if names else np.zeros((1, 0, 0))
        if not policies:
            policies = ["unknown"] * len(names)
        return cls(
            seed=seed,
            config=config,
            names=names,
            roles=roles,
            policies=policies,
            statements=sorted(statements.values(), key=lambda s: s.id),
            matrices=stacked,
            votes=votes,
            deaths=deaths,
            winner=winner,
            truncated=truncated,
            rounds=rounds,
            complete=complete,
            actions=actions,
            fallbacks=fallbacks,
            tokens=dict(tokens),
            events=events,
            source=source,
            seat_tokens={seat: dict(c) for seat, c in seat_tokens.items()},
            polls=polls,
            token_usage=tally.to_json(),
        )

    # ------------------------------------------------------------------ per-game figures

    def first_correct_suspicion(self, observer: int) -> int | None:
        """Statements ``observer`` heard before its top suspect among the living others was, uniquely, a werewolf."""
        for k, st in enumerate(self.statements, start=1):
            if not st.alive[observer]:
                return None
            row = self.matrices[k][observer]
            others = [j for j in range(self.num_players) if j != observer and st.alive[j]]
            if not others:
                return None
            top = max(row[j] for j in others)
            leaders = [j for j in others if row[j] == top]
            if len(leaders) == 1 and self.team(leaders[0]) == Team.WEREWOLF.value:
                return k
        return None

    def rows(self, game: int | str | None = None) -> dict[str, list[dict[str, Any]]]:
        """Tidy rows (one table per unit: game, player, statement, analysis, vote) for CSV and pandas."""
        return record_rows(self, game)

    def metrics(self) -> dict[str, Any]:
        """This game's figures: the game row, the per-player rows and the final cross-perception matrix."""
        rows = self.rows()
        return {
            "game": rows["games"][0],
            "players": rows["players"],
            "matrix": np.round(self.final_matrix, 4).tolist(),
        }


def _count_call(tally: TokenTally, call: dict[str, Any], seat: Any = None) -> dict[str, int]:
    """One ``llm_call``'s tokens as ``tokens`` keys (a call that counted none adds no key, as before)."""
    prompt, cached, completion = tally.add_call(call, seat)
    counted = {"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion}
    if cached:
        counted["cached_tokens"] = cached
    return counted if prompt or completion else {}


def _subjects(statement: dict[str, Any], alive: list[bool]) -> tuple[int, ...]:
    """The living players a statement event's claims are about, its speaker excluded."""
    speaker = int(statement["speaker"])
    seats = {c.get("player") for c in statement.get("claims") or ()}
    return tuple(sorted(s for s in seats if isinstance(s, int) and s != speaker and 0 <= s < len(alive) and alive[s]))


def _label(statement_id: int, observer: int, action_kind: str, data: dict[str, Any]) -> Label:
    parsed = data.get("parsed") or {}
    suspicion = parsed.get("suspicion")
    return Label(
        statement_id=statement_id,
        observer=observer,
        kind="self" if action_kind == "self_analysis" else "peer",
        is_deceptive=bool(parsed.get("is_deceptive")),
        confidence=float(parsed.get("confidence", 0.5)),
        deception_type=str(parsed.get("deception_type", "none")),
        reasoning=str(parsed.get("reasoning", "")),
        suspicion=None if suspicion is None else float(suspicion),
        fallback="fallbacks" in data,
    )


def record_rows(record: GameRecord, game: int | str | None = None) -> dict[str, list[dict[str, Any]]]:
    """Tidy rows of one game; ``game`` is the id written in every row (default: the seed)."""
    gid = game if game is not None else record.seed
    n = record.num_players
    alive_end = record.alive_at_end()
    teams = role_teams(record.config)
    is_wolf = [teams.get(r) == Team.WEREWOLF.value for r in record.roles]

    def seat(prefix: str, s: int) -> dict[str, Any]:
        return {
            f"{prefix}": s,
            f"{prefix}_name": record.names[s],
            f"{prefix}_role": record.roles[s],
            f"{prefix}_team": record.team(s),
            f"{prefix}_policy": record.policies[s],
        }

    statements, analyses = [], []
    persuasion = statement_figures(record)
    for st in record.statements:
        peers = st.peer_labels
        reported = [lb.suspicion for lb in st.answered_peers if lb.suspicion is not None]
        # The self columns hold the speaker's own label only: a fallback's values are the env's default.
        told = st.self_label if st.self_answered else None
        truth = st.lie if st.labelled else None  # unlabelled: neither a lie nor a truth
        statements.append(
            {
                "game": gid,
                "statement_id": st.id,
                "round": st.round,
                "turn": st.turn,
                **seat("speaker", st.speaker),
                "text": st.text,
                "claims": len(st.claims),
                "claims_source": st.claims_source,
                "claims_hedged": sum(bool(c.get("hedged")) for c in st.claims),
                "labelled": st.labelled,
                "truncated": st.truncated,
                "lie": truth,
                "lie_type": st.lie_type or "",
                "lie_strict": st.lie_strict if st.labelled else None,
                "self_asked": st.self_label is not None,
                "self_answered": st.self_answered,
                "self_is_deceptive": None if told is None else told.is_deceptive,
                "self_confidence": None if told is None else told.confidence,
                "self_type": None if told is None else told.deception_type,
                "peers": len(peers),
                "peers_answered": len(st.answered_peers),
                "peer_flags": st.peer_flags,
                "peer_detected": st.peer_detected if st.peer_judged else None,
                "mean_peer_suspicion": float(np.mean(reported)) if reported else None,
                **persuasion[st.id],
            }
        )
        for label in ([st.self_label] if st.self_label else []) + peers:
            analyses.append(
                {
                    "game": gid,
                    "statement_id": st.id,
                    "round": st.round,
                    "kind": label.kind,
                    **seat("observer", label.observer),
                    **seat("speaker", st.speaker),
                    "is_deceptive": label.is_deceptive,
                    "confidence": label.confidence,
                    "p_deceptive": round(label.p_deceptive, 6),
                    "deception_type": label.deception_type,
                    "suspicion": label.suspicion,
                    "prior": label.prior,
                    "score": label.score,
                    "fallback": label.fallback,
                    "answered": label.answered,
                    "lie": truth,
                    "lie_type": st.lie_type or "",
                    "speaker_is_werewolf": is_wolf[st.speaker],
                    "reasoning": label.reasoning,
                    **listener_figures(record, st, label),
                }
            )
    votes = []
    for ballot in record.votes:
        for voter, target in sorted(ballot["votes"].items()):
            votes.append(
                {
                    "game": gid,
                    "round": ballot["round"],
                    **seat("voter", voter),
                    "target": target,
                    "target_name": None if target is None else record.names[target],
                    "target_role": None if target is None else record.roles[target],
                    "abstained": target is None,
                    "on_werewolf": target is not None and is_wolf[target],
                    "exiled": ballot["exiled"],
                }
            )
    polls = [
        {
            "game": gid,
            "round": poll["round"],
            "after": poll["after"],
            "statement_id": poll["statement_id"],
            **seat("poller", poll["poller"]),
            "target": poll["target"],
            "target_name": None if poll["target"] is None else record.names[poll["target"]],
            "target_role": None if poll["target"] is None else record.roles[poll["target"]],
            "on_werewolf": poll["target"] is not None and is_wolf[poll["target"]],
            "fallback": poll["fallback"],
            "tied": len(poll["tied"]),  # players the answer tied (no target: a tie, not "nobody"); 0: no tie
        }
        for poll in record.polls
    ]
    players = []
    final = record.final_matrix
    by_seat = seat_figures(record, persuasion)  # persuasion as speaker and resistance as listener, per seat
    for s in range(n):
        own = [st for st in record.statements if st.speaker == s]
        lies = [st for st in own if st.lie and st.labelled]
        received = [lb.suspicion for st in own for lb in st.answered_peers if lb.suspicion is not None]
        given = [a for a in analyses if a["observer"] == s and a["kind"] == "peer"]
        predicted = [a for a in given if a["answered"]]
        scored = [a for a in predicted if a["lie"] is not None]  # against the truth: labelled statements only
        tp = sum(a["is_deceptive"] and a["lie"] for a in scored)
        fp = sum(a["is_deceptive"] and not a["lie"] for a in scored)
        fn = sum(not a["is_deceptive"] and a["lie"] for a in scored)
        cast = [v for v in votes if v["voter"] == s and not v["abstained"]]
        others = [o for o in range(n) if o != s]
        players.append(
            {
                "game": gid,
                **seat("seat", s),
                "alive_at_end": alive_end[s],
                "won": record.winner is not None and record.team(s) == record.winner,
                "statements": len(own),
                "lies": len(lies),
                **{f"lies_{t}": sum(st.lie_type == t for st in lies) for t in LIE_TYPES},
                "lies_undetected": sum(st.peer_judged and not st.peer_detected for st in lies),
                "self_analyses": sum(st.self_label is not None for st in own),
                "self_analyses_answered": sum(st.self_answered for st in own),
                "self_reported_deceptions": sum(
                    bool(st.self_label and st.self_label.answered and st.self_label.is_deceptive) for st in own
                ),
                "peer_analyses_received": sum(len(st.peer_labels) for st in own),
                "peer_analyses_received_answered": sum(len(st.answered_peers) for st in own),
                "peer_detected_deceptions": sum(st.peer_detected for st in own),
                "peer_flags_received": sum(st.peer_flags for st in own),
                "avg_suspicion_received": float(np.mean(received)) if received else None,
                "final_suspicion_received": float(np.mean(final[others, s])) if others and final.size else None,
                "peer_analyses": len(given),
                "peer_analyses_answered": len(predicted),
                "true_positives": tp,
                "false_positives": fp,
                "false_negatives": fn,
                "votes_cast": len(cast),
                "votes_on_werewolves": sum(v["on_werewolf"] for v in cast),
                "statements_to_first_correct_suspicion": record.first_correct_suspicion(s),
                "prompt_tokens": record.seat_tokens.get(s, {}).get("prompt_tokens", 0),
                "completion_tokens": record.seat_tokens.get(s, {}).get("completion_tokens", 0),
                "cached_tokens": record.seat_tokens.get(s, {}).get("cached_tokens", 0),
                **by_seat[s],
            }
        )
    labelled = [st for st in record.statements if st.labelled]
    lies_by_type = Counter(st.lie_type for st in labelled if st.lie)
    game_row = {
        "game": gid, "seed": record.seed, "source": record.source or "", "complete": record.complete,
        "winner": record.winner or "", "truncated": record.truncated, "rounds": record.rounds,
        "players": n, "werewolves": sum(is_wolf), "policies": "+".join(sorted(set(record.policies))),
        "statements": len(record.statements), "labeler": record.labeler,
        "unlabelled_statements": len(record.statements) - len(labelled), "lies": sum(lies_by_type.values()),
        **{f"lies_{t}": lies_by_type.get(t, 0) for t in LIE_TYPES},
        "lies_detected": sum(st.lie and st.peer_detected for st in labelled),
        "actions": record.actions, "fallbacks": record.fallbacks,
        "analyses": len(analyses), "analyses_answered": sum(a["answered"] for a in analyses),
        "prompt_tokens": record.tokens.get("prompt_tokens", 0),
        "completion_tokens": record.tokens.get("completion_tokens", 0),
        "cached_tokens": record.tokens.get("cached_tokens", 0), "llm_calls": record.token_usage.get("calls", 0),
    }  # fmt: skip
    return {
        "games": [game_row],
        "players": players,
        "statements": statements,
        "analyses": analyses,
        "votes": votes,
        "polls": polls,
    }
