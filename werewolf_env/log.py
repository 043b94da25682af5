"""NDJSON game logs and ``replay``.

One JSON object per line, flushed per line, in this order:

1. ``{"type": "header", "schema_version": 1, "package_version": ..., "seed": ..., "config": {...}}``
2. every engine event: ``{"seq", "round", "phase", "type", "actor", "audience", "data"}``
   (``audience`` is "all" or the list of seats that may see it; [] means engine-only ground truth)
   interleaved with policy records ``{"type": "agent_record", "seq": null, "actor", "data"}``
   (prompts, raw model output, token usage, latency: anything a policy attaches),
3. ``{"type": "snapshot", "data": {...}}``: the whole final state, when the game ended.

``replay(path)`` rebuilds the game from the logged actions and checks that it produces the same
events and ends in the same snapshot.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from . import __version__
from .config import GameConfig
from .engine import Game

SCHEMA_VERSION = 1
_ENGINE_SKIP = {"header", "snapshot", "agent_record"}


def dumps(obj: Any) -> str:
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":"), allow_nan=False, default=repr)


class EventLog:
    """Streams one game's events to an NDJSON file as they happen."""

    def __init__(self, path: str | Path, game: Game) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._file: IO[str] | None = self.path.open("w", encoding="utf-8")
        self._cursor = 0
        self.game = game
        state = game.state
        self._write(
            {
                "type": "header",
                "schema_version": SCHEMA_VERSION,
                "package_version": __version__,
                "seed": state.seed,
                "config": state.config.model_dump(mode="json"),
            }
        )
        self.flush_events()

    @property
    def closed(self) -> bool:
        return self._file is None

    def _write(self, obj: dict[str, Any]) -> None:
        if self._file is None:
            return
        self._file.write(dumps(obj) + "\n")
        self._file.flush()

    def flush_events(self) -> None:
        events = self.game.state.events
        for event in events[self._cursor :]:
            self._write(event.to_json())
        self._cursor = len(events)

    def record(self, actor: int | None, data: dict[str, Any]) -> None:
        """A policy's extra record; not part of the game's events, ignored by replay."""
        self.flush_events()
        state = self.game.state
        self._write(
            {
                "seq": None,
                "round": state.round,
                "phase": state.phase,
                "type": "agent_record",
                "actor": actor,
                "audience": [],
                "data": data,
            }
        )

    def close(self) -> None:
        if self._file is None:
            return
        self.flush_events()
        if self.game.over:
            self._write({"type": "snapshot", "data": self.game.snapshot()})
        self._file.close()
        self._file = None


def read_log(path: str | Path) -> list[dict[str, Any]]:
    """All records of a log; a half-written last line (a crash mid-write) is skipped."""
    records = []
    with Path(path).open(encoding="utf-8") as f:
        for line in f:
            line = line.strip()
            if not line:
                continue
            try:
                records.append(json.loads(line))
            except ValueError:
                break
    return records


@dataclass
class ReplayResult:
    ok: bool
    actions: int
    complete: bool  # the log ended with a snapshot (the game finished)
    mismatches: list[str] = field(default_factory=list)
    game: Game | None = None

    def __bool__(self) -> bool:
        return self.ok


def replay(path: str | Path, max_mismatches: int = 10) -> ReplayResult:
    """Re-run the logged actions from the logged config and seed; compare events and final snapshot."""
    records = read_log(path)
    if not records or records[0].get("type") != "header":
        return ReplayResult(False, 0, False, ["the log does not start with a header line"])
    header = records[0]
    if header.get("schema_version") != SCHEMA_VERSION:
        return ReplayResult(False, 0, False, [f"unsupported schema_version {header.get('schema_version')}"])
    config = GameConfig.model_validate(header["config"])
    logged = [r for r in records if r.get("type") not in _ENGINE_SKIP]
    snapshot = next((r["data"] for r in records if r.get("type") == "snapshot"), None)
    game = Game(config, int(header["seed"]))
    mismatches: list[str] = []
    actions = 0
    for record in logged:
        if record["type"] != "action":
            continue
        turn = game.current
        if turn is None:
            mismatches.append(f"event {record['seq']}: an action was logged after the game ended")
            break
        if turn.player != record["actor"] or turn.kind.value != record["data"]["kind"]:
            mismatches.append(
                f"event {record['seq']}: logged {record['data']['kind']} by seat {record['actor']}, "
                f"but the engine expected {turn.kind.value} by seat {turn.player}"
            )
            break
        game.act(record["data"]["raw"])
        actions += 1
    regenerated = [json.loads(dumps(e.to_json())) for e in game.state.events]
    for i, (want, got) in enumerate(zip(logged, regenerated, strict=False)):
        if want != got:
            mismatches.append(f"event {i} differs: logged {_brief(want)} / replayed {_brief(got)}")
            if len(mismatches) >= max_mismatches:
                break
    if len(logged) != len(regenerated):
        mismatches.append(f"the log has {len(logged)} engine events, the replay {len(regenerated)}")
    if snapshot is not None:
        replayed = json.loads(dumps(game.snapshot()))
        if replayed != snapshot:
            keys = sorted(k for k in set(snapshot) | set(replayed) if snapshot.get(k) != replayed.get(k))
            mismatches.append(f"final snapshot differs in: {', '.join(keys)}")
    return ReplayResult(not mismatches, actions, snapshot is not None, mismatches, game)


def _brief(record: dict[str, Any]) -> str:
    text = dumps(record)
    return text if len(text) < 200 else text[:197] + "..."
