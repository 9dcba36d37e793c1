"""Time series of batch and DFRS schedules (exact step functions), their plots, and simulate's
--gantt-window / --timeseries options; values computed by hand, invariants with hypothesis."""

from __future__ import annotations

import csv

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import clustersched as cs
from clustersched import plot
from clustersched.batch import BatchTimeSeries, Schedule, batch_timeseries, validate_batch
from clustersched.dfrs import DfrsJobs, DfrsPlatform, DfrsTimeSeries, dfrs_timeseries, validate_dfrs
from clustersched.dfrs import simulate as dfrs_simulate
from clustersched.workload import JobTable

from support import run_cli


def three_jobs() -> Schedule:
    # 2 processors: job 1 (2 procs) runs 0-4; job 2 (2 procs, submitted 0) waits, runs 4-24;
    # job 3 (1 proc, submitted 1) waits, runs 24-25
    return Schedule(
        job_id=np.array([1, 2, 3]),
        submit=np.array([0.0, 0.0, 1.0]),
        start=np.array([0.0, 4.0, 24.0]),
        end=np.array([4.0, 24.0, 25.0]),
        procs=np.array([2, 2, 1]),
        total_procs=2,
    )


def test_batch_series_hand_computed():
    ts = batch_timeseries(three_jobs())
    assert isinstance(ts, BatchTimeSeries) and ts.total_procs == 2 and ts.origin == 0.0
    assert ts.time.tolist() == [0.0, 1.0, 4.0, 24.0, 25.0]
    assert ts.busy_procs.tolist() == [2, 2, 2, 1, 0]
    assert ts.utilization.tolist() == [1.0, 1.0, 1.0, 0.5, 0.0]
    assert ts.running.tolist() == [1, 1, 1, 1, 0]
    # queued: job 2 from 0 to 4, job 3 from 1 to 24
    assert ts.queued.tolist() == [1, 2, 1, 0, 0]
    # queued work: job 2 is 2 x 20 = 40 processor-seconds, job 3 is 1 x 1
    assert ts.queued_work.tolist() == [40.0, 41.0, 1.0, 0.0, 0.0]
    assert ts.running.dtype == np.int64 and ts.queued.dtype == np.int64
    # the integral of the busy processors is the work, 2*4 + 2*20 + 1*1
    assert ts.integral("busy_procs") == 49.0 and ts.integral("utilization") == 24.5
    assert ts.integral("queued") == 1 * 1 + 2 * 3 + 1 * 20


def test_batch_series_counts_a_job_from_its_events_on():
    # job 1 is submitted and started at 5 (never queued); job 2 has zero runtime (never running);
    # job 3 is submitted at 2 and starts at 5 together with job 1
    s = Schedule(
        job_id=np.array([1, 2, 3]),
        submit=np.array([5.0, 3.0, 2.0]),
        start=np.array([5.0, 3.0, 5.0]),
        end=np.array([9.0, 3.0, 7.0]),
        procs=np.array([1, 3, 2]),
        total_procs=3,
    )
    ts = batch_timeseries(s)
    assert ts.time.tolist() == [2.0, 3.0, 5.0, 7.0, 9.0] and ts.origin == 2.0
    assert ts.queued.tolist() == [1, 1, 0, 0, 0]
    assert ts.running.tolist() == [0, 0, 2, 1, 0]
    assert ts.busy_procs.tolist() == [0, 0, 3, 1, 0]
    assert ts.queued_work.tolist() == [4.0, 4.0, 0.0, 0.0, 0.0]


def test_resample_gives_exact_time_averages():
    r = batch_timeseries(three_jobs()).resample(10.0)
    assert isinstance(r, BatchTimeSeries)
    assert r.time.tolist() == [0.0, 10.0, 20.0, 30.0]
    # queued over [0, 10): 1 x 1 + 2 x 3 + 1 x 6 = 13; [10, 20): 10; [20, 30): 4 (until 24); then 0
    assert r.queued.tolist() == pytest.approx([1.3, 1.0, 0.4, 0.0])
    # busy processors over [20, 30): 2 x 4 + 1 x 1 = 9
    assert r.busy_procs.tolist() == pytest.approx([2.0, 2.0, 0.9, 0.0])
    with pytest.raises(ValueError, match="step == 0, must be > 0"):
        batch_timeseries(three_jobs()).resample(0)


