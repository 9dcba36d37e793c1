"""Issue 20, DFRS: time always advances, sizes are checked before any work, nothing wrong is
accepted silently.  Each case of the issue is here with the exact typed error it now gives
(the fuzzer, tests/test_fuzz_dfrs.py, runs the hangs under a hard time limit too)."""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest

from clustersched import _core
from clustersched.dfrs import (
    DfrsJobs,
    DfrsPlatform,
    dfrs_metrics,
    dfrs_violations,
    limits,
    parse_algorithm,
    simulate,
    validate_dfrs,
)
from clustersched.dfrs.metrics import reschedulings, stretches, underutilization
from clustersched.dfrs.model import CPU_TOLERANCE, TIME_ULPS, WORK_RTOL, completion_time, progress, work_tolerance
from clustersched.dfrs.simulator import _Simulation, busy_time, periodic_tasks, shortest_stay
from clustersched.errors import (
    ClusterschedError,
    InvalidOptionError,
    InvalidScheduleError,
    InvalidWorkloadError,
    LimitError,
)


def one_job(submit=803.709, p=601.0, tasks=1, cpu=1.0, mem=0.5):
    return DfrsJobs(submit=[submit], processing_time=[p], tasks=[tasks], cpu_need=[cpu], mem_need=[mem])


# -- 1. time that always advances ------------------------------------------------------------------


def test_the_issue_single_job_returns():
    """The issue's job: the tick at 803.709 + 600 used to be re-derived as itself, forever."""
    r = simulate(one_job(), DfrsPlatform(1), "Greedy/per/opt=min", validate=True)
    assert r.schedule.completion.tolist() == [803.709 + 601.0]
    assert r.events == 3  # arrival, the periodic event at t0 + 600, the completion
    for name in ("/per/opt=min", "/stretch-per/opt=max", "GreedyPM */per/opt=min/minvt=600", "MCB8/per/opt=avg"):
        r = simulate(one_job(), DfrsPlatform(1), name, validate=True)
        assert math.isclose(r.schedule.completion[0], 803.709 + 601.0 + (600.0 if r.algorithm.startswith("/") else 0))


def test_the_issue_two_jobs_with_fractional_penalty_and_period_return():
    """Two jobs on 4 nodes under the issue's algorithm, penalty and period (hung before)."""
    jobs = DfrsJobs(
        submit=[1308.061, 1492.456],
        processing_time=[4071.314, 460.488],
        tasks=[2, 3],
        cpu_need=[1.0, 1.0],
        mem_need=[0.23, 0.1],
    )
    r = simulate(
        jobs, DfrsPlatform(4), "GreedyPM */per/opt=min/minvt=600", penalty=365.328, period=435.278, validate=True
    )
    assert np.all(np.isfinite(r.schedule.completion))


def test_three_decimal_submit_times_under_every_periodic_algorithm():
    """About 1 in 12 of these hung; every periodic combination of Table 1 now returns a valid schedule."""
    rng = np.random.default_rng(20)
    submits = rng.integers(0, 10**7, 24) / 1000
    periodic = [
        "Greedy/per/opt=min",
        "GreedyP */per/opt=avg",
        "MCB8/per/opt=min/minvt=600",
        "/per/opt=min",
        "/stretch-per/opt=max",
        "/stretch-per/opt=avg/minft=300",
    ]
    for k, submit in enumerate(submits.tolist()):
        r = simulate(one_job(submit=submit), DfrsPlatform(1), periodic[k % len(periodic)], validate=True)
        assert r.schedule.completion[0] >= submit + 601.0


def test_periodic_events_are_t0_plus_k_periods():
    """The k-th periodic event is at t0 + k * period exactly (the float of that product and sum)."""
    jobs = DfrsJobs(
        submit=[0.1, 0.1], processing_time=[1000.0, 1000.0], tasks=[1, 1], cpu_need=[1.0, 1.0], mem_need=[0.6, 0.6]
    )
    period = 0.7 * 100  # 70.00000000000001
    r = simulate(jobs, DfrsPlatform(1), "/per/opt=min", period=period, penalty=0.0, validate=True)
    ticks = {0.1 + k * period for k in range(1, 200)}
    starts = set(r.schedule.seg_start.tolist())
    assert starts <= ticks  # /per acts only at periodic events


