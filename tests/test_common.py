"""The problem contract (``clustersched._contract``), checked on every problem (scikit-learn's ``check_estimator``).

Each ``check_*`` function takes a :class:`Problem` (the problem's package, a small instance and an empty one) and
fails with an AssertionError naming the rule it breaks; the tests run every check over the five problems, and over
deliberately broken problems, which every check must reject.  A new problem joins by adding its :class:`Problem`
to :data:`PROBLEMS`.
"""

from __future__ import annotations

import ast
import dataclasses
import importlib
import inspect
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from types import SimpleNamespace
from typing import Any

import numpy as np
import pytest
from test_layout import PYTHON, python_import_graph, rust_use_graph

from clustersched import _contract
from clustersched._contract import ALLOWED_IMPORTS, ALLOWED_UPWARD, LAYERS, Registry, UnknownNameError
from clustersched.errors import InvalidWorkloadError


@dataclass(frozen=True)
class Problem:
    """What the checks need of one problem: its package, an instance, an empty workload."""

    name: str
    package: Any
    #: () -> (workload, platform, options): a small instance every algorithm of the registry schedules.
    instance: Callable[[], tuple[Any, Any, dict[str, Any]]]
    #: () -> a workload with nothing to schedule (for the instance's platform).
    empty: Callable[[], Any]


def _batch_instance():
    from clustersched import JobTable

    jobs = JobTable({"submit": [0, 1, 2, 3], "runtime": [10, 5, 5, 2], "procs": [3, 4, 1, 2]})
    return jobs, 4, {}


def _batch_empty():
    from clustersched import JobTable

    return JobTable({"submit": [], "runtime": [], "procs": []})


def _ptg_instance():
    from clustersched.platform import cluster
    from clustersched.workload.ptg_generators import ptg_population

    return ptg_population("random", 2, seed=0), cluster("grelon"), {}


def _scrap_instance():
    from clustersched.platform import random_multicluster
    from clustersched.workload.ptg_generators import random_ptg

    ptg = random_ptg(10, fat=0.5, regularity=0.8, density=0.5, jump=2, seed=4)
    return ptg, random_multicluster(3, 0.5, 2.0, seed=4), {"beta": 0.5}


def _scrap_empty():
    from clustersched.workload.ptg import PTG

    z = np.zeros(0)
    return PTG(name="e", labels=[], work=z, alpha=z, synthetic=z.astype(bool), edges=[], node_attrs=[], graph_attrs={})


def _dfrs_instance():
    from clustersched.dfrs import DfrsJobs, DfrsPlatform

    jobs = DfrsJobs(
        submit=[0, 0, 5], processing_time=[100, 50, 20], tasks=[1, 2, 1], cpu_need=[1.0, 0.5, 0.5], mem_need=[0.5] * 3
    )
    return jobs, DfrsPlatform(2), {}


def _dfrs_empty():
    from clustersched.dfrs import DfrsJobs

    return DfrsJobs(submit=[], processing_time=[], tasks=[], cpu_need=[], mem_need=[])


def _grid_instance():
    from clustersched.grid import feasible_instance

    inst = feasible_instance("small", "small", seed=3)
    return inst.tig, inst.grid, {}


def _grid_empty():
    from clustersched.grid import TIG

    e = np.empty(0)
    return TIG(name="e", labels=[], mcr=e, edge_u=e.astype(np.int64), edge_v=e.astype(np.int64), mbr=e)


def _package(name: str) -> Callable[[], Any]:
    return lambda: importlib.import_module(f"clustersched.{name}")


PROBLEMS = {
    "batch": (_batch_instance, _batch_empty),
    "ptg": (_ptg_instance, lambda: []),
    "scrap": (_scrap_instance, _scrap_empty),
    "dfrs": (_dfrs_instance, _dfrs_empty),
    "grid": (_grid_instance, _grid_empty),
}


def problem(name: str) -> Problem:
    instance, empty = PROBLEMS[name]
    return Problem(name, importlib.import_module(f"clustersched.{name}"), instance, empty)


# -- the checks ------------------------------------------------------------------------------------------------------


