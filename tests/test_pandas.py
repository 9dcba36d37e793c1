"""Tables as DataFrames: every to_pandas() of the library, its columns, dtypes and units, and the
clear ImportError when pandas is missing."""

from __future__ import annotations

import sys

import numpy as np
import pytest

pd = pytest.importorskip("pandas")

import clustersched as cs  # noqa: E402
from clustersched import campaign, dfrs, grid, ptg, scrap  # noqa: E402
from clustersched._pandas import UNITS, frame, require_pandas, summary_frame, with_units  # noqa: E402
from clustersched.workload import JobTable, read_swf  # noqa: E402
from clustersched.workload.jobs import FIELD_NAMES  # noqa: E402


@pytest.fixture(scope="module")
def easy():
    return cs.simulate(read_swf(cs.sample_trace()), "easy")


@pytest.fixture(scope="module")
def ptg_run():
    from clustersched.workload.ptg_generators import ptg_population

    return ptg.run(ptg_population("random", 3, seed=1), cs.cluster("chti"), "CRA_WORK_WEIGHT", seed=1)


@pytest.fixture(scope="module")
def scrap_run():
    from clustersched.platform import random_multicluster
    from clustersched.workload.ptg_generators import random_ptg

    platform = random_multicluster(3, 0.5, 2.0, seed=1)
    graph = random_ptg(20, fat=0.5, regularity=0.8, density=0.5, jump=2, seed=1)
    return scrap.run(graph, platform, "SCRAP-MAX", beta=0.3)


@pytest.fixture(scope="module")
def dfrs_run():
    jobs = dfrs.DfrsJobs(
        submit=[0, 0, 5],
        processing_time=[100, 100, 20],
        tasks=[1, 2, 1],
        cpu_need=[1.0, 0.5, 0.25],
        mem_need=[0.5, 0.25, 0.5],
    )
    return dfrs.simulate(jobs, dfrs.DfrsPlatform(2), "GreedyPM */per/opt=min/minvt=600")


@pytest.fixture(scope="module")
def grid_run():
    inst = grid.feasible_instance("small", "medium", seed=1)
    return grid.run(inst.tig, inst.grid, "QLSE"), inst


def _dtypes(df):
    return {name: str(dtype) for name, dtype in df.dtypes.items()}


def _is_text(dtype: str) -> bool:
    return dtype in ("object", "str", "string")


# -- the convention -------------------------------------------------------------


def test_every_time_column_ends_in_s_and_counts_have_no_suffix():
    assert with_units("submit") == "submit_s" and with_units("makespan") == "makespan_s"
    assert with_units("seconds") == "wall_s" and with_units("mem_used") == "mem_used_kb"
    assert with_units("energy") == "energy_flop" and with_units("underutilization") == "underutilization_node_s"
    for name in ("procs", "jobs", "job_id", "utilization", "max_stretch", "preemption_bandwidth_gbs"):
        assert with_units(name) == name
    assert all(v.endswith(("_s", "_kb", "_flop")) for v in UNITS.values())


def test_frame_keeps_dtypes_and_refuses_duplicate_names():
    df = frame({"job_id": np.array([1, 2], dtype=np.int64), "start": np.array([0.0, 1.5])})
    assert _dtypes(df) == {"job_id": "int64", "start_s": "float64"}
    with pytest.raises(ValueError, match="duplicate names"):
        frame({"start": np.zeros(1), "start_s": np.zeros(1)})
    df = summary_frame([{"algorithm": "a", "jobs": 1}, {"algorithm": "b", "avg_wait": 2.0}])
    assert df.columns.tolist() == ["algorithm", "jobs", "avg_wait_s"]
    assert df["avg_wait_s"].isna().tolist() == [True, False]


# -- batch -----------------------------------------------------------------------