def test_idle_periods_are_skipped_exactly():
    """No job in the system: the next periodic event is the first at or after the next arrival."""
    jobs = DfrsJobs(
        submit=[0.0, 10_000.0], processing_time=[10.0, 10.0], tasks=[1, 1], cpu_need=[1.0, 1.0], mem_need=[0.5, 0.5]
    )
    r = simulate(jobs, DfrsPlatform(1), "/per/opt=min", period=1000.0, validate=True)
    # job 2 arrives exactly at periodic event 10 and starts there
    assert r.schedule.first_start().tolist() == [1000.0, 10_000.0]
    assert r.events == 5  # the two arrivals, two periodic events that place, two... merged: 0, 1000, 1010, 10000, 10010


def test_completions_below_the_clock_resolution_happen_at_once():
    """A processing time too small to move the clock: the job completes when placed, within the time stamp."""
    for p in (0.0, 1e-300, 1e-14):
        jobs = DfrsJobs(
            submit=[803.709, 803.709], processing_time=[p, 50.0], tasks=[1, 1], cpu_need=[1.0, 1.0], mem_need=[0.5, 0.5]
        )
        for name in ("Greedy */opt=min", "MCB8 */opt=min", "Greedy/per/opt=min"):
            r = simulate(jobs, DfrsPlatform(1), name, validate=True)
            assert r.schedule.completion[0] == 803.709
            assert r.schedule.completion[1] == 853.709
            assert r.events == 2


def test_a_penalty_below_the_clock_resolution_ends_at_once():
    jobs = DfrsJobs(
        submit=[1e9, 1e9 + 1], processing_time=[100.0, 10.0], tasks=[1, 1], cpu_need=[1.0, 1.0], mem_need=[0.6, 0.6]
    )
    r = simulate(jobs, DfrsPlatform(1), "GreedyP */opt=min", penalty=1e-12, validate=True)
    assert r.schedule.completion.tolist() == [1e9 + 110, 1e9 + 11]


def test_the_loop_fails_loudly_if_time_stops(monkeypatch):
    """A regression that schedules an event before the current time raises, it does not spin."""
    monkeypatch.setattr(_Simulation, "_tick", lambda self, k: self.origin + 600.0)  # a tick that never moves
    with pytest.raises(LimitError, match="max_periodic_events == 1000000"):
        simulate(one_job(), DfrsPlatform(1), "/per/opt=min")

    def stuck(self, t):  # the next tick is never after t
        self.k += 1

    monkeypatch.setattr(_Simulation, "_next_tick", stuck)
    with pytest.raises(
        RuntimeError,
        match="internal error in the DFRS simulator: the next event at 1403.7089999999998 "
        "is not after the time stamp 1403.7089999999998 just processed",
    ):
        simulate(one_job(), DfrsPlatform(1), "/per/opt=min")


@pytest.mark.parametrize(
    ("option", "value", "message"),
    [
        ("period", 1e-9, "period == 1e-09, must be >= 0.001 s (clustersched.dfrs.limits.MIN_PERIOD)"),
        ("period", 0.0, "period == 0.0, must be > 0"),
        ("period", 1e300, "period == 1e+300, must be <= 1e+10 (clustersched.dfrs.limits.MAX_TIME)"),
        ("penalty", 1e300, "penalty == 1e+300, must be <= 1e+10 (clustersched.dfrs.limits.MAX_TIME)"),
        ("penalty", math.nan, "penalty == nan, must be finite"),
    ],
)
def test_options_too_small_or_too_large_are_refused(option, value, message):
    with pytest.raises(ValueError) as info:
        simulate(one_job(), DfrsPlatform(1), "Greedy/per/opt=min", **{option: value})
    assert str(info.value) == message
    if "limits" in message:
        assert isinstance(info.value, LimitError) and isinstance(info.value, ClusterschedError)
        assert (info.value.name, info.value.value) == (option, value)


