"""The simulation state in the Rust core (``_core.DfrsState``'s event steps,
``clustersched_core::dfrs::sim``): the one rounding rule shared with
:mod:`clustersched.dfrs.model`, a run by hand through the steps, errors at
the boundary, and simulations identical to the loop's documented rules."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from clustersched import _core
from clustersched.dfrs import DfrsJobs, DfrsPlatform, simulate
from clustersched.dfrs.model import NEED_UNITS, completion_time, progress

I64 = np.int64
times = st.floats(min_value=0.0, max_value=1e10, allow_nan=False)
yields = st.floats(min_value=1e-9, max_value=1.0)


@settings(max_examples=500, deadline=None)
@given(y=yields, start=times, length=times, pen=st.one_of(st.just(-math.inf), times))
def test_progress_is_models_rule_bit_for_bit(y, start, length, pen):
    end = start + length
    assert _core.dfrs_progress(y, start, end, pen) == float(progress(y, start, end, pen))


@settings(max_examples=500, deadline=None)
@given(t=times, pen=st.one_of(st.just(-math.inf), times), remaining=times, y=yields)
def test_completion_time_is_models_rule_bit_for_bit(t, pen, remaining, y):
    assert _core.dfrs_completion_time(t, pen, remaining, y) == float(completion_time(t, pen, remaining, y))


def _state(n=2, nodes=1, penalty=300.0):
    return _core.DfrsState(
        np.ones(n, dtype=I64),
        np.full(n, NEED_UNITS, dtype=np.uint64),
        np.full(n, NEED_UNITS // 2, dtype=np.uint64),
        nodes,
        submit=np.zeros(n),
        processing_time=np.full(n, 100.0),
        penalty=penalty,
    )


def test_two_jobs_by_hand():
    s = _state()
    assert s.next_completion() == math.inf
    s.advance(-math.inf, 0.0)
    assert len(s.complete_due(0.0)) == 0
    s.arrive(0, 2)
    s.submit(0.0, 0, 2, "Greedy")
    s.record_commit(0.0)
    s.share_max_min(0.0)
    assert s.next_completion() == 200.0
    s.advance(0.0, 200.0)
    assert s.virtual_times().tolist() == [100.0, 100.0]
    assert s.complete_due(200.0).tolist() == [0, 1]
    s.record_commit(200.0)
    s.share_max_min(200.0)
    assert s.completions().tolist() == [200.0, 200.0]
    assert len(s.active()) == 0
    job, start, end, y, offsets, node, count = s.segments()
    assert (job.tolist(), start.tolist(), end.tolist(), y.tolist()) == ([0, 1], [0.0, 0.0], [200.0, 200.0], [0.5, 0.5])
    assert (offsets.tolist(), node.tolist(), count.tolist()) == ([0, 1, 2], [0, 0], [1, 1])


def test_a_pause_and_resume_costs_the_penalty():
    # GreedyP: job 1 (infinite priority) pauses job 0 (which has progressed) on the one node
    s = _core.DfrsState(
        np.ones(2, dtype=I64),
        np.full(2, NEED_UNITS, dtype=np.uint64),
        np.full(2, NEED_UNITS, dtype=np.uint64),
        1,
        submit=np.array([0.0, 50.0]),
        processing_time=np.array([100.0, 10.0]),
        penalty=30.0,
    )
    s.arrive(0, 1)
    s.submit(0.0, 0, 1, "GreedyP")
    s.record_commit(0.0)
    s.share_max_min(0.0)
    s.advance(0.0, 50.0)
    s.arrive(1, 2)
    s.submit(50.0, 1, 2, "GreedyP")
    s.record_commit(50.0)
    s.share_max_min(50.0)
    assert s.next_completion() == 60.0
    s.advance(50.0, 60.0)
    assert s.complete_due(60.0).tolist() == [1]
    s.greedy_waiting(60.0)
    s.record_commit(60.0)
    s.share_max_min(60.0)
    assert s.next_completion() == 60.0 + 30.0 + 50.0  # a resume: 30 s without progress, then 50 s of work


def test_bad_steps_raise_and_leave_no_panic():
    s = _state()
    with pytest.raises(ValueError, match="next arrival is row 0"):
        s.arrive(1, 2)
    with pytest.raises(ValueError, match="must be job indices"):
        s.arrive(-1, 2)
    with pytest.raises(ValueError, match="only 0 jobs have arrived"):
        s.submit(0.0, 0, 1, "Greedy")
    s.arrive(0, 2)
    with pytest.raises(ValueError, match="policy == 'greedy', must be"):
        s.submit(0.0, 0, 1, "greedy")
    with pytest.raises(ValueError, match="cannot both be set"):
        s.mcb8_active(0.0, minvt=1.0, minft=1.0)
    with pytest.raises(ValueError, match="1 yields for 1 jobs, 0 running"):
        s.share(0.0, np.array([0], dtype=I64), np.array([1.0]))
    with pytest.raises(ValueError, match="processing_time has 1 entries for 2 jobs"):
        _core.DfrsState(
            np.ones(2, dtype=I64),
            np.ones(2, dtype=np.uint64),
            np.ones(2, dtype=np.uint64),
            1,
            processing_time=np.ones(1),
        )
    assert s.mcb8_active(0.0) == 2


@pytest.mark.parametrize(
    "algorithm",
    [
        "GreedyP */per/opt=min/minvt=600",
        "MCB8 */per/opt=min/minft=300",
        "/stretch-per/opt=max/minvt=600",
        "GreedyPM */opt=avg",
    ],
)
def test_simulations_complete_every_job_and_validate(algorithm):
    rng = np.random.default_rng(7)
    n = 40
    jobs = DfrsJobs(
        submit=np.sort(rng.uniform(0, 5000, n)),
        processing_time=rng.uniform(0, 3000, n),
        tasks=rng.integers(1, 5, n),
        cpu_need=rng.choice([0.25, 0.5, 1.0], n),
        mem_need=rng.choice([0.1, 0.3, 0.5], n),
    )
    run = simulate(jobs, DfrsPlatform(4), algorithm, validate=True)
    assert np.isfinite(run.schedule.completion).all()
    assert run.events > 0
