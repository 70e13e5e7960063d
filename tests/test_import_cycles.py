"""No import cycles among the referee's modules: every ``import`` and ``from ... import`` in the
source, at module level, inside functions and under ``if TYPE_CHECKING:`` alike, read from the
syntax tree (nothing is imported), must leave the module graph free of cycles.

A cycle is a module that, through the modules it imports, comes back to itself: the parts
can then be neither understood nor tested alone, and an import made inside a function only
hides it. ``from package import name`` counts as importing ``package.name`` where that is a
module, else ``package`` itself; importing a module is not counted as importing the packages
above it.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

from tests.conftest import REPO

PACKAGES = ("referee", "vision", "hardware", "web")
"""The referee's own packages: the graph holds every module of these."""

NOT_YET_CHECKED: set[str] = set()
"""Packages whose own cycles are still being paid off (docs/ARCHITECTURE.md, Known debts): a
cycle wholly inside one of these is tolerated for now; remove a package from here once its
cycles are gone. A cycle that reaches a checked package always fails."""


def module_files() -> dict[str, Path]:
    """Every module of ``PACKAGES`` by its dotted name (a package by its ``__init__``)."""
    modules: dict[str, Path] = {}
    for package in PACKAGES:
        for path in sorted((REPO / package).rglob("*.py")):
            parts = list(path.relative_to(REPO).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            modules[".".join(parts)] = path
    return modules


def imported_modules(module: str, path: Path, modules: set[str]) -> set[str]:
    """The modules among ``modules`` that ``module`` imports anywhere in its source: ``import
    a.b``, and ``from a import b`` as ``a.b`` where that is a module, else as ``a`` (relative
    imports resolved)."""
    is_package = path.name == "__init__.py"
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = module.split(".")
                anchor = anchor[: len(anchor) - node.level + (1 if is_package else 0)]
                base = ".".join(anchor + ([node.module] if node.module else []))
            for alias in node.names:
                submodule = f"{base}.{alias.name}"
                found.add(submodule if submodule in modules else base)
    return (found & modules) - {module}


def import_graph() -> dict[str, set[str]]:
    """Each module of ``PACKAGES`` and the modules of ``PACKAGES`` it imports."""
    files = module_files()
    return {module: imported_modules(module, path, set(files)) for module, path in files.items()}


def strongly_connected(graph: dict[str, set[str]]) -> list[list[str]]:
    """The graph's strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    components: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in sorted(graph[node]):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                components.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return components


def a_cycle(graph: dict[str, set[str]], members: list[str]) -> list[str]:
    """One path through ``members`` from its first module back to it, for the message."""
    inside = set(members)
    start = members[0]
    paths = {start: [start]}
    frontier = [start]
    while frontier:
        node = frontier.pop(0)
        for target in sorted(graph[node] & inside):
            if target == start:
                return paths[node] + [start]
            if target not in paths:
                paths[target] = paths[node] + [target]
                frontier.append(target)
    raise AssertionError(f"{members} is not a cycle")


def test_checker_finds_a_cycle_through_an_import_inside_a_function(tmp_path: Path) -> None:
    """The reading of imports sees one made inside a function, and a relative one."""
    (tmp_path / "a.py").write_text("def f():\n    from web import b\n")
    (tmp_path / "b.py").write_text("from .a import f\n")
    modules = {"web", "web.a", "web.b"}
    assert imported_modules("web.a", tmp_path / "a.py", modules) == {"web.b"}
    assert imported_modules("web.b", tmp_path / "b.py", modules) == {"web.a"}
    graph = {"web.a": {"web.b"}, "web.b": {"web.a"}, "web.c": {"web.a"}}
    assert strongly_connected(graph) == [["web.a", "web.b"]]
    assert a_cycle(graph, ["web.a", "web.b"]) == ["web.a", "web.b", "web.a"]


def test_no_import_cycles_in_referee_hardware_and_web() -> None:
    """No cycle among the modules, imports inside functions included, except one wholly inside
    a package of ``NOT_YET_CHECKED``."""
    graph = import_graph()
    assert {"referee.core", "web.app", "hardware.frames"} <= set(graph), "the packages' modules were found"
    cycles = [
        " -> ".join(a_cycle(graph, members))
        for members in strongly_connected(graph)
        if not all(member.split(".")[0] in NOT_YET_CHECKED for member in members)
    ]
    assert not cycles, "import cycles:\n" + "\n".join(cycles)
