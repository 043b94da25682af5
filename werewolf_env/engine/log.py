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
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from werewolf_env.core import GameConfig, TooDeepError, loads_bounded, package_version, without_new_defaults
from werewolf_env.engine.game import Game

SCHEMA_VERSION = 1
# From the version's owner, not the package's ``__version__``: the package's ``__init__`` imports this module.
PACKAGE_VERSION = package_version()
# Bounds on what a log reader takes in (a log is a file anyone can edit). What the engine writes nests about 35
# levels (an answer is cut at ``json_input.MAX_DEPTH``); the longest game the rules allow (16 players, 100 rounds,
# 50 statements a day: about 1,200 actions and 2,200 events a round, each action with its LLM records) writes
# about a million lines; a line of a log written before stored answers were capped reached about 30 MB.
MAX_LOG_DEPTH = 64
MAX_LOG_LINES = 2_000_000
MAX_LOG_LINE_BYTES = 64 * 2**20
_ENGINE_SKIP = {"header", "snapshot", "agent_record"}


# One encoder for every call: ``json.dumps`` with options builds a new encoder each time, a third of its cost
# on the small records events are.
_ENCODER = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), allow_nan=False, default=repr)


def dumps(obj: Any) -> str:
    return _ENCODER.encode(obj)


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
                "package_version": PACKAGE_VERSION,
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
    return read_log_checked(path).records


@dataclass
class LogReading:
    """A log's records, and where it stops being readable if it does before its end."""

    records: list[dict[str, Any]]
    damage: str | None = None  # e.g. "line 812 is cut off mid-line (at byte 40000 ...)"
    lines: int = 0  # lines read (the line the damage is on not counted)


def read_log_checked(path: str | Path) -> LogReading:
    """The records up to the first line that is not a JSON object, and what that line was.

    A log is untrusted input: reading stops (the damage says where) at a line nested deeper than
    ``MAX_LOG_DEPTH``, a line longer than ``MAX_LOG_LINE_BYTES`` and after ``MAX_LOG_LINES`` lines."""
    records: list[dict[str, Any]] = []
    offset = 0
    number = 0
    with Path(path).open("rb") as f:
        while raw := f.readline(MAX_LOG_LINE_BYTES + 1):
            number += 1
            line_start, offset = offset, offset + len(raw)
            if number > MAX_LOG_LINES:
                damage = (
                    f"the log has more than {MAX_LOG_LINES:,} lines, the most a log may have: line {number:,} "
                    f"and the {_lines_left(f, raw):,} lines after it were not read"
                )
                return LogReading(records, damage, number - 1)
            if len(raw) > MAX_LOG_LINE_BYTES and not raw.endswith(b"\n"):
                rest = _lines_left(f, raw)
                damage = (
                    f"line {number} (byte {line_start}) is longer than {MAX_LOG_LINE_BYTES:,} bytes, the most a "
                    f"log line may have; it and the {rest:,} lines after it were not read"
                )
                return LogReading(records, damage, number - 1)
            text = raw.strip()
            if not text:
                continue
            try:
                record = loads_bounded(text.decode("utf-8"), MAX_LOG_DEPTH)
            except TooDeepError as exc:
                damage = (
                    f"line {number} (byte {line_start}) is {exc} (the most a log line may nest); it and the "
                    f"{_lines_left(f, raw):,} lines after it were not read"
                )
                return LogReading(records, damage, number - 1)
            except (ValueError, UnicodeDecodeError):
                record = None
            if not isinstance(record, dict):
                rest = _lines_left(f, raw)
                if not raw.endswith(b"\n") and rest == 0:
                    damage = f"line {number} is cut off mid-line (at byte {offset}: a write that never finished)"
                else:
                    damage = (
                        f"line {number} (byte {line_start}) is not a JSON record; it and the {rest} lines "
                        "after it were not read"
                    )
                return LogReading(records, damage, number - 1)
            records.append(record)
    return LogReading(records, None, number)


