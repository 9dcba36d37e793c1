"""Load sweeps (clustersched.batch.sweep, ``clustersched sweep``): the load rule, the replications, the
confidence intervals, resuming, the figures and the command's contract.  Small workloads only: every test
takes well under a second, except the one that starts two worker processes."""

from __future__ import annotations

import importlib
import math
import os
import re

import numpy as np
import pytest

import clustersched as cs
from clustersched.batch.sweep import Lublin, aggregate, load_range, parse_loads, plot_sweep, relative, sweep
from clustersched.workload.transform import offered_load, scale_to_load

from support import run_cli

#: The module (``clustersched.batch.sweep`` is the function, as ``clustersched.sweep``).
sweep_module = importlib.import_module("clustersched.batch.sweep")
SMALL = Lublin(300, 32)


@pytest.fixture(scope="module")
def week_slice():
    """The first 800 jobs of the bundled HPC2N week (240 processors)."""
    return cs.read_swf(cs.sample_trace()).select(slice(0, 800))


# -- loads ----------------------------------------------------------------------------------------------------------
def test_a_range_is_rounded_to_the_decimals_written():
    loads = parse_loads("0.5:1.2:0.05")
    assert len(loads) == 15 and loads[0] == 0.5 and loads[-1] == 1.2
    assert loads == tuple(round(0.5 + 0.05 * k, 2) for k in range(15))
    assert 0.7 in loads and 1.15 in loads  # as typed, not 0.7000000000000001
    assert load_range(0.1, 0.3, 0.1) == (0.1, 0.2, 0.3)  # 0.1 + 2 * 0.1 is 0.30000000000000004
    assert load_range(0.5, 0.64, 0.05) == (0.5, 0.55, 0.6)  # stop not reached: not included
    assert parse_loads("1:1:0.1") == (1.0,)
    assert parse_loads("0.9, 0.5,0.7,0.5") == (0.5, 0.7, 0.9)


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("0.5:1:0", "step == 0.0, must be > 0"),
        ("0.5:1:-0.1", "step == -0.1, must be > 0"),
        ("0:1:0.1", "start == 0.0, must be > 0"),
        ("1:0.5:0.1", "stop == 0.5, must be >= start"),
        ("0.5:1", "must be A:B:STEP"),
        ("a,b", "must be A:B:STEP"),
        ("0.5,-1", "-1.0 is not a load"),
        ("0.5,nan", "nan is not a load"),
        ("", "must be A:B:STEP"),
        ("0.001:100:0.001", "must have at most 1000"),
    ],
)
def test_bad_loads_say_why(text, says):
    with pytest.raises(ValueError, match="^loads == ") as info:
        parse_loads(text)
    assert says in str(info.value)


# -- the confidence interval, by hand ---------------------------------------------------------------------------------
def test_the_interval_is_a_percentile_bootstrap_of_the_mean():
    rows = [
        {"policy": "easy", "load": 0.5, "replication": r, "wait": w, "status": "ok"}
        for r, w in enumerate([1.0, 2.0, 3.0, 10.0])
    ]
    rows.append({"policy": "easy", "load": 0.5, "replication": 4, "wait": None, "status": "error"})  # left out
    rows.append({"policy": "fcfs", "load": 0.5, "replication": 0, "wait": 7.0, "status": "ok"})
    easy, fcfs = aggregate(rows, ["wait"])
    # mean 4; deviations -3, -2, -1, 6: s^2 = (9 + 4 + 1 + 36) / 3 = 50/3
    assert easy["replications"] == 4 and easy["wait_mean"] == 4.0
    assert easy["wait_std"] == pytest.approx(math.sqrt(50 / 3), rel=1e-12)
    # by hand: the 2.5% and 97.5% quantiles of 10,000 means of 4 values drawn with replacement, seeded
    x = np.array([1.0, 2.0, 3.0, 10.0])
    means = x[np.random.default_rng(0).integers(0, 4, size=(10_000, 4))].mean(axis=1)
    assert (easy["wait_ci_low"], easy["wait_ci_high"]) == tuple(np.quantile(means, [0.025, 0.975]))
    assert 1.0 <= easy["wait_ci_low"] < 4.0 < easy["wait_ci_high"] <= 10.0
    # one replication: a mean, no interval
    assert fcfs == {
        "policy": "fcfs",
        "load": 0.5,
        "replications": 1,
        "wait_mean": 7.0,
        "wait_std": None,
        "wait_ci_low": None,
        "wait_ci_high": None,
    }
    # another level, and the default columns: every numeric one but the scenario's
    (r90,) = aggregate(rows[:2], confidence=0.9)
    assert set(r90) == {"policy", "load", "replications", "wait_mean", "wait_std", "wait_ci_low", "wait_ci_high"}
    assert (r90["wait_ci_low"], r90["wait_ci_high"]) == (1.0, 2.0)  # two values: their range


