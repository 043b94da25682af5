"""A run folder on disk: what it holds, who may write it, and the errors writing it can meet.

A run folder holds::

    run.lock           while a run plays: its pid, host and start (one run per folder at a time)
    manifest.json      what the run is: config, lineup, seeds, package version, git commit (never a key); its
                       size does not grow with the games: a run's seeds are written as their range
    results.ndjson     one line per game that ended: {"game", "seed", "status": "ok", "result"} or
                       {"game", "seed", "status": "failed", "error"}; appended and flushed once the log is in place
    games/<id>.ndjson  one log per finished game (written under games/.playing-<id>/ while it plays)

``RunDir.open`` refuses, before touching anything: a path that is a file (or under one), a symbolic link
to nothing (dangling, or a loop), a folder that holds files but no run (someone's own files), a manifest
that is not ours, and a folder another live run holds.
The lock is a ``flock`` on ``run.lock`` (the kernel drops it when its process dies, however it dies);
the file's content only names the holder for messages, and one left by a dead run is taken over
with a note. URLs are redacted (no ``user:password@``, no query values) before anything is written.
"""

from __future__ import annotations

import atexit
import errno
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from werewolf_deception.agents.credentials import redacted
from werewolf_deception.benchmarks.console import failed_file
from werewolf_env import __version__
from werewolf_env.core import loads_bounded, without_new_defaults

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows: no flock; the lock file alone (pid check) guards the folder
    fcntl = None  # type: ignore[assignment]

MANIFEST_VERSION = 1
# How deep a run folder's JSON (the manifest, a results line, the lock's holder) may nest: a manifest holds a
# lineup (at most werewolf_deception.agents.play.lineup.MAX_LINEUP_DEPTH, 32) one level down. A deeper file is not the
# run's own.
MAX_RUN_FILE_DEPTH = 64
LOCK_NAME = "run.lock"
# What a crash can leave in a folder before its manifest exists: still ours to open.
_BEFORE_MANIFEST = frozenset({LOCK_NAME, "manifest.tmp"})
# Errors of the disk, not of a game: the run stops (finished games kept) instead of failing game after game.
STORAGE_ERRNOS = frozenset(
    code
    for code in (
        errno.ENOSPC,
        getattr(errno, "EDQUOT", None),
        errno.EROFS,
        errno.EACCES,
        errno.EPERM,
        errno.EFBIG,
        errno.EIO,
    )
    if code is not None
)


_WRITE_ERRNOS = frozenset(
    code for code in (errno.ENOSPC, getattr(errno, "EDQUOT", None), errno.EROFS, errno.EFBIG) if code is not None
)


def natural_key(name: str) -> tuple[Any, ...]:
    """Sort key reading digit runs as numbers: ``seed2`` before ``seed10``, ``game-00000-seed9`` before ``-seed10``."""
    parts = re.split(r"(\d+)", name)
    return tuple(int(part) if i % 2 else part for i, part in enumerate(parts))


def find_logs(run_dir: str | Path) -> list[Path]:
    """The run's game logs: ``RUN_DIR/games/*.ndjson`` if that folder exists, else ``RUN_DIR/*.ndjson``, in
    numeric order of their names (seed2 before seed10), so every list of games in the report is too."""
    run_dir = Path(run_dir)
    folder = run_dir / "games" if (run_dir / "games").is_dir() else run_dir
    return sorted(folder.glob("*.ndjson"), key=lambda path: natural_key(path.name))


class RunMismatchError(ValueError):
    pass


class RunFolderError(ValueError):
    """The folder cannot be a run folder (a file, someone's files, a foreign manifest); nothing was touched."""


class RunBusyError(RunFolderError):
    """Another live run holds the folder's lock."""


def is_storage_error(exc: BaseException) -> bool:
    return isinstance(exc, OSError) and exc.errno in STORAGE_ERRNOS


def describe_os_error(exc: OSError) -> str:
    """'cannot write PATH: No space left on device (ENOSPC)': what failed, on which path, and the errno's name."""
    filename = exc.filename if exc.filename is not None else failed_file(exc)  # a write to an open file names none
    if filename is None:
        return f"{type(exc).__name__}: {exc}"
    name = errno.errorcode.get(exc.errno or 0, "")
    verb = "cannot write" if exc.errno in _WRITE_ERRNOS or exc.filename is None else "cannot open"
    return f"{verb} {filename}: {exc.strerror or exc}" + (f" ({name})" if name else "")