@pytest.mark.parametrize(("field", "value"), [("processing_time", 1e300), ("submit", 1e300), ("submit", 1e10 + 1)])
def test_job_times_too_large_are_refused(field, value):
    cols = {"submit": [0.0, 5.0], "processing_time": [1.0, 1.0]}
    cols[field][1] = value
    with pytest.raises(InvalidWorkloadError) as info:
        DfrsJobs(**cols, tasks=[1, 1], cpu_need=[1, 1], mem_need=[1, 1], job_id=[7, 8])
    e = info.value
    assert (e.row, e.job_id, e.field, e.value) == (1, 8, field, value)
    assert str(e) == (
        f"job 8 (row 1): {field} == {value!r}, must be <= 1e+10 s (clustersched.dfrs.limits.MAX_TIME) (1 such job(s))"
    )


def test_periodic_work_is_bounded_up_front():
    """A period too short for the jobs' busy time is refused before the run, naming the limit."""
    with pytest.raises(LimitError) as info:
        simulate(one_job(p=6010.0), DfrsPlatform(1), "Greedy/per/opt=min", period=0.001)
    assert str(info.value) == (
        "period == 0.001, must be >= 0.00601 s for these jobs: they keep the system busy for at least 6010 s "
        "(submit to submit + processing_time, longer on too few nodes: clustersched.dfrs.simulator.busy_time), "
        "more than max_periodic_events == 1000000 periods (clustersched.dfrs.limits.MAX_PERIODIC_EVENTS)"
    )
    assert (info.value.name, info.value.value, info.value.limit) == ("period", 0.001, 1_000_000)
    # the same period is fine for an algorithm without periodic events, and with a larger budget
    r = simulate(one_job(), DfrsPlatform(1), "Greedy */opt=min", period=0.001)
    assert r.schedule.completion[0] == 803.709 + 601.0
    with pytest.raises(LimitError, match="penalty == 1000000.0, must be <= 1000 s for period == 1.0"):
        simulate(one_job(p=1.0), DfrsPlatform(1), "/per/opt=min", period=1.0, penalty=1e6, max_periodic_events=1000)
    r = simulate(one_job(p=20.0), DfrsPlatform(1), "/per/opt=min", period=0.01, penalty=0, max_periodic_events=3000)
    assert r.schedule.completion[0] == pytest.approx(803.709 + 0.01 + 20.0)


def test_processing_time_1e300_and_huge_penalties_cannot_run_forever():
    with pytest.raises(InvalidWorkloadError, match="processing_time == 1e\\+300, must be <= 1e\\+10 s"):
        one_job(p=1e300)
    # the largest accepted values: refused up front for a periodic algorithm (1e10 s / 600 s periods) ...
    with pytest.raises(LimitError, match="period == 600.0, must be >= 10000 s for these jobs"):
        simulate(one_job(p=1e10), DfrsPlatform(1), "/per/opt=min")
    with pytest.raises(LimitError, match="penalty == 10000000000.0, must be <= 6e\\+08 s for period == 600.0"):
        simulate(one_job(), DfrsPlatform(1), "GreedyPM */per/opt=min/minvt=600", penalty=1e10)
    # ... and exact without one
    r = simulate(one_job(p=1e10), DfrsPlatform(1), "Greedy */opt=min", penalty=1e10, validate=True)
    assert r.schedule.completion[0] == 803.709 + 1e10


def test_runs_that_reach_the_budget_stop_with_a_limit_error():
    """Slowed far beyond the lower bounds (50 jobs that cannot share one node's memory take turns),
    the runs stop at the budgets."""
    n = 50
    jobs = DfrsJobs(
        submit=np.zeros(n),
        processing_time=np.full(n, 10.0),
        tasks=np.ones(n, int),
        cpu_need=np.full(n, 0.01),
        mem_need=np.full(n, 0.6),
    )
    with pytest.raises(LimitError) as info:
        simulate(jobs, DfrsPlatform(1), "/per/opt=min", period=1.0, penalty=0.0, max_periodic_events=100)
    assert str(info.value).startswith(
        "the simulation needs more than max_periodic_events == 100 periodic events "
        "(at time 101.0, 50 job(s) still in the system (first: job id 1)): "
        "period == 1.0 is too short"
    )
    assert (info.value.name, info.value.value, info.value.limit) == ("periodic events", 101, 100)
    with pytest.raises(LimitError) as info:
        simulate(jobs, DfrsPlatform(1), "/per/opt=min", period=1.0, penalty=0.0, max_periodic_tasks=1000)
    assert str(info.value).startswith(
        "the simulation's periodic events need to pack more than "
        "max_periodic_tasks == 1000 tasks (at time 21.0, 50 job(s) with 50 tasks"
    )
    assert (info.value.name, info.value.value, info.value.limit) == ("periodic tasks", 1050, 1000)
    assert simulate(jobs, DfrsPlatform(1), "/per/opt=min", period=1.0, penalty=0.0, validate=True).events == 502
    for option in ("max_periodic_events", "max_periodic_tasks"):
        with pytest.raises(ValueError, match=f"{option} == 0, must be >= 1"):
            simulate(jobs, DfrsPlatform(1), "/per/opt=min", **{option: 0})


