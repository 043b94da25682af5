"""The package's version, written once: in ``pyproject.toml``, read from the installed package's metadata.

A source tree that was never installed (``PYTHONPATH=. python ...``) has no metadata: its version is then
read from the ``pyproject.toml`` beside the package, and is ``0+unknown`` when there is none.
"""

from __future__ import annotations

import sys
from importlib import metadata
from pathlib import Path

DISTRIBUTION = "werewolf-deception"
UNKNOWN = "0+unknown"


def package_version() -> str:
    """The installed distribution's version, else the source tree's ``pyproject.toml`` version, else ``UNKNOWN``."""
    try:
        return metadata.version(DISTRIBUTION)
    except metadata.PackageNotFoundError:
        return source_version(Path(__file__).resolve().parents[2] / "pyproject.toml")


def source_version(pyproject: Path) -> str:
    """``[project] version`` of ``pyproject`` if it is this distribution's, else ``UNKNOWN``."""
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover - Python 3.10: the tomli backport (a dependency there)
        import tomli as tomllib
    try:
        project = tomllib.loads(pyproject.read_text(encoding="utf-8")).get("project", {})
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        return UNKNOWN
    if not isinstance(project, dict) or project.get("name") != DISTRIBUTION:
        return UNKNOWN
    version = project.get("version")
    return version.strip() if isinstance(version, str) and version.strip() else UNKNOWN
