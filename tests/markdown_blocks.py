"""The fenced code blocks of a Markdown page, with the marks that say how the docs tests run them.

A mark is an HTML comment on the line right above a fence (invisible on GitHub and on the docs site)::

    <!-- doctest: skip="needs a real model server" -->    not run; the reason is required
    <!-- doctest: slow="plays 200 games (3 min)" -->      runs only with WEREWOLF_DOCS_SLOW=1 (CI's full run)
    <!-- doctest: needs=torchrl -->                        skipped unless that module imports (an extra)
    <!-- doctest: fake-server -->                          the project's fake OpenAI server is running, and
                                                           http://localhost:8000/v1 in the block points at it
    <!-- doctest: exit=1 -->                               the shell block must exit with this code (default 0)
    <!-- doctest: file=lineup.toml -->                     any block: written to that file in the page's folder
    <!-- doctest: output -->                               a text block: the output of the runnable block above
    <!-- doctest: continue -->                             a Python block that goes on from the one above it
                                                           (its names); otherwise each block stands alone
    <!-- doctest: two-commands -->                         the README's two commands (.ci/run runs them)

Several marks may share one comment: ``<!-- doctest: fake-server exit=4 -->``. Python and shell blocks run;
every other language is shown only (unless a ``file=`` mark writes it).
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass, field
from pathlib import Path

PYTHON_LANGUAGES = frozenset({"python", "py", "python3"})
SHELL_LANGUAGES = frozenset({"bash", "sh", "shell", "zsh"})
MARK_LINE = re.compile(r"^\s*<!--\s*doctest:(?P<marks>.*?)-->\s*$")
FENCE_OPEN = re.compile(r"^(?P<indent>\s*)(?P<fence>`{3,}|~{3,})\s*(?P<info>[^`]*)$")
KNOWN_MARKS = frozenset({"skip", "slow", "needs", "fake-server", "exit", "file", "output", "two-commands", "continue"})
# Marks that carry the reason a block is not run every time: an empty one is an error, not a silent skip.
REASONED_MARKS = ("skip", "slow")


class MarkError(ValueError):
    """A doctest mark that cannot be read: an unknown name, or skip/slow without a reason."""


@dataclass
class Block:
    """One fenced block: where it starts (1-based line of the fence), its language, its text and marks."""

    line: int
    language: str
    code: str
    marks: dict[str, str] = field(default_factory=dict)
    output: str | None = None  # the expected output (a following block marked output), if any

    @property
    def runs(self) -> bool:
        return self.language in PYTHON_LANGUAGES or self.language in SHELL_LANGUAGES

    @property
    def shell(self) -> bool:
        return self.language in SHELL_LANGUAGES


def parse_marks(text: str, where: str) -> dict[str, str]:
    marks: dict[str, str] = {}
    for word in shlex.split(text):
        name, _, value = word.partition("=")
        if name not in KNOWN_MARKS:
            raise MarkError(f"{where}: unknown doctest mark {name!r} (known: {', '.join(sorted(KNOWN_MARKS))})")
        if name in REASONED_MARKS and not value.strip():
            raise MarkError(f'{where}: doctest mark {name} needs a reason: {name}="why"')
        if name == "exit" and not value.isdigit():
            raise MarkError(f"{where}: doctest mark exit needs a whole number: exit=4")
        marks[name] = value
    return marks


def read_blocks(path: Path) -> list[Block]:
    """Every fenced block of ``path`` in order; output blocks are attached to the block they follow."""
    lines = path.read_text(encoding="utf-8").splitlines()
    blocks: list[Block] = []
    pending: dict[str, str] = {}
    i = 0
    while i < len(lines):
        line = lines[i]
        mark = MARK_LINE.match(line)
        if mark:
            pending = {**pending, **parse_marks(mark["marks"], f"{path}:{i + 1}")}
            i += 1
            continue
        fence = FENCE_OPEN.match(line)
        if not fence:
            if line.strip() and pending:
                raise MarkError(f"{path}:{i + 1}: a doctest mark must stand right above its fence")
            i += 1
            continue
        indent, ticks = len(fence["indent"]), fence["fence"]
        language = (fence["info"].strip().split() or [""])[0].strip("{}.").lower()
        body: list[str] = []
        j = i + 1
        while j < len(lines) and not (lines[j].strip().startswith(ticks) and not lines[j].strip().strip(ticks[0])):
            body.append(lines[j][indent:] if lines[j][:indent].strip() == "" else lines[j].lstrip())
            j += 1
        code = "\n".join(body) + "\n"
        if "output" in pending:
            if not blocks or not blocks[-1].runs:
                raise MarkError(f"{path}:{i + 1}: an output block must follow a python or shell block")
            if blocks[-1].output is not None:
                raise MarkError(f"{path}:{i + 1}: the block above already has its output block")
            blocks[-1].output = code
        else:
            blocks.append(Block(line=i + 1, language=language, code=code, marks=pending))
        pending = {}
        i = j + 1
    return blocks


def two_commands(readme: Path) -> list[str]:
    """The README's two commands, in order (the block marked two-commands, without its comment lines)."""
    for block in read_blocks(readme):
        if "two-commands" in block.marks:
            return [ln for ln in block.code.splitlines() if ln.strip() and not ln.lstrip().startswith("#")]
    raise LookupError(f"{readme} has no block marked <!-- doctest: two-commands -->")


if __name__ == "__main__":  # .ci/run: python tests/markdown_blocks.py README.md -> one command a line
    import sys

    print("\n".join(two_commands(Path(sys.argv[1]))))
