"""Metrics on hand-computed schedules."""

from __future__ import annotations

import numpy as np
import pytest

from clustersched import Schedule, batch_metrics


def test_hand_computed_values():
    # 2 processors; job A (R=4) starts at once; job B (R=20) waits 4; job C (R=1, short) waits 23.
    s = Schedule(
        job_id=np.array([1, 2, 3]),
        submit=np.array([0.0, 0.0, 1.0]),
        start=np.array([0.0, 4.0, 24.0]),
        end=np.array([4.0, 24.0, 25.0]),
        procs=np.array([2, 2, 1]),
        total_procs=2,
    )
    m = batch_metrics(s)
    assert m.wait.tolist() == [0.0, 4.0, 23.0]
    assert m.response.tolist() == [4.0, 24.0, 24.0]
    # bounded slowdown with tau = 10: A: max(4/10, 1) = 1; B: 24/20; C: 24/10
    assert m.bounded_slowdown.tolist() == pytest.approx([1.0, 1.2, 2.4])
    assert m.makespan == 25.0
    assert m.utilization == pytest.approx((8 + 40 + 1) / (2 * 25))
    summary = m.summary()
    assert summary["jobs"] == 3 and summary["avg_bounded_slowdown"] == pytest.approx(4.6 / 3)
    assert summary["max_wait"] == 23.0


def test_tau_is_a_parameter_and_checked():
    s = Schedule(
        job_id=np.array([1]),
        submit=np.array([0.0]),
        start=np.array([5.0]),
        end=np.array([6.0]),
        procs=np.array([1]),
        total_procs=1,
    )
    assert batch_metrics(s, tau=1.0).bounded_slowdown.tolist() == [6.0]
    assert batch_metrics(s).bounded_slowdown.tolist() == [1.0]
    with pytest.raises(ValueError, match="tau == 0"):
        batch_metrics(s, tau=0)


# --- percentiles, classes, trimming (issue "The analysis a scheduling study needs") ---------------------------

import clustersched as cs  # noqa: E402
from clustersched.batch import ClassMetrics, validate_batch  # noqa: E402
from clustersched.batch.metrics import PERCENTILES, RUNTIME_EDGES, WIDTH_EDGES  # noqa: E402

OLD_KEYS = [
    "jobs",
    "avg_wait",
    "max_wait",
    "avg_response",
    "avg_bounded_slowdown",
    "max_bounded_slowdown",
    "utilization",
    "makespan",
]


def three_jobs() -> Schedule:
    # the schedule of test_hand_computed_values: waits 0, 4, 23; bsld 1, 1.2, 2.4; responses 4, 24, 24
    return Schedule(
        job_id=np.array([1, 2, 3]),
        submit=np.array([0.0, 0.0, 1.0]),
        start=np.array([0.0, 4.0, 24.0]),
        end=np.array([4.0, 24.0, 25.0]),
        procs=np.array([2, 2, 1]),
        total_procs=2,
    )


def test_percentiles_by_linear_interpolation_hand_computed():
    s = batch_metrics(three_jobs()).summary()
    # sorted waits 0, 4, 23; the q-th percentile sits at rank (3 - 1) * q / 100:
    # p50 rank 1 -> 4; p90 rank 1.8 -> 4 + 0.8 * 19 = 19.2; p99 rank 1.98 -> 4 + 0.98 * 19 = 22.62
    assert (s["p50_wait"], s["p90_wait"], s["p99_wait"]) == pytest.approx((4.0, 19.2, 22.62))
    # bsld 1, 1.2, 2.4: 1.2; 1.2 + 0.8 * 1.2 = 2.16; 1.2 + 0.98 * 1.2 = 2.376
    assert (s["p50_bounded_slowdown"], s["p90_bounded_slowdown"], s["p99_bounded_slowdown"]) == pytest.approx(
        (1.2, 2.16, 2.376)
    )
    # responses 4, 24, 24: all three percentiles between the two 24s
    assert (s["p50_response"], s["p90_response"], s["p99_response"]) == (24.0, 24.0, 24.0)


