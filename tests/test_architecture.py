"""The import graph of the three packages: no cycles, no cross-module private imports, imports point down.

Read from the source (no import runs) by a small graph check of our own:
- every ``import`` and ``from ... import`` counts, wherever it stands: at module level, deferred inside a
  function, or under ``if TYPE_CHECKING:``. A deferred import only hides a cycle from the interpreter, and a
  type-only import is still a dependency of the design, so neither may close a cycle;
- ``import a.b.c`` is an edge to ``a.b.c`` alone: the parent packages it also loads are facades, not
  dependencies (an explicit ``from a import name`` is an edge to ``a``'s ``__init__``);
- a private name is one with a single leading underscore (dunders are public protocol). Taking one from
  another module, by ``from x import _name`` or by ``x._name`` on an imported module, is refused;
- the layers: ``werewolf_env`` imports nothing from ``agents`` or ``benchmarks``, ``agents`` nothing from
  ``benchmarks``.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
# Each top-level folder and the name its modules are imported by.
PACKAGES = {"werewolf_env": "werewolf_env", "agents": "werewolf_deception.agents",
            "benchmarks": "werewolf_deception.benchmarks"}  # fmt: skip
# Each layer (a folder) and the layers it may import (besides itself).
MAY_IMPORT = {"werewolf_env": frozenset(), "agents": frozenset({"werewolf_env"}),
              "benchmarks": frozenset({"werewolf_env", "agents"})}  # fmt: skip
MAX_MODULES = 15  # modules in one folder, its __init__ not counted


@dataclass(frozen=True)
class Import:
    source: str  # the importing module
    line: int
    target: str  # the imported module (one of the graph's)
    name: str = ""  # the name taken from it, for ``from target import name`` and ``target.name``

    def __str__(self) -> str:
        taken = f" {self.name}" if self.name else ""
        return f"{self.source}:{self.line} imports {self.target}{taken}"


def module_names(root: Path, packages: dict[str, str]) -> dict[str, Path]:
    """Every module of ``packages`` (folder -> import name) under ``root`` by dotted name (a package by its own)."""
    modules = {}
    for folder, name in packages.items():
        for path in sorted((root / folder).rglob("*.py")):
            parts = path.relative_to(root / folder).with_suffix("").parts
            modules[".".join([name, *(parts[:-1] if parts[-1] == "__init__" else parts)])] = path
    return modules


def layer(module: str) -> str:
    """The folder (layer) a dotted module name lives in."""
    return next(folder for folder, name in PACKAGES.items() if module == name or module.startswith(name + "."))


def is_private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


def _absolute(module: str, is_package: bool, level: int, name: str | None) -> str:
    """The absolute module named by a relative ``from`` of ``level`` dots inside ``module``."""
    if level == 0:
        return name or ""
    parts = module.split(".") if is_package else module.split(".")[:-1]
    base = parts[: len(parts) - (level - 1)]
    return ".".join([*base, name] if name else base)


def _dotted(node: ast.expr) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        head = _dotted(node.value)
        return f"{head}.{node.attr}" if head else None
    return None


def rebound(package: str, modules: dict[str, Path]) -> frozenset[str]:
    """The names a package's ``__init__`` binds with ``from ... import`` (they shadow submodules of that name)."""
    path = modules.get(package)
    if path is None or path.name != "__init__.py":
        return frozenset()
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return frozenset(
        alias.asname or alias.name
        for node in tree.body
        if isinstance(node, ast.ImportFrom)
        for alias in node.names
        if f"{_absolute(package, True, node.level, node.module)}.{alias.name}" not in modules
    )


