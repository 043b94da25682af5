"""Speed of the claim extractor, in statements per second, as JSON.

    python -m werewolf_deception.benchmarks.perf.claims_speed [--repeats 5] [--baseline 6cf7a86]

Two workloads, each timed with the memo off (every statement read afresh), median of ``--repeats``:
``real_speech``: every public statement of the shared corpus (``games.jsonl``; skipped without it);
``template_speech``: the statements of 20 heuristic games (the engine's own agents). The extractor
runs on every statement of every game, so this is the number that bounds its cost in a run.
``--baseline REV`` times the extractor of an older commit (read with ``git show``) in the same run,
interleaved, and reports the ratio (this commit's speed / the baseline's).
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import platform
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from werewolf_deception.benchmarks.shared_data import transcripts_corpus
from werewolf_env.claims import ClaimExtractor

CORPUS = transcripts_corpus() / "games.jsonl"


def real_speech(path: Path) -> list[tuple[tuple[str, ...], str, int]]:
    out = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            game = json.loads(line)
            names = tuple(game["players"])
            for e in game["events"]:
                if e["kind"] == "speech" and e["speaker"] in names:
                    out.append((names, e["text"], names.index(e["speaker"])))
    return out


def template_speech(games: int = 20) -> list[tuple[tuple[str, ...], str, int]]:
    from werewolf_deception.agents.play import play_game_sync

    out: list[tuple[tuple[str, ...], str, int]] = []
    envs: list[Any] = []

    def keep_env(env: Any, agent: str, info: dict[str, Any]) -> None:
        if not envs or envs[-1] is not env:
            envs.append(env)

    for seed in range(games):
        play_game_sync(None, "heuristic", seed, info_hook=keep_env)
        state = envs[-1].game.state
        out += [(tuple(state.names), st.text, st.speaker) for st in state.statements]
    return out


def baseline_extractor(rev: str) -> Any:
    """The ``ClaimExtractor`` class of commit ``rev`` (from wherever that commit kept it)."""
    root = Path(__file__).resolve().parents[2]
    # today's layout first, then the flat layout of commits before the sub-packages
    places = (
        "werewolf_env/claims/text.py",
        "werewolf_env/claims/model.py",
        "werewolf_env/claim_text.py",
        "werewolf_env/claims.py",
    )
    for path in places:
        shown = subprocess.run(["git", "show", f"{rev}:{path}"], cwd=root, capture_output=True, text=True)
        if shown.returncode == 0 and "class ClaimExtractor" in shown.stdout:
            break
    else:
        raise SystemExit(f"claims_speed: no ClaimExtractor at {rev}")
    name = "werewolf_env._baseline_claims"  # inside the package, so its relative imports resolve
    spec = importlib.util.spec_from_loader(name, loader=None)
    assert spec is not None
    module = importlib.util.module_from_spec(spec)
    module.__package__ = path.rsplit("/", 1)[0].replace("/", ".")
    sys.modules[name] = module
    exec(compile(shown.stdout, f"{rev}:{path}", "exec"), module.__dict__)
    return module.ClaimExtractor


def timed(statements: list[tuple[tuple[str, ...], str, int]], repeats: int, classes: list[Any]) -> list[float]:
    """Median statements/s of each extractor class, the classes interleaved within every repeat."""
    extractors = [{names: cls(names) for names, _, _ in statements} for cls in classes]
    rates: list[list[float]] = [[] for _ in classes]
    for _ in range(repeats):
        for i, by_names in enumerate(extractors):
            start = time.perf_counter()
            for names, text, speaker in statements:
                by_names[names]._scan(text, speaker)  # the memo is bypassed: every statement is read afresh
            rates[i].append(len(statements) / (time.perf_counter() - start))
    return [round(statistics.median(r), 1) for r in rates]


def _entry(statements: list[Any], rates: list[float]) -> dict[str, Any]:
    entry: dict[str, Any] = {"statements": len(statements), "statements_per_second": rates[0]}
    if len(rates) > 1:
        entry["baseline_statements_per_second"] = rates[1]
        entry["speed_ratio"] = round(rates[0] / rates[1], 3)
    return entry


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m werewolf_deception.benchmarks.perf.claims_speed", description=__doc__.split("\n\n")[0]
    )
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--corpus", type=Path, default=CORPUS, help="games.jsonl of the transcripts corpus")
    parser.add_argument("--baseline", metavar="REV", help="also time the extractor of this git commit")
    args = parser.parse_args(argv)
    classes = [ClaimExtractor] + ([baseline_extractor(args.baseline)] if args.baseline else [])
    result: dict[str, Any] = {"machine": platform.machine(), "python": platform.python_version()}
    if args.baseline:
        result["baseline"] = args.baseline
    if args.corpus.exists():
        statements = real_speech(args.corpus)
        result["real_speech"] = _entry(statements, timed(statements, args.repeats, classes))
    templates = template_speech()
    result["template_speech"] = _entry(templates, timed(templates, args.repeats, classes))
    print(json.dumps(result, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