# ``data`` with every URL redacted (``user:password@`` and query values shown as ***): fit for disk.
redact_urls = redacted


def git_commit() -> str | None:
    """The commit of the checkout this package runs from, if it is one (no network)."""
    try:
        out = subprocess.run(
            ["git", "rev-parse", "HEAD"],
            cwd=Path(__file__).resolve().parent,
            capture_output=True,
            text=True,
            timeout=5,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return out.stdout.strip() or None if out.returncode == 0 else None


def check_out_folder(path: Path, option: str, ours: tuple[str, ...]) -> None:
    """Refuse (RunFolderError) an output path that is a file, or a folder of someone else's files.

    A folder is ours when it is missing or empty, or holds a file matching one of the ``ours`` patterns
    (a manifest, a report, game logs): what this command writes there. A path that cannot become a folder (a
    symbolic link to nothing, a file on the way) is refused too.
    """
    for step in (path, *path.parents):
        if step.is_symlink() and not step.exists():  # exists() follows the link: False when it ends nowhere
            raise RunFolderError(
                f"{option} {path}: {step} is a symbolic link to nothing (its target is missing, or "
                "the links loop): give a folder, or a link to one"
            )
        if step != path and step.exists() and not step.is_dir():
            raise RunFolderError(f"{option} {path}: {step} is a file, so no folder can be made under it")
    if path.exists() and not path.is_dir():
        raise RunFolderError(f"{option} {path} is a file, not a folder: give a folder (new, or one this command wrote)")
    if not path.is_dir() or any(next(path.glob(pattern), None) is not None for pattern in ours):
        return
    entries = sorted(entry.name for entry in path.iterdir())
    if set(entries) <= _BEFORE_MANIFEST:
        return
    shown = ", ".join(entries[:3]) + (", ..." if len(entries) > 3 else "")
    raise RunFolderError(
        f"{option} {path} is a folder of other files ({shown}), not one this command wrote (it holds no "
        f"{' or '.join(ours)}); nothing was touched: give a new or empty folder"
    )


def keep_log(log: Path, folder: Path) -> Path:
    """``log`` moved into ``folder`` under its own name, or with -2, -3, ... if a log there has it."""
    target = folder / log.name
    number = 1
    while target.exists():
        number += 1
        target = folder / f"{log.stem}-{number}{log.suffix}"
    log.replace(target)
    return target


def planned_games(ids: list[str], seeds: list[int] | None) -> dict[str, Any]:
    """The manifest's ``games`` and ``seeds``: for games ``seed<N>`` on consecutive seeds (a ``run``), their count
    and the range of seeds, whatever their number; else both listed (a tournament's blocks)."""
    if seeds and len(seeds) == len(ids) and all(seed == seeds[0] + i for i, seed in enumerate(seeds)):
        if ids == [f"seed{seed}" for seed in seeds]:
            return {"games": len(ids), "seeds": {"first": seeds[0], "last": seeds[-1]}}
    return {"games": ids, "seeds": seeds}


def games_of(manifest: dict[str, Any], most: int) -> list[str] | None:
    """The game ids a manifest plans (either form of ``planned_games``), or None when they are more than ``most``
    or not readable (a manifest is a file anyone may have edited: a range is never expanded past ``most``)."""
    games, seeds = manifest.get("games"), manifest.get("seeds")
    if isinstance(games, list):
        return [str(game) for game in games] if len(games) <= most else None
    if not (isinstance(games, int) and isinstance(seeds, dict)):
        return None
    first, last = seeds.get("first"), seeds.get("last")
    if not (isinstance(first, int) and isinstance(last, int) and games == last - first + 1 and 0 < games <= most):
        return None
    return [f"seed{seed}" for seed in range(first, last + 1)]


# The locks this process holds (lock path -> file descriptor): a second ``open`` in the same process shares the first's.
_HELD: dict[Path, int] = {}


def _release_all() -> None:
    for path in list(_HELD):
        _release(path)


def _release(path: Path) -> None:
    fd = _HELD.pop(path, None)
    if fd is None:
        return
    try:
        path.unlink(missing_ok=True)  # before the flock goes, so no one locks a file that is then removed
    except OSError:
        pass
    os.close(fd)


atexit.register(_release_all)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # someone else's process
    return True


def _holder(text: str) -> dict[str, Any]:
    try:
        data = loads_bounded(text, MAX_RUN_FILE_DEPTH)
    except ValueError:
        return {}
    return data if isinstance(data, dict) else {}


def _describe_holder(holder: dict[str, Any]) -> str:
    if not holder:
        return "a run that has not said who it is yet"
    return f"pid {holder.get('pid')} on host {holder.get('host')}, started {holder.get('started')}"


def _flock(fd: int) -> bool | None:
    """True: this process holds the lock now; False: another process does; None: no flock here (NFS, Windows)."""
    if fcntl is None:
        return None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return False
    except OSError as exc:
        if exc.errno in (errno.ENOLCK, errno.EOPNOTSUPP, errno.ENOTSUP, errno.EINVAL):
            return None
        raise
    return True


def acquire_lock(folder: Path) -> None:
    """Hold ``folder/run.lock`` for this process, or raise RunBusyError naming the live run that holds it."""
    path = (folder / LOCK_NAME).absolute()
    if path in _HELD:
        return
    while True:
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            locked = _flock(fd)
            if locked and os.fstat(fd).st_ino != os.stat(path).st_ino:  # its holder removed it as we opened it
                os.close(fd)
                continue
            holder = _holder(os.read(fd, 4096).decode("utf-8", "replace"))
        except FileNotFoundError:  # removed between open and stat: again
            os.close(fd)
            continue
        except BaseException:
            os.close(fd)
            raise
        break
    here = socket.gethostname()
    pid = holder.get("pid")
    # Without flock, a holder on this host whose process is alive still holds the folder.
    unlockable_but_held = locked is None and holder.get("host") == here and isinstance(pid, int) and _alive(pid)
    if locked is False or unlockable_but_held:
        os.close(fd)
        raise RunBusyError(
            f"{folder} is in use by another run ({_describe_holder(holder)}); wait for it to finish, or give another "
            f"--out. (If no such run is going, delete {path}.)"
        )
    if holder:
        print(
            f"note: {path} was left by a run that is no longer going ({_describe_holder(holder)}); taking it over",
            file=sys.stderr,
        )
    me = {"pid": os.getpid(), "host": here, "started": time.strftime("%Y-%m-%dT%H:%M:%S%z")}
    os.ftruncate(fd, 0)
    os.pwrite(fd, json.dumps(me).encode(), 0)
    _HELD[path] = fd


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

    def close(self) -> None:
        """Let other runs use the folder (also done when the process exits, however it exits)."""
        _release((self.path / LOCK_NAME).absolute())

    def __enter__(self) -> RunDir:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def open(
        self,
        identity: dict[str, Any],
        ids: list[str],
        kind: str = "run",
        label: str = "",
        seeds: list[int] | None = None,
    ) -> dict[str, Any]:
        """Lock the folder, write the manifest (or check it against an existing one); return the finished games.

        ``identity`` (config, lineup or entrants, ...) must match an existing manifest; ``ids`` may
        grow (more games with the same rules extend the run) but must cover the old ones.
        Raises RunFolderError (nothing touched) or RunBusyError before anything is written.
        """
        check_out_folder(self.path, "--out", ("manifest.json",))
        if self.manifest_path.is_file():
            self._read_manifest()  # a foreign manifest is refused before anything is written
        self.path.mkdir(parents=True, exist_ok=True)
        acquire_lock(self.path)
        try:
            return self._open(redact_urls(identity), ids, kind, label, seeds)
        except BaseException:
            self.close()
            raise

    def _open(
        self, identity: dict[str, Any], ids: list[str], kind: str, label: str, seeds: list[int] | None
    ) -> dict[str, Any]:
        if self.manifest_path.is_file():
            old = self._read_manifest()
            if self._extends(old, identity, ids, seeds):
                self._write_manifest(old)
        else:
            manifest = {
                "schema_version": MANIFEST_VERSION, "kind": kind, "label": label, **identity,
                **planned_games(ids, seeds),
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

    def check(self, identity: dict[str, Any], ids: list[str], seeds: list[int] | None = None) -> None:
        """Refuse what ``open`` would refuse of the folder and its manifest (RunFolderError, RunMismatchError),
        touching nothing: before a preflight spends calls on a run that cannot be played here."""
        check_out_folder(self.path, "--out", ("manifest.json",))
        if self.manifest_path.is_file():
            self._extends(self._read_manifest(), redact_urls(identity), ids, seeds)

    def _extends(self, old: dict[str, Any], identity: dict[str, Any], ids: list[str], seeds: list[int] | None) -> bool:
        """Whether the run ``old`` describes grows to ``ids`` (``old`` updated); RunMismatchError when it is another
        run, or holds games ``ids`` leave out. ``identity`` is redacted: compared as stored, never with secrets."""
        for key, value in identity.items():
            if key == "config" and isinstance(value, dict):  # a run started before a config field existed
                value = without_new_defaults(old.get(key), value)
            if old.get(key) != value:
                raise RunMismatchError(
                    f"{self.path} holds a different {old.get('kind', 'run')} (its {key} differs); "
                    "use another --out, or the same options to resume it"
                )
        planned = planned_games(ids, seeds)
        if {key: old.get(key) for key in planned} == planned:
            return False
        held = games_of(old, len(ids))
        if held is None or not set(held) <= set(ids):
            raise RunMismatchError(
                f"{self.path} holds games this command would not play; use another --out, or "
                "options that cover its games to extend it"
            )
        old.update(planned)  # more games with the same rules and players: the run grows
        return True

    def _read_manifest(self) -> dict[str, Any]:
        try:
            manifest = loads_bounded(self.manifest_path.read_text(encoding="utf-8"), MAX_RUN_FILE_DEPTH)
        except (ValueError, UnicodeDecodeError):  # not JSON, or nested deeper than a manifest
            manifest = None
        if not isinstance(manifest, dict) or manifest.get("schema_version") != MANIFEST_VERSION:
            raise RunFolderError(
                f"{self.manifest_path} is not a werewolf-bench run manifest; nothing was touched: "
                "give a new or empty folder"
            )
        return manifest

    def note(self, **values: Any) -> None:
        """Add facts learned while running (endpoints, response formats) to the manifest; not its identity."""
        manifest = self._read_manifest()
        manifest.update(values)
        self._write_manifest(manifest)

    def _write_manifest(self, manifest: dict[str, Any]) -> None:
        self.write_json(self.manifest_path.name, manifest)

    def write_json(self, name: str, data: Any) -> Path:
        """``name`` in the folder, replaced whole (never half-written), with every URL redacted."""
        path = self.path / name
        tmp = path.with_suffix(".tmp")
        tmp.write_text(json.dumps(redact_urls(data), indent=1) + "\n", encoding="utf-8")
        tmp.replace(path)
        return path

    def place_log(self, game_id: str) -> Path:
        """Move a finished game's log from its scratch folder into place (and drop the scratch): its path."""
        scratch = self.scratch_of(game_id)
        produced = next(scratch.glob("*.ndjson"))
        produced.replace(self.log_of(game_id))
        shutil.rmtree(scratch, ignore_errors=True)
        return self.log_of(game_id)

    def put_log(self, game_id: str, data: bytes) -> None:
        """A finished game's log from elsewhere (a worker process, a Ray task) into its scratch folder."""
        scratch = self.scratch_of(game_id)
        scratch.mkdir(parents=True)
        (scratch / "game.ndjson").write_bytes(data)

    def read_results(self) -> dict[str, dict[str, Any]]:
        """The last line per game (a torn last line from a kill mid-write is ignored)."""
        out: dict[str, dict[str, Any]] = {}
        if not self.results_path.is_file():
            return out
        with self.results_path.open(encoding="utf-8", errors="replace") as f:
            for line in f:
                try:
                    entry = loads_bounded(line, MAX_RUN_FILE_DEPTH)
                except ValueError:  # torn, or not the run's own
                    continue
                if isinstance(entry, dict) and "game" in entry and entry.get("status") in ("ok", "failed"):
                    out[str(entry["game"])] = entry
        return out

    def append(self, entry: dict[str, Any]) -> None:
        with self.results_path.open("a", encoding="utf-8") as f:
            if f.tell() > 0:
                f.write("\n")  # a line torn by a kill stays alone on its line
            f.write(json.dumps(redact_urls(entry)))
            f.flush()
            os.fsync(f.fileno())
