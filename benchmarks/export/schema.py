"""The two tables of ``werewolf-bench export`` (``statements``, ``games``): their columns, and a game's rows.

Every column is declared once in ``STATEMENT_COLUMNS`` / ``GAME_COLUMNS`` as (name, type, meaning): the
Parquet schema (``arrow_schema``), the row builder's keys (``game_rows`` checks them) and the dataset
card's feature tables are all made from these lists, so they cannot drift apart.

Hidden information carries the prefix ``hidden_`` (``HIDDEN_PREFIX``), and only it: anything a player at
the table did not see: roles and teams, the ground truth (lie labels, the truth of each claim), every
self and peer analysis, suspicion scores, who played each seat (a lineup may give each role or team its
own policy, so a seat's policy can tell its team) and whether a seat's answer was replaced by a fallback.
Dropping every ``hidden_`` column leaves the game as the players followed it (names, public speech and
the claims read from it, the outcome) plus run metadata (opaque ids, public config, token and fallback
totals). The seed is hidden (``hidden_seed``): with the config it determines the deal (the engine is
deterministic), and so is the log's name, which holds it.

Pure: no I/O, no pyarrow at import time (``arrow_schema`` imports it when asked).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable
from typing import Any

from werewolf_env.analysis import STATEMENT_FIGURES, GameRecord, Label, statement_figures
from werewolf_env.record import SEAT_FIGURES, seat_figures

HIDDEN_PREFIX = "hidden_"

# Type names: scalars, "list<T>" of scalars, and the structs below.
CLAIM_FIELDS: tuple[tuple[str, str, str], ...] = (
    ("kind", "string", "what is claimed: role, team, seer_result, protected, ..."),
    ("player", "int32", "the seat the claim is about"),
    ("role", "string", "the role claimed (null for a team claim)"),
    ("team", "string", "the team claimed (null for a role claim)"),
    ("negated", "bool", 'the claim denies it ("Bob is not the seer")'),
    ("hedged", "bool", 'said as a belief ("I think ...")'),
)
TRUTH_CLAIM_FIELDS: tuple[tuple[str, str, str], ...] = (
    *CLAIM_FIELDS,
    # Whether the agent sent the claim tells policies apart, and a lineup may give each team its own policy.
    ("source", "string", "who read it: text (the claim reader), agent (the agent's structured claims) or both"),
    ("true", "bool", "the claim holds in the game's true state"),
    ("known_false", "bool", "the speaker knew it to be false when saying it"),
    ("type", "string", "the lie type the claim makes: fabrication, misdirection, distortion or none"),
)
ANALYSIS_FIELDS: tuple[tuple[str, str, str], ...] = (
    ("observer_seat", "int32", "the seat that answered"),
    ("observer_name", "string", "its player name"),
    ("observer_role", "string", "its role"),
    ("observer_team", "string", "its team"),
    (
        "observer_policy",
        "string",
        "the policy that played it (lineup label, e.g. heuristic, llm:<model>; human: "
        "a person, in werewolf-bench serve or play)",
    ),
    ("is_deceptive", "bool", "flagged the statement as deceptive"),
    ("confidence", "float64", "stated probability (0-1) that the statement is deceptive"),
    ("deception_type", "string", "fabrication, misdirection, distortion or none"),
    ("suspicion", "float64", "the reported suspicion of the speaker (0-1; null if not asked)"),
    ("prior", "float64", "the observer's suspicion score of the speaker before this statement"),
    ("score", "float64", "... and after it"),
    ("fallback", "bool", "the env replaced (part of) the answer with its default: not the agent's prediction"),
    ("reasoning", "string", "the free-text reason given"),
)
STRUCTS: dict[str, tuple[tuple[str, str, str], ...]] = {
    "claim": CLAIM_FIELDS, "truth_claim": TRUTH_CLAIM_FIELDS, "analysis": ANALYSIS_FIELDS,
}  # fmt: skip

Column = tuple[str, str, str]  # name, type, meaning

STATEMENT_COLUMNS: tuple[Column, ...] = (
    ("run_id", "string", "the run folder's name (made unique among the exported runs)"),
    ("game_id", "string", "run_id/<12 hex digits>: unique over the export, opaque; joins the games table"),
    ("round", "int32", "the day the statement was made in (1 = the first)"),
    ("phase", "string", "the phase it was made in (debate)"),
    ("statement_id", "int32", "the statement's id in its game (0, 1, ...)"),
    ("turn", "int32", "its position among the game's statements"),
    ("speaker_seat", "int32", "the speaker's seat (0-based)"),
    ("speaker_name", "string", "the speaker's player name"),
    ("text", "string", "what was said"),
    ("claims", "list<claim>", "the claims read from the statement (what every player could read)"),
    ("truncated", "bool", "the text was cut to the word limit"),
    ("hidden_seed", "int64", "HIDDEN: the game's seed (with the config it determines the deal)"),
    ("hidden_claims_source", "string", "HIDDEN: where the claims come from: text, agent, both or none (whether "
     "the agent sent structured claims tells policies, and so maybe teams, apart)"),
    ("hidden_speaker_role", "string", "HIDDEN: the speaker's true role"),
    ("hidden_speaker_team", "string", "HIDDEN: the speaker's true team (village or werewolf)"),
    ("hidden_speaker_policy", "string", "HIDDEN: who played the speaker (lineup label: heuristic, random, "
     "llm:<model>, the lineup's name, or human: a person)"),
    ("hidden_speaker_model", "string", "HIDDEN: the speaker's LLM model (null for model-free policies)"),
    ("hidden_statement_fallback", "bool", "HIDDEN: the env replaced part of the speaker's answer with its default "
     "(e.g. dropped a malformed claim); an answer with no usable text is a pass, not a statement, and has no row"),
    ("hidden_lie", "bool", "HIDDEN: ground truth: the statement is a lie (rests on a claim the speaker knew false)"),
    ("hidden_lie_type", "string", "HIDDEN: fabrication, misdirection, distortion, or none when not a lie"),
    ("hidden_lie_strict", "bool", "HIDDEN: a lie resting on a known-false claim that was not hedged"),
    ("hidden_claims", "list<truth_claim>", "HIDDEN: the claims with their ground-truth labels"),
    ("hidden_self_asked", "bool", "HIDDEN: the speaker was asked to analyse its own statement"),
    ("hidden_self_is_deceptive", "bool", "HIDDEN: the speaker's self-analysis: deceptive? (null if not asked)"),
    ("hidden_self_confidence", "float64", "HIDDEN: its stated probability that it deceived (0-1)"),
    ("hidden_self_type", "string", "HIDDEN: the deception type it named"),
    ("hidden_self_reasoning", "string", "HIDDEN: its reason"),
    ("hidden_self_fallback", "bool", "HIDDEN: the self-analysis is (partly) the env's default, not the agent's"),
    ("hidden_peer_analyses", "list<analysis>", "HIDDEN: every other living player's analysis of the statement"),
    ("hidden_peers_answered", "int32", "HIDDEN: peer analyses that are the agents' own (no fallback)"),
    ("hidden_mean_peer_suspicion", "float64", "HIDDEN: mean reported suspicion over the answered peer analyses "
     "(null if none)"),
    # What the statement did to the listeners' private suspicions and vote polls (README, "Persuasion").
    *((f"{HIDDEN_PREFIX}{name}", kind, f"HIDDEN: {meaning}") for name, kind, meaning in STATEMENT_FIGURES),
)  # fmt: skip

GAME_COLUMNS: tuple[Column, ...] = (
    ("run_id", "string", "the run folder's name (made unique among the exported runs)"),
    ("game_id", "string", "run_id/<12 hex digits>: unique over the export, opaque; joins the statements table"),
    ("package_version", "string", "the werewolf-deception version that played the game"),
    ("config", "string", "the public game config as JSON (hand-dealt roles left out)"),
    ("num_players", "int32", "seats"),
    ("names", "list<string>", "player names, by seat"),
    ("lineup", "string", "the policies that played, sorted and joined by + (no seat named)"),
    ("winner", "string", "village, werewolf, or null when the game ended undecided"),
    ("rounds", "int32", "rounds played"),
    ("truncated", "bool", "ended undecided at the round limit"),
    ("statements", "int32", "public statements (rows of the statements table)"),
    ("actions", "int32", "actions taken (all kinds)"),
    ("fallbacks", "int32", "actions the env replaced with its fallback (an unusable answer)"),
    ("prompt_tokens", "int64", "LLM prompt tokens over the game (0 without LLM seats)"),
    ("completion_tokens", "int64", "LLM completion tokens over the game"),
    ("cached_tokens", "int64", "LLM prompt tokens the server served from its prompt cache (0 when it reports none)"),
    ("hidden_seed", "int64", "HIDDEN: the game's seed (with the config it determines the deal)"),
    ("hidden_log", "string", "HIDDEN: the game's log file in its run folder (its name holds the seed)"),
    ("hidden_roles", "list<string>", "HIDDEN: each seat's role"),
    ("hidden_teams", "list<string>", "HIDDEN: each seat's team"),
    ("hidden_seat_policies", "list<string>", "HIDDEN: who played each seat (lineup labels)"),
    ("hidden_seat_models", "list<string>", "HIDDEN: each seat's LLM model (null for model-free policies)"),
    ("hidden_seat_prompt_tokens", "list<int64>", "HIDDEN: prompt tokens per seat"),
    ("hidden_seat_completion_tokens", "list<int64>", "HIDDEN: completion tokens per seat"),
    ("hidden_seat_fallbacks", "list<int32>", "HIDDEN: fallback actions per seat"),
    ("hidden_lies", "int32", "HIDDEN: statements labelled lies"),
    ("hidden_config", "string", "HIDDEN: the full config as JSON (hand-dealt roles included)"),
    # Persuasion per seat (README, "Persuasion"): players.csv's columns of the same names.
    *((f"{HIDDEN_PREFIX}seat_{name}", f"list<{kind}>", f"HIDDEN: per seat, {meaning}") for name, kind, meaning in
      SEAT_FIGURES),
)  # fmt: skip

TABLES: dict[str, tuple[Column, ...]] = {"statements": STATEMENT_COLUMNS, "games": GAME_COLUMNS}


def arrow_type(pa: Any, name: str) -> Any:
    """The pyarrow type of a type name (``pa`` is the pyarrow module)."""
    scalars = {"string": pa.string(), "int32": pa.int32(), "int64": pa.int64(), "float64": pa.float64(),
               "bool": pa.bool_()}  # fmt: skip
    if name in scalars:
        return scalars[name]
    if name in STRUCTS:
        return pa.struct([pa.field(field, arrow_type(pa, kind)) for field, kind, _ in STRUCTS[name]])
    if name.startswith("list<") and name.endswith(">"):
        return pa.list_(arrow_type(pa, name[5:-1]))
    raise ValueError(f"unknown column type {name!r}")


def arrow_schema(pa: Any, table: str) -> Any:
    return pa.schema([pa.field(name, arrow_type(pa, kind)) for name, kind, _ in TABLES[table]])


def _claim(claim: dict[str, Any], fields: Iterable[tuple[str, str, str]]) -> dict[str, Any]:
    return {name: claim.get(name) for name, _, _ in fields}


def _model_of(policy: str) -> str | None:
    """The model in a lineup label ``llm:<model>``; None for a model-free label."""
    return policy.split(":", 1)[1] if policy.startswith("llm:") else None


def game_id_of(run_id: str, name: str) -> str:
    """The game's id in the export: opaque, since its log's name holds the seed (which, with the config,
    determines the deal)."""
    return f"{run_id}/{hashlib.sha256(name.encode()).hexdigest()[:12]}"


def game_rows(
    run_id: str, name: str, raw: list[dict[str, Any]], record: GameRecord
) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """One finished game's statement rows and its game row, from its log's records and their ``GameRecord``."""
    game_id = game_id_of(run_id, name)
    n = record.num_players
    models: dict[int, str] = {}  # the model each LLM seat called (the lineup label may be a custom name)
    seat_fallbacks = [0] * n
    spoken: dict[int, tuple[str, bool]] = {}  # statement id -> (phase it was said in, a fallback?)
    said: tuple[str, bool] | None = None
    for rec in raw:
        kind, data = rec.get("type"), rec.get("data") or {}
        actor = rec.get("actor")
        if kind == "agent_record" and data.get("type") == "llm_call" and isinstance(actor, int):
            models.setdefault(actor, str(data.get("model")))
        elif kind == "action":
            if "fallbacks" in data and isinstance(actor, int) and 0 <= actor < n:
                seat_fallbacks[actor] += 1
            if data.get("kind") == "statement":
                said = (str(rec.get("phase") or ""), "fallbacks" in data)
        elif kind == "statement":
            spoken[int(data["statement_id"])] = said or (str(rec.get("phase") or ""), False)
            said = None
    publics = {int(e["data"]["statement_id"]): e["data"] for e in record.events if e.get("type") == "statement"}
    policies = list(record.policies) + ["unknown"] * (n - len(record.policies))
    seat_models = [models.get(s) or _model_of(policies[s]) for s in range(n)]

    def peer(label: Label) -> dict[str, Any]:
        s = label.observer
        return {
            "observer_seat": s,
            "observer_name": record.names[s],
            "observer_role": record.roles[s],
            "observer_team": record.team(s),
            "observer_policy": policies[s],
            "is_deceptive": label.is_deceptive,
            "confidence": label.confidence,
            "deception_type": label.deception_type,
            "suspicion": label.suspicion,
            "prior": label.prior,
            "score": label.score,
            "fallback": label.fallback,
            "reasoning": label.reasoning,
        }

    rows = []
    persuasion = statement_figures(record)
    by_seat = seat_figures(record, persuasion)
    for st in record.statements:
        public = publics.get(st.id, {})
        phase, fallback = spoken.get(st.id, ("", False))
        told = st.self_label
        reported = [lb.suspicion for lb in st.answered_peers if lb.suspicion is not None]
        rows.append(
            {
                "run_id": run_id,
                "game_id": game_id,
                "round": st.round,
                "phase": phase,
                "statement_id": st.id,
                "turn": st.turn,
                "speaker_seat": st.speaker,
                "speaker_name": record.names[st.speaker],
                "text": st.text,
                "claims": [_claim(c, CLAIM_FIELDS) for c in public.get("claims") or []],
                "truncated": st.truncated,
                "hidden_seed": record.seed,
                "hidden_claims_source": st.claims_source,
                "hidden_speaker_role": record.roles[st.speaker],
                "hidden_speaker_team": record.team(st.speaker),
                "hidden_speaker_policy": policies[st.speaker],
                "hidden_speaker_model": seat_models[st.speaker],
                "hidden_statement_fallback": fallback,
                "hidden_lie": st.lie,
                "hidden_lie_type": st.lie_type or "none",
                "hidden_lie_strict": st.lie_strict,
                "hidden_claims": [_claim(c, TRUTH_CLAIM_FIELDS) for c in st.claims],
                "hidden_self_asked": told is not None,
                "hidden_self_is_deceptive": None if told is None else told.is_deceptive,
                "hidden_self_confidence": None if told is None else told.confidence,
                "hidden_self_type": None if told is None else told.deception_type,
                "hidden_self_reasoning": None if told is None else told.reasoning,
                "hidden_self_fallback": None if told is None else told.fallback,
                "hidden_peer_analyses": [peer(label) for label in st.peer_labels],
                "hidden_peers_answered": len(st.answered_peers),
                "hidden_mean_peer_suspicion": sum(reported) / len(reported) if reported else None,
                **{f"{HIDDEN_PREFIX}{name}": value for name, value in persuasion[st.id].items()},
            }
        )
    config = dict(record.config)
    public_config = {**config, "roles": None} if "roles" in config else config
    header = next((r for r in raw if r.get("type") == "header"), {})
    game = {
        "run_id": run_id, "game_id": game_id,
        "package_version": header.get("package_version"), "config": json.dumps(public_config, sort_keys=True),
        "num_players": n, "names": list(record.names), "lineup": "+".join(sorted(set(policies))),
        "winner": record.winner or None, "rounds": record.rounds, "truncated": record.truncated,
        "statements": len(record.statements), "actions": record.actions, "fallbacks": record.fallbacks,
        "prompt_tokens": record.tokens.get("prompt_tokens", 0),
        "completion_tokens": record.tokens.get("completion_tokens", 0),
        "cached_tokens": record.tokens.get("cached_tokens", 0),
        "hidden_seed": record.seed, "hidden_log": name,
        "hidden_roles": list(record.roles), "hidden_teams": [record.team(s) for s in range(n)],
        "hidden_seat_policies": policies, "hidden_seat_models": seat_models,
        "hidden_seat_prompt_tokens": [record.seat_tokens.get(s, {}).get("prompt_tokens", 0) for s in range(n)],
        "hidden_seat_completion_tokens": [record.seat_tokens.get(s, {}).get("completion_tokens", 0)
                                          for s in range(n)],
        "hidden_seat_fallbacks": seat_fallbacks, "hidden_lies": sum(st.lie for st in record.statements),
        "hidden_config": json.dumps(config, sort_keys=True),
        **{f"{HIDDEN_PREFIX}seat_{name}": [seat[name] for seat in by_seat] for name, _, _ in SEAT_FIGURES},
    }  # fmt: skip
    for table, made in (("statements", rows[:1]), ("games", [game])):
        want = [name for name, _, _ in TABLES[table]]
        for row in made:
            if list(row) != want:
                raise AssertionError(f"{table} row keys {list(row)} are not its declared columns {want}")
    return rows, game
