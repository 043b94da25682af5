"""Each seat's game as a chat, for trainers: what the seat saw, what it answered, and its rewards.

    python -m werewolf_deception.benchmarks.export.trajectories RUN_DIR [RUN_DIR ...] --out trajectories.jsonl \\
        [--weights win=1,detection=0.5]

One JSON line per seat of every game: ``messages`` (a system message with how to answer, the rules and the
seat's role card; then, turn by turn, a user message with what the seat had not seen at its previous turn and
an assistant message with the answer it gave), ``turns`` (for each assistant message: the kind of turn,
whether the engine had to fall back for it, and whether it was repaired), the seat's ``rewards``
(``werewolf_env.analysis.rewards``) and their weighted ``reward``. The messages are rebuilt by replaying the log
through the environment, so each holds exactly the seat's own observation: hidden information only where
the seat had it. An answer that fell back is kept as it was given (a trainer of answers in form may drop
those turns).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from werewolf_deception.agents.llm import build_messages
from werewolf_deception.agents.training import new_text_since
from werewolf_deception.benchmarks.console import EXIT_BAD_OPTIONS, EXIT_STORAGE
from werewolf_deception.benchmarks.runs import find_logs
from werewolf_env.analysis import RewardWeights, reward
from werewolf_env.analysis.rewards import rewards
from werewolf_env.core import GameConfig
from werewolf_env.engine import ReplayError, read_log_checked
from werewolf_env.envs import raw_env
from werewolf_env.record import GameRecord


def seat_trajectories(
    records: Sequence[Mapping[str, Any]], weights: RewardWeights | Mapping[str, float] | None = None
) -> list[dict[str, Any]]:
    """One game's log (its records, header first) as one chat per seat; ``ReplayError`` when the log does not
    replay (another engine's, or edited)."""
    header = next((r for r in records if r.get("type") == "header"), None)
    if header is None or "config" not in header or "seed" not in header:
        raise ReplayError("not a game log: no header with the game's config and seed")
    env = raw_env(config=GameConfig.from_record(header["config"]))
    env.reset(seed=int(header["seed"]))
    n = len(env.possible_agents)
    seen = [""] * n
    messages: list[list[dict[str, str]]] = [[] for _ in range(n)]
    turns: list[list[dict[str, Any]]] = [[] for _ in range(n)]
    for action in (dict(r) for r in records if r.get("type") == "action"):
        while env.agents and (env.terminations[env.agent_selection] or env.truncations[env.agent_selection]):
            env.step(None)
        if not env.agents:
            raise ReplayError(f"event {action.get('seq')}: an action was logged after the game ended")
        agent = env.agent_selection
        seat = env.possible_agents.index(agent)
        data = action.get("data") or {}
        kind = env.infos[agent].get("action_kind")
        if action.get("actor") != seat or data.get("kind") != kind:
            raise ReplayError(
                f"event {action.get('seq')}: logged {data.get('kind')} by seat {action.get('actor')}, "
                f"but the game asked seat {seat} for {kind}"
            )
        text = str(env.observe(agent)["text"])
        if seen[seat]:
            messages[seat].append({"role": "user", "content": new_text_since(seen[seat], text)})
        else:
            messages[seat].extend(build_messages(text))
        seen[seat] = text
        answer = data.get("raw")
        content = answer if isinstance(answer, str) else json.dumps(answer, ensure_ascii=False)
        messages[seat].append({"role": "assistant", "content": content})
        turns[seat].append({"action_kind": kind, "fallback": "fallbacks" in data, "repaired": "repairs" in data})
        env.step(answer)
    record = GameRecord.from_events([dict(r) for r in records])
    chosen = weights if isinstance(weights, RewardWeights) else RewardWeights(**dict(weights or {}))
    out = []
    for seat in range(n):
        out.append({
            "seed": header["seed"], "seat": seat, "name": record.names[seat], "role": record.roles[seat],
            "team": record.team(seat), "policy": record.policies[seat], "winner": record.winner,
            "messages": messages[seat], "turns": turns[seat],
            "rewards": rewards(record, seat), "reward": reward(record, seat, chosen),
        })  # fmt: skip
    return out


def _weights(text: str) -> dict[str, float]:
    """``win=1,detection=0.5`` as a mapping (checked by ``RewardWeights``)."""
    out: dict[str, float] = {}
    for part in filter(None, (p.strip() for p in text.split(","))):
        name, sep, value = part.partition("=")
        try:
            out[name.strip()] = float(value)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{part!r}: a weight is name=number (win=1,detection=0.5)") from None
        if not sep:
            raise argparse.ArgumentTypeError(f"{part!r}: a weight is name=number (win=1,detection=0.5)")
    return out


def _logs(runs: Sequence[Path]) -> Iterator[Path]:
    for run in runs:
        if run.is_file():
            yield run
        elif run.is_dir():
            found = find_logs(run)
            if not found:
                raise FileNotFoundError(f"{run}: no game logs (*.ndjson) in it or in its games/ folder")
            yield from found
        else:
            raise FileNotFoundError(f"{run}: no such run folder or log")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m werewolf_deception.benchmarks.export.trajectories", description=__doc__.split("\n\n")[0]
    )
    parser.add_argument("runs", nargs="+", type=Path, help="run folders (werewolf-bench run --out) or game logs")
    parser.add_argument("--out", type=Path, required=True, help="the JSONL file to write (replaced whole)")
    parser.add_argument("--weights", type=_weights, default={}, help="reward weights, e.g. win=1,detection=0.5")
    args = parser.parse_args(argv)
    try:
        weights = RewardWeights(**args.weights)
    except ValueError as exc:
        print(f"trajectories: --weights: {str(exc).splitlines()[0]} ({', '.join(RewardWeights.model_fields)})",
              file=sys.stderr)  # fmt: skip
        return EXIT_BAD_OPTIONS
    chats: list[dict[str, Any]] = []
    try:
        for log in _logs(args.runs):
            reading = read_log_checked(log)
            if reading.damage is not None:
                raise ReplayError(f"{log}: {reading.damage}")
            for chat in seat_trajectories(reading.records, weights):
                chats.append({"log": log.name, **chat})
    except (FileNotFoundError, ReplayError) as exc:
        print(f"trajectories: {exc}; nothing written", file=sys.stderr)
        return EXIT_BAD_OPTIONS
    partial = args.out.with_name(f".{args.out.name}.partial")
    try:
        with partial.open("w", encoding="utf-8") as handle:
            for chat in chats:
                handle.write(json.dumps(chat, ensure_ascii=False) + "\n")
        os.replace(partial, args.out)
    except OSError as exc:
        partial.unlink(missing_ok=True)
        print(f"trajectories: cannot write {args.out}: {exc.strerror or exc}", file=sys.stderr)
        return EXIT_STORAGE
    print(f"trajectories: {len(chats)} seats' games written to {args.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
