"""Command-line options for LLM seats and the checks that make an LLM run a measurement or a fast failure.

The flags map one-to-one onto ``werewolf_deception.agents.llm.options.LLMOptions`` (the one validated options model
that lineup files and tournaments use too); a flag given on the command line overrides that option
for every LLM seat. The exit codes of a run are in ``werewolf_deception.benchmarks.console.exit_codes``.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from collections.abc import Callable
from typing import Any, TypeGuard

from werewolf_deception.agents.llm import LLMOptions, validate_options
from werewolf_deception.agents.play import AgentSpec, Lineup, ProbeResult, preflight
from werewolf_deception.benchmarks.console.exit_codes import EXIT_BAD_OPTIONS
from werewolf_deception.benchmarks.console.values import COUNT, field_bounds, whole_number

# The share of an LLM seat's actions the env may play for it before a run stops measuring the model (exit 4);
# the report's status line reads the same rule.
DEFAULT_MAX_FALLBACK_RATE = 0.10


def is_rate(value: object) -> TypeGuard[float]:
    """A share a fallback limit can be: a number from 0 to 1 (not a bool; NaN fails the range)."""
    return isinstance(value, (int, float)) and not isinstance(value, bool) and 0.0 <= value <= 1.0


# flag -> LLMOptions field (argparse's type check refuses "hot" at once; pydantic refuses NaN, ranges and URLs).
# "{default}" in a text is the field's default in LLMOptions (the one place it is set).
_FLAGS: list[tuple[str, str, type, str]] = [
    ("--response-format", "response_format", str, "{default} (default): json_schema, stepping down as the server "
     "allows"),
    ("--temperature", "temperature", float, "sampling temperature, 0-2 (default {default})"),
    ("--top-p", "top_p", float, "nucleus sampling, (0, 1] (default: not sent, the server's)"),
    ("--max-tokens", "max_tokens", int, "room for one answer (default {default}; a cut-off answer is asked again "
     "with 2x)"),
    ("--llm-seed", "seed", int, "sampling seed sent to the server (default: one per seat and game)"),
    ("--timeout", "timeout", float, "wall-clock limit per attempt, seconds (default {default})"),
    ("--connect-timeout", "connect_timeout", float, "limit to connect, seconds (default {default})"),
    ("--retries", "retries", int, "retries per call after timeouts, dropped connections, 408/409/429/5xx "
     "(default {default})"),
    ("--max-wait", "max_wait", float, "most seconds one call spends in retries and server-requested waits "
     "(default {default})"),
    ("--system-prompt", "system_prompt", str, "{default} (default: detected by the preflight), system, or user"),
    ("--context-budget", "context_budget", int, "tokens for prompt + answer (default {default}; oldest history "
     "dropped)"),
]  # fmt: skip


def llm_number(field: str) -> Callable[[str], int]:
    """An argparse ``type`` for a whole-number ``LLMOptions`` field, with that field's bounds (refused as read)."""
    return whole_number(*field_bounds(LLMOptions, field))