def test_columns_dataframe_and_csv_name_units(tmp_path):
    ts = batch_timeseries(three_jobs())
    names = ["time_s", "busy_procs", "utilization", "running", "queued", "queued_work_proc_s"]
    df = ts.to_pandas()
    assert df.columns.tolist() == names and len(df) == 5
    assert str(df["running"].dtype) == "int64" and df["queued_work_proc_s"].tolist()[1] == 41.0
    ts.to_csv(tmp_path / "ts.csv")
    with open(tmp_path / "ts.csv") as fh:
        rows = list(csv.reader(fh))
    assert rows[0] == names and rows[2] == ["1", "2", "1", "1", "2", "41"]


def test_empty_schedule_has_no_series():
    s = Schedule(
        job_id=np.zeros(0, int),
        submit=np.zeros(0),
        start=np.zeros(0),
        end=np.zeros(0),
        procs=np.zeros(0, int),
        total_procs=1,
    )
    with pytest.raises(ValueError, match="schedule is empty"):
        batch_timeseries(s)


@st.composite
def workloads(draw):
    procs = draw(st.integers(1, 8))
    n = draw(st.integers(1, 25))
    submit = sorted(draw(st.lists(st.integers(0, 30), min_size=n, max_size=n)))
    runtime = draw(st.lists(st.integers(0, 20), min_size=n, max_size=n))
    width = draw(st.lists(st.integers(1, procs), min_size=n, max_size=n))
    return JobTable({"submit": submit, "runtime": runtime, "procs": width}, metadata={"MaxProcs": str(procs)})


@settings(max_examples=60, deadline=None, derandomize=True)
@given(jobs=workloads(), policy=st.sampled_from(["fcfs", "easy", "conservative"]))
def test_batch_series_invariants(jobs, policy):
    run = cs.simulate(jobs, policy)
    validate_batch(run.schedule, run.jobs)
    s = run.schedule
    ts = batch_timeseries(s)
    runtime = s.end - s.start
    # the integral of utilization is the busy processor-seconds over the processors
    assert ts.integral("utilization") == pytest.approx(float(np.dot(runtime, s.procs)) / s.total_procs)
    # and the integral of queued jobs is the total wait
    assert ts.integral("queued") == pytest.approx(float(np.sum(s.start - s.submit)))
    assert (ts.queued >= 0).all() and (ts.running >= 0).all() and (ts.queued_work >= 0).all()
    assert (ts.busy_procs <= s.total_procs).all() and (ts.utilization <= 1).all()
    assert ts.busy_procs[-1] == ts.running[-1] == ts.queued[-1] == 0
    assert (np.diff(ts.time) > 0).all()
    # resampling keeps the integrals
    r = ts.resample(3.0)
    assert float(np.sum(r.busy_procs[:-1] * 3.0)) == pytest.approx(ts.integral("busy_procs"))


def test_dfrs_series_hand_computed():
    # job 0 (mem 0.6) runs 0-100, is paused for job 1 (mem 0.6) over 100-200, resumes 200-1400 (300 s penalty)
    jobs = DfrsJobs(
        submit=[0, 100], processing_time=[1000, 100], tasks=[1, 1], cpu_need=[1.0, 1.0], mem_need=[0.6, 0.6]
    )
    platform = DfrsPlatform(1)
    r = dfrs_simulate(jobs, platform, "GreedyP */opt=min")
    validate_dfrs(r.schedule, jobs, platform)
    ts = dfrs_timeseries(r.schedule, jobs)
    assert isinstance(ts, DfrsTimeSeries) and ts.nodes == 1 and ts.origin == 0.0
    assert ts.time.tolist() == [0.0, 100.0, 200.0, 1400.0]
    assert ts.cpu.tolist() == [1.0, 1.0, 1.0, 0.0] and ts.cpu_utilization.tolist() == [1.0, 1.0, 1.0, 0.0]
    assert ts.memory.tolist() == pytest.approx([0.6, 0.6, 0.6, 0.0])
    assert ts.running.tolist() == [1, 1, 1, 0]
    assert ts.waiting.tolist() == [0, 1, 0, 0]  # job 0 paused over 100-200
    assert ts.cpu_demand.tolist() == [1.0, 2.0, 1.0, 0.0]
    assert ts.to_pandas().columns.tolist() == [
        "time_s",
        "cpu",
        "memory",
        "cpu_demand",
        "cpu_utilization",
        "memory_utilization",
        "running",
        "waiting",
    ]


