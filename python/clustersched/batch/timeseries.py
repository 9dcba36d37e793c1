"""The state of the machine and of the queue over time, from a batch schedule.

:func:`batch_timeseries` reads a :class:`~clustersched.batch.Schedule`
(submit, start, end, procs) and gives, as step functions exact at every
event time (the breakpoints are the distinct submit, start and end times):

* ``busy_procs``: processors held by running jobs; ``utilization``:
  ``busy_procs / total_procs``;
* ``running``: jobs started and not ended (``start <= t < end``);
* ``queued``: jobs submitted and not started (``submit <= t < start``);
* ``queued_work``: the sum over the queued jobs of ``procs * runtime``,
  processor-seconds, with the *runtime* the job ran (``end - start``: what
  the schedule records), not the time it requested, so it is the work the
  queue really holds, not what the scheduler believed.

Value ``i`` holds on ``[time[i], time[i + 1])``; a job is counted from its
event on (a job submitted and started at ``t`` is never queued; one of zero
runtime never runs).  The last breakpoint is the last end, where everything
is zero.  Integrals are therefore exact: the integral of ``busy_procs`` is
the busy processor-seconds ``sum(procs * runtime)`` and the integral of
``utilization`` that over ``total_procs``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from .._timeseries import StepSeries, steps
from .schedule import Schedule

__all__ = ["BatchTimeSeries", "batch_timeseries"]


@dataclass(frozen=True, eq=False)
class BatchTimeSeries(StepSeries):
    """Utilization, running and queued jobs, queued work over time (see :mod:`clustersched.batch.timeseries`).

    Attributes
    ----------
    time : numpy.ndarray of float
        Breakpoints, seconds, sorted and distinct.
    busy_procs, running, queued : numpy.ndarray of int
        Processors busy, jobs running, jobs queued from each breakpoint on.
    utilization : numpy.ndarray of float
        ``busy_procs / total_procs``.
    queued_work : numpy.ndarray of float
        Processor-seconds of the queued jobs (their runtimes).
    total_procs : int
        Processors of the machine.
    origin : float
        The trace start (first submit), seconds: where plots put time 0.

    :meth:`resample` gives time averages on a regular step (floats);
    :meth:`to_pandas` and :meth:`to_csv` name the columns ``time_s``,
    ``busy_procs``, ``utilization``, ``running``, ``queued``,
    ``queued_work_proc_s``.
    """

    time: np.ndarray
    busy_procs: np.ndarray
    utilization: np.ndarray
    running: np.ndarray
    queued: np.ndarray
    queued_work: np.ndarray
    total_procs: int
    origin: float

    VALUES: ClassVar[tuple[str, ...]] = ("busy_procs", "utilization", "running", "queued", "queued_work")
    PANELS: ClassVar[dict[str, tuple[str, tuple[str, ...], float]]] = {
        "utilization": ("utilization", ("utilization",), 1.0),
        "jobs": ("jobs", ("running", "queued"), 1.0),
        "queued work": ("queued work (processor-hours)", ("queued_work",), 3600.0),
    }


def batch_timeseries(schedule: Schedule) -> BatchTimeSeries:
    """The step functions of :mod:`clustersched.batch.timeseries` for ``schedule``.

    Raises
    ------
    ValueError
        An empty schedule.

    Examples
    --------
    Two processors; job 1 (2 procs, 0-4), job 2 (2 procs, submitted at 0,
    runs 4-24), job 3 (1 proc, submitted at 1, runs 24-25):

    >>> import numpy as np
    >>> from clustersched.batch import Schedule
    >>> s = Schedule(job_id=np.array([1, 2, 3]), submit=np.array([0.0, 0.0, 1.0]),
    ...              start=np.array([0.0, 4.0, 24.0]), end=np.array([4.0, 24.0, 25.0]),
    ...              procs=np.array([2, 2, 1]), total_procs=2)
    >>> ts = batch_timeseries(s)
    >>> ts.time.tolist(), ts.running.tolist(), ts.queued.tolist()
    ([0.0, 1.0, 4.0, 24.0, 25.0], [1, 1, 1, 1, 0], [1, 2, 1, 0, 0])
    >>> ts.queued_work.tolist(), ts.utilization.tolist()
    ([40.0, 41.0, 1.0, 0.0, 0.0], [1.0, 1.0, 1.0, 0.5, 0.0])
    >>> ts.integral("busy_procs")   # 2*4 + 2*20 + 1*1 processor-seconds
    49.0
    """
    n = len(schedule)
    if n == 0:
        raise ValueError("schedule is empty: no time series is defined")
    submit, start, end = (np.asarray(a, dtype=np.float64) for a in (schedule.submit, schedule.start, schedule.end))
    procs = np.asarray(schedule.procs, dtype=np.float64)
    work = procs * (end - start)
    one, zero = np.ones(n), np.zeros(n)
    t, (queued, running, busy, qwork) = steps(
        np.concatenate([submit, start, end]),
        np.concatenate([one, -one, zero]),
        np.concatenate([zero, one, -one]),
        np.concatenate([zero, procs, -procs]),
        np.concatenate([work, -work, zero]),
    )
    queued_i = np.rint(queued).astype(np.int64)
    busy_i = np.rint(busy).astype(np.int64)
    # a sum of float changes may leave a rounding residue: an empty queue holds no work
    qwork = np.where(queued_i == 0, 0.0, np.maximum(qwork, 0.0))
    return BatchTimeSeries(
        time=t,
        busy_procs=busy_i,
        utilization=busy_i / float(schedule.total_procs),
        running=np.rint(running).astype(np.int64),
        queued=queued_i,
        queued_work=qwork,
        total_procs=int(schedule.total_procs),
        origin=float(submit.min()),
    )
