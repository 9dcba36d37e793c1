"""Fuzzing ``scrap.run`` (issue 20): no hang, no panic, no wrong schedule, under any input.

Every case runs in a worker process under a hard time limit (``tests/sandbox.py``):
a hang is a failure, not a stuck CI.  A case draws one PTG and one platform from
a seeded numpy RNG and runs the four algorithms of PDCS 2007 on them (random
``beta``, with and without communications); every schedule goes through
:func:`clustersched.scrap.multicluster_violations` *in the worker*, and a
violation, an untyped exception or a warning (numpy overflow included) fails
the case.  A ``ClusterschedError`` is a typed refusal of the input, counted.

Kinds of cases (1-8 clusters, 1-24 tasks):

``tiny``
    works of 1e-12..1e-6 flop: durations of a few ulps of the time stamps,
    the finding of issue 20 (316 of 1,500 such instances failed validation);
``huge``
    works of 1e15..1e20 flop;
``mixed``
    both and ordinary works, now and then a cluster of 16,384..32,767
    processors (within ``MAX_SIZE``: never refused);
``extreme``
    works of 1e-300..1e308 flop, speeds of 1 to 1e20 flop/s, up to 8 decades apart:
    mostly refused, by a ``ClusterschedError`` or by a ValueError naming one
    of the limits of :mod:`clustersched.scrap.model` (both counted as
    refusals).

Plus the issue's reproducers, as explicit cases.  Measured on the 2-core CI
machine: 3,200 instances (12,800 runs) in about 11 s; with ``test_fuzz_ptg.py``
about 30 s.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from clustersched.errors import ClusterschedError

from sandbox import fixture

#: Instances per kind (four runs each); the time is in the module docstring.
CASES = {"tiny": 1200, "huge": 800, "mixed": 800, "extreme": 400}

#: Seconds per case (a case is four runs, validation included): far above any case's time.
LIMIT = 20.0


class LimitRefusal(ClusterschedError):
    """A ValueError naming one of the documented limits of clustersched.scrap, counted as a refusal."""


sandbox = fixture("scrap fuzz (scrap.run, 4 algorithms, validated)", LIMIT)


def _instance(rng: np.random.Generator, kind: str):
    import networkx as nx

    from clustersched.platform import Cluster, MultiCluster, Network
    from clustersched.workload.ptg import PTG

    n = int(rng.integers(1, 25))
    g = nx.DiGraph()
    for v in range(n):
        if kind == "tiny":
            w = 10 ** rng.uniform(-12, -6)
        elif kind == "huge":
            w = 10 ** rng.uniform(15, 20)
        elif kind == "mixed":
            w = float(rng.choice([10 ** rng.uniform(-12, -6), 10 ** rng.uniform(15, 20), 10 ** rng.uniform(8, 12)]))
        else:
            w = 10 ** rng.uniform(-300, 308)
        alpha = float(rng.choice([0.0, 1.0, rng.uniform(0, 1)]))
        data = float(10 ** rng.uniform(0, 9)) if rng.random() < 0.8 else 0.0
        g.add_node(v, work=w, alpha=alpha, data=data)
    density = rng.uniform(0, 0.5)
    for v in range(1, n):
        for u in range(v):
            if rng.random() < density:
                g.add_edge(u, v)
    ptg = PTG.from_networkx(g)
    c = int(rng.integers(1, 9))
    procs = [int(rng.integers(1, 129)) for _ in range(c)]
    if kind == "mixed" and rng.random() < 0.05:
        procs[0] = int(rng.integers(2**14, 2**15))
    if kind == "extreme":  # log-uniform speeds over up to 8 decades, from 1 flop/s to 1e20
        low = rng.uniform(0, 12)
        speeds = 10 ** rng.uniform(low, low + rng.uniform(0, 8), size=c)
    else:  # §4: uniform in [min, min * heterogeneity] GFlop/s
        lo, h = rng.uniform(0.25, 1.0), rng.uniform(1.0, 5.0)
        speeds = rng.uniform(lo, lo * h, size=c) * 1e9
    clusters = tuple(Cluster(f"k{k}", procs[k], float(speeds[k])) for k in range(c))
    network = Network.paper([str(rng.choice(["1G", "10G"])) for _ in range(c)]) if rng.random() < 0.7 else None
    return ptg, MultiCluster(f"{kind}-{c}", clusters, network)


def _check_runs(ptg, platform, runs) -> None:
    """Runs ``(algorithm, beta, comms)`` and validates each schedule; AssertionError on a violation."""
    from clustersched.scrap import multicluster_violations
    from clustersched.scrap import run as run_scrap

    for name, beta, comms in runs:
        try:
            run = run_scrap(ptg, platform, name, beta=beta, comms=comms)
        except ValueError as exc:
            if "(clustersched.scrap.MAX_" in str(exc):
                raise LimitRefusal(str(exc)) from None
            raise
        found = multicluster_violations(run.schedule, ptg)
        assert not found, f"{name} beta={beta!r} comms={comms}: {found[:3]}"
        summary = run.summary()
        assert np.isfinite(summary["makespan"]) and summary["makespan"] >= 0, summary
        assert 0.0 <= summary["power_fraction"] <= 1.0 + 1e-9 and 0.0 <= summary["peak_power_fraction"] <= 1.0 + 1e-9


def scrap_case(kind: str, seed: int) -> None:
    """One random instance of ``kind`` drawn from ``seed``, the four algorithms on it."""
    from clustersched.scrap import ALGORITHMS

    warnings.simplefilter("error")  # an overflow warning is a finding, as in the test suite
    rng = np.random.default_rng([20, seed])
    ptg, platform = _instance(rng, kind)
    runs = []
    for name in ALGORITHMS:
        beta = float(rng.choice([1.0, rng.uniform(0.0, 1.0) or 1.0, 10 ** rng.uniform(-300, 0)]))
        runs.append((name, beta, bool(rng.integers(0, 2))))
    _check_runs(ptg, platform, runs)


def reproducer_case(which: str) -> None:
    """The cases of issue 20, each as it was reported."""
    import networkx as nx

    from clustersched.platform import Cluster, MultiCluster, Network, random_multicluster
    from clustersched.scrap import ALGORITHMS, problem
    from clustersched.scrap import run as run_scrap
    from clustersched.workload.ptg import PTG
    from clustersched.workload.ptg_generators import random_ptg

    warnings.simplefilter("error")
    if which == "tiny works":  # durations of 1e-8 s measured 1.0000000827e-8 s
        g = nx.DiGraph([(0, 1), (0, 2), (1, 3), (2, 3)])
        nx.set_node_attributes(g, {0: 1e10, 1: 10.0, 2: 30.0, 3: 1e-3}, "work")
        nx.set_node_attributes(g, 1e6, "data")
        p = MultiCluster("p", (Cluster("a", 16, 1e9), Cluster("b", 8, 2.5e9)), Network.paper(["1G", "10G"]))
        _check_runs(PTG.from_networkx(g), p, [(name, 0.3, True) for name in ALGORITHMS])
    elif which == "2**32 - 1 processors":  # never returned
        ptg = random_ptg(20, fat=0.5, regularity=0.8, density=0.5, jump=2, seed=0)
        big = MultiCluster("big", (Cluster("a", 2**32 - 1, 1e9),))
        for name in ALGORITHMS:
            try:
                run_scrap(ptg, big, name, beta=0.5)
            except ValueError as exc:
                assert "must be <= 65536 (clustersched.scrap.MAX_PROCS)" in str(exc), exc
            else:
                raise AssertionError(f"{name} ran on 2**32 - 1 processors")
    elif which == "core of another platform":  # returned a schedule with 14 violations
        ptg = random_ptg(20, fat=0.5, regularity=0.8, density=0.5, jump=2, seed=0)
        a, b = random_multicluster(4, 0.5, 2.0, seed=0), random_multicluster(4, 0.5, 2.0, seed=1)
        core = problem(ptg, a)
        for name in ALGORITHMS:
            try:
                run_scrap(ptg, b, name, beta=0.5, core=core)
            except ValueError as exc:
                assert "it was built for another platform" in str(exc), exc
            else:
                raise AssertionError(f"{name} used a core of another platform")
    else:
        raise AssertionError(which)


@pytest.mark.slow
@pytest.mark.parametrize("kind", list(CASES))
def test_run_scrap_fuzz(sandbox, kind):
    start = sandbox.rejected
    for seed in range(CASES[kind]):
        sandbox.run(scrap_case, kind, seed)
    if kind != "extreme":  # ordinary sizes are never refused
        assert sandbox.rejected == start


@pytest.mark.parametrize("which", ["tiny works", "2**32 - 1 processors", "core of another platform"])
def test_issue_20_reproducers(sandbox, which):
    assert sandbox.run(reproducer_case, which) == "ok"
