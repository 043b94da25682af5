"""Run directories that survive being killed, and the loop that fills them.

A run directory holds::

    manifest.json      what the run is: config, lineup, seeds, package version, git commit (never a key)
    results.ndjson     one line per game that ended: {"game", "seed", "status": "ok", "result"} or
                       {"game", "seed", "status": "failed", "error"}; appended and flushed once the log is in place
    games/<id>.ndjson  one log per finished game (written under games/.playing-<id>/ while it plays)

Starting the same command again resumes: games with an ``ok`` line are kept, every other game
(never started, half-written, or failed) is played again from its seed, and each game counts once.
A different command on the same folder is refused; more games with the same rules extend it.

LLM runs share one ``EndpointPool`` for the whole run (a client and a concurrency cap per server,
across all games) and cache every answered call in ``cache/``, so a resumed run pays only for the
calls it had not made. When a server's circuit breaker trips, the run stops: games in flight are
abandoned (played again on resume), finished ones are kept, and ``play_run`` raises ``RunStoppedError``.
"""

from __future__ import annotations

import asyncio
import json
import multiprocessing
import os
import shutil
import subprocess
import sys
import tempfile
import time
import traceback
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agents import GameResult, Lineup, play_game, play_game_sync
from agents.endpoints import EndpointDownError, EndpointPool
from agents.runner import calls_in_flight
from werewolf_env import GameConfig, __version__

MANIFEST_VERSION = 1


class RunMismatchError(ValueError):
    pass