def respell(name: str) -> str:
    """``name`` in another spelling the lookup rule reads alike (case swapped, ``-`` and ``_`` exchanged)."""
    return name.swapcase().translate(str.maketrans("-_", "_-"))


def check_signature(p: Problem) -> None:
    """``run(workload, platform, algorithm, *, seed=None, validate=None, **options)``: three positional inputs in
    that order, then keyword-only options only."""
    params = list(inspect.signature(p.package.run).parameters.values())
    head = [(x.name, x.kind) for x in params[:3]]
    assert head == [(n, inspect.Parameter.POSITIONAL_OR_KEYWORD) for n in ("workload", "platform", "algorithm")], (
        f"{p.name}.run's inputs are {head}, must be (workload, platform, algorithm)"
    )
    for x in params[3:]:
        assert x.kind in (x.KEYWORD_ONLY, x.VAR_KEYWORD), f"{p.name}.run's option {x.name!r} is not keyword-only"
    options = {x.name: x for x in params[3:]}
    for name in ("seed", "validate"):
        assert name in options and options[name].default is None, f"{p.name}.run lacks the option {name}=None"


def check_registry(p: Problem) -> None:
    """``ALGORITHMS`` is a read-only Registry (a Mapping of str) looked up by the one name rule."""
    reg = p.package.ALGORITHMS
    assert isinstance(reg, Registry) and isinstance(reg, Mapping), f"{p.name}.ALGORITHMS is not a Registry"
    assert len(reg) > 0 and all(isinstance(k, str) for k in reg), f"{p.name}.ALGORITHMS has a name not a str"
    assert not hasattr(reg, "__setitem__"), f"{p.name}.ALGORITHMS can be written"
    for name in reg:
        for spelling in (name, respell(name)):
            assert spelling in reg and reg[spelling] is reg[name], f"{p.name}.ALGORITHMS[{spelling!r}]"
            assert reg.canonical(spelling) == name
    for error in (KeyError, ValueError):
        with pytest.raises(error, match="must be one of"):
            reg["no such algorithm"]
    assert "no such algorithm" not in reg and reg.get("no such algorithm") is None


def check_run(p: Problem) -> None:
    """Every algorithm runs on the instance by any spelling of its name, and returns one of the Run family."""
    workload, platform, options = p.instance()
    names = list(p.package.ALGORITHMS)
    for name in names[:1] + names[-1:]:
        run = p.package.run(workload, platform, respell(name), **options)
        check_result(p.name, run, name)
    with pytest.raises(TypeError):  # an option given by position
        p.package.run(workload, platform, names[0], None, **options)


def check_result(problem_name: str, run: Any, name: str) -> None:
    """A frozen dataclass ``<Problem>Run``: algorithm, schedule, metrics, seconds, summary(), to_pandas()."""
    kind = type(run)
    assert dataclasses.is_dataclass(kind) and kind.__dataclass_params__.frozen, f"{kind.__name__} is not frozen"
    assert kind.__name__.endswith("Run"), f"{problem_name}.run returns a {kind.__name__}, not a <Problem>Run"
    for attr in ("algorithm", "schedule", "metrics", "seconds"):
        assert hasattr(run, attr), f"{kind.__name__} has no {attr}"
    assert run.algorithm == name, f"{kind.__name__}.algorithm == {run.algorithm!r}, not the canonical {name!r}"
    assert isinstance(run.seconds, float) and run.seconds >= 0
    assert getattr(run.schedule, "algorithm", name) == name
    summary = run.summary()
    assert isinstance(summary, dict), f"{kind.__name__}.summary() is not a dict"
    keys = list(summary)
    assert keys[:1] == ["algorithm"] and keys[-1:] == ["seconds"], f"{kind.__name__}.summary() keys {keys}"
    assert summary["algorithm"] == name and summary["seconds"] == run.seconds
    metrics = run.metrics.summary() if run.metrics is not None else {}
    missing = set(metrics) - set(summary)
    assert not missing, f"{kind.__name__}.summary() lacks the metrics' {sorted(missing)}"
    frame = run.to_pandas()
    assert len(frame) == 1 and frame.columns[0] == "algorithm", f"{kind.__name__}.to_pandas() is not one row"