@pytest.mark.parametrize(
    ("metric", "values", "floor", "ceiling"),
    [
        # the skewed samples of three that gave a Student-t interval below the metric's range (tracker issue 30)
        ("avg_wait", [0.0, 0.0, 9000.0], 0.0, math.inf),
        ("avg_bounded_slowdown", [1.0, 1.2, 150.0], 1.0, math.inf),
        ("utilization", [0.98, 0.99, 1.0], 0.0, 1.0),
        ("avg_wait", [12.5, 12.5], 0.0, math.inf),  # equal values: the interval is that value
    ],
)
def test_an_interval_never_leaves_the_metrics_range(metric, values, floor, ceiling):
    rows = [{"policy": "easy", "load": 1.0, "replication": r, metric: v} for r, v in enumerate(values)]
    (a,) = aggregate(rows, [metric])
    low, high = a[f"{metric}_ci_low"], a[f"{metric}_ci_high"]
    assert floor <= min(values) <= low <= a[f"{metric}_mean"] <= high <= max(values) <= ceiling
    # what the Student-t interval said: outside the range, for the skewed ones
    half = float(stats_t(len(values))) * float(np.std(values, ddof=1)) / math.sqrt(len(values))
    if len(set(values)) > 1:
        assert np.mean(values) - half < floor or np.mean(values) + half > ceiling


def stats_t(n: int) -> float:
    from scipy import stats

    return float(stats.t.ppf(0.975, n - 1))


def test_the_paired_ratio_is_a_geometric_mean_with_a_t_interval_on_logs():
    rows = [
        {"policy": p, "load": 0.8, "replication": r, "wait": w, "status": "ok"}
        for r, (base, other) in enumerate([(10.0, 5.0), (40.0, 10.0), (0.0, 3.0)])
        for p, w in (("easy", base), ("dpsa-n", other))
    ]
    easy, dpsa = relative(rows, "easy", "wait")
    assert easy == {
        "policy": "easy",
        "load": 0.8,
        "replications": 2,
        "wait_ratio_mean": 1.0,
        "wait_ratio_ci_low": 1.0,
        "wait_ratio_ci_high": 1.0,
    }
    # ratios 0.5 and 0.25 (the pair with a zero wait has none): logs -0.693 and -1.386
    logs = np.log([0.5, 0.25])
    half = 12.706204736174707 * logs.std(ddof=1) / math.sqrt(2)  # t(0.975, 1)
    assert dpsa["replications"] == 2
    assert dpsa["wait_ratio_mean"] == pytest.approx(math.sqrt(0.125), rel=1e-12)
    assert (dpsa["wait_ratio_ci_low"], dpsa["wait_ratio_ci_high"]) == pytest.approx(
        (math.exp(logs.mean() - half), math.exp(logs.mean() + half)), rel=1e-12
    )
    with pytest.raises(ValueError, match="baseline == 'fcfs', must be one of the policies run: easy, dpsa-n"):
        relative(rows, "fcfs", "wait")


# -- Lublin: replications by seed --------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def lublin_sweep():
    return sweep(SMALL, ["fcfs", "easy"], [0.6, 0.9], replications=2, seed=5, workers=1, progress=False, validate=True)


def test_lublin_sweep_rows_loads_and_seeds(lublin_sweep):
    s = lublin_sweep
    assert (s.policies, s.loads, s.replications, s.errors) == (("fcfs", "easy"), (0.6, 0.9), 2, 0)
    assert [(r["policy"], r["load"], r["replication"]) for r in s.rows] == [
        (p, load, r) for p in ("fcfs", "easy") for load in (0.6, 0.9) for r in (0, 1)
    ]
    for r in s.rows:
        assert r["achieved_load"] == pytest.approx(r["load"], rel=1e-9)  # the target, achieved
        assert r["jobs"] == 300 and r["replicate"] == "seeds" and r["workload"] == "lublin(jobs=300, procs=32)"
        # replication r is lublin_feitelson(..., seed=seed + r), unscaled
        assert r["native_load"] == offered_load(cs.lublin_feitelson(300, 32, seed=5 + r["replication"]), 32)
    first, second = (r for r in s.rows if r["policy"] == "easy" and r["load"] == 0.9)
    assert first["avg_wait"] != second["avg_wait"]  # two different workloads
    assert [(a["policy"], a["load"], a["replications"]) for a in s.summary] == [
        ("fcfs", 0.6, 2),
        ("fcfs", 0.9, 2),
        ("easy", 0.6, 2),
        ("easy", 0.9, 2),
    ]
    a = s.summary[-1]
    assert a["avg_wait_mean"] == (first["avg_wait"] + second["avg_wait"]) / 2
    assert a["avg_wait_ci_low"] < a["avg_wait_mean"] < a["avg_wait_ci_high"]


