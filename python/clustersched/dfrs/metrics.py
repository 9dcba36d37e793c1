"""Metrics of DFRS schedules (RR-7659 §2.2, §6.1, §6.3, §6.4.1).

Everything is derived from the schedule's segments and the job table, the
same way :mod:`~clustersched.dfrs.validate` reads them:

* **bounded stretch** (§2.2) of a job: ``max(1, (completion - submit) /
  max(10 s, processing time))``; the *maximum stretch* is the largest over
  the jobs, and the *degradation from bound* (§6.1) is the maximum stretch
  divided by the Theorem 1 lower bound
  (:func:`clustersched.dfrs.bound.max_stretch_lower_bound`);
* **preemptions and migrations** (§6.3): a job is preempted each time one
  of its segments ends and its next one starts later (it was paused), and
  migrated each time a segment starts where the previous one ended but on
  other nodes (one event per job however many tasks move, as in the
  paper).  Rates are per hour of the schedule's span (first submission to
  last completion) and per job;
* **bandwidth** (§6.3): a preemption writes the job's memory image
  (``tasks * mem_need * node_memory_gb``) to storage and its resume reads it
  back; a migration (done by pause/resume, §5.1) writes and reads the
  memory of the tasks that changed nodes.  Both directions count; the total
  bytes of each kind are divided by the span (GB/s, GB = 10**9 bytes);
* **underutilization** (§6.4.1): ``∫ min(|P|, D(t)) - u(t) dt`` where
  ``D(t)`` is the CPU demand (sum of ``tasks * cpu_need``) of the submitted,
  not yet completed jobs and ``u(t)`` the CPU doing useful work.  Useful work
  integrates to exactly the total work ``W = sum(processing_time * cpu_need *
  tasks)`` (CPU held during a penalty is not useful), so the
  underutilization is ``∫ min(|P|, D(t)) dt - W``; the *normalized*
  underutilization divides it by ``W``.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING

import numpy as np

from .._checks import check_float
from ..errors import InvalidScheduleError
from .model import DfrsJobs, DfrsPlatform
from .schedule import DfrsSchedule
from .validate import pairing_violations

if TYPE_CHECKING:
    import pandas

__all__ = ["BOUNDED_STRETCH_THRESHOLD", "DfrsMetrics", "dfrs_metrics", "reschedulings", "stretches", "underutilization"]

#: §2.2: turn-around times shorter than 10 s count as 10 s.
BOUNDED_STRETCH_THRESHOLD = 10.0


def check_pair(schedule: DfrsSchedule, jobs: DfrsJobs, platform: DfrsPlatform | None = None) -> None:
    """InvalidScheduleError when ``schedule`` is not one of ``jobs`` (on ``platform``), never an IndexError."""
    mismatch = pairing_violations(schedule, jobs, platform)
    if mismatch:
        raise InvalidScheduleError(mismatch)


def stretches(schedule: DfrsSchedule, jobs: DfrsJobs, *, threshold: float = BOUNDED_STRETCH_THRESHOLD) -> np.ndarray:
    """The bounded stretch of every job (InvalidScheduleError for a schedule of other jobs)."""
    check_pair(schedule, jobs)
    flow = np.asarray(schedule.completion, dtype=float) - jobs.submit
    return np.maximum(1.0, flow / np.maximum(threshold, jobs.processing_time))


def reschedulings(schedule: DfrsSchedule, jobs: DfrsJobs) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(preempted, migrated, moved tasks): per segment, whether it starts a resume
    (the job was paused before it), a migration, and how many tasks changed nodes."""
    check_pair(schedule, jobs)
    job = np.asarray(schedule.seg_job, dtype=np.int64)
    start, end = np.asarray(schedule.seg_start, dtype=float), np.asarray(schedule.seg_end, dtype=float)
    off = np.asarray(schedule.seg_offsets, dtype=np.int64)
    m = len(job)
    same = np.r_[False, job[1:] == job[:-1]] if m else np.zeros(0, bool)
    resumed = same & (start > np.r_[-np.inf, end[:-1]])
    contiguous = same & ~resumed
    moved = np.zeros(m, dtype=np.int64)
    nodes = np.asarray(schedule.entry_node, dtype=np.int64)
    counts = np.asarray(schedule.entry_count, dtype=np.int64)
    for s in np.flatnonzero(contiguous):
        a = slice(off[s - 1], off[s])
        b = slice(off[s], off[s + 1])
        prev = dict(zip(nodes[a].tolist(), counts[a].tolist()))
        kept = sum(min(c, prev.get(i, 0)) for i, c in zip(nodes[b].tolist(), counts[b].tolist()))
        moved[s] = int(jobs.tasks[job[s]]) - kept
    return resumed, contiguous & (moved > 0), moved


