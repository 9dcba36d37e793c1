"""The DFRS workloads of RR-7659 §5.3 (clustersched.dfrs.workloads): the HPC2N processing against
a row-by-row reference and on the real trace, the week segments, the synthetic traces."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from clustersched.dfrs.workloads import (
    DOES_NOT_FIT,
    SYNTHETIC_LOADS,
    WEEK,
    hpc2n_weeks,
    swf_to_dfrs,
    synthetic_memory,
    synthetic_workload,
    synthetic_workloads,
)
from clustersched.errors import InvalidWorkloadError
from clustersched.workload import JobTable, offered_load

from reference import dfrs_workloads as ref

KB = ref.NODE_KB
memory_kb = st.one_of(
    st.just(-1.0),  # unknown
    st.just(0.0),
    st.integers(1, 3 * KB).map(float),  # anything up to 1.5 nodes
    st.sampled_from([0.05 * KB, 0.25 * KB, 0.5 * KB, KB, 2.0 * KB]),  # on the thresholds
)
swf_row = st.tuples(
    st.integers(-1, 8),  # allocated processors (-1, 0: unknown)
    st.integers(-1, 8),  # requested processors
    st.sampled_from([-1.0, 0.0, 1.0, 60.0, 3600.0]),  # runtime (<= 0: dropped)
    memory_kb,
    memory_kb,
)


@settings(max_examples=60, deadline=None)
@given(st.lists(swf_row, min_size=1, max_size=30), st.integers(1, 4))
def test_swf_processing_matches_the_row_by_row_reference(rows, nodes):
    procs, requested, runtime, mem_req, mem_used = (list(c) for c in zip(*rows))
    table = JobTable(
        {
            "submit": list(range(len(rows))),
            "runtime": runtime,
            "procs": procs,
            "procs_requested": requested,
            "mem_requested": mem_req,
            "mem_used": mem_used,
        }
    )
    jobs, dropped = swf_to_dfrs(table, nodes=nodes)
    kept = {}
    expected_misfits = []
    for i, (p, q, run, req, used) in enumerate(rows):
        width = p if p > 0 else q  # allocated when known, else requested
        if run <= 0 or width <= 0:
            continue
        tasks, cpu, mem = ref.hpc2n_job(width, req, used)
        if ref.fits(tasks, mem, nodes):
            kept[i + 1] = (tasks, cpu, mem, run)
        else:
            expected_misfits.append(i + 1)
    assert jobs.job_id.tolist() == sorted(kept)
    for j, job_id in enumerate(jobs.job_id.tolist()):
        tasks, cpu, mem, run = kept[job_id]
        assert (jobs.tasks[j], jobs.cpu_need[j], jobs.processing_time[j]) == (tasks, cpu, run)
        assert jobs.mem_need[j] == pytest.approx(mem, abs=1e-9)  # needs are kept on a 1e-9 grid
    assert [d.job_id for d in dropped if d.reason == DOES_NOT_FIT] == expected_misfits
    # Every row is kept or dropped with a reason, none silently.
    assert len(jobs) + len(dropped) == len(rows)


def test_swf_processing_by_hand():
    table = JobTable(
        {
            "submit": [0, 1, 2, 3, 4, 5],
            "runtime": [10, 10, 10, 10, 10, 0],
            "procs": [4, 4, 3, 2, 2, 2],
            "mem_requested": [0.25 * KB, 0.5 * KB, 0.25 * KB, -1, 0.6 * KB, -1],
            "mem_used": [-1, 0.1 * KB, -1, 0.3 * KB, -1, -1],
        }
    )
    jobs, dropped = swf_to_dfrs(table, nodes=2)
    # 25% per processor on an even count: 2 two-threaded tasks of 50%; exactly 50%: not "less than
    # 50%", 4 tasks of 50% CPU; odd: 3 tasks; used > requested wins; 60%: one-threaded; no runtime: dropped.
    assert jobs.tasks.tolist() == [2, 4, 3, 1, 2]
    assert jobs.cpu_need.tolist() == [1.0, 0.5, 0.5, 1.0, 0.5]
    assert jobs.mem_need.tolist() == pytest.approx([0.5, 0.5, 0.25, 0.6, 0.6])
    assert [d.job_id for d in dropped] == [6]
    # Four tasks of 60% memory need four nodes: on two they never fit.
    big = JobTable({"submit": [0], "runtime": [10], "procs": [4], "mem_requested": [0.6 * KB]})
    jobs, dropped = swf_to_dfrs(big, nodes=2)
    assert len(jobs) == 0 and dropped[0].reason == DOES_NOT_FIT and dropped[0].job_id == 1
    assert len(swf_to_dfrs(big, nodes=4)[0]) == 1


def test_hpc2n_weeks_of_the_real_trace(hpc2n):
    weeks = hpc2n_weeks(hpc2n)
    # §5.3.1: "a 182-week trace", split "into week-long segments, resulting in 182 [...] scenarios".
    assert len(weeks) == 182
    assert [w.name for w in weeks] == [f"hpc2n-week-{k:03d}" for k in range(182)]
    assert sum(len(w.jobs) for w in weeks) == len(hpc2n) == 202_871
    assert all(w.dropped == () for w in weeks)
    assert all(0 <= w.jobs.submit.min() and w.jobs.submit.max() < WEEK for w in weeks)
    assert all(w.platform.nodes == 120 and w.platform.node_memory_gb == 2.0 for w in weeks)
    jobs, dropped = swf_to_dfrs(hpc2n)
    assert dropped == ()
    # The paper: 2,142 of its 202,876 jobs gave no memory value; the archive's version has 5 jobs
    # fewer, and 2,137 of them have neither value (all at the 10% floor).
    unknown = (hpc2n.mem_requested < 0) & (hpc2n.mem_used < 0)
    assert unknown.sum() == 2137
    assert jobs.mem_need.min() == pytest.approx(0.1)
    assert set(jobs.cpu_need.tolist()) == {0.5, 1.0}


def test_weeks_are_cut_from_the_origin():
    table = JobTable(
        {"submit": [10.0, WEEK + 5, 3 * WEEK + 1, 3 * WEEK + 2], "runtime": [1, 1, 1, 1], "procs": [1, 1, 2, 2]}
    )
    weeks = hpc2n_weeks(table, nodes=2)
    assert [w.name for w in weeks] == ["hpc2n-week-000", "hpc2n-week-001", "hpc2n-week-003"]  # week 2 empty
    assert [w.jobs.submit.tolist() for w in weeks] == [[10.0], [5.0], [1.0, 2.0]]
    shifted = hpc2n_weeks(table, nodes=2, origin=-WEEK)
    assert [w.name for w in shifted] == ["hpc2n-week-001", "hpc2n-week-002", "hpc2n-week-004"]


def test_synthetic_trace_follows_the_papers_model():
    w = synthetic_workload(seed=5)
    jobs = w.jobs
    assert (w.name, len(jobs), w.platform.nodes) == ("lublin-s5", 1000, 128)
    # §5.3.2: one-task jobs are sequential (25% of a quad-core node), all others 100%.
    assert np.array_equal(jobs.cpu_need == 0.25, jobs.tasks == 1)
    assert set(jobs.cpu_need.tolist()) <= {0.25, 1.0}
    assert set(np.round(jobs.mem_need * 10).astype(int).tolist()) <= set(range(1, 11))
    assert jobs.submit.min() == 0 and jobs.tasks.max() <= 128
    # Deterministic: the same seed gives the same trace.
    again = synthetic_workload(seed=5).jobs
    for column in ("submit", "processing_time", "tasks", "cpu_need", "mem_need"):
        assert np.array_equal(getattr(jobs, column), getattr(again, column))


def test_synthetic_memory_shares():
    # 10% with probability 0.55, else 10*x % with x uniform in 2..10 (so each of those 0.45 / 9).
    mem = synthetic_memory(90_000, np.random.default_rng(1))
    values, counts = np.unique(np.round(mem * 10).astype(int), return_counts=True)
    assert values.tolist() == list(range(1, 11))
    shares = counts / len(mem)
    assert shares[0] == pytest.approx(0.55, abs=0.01)
    assert shares[1:] == pytest.approx([0.05] * 9, abs=0.005)


@pytest.mark.parametrize("load", [0.1, 0.5, 0.9])
def test_synthetic_load_scaling_keeps_the_job_mix(load):
    base = synthetic_workload(seed=2, n_jobs=300)
    w = synthetic_workload(seed=2, load=load, n_jobs=300)
    assert w.name == f"lublin-s2-load{load:g}"
    for column in ("processing_time", "tasks", "cpu_need", "mem_need"):
        assert np.array_equal(getattr(w.jobs, column), getattr(base.jobs, column))
    table = JobTable({"submit": w.jobs.submit, "runtime": w.jobs.processing_time, "procs": w.jobs.tasks})
    assert offered_load(table, 128) == pytest.approx(load, rel=1e-9)


def test_synthetic_set_and_bad_arguments():
    ws = synthetic_workloads(2, seed=7, loads=(0.3, 0.6), n_jobs=50)
    assert [w.name for w in ws] == ["lublin-s7-load0.3", "lublin-s7-load0.6", "lublin-s8-load0.3", "lublin-s8-load0.6"]
    assert [w.name for w in synthetic_workloads(2, seed=7, loads=None, n_jobs=50)] == ["lublin-s7", "lublin-s8"]
    assert len(SYNTHETIC_LOADS) == 9
    with pytest.raises(ValueError, match="loads == \\(\\)"):
        synthetic_workloads(1, loads=())
    with pytest.raises(TypeError, match="loads == 0.5"):
        synthetic_workloads(1, loads=0.5)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="load"):
        synthetic_workload(seed=0, load=-1)
    with pytest.raises(ValueError, match="seed"):
        synthetic_workload(seed=-1)
    with pytest.raises(TypeError, match="must be a clustersched.workload.JobTable"):
        swf_to_dfrs({"submit": [0]})  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="memory_floor"):
        swf_to_dfrs(JobTable({"submit": [0], "runtime": [1], "procs": [1]}), memory_floor=0)
    with pytest.raises((InvalidWorkloadError, OSError)):
        hpc2n_weeks("/nonexistent/trace.swf")