def test_busy_time_is_the_union_of_the_intervals():
    jobs = DfrsJobs(
        submit=[0, 10, 20, 500], processing_time=[100, 5, 200, 0], tasks=[1] * 4, cpu_need=[1] * 4, mem_need=[0.1] * 4
    )
    assert busy_time(jobs) == 220.0
    assert busy_time(jobs, nodes=1) == 305.0  # the work, one node's worth per second
    wide = DfrsJobs(submit=[0], processing_time=[100], tasks=[8], cpu_need=[0.5], mem_need=[0.1])
    assert busy_time(wide, nodes=2) == 200.0  # 4 nodes' worth of CPU on 2 nodes
    assert shortest_stay(wide, 2).tolist() == [200.0] and periodic_tasks(wide, 2, 30.0) == 8 * 6


def test_periodic_packing_is_bounded_up_front():
    """A job of 2**20 tasks on 8 nodes runs 65,536 times slower than alone, and every periodic event
    packs its million tasks: about 3 * 10**11 task packings, refused before the run (it ran for hours)."""
    jobs = DfrsJobs(
        submit=[0.0, 10.0], processing_time=[3000.0, 100.0], tasks=[2**20, 1], cpu_need=[0.5, 1.0], mem_need=[1e-6, 0.5]
    )
    with pytest.raises(LimitError) as info:
        simulate(jobs, DfrsPlatform(8), "GreedyPM */per/opt=min/minvt=600")
    assert str(info.value) == (
        "period == 600.0 is too short for these jobs: their periodic events would pack at least 343597383680 tasks "
        "(clustersched.dfrs.simulator.periodic_tasks), more than max_periodic_tasks == 1000000000 "
        "(clustersched.dfrs.limits.MAX_PERIODIC_TASKS)"
    )
    assert (info.value.name, info.value.limit) == ("period", 10**9)
    # without periodic events, or on a platform it fits, it runs in seconds
    assert simulate(jobs, DfrsPlatform(8), "MCB8 */opt=min", validate=True).events == 4
    assert simulate(jobs, DfrsPlatform(2**20), "GreedyPM */per/opt=min/minvt=600", validate=True).events == 9


# -- 2. sizes checked before any work -------------------------------------------------------------


def test_limits_match_the_core():
    assert (limits.MAX_NODES, limits.MAX_TASKS, limits.MAX_TOTAL_TASKS) == (
        _core.DFRS_MAX_NODES,
        _core.DFRS_MAX_TASKS,
        _core.DFRS_MAX_TOTAL_TASKS,
    )
    from clustersched.workload import swf

    assert limits.MAX_TIME == swf.MAX_TIME


@pytest.mark.parametrize("nodes", [2**32 - 1, 100_000_000, 2**20 + 1])
def test_too_many_nodes_are_refused_before_allocating(nodes):
    with pytest.raises(LimitError) as info:
        DfrsPlatform(nodes)
    assert str(info.value) == f"nodes == {nodes}, must be <= 1048576 (clustersched.dfrs.limits.MAX_NODES)"
    assert (info.value.name, info.value.value, info.value.limit) == ("nodes", nodes, 2**20)
    # the core refuses it too, before any allocation (it used to abort the process)
    one = np.ones(1)
    with pytest.raises(ValueError, match=f"nodes == {nodes}, must be between 1 and 1048576"):
        _core.DfrsState(np.ones(1, np.int64), one.astype(np.uint64), one.astype(np.uint64), nodes)
    assert DfrsPlatform(2**20).nodes == 2**20


