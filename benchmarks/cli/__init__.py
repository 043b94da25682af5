"""The ``werewolf-bench`` command line: its parser and entry point (``main``), and one module per subcommand.

The names other packages use, from the modules that define them.
"""

from __future__ import annotations

from werewolf_deception.benchmarks.cli.run import parse_role_counts

__all__ = [
    "parse_role_counts",
]
