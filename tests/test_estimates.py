"""User runtime estimates (clustersched.workload.estimates): the f-model and the modal model.

The published parameters are typed again here, independently of the module:
the f-model's definition (Mu'alem & Feitelson 2001; restated by Tsafrir &
Feitelson 2006: "given a runtime r, the estimate is uniformly distributed in
[r, (f + 1) r]"), and the modal model's defaults from the authors' program
``est_model.hh`` / ``est_model.cc`` (Tsafrir, Etsion & Feitelson, JSSPP 2005:
"only 20 different values are used as estimates for about 90% of the jobs").

Tolerances: the f-model checks are statistical on 200,000 jobs with a fixed
seed (a mean within 5 standard errors, a Kolmogorov-Smirnov distance below
the 1 % critical value 1.63 / sqrt(n) plus the rounding to whole seconds);
the modal checks are on the histogram, which the model fixes up to rounding
(every share within one job per value of the published percentage, plus the
equalization that makes the counts sum to n).
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from clustersched.errors import InvalidWorkloadError
from clustersched.workload import (
    EstimateModel,
    JobTable,
    f_model,
    lublin_feitelson,
    modal_model,
    parse_estimate_model,
    read_swf,
    with_estimates,
)
from clustersched.workload.estimates import (
    _equalize,
    _head_values,
    _popularity_ranks,
    _tail_values,
    modal_histogram,
    modal_value_count,
)

from support import run_cli

HOUR, MIN = 3600, 60

# -- published parameters, typed independently ------------------------------------------------------------
#: est_model.hh defaults: percent of jobs at popularity rank x = 2..20 is a e^(b x) + c; the head holds 89 %.
HEAD_A, HEAD_B, HEAD_C, HEAD_SUM = 14.0491, -0.177531, 0.462513, 89.0
RANK_SHARES = [HEAD_A * math.exp(HEAD_B * x) + HEAD_C for x in range(2, 21)]
#: ... so the maximal estimate (rank 1) has 89 % minus the others: 21.73 %.
MAX_SHARE = HEAD_SUM - sum(RANK_SHARES)
#: The 15 values of est_model.cc's EST_JOINT, in minutes.
JOINT_MINUTES = [5, 10, 15, 20, 30, 60, 120, 180, 240, 300, 360, 480, 600, 720, 1080]


def table(runtimes) -> JobTable:
    r = np.asarray(runtimes, dtype=float)
    return JobTable(
        {"submit": np.zeros(r.size), "runtime": r, "procs": np.ones(r.size, dtype=np.int64)}, metadata={"MaxProcs": "4"}
    )


# -- the spec strings ---------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "spec, model",
    [
        ("exact", EstimateModel("exact")),
        ("modal", EstimateModel("modal")),
        ("f:2", EstimateModel("f", 2.0)),
        (" f:0.5 ", EstimateModel("f", 0.5)),
        ("f:0", EstimateModel("f", 0.0)),
        ("f:1e2", EstimateModel("f", 100.0)),
    ],
)
def test_parse_estimate_model(spec, model):
    assert parse_estimate_model(spec) == model
    assert parse_estimate_model(str(model)) == model


@pytest.mark.parametrize(
    "spec, message",
    [
        ("f:-1", "F == -1.0, must be >= 0"),
        ("f:x", "F == 'x' is not a number"),
        ("f:inf", "must be finite"),
        ("f:nan", "must be finite"),
        ("f", "must be one of exact, f:F, modal"),
        ("requested", "must be one of"),
        ("", "must be one of"),
        ("Modal", "must be one of"),
    ],
)
def test_parse_estimate_model_rejects(spec, message):
    with pytest.raises(ValueError, match=message) as info:
        parse_estimate_model(spec)
    assert repr(spec) in str(info.value)


def test_parse_estimate_model_needs_a_string():
    with pytest.raises(TypeError, match="spec == 2, must be a string"):
        parse_estimate_model(2)


# -- the f-model -----------------------------------------------------------------------------------------------
def test_f_model_by_hand():
    """estimate = max(r, round(r (1 + f U))), U the seed's uniforms in row order; -1 where runtime <= 0."""
    u = np.random.default_rng(7).random(4)
    out = f_model(table([100, 33.5, 0, -1]), 3, seed=7)
    assert out.time_requested.tolist() == [
        math.floor(100 * (1 + 3 * u[0]) + 0.5),
        math.floor(33.5 * (1 + 3 * u[1]) + 0.5),
        -1.0,
        -1.0,
    ]
    assert f_model(table([100, 7]), 0, seed=1).time_requested.tolist() == [100.0, 7.0]
    u = np.random.default_rng(3).random(3)
    capped = f_model(table([100, 5000, 10]), 100, seed=3, max_estimate=1000).time_requested.tolist()
    assert capped == [
        min(math.floor(100 * (1 + 100 * u[0]) + 0.5), 1000),
        5000,  # longer than the cap: keeps its runtime
        min(math.floor(10 * (1 + 100 * u[2]) + 0.5), 1000),
    ]
    assert "f-model f=3" in out.metadata["Estimates"]