def test_node_memory_is_bounded():
    with pytest.raises(LimitError, match=r"node_memory_gb == 1e\+300, must be <= 1e\+06"):
        DfrsPlatform(4, node_memory_gb=1e300)


def test_task_counts_are_bounded():
    with pytest.raises(InvalidWorkloadError) as info:
        DfrsJobs(submit=[0, 0], processing_time=[1, 1], tasks=[1, 2**20 + 1], cpu_need=[1, 1], mem_need=[1e-9, 1e-9])
    assert (info.value.job_id, info.value.field, info.value.value) == (2, "tasks", 2**20 + 1)
    assert info.value.row == 1
    assert "must be between 1 and 1048576 (clustersched.dfrs.limits.MAX_TASKS)" in str(info.value)
    n = 257
    with pytest.raises(InvalidWorkloadError) as info:
        DfrsJobs(
            submit=np.zeros(n),
            processing_time=np.ones(n),
            tasks=np.full(n, 2**20),
            cpu_need=np.ones(n),
            mem_need=np.full(n, 1e-9),
        )
    assert (info.value.job_id, info.value.field) == (257, "tasks")
    assert "brings the table to 269484032 tasks, more than 268435456 in all" in str(info.value)
    # the core checks the same limits on the arrays it is given
    with pytest.raises(InvalidWorkloadError, match="tasks == 1048577, must be between 1 and 1048576"):
        _core.DfrsState(np.array([2**20 + 1]), np.array([1], np.uint64), np.array([1], np.uint64), 1)


# -- 3. silent acceptance and wrong output --------------------------------------------------------


@pytest.fixture()
def run():
    jobs = DfrsJobs(submit=[0, 10], processing_time=[100, 50], tasks=[1, 1], cpu_need=[1.0, 1.0], mem_need=[0.6, 0.6])
    return simulate(jobs, DfrsPlatform(1), "GreedyP */opt=min", validate=True)


@pytest.mark.parametrize("penalty", [math.nan, math.inf, -1.0])
def test_a_schedule_with_a_nan_penalty_is_a_violation(run, penalty):
    bad = dataclasses.replace(run.schedule, penalty=penalty)
    assert dfrs_violations(bad, run.jobs, run.platform) == [f"penalty == {penalty!r}, must be finite and >= 0"]
    with pytest.raises(InvalidScheduleError):
        validate_dfrs(bad, run.jobs, run.platform)


def test_nan_shares_and_times_are_violations(run):
    share = run.schedule.entry_share.copy()
    share[0] = math.nan
    text = "\n".join(dfrs_violations(dataclasses.replace(run.schedule, entry_share=share), run.jobs, run.platform))
    assert "CPU shares from nan to nan per task" in text and "CPU share nan per task" in text


@pytest.mark.parametrize("bound", [-1, 0.5, math.nan, math.inf])
def test_metrics_bound_must_be_a_bound(run, bound):
    with pytest.raises(ValueError, match=f"bound == {bound}, must be"):
        dfrs_metrics(run.schedule, run.jobs, run.platform, bound=bound)
    with pytest.raises(ValueError, match="threshold == 0, must be > 0"):
        dfrs_metrics(run.schedule, run.jobs, run.platform, threshold=0)
    assert dfrs_metrics(run.schedule, run.jobs, run.platform, bound=1).degradation >= 1


