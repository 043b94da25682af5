"""Report memory benchmark: peak RSS of ``werewolf-bench report`` at 100 and 1,000 heuristic games.

    python benchmarks/report/memory.py --cache /tmp/report-memory [--games 100 1000] [--workers 2]

Plays the largest number of heuristic games once into ``--cache`` (``werewolf-bench run --agents
heuristic --no-report``; a later call with the same cache reuses them, and an interrupted one resumes),
gives each size its own run folder holding the first N logs (hard links where the file system allows,
else copies), then runs ``werewolf-bench report`` on each in a child process and reads the child's peak
resident set size from ``os.wait4`` (the kernel's own account of that one process). The report goes to a
temporary folder; its baseline games are cached beside the logs, so only the first call plays them.

Prints one JSON object: per size the peak RSS in MiB, the seconds taken and the exit code, the
machine, and whether the largest size stayed under ``--target-mb`` (300: a report's memory should not
grow with the number of games). Exit code 0 when every report succeeded and the target held, 1 when
not, 2 on bad options.

The child imports the project the way ``python -m werewolf_deception.benchmarks.cli.main`` finds it from a neutral
working folder: set ``PYTHONPATH`` to another checkout to measure its code (how the before / after figures of the
streamed report were taken).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

DEFAULT_SIZES = (100, 1000)
TARGET_MB = 300.0


def _cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text(encoding="utf-8").splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def _memory_mb() -> float | None:
    try:
        for line in Path("/proc/meminfo").read_text(encoding="utf-8").splitlines():
            if line.startswith("MemTotal:"):
                return round(int(line.split()[1]) / 1024, 1)
    except (OSError, ValueError):
        pass
    return None


def machine() -> dict[str, Any]:
    return {
        "platform": platform.platform(),
        "python": platform.python_version(),
        "cpu": _cpu_model(),
        "cpus": os.cpu_count(),
        "memory_mb": _memory_mb(),
    }


def _logs(folder: Path) -> list[Path]:
    return sorted((folder / "games").glob("*.ndjson"), key=_seed_order)


def _seed_order(path: Path) -> tuple[int, str]:
    """``seed12.ndjson`` after ``seed3.ndjson``: the first N logs are the first N seeds."""
    digits = "".join(ch for ch in path.stem if ch.isdigit())
    return (int(digits) if digits else -1, path.name)


def play(cache: Path, games: int, players: int | None, workers: int) -> Path:
    """``games`` heuristic games in ``cache/heuristic-<games>`` (reused when already there)."""
    folder = cache / (f"heuristic-{games}" + ("" if players is None else f"-{players}p"))
    if len(_logs(folder)) >= games:
        return folder
    command = [sys.executable, "-m", "werewolf_deception.benchmarks.cli.main", "run", "--agents", "heuristic",
               "--games", str(games), "--workers", str(workers), "--no-report", "--quiet",
               "--out", str(folder)]  # fmt: skip
    if players is not None:
        command += ["--players", str(players)]
    subprocess.run(command, check=True, cwd=cache)
    return folder


def subset(played: Path, games: int, cache: Path) -> Path:
    """A run folder holding the first ``games`` logs of ``played`` (its own baselines cache beside them)."""
    folder = cache / f"{played.name}-first{games}"
    target = folder / "games"
    target.mkdir(parents=True, exist_ok=True)
    wanted = _logs(played)[:games]
    for log in wanted:
        link = target / log.name
        if link.exists():
            continue
        try:
            os.link(log, link)
        except OSError:  # another file system, or no hard links: a copy measures the same
            shutil.copyfile(log, link)
    names = {log.name for log in wanted}
    for extra in target.glob("*.ndjson"):  # a folder left from a different play: exactly these games
        if extra.name not in names:
            extra.unlink()
    return folder


def measure(run_dir: Path, extra: list[str]) -> dict[str, Any]:
    """Peak RSS (MiB), seconds and exit code of one ``werewolf-bench report`` in a child process."""
    with tempfile.TemporaryDirectory(prefix="report-memory-") as out:
        command = [
            sys.executable,
            "-m",
            "werewolf_deception.benchmarks.cli.main",
            "report",
            str(run_dir),
            "--out",
            out,
            *extra,
        ]
        started = time.perf_counter()
        # The child's working folder is neutral, so PYTHONPATH (or the installed package) decides the code.
        child = subprocess.Popen(command, cwd=out, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        _, status, usage = os.wait4(child.pid, 0)
        child.returncode = os.waitstatus_to_exitcode(status)
        seconds = time.perf_counter() - started
        error = child.stderr.read().decode("utf-8", "replace")[-2000:] if child.stderr else ""
        if child.stderr:
            child.stderr.close()
    # ru_maxrss is in KiB on Linux (bytes on macOS).
    scale = 1 if sys.platform == "darwin" else 1024
    result: dict[str, Any] = {"peak_rss_mb": round(usage.ru_maxrss * scale / 2**20, 1), "seconds": round(seconds, 1),
              "exit_code": child.returncode}  # fmt: skip
    if child.returncode:
        result["stderr"] = error
    return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--cache", type=Path, required=True, help="where played games are kept between calls")
    parser.add_argument("--games", type=int, nargs="+", default=list(DEFAULT_SIZES), help="sizes (default 100 1000)")
    parser.add_argument("--players", type=int, help="players per game (default: the run command's)")
    parser.add_argument("--workers", type=int, default=2, help="processes that play the games (default 2)")
    parser.add_argument("--baseline-games", type=int, default=50, help="the report's --baseline-games (default 50)")
    parser.add_argument("--resamples", type=int, default=1000, help="the report's --resamples (default 1000)")
    parser.add_argument("--no-plots", action="store_true", help="pass --no-plots to the report")
    parser.add_argument("--target-mb", type=float, default=TARGET_MB, help="peak RSS limit at the largest size")
    args = parser.parse_args(argv)
    if any(n < 1 for n in args.games) or args.workers < 1:
        parser.error("--games sizes and --workers must be at least 1")
    cache = args.cache.resolve()
    cache.mkdir(parents=True, exist_ok=True)
    played = play(cache, max(args.games), args.players, args.workers)
    extra = ["--baseline-games", str(args.baseline_games), "--resamples", str(args.resamples)]
    extra += ["--no-plots"] if args.no_plots else []
    results = []
    for games in sorted(set(args.games)):
        results.append({"games": games, **measure(subset(played, games, cache), extra)})
    largest = results[-1]
    ok = all(r["exit_code"] == 0 for r in results) and largest["peak_rss_mb"] < args.target_mb
    report = {
        "benchmark": "report_memory", "results": results, "target_mb": args.target_mb, "ok": ok,
        "options": {"baseline_games": args.baseline_games, "resamples": args.resamples, "plots": not args.no_plots,
                    "players": args.players, "pythonpath": os.environ.get("PYTHONPATH")},
        "machine": machine(),
    }  # fmt: skip
    print(json.dumps(report, indent=1))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
