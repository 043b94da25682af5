"""Every data file inside the packages ships in the wheel: ``[tool.setuptools.package-data]`` lists it."""

from __future__ import annotations

import fnmatch
import sys
from pathlib import Path

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10: the tomli backport (a core dependency there)
    import tomli as tomllib

ROOT = Path(__file__).resolve().parent.parent
# Each top-level folder and its import name (the key its package data is listed under).
PACKAGES = {"werewolf_env": "werewolf_env", "agents": "werewolf_deception.agents",
            "benchmarks": "werewolf_deception.benchmarks"}  # fmt: skip
CODE = {".py", ".pyc"}


def test_every_data_file_in_the_packages_is_package_data() -> None:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    globs: dict[str, list[str]] = config["tool"]["setuptools"]["package-data"]
    unlisted = []
    for package in PACKAGES:
        for path in (ROOT / package).rglob("*"):
            if not path.is_file() or path.suffix in CODE or "__pycache__" in path.parts:
                continue
            # a file is listed under its own sub-package or any package above it
            relative = (PACKAGES[package], *path.relative_to(ROOT / package).parts)
            owners = [(".".join(relative[:i]), "/".join(relative[i:])) for i in range(1, len(relative))]
            if not any(
                fnmatch.fnmatch(inside, pattern) for owner, inside in owners for pattern in globs.get(owner, [])
            ):
                unlisted.append(path.relative_to(ROOT).as_posix())
    assert not unlisted, f"data files a wheel would leave out (add them to [tool.setuptools.package-data]): {unlisted}"
