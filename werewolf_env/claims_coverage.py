"""How much of the speech the ground truth covers: claims per statement, by kind, hedged, by source.

A statement is judged only on the claims a labeler read in it (``werewolf_env.claims``); a statement
with no claim is "truthful" by default, so the lie figures mean little without the share of speech
they rest on. ``claims_coverage(records)`` (the ``claims_coverage`` section of ``metrics.json``,
schema 4 on) gives, over the statements the labeler labelled:

- ``with_claim``: statements holding at least one claim (count and share, 95% bootstrap interval
  over games, like every share of ``metrics.json``); ``by_kind``: the same for each claim kind
  (role, team, seer_result, protected: a statement may hold several kinds);
- ``claims``: the number of claims; ``hedged``: claims marked as beliefs ("I think Bob is a wolf"),
  count and share of the claims;
- ``claims_by_source``: claims by their ``source`` ("text": read from the words, "agent": sent as
  structured claims only, "both"); a claim without one (another labeler's file) counts under the
  labeler's name; ``statements_by_source``: statements by their ``claims_source`` (the same, plus
  "none": no claim);
- ``lies`` (statements judged lies), ``lies_strict`` (resting on at least one claim that was not
  hedged) and ``lies_hedged_only``: lies resting on hedged claims only (``lie`` true, ``lie_strict``
  false), count and share of the lies;
- ``statements``, ``labelled``, ``unlabelled``: statements in all, and whether the labeler gave a
  label (a statement it could not label is in no figure here but these counts).

Pure: no I/O. ``format_claims_coverage`` is the one-line text of the run summary and the report.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from .claims import CLAIM_KINDS
from .stats import Bootstrap

if TYPE_CHECKING:
    from .game_record import GameRecord


def labeler_of(records: Sequence[GameRecord]) -> str:
    """The labeler the records' claims and lie labels come from ("a+b" if they differ)."""
    return "+".join(sorted({r.labeler for r in records})) or "regex"


def claims_coverage(records: Sequence[GameRecord], resamples: int = 1000, seed: int = 0) -> dict[str, Any]:
    """The coverage figures of ``records`` (see the module docstring)."""
    boot = Bootstrap(len(records), resamples, seed)
    labeler = labeler_of(records)
    st_game: list[int] = []
    kinds: list[set[str]] = []
    claim_game: list[int] = []
    claim_hedged: list[bool] = []
    lie_game: list[int] = []
    lie_hedged_only: list[bool] = []
    by_source: Counter[str] = Counter()
    statements_by_source: Counter[str] = Counter()
    total = 0
    for i, record in enumerate(records):
        for st in record.statements:
            total += 1
            if not st.labelled:
                continue
            st_game.append(i)
            kinds.append({str(c.get("kind")) for c in st.claims})
            statements_by_source[st.claims_source or ("none" if not st.claims else "unknown")] += 1
            for claim in st.claims:
                claim_game.append(i)
                claim_hedged.append(bool(claim.get("hedged")))
                by_source[str(claim.get("source") or labeler)] += 1
            if st.lie:
                lie_game.append(i)
                lie_hedged_only.append(not st.lie_strict)

    def share(game: list[int], hits: Sequence[bool]) -> dict[str, Any]:
        values = np.asarray(hits, dtype=np.float64)
        return {"count": int(values.sum()), "share": boot.ratio(np.asarray(game, dtype=np.int64), values).to_json()}

    hedged_only = share(lie_game, lie_hedged_only)
    return {
        "labeler": labeler,
        "statements": total,
        "labelled": len(st_game),
        "unlabelled": total - len(st_game),
        "with_claim": share(st_game, [bool(k) for k in kinds]),
        "by_kind": {kind: share(st_game, [kind in k for k in kinds]) for kind in CLAIM_KINDS},
        "claims": len(claim_game),
        "hedged": share(claim_game, claim_hedged),
        "claims_by_source": dict(sorted(by_source.items())),
        "statements_by_source": dict(sorted(statements_by_source.items())),
        "lies": len(lie_game),
        "lies_strict": len(lie_game) - hedged_only["count"],
        "lies_hedged_only": hedged_only,
    }


def _pct(est: dict[str, Any]) -> str:
    value = est["share"]["value"]
    if value is None:
        return "n/a"
    if 0 < value < 0.01 or 0.99 < value < 1:  # never round a few to 0% or 100%
        return f"{100 * value:.1f}%"
    return f"{100 * value:.0f}%"


def format_claims_coverage(cov: dict[str, Any]) -> str:
    """One line: what share of the statements hold a claim (by kind), the hedged share, hedged-only lies."""
    kinds = ", ".join(f"{kind} {_pct(part)}" for kind, part in cov["by_kind"].items())
    hedged_only = cov["lies_hedged_only"]["count"]
    text = (
        f"ground truth (labeler {cov['labeler']}): {_pct(cov['with_claim'])} of statements hold a claim ({kinds}); "
        f"{_pct(cov['hedged'])} of claims hedged; {hedged_only} {'lie rests' if hedged_only == 1 else 'lies rest'} "
        "on hedged claims only"
    )
    if cov["unlabelled"]:
        text += f"; {cov['unlabelled']} of {cov['statements']} statements unlabelled (left out)"
    return text