def test_summary_keeps_its_keys_first_and_adds_the_percentiles():
    s = batch_metrics(three_jobs()).summary()
    assert list(s)[: len(OLD_KEYS)] == OLD_KEYS
    assert list(s)[len(OLD_KEYS) :] == [
        f"p{q}_{m}" for m in ("wait", "bounded_slowdown", "response") for q in PERCENTILES
    ] + ["killed"]
    assert s["killed"] == 0  # no time-limit rule: no job killed
    df = batch_metrics(three_jobs()).to_pandas()
    assert "p90_wait_s" in df.columns and "p90_bounded_slowdown" in df.columns and "p99_response_s" in df.columns


def six_jobs() -> Schedule:
    # 64 processors; widths 1, 8, 9, 32, 33, 2; runtimes 300, 600, 3600, 3601, 28801, 28800 s;
    # waits 0, 100, 200, 0, 3990, 30 s (at most 52 processors busy at once)
    return Schedule(
        job_id=np.arange(1, 7),
        submit=np.array([0.0, 0.0, 0.0, 0.0, 10.0, 20.0]),
        start=np.array([0.0, 100.0, 200.0, 0.0, 4000.0, 50.0]),
        end=np.array([300.0, 700.0, 3800.0, 3601.0, 32801.0, 28850.0]),
        procs=np.array([1, 8, 9, 32, 33, 2]),
        total_procs=64,
    )


def test_width_classes_hand_computed():
    t = batch_metrics(six_jobs()).by_width()
    assert isinstance(t, ClassMetrics) and t.by == "width" and WIDTH_EDGES == (1, 8, 32)
    assert t.label.tolist() == ["1", "2-8", "9-32", ">32"]
    assert t.above.tolist() == [0, 1, 8, 32] and t.upto.tolist() == [1, 8, 32, np.inf]
    # 1: job 1; 2-8: jobs 2 (8 procs, the edge is inclusive) and 6; 9-32: jobs 3 and 4; >32: job 5
    assert t.jobs.tolist() == [1, 2, 2, 1]
    assert t.stats["avg_wait"].tolist() == [0.0, 65.0, 100.0, 3990.0]
    # waits 30, 100: p90 = 30 + 0.9 * 70 = 93
    assert t.stats["p90_wait"][1] == pytest.approx(93.0)
    assert t.stats["p50_wait"].tolist() == [0.0, 65.0, 100.0, 3990.0]
    # responses: job 1 300; jobs 2, 6: 700, 28830; jobs 3, 4: 3800, 3601; job 5: 32791
    assert t.stats["avg_response"].tolist() == [300.0, (700 + 28830) / 2, (3800 + 3601) / 2, 32791.0]


def test_runtime_classes_hand_computed():
    t = batch_metrics(six_jobs()).by_runtime()
    assert RUNTIME_EDGES == (600, 3600, 8 * 3600)
    assert t.label.tolist() == ["<=10min", "10min-1h", "1h-8h", ">8h"]
    # <=10min: jobs 1 (300 s) and 2 (600 s, inclusive); 10min-1h: job 3 (3600 s); 1h-8h: jobs 4 (3601 s) and
    # 6 (28800 s); >8h: job 5 (28801 s)
    assert t.jobs.tolist() == [2, 1, 2, 1]
    assert t.stats["avg_wait"].tolist() == [50.0, 200.0, 15.0, 3990.0]
    # bsld: job 3 (3800 / 3600), job 5 (32791 / 28801)
    assert t.stats["avg_bounded_slowdown"][1] == pytest.approx(3800 / 3600)
    assert t.stats["p99_bounded_slowdown"][3] == pytest.approx(32791 / 28801)
    df = t.to_pandas()
    assert df.columns.tolist()[:4] == ["class", "runtime_above_s", "runtime_upto_s", "jobs"]
    assert "p50_wait_s" in df.columns and "avg_bounded_slowdown" in df.columns
    assert batch_metrics(six_jobs()).by_width().to_pandas().columns.tolist()[:4] == [
        "class",
        "procs_above",
        "procs_upto",
        "jobs",
    ]


def test_empty_classes_are_kept_with_nan_and_edges_are_checked():
    t = batch_metrics(three_jobs()).by_width(edges=(1, 4, 16, 64))
    assert t.label.tolist() == ["1", "2-4", "5-16", "17-64", ">64"]
    assert t.jobs.tolist() == [1, 2, 0, 0, 0]
    assert np.isnan(t.stats["avg_wait"][2]) and np.isnan(t.stats["p99_response"][4])
    with pytest.raises(ValueError, match="must be increasing"):
        batch_metrics(three_jobs()).by_width(edges=(4, 2))
    with pytest.raises(ValueError, match=r"edges\[0\] == 0, must be >= 1"):
        batch_metrics(three_jobs()).by_width(edges=(0, 2))
    with pytest.raises(ValueError, match=r"edges\[1\] == -1, must be > 0"):
        batch_metrics(three_jobs()).by_runtime(edges=(10, -1))


