"""The ``werewolf-bench`` command line: its subcommands, option values, exit codes, progress and terminal text.

``werewolf_deception.benchmarks.cli`` was one module before the sub-packages: its public names are still read
here, from ``werewolf_deception.benchmarks.cli.main``, loaded on first use (so that importing a sibling module
does not load this one).
"""

from __future__ import annotations

from werewolf_env.core.moved import reexport

__getattr__, __dir__ = reexport(
    __name__,
    "werewolf_deception.benchmarks.cli.main",
    (
        "HelpWithDefaults",
        "OneLineParser",
        "add_execution_options",
        "build_parser",
        "detect_eval_command",
        "main",
        "play",
    ),
)
