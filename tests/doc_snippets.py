"""Runs the README's and the docs pages' code blocks as tests, so that no example can drift.

Each page gets its own empty working folder; its blocks run in order there (a later block may read the
files an earlier one wrote, as a reader following the page would have them). Each Python block stands alone
(its own imports: a reader copies one block), unless marked ``continue``; shell blocks run in
``bash -e -o pipefail`` with this environment's commands first on PATH. A block followed by a block marked
``output`` must print that output (``...`` matches anything, as in doctest). The marks are read by
``tests/markdown_blocks.py``, which lists them.
"""

from __future__ import annotations

import contextlib
import doctest
import importlib.util
import io
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.markdown_blocks import Block, read_blocks

ROOT = Path(__file__).resolve().parent.parent
PAGE_GLOBS = ("README.md", "docs/**/*.md")
SLOW_SWITCH = "WEREWOLF_DOCS_SLOW"
FAKE_URL = "http://localhost:8000/v1"  # what the docs show; a fake-server block is pointed at the real port
BLOCK_TIMEOUT_S = 900
_CHECKER = doctest.OutputChecker()
_OPTIONS = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE


def output_difference(want: str, got: str) -> str | None:
    """None when ``got`` is what the page shows (``...`` matching anything, white space folded), else a diff."""
    if _CHECKER.check_output(want, got, _OPTIONS):
        return None
    return _CHECKER.output_difference(doctest.Example(source="", want=want), got, _OPTIONS)


def is_doc_page(path: Path) -> bool:
    """The README at the repository's root, and the pages under docs/ (never a README.md elsewhere)."""
    try:
        relative = path.resolve().relative_to(ROOT)
    except ValueError:
        return False
    return relative.as_posix() == "README.md" or (relative.parts[:1] == ("docs",) and path.suffix == ".md")


class MarkdownPage(pytest.File):
    def collect(self) -> Iterator[pytest.Item]:
        page = PageState(read_blocks(self.path))
        for index, block in enumerate(page.blocks):
            if collected(block):
                name = f"line {block.line} ({block.language})"
                yield BlockItem.from_parent(self, name=name, index=index, page=page)


class PageState:
    """What the blocks of one page share: a working folder, which blocks have run in it, and the last Python
    block's names (for continue)."""

    def __init__(self, blocks: list[Block]) -> None:
        self.blocks = blocks
        self.folder: Path | None = None
        self.ran: set[int] = set()
        self.namespace: dict[str, Any] = {}

    def working_folder(self, factory: pytest.TempPathFactory) -> Path:
        if self.folder is None:
            self.folder = factory.mktemp("page")
        return self.folder


def collected(block: Block) -> bool:
    """A block that does something: it runs (Python, shell) or writes a file for the blocks after it."""
    return block.runs or "file" in block.marks


def why_not_run(block: Block) -> str | None:
    """The reason this block does not run here (its marks, this environment), else None."""
    marks = block.marks
    if "two-commands" in marks:
        return "shown only: .ci/run runs the README's two commands verbatim, each in a fresh virtual environment"
    if "skip" in marks:
        return f"shown only: {marks['skip']}"
    if "slow" in marks and os.environ.get(SLOW_SWITCH) != "1":
        return f"slow ({marks['slow']}): runs with {SLOW_SWITCH}=1, as in CI's full-extras run"
    if marks.get("needs") and importlib.util.find_spec(marks["needs"]) is None:
        return f"needs {marks['needs']} (an optional extra)"
    return None


class BlockItem(pytest.Item):
    def __init__(self, *, index: int, page: PageState, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.index = index
        self.page = page
        self.block = page.blocks[index]

    def runtest(self) -> None:
        reason = why_not_run(self.block)
        if reason:
            pytest.skip(f"{self.path.name}:{self.block.line}: {reason}")
        # Run alone (a rerun of what an earlier run skipped, say), a block still finds what the page's earlier
        # blocks wrote: those that did not run in this session run first, as a reader would have run them.
        for earlier, block in enumerate(self.page.blocks[: self.index]):
            if earlier not in self.page.ran and collected(block) and why_not_run(block) is None:
                self._run(earlier)
        self._run(self.index)

    def _run(self, index: int) -> None:
        block = self.page.blocks[index]
        self.page.ran.add(index)
        folder = self.page.working_folder(self.config._tmp_path_factory)  # type: ignore[attr-defined]
        if "file" in block.marks:
            (folder / block.marks["file"]).write_text(block.code, encoding="utf-8")
            if not block.runs:
                return
        with contextlib.ExitStack() as stack:
            code = block.code
            if "fake-server" in block.marks:
                from werewolf_deception.agents.fake.server import FakeOpenAIServer

                server = stack.enter_context(FakeOpenAIServer())
                code = code.replace(FAKE_URL, server.base_url)
            output = self._run_shell(block, code, folder) if block.shell else self._run_python(block, code, folder)
        difference = output_difference(block.output, output) if block.output is not None else None
        if difference:
            raise BlockFailedError(f"{self.path}:{block.line}: the output differs\n{difference}")

    def _run_shell(self, block: Block, code: str, folder: Path) -> str:
        path = f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"
        # The developer's own endpoint and project settings stay out: a page shows what a fresh shell does.
        inherited = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "WEREWOLF_"))}
        env = {**inherited, "PATH": path, "PYTHONPATH": str(ROOT), "COLUMNS": "100", "TERM": "dumb",
               "OPENAI_API_KEY": "sk-docs-example"}  # fmt: skip
        done = subprocess.run(
            ["bash", "-e", "-o", "pipefail", "-c", code],
            cwd=folder,
            env=env,
            capture_output=True,
            text=True,
            timeout=BLOCK_TIMEOUT_S,
            stdin=subprocess.DEVNULL,
        )
        expected = int(block.marks.get("exit") or 0)
        if done.returncode != expected:
            raise BlockFailedError(
                f"{self.path}:{block.line}: exit {done.returncode}, expected {expected}\n"
                f"--- stdout\n{done.stdout[-4000:]}\n--- stderr\n{done.stderr[-4000:]}"
            )
        return done.stdout

    def _run_python(self, block: Block, code: str, folder: Path) -> str:
        if "continue" not in block.marks:
            self.page.namespace = {"__name__": "__doc_block__"}
        captured = io.StringIO()
        before = Path.cwd()
        os.chdir(folder)
        try:
            with contextlib.redirect_stdout(captured):
                exec(compile(code, f"{self.path}:{block.line}", "exec"), self.page.namespace)
        finally:
            os.chdir(before)
        return captured.getvalue()

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> str:
        if isinstance(excinfo.value, BlockFailedError):
            return str(excinfo.value)
        return f"{self.path}:{self.block.line}:\n{self.block.code}\n{excinfo.getrepr(style='short')}"

    def reportinfo(self) -> tuple[Path, int, str]:
        return self.path, self.block.line - 1, self.name


class BlockFailedError(AssertionError):
    """A docs block that exited with the wrong code or printed other output than the page shows."""


def pytest_collect_file(file_path: Path, parent: pytest.Collector) -> pytest.Collector | None:
    if file_path.suffix == ".md" and is_doc_page(file_path):
        return MarkdownPage.from_parent(parent, path=file_path)
    return None