def underutilization(schedule: DfrsSchedule, jobs: DfrsJobs, platform: DfrsPlatform) -> float:
    """``∫ min(|P|, D(t)) dt - W`` in node-seconds (module docstring)."""
    check_pair(schedule, jobs, platform)
    demand = jobs.tasks * jobs.cpu_need
    times = np.concatenate([jobs.submit, np.asarray(schedule.completion, dtype=float)])
    delta = np.concatenate([demand, -demand])
    order = np.argsort(times, kind="stable")
    times, level = times[order], np.cumsum(delta[order])
    capped = np.minimum(float(platform.nodes), np.maximum(level, 0.0))
    area = float(np.sum(capped[:-1] * np.diff(times)))
    return area - float(jobs.work().sum())


@dataclass(frozen=True)
class DfrsMetrics:
    """The metrics of one schedule (see the module docstring).

    ``bound`` and ``degradation`` are NaN when no bound was given;
    ``p50_stretch``, ``p90_stretch`` and ``p99_stretch`` are percentiles of
    the bounded stretch (numpy's linear interpolation).
    """

    jobs: int
    max_stretch: float
    mean_stretch: float
    bound: float
    degradation: float
    preemptions: int
    migrations: int
    preemptions_per_hour: float
    migrations_per_hour: float
    preemptions_per_job: float
    migrations_per_job: float
    preemption_bandwidth_gbs: float
    migration_bandwidth_gbs: float
    span: float
    underutilization: float
    normalized_underutilization: float
    p50_stretch: float = float("nan")
    p90_stretch: float = float("nan")
    p99_stretch: float = float("nan")

    def summary(self) -> dict[str, float]:
        """The metrics as a flat dict (JSON- and DataFrame-ready)."""
        return asdict(self)

    def to_pandas(self) -> "pandas.DataFrame":
        """:meth:`summary` as a one-row DataFrame, names with units (``span_s``, ``underutilization_node_s``;
        bandwidths are ``_gbs`` already; see :mod:`clustersched._pandas`).
        """
        from .._pandas import summary_frame

        return summary_frame(self.summary())

    def report(self) -> dict[str, float]:
        """What ``clustersched dfrs --json`` and the reproduction report per run: the bound, the
        stretches, the rescheduling costs and, as ``underutilization``, the normalized one (§6.4.1)."""
        keys = (
            "bound",
            "max_stretch",
            "degradation",
            "mean_stretch",
            "preemptions",
            "migrations",
            "preemptions_per_hour",
            "migrations_per_hour",
            "preemptions_per_job",
            "migrations_per_job",
            "preemption_bandwidth_gbs",
            "migration_bandwidth_gbs",
        )
        return {**{k: getattr(self, k) for k in keys}, "underutilization": self.normalized_underutilization}