def _lines_left(f: IO[bytes], line: bytes) -> int:
    """The lines after ``line`` (the last read, whole or its first part) to the end of the file, read in
    chunks: a line of any length costs no memory."""
    count, last = 0, line[-1:]
    for chunk in iter(lambda: f.read(1 << 20), b""):
        count += chunk.count(b"\n")
        last = chunk[-1:]
    if last != b"\n":
        count += 1  # a last line with no newline, or the rest of ``line`` itself
    return count - (not line.endswith(b"\n"))


@dataclass
class ReplayResult:
    # The log is whole and rebuilds the identical game: ``bool(result)``. A truncated log never is.
    ok: bool
    actions: int
    complete: bool  # the log ended with a snapshot (the game finished)
    mismatches: list[str] = field(default_factory=list)
    game: Game | None = None
    # Why the log does not hold the whole game, and where it stops (a cut line, missing lines, no end):
    # what is there may still replay identically, but the replay did not check the whole game.
    truncated: str | None = None
    # Why the file is no game log at all (no header line, a header the engine cannot read), if it is not.
    not_a_log: str | None = None
    # Every event (and the snapshot) the log holds matches the replay: for a truncated log, as far as it goes.
    matches: bool = False
    # The log ends cleanly before the game did (a run interrupted between writes, or stopped by its breaker):
    # no line is damaged and no event is missing; the run that wrote it resumes the game.
    stopped_early: bool = False

    def __bool__(self) -> bool:
        return self.ok


def replay(path: str | Path, max_mismatches: int = 10) -> ReplayResult:
    """Re-run the logged actions from the logged config and seed; compare events and final snapshot."""
    reading = read_log_checked(path)
    records = reading.records
    if not records or records[0].get("type") != "header":
        if not records and _starts_like_a_log(path):
            # Empty, or cut inside its header line (a write that never finished): truncated, not foreign.
            where = reading.damage or "the file is empty: not even its header was written"
            return ReplayResult(False, 0, False, ["the log has no whole header line"], truncated=where)
        return ReplayResult(False, 0, False, [], not_a_log="its first line is no log header")
    header = records[0]
    if header.get("schema_version") != SCHEMA_VERSION:
        return ReplayResult(False, 0, False, [f"unsupported schema_version {header.get('schema_version')}"])
    try:
        game = game_of_header(header)
    except (KeyError, TypeError, ValueError) as exc:  # pydantic's ValidationError is a ValueError
        return ReplayResult(False, 0, False, [], not_a_log=f"its header cannot be read ({type(exc).__name__})")
    logged = [r for r in records if r.get("type") not in _ENGINE_SKIP]
    snapshot = next((r["data"] for r in records if r.get("type") == "snapshot"), None)
    truncated = _truncation(reading, logged, snapshot is not None)
    mismatches: list[str] = []
    actions = 0
    try:
        for _record in replayed_actions(logged, game):
            actions += 1
    except ReplayError as exc:
        mismatches.append(str(exc))
    regenerated = [json.loads(dumps(e.to_json())) for e in game.state.events]
    for want, got in zip(logged, regenerated, strict=False):
        if want.get("type") == "game_start" and got.get("type") == "game_start":
            _as_written_then(want.get("data", {}).get("config"), got.get("data", {}).get("config"), header["config"])
    for i, (want, got) in enumerate(zip(logged, regenerated, strict=False)):
        if want != got:
            mismatches.append(f"event {i} differs: logged {_brief(want)} / replayed {_brief(got)}")
            if len(mismatches) >= max_mismatches:
                break
    # A log cut short is said as such (``truncated``), not as a difference: its events are a prefix of the game's.
    if len(logged) != len(regenerated) and not (truncated and len(logged) < len(regenerated)):
        mismatches.append(f"the log has {len(logged)} engine events, the replay {len(regenerated)}")
    if snapshot is not None:
        replayed = json.loads(dumps(game.snapshot()))
        _as_written_then(snapshot.get("config"), replayed.get("config"), None)
        if replayed != snapshot:
            keys = sorted(k for k in set(snapshot) | set(replayed) if snapshot.get(k) != replayed.get(k))
            mismatches.append(f"final snapshot differs in: {', '.join(keys)}")
    stopped_early = snapshot is None and reading.damage is None and all(r.get("seq") == i for i, r in enumerate(logged))
    return ReplayResult(
        not mismatches and truncated is None,
        actions,
        snapshot is not None,
        mismatches,
        game,
        truncated,
        matches=not mismatches,
        stopped_early=stopped_early,
    )


