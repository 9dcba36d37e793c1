"""The Lublin–Feitelson workload model of rigid parallel jobs.

U. Lublin and D. G. Feitelson, "The workload on parallel supercomputers:
modeling the characteristics of rigid jobs", *J. Parallel Distrib. Comput.*
63(11):1105–1122, 2003.  The model was fitted to traces of several production
machines and is the synthetic workload used by much of the parallel job
scheduling literature (e.g. the DFRS work of Stillwell, Vivien and Casanova).

Every constant below is taken from the authors' reference generator
``m_lublin99.c`` (Parallel Workloads Archive, ``/labs/parallel/workload/m_lublin99``;
the copy read is ``lublinworkload/m_lublin99.c`` in the GitHub repository
``renatolfc/lublinworkload``).  The structure of each piece follows that program;
the code here is an independent vectorised implementation.

The model
---------
Each job type (batch, interactive) is an independent stream with its own
parameters.  A job gets:

**Size** (processors).  With probability ``serial_prob`` the job is serial
(size 1).  Otherwise ``x`` is drawn from a *two-stage uniform* distribution:
``U(ulow, umed)`` with probability ``uprob``, else ``U(umed, uhi)``; ``x`` is
the log2 of the size.  The generator uses one uniform ``u`` for both
decisions: ``u <= serial_prob`` gives a serial job, ``u <= serial_prob +
pow2_prob`` a *power-of-two* job whose ``x`` is rounded to an integer first.
So ``pow2_prob`` is the share of **all** jobs that are rounded to a power of
two (the share among parallel jobs is ``pow2_prob / (1 - serial_prob)``; the
other parallel jobs may still land on a power of two by chance).  The size is
``round(2**x)``.

**Runtime** (seconds).  ``log(runtime)`` (natural log) follows a *hyper-Gamma*
distribution: ``Gamma(a1, b1)`` with probability ``p``, else ``Gamma(a2, b2)``
(shape ``a``, scale ``b``).  ``p = pa * size + pb`` -- linear in the size
itself, not in its log -- clipped to ``[0, 1]``; ``pa < 0``, so wider jobs
run longer.  Draws with ``log(runtime) > 12`` (about 45 hours) are rejected
and redrawn (component choice included).

**Arrivals.**  The log of the inter-arrival time, in a *virtual* clock, is
``Gamma(aarr * arar, barr)``, redrawn when above 13 (about 5 days).  ``arar``
("arrive-rush-to-all ratio") converts the rush-hour fit ``aarr`` into a
whole-day one.  The virtual clock runs, relative to the wall clock, at the
daily-cycle weight of the current half-hour ("bucket"), so the arrival rate is
proportional to the weight.  The 48 weights come from a Gamma(``anum``,
``bnum``) curve: for ``i = 11 .. 58`` (``11`` is the program's
``CYCLIC_DAY_START``), bucket ``(i - 1) mod 48`` gets
``G(i + 0.5) - G(i - 0.5)`` with ``G`` the Gamma(anum, bnum) CDF in bucket
units; the weights are then divided by their mean.  (The program's comments
speak of hours here, but its code indexes half-hour buckets; we follow the
code, which is what produced every published trace.)  The peak is at 13:00
(batch) / 14:00 (interactive), the trough at 05:00.

Parameters (``m_lublin99.c``, fitted for a 128-processor machine)
-------------------------------------------------------------------
=============  ==========  ============  ==========  =====================================
parameter      batch       interactive   typeless    role
=============  ==========  ============  ==========  =====================================
serial_prob    0.2927      0.1541        0.244       P(serial job)
pow2_prob      0.6686      0.625         0.576       P(size rounded to a power of two)
ulow           1.2         1.0           0.8         two-stage uniform on log2(size): low
umed           5.0         3.0           4.5         ... break point
uhi            7.0         5.5           7.0         ... high (log2 128 = 7)
uprob          0.875       0.705         0.86        ... P(first stage)
a1, b1         6.57, 0.823 3.8351,0.6605 4.2, 0.94   hyper-Gamma, first component
a2, b2         639.1,      7.073,        312, 0.03   hyper-Gamma, second component
               0.0156      0.6856
pa, pb         -0.003,     -0.0118,      -0.0054,    p = pa * size + pb
               0.6986      0.9156        0.78
aarr, barr     6.0415,     6.5510,       10.2303,    log inter-arrival ~ Gamma(aarr*arar, barr)
               0.8531      0.6621        0.4871
arar           1.0519      0.9797        1.0225      rush-hour -> whole-day correction
anum, bnum     6.1271,     8.9186,       8.1737,     daily-cycle Gamma (bucket units)
               5.2740      3.6680        3.9631
=============  ==========  ============  ==========  =====================================

Fixed constants of the program: 48 buckets of 1800 s, ``CYCLIC_DAY_START =
11``, log-runtime cap 12, log-inter-arrival cap 13, simulation start at hour 0.

Choices made here
-----------------
* ``job_type`` defaults to ``"mixed"``: the program as distributed
  (``INCLUDE_JOBS_TYPE = 1``) superposes a batch and an interactive stream and
  labels each job with its type; this is the model's default, i.e. what the
  stock generator produces when run unchanged.  ``"batch"`` and
  ``"interactive"`` give one stream; ``"typeless"`` uses the program's
  whole-sample fit (``INCLUDE_JOBS_TYPE = 0``).
* Machine size ``procs`` other than 128: ``uhi`` becomes ``log2(procs)`` for
  batch/typeless jobs and ``log2(procs) - 1.5`` for interactive ones (keeping
  the published 45-of-128 interactive maximum in proportion), and ``umed``
  keeps its published distance below ``uhi`` (the program's comment: ``UMed =
  UHi - 2.5``, range 1.5..3.5).  For ``procs = 128`` this is exactly the
  published table.  For tiny machines ``umed`` and ``uhi`` are raised to at
  least ``ulow``.  Sizes are finally clipped to ``[1, procs]`` (only matters
  when ``procs`` is not a power of two or is very small).
* Rounding: like the program, ``round`` is round-half-up (``floor(x + 0.5)``)
  and runtimes are truncated to whole seconds, ``floor(exp(h))``, which is
  always ``>= 1`` s because ``h > 0``.
* Submit times are whole seconds, ``floor`` of the exact arrival time, counted
  from the simulation start, which is ``start_hour`` o'clock (the first job
  arrives one inter-arrival time after it, as in the program).  The program
  truncates its running clock to an integer at *every* job, which makes the
  output drift about 0.5 s per job behind its own daily cycle; we keep the
  clock exact and truncate only the output.
* In ``"mixed"`` mode the job type goes to the SWF ``queue`` field exactly as
  the program writes it: 1 = batch, 0 = interactive (SWF's queue 0 means
  interactive).  ``"typeless"`` jobs get queue -1 (the program writes 0).
* The model has no user runtime estimates: ``time_requested`` is -1; the
  requested size equals the allocated size; status is 1 (completed);
  ``job_id`` is 1..n in submit order.
* Random numbers come from a ``numpy.random.Generator`` (not ``drand48``), so
  traces are statistically, not bitwise, equal to the program's.  For
  ``"mixed"``, each stream draws ``n_jobs`` candidate jobs and the first
  ``n_jobs`` of the merged streams are kept (ties go to interactive, as in the
  program).

Example
-------
>>> from clustersched.workload.lublin import lublin_feitelson
>>> t = lublin_feitelson(1000, 128, seed=7)
>>> len(t), t.max_procs, int(t.procs.min()) >= 1, int(t.procs.max()) <= 128
(1000, 128, True, True)
>>> t.equals(lublin_feitelson(1000, 128, seed=7))
True
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .._checks import MAX_PROCS, check_choice, check_int, make_rng
from .jobs import JobTable

__all__ = [
    "LUBLIN_PARAMS",
    "LublinParams",
    "lublin_daily_cycle",
    "lublin_feitelson",
]

#: Machine size the published parameters were fitted for (``UHI = 7``).
REFERENCE_PROCS = 128
#: Half-hour buckets per day and their length, as in ``m_lublin99.c``.
BUCKETS = 48
SECONDS_PER_BUCKET = 86400 // BUCKETS
#: First bucket index of the fitted "day" (``CYCLIC_DAY_START``).
CYCLIC_DAY_START = 11
#: Caps on the natural log of runtime / inter-arrival time (``TOO_MUCH_TIME``,
#: ``TOO_MUCH_ARRIVE_TIME``); larger draws are redrawn.
MAX_LOG_RUNTIME = 12.0
MAX_LOG_INTERARRIVAL = 13.0

JOB_TYPES = ("batch", "interactive", "mixed", "typeless")

#: Most jobs one call generates: ten million take about 3 GB of memory and
#: 20 s while being drawn, more than any trace of the Parallel Workloads Archive.
MAX_JOBS = 10**7


@dataclass(frozen=True)
class LublinParams:
    """Published parameters of one job type (see the module docstring table).

    ``ulow``, ``umed`` and ``uhi`` are the values for a 128-processor machine;
    :func:`lublin_feitelson` shifts ``umed`` and ``uhi`` for other sizes.
    """

    serial_prob: float
    pow2_prob: float
    ulow: float
    umed: float
    uhi: float
    uprob: float
    a1: float
    b1: float
    a2: float
    b2: float
    pa: float
    pb: float
    aarr: float
    barr: float
    anum: float
    bnum: float
    arar: float


#: The constants of ``m_lublin99.c`` by job type.
LUBLIN_PARAMS: dict[str, LublinParams] = {
    "batch": LublinParams(
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
    "interactive": LublinParams(
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
    "typeless": LublinParams(
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

# SWF queue number written for each stream (the program's type codes).
_QUEUE = {"batch": 1, "interactive": 0, "typeless": -1}


def _gamma_cdf(x: float, shape: float, scale: float) -> float:
    """CDF of Gamma(shape, scale) at ``x`` (regularised lower incomplete gamma).

    Uses the power series P(a, z) = z^a e^-z / Gamma(a) * sum_n z^n / (a)_(n+1),
    whose terms are all positive (no cancellation) and which converges for every
    z; the arguments met here are small (z < 20), so a few dozen terms suffice.
    """
    z = x / scale
    if z <= 0.0:
        return 0.0
    term = 1.0 / shape
    total = term
    n = 0
    while term > total * 1e-17:
        n += 1
        term *= z / (shape + n)
        total += term
        if n > 100_000:  # cannot happen for finite z; guards an endless loop
            break
    return min(1.0, total * math.exp(-z + shape * math.log(z) - math.lgamma(shape)))


def lublin_daily_cycle(job_type: str = "batch") -> np.ndarray:
    """The 48 half-hourly arrival-rate weights of one job type (mean 1).

    Element ``k`` is the relative arrival rate during clock time
    ``[k * 30 min, (k + 1) * 30 min)``.

    Parameters
    ----------
    job_type : {"batch", "interactive", "typeless"}
        Whose ``anum``/``bnum`` to use.

    Returns
    -------
    numpy.ndarray
        float64 array of shape (48,), positive, mean 1.

    Examples
    --------
    >>> w = lublin_daily_cycle("batch")
    >>> w.shape, round(float(w.mean()), 12), int(w.argmax()), int(w.argmin())
    ((48,), 1.0, 26, 9)
    """
    if job_type not in _QUEUE:
        raise ValueError(
            f"job_type == {job_type!r}, must be one of {sorted(_QUEUE)} (a daily cycle belongs to one stream)"
        )
    prm = LUBLIN_PARAMS[job_type]
    weights = np.empty(BUCKETS)
    # The fitted day spans bucket indices CYCLIC_DAY_START .. +47; the program
    # folds index i onto array slot (i - 1) mod 48 (its buckets are 1-based).
    for i in range(CYCLIC_DAY_START, CYCLIC_DAY_START + BUCKETS):
        weights[(i - 1) % BUCKETS] = _gamma_cdf(i + 0.5, prm.anum, prm.bnum) - _gamma_cdf(i - 0.5, prm.anum, prm.bnum)
    return weights / weights.mean()


# -- the three model pieces -----------------------------------------------------
def _size_bounds(prm: LublinParams, procs: int) -> tuple[float, float, float]:
    """(ulow, umed, uhi) for a machine of ``procs`` processors (see module notes)."""
    shift = math.log2(procs) - math.log2(REFERENCE_PROCS)
    ulow = prm.ulow
    umed = max(prm.umed + shift, ulow)
    uhi = max(prm.uhi + shift, umed)
    return ulow, umed, uhi


def _draw_sizes(rng: np.random.Generator, n: int, prm: LublinParams, procs: int) -> np.ndarray:
    ulow, umed, uhi = _size_bounds(prm, procs)
    # One uniform decides serial / power-of-two / other, as in the program, so
    # pow2_prob is a share of all jobs, not of parallel ones.
    u = rng.random(n)
    serial = u <= prm.serial_prob
    pow2 = ~serial & (u <= prm.serial_prob + prm.pow2_prob)
    first_stage = rng.random(n) <= prm.uprob
    lo = np.where(first_stage, ulow, umed)
    hi = np.where(first_stage, umed, uhi)
    # lo + U*(hi - lo) rather than rng.uniform(lo, hi): well defined when lo == hi.
    x = lo + rng.random(n) * (hi - lo)
    x = np.where(pow2, np.floor(x + 0.5), x)
    size = np.floor(np.exp2(x) + 0.5)
    size[serial] = 1.0
    return np.clip(size, 1, procs).astype(np.int64)


def _draw_log_runtimes(rng: np.random.Generator, sizes: np.ndarray, prm: LublinParams) -> np.ndarray:
    """Natural log of the runtimes: hyper-Gamma with size-dependent mixing, capped."""
    p = np.clip(prm.pa * sizes + prm.pb, 0.0, 1.0)
    out = np.empty(sizes.shape[0])
    todo = np.arange(sizes.shape[0])
    # Rejection redraws the whole mixture (component included), like the program,
    # so the result is the mixture conditioned on h <= MAX_LOG_RUNTIME.
    while todo.size:
        first = rng.random(todo.size) <= p[todo]
        h = rng.gamma(np.where(first, prm.a1, prm.a2), np.where(first, prm.b1, prm.b2))
        out[todo] = h
        todo = todo[h > MAX_LOG_RUNTIME]
    return out


def _draw_log_interarrivals(rng: np.random.Generator, n: int, prm: LublinParams) -> np.ndarray:
    shape = prm.aarr * prm.arar
    out = rng.gamma(shape, prm.barr, n)
    bad = np.flatnonzero(out > MAX_LOG_INTERARRIVAL)
    while bad.size:
        redraw = rng.gamma(shape, prm.barr, bad.size)
        out[bad] = redraw
        bad = bad[redraw > MAX_LOG_INTERARRIVAL]
    return out


def _warp(virtual: np.ndarray, weights: np.ndarray, start_bucket: int) -> np.ndarray:
    """Wall-clock seconds at which the virtual clock reaches ``virtual`` seconds.

    The virtual clock advances ``weights[b]`` virtual seconds per wall second
    while the wall clock is in bucket ``b``; the wall clock starts at the
    beginning of bucket ``start_bucket``.  This is the inverse of a piecewise
    linear map, evaluated in closed form instead of the program's bucket walk
    (which computes the same function one job at a time).
    """
    rot = np.roll(weights, -start_bucket)  # rot[k] = weight of the k-th bucket after the start
    edges = np.concatenate(([0.0], np.cumsum(rot)))  # virtual buckets at each wall bucket edge
    per_day = edges[-1]
    v = np.asarray(virtual, dtype=np.float64) / SECONDS_PER_BUCKET
    day = np.floor(v / per_day)
    rest = v - day * per_day
    k = np.clip(np.searchsorted(edges, rest, side="right") - 1, 0, BUCKETS - 1)
    within = (rest - edges[k]) / rot[k]
    return SECONDS_PER_BUCKET * (day * BUCKETS + k + within)


def _stream(
    rng: np.random.Generator, n: int, job_type: str, procs: int, start_hour: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(arrival seconds, sizes, runtimes) of the first ``n`` jobs of one stream."""
    prm = LUBLIN_PARAMS[job_type]
    virtual = np.cumsum(np.exp(_draw_log_interarrivals(rng, n, prm)))
    arrival = _warp(virtual, lublin_daily_cycle(job_type), start_hour * BUCKETS // 24)
    sizes = _draw_sizes(rng, n, prm, procs)
    runtime = np.floor(np.exp(_draw_log_runtimes(rng, sizes, prm)))
    return arrival, sizes, runtime


def lublin_feitelson(
    n_jobs: int,
    procs: int = REFERENCE_PROCS,
    *,
    seed: int | np.random.Generator = 0,
    job_type: str = "mixed",
    start_hour: int = 0,
) -> JobTable:
    """Generate a synthetic workload from the Lublin–Feitelson (2003) model.

    Parameters
    ----------
    n_jobs : int
        Number of jobs, ``1 .. 10**7`` (:data:`MAX_JOBS`; a trace of no job
        could not be read back, as SWF readers reject it).
    procs : int, default 128
        Machine size P, ``1 .. 2**32 - 1`` (the largest machine the simulator
        handles); job sizes lie in ``[1, P]``.  The published fit
        is for P = 128; other sizes shift the size distribution with log2 P
        (module docstring).
    seed : int or numpy.random.Generator, default 0
        Seed (>= 0) of a fresh ``numpy.random.default_rng``; the same seed
        gives an identical table.  A Generator is used as is (and advanced).
    job_type : {"mixed", "batch", "interactive", "typeless"}, default "mixed"
        ``"mixed"``: batch and interactive streams superposed (the reference
        program's default); ``"batch"`` / ``"interactive"``: one stream;
        ``"typeless"``: the program's single whole-sample fit.
    start_hour : int, default 0
        Clock hour (0..23) at submit time 0; the daily cycle is aligned to it.

    Returns
    -------
    JobTable
        ``n_jobs`` rows in submit order: ``submit`` (whole seconds from the
        start), ``runtime`` (whole seconds, 1 .. 162754), ``procs`` and
        ``procs_requested`` (the size), ``time_requested`` = -1, ``status`` = 1,
        ``queue`` = 1 batch / 0 interactive / -1 typeless, other fields -1.
        Metadata: ``MaxProcs``, ``MaxNodes``, ``MaxJobs``, ``MaxRecords``,
        ``MaxRuntime``, ``Note``.

    Raises
    ------
    TypeError
        ``n_jobs``, ``procs``, ``start_hour`` or ``seed`` of a wrong type.
    ValueError
        An argument out of range or an unknown ``job_type``.

    Examples
    --------
    >>> t = lublin_feitelson(500, 64, seed=3, job_type="batch")
    >>> len(t), t.max_procs, bool((t.submit[1:] >= t.submit[:-1]).all())
    (500, 64, True)
    >>> sorted(set(t.queue.tolist())), bool((t.runtime >= 1).all())
    ([1], True)
    """
    n_jobs = check_int("n_jobs", n_jobs, 1, MAX_JOBS)
    procs = check_int("procs", procs, 1, MAX_PROCS)
    start_hour = check_int("start_hour", start_hour, 0, 23)
    check_choice("job_type", job_type, JOB_TYPES)
    rng = make_rng(seed)

    streams = ("batch", "interactive") if job_type == "mixed" else (job_type,)
    parts = [_stream(rng, n_jobs, kind, procs, start_hour) for kind in streams]
    arrival = np.concatenate([a for a, _, _ in parts])
    sizes = np.concatenate([s for _, s, _ in parts])
    runtime = np.concatenate([r for _, _, r in parts])
    queue = np.concatenate([np.full(n_jobs, _QUEUE[kind], np.int64) for kind in streams])
    # Merge by arrival time; on a tie the interactive job (queue 0) comes first,
    # as the program's "batch only if strictly earlier" rule does.
    order = np.lexsort((queue, arrival))[:n_jobs]

    seed_note = "generator" if isinstance(seed, np.random.Generator) else str(seed)
    metadata = {
        "MaxProcs": str(procs),
        "MaxNodes": str(procs),
        "MaxJobs": str(n_jobs),
        "MaxRecords": str(n_jobs),
        "MaxRuntime": str(int(math.exp(MAX_LOG_RUNTIME))),
        "Note": (
            "Synthetic: Lublin & Feitelson, JPDC 63(11) 2003 (m_lublin99.c parameters); "
            f"job_type={job_type}, start_hour={start_hour}, seed={seed_note}"
        ),
    }
    return JobTable(
        {
            "submit": np.floor(arrival[order]),
            "runtime": runtime[order],
            "procs": sizes[order],
            "procs_requested": sizes[order],
            "time_requested": np.full(n_jobs, -1.0),
            "status": np.ones(n_jobs, dtype=np.int64),
            "queue": queue[order],
        },
        metadata=metadata,
    )
