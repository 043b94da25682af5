"""Writes the tiny synthetic Peskov-format fixture (python tests/data/peskov2020_tiny/make_fixture.py).

Five games (1-4 in train.jsonl, 5 in validation.jsonl), three dialogs each; a lie (sender label false)
says "trust me" far more often than a truthful message. The files vary the format on purpose: string
labels, a missing sender label, "score_delta" instead of "game_score_delta", integer scores, a dialog
without seasons and years.
"""

import json
import random
from pathlib import Path

HERE = Path(__file__).parent
POWERS = ["england", "france", "germany"]
LIES = ["trust me, I will support you into {p}", "I promise I am not moving to {p}, trust me", "trust me on {p}"]
TRUTHS = ["what are your plans for {p}?", "I will move my fleet to {p}", "let us keep {p} neutral",
          "ok sounds good", "France seems quiet near {p}", "trust me, I will hold {p}"]  # fmt: skip
PLACES = ["Belgium", "Holland", "Munich", "Paris", "the channel"]


def dialog(rng: random.Random, game: int, pair: tuple[str, str], start: int, variant: int) -> dict:
    messages, labels, speakers, scores, deltas = [], [], [], [], []
    for k in range(24):
        speaker = pair[k % 2] if rng.random() < 0.8 else pair[(k + 1) % 2]
        lie = rng.random() < 0.15
        messages.append(rng.choice(LIES if lie else TRUTHS).format(p=rng.choice(PLACES)))
        labels.append(not lie)
        speakers.append(speaker)
        scores.append(str(3 + k // 8))
        deltas.append(str(rng.choice([-1, 0, 1, 2 if lie else 0])))
    receivers = [pair[1] if s == pair[0] else pair[0] for s in speakers]
    row = {
        "messages": messages, "sender_labels": labels, "receiver_labels": [True] * 24, "speakers": speakers,
        "receivers": receivers, "absolute_message_index": [start + 3 * k for k in range(24)],
        "relative_message_index": list(range(24)), "seasons": [("Spring", "Fall", "Winter")[k // 8] for k in range(24)],
        "years": ["1901"] * 24, "game_score": scores, "game_score_delta": deltas, "players": list(pair),
        "game_id": game,
    }  # fmt: skip
    if game == 2:  # labels as strings
        row["sender_labels"] = [str(x).lower() if k % 2 else str(x) for k, x in enumerate(labels)]
        row["receiver_labels"] = ["NOANNOTATION"] * 24
    if game == 3 and variant == 0:  # one missing sender label, integer scores
        row["sender_labels"][5] = "NOANNOTATION"
        row["game_score"] = [int(s) for s in scores]
    if game == 4:  # the original README's field name; a dialog without seasons and years
        row["score_delta"] = row.pop("game_score_delta")
        if variant == 1:
            del row["seasons"], row["years"]
    return row


def main() -> None:
    rng = random.Random(7)
    pairs = [("england", "france"), ("france", "germany"), ("england", "germany")]
    games = {g: [dialog(rng, g, pair, v, v) for v, pair in enumerate(pairs)] for g in range(1, 6)}
    for split, ids in (("train", [1, 2, 3, 4]), ("validation", [5])):
        lines = [json.dumps(d) for g in ids for d in games[g]]
        (HERE / f"{split}.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
