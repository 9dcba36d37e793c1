"""Metrics of batch schedules (rigid jobs).

For a job with wait ``W = start - submit`` and runtime
``R = end - start``:

* response ``W + R``;
* bounded slowdown ``max((W + R) / max(R, tau), 1)`` with ``tau = 10`` s
  (DPSA paper, §II), which keeps very short jobs from dominating the average;
* utilization: busy processor-seconds over ``P * (last end - first submit)``;
* makespan: ``last end - first submit``;
* killed: jobs stopped at their time limit (``Schedule.killed``, when the job
  table declared time-limit kills, as a Batsim workload does; else 0).

Distributions
-------------
Besides averages and maxima, :meth:`BatchMetrics.summary` gives the 50th,
90th and 99th percentiles (``p50_wait``, ``p90_bounded_slowdown``,
``p99_response``, ...) of wait, bounded slowdown and response.  They are
:func:`numpy.percentile` with its default method, linear interpolation
between the two nearest order statistics (Hyndman and Fan's type 7, as
pandas' ``quantile`` and R's default): for ``n`` values sorted ``x[0] <= ...
<= x[n-1]``, the ``q``-th percentile is at the fractional rank ``(n - 1) *
q / 100``.  With few jobs a high percentile is therefore close to the
maximum, not a sample of it.

Breakdowns by class
-------------------
:meth:`BatchMetrics.by_width` and :meth:`BatchMetrics.by_runtime` give the
same figures per class of job (:class:`ClassMetrics`, one row per class).
The default classes are our choice, in the spirit of the backfilling
literature, which reports results per category of job width and length
because backfilling helps narrow and short jobs and may hurt wide and long
ones, which one average hides:

* width (processors allocated), :data:`WIDTH_EDGES` ``(1, 8, 32)``: ``1``
  (sequential), ``2-8`` (narrow), ``9-32`` (wide), ``>32`` (very wide);
* runtime (``end - start``, what the job actually ran, not what it
  requested), :data:`RUNTIME_EDGES` ``(600, 3600, 28800)`` s: ``<=10min``
  (very short), ``10min-1h`` (short), ``1h-8h`` (long), ``>8h`` (very long).

Each class is ``(above, upto]``: a value belongs to the first class whose
upper edge it does not exceed (the first class also holds everything below
its edge, zero-length jobs included; the last has no upper edge).  Both
edges are parameters, for other machines' sizes.

Warm-up and cool-down
---------------------
The first jobs of a trace start on an empty machine and the last ones leave
it emptying; both are usually left out of a study's figures.
:func:`batch_metrics` drops, by submit order (ties in row order), the first
``warmup`` and last ``cooldown`` jobs, and the jobs submitted in the first
``warmup_time`` or last ``cooldown_time`` seconds of the submissions (those
with ``submit < first submit + warmup_time`` or ``submit > last submit -
cooldown_time``).  Per-job figures (and the percentiles and classes) are then
those of the kept jobs only.  The machine figures are measured over the kept
jobs' *window*, ``[first kept submit, last kept end]``: the makespan is its
length and the utilization the busy processor-seconds of *all* jobs (kept or
not: the machine was that busy) clipped to the window, over ``P`` times its
length.  Without trimming the window is ``[first submit, last end]`` and both
are the figures above.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Callable, Sequence

import numpy as np

from .._checks import check_float, check_int
from .schedule import Schedule

if TYPE_CHECKING:
    import pandas

__all__ = [
    "BOUNDED_SLOWDOWN_TAU",
    "PERCENTILES",
    "RUNTIME_EDGES",
    "WIDTH_EDGES",
    "BatchMetrics",
    "ClassMetrics",
    "batch_metrics",
]

#: The runtime floor of bounded slowdown, in seconds (DPSA paper §II).
BOUNDED_SLOWDOWN_TAU = 10.0
#: The percentiles reported (``p50_...``, ``p90_...``, ``p99_...``); numpy's default linear interpolation.
PERCENTILES = (50, 90, 99)
#: Upper edges (inclusive) of the width classes, processors: 1 | 2-8 | 9-32 | >32.
WIDTH_EDGES = (1, 8, 32)
#: Upper edges (inclusive) of the runtime classes, seconds: <=10 min | 10 min-1 h | 1 h-8 h | >8 h.
RUNTIME_EDGES = (600.0, 3600.0, 28800.0)

#: The per-job metrics of the summaries and class tables, in their order.
_MEASURES = ("wait", "bounded_slowdown", "response")


def _percentiles(values: np.ndarray) -> list[float]:
    if len(values) == 0:
        return [float("nan")] * len(PERCENTILES)
    return [float(v) for v in np.percentile(values, PERCENTILES)]


@dataclass(frozen=True)
class ClassMetrics:
    """Wait, bounded slowdown and response per class of job (width or runtime), one row per class.

    Rows are the classes in increasing order, empty ones included (``jobs``
    0, the figures NaN), so that the tables of several runs line up.
    ``above``/``upto`` bound each class, ``(above, upto]`` (see
    :mod:`clustersched.batch.metrics`), ``upto`` infinite for the last.

    Attributes
    ----------
    by : str
        ``"width"`` (processors) or ``"runtime"`` (seconds).
    label : numpy.ndarray of str
        ``"1"``, ``"2-8"``, ... or ``"<=10min"``, ``"10min-1h"``, ...
    above, upto : numpy.ndarray of float
        Class bounds, in processors or seconds.
    jobs : numpy.ndarray of int
        Jobs in each class.
    stats : dict of str to numpy.ndarray
        ``avg_wait``, ``p50_wait``, ``p90_wait``, ``p99_wait``, then the same
        for ``bounded_slowdown`` and ``response``: one value per class.
    """

    by: str
    label: np.ndarray
    above: np.ndarray
    upto: np.ndarray
    jobs: np.ndarray
    stats: dict[str, np.ndarray] = field(default_factory=dict)

    def __len__(self) -> int:
        return len(self.label)

    def columns(self) -> dict[str, np.ndarray]:
        """One row per class: ``class``, the bounds (``procs_above``/``procs_upto`` or
        ``runtime_above``/``runtime_upto``), ``jobs``, then :attr:`stats` (unit-less names)."""
        what = "procs" if self.by == "width" else "runtime"
        return {
            "class": self.label,
            f"{what}_above": self.above,
            f"{what}_upto": self.upto,
            "jobs": self.jobs,
            **self.stats,
        }

    def to_pandas(self) -> "pandas.DataFrame":
        """:meth:`columns` as a DataFrame, names with units (``runtime_upto_s``, ``p90_wait_s``, ...).

        Examples
        --------
        >>> import numpy as np
        >>> from clustersched.batch import Schedule, batch_metrics
        >>> s = Schedule(job_id=np.array([1, 2]), submit=np.array([0.0, 0.0]), start=np.array([0.0, 4.0]),
        ...              end=np.array([4.0, 24.0]), procs=np.array([1, 2]), total_procs=2)
        >>> df = batch_metrics(s).by_width().to_pandas()
        >>> df[["class", "jobs", "avg_wait_s"]].values.tolist()
        [['1', 1, 0.0], ['2-8', 1, 4.0], ['9-32', 0, nan], ['>32', 0, nan]]
        """
        from .._pandas import frame

        return frame(self.columns())


@dataclass(frozen=True)
class BatchMetrics:
    """Per-job metric arrays and machine-level figures (see :mod:`clustersched.batch.metrics`).

    The per-job arrays follow the rows of the schedule; when
    :func:`batch_metrics` trimmed a warm-up or cool-down they hold the kept
    jobs only, and :attr:`rows` says which rows of the schedule those are.

    Attributes
    ----------
    wait, response, bounded_slowdown : numpy.ndarray
        Per job, seconds (bounded slowdown: a ratio).
    utilization, makespan : float
        Over the measurement window (the whole schedule without trimming).
    runtime, procs : numpy.ndarray, optional
        Per job: ``end - start`` (s) and processors, what the class
        breakdowns read (None for metrics made by hand without them).
    rows : numpy.ndarray, optional
        Rows of the schedule the per-job arrays describe (None: all of them).
    window : (float, float), optional
        ``(first kept submit, last kept end)``, seconds.
    killed : int
        Jobs (of the kept ones) killed at their time limit.
    """

    wait: np.ndarray
    response: np.ndarray
    bounded_slowdown: np.ndarray
    utilization: float
    makespan: float
    runtime: np.ndarray | None = None
    procs: np.ndarray | None = None
    rows: np.ndarray | None = None
    window: tuple[float, float] | None = None
    killed: int = 0

    def summary(self) -> dict[str, float]:
        """Averages, maxima and percentiles, DataFrame/CSV ready.

        ``jobs``, ``avg_wait``, ``max_wait``, ``avg_response``,
        ``avg_bounded_slowdown``, ``max_bounded_slowdown``, ``utilization``,
        ``makespan``, then ``p50_wait``, ``p90_wait``, ``p99_wait``, and the
        same percentiles of ``bounded_slowdown`` and ``response`` (numpy's
        linear interpolation; see :mod:`clustersched.batch.metrics`), and
        ``killed``, the jobs killed at their time limit.
        """
        out: dict[str, float] = {
            "jobs": int(len(self.wait)),
            "avg_wait": float(self.wait.mean()),
            "max_wait": float(self.wait.max()),
            "avg_response": float(self.response.mean()),
            "avg_bounded_slowdown": float(self.bounded_slowdown.mean()),
            "max_bounded_slowdown": float(self.bounded_slowdown.max()),
            "utilization": self.utilization,
            "makespan": self.makespan,
        }
        for name in _MEASURES:
            for q, value in zip(PERCENTILES, _percentiles(getattr(self, name))):
                out[f"p{q}_{name}"] = value
        out["killed"] = int(self.killed)
        return out

    def to_pandas(self) -> "pandas.DataFrame":
        """:meth:`summary` as a one-row DataFrame, names with units (``avg_wait_s``, ``makespan_s``, ...; see
        :mod:`clustersched._pandas`).

        Examples
        --------
        >>> import numpy as np
        >>> from clustersched.batch import Schedule
        >>> s = Schedule(job_id=np.array([1, 2]), submit=np.array([0.0, 0.0]), start=np.array([0.0, 4.0]),
        ...              end=np.array([4.0, 24.0]), procs=np.array([2, 2]), total_procs=2)
        >>> batch_metrics(s).to_pandas().columns.tolist()  # doctest: +NORMALIZE_WHITESPACE
        ['jobs', 'avg_wait_s', 'max_wait_s', 'avg_response_s', 'avg_bounded_slowdown', 'max_bounded_slowdown',
         'utilization', 'makespan_s', 'p50_wait_s', 'p90_wait_s', 'p99_wait_s', 'p50_bounded_slowdown',
         'p90_bounded_slowdown', 'p99_bounded_slowdown', 'p50_response_s', 'p90_response_s', 'p99_response_s',
         'killed']
        """
        from .._pandas import summary_frame

        return summary_frame(self.summary())

    def by_width(self, edges: Sequence[int] = WIDTH_EDGES) -> ClassMetrics:
        """The figures per width class (processors; default :data:`WIDTH_EDGES`: 1 | 2-8 | 9-32 | >32).

        ``edges`` are the classes' inclusive upper edges, increasing integers
        ``>= 1``; a last class holds the jobs wider than the last edge.

        Examples
        --------
        >>> import numpy as np
        >>> from clustersched.batch import Schedule, batch_metrics
        >>> s = Schedule(job_id=np.arange(3), submit=np.zeros(3), start=np.array([0.0, 0.0, 10.0]),
        ...              end=np.array([10.0, 10.0, 20.0]), procs=np.array([1, 3, 4]), total_procs=8)
        >>> t = batch_metrics(s).by_width(edges=(2, 4))
        >>> t.label.tolist(), t.jobs.tolist(), t.stats["avg_wait"].tolist()
        (['1-2', '3-4', '>4'], [1, 2, 0], [0.0, 5.0, nan])
        """
        if self.procs is None:
            raise ValueError("these metrics carry no procs: make them with batch_metrics(schedule)")
        checked = [check_int(f"edges[{k}]", e, 1) for k, e in enumerate(edges)]
        return self._classes("width", np.asarray(self.procs, dtype=float), checked, _width_label)

    def by_runtime(self, edges: Sequence[float] = RUNTIME_EDGES) -> ClassMetrics:
        """The figures per runtime class (``end - start``, seconds; default :data:`RUNTIME_EDGES`:
        <=10min | 10min-1h | 1h-8h | >8h).

        ``edges`` are the classes' inclusive upper edges, increasing seconds
        ``> 0``; a last class holds the longer jobs.

        Examples
        --------
        >>> import numpy as np
        >>> from clustersched.batch import Schedule, batch_metrics
        >>> s = Schedule(job_id=np.arange(3), submit=np.zeros(3), start=np.array([0.0, 0.0, 600.0]),
        ...              end=np.array([600.0, 7200.0, 1200.0]), procs=np.ones(3, int), total_procs=2)
        >>> t = batch_metrics(s).by_runtime()
        >>> t.label.tolist(), t.jobs.tolist()
        (['<=10min', '10min-1h', '1h-8h', '>8h'], [2, 0, 1, 0])
        """
        if self.runtime is None:
            raise ValueError("these metrics carry no runtime: make them with batch_metrics(schedule)")
        checked = [check_float(f"edges[{k}]", e, positive=True) for k, e in enumerate(edges)]
        return self._classes("runtime", np.asarray(self.runtime, dtype=float), checked, _runtime_label)

    def _classes(
        self, by: str, values: np.ndarray, edges: Sequence[float], label: Callable[[float, float, bool], str]
    ) -> ClassMetrics:
        if not edges:
            raise ValueError("edges == (), must name at least one edge")
        if any(b <= a for a, b in zip(edges, edges[1:])):
            raise ValueError(f"edges == {tuple(edges)}, must be increasing")
        k = np.searchsorted(np.asarray(edges, dtype=float), values, side="left")
        n = len(edges) + 1
        above = np.array([0.0, *map(float, edges)])
        upto = np.array([*map(float, edges), np.inf])
        labels = np.array([label(above[c], upto[c], c == 0) for c in range(n)])
        jobs = np.bincount(k, minlength=n).astype(np.int64)
        stats: dict[str, np.ndarray] = {}
        for name in _MEASURES:
            column = np.asarray(getattr(self, name), dtype=float)
            groups = [column[k == c] for c in range(n)]
            stats[f"avg_{name}"] = np.array([g.mean() if len(g) else np.nan for g in groups])
            per = np.array([_percentiles(g) for g in groups]).reshape(n, len(PERCENTILES))
            for j, q in enumerate(PERCENTILES):
                stats[f"p{q}_{name}"] = per[:, j]
        return ClassMetrics(by, labels, above, upto, jobs, stats)


def _width_label(above: float, upto: float, first: bool) -> str:
    lo = int(above) + 1
    if np.isinf(upto):
        return f">{int(above)}"
    return f"{lo}" if lo == int(upto) else f"{lo}-{int(upto)}"


def _duration(seconds: float) -> str:
    if seconds % 3600 == 0:
        return f"{seconds / 3600:g}h"
    if seconds % 60 == 0:
        return f"{seconds / 60:g}min"
    return f"{seconds:g}s"


def _runtime_label(above: float, upto: float, first: bool) -> str:
    if first:
        return f"<={_duration(upto)}"
    if np.isinf(upto):
        return f">{_duration(above)}"
    return f"{_duration(above)}-{_duration(upto)}"


def _kept_rows(submit: np.ndarray, warmup: int, cooldown: int, warmup_time: float, cooldown_time: float) -> np.ndarray:
    """Rows kept after trimming, in row order."""
    n = len(submit)
    keep = np.ones(n, dtype=bool)
    order = np.argsort(submit, kind="stable")
    keep[order[:warmup]] = False
    if cooldown:
        keep[order[n - cooldown :]] = False
    if warmup_time > 0:
        keep &= ~(submit < submit.min() + warmup_time)
    if cooldown_time > 0:
        keep &= ~(submit > submit.max() - cooldown_time)
    return np.flatnonzero(keep)


def batch_metrics(
    schedule: Schedule,
    *,
    tau: float = BOUNDED_SLOWDOWN_TAU,
    warmup: int = 0,
    cooldown: int = 0,
    warmup_time: float = 0.0,
    cooldown_time: float = 0.0,
) -> BatchMetrics:
    """Metrics of a rigid-job schedule (see the module docstring).

    Parameters
    ----------
    schedule : Schedule
    tau : float
        The runtime floor of bounded slowdown, seconds (``> 0``).
    warmup, cooldown : int
        Leave out the first / last so many jobs by submit order (``>= 0``).
    warmup_time, cooldown_time : float
        Leave out the jobs submitted in the first / last so many seconds of
        the submissions (``>= 0``).  Utilization and makespan are then
        measured over the kept jobs' window (module docstring).

    Raises
    ------
    ValueError
        An empty schedule, an option out of range, or trimming that leaves
        no job.

    Examples
    --------
    >>> import numpy as np
    >>> from clustersched.batch import Schedule
    >>> s = Schedule(job_id=np.array([1, 2]), submit=np.array([0.0, 0.0]), start=np.array([0.0, 4.0]),
    ...              end=np.array([4.0, 24.0]), procs=np.array([2, 2]), total_procs=2)
    >>> m = batch_metrics(s)
    >>> m.bounded_slowdown.tolist(), m.utilization
    ([1.0, 1.2], 1.0)
    >>> m.summary()["p50_wait"], m.summary()["p90_wait"]   # between 0 and 4, linearly
    (2.0, 3.6)
    >>> t = batch_metrics(s, warmup=1)   # job 2 alone: window [0, 24], both jobs' work in it
    >>> t.wait.tolist(), t.rows.tolist(), t.window, t.utilization
    ([4.0], [1], (0.0, 24.0), 1.0)
    """
    if not tau > 0:
        raise ValueError(f"tau == {tau}, must be > 0")
    if len(schedule) == 0:
        raise ValueError("schedule is empty: no metric is defined")
    warmup = check_int("warmup", warmup, 0)
    cooldown = check_int("cooldown", cooldown, 0)
    warmup_time = check_float("warmup_time", warmup_time, minimum=0.0)
    cooldown_time = check_float("cooldown_time", cooldown_time, minimum=0.0)
    submit, start, end = (np.asarray(a, dtype=float) for a in (schedule.submit, schedule.start, schedule.end))
    procs = np.asarray(schedule.procs, dtype=float)
    wait = start - submit
    runtime = end - start
    response = wait + runtime
    bsld = np.maximum(response / np.maximum(runtime, tau), 1.0)
    trimmed = bool(warmup or cooldown or warmup_time or cooldown_time)
    if not trimmed:
        lo, hi = float(submit.min()), float(end.max())
        makespan = hi - lo
        work = float(np.dot(runtime, procs))
        utilization = work / (schedule.total_procs * makespan) if makespan > 0 else 0.0
        return BatchMetrics(
            wait,
            response,
            bsld,
            utilization,
            makespan,
            runtime,
            np.asarray(schedule.procs, dtype=np.int64),
            None,
            (lo, hi),
            schedule.kills,
        )
    rows = _kept_rows(submit, warmup, cooldown, warmup_time, cooldown_time)
    if len(rows) == 0:
        raise ValueError(
            f"warmup == {warmup}, cooldown == {cooldown}, warmup_time == {warmup_time:g}, cooldown_time == "
            f"{cooldown_time:g} leave no job of {len(schedule)}: trim less"
        )
    lo, hi = float(submit[rows].min()), float(end[rows].max())
    makespan = hi - lo
    busy = np.clip(end, lo, hi) - np.clip(start, lo, hi)
    work = float(np.dot(busy, procs))
    utilization = work / (schedule.total_procs * makespan) if makespan > 0 else 0.0
    killed = 0 if schedule.killed is None else int(np.count_nonzero(np.asarray(schedule.killed, dtype=bool)[rows]))
    return BatchMetrics(
        wait[rows],
        response[rows],
        bsld[rows],
        utilization,
        makespan,
        runtime[rows],
        np.asarray(schedule.procs, dtype=np.int64)[rows],
        rows,
        (lo, hi),
        killed,
    )
