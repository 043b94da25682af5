"""How well the bundled real model plays through the real server, with the default CLI options.

    python -m werewolf_deception.benchmarks.studies.local_model [--games 1] [--rounds R] [--debate-turns T] \\
        [--prompt-cache]

Starts llama.cpp's server (llama-cpp-python) with the bundled 270M Gemma on 127.0.0.1, runs
``werewolf-bench run --model gemma-3-270m --base-url URL`` with nothing else set, and prints JSON:
the run's exit code and validity (answered / repaired / fallback rates per action kind), prompt and
completion tokens per call, seconds per call, statements that echo a placeholder, and what the
preflight detected. Needs the ``local`` extra.
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from werewolf_deception.agents.llm import MODEL_NAME, LocalModelServer
from werewolf_deception.benchmarks.console import game_option
from werewolf_deception.benchmarks.runs import run_validity
from werewolf_env.actions import echoes_template
from werewolf_env.engine import read_log


def call_stats(logs: list[Path]) -> dict[str, Any]:
    """Tokens and seconds per call, by action kind, from the games' call records."""
    by_kind: dict[str, dict[str, list[float]]] = {}
    statements = placeholders = 0
    for path in logs:
        for record in read_log(path):
            data = record.get("data") or {}
            if record.get("type") == "statement":
                statements += 1
                placeholders += echoes_template(str(data.get("text", ""))) is not None
            if record.get("type") != "agent_record" or data.get("type") != "llm_call" or data.get("cached"):
                continue
            usage = data.get("usage") or {}
            kind = by_kind.setdefault(data.get("action_kind", "?"), {"prompt": [], "completion": [], "seconds": []})
            if isinstance(usage.get("prompt_tokens"), int):
                kind["prompt"].append(usage["prompt_tokens"])
                kind["completion"].append(usage.get("completion_tokens") or 0)
            kind["seconds"].append(float(data.get("call_latency_s") or data.get("latency_s") or 0.0))

    def summary(values: list[float]) -> dict[str, float] | None:
        if not values:
            return None
        ordered = sorted(values)
        return {
            "mean": round(statistics.fmean(values), 1),
            "median": ordered[len(ordered) // 2],
            "p95": ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))],
        }

    every = {k: [v for kind in by_kind.values() for v in kind[k]] for k in ("prompt", "completion", "seconds")}
    return {
        "calls": len(every["seconds"]),
        "prompt_tokens_per_call": summary(every["prompt"]),
        "completion_tokens_per_call": summary(every["completion"]),
        "seconds_per_call": summary(every["seconds"]),
        "by_kind": {
            k: {
                "calls": len(v["seconds"]),
                "prompt_tokens": summary(v["prompt"]),
                "completion_tokens": summary(v["completion"]),
                "seconds": summary(v["seconds"]),
            }
            for k, v in sorted(by_kind.items())
        },
        "statements": statements,
        "placeholder_statements": placeholders,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=1)
    game_option(parser, "num_players", help="seats per game")
    parser.add_argument("--rounds", type=int, help="default: the CLI's")
    parser.add_argument("--debate-turns", type=int, help="default: the CLI's")
    parser.add_argument("--prompt-cache", action="store_true", help="llama-cpp-python's RAM prompt cache (leaks)")
    parser.add_argument("--out", type=Path, help="run folder (default: a temporary one)")
    args = parser.parse_args(argv)
    from werewolf_deception.benchmarks.cli.main import main as cli_main

    with tempfile.TemporaryDirectory() as tmp:
        out = args.out or Path(tmp) / "run"
        log = Path(tmp) / "server.log"
        with LocalModelServer(prompt_cache=args.prompt_cache, log=log) as server:
            cmd = ["run", "--model", MODEL_NAME, "--base-url", server.base_url, "--games", str(args.games),
                   "--players", str(args.players), "--out", str(out), "--no-report", "--quiet"]  # fmt: skip
            if args.rounds is not None:
                cmd += ["--rounds", str(args.rounds)]
            if args.debate_turns is not None:
                cmd += ["--debate-turns", str(args.debate_turns)]
            started = time.perf_counter()
            code = cli_main(cmd)
            seconds = time.perf_counter() - started
        logs = sorted((out / "games").glob("*.ndjson"))
        summary = json.loads((out / "summary.json").read_text()) if (out / "summary.json").is_file() else {}
        validity = run_validity(logs)
        result = {
            "model": MODEL_NAME, "command": "werewolf-bench " + " ".join(re.sub(r"/tmp\S*", "…", c) for c in cmd),
            "prompt_cache": args.prompt_cache, "exit_code": code, "games": len(logs),
            "seconds": round(seconds, 1), "status": summary.get("status"), "headline": summary.get("headline"),
            "preflight": summary.get("preflight"), "validity": validity, **call_stats(logs),
        }  # fmt: skip
    json.dump(result, sys.stdout, indent=1)
    print()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