def add_llm_flags(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("LLM seats (override the lineup's options for every LLM seat)")
    for flag, field, kind, text in _FLAGS:
        choices = None
        if field == "response_format":
            choices = ["auto", "json_schema", "json_object_schema", "json_object", "none"]
        elif field == "system_prompt":
            choices = ["auto", "system", "user"]
        default = LLMOptions.model_fields[field].default
        parse = llm_number(field) if kind is int else kind
        group.add_argument(flag, dest=f"llm_{field}", type=parse, choices=choices, help=text.format(default=default))
    group.add_argument(
        "--no-bid-in-analysis",
        dest="llm_bid_in_analysis",
        action="store_const",
        const=False,
        help="ask each bid in a call of its own (default: the next bid comes with each peer analysis, "
        "LLMOptions.bid_in_analysis)",
    )
    group.add_argument(
        "--no-vote-in-analysis",
        dest="llm_vote_in_analysis",
        action="store_const",
        const=False,
        help="ask each vote in a call of its own (default: the vote comes with the analyses of the day's last "
        "statement, or with that statement, LLMOptions.vote_in_analysis)",
    )
    group.add_argument(
        "--no-self-analysis-in-statement",
        dest="llm_self_analysis_in_statement",
        action="store_const",
        const=False,
        help="ask each self-analysis in a call of its own (default: it comes with the statement, "
        "LLMOptions.self_analysis_in_statement)",
    )
    checks = parser.add_argument_group("validity of LLM runs")
    checks.add_argument(
        "--max-fallback-rate",
        type=float,
        default=DEFAULT_MAX_FALLBACK_RATE,
        help="exit 4 when an LLM seat's share of actions played by the env's fallback exceeds this "
        "(default %(default)s)",
    )
    checks.add_argument(
        "--breaker",
        type=COUNT,
        default=8,
        metavar="N",
        help="stop the run (exit 3) when an endpoint fails N calls in a row (default %(default)s)",
    )
    checks.add_argument("--no-preflight", action="store_true", help="skip the probe of each endpoint before the run")
    checks.add_argument("--no-cache", action="store_true", help="do not cache LLM answers in the run folder")


def llm_overrides(args: argparse.Namespace) -> dict[str, Any]:
    """The LLM options given on the command line."""
    fields = [field for _f, field, _k, _t in _FLAGS] + [
        "bid_in_analysis",
        "vote_in_analysis",
        "self_analysis_in_statement",
    ]
    return {field: getattr(args, f"llm_{field}") for field in fields if getattr(args, f"llm_{field}", None) is not None}


def judge_settings(args: argparse.Namespace, specs: list[str]) -> dict[str, Any]:
    """The LLM judge's options (``--judge-model``, ``--judge-base-url`` and the LLM flags), pool and cache."""
    if "llm-judge" not in specs:
        if args.judge_model or args.judge_base_url:
            raise ValueError("--judge-model and --judge-base-url go with --detector llm-judge")
        return {}
    if not args.judge_model:
        raise ValueError("--detector llm-judge needs --judge-model (and --judge-base-url for another server)")
    options: dict[str, Any] = {"model": args.judge_model, **llm_overrides(args)}
    if args.judge_base_url:
        options["base_url"] = args.judge_base_url
    validate_options(options, "llm-judge")
    return {
        "options": options,
        "concurrency": args.concurrency,
        "breaker": args.breaker,
        "cache_dir": None if args.no_cache else args.out / "llm-cache",
    }


def check_run_flags(args: argparse.Namespace) -> None:
    """Refuse impossible run-level values before anything starts (ValueError with the reason)."""
    rate = args.max_fallback_rate
    if not is_rate(rate):
        raise ValueError(f"--max-fallback-rate must be between 0 and 1 (got {rate})")


def with_overrides(spec: AgentSpec, overrides: dict[str, Any]) -> AgentSpec:
    if spec.kind != "llm" or not overrides:
        return spec
    return AgentSpec.model_validate({"kind": "llm", **spec.options, **overrides})


def apply_overrides(lineup: Lineup, overrides: dict[str, Any]) -> Lineup:
    """The lineup with the command line's LLM options on every LLM seat (validated again)."""
    if not overrides:
        return lineup
    data = {
        "default": with_overrides(lineup.default, overrides).model_dump(),
        **{section: {k.value if hasattr(k, "value") else k: with_overrides(s, overrides).model_dump()
                     for k, s in getattr(lineup, section).items()} for section in ("teams", "roles", "seats")},
    }  # fmt: skip
    return Lineup.model_validate(data)


# Options that change how patiently a call is made, not what is asked: a resumed run may change them.
TRANSPORT_ONLY = frozenset({"timeout", "connect_timeout", "retries", "max_wait", "backoff", "max_backoff",
                            "api_key_env", "api_key_file"})  # fmt: skip


def identity_of(spec_data: Any) -> Any:
    """A lineup's (or entrant list's) plain data without transport-only LLM options: what a run's answers depend on."""
    if isinstance(spec_data, dict):
        if spec_data.get("kind") == "llm":
            return {k: v for k, v in spec_data.items() if k not in TRANSPORT_ONLY}
        return {k: identity_of(v) for k, v in spec_data.items()}
    if isinstance(spec_data, list):
        return [identity_of(v) for v in spec_data]
    return spec_data


def run_preflight(sections: list[tuple[str, AgentSpec]], quiet: bool) -> list[ProbeResult] | int:
    """Probe each distinct (endpoint, model); the results, or exit code 2 after saying what failed."""
    if not sections:
        return []
    try:
        results = asyncio.run(preflight(sections))
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_BAD_OPTIONS
    failed = [r for r in results if not r.ok]
    for result in failed:
        print(f"error: preflight: {result.message()}", file=sys.stderr)
    if failed:
        print("nothing was played; fix the above, or pass --no-preflight to skip this check", file=sys.stderr)
        return EXIT_BAD_OPTIONS
    if not quiet:
        for result in results:
            print(f"preflight: {result.message()}", file=sys.stderr)
    return results