def test_every_key_of_the_metrics_summary_is_a_column(lublin_sweep):
    run = cs.simulate(scale_to_load(cs.lublin_feitelson(300, 32, seed=5), 32, 0.6), "fcfs")
    keys = set(cs.batch_metrics(run.schedule).summary())
    assert keys <= set(lublin_sweep.rows[0])
    assert {f"{k}_mean" for k in keys} <= set(lublin_sweep.summary[0])


def test_a_scenario_simulated_again_is_valid_and_the_same(lublin_sweep):
    """Every schedule of the sweep was validated (validate=True); here one is rebuilt and checked by hand."""
    row = next(r for r in lublin_sweep.rows if r["policy"] == "easy" and r["load"] == 0.9 and r["replication"] == 1)
    table = scale_to_load(cs.lublin_feitelson(300, 32, seed=6), 32, 0.9)
    run = cs.simulate(table, "easy", procs=32)
    cs.validate_batch(run.schedule, run.jobs)
    summary = cs.batch_metrics(run.schedule).summary()
    assert {k: row[k] for k in summary} == summary


def test_lublin_refuses_trace_options():
    with pytest.raises(ValueError, match="replicate == 'windows', must be 'seeds'"):
        sweep(SMALL, ["easy"], [0.5], replicate="windows", workers=1, progress=False)
    with pytest.raises(ValueError, match="window == 10"):
        sweep(SMALL, ["easy"], [0.5], window=10, workers=1, progress=False)
    with pytest.raises(ValueError, match="procs == 64"):
        sweep(SMALL, ["easy"], [0.5], procs=64, workers=1, progress=False)


@pytest.mark.parametrize(
    ("kwargs", "error", "says"),
    [
        ({"replications": 0}, ValueError, "replications == 0, must be >= 1"),
        ({"loads": [0.5, 0]}, ValueError, "0.0 is not a load"),
        ({"loads": "0.5:1:0"}, ValueError, "step == 0.0"),
        ({"policies": ["easy", "lifo"]}, ValueError, "policy == 'lifo', must be one of"),
        ({"policies": []}, ValueError, "policies == [], must name"),
        ({"estimates": "guess"}, ValueError, "estimates == 'guess'"),
        ({"figures": ["nope"]}, ValueError, "figures == nope: unknown 'nope'"),
        ({"workload": "trace.swf"}, TypeError, "must be a JobTable"),
    ],
)
def test_bad_arguments(kwargs, error, says):
    args = {"workload": SMALL, "policies": ["easy"], "loads": [0.5], **kwargs}
    with pytest.raises(error) as info:
        sweep(args.pop("workload"), args.pop("policies"), args.pop("loads"), workers=1, progress=False, **args)
    assert says in str(info.value)


# -- a real trace: windows and bootstrap -------------------------------------------------------------------------------
def test_trace_windows_are_evenly_spaced_and_reach_their_load(week_slice):
    s = sweep(week_slice, "fcfs,easy", "0.7:0.9:0.2", replications=2, workers=1, progress=False, validate=True)
    assert s.errors == 0 and len(s.rows) == 2 * 2 * 2
    assert s.workload.startswith("hpc2n-2002-week.swf.gz:800:")
    assert {(r["replication"], r["offset"], r["window"]) for r in s.rows} == {(0, 0, 400), (1, 400, 400)}
    for r in s.rows:
        assert r["procs"] == 240 and r["jobs"] == 400 and r["replicate"] == "windows"
        assert r["achieved_load"] == pytest.approx(r["load"], rel=1e-9)
        window = week_slice.select(slice(r["offset"], r["offset"] + 400))
        assert r["native_load"] == offered_load(window, 240)
    # a longer window: the offsets spread from the first job to the last window ending at the last job
    s = sweep(week_slice, ["easy"], [0.8], replications=3, window=500, workers=1, progress=False)
    assert [r["offset"] for r in s.rows] == [0, 150, 300]