def imports_of(module: str, path: Path, modules: dict[str, Path]) -> Iterator[Import]:
    """Every import of a graph module by ``module``, and every private attribute read on one."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    is_package = path.name == "__init__.py"
    bound: dict[str, str] = {}  # a local name -> the graph module it is bound to (for ``x._name``)
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name in modules:
                    yield Import(module, node.lineno, alias.name)
                # ``import a.b as x`` binds x to a.b; ``import a.b`` binds a (a.b._x is read through the dots)
                local, target = (alias.asname, alias.name) if alias.asname else (alias.name.split(".")[0],) * 2
                if target in modules:
                    bound[local] = target
        elif isinstance(node, ast.ImportFrom):
            base = _absolute(module, is_package, node.level, node.module)
            for alias in node.names:
                submodule = f"{base}.{alias.name}"
                # a package whose __init__ binds the name to something else (a face re-exporting a function named
                # like its module) gives that, as Python does
                if submodule in modules and alias.name not in rebound(base, modules):
                    yield Import(module, node.lineno, submodule)
                    bound[alias.asname or alias.name] = submodule
                elif base in modules:
                    yield Import(module, node.lineno, base, alias.name)
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and is_private(node.attr):
            owner = _dotted(node.value)
            if owner is None:
                continue
            head, _, rest = owner.partition(".")
            target = ".".join(filter(None, [bound.get(head, ""), rest]))
            if target in modules and target != module:
                yield Import(module, node.lineno, target, node.attr)


def graph(root: Path, packages: dict[str, str]) -> list[Import]:
    modules = module_names(root, packages)
    return [edge for module, path in modules.items() for edge in imports_of(module, path, modules)]


def cycles(edges: Iterable[Import]) -> list[list[str]]:
    """The strongly connected components with more than one module (Tarjan's algorithm, iteratively)."""
    successors: dict[str, set[str]] = {}
    for edge in edges:
        successors.setdefault(edge.source, set()).add(edge.target)
        successors.setdefault(edge.target, set())
    index: dict[str, int] = {}
    lowlink: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    components = []
    for start in sorted(successors):
        if start in index:
            continue
        work = [(start, iter(sorted(successors[start])))]
        index[start] = lowlink[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is None:
                work.pop()
                if work:
                    lowlink[work[-1][0]] = min(lowlink[work[-1][0]], lowlink[node])
                if lowlink[node] == index[node]:
                    component = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.append(member)
                        if member == node:
                            break
                    if len(component) > 1:
                        components.append(sorted(component))
            elif child not in index:
                index[child] = lowlink[child] = len(index)
                stack.append(child)
                on_stack.add(child)
                work.append((child, iter(sorted(successors[child]))))
            elif child in on_stack:
                lowlink[node] = min(lowlink[node], index[child])
    return sorted(components)


def cycle_report(edges: list[Import]) -> list[str]:
    """Each cycle with the imports inside it, so the message says which lines to change."""
    lines = []
    for component in cycles(edges):
        members = set(component)
        inside = sorted(
            {
                f"  {e.source}:{e.line} -> {e.target}"
                for e in edges
                if e.source in members and e.target in members and e.source != e.target
            }
        )
        lines += [f"cycle of {len(component)}: {' <-> '.join(component)}", *inside]
    return lines


def private_imports(edges: Iterable[Import]) -> list[str]:
    return sorted({str(e) for e in edges if is_private(e.name) and e.target != e.source})


def upward_imports(edges: Iterable[Import]) -> list[str]:
    wrong = []
    for edge in edges:
        source, target = layer(edge.source), layer(edge.target)
        if source != target and target not in MAY_IMPORT.get(source, frozenset()):
            wrong.append(f"{edge}: {source} may import only {sorted(MAY_IMPORT[source]) or 'itself'}")
    return sorted(set(wrong))


EDGES = graph(ROOT, PACKAGES)


def test_the_graph_sees_the_packages() -> None:
    # Guards against a check that passes because it reads nothing.
    sources = {layer(edge.source) for edge in EDGES}
    assert sources == set(PACKAGES)
    assert len(EDGES) > 500


def test_no_import_cycles() -> None:
    found = cycle_report(EDGES)
    assert not found, "\n".join(found)


def test_no_module_imports_another_modules_private_names() -> None:
    found = private_imports(EDGES)
    assert not found, "\n".join(found)


def test_imports_point_down_the_layers() -> None:
    found = upward_imports(EDGES)
    assert not found, "\n".join(found)


PROBES = {
    "a deferred cycle": ({"werewolf_env/one.py": "from werewolf_env import two\n",
                          "werewolf_env/two.py": "def f():\n    from . import one\n"}, "cycle of 2"),
    "a type-only cycle": ({"werewolf_env/one.py": "from werewolf_env.two import X\n",
                           "werewolf_env/two.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n"
                                                  "    from .one import Y\n"}, "cycle of 2"),
    "a three-module cycle": ({"werewolf_env/one.py": "import werewolf_env.two\n",
                              "werewolf_env/two.py": "from .three import x\n",
                              "werewolf_env/three.py": "from werewolf_env import one\n"}, "cycle of 3"),
    "a private from-import": ({"werewolf_env/one.py": "_x = 1\n",
                               "werewolf_env/two.py": "from .one import _x\n"}, "imports werewolf_env.one _x"),
    "a private attribute": ({"werewolf_env/one.py": "_x = 1\n",
                             "werewolf_env/two.py": "import werewolf_env.one\nwerewolf_env.one._x\n"},
                            "imports werewolf_env.one _x"),
    "a private attribute by alias": ({"werewolf_env/one.py": "_x = 1\n",
                                      "werewolf_env/two.py": "from werewolf_env import one as o\no._x\n"},
                                     "imports werewolf_env.one _x"),
    "an upward import": ({"werewolf_env/one.py": "def f():\n    from werewolf_deception.agents.two import y\n",
                          "agents/two.py": "y = 1\n"}, "werewolf_env may import only itself"),
    "agents importing benchmarks": ({"agents/one.py": "import werewolf_deception.benchmarks.two\n",
                                     "benchmarks/two.py": ""}, "agents may import only ['werewolf_env']"),
}  # fmt: skip


@pytest.mark.parametrize("probe", PROBES, ids=list(PROBES))
def test_the_checks_catch_what_they_are_for(tmp_path: Path, probe: str) -> None:
    files, finds = PROBES[probe]
    for package in PACKAGES:
        (tmp_path / package).mkdir()
        (tmp_path / package / "__init__.py").write_text("", encoding="utf-8")
    for name, text in files.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    edges = graph(tmp_path, PACKAGES)
    found = [*cycle_report(edges), *private_imports(edges), *upward_imports(edges)]
    assert any(finds in line for line in found), found


def test_a_package_using_its_own_private_names_and_dunders_is_fine(tmp_path: Path) -> None:
    for package in PACKAGES:
        (tmp_path / package).mkdir()
        (tmp_path / package / "__init__.py").write_text("", encoding="utf-8")
    (tmp_path / "werewolf_env" / "one.py").write_text("_x = 1\nprint(_x)\n", encoding="utf-8")
    (tmp_path / "werewolf_env" / "two.py").write_text(
        "from werewolf_env import one\nfrom .one import __doc__\nprint(one.__name__)\n", encoding="utf-8"
    )
    edges = graph(tmp_path, PACKAGES)
    assert [*cycle_report(edges), *private_imports(edges), *upward_imports(edges)] == []


# Every Python file of the repository that imports the project: the packages, tests, examples, docs hooks.
PYTHON_FILES = sorted(
    path
    for folder in ("werewolf_env", "agents", "benchmarks", "werewolf_deception", "tests", "examples", "docs")
    for path in (ROOT / folder).rglob("*.py")
    if "werewolf_deception" not in path.relative_to(ROOT).parts[1:2]  # not twice through the links
)


def bare_imports(path: Path) -> list[str]:
    """Imports of ``agents`` or ``benchmarks`` by their folder names: they would load a second copy of each
    module (or, installed beside openai-agents, its ``agents``); the import names are ``werewolf_deception.*``."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    found = []
    for node in ast.walk(tree):
        names = [a.name for a in node.names] if isinstance(node, ast.Import) else []
        if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names = [node.module]
        found += [f"{path.relative_to(ROOT)}:{node.lineno} imports {n}" for n in names
                  if n.split(".")[0] in {"agents", "benchmarks"}]  # fmt: skip
    return found


def test_nothing_imports_the_folders_by_their_bare_names() -> None:
    assert len(PYTHON_FILES) > 300
    found = [line for path in PYTHON_FILES for line in bare_imports(path)]
    assert not found, "\n".join(found)


def test_each_folder_is_small_and_says_what_it_owns() -> None:
    """At most ``MAX_MODULES`` modules per folder, and every package's ``__init__`` has a docstring."""
    too_big, silent = [], []
    for folder in PACKAGES:
        for directory in [ROOT / folder, *(p for p in (ROOT / folder).rglob("*") if p.is_dir())]:
            if directory.name == "__pycache__" or not (directory / "__init__.py").exists():
                continue
            modules = [p for p in directory.glob("*.py") if p.name != "__init__.py"]
            if len(modules) > MAX_MODULES:
                too_big.append(f"{directory.relative_to(ROOT)}: {len(modules)} modules")
            if not ast.get_docstring(ast.parse((directory / "__init__.py").read_text(encoding="utf-8"))):
                silent.append(f"{directory.relative_to(ROOT)}/__init__.py has no docstring")
    assert not too_big and not silent, "\n".join(too_big + silent)


def test_the_import_name_links_point_at_the_folders() -> None:
    for folder in ("agents", "benchmarks"):
        link = ROOT / "werewolf_deception" / folder
        assert link.is_symlink() and link.resolve() == (ROOT / folder).resolve(), link


def subpackage(module: str) -> str:
    """The sub-package a module belongs to (``werewolf_env.claims``, ``werewolf_deception.agents.llm``), or the
    module itself when it sits at the top of its folder."""
    depth = len(PACKAGES[layer(module)].split(".")) + 1
    return ".".join(module.split(".")[:depth])


def subpackage_edges(edges: Iterable[Import]) -> list[Import]:
    return [
        Import(subpackage(e.source), e.line, subpackage(e.target))
        for e in edges
        if subpackage(e.source) != subpackage(e.target)
    ]


def test_the_sub_packages_form_floors() -> None:
    """No cycle between sub-packages either: each folder of a layer sits above or below each other one."""
    edges = subpackage_edges(EDGES)
    assert len({e.source for e in edges}) > 20
    found = [" <-> ".join(component) for component in cycles(edges)]
    assert not found, "\n".join(found)


def test_a_cycle_between_sub_packages_is_caught(tmp_path: Path) -> None:
    for package in PACKAGES:
        (tmp_path / package).mkdir()
        (tmp_path / package / "__init__.py").write_text("", encoding="utf-8")
    for sub in ("low", "high"):
        (tmp_path / "werewolf_env" / sub).mkdir()
        (tmp_path / "werewolf_env" / sub / "__init__.py").write_text('"""x"""\n', encoding="utf-8")
    (tmp_path / "werewolf_env" / "low" / "a.py").write_text("from werewolf_env.high import b\n", encoding="utf-8")
    (tmp_path / "werewolf_env" / "high" / "c.py").write_text("import werewolf_env.low.a\n", encoding="utf-8")
    edges = graph(tmp_path, PACKAGES)
    assert not cycle_report(edges)  # no module-level cycle: a -> high (its __init__), c -> a
    assert cycles(subpackage_edges(edges)) == [["werewolf_env.high", "werewolf_env.low"]]


# Where each sub-package has a public face (its __init__), and the modules other sub-packages may still import by
# name: those that load an extra (imported lazily, so that the face never needs the extra), those one runs with
# ``python -m``, and scripts. A name spelt like one of its package's modules is taken from that module too.
FACED = ("werewolf_deception.", "werewolf_env.")


MODULE_NAMES = set(module_names(ROOT, PACKAGES))


def explicit_modules() -> set[str]:
    from .test_dependencies import EXTRA_MODULES

    scripts = ("werewolf_deception.benchmarks.perf.", "werewolf_deception.benchmarks.studies.")
    modules = module_names(ROOT, PACKAGES)
    # a module one runs (python -m) is its own face: a face that loaded it would make runpy warn
    runnable = {m for m, path in modules.items() if 'if __name__ == "__main__"' in path.read_text(encoding="utf-8")}
    return set(EXTRA_MODULES) | runnable | {m for m in modules if m.startswith(scripts)}


def around_faces(edges: Iterable[Import], explicit: set[str]) -> list[str]:
    wrong = []
    for edge in edges:
        target_package = subpackage(edge.target)
        if (
            edge.source.startswith(FACED)
            and edge.target.startswith(FACED)
            and subpackage(edge.source) != target_package
            and edge.target != target_package
            and edge.target not in explicit
            and f"{target_package}.{edge.name}" not in explicit | MODULE_NAMES
        ):
            wrong.append(f"{edge}: import it from {target_package}")
    return sorted(set(wrong))


def test_other_sub_packages_import_only_a_face() -> None:
    found = around_faces(EDGES, explicit_modules())
    assert not found, "\n".join(found)


def test_an_import_around_a_face_is_caught() -> None:
    edges = [
        Import("werewolf_deception.benchmarks.cli.main", 3, "werewolf_deception.benchmarks.runs.loop", "play_run"),
        Import("werewolf_deception.benchmarks.cli.main", 4, "werewolf_deception.benchmarks.runs", "play_run"),
        Import("werewolf_deception.benchmarks.cli.main", 5, "werewolf_deception.benchmarks.cli.run", "run_command"),
    ]
    assert around_faces(edges, set()) == [f"{edges[0]}: import it from werewolf_deception.benchmarks.runs"]