def test_f_model_rounds_to_the_nearest_second():
    """r = 1 s, f = 2: 1 + 2U rounds to 1, 2, 3 with probabilities 1/4, 1/2, 1/4, a mean of 2 = (f + 2) / 2."""
    e = f_model(table(np.ones(100_000)), 2, seed=4).time_requested
    values, counts = np.unique(e, return_counts=True)
    assert values.tolist() == [1, 2, 3]
    assert (counts / e.size) == pytest.approx([0.25, 0.5, 0.25], abs=0.005)


@pytest.mark.parametrize("f", [1.0, 3.0, 10.0])
def test_f_model_matches_its_definition(f):
    """estimate / runtime is uniform on [1, f + 1]: mean (f + 2) / 2; accuracy has mean ln(f + 1) / f."""
    n = 200_000
    runtime = np.random.default_rng(1).integers(1000, 100_000, n).astype(float)
    out = f_model(table(runtime), f, seed=11)
    ratio = out.time_requested / runtime
    assert ratio.min() >= 1 and ratio.max() <= f + 1 + 0.5 / 1000  # the nearest second, r >= 1000 s
    se = f / math.sqrt(12 * n)
    assert abs(ratio.mean() - (f + 2) / 2) < 5 * se
    ks = stats.kstest((ratio - 1) / f, "uniform").statistic
    assert ks < 1.63 / math.sqrt(n) + 0.5e-3 / f  # plus the rounding to the nearest second
    accuracy = runtime / out.time_requested
    assert accuracy.mean() == pytest.approx(math.log(f + 1) / f, abs=5 * accuracy.std() / math.sqrt(n) + 5e-4)


def test_f_model_rejects_bad_arguments():
    with pytest.raises(ValueError, match="f == -1, must be >= 0"):
        f_model(table([1]), -1)
    with pytest.raises(ValueError, match="max_estimate == 0, must be > 0"):
        f_model(table([1]), 1, max_estimate=0)
    with pytest.raises(TypeError, match="seed"):
        f_model(table([1]), 1, seed=1.5)
    with pytest.raises(InvalidWorkloadError, match="no job"):
        f_model(table([]), 1)


# -- the modal model: its pieces by hand ----------------------------------------------------------------------------
def test_head_values_by_hand():
    """The maximum, the joint values below it, then round multiples going down from it until there are 20."""
    assert _head_values(18 * HOUR) == [18 * HOUR] + [m * MIN for m in JOINT_MINUTES[:-1]] + [
        13 * HOUR,
        14 * HOUR,
        15 * HOUR,
        16 * HOUR,
        17 * HOUR,
    ]  # 15 h (5 h multiples), 16, 14 h (2 h), 17, 13 h (1 h)
    # One hour: five joint values below it, then 40 min (20 min multiples), 50 (10 min), 55, 45, 35, 25 (5 min).
    assert _head_values(HOUR) == [HOUR] + [m * MIN for m in (5, 10, 15, 20, 25, 30, 35, 40, 45, 50, 55)]
    assert len(_head_values(100 * HOUR)) == 20


def test_tail_values_by_hand():
    """t = max (a - 1) x / (a - x) at x = i / n, to the minute; a collision with the maximum moves -30 s."""
    # a = 2, max = 10 h: x = 1/4 -> 5142.9 s -> 86 min; 1/2 -> 200 min; 3/4 -> 360 min; 1 -> 36000 - 30.
    assert _tail_values(36000, {36000}, 4, 2.0) == [5160, 12000, 21600, 35970]
    assert _tail_values(36000, {36000, 12000}, 4, 2.0) == [5160, 12030, 21600, 35970]