_HEADER_START = b'{"type":"header"'  # how every log begins (``dumps`` writes compact JSON, "type" first)


def game_of_header(header: dict[str, Any]) -> Game:
    """A fresh game with a log header's config and seed: what every replay of the log starts from."""
    return Game(GameConfig.from_record(header["config"]), int(header["seed"]))


class ReplayError(ValueError):
    """A logged action that the engine, replaying the log, did not expect."""


def replayed_actions(records: Iterable[dict[str, Any]], game: Game) -> Iterator[dict[str, Any]]:
    """Apply a log's actions to ``game`` (built from its header), one at a time: each action record is
    yielded once applied, so a caller may read the game as it stood then (the judge's knowledge at a
    statement, a counterfactual at that moment). The one replay loop: ``replay``, the relabeller and the
    detector's statement rows use it. Raises ``ReplayError`` where the log and the engine disagree."""
    for record in records:
        if record.get("type") != "action":
            continue
        turn = game.current
        if turn is None:
            raise ReplayError(f"event {record.get('seq')}: an action was logged after the game ended")
        if turn.player != record.get("actor") or turn.kind.value != record["data"]["kind"]:
            raise ReplayError(
                f"event {record.get('seq')}: logged {record['data']['kind']} by seat {record.get('actor')}, "
                f"but the engine expected {turn.kind.value} by seat {turn.player}"
            )
        game.act(record["data"]["raw"])
        yield record


def _starts_like_a_log(path: str | Path) -> bool:
    """The file begins as a log's header line does (or is a piece of that beginning: a log cut very early)."""
    with open(path, "rb") as f:
        start = f.read(len(_HEADER_START))
    return _HEADER_START.startswith(start)  # an empty file too: a log whose first write never happened


def _as_written_then(logged: Any, replayed: Any, header_config: Any) -> None:
    """Make a replayed ``config`` comparable with one a log of an earlier version wrote: fields added since, at
    their default, are left out (``without_new_defaults``); a ``game_start`` that still named hand-dealt roles
    (before the public event stopped carrying them) is compared with the roles the header deals."""
    if not isinstance(logged, dict) or not isinstance(replayed, dict):
        return
    trimmed = without_new_defaults(logged, replayed)
    replayed.clear()
    replayed.update(trimmed)
    roles = logged.get("roles")
    if roles is not None and replayed.get("roles") is None and isinstance(header_config, dict):
        if roles == header_config.get("roles"):
            replayed["roles"] = roles


def _truncation(reading: LogReading, logged: list[dict[str, Any]], finished: bool) -> str | None:
    """Where the log stops holding the game: a line it could not read, a gap in the event numbers, no end."""
    for i, record in enumerate(logged):
        if record.get("seq") != i:
            return f"events are missing: event seq {record.get('seq')} comes where seq {i} was due"
    if reading.damage is not None:
        return reading.damage
    if finished:
        return None
    last = logged[-1] if logged else None
    after = (
        f"after event seq {last.get('seq')} (round {last.get('round')}, phase {last.get('phase')})"
        if last
        else "after its header"
    )
    return f"the log ends at line {reading.lines}, {after}, before the game ended (no final snapshot)"


def _brief(record: dict[str, Any]) -> str:
    text = dumps(record)
    return text if len(text) < 200 else text[:197] + "..."
