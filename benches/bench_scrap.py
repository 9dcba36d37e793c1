"""SCRAP benchmarks (issue 11): one PTG of 50 tasks on an 8-cluster platform of PDCS 2007 §4.

The paper gives no timings; the target is that allocation and placement of a
50-task PTG stay in the milliseconds, so that the full study (8 million runs)
fits in under an hour (11 minutes with two workers, 2026-11-25; 49 minutes with one worker before
its runs were batched, 2026-11-23).  Each bench checks its result.

Run for real from a release build: ``pip install . && python -m pytest benches/bench_scrap.py``.
The Rust kernels alone: ``cargo bench -p clustersched-core --bench ptg -- scrap``.
"""

from __future__ import annotations

import pytest

from clustersched.platform import scrap_platforms
from clustersched.scrap import run as run_scrap
from clustersched.scrap import scrap_allocation, validate_multicluster
from clustersched.scrap.model import problem
from clustersched.workload.ptg_generators import random_ptg


@pytest.fixture(scope="module")
def instance():
    platform = scrap_platforms(seed=0)[-1]  # 8 clusters, minimum speed 1 GFlop/s, heterogeneity 5
    assert len(platform) == 8
    ptg = random_ptg(50, fat=0.5, regularity=0.8, density=0.5, jump=2, seed=2007, costs="mixed")
    return ptg, platform


@pytest.mark.parametrize("variant", ["SCRAP", "SCRAP-MAX"])
def test_scrap_allocation_50_tasks_8_clusters(benchmark, instance, variant):
    ptg, platform = instance
    core = problem(ptg, platform)
    alloc = benchmark(scrap_allocation, ptg, platform, 0.5, variant=variant, core=core)
    assert alloc.tolist() == scrap_allocation(ptg, platform, 0.5, variant=variant).tolist()  # deterministic
    assert alloc.min() >= 1 and alloc.max() > 1
    assert float(core.beta_estimate(alloc)) <= 0.5 * (1 + 1e-9)


@pytest.mark.parametrize("algorithm", ["SCRAP", "SCRAP-MAX", "HCPA", "MHEFT-MAX"])
def test_run_50_tasks_8_clusters(benchmark, instance, algorithm):
    """Allocation, placement with communications and metrics, end to end."""
    ptg, platform = instance
    run = benchmark(run_scrap, ptg, platform, algorithm, beta=0.5)
    validate_multicluster(run.schedule, ptg)
    assert len(run.schedule) == len(ptg)
    assert 0 < run.metrics.power_fraction <= 1
    benchmark.extra_info.update(run.metrics.summary())