def test_bootstrap_of_days_is_reproducible_and_differs_by_replication(week_slice):
    one = sweep(
        week_slice, ["easy"], [0.8], replications=2, replicate="days", seed=3, workers=1, progress=False, validate=True
    )
    again = sweep(week_slice, ["easy"], [0.8], replications=2, replicate="days", seed=3, workers=1, progress=False)

    def strip(rows):
        return [{k: v for k, v in r.items() if k not in ("seconds", "finished_at", "sim_seconds")} for r in rows]

    assert strip(one.rows) == strip(again.rows)
    a, b = one.rows
    assert a["block"] == 86400.0 and a["avg_wait"] != b["avg_wait"]
    assert a["achieved_load"] == pytest.approx(0.8, rel=1e-9)
    # the resampled trace: K blocks of a day, drawn with replacement, laid end to end
    rng = np.random.default_rng([3, 0, 2])
    table = sweep_module._bootstrap(week_slice, 86400.0, rng)
    first = week_slice.submit.min()
    blocks = int((week_slice.submit.max() - first) // 86400) + 1
    assert table.submit.min() >= first and table.submit.max() < first + blocks * 86400
    assert table.job_id.tolist() == list(range(1, len(table) + 1))
    assert set(table.runtime.tolist()) <= set(week_slice.runtime.tolist())


def test_a_trace_without_machine_size_needs_procs():
    table = cs.JobTable({"submit": [0, 10, 20], "runtime": [5, 5, 5], "procs": [1, 2, 1]})
    with pytest.raises(ValueError, match="gives no machine size"):
        sweep(table, ["easy"], [0.5], workers=1, progress=False)
    s = sweep(table, ["easy"], [0.5], procs=4, workers=1, progress=False)
    assert s.rows[0]["achieved_load"] == pytest.approx(0.5)
    with pytest.raises(ValueError, match="windows of 1 job"):
        sweep(table, ["easy"], [0.5], procs=4, replications=3, workers=1, progress=False)


def test_estimate_model_draws_the_requested_times_of_each_replication():
    s = sweep(
        SMALL, ["easy"], [0.7], replications=2, estimate_model="f:2.0", seed=4, workers=1, progress=False, validate=True
    )
    assert s.errors == 0 and {r["estimate_model"] for r in s.rows} == {"f:2"}
    # replication r: the table `clustersched lublin --seed 4+r --estimates f:2` writes, scaled; then easy on it
    from clustersched.workload.estimates import with_estimates

    for r in s.rows:
        seed = 4 + r["replication"]
        table = with_estimates(
            cs.lublin_feitelson(300, 32, seed=seed),
            "f:2",
            seed=np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(1,))),
        )
        assert bool((table.time_requested >= table.runtime).all())
        run = cs.simulate(scale_to_load(table, 32, 0.7), "easy", procs=32, estimates="requested")
        assert r["avg_wait"] == cs.batch_metrics(run.schedule).summary()["avg_wait"]
    exact = sweep(SMALL, ["easy"], [0.7], replications=2, seed=4, workers=1, progress=False)
    assert [r["avg_wait"] for r in exact.rows] != [r["avg_wait"] for r in s.rows]  # the estimates matter
    with pytest.raises(ValueError):
        sweep(SMALL, ["easy"], [0.7], estimate_model="f:-1", workers=1, progress=False)


# -- resume, files, workers --------------------------------------------------------------------------------------------
def test_files_and_resume(tmp_path, monkeypatch):
    out = tmp_path / "sweep"
    first = sweep(SMALL, ["fcfs", "easy"], [0.5, 0.8], replications=2, out=out, workers=2, progress=False)
    assert first.errors == 0
    assert sorted(p.name for p in out.iterdir()) == [
        "avg_bounded_slowdown.png",
        "avg_wait.png",
        "campaign.sqlite",
        "p90_bounded_slowdown.png",
        "p90_response.png",
        "p90_wait.png",
        "results.csv",
        "summary.csv",
        "utilization.png",
    ]
    assert [p.name for p in first.files][:2] == ["results.csv", "summary.csv"]
    lines = (out / "results.csv").read_text().splitlines()
    assert len(lines) == 1 + 8 and lines[0].startswith("workload,policy,load,replication,")
    assert "avg_bounded_slowdown_ci_low" in (out / "summary.csv").read_text().splitlines()[0]
    assert len((out / "summary.csv").read_text().splitlines()) == 1 + 4

    def never(*args, **kwargs):
        raise AssertionError("a stored scenario was computed again")

    monkeypatch.setattr(sweep_module, "run_scenario", never)
    again = sweep(SMALL, ["fcfs", "easy"], [0.5, 0.8], replications=2, out=out, workers=1, progress=False, figures=[])
    assert again.errors == 0 and again.rows == first.rows  # finished_at included: nothing was recomputed
    # one more load: only its scenarios are computed
    monkeypatch.undo()
    more = sweep(
        SMALL, ["fcfs", "easy"], [0.5, 0.8, 0.9], replications=2, out=out, workers=1, progress=False, figures=[]
    )
    stored = {r["finished_at"] for r in first.rows}
    assert sum(r["finished_at"] in stored for r in more.rows) == 8 and len(more.rows) == 12


