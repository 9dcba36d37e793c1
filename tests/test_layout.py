"""The folder tree is the architecture (docs/layout.md): no import circle among
the Python modules, no Rust module using one that uses it back, and the five
problem folders shaped alike.

Python: an edge ``a -> b`` for every explicit import of ``b`` in ``a`` -- at
module level, inside functions, under ``TYPE_CHECKING``, and every target of a
``lazy_exports`` table -- so a circle that only closes at run time, or only
for type checkers, is caught too.  Rust: an edge for every ``use crate::`` /
``use super::`` path (tests excluded), between files of ``rust/core/src``.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import networkx as nx
import pytest

ROOT = Path(__file__).resolve().parents[1]
PYTHON = ROOT / "python" / "clustersched"
RUST = ROOT / "rust" / "core" / "src"
PROBLEMS = ("batch", "ptg", "scrap", "dfrs", "grid")


def _python_modules(package: Path) -> dict[str, tuple[Path, bool]]:
    modules = {}
    for path in package.rglob("*.py"):
        parts = list(path.relative_to(package.parent).with_suffix("").parts)
        is_package = parts[-1] == "__init__"
        if is_package:
            parts.pop()
        modules[".".join(parts)] = (path, is_package)
    return modules


def python_import_graph(package: Path = PYTHON) -> nx.DiGraph:
    modules = _python_modules(package)
    known = set(modules) | {"clustersched._core"}

    def resolve(name: str) -> str:
        while name and name not in known:
            name = name.rpartition(".")[0]
        return name

    graph = nx.DiGraph()
    for name, (path, is_package) in modules.items():
        graph.add_node(name)
        here = name if is_package else name.rpartition(".")[0]

        def absolute(module: str | None, level: int) -> str:
            if not level:
                return module or ""
            base = here.split(".")[: len(here.split(".")) - (level - 1)]
            return ".".join(base + ([module] if module else []))

        for node in ast.walk(ast.parse(path.read_text())):
            targets: list[str] = []
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = absolute(node.module, node.level)
                targets = [f"{base}.{a.name}" if f"{base}.{a.name}" in known else base for a in node.names]
            elif isinstance(node, ast.Call) and getattr(node.func, "id", None) == "lazy_exports":
                table = node.args[1]
                if isinstance(table, ast.Dict):
                    for value in table.values:
                        target = value.value.partition(":")[0]  # type: ignore[attr-defined]
                        level = len(target) - len(target.lstrip("."))
                        targets.append(absolute(target.lstrip("."), level))
            for target in targets:
                target = resolve(target)
                if target.startswith("clustersched") and target != name:
                    graph.add_edge(name, target)
    return graph


def rust_use_graph(src: Path = RUST) -> nx.DiGraph:
    files = {}
    for path in src.rglob("*.rs"):
        parts = list(path.relative_to(src).with_suffix("").parts)
        if parts[-1] in ("mod", "lib"):
            parts.pop()
        files["::".join(parts)] = path

    def resolve(name: str) -> str:
        while name and name not in files:
            name = name.rpartition("::")[0]
        return name

    graph = nx.DiGraph()
    for name, path in files.items():
        graph.add_node(name)
        source = re.sub(r"//.*", "", path.read_text().split("#[cfg(test)]")[0])
        is_module_root = path.stem in ("mod", "lib")
        parent = name if is_module_root else name.rpartition("::")[0]
        for m in re.finditer(r"\b(crate|super)::([A-Za-z_:]+)(\{[^}]*\})?", source):
            base = "" if m.group(1) == "crate" else (name.rpartition("::")[0] if is_module_root else parent)
            head = m.group(2).strip(":")
            items = [head]
            if m.group(3):
                items = [f"{head}::{i.strip().split('::')[0]}" for i in m.group(3)[1:-1].split(",") if i.strip()]
            for item in items:
                target = resolve("::".join(x for x in (base, item) if x))
                if target and target != name and not name.startswith(target + "::"):
                    graph.add_edge(name, target)
    return graph


def test_no_python_import_circle():
    graph = python_import_graph()
    assert graph.number_of_edges() > 100  # the checker sees the imports at all
    assert ("clustersched.validate", "clustersched.scrap.validate") in graph.edges
    assert list(nx.simple_cycles(graph)) == []


def test_no_rust_module_uses_one_that_uses_it_back():
    graph = rust_use_graph()
    assert ("scrap::allocation", "ptg") in graph.edges or ("scrap::allocation", "ptg::hcpa") in graph.edges
    assert list(nx.simple_cycles(graph)) == []
    # between the problems: only scrap builds on ptg; every problem may use error, time and memory; rl (a layer
    # above the problems, not one of them) steps the batch simulator's state
    problems = {(a.split("::")[0], b.split("::")[0]) for a, b in graph.edges if a.split("::")[0] != b.split("::")[0]}
    assert {(a, b) for a, b in problems if b not in ("error", "time", "memory")} == {("scrap", "ptg"), ("rl", "batch")}


@pytest.mark.parametrize("problem", PROBLEMS)
def test_every_problem_folder_has_the_same_roles(problem):
    folder = PYTHON / problem
    for role in ("__init__.py", "cli.py", "validate.py", "metrics.py"):
        assert (folder / role).exists(), f"{problem}/{role}"
    assert (RUST / problem).is_dir()
    assert f"  {problem}/" in (ROOT / "docs" / "layout.md").read_text()


def test_the_checkers_find_a_circle(tmp_path):
    package = tmp_path / "clustersched"
    (package / "sub").mkdir(parents=True)
    (package / "__init__.py").write_text("from ._lazy import lazy_exports\nlazy_exports(__name__, {'f': '.sub.a'})\n")
    (package / "_lazy.py").write_text("")
    (package / "sub" / "__init__.py").write_text("from . import a\n")
    (package / "sub" / "a.py").write_text("def f():\n    from .. import b\n")
    (package / "b.py").write_text("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from . import sub\n")
    cycles = list(nx.simple_cycles(python_import_graph(package)))
    assert len(cycles) == 1 and set(cycles[0]) == {"clustersched.sub", "clustersched.b", "clustersched.sub.a"}
    src = tmp_path / "src"
    (src / "m").mkdir(parents=True)
    (src / "lib.rs").write_text("pub mod m;\npub mod n;\n")
    (src / "m" / "mod.rs").write_text("use crate::n::X;\n")
    (src / "n.rs").write_text("use crate::m;\n#[cfg(test)]\nmod tests { use super::*; }\n")
    assert [set(c) for c in nx.simple_cycles(rust_use_graph(src))] == [{"m", "n"}]
