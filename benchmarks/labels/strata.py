"""The stratified labelled sample of real LLM speech: every source of the corpus, new speech well represented.

The corpus (``../shared/data/llm_werewolf_transcripts``) has eight sources: five in ``games.jsonl`` and
three in ``more_sources/games_more.jsonl`` (long, analytical speech by recent frontier models). The
earlier samples (the corpus's 150 dev statements, the project's 260 of ``werewolf_deception.benchmarks.labels.sample``)
came from the first five alone. This draw tops every source up to its quota (``QUOTAS``: at least 150,
or every statement a small source has), at random within each source (seed 2027), never an item of
the earlier samples, so that the three samples together hold at least 1,500 labelled statements.

The labels (item id -> claims, optional note; ``docs/labeling.md``) are kept in
``benchmarks/labels/data/transcript_claims_strata.json`` without any statement text: two sources state no
licence, so the text is read from the corpus at run time.

    # per source: pool, earlier, drawn
    python -m werewolf_deception.benchmarks.labels.strata plan
    # items with game context, to label
    python -m werewolf_deception.benchmarks.labels.strata worksheet --chunk 3 --of 8
    # a labels file's ids, players and values
    python -m werewolf_deception.benchmarks.labels.strata check LABELS.json
    # the two annotations of 300 items compared
    python -m werewolf_deception.benchmarks.labels.strata agreement
    # labelled items (LABELING.md schema)
    python -m werewolf_deception.benchmarks.labels.strata build OUT.jsonl
"""

from __future__ import annotations

import argparse
import json
import random
import zlib
from collections import Counter
from pathlib import Path
from typing import Any

from werewolf_deception.benchmarks.labels import sample as claims_sample
from werewolf_deception.benchmarks.labels.corpus import DEFAULT_CORPUS, item_id, load_all_games, load_games
from werewolf_env.claims import claim_key

SEED = 2027
LABELS = Path(__file__).resolve().parent / "data" / "transcript_claims_strata.json"
# A second, independent annotation of 300 of these items (stratified by source), for annotator agreement.
SECOND = Path(__file__).resolve().parent / "data" / "transcript_claims_strata_second.json"
# Labelled statements wanted per source, counting the earlier samples' (a source with fewer has them all).
QUOTAS = {
    "aiwolfdial/aiwolf-nlp-viewer": 150,
    "Queue-Bit-1/wolf": 150,
    "bastoscostadavi/llm-mafia-game": 150,
    "MrinalA2009/WOLF-Werewolf-based-Observations-for-LLM-Deception-and-Falsehoods": 150,
    "giteliot/werewolf_llm": 150,
    "aramo2000/LLM-Mafia-Game": 320,
    "nitrimandylis/LLM-Mafia": 320,
    "Durafen/8-AI-Play-Mafia": 250,
}


def earlier_ids(corpus: Path = DEFAULT_CORPUS) -> set[str]:
    """Item ids of the earlier samples (drawn from ``games.jsonl``): the corpus's dev sample and the project's."""
    first = load_games(corpus)
    pool = claims_sample.speech_pool(first)
    dev = random.Random(claims_sample.DEV_SEED).sample(range(len(pool)), claims_sample.DEV_SIZE)
    ids = {item_id(*pool[k]) for k in dev}
    ids.update(item_id(g, e) for g, e in claims_sample.draw(first))
    return ids


def draw(games: list[dict[str, Any]], corpus: Path = DEFAULT_CORPUS) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    """This sample: per source, its quota less the earlier samples' items, at random; in corpus order."""
    earlier = earlier_ids(corpus)
    by_source: dict[str, list[tuple[dict[str, Any], dict[str, Any]]]] = {}
    for g, e in claims_sample.speech_pool(games):
        by_source.setdefault(g["source"], []).append((g, e))
    picks: list[tuple[dict[str, Any], dict[str, Any]]] = []
    for source, pool in by_source.items():
        had = sum(item_id(g, e) in earlier for g, e in pool)
        fresh = [(g, e) for g, e in pool if item_id(g, e) not in earlier]
        wanted = min(len(fresh), max(0, QUOTAS.get(source, 150) - had))
        rng = random.Random(SEED + zlib.crc32(source.encode()))  # one stream per source: quotas stay independent
        chosen = sorted(rng.sample(range(len(fresh)), wanted))
        picks.extend(fresh[k] for k in chosen)
    order = {id(e): n for n, (_, e) in enumerate(claims_sample.speech_pool(games))}
    return sorted(picks, key=lambda ge: order[id(ge[1])])


def chunk(items: list[Any], k: int, of: int) -> list[Any]:
    """The k-th of ``of`` interleaved chunks (every source spread over every chunk)."""
    return items[k::of]


