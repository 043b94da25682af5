"""``werewolf-bench relabel``: the command line of ``werewolf_deception.benchmarks.labels.relabel`` (arguments, the
labeler, the summary)."""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

from werewolf_deception.agents.credentials import KEY_VARIABLE_HELP
from werewolf_deception.benchmarks.console import COUNT, IN_FLIGHT, exit_codes_text, llm_number, print_lines
from werewolf_deception.benchmarks.labels import (
    DEFAULT_CORPUS,
    EXIT_BAD,
    EXIT_DOWN,
    EXIT_INCOMPLETE,
    EXIT_NOTHING,
    LabelerUnavailableError,
    LLMLabeler,
    Relabelled,
    StatementProgress,
    format_summary,
    llm_labeler,
    regex_labeler,
    relabel_jsonl,
    relabel_run,
    write_atomic,
)
from werewolf_deception.benchmarks.runs import find_logs
from werewolf_env.claims import CLAIM_KINDS


def add_relabel_parser(commands: Any, formatter: type[argparse.HelpFormatter] = argparse.HelpFormatter) -> None:
    text = "label a run's (or a JSONL's) statements with another claim labeler"
    p = commands.add_parser(
        "relabel", help=text, description=text, epilog=exit_codes_text("relabel"), formatter_class=formatter
    )
    p.add_argument("source", type=Path, help="a run folder (games/*.ndjson) or a .jsonl of statements")
    p.add_argument("--labeler", choices=["llm", "regex"], default="llm", help="llm (default) or regex (no model)")
    p.add_argument("--model", help="the model name (required for --labeler llm; no default)")
    p.add_argument("--base-url", help="OpenAI-compatible endpoint (default $OPENAI_BASE_URL or OpenAI)")
    p.add_argument("--api-key-env", default="OPENAI_API_KEY", help=f"{KEY_VARIABLE_HELP} (default OPENAI_API_KEY)")
    p.add_argument("--concurrency", type=IN_FLIGHT, default=8, help="calls in flight (default 8)")
    p.add_argument("--out", type=Path, help="run folder: the claims folder (default SOURCE/claims); JSONL: the file")
    p.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS, help="transcripts corpus (night logs; JSONL only)")
    p.add_argument("--timeout", type=float, help="wall-clock limit per attempt, seconds (default 60)")
    p.add_argument("--retries", type=llm_number("retries"), help="retries per call (default 4)")
    p.add_argument("--max-tokens", type=llm_number("max_tokens"), help="room for one answer (default 600)")
    p.add_argument(
        "--response-format",
        choices=["auto", "json_schema", "json_object_schema", "json_object", "none"],
        help="what to ask the server for; auto (default) steps down from json_schema as the server refuses",
    )
    p.add_argument(
        "--breaker", type=COUNT, default=8, help="stop (exit 3) after N calls in a row with no usable answer"
    )
    p.add_argument("--max-failure-rate", type=float, default=0.10, help="exit 4 above this share of failures")
    p.add_argument("--no-preflight", action="store_true", help="skip the probe of the endpoint")
    p.add_argument("--json", action="store_true", help="print the summary as JSON")
    p.add_argument("--quiet", "-q", action="store_true", help="no progress line and no summary")


def make_labeler(args: argparse.Namespace) -> Any:
    if args.labeler == "regex":
        return regex_labeler(None)  # run items carry their revealed roles; JSONL items get the corpus's below
    if not args.model:
        raise ValueError("--labeler llm needs --model (and --base-url for a server other than OpenAI)")
    options = {
        k: v
        for k, v in (
            ("timeout", args.timeout),
            ("retries", args.retries),
            ("max_tokens", args.max_tokens),
            ("response_format", args.response_format),
        )
        if v is not None
    }
    return llm_labeler(
        args.model,
        args.base_url,
        api_key_env=args.api_key_env,
        concurrency=args.concurrency,
        breaker=args.breaker,
        preflight=not args.no_preflight,
        **options,
    )


