"""How much of the speech the ground truth covers: claims per statement, by kind, hedged, by source.

A statement is judged only on the claims a labeler read in it (``werewolf_env.claims.model``); a statement
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

Pure: no I/O. ``claims_coverage_lines`` is the text of the run summary and the report (a few short lines;
``format_claims_coverage``: the same in one line). A claim kind about a night action (a seer result, a
protection, a poisoning) is shown only when some statement held one or a role of the game takes that
action (``shown_kinds``): a game without a witch says nothing of poisonings.
"""

from __future__ import annotations

from array import array
from collections import Counter
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

import numpy as np

from werewolf_env.analysis.stats import Bootstrap
from werewolf_env.claims import CLAIM_KINDS
from werewolf_env.core import ActionKind

if TYPE_CHECKING:
    from werewolf_env.record import GameRecord

# The night actions a claim kind reports on (the kinds not named are about any game: roles, teams). Which roles
# take them comes from the role table (``werewolf_env.core.roles``), so a game says "poisoned" only with a poisoner.
CLAIM_KIND_ACTIONS: dict[str, tuple[str, ...]] = {
    "seer_result": (ActionKind.UNMASK.value,),
    "protected": (ActionKind.PROTECT.value, ActionKind.HEAL.value),
    "poisoned": (ActionKind.POISON.value,),
}

# A labelled statement's claim kinds as bits (bit b: CLAIM_KINDS[b]), the top bit for "holds any claim".
_ANY = 1 << 15
assert len(CLAIM_KINDS) < 15


def labeler_of(records: Iterable[GameRecord]) -> str:
    """The labeler the records' claims and lie labels come from ("a+b" if they differ)."""
    return joined_labelers({r.labeler for r in records})


def joined_labelers(labelers: set[str]) -> str:
    return "+".join(sorted(labelers)) or "regex"


class ClaimsCoverage:
    """The coverage figures, fed one game at a time (``add``) and computed at the end (``result``): what a
    game leaves behind is a few numbers per statement and claim, never the game."""

    def __init__(self) -> None:
        self.games = 0
        self.labelers: set[str] = set()
        self.statements = 0
        # Per labelled statement: its game and a bit per claim kind it holds; per claim, per lie: game and flag.
        self.st_game = array("q")
        self.st_kinds = array("H")
        self.claim_game = array("q")
        self.claim_hedged = array("B")
        self.lie_game = array("q")
        self.lie_hedged_only = array("B")
        self.by_source: Counter[str] = Counter()
        self.statements_by_source: Counter[str] = Counter()

    def add(self, record: GameRecord) -> None:
        game = self.games
        self.games += 1
        self.labelers.add(record.labeler)
        for st in record.statements:
            self.statements += 1
            if not st.labelled:
                continue
            self.st_game.append(game)
            kinds = {str(c.get("kind")) for c in st.claims}
            bits = sum(1 << b for b, kind in enumerate(CLAIM_KINDS) if kind in kinds)
            self.st_kinds.append(bits | (_ANY if kinds else 0))
            self.statements_by_source[st.claims_source or ("none" if not st.claims else "unknown")] += 1
            for claim in st.claims:
                self.claim_game.append(game)
                self.claim_hedged.append(bool(claim.get("hedged")))
                self.by_source[str(claim.get("source") or record.labeler)] += 1
            if st.lie:
                self.lie_game.append(game)
                self.lie_hedged_only.append(not st.lie_strict)

    def result(self, resamples: int = 1000, seed: int = 0) -> dict[str, Any]:
        boot = Bootstrap(self.games, resamples, seed)
        kinds = np.frombuffer(self.st_kinds, dtype=np.uint16)
        st_game = np.frombuffer(self.st_game, dtype=np.int64)

        def share(game: np.ndarray, hits: np.ndarray) -> dict[str, Any]:
            values = hits.astype(np.float64)
            return {"count": int(values.sum()), "share": boot.ratio(game, values).to_json()}

        hedged_only = share(np.frombuffer(self.lie_game, dtype=np.int64), np.frombuffer(self.lie_hedged_only, np.uint8))
        labelled = len(self.st_game)
        return {
            "labeler": joined_labelers(self.labelers),
            "statements": self.statements,
            "labelled": labelled,
            "unlabelled": self.statements - labelled,
            "with_claim": share(st_game, kinds & _ANY > 0),
            "by_kind": {kind: share(st_game, kinds & (1 << b) > 0) for b, kind in enumerate(CLAIM_KINDS)},
            "claims": len(self.claim_game),
            "hedged": share(np.frombuffer(self.claim_game, dtype=np.int64), np.frombuffer(self.claim_hedged, np.uint8)),
            "claims_by_source": dict(sorted(self.by_source.items())),
            "statements_by_source": dict(sorted(self.statements_by_source.items())),
            "lies": len(self.lie_game),
            "lies_strict": len(self.lie_game) - hedged_only["count"],
            "lies_hedged_only": hedged_only,
        }


def claims_coverage(records: Iterable[GameRecord], resamples: int = 1000, seed: int = 0) -> dict[str, Any]:
    """The coverage figures of ``records`` (see the module docstring); a generator of records is read once."""
    coverage = ClaimsCoverage()
    for record in records:
        coverage.add(record)
    return coverage.result(resamples, seed)


def _pct(est: dict[str, Any]) -> str:
    value = est["share"]["value"]
    if value is None:
        return "n/a"
    if 0 < value < 0.01 or 0.99 < value < 1:  # never round a few to 0% or 100%
        return f"{100 * value:.1f}%"
    return f"{100 * value:.0f}%"


def shown_kinds(cov: dict[str, Any], action_kinds: Iterable[str] | None = None) -> list[str]:
    """The claim kinds worth a figure: those some statement held, those about any game (role, team), and
    those about a night action some role of the game takes (``action_kinds``: its action kinds' values,
    ``werewolf_env.analysis.role_figures.action_kinds_of``; None: unknown, so only kinds that were held)."""
    acting = set(action_kinds or ())
    return [
        kind
        for kind, part in cov["by_kind"].items()
        if part.get("count") or kind not in CLAIM_KIND_ACTIONS or acting & set(CLAIM_KIND_ACTIONS[kind])
    ]


def claims_coverage_lines(cov: dict[str, Any], action_kinds: Iterable[str] | None = None) -> list[str]:
    """The coverage as a few short lines (the first unindented, the others indented by two spaces): the share
    of statements holding a claim, by kind (``shown_kinds``), the hedged share and the hedged-only lies, and
    the statements left unlabelled."""
    kinds = ", ".join(f"{kind} {_pct(cov['by_kind'][kind])}" for kind in shown_kinds(cov, action_kinds))
    hedged_only = cov["lies_hedged_only"]["count"]
    lines = [f"ground truth (labeler {cov['labeler']}): {_pct(cov['with_claim'])} of statements hold a claim"]
    if kinds:
        lines.append(f"  by kind: {kinds}")
    lines.append(
        f"  hedged: {_pct(cov['hedged'])} of claims; {hedged_only} "
        f"{'lie rests' if hedged_only == 1 else 'lies rest'} on hedged claims only"
    )
    if cov["unlabelled"]:
        lines.append(f"  unlabelled (left out): {cov['unlabelled']} of {cov['statements']} statements")
    return lines


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
