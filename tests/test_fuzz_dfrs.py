"""Fuzzing ``clustersched.dfrs.simulate`` (issue 20): no hang, no crash, no invalid schedule.

Every case runs in a worker process under a hard time limit (tests/sandbox.py): a hang is a
failure (:class:`sandbox.Hang`), so is any error that is not a ``ClusterschedError``
(:class:`sandbox.Crash`); a typed rejection is counted.  Inside the worker every schedule goes
through ``validate_dfrs`` (``simulate(..., validate=True)``).  Cases are seeded (a numpy
``Generator`` per case, hypothesis derandomized), so CI runs the same cases every time.

* :func:`test_issue_reproducers` -- the exact inputs of the issue;
* :func:`test_fractional_instances_return_and_validate` -- the issue's "Must show": random
  single-job and small instances (1-5 jobs on 1-8 nodes) with fractional submit times (three
  decimals, arbitrary floats, arbitrary magnitudes), processing times (some 0, some below the
  clock's resolution), penalties and periods, spread evenly over every algorithm of
  ``dfrs.ALGORITHMS`` plus FCFS and EASY; none may be rejected;
* :func:`test_edge_values` -- hypothesis over the whole accepted range (times up to the limits,
  periods down to 1 ms): each case returns within its limit or is refused with a typed error.

The per-case limit is far above what a case takes (milliseconds); the summary line of each
fuzzer (cases, typed rejections, seconds) is printed at the end of the pytest run.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import sandbox

#: Seconds a case may take in its worker before it counts as a hang.
LIMIT = 30.0
#: Cases of the "Must show" fuzzer per algorithm (118 algorithms: 116 of the paper, FCFS, EASY).
CASES_PER_ALGORITHM = 20


def names() -> tuple[str, ...]:
    from clustersched.dfrs import ALGORITHMS, BASELINES

    return tuple(ALGORITHMS) + tuple(BASELINES)


# -- what a worker runs (module level, so that it pickles) -----------------------------------------


def simulate_case(
    cols: dict, nodes: int, algorithm: str, penalty: float, period: float, max_periodic_events: int | None = None
) -> None:
    """One simulation, validated in the worker; returns nothing (a violation raises)."""
    from clustersched.dfrs import DfrsJobs, DfrsPlatform, simulate

    jobs = DfrsJobs(**cols)
    extra = {} if max_periodic_events is None else {"max_periodic_events": max_periodic_events}
    run = simulate(jobs, DfrsPlatform(nodes), algorithm, penalty=penalty, period=period, validate=True, **extra)
    completion = run.schedule.completion
    assert np.all(completion >= jobs.submit + 0.0) and np.all(np.isfinite(completion)), completion


def trace_case(jobs_kept: int, algorithm: str, period: float) -> None:
    """The first jobs of the bundled HPC2N week, as ``clustersched dfrs`` reads them."""
    from clustersched import sample_trace
    from clustersched.dfrs import DfrsPlatform, simulate
    from clustersched.dfrs.workloads import swf_to_dfrs
    from clustersched.workload.swf import read_swf

    jobs, _ = swf_to_dfrs(read_swf(sample_trace()).select(slice(0, jobs_kept)), nodes=120)
    simulate(jobs, DfrsPlatform(120), algorithm, period=period, validate=True)


def platform_case(nodes: int) -> None:
    from clustersched.dfrs import DfrsPlatform

    DfrsPlatform(nodes)


# -- the cases ------------------------------------------------------------------------------------


def _times(rng: np.random.Generator, n: int, scale: float) -> np.ndarray:
    kind = rng.integers(3)
    if kind == 0:  # three decimals, as in the issue
        return rng.integers(0, int(scale * 1000) + 1, n) / 1000
    if kind == 1:  # arbitrary floats
        return rng.uniform(0, scale, n)
    return rng.uniform(0, 1, n) * 10 ** rng.uniform(-3, np.log10(scale) + 3)  # any magnitude


def instance(seed: int, single: bool) -> tuple[dict, int, float, float]:
    """A random instance: (job columns, nodes, penalty, period); every job fits, also on whole nodes."""
    rng = np.random.default_rng([20, seed])
    n = 1 if single else int(rng.integers(2, 6))
    nodes = int(rng.integers(1, 9))
    submit = _times(rng, n, 10_000.0)
    p = _times(rng, n, 3_000.0)
    p[rng.random(n) < 0.05] = 0.0
    tiny = rng.random(n) < 0.05
    p[tiny] = 10 ** rng.uniform(-15, -3, int(tiny.sum()))  # below the clock's resolution, or nearly
    tasks = rng.integers(1, min(4, nodes) + 1, n)
    cpu = np.where(rng.random(n) < 0.5, rng.choice([0.25, 0.5, 1.0], n), rng.uniform(0.01, 1.0, n))
    mem = rng.uniform(0.01, 1.0, n)
    penalty = float(rng.choice([0.0, 300.0, round(float(rng.uniform(0, 1000)), 3), float(rng.uniform(0, 1000))]))
    # periods from a twentieth of the total work up (so that a case takes milliseconds), fractional
    low = max(1e-3, (float(p.sum()) + 1.0) / 20)
    period = float(rng.uniform(low, 4 * low + 1000))
    if rng.random() < 0.5:
        period = max(1e-3, round(period, 3))
    cols = {"submit": submit, "processing_time": p, "tasks": tasks, "cpu_need": cpu, "mem_need": mem}
    return cols, nodes, penalty, period


@pytest.fixture()
def box(request):
    """A sandbox per test, named after it, closed (and reported) at its end."""
    b = sandbox.Sandbox(f"dfrs {request.node.name}", LIMIT)
    yield b
    b.close()


def one_job(submit: float = 803.709, p: float = 601.0) -> dict:
    return {"submit": [submit], "processing_time": [p], "tasks": [1], "cpu_need": [1.0], "mem_need": [0.5]}


def test_issue_reproducers(box):
    """The inputs issue 20 lists: the hangs return (validated), the impossible values are typed errors."""
    assert box.run(simulate_case, one_job(), 1, "Greedy/per/opt=min", 300.0, 600.0) == "ok"
    two = {
        "submit": [1308.061, 1492.456],
        "processing_time": [4071.314, 460.488],
        "tasks": [2, 3],
        "cpu_need": [1.0, 1.0],
        "mem_need": [0.23, 0.1],
    }
    assert box.run(simulate_case, two, 4, "GreedyPM */per/opt=min/minvt=600", 365.328, 435.278) == "ok"
    # about 1 in 12 three-decimal submit times hung under every periodic algorithm
    rng = np.random.default_rng(12)
    periodic = [a for a in names() if "per" in a]
    for k, submit in enumerate((rng.integers(0, 10**7, 2 * len(periodic)) / 1000).tolist()):
        assert box.run(simulate_case, one_job(submit), 1, periodic[k % len(periodic)], 300.0, 600.0) == "ok"
    # refused up front with a typed error instead of running for ever
    assert box.run(simulate_case, one_job(), 1, "Greedy/per/opt=min", 300.0, 1e-9) == "rejected"
    assert box.run(simulate_case, one_job(), 1, "GreedyPM */per/opt=min/minvt=600", 1e300, 600.0) == "rejected"
    assert box.run(simulate_case, one_job(p=1e300), 1, "Greedy/per/opt=min", 300.0, 600.0) == "rejected"
    assert box.run(trace_case, 20, "GreedyPM */per/opt=min/minvt=600", 0.001) == "rejected"
    assert box.run(trace_case, 20, "GreedyPM */per/opt=min/minvt=600", 600.0) == "ok"
    for nodes in (2**32 - 1, 100_000_000):  # an abort (exit 134), and 9.5 minutes on 20 jobs
        assert box.run(platform_case, nodes) == "rejected"
    assert box.rejected == 6


def test_fractional_instances_return_and_validate(box):
    """The issue's Must show: >= 1,000 single-job and small instances with fractional times, spread
    over every periodic and opportunistic algorithm (and the rest of the paper's, FCFS, EASY): each
    returns within its limit and its schedule validates; none is rejected."""
    algorithms = names()
    cases = CASES_PER_ALGORITHM * len(algorithms)
    assert cases >= 1000
    for i in range(cases):
        cols, nodes, penalty, period = instance(i, single=i % 2 == 0)
        assert box.run(simulate_case, cols, nodes, algorithms[i % len(algorithms)], penalty, period) == "ok"
    assert box.cases == cases and box.rejected == 0


_time = st.one_of(
    st.floats(0, 1e4, allow_nan=False).map(lambda x: round(x, 3)),
    st.floats(0, 1e10, allow_nan=False),
    st.sampled_from([0.0, 5e-324, 1e-300, 1e-9, 1e10, 1e10 - 0.001, 2.0**33]),
)


@st.composite
def edge_instances(draw):
    n = draw(st.integers(1, 5))
    nodes = draw(st.integers(1, 8))
    tasks = draw(st.lists(st.integers(1, 8), min_size=n, max_size=n))
    # mostly memory needs that fit (tasks spread over the nodes), sometimes any (a typed rejection)
    mem = [draw(st.floats(1e-9, 1.0 if draw(st.integers(0, 4)) == 0 else 1.0 / -(-t // nodes))) for t in tasks]
    cols = {
        "submit": draw(st.lists(_time, min_size=n, max_size=n)),
        "processing_time": draw(st.lists(_time, min_size=n, max_size=n)),
        "tasks": tasks,
        "cpu_need": draw(st.lists(st.floats(1e-9, 1.0), min_size=n, max_size=n)),
        "mem_need": mem,
    }
    penalty = draw(st.one_of(_time, st.floats(0, 1e3)))
    period = draw(
        st.one_of(
            st.floats(1e-3, 1e4).map(lambda x: max(1e-3, round(x, 3))),
            st.floats(1e-3, 1e10),
            st.sampled_from([1e-3, 1e10, 1e-9, 5e-324, 1e300]),
        )
    )
    return cols, nodes, draw(st.sampled_from(names())), penalty, period


edge_box = sandbox.fixture("dfrs test_edge_values", LIMIT)


@settings(
    max_examples=500,
    derandomize=True,
    database=None,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(case=edge_instances())
def test_edge_values(edge_box, case):
    """Any value the API accepts, up to its limits: returns within the limit (validated) or a typed
    error (out of range, a job that does not fit, more than 2,000 periodic events)."""
    cols, nodes, algorithm, penalty, period = case
    assert edge_box.run(simulate_case, cols, nodes, algorithm, penalty, period, 2000) in ("ok", "rejected")