def relabel_command(args: argparse.Namespace) -> int:
    source: Path = args.source
    try:
        if not 0.0 <= args.max_failure_rate <= 1.0:  # NaN fails this too
            raise ValueError(f"--max-failure-rate must be between 0 and 1 (got {args.max_failure_rate})")
        labeler = make_labeler(args)
        is_run = source.is_dir()
        if is_run and not find_logs(source):
            raise ValueError(f"no game logs in {source}")
        if not is_run and not source.is_file():
            raise ValueError(f"no such run folder or file: {source}")
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_BAD
    name = args.labeler
    shown = StatementProgress(quiet=args.quiet)
    if isinstance(labeler, LLMLabeler):
        labeler.on_done = shown
    started = time.perf_counter()
    try:
        if is_run:
            result = relabel_run(source, name, labeler, args.out or source / "claims")
        else:
            out = args.out or source.with_name(f"{source.stem}.{name}.jsonl")
            result = relabel_jsonl(source, name, labeler, out, args.corpus)
    except LabelerUnavailableError as exc:
        print(f"error: preflight: {exc}\nnothing was labelled; fix the above, or pass --no-preflight", file=sys.stderr)
        return EXIT_BAD
    except (ValueError, OSError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_BAD
    finally:
        shown.close()
    summary = finish_summary(result, labeler, name, time.perf_counter() - started)
    if isinstance(labeler, LLMLabeler) and labeler.down is not None:
        how = "stopped answering" if summary["answered"] else "gave no answer"
        print(
            f"RELABEL STOPPED: {labeler.endpoint_shown} model {labeler.options.model!r} {how}: "
            f"{labeler.down}. {summary['answered']} of {summary['statements']} statements were labelled; "
            "nothing was written.",
            file=sys.stderr,
        )
        return EXIT_DOWN
    if not summary["statements"]:
        skipped = "; ".join(f"{s['game']}: {s['error']}" for s in summary.get("skipped_logs") or [])
        print(
            f"error: no statement to label in {source}" + (f" (skipped {skipped})" if skipped else ""), file=sys.stderr
        )
        return EXIT_NOTHING
    if not summary["answered"]:
        causes = ", ".join(f"{k} {v}" for k, v in summary["failures"].items())
        print(f"error: no statement could be labelled ({causes}); nothing was written", file=sys.stderr)
        return EXIT_NOTHING
    for path, text in result.writes.items():
        write_atomic(path, text)
    if result.summary_path is not None:
        write_atomic(result.summary_path, json.dumps(summary, indent=1, ensure_ascii=False) + "\n")
    rate = summary["failed"] / summary["statements"]
    incomplete = rate > args.max_failure_rate
    if incomplete:
        print(
            f"INCOMPLETE LABELS: {summary['failed']} of {summary['statements']} statements ({rate:.0%}) could "
            f"not be labelled, more than --max-failure-rate {args.max_failure_rate:.0%}; each carries its error."
        )
    if not args.quiet:
        print(json.dumps(summary, indent=1)) if args.json else print_lines(format_summary(summary))
    return EXIT_INCOMPLETE if incomplete else 0


def finish_summary(result: Relabelled, labeler: Any, name: str, seconds: float) -> dict[str, Any]:
    if isinstance(labeler, LLMLabeler):
        head = labeler.summary()
    else:
        failed = sum(1 for claims in result.labels if claims is None)
        head = {"model": None, "base_url": None, "statements": result.statements,
                "answered": result.statements - failed, "failed": failed, "failures": {},
                "tokens": {"prompt": 0, "completion": 0}}  # fmt: skip
    claims = [c for claims in result.labels if claims for c in claims]
    head["claims"] = {"total": len(claims), **{k: sum(1 for c in claims if c["kind"] == k) for k in CLAIM_KINDS}}
    return {"labeler": name, **head, **result.summary, "seconds": round(seconds, 2)}