def test_to_pandas(lublin_sweep):
    pytest.importorskip("pandas")
    df = lublin_sweep.to_pandas()
    assert len(df) == 8 and {"policy", "load", "replication", "avg_bounded_slowdown", "wall_s"} <= set(df.columns)
    assert len(lublin_sweep.summary_to_pandas()) == 4


# -- figures -----------------------------------------------------------------------------------------------------------
def test_one_series_per_policy_with_distinct_styles(lublin_sweep):
    from matplotlib.collections import PolyCollection

    fig = lublin_sweep.plot()
    ax = fig.axes[0]
    lines = ax.get_lines()
    assert [line.get_label() for line in lines] == ["fcfs", "easy"]
    assert len({line.get_color() for line in lines}) == len({line.get_marker() for line in lines}) == 2
    assert [list(line.get_xdata()) for line in lines] == [[0.6, 0.9]] * 2
    assert ax.get_yscale() == "log" and "bounded slowdown" in ax.get_ylabel()
    assert "offered load" in ax.get_xlabel() and "95% confidence interval" in ax.get_title()
    assert len([c for c in ax.collections if isinstance(c, PolyCollection)]) == 2  # a band per policy
    wait = lublin_sweep.plot("avg_wait").axes[0]
    assert wait.get_yscale() == "linear" and wait.get_ylabel() == "average wait (s)"
    with pytest.raises(ValueError, match="metric == 'nope'"):
        lublin_sweep.plot("nope")


def test_the_ratio_to_a_baseline(lublin_sweep):
    rows = lublin_sweep.relative("FCFS")  # a policy's name, as lookup() reads it
    assert [(r["policy"], r["load"]) for r in rows] == [("fcfs", 0.6), ("fcfs", 0.9), ("easy", 0.6), ("easy", 0.9)]
    assert all(r["avg_bounded_slowdown_ratio_mean"] == 1.0 for r in rows[:2])
    by_rep = {(r["policy"], r["load"], r["replication"]): r["avg_bounded_slowdown"] for r in lublin_sweep.rows}
    ratios = [by_rep["easy", 0.9, k] / by_rep["fcfs", 0.9, k] for k in (0, 1)]
    assert rows[3]["avg_bounded_slowdown_ratio_mean"] == pytest.approx(math.sqrt(ratios[0] * ratios[1]))
    ax = lublin_sweep.plot(baseline="fcfs").axes[0]
    assert [line.get_label() for line in ax.get_lines()][:2] == ["fcfs", "easy"]
    assert "relative to fcfs" in ax.get_ylabel() and ax.get_yscale() == "log"
    assert any(list(line.get_ydata()) == [1.0, 1.0] for line in ax.get_lines()[2:])  # the line at 1
    with pytest.raises(ValueError, match="baseline == 'sjf'"):
        lublin_sweep.relative("sjf")


def test_one_replication_draws_no_band():
    rows = [
        {
            "policy": p,
            "load": x,
            "replications": 1,
            "utilization_mean": x / 2,
            "utilization_ci_low": None,
            "utilization_ci_high": None,
        }
        for p in ("easy", "conservative", "dpsa-n")
        for x in (0.5, 1.0)
    ]
    ax = plot_sweep(rows, "utilization").axes[0]
    assert [line.get_label() for line in ax.get_lines()] == ["easy", "conservative", "dpsa-n"]
    assert len({(line.get_color(), line.get_marker(), line.get_linestyle()) for line in ax.get_lines()}) == 3
    assert ax.collections == [] or not list(ax.collections)
    assert ax.get_title() == "one replication: no confidence interval"