def test_dfrs_series_of_a_shared_node():
    # four quarter-CPU tasks of two jobs on 2 nodes, all at once: CPU 1 node's worth, memory 4 x 0.2
    jobs = DfrsJobs(submit=[0, 0], processing_time=[100, 50], tasks=[2, 2], cpu_need=[0.25, 0.25], mem_need=[0.2, 0.2])
    platform = DfrsPlatform(2)
    r = dfrs_simulate(jobs, platform, "Greedy */opt=min")
    validate_dfrs(r.schedule, jobs, platform)
    ts = dfrs_timeseries(r.schedule, jobs)
    assert ts.time.tolist() == [0.0, 50.0, 100.0]
    assert ts.cpu.tolist() == [1.0, 0.5, 0.0] and ts.memory.tolist() == pytest.approx([0.8, 0.4, 0.0])
    assert ts.memory_utilization.tolist() == pytest.approx([0.4, 0.2, 0.0])
    # CPU in use integrates to the work, 2 x 0.25 x 100 + 2 x 0.25 x 50
    assert ts.integral("cpu") == pytest.approx(75.0)


def test_dfrs_series_invariants_on_a_workload():
    rng = np.random.default_rng(3)
    n = 40
    jobs = DfrsJobs(
        submit=np.sort(rng.integers(0, 2000, n)),
        processing_time=rng.integers(10, 900, n),
        tasks=rng.integers(1, 4, n),
        cpu_need=rng.choice([0.25, 0.5, 1.0], n),
        mem_need=rng.uniform(0.05, 0.5, n),
    )
    platform = DfrsPlatform(4)
    r = dfrs_simulate(jobs, platform, "GreedyPM */per/opt=min/minvt=600")
    validate_dfrs(r.schedule, jobs, platform)
    ts = dfrs_timeseries(r.schedule, jobs)
    assert (ts.cpu <= platform.nodes + 1e-9).all() and (ts.memory <= platform.nodes + 1e-9).all()
    assert (ts.running >= 0).all() and (ts.waiting >= 0).all() and (ts.running + ts.waiting <= n).all()
    assert ts.cpu[-1] == ts.memory[-1] == ts.cpu_demand[-1] == 0 and ts.running[-1] == 0
    # the integral of CPU demand capped at the platform is the work plus the underutilization
    from clustersched.dfrs.metrics import underutilization

    capped = np.minimum(ts.cpu_demand, platform.nodes)
    area = float(np.dot(capped[:-1], np.diff(ts.time)))
    assert area - float(jobs.work().sum()) == pytest.approx(underutilization(r.schedule, jobs, platform), abs=1e-6)


# --- plots ------------------------------------------------------------------------------------------------------


def week():
    run = cs.simulate(cs.read_swf(cs.sample_trace()), "easy")
    validate_batch(run.schedule, run.jobs)
    return run.schedule


def test_timeseries_plot_panels_and_axes():
    from matplotlib.figure import Figure

    ts = batch_timeseries(week())
    fig = plot.timeseries(ts)
    assert [a.get_ylabel() for a in fig.axes] == ["utilization", "jobs", "queued work (processor-hours)"]
    # a week's events outnumber the figure's bins: resampled (plot.timeseries's resample="auto"); exact on request
    assert fig.axes[-1].get_xlabel() == "time since the trace start (d); mean per 1-h bin, band: min to max"
    assert plot.timeseries(ts, resample=None).axes[-1].get_xlabel() == "time since the trace start (d)"
    # a window of a day is in hours; panels chosen; drawn on the Axes given
    o = ts.origin
    fig = plot.timeseries(ts, panels=["jobs"], window=(o + 86400, o + 2 * 86400))
    assert len(fig.axes) == 1 and fig.axes[0].get_xlabel().startswith("time since the trace start (h)")
    assert fig.axes[0].get_xlim() == pytest.approx((24.0, 48.0))
    own = Figure()
    axes = own.subplots(2, 1)
    assert plot.timeseries(ts, panels=["utilization", "jobs"], ax=axes) is own
    with pytest.raises(ValueError, match="unknown 'load'"):
        plot.timeseries(ts, panels=["load"])
    with pytest.raises(ValueError, match="give one per panel"):
        plot.timeseries(ts, ax=axes)


def test_timeseries_plot_of_a_dfrs_series(tmp_path):
    jobs = DfrsJobs(
        submit=[0, 100], processing_time=[1000, 100], tasks=[1, 1], cpu_need=[1.0, 1.0], mem_need=[0.6, 0.6]
    )
    r = dfrs_simulate(jobs, DfrsPlatform(1), "GreedyP */opt=min")
    validate_dfrs(r.schedule, jobs, DfrsPlatform(1))
    fig = plot.timeseries(dfrs_timeseries(r.schedule, jobs), tmp_path / "d.png")
    assert [a.get_ylabel() for a in fig.axes] == ["fraction of the platform", "jobs"]
    assert fig.axes[-1].get_xlabel() == "time since the trace start (min)"
    assert (tmp_path / "d.png").stat().st_size > 10_000