def test_value_count_by_hand():
    """est_model.cc's linear model through (0,0) (20,10) (200,20) (1000,35) (10000,90) (70000,340) (250000,565)."""
    assert [modal_value_count(n) for n in (1, 10, 20, 110, 200, 1000, 10_000, 40_000, 250_000, 10**6)] == [
        1,
        5,
        10,
        15,
        20,
        35,
        90,
        215,
        565,
        565,
    ]


def test_equalize_by_hand():
    """adjust_njobs: proportionally from the largest value first, never below one job before the last resort."""
    assert _equalize({60: 10, 120: 5, 180: 1}, set(), 14) == {60: 8, 120: 5, 180: 1}  # ceil(2/16 * 10) off the top
    assert _equalize({60: 10, 120: 5, 180: 1}, set(), 19) == {60: 12, 120: 6, 180: 1}
    assert _equalize({60: 10, 120: 5, 180: 1}, {60}, 12) == {60: 10, 120: 1, 180: 1}
    assert _equalize({60: 1, 120: 1, 180: 1}, set(), 1) == {60: 0, 120: 0, 180: 1}  # ties: the shorter value first


@pytest.mark.parametrize("seed", range(20))
def test_popularity_ranks_follow_the_traces(seed):
    """A permutation of 1..20, the maximum first; each rank one that a trace gave this time rank or an earlier one."""
    from clustersched.workload.estimates import TIME_RANK_TO_POPULARITY

    ranks = _popularity_ranks(np.random.default_rng(seed), None)
    assert sorted(ranks) == list(range(1, 21)) and ranks[0] == 1
    for ttr, p in enumerate(ranks):
        assert any(p in row for row in TIME_RANK_TO_POPULARITY[: ttr + 1])
    reserved = _popularity_ranks(np.random.default_rng(seed), 4)
    assert sorted(reserved) == list(range(1, 21)) and reserved[0] == 4


# -- the modal model against the published parameters -----------------------------------------------------------
@pytest.mark.parametrize("n", [10_000, 100_000])
def test_modal_histogram_matches_the_published_model(n):
    hist = modal_histogram(n, 18 * HOUR, seed=5)
    counts = sorted(hist.values(), reverse=True)
    assert sum(counts) == n
    assert len(hist) == modal_value_count(n)  # 90 values for 10,000 jobs
    tol = 100 * 2 / n + 0.05  # percent: one job's rounding, plus what equalizing to n moves
    assert 100 * hist[18 * HOUR] / n == pytest.approx(MAX_SHARE, abs=tol)  # 21.73 %: the most popular value
    assert counts[0] == hist[18 * HOUR]
    assert 100 * sum(counts[:20]) / n == pytest.approx(HEAD_SUM, abs=20 * tol)  # "20 values for about 90 %"
    assert [100 * c / n for c in counts[1:20]] == pytest.approx(RANK_SHARES, abs=tol)
    assert {m * MIN for m in JOINT_MINUTES} <= set(hist)  # the values popular in all four traces
    assert max(hist) == 18 * HOUR and min(hist) > 0 and all(t == int(t) for t in hist)


def test_modal_histogram_with_a_given_max_share():
    hist = modal_histogram(10_000, 36 * HOUR, seed=1, max_share=0.05)
    assert hist[36 * HOUR] == 500 and sum(hist.values()) == 10_000
    top = sorted(hist.values(), reverse=True)[:20]
    assert sum(top) == pytest.approx(8900, abs=20)
    # The others keep their relative sizes, scaled so that the head still holds 89 %.
    scale = (HEAD_SUM - 5) / sum(RANK_SHARES)
    others = sorted((c for t, c in hist.items() if t != 36 * HOUR), reverse=True)[:19]
    assert [100 * c / 10_000 for c in others] == pytest.approx([s * scale for s in RANK_SHARES], abs=0.03)


def test_modal_model_on_lublin():
    t = lublin_feitelson(10_000, 128, seed=4)
    out = modal_model(t, seed=9)
    e, r = out.time_requested, t.runtime
    max_est = int(out.metadata["MaxEstimate"])
    assert max_est == math.ceil(r.max() / HOUR) * HOUR
    assert (e >= r).all() and (e <= max_est).all() and (e == np.round(e)).all()
    values, counts = np.unique(e, return_counts=True)
    assert len(values) == 90
    assert counts[values == max_est][0] / 10_000 == pytest.approx(MAX_SHARE / 100, abs=0.001)
    assert np.sort(counts)[::-1][:20].sum() / 10_000 == pytest.approx(0.89, abs=0.005)
    # Every value of the histogram is used: the assignment loses none on Lublin's runtimes.
    assert dict(zip(values.astype(int).tolist(), counts.tolist())) == modal_histogram(
        10_000, max_est, seed=np.random.default_rng(9)
    )
    assert np.array_equal(out.runtime, t.runtime)  # runtimes never change