# -- the command -------------------------------------------------------------------------------------------------------
@pytest.fixture
def here(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "t.swf.gz").write_bytes(cs.sample_trace().read_bytes())
    return tmp_path


@pytest.mark.parametrize(
    ("argv", "says"),
    [
        (["--loads", "0.5:1:0"], "argument --loads: invalid value '0.5:1:0': step == 0.0, must be > 0"),
        (["--loads", "1:0.5:0.1"], "argument --loads: invalid value '1:0.5:0.1': stop == 0.5, must be >= start"),
        (["--loads", "0,0.5"], "argument --loads: invalid value '0,0.5': 0.0 is not a load"),
        (["--loads", "x"], "argument --loads: invalid value 'x': must be A:B:STEP"),
        (["--policies", "easy,lifo"], "argument --policies: invalid value 'easy,lifo': unknown 'lifo'"),
        (["--replications", "0"], "argument --replications: invalid value '0'"),
        (["--jobs", "1"], "argument --jobs: invalid value '1'"),
        (["--window", "10"], "--window '10': applies to a trace"),
        (["--drop-invalid"], "--drop-invalid 'True': applies to a trace"),
        (["--estimate-model", "f:x"], "argument --estimate-model: invalid value 'f:x'"),
        (["--metrics", "utilization,nope"], "--metrics 'utilization,nope': unknown 'nope', must be among "),
        (["--workers", "2", "--dask", "tcp://h:1"], "not allowed with argument"),
        (
            ["--policies", "easy,dpsa-n", "--baseline", "fcfs"],
            "--baseline 'fcfs': must be one of --policies easy,dpsa-n",
        ),
    ],
)
def test_bad_options_are_one_line_and_status_2(here, capsys, argv, says):
    status, out, err = run_cli(["sweep", "lublin", "--jobs", "200", *argv, "--out", "r"], capsys)
    assert status == 2, err
    assert err.count("\n") == 1 and err.startswith("clustersched: error: ") and says in err, err
    assert out == "" and not (here / "r").exists()


@pytest.mark.parametrize(
    ("argv", "says"),
    [
        (["sweep", "missing.swf", "--out", "r"], "TRACE 'missing.swf': no such file"),
        (["sweep", "t.swf.gz", "--replications", "2000", "--out", "r"], "windows of 1 job(s)"),
        (["sweep", "t.swf.gz", "--replicate", "days", "--window", "10", "--out", "r"], "--window '10'"),
        (["sweep", "t.swf.gz", "--out", "t.swf.gz"], "--out 't.swf.gz': is a file, not a folder"),
    ],
)
def test_bad_trace_options(here, capsys, argv, says):
    status, out, err = run_cli(argv, capsys)
    assert status == 2 and err.count("\n") == 1 and says in err, err
    assert out == ""


def test_the_command_on_a_trace_slice(here, capsys):
    argv = [
        "sweep",
        "t.swf.gz",
        "--jobs",
        "600",
        "--policies",
        "fcfs,easy",
        "--loads",
        "0.6,0.9",
        "--replications",
        "2",
        "--workers",
        "1",
        "--no-progress",
        "--metrics",
        "avg_bounded_slowdown",
        "--baseline",
        "fcfs",
        "--out",
        "r",
    ]
    status, out, err = run_cli(argv, capsys)
    assert status == 0, err
    lines = out.splitlines()
    assert lines[0].startswith("t.swf.gz: 600 jobs; 2 policies x 2 loads x 2 replication(s), windows")
    assert lines[1].split() == [
        "policy",
        "load",
        "runs",
        "avg_bounded_slowdown",
        "avg_wait_s",
        "utilization",
        "achieved_load",
    ]
    assert len(lines) == 2 + 4 + 1 and "percentile bootstrap of the mean" in lines[0]
    # mean [low, high], the interval within the values' range: a bounded slowdown >= 1, a wait >= 0
    cells = re.findall(r"(\S+) \[(\S+), (\S+)\]", lines[2])
    assert len(cells) == 3 and all(float(lo) <= float(m) <= float(hi) for m, lo, hi in cells)
    assert float(cells[0][1]) >= 1 and float(cells[1][1]) >= 0
    assert lines[-1] == (
        f"wrote {os.path.join('r', 'results.csv')}, summary.csv, avg_bounded_slowdown.png, "
        "relative.csv, avg_bounded_slowdown_vs_fcfs.png and campaign.sqlite"
    )
    assert sorted(p.name for p in (here / "r").iterdir()) == [
        "avg_bounded_slowdown.png",
        "avg_bounded_slowdown_vs_fcfs.png",
        "campaign.sqlite",
        "relative.csv",
        "results.csv",
        "summary.csv",
    ]
    assert (here / "r" / "relative.csv").read_text().splitlines()[0] == (
        "policy,load,replications,avg_bounded_slowdown_ratio_mean,avg_bounded_slowdown_ratio_ci_low,"
        "avg_bounded_slowdown_ratio_ci_high"
    )
    # again: nothing left to compute, said on stderr
    status, again, err = run_cli(argv, capsys)
    assert status == 0 and again == out
    assert "note: resuming: 8 of 8 scenarios already done" in err


