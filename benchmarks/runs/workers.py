"""Games played away from the run folder: worker processes that end with their parent, and Ray tasks.

``play_job`` plays one game from plain data. A worker process on this machine writes the game's log
into the scratch folder the driver gives it (``log_dir``: the run folder's own scratch for that game,
which the driver moves into place) and returns only the small outcome; a Ray task, maybe on another
machine with no shared filesystem, returns the log's bytes with it.

Worker processes must not outlive the run: SIGTERM, Ctrl-C or a crash of the parent used to leave
them playing (and holding the pool's resource tracker). So each worker ignores Ctrl-C (the parent
decides), asks the kernel to send it SIGTERM when its parent dies (Linux; elsewhere a thread
watches the parent's pid), and on SIGTERM removes its scratch folder and exits at once. The parent
ends them with ``stop_workers`` when the run stops early; the games they were playing have no
result line, so the same command plays them again.

A worker ended while it sends its outcome leaves half a message in the pool's result pipe, and the
executor's manager thread then waits for the rest forever (Python's exit joins that thread: the
command would never end, and its run folder would stay locked). Results are kept small (no log
bytes), and ``stop_workers`` closes the driver's end of that pipe once every worker is gone, so the
wait ends; should the thread still hang, ``workers_stuck()`` says so and the CLI exits without
joining it.
"""

from __future__ import annotations

import ctypes
import multiprocessing
import os
import shutil
import signal
import sys
import tempfile
import threading
import time
import traceback
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

from werewolf_deception.agents import Lineup, play_game_sync
from werewolf_deception.agents.llm import EndpointDownError
from werewolf_deception.benchmarks.console import EXIT_TERMINATED, failed_file
from werewolf_deception.benchmarks.runs.folder import describe_os_error, is_storage_error
from werewolf_env import GameConfig

_PR_SET_PDEATHSIG = 1  # linux/prctl.h


class _Scratch:
    """The temporary folder of the game this worker is playing (removed if the worker is ended)."""

    folder: str | None = None


def _end_worker(_signum: int, _frame: object) -> None:
    if _Scratch.folder is not None:
        shutil.rmtree(_Scratch.folder, ignore_errors=True)
    os._exit(EXIT_TERMINATED)


def _watch_parent(parent: int) -> None:
    while os.getppid() == parent:
        time.sleep(1.0)
    _end_worker(signal.SIGTERM, None)


def init_worker(parent: int) -> None:
    """Run in each worker process as it starts: tie its life to ``parent``'s."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, _end_worker)
    tied = False
    if sys.platform.startswith("linux"):
        try:
            libc = ctypes.CDLL(None, use_errno=True)
            tied = libc.prctl(_PR_SET_PDEATHSIG, signal.SIGTERM, 0, 0, 0) == 0
        except (OSError, AttributeError):
            tied = False
    if os.getppid() != parent:  # the parent died before the tie was made
        _end_worker(signal.SIGTERM, None)
    if not tied:
        threading.Thread(target=_watch_parent, args=(parent,), daemon=True).start()


def worker_pool(workers: int) -> ProcessPoolExecutor:
    """``workers`` fresh processes (spawned: no state shared with the driver) that end with this one."""
    return ProcessPoolExecutor(
        workers, mp_context=multiprocessing.get_context("spawn"), initializer=init_worker, initargs=(os.getpid(),)
    )


_killed_managers: set[threading.Thread] = set()  # manager threads of pools ended by stop_workers
_stuck = threading.Event()


def workers_stuck() -> bool:
    """A pool's manager thread did not end after its workers were ended: exit without joining it."""
    return _stuck.is_set()


def _quiet_killed_pools(args: threading.ExceptHookArgs) -> None:
    # A pool whose workers we ended reports the futures it can no longer settle (InvalidStateError on the ones
    # cancelled, a broken pool): expected, and not the user's concern.
    if args.thread in _killed_managers:
        return
    _default_excepthook(args)


_default_excepthook = threading.excepthook
threading.excepthook = _quiet_killed_pools


def stop_workers(pool: ProcessPoolExecutor, graceful: bool, manager_timeout: float = 10.0) -> None:
    """Shut ``pool`` down: after the games in hand (``graceful``), or now, ending every worker process."""
    if graceful:
        pool.shutdown(wait=True, cancel_futures=True)
        return
    # The executor has no public way to end its processes before Python 3.14 (terminate_workers).
    processes = list((getattr(pool, "_processes", None) or {}).values())
    manager = getattr(pool, "_executor_manager_thread", None)
    if isinstance(manager, threading.Thread):
        _killed_managers.add(manager)
    pool.shutdown(wait=False, cancel_futures=True)
    for process in processes:
        if process.is_alive():
            process.terminate()
    for process in processes:
        process.join(timeout=30)
        if process.is_alive():  # SIGTERM ignored (stuck in C code): no more asking
            process.kill()
            process.join()
    # Every worker is gone: closing our copy of the result pipe's writing end ends a wait for the rest of a
    # message a worker was cut off sending (the reader gets end-of-file and the pool counts as broken).
    writer = getattr(getattr(pool, "_result_queue", None), "_writer", None)
    if writer is not None:
        writer.close()
    if isinstance(manager, threading.Thread):
        manager.join(timeout=manager_timeout)
        if manager.is_alive():
            _stuck.set()


def play_job(
    config: dict[str, Any],
    lineup: dict[str, Any],
    seed: int,
    concurrency: int,
    cache_dir: str | None = None,
    log_dir: str | None = None,
) -> dict[str, Any]:
    """One game away from the driver (a worker process or a Ray task, maybe on another machine): plain data in,
    and out the outcome; the log is written into ``log_dir`` when given (a worker on this machine), else
    returned as bytes (``"log"``) for the driver to put in place."""
    if log_dir is not None:
        Path(log_dir).mkdir(parents=True, exist_ok=True)
        return _play(config, lineup, seed, concurrency, cache_dir, log_dir)
    with tempfile.TemporaryDirectory() as folder:
        _Scratch.folder = folder
        try:
            outcome = _play(config, lineup, seed, concurrency, cache_dir, folder)
        finally:
            _Scratch.folder = None
        if outcome["status"] == "ok":
            outcome["log"] = next(Path(folder).glob("*.ndjson")).read_bytes()
    return outcome


def _play(
    config: dict[str, Any], lineup: dict[str, Any], seed: int, concurrency: int, cache_dir: str | None, folder: str
) -> dict[str, Any]:
    """Play the game with its log in ``folder``: the outcome, or why it could not be played."""
    try:
        result = play_game_sync(
            GameConfig.model_validate(config),
            Lineup.model_validate(lineup),
            seed,
            log_dir=folder,
            concurrency=concurrency,
            cache_dir=cache_dir,
        )
    except EndpointDownError as exc:  # the run must stop: not a failed game, one to play again
        return {"status": "stopped", "error": str(exc)}
    except OSError as exc:
        if is_storage_error(exc):  # the disk, not the game: the run stops
            return {
                "status": "storage",
                "error": describe_os_error(exc),
                "errno": exc.errno,
                "filename": exc.filename if exc.filename is not None else failed_file(exc),
            }
        return failure(exc)
    except Exception as exc:
        return failure(exc)
    return {"status": "ok", "result": result.to_json()}


def failure(exc: BaseException) -> dict[str, Any]:
    """The outcome of a game that failed in a way no agent could absorb: recorded, and the run goes on."""
    return {"status": "failed", "error": f"{type(exc).__name__}: {exc}", "traceback": traceback.format_exc(limit=8)}


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
