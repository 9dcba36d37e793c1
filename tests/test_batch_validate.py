"""The independent validator accepts feasible schedules and rejects each kind of infeasible one."""

from __future__ import annotations

import numpy as np
import pytest

from clustersched import InvalidScheduleError, JobTable, Schedule, simulate
from clustersched.batch.validate import batch_violations, validate_batch

# 4 processors: jobs 1 and 2 in parallel, job 3 after job 1 on its processors.
JOBS = JobTable(
    {"job_id": [1, 2, 3], "submit": [0, 0, 1], "runtime": [5, 8, 2], "procs": [2, 2, 2]},
    metadata={"MaxProcs": "4"},
)


def schedule(**changes) -> Schedule:
    cols = dict(
        job_id=np.array([1, 2, 3]),
        submit=np.array([0.0, 0.0, 1.0]),
        start=np.array([0.0, 0.0, 5.0]),
        end=np.array([5.0, 8.0, 7.0]),
        procs=np.array([2, 2, 2]),
        total_procs=4,
        proc_offsets=np.array([0, 1, 2, 3]),  # one run of processors per job
        proc_first=np.array([0, 2, 0]),
        proc_count=np.array([2, 2, 2]),
    )
    cols.update(changes)
    return Schedule(**cols)


def test_a_feasible_hand_made_schedule_passes():
    assert batch_violations(schedule(), JOBS) == []
    validate_batch(schedule(), JOBS)


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"start": np.array([0.0, 0.0, 0.5]), "end": np.array([5.0, 8.0, 2.5])}, "before its submit time"),
        ({"end": np.array([5.0, 8.0, 8.0])}, "runs 3.0 s, its runtime is 2.0 s"),
        ({"procs": np.array([2, 2, 1])}, "uses 1 processors, needs 2"),
        ({"start": np.array([0.0, 0.0, np.nan]), "end": np.array([5.0, 8.0, np.nan])}, "never started"),
        ({"job_id": np.array([1, 3, 2])}, "schedule row names job 3"),
        ({"job_id": np.array([1, 2])}, "2 rows for 3 jobs"),
    ],
)
def test_per_job_violations_are_rejected(changes, message):
    with pytest.raises(InvalidScheduleError, match=message) as err:
        validate_batch(schedule(**changes), JOBS)
    assert err.value.violations


def test_over_subscription_is_rejected():
    # job 3 starts at t=4 while jobs 1 and 2 still hold all 4 processors
    bad = schedule(start=np.array([0.0, 0.0, 4.0]), end=np.array([5.0, 8.0, 6.0]))
    violations = batch_violations(bad, JOBS)
    assert any("6 processors busy at time 4.0, the machine has 4" in v for v in violations)


def test_double_booked_processor_is_rejected():
    # job 3 runs after job 1 in time but on job 2's processors
    bad = schedule(proc_first=np.array([0, 2, 2]))
    violations = batch_violations(bad, JOBS)
    assert any("processor 2 double-booked: job 2 [0.0, 8.0) and job 3 [5.0, 7.0)" in v for v in violations)


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"proc_first": np.array([0, 2, 3])}, "processors 3..4 outside 0..3"),
        (
            {
                "proc_offsets": np.array([0, 2, 3, 4]),
                "proc_first": np.array([0, 0, 2, 0]),
                "proc_count": np.array([1, 1, 2, 2]),
            },
            "lists processor 0 twice",
        ),
        ({"proc_count": np.array([2, 1, 2])}, "1 processors assigned for width 2"),
        ({"proc_offsets": np.array([0, 1, 2])}, "processor runs malformed"),
    ],
)
def test_malformed_processor_lists_are_rejected(changes, message):
    with pytest.raises(InvalidScheduleError, match=message):
        validate_batch(schedule(**changes), JOBS)


def test_back_to_back_and_zero_length_jobs_are_fine():
    jobs = JobTable({"submit": [0, 0, 0], "runtime": [5, 0, 3], "procs": [4, 4, 4]}, metadata={"MaxProcs": "4"})
    ok = Schedule(
        job_id=jobs.job_id,
        submit=jobs.submit,
        start=np.array([0.0, 5.0, 5.0]),
        end=np.array([5.0, 5.0, 8.0]),
        procs=np.array([4, 4, 4]),
        total_procs=4,
        proc_offsets=np.array([0, 1, 3, 4]),
        proc_first=np.array([0, 0, 2, 0]),
        proc_count=np.array([4, 2, 2, 4]),
    )
    assert batch_violations(ok, jobs) == []


def test_double_booking_between_split_runs_is_caught():
    # job 3 holds processors 1 and 3 (two runs); job 2 holds 2..3 at the same time
    jobs = JobTable({"submit": [0, 0, 0], "runtime": [5, 5, 5], "procs": [1, 2, 2]}, metadata={"MaxProcs": "4"})
    bad = Schedule(
        job_id=jobs.job_id,
        submit=jobs.submit,
        start=np.zeros(3),
        end=np.full(3, 5.0),
        procs=jobs.procs,
        total_procs=4,
        proc_offsets=np.array([0, 1, 2, 4]),
        proc_first=np.array([0, 2, 1, 3]),
        proc_count=np.array([1, 2, 1, 1]),
    )
    assert any("processor 3 double-booked: job 2" in v for v in batch_violations(bad, jobs))


def test_a_corrupted_simulator_schedule_is_caught(hpc2n_head):
    result = simulate(hpc2n_head, "easy")
    validate_batch(result.schedule, result.jobs)
    waited = int(np.flatnonzero(result.schedule.start > result.jobs.submit)[0])
    start = result.schedule.start.copy()
    start[waited] = result.jobs.submit[waited] - 1
    s = result.schedule
    tampered = Schedule(
        s.job_id,
        s.submit,
        start,
        start + result.jobs.runtime,
        s.procs,
        s.total_procs,
        s.proc_offsets,
        s.proc_first,
        s.proc_count,
    )
    with pytest.raises(InvalidScheduleError, match="before its submit time"):
        validate_batch(tampered, result.jobs)


def test_simulate_validates_when_asked(monkeypatch):
    # The test suite turns validation on for every simulate() call (conftest.py).
    import clustersched.batch.simulator as simulator

    jobs = JobTable({"submit": [0, 0], "runtime": [5, 5], "procs": [2, 2]}, metadata={"MaxProcs": "4"})
    assert simulate(jobs, "easy").schedule.start.tolist() == [0.0, 0.0]
    monkeypatch.setattr(simulator, "validate_batch", lambda s, j: (_ for _ in ()).throw(InvalidScheduleError(["x"])))
    with pytest.raises(InvalidScheduleError):
        simulate(jobs, "easy")
    simulate(jobs, "easy", validate=False)  # explicit off wins
