"""The package metadata: what setuptools and PyPI will keep accepting."""

from __future__ import annotations

import importlib
import re
import sys
from pathlib import Path

import pytest

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


def test_mypy_is_configured_for_the_packages_and_run_in_ci() -> None:
    assert any(re.fullmatch(r"mypy>=[\d.]+", dep) for dep in PYPROJECT["project"]["optional-dependencies"]["test"])
    mypy = PYPROJECT["tool"]["mypy"]
    # werewolf_deception/ reaches agents/ and benchmarks/ through its links, under their import names
    assert set(mypy["files"]) == {"werewolf_env", "werewolf_deception"}
    assert mypy["python_version"] == PYPROJECT["project"]["requires-python"].removeprefix(">=")
    assert "pydantic.mypy" in mypy["plugins"]
    for flag in ("check_untyped_defs", "warn_unused_ignores", "warn_redundant_casts"):
        assert mypy[flag] is True, flag
    # Missing stubs are tolerated only for named optional or untyped modules, never for everything.
    assert "ignore_missing_imports" not in mypy
    for override in mypy["overrides"]:
        assert all(not m.startswith(("werewolf_env", "werewolf_deception")) for m in override["module"])
    ci = (Path(__file__).resolve().parents[1] / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    last_pytest = max(i for i, line in enumerate(ci) if "python -m pytest" in line)
    mypy_line = next(i for i, line in enumerate(ci) if line.startswith("mypy"))
    assert ci.index("ruff check .") < mypy_line < last_pytest and ci[mypy_line].split("#")[0].strip() == "mypy"


def test_ci_runs_the_readmes_two_commands_before_the_full_run() -> None:
    ci = (Path(__file__).resolve().parents[1] / ".ci" / "run").read_text(encoding="utf-8")
    readme_stage = ci.index("python3 tests/markdown_blocks.py README.md")
    assert readme_stage < ci.index('-e ".[test,docs,') and 'bash -euo pipefail -c "${commands[$i]}"' in ci
    assert "rm -rf .venv" in ci  # each of the two commands in a fresh virtual environment
    assert "mkdocs build --strict" in ci


def test_the_build_backend_ships_in_the_sdist_and_compiles_only_when_asked(monkeypatch: pytest.MonkeyPatch) -> None:
    root = Path(__file__).resolve().parents[1]
    (folder,) = PYPROJECT["build-system"]["backend-path"]
    assert f"include {folder}/*.py" in (root / "MANIFEST.in").read_text(encoding="utf-8").splitlines()
    assert (root / folder / f"{PYPROJECT['build-system']['build-backend']}.py").is_file()
    monkeypatch.syspath_prepend(str(root / folder))
    backend = importlib.import_module(PYPROJECT["build-system"]["build-backend"])
    monkeypatch.delenv(backend.SWITCH, raising=False)
    assert not backend.compiling() and not backend.compiling({"compile": "0"}) and backend.compiling({"compile": "1"})
    monkeypatch.setenv(backend.SWITCH, "1")
    assert backend.compiling() and not backend.compiling({"compile": "no"})


def test_every_compiled_module_exists_and_is_type_checked() -> None:
    root = Path(__file__).resolve().parents[1]
    compiled = re.findall(r'^\s+"(werewolf_env/[\w/]+\.py)",$', (root / "setup.py").read_text(encoding="utf-8"), re.M)
    assert compiled and all((root / path).is_file() for path in compiled)
    assert all(path.split("/")[0] in PYPROJECT["tool"]["mypy"]["files"] for path in compiled)