def test_modal_model_by_hand():
    """Runtimes <= 0 get -1 and take no value; a runtime above the maximum keeps its runtime."""
    out = modal_model(table([10, 0, -1, 7200, 50]), seed=1, max_estimate=3600)
    e = out.time_requested.tolist()
    assert e[1] == e[2] == -1 and e[3] == 7200 and 10 <= e[0] <= 3600 and 50 <= e[4] <= 3600
    assert modal_model(table([0, -1]), seed=1).time_requested.tolist() == [-1, -1]
    # Three jobs all longer than every value but the maximum: the histogram runs out, they get the maximum.
    e = modal_model(table([3000, 3000, 3000, 3000, 3000]), seed=2, max_estimate=3600).time_requested
    assert ((e >= 3000) & (e <= 3600)).all()


def test_modal_model_rejects_bad_arguments():
    with pytest.raises(ValueError, match="max_estimate == 60, must be >= 3600"):
        modal_model(table([1]), max_estimate=60)
    with pytest.raises(ValueError, match="max_share == 0.95, must be <= 0.89"):
        modal_model(table([1]), max_share=0.95)
    with pytest.raises(InvalidWorkloadError, match="no job"):
        modal_model(table([]))
    with pytest.raises(TypeError, match="must be a JobTable"):
        with_estimates([1, 2], "exact")


# -- determinism and invariants ----------------------------------------------------------------------------------------
@pytest.mark.parametrize("spec", ["f:2", "modal"])
def test_same_seed_same_estimates(spec):
    t = lublin_feitelson(3000, 64, seed=1)
    a, b, c = (with_estimates(t, spec, seed=s).time_requested for s in (5, 5, 6))
    assert np.array_equal(a, b) and not np.array_equal(a, c)
    g = with_estimates(t, spec, seed=np.random.default_rng(5)).time_requested
    assert np.array_equal(a, g)


def test_with_estimates_leaves_its_input_alone():
    t = lublin_feitelson(200, 64, seed=1)
    before = t.time_requested.copy()
    for spec in ("exact", "f:1", "modal"):
        out = with_estimates(t, spec, seed=0)
        assert np.array_equal(out.runtime, t.runtime) and np.array_equal(out.submit, t.submit)
    assert np.array_equal(t.time_requested, before) and "Estimates" not in t.metadata
    assert np.array_equal(with_estimates(t, "exact").time_requested, t.runtime)


runtimes = st.lists(
    st.one_of(st.integers(-1, 200_000).map(float), st.floats(0.001, 200_000, allow_nan=False)), min_size=1, max_size=60
)


@settings(max_examples=60, deadline=None)
@given(runtimes, st.sampled_from(["exact", "f:0", "f:0.5", "f:3", "f:300", "modal"]), st.integers(0, 2**32))
def test_estimates_never_undercut_the_runtime(rs, spec, seed):
    t = table(rs)
    e = with_estimates(t, spec, seed=seed).time_requested
    r = t.runtime
    assert (e[r > 0] >= r[r > 0]).all()
    assert (e[r <= 0] == -1).all()


@settings(max_examples=40, deadline=None)
@given(
    runtimes,
    st.integers(1, 60).map(lambda h: h * HOUR),
    st.integers(0, 2**32),
    st.one_of(st.none(), st.floats(0, 0.89)),
)
def test_modal_estimates_are_whole_seconds_up_to_the_maximum(rs, max_est, seed, share):
    t = table(rs)
    e = modal_model(t, seed=seed, max_estimate=max_est, max_share=share).time_requested
    r = t.runtime
    ok = r > 0
    assert (e[ok] >= r[ok]).all() and (e[ok] <= np.maximum(max_est, r[ok])).all()
    short = ok & (r <= max_est)
    assert (e[short] == np.round(e[short])).all()