class RunStoppedError(RuntimeError):
    """The run cannot go on (an endpoint's circuit breaker tripped); finished games are kept."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


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


@dataclass(frozen=True)
class Job:
    """One game of a run: its id (the log's name), its seed and who plays which seat."""

    id: str
    seed: int
    lineup: Lineup


class RunDir:
    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.manifest_path = self.path / "manifest.json"
        self.results_path = self.path / "results.ndjson"
        self.games = self.path / "games"

    def log_of(self, game_id: str) -> Path:
        return self.games / f"{game_id}.ndjson"

    def scratch_of(self, game_id: str) -> Path:
        """Where a game's log is written while it plays (moved to ``log_of`` when it is finished)."""
        return self.games / f".playing-{game_id}"

    def open(
        self,
        identity: dict[str, Any],
        ids: list[str],
        kind: str = "run",
        label: str = "",
        seeds: list[int] | None = None,
    ) -> dict[str, Any]:
        """Write the manifest (or check it against an existing one); return the finished games by id.

        ``identity`` (config, lineup or entrants, ...) must match an existing manifest; ``ids`` may
        grow (more games with the same rules extend the run) but must cover the old ones.
        """
        if self.manifest_path.is_file():
            old = json.loads(self.manifest_path.read_text(encoding="utf-8"))
            for key, value in identity.items():
                if old.get(key) != value:
                    raise RunMismatchError(
                        f"{self.path} holds a different {old.get('kind', 'run')} (its {key} differs); "
                        "use another --out, or the same options to resume it"
                    )
            if old.get("games") != ids:
                if not set(old.get("games", [])) <= set(ids):
                    raise RunMismatchError(
                        f"{self.path} holds games this command would not play; use another --out, or "
                        "options that cover its games to extend it"
                    )
                old["games"] = ids  # more games with the same rules and players: the run grows
                old["seeds"] = seeds
                self._write_manifest(old)
        else:
            self.path.mkdir(parents=True, exist_ok=True)
            manifest = {
                "schema_version": MANIFEST_VERSION, "kind": kind, "label": label, **identity,
                "games": ids, "seeds": seeds,
                "package_version": __version__, "git_commit": git_commit(),
                "python": sys.version.split()[0], "created": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
            }  # fmt: skip
            self._write_manifest(manifest)
        self.games.mkdir(parents=True, exist_ok=True)
        finished = {gid: entry for gid, entry in self.read_results().items() if entry["status"] == "ok"}
        for gid in ids:
            if gid not in finished:
                self.log_of(gid).unlink(missing_ok=True)  # failed or torn: it is played again
                shutil.rmtree(self.scratch_of(gid), ignore_errors=True)  # half-written
        return finished

    def note(self, **values: Any) -> None:
        """Add facts learned while running (endpoints, response formats) to the manifest; not its identity."""
        manifest = json.loads(self.manifest_path.read_text(encoding="utf-8"))
        manifest.update(values)
        self._write_manifest(manifest)

    def _write_manifest(self, manifest: dict[str, Any]) -> None:
        tmp = self.manifest_path.with_suffix(".tmp")
        tmp.write_text(json.dumps(manifest, indent=1) + "\n", encoding="utf-8")
        tmp.replace(self.manifest_path)

    def read_results(self) -> dict[str, dict[str, Any]]:
        """The last line per game (a torn last line from a kill mid-write is ignored)."""
        out: dict[str, dict[str, Any]] = {}
        if not self.results_path.is_file():
            return out
        with self.results_path.open(encoding="utf-8") as f:
            for line in f:
                try:
                    entry = json.loads(line)
                except ValueError:
                    continue
                if isinstance(entry, dict) and "game" in entry and entry.get("status") in ("ok", "failed"):
                    out[str(entry["game"])] = entry
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


def play_job(
    config: dict[str, Any], lineup: dict[str, Any], seed: int, concurrency: int, cache_dir: str | None = None
) -> dict[str, Any]:
    """One game away from the run folder (a worker process or a Ray task, maybe on another machine):
    plain data in, and out the outcome with the log's bytes, which the driver puts in place."""
    with tempfile.TemporaryDirectory() as folder:
        try:
            result = play_game_sync(GameConfig.model_validate(config), Lineup.model_validate(lineup), seed,
                                    log_dir=folder, concurrency=concurrency, cache_dir=cache_dir)  # fmt: skip
        except EndpointDownError as exc:  # the run must stop: not a failed game, one to play again
            return {"status": "stopped", "error": str(exc)}
        except Exception as exc:
            return {"status": "failed", "error": f"{type(exc).__name__}: {exc}",
                    "traceback": traceback.format_exc(limit=8)}  # fmt: skip
        log = next(Path(folder).glob("*.ndjson")).read_bytes()
    return {"status": "ok", "result": result.to_json(), "log": log}


class RayBackend:
    """Games as Ray tasks (the ``ray`` extra): on a local Ray instance, or a cluster at ``address``.

    Every node needs this package installed (or a Ray ``runtime_env`` that installs it); tasks get
    plain data and send back the outcome and the log's bytes, so no shared filesystem is needed.
    """

    def __init__(self, address: str | None = None) -> None:
        try:
            import ray
        except ImportError as exc:  # pragma: no cover - depends on the extra
            raise RuntimeError("--backend ray needs the 'ray' extra: pip install 'werewolf-deception[ray]'") from exc
        self.ray = ray
        self.started_here = not ray.is_initialized()
        if self.started_here:
            ray.init(address=address, include_dashboard=False, log_to_driver=False, configure_logging=False)
        self.task = ray.remote(num_cpus=1)(play_job)

    @property
    def slots(self) -> int:
        return max(1, int(self.ray.cluster_resources().get("CPU", 1)))

    async def play(
        self, config: dict[str, Any], lineup: dict[str, Any], seed: int, concurrency: int, cache_dir: str | None
    ) -> Any:
        return await self.task.remote(config, lineup, seed, concurrency, cache_dir)

    def close(self) -> None:
        if self.started_here:
            self.ray.shutdown()


async def play_run(
    run: RunDir,
    config: GameConfig,
    jobs: list[Job],
    concurrency: int,
    progress: Progress | None = None,
    play: Callable[..., Any] = play_game,
    workers: int = 1,
    backend: RayBackend | None = None,
    pool: EndpointPool | None = None,
    cache_dir: str | Path | None = None,
) -> list[dict[str, Any]]:
    """Play ``jobs``: ``concurrency`` games at once in this process, spread over ``workers`` processes,
    or as Ray tasks (``backend``); the logs are the same byte for byte whichever way. Returns each
    game's outcome (``game``, ``seed``, ``status``, ``error``); the results are in ``results.ndjson``.

    Each game's log is written into a scratch folder and moved to ``games/<id>.ndjson`` when the
    game is finished, then its result line is appended: a kill at any moment leaves nothing half-counted.

    ``pool`` (made here when not given) is shared by every game played in this process, so its
    concurrency cap per endpoint holds across games; worker processes and Ray tasks have one each,
    with the cap divided among them. ``cache_dir`` holds the LLM response cache.
    """
    entries: list[dict[str, Any]] = []
    own_pool = pool is None
    if pool is None:
        pool = EndpointPool(concurrency=max(1, concurrency))
    stopped: list[str] = []  # why the run stopped (the first tripped breaker), if it did
    cache = str(cache_dir) if cache_dir is not None else None
    workers_pool = None
    if backend is not None:
        slots = backend.slots
    elif workers > 1:
        workers_pool = ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("spawn"))
        slots = workers
    else:
        slots = 1
    limit = asyncio.Semaphore(max(1, concurrency) * slots)
    loop = asyncio.get_running_loop()
    plain_config = config.model_dump(mode="json")

    async def one(job: Job) -> None:
        async with limit:
            if stopped:
                return  # the run is stopping: this game is played on resume
            scratch = run.scratch_of(job.id)
            shutil.rmtree(scratch, ignore_errors=True)
            if backend is not None or workers_pool is not None:
                per_worker = max(1, concurrency // slots)  # the cap per endpoint, divided among the workers
                args = (plain_config, job.lineup.model_dump(mode="json"), job.seed, per_worker, cache)
                try:
                    if backend is not None:
                        outcome = await backend.play(*args)
                    else:
                        outcome = await loop.run_in_executor(workers_pool, play_job, *args)
                except (KeyboardInterrupt, SystemExit, asyncio.CancelledError):
                    raise
                except Exception as exc:  # the worker itself died (killed, out of memory, node lost)
                    outcome = {"status": "failed", "error": f"worker: {type(exc).__name__}: {exc}"}
                if outcome["status"] == "stopped":
                    stop(outcome["error"])
                    return
                if outcome["status"] == "ok":
                    scratch.mkdir(parents=True)
                    (scratch / "game.ndjson").write_bytes(outcome.pop("log"))
            else:
                try:
                    result: GameResult = await play(
                        config, job.lineup, job.seed, log_dir=scratch, concurrency=concurrency, pool=pool,
                        cache_dir=cache_dir,
                    )  # fmt: skip
                    outcome = {"status": "ok", "result": result.to_json()}
                except (KeyboardInterrupt, SystemExit, asyncio.CancelledError):
                    raise
                except EndpointDownError as exc:  # not this game's fault: it is played again on resume
                    # Its partial log stays in the scratch folder (for diagnosis) until the run resumes.
                    stop(str(exc))
                    return
                except Exception as exc:  # a failure no agent can absorb: recorded, and the run goes on
                    outcome = {"status": "failed", "error": f"{type(exc).__name__}: {exc}",
                               "traceback": traceback.format_exc(limit=8)}  # fmt: skip
            entry = {"game": job.id, "seed": job.seed, **outcome}
            if outcome["status"] == "ok":
                produced = next(scratch.glob("*.ndjson"))
                produced.replace(run.log_of(job.id))
                shutil.rmtree(scratch, ignore_errors=True)
                entry["result"]["log_path"] = str(run.log_of(job.id))
            run.append(entry)
            # Only the outcome stays in memory (the result is on disk): memory stays flat however long the run.
            entries.append({k: entry[k] for k in ("game", "seed", "status") if k in entry} | (
                {"error": entry["error"]} if "error" in entry else {}))  # fmt: skip
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

    tasks: list[asyncio.Future[None]] = []

    def stop(reason: str) -> None:
        if not stopped:
            stopped.append(reason)
            for task in tasks:  # games in flight cannot finish: abandon them now (they are played on resume)
                if task is not asyncio.current_task():
                    task.cancel()

    tick = asyncio.ensure_future(ticker())
    try:
        tasks.extend(asyncio.ensure_future(one(job)) for job in jobs)
        results = await asyncio.gather(*tasks, return_exceptions=True)
        for outcome in results:
            if isinstance(outcome, BaseException) and not isinstance(outcome, asyncio.CancelledError):
                raise outcome
    finally:
        tick.cancel()
        if workers_pool is not None:
            workers_pool.shutdown(wait=True, cancel_futures=True)
        if own_pool:
            await pool.aclose()
    if stopped:
        raise RunStoppedError(stopped[0])
    return entries