def test_errored_scenarios_end_with_status_1(here, capsys, monkeypatch):
    real = sweep_module.run_scenario

    def unlucky(source, scenario, **kwargs):
        if scenario["policy"] == "easy" and scenario["load"] == 0.9:
            raise ValueError("an unlucky scenario")
        return real(source, scenario, **kwargs)

    monkeypatch.setattr(sweep_module, "run_scenario", unlucky)
    status, out, err = run_cli(
        [
            "sweep",
            "lublin",
            "--jobs",
            "200",
            "--procs",
            "16",
            "--policies",
            "fcfs,easy",
            "--loads",
            "0.5,0.9",
            "--workers",
            "1",
            "--no-progress",
            "--out",
            "r",
        ],
        capsys,
    )
    assert status == 1
    assert err.splitlines()[-1] == (
        f"clustersched: 1 of 4 scenarios failed: see the status and error columns of "
        f"{os.path.join('r', 'results.csv')} (the same command retries them)"
    )
    assert "error: easy at load 0.9, replication 0: ValueError: an unlucky scenario" in out
    assert "an unlucky scenario" in (here / "r" / "results.csv").read_text()


class _ClosedPipe:
    """A stdout whose reader has gone (as tests/test_cli_contract.py's)."""

    def write(self, text: str) -> int:
        raise BrokenPipeError(32, "Broken pipe")

    def flush(self) -> None:
        raise BrokenPipeError(32, "Broken pipe")


def test_a_closed_stdout_ends_quietly(here, capsys, monkeypatch):
    import sys

    monkeypatch.setattr(sys, "stdout", _ClosedPipe())
    status, _, err = run_cli(
        [
            "sweep",
            "lublin",
            "--jobs",
            "100",
            "--procs",
            "16",
            "--policies",
            "easy",
            "--loads",
            "0.5",
            "--workers",
            "1",
            "--no-progress",
            "--out",
            "r",
        ],
        capsys,
    )
    assert status == 141 and err == ""
    assert (here / "r" / "results.csv").exists()  # the work was done and written


# -- refused before any scenario runs (tracker issue 30) ---------------------------------------------------------------
@pytest.mark.parametrize(
    ("kwargs", "error", "says"),
    [
        # a job wider than the machine: every scenario would fail, as simulate refuses the trace
        ({"procs": 2}, cs.errors.InvalidWorkloadError, "needs 8 processors but the machine has 2"),
        # a load whose submit times would pass 1e10 s (it gave submit times of 1e16 s)
        ({"loads": [0.5, 1e-12]}, ValueError, "load 1e-12 spreads the submissions of replication 0 over"),
        # a load that leaves no span between the submissions (every scenario failed)
        ({"loads": [1e300]}, ValueError, "load 1e+300 compresses the inter-arrival times of replication 0"),
        ({"loads": [1e15]}, ValueError, "load 1e+15 compresses the inter-arrival times"),
        # estimates past the time limit
        ({"estimate_model": "f:1e300"}, ValueError, "F == 1e+300, must be <= 1e+10"),
        ({"estimate_model": "f:1e6"}, ValueError, "the longest runtime of the trace"),
    ],
)
def test_a_sweep_every_scenario_of_which_must_fail_is_refused_up_front(
    week_slice, tmp_path, monkeypatch, kwargs, error, says
):
    ran = []
    monkeypatch.setattr(sweep_module, "run_scenario", lambda *a, **k: ran.append(a))
    args = {"loads": [0.5], **kwargs}
    with pytest.raises(error) as info:
        sweep(
            week_slice,
            ["easy"],
            args.pop("loads"),
            replications=2,
            workers=1,
            progress=False,
            out=tmp_path / "r",
            **args,
        )
    assert says in str(info.value)
    assert ran == [] and not (tmp_path / "r").exists()  # nothing ran, nothing written