def check_validate_default(p: Problem, monkeypatch: pytest.MonkeyPatch) -> None:
    """``validate`` defaults to the environment (:func:`clustersched._contract.validate_default`), and a bad value
    is a TypeError."""
    workload, platform, options = p.instance()
    name = next(iter(p.package.ALGORITHMS))
    seen = []

    def spy(validate):
        seen.append(validate)
        return _contract.validate_default(validate)

    # every run reads the default through validate_default, whichever module of its problem calls it
    for module in _modules_calling_validate_default(p.name):
        monkeypatch.setattr(importlib.import_module(module), "validate_default", spy)
    p.package.run(workload, platform, name, **options)
    assert seen and seen[0] is None, f"{p.name}.run does not read its validate default from the environment"
    with pytest.raises(TypeError, match="validate"):
        p.package.run(workload, platform, name, validate="yes", **options)


def _modules_calling_validate_default(problem_name: str) -> list[str]:
    folder = PYTHON / problem_name
    return [
        f"clustersched.{problem_name}.{path.stem}"
        for path in folder.glob("*.py")
        if path.stem != "__init__" and "validate_default(" in path.read_text()
    ]


def check_empty_input(p: Problem) -> None:
    """A workload with nothing to schedule raises InvalidWorkloadError."""
    _, platform, options = p.instance()
    name = next(iter(p.package.ALGORITHMS))
    with pytest.raises(InvalidWorkloadError):
        p.package.run(p.empty(), platform, name, **options)


def check_seed(p: Problem) -> None:
    """``seed`` takes None, an int >= 0 or a Generator, and refuses anything else."""
    workload, platform, options = p.instance()
    name = next(iter(p.package.ALGORITHMS))
    for seed in (None, 0, np.random.default_rng(1)):
        p.package.run(workload, platform, name, seed=seed, **options)
    with pytest.raises(TypeError, match="seed"):
        p.package.run(workload, platform, name, seed="1", **options)
    with pytest.raises(ValueError, match="seed"):
        p.package.run(workload, platform, name, seed=-1, **options)


# -- the five problems pass ------------------------------------------------------------------------------------------


def test_the_problems_are_the_contracts():
    assert tuple(PROBLEMS) == _contract.PROBLEMS


@pytest.mark.parametrize("name", _contract.PROBLEMS)
def test_run_signature(name):
    check_signature(problem(name))


@pytest.mark.parametrize("name", _contract.PROBLEMS)
def test_registry(name):
    check_registry(problem(name))


@pytest.mark.parametrize("name", _contract.PROBLEMS)
def test_run_and_its_result(name):
    check_run(problem(name))


@pytest.mark.parametrize("name", _contract.PROBLEMS)
def test_validate_default(name, monkeypatch):
    check_validate_default(problem(name), monkeypatch)


@pytest.mark.parametrize("name", _contract.PROBLEMS)
def test_empty_input(name):
    check_empty_input(problem(name))


@pytest.mark.parametrize("name", _contract.PROBLEMS)
def test_seed(name):
    check_seed(problem(name))


def test_validate_default_is_off_unless_the_environment_sets_it(monkeypatch):
    monkeypatch.delenv(_contract.VALIDATE_ENV, raising=False)
    assert _contract.validate_default(None) is False
    monkeypatch.setenv(_contract.VALIDATE_ENV, "1")
    assert _contract.validate_default(None) is True
    assert _contract.validate_default(False) is False and _contract.validate_default(np.True_) is True


def test_kept_calls_keep_their_shape():
    """The calls users and notebooks rely on (issue 32): inputs positional, options keyword-only."""
    import clustersched as cs
    from clustersched import dfrs

    for fn, inputs in ((cs.simulate, ["jobs", "policy"]), (cs.sweep, ["workload", "policies", "loads"])):
        params = list(inspect.signature(fn).parameters.values())
        assert [x.name for x in params[: len(inputs)]] == inputs
        assert all(x.kind == x.KEYWORD_ONLY for x in params[len(inputs) :]), fn.__name__
    params = list(inspect.signature(dfrs.simulate).parameters.values())
    assert [x.name for x in params[:3]] == ["jobs", "platform", "algorithm"]
    assert all(x.kind == x.KEYWORD_ONLY for x in params[3:])
    for fn in (cs.simulate, dfrs.simulate):
        assert inspect.signature(fn).parameters["validate"].default is None