def test_gantt_time_axis_and_window():
    s = week()
    o = float(s.submit.min())
    fig = plot.gantt(s)
    assert fig.axes[0].get_xlabel() == "time since the trace start (d)"
    assert fig.axes[0].get_xlim()[0] == pytest.approx((s.start.min() - o) / 86400)
    # thousands of boxes: no outlines
    assert fig.axes[0].collections[0].get_linewidths()[0] == 0
    fig = plot.gantt(s, window=(o + 30 * 3600, o + 31 * 3600))
    assert fig.axes[0].get_xlabel() == "time since the trace start (min)"
    assert fig.axes[0].get_xlim() == pytest.approx((1800.0, 1860.0))
    assert fig.axes[0].collections[0].get_linewidths()[0] > 0  # few boxes: outlined
    with pytest.raises(ValueError, match="must overlap the schedule"):
        plot.gantt(s, window=(o - 7200, o - 3600))
    with pytest.raises(ValueError, match="must be finite with start < end"):
        plot.gantt(s, window=(o + 10, o + 5))


# --- simulate --gantt-window, --timeseries, --timeseries-plot --------------------------------------------------


@pytest.mark.parametrize(
    ("window", "message"),
    [
        ("50:40", "argument --gantt-window: invalid value '50:40': must be START:END in hours"),
        ("abc", "argument --gantt-window: invalid value 'abc'"),
        ("1:2:3", "argument --gantt-window: invalid value '1:2:3'"),
        ("-1:3", "argument --gantt-window: invalid value '-1:3'"),
        ("nan:3", "argument --gantt-window: invalid value 'nan:3'"),
        ("300:", "--gantt-window '300:': is outside the schedule, which runs from 0 to 211.3 hours"),
    ],
)
def test_gantt_window_errors_are_one_line_and_write_nothing(tmp_path, capsys, monkeypatch, window, message):
    monkeypatch.chdir(tmp_path)
    status, out, err = run_cli(
        ["simulate", str(cs.sample_trace()), "--out", "jobs.csv", "--gantt", "g.png", f"--gantt-window={window}"],
        capsys,
    )
    assert status == 2
    assert err.count("\n") == 1 and err.startswith("clustersched: error: ") and message in err
    assert list(tmp_path.iterdir()) == []


def test_gantt_window_needs_gantt(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    status, _, err = run_cli(["simulate", str(cs.sample_trace()), "--gantt-window", "1:2"], capsys)
    assert status == 2 and err.count("\n") == 1 and "--gantt-window '1:2': " in err and "give --gantt" in err


def test_simulate_draws_a_window_and_writes_the_time_series(tmp_path, capsys):
    png, csv_path, ts_png = tmp_path / "g.png", tmp_path / "ts.csv", tmp_path / "ts.png"
    status, out, err = run_cli(
        [
            "simulate",
            str(cs.sample_trace()),
            "--gantt",
            str(png),
            "--gantt-window",
            "24:48",
            "--timeseries",
            str(csv_path),
            "--timeseries-plot",
            str(ts_png),
        ],
        capsys,
    )
    assert status == 0, err
    assert png.read_bytes()[:4] == b"\x89PNG" and ts_png.read_bytes()[:4] == b"\x89PNG"
    with open(csv_path) as fh:
        rows = list(csv.DictReader(fh))
    series = batch_timeseries(week())
    assert len(rows) == len(series) and f"wrote {csv_path} ({len(series)} event times)" in out
    assert list(rows[0]) == ["time_s", "busy_procs", "utilization", "running", "queued", "queued_work_proc_s"]
    assert [int(r["queued"]) for r in rows] == series.queued.tolist()
    # open-ended windows
    assert run_cli(["simulate", str(cs.sample_trace()), "--gantt", str(png), "--gantt-window", ":6"], capsys)[0] == 0
    assert run_cli(["simulate", str(cs.sample_trace()), "--gantt", str(png), "--gantt-window", "200:"], capsys)[0] == 0


def test_timeseries_outputs_are_checked_first(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    status, _, err = run_cli(
        ["simulate", str(cs.sample_trace()), "--out", "jobs.csv", "--timeseries-plot", "ts.txt"], capsys
    )
    assert status == 2 and "--timeseries-plot 'ts.txt': end the name with the image format" in err
    status, _, err = run_cli(["simulate", str(cs.sample_trace()), "--timeseries", "nodir/ts.csv"], capsys)
    assert status == 2 and "--timeseries 'nodir/ts.csv': folder 'nodir' does not exist" in err
    assert list(tmp_path.iterdir()) == []
