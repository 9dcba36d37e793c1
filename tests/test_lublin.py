"""Statistical tests of the Lublin–Feitelson generator against the published model.

Expected values are derived here, independently of the generator, from the
constants of the authors' program ``m_lublin99.c`` (typed again below) with
scipy.  Tolerances are stated next to each check; most are 5 standard errors
(a false alarm rate of about 1e-6 per check), with the standard error computed
from the model itself.  Samples are 60 000 jobs (a few hundred ms each).
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import integrate, stats

from clustersched.workload.jobs import JobTable
from clustersched.workload.lublin import (
    LUBLIN_PARAMS,
    lublin_daily_cycle,
    lublin_feitelson,
)

N = 60_000
Z = 5.0  # tolerance in standard errors for the binomial / CLT checks

# The published constants (m_lublin99.c), typed independently of the module.
PUBLISHED = {
    "batch": dict(
        serial_prob=0.2927,
        pow2_prob=0.6686,
        ulow=1.2,
        umed=5.0,
        uhi=7.0,
        uprob=0.875,
        a1=6.57,
        b1=0.823,
        a2=639.1,
        b2=0.0156,
        pa=-0.003,
        pb=0.6986,
        aarr=6.0415,
        barr=0.8531,
        anum=6.1271,
        bnum=5.2740,
        arar=1.0519,
    ),
    "interactive": dict(
        serial_prob=0.1541,
        pow2_prob=0.625,
        ulow=1.0,
        umed=3.0,
        uhi=5.5,
        uprob=0.705,
        a1=3.8351,
        b1=0.6605,
        a2=7.073,
        b2=0.6856,
        pa=-0.0118,
        pb=0.9156,
        aarr=6.5510,
        barr=0.6621,
        anum=8.9186,
        bnum=3.6680,
        arar=0.9797,
    ),
    "typeless": dict(
        serial_prob=0.244,
        pow2_prob=0.576,
        ulow=0.8,
        umed=4.5,
        uhi=7.0,
        uprob=0.86,
        a1=4.2,
        b1=0.94,
        a2=312.0,
        b2=0.03,
        pa=-0.0054,
        pb=0.78,
        aarr=10.2303,
        barr=0.4871,
        anum=8.1737,
        bnum=3.9631,
        arar=1.0225,
    ),
}
LOG_RUNTIME_CAP = 12.0
LOG_IAT_CAP = 13.0


# -- fixtures ---------------------------------------------------------------------
@pytest.fixture(scope="module")
def batch() -> JobTable:
    return lublin_feitelson(N, 128, seed=12345, job_type="batch")


@pytest.fixture(scope="module")
def mixed() -> JobTable:
    return lublin_feitelson(N, 128, seed=2024)  # default job_type: "mixed"


@pytest.fixture(scope="module")
def typeless() -> JobTable:
    return lublin_feitelson(N, 128, seed=99, job_type="typeless")


# -- model-side helpers (independent of the generator) ------------------------------
def size_pmf(kind: str, procs: int) -> np.ndarray:
    """P(size = s) for s = 0..procs, from the two-stage-uniform model.

    ``uhi`` shifts with log2(procs) (interactive keeps its 1.5 gap below log2 P),
    ``umed`` keeps its published distance below ``uhi``.
    """
    c = PUBLISHED[kind]
    shift = math.log2(procs) - 7.0
    lo, med, hi, up = c["ulow"], c["umed"] + shift, c["uhi"] + shift, c["uprob"]

    def cdf(x: np.ndarray | float) -> np.ndarray:
        x = np.asarray(x, dtype=float)
        return up * np.clip((x - lo) / (med - lo), 0, 1) + (1 - up) * np.clip((x - med) / (hi - med), 0, 1)

    sp, p2 = c["serial_prob"], c["pow2_prob"]
    other = 1.0 - sp - p2
    pmf = np.zeros(procs + 1)
    pmf[1] += sp
    # Power-of-two jobs: round(x) = k with half-up rounding, size 2**k.
    for k in range(0, int(math.ceil(hi)) + 1):
        pmf[min(2**k, procs)] += p2 * float(cdf(k + 0.5) - cdf(k - 0.5))
    # Other parallel jobs: size s when 2**x lies in [s - 0.5, s + 0.5).
    s = np.arange(1, 2 ** int(math.ceil(hi)) + 2)
    lower = np.where(s == 1, -np.inf, np.log2(np.maximum(s - 0.5, 1e-300)))
    mass = other * (cdf(np.log2(s + 0.5)) - cdf(lower))
    np.add.at(pmf, np.minimum(s, procs), mass)
    return pmf


def hypergamma_cdf(h: np.ndarray, kind: str, size: np.ndarray | int) -> np.ndarray:
    """CDF of log(runtime) for a job of ``size``: the capped hyper-Gamma mixture."""
    c = PUBLISHED[kind]
    p = np.clip(c["pa"] * np.asarray(size) + c["pb"], 0, 1)
    g1 = stats.gamma(c["a1"], scale=c["b1"])
    g2 = stats.gamma(c["a2"], scale=c["b2"])

    def mix(x: np.ndarray | float) -> np.ndarray:
        return p * g1.cdf(x) + (1 - p) * g2.cdf(x)

    return np.minimum(mix(h), mix(LOG_RUNTIME_CAP)) / mix(LOG_RUNTIME_CAP)


def daily_weights(kind: str) -> np.ndarray:
    """48 half-hour weights: Gamma(anum, bnum) mass around bucket i = 11..58, folded."""
    c = PUBLISHED[kind]
    g = stats.gamma(c["anum"], scale=c["bnum"])
    w = np.zeros(48)
    for i in range(11, 59):
        w[(i - 1) % 48] = g.cdf(i + 0.5) - g.cdf(i - 0.5)
    return w / w.mean()


def hourly_counts(submit: np.ndarray, start_hour: int = 0) -> np.ndarray:
    clock = (np.asarray(submit) + 3600 * start_hour) % 86400
    return np.bincount((clock // 3600).astype(int), minlength=24)


def pooled_chi_square_pvalue(observed: np.ndarray, expected: np.ndarray) -> float:
    """Chi-square p-value with every bin of expected count < 5 pooled into one."""
    observed = np.asarray(observed, dtype=float)
    big = expected >= 5
    obs, exp = list(observed[big]), list(expected[big])
    if expected[~big].sum() > 0:
        obs.append(observed[~big].sum())
        exp.append(expected[~big].sum())
    else:  # impossible sizes must not occur at all
        assert observed[~big].sum() == 0
    exp_arr = np.array(exp)
    return float(stats.chisquare(obs, exp_arr * sum(obs) / exp_arr.sum()).pvalue)


def binomial_check(count: int, n: int, p: float) -> tuple[float, float]:
    """(observed fraction, tolerance = Z standard errors)."""
    return count / n, Z * math.sqrt(p * (1 - p) / n)


# -- parameters ------------------------------------------------------------------
@pytest.mark.parametrize("kind", ["batch", "interactive", "typeless"])
def test_parameters_are_the_published_ones(kind: str) -> None:
    prm = LUBLIN_PARAMS[kind]
    for name, value in PUBLISHED[kind].items():
        assert getattr(prm, name) == value, (kind, name)


@pytest.mark.parametrize("kind", ["batch", "interactive", "typeless"])
def test_daily_cycle_weights_match_gamma_construction(kind: str) -> None:
    w = lublin_daily_cycle(kind)
    np.testing.assert_allclose(w, daily_weights(kind), rtol=1e-10, atol=1e-12)
    assert w.shape == (48,) and np.all(w > 0)
    assert w.mean() == pytest.approx(1.0, abs=1e-12)


# -- job sizes -------------------------------------------------------------------
def test_serial_fraction_batch(batch: JobTable) -> None:
    frac, tol = binomial_check(int((batch.procs == 1).sum()), N, 0.2927)
    assert abs(frac - 0.2927) <= tol, (frac, tol)


def test_serial_fraction_per_type_in_mixed(mixed: JobTable) -> None:
    for queue, kind in [(1, "batch"), (0, "interactive")]:
        procs = mixed.procs[mixed.queue == queue]
        sp = PUBLISHED[kind]["serial_prob"]
        frac, tol = binomial_check(int((procs == 1).sum()), procs.size, sp)
        assert abs(frac - sp) <= tol, (kind, frac, sp, tol)


def test_serial_fraction_typeless(typeless: JobTable) -> None:
    frac, tol = binomial_check(int((typeless.procs == 1).sum()), N, 0.244)
    assert abs(frac - 0.244) <= tol, (frac, tol)
    assert set(typeless.queue.tolist()) == {-1}


@pytest.mark.parametrize("kind", ["batch", "interactive"])
def test_size_distribution_chi_square(kind: str) -> None:
    # Whole size distribution against the model's pmf; bins with an expected
    # count below 5 are pooled.  Reject only at p < 1e-6.
    t = lublin_feitelson(N, 128, seed=7, job_type=kind)
    pmf = size_pmf(kind, 128)
    assert pmf.sum() == pytest.approx(1.0, abs=1e-12)
    observed = np.bincount(t.procs, minlength=129)
    assert pooled_chi_square_pvalue(observed, N * pmf) > 1e-6


def test_size_distribution_scales_with_machine_size() -> None:
    # P = 1024: uhi = 10, umed = 8 (published gaps kept); same chi-square rule.
    t = lublin_feitelson(N, 1024, seed=8, job_type="batch")
    pmf = size_pmf("batch", 1024)
    observed = np.bincount(t.procs, minlength=1025)
    assert pooled_chi_square_pvalue(observed, N * pmf) > 1e-6


def test_power_of_two_fraction_among_parallel_jobs(batch: JobTable) -> None:
    # A parallel job is a power of two when it was rounded (share
    # pow2_prob / (1 - serial_prob) = 0.9453 of parallel jobs) or when an
    # unrounded size lands on one by chance; the pmf accounts for both.
    pmf = size_pmf("batch", 128)
    sizes = np.arange(129)
    is_pow2 = (sizes >= 2) & ((sizes & (sizes - 1)) == 0)
    expected = pmf[is_pow2].sum() / pmf[2:].sum()
    rounded_share = 0.6686 / (1 - 0.2927)
    assert rounded_share < expected < rounded_share + (1 - rounded_share) * 0.5

    parallel = batch.procs[batch.procs > 1]
    hits = int(((parallel & (parallel - 1)) == 0).sum())
    frac, tol = binomial_check(hits, parallel.size, expected)
    assert abs(frac - expected) <= tol, (frac, expected, tol)


@pytest.mark.parametrize("procs", [1, 2, 64, 100, 128, 1024])
def test_sizes_within_machine(procs: int) -> None:
    for kind in ("batch", "interactive", "mixed"):
        t = lublin_feitelson(20_000, procs, seed=procs, job_type=kind)
        assert t.procs.min() >= 1 and t.procs.max() <= procs
        np.testing.assert_array_equal(t.procs, t.procs_requested)
        assert t.max_procs == procs
    # Batch jobs reach the full machine (about 2 % of jobs do at these sizes).
    full = lublin_feitelson(20_000, procs, seed=1, job_type="batch")
    assert full.procs.max() == procs
    if procs == 1:
        assert np.all(full.procs == 1)


def test_interactive_jobs_are_narrower() -> None:
    # Interactive uhi = log2(P) - 1.5: at most round(2**5.5) = 45 of 128.
    t = lublin_feitelson(N, 128, seed=3, job_type="interactive")
    assert t.procs.max() == 45


# -- runtimes --------------------------------------------------------------------
@pytest.mark.parametrize("kind", ["batch", "interactive"])
def test_serial_runtime_distribution_ks(kind: str, batch: JobTable, mixed: JobTable) -> None:
    # Runtimes are floor(exp(h)), so P(R <= k) = F(log(k + 1)) with F the capped
    # hyper-Gamma CDF at size 1.  Both CDFs are step functions jumping only at
    # integers, so the KS distance is the max over integers; the continuous KS
    # critical value is conservative for a discrete law.
    table = batch if kind == "batch" else mixed.select(mixed.queue == 0)
    r = np.sort(table.runtime[table.procs == 1])
    n = r.size
    k = np.arange(1, int(math.exp(LOG_RUNTIME_CAP)) + 1)
    model = hypergamma_cdf(np.log(k + 1.0), kind, 1)
    empirical = np.searchsorted(r, k, side="right") / n
    distance = float(np.max(np.abs(empirical - model)))
    critical = float(stats.kstwo.isf(1e-6, n))
    assert distance < critical, (distance, critical, n)


def test_serial_runtime_median(batch: JobTable) -> None:
    # Median of log runtime of serial batch jobs vs the mixture's median;
    # tolerance 5 standard errors of a sample median, plus 0.01 for flooring.
    r = batch.runtime[batch.procs == 1]
    grid = np.linspace(0.0, LOG_RUNTIME_CAP, 120_001)
    cdf = hypergamma_cdf(grid, "batch", 1)
    median = float(np.interp(0.5, cdf, grid))
    density = float(np.interp(median, grid, np.gradient(cdf, grid)))
    se = math.sqrt(0.25 / r.size) / density
    assert abs(np.median(np.log(r)) - median) <= Z * se + 0.01


def test_runtime_grows_with_size_linearly_in_nodes(batch: JobTable) -> None:
    # p = pa * size + pb on the size itself: P(R >= 3000 s) is about 0.41 for
    # 2..8 processors and about 0.6 for >= 64 (it would barely move if p used
    # log2 size).  Each group's count of long jobs is a sum of independent
    # Bernoullis with known p_i; tolerance Z standard deviations.
    threshold = 3000.0
    long_prob = {}
    for name, mask in [
        ("narrow", (batch.procs >= 2) & (batch.procs <= 8)),
        ("wide", batch.procs >= 64),
    ]:
        sizes = batch.procs[mask]
        pi = 1.0 - hypergamma_cdf(np.log(threshold), "batch", sizes)
        observed = int((batch.runtime[mask] >= threshold).sum())
        sd = math.sqrt(float(np.sum(pi * (1 - pi))))
        assert abs(observed - pi.sum()) <= Z * sd, (name, observed, pi.sum(), sd)
        long_prob[name] = observed / sizes.size
    assert long_prob["wide"] > long_prob["narrow"] + 0.1


def test_runtime_bounds_and_integrality(batch: JobTable, mixed: JobTable) -> None:
    for t in (batch, mixed):
        assert t.runtime.min() >= 1
        assert t.runtime.max() <= math.floor(math.exp(LOG_RUNTIME_CAP))
        np.testing.assert_array_equal(t.runtime, np.floor(t.runtime))


# -- arrivals --------------------------------------------------------------------
def test_submit_times_sorted_integral_and_other_fields(mixed: JobTable) -> None:
    s = mixed.submit
    assert s[0] >= 0 and np.all(np.diff(s) >= 0)
    np.testing.assert_array_equal(s, np.floor(s))
    np.testing.assert_array_equal(mixed.job_id, np.arange(1, N + 1))
    assert np.all(mixed.time_requested == -1)
    assert np.all(mixed.status == 1)
    assert set(mixed.queue.tolist()) == {0, 1}
    assert mixed.metadata["MaxProcs"] == "128" and mixed.metadata["MaxNodes"] == "128"


@pytest.mark.parametrize("kind", ["batch", "interactive"])
def test_daily_cycle_of_arrivals(kind: str, batch: JobTable, mixed: JobTable) -> None:
    submit = batch.submit if kind == "batch" else mixed.submit[mixed.queue == 0]
    counts = hourly_counts(submit)
    share = counts / counts.sum()
    expected = daily_weights(kind).reshape(24, 2).sum(axis=1) / 48
    # Correlation over 24 hours >= 0.97 (observed 0.99 over 40 seeds); each
    # hourly share within 0.025 of the model (worst seen: 0.011).
    assert np.corrcoef(counts, expected)[0, 1] >= 0.97
    assert np.max(np.abs(share - expected)) <= 0.025
    # Peak around 13-15 h (the model's top five hours lie in 11..16), trough
    # before dawn (model: 04-06 h); days much busier than nights (model: 4x-5.6x).
    assert 11 <= int(np.argmax(counts)) <= 16
    assert 2 <= int(np.argmin(counts)) <= 6
    assert counts[9:18].mean() > 3 * counts[0:6].mean()


def test_start_hour_aligns_cycle_to_clock() -> None:
    t = lublin_feitelson(N, 128, seed=5, job_type="batch", start_hour=8)
    expected = daily_weights("batch").reshape(24, 2).sum(axis=1)
    # Read as clock time (submit 0 = 08:00) the cycle is the model's ...
    assert np.corrcoef(hourly_counts(t.submit, start_hour=8), expected)[0, 1] >= 0.97
    # ... read as if submit 0 were midnight it is shifted by 8 h (model: -0.50).
    assert np.corrcoef(hourly_counts(t.submit), expected)[0, 1] < 0.0


@pytest.mark.parametrize("kind", ["batch", "interactive"])
def test_interarrival_times_in_virtual_time_are_log_gamma(kind: str, batch: JobTable, mixed: JobTable) -> None:
    # Undo the daily cycle: virtual time advances w[b] s per second of bucket b.
    # Then log(inter-arrival) ~ Gamma(aarr * arar, barr) capped at 13.  Quantiles
    # 0.5/0.75/0.9 within Z standard errors + 0.005 (whole-second submit times).
    submit = batch.submit if kind == "batch" else mixed.submit[mixed.queue == 0]
    w = daily_weights(kind)
    edges = np.concatenate(([0.0], np.cumsum(w))) * 1800.0
    bucket = np.floor(submit / 1800.0).astype(np.int64)
    virtual = (bucket // 48) * edges[-1] + edges[bucket % 48] + (submit - 1800.0 * bucket) * w[bucket % 48]
    gaps = np.diff(np.concatenate(([0.0], virtual)))
    logs = np.log(np.maximum(gaps, 1e-9))
    c = PUBLISHED[kind]
    law = stats.gamma(c["aarr"] * c["arar"], scale=c["barr"])
    kept = law.cdf(LOG_IAT_CAP)
    for q in (0.5, 0.75, 0.9):
        x_q = law.ppf(q * kept)
        se = math.sqrt(q * (1 - q) / logs.size) / (law.pdf(x_q) / kept)
        assert abs(np.quantile(logs, q) - x_q) <= Z * se + 0.005, (q, np.quantile(logs, q), x_q)


def test_type_mix_follows_stream_rates(mixed: JobTable) -> None:
    # Batch jobs in [0, T] form a renewal process with mean gap m and variance v
    # (capped log-gamma, in virtual time; the daily cycle averages out over
    # ~360 days): N(T) ~ Normal(T / m, T v / m^3).  Tolerance Z sigma.
    c = PUBLISHED["batch"]
    law = stats.gamma(c["aarr"] * c["arar"], scale=c["barr"])
    kept = law.cdf(LOG_IAT_CAP)
    m1 = integrate.quad(lambda x: math.exp(x) * law.pdf(x), 0, LOG_IAT_CAP, limit=200)[0] / kept
    m2 = integrate.quad(lambda x: math.exp(2 * x) * law.pdf(x), 0, LOG_IAT_CAP, limit=200)[0] / kept
    var = m2 - m1**2
    horizon = float(mixed.submit[-1])
    n_batch = int((mixed.queue == 1).sum())
    sd = math.sqrt(horizon * var / m1**3)
    assert abs(n_batch - horizon / m1) <= Z * sd, (n_batch, horizon / m1, sd)
    assert 0.10 < n_batch / N < 0.20  # the model: about 15 % batch


# -- determinism and arguments ---------------------------------------------------
def test_same_seed_same_table_different_seed_different() -> None:
    a = lublin_feitelson(5_000, 128, seed=11)
    b = lublin_feitelson(5_000, 128, seed=11)
    c = lublin_feitelson(5_000, 128, seed=12)
    assert a.equals(b)
    for name in ("submit", "runtime", "procs", "queue"):
        np.testing.assert_array_equal(getattr(a, name), getattr(b, name))
    assert not np.array_equal(a.submit, c.submit)
    assert not np.array_equal(a.runtime, c.runtime)


def test_generator_seed_is_reproducible() -> None:
    a = lublin_feitelson(2_000, 64, seed=np.random.default_rng(3), job_type="batch")
    b = lublin_feitelson(2_000, 64, seed=np.random.default_rng(3), job_type="batch")
    assert a.equals(b) and len(a) == 2_000


@pytest.mark.parametrize(
    ("kwargs", "error", "message"),
    [
        (dict(n_jobs=-1), ValueError, r"n_jobs == -1, must be >= 1"),
        (dict(n_jobs=2.5), TypeError, r"n_jobs == 2.5, must be an integer"),
        (dict(procs=0), ValueError, r"procs == 0, must be >= 1"),
        (dict(procs=True), TypeError, r"procs == True, must be an integer"),
        (dict(seed=-3), ValueError, r"seed == -3, must be >= 0"),
        (dict(seed="7"), TypeError, r"seed == '7', must be an integer"),
        (dict(job_type="gpu"), ValueError, r"job_type == 'gpu', must be one of"),
        (dict(start_hour=24), ValueError, r"start_hour == 24, must be <= 23"),
        (dict(start_hour=-1), ValueError, r"start_hour == -1, must be >= 0"),
    ],
)
def test_bad_arguments(kwargs: dict, error: type[Exception], message: str) -> None:
    args = dict(n_jobs=10, procs=16)
    args.update(kwargs)
    with pytest.raises(error, match=message):
        lublin_feitelson(args.pop("n_jobs"), args.pop("procs"), **args)


def test_daily_cycle_rejects_mixed() -> None:
    with pytest.raises(ValueError, match=r"job_type == 'mixed'"):
        lublin_daily_cycle("mixed")
