"""The platform's use over time, from a DFRS schedule's segments.

:func:`dfrs_timeseries` reads the segments as :mod:`~clustersched.dfrs.metrics`
and :mod:`~clustersched.dfrs.validate` do (a job holds CPU and memory only
inside its segments, with the shares and mapping of each) and gives, as step
functions exact at every breakpoint (the distinct submit, completion and
segment start and end times):

* ``cpu``: the CPU allocated, in nodes' worth (the sum over the running
  tasks of their share of a node's CPU; a job in its rescheduling penalty
  holds its CPU without progressing, and counts); ``cpu_utilization`` is
  ``cpu / nodes``;
* ``memory``: the memory held, in nodes' worth (the sum over the running
  tasks of the job's ``mem_need``); ``memory_utilization`` is ``memory /
  nodes``;
* ``cpu_demand``: the CPU need ``tasks * cpu_need`` of the submitted, not
  yet completed jobs, in nodes (may exceed ``nodes``: the ``D(t)`` of the
  underutilization, :func:`~clustersched.dfrs.metrics.underutilization`);
* ``running``: jobs inside a segment; ``waiting``: jobs submitted, not
  completed and not running (queued, or paused).

Value ``i`` holds on ``[time[i], time[i + 1])``; the last breakpoint is the
last completion, where everything is zero.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from .._timeseries import StepSeries, steps
from .metrics import check_pair
from .model import DfrsJobs
from .schedule import DfrsSchedule

__all__ = ["DfrsTimeSeries", "dfrs_timeseries"]


@dataclass(frozen=True, eq=False)
class DfrsTimeSeries(StepSeries):
    """CPU, memory, CPU demand, running and waiting jobs over time (see :mod:`clustersched.dfrs.timeseries`).

    Attributes
    ----------
    time : numpy.ndarray of float
        Breakpoints, seconds, sorted and distinct.
    cpu, memory, cpu_demand : numpy.ndarray of float
        In nodes' worth of CPU or memory.
    cpu_utilization, memory_utilization : numpy.ndarray of float
        ``cpu / nodes`` and ``memory / nodes``.
    running, waiting : numpy.ndarray of int
    nodes : int
    origin : float
        The first submit, seconds: where plots put time 0.
    """

    time: np.ndarray
    cpu: np.ndarray
    memory: np.ndarray
    cpu_demand: np.ndarray
    cpu_utilization: np.ndarray
    memory_utilization: np.ndarray
    running: np.ndarray
    waiting: np.ndarray
    nodes: int
    origin: float

    VALUES: ClassVar[tuple[str, ...]] = (
        "cpu",
        "memory",
        "cpu_demand",
        "cpu_utilization",
        "memory_utilization",
        "running",
        "waiting",
    )
    PANELS: ClassVar[dict[str, tuple[str, tuple[str, ...], float]]] = {
        "utilization": ("fraction of the platform", ("cpu_utilization", "memory_utilization"), 1.0),
        "jobs": ("jobs", ("running", "waiting"), 1.0),
    }


def dfrs_timeseries(schedule: DfrsSchedule, jobs: DfrsJobs) -> DfrsTimeSeries:
    """The step functions of :mod:`clustersched.dfrs.timeseries` for ``schedule`` of ``jobs``.

    Raises
    ------
    InvalidScheduleError
        ``schedule`` is not one of ``jobs``.
    InvalidWorkloadError
        ``jobs`` is empty.

    Examples
    --------
    Two one-task jobs on one node, both submitted at 0, sharing it at half
    speed until 200:

    >>> from clustersched.dfrs import DfrsJobs, DfrsPlatform, simulate
    >>> jobs = DfrsJobs(submit=[0, 0], processing_time=[100, 100], tasks=[1, 1],
    ...                 cpu_need=[1.0, 1.0], mem_need=[0.5, 0.25])
    >>> ts = dfrs_timeseries(simulate(jobs, DfrsPlatform(1), "Greedy */opt=min").schedule, jobs)
    >>> ts.time.tolist(), ts.cpu.tolist(), ts.memory.tolist(), ts.running.tolist()
    ([0.0, 200.0], [1.0, 0.0], [0.75, 0.0], [2, 0])
    >>> ts.cpu_demand.tolist()
    [2.0, 0.0]
    """
    jobs.check_nonempty()
    check_pair(schedule, jobs)
    job = np.asarray(schedule.seg_job, dtype=np.int64)
    seg_start = np.asarray(schedule.seg_start, dtype=np.float64)
    seg_end = np.asarray(schedule.seg_end, dtype=np.float64)
    offsets = np.asarray(schedule.seg_offsets, dtype=np.int64)
    count = np.asarray(schedule.entry_count, dtype=np.float64)
    share = np.asarray(schedule.entry_share, dtype=np.float64)
    m = len(job)
    entry_seg = np.repeat(np.arange(m), np.diff(offsets))
    seg_cpu = np.bincount(entry_seg, weights=count * share, minlength=m)
    seg_tasks = np.bincount(entry_seg, weights=count, minlength=m)
    seg_mem = seg_tasks * jobs.mem_need[job] if m else np.zeros(0)
    submit = np.asarray(jobs.submit, dtype=np.float64)
    completion = np.asarray(schedule.completion, dtype=np.float64)
    n = len(jobs)
    demand = jobs.tasks * jobs.cpu_need
    one_n, zero_n, one_m, zero_m = np.ones(n), np.zeros(n), np.ones(m), np.zeros(m)
    t, (cpu, mem, running, present, cpu_demand) = steps(
        np.concatenate([seg_start, seg_end, submit, completion]),
        np.concatenate([seg_cpu, -seg_cpu, zero_n, zero_n]),
        np.concatenate([seg_mem, -seg_mem, zero_n, zero_n]),
        np.concatenate([one_m, -one_m, zero_n, zero_n]),
        np.concatenate([zero_m, zero_m, one_n, -one_n]),
        np.concatenate([zero_m, zero_m, demand, -demand]),
    )
    running_i = np.rint(running).astype(np.int64)
    present_i = np.rint(present).astype(np.int64)
    # sums of float changes may leave a rounding residue once nothing runs
    cpu = np.where(running_i == 0, 0.0, np.maximum(cpu, 0.0))
    mem = np.where(running_i == 0, 0.0, np.maximum(mem, 0.0))
    cpu_demand = np.where(present_i == 0, 0.0, np.maximum(cpu_demand, 0.0))
    nodes = int(schedule.nodes)
    return DfrsTimeSeries(
        time=t,
        cpu=cpu,
        memory=mem,
        cpu_demand=cpu_demand,
        cpu_utilization=cpu / nodes,
        memory_utilization=mem / nodes,
        running=running_i,
        waiting=present_i - running_i,
        nodes=nodes,
        origin=float(submit.min()),
    )
