"""Quality metrics of multi-PTG schedules (RR-7224 §3.2 and §5.2.6).

For PTG ``i`` of ``N``, all released at time 0:

* ``cmax[i]``: its completion time in the schedule (the latest end of its
  tasks; the paper's ``C_max_i``, "the execution time in the presence of
  competition");
* ``cmax_star[i]``: its makespan alone on the dedicated cluster, scheduled by
  HCPA (``C*_max_i``); computed by the caller, e.g. with :func:`cmax_star`;
* ``stretch[i] = cmax[i] / cmax_star[i]``;
* average stretch ``sum(cmax) / sum(cmax_star)`` -- deliberately not the mean
  of the stretches (§3.2 explains why: it is stable when one PTG is tiny);
* overall makespan ``max(cmax)``;
* maximum stretch ``max(stretch)``, the fairness metric.  (The report prints
  it as ``max C*_max_i / C_max_i``; that inverts its own definition of the
  stretch, and its Figure 8 values are >= 1, so we use ``C / C*``.)
* utilization (§5.2.6): busy processor-seconds over ``P * makespan``, the
  average fraction of busy processors until the overall makespan.  (The
  report's sentence says "idle processors"; its Table 2 values, 75% .. 100%,
  are busy fractions.)
* peak utilization: the largest fraction of the ``P`` processors busy at one
  instant.  §5.2.6's sentence is garbled ("the number of idle processors at
  a given instant, average over the overall makespan"); of the readings we
  tried, this one reproduces Table 2 -- its values and its pattern (CRA flat
  near 99%, CAFM lowest on gdx, all falling from chti to gdx) -- within a
  few points for 17 of the 19 algorithms (docs/reproduce-ptg.md), while
  ``utilization`` does not.  Table 2's sentence "the PTGs can saturate the
  clusters" fits it too.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Callable, Sequence, Union

import numpy as np

from ..platform import Cluster
from ..workload.ptg import PTG
from .schedule import TaskSchedule

if TYPE_CHECKING:
    import pandas

__all__ = ["PTGMetrics", "cmax_star", "ptg_metrics"]

#: What :func:`cmax_star` accepts as a single-PTG scheduler.
SinglePTGScheduler = Callable[[PTG, Cluster], Union[TaskSchedule, float]]


@dataclass(frozen=True)
class PTGMetrics:
    """Per-PTG arrays (index = PTG index) and the §3.2 / §5.2.6 aggregates."""

    cmax: np.ndarray
    cmax_star: np.ndarray
    stretch: np.ndarray
    average_stretch: float
    makespan: float
    max_stretch: float
    utilization: float
    peak_utilization: float

    def summary(self) -> dict[str, float]:
        """The aggregates, DataFrame/CSV ready."""
        return {
            "ptgs": int(len(self.cmax)),
            "average_stretch": self.average_stretch,
            "max_stretch": self.max_stretch,
            "makespan": self.makespan,
            "utilization": self.utilization,
            "peak_utilization": self.peak_utilization,
        }

    def to_pandas(self) -> "pandas.DataFrame":
        """:meth:`summary` as a one-row DataFrame, names with units (``makespan_s``; see
        :mod:`clustersched._pandas`).
        """
        from .._pandas import summary_frame

        return summary_frame(self.summary())


def ptg_metrics(schedule: TaskSchedule, cmax_star: Sequence[float]) -> PTGMetrics:
    """Metrics of ``schedule`` (see the module docstring) given ``C*_max`` per PTG.

    Parameters
    ----------
    schedule : TaskSchedule
        A schedule of PTGs ``0 .. len(cmax_star) - 1``, each with >= 1 row.
    cmax_star : sequence of float
        ``C*_max`` of each PTG, > 0.

    Examples
    --------
    >>> s = TaskSchedule.from_rows(
    ...     [(0, 0, 0.0, 2.0, [0, 1]), (1, 0, 2.0, 3.0, [0])], total_procs=2)
    >>> m = ptg_metrics(s, [1.0, 1.0])
    >>> m.cmax.tolist(), m.stretch.tolist(), m.average_stretch, m.max_stretch, m.utilization
    ([2.0, 3.0], [2.0, 3.0], 2.5, 3.0, 0.8333333333333334)
    >>> m.peak_utilization
    1.0
    """
    star = np.asarray(cmax_star, dtype=np.float64)
    if star.ndim != 1 or star.size == 0:
        raise ValueError(f"cmax_star has shape {star.shape}, must be a non-empty 1-D sequence")
    if not (np.isfinite(star).all() and (star > 0).all()):
        raise ValueError(f"cmax_star == {star.tolist()}, every value must be finite and > 0")
    if len(schedule) and (schedule.ptg.min() < 0 or schedule.ptg.max() >= star.size):
        raise ValueError(f"schedule has PTG indices outside 0..{star.size - 1} (cmax_star has {star.size} values)")
    cmax = schedule.makespans(star.size)
    missing = np.flatnonzero(np.isnan(cmax))
    if missing.size:
        raise ValueError(f"PTG {int(missing[0])} has no task in the schedule")
    with np.errstate(over="ignore"):  # a stretch beyond float64 (a tiny PTG behind a huge one) is inf
        stretch = cmax / star
        average = float(cmax.sum() / star.sum())
    makespan = float(cmax.max())
    busy = float(np.dot(schedule.end - schedule.start, schedule.procs.astype(np.float64)))
    utilization = busy / (schedule.total_procs * makespan) if makespan > 0 else 0.0
    return PTGMetrics(
        cmax=cmax,
        cmax_star=star,
        stretch=stretch,
        average_stretch=average,
        makespan=makespan,
        max_stretch=float(stretch.max()),
        utilization=utilization,
        peak_utilization=_peak_busy(schedule) / schedule.total_procs,
    )


def _peak_busy(schedule: TaskSchedule) -> int:
    """The most processors busy at one instant (intervals are half-open: an end frees before a start takes)."""
    if not len(schedule):
        return 0
    times = np.concatenate([schedule.start, schedule.end])
    change = np.concatenate([schedule.procs, -schedule.procs]).astype(np.int64)
    order = np.lexsort((change, times))  # at equal times, releases (negative) first
    return int(np.cumsum(change[order]).max())


def cmax_star(ptgs: Sequence[PTG], cluster: Cluster, scheduler: SinglePTGScheduler) -> np.ndarray:
    """``C*_max`` of each PTG: its makespan alone on the whole ``cluster``, by ``scheduler``.

    Parameters
    ----------
    ptgs : sequence of PTG
    cluster : Cluster
    scheduler : callable ``(ptg, cluster) -> TaskSchedule | float``
        Schedules one PTG on the dedicated cluster -- in the paper, HCPA
        allocation + list scheduling (the slow reference is
        ``tests/reference/ptg.py::hcpa_schedule``; the Rust kernel will be
        passed the same way).  A returned TaskSchedule gives its latest end;
        a float is taken as the makespan.

    Examples
    --------
    >>> import networkx as nx
    >>> from clustersched.platform import Cluster
    >>> g = nx.DiGraph(); g.add_node("a", work=4e9, alpha=0.0)
    >>> alone = lambda p, c: float(p.exec_time(c.procs, c.speed).sum())  # one task: all processors
    >>> cmax_star([PTG.from_networkx(g)], Cluster("c", 4, 1e9), alone).tolist()
    [1.0]
    """
    out = np.empty(len(ptgs), dtype=np.float64)
    for i, p in enumerate(ptgs):
        result = scheduler(p, cluster)
        out[i] = float(result.end.max()) if isinstance(result, TaskSchedule) else float(result)
    return out
