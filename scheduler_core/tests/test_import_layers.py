"""The layering rules, read from the source with ast: no import circles, a plain-Python engine.

Every import counts, also those inside functions and under TYPE_CHECKING: a circle hidden in
a function body is still a circle (see docs/ARCHITECTURE.md).
"""
from __future__ import annotations

import ast
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
PACKAGES = ("scheduler_core", "playground")
ENGINE_FACES = {"scheduler_core.tasks", "scheduler_core.apps"}
WEB_ONLY = ("django", "celery", "channels", "playground")


def module_name(path: Path) -> str:
    parts = list(path.relative_to(REPO).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def modules() -> dict[str, Path]:
    found = {}
    for package in PACKAGES:
        for path in (REPO / package).rglob("*.py"):
            if "migrations" not in path.parts:
                found[module_name(path)] = path
    return found


def imported_names(name: str, path: Path) -> set[str]:
    """Dotted names the module imports; `from m import x` yields m.x (m itself when x is no
    module: see import_graph)."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    names = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join(anchor + ([base] if base else []))
            names.update(f"{base}.{alias.name}" for alias in node.names)
    return names


def import_graph() -> dict[str, set[str]]:
    """module -> the project modules it imports (a name that is not a module means its package)."""
    known = modules()
    graph = {}
    for name, path in known.items():
        targets = set()
        for imported in imported_names(name, path):
            while imported and imported not in known:
                imported = imported.rpartition(".")[0]
            if imported and imported != name:
                targets.add(imported)
        graph[name] = targets
    return graph


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one module (Tarjan)."""
    index, low, stack, on_stack, found = {}, {}, [], set(), []

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
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def test_the_graph_sees_function_level_and_relative_imports(tmp_path):
    source = "from . import sibling\nfrom ..up import thing\ndef f():\n    import os.path\n"
    path = tmp_path / "pkg" / "sub" / "mod.py"
    path.parent.mkdir(parents=True)
    path.write_text(source)
    names = imported_names("pkg.sub.mod", path)
    assert {"pkg.sub.sibling", "pkg.up.thing", "os.path"} <= names


def test_circles_finds_a_loop_through_three_modules():
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert circles(graph) == [["a", "b", "c"]]


def test_no_module_imports_one_that_imports_it_back():
    assert circles(import_graph()) == []


def test_the_engine_imports_no_web_framework_outside_its_celery_and_app_faces():
    offenders = []
    for name, path in modules().items():
        if not name.startswith("scheduler_core") or name in ENGINE_FACES:
            continue
        for imported in imported_names(name, path):
            if imported.split(".")[0] in WEB_ONLY:
                offenders.append(f"{name} imports {imported}")
    assert offenders == []
