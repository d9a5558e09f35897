"""The layering rules, read from the source with ast: no import circles, a plain-Python engine,
and the engine's layers and playground/'s imported downwards only.

Every import counts, also those inside functions and under TYPE_CHECKING: a circle hidden in
a function body is still a circle (see docs/ARCHITECTURE.md).
"""
from __future__ import annotations

import ast
from fnmatch import fnmatchcase
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
PACKAGES = ("scheduler_core", "playground")
WEB_ONLY = ("django", "celery", "channels", "rest_framework", "drf_spectacular", "playground")

# playground/'s layers, top first: a module may import its own layer and those below it.
# Patterns are fnmatch patterns of dotted module names; a module takes the first that matches.
PLAYGROUND_LAYERS = (
    ("wiring", ("playground.urls", "playground.*.urls", "playground.*.api_urls",
                "playground.workshops.practice_urls",
                "playground.routing", "playground.asgi", "playground.wsgi", "playground.admin",
                "playground.*.admin",
                "playground.apps", "playground.*.apps", "playground.management*")),
    ("faces", ("playground.api.*", "playground.*.api", "playground.*.pages",
               "playground.*.consumer", "playground.*.consumers", "playground.workshops.relay",
               "playground.workshops.roll_call",
               "playground.workshops.practice_api", "playground.clusters.objects_api",
               "playground.site.views")),
    ("tasks", ("playground.*.tasks",)),
    ("services", ("playground.*.services", "playground.runs.export",
                  "playground.workshops.practice", "playground.whatif.sweeps")),
    ("engine sessions", ("playground.runs.executor", "playground.runs.state",
                         "playground.runs.sessions", "playground.timelines.recording",
                         "playground.whatif.placement")),
    ("selectors", ("playground.*.selectors",)),
    ("shared", ("playground.errors", "playground.quotas", "playground.frames",
                "playground.engine", "playground.tasking", "playground.runs.lease",
                "playground.runs.memo", "playground.runs.records",
                "playground.clusters.object_detail", "playground.workshops.lessons",
                "playground.workshops.conceal", "playground.workshops.answers",
                "playground.workshops.events", "playground.workshops.join_throttle",
                "playground.site.health",
                "playground.site.throttling", "playground.profiles.text",
                "playground.withholding", "playground.workshops.lesson_notes",
                "playground.site.storage")),
    ("storage", ("playground.models", "playground.*.models")),
    ("configuration", ("playground", "playground.*", "playground.celery", "playground.settings",
                       "playground.env")),
)

# The engine's layers, top first (docs/ARCHITECTURE.md, "The engine, top to bottom"), read as
# PLAYGROUND_LAYERS is. Tests (tests/ folders, test_*.py beside the code, conftest) are no layer.
E = "scheduler_core."
ENGINE_LAYERS = (
    ("test builders", (E + "testing", E + "testing.*")),
    ("command line", (E + "__main__", E + "cli")),
    ("commands", (E + "bench", E + "simulate", E + "session", E + "whatif", E + "whatif.*",
                  E + "simulator_snap", E + "simulator_annotations", E + "live_import")),
    ("assembly", (E + "build",)),
    ("beside the scheduler", (E + "timeline", E + "timeline.*", E + "outoftree",
                              E + "outoftree.*")),
    ("scheduler", (E + "scheduler", E + "podgroup_cycle", E + "queue", E + "cache")),
    ("configuration", (E + "config", E + "config_decode", E + "config_gotypes", E + "extenders",
                       E + "extenders.*")),
    ("input", (E + "loader", E + "release_input", E + "workloads", E + "workloads.*",
               E + "admission", E + "limit_ranger", E + "object_validation", E + "object_shapes",
               E + "field_validation", E + "safe_read", E + "simulator_export", E + "schema")),
    ("plugins", (E + "plugins", E + "plugins.*", E + "examples", E + "examples.*")),
    ("columns", (E + "columns", E + "columns.*")),
    ("framework", (E + "framework", E + "framework.*")),
    ("traces", (E + "observe", E + "stream", E + "tracepack", E + "tracecols",
                E + "tracedetail")),
    ("basics", ("scheduler_core", E + "errors", E + "quantity", E + "labels", E + "taints",
                E + "timings", E + "features", E + "warninglog", E + "durations", E + "epoch",
                E + "reservoir", E + "validation", E + "openapi")),
)


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


