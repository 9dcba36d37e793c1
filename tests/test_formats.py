"""A simulated batch schedule out: SWF, the Batsim/evalys jobs CSV, CSV (clustersched.batch.formats).

* A schedule written as SWF reads back with ``read_swf``, and simulating what
  it reads with the same policy and estimates gives the same start times
  (every built-in policy; the bundled week and a slice of HPC2N).
* The Batsim jobs CSV loads in evalys (``JobSet.from_csv``), whose jobs and
  utilization agree with ours (a whole-HPC2N EASY run in the slow test).

Batsim JSON workloads in: tests/test_batsim.py.
"""

from __future__ import annotations

import csv
import warnings

import numpy as np
import pytest

import clustersched as cs
from clustersched.batch import (
    ALGORITHMS,
    SCHEDULE_FORMATS,
    schedule_table,
    write_batsim_jobs,
    write_schedule,
    write_schedule_csv,
    write_schedule_swf,
)
from clustersched.batch.formats import BATSIM_JOBS_COLUMNS
from clustersched.workload import JobTable, drop_invalid, read_swf, write_swf


@pytest.fixture(scope="module")
def week():
    return read_swf(cs.sample_trace())


@pytest.fixture(scope="module")
def hpc2n_slice(hpc2n):
    """4,000 jobs of HPC2N (a busy stretch; conftest's hpc2n reads it through swf_path), cleaned as
    reproduce dpsa does."""
    return drop_invalid(hpc2n.select(slice(60_000, 64_000)), hpc2n.max_procs)


# -- SWF of a simulated schedule --------------------------------------------


def _round_trip(jobs, policy, estimates, path):
    run = cs.simulate(jobs, policy, estimates=estimates)
    back = read_swf(write_schedule_swf(run.schedule, run.jobs, path))
    again = cs.simulate(back, policy, estimates=estimates)
    return run, back, again


@pytest.mark.parametrize("policy", ALGORITHMS)
def test_swf_of_a_schedule_reads_back_and_simulates_to_the_same_starts(week, policy, tmp_path):
    run, back, again = _round_trip(week, policy, "requested", tmp_path / "s.swf")
    s = run.schedule
    assert len(back) == len(s) and back.max_procs == s.total_procs
    np.testing.assert_array_equal(back.job_id, s.job_id)
    np.testing.assert_array_equal(back.submit, s.submit)
    np.testing.assert_array_equal(back.wait, s.start - s.submit)
    np.testing.assert_array_equal(back.runtime, s.end - s.start)
    np.testing.assert_array_equal(back.procs, s.procs)
    assert (back.status == 1).all()
    # requested processors and time, user, ... are the input's
    for name in ("procs_requested", "time_requested", "user_id", "mem_used", "cpu_time", "queue"):
        np.testing.assert_array_equal(getattr(back, name), getattr(run.jobs, name), err_msg=name)
    np.testing.assert_array_equal(again.schedule.start, s.start)
    np.testing.assert_array_equal(again.schedule.end, s.end)
    assert any(f"policy {run.algorithm}" in line for line in back.header)


@pytest.mark.parametrize("policy", ALGORITHMS)
@pytest.mark.parametrize("estimates", ["requested", "exact"])
def test_swf_round_trip_on_a_slice_of_hpc2n(hpc2n_slice, policy, estimates, tmp_path):
    run, back, again = _round_trip(hpc2n_slice, policy, estimates, tmp_path / "s.swf.gz")
    np.testing.assert_array_equal(again.schedule.start, run.schedule.start)
    np.testing.assert_array_equal(back.wait, run.schedule.start - run.schedule.submit)


def test_swf_of_a_schedule_keeps_the_header_and_names_the_machine_simulated(week, tmp_path):
    run = cs.simulate(week, "easy", procs=300)
    back = read_swf(write_schedule_swf(run.schedule, run.jobs, tmp_path / "s.swf"))
    assert back.max_procs == 300 and back.metadata["MaxProcs"] == "300"
    assert back.metadata["Computer"] == week.metadata["Computer"]  # the input's header is kept
    notes = back.metadata["Note"]
    assert "policy easy (estimates=requested, oversized=error)" in notes and "status 1" in notes
    np.testing.assert_array_equal(cs.simulate(back, "easy").schedule.start, run.schedule.start)


