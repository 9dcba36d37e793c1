"""User runtime estimates for job tables that have none: the f-model and the modal model.

Backfilling schedulers plan with the run time each user *requested*, not with
the true runtime, and their results depend on how inaccurate those requests
are.  Synthetic workloads (:func:`~clustersched.workload.lublin.lublin_feitelson`)
carry no request (``time_requested`` is -1), so a simulation with
``estimates="requested"`` silently uses exact runtimes on them.  The two
standard ways of adding estimates are here; each returns a new table whose
``time_requested`` column holds the estimates, always ``>= runtime``.

The f-model (:func:`f_model`)
-----------------------------
A. W. Mu'alem and D. G. Feitelson, "Utilization, predictability, workloads,
and user runtime estimates in scheduling the IBM SP2 with backfilling",
*IEEE TPDS* 12(6):529-543, 2001, the section on the effect of user runtime
estimates: a job of runtime ``r`` gets an estimate drawn uniformly from
``[r, (f + 1) r]``, for a "badness factor" ``f >= 0`` (``f = 0``: exact
estimates; the paper studies f from 0 up to a few hundred).  The same
definition is restated by Tsafrir and Feitelson, "The dynamics of
backfilling: solving the mystery of why increased inaccuracy may help"
(IISWC 2006), abstract: "given a runtime r, the estimate is uniformly
distributed in [r, (f + 1) r]".  So ``estimate / runtime`` is uniform on
``[1, f + 1]`` with mean ``(f + 2) / 2``, and the accuracy ``runtime /
estimate`` has mean ``ln(f + 1) / f``.

Choices made here (the paper leaves them open):

* ``estimate = max(r, round(r * (1 + f * U)))`` with ``U`` uniform on
  ``[0, 1)`` and ``round`` half up: the SWF stores whole seconds, and the
  nearest second keeps the mean ratio ``(f + 2) / 2`` for whole-second
  runtimes (rounding up would add half a second on average: at ``r = 1`` s
  and ``f = 2`` a mean ratio of 2.5 instead of 2), and ``max(r, .)`` keeps a
  fractional runtime's estimate ``>= r``.  The ratio lies in
  ``[1, f + 1 + 0.5 / r]``.
* No cap by default, as in the paper.  ``max_estimate`` caps the estimate at
  the machine's limit, the usual practice of later studies; a job whose
  runtime exceeds the cap gets its runtime (it could not have run otherwise).
* One uniform is drawn per row, in row order, whatever the row holds, so row
  ``i``'s estimate depends only on the seed and on row ``i``.

The modal model (:func:`modal_model`)
-------------------------------------
D. Tsafrir, Y. Etsion and D. G. Feitelson, "Modeling user runtime
estimates", JSSPP 2005, LNCS 3834, pp. 1-35.  Real estimates are *modal*: a
few round values ("5 minutes", "1 hour", the maximum allowed) are used by
most jobs (abstract: "only 20 different values are used as estimates for
about 90% of the jobs"), the maximal allowed estimate is the most popular
one, and the model needs only that maximum (and optionally the share of jobs
using it).  The model first draws a *histogram* of estimates (which values,
how many jobs each), then assigns the estimates to the jobs.  We follow the
authors' reference implementation, ``est_model.hh`` / ``est_model.cc`` by
D. Tsafrir (the ``m_tsafrir05`` model of the Parallel Workloads Archive, as
bundled in the ``parallelworkloads`` package used by ``renatolfc/sched-rl-gym``),
with its default parameters:

=================================  ==========================================
quantity                           default (est_model.hh / est_model.cc)
=================================  ==========================================
number of distinct estimates K     piecewise-linear in the number of jobs n
                                   through (0, 0), (20, 10), (200, 20),
                                   (1000, 35), (10000, 90), (70000, 340),
                                   (250000, 565); 565 above 250,000 jobs
head                               the 20 most popular values ("TOP")
head values                        the maximum, then the values of
                                   5, 10, 15, 20, 30 min, 1, 2, 3, 4, 5, 6,
                                   8, 10, 12, 18 h below it, then multiples
                                   of 200, 100, 50, 10, 5, 2, 1 h, 20, 10,
                                   5 min going down from the maximum, until
                                   there are 20
share of the head                  89 % of the jobs ("binsiz_head_sum")
share of popularity rank x = 2..20 ``14.0491 exp(-0.177531 x) + 0.462513`` %
share of rank 1 (the maximum)      89 % minus ranks 2..20: 21.73 %
tail values (ranks > 20)           ``t = max_est (a - 1) x / (a - x)`` at
                                   ``x = i / (K - 20)``, rounded to the
                                   minute, moved by +30, -30, +20, -20, +10,
                                   -10 s on a collision;
                                   ``a = 1 + 12.1039 K^-0.6026``
tail shares                        ``795.6 x^-2.267`` for rank x = 21, 22 ...
                                   scaled to 11 % in all
which head value gets which rank   random, constrained by the ranks the
                                   values had in four traces (SDSC SP2, CTC
                                   SP2, KTH, SDSC Blue): the program's
                                   ``TIMRNK_TO_POPRNK`` table, the maximum
                                   always rank 1, a rank is forced once no
                                   trace placed it lower, otherwise the
                                   smaller of two uniform picks from the
                                   candidates
which tail value gets which share  a uniformly random matching
jobs per value                     ``max(1, round(share * n))``, then
                                   equalized to n (the program's
                                   ``adjust_njobs``: proportionally from the
                                   largest value, then one by one, then down
                                   to one job, then to zero)
assignment                         jobs by decreasing runtime; each takes an
                                   estimate uniformly at random among the
                                   unused ones ``>= its runtime``
=================================  ==========================================

Choices made here (the paper or the program leaves them open, or the program
stops where a library must not):

* ``max_estimate`` defaults to the table's longest runtime rounded up to a
  whole hour (at least one hour, the program's minimum), so every job fits.
* ``max_share``, when given, is the share of jobs using the maximum (the
  program's "user bin" for the maximum): the other head shares are scaled so
  that the head still holds 89 %, and the maximum takes the popularity rank
  its share has.  At most 0.89.
* Jobs with ``runtime <= 0`` or unknown get no estimate (``time_requested =
  -1``, which the simulator reads as "use the runtime") and take no value of
  the histogram, which is drawn for the jobs with ``runtime > 0``.  The same
  holds for the f-model and for ``exact``.
* A job whose runtime exceeds ``max_estimate`` is assigned as if its runtime
  were ``max_estimate`` (the program truncates such runtimes) and then gets
  its own runtime as estimate: the runtime column is never changed.
* When the drawn histogram has fewer values ``>= r`` left than jobs of
  runtime ``>= r`` need (the program stops with an error), those jobs get the
  maximal estimate and as many drawn values stay unused.
* When there are fewer than 20 head values (a maximum of a few hours) the
  chosen popularity ranks are renumbered in order (the program would index
  past its table), and when K <= 20 (under about 200 jobs) there is no tail
  and the head shares are scaled to 100 % (the program asserts the sum).
* Ties are broken by value (equal job counts: the shorter value first).
* The program's ``drand48`` / ``lrand48`` / ``random_shuffle`` become draws
  of a ``numpy.random.Generator``; a uniform choice among the unused
  estimates is drawn per group of jobs between two consecutive values (a
  multivariate hypergeometric draw, then a random permutation), which has
  the same distribution as the program's job-by-job loop and costs
  O(n + K^2).  Estimates are whole seconds.

Spec strings
------------
:func:`with_estimates` and ``clustersched lublin --estimates`` name a model
by a string (:func:`parse_estimate_model`): ``exact`` (the estimate is the
runtime), ``f:F`` (the f-model with ``f = F``, uncapped) or ``modal`` (the
modal model with its defaults).

Time limit
----------
No estimate may pass the library's time limit, ``10**10`` s
(:data:`clustersched.workload.swf.MAX_TIME`, the limit of every time an SWF
file holds): ``F`` is at most ``10**10`` (beyond it a job of one second
already could), and :func:`f_model` refuses an ``f`` for which
``(f + 1) * runtime`` passes the limit for some job of the table
(:func:`check_estimate_reach`), whatever the draws, so that the same table
and ``f`` are accepted or refused under every seed.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

import numpy as np

from .._checks import check_float, check_int, make_rng
from ..errors import InvalidWorkloadError
from .jobs import JobTable
from .swf import MAX_TIME

__all__ = [
    "ESTIMATE_MODELS",
    "EstimateModel",
    "check_estimate_reach",
    "f_model",
    "modal_histogram",
    "modal_model",
    "modal_value_count",
    "parse_estimate_model",
    "with_estimates",
]

#: The spec strings :func:`parse_estimate_model` reads (``F`` a number >= 0).
ESTIMATE_MODELS = ("exact", "f:F", "modal")

_MIN = 60
_HOUR = 3600
#: Values making up the head ("TOP" of est_model.cc).
TOP = 20
#: Share (percent) of the jobs using one of the head values (binsiz_head_sum).
HEAD_SHARE = 89.0
#: size(x) = a exp(b x) + c, percent, for popularity ranks x = 2..20 (binsiz_head_params).
HEAD_SIZE_PARAMS = (14.0491, -0.177531, 0.462513)
#: size(x) = a x^b for popularity ranks x >= 21, before scaling (binsiz_tail_params).
TAIL_SIZE_PARAMS = (795.6, -2.267)
#: a = 1 + p K^q for the tail values' time model (est_gen_dist).
TAIL_TIME_PARAMS = (12.1039, -0.6026)
#: (jobs, distinct values): the piecewise-linear model of K (BINUM_LINEAR).
VALUE_COUNT_POINTS = ((0, 0), (20, 10), (200, 20), (1000, 35), (10000, 90), (70000, 340), (250000, 565))
#: The 15 values (seconds) popular in all four traces (EST_JOINT), in the program's order.
JOINT_VALUES = tuple(m * _MIN for m in (5, 15, 10, 20, 30, 60, 120, 180, 240, 300, 360, 480, 600, 720, 1080))
#: Multiples tried, in order, to complete the head to 20 values (EST_ROUND).
ROUND_VALUES = (
    200 * _HOUR,
    100 * _HOUR,
    50 * _HOUR,
    10 * _HOUR,
    5 * _HOUR,
    2 * _HOUR,
    _HOUR,
    20 * _MIN,
    10 * _MIN,
    5 * _MIN,
)
#: Offsets (seconds) tried in order when a tail value collides (gen_tail_bintim).
TAIL_OFFSETS = (0, 30, -30, 20, -20, 10, -10)
#: TIMRNK_TO_POPRNK: for the head's time rank (0 = the maximum, then shortest to
#: longest), the popularity rank it had in SDSC SP2, CTC SP2, KTH and SDSC Blue.
TIME_RANK_TO_POPULARITY = (
    (3, 1, 1, 1),
    (1, 3, 4, 6),
    (4, 4, 10, 5),
    (17, 2, 14, 3),
    (13, 12, 20, 7),
    (7, 9, 2, 2),
    (8, 8, 3, 18),
    (18, 18, 7, 19),
    (2, 6, 12, 4),
    (6, 7, 6, 11),
    (16, 11, 19, 20),
    (10, 20, 5, 9),
    (5, 16, 18, 10),
    (15, 5, 16, 14),
    (14, 14, 9, 13),
    (19, 13, 17, 16),
    (11, 10, 15, 15),
    (12, 15, 13, 17),
    (9, 17, 8, 8),
    (20, 19, 11, 12),
)


def _round(x: float) -> int:
    """C's ``round`` for the program's non-negative values: half away from zero."""
    return int(math.floor(x + 0.5))


# -- parsing -------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class EstimateModel:
    """A parsed estimate model: ``kind`` is ``"exact"``, ``"f"`` or ``"modal"``; ``f`` the badness factor of
    ``"f"``.  ``str()`` gives the spec string back."""

    kind: str
    f: float | None = None

    def __str__(self) -> str:
        return f"f:{self.f:g}" if self.kind == "f" else self.kind


_F_SPEC = re.compile(r"f:(.+)")


def parse_estimate_model(spec: object) -> EstimateModel:
    """The estimate model a spec string names: ``exact``, ``f:F`` (F >= 0) or ``modal``.

    Parameters
    ----------
    spec : str
        ``"exact"``, ``"f:F"`` with ``F`` a finite number ``>= 0``, or
        ``"modal"``; surrounding blanks are ignored.

    Returns
    -------
    EstimateModel

    Raises
    ------
    TypeError
        ``spec`` is not a string.
    ValueError
        Any other string, naming the spec and the accepted forms; an ``F``
        above ``10**10`` (module docstring, "Time limit").

    Examples
    --------
    >>> parse_estimate_model("f:2")
    EstimateModel(kind='f', f=2.0)
    >>> str(parse_estimate_model(" modal "))
    'modal'
    >>> parse_estimate_model("f:-1")
    Traceback (most recent call last):
    ...
    ValueError: spec == 'f:-1': F == -1.0, must be >= 0 (spec is one of exact, f:F, modal)
    """
    if isinstance(spec, EstimateModel):
        return spec
    if not isinstance(spec, str):
        raise TypeError(f"spec == {spec!r}, must be a string: one of {', '.join(ESTIMATE_MODELS)}")
    text = spec.strip()
    forms = f"(spec is one of {', '.join(ESTIMATE_MODELS)})"
    if text in ("exact", "modal"):
        return EstimateModel(text)
    match = _F_SPEC.fullmatch(text)
    if match is None:
        raise ValueError(f"spec == {spec!r}, must be one of {', '.join(ESTIMATE_MODELS)} (F a number >= 0)")
    try:
        f = float(match.group(1))
    except ValueError:
        raise ValueError(f"spec == {spec!r}: F == {match.group(1)!r} is not a number {forms}") from None
    if not math.isfinite(f):
        raise ValueError(f"spec == {spec!r}: F == {f}, must be finite {forms}")
    if f < 0:
        raise ValueError(f"spec == {spec!r}: F == {f}, must be >= 0 {forms}")
    if f > MAX_TIME:
        raise ValueError(
            f"spec == {spec!r}: F == {f:g}, must be <= {MAX_TIME:.0e}: a larger F takes the estimate "
            f"of a job of one second past the library's time limit of {MAX_TIME:.0e} s "
            "(clustersched.workload.swf.MAX_TIME)"
        )
    return EstimateModel("f", f)


def check_estimate_reach(spec: str | EstimateModel, runtime: float, *, what: str = "runtime") -> None:
    """ValueError if the model ``spec`` names may give a job of ``runtime`` seconds an estimate past the
    library's time limit (:data:`clustersched.workload.swf.MAX_TIME`, ``10**10`` s).

    The f-model's estimates reach ``(F + 1) * runtime`` (whatever the draws);
    ``exact`` and ``modal`` never pass the longest runtime rounded up to an
    hour, so only ``f:F`` can be refused.  ``what`` names the runtime in the
    message.

    Examples
    --------
    >>> check_estimate_reach("f:1000", 86400)
    >>> try:
    ...     check_estimate_reach("f:1e6", 86400, what="job 7's runtime")
    ... except ValueError as exc:
    ...     print(str(exc).replace("; ", ";\\n"))
    spec == 'f:1e+06': the estimates of job 7's runtime (86400 s) may reach (F + 1) x 86400 = 8.64e+10 s, past ...
    F must be <= 1.157e+05 here
    """
    model = parse_estimate_model(spec)
    if model.kind != "f" or not runtime > 0:
        return
    assert model.f is not None
    reach = (model.f + 1) * runtime
    if reach > MAX_TIME:
        raise ValueError(
            f"spec == {str(model)!r}: the estimates of {what} ({runtime:g} s) may reach (F + 1) x "
            f"{runtime:g} = {reach:.3g} s, past the library's time limit of {MAX_TIME:.0e} s "
            f"(clustersched.workload.swf.MAX_TIME); F must be <= {MAX_TIME / runtime - 1:.4g} here"
        )


def with_estimates(table: JobTable, spec: str | EstimateModel, *, seed: int | np.random.Generator = 0) -> JobTable:
    """``table`` with the estimates of the model ``spec`` names in ``time_requested``.

    Parameters
    ----------
    table : JobTable
        The jobs; only ``runtime`` is read.
    spec : str or EstimateModel
        ``"exact"`` (estimate = runtime), ``"f:F"`` (:func:`f_model` with
        ``f = F``, uncapped) or ``"modal"`` (:func:`modal_model` with its
        defaults); see :func:`parse_estimate_model`.
    seed : int or numpy.random.Generator, default 0
        Seed (>= 0) of a fresh ``numpy.random.default_rng``, or a Generator
        used as is; ``exact`` draws nothing.

    Returns
    -------
    JobTable
        A copy; ``time_requested >= runtime`` for every job of runtime > 0,
        -1 for the others.

    Examples
    --------
    >>> t = JobTable({"submit": [0, 0, 0], "runtime": [100, 5, -1], "procs": [1, 1, 1]})
    >>> with_estimates(t, "exact").time_requested.tolist()
    [100.0, 5.0, -1.0]
    >>> e = with_estimates(t, "f:2", seed=1).time_requested
    >>> bool(100 <= e[0] <= 300 and 5 <= e[1] <= 15), float(e[2])
    (True, -1.0)
    """
    model = parse_estimate_model(spec)
    if model.kind == "exact":
        _check_table(table)
        return _with(table, np.where(table.runtime > 0, table.runtime, -1.0), "exact")
    if model.kind == "f":
        assert model.f is not None
        return f_model(table, model.f, seed=seed)
    return modal_model(table, seed=seed)


def _check_table(table: JobTable) -> None:
    if not isinstance(table, JobTable):
        raise TypeError(f"table == {type(table).__name__}, must be a JobTable")
    if len(table) == 0:
        raise InvalidWorkloadError("the table has no job: there is nothing to estimate", path=table.source)


def _with(table: JobTable, estimates: np.ndarray, note: str) -> JobTable:
    out = table.with_columns(time_requested=estimates)
    out.metadata["Estimates"] = note
    return out


# -- the f-model ---------------------------------------------------------------------------------------
def f_model(
    table: JobTable,
    f: float,
    *,
    seed: int | np.random.Generator = 0,
    max_estimate: float | None = None,
) -> JobTable:
    """Estimates of Mu'alem & Feitelson's f-model: uniform on ``[r, (f + 1) r]`` (module docstring).

    Parameters
    ----------
    table : JobTable
        The jobs; only ``runtime`` is read.
    f : float
        The badness factor, finite, ``>= 0`` (0: exact estimates).
    seed : int or numpy.random.Generator, default 0
        Seed (>= 0) of a fresh ``numpy.random.default_rng``, or a Generator
        used as is (and advanced by one uniform per row).
    max_estimate : float, optional
        The machine's largest allowed estimate (seconds, > 0): estimates are
        capped at it, except that a job running longer gets its runtime.
        Default: no cap, as in the paper.

    Returns
    -------
    JobTable
        A copy whose ``time_requested`` is ``max(r, round(r (1 + f U)))`` (capped) for
        each job of runtime ``r > 0``, and -1 for the others; the metadata
        key ``Estimates`` says which model made them.

    Raises
    ------
    InvalidWorkloadError
        The table has no job.
    TypeError, ValueError
        ``f``, ``max_estimate`` or ``seed`` of a wrong type or out of range;
        without ``max_estimate``, an ``f`` whose estimates could pass the
        library's time limit for the longest job (:func:`check_estimate_reach`).

    Examples
    --------
    >>> t = JobTable({"submit": [0, 0], "runtime": [100, 1000], "procs": [1, 1]})
    >>> e = f_model(t, 1, seed=0).time_requested
    >>> bool((e >= [100, 1000]).all() and (e <= [200, 2000]).all())
    True
    >>> f_model(t, 0, seed=0).time_requested.tolist()
    [100.0, 1000.0]
    >>> f_model(t, 10, seed=0, max_estimate=500).time_requested.tolist()
    [500.0, 1000.0]
    """
    _check_table(table)
    f = check_float("f", f, minimum=0)
    cap = None if max_estimate is None else check_float("max_estimate", max_estimate, positive=True, maximum=MAX_TIME)
    r = table.runtime
    if cap is None and len(r):
        i = int(np.argmax(np.where(r > 0, r, -np.inf)))
        check_estimate_reach(EstimateModel("f", f), float(r[i]), what=f"job {table.job_id[i]}'s runtime")
    rng = make_rng(seed)
    u = rng.random(len(table))
    est = np.maximum(np.floor(r * (1.0 + f * u) + 0.5), r)
    if cap is not None:
        est = np.maximum(np.minimum(est, cap), r)
    note = f"f-model f={f:g} (Mu'alem & Feitelson, IEEE TPDS 12(6) 2001)" + (f", capped at {cap:g} s" if cap else "")
    return _with(table, np.where(r > 0, est, -1.0), note)


# -- the modal model: the histogram --------------------------------------------------------------------
def modal_value_count(n_jobs: int) -> int:
    """K, the number of distinct estimates the modal model gives ``n_jobs`` jobs (the linear model of
    est_model.cc's ``get_binnum``).

    Examples
    --------
    >>> [modal_value_count(n) for n in (20, 200, 1000, 10_000, 100_000, 10**6)]
    [10, 20, 35, 90, 378, 565]
    """
    n = check_int("n_jobs", n_jobs, 1)
    points = VALUE_COUNT_POINTS
    if n > points[-1][0]:
        return points[-1][1]
    k = next(i for i, (jobs, _) in enumerate(points) if n <= jobs)
    (x0, y0), (x1, y1) = points[k - 1], points[k]
    return y0 + _round((n - x0) * (y1 - y0) / (x1 - x0))


def _head_values(max_est: int) -> list[int]:
    """The head's values: the maximum first, then the others ascending (gen_head_bintim)."""
    values = [max_est] + [v for v in JOINT_VALUES if v < max_est]
    missing = max(0, TOP - len(values))
    for mul in ROUND_VALUES:
        if missing == 0:
            break
        start = (max_est // mul) * mul
        j = 0
        while start - j * mul > 0 and missing > 0:
            est = start - j * mul
            if est not in values:
                values.append(est)
                missing -= 1
            j += 1
    return [values[0]] + sorted(values[1:])


def _head_sizes(n_head: int, max_share: float | None) -> tuple[list[float], int]:
    """Percent of jobs per popularity rank (descending), and the rank (0-based) of the maximum."""
    a, b, c = HEAD_SIZE_PARAMS
    others = [a * math.exp(b * (rank + 1)) + c for rank in range(1, n_head)]
    if max_share is None:
        return [HEAD_SHARE - sum(others)] + others, 0
    top = 100.0 * max_share
    scale = (HEAD_SHARE - top) / sum(others) if others else 0.0
    sizes = sorted([top] + [s * scale for s in others], reverse=True)
    return sizes, sizes.index(top)


def _popularity_ranks(rng: np.random.Generator, max_rank: int | None) -> list[int]:
    """For each of the 20 time ranks, a popularity rank 1..20 (gen_head_timrnk_poprnk_map).

    ``max_rank`` (1-based) is the maximum's rank when its share was given;
    else the maximum is rank 1.
    """
    bound: dict[int, int] = {}
    for ttr in range(TOP - 1, -1, -1):
        for p in TIME_RANK_TO_POPULARITY[ttr]:
            bound.setdefault(p, ttr)
    reserved = {max_rank} if max_rank is not None else set()
    chosen: set[int] = set()
    pool: list[int] = []
    mapping: list[int] = []
    for ttr in range(TOP):
        pool += [p for p in TIME_RANK_TO_POPULARITY[ttr] if p not in chosen and p not in reserved]
        rank = -1
        if ttr == 0:
            rank = max_rank if max_rank is not None else 1
        if rank == -1:  # a rank no trace placed later than this time rank is due now
            rank = next((p for p in range(1, TOP + 1) if bound[p] <= ttr and p not in chosen and p not in reserved), -1)
        if rank == -1 and pool:  # favour the more popular: the smaller of two uniform picks
            rank = min(pool[int(j)] for j in rng.integers(0, len(pool), 2))
        if rank == -1:  # cannot happen with the published table; a defined fallback all the same
            rank = min(p for p in range(1, TOP + 1) if p not in chosen and p not in reserved)
        mapping.append(rank)
        chosen.add(rank)
        pool = [p for p in pool if p != rank]
    return mapping


def _tail_values(max_est: int, head: set[int], n_tail: int, a: float) -> list[int]:
    """The tail's values, ascending (gen_tail_bintim)."""
    out: set[int] = set()
    for i in range(1, n_tail + 1):
        x = i / n_tail
        y = (a - 1) * x / (a - x)
        sec = _round(y * max_est / 60.0) * 60
        for off in TAIL_OFFSETS:
            s = sec + off
            if s not in out and s not in head and 0 < s < max_est:
                out.add(s)
                break
    return sorted(out)


def _tail_sizes(n_tail: int) -> list[float]:
    """Percent of jobs per tail rank, descending, summing to 100 - 89 (gen_tail_binsiz)."""
    a, b = TAIL_SIZE_PARAMS
    raw = [a * float(TOP + 1 + i) ** b for i in range(n_tail)]
    total = sum(raw)
    return sorted((s * (100.0 - HEAD_SHARE) / total for s in raw), reverse=True)


def _equalize(counts: dict[int, int], fixed: set[int], n: int) -> dict[int, int]:
    """Make the counts sum to ``n``, changing only values not in ``fixed`` (adjust_njobs)."""
    total = sum(counts.values())
    diff, sign = abs(n - total), (1 if n > total else -1)
    free_total = sum(v for t, v in counts.items() if t not in fixed)
    attempt = 0
    while diff:
        times = sorted((t for t in counts if t not in fixed), key=lambda t: (-counts[t], t))
        f = diff / free_total if free_total else 1.0
        kind = attempt if sign < 0 else min(attempt, 1)  # adding never needs more than one by one
        kind = min(kind, 3)
        for t in times:
            nj = counts[t]
            if nj == 0:
                continue
            adjust = (math.ceil(f * nj), 1, nj - 1, nj)[kind]
            if sign < 0:
                adjust = min(adjust, nj)
                if adjust == nj and kind != 3:
                    adjust -= 1
            adjust = min(adjust, diff)
            counts[t] += sign * adjust
            diff -= adjust
            if diff == 0:
                break
        attempt += 1
        if attempt > 64:  # the cases above always end within a few rounds; never loop forever
            raise RuntimeError(f"could not equalize the estimate histogram to {n} jobs")
    return counts


def modal_histogram(
    n_jobs: int,
    max_estimate: int,
    *,
    seed: int | np.random.Generator = 0,
    max_share: float | None = None,
) -> dict[int, int]:
    """The modal model's histogram of estimates for ``n_jobs`` jobs: ``{seconds: jobs}`` (est_gen_dist).

    The values sum to ``n_jobs``; see :func:`modal_model` for the parameters
    and the module docstring for the model.

    Examples
    --------
    >>> h = modal_histogram(10_000, 18 * 3600, seed=1)
    >>> sum(h.values()), len(h), h[18 * 3600]
    (10000, 90, 2172)
    """
    n = check_int("n_jobs", n_jobs, 1)
    max_est = check_int("max_estimate", max_estimate, _HOUR)
    if max_share is not None:
        max_share = check_float("max_share", max_share, minimum=0, maximum=HEAD_SHARE / 100)
    rng = make_rng(seed)
    k_values = modal_value_count(n)

    head = _head_values(max_est)
    sizes, max_pos = _head_sizes(len(head), max_share)
    ranks = _popularity_ranks(rng, max_pos + 1 if max_share is not None else None)[: len(head)]
    if len(head) < TOP:  # a maximum of a few hours: renumber the chosen ranks 1..len(head) in order
        free = iter(r for r in range(1, len(head) + 1) if r != ranks[0])
        for i in sorted(range(1, len(head)), key=lambda i: ranks[i]):
            ranks[i] = next(free)
    percent = {t: sizes[r - 1] for t, r in zip(head, ranks)}

    p, q = TAIL_TIME_PARAMS
    tail = _tail_values(max_est, set(head), k_values - len(head), 1.0 + p * k_values**q) if k_values > len(head) else []
    if tail:
        tail_sizes = _tail_sizes(len(tail))
        for t, s in zip(tail, rng.permutation(np.asarray(tail_sizes)).tolist()):
            percent[t] = s
    else:  # no tail (about 200 jobs or fewer): the head holds every job
        scale = 100.0 / sum(percent.values())
        percent = {t: p * scale for t, p in percent.items()}

    fixed = {max_est} if max_share is not None else set()
    counts = {
        t: (_round((max_share or 0.0) * n) if t in fixed else max(1, _round(share * n / 100.0)))
        for t, share in sorted(percent.items())
    }
    return _equalize(counts, fixed, n)


# -- the modal model: assignment -----------------------------------------------------------------------
def modal_model(
    table: JobTable,
    *,
    seed: int | np.random.Generator = 0,
    max_estimate: int | None = None,
    max_share: float | None = None,
) -> JobTable:
    """Estimates of Tsafrir, Etsion & Feitelson's modal model (module docstring).

    Parameters
    ----------
    table : JobTable
        The jobs; only ``runtime`` is read.
    seed : int or numpy.random.Generator, default 0
        Seed (>= 0) of a fresh ``numpy.random.default_rng``, or a Generator
        used as is.
    max_estimate : int, optional
        The largest estimate allowed on the modeled machine, whole seconds,
        at least 3600.  Default: the longest runtime rounded up to a whole
        hour (at least one hour).
    max_share : float, optional
        Share of the jobs (with runtime > 0) that use ``max_estimate``, in
        ``[0, 0.89]``.  Default: the model's 21.73 %.

    Returns
    -------
    JobTable
        A copy whose ``time_requested`` holds whole-second estimates, each
        ``>= runtime`` and ``<= max(max_estimate, runtime)``, for the jobs of
        runtime > 0, and -1 for the others; metadata ``Estimates`` names the
        model.

    Raises
    ------
    InvalidWorkloadError
        The table has no job.
    TypeError, ValueError
        An argument of a wrong type or out of range.

    Examples
    --------
    >>> from clustersched.workload.lublin import lublin_feitelson
    >>> t = modal_model(lublin_feitelson(2000, 128, seed=1), seed=2)
    >>> e, r = t.time_requested, t.runtime
    >>> bool((e >= r).all()), len(set(e.tolist())), int(e.max()) == int(t.metadata["MaxEstimate"])  # 41 values: K(2000)
    (True, 41, True)
    >>> 300 in set(e.tolist()) and 3600 in set(e.tolist())  # 5 minutes and 1 hour are modes
    True
    """
    _check_table(table)
    r = table.runtime
    valid = r > 0
    n = int(valid.sum())
    if max_estimate is None:
        longest = float(r[valid].max()) if n else 0.0
        max_est = max(_HOUR, int(math.ceil(longest / _HOUR)) * _HOUR)
    else:
        max_est = check_int("max_estimate", max_estimate, _HOUR)
    rng = make_rng(seed)
    est = np.full(len(table), -1.0)
    if n:
        hist = modal_histogram(n, max_est, seed=rng, max_share=max_share)
        est[valid] = _assign(rng, r[valid], hist, max_est)
    note = f"modal model (Tsafrir, Etsion & Feitelson, JSSPP 2005), max estimate {max_est} s" + (
        f", max share {max_share:g}" if max_share is not None else ""
    )
    out = _with(table, est, note)
    out.metadata["MaxEstimate"] = str(max_est)
    return out


def _assign(rng: np.random.Generator, runtime: np.ndarray, hist: dict[int, int], max_est: int) -> np.ndarray:
    """Give each job an unused estimate >= its runtime, uniformly (est_assign), longest runtimes first."""
    times = np.array(sorted(t for t, c in hist.items() if c > 0), dtype=np.float64)
    counts = np.array([hist[int(t)] for t in times], dtype=np.int64)
    eff = np.minimum(runtime, max_est)  # the program truncates longer runtimes to the maximum
    group = np.searchsorted(times, eff, side="left")  # first value >= the runtime
    order = np.argsort(group, kind="stable")
    bounds = np.searchsorted(group[order], np.arange(len(times) + 2), side="left")
    est = np.full(len(runtime), float(max_est))
    for k in range(len(times), -1, -1):  # from the longest runtimes down
        jobs = order[bounds[k] : bounds[k + 1]]
        if jobs.size == 0:
            continue
        pool = counts[k:]
        take = min(jobs.size, int(pool.sum()))
        if take:
            drawn = rng.multivariate_hypergeometric(pool, take) if pool.size > 1 else np.array([take])
            counts[k:] -= drawn
            values = np.repeat(times[k:], drawn)
            who = rng.permutation(jobs)
            est[who[:take]] = rng.permutation(values)
        # Jobs left without a value (the histogram ran out above their runtime) keep max_est.
    return np.maximum(est, runtime)
