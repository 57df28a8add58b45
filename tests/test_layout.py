"""The shape of the code: who imports whom, and how long a module may grow.

The import graph is built statically (`ast`, nothing imported) from every `import` statement in
`loom/`, at any level, each edge marked with where its import sits: `module` (runs on import),
`lazy` (inside a function: still a dependency, it only postpones a circle to run time) or
`typing` (under `if TYPE_CHECKING:`: couples the code for a reader, never runs). `loom.pipeline`
and `loom.cli` are the top of the house and import every stage lazily, so their edges are left
out. `import loom.a.b` / `from loom.a.b import c` is an edge to `loom.a.b` (or to `loom.a.b.c`
when that is a module); the parent packages' `__init__` files it also runs are not counted, else
every module would sit in a circle with `loom/__init__.py`.

Asserted, over every kind of edge: the stage packages `model`, `solve` and `backend` import one
another in no circle, and the model reaches neither the solver that consumes it nor the backend
that runs its choice; no circle among `loom`'s modules (but those in KNOWN_CIRCLES). Over the
edges that run (`module`, `lazy`): the simulator, the independent measurement, runs no code of the
model or the solver. And no module under `loom/` is over 600 lines (but those in OVER_BUDGET).
"""

from __future__ import annotations

import ast
from pathlib import Path

import networkx as nx

from tests.conftest import ROOT

PACKAGE = ROOT / "loom"
TOP = {"loom.pipeline", "loom.cli"}  # the top imports everything, lazily: not a dependency edge
STAGES = ("loom.model", "loom.solve", "loom.backend")
MAX_LINES = 600
# Module circles still standing, each with the change that removes it. Nothing else belongs here.
KNOWN_CIRCLES = {
    # The mixins annotate with the engine's state classes (CBState, CoreState, Role), which the
    # op-table change edits: branch habits-sim-state moves them to loom/sim/state.py.
    frozenset({"loom.sim.engine", "loom.sim.movement"}): "issue 20: move the sim state after the op-table merge",
    frozenset({"loom.sim.engine", "loom.sim.operands"}): "issue 20: move the sim state after the op-table merge",
}
# Files allowed past the line budget, each with the issue that splits it. Nothing else belongs here.
OVER_BUDGET = {
}


def module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def modules() -> dict[str, Path]:
    return {module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}


KINDS = ("module", "lazy", "typing")  # strongest first: an edge keeps the strongest of its imports
RUNS = ("module", "lazy")


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def _import_nodes(node: ast.AST, kind: str = "module"):
    """Every import statement under `node`, with the kind of place it sits in."""
    for child in ast.iter_child_nodes(node):
        if isinstance(child, (ast.Import, ast.ImportFrom)):
            yield child, kind
        elif isinstance(child, ast.If) and _is_type_checking(child.test):
            for stmt in child.body:
                yield from _import_nodes(ast.Module(body=[stmt], type_ignores=[]), "typing")
            for stmt in child.orelse:
                yield from _import_nodes(ast.Module(body=[stmt], type_ignores=[]), kind)
        elif isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            yield from _import_nodes(child, "lazy" if kind == "module" else kind)
        else:
            yield from _import_nodes(child, kind)


def imports(path: Path, name: str, known: set[str]) -> dict[str, str]:
    """The `loom` modules one file imports, each with the strongest kind of its imports."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: dict[str, str] = {}
    for node, kind in _import_nodes(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        else:
            base = node.module or ""
            if node.level:  # relative: from the file's package, `level - 1` packages up
                anchor = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                base = ".".join(anchor + ([base] if base else []))
            targets = [f"{base}.{alias.name}" if f"{base}.{alias.name}" in known else base for alias in node.names]
        for target in targets:
            if target in known and target != name:
                found[target] = min(found.get(target, kind), kind, key=KINDS.index)
    return found


def module_graph(kinds: tuple[str, ...] = KINDS) -> nx.DiGraph:
    """Modules as nodes, an edge per importing module and imported one (of the given kinds)."""
    known = modules()
    graph = nx.DiGraph()
    graph.add_nodes_from(known)
    for name, path in known.items():
        if name not in TOP:
            graph.add_edges_from((name, target, {"kind": kind})
                                 for target, kind in imports(path, name, set(known)).items() if kind in kinds)
    return graph


def package_of(module: str) -> str:
    return ".".join(module.split(".")[:2])


def package_graph(graph: nx.DiGraph) -> nx.DiGraph:
    """Packages as nodes; each edge remembers the module imports that make it."""
    packages = nx.DiGraph()
    for a, b, kind in graph.edges(data="kind"):
        pa, pb = package_of(a), package_of(b)
        if pa != pb:
            if not packages.has_edge(pa, pb):
                packages.add_edge(pa, pb, why=[])
            packages.edges[pa, pb]["why"].append(f"{a} -> {b} ({kind})")
    return packages


def describe(cycles: list[list[str]], graph: nx.DiGraph) -> str:
    """Each circle as `a -> b -> a`, with the imports behind each edge and their kind."""
    lines = []
    for cycle in sorted(cycles):
        lines.append(" -> ".join(cycle + cycle[:1]))
        for a, b in zip(cycle, cycle[1:] + cycle[:1]):
            edge = graph.edges[a, b]
            whys = edge["why"] if "why" in edge else [f"{a} -> {b} ({edge['kind']})"]
            lines.extend(f"    {why}" for why in whys)
    return "\n".join(lines)


def test_the_stage_packages_import_one_another_in_no_circle():
    packages = package_graph(module_graph())
    stages = packages.subgraph(p for p in STAGES if p in packages)
    cycles = list(nx.simple_cycles(stages))
    assert not cycles, "import circles between stage packages:\n" + describe(cycles, stages)


def reached(graph: nx.DiGraph, package: str) -> set[str]:
    """Every module that some module of `package` imports, directly or not."""
    return set().union(*(nx.descendants(graph, m) for m in graph if package_of(m) == package))


def test_the_model_reaches_neither_the_solver_nor_the_backend():
    bad = sorted(m for m in reached(module_graph(), "loom.model") if package_of(m) in ("loom.solve", "loom.backend"))
    assert not bad, f"loom.model reaches {bad}"


def test_the_simulator_runs_no_code_of_the_model_or_the_solver():
    bad = sorted(m for m in reached(module_graph(RUNS), "loom.sim") if package_of(m) in ("loom.model", "loom.solve"))
    assert not bad, f"loom.sim reaches {bad}"


def test_no_module_of_loom_imports_itself_in_a_circle():
    graph = module_graph()
    all_cycles = list(nx.simple_cycles(graph))
    cycles = [c for c in all_cycles if frozenset(c) not in KNOWN_CIRCLES]
    assert not cycles, "import circles between modules:\n" + describe(cycles, graph)
    stale = [sorted(k) for k in KNOWN_CIRCLES if k not in {frozenset(c) for c in all_cycles}]
    assert not stale, f"circles gone, remove from KNOWN_CIRCLES: {stale}"


def test_no_module_is_over_the_line_budget():
    lengths = {str(p.relative_to(ROOT)): len(p.read_text().splitlines()) for p in modules().values()}
    over = {path: n for path, n in lengths.items() if n > MAX_LINES and path not in OVER_BUDGET}
    assert not over, f"over {MAX_LINES} lines (split along a seam):\n" + "\n".join(
        f"  {path}: {n}" for path, n in sorted(over.items(), key=lambda item: -item[1]))
    stale = sorted(path for path in OVER_BUDGET if lengths.get(path, 0) <= MAX_LINES)
    assert not stale, f"back under {MAX_LINES} lines, remove from OVER_BUDGET: {stale}"
