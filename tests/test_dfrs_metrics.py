"""DFRS metrics on hand-computed cases: bounded stretch, degradation, preemptions and
migrations (counts, rates, moved tasks, bandwidth), underutilization."""

from __future__ import annotations

import numpy as np
import pytest

from clustersched.dfrs import (
    DfrsJobs,
    DfrsPlatform,
    DfrsRun,
    dfrs_metrics,
    simulate,
    stretch_bound,
    stretches,
    validate_dfrs,
)
from clustersched.dfrs.metrics import reschedulings, underutilization
from clustersched.dfrs.schedule import DfrsSchedule


def test_bounded_stretch_threshold():
    jobs = DfrsJobs(
        submit=[0, 0, 0], processing_time=[5, 100, 0], tasks=[1, 1, 1], cpu_need=[0.25] * 3, mem_need=[0.1] * 3
    )
    r = simulate(jobs, DfrsPlatform(1), "Greedy */opt=min")
    # three 25% tasks on one node never share below yield 1: flows 5, 100, 0
    assert r.schedule.completion.tolist() == [5.0, 100.0, 0.0]
    assert stretches(r.schedule, jobs).tolist() == [1.0, 1.0, 1.0]
    late = DfrsSchedule(**{**r.schedule.__dict__, "completion": np.array([8.0, 250.0, 30.0])})
    assert stretches(late, jobs).tolist() == [1.0, 2.5, 3.0]


def test_pause_resume_costs_and_underutilization():
    # job 0 paused at 100 for job 1, resumed at 200 with a 300 s penalty, completes at 1400
    jobs = DfrsJobs(
        submit=[0, 100], processing_time=[1000, 100], tasks=[1, 1], cpu_need=[1.0, 1.0], mem_need=[0.6, 0.6]
    )
    platform = DfrsPlatform(1, node_memory_gb=4.0)
    r = simulate(jobs, platform, "GreedyP */opt=min")
    m = dfrs_metrics(r.schedule, jobs, platform, bound=1.25)
    assert (m.preemptions, m.migrations) == (1, 0)
    assert m.span == 1400.0
    assert m.preemptions_per_hour == pytest.approx(1 / (1400 / 3600))
    assert m.preemptions_per_job == 0.5
    # the job's 0.6 x 4 GB image written then read back
    assert m.preemption_bandwidth_gbs == pytest.approx(2 * 0.6 * 4.0 / 1400)
    assert m.migration_bandwidth_gbs == 0.0
    # demand >= the node's CPU from 0 to 1400, work 1100: the 300 s penalty is underutilization
    assert m.underutilization == pytest.approx(300.0)
    assert m.normalized_underutilization == pytest.approx(300 / 1100)
    assert m.max_stretch == 1.4 and m.degradation == pytest.approx(1.4 / 1.25)
    summary = m.summary()
    assert summary["preemptions"] == 1 and "normalized_underutilization" in summary


@pytest.mark.parametrize("algorithm", ["GreedyP */opt=min", "EASY"])
def test_run_summary_is_the_metrics_summary_with_name_events_and_seconds(algorithm):
    jobs = DfrsJobs(
        submit=[0, 100], processing_time=[1000, 100], tasks=[1, 1], cpu_need=[1.0, 1.0], mem_need=[0.6, 0.6]
    )
    platform = DfrsPlatform(1)
    r = simulate(jobs, platform, algorithm)
    assert isinstance(r, DfrsRun)
    assert r.algorithm == algorithm and r.seconds >= 0
    s = r.summary(bound=1.25)
    metrics = dfrs_metrics(r.schedule, jobs, platform, bound=1.25).summary()
    assert s == {"algorithm": algorithm, **metrics, "events": r.events, "mcb8_calls": 0, "seconds": r.seconds}
    assert list(s)[0] == "algorithm" and list(s)[-1] == "seconds"
    assert all(isinstance(v, (str, int, float)) for v in s.values())
    assert np.isnan(r.summary()["degradation"])  # no bound given: computing one is a search of its own
    b = stretch_bound(jobs, platform).summary()
    assert b["jobs"] == 2 and b["stretch"] >= 1


def test_underutilization_counts_demand_below_capacity():
    # one 25% task alone on two nodes: demand 0.25 < 2 nodes, all of it served: nothing wasted
    jobs = DfrsJobs(submit=[0], processing_time=[100], tasks=[1], cpu_need=[0.25], mem_need=[0.1])
    r = simulate(jobs, DfrsPlatform(2), "EASY")
    assert underutilization(r.schedule, jobs, DfrsPlatform(2)) == pytest.approx(0.0)
    # the same job started 50 s late (by hand): 50 s x 0.25 of demand left unserved
    late = DfrsSchedule(
        **{
            **r.schedule.__dict__,
            "seg_start": np.array([50.0]),
            "seg_end": np.array([150.0]),
            "completion": np.array([150.0]),
        }
    )
    assert underutilization(late, jobs, DfrsPlatform(2)) == pytest.approx(12.5)


def test_migration_counts_only_the_tasks_that_move():
    jobs = DfrsJobs(submit=[0], processing_time=[100], tasks=[2], cpu_need=[1.0], mem_need=[0.5])
    s = DfrsSchedule(
        job_id=jobs.job_id,
        submit=jobs.submit,
        completion=np.array([130.0]),
        seg_job=np.array([0, 0]),
        seg_start=np.array([0.0, 50.0]),
        seg_end=np.array([50.0, 130.0]),
        seg_offsets=np.array([0, 2, 4]),
        entry_node=np.array([0, 1, 0, 2]),
        entry_count=np.array([1, 1, 1, 1]),
        entry_share=np.ones(4),
        nodes=3,
        penalty=30.0,
    )
    resumed, migrated, moved = reschedulings(s, jobs)
    assert resumed.tolist() == [False, False] and migrated.tolist() == [False, True]
    assert moved.tolist() == [0, 1]
    m = dfrs_metrics(s, jobs, DfrsPlatform(3, 2.0))
    assert (m.preemptions, m.migrations, m.migrations_per_job) == (0, 1, 1.0)
    assert m.migration_bandwidth_gbs == pytest.approx(2 * 0.5 * 2.0 / 130)


def test_stretch_percentiles_hand_computed():
    jobs = DfrsJobs(
        submit=[0, 0, 0], processing_time=[5, 100, 0], tasks=[1, 1, 1], cpu_need=[0.25] * 3, mem_need=[0.1] * 3
    )
    platform = DfrsPlatform(1)
    r = simulate(jobs, platform, "Greedy */opt=min")
    validate_dfrs(r.schedule, jobs, platform)
    m = dfrs_metrics(r.schedule, jobs, platform)
    assert (m.p50_stretch, m.p90_stretch, m.p99_stretch) == (1.0, 1.0, 1.0)
    # the late schedule of test_bounded_stretch_threshold: stretches 1, 2.5, 3 (sorted); the q-th
    # percentile sits at rank 2 * q / 100: p50 = 2.5, p90 = 2.5 + 0.8 * 0.5 = 2.9, p99 = 2.5 + 0.98 * 0.5 = 2.99
    late = DfrsSchedule(**{**r.schedule.__dict__, "completion": np.array([8.0, 250.0, 30.0])})
    m = dfrs_metrics(late, jobs, platform)
    assert (m.p50_stretch, m.p90_stretch, m.p99_stretch) == pytest.approx((2.5, 2.9, 2.99))
    summary = m.summary()
    assert list(summary)[-3:] == ["p50_stretch", "p90_stretch", "p99_stretch"]
    assert set(m.report()) >= {"max_stretch", "mean_stretch", "underutilization"}  # report() unchanged