def test_the_lowest_load_named_is_the_lowest_that_fits(week_slice):
    with pytest.raises(ValueError, match=r"loads must be >= (\S+)$") as info:
        sweep(week_slice, ["easy"], [1e-12], workers=1, progress=False)
    lowest = float(str(info.value).rsplit(" ", 1)[1])
    s = sweep(week_slice, ["fcfs"], [lowest * 1.01], workers=1, progress=False, figures=[])
    assert s.errors == 0 and max(r["makespan"] for r in s.rows) <= 1e10
    with pytest.raises(ValueError, match="spreads the submissions"):
        sweep(week_slice, ["fcfs"], [lowest * 0.99], workers=1, progress=False)


def test_lublin_is_refused_up_front_too():
    with pytest.raises(ValueError, match="load 1e-12 spreads the submissions"):
        sweep(SMALL, ["easy"], [1e-12], workers=1, progress=False)
    with pytest.raises(ValueError, match=r"the longest runtime the Lublin model draws \(162755 s\)"):
        sweep(SMALL, ["easy"], [0.5], estimate_model="f:1e5", workers=1, progress=False)


@pytest.mark.parametrize(
    ("argv", "says"),
    [
        (["--procs", "2"], "needs 8 processors but the machine has 2"),
        (["--loads", "1e300"], "load 1e+300 compresses the inter-arrival times"),
        (["--loads", "1e-12"], "load 1e-12 spreads the submissions"),
        (["--estimate-model", "f:1e300"], "invalid value 'f:1e300'"),
        (["--estimate-model", "f:1e6"], "past the library's time limit of 1e+10 s"),
    ],
)
def test_the_command_refuses_them_with_status_2(here, capsys, argv, says):
    status, out, err = run_cli(
        [
            "sweep",
            "t.swf.gz",
            "--policies",
            "easy",
            "--loads",
            "0.5",
            "--replications",
            "2",
            "--workers",
            "1",
            "--no-progress",
            "--out",
            "r",
            *argv,
        ],
        capsys,
    )
    assert status == 2 and out == "" and err.count("\n") == 1 and says in err, err
    assert not (here / "r" / "campaign.sqlite").exists()


# -- figures: bands as computed, a readable title ----------------------------------------------------------------------
def test_log_bands_are_not_cut_at_1_and_skip_what_a_log_axis_cannot_show():
    from matplotlib.collections import PolyCollection

    rows = [
        {"policy": "easy", "load": x, "replications": 3, "m_mean": m, "m_ci_low": lo, "m_ci_high": hi}
        for x, m, lo, hi in (
            (0.5, 1.5, 1.1, 2.0),
            (0.7, 30.0, 12.0, 80.0),
            (0.9, 60.0, 0.0, 200.0),
            (1.1, 90.0, 40.0, 300.0),
        )
    ]
    ax = plot_sweep(rows, "m", log=True).axes[0]
    (band,) = [c for c in ax.collections if isinstance(c, PolyCollection)]
    ys = np.concatenate([p.vertices[:, 1] for p in band.get_paths()])
    xs = np.concatenate([p.vertices[:, 0] for p in band.get_paths()])
    # drawn from the bounds as computed (1.1 and 12 stay, nothing is raised to 1); the load whose bound is 0,
    # which a log axis cannot show, has no band rather than a spike down to a floor
    assert ys.min() == pytest.approx(1.1) and 12.0 in ys and 0.0 not in ys and 1.0 not in ys
    assert 0.9 not in xs and {0.5, 0.7}.issubset(set(xs))
    linear = plot_sweep(rows, "m", log=False).axes[0]
    (band,) = [c for c in linear.collections if isinstance(c, PolyCollection)]
    assert 0.0 in np.concatenate([p.vertices[:, 1] for p in band.get_paths()])  # a linear axis shows it all


def test_the_title_names_the_workload_for_a_reader(week_slice, lublin_sweep):
    s = sweep(week_slice, ["easy"], [0.8], replications=2, workers=1, progress=False)
    assert s.title == "hpc2n-2002-week.swf.gz (800 jobs, 240 procs)"
    title = s.plot().axes[0].get_title()
    assert title.startswith("hpc2n-2002-week.swf.gz (800 jobs, 240 procs)\n") and s.workload not in title
    assert "percentile bootstrap of the mean" in title
    assert lublin_sweep.title == "Lublin (300 jobs, 32 procs)"
    assert lublin_sweep.plot(baseline="easy").axes[0].get_title().startswith("Lublin (300 jobs, 32 procs)\n")
