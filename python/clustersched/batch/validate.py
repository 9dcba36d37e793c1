"""Independent feasibility checks of batch schedules (rigid jobs on one cluster).

These checkers look only at the schedule and at the jobs it claims to
schedule; they share no code with the policies, so a bug in a policy or in the
simulator shows up here as a violation.  Every test runs them on every schedule
it produces.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right

import numpy as np

from ..errors import InvalidScheduleError
from ..workload.jobs import JobTable
from ..workload.timelimit import kills_at_time_limit, time_limited
from .schedule import Schedule

__all__ = ["batch_violations", "validate_batch"]


def validate_batch(schedule: Schedule, jobs: JobTable) -> None:
    """Raises :class:`InvalidScheduleError` listing every violation, or returns None.

    See :func:`batch_violations` for the rules.
    """
    violations = batch_violations(schedule, jobs)
    if violations:
        raise InvalidScheduleError(violations)


def batch_violations(schedule: Schedule, jobs: JobTable) -> list[str]:
    """Every way ``schedule`` breaks the rules of rigid-job scheduling on ``jobs``.

    Row ``i`` of the schedule must be job ``i`` of ``jobs`` (same job id and
    submit time), and:

    * it starts no earlier than it was submitted, at a finite time;
    * it runs exactly its runtime, ``end == start + runtime``; or, when the
      table declares time-limit kills and the runtime exceeds the requested
      time, exactly the requested time, and the schedule's ``killed`` says so
      (:func:`~clustersched.workload.timelimit.time_limited`, the rule the
      simulator applies); no other job is marked killed;
    * it uses exactly its width (field 5, else field 8) in processors;
    * at no time are more than ``total_procs`` processors busy;
    * when processors are given: the job's runs of processor ids hold
      ``procs`` distinct ids in ``0..total_procs-1``, and no processor runs
      two jobs at once.

    Intervals are half-open ``[start, end)``: a job may start on a processor at
    the instant another ends there, and zero-length jobs occupy nothing.
    """
    out: list[str] = []
    n = len(jobs)
    if len(schedule) != n:
        return [f"schedule has {len(schedule)} rows for {n} jobs"]
    ids = jobs.job_id
    P = int(schedule.total_procs)

    def report(mask: np.ndarray, what: str) -> None:
        for i in np.flatnonzero(mask)[:20]:
            out.append(f"job {ids[i]} (row {i}): {what(i)}")  # type: ignore[operator]

    start, end = np.asarray(schedule.start, dtype=float), np.asarray(schedule.end, dtype=float)
    width = jobs.width()
    report(np.asarray(schedule.job_id) != ids, lambda i: f"schedule row names job {schedule.job_id[i]}")
    report(~np.isfinite(start), lambda i: f"never started (start = {start[i]})")
    report(start < jobs.submit, lambda i: f"starts at {start[i]} before its submit time {jobs.submit[i]}")
    run, killed = time_limited(jobs)
    report(
        end != start + run,
        lambda i: (
            f"runs {end[i] - start[i]} s, its runtime is {jobs.runtime[i]} s"
            + (f" (killed at its time limit {jobs.time_requested[i]} s, it runs {run[i]} s)" if killed[i] else "")
        ),
    )
    marked = np.zeros(n, dtype=bool) if schedule.killed is None else np.asarray(schedule.killed, dtype=bool)
    if marked.shape != (n,):
        return out + [f"schedule's killed column has shape {marked.shape} for {n} jobs"]
    if kills_at_time_limit(jobs) and schedule.killed is None:
        out.append("the jobs declare time-limit kills (TimeLimit: kill) but the schedule has no killed column")
    report(
        killed & ~marked,
        lambda i: (
            f"runtime {jobs.runtime[i]} s exceeds its time limit "
            f"{jobs.time_requested[i]} s, but the schedule does not mark it killed"
        ),
    )
    report(
        marked & ~killed,
        lambda i: (
            "marked killed, but the time-limit rule does not kill it (runtime "
            f"{jobs.runtime[i]} s, time limit {jobs.time_requested[i]} s)"
        ),
    )
    report(np.asarray(schedule.procs) != width, lambda i: f"uses {schedule.procs[i]} processors, needs {width[i]}")
    if out:
        return out

    busy = _peak_busy(start, end, width)
    if busy[0] > P:
        out.append(f"{busy[0]} processors busy at time {busy[1]}, the machine has {P}")

    if schedule.proc_offsets is not None:
        out.extend(_processor_violations(schedule, start, end, width, ids, P))
    return out


def _peak_busy(start: np.ndarray, end: np.ndarray, width: np.ndarray) -> tuple[int, float]:
    """Largest number of busy processors over time, and when (ends before starts at ties)."""
    run = end > start
    times = np.concatenate([start[run], end[run]])
    delta = np.concatenate([width[run], -width[run]])
    if times.size == 0:
        return 0, 0.0
    order = np.lexsort((delta, times))  # at equal times, releases (negative) first
    level = np.cumsum(delta[order])
    k = int(np.argmax(level))
    return int(level[k]), float(times[order][k])


def _processor_violations(
    schedule: Schedule, start: np.ndarray, end: np.ndarray, width: np.ndarray, ids: np.ndarray, P: int
) -> list[str]:
    out: list[str] = []
    offsets = np.asarray(schedule.proc_offsets, dtype=np.int64)
    first = np.asarray(schedule.proc_first, dtype=np.int64)
    count = np.asarray(schedule.proc_count, dtype=np.int64)
    if len(offsets) != len(width) + 1 or offsets[0] != 0 or offsets[-1] != len(first) or len(first) != len(count):
        return [
            f"processor runs malformed: {len(offsets)} offsets for {len(width)} jobs, "
            f"{len(first)} run starts, {len(count)} run lengths"
        ]
    row = np.repeat(np.arange(len(width)), np.diff(offsets))
    total = np.bincount(row, weights=count, minlength=len(width)).astype(np.int64)
    for i in np.flatnonzero(total != width)[:20]:
        out.append(f"job {ids[i]} (row {i}): {total[i]} processors assigned for width {width[i]}")
    for k in np.flatnonzero((count < 1) | (first < 0) | (first + count > P))[:20]:
        out.append(f"job {ids[row[k]]}: processors {first[k]}..{first[k] + count[k] - 1} outside 0..{P - 1}")
    if out:
        return out
    order = np.lexsort((first, row))
    r, f, c = row[order], first[order], count[order]
    for k in np.flatnonzero((r[1:] == r[:-1]) & (f[1:] < f[:-1] + c[:-1]))[:20]:
        out.append(f"job {ids[r[k]]} (row {r[k]}) lists processor {f[k + 1]} twice")
    return out + _double_bookings(row, first, first + count, start, end, ids)


def _double_bookings(
    row: np.ndarray, lo: np.ndarray, hi: np.ndarray, start: np.ndarray, end: np.ndarray, ids: np.ndarray
) -> list[str]:
    """Runs of processors ``[lo, hi)`` held by job ``row`` over ``[start, end)``
    that overlap another job's, found by a sweep over time (releases first at
    equal times) keeping the busy runs sorted by first processor."""
    out: list[str] = []
    keep = end[row] > start[row]
    row, lo, hi = row[keep], lo[keep], hi[keep]
    times = np.concatenate([end[row], start[row]])
    is_start = np.concatenate([np.zeros(len(row), bool), np.ones(len(row), bool)])
    run = np.concatenate([np.arange(len(row)), np.arange(len(row))])
    busy_lo: list[int] = []  # first processor of each busy run, sorted
    busy_run: list[int] = []
    for k in np.lexsort((is_start, times)).tolist():
        i = int(run[k])
        a = int(lo[i])
        if not is_start[k]:
            j = bisect_left(busy_lo, a)
            if j < len(busy_lo) and busy_run[j] == i:
                del busy_lo[j], busy_run[j]
            continue
        j = bisect_right(busy_lo, a)
        for other in (busy_run[j - 1] if j > 0 else None, busy_run[j] if j < len(busy_run) else None):
            if other is not None and lo[other] < hi[i] and lo[i] < hi[other]:
                x, y = int(row[other]), int(row[i])
                out.append(
                    f"processor {max(a, int(lo[other]))} double-booked: job {ids[x]} [{start[x]}, {end[x]}) "
                    f"and job {ids[y]} [{start[y]}, {end[y]})"
                )
                break
        else:
            busy_lo.insert(j, a)
            busy_run.insert(j, i)
            continue
        if len(out) >= 20:
            break
    return out
