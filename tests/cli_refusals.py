"""What a refused command must look like: exit 2, one line of stderr (``error: ...``), no traceback or library
dump, no terminal escape, and nothing written in the folder it ran in."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from werewolf_deception.benchmarks.cli.main import main


def snapshot(folder: Path) -> dict[str, bytes | None]:
    """Every path under ``folder`` with its bytes (None: a folder or a symlink)."""
    return {
        str(p.relative_to(folder)): (None if p.is_dir() or p.is_symlink() else p.read_bytes())
        for p in sorted(folder.rglob("*"))
    }


def refused_line(argv: list[str], folder: Path, capsys: pytest.CaptureFixture[str]) -> str:
    """Run ``argv`` in ``folder`` (a default ``--out``, ``runs/...``, would be made there); check it is refused
    as above; the line."""
    before = snapshot(folder)
    cwd = Path.cwd()
    os.chdir(folder)
    try:
        code = main(argv)
    except SystemExit as exc:  # argparse's refusal
        code = exc.code  # type: ignore[assignment]
    finally:
        os.chdir(cwd)
    err = capsys.readouterr().err
    assert code == 2, err
    lines = err.splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), err
    assert "Traceback" not in err and "RecursionError" not in err
    assert "For further information" not in err and "validation error" not in err
    assert "\x1b" not in err
    assert snapshot(folder) == before, "a refused command wrote something"
    return lines[0]