def test_swf_of_a_table_without_header_gets_one(tmp_path):
    t = JobTable(
        {"submit": [0.5, 1], "runtime": [10.25, 5], "procs": [3, 2], "time_requested": [20, -1]},
        metadata={"MaxProcs": "4", "Note": "made by hand"},
    )
    run = cs.simulate(t, "fcfs")
    back = read_swf(write_schedule_swf(run.schedule, run.jobs, tmp_path / "s.swf"))
    assert back.max_procs == 4 and back.metadata["Note"].startswith("made by hand\n")
    assert back.runtime.tolist() == [10.25, 5.0] and back.wait.tolist() == [0.0, 9.75]
    assert back.time_requested.tolist() == [20.0, -1.0] and back.procs_requested.tolist() == [-1, -1]


def test_clipped_jobs_round_trip(tmp_path):
    t = JobTable({"submit": [0, 1, 2], "runtime": [10, 5, 7], "procs": [3, 9, 2]}, metadata={"MaxProcs": "4"})
    run = cs.simulate(t, "easy", oversized="clip")
    back = read_swf(write_schedule_swf(run.schedule, run.jobs, tmp_path / "s.swf"))
    assert back.procs.tolist() == [3, 4, 2]
    np.testing.assert_array_equal(cs.simulate(back, "easy").schedule.start, run.schedule.start)


def test_writers_refuse_a_table_that_is_not_the_one_the_schedule_ran(week, tmp_path):
    run = cs.simulate(week.select(slice(0, 50)), "easy")
    with pytest.raises(ValueError, match="give the table the schedule ran"):
        write_schedule_swf(run.schedule, week, tmp_path / "s.swf")
    shuffled = run.jobs.select(np.r_[1, 0, 2:50])
    for writer in (write_schedule_swf, write_batsim_jobs, write_schedule_csv):
        with pytest.raises(ValueError, match="row 0 of jobs is job"):
            writer(run.schedule, shuffled, tmp_path / "x")
    with pytest.raises(TypeError, match="must be the JobTable"):
        write_schedule_swf(run.schedule, run.jobs.columns(), tmp_path / "s.swf")
    assert not (tmp_path / "s.swf").exists()


def test_schedule_table_is_what_the_swf_holds(week, tmp_path):
    run = cs.simulate(week, "sjf")
    table = schedule_table(run.schedule, run.jobs)
    assert table.equals(read_swf(write_swf(table, tmp_path / "t.swf")))


# -- CSV and the dispatcher ---------------------------------------------------


def test_write_schedule_dispatches_on_the_format(week, tmp_path):
    run = cs.simulate(week.select(slice(0, 30)), "easy")
    assert SCHEDULE_FORMATS == ("csv", "swf", "batsim")
    for fmt in SCHEDULE_FORMATS:
        assert write_schedule(run.schedule, run.jobs, tmp_path / fmt, format=fmt) == tmp_path / fmt
    assert (tmp_path / "csv").read_text().startswith("job_id,submit_s,start_s,end_s,wait_s,runtime_s,procs,")
    assert len(read_swf(tmp_path / "swf")) == 30
    assert (tmp_path / "batsim").read_text().startswith(",".join(BATSIM_JOBS_COLUMNS) + "\n")
    with pytest.raises(ValueError, match="format == 'json'"):
        write_schedule(run.schedule, run.jobs, tmp_path / "x", format="json")


def test_csv_has_the_requested_time_and_the_allocated_processors(week, tmp_path):
    run = cs.simulate(week, "easy")
    with open(write_schedule_csv(run.schedule, run.jobs, tmp_path / "s.csv")) as f:
        rows = list(csv.DictReader(f))
    assert list(rows[0]) == [
        "job_id",
        "submit_s",
        "start_s",
        "end_s",
        "wait_s",
        "runtime_s",
        "procs",
        "procs_requested",
        "time_requested_s",
        "allocated",
    ]
    s = run.schedule
    assert [float(r["start_s"]) for r in rows] == s.start.tolist()
    assert [float(r["time_requested_s"]) for r in rows] == run.jobs.time_requested.tolist()
    for i in (0, 100, 2000):
        ids = [p for part in rows[i]["allocated"].split() for p in _interval(part)]
        assert ids == sorted(s.processors(i).tolist())


def _interval(part: str) -> list[int]:
    lo, _, hi = part.partition("-")
    return list(range(int(lo), int(hi or lo) + 1))


def test_allocated_resources_merge_and_sort_runs():
    s = cs.Schedule(
        job_id=np.array([1, 2, 3]),
        submit=np.zeros(3),
        start=np.zeros(3),
        end=np.ones(3),
        procs=np.array([5, 1, 4]),
        total_procs=10,
        proc_offsets=np.array([0, 3, 4, 6]),
        proc_first=np.array([6, 0, 2, 9, 4, 5]),
        proc_count=np.array([1, 2, 2, 1, 1, 3]),
    )
    assert s.allocated_resources() == ["0-3 6", "9", "4-7"]
    bare = cs.Schedule(
        job_id=np.array([1]),
        submit=np.zeros(1),
        start=np.zeros(1),
        end=np.ones(1),
        procs=np.array([1]),
        total_procs=1,
        algorithm="mine",
    )
    with pytest.raises(ValueError, match="'mine' assigns no processors"):
        bare.allocated_resources()


