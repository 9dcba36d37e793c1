"""The Theorem 1 lower bound of the DFRS study (RR-7659 §3.1; issue 10).

Target: the bound of one 1000-job synthetic trace (§5.3.2: Lublin–Feitelson
on 128 quad-core nodes) in at most 1 s, end to end through
``clustersched.dfrs.bound.stretch_bound`` (network construction, maximum
flows, the Newton search on cuts).  Benchmarked at load 0.9, the most
loaded scaled trace, and on the busiest HPC2N week.

Run for real from a release build: ``pip install . && python -m pytest benches/bench_dfrs_bound.py``.
The max-flow kernel alone: ``cargo bench -p clustersched-core --bench dfrs_bound``.
"""

from __future__ import annotations

import pytest

from clustersched.dfrs.bound import stretch_bound, stretch_feasible
from clustersched.dfrs.workloads import hpc2n_weeks, synthetic_workload

TARGET_SECONDS = 1.0


def _check(bound, jobs, platform, seconds):
    assert bound.stretch >= 1.0 and not bound.bisection
    assert stretch_feasible(jobs, platform, bound.stretch * (1 + 1e-9))
    if bound.stretch > 1.0:
        assert not stretch_feasible(jobs, platform, bound.stretch * (1 - 1e-6))
    if seconds is not None:
        assert seconds <= TARGET_SECONDS, f"the bound took {seconds:.3f} s (target {TARGET_SECONDS} s)"


@pytest.mark.parametrize("load", [0.9, None], ids=["load0.9", "unscaled"])
def test_bound_of_a_1000_job_synthetic_trace(benchmark, load):
    w = synthetic_workload(seed=0, load=load)
    assert len(w.jobs) == 1000 and w.platform.nodes == 128
    bound = benchmark.pedantic(stretch_bound, args=(w.jobs, w.platform), rounds=20, iterations=1, warmup_rounds=1)
    benchmark.extra_info.update(stretch=bound.stretch, max_flows=bound.max_flows)
    _check(bound, w.jobs, w.platform, None if benchmark.disabled else benchmark.stats.stats.max)


def test_bound_of_the_busiest_hpc2n_week(benchmark, hpc2n):
    week = max(hpc2n_weeks(hpc2n), key=lambda w: len(w.jobs))
    assert (week.name, len(week.jobs)) == ("hpc2n-week-093", 4507)
    bound = benchmark.pedantic(stretch_bound, args=(week.jobs, week.platform), rounds=10, iterations=1)
    benchmark.extra_info.update(stretch=bound.stretch, max_flows=bound.max_flows, jobs=len(week.jobs))
    _check(bound, week.jobs, week.platform, None if benchmark.disabled else benchmark.stats.stats.max)
