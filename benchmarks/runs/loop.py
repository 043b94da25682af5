"""Runs that survive being killed: the loop that fills a run folder (``run_folder.RunDir``) with games.

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
import shutil
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from werewolf_deception.agents import GameResult, Lineup, play_game
from werewolf_deception.agents.llm import EndpointDownError, EndpointPool
from werewolf_deception.agents.play import calls_in_flight
from werewolf_deception.benchmarks.console import Bar
from werewolf_deception.benchmarks.runs.folder import RunDir, RunMismatchError, is_storage_error
from werewolf_deception.benchmarks.runs.workers import RayBackend, failure, play_job, stop_workers, worker_pool
from werewolf_env import GameConfig

__all__ = ["Job", "Progress", "RayBackend", "RunDir", "RunMismatchError", "RunStoppedError", "play_job", "play_run"]


class RunStoppedError(RuntimeError):
    """The run cannot go on (an endpoint's circuit breaker tripped); finished games are kept."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


@dataclass(frozen=True)
class Job:
    """One game of a run: its id (the log's name), its seed and who plays which seat."""

    id: str
    seed: int
    lineup: Lineup


class Progress(Bar):
    """The games bar of a run (``werewolf_deception.benchmarks.console.progress``, on stderr): games done of the
    run's total (resumed ones included, not counted in the rate), failures, and for LLM runs tokens and calls in
    flight."""

    total: int  # always known

    def __init__(
        self, total: int, done: int, quiet: bool = False, stream: Any = None, label: str = "games", **options: Any
    ) -> None:
        super().__init__(label, total, done=done, unit="games", quiet=quiet, stream=stream, **options)
        self.failed = 0
        self.tokens = 0
        self._llm = False  # shown once a call was made: a model-free run has no tokens to count

    def extra_fields(self) -> list[str]:
        flight = calls_in_flight()
        self._llm = self._llm or flight > 0 or self.tokens > 0
        llm = [f"tokens {self.tokens:,}", f"calls in flight {flight}"] if self._llm else []
        return [f"failed {self.failed}", *llm, *super().extra_fields()]


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

    The run stops early, abandoning the games in flight (played again on resume), when a breaker
    trips (``RunStoppedError``), when the disk refuses a write (the ``OSError``, naming the path), or
    when it is cancelled or interrupted; worker processes are ended then, never left playing.
    """
    entries: list[dict[str, Any]] = []
    own_pool = pool is None
    if pool is None:
        pool = EndpointPool(concurrency=max(1, concurrency))
    stopped: list[str] = []  # why the run stopped (the first tripped breaker), if it did
    broken: list[OSError] = []  # the first write the disk refused, if one was
    cache = str(cache_dir) if cache_dir is not None else None
    workers_pool = None
    if backend is not None:
        slots = backend.slots
    elif workers > 1:
        workers_pool = worker_pool(workers)
        slots = workers
    else:
        slots = 1
    limit = asyncio.Semaphore(max(1, concurrency) * slots)
    loop = asyncio.get_running_loop()
    plain_config = config.model_dump(mode="json")

    async def elsewhere(job: Job, scratch: Path) -> dict[str, Any]:
        """The outcome of ``job`` played by a worker process (its log written into ``scratch``) or a Ray task
        (its log's bytes sent back)."""
        per_worker = max(1, concurrency // slots)  # the cap per endpoint, divided among the workers
        args = (plain_config, job.lineup.model_dump(mode="json"), job.seed, per_worker, cache)
        try:
            if backend is not None:
                return await backend.play(*args)
            return await loop.run_in_executor(workers_pool, play_job, *args, str(scratch))
        except (KeyboardInterrupt, SystemExit, asyncio.CancelledError):
            raise
        except Exception as exc:  # the worker itself died (killed, out of memory, node lost)
            return {"status": "failed", "error": f"worker: {type(exc).__name__}: {exc}"}

    async def here(job: Job, scratch: Path) -> dict[str, Any] | None:
        """The outcome of ``job`` played in this process (None: the run stops; the game is played on resume)."""
        try:
            result: GameResult = await play(
                config,
                job.lineup,
                job.seed,
                log_dir=scratch,
                concurrency=concurrency,
                pool=pool,
                cache_dir=cache_dir,
            )
            return {"status": "ok", "result": result.to_json()}
        except (KeyboardInterrupt, SystemExit, asyncio.CancelledError):
            raise
        except EndpointDownError as exc:  # not this game's fault: it is played again on resume
            # Its partial log stays in the scratch folder (for diagnosis) until the run resumes.
            stop(str(exc))
            return None
        except OSError as exc:
            if is_storage_error(exc):
                raise
            return failure(exc)
        except Exception as exc:  # a failure no agent can absorb: recorded, and the run goes on
            return failure(exc)

    async def one(job: Job) -> None:
        async with limit:
            if stopped or broken:
                return  # the run is stopping: this game is played on resume
            try:
                await play_one(job)
            except OSError as exc:
                if not is_storage_error(exc):
                    raise
                if not broken:
                    broken.append(exc)
                halt()

    async def play_one(job: Job) -> None:
        scratch = run.scratch_of(job.id)
        shutil.rmtree(scratch, ignore_errors=True)
        if backend is not None or workers_pool is not None:
            outcome = await elsewhere(job, scratch)
            if outcome["status"] == "stopped":
                stop(outcome["error"])
                return
            if outcome["status"] == "storage":  # the worker's disk: the same stop as this one's
                raise OSError(outcome["errno"], outcome["error"], outcome["filename"])
            if outcome["status"] == "ok" and "log" in outcome:  # a Ray task's log, sent back as bytes
                run.put_log(job.id, outcome.pop("log"))
        else:
            found = await here(job, scratch)
            if found is None:
                return
            outcome = found
        entry = {"game": job.id, "seed": job.seed, **outcome}
        if outcome["status"] == "ok":
            entry["result"]["log_path"] = str(run.place_log(job.id))
        run.append(entry)
        # Only the outcome stays in memory (the result is on disk): memory stays flat however long the run.
        entries.append(
            {k: entry[k] for k in ("game", "seed", "status") if k in entry}
            | ({"error": entry["error"]} if "error" in entry else {})
        )
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

    def halt() -> None:
        """Abandon the games in flight: they cannot finish (they are played on resume)."""
        for task in tasks:
            if task is not asyncio.current_task():
                task.cancel()

    def stop(reason: str) -> None:
        if not stopped:
            stopped.append(reason)
            halt()

    tick = asyncio.ensure_future(ticker())
    finished = False
    try:
        tasks.extend(asyncio.ensure_future(one(job)) for job in jobs)
        results = await asyncio.gather(*tasks, return_exceptions=True)
        for outcome in results:
            if isinstance(outcome, BaseException) and not isinstance(outcome, asyncio.CancelledError):
                raise outcome
        finished = not broken
    finally:
        tick.cancel()
        if workers_pool is not None:  # games in hand are finished only when the run is: else workers end now
            stop_workers(workers_pool, graceful=finished)
        if own_pool:
            await pool.aclose()
    if broken:
        raise broken[0]
    if stopped:
        raise RunStoppedError(stopped[0])
    return entries