def layer_of(name: str, layers=PLAYGROUND_LAYERS) -> int | None:
    """The index of the module's layer (0 the top), None if no pattern matches.

    A package's own module (its __init__) matches "playground.*" only if nothing above it did:
    it holds no code the features import."""
    for index, (_, patterns) in enumerate(layers):
        if any(fnmatchcase(name, pattern) for pattern in patterns):
            return index
    return None


def upward_imports(graph: dict[str, set[str]], layers=PLAYGROUND_LAYERS) -> list[str]:
    """Every import of a module from a layer above its own, as "a (layer) imports b (layer)"."""
    found = []
    for name, targets in sorted(graph.items()):
        for target in sorted(targets):
            mine, theirs = layer_of(name, layers), layer_of(target, layers)
            if mine is not None and theirs is not None and theirs < mine:
                found.append(f"{name} ({layers[mine][0]}) imports {target} "
                             f"({layers[theirs][0]})")
    return found


def test_upward_imports_are_found_and_named_with_their_layers():
    layers = (("top", ("app.views",)), ("middle", ("app.*.services",)), ("low", ("app.*",)))
    graph = {"app.views": {"app.runs.services"}, "app.runs.services": {"app.models"},
             "app.models": {"app.views"}}
    assert upward_imports(graph, layers) == ["app.models (low) imports app.views (top)"]


def test_playground_imports_its_layers_downwards_only():
    graph = {name: {t for t in targets if t.startswith("playground")}
             for name, targets in import_graph().items() if name.startswith("playground")}
    assert upward_imports(graph) == []


def test_every_playground_module_has_a_layer_and_packages_hold_no_imports_of_features():
    """A new module must be placed in PLAYGROUND_LAYERS on purpose: the catch-all
    "playground.*" of the bottom layer is for the packages' own modules only."""
    graph = import_graph()
    bottom = len(PLAYGROUND_LAYERS) - 1
    misplaced = [name for name, path in modules().items()
                 if name.startswith("playground") and layer_of(name) == bottom
                 and path.name != "__init__.py"
                 and name not in ("playground.celery", "playground.settings", "playground.env")]
    assert misplaced == []
    assert {t for t in graph["playground"]} <= {"playground.celery"}


def test_the_engine_imports_no_web_framework():
    offenders = []
    for name, path in modules().items():
        if not name.startswith("scheduler_core"):
            continue
        for imported in imported_names(name, path):
            if imported.split(".")[0] in WEB_ONLY:
                offenders.append(f"{name} imports {imported}")
    assert offenders == []


def is_test(name: str) -> bool:
    parts = name.split(".")
    return "tests" in parts or parts[-1].startswith("test_") or parts[-1] == "conftest"


def engine_graph() -> dict[str, set[str]]:
    """The engine's modules, tests left out, and the engine modules each imports."""
    return {name: {t for t in targets if t.startswith("scheduler_core") and not is_test(t)}
            for name, targets in import_graph().items()
            if name.startswith("scheduler_core") and not is_test(name)}


def test_tests_are_told_from_the_engine_s_modules():
    assert is_test("scheduler_core.tests.test_cli")
    assert is_test("scheduler_core.plugins.noderesources.test_fit")
    assert not is_test("scheduler_core.testing.fakes")
    assert not is_test("scheduler_core.plugins.noderesources.fit")


def test_every_engine_module_has_a_layer():
    """A new engine module must be placed in ENGINE_LAYERS on purpose."""
    assert [name for name in engine_graph() if layer_of(name, ENGINE_LAYERS) is None] == []


def test_the_engine_imports_its_layers_downwards_only():
    assert upward_imports(engine_graph(), ENGINE_LAYERS) == []


def test_a_framework_importing_a_plugin_would_be_found():
    graph = {E + "framework.runtime": {E + "plugins.helper"}, E + "plugins.helper": set()}
    assert upward_imports(graph, ENGINE_LAYERS) == [
        "scheduler_core.framework.runtime (framework) imports scheduler_core.plugins.helper "
        "(plugins)"]
