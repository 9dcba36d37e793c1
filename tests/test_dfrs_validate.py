"""The DFRS validator accepts what the simulator makes and rejects hand-broken schedules:
memory or CPU over 100%, unequal yields, too much or too little work, progress during a
penalty, overlapping or early segments, wrong task counts, bad nodes, wrong completions."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from clustersched.dfrs import DfrsJobs, DfrsPlatform, simulate
from clustersched.dfrs.schedule import DfrsSchedule
from clustersched.errors import InvalidScheduleError
from clustersched.validate import dfrs_violations, validate_dfrs

PLATFORM = DfrsPlatform(2)
# job 0: 2 tasks; jobs 1 and 2 share node 1 with job 0; job 3 is paused by GreedyP and resumed
JOBS = DfrsJobs(
    submit=[0, 0, 50, 100],
    processing_time=[1000, 400, 200, 100],
    tasks=[2, 1, 1, 1],
    cpu_need=[1.0, 0.5, 1.0, 1.0],
    mem_need=[0.3, 0.3, 0.3, 0.5],
)


@pytest.fixture(scope="module")
def good() -> DfrsSchedule:
    s = simulate(JOBS, PLATFORM, "GreedyP */opt=min", validate=False).schedule
    assert dfrs_violations(s, JOBS, PLATFORM) == []
    return s


def with_entries(s: DfrsSchedule, **arrays) -> DfrsSchedule:
    return replace(s, **{k: np.array(v) for k, v in arrays.items()})


def one(s, jobs=JOBS, platform=PLATFORM):
    v = dfrs_violations(s, jobs, platform)
    assert v, "the broken schedule was accepted"
    with pytest.raises(InvalidScheduleError):
        validate_dfrs(s, jobs, platform)
    return "\n".join(v)


def test_the_good_schedule_is_interesting(good):
    # it contains a pause and a resume, and CPU sharing
    from clustersched.dfrs import dfrs_metrics

    m = dfrs_metrics(good, JOBS, PLATFORM)
    assert m.preemptions >= 1
    assert (good.entry_share < JOBS.cpu_need[np.repeat(good.seg_job, np.diff(good.seg_offsets))]).any()


def test_memory_over_a_node(good):
    # job 2 (30%) moved to node 0, where jobs 0 (30%) and 3 (50%) are over [100, 300)
    nodes = good.entry_node.copy()
    nodes[good.seg_offsets[good.job_segments(2)[0]]] = 0
    assert "node 0 at time 100.0: memory 1.1 of the node" in one(replace(good, entry_node=nodes))


def test_cpu_over_a_node():
    # two single-task CPU-bound jobs alone on one node, each given its full CPU need
    jobs = DfrsJobs(submit=[0, 0], processing_time=[100, 100], tasks=[1, 1], cpu_need=[1.0, 1.0], mem_need=[0.1, 0.1])
    p1 = DfrsPlatform(1)
    s = simulate(jobs, p1, "Greedy */opt=min", validate=False).schedule
    broken = replace(
        s,
        entry_share=np.ones(len(s.entry_share)),
        seg_end=np.array([100.0, 100.0]),
        completion=np.array([100.0, 100.0]),
    )
    text = one(broken, jobs, p1)
    assert "CPU 2 of the node" in text


def test_unequal_yields(good):
    # a segment of job 0 (2 tasks on two nodes) with different shares per task
    k = int(np.flatnonzero(np.diff(good.seg_offsets) == 2)[0])
    share = good.entry_share.copy()
    share[good.seg_offsets[k]] *= 0.5
    assert "unequal yields" in one(replace(good, entry_share=share))


def test_share_above_need(good):
    share = good.entry_share.copy()
    share[:] = share * 3
    assert "outside [0, CPU need" in one(replace(good, entry_share=share))


def test_too_little_and_too_much_work(good):
    end = good.seg_end.copy()
    last = np.flatnonzero(good.seg_job == 0)[-1]
    end[last] -= 50
    completion = good.completion.copy()
    completion[0] -= 50
    assert "receives" in one(replace(good, seg_end=end, completion=completion))
    end[last] += 100
    completion[0] += 100
    assert "receives" in one(replace(good, seg_end=end, completion=completion))


def test_progress_during_the_penalty(good):
    # job 1 was paused at 100 and resumed at 300: pretend it progressed right from its resume
    rows = good.job_segments(1)
    assert good.seg_start[rows[2]] > good.seg_end[rows[1]]
    end = good.seg_end.copy()
    completion = good.completion.copy()
    # progressing over the penalty [300, 600) at yield 1 then 2/3 would give it 250 s of work,
    # so it would complete 250 / (2/3) = 375 s earlier; the validator counts 150 s of work then
    end[rows[-1]] -= 375
    completion[1] = end[rows[-1]]
    text = one(replace(good, seg_end=end, completion=completion))
    assert "job 2 (row 1): receives 150.0 s" in text


def test_migration_penalty_is_derived_from_the_nodes():
    # one job, two contiguous segments on different nodes: the second starts a penalty
    jobs = DfrsJobs(submit=[0], processing_time=[100], tasks=[1], cpu_need=[1.0], mem_need=[0.1])
    s = DfrsSchedule(
        job_id=jobs.job_id,
        submit=jobs.submit,
        completion=np.array([100.0]),
        seg_job=np.array([0, 0]),
        seg_start=np.array([0.0, 50.0]),
        seg_end=np.array([50.0, 100.0]),
        seg_offsets=np.array([0, 1, 2]),
        entry_node=np.array([0, 1]),
        entry_count=np.array([1, 1]),
        entry_share=np.array([1.0, 1.0]),
        nodes=2,
        penalty=30.0,
    )
    assert "receives 70.0 s" in one(s, jobs, DfrsPlatform(2))
    fixed = replace(s, seg_end=np.array([50.0, 130.0]), completion=np.array([130.0]))
    assert dfrs_violations(fixed, jobs, DfrsPlatform(2)) == []
    same_node = replace(s, entry_node=np.array([1, 1]))
    assert dfrs_violations(same_node, jobs, DfrsPlatform(2)) == []


def test_segment_structure(good):
    start = good.seg_start.copy()
    start[0] = -5.0
    assert "before the job's submission" in one(replace(good, seg_start=start))
    rows = good.job_segments(1)
    start = good.seg_start.copy()
    start[rows[2]] = good.seg_start[rows[1]] + 10
    assert "overlaps" in one(replace(good, seg_start=start))
    count = good.entry_count.copy()
    count[0] += 1
    assert "places" in one(replace(good, entry_count=count))
    nodes = good.entry_node.copy()
    nodes[0] = 7
    assert "nodes are 0..1" in one(replace(good, entry_node=nodes))
    completion = good.completion.copy()
    completion[1] += 1
    assert "completion" in one(replace(good, completion=completion))


def test_missing_job_and_mismatched_tables(good):
    keep = good.seg_job != 2
    per = np.diff(good.seg_offsets)
    entries = np.repeat(keep, per)
    s = replace(
        good,
        seg_job=good.seg_job[keep],
        seg_start=good.seg_start[keep],
        seg_end=good.seg_end[keep],
        seg_offsets=np.concatenate([[0], np.cumsum(per[keep])]),
        entry_node=good.entry_node[entries],
        entry_count=good.entry_count[entries],
        entry_share=good.entry_share[entries],
    )
    assert "never runs" in one(s)
    assert "4 jobs, the job table 3" in one(good, JOBS.select([0, 1, 2]))
    assert "for 2 nodes" in one(good, JOBS, DfrsPlatform(3))