def test_unknown_name_error_is_both_a_key_error_and_a_value_error():
    r = Registry("algorithm", {"A-B": 1})
    with pytest.raises(UnknownNameError) as info:
        r["c"]
    assert isinstance(info.value, KeyError) and isinstance(info.value, ValueError)
    assert str(info.value) == "algorithm == 'c', must be one of 'A-B'"  # not KeyError's quoted repr
    assert r["a_b"] == 1 and dict(r) == {"A-B": 1}


# -- the imports -----------------------------------------------------------------------------------------------------


def _top(module: str) -> str:
    parts = module.split(".")[1:]
    return parts[0] if parts else ""


def _layer(module: str) -> int:
    if module.rsplit(".", 1)[-1] == "cli":
        return len(LAYERS) - 1
    top = _top(module)
    for i, layer in enumerate(LAYERS):
        if top in layer:
            return i
    raise AssertionError(f"{module} is in no layer of clustersched._contract.LAYERS")


def _covers(prefix: str, module: str) -> bool:
    name = "clustersched." + prefix
    return module == name or module.startswith(name + ".")


def cross_problem_imports(edges) -> set[tuple[str, str]]:
    problems = set(_contract.PROBLEMS)
    return {(_top(a), _top(b)) for a, b in edges if _top(a) in problems and _top(b) in problems and _top(a) != _top(b)}


def upward_imports(edges) -> set[tuple[str, str]]:
    return {
        (a, b)
        for a, b in edges
        if _layer(b) > _layer(a) and not any(_covers(x, a) and _covers(y, b) for x, y in ALLOWED_UPWARD)
    }


def private_imports(package=PYTHON) -> list[str]:
    """``from m import _name`` of a function, class or constant of another module (private modules are fine)."""
    modules = {
        ".".join(p.relative_to(package.parent).with_suffix("").parts).removesuffix(".__init__")
        for p in package.rglob("*.py")
    }
    found = []
    for path in sorted(package.rglob("*.py")):
        name = ".".join(path.relative_to(package.parent).with_suffix("").parts)
        here = name.removesuffix(".__init__") if name.endswith(".__init__") else name.rpartition(".")[0]
        for node in ast.walk(ast.parse(path.read_text())):
            if not isinstance(node, ast.ImportFrom):
                continue
            base = node.module or ""
            if node.level:
                parts = here.split(".")[: len(here.split(".")) - (node.level - 1)]
                base = ".".join(parts + ([node.module] if node.module else []))
            for alias in node.names:
                private = alias.name.startswith("_") and not alias.name.endswith("__")
                if private and f"{base}.{alias.name}" not in modules | {"clustersched._core"}:
                    found.append(f"{name}:{node.lineno} imports {base}.{alias.name}")
    return found


def test_no_import_between_problems_but_the_allowed():
    python = cross_problem_imports(python_import_graph().edges)
    rust = {(a.split("::")[0], b.split("::")[0]) for a, b in rust_use_graph().edges}
    assert python <= ALLOWED_IMPORTS, python - ALLOWED_IMPORTS
    assert cross_problem_imports((f"clustersched.{a}", f"clustersched.{b}") for a, b in rust) <= ALLOWED_IMPORTS
    assert ("dfrs", "batch") in python and ("scrap", "ptg") in python  # the checker sees them at all


def test_no_upward_import_but_the_allowed():
    edges = python_import_graph().edges
    assert upward_imports(edges) == set()
    # every allowed pair is used (a stale entry is removed)
    for x, y in ALLOWED_UPWARD:
        assert any(_covers(x, a) and _covers(y, b) for a, b in edges), (x, y)


def test_no_private_name_imported_across_modules():
    assert private_imports() == []


# -- a broken problem fails ------------------------------------------------------------------------------------------


