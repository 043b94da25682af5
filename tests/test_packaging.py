"""The package metadata: what setuptools and PyPI will keep accepting."""

from __future__ import annotations

import re
import sys
from pathlib import Path

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

PYPROJECT = tomllib.loads((Path(__file__).resolve().parents[1] / "pyproject.toml").read_text(encoding="utf-8"))


def test_the_license_is_an_spdx_expression_with_a_backend_that_reads_it() -> None:
    # setuptools deprecated the table form ({text = ...}) with removal on 2027-02-18; the string form needs >= 77.
    assert isinstance(PYPROJECT["project"]["license"], str)
    (setuptools,) = [r for r in PYPROJECT["build-system"]["requires"] if r.startswith("setuptools")]
    low = re.search(r">=\s*(\d+)", setuptools)
    assert low is not None and int(low.group(1)) >= 77


def test_every_dependency_has_a_lower_bound() -> None:
    deps = list(PYPROJECT["project"]["dependencies"])
    for extra in PYPROJECT["project"]["optional-dependencies"].values():
        deps += extra
    for dep in deps:
        assert ">=" in dep, dep
