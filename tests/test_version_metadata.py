"""The version is written once (pyproject.toml) and read from the package metadata (issue 33)."""

from __future__ import annotations

import re
import subprocess
import sys
from importlib import metadata
from pathlib import Path

import werewolf_env
from werewolf_env.core.version import DISTRIBUTION, UNKNOWN, source_version

ROOT = Path(__file__).resolve().parents[1]


def test_version_is_the_metadata_one_and_not_written_in_the_source() -> None:
    assert werewolf_env.__version__ == metadata.version(DISTRIBUTION)
    assert werewolf_env.__version__ == source_version(ROOT / "pyproject.toml")
    written = re.compile(r"__version__\s*=\s*['\"]")
    offenders = [
        str(p)
        for d in ("werewolf_env", "agents", "benchmarks")
        for p in (ROOT / d).rglob("*.py")
        if written.search(p.read_text(encoding="utf-8"))
    ]
    assert offenders == []


def test_a_source_tree_that_was_never_installed_reads_pyproject(tmp_path: Path) -> None:
    # The package imported from a copy of its source with no metadata anywhere on the path (-S: no site-packages).
    code = (
        "import sys; sys.path.insert(0, sys.argv[1]);"
        "from werewolf_env.core.version import package_version, source_version;"
        "from pathlib import Path; print(package_version(), source_version(Path(sys.argv[1]) / 'pyproject.toml'))"
    )
    tree = tmp_path / "tree"
    (tree / "werewolf_env" / "core").mkdir(parents=True)
    (tree / "werewolf_env" / "__init__.py").write_text("", encoding="utf-8")
    (tree / "werewolf_env" / "core" / "__init__.py").write_text("", encoding="utf-8")
    version = (ROOT / "werewolf_env" / "core" / "version.py").read_text("utf-8")
    (tree / "werewolf_env" / "core" / "version.py").write_text(version, encoding="utf-8")
    (tree / "pyproject.toml").write_text(f'[project]\nname = "{DISTRIBUTION}"\nversion = "9.8.7"\n', encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-S", "-c", code, str(tree)], capture_output=True, text=True, check=True, cwd=tree
    )
    assert done.stdout.split() == ["9.8.7", "9.8.7"]


def test_an_unreadable_or_foreign_pyproject_gives_unknown(tmp_path: Path) -> None:
    assert source_version(tmp_path / "missing.toml") == UNKNOWN
    bad = tmp_path / "pyproject.toml"
    for text in (
        "not = [toml",
        '[project]\nname = "other"\nversion = "1.0"\n',
        "project = 3\n",
        f'[project]\nname = "{DISTRIBUTION}"\nversion = 1\n',
    ):
        bad.write_text(text, encoding="utf-8")
        assert source_version(bad) == UNKNOWN