def test_job_table(easy):
    table = read_swf(cs.sample_trace())
    df = table.to_pandas()
    assert df.columns.tolist() == [
        "job_id",
        "submit_s",
        "wait_s",
        "runtime_s",
        "procs",
        "cpu_time_s",
        "mem_used_kb",
        "procs_requested",
        "time_requested_s",
        "mem_requested_kb",
        "status",
        "user_id",
        "group_id",
        "executable",
        "queue",
        "partition",
        "preceding_job",
        "think_time_s",
    ]
    assert len(df) == len(table) == 2406
    for name, (col, dtype) in zip(df.columns, ((n, getattr(table, n).dtype) for n in FIELD_NAMES)):
        assert str(df[name].dtype) == str(dtype), name
        np.testing.assert_array_equal(df[name].to_numpy(), getattr(table, col))
    assert JobTable.from_pandas(df, metadata=table.metadata).equals(table)
    plain = JobTable.from_pandas(pd.DataFrame({"submit": [0.0, 2.0], "runtime_s": [5.0, 1.0], "procs": [1, 2]}))
    assert plain.job_id.tolist() == [1, 2] and plain.runtime.tolist() == [5.0, 1.0] and (plain.status == -1).all()
    with pytest.raises(ValueError, match=r"\['user'\] are not SWF fields"):
        JobTable.from_pandas(pd.DataFrame({"submit": [0.0], "user": [3]}))
    with pytest.raises(ValueError, match="name one field twice"):
        JobTable.from_pandas(pd.DataFrame({"submit": [0.0], "submit_s": [0.0]}))


def test_batch_schedule(easy):
    s = easy.schedule
    df = s.to_pandas()
    assert _dtypes(df) == {
        "job_id": "int64",
        "submit_s": "float64",
        "start_s": "float64",
        "end_s": "float64",
        "wait_s": "float64",
        "runtime_s": "float64",
        "procs": "int64",
    }
    np.testing.assert_array_equal(df["wait_s"], s.start - s.submit)
    np.testing.assert_array_equal(df["runtime_s"], easy.jobs.runtime)
    full = s.to_pandas(easy.jobs, allocated=True)
    assert full.columns.tolist()[-3:] == ["procs_requested", "time_requested_s", "allocated"]
    assert str(full["procs_requested"].dtype) == "int64" and _is_text(str(full["allocated"].dtype))
    assert full.loc[0, "allocated"] == "0-1"  # the first job of the week takes processors 0 and 1
    with pytest.raises(ValueError, match="give the table the schedule ran"):
        s.to_pandas(easy.jobs.select(slice(0, 10)))


def test_batch_metrics_and_run(easy):
    metrics = cs.batch_metrics(easy.schedule)
    df = metrics.to_pandas()
    assert len(df) == 1 and df.columns.tolist() == [with_units(k) for k in metrics.summary()]
    assert df.loc[0, "avg_wait_s"] == metrics.summary()["avg_wait"] and str(df["jobs"].dtype) == "int64"
    run = easy.to_pandas()
    assert run.columns.tolist()[0] == "algorithm" and run.columns.tolist()[-1] == "wall_s"
    assert run.loc[0, "algorithm"] == "easy" and run.loc[0, "wall_s"] == easy.seconds
    both = pd.concat(
        [easy.to_pandas(), cs.simulate(read_swf(cs.sample_trace()), "fcfs").to_pandas()], ignore_index=True
    )
    assert both["algorithm"].tolist() == ["easy", "fcfs"]


# -- the other problems --------------------------------------------------------


def test_ptg(ptg_run):
    df = ptg_run.schedule.to_pandas()
    assert _dtypes(df) == {"ptg": "int64", "task": "int64", "start_s": "float64", "end_s": "float64", "procs": "int64"}
    assert len(df) == len(ptg_run.schedule)
    m = ptg_run.metrics.to_pandas()
    assert m.columns.tolist() == [
        "ptgs",
        "average_stretch",
        "max_stretch",
        "makespan_s",
        "utilization",
        "peak_utilization",
    ]
    run = ptg_run.to_pandas()
    assert run.loc[0, "algorithm"] == "CRA_WORK_WEIGHT" and "wall_s" in run and "makespan_s" in run


def test_scrap(scrap_run):
    df = scrap_run.schedule.to_pandas()
    assert _dtypes(df) == {
        "task": "int64",
        "cluster": "int64",
        "start_s": "float64",
        "end_s": "float64",
        "procs": "int64",
    }
    np.testing.assert_array_equal(df["procs"], scrap_run.schedule.procs)
    assert scrap_run.metrics.to_pandas().columns.tolist() == [
        "makespan_s",
        "energy_flop",
        "power_fraction",
        "peak_power_fraction",
    ]
    run = scrap_run.to_pandas()
    assert run.columns.tolist()[:4] == ["algorithm", "beta", "beta_estimate", "initial_violation"]
    assert run.loc[0, "makespan_s"] == scrap_run.metrics.makespan


