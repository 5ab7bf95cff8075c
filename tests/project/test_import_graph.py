"""The package's modules import each other without cycles, and the core imports no view.

The graph is read from the source with ``ast``: every ``import`` and ``from ... import``,
also those inside functions (a deferred import hides a cycle, it does not remove it).
Imports under ``if TYPE_CHECKING:`` are for annotations only and do not count.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "sandbox"
CORE_MAY_NOT_IMPORT = ("sandbox.acl", "sandbox.viz", "sandbox.widgets", "sandbox.teach", "sandbox.export")


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _imports(tree: ast.AST):
    """Import nodes of a module, anywhere in it, except those under ``if TYPE_CHECKING:``."""
    todo = [tree]
    while todo:
        node = todo.pop()
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.If) and _type_checking(child.test):
                todo.extend(child.orelse)
                continue
            if isinstance(child, (ast.Import, ast.ImportFrom)):
                yield child
            todo.append(child)


def import_graph(modules: dict[str, Path]) -> dict[str, set[str]]:
    """module -> the package's modules it imports (a ``from pkg import name`` of a submodule
    counts as importing the submodule; importing a submodule does not count as importing its
    package's ``__init__``: Python runs it first, but cycles through it are not what this checks)."""
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        is_package = path.name == "__init__.py"
        targets: set[str] = set()
        for node in _imports(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                targets.update(a.name for a in node.names)
                continue
            if node.level:
                base = name.split(".") if is_package else name.split(".")[:-1]
                base = base[: len(base) - node.level + 1]
                base_name = ".".join(base + ([node.module] if node.module else []))
            else:
                base_name = node.module or ""
            for alias in node.names:
                sub = f"{base_name}.{alias.name}"
                targets.add(sub if sub in modules else base_name)
        graph[name] = {t for t in targets if t in modules and t != name}
    return graph


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One cycle of the graph (a list of modules, first repeated at the end), or None."""
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    path: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        path.append(node)
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                return path[path.index(nxt) :] + [nxt]
            if nxt not in state:
                found = visit(nxt)
                if found:
                    return found
        path.pop()
        state[node] = 2
        return None

    for node in sorted(graph):
        if node not in state:
            found = visit(node)
            if found:
                return found
    return None


def package_modules() -> dict[str, Path]:
    return {module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}


def test_no_module_of_the_package_imports_itself_through_others():
    cycle = find_cycle(import_graph(package_modules()))
    assert cycle is None, "import cycle: " + " -> ".join(cycle)


def test_the_core_imports_no_facade_view_widget_or_grader():
    graph = import_graph(package_modules())
    wrong = sorted(
        (m, t)
        for m, targets in graph.items()
        if m.startswith("sandbox.core")
        for t in targets
        if t.startswith(CORE_MAY_NOT_IMPORT)
    )
    assert not wrong, f"core modules importing outside the core's direction: {wrong}"


FEATURES = "sandbox.core.features"


def kernel_imports_of_features(graph: dict[str, set[str]]) -> list[tuple[str, str]]:
    """(kernel module, feature module) for every import from the kernel (sandbox/core) into a feature."""
    kernel = [m for m in graph if m.startswith("sandbox.core") and not m.startswith(FEATURES)]
    return sorted((m, t) for m in kernel for t in graph[m] if t.startswith(FEATURES))


def test_the_kernel_imports_no_feature():
    """Features are built on the kernel: a feature plugs in through hooks and Machine.feature."""
    wrong = kernel_imports_of_features(import_graph(package_modules()))
    assert not wrong, f"kernel modules importing a feature: {wrong}"


def test_the_kernel_check_finds_a_kernel_module_importing_a_feature():
    graph = {"sandbox.core.machine": {f"{FEATURES}.capture"}, f"{FEATURES}.capture": {"sandbox.core.machine"}}
    assert kernel_imports_of_features(graph) == [("sandbox.core.machine", f"{FEATURES}.capture")]


def test_the_cycle_finder_finds_a_deferred_import_cycle(tmp_path):
    """The check can fail: two modules importing each other, one of them inside a function."""
    pkg = tmp_path / "sandbox"
    (pkg / "core").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "core" / "__init__.py").write_text("")
    (pkg / "core" / "a.py").write_text("from . import b\n")
    (pkg / "core" / "b.py").write_text("def f():\n    from .a import g\n")
    (pkg / "core" / "c.py").write_text("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from . import a\n")
    modules = {
        ".".join(p.relative_to(tmp_path).with_suffix("").parts).removesuffix(".__init__"): p for p in pkg.rglob("*.py")
    }
    graph = import_graph(modules)
    assert find_cycle(graph) in (
        ["sandbox.core.a", "sandbox.core.b", "sandbox.core.a"],
        ["sandbox.core.b", "sandbox.core.a", "sandbox.core.b"],
    )
    assert graph["sandbox.core.c"] == set()  # an annotation-only import is no edge
