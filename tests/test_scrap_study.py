"""study_pair (every run of PDCS 2007 §4 on one pair in one Rust call) against scrap.run, run by run, bit for bit."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from clustersched.platform import Cluster, MultiCluster, scrap_platforms
from clustersched.scrap import run as run_scrap
from clustersched.scrap import validate_multicluster
from clustersched.scrap.metrics import multicluster_metrics
from clustersched.scrap.model import problem
from clustersched.scrap.schedule import ClusterSchedule
from clustersched.scrap.study import study_pair
from clustersched.workload.ptg_generators import SCENARIOS, random_ptg

BETAS = (0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0)


def same_float(a, b):
    return (math.isnan(a) and math.isnan(b)) or (a == b and math.copysign(1, a) == math.copysign(1, b))


def check_pair(ptg, platform, betas, **kwargs):
    st_ = study_pair(ptg, platform, betas, schedules=True, **kwargs)
    runs = [("HCPA", 1.0)] + [(a, b) for a in ("SCRAP", "SCRAP-MAX", "MHEFT-MAX") for b in betas]
    assert list(st_.algorithms) == [a for a, _ in runs]
    core = problem(ptg, platform)
    for i, (algorithm, beta) in enumerate(runs):
        run = run_scrap(ptg, platform, algorithm, beta=beta, core=core, **kwargs)
        m = run.metrics
        for name in ("makespan", "energy", "power_fraction", "peak_power_fraction"):
            assert same_float(float(getattr(st_, name)[i]), getattr(m, name)), (algorithm, beta, name)
        est = np.nan if run.beta_estimate is None else run.beta_estimate
        assert same_float(float(st_.beta_estimate[i]), est)
        assert int(st_.initial_violation[i]) == (-1 if run.initial_violation is None else int(run.initial_violation))
        sch = st_.schedules[i]
        assert isinstance(sch, ClusterSchedule) and sch.algorithm == algorithm
        for a, b in zip(sch.columns(), run.schedule.columns()):
            assert np.array_equal(a, b)
        assert (sch.alloc is None) == (run.alloc is None)
        if sch.alloc is not None:
            assert np.array_equal(sch.alloc, run.alloc)
        assert sch.comms == run.schedule.comms
        validate_multicluster(sch, ptg)
        # the Rust metrics are those of multicluster_metrics on the schedule it returned
        assert multicluster_metrics(sch) == m
    return st_


@pytest.mark.parametrize("k", [0, 57, 123, 199])
def test_paper_platforms(k):
    platform = scrap_platforms(seed=0)[k]
    for n, costs in ((10, "mixed"), (50, SCENARIOS[k % len(SCENARIOS)])):
        ptg = random_ptg(n, fat=0.5, regularity=0.8, density=0.5, jump=2, seed=k, costs=costs)
        check_pair(ptg, platform, BETAS)


@settings(max_examples=30, deadline=None)
@given(
    n=st.integers(1, 30),
    fat=st.sampled_from([0.2, 0.5, 0.8]),
    density=st.sampled_from([0.2, 0.8]),
    seed=st.integers(0, 2**16),
    clusters=st.integers(1, 4),
    comms=st.booleans(),
    betas=st.lists(st.floats(0.01, 1.0), min_size=1, max_size=4),
)
def test_random_pairs(n, fat, density, seed, clusters, comms, betas):
    rng = np.random.default_rng(seed)
    platform = MultiCluster(
        "p", tuple(Cluster(f"c{k}", int(rng.integers(1, 40)), float(rng.uniform(0.5e9, 3e9))) for k in range(clusters))
    )
    ptg = random_ptg(n, fat=fat, regularity=0.5, density=density, jump=2, seed=seed)
    check_pair(ptg, platform, betas, comms=comms)


def test_rule_and_bad_arguments():
    platform = scrap_platforms(seed=0)[3]
    ptg = random_ptg(20, fat=0.5, regularity=0.8, density=0.5, jump=2, seed=1)
    check_pair(ptg, platform, [0.5], rule="cpa")
    with pytest.raises(ValueError, match="beta == 0"):
        study_pair(ptg, platform, [0.5, 0])
    with pytest.raises(ValueError, match="rule"):
        study_pair(ptg, platform, [0.5], rule="nope")
    with pytest.raises(ValueError, match="another platform"):
        study_pair(ptg, platform, [0.5], core=problem(ptg, scrap_platforms(seed=0)[4]))
    assert study_pair(ptg, platform, [0.5]).schedules is None


def test_overflowing_energy_takes_the_scaled_fraction():
    # a task of enormous work: makespan * power overflows, the fraction comes from the scaled terms
    import networkx as nx

    from clustersched.workload.ptg import PTG

    g = nx.DiGraph()
    g.add_node("t", work=1e308)
    g.add_node("u", work=1e308)
    platform = MultiCluster("p", (Cluster("a", 4, 1e9), Cluster("b", 2, 3e9)))
    st_ = check_pair(PTG.from_networkx(g), platform, [0.5, 1.0], comms=False)
    assert np.isinf(st_.energy).all()
    assert np.isfinite(st_.power_fraction).all() and (st_.power_fraction > 0).all()