def four_sequential_jobs() -> Schedule:
    # 2 processors, one job at a time; rows deliberately not in submit order: C, A, D, B
    #   A submit 0, runs 0-10; B submit 5, runs 10-20; C submit 6, runs 20-30; D submit 31, runs 31-41
    return Schedule(
        job_id=np.array([3, 1, 4, 2]),
        submit=np.array([6.0, 0.0, 31.0, 5.0]),
        start=np.array([20.0, 0.0, 31.0, 10.0]),
        end=np.array([30.0, 10.0, 41.0, 20.0]),
        procs=np.array([1, 1, 1, 1]),
        total_procs=2,
    )


def test_trimming_by_count_follows_submit_order():
    m = batch_metrics(four_sequential_jobs(), warmup=1, cooldown=1)
    # A (first submitted) and D (last) dropped: B waits 5, C waits 14
    assert m.rows.tolist() == [0, 3] and m.wait.tolist() == [14.0, 5.0]
    # window: first kept submit 5 to last kept end 30; busy inside it: A 5-10, B, C: 25 processor-seconds
    assert m.window == (5.0, 30.0) and m.makespan == 25.0
    assert m.utilization == pytest.approx(25 / (2 * 25))
    assert m.summary()["jobs"] == 2 and m.summary()["avg_wait"] == 9.5
    assert m.runtime.tolist() == [10.0, 10.0] and m.procs.tolist() == [1, 1]


def test_trimming_by_time_hand_computed():
    s = four_sequential_jobs()
    # warm-up 5 s drops submit < 0 + 5 (A; B, submitted at 5, stays); cool-down 5 s drops submit > 31 - 5 (D)
    m = batch_metrics(s, warmup_time=5.0, cooldown_time=5.0)
    assert sorted(m.rows.tolist()) == [0, 3]
    assert m.summary() == batch_metrics(s, warmup=1, cooldown=1).summary()
    # a longer warm-up also drops B and C (submitted before 7)
    assert batch_metrics(s, warmup_time=7.0).rows.tolist() == [2]
    # the machine figures without trimming: window [0, 41], 40 busy processor-seconds
    full = batch_metrics(s)
    assert full.rows is None and full.window == (0.0, 41.0) and full.utilization == pytest.approx(40 / 82)


def test_trimming_is_checked():
    s = four_sequential_jobs()
    with pytest.raises(ValueError, match="leave no job of 4"):
        batch_metrics(s, warmup=2, cooldown=2)
    with pytest.raises(ValueError, match="leave no job of 4"):
        batch_metrics(s, warmup_time=100.0)
    with pytest.raises(ValueError, match="warmup == -1, must be >= 0"):
        batch_metrics(s, warmup=-1)
    with pytest.raises(TypeError, match="cooldown == 1.5, must be an integer"):
        batch_metrics(s, cooldown=1.5)
    with pytest.raises(ValueError, match="cooldown_time == nan, must be finite"):
        batch_metrics(s, cooldown_time=float("nan"))


def test_simulated_breakdowns_partition_the_jobs():
    jobs = cs.read_swf(cs.sample_trace()).select(slice(0, 400))
    run = cs.simulate(jobs, "easy")
    validate_batch(run.schedule, run.jobs)
    m = batch_metrics(run.schedule)
    for table in (m.by_width(), m.by_runtime()):
        assert table.jobs.sum() == 400
        known = table.jobs > 0
        # the class averages, weighted by the class sizes, give the overall average
        total = float(np.dot(table.jobs[known], table.stats["avg_wait"][known]))
        assert total / 400 == pytest.approx(m.summary()["avg_wait"])
    trimmed = batch_metrics(run.schedule, warmup=50, cooldown=50)
    assert trimmed.summary()["jobs"] == 300 and 0 < trimmed.utilization <= 1
    assert set(run.summary()) == {"algorithm", *m.summary(), "seconds"}
