"""The hand-labelled statements of real speech that claim labelers are scored on
(``werewolf_deception.benchmarks.labels.evaluate``) and the learned stage is trained on
(``werewolf_deception.benchmarks.labels.train``): the dev sets, and each item's gold claims by seat.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from werewolf_deception.benchmarks.labels.corpus import DEFAULT_CORPUS, read_jsonl
from werewolf_env.core import seat_finder


def seat_of(item: dict[str, Any], name: Any) -> int | None:
    """The seat of a player's name in a labelled item (compared by ``name_key``), else None."""
    return seat_finder(item["players"])(name)


def gold_claims(item: dict[str, Any]) -> list[dict[str, Any]]:
    """The hand labels in seat form (claims about unknown players are dropped)."""
    out = []
    for claim in item.get("claims") or []:
        seat = seat_of(item, claim.get("player"))
        if seat is None:
            continue
        out.append(
            {**claim, "player": seat, "hedged": bool(claim.get("hedged")), "negated": bool(claim.get("negated"))}
        )
    return out


CORPUS_DEV_LABELS = Path(__file__).resolve().parent / "data" / "corpus_dev_claims.json"


def dev_sets(corpus: Path = DEFAULT_CORPUS) -> dict[str, list[dict[str, Any]]]:
    """The labelled sets of real speech: the corpus's dev sample, the project's random sample and the
    stratified sample of every source (``werewolf_deception.benchmarks.labels.strata``; only where the corpus has them).

    The corpus's dev items keep their text and metadata; their claims are the project's re-checked labels
    (``benchmarks/labels/data/corpus_dev_claims.json``, by ``docs/labeling.md``) where the project has them."""
    from werewolf_deception.benchmarks.labels import strata as claims_strata
    from werewolf_deception.benchmarks.labels.corpus import MORE_SOURCES, load_all_games, load_games
    from werewolf_deception.benchmarks.labels.sample import build, items_from_labels

    dev = list(read_jsonl(corpus / "dev_labeled.jsonl"))
    if CORPUS_DEV_LABELS.is_file():
        relabelled = json.loads(CORPUS_DEV_LABELS.read_text(encoding="utf-8"))
        dev = [
            {**item, "claims": relabelled[item["id"]]["claims"]} if item["id"] in relabelled else item for item in dev
        ]
    sets = {"corpus_dev": dev, "project_sample": build(load_games(corpus))}
    if (corpus / MORE_SOURCES).is_file():
        games = load_all_games(corpus)
        sets["stratified"] = items_from_labels(claims_strata.draw(games, corpus), claims_strata.LABELS)
    return sets