def _broken(name: str, **changes: Any) -> Problem:
    good = problem(name)
    package = SimpleNamespace(**{k: getattr(good.package, k) for k in ("run", "ALGORITHMS")})
    for key, value in changes.items():
        setattr(package, key, value)
    return dataclasses.replace(good, package=package)


def test_a_run_with_its_inputs_in_another_order_fails():
    def run(algorithm, workload, platform, *, seed=None, validate=None):
        raise AssertionError("not called")

    with pytest.raises(AssertionError, match="must be \\(workload, platform, algorithm\\)"):
        check_signature(_broken("grid", run=run))


def test_a_positional_option_fails():
    def run(workload, platform, algorithm, bandwidth="shared", *, seed=None, validate=None):
        raise AssertionError("not called")

    with pytest.raises(AssertionError, match="'bandwidth' is not keyword-only"):
        check_signature(_broken("grid", run=run))


def test_a_validate_defaulting_to_true_fails():
    def run(workload, platform, algorithm, *, seed=None, validate=True):
        raise AssertionError("not called")

    with pytest.raises(AssertionError, match="validate=None"):
        check_signature(_broken("grid", run=run))


@pytest.mark.parametrize(
    "registry",
    [("QLSE", "greedy"), {"QLSE": 1, "greedy": 2}, Registry("algorithm", {"QLSE": 1, 2: 2})],
    ids=["tuple", "dict", "non-str-name"],
)
def test_a_registry_that_is_not_one_fails(registry):
    with pytest.raises(AssertionError):
        check_registry(_broken("grid", ALGORITHMS=registry))


def test_a_summary_missing_a_key_fails():
    grid = problem("grid").package

    def run(workload, platform, algorithm, *, seed=None, validate=None, **options):
        real = grid.run(workload, platform, algorithm, seed=seed, validate=validate, **options)

        @dataclass(frozen=True)
        class GridRun:
            algorithm: str
            schedule: Any
            metrics: Any
            seconds: float

            def summary(self):
                return {"algorithm": self.algorithm, "found": True, "seconds": self.seconds}  # no measure

            def to_pandas(self):
                return real.to_pandas()

        return GridRun(real.algorithm, real.schedule, real.metrics, real.seconds)

    with pytest.raises(AssertionError, match=re.escape("summary() lacks the metrics'")):
        check_run(_broken("grid", run=run))


def test_a_result_naming_the_algorithm_otherwise_fails():
    batch = problem("batch").package

    def run(workload, platform, algorithm, *, seed=None, validate=None, **options):
        real = batch.run(workload, platform, algorithm, seed=seed, validate=validate, **options)
        return dataclasses.replace(real, algorithm=algorithm)  # as given, not canonical

    with pytest.raises(AssertionError, match="not the canonical"):
        check_run(_broken("batch", run=run))


def test_a_run_reading_no_validate_default_fails(monkeypatch):
    ptg = problem("ptg").package

    def run(workload, platform, algorithm, *, seed=None, validate=None, **options):
        return ptg.run(workload, platform, algorithm, seed=seed, validate=bool(validate), **options)

    with pytest.raises(AssertionError, match="validate default"):
        check_validate_default(_broken("ptg", run=run), monkeypatch)


def test_an_empty_workload_accepted_fails():
    def run(workload, platform, algorithm, **options):
        return None

    with pytest.raises(pytest.fail.Exception):
        check_empty_input(_broken("dfrs", run=run))


def test_the_import_checks_find_what_they_forbid(tmp_path):
    edges = [
        ("clustersched.ptg", "clustersched.scrap"),  # the aliases ptg used to keep
        ("clustersched.grid.qlse", "clustersched.batch.simulator"),
    ]
    assert cross_problem_imports(edges) == {("ptg", "scrap"), ("grid", "batch")}
    up = [("clustersched.batch.sweep", "clustersched.plot"), ("clustersched.workload.swf", "clustersched.batch")]
    assert upward_imports(up) == {("clustersched.workload.swf", "clustersched.batch")}
    package = tmp_path / "clustersched"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "a.py").write_text("def _f():\n    pass\n")
    (package / "b.py").write_text("from .a import _f\nfrom . import a\n")
    assert private_imports(package) == ["clustersched.b:1 imports clustersched.a._f"]