def plan(games: list[dict[str, Any]], corpus: Path = DEFAULT_CORPUS) -> dict[str, dict[str, int]]:
    earlier = earlier_ids(corpus)
    pool = Counter(g["source"] for g, _ in claims_sample.speech_pool(games))
    had = Counter(g["source"] for g, e in claims_sample.speech_pool(games) if item_id(g, e) in earlier)
    drawn = Counter(g["source"] for g, _ in draw(games, corpus))
    return {s: {"statements": pool[s], "earlier": had[s], "drawn": drawn[s], "total": had[s] + drawn[s]} for s in pool}


KINDS = {"role": "role", "team": "team", "seer_result": "team", "protected": None}  # kind -> its value field
ROLES = {"werewolf", "seer", "doctor", "villager"}
TEAMS = {"werewolf", "village"}


def problems(labels: dict[str, Any], games: list[dict[str, Any]], corpus: Path = DEFAULT_CORPUS) -> list[str]:
    """What is wrong with a labels file for this sample: unknown ids, players, kinds, values or flags."""
    drawn = {item_id(g, e): (g, e) for g, e in draw(games, corpus)}
    found = []
    for iid, label in labels.items():
        if iid not in drawn:
            found.append(f"{iid}: not an item of this sample")
            continue
        game, _ = drawn[iid]
        if not isinstance(label, dict) or not isinstance(label.get("claims"), list):
            found.append(f'{iid}: a label is {{"claims": [...], "note": optional}}')
            continue
        for claim in label["claims"]:
            kind = claim.get("kind")
            where = f"{iid}: {claim}"
            if kind not in KINDS:
                found.append(f"{where}: kind must be one of {sorted(KINDS)}")
            elif claim.get("player") not in game["players"]:
                found.append(f"{where}: player must be one of {game['players']}")
            elif kind == "role" and claim.get("role") not in ROLES:
                found.append(f"{where}: a role claim needs role in {sorted(ROLES)}")
            elif kind in ("team", "seer_result") and claim.get("team") not in TEAMS:
                found.append(f"{where}: a {kind} claim needs team in {sorted(TEAMS)}")
            elif not all(isinstance(claim.get(flag), bool) for flag in ("negated", "hedged", "lie")):
                found.append(f"{where}: negated, hedged and lie must be true or false")
    return found


def annotator_agreement(first: dict[str, Any], second: dict[str, Any]) -> dict[str, Any]:
    """How far two annotations of the same items agree: claim-level precision / recall / F1 (the first as
    reference, claims matched by ``claim_key``), Cohen's kappa on "this statement holds a lie", overall and
    per source; and the items on which they differ (for settling)."""
    from werewolf_deception.benchmarks.labels.agreement import agreement

    shared = sorted(set(first) & set(second))
    by_source: dict[str, list[str]] = {}
    for iid in shared:
        by_source.setdefault(iid.split("-", 1)[0], []).append(iid)

    def compare(ids: list[str]) -> dict[str, Any]:
        def claims(labels: dict[str, Any]) -> list[list[dict[str, Any]]]:
            return [labels[i]["claims"] for i in ids]

        def lies(labels: dict[str, Any]) -> list[bool | None]:
            return [any(c["lie"] for c in labels[i]["claims"]) for i in ids]

        return agreement(claims(first), lies(first), claims(second), lies(second), names=("second", "first"))

    differ = [
        i for i in shared if {claim_key(c) for c in first[i]["claims"]} != {claim_key(c) for c in second[i]["claims"]}
    ]
    return {
        "items": len(shared),
        "all": compare(shared),
        "by_source": {prefix: compare(ids) for prefix, ids in sorted(by_source.items())},
        "items_that_differ": len(differ),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m werewolf_deception.benchmarks.labels.strata", description=__doc__.split("\n\n")[0]
    )
    parser.add_argument("command", choices=("plan", "worksheet", "check", "agreement", "build"))
    parser.add_argument("out", nargs="?", help="build: the JSONL to write (default stdout); check: a labels file")
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    parser.add_argument("--chunk", type=int, default=0, help="worksheet: which chunk (0-based)")
    parser.add_argument("--of", type=int, default=1, help="worksheet: how many chunks")
    args = parser.parse_args(argv)
    games = load_all_games(args.corpus)
    if args.command == "plan":
        print(json.dumps(plan(games, args.corpus), indent=2))
        return 0
    if args.command == "agreement":
        first, second = (json.loads(p.read_text(encoding="utf-8")) for p in (LABELS, SECOND))
        print(json.dumps(annotator_agreement(first, second), indent=2))
        return 0
    if args.command == "check":
        found = problems(json.loads(Path(args.out or LABELS).read_text(encoding="utf-8")), games, args.corpus)
        print("\n".join(found) or "ok")
        return 1 if found else 0
    if args.command == "worksheet":
        for g, e in chunk(draw(games, args.corpus), args.chunk, args.of):
            print(claims_sample.worksheet(g, e, before=8, clip=400))
            print()
        return 0
    claims_sample.write_items(claims_sample.items_from_labels(draw(games, args.corpus), LABELS), args.out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
