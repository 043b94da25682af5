"""The compiled build plays default games exactly as the pure one: the same logs, byte for byte.

    python benchmarks/perf/compiled_identity.py --compiled /path/to/compiled-venv/bin/python [--seeds 20]

Plays ``werewolf-bench run`` (heuristic agents, the default options) for every table size from 5 to 12 seats
in two interpreters: this one (the pure build; from a checkout, the checkout's source) and ``--compiled``
(an environment where the compiled wheel is installed, ``WEREWOLF_COMPILE=1``). Both run outside the
checkout, so each imports its own build; each must be the build it claims to be (``rules`` a C extension or
not). It compares every game log (the events with the engine's ground truth, the final snapshot), every
game's result and the run summary (the lies found, claims coverage, the replay check), leaving out only
wall-clock times and paths. Prints JSON; exits 1 when anything differs.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

CHECKOUT = Path(__file__).resolve().parents[2]
PLAYERS = range(5, 13)
# Where a timed or placed value sits in results and summaries: what may differ between two runs of one build.
UNSTABLE = ("seconds", "log_path")
# A module mypyc compiles (setup.py's COMPILED): a C extension in the compiled build, a .py file in the pure one.
PROBE = "import werewolf_env.engine.rules as m; print(m.__file__)"


def environment(pure: bool) -> dict[str, str]:
    """The pure build from a checkout imports the checkout's source; the compiled one only what it installed."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    if pure and (CHECKOUT / "pyproject.toml").is_file() and (CHECKOUT / "werewolf_env").is_dir():
        env["PYTHONPATH"] = str(CHECKOUT)
    return env


def rules_module(python: str, env: dict[str, str], scratch: Path) -> str:
    """The file ``python`` imports a compiled module from: ``.so`` (a C extension) in the compiled build."""
    out = subprocess.run([python, "-c", PROBE], env=env, cwd=scratch, capture_output=True, text=True, check=True)
    return out.stdout.strip()


def _play(python: str, env: dict[str, str], scratch: Path, out: Path, seeds: int) -> None:
    for players in PLAYERS:
        command = [python, "-m", "werewolf_deception.benchmarks.cli.main", "run", "--games", str(seeds),
                   "--players", str(players), "--no-report", "--quiet", "--out", str(out / f"{players}p")]  # fmt: skip
        subprocess.run(command, env=env, cwd=scratch, check=True, stdout=subprocess.DEVNULL)


def _stable(value: Any) -> Any:
    """A result or summary without its wall-clock times and paths."""
    if isinstance(value, dict):
        return {k: _stable(v) for k, v in value.items() if not any(word in k for word in UNSTABLE)}
    if isinstance(value, list):
        return [_stable(v) for v in value]
    return value


def _differences(pure: Path, compiled: Path) -> tuple[int, list[str]]:
    """How many game logs were compared, and what differs (file names relative to a run folder)."""
    logs = 0
    differ = []
    for players in PLAYERS:
        a, b = pure / f"{players}p", compiled / f"{players}p"
        names = sorted(p.name for p in (a / "games").glob("*.ndjson"))
        if names != sorted(p.name for p in (b / "games").glob("*.ndjson")):
            differ.append(f"{players}p/games/ (not the same games)")
        for name in names:
            logs += 1
            if (a / "games" / name).read_bytes() != (b / "games" / name).read_bytes():
                differ.append(f"{players}p/games/{name}")
        results = [[_stable(json.loads(line)) for line in (run / "results.ndjson").read_text().splitlines()]
                   for run in (a, b)]  # fmt: skip
        if results[0] != results[1]:
            differ.append(f"{players}p/results.ndjson")
        summaries = [_stable(json.loads((run / "summary.json").read_text())) for run in (a, b)]
        if summaries[0] != summaries[1]:
            differ.append(f"{players}p/summary.json")
    return logs, differ


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--compiled", required=True, help="the Python of an environment with the compiled build")
    parser.add_argument("--seeds", type=int, default=20, help="games (seeds 0, 1, ...) per table size")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as folder:
        scratch = Path(folder)
        builds = {"pure": sys.executable, "compiled": args.compiled}
        modules = {}
        for build, python in builds.items():
            env = environment(pure=build == "pure")
            modules[build] = rules_module(python, env, scratch)
            _play(python, env, scratch, scratch / build, args.seeds)
        logs, differ = _differences(scratch / "pure", scratch / "compiled")
    wrong_build = [b for b, module in modules.items() if module.endswith(".py") != (b == "pure")]
    result = {
        "builds": {b: {"python": builds[b], "rules_module": modules[b]} for b in builds},
        "players": [PLAYERS.start, PLAYERS.stop - 1], "seeds_per_table": args.seeds, "game_logs": logs,
        "identical": not differ and not wrong_build, "differ": differ, "wrong_build": wrong_build,
    }  # fmt: skip
    print(json.dumps(result, indent=2))
    return 0 if result["identical"] else 1


if __name__ == "__main__":
    raise SystemExit(main())
