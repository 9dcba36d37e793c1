"""clustersched.scrap.metrics: one implementation (the Rust core's), its sums exactly rounded."""

from __future__ import annotations

import math

import numpy as np
import pytest

from clustersched.platform import random_multicluster
from clustersched.scrap import run as run_scrap
from clustersched.scrap.metrics import multicluster_metrics
from clustersched.scrap.schedule import ClusterSchedule
from clustersched.scrap.study import study_pair
from clustersched.workload.ptg_generators import random_ptg


def _permuted(s: ClusterSchedule, order: np.ndarray) -> ClusterSchedule:
    sizes = np.diff(s.proc_offsets)[order]
    offsets = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
    ids = np.concatenate([s.processors(int(r)) for r in order]).astype(np.int64)
    return ClusterSchedule(
        s.task[order], s.cluster[order], s.start[order], s.end[order], offsets, ids, s.platform,
        s.algorithm, s.alloc, s.comms, s.options,
    )  # fmt: skip


@pytest.mark.parametrize("seed", range(6))
def test_energy_is_the_exactly_rounded_sum_in_any_row_order(seed: int) -> None:
    ptg = random_ptg(50, fat=0.5, regularity=0.5, density=0.5, jump=2, seed=seed)
    platform = random_multicluster(4, 0.5, 5.0, seed=seed)
    s = run_scrap(ptg, platform, "SCRAP-MAX", beta=0.3).schedule
    m = multicluster_metrics(s)
    speeds = np.array(platform.speeds)[s.cluster]
    terms = ((s.end - s.start) * (s.procs * speeds)).tolist()
    assert m.energy == math.fsum(terms)
    assert m.power_fraction == m.energy / (m.makespan * platform.power)
    rng = np.random.default_rng(seed)
    for _ in range(3):
        other = multicluster_metrics(_permuted(s, rng.permutation(len(s))))
        assert other.energy == m.energy and other.power_fraction == m.power_fraction
        assert other.makespan == m.makespan and other.peak_power_fraction == m.peak_power_fraction


def test_the_study_and_a_single_run_share_the_metrics() -> None:
    ptg = random_ptg(20, fat=0.5, regularity=0.8, density=0.5, jump=2, seed=4)
    platform = random_multicluster(4, 0.5, 2.0, seed=4)
    st = study_pair(ptg, platform, [0.3, 1.0], schedules=True)
    assert st.schedules is not None
    for i, sch in enumerate(st.schedules):
        m = multicluster_metrics(sch)
        assert (m.makespan, m.energy, m.power_fraction, m.peak_power_fraction) == (
            st.makespan[i],
            st.energy[i],
            st.power_fraction[i],
            st.peak_power_fraction[i],
        )
