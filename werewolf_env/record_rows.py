"""One game's tidy rows (one table per unit: game, player, statement, analysis, vote, poll), for CSV and pandas.

The table half of ``werewolf_env.game_record`` (``GameRecord.rows`` calls ``record_rows``). Pure: no I/O.

A statement the chosen claim labeler could not label (``StatementRecord.labelled`` false; only when a
report rests on another labeler's file, see ``benchmarks/claim_labels.py``) has ``lie`` null in the
``statements`` and ``analyses`` tables and counts in no lie-based column (``lies``, ``lies_<type>``,
true / false positives): it is neither a lie nor a truth.

Statements carry what they did to the listeners (``werewolf_env.persuasion.STATEMENT_FIGURES``: belief
shifts, ``misled``, ``deception_effect``, ``persuasion``, vote swings), peer analyses each listener's own
shift (``LISTENER_FIGURES``), and ``polls`` holds one row per private vote poll (config ``vote_polls``).
"""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING, Any

import numpy as np

from .persuasion import listener_figures, seat_figures, statement_figures
from .roles import Role, Team

if TYPE_CHECKING:
    from .game_record import GameRecord

LIE_TYPES = ("fabrication", "misdirection", "distortion")


def record_rows(record: GameRecord, game: int | str | None = None) -> dict[str, list[dict[str, Any]]]:
    """Tidy rows of one game; ``game`` is the id written in every row (default: the seed)."""
    gid = game if game is not None else record.seed
    n = record.num_players
    alive_end = record.alive_at_end()
    is_wolf = [r in Role and Role(r).team is Team.WEREWOLF for r in record.roles]

    def seat(prefix: str, s: int) -> dict[str, Any]:
        return {f"{prefix}": s, f"{prefix}_name": record.names[s], f"{prefix}_role": record.roles[s],
                f"{prefix}_team": record.team(s), f"{prefix}_policy": record.policies[s]}  # fmt: skip

    statements, analyses = [], []
    persuasion = statement_figures(record)
    for st in record.statements:
        peers = st.peer_labels
        reported = [lb.suspicion for lb in st.answered_peers if lb.suspicion is not None]
        # The self columns hold the speaker's own label only: a fallback's values are the env's default.
        told = st.self_label if st.self_answered else None
        truth = st.lie if st.labelled else None  # unlabelled: neither a lie nor a truth
        statements.append({
            "game": gid, "statement_id": st.id, "round": st.round, "turn": st.turn, **seat("speaker", st.speaker),
            "text": st.text, "claims": len(st.claims), "claims_source": st.claims_source,
            "claims_hedged": sum(bool(c.get("hedged")) for c in st.claims), "labelled": st.labelled,
            "truncated": st.truncated, "lie": truth, "lie_type": st.lie_type or "",
            "lie_strict": st.lie_strict if st.labelled else None,
            "self_asked": st.self_label is not None, "self_answered": st.self_answered,
            "self_is_deceptive": None if told is None else told.is_deceptive,
            "self_confidence": None if told is None else told.confidence,
            "self_type": None if told is None else told.deception_type,
            "peers": len(peers), "peers_answered": len(st.answered_peers), "peer_flags": st.peer_flags,
            "peer_detected": st.peer_detected if st.peer_judged else None,
            "mean_peer_suspicion": float(np.mean(reported)) if reported else None,
            **persuasion[st.id],
        })  # fmt: skip
        for label in ([st.self_label] if st.self_label else []) + peers:
            analyses.append({
                "game": gid, "statement_id": st.id, "round": st.round, "kind": label.kind,
                **seat("observer", label.observer), **seat("speaker", st.speaker),
                "is_deceptive": label.is_deceptive, "confidence": label.confidence,
                "p_deceptive": round(label.p_deceptive, 6), "deception_type": label.deception_type,
                "suspicion": label.suspicion, "prior": label.prior, "score": label.score,
                "fallback": label.fallback, "answered": label.answered, "lie": truth,
                "lie_type": st.lie_type or "", "speaker_is_werewolf": is_wolf[st.speaker],
                "reasoning": label.reasoning, **listener_figures(record, st, label),
            })  # fmt: skip
    votes = []
    for ballot in record.votes:
        for voter, target in sorted(ballot["votes"].items()):
            votes.append({
                "game": gid, "round": ballot["round"], **seat("voter", voter),
                "target": target, "target_name": None if target is None else record.names[target],
                "target_role": None if target is None else record.roles[target],
                "abstained": target is None, "on_werewolf": target is not None and is_wolf[target],
                "exiled": ballot["exiled"],
            })  # fmt: skip
    polls = [{
        "game": gid, "round": poll["round"], "after": poll["after"], "statement_id": poll["statement_id"],
        **seat("poller", poll["poller"]), "target": poll["target"],
        "target_name": None if poll["target"] is None else record.names[poll["target"]],
        "target_role": None if poll["target"] is None else record.roles[poll["target"]],
        "on_werewolf": poll["target"] is not None and is_wolf[poll["target"]], "fallback": poll["fallback"],
        "tied": len(poll["tied"]),  # players the answer tied (no target: a tie, not "nobody"); 0: no tie
    } for poll in record.polls]  # fmt: skip
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
        players.append({
            "game": gid, **seat("seat", s), "alive_at_end": alive_end[s],
            "won": record.winner is not None and record.team(s) == record.winner,
            "statements": len(own), "lies": len(lies),
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
            "peer_analyses": len(given), "peer_analyses_answered": len(predicted),
            "true_positives": tp, "false_positives": fp, "false_negatives": fn,
            "votes_cast": len(cast), "votes_on_werewolves": sum(v["on_werewolf"] for v in cast),
            "statements_to_first_correct_suspicion": record.first_correct_suspicion(s),
            "prompt_tokens": record.seat_tokens.get(s, {}).get("prompt_tokens", 0),
            "completion_tokens": record.seat_tokens.get(s, {}).get("completion_tokens", 0),
            "cached_tokens": record.seat_tokens.get(s, {}).get("cached_tokens", 0),
            **by_seat[s],
        })  # fmt: skip
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
    return {"games": [game_row], "players": players, "statements": statements, "analyses": analyses, "votes": votes,
            "polls": polls}  # fmt: skip

