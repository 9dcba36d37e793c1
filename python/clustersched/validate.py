"""Independent feasibility checks of schedules.

These checkers look only at the schedule and at the jobs it claims to
schedule; they share no code with the policies, so a bug in a policy or in the
simulator shows up here as a violation.  Every test runs them on every schedule
it produces.
"""

from __future__ import annotations

import numpy as np

from .errors import InvalidScheduleError
from .schedule import Schedule
from .workload.jobs import JobTable

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
    * it runs exactly its runtime: ``end == start + runtime``;
    * it uses exactly its width (field 5, else field 8) in processors;
    * at no time are more than ``total_procs`` processors busy;
    * when processor ids are given: the job has ``procs`` distinct ids in
      ``0..total_procs-1`` and no processor runs two jobs at once.

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
    report(end != start + jobs.runtime, lambda i: f"runs {end[i] - start[i]} s, its runtime is {jobs.runtime[i]} s")
    report(np.asarray(schedule.procs) != width, lambda i: f"uses {schedule.procs[i]} processors, needs {width[i]}")
    if out:
        return out

    busy = _peak_busy(start, end, width)
    if busy[0] > P:
        out.append(f"{busy[0]} processors busy at time {busy[1]}, the machine has {P}")

    if schedule.proc_offsets is not None and schedule.proc_ids is not None:
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
    procs = np.asarray(schedule.proc_ids, dtype=np.int64)
    counts = np.diff(offsets)
    if len(counts) != len(width) or offsets[0] != 0 or offsets[-1] != len(procs):
        return [f"processor offsets malformed: {len(offsets)} offsets for {len(width)} jobs, {len(procs)} ids"]
    for i in np.flatnonzero(counts != width)[:20]:
        out.append(f"job {ids[i]} (row {i}): {counts[i]} processor ids for width {width[i]}")
    for k in np.flatnonzero((procs < 0) | (procs >= P))[:20]:
        out.append(f"processor id {procs[k]} outside 0..{P - 1}")
    if out:
        return out
    row = np.repeat(np.arange(len(width)), counts)
    dup = np.lexsort((procs, row))
    same = (row[dup][1:] == row[dup][:-1]) & (procs[dup][1:] == procs[dup][:-1])
    for k in np.flatnonzero(same)[:20]:
        i = row[dup][k]
        out.append(f"job {ids[i]} (row {i}) lists processor {procs[dup][k]} twice")
    # Per processor, sorted by start: each job must end before the next starts.
    run = (end > start)[row]
    row, procs = row[run], procs[run]
    order = np.lexsort((start[row], procs))
    r, p = row[order], procs[order]
    clash = (p[1:] == p[:-1]) & (end[r[:-1]] > start[r[1:]])
    for k in np.flatnonzero(clash)[:20]:
        a, b = r[k], r[k + 1]
        out.append(
            f"processor {p[k]} double-booked: job {ids[a]} [{start[a]}, {end[a]}) "
            f"and job {ids[b]} [{start[b]}, {end[b]})"
        )
    return out