def test_metrics_of_another_instance_are_a_typed_error(run):
    other = DfrsJobs(
        submit=[0, 10, 20], processing_time=[100, 50, 5], tasks=[1, 1, 1], cpu_need=[1.0] * 3, mem_need=[0.6] * 3
    )
    for f in (
        lambda: dfrs_metrics(run.schedule, other, run.platform),
        lambda: stretches(run.schedule, other),
        lambda: reschedulings(run.schedule, other),
        lambda: underutilization(run.schedule, other, run.platform),
    ):
        with pytest.raises(InvalidScheduleError) as info:
            f()
        assert info.value.violations == ["schedule has 2 jobs, the job table 3 (a schedule of another job table?)"]
    shifted = DfrsJobs(
        submit=[0, 11], processing_time=[100, 50], tasks=[1, 1], cpu_need=[1.0] * 2, mem_need=[0.6] * 2, job_id=[1, 5]
    )
    with pytest.raises(InvalidScheduleError) as info:
        dfrs_metrics(run.schedule, shifted, run.platform)
    assert info.value.violations == [
        "job 5 (row 1): schedule names job 2",
        "job 5 (row 1): submit 10.0 in the schedule, 11.0 in the jobs",
    ]
    with pytest.raises(InvalidScheduleError, match="schedule is for 1 nodes, the platform has 2"):
        dfrs_metrics(run.schedule, run.jobs, DfrsPlatform(2))


def test_duplicate_job_ids_are_refused_as_in_swf():
    with pytest.raises(InvalidWorkloadError) as info:
        DfrsJobs(
            submit=[0, 1, 2],
            processing_time=[1, 1, 1],
            tasks=[1, 1, 1],
            cpu_need=[1] * 3,
            mem_need=[1] * 3,
            job_id=[4, 9, 4],
            source="t.swf",
        )
    e = info.value
    assert (e.path, e.job_id, e.field, e.value) == ("t.swf", 4, "job_id", 4)
    assert e.row == 2
    assert str(e) == "t.swf, job 4 (row 2), field 'job_id': this job number is already used at row 0 (1 such row(s))"
    # -1 (unknown) may repeat, as in SWF
    jobs = DfrsJobs(
        submit=[0, 1], processing_time=[1, 1], tasks=[1, 1], cpu_need=[1, 1], mem_need=[1, 1], job_id=[-1, -1]
    )
    assert jobs.job_id.tolist() == [-1, -1]


@pytest.mark.parametrize("value", ["٦٠٠", "６００", "6_00", "inf", "nan", "600s", "--1", "0x10", " 600", "1e", "."])
def test_algorithm_seconds_are_ascii_numbers(value):
    with pytest.raises(ValueError) as info:
        parse_algorithm(f"GreedyPM */per/opt=min/minvt={value}")
    assert str(info.value) == (
        f"algorithm 'GreedyPM */per/opt=min/minvt={value}': minvt={value!r} is not a number "
        "of seconds (ASCII digits, e.g. 600 or 1.5e3)"
    )


@pytest.mark.parametrize(
    ("text", "seconds"), [("600", 600.0), ("600.", 600.0), (".5", 0.5), ("1.5e3", 1500.0), ("3E2", 300.0)]
)
def test_algorithm_seconds_in_ascii(text, seconds):
    assert parse_algorithm(f"MCB8 */minft={text}").minft == seconds


def test_reproduce_traces_folder_without_the_hpc2n_trace_is_an_error(tmp_path):
    from clustersched.reproduce import dfrs as reproduce

    for scale in ("small", "medium"):
        with pytest.raises(InvalidOptionError) as info:
            reproduce.scenarios(scale, traces=tmp_path)
        e = info.value
        assert (e.option, e.value) == ("--traces", str(tmp_path))
        assert f"holds no {reproduce.HPC2N_FILE} (missing {tmp_path / reproduce.HPC2N_FILE})" in str(e)
    assert reproduce.scenarios("small")[0]["path"] == "bundled"  # no --traces: the bundled week, as before


# -- one rounding rule ----------------------------------------------------------------------------


def test_one_rounding_rule():
    """The simulator's completion and the validator's work are the same float64 arithmetic."""
    t, pen_end, remaining, y = 803.709, 803.709 + 365.328, 601.0, 1 / 3
    end = completion_time(t, pen_end, remaining, y)
    assert abs(progress(y, t, end, pen_end) - remaining) <= work_tolerance(remaining, end)
    assert work_tolerance(remaining, end) == WORK_RTOL * remaining + TIME_ULPS * np.spacing(end)
    assert CPU_TOLERANCE == 1e-9
    from clustersched.dfrs import validate

    assert validate.CPU_TOLERANCE is CPU_TOLERANCE and validate.WORK_RTOL is WORK_RTOL
