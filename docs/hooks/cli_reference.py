"""MkDocs hook: the command-line reference, generated from ``werewolf-bench``'s own argparse parser.

``docs/cli.md`` holds the marker ``<!-- cli-reference -->``; at build time it is replaced by one section per
subcommand (its description, usage, every option with its default, and the exit codes it can return), so
the page cannot drift from ``--help``.
"""

from __future__ import annotations

import argparse
import html
import re
from typing import Any

MARKER = "<!-- cli-reference -->"
PROGRAM = "werewolf-bench"


def _subcommands(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    return {}


def _cell(text: str) -> str:
    return html.escape(" ".join(text.split())).replace("|", "\\|")


def _option_rows(parser: argparse.ArgumentParser) -> list[str]:
    formatter = parser._get_formatter()
    rows = []
    for action in parser._actions:
        if isinstance(action, argparse._HelpAction) or action.help == argparse.SUPPRESS:
            continue
        if action.option_strings:
            metavar = "" if action.nargs == 0 else " " + formatter._format_args(action, action.dest.upper())
            name = ", ".join(f"`{flag}{metavar}`" for flag in action.option_strings)
        else:
            name = f"`{formatter._format_args(action, action.dest)}`"
        help_text = formatter._expand_help(action) if action.help else ""
        rows.append(f"| {name} | {_cell(help_text)} |")
    return rows


def _epilog_codes(parser: argparse.ArgumentParser) -> str:
    epilog = parser.epilog or ""
    if "exit codes:" not in epilog:
        return ""
    lines = epilog.split("exit codes:", 1)[1].strip("\n").splitlines()
    codes: list[tuple[str, str]] = []
    for line in lines:
        match = re.match(r"^\s{2}(\d+)\s+(.*)$", line)
        if match:
            codes.append((match[1], match[2]))
        elif codes and line.strip():
            codes[-1] = (codes[-1][0], f"{codes[-1][1]} {line.strip()}")
    return "\n".join(["| exit code | meaning |", "|---|---|", *(f"| {c} | {_cell(m)} |" for c, m in codes)])


def reference() -> str:
    from werewolf_deception.benchmarks.cli.main import build_parser

    parser = build_parser()
    parts = []
    for name, sub in _subcommands(parser).items():
        usage = sub.format_usage().removeprefix("usage: ").strip()
        parts += [
            f"## `{PROGRAM} {name}`",
            "",
            _cell(sub.description or ""),
            "",
            "```text",
            usage,
            "```",
            "",
            "| option | what it does (default) |",
            "|---|---|",
            *_option_rows(sub),
            "",
        ]
        codes = _epilog_codes(sub)
        if codes:
            parts += ["Exit codes:", "", codes, ""]
    return "\n".join(parts)


def on_page_markdown(markdown: str, page: Any, **_: Any) -> str:
    if MARKER in markdown:
        return markdown.replace(MARKER, reference())
    return markdown
