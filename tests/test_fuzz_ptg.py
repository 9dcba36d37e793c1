"""Fuzzing the 19 multi-PTG algorithms of RR-7224 (issue 20): no hang, no panic, no wrong schedule.

Every case runs in a worker process under a hard time limit (``tests/sandbox.py``).
A case draws a small population from a seeded numpy RNG (1-4 PTGs of 1-30
tasks, Amdahl ``alpha`` in [0, 1], a cluster of 1-64 processors or a Table 1
preset) and runs all of :data:`clustersched.ptg.ALGORITHMS` on it through
:func:`~clustersched.ptg.run` (metrics included); every schedule
goes through :func:`clustersched.ptg.ptg_violations` *in the worker*, and a
violation, an untyped exception or a warning fails the case.  A
``ClusterschedError`` is a typed refusal of the input, counted.

Kinds: ``tiny`` (works of 1e-12..1e-6 flop), ``huge`` (1e15..1e20 flop),
``mixed`` (both, with ordinary works), ``extreme`` (1e-300..1e308 flop and
speeds of 1e-5..1e15 flop/s: refused by the limits of
:mod:`clustersched.ptg` or scheduled; a ValueError naming a limit counts as
a refusal).  Plus the issue's reproducers, as explicit cases.  Measured on the
2-core CI machine: 1,800 populations (34,200 runs) in about 16 s.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from clustersched.errors import ClusterschedError

from sandbox import fixture

#: Populations per kind (19 runs each); the time is in the module docstring.
CASES = {"tiny": 600, "huge": 500, "mixed": 500, "extreme": 200}

#: Seconds per case (19 runs with their metrics and validation): far above any case's time.
LIMIT = 30.0


class LimitRefusal(ClusterschedError):
    """A ValueError naming one of the documented limits of clustersched.ptg, counted as a refusal."""


sandbox = fixture("ptg fuzz (19 algorithms, validated)", LIMIT)


def _population(rng: np.random.Generator, kind: str):
    import networkx as nx

    from clustersched.platform import CLUSTERS, Cluster
    from clustersched.workload.ptg import PTG

    ptgs = []
    for i in range(int(rng.integers(1, 5))):
        n = int(rng.integers(1, 31))
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
            g.add_node(v, work=w, alpha=float(rng.choice([0.0, 1.0, rng.uniform(0, 1)])))
        density = rng.uniform(0, 0.4)
        for v in range(1, n):
            for u in range(v):
                if rng.random() < density:
                    g.add_edge(u, v)
        ptgs.append(PTG.from_networkx(g, name=f"{kind}{i}"))
    if kind == "extreme":
        cluster = Cluster("c", int(rng.integers(1, 65)), float(10 ** rng.uniform(-5, 15)))
    elif rng.random() < 0.2:
        cluster = CLUSTERS[str(rng.choice(sorted(CLUSTERS)))]
    else:
        cluster = Cluster("c", int(rng.integers(1, 65)), float(10 ** rng.uniform(8, 10)))
    return ptgs, cluster


def _check_all(ptgs, cluster, seed: int) -> None:
    from clustersched.ptg import ALGORITHMS, ptg_violations
    from clustersched.ptg import run as run_ptg

    for name in ALGORITHMS:
        try:
            run = run_ptg(ptgs, cluster, name, seed=seed, validate=False)
        except ValueError as exc:
            if "(clustersched.ptg.MAX_" in str(exc):
                raise LimitRefusal(str(exc)) from None
            raise
        found = ptg_violations(run.schedule, ptgs, cluster)
        assert not found, f"{name}: {found[:3]}"
        m = run.metrics
        assert np.isfinite(m.makespan) and m.makespan >= 0 and 0.0 <= m.utilization <= 1.0 + 1e-9, m


def ptg_case(kind: str, seed: int) -> None:
    """One random population of ``kind`` drawn from ``seed``, the 19 algorithms on it."""
    warnings.simplefilter("error")  # an overflow warning is a finding, as in the test suite
    rng = np.random.default_rng([21, seed])
    ptgs, cluster = _population(rng, kind)
    _check_all(ptgs, cluster, seed)


def reproducer_case(which: str) -> None:
    """The multi-PTG cases of issue 20 and of its review, each as found."""
    import json
    import os
    import tempfile

    from clustersched.errors import InvalidWorkloadError
    from clustersched.platform import Cluster
    from clustersched.ptg import ALGORITHMS
    from clustersched.ptg import run as run_ptg
    from clustersched.workload.ptg import read_ptgs, write_ptgs
    from clustersched.workload.ptg_generators import fft_ptg, ptg_population

    warnings.simplefilter("error")
    if which == "2**32 - 1 processors":  # CAFM's profiles and backfilling's bit sets grew without bound
        for name in ALGORITHMS:
            try:
                run_ptg([fft_ptg(2, seed=0)], Cluster("big", 2**32 - 1, 1e9), name)
            except ValueError as exc:
                assert "must be <= 65536 for multi-PTG scheduling" in str(exc), exc
            else:
                raise AssertionError(f"{name} ran on 2**32 - 1 processors")
    elif which == "repeated edge":  # was merged silently
        with tempfile.TemporaryDirectory() as folder:
            path = os.path.join(folder, "ptgs.json")
            write_ptgs(ptg_population("random", 2, seed=0), path)
            with open(path) as fh:
                data = json.load(fh)
            data["ptgs"][0]["edges"].append(dict(data["ptgs"][0]["edges"][0]))
            with open(path, "w") as fh:
                json.dump(data, fh)
            try:
                read_ptgs(path)
            except InvalidWorkloadError as exc:
                assert "PTG #0" in str(exc) and "repeats edges[0]" in str(exc), exc
            else:
                raise AssertionError("a repeated edge was read")
    elif which == "huge sums":  # every task finite, their sum not: untyped 'priority == inf'
        import networkx as nx

        from clustersched.workload.ptg import PTG

        g = nx.DiGraph([("a", "b"), ("b", "c")])
        nx.set_node_attributes(g, 1e308, "work")
        p = PTG.from_networkx(g)
        for name in ALGORITHMS:
            try:
                run_ptg([p, p], Cluster("c", 4, 1.0), name)
            except InvalidWorkloadError as exc:
                assert "clustersched.ptg.MAX_SECONDS" in str(exc), exc
            else:
                raise AssertionError(f"{name} scheduled 1e308 s tasks")
    else:
        raise AssertionError(which)


@pytest.mark.slow
@pytest.mark.parametrize("kind", list(CASES))
def test_ptg_algorithms_fuzz(sandbox, kind):
    start = sandbox.rejected
    for seed in range(CASES[kind]):
        sandbox.run(ptg_case, kind, seed)
    if kind != "extreme":  # ordinary sizes are never refused
        assert sandbox.rejected == start


@pytest.mark.parametrize("which", ["2**32 - 1 processors", "repeated edge", "huge sums"])
def test_issue_20_reproducers(sandbox, which):
    assert sandbox.run(reproducer_case, which) == "ok"
