"""The build backend: setuptools', plus mypyc when the compiled build is asked for.

``WEREWOLF_COMPILE=1 pip install .`` (or ``pip install . --config-settings compile=1``) compiles the modules that
``setup.py`` lists (the rules engine, the observation code and the claim reader) with mypyc, from the same
source; without it the package is pure Python. Only the compiled build needs mypy, and the project's own
dependencies to type-check against, so only it asks for them.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

from setuptools import build_meta as _setuptools
from setuptools.build_meta import *  # noqa: F403  (every other hook as setuptools defines it)

SWITCH = "WEREWOLF_COMPILE"
# What the backend tells setup.py once it builds (setuptools also runs setup.py to ask for requirements, before
# mypy is installed: then nothing compiles).
BUILDING = "WEREWOLF_MYPYC_BUILD"
MYPYC = "mypy>=1.10"  # mypyc ships inside mypy


def compiling(config_settings: dict[str, Any] | None = None) -> bool:
    """Whether this build compiles: the ``compile`` config setting, else the ``WEREWOLF_COMPILE`` variable."""
    value = (config_settings or {}).get("compile", os.environ.get(SWITCH, ""))
    return str(value).strip().lower() in ("1", "true", "yes", "on")


def _dependencies() -> list[str]:
    """The project's own dependencies (``[project] dependencies``): mypyc type-checks the modules against them."""
    if sys.version_info >= (3, 11):
        import tomllib

        project = tomllib.loads(Path("pyproject.toml").read_text(encoding="utf-8"))["project"]
    else:  # Python 3.10: setuptools reads TOML itself
        from setuptools.config.pyprojecttoml import load_file

        project = load_file("pyproject.toml")["project"]
    return list(project["dependencies"])


def _requires(requires: list[str], config_settings: dict[str, Any] | None) -> list[str]:
    return [*requires, MYPYC, *_dependencies()] if compiling(config_settings) else requires


def get_requires_for_build_wheel(config_settings: dict[str, Any] | None = None) -> list[str]:
    return _requires(_setuptools.get_requires_for_build_wheel(config_settings), config_settings)


def get_requires_for_build_editable(config_settings: dict[str, Any] | None = None) -> list[str]:
    return _requires(_setuptools.get_requires_for_build_editable(config_settings), config_settings)


def build_wheel(
    wheel_directory: str, config_settings: dict[str, Any] | None = None, metadata_directory: str | None = None
) -> str:
    if compiling(config_settings):
        os.environ[BUILDING] = "1"
    return _setuptools.build_wheel(wheel_directory, config_settings, metadata_directory)


def build_editable(
    wheel_directory: str, config_settings: dict[str, Any] | None = None, metadata_directory: str | None = None
) -> str:
    if compiling(config_settings):
        os.environ[BUILDING] = "1"
    return _setuptools.build_editable(wheel_directory, config_settings, metadata_directory)