# -- the Batsim/evalys jobs CSV -------------------------------------------------


def _evalys_jobset(path, procs):
    pytest.importorskip("evalys")
    from evalys.jobset import JobSet

    with warnings.catch_warnings():  # evalys calls pandas APIs that pandas deprecates
        warnings.simplefilter("ignore")
        js = JobSet.from_csv(str(path), resource_bounds=(0, procs - 1))
        load = js.utilisation
        mean = js.mean_utilisation()
    return js, load, mean


def _evalys_agrees(run, path):
    """evalys reads our jobs file: same jobs, same times, and its utilization is ours."""
    s = run.schedule
    js, load, mean = _evalys_jobset(write_batsim_jobs(s, run.jobs, path), s.total_procs)
    df = js.df
    assert js.MaxProcs == s.total_procs and len(df) == len(s)
    np.testing.assert_array_equal(df["jobID"].astype(int).to_numpy(), s.job_id)
    np.testing.assert_allclose(df["starting_time"].to_numpy(), s.start, rtol=0, atol=1e-6)
    np.testing.assert_allclose(df["finish_time"].to_numpy(), s.end, rtol=0, atol=1e-6)
    np.testing.assert_array_equal(df["proc_alloc"].to_numpy(), s.procs)
    assert load["load"].max() <= s.total_procs
    ours = cs.batch_metrics(s).utilization
    # evalys integrates the busy processors from the first start to the last end; ours divides the same
    # processor-seconds by P times the span from the first submission to the last end.
    first_start, first_submit, last_end = s.start.min(), s.submit.min(), s.end.max()
    evalys_util = mean / s.total_procs
    assert evalys_util * (last_end - first_start) / (last_end - first_submit) == pytest.approx(ours, rel=1e-9)
    assert float(load["area"].sum()) / (s.total_procs * (last_end - first_submit)) == pytest.approx(ours, rel=1e-9)
    return evalys_util, ours


def test_evalys_reads_the_jobs_file_of_the_bundled_week(week, tmp_path):
    run = cs.simulate(week, "easy")
    evalys_util, ours = _evalys_agrees(run, tmp_path / "out_jobs.csv")
    assert evalys_util == pytest.approx(ours, rel=1e-9)  # the week's first job starts when it is submitted


def test_batsim_jobs_file_columns(tmp_path):
    t = JobTable(
        {"submit": [0, 1, 3], "runtime": [10, 0, 2.5], "procs": [3, 2, 1], "time_requested": [20, 5, -1]},
        metadata={"MaxProcs": "4"},
    )
    run = cs.simulate(t, "fcfs")
    with open(write_batsim_jobs(run.schedule, run.jobs, tmp_path / "j.csv", workload_name="hpc")) as f:
        rows = list(csv.DictReader(f))
    assert tuple(rows[0]) == BATSIM_JOBS_COLUMNS
    assert [r["workload_name"] for r in rows] == ["hpc"] * 3
    assert [r["final_state"] for r in rows] == ["COMPLETED_SUCCESSFULLY"] * 3
    assert [r["profile"] for r in rows] == ["delay_10", "delay_0", "delay_2.5"]
    assert [r["requested_time"] for r in rows] == ["20", "5", "-1"]
    assert [r["stretch"] for r in rows] == ["1", "inf", "3.8"]  # job 2 ran no time; FCFS holds job 3 to 10
    assert [r["allocated_resources"] for r in rows] == ["0-2", "0-1", "2"]
    with pytest.raises(ValueError, match="workload_name"):
        write_batsim_jobs(run.schedule, run.jobs, tmp_path / "x.csv", workload_name="a!b")


@pytest.mark.slow
def test_evalys_utilization_of_a_whole_hpc2n_easy_run_agrees_with_ours(hpc2n, tmp_path):
    run = cs.simulate(drop_invalid(hpc2n, hpc2n.max_procs), "easy")
    evalys_util, ours = _evalys_agrees(run, tmp_path / "hpc2n_easy_jobs.csv")
    print(
        f"\nHPC2N EASY: {len(run.schedule)} jobs, utilization ours {ours:.6f}, "
        f"evalys mean_utilisation / MaxProcs {evalys_util:.6f} (from the first start)"
    )