def test_dfrs(dfrs_run):
    jobs = dfrs_run.schedule.to_pandas()
    assert _dtypes(jobs) == {
        "job_id": "int64",
        "submit_s": "float64",
        "first_start_s": "float64",
        "completion_s": "float64",
        "flow_s": "float64",
    }
    segments = dfrs_run.schedule.to_pandas(segments=True)
    assert segments.columns.tolist() == ["job_id", "start_s", "end_s", "node", "tasks", "share"]
    assert str(segments["share"].dtype) == "float64" and str(segments["node"].dtype) == "int64"
    metrics = dfrs.dfrs_metrics(dfrs_run.schedule, dfrs_run.jobs, dfrs_run.platform).to_pandas()
    assert {"span_s", "underutilization_node_s", "preemption_bandwidth_gbs", "max_stretch"} <= set(metrics.columns)
    run = dfrs_run.to_pandas(bound=1.5)
    assert run.loc[0, "bound"] == 1.5 and run.columns.tolist()[-1] == "wall_s" and "mcb8_calls" in run


def test_grid(grid_run):
    run, inst = grid_run
    df = run.mapping.to_pandas()
    assert _dtypes(df) == {"task": "int64", "host": "int64", "lan": "int64"}
    assert df["task"].tolist() == list(range(len(run.mapping.host)))
    np.testing.assert_array_equal(df["host"], run.mapping.host)
    np.testing.assert_array_equal(df["lan"], inst.grid.host_lan[run.mapping.host])
    assert run.metrics.to_pandas().columns.tolist() == [
        "lan_hit_ratio",
        "task_machine_ratio",
        "shared_task_machine_ratio",
        "lans_used",
        "hosts_used",
    ]
    row = run.to_pandas()
    assert row.loc[0, "found"] and row.columns.tolist()[-1] == "wall_s"
    failed = grid.GridRun("QLSE", grid.NoFeasibleMapping("QLSE"), None, 0.5).to_pandas()
    assert not failed.loc[0, "found"] and failed["lan_hit_ratio"].isna().all()


def test_campaign_rows():
    with campaign.Store(":memory:") as store:
        store.put("c", {"policy": "easy", "seed": 1}, result={"avg_wait": 1.5, "jobs": 3}, seconds=0.5)
        store.put("c", {"policy": "fcfs", "seed": 1}, error="ValueError: boom", traceback="tb")
        df = campaign.to_pandas(store.results("c"))
    assert df.columns.tolist() == [
        "policy",
        "seed",
        "avg_wait",
        "jobs",
        "status",
        "error",
        "traceback",
        "wall_s",
        "finished_at",
    ]
    assert df["status"].tolist() == ["ok", "error"] and df["wall_s"].tolist() == [0.5, 0.0]
    assert str(df["finished_at"].dt.tz) == "UTC" and df["avg_wait"].isna().tolist() == [False, True]
    assert campaign.to_pandas([]).empty


# -- without pandas -------------------------------------------------------------


@pytest.fixture
def no_pandas(monkeypatch):
    """An interpreter where ``import pandas`` fails (as when the extra is not installed)."""
    monkeypatch.setitem(sys.modules, "pandas", None)


def test_to_pandas_without_pandas_names_the_extra(no_pandas, easy, ptg_run, scrap_run, dfrs_run, grid_run):
    calls = [
        easy.to_pandas,
        easy.schedule.to_pandas,
        cs.batch_metrics(easy.schedule).to_pandas,
        easy.jobs.to_pandas,
        ptg_run.to_pandas,
        ptg_run.schedule.to_pandas,
        ptg_run.metrics.to_pandas,
        scrap_run.to_pandas,
        scrap_run.schedule.to_pandas,
        scrap_run.metrics.to_pandas,
        dfrs_run.to_pandas,
        dfrs_run.schedule.to_pandas,
        grid_run[0].to_pandas,
        grid_run[0].mapping.to_pandas,
        grid_run[0].metrics.to_pandas,
        lambda: campaign.to_pandas([{"a": 1}]),
        require_pandas,
    ]
    for call in calls:
        with pytest.raises(ImportError, match=r'DataFrames need pandas.*pip install "clustersched\[pandas\]"'):
            call()


def test_the_library_imports_and_runs_without_pandas(no_pandas, tmp_path):
    table = read_swf(cs.sample_trace())
    run = cs.simulate(table.select(slice(0, 100)), "easy")
    cs.batch.write_schedule(run.schedule, run.jobs, tmp_path / "s.csv")
    assert run.summary()["jobs"] == 100