def dfrs_metrics(
    schedule: DfrsSchedule,
    jobs: DfrsJobs,
    platform: DfrsPlatform,
    *,
    bound: float | None = None,
    threshold: float = BOUNDED_STRETCH_THRESHOLD,
) -> DfrsMetrics:
    """The metrics of ``schedule`` (module docstring); ``bound`` gives the degradation.

    Parameters
    ----------
    schedule : DfrsSchedule
        A schedule of ``jobs`` on ``platform``.
    jobs : DfrsJobs
    platform : DfrsPlatform
    bound : float, optional
        A lower bound on the maximum bounded stretch (finite and ``>= 1``, as
        every bounded stretch is), e.g.
        :func:`~clustersched.dfrs.bound.max_stretch_lower_bound`; None leaves
        ``bound`` and ``degradation`` NaN.
    threshold : float
        The bounded stretch's threshold, seconds (finite and ``> 0``).

    Raises
    ------
    InvalidScheduleError
        ``schedule`` is not one of ``jobs`` on ``platform`` (other jobs, ids,
        submit times or node count, a NaN penalty: see
        :func:`~clustersched.dfrs.validate.pairing_violations`).
    InvalidWorkloadError
        ``jobs`` is empty.
    ValueError
        A ``bound`` or ``threshold`` out of range.

    Examples
    --------
    >>> from clustersched.dfrs import DfrsJobs, DfrsPlatform, simulate
    >>> jobs = DfrsJobs(submit=[0, 0], processing_time=[100, 100], tasks=[1, 1],
    ...                 cpu_need=[1.0, 1.0], mem_need=[0.5, 0.5])
    >>> m = dfrs_metrics(simulate(jobs, DfrsPlatform(1), "Greedy */opt=min").schedule, jobs,
    ...                  DfrsPlatform(1), bound=1.5)
    >>> m.max_stretch, m.degradation, m.preemptions
    (2.0, 1.3333333333333333, 0)
    >>> m.p50_stretch, m.p99_stretch     # the two jobs share the node at half speed: stretch 2 each
    (2.0, 2.0)
    """
    jobs.check_nonempty()
    if bound is not None:
        bound = check_float("bound", bound, minimum=1.0)
    threshold = check_float("threshold", threshold, positive=True)
    check_pair(schedule, jobs, platform)
    s = stretches(schedule, jobs, threshold=threshold)
    resumed, migrated, moved = reschedulings(schedule, jobs)
    job = np.asarray(schedule.seg_job, dtype=np.int64)
    gb = jobs.mem_need * platform.node_memory_gb  # GB of one task
    pmtn_gb = float(np.sum(2.0 * jobs.tasks[job[resumed]] * gb[job[resumed]]))
    mig_gb = float(np.sum(2.0 * moved[migrated] * gb[job[migrated]]))
    completion = np.asarray(schedule.completion, dtype=float)
    span = float(completion.max() - jobs.submit.min()) if len(jobs) else 0.0
    hours = span / 3600.0
    n = len(jobs)
    pre, mig = int(resumed.sum()), int(migrated.sum())
    under = underutilization(schedule, jobs, platform)
    work = float(jobs.work().sum())
    b = float("nan") if bound is None else float(bound)
    p50, p90, p99 = (float(v) for v in np.percentile(s, (50, 90, 99)))
    return DfrsMetrics(
        jobs=n,
        max_stretch=float(s.max()),
        mean_stretch=float(s.mean()),
        bound=b,
        degradation=float(s.max() / b),
        preemptions=pre,
        migrations=mig,
        preemptions_per_hour=pre / hours if hours > 0 else 0.0,
        migrations_per_hour=mig / hours if hours > 0 else 0.0,
        preemptions_per_job=pre / n,
        migrations_per_job=mig / n,
        preemption_bandwidth_gbs=pmtn_gb / span if span > 0 else 0.0,
        migration_bandwidth_gbs=mig_gb / span if span > 0 else 0.0,
        span=span,
        underutilization=under,
        normalized_underutilization=under / work if work > 0 else 0.0,
        p50_stretch=p50,
        p90_stretch=p90,
        p99_stretch=p99,
    )