# -- the command line: lublin --estimates, and the estimates reach the scheduler -------------------------------------
def test_lublin_estimates_reach_easy(tmp_path, capsys):
    base = ["lublin", "--jobs", "1500", "--procs", "64", "--seed", "3"]
    for name, spec in (("none", []), ("f2", ["--estimates", "f:2"]), ("modal", ["--estimates", "modal"])):
        status, out, err = run_cli(base + spec + ["--out", str(tmp_path / f"{name}.swf")], capsys)
        assert status == 0 and err == "" and f"estimates {spec[1] if spec else 'none'}" in out
    none, f2 = read_swf(tmp_path / "none.swf"), read_swf(tmp_path / "f2.swf")
    assert (none.time_requested == -1).all()
    ratio = f2.time_requested / f2.runtime
    assert (ratio >= 1).all() and (ratio <= 3 + 1e-9).all() and 1.9 < ratio.mean() < 2.1
    for column in ("submit", "runtime", "procs", "job_id"):  # the jobs are the same for every model
        assert np.array_equal(getattr(none, column), getattr(f2, column))
    assert f2.metadata["Estimates"].startswith("f-model f=2")

    def easy(path, estimates):
        status, out, _ = run_cli(["simulate", str(path), "--policy", "easy", "--estimates", estimates], capsys)
        assert status == 0
        return out.splitlines()[-1].split()[2]  # avg_wait_s

    assert easy(tmp_path / "f2.swf", "requested") != easy(tmp_path / "f2.swf", "exact")
    assert easy(tmp_path / "none.swf", "requested") == easy(tmp_path / "none.swf", "exact")
    assert easy(tmp_path / "f2.swf", "exact") == easy(tmp_path / "none.swf", "exact")


@pytest.mark.parametrize("spec", ["f:-1", "f:x", "bogus", "f:", "requested"])
def test_lublin_rejects_a_bad_estimate_model(tmp_path, capsys, spec):
    out = tmp_path / "l.swf"
    status, _, err = run_cli(["lublin", "--estimates", spec, "--out", str(out)], capsys)
    assert status == 2 and not out.exists()
    assert len(err.strip().splitlines()) == 1
    assert f"argument --estimates: invalid value {spec!r}" in err and "none, exact, f:F, modal" in err


# -- the library's time limit (tracker issue 30: f:1e300 made estimates of 1e300 s) ----------------------------------
def test_an_f_past_the_time_limit_is_refused_whatever_the_seed():
    t = JobTable({"submit": [0, 0, 0], "runtime": [10, 86400, -1], "procs": [1, 1, 1], "job_id": [1, 7, 9]})
    with pytest.raises(ValueError, match=r"F == 1e\+300, must be <= 1e\+10"):
        with_estimates(t, "f:1e300")
    # 86400 s x (F + 1) past 1e10 s: refused for every seed, naming the job
    for seed in range(3):
        with pytest.raises(
            ValueError,
            match=r"job 7's runtime \(86400 s\) may reach .* past the library's time "
            r"limit of 1e\+10 s .* F must be <= 1\.157e\+05 here",
        ):
            with_estimates(t, "f:2e5", seed=seed)
    e = with_estimates(t, "f:1e5", seed=0).time_requested  # within the limit: accepted
    assert e.max() <= 1e10 and e[2] == -1
    assert f_model(t, 2e5, seed=0, max_estimate=1e9).time_requested.max() <= 1e9  # a cap keeps it within
    with pytest.raises(ValueError, match="max_estimate == 1e\\+300, must be <= 10000000000"):
        f_model(t, 1, max_estimate=1e300)


@pytest.mark.parametrize("command", [["lublin", "--out", "l.swf", "--estimates"], ["dfrs", "--estimates"]])
def test_the_commands_refuse_an_f_past_the_time_limit(tmp_path, capsys, monkeypatch, command):
    monkeypatch.chdir(tmp_path)
    status, out, err = run_cli(command + ["f:1e300"], capsys)
    assert status == 2 and out == "" and len(err.strip().splitlines()) == 1
    assert "invalid value 'f:1e300'" in err and "0 <= F <= 1e10" in err


def test_dfrs_refuses_an_f_whose_estimates_pass_the_time_limit(capsys):
    # F within 1e10, but (F + 1) x the trace's longest runtime past it: the trace decides, before any run
    status, out, err = run_cli(["dfrs", "--algorithm", "easy", "--estimates", "f:1e9"], capsys)
    assert status == 2 and len(err.strip().splitlines()) == 1, err
    assert "past the library's time limit of 1e+10 s" in err and out == ""
