"""Run directories that survive being killed, and the loop that fills them.

A run directory holds::

    manifest.json      what the run is: config, lineup, seeds, package version, git commit (never a key)
    results.ndjson     one line per game that ended: {"seed", "status": "ok", "result"} or
                       {"seed", "status": "failed", "error"}; appended and flushed when the game's log is closed
    games/             one NDJSON log per game

Starting the same command again resumes: games with an ``ok`` line are kept, every other game
(never started, half-written, or failed) is played again from its seed, overwriting any partial
log, and each seed counts once. A different command on the same folder is refused.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import time
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import Any

from agents import GameResult, Lineup, play_game
from agents.runner import calls_in_flight
from werewolf_env import GameConfig, __version__

MANIFEST_VERSION = 1


class RunMismatchError(ValueError):
    pass


def git_commit() -> str | None:
    """The commit of the checkout this package runs from, if it is one (no network)."""
    try:
        out = subprocess.run(
            ["git", "rev-parse", "HEAD"], cwd=Path(__file__).resolve().parent, capture_output=True, text=True,
            timeout=5, check=False,
        )  # fmt: skip
    except (OSError, subprocess.SubprocessError):
        return None
    return out.stdout.strip() or None if out.returncode == 0 else None


class RunDir:
    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.manifest_path = self.path / "manifest.json"
        self.results_path = self.path / "results.ndjson"
        self.games = self.path / "games"

    def log_of(self, seed: int) -> Path:
        return self.games / f"game-00000-seed{seed}.ndjson"

    def open(self, config: GameConfig, lineup: Lineup, seeds: list[int], label: str) -> dict[int, dict[str, Any]]:
        """Write the manifest (or check it against an existing one); return the finished games by seed."""
        identity = {
            "config": config.model_dump(mode="json"),
            "lineup": lineup.model_dump(mode="json"),
            "seeds": seeds,
        }
        if self.manifest_path.is_file():
            old = json.loads(self.manifest_path.read_text(encoding="utf-8"))
            for key in ("config", "lineup"):
                if old.get(key) != identity[key]:
                    raise RunMismatchError(
                        f"{self.path} holds a different run (its {key} differs); "
                        "use another --out, or the same options to resume it"
                    )
            if old.get("seeds") != seeds:
                if not set(old.get("seeds", [])) <= set(seeds):
                    raise RunMismatchError(
                        f"{self.path} holds games for other seeds; use another --out, or a --games / --seed "
                        "that covers its seeds to extend it"
                    )
                old["seeds"] = seeds  # more games with the same rules and lineup: the run grows
                self._write_manifest(old)
        else:
            self.path.mkdir(parents=True, exist_ok=True)
            manifest = {
                "schema_version": MANIFEST_VERSION, "kind": "run", "label": label, **identity,
                "package_version": __version__, "git_commit": git_commit(),
                "python": sys.version.split()[0], "created": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
            }  # fmt: skip
            self._write_manifest(manifest)
        self.games.mkdir(parents=True, exist_ok=True)
        finished = {seed: entry for seed, entry in self.read_results().items() if entry["status"] == "ok"}
        for seed in seeds:
            if seed not in finished and self.log_of(seed).exists():
                self.log_of(seed).unlink()  # half-written or failed: it is played again
        return finished

    def _write_manifest(self, manifest: dict[str, Any]) -> None:
        tmp = self.manifest_path.with_suffix(".tmp")
        tmp.write_text(json.dumps(manifest, indent=1) + "\n", encoding="utf-8")
        tmp.replace(self.manifest_path)

    def read_results(self) -> dict[int, dict[str, Any]]:
        """The last line per seed (a torn last line from a kill mid-write is ignored)."""
        out: dict[int, dict[str, Any]] = {}
        if not self.results_path.is_file():
            return out
        with self.results_path.open(encoding="utf-8") as f:
            for line in f:
                try:
                    entry = json.loads(line)
                except ValueError:
                    continue
                if isinstance(entry, dict) and "seed" in entry and entry.get("status") in ("ok", "failed"):
                    out[int(entry["seed"])] = entry
        return out

    def append(self, entry: dict[str, Any]) -> None:
        with self.results_path.open("a", encoding="utf-8") as f:
            if f.tell() > 0:
                f.write("\n")  # a line torn by a kill stays alone on its line
            f.write(json.dumps(entry))
            f.flush()
            os.fsync(f.fileno())


class Progress:
    """One status line on stderr: games done, failures, calls in flight, tokens, rate and ETA."""

    def __init__(self, total: int, done: int, quiet: bool = False, stream: Any = None) -> None:
        self.total, self.done, self.failed = total, done, 0
        self.tokens = 0
        self.quiet = quiet
        self.stream = stream or sys.stderr
        self.tty = hasattr(self.stream, "isatty") and self.stream.isatty()
        self.started = time.perf_counter()
        self.resumed = done
        self._last_print = 0.0

    def line(self) -> str:
        elapsed = time.perf_counter() - self.started
        played = self.done - self.resumed
        rate = played / elapsed if elapsed > 0 else 0.0
        left = self.total - self.done
        eta = f"{left / rate:.0f}s" if rate > 0 else "?"
        return (
            f"[{self.done}/{self.total}] {100 * self.done / max(1, self.total):3.0f}%  failed {self.failed}  "
            f"calls in flight {calls_in_flight()}  tokens {self.tokens:,}  {rate:.1f} games/s  ETA {eta}"
        )

    def show(self, force: bool = False) -> None:
        if self.quiet:
            return
        now = time.perf_counter()
        if self.tty:
            self.stream.write("\r" + self.line().ljust(100))
            self.stream.flush()
        elif force or now - self._last_print >= 10:
            self.stream.write(self.line() + "\n")
            self.stream.flush()
            self._last_print = now

    def finish(self) -> None:
        if not self.quiet:
            if self.tty:
                self.stream.write("\r" + self.line().ljust(100) + "\n")
            else:
                self.show(force=True)
            self.stream.flush()


async def play_run(
    run: RunDir,
    config: GameConfig,
    lineup: Lineup,
    seeds: list[int],
    concurrency: int,
    progress: Progress | None = None,
    play: Callable[..., Any] = play_game,
) -> list[dict[str, Any]]:
    """Play every seed without an ok result, ``concurrency`` games at once; return the new entries."""
    limit = asyncio.Semaphore(max(1, concurrency))
    entries: list[dict[str, Any]] = []

    async def one(seed: int) -> None:
        async with limit:
            try:
                result: GameResult = await play(config, lineup, seed, log_dir=run.games, concurrency=concurrency)
                entry = {"seed": seed, "status": "ok", "result": result.to_json()}
            except (KeyboardInterrupt, SystemExit, asyncio.CancelledError):
                raise
            except Exception as exc:  # a failure no agent can absorb: recorded, and the run goes on
                entry = {
                    "seed": seed, "status": "failed", "error": f"{type(exc).__name__}: {exc}",
                    "traceback": traceback.format_exc(limit=8),
                }  # fmt: skip
            run.append(entry)
            entries.append(entry)
            if progress is not None:
                progress.done += entry["status"] == "ok"
                progress.failed += entry["status"] == "failed"
                progress.tokens += sum((entry.get("result") or {}).get("tokens", {}).values())
                progress.show()

    async def ticker() -> None:
        while True:
            await asyncio.sleep(0.5)
            if progress is not None:
                progress.show()

    tick = asyncio.ensure_future(ticker())
    try:
        await asyncio.gather(*(one(seed) for seed in seeds))
    finally:
        tick.cancel()
    return entries
