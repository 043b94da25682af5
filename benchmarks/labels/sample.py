"""Draw the project's labelled sample of real LLM speech, and merge its hand labels.

The shared corpus (``../shared/data/llm_werewolf_transcripts``) comes with 150 hand-labelled
statements (``dev_labeled.jsonl``, drawn with seed 0). This script draws more public statements at
random from the same games (seed 2026, never one of those 150), and builds labelled items from the
hand labels kept in ``benchmarks/labels/data/transcript_claims.json`` (item id -> claims, optional note).
The labels file holds no statement text: two sources of the corpus state no licence, so the text is
read from the corpus at run time.

    # items with game context, to label
    python -m werewolf_deception.benchmarks.labels.sample worksheet [--start K --stop M]
    # labelled items (LABELING.md schema)
    python -m werewolf_deception.benchmarks.labels.sample build OUT.jsonl
"""

from __future__ import annotations

import argparse
import contextlib
import json
import random
import sys
from pathlib import Path
from typing import Any

from werewolf_deception.benchmarks.labels.corpus import DEFAULT_CORPUS, item_id, load_games, public_reveals

SAMPLE_SIZE, SEED = 260, 2026
DEV_SIZE, DEV_SEED = 150, 0  # the corpus's own dev sample (dev_sample.py)
LABELS = Path(__file__).resolve().parent / "data" / "transcript_claims.json"


def speech_pool(games: list[dict[str, Any]]) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    return [(g, e) for g in games for e in g["events"] if e["kind"] == "speech"]


def draw(games: list[dict[str, Any]]) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    """The project's sample: SAMPLE_SIZE statements at random, none of the corpus's dev sample."""
    pool = speech_pool(games)
    dev = set(random.Random(DEV_SEED).sample(range(len(pool)), DEV_SIZE))
    rest = [k for k in range(len(pool)) if k not in dev]
    picks = random.Random(SEED).sample(rest, SAMPLE_SIZE)
    return [pool[k] for k in sorted(picks)]


def worksheet(g: dict[str, Any], e: dict[str, Any], before: int = 12, clip: int | None = None) -> str:
    """One item to label: the hidden state the speaker knew, the ``before`` earlier public lines (each cut
    to ``clip`` characters when set), and the statement itself, whole."""
    speaker = e["speaker"]
    original = g.get("original_roles", g["roles"])
    lines = [f"### {item_id(g, e)}   source {g['source']}   day {e['day']}   speaker {speaker} = "
             f"{original[speaker]} (mapped: {g['roles'][speaker]})"]  # fmt: skip
    lines.append("roles: " + ", ".join(f"{p}={original[p]}" for p in g["players"]))
    if g["roles"][speaker] == "werewolf":
        pack = [p for p in g["players"] if g["roles"][p] == "werewolf"]
        lines.append("werewolf pack (the speaker knows it): " + ", ".join(pack))
    night = [n for n in g["night"] if n["actor"] == speaker and n["night"] <= e["day"]]
    if night:
        lines.append("speaker's night actions: " + "; ".join(map(_night_action, night)))
    reveals = public_reveals(g, e["i"])
    if reveals:
        lines.append("roles revealed publicly so far: " + ", ".join(f"{p}={r}" for p, r in reveals.items()))
    earlier = [x for x in g["events"][: e["i"]] if x["kind"] in ("speech", "announcement")][-before:]
    for x in earlier:
        text = x["text"] if clip is None or len(x["text"]) <= clip else x["text"][:clip] + " [...]"
        lines.append(f"   [{x['i']} d{x['day']}] {x['speaker']}: {text}")
    lines.append(f">>> [{e['i']}] {speaker}: {e['text']}")
    return "\n".join(lines)


def _night_action(n: dict[str, Any]) -> str:
    text = f"N{n['night']} {n['action']} {n['target']}"
    if n["action"] == "check":
        text += f" -> {n.get('result_role') or n.get('original_result') or n.get('result')}"
    return text


def build(games: list[dict[str, Any]], labels_path: Path = LABELS) -> list[dict[str, Any]]:
    """Labelled items (the schema of LABELING.md plus game_id / event_i / day / source)."""
    return items_from_labels(draw(games), labels_path)


def items_from_labels(drawn: list[tuple[dict[str, Any], dict[str, Any]]], labels_path: Path) -> list[dict[str, Any]]:
    """The drawn statements that ``labels_path`` labels, as items (text read from the corpus, never stored)."""
    labels = json.loads(labels_path.read_text(encoding="utf-8")) if labels_path.is_file() else {}
    items = []
    for g, e in drawn:
        iid = item_id(g, e)
        if iid not in labels:
            continue  # not labelled (yet)
        label = labels[iid]
        item: dict[str, Any] = {
            "id": iid, "game_id": g["game_id"], "event_i": e["i"], "day": e["day"], "source": g["source"],
            "speaker": e["speaker"], "speaker_role": g["roles"][e["speaker"]],
            "players": g["players"], "roles": g["roles"], "text": e["text"],
            "claims": [
                {k: c.get(k) for k in ("kind", "player", "role", "team", "negated", "hedged", "lie")}
                for c in label["claims"]
            ],
        }  # fmt: skip
        if "original_roles" in g:
            item["original_roles"] = g["original_roles"]
            item["speaker_original_role"] = g["original_roles"][e["speaker"]]
        if label.get("note"):
            item["note"] = label["note"]
        items.append(item)
    return items


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m werewolf_deception.benchmarks.labels.sample", description=__doc__.split("\n\n")[0]
    )
    parser.add_argument("command", choices=("worksheet", "build"))
    parser.add_argument("out", nargs="?", help="build: the JSONL to write")
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    parser.add_argument("--start", type=int, default=0)
    parser.add_argument("--stop", type=int, default=SAMPLE_SIZE)
    args = parser.parse_args(argv)
    games = load_games(args.corpus)
    if args.command == "worksheet":
        for g, e in draw(games)[args.start : args.stop]:
            print(worksheet(g, e))
            print()
        return 0
    write_items(build(games), args.out)
    return 0


def write_items(items: list[dict[str, Any]], out: str | None) -> None:
    """Labelled items as JSONL, to the file ``out`` (stdout without one), and their count on stderr."""
    with open(out, "w", encoding="utf-8") if out else contextlib.nullcontext(sys.stdout) as stream:
        for item in items:
            stream.write(json.dumps(item, ensure_ascii=False) + "\n")
    print(f"{len(items)} labelled items", file=sys.stderr)


if __name__ == "__main__":
    raise SystemExit(main())
