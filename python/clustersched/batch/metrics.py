"""Metrics of batch schedules (rigid jobs).

For a job with wait ``W = start - submit`` and runtime
``R = end - start``:

* response ``W + R``;
* bounded slowdown ``max((W + R) / max(R, tau), 1)`` with ``tau = 10`` s
  (DPSA paper, §II), which keeps very short jobs from dominating the average;
* utilization: busy processor-seconds over ``P * (last end - first submit)``;
* makespan: ``last end - first submit``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from .schedule import Schedule

if TYPE_CHECKING:
    import pandas

__all__ = ["BOUNDED_SLOWDOWN_TAU", "BatchMetrics", "batch_metrics"]

#: The runtime floor of bounded slowdown, in seconds (DPSA paper §II).
BOUNDED_SLOWDOWN_TAU = 10.0


@dataclass(frozen=True)
class BatchMetrics:
    """Per-job metric arrays (row order of the schedule) and machine-level figures."""

    wait: np.ndarray
    response: np.ndarray
    bounded_slowdown: np.ndarray
    utilization: float
    makespan: float

    def summary(self) -> dict[str, float]:
        """Averages and maxima, DataFrame/CSV ready."""
        return {
            "jobs": int(len(self.wait)),
            "avg_wait": float(self.wait.mean()),
            "max_wait": float(self.wait.max()),
            "avg_response": float(self.response.mean()),
            "avg_bounded_slowdown": float(self.bounded_slowdown.mean()),
            "max_bounded_slowdown": float(self.bounded_slowdown.max()),
            "utilization": self.utilization,
            "makespan": self.makespan,
        }

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
         'utilization', 'makespan_s']
        """
        from .._pandas import summary_frame

        return summary_frame(self.summary())


def batch_metrics(schedule: Schedule, *, tau: float = BOUNDED_SLOWDOWN_TAU) -> BatchMetrics:
    """Metrics of a rigid-job schedule (see the module docstring).

    Examples
    --------
    >>> import numpy as np
    >>> from clustersched.batch import Schedule
    >>> s = Schedule(job_id=np.array([1, 2]), submit=np.array([0.0, 0.0]), start=np.array([0.0, 4.0]),
    ...              end=np.array([4.0, 24.0]), procs=np.array([2, 2]), total_procs=2)
    >>> m = batch_metrics(s)
    >>> m.bounded_slowdown.tolist(), m.utilization
    ([1.0, 1.2], 1.0)
    """
    if not tau > 0:
        raise ValueError(f"tau == {tau}, must be > 0")
    if len(schedule) == 0:
        raise ValueError("schedule is empty: no metric is defined")
    submit, start, end = (np.asarray(a, dtype=float) for a in (schedule.submit, schedule.start, schedule.end))
    wait = start - submit
    runtime = end - start
    response = wait + runtime
    bsld = np.maximum(response / np.maximum(runtime, tau), 1.0)
    makespan = float(end.max() - submit.min())
    work = float(np.dot(runtime, np.asarray(schedule.procs, dtype=float)))
    utilization = work / (schedule.total_procs * makespan) if makespan > 0 else 0.0
    return BatchMetrics(wait, response, bsld, utilization, makespan)
