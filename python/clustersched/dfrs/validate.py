"""Independent feasibility check of DFRS schedules (RR-7659 §2.2, §5.1).

The checker reads only the schedule's segments and the job table; it shares no
code with the simulator or the algorithms (it re-derives penalties and
progress from the segments), so a bug there shows up here as a violation.
Every test runs it on every schedule it produces.

It shares one thing with the simulator on purpose: the rounding rule of
:mod:`clustersched.dfrs.model` ("One rounding rule"): progress is
:func:`~clustersched.dfrs.model.progress` in both, a job's work may differ
from its processing time by :func:`~clustersched.dfrs.model.work_tolerance`
(relative to the processing time and to the clock's float64 resolution at
its completion), and a node's CPU shares may add up to ``1 +``
:data:`~clustersched.dfrs.model.CPU_TOLERANCE`.
"""

from __future__ import annotations

import numpy as np

from ..errors import InvalidScheduleError
from .model import CPU_TOLERANCE, NEED_UNITS, WORK_RTOL, DfrsJobs, DfrsPlatform, progress, work_tolerance
from .schedule import DfrsSchedule

__all__ = ["CPU_TOLERANCE", "WORK_RTOL", "dfrs_violations", "pairing_violations", "validate_dfrs"]


def validate_dfrs(schedule: DfrsSchedule, jobs: DfrsJobs, platform: DfrsPlatform) -> None:
    """Raises :class:`InvalidScheduleError` listing every violation, or returns None.

    See :func:`dfrs_violations` for the rules.
    """
    violations = dfrs_violations(schedule, jobs, platform)
    if violations:
        raise InvalidScheduleError(violations)


def dfrs_violations(schedule: DfrsSchedule, jobs: DfrsJobs, platform: DfrsPlatform) -> list[str]:
    """Every way ``schedule`` breaks the rules of DFRS on ``jobs`` and ``platform``.

    Row ``i`` of the schedule must be job ``i`` of ``jobs`` (same id and
    submit time), and:

    * segments are well formed: finite, ``start <= end``, not before the
      job's submission, listed by job then time, never overlapping for one
      job; each segment places exactly the job's tasks, on existing nodes
      listed in increasing order;
    * **equal yields**: every task of a segment gets the same CPU share, at
      most the job's CPU need (a yield in ``[0, 1]``);
    * **capacity**: at every instant, on every node, the memory of the tasks
      there is at most 100% and their CPU shares add up to at most 100%
      (segments are half-open ``[start, end)``);
    * **penalties and work**: a segment that starts after a gap in the job's
      segments (a resume) or right after one on other nodes (a migration)
      starts a penalty of ``schedule.penalty`` seconds, during which the job
      makes no progress; outside penalties it progresses at its yield.  The
      progress over all its segments must equal its processing time: no
      more, no less, and so none during a
      penalty (within :func:`~clustersched.dfrs.model.work_tolerance`:
    ``1e-6`` of the processing time plus 4 float64 steps at the job's
    completion time);
    * every job has a segment, and completes at the end of its last one.

    Comparisons are written so that a NaN anywhere (a share, a time, the
    penalty) is a violation, never a pass.
    """
    jobs.check_nonempty()
    out = pairing_violations(schedule, jobs, platform)
    if out:
        return out
    n = len(jobs)
    ids = jobs.job_id

    def report(mask: np.ndarray, rows: np.ndarray, what) -> None:  # type: ignore[no-untyped-def]
        for k in np.flatnonzero(mask)[:20]:
            out.append(f"job {ids[rows[k]]} (row {rows[k]}): {what(k)}")

    job = np.asarray(schedule.seg_job, dtype=np.int64)
    start = np.asarray(schedule.seg_start, dtype=float)
    end = np.asarray(schedule.seg_end, dtype=float)
    off = np.asarray(schedule.seg_offsets, dtype=np.int64)
    node = np.asarray(schedule.entry_node, dtype=np.int64)
    count = np.asarray(schedule.entry_count, dtype=np.int64)
    share = np.asarray(schedule.entry_share, dtype=float)
    m = len(job)
    if not (
        len(start) == len(end) == m
        and len(off) == m + 1
        and off[0] == 0
        and off[-1] == len(node)
        and len(count) == len(share) == len(node)
        and np.all(np.diff(off) >= 1)
    ):
        return [
            f"segments malformed: {m} jobs, {len(start)} starts, {len(end)} ends, {len(off)} offsets "
            f"(need {m + 1}, from 0 to {len(node)}, each segment with an entry), "
            f"{len(node)} nodes, {len(count)} counts, {len(share)} shares"
        ]
    if m > 1 and np.any((job[1:] < job[:-1]) | ((job[1:] == job[:-1]) & (start[1:] < start[:-1]))):
        return ["segments are not sorted by job then start time"]
    seg = np.arange(m)
    report(
        ~(np.isfinite(start) & np.isfinite(end) & (end >= start)),
        job,
        lambda s: f"segment [{start[s]}, {end[s]}) is not a finite interval",
    )
    report(
        start < jobs.submit[job],
        job,
        lambda s: f"segment starts at {start[s]}, before the job's submission at {jobs.submit[job[s]]}",
    )
    same = np.r_[False, job[1:] == job[:-1]]  # segment s continues the job of segment s - 1
    report(
        same & (start < np.r_[-np.inf, end[:-1]]),
        job,
        lambda s: f"segment [{start[s]}, {end[s]}) overlaps the job's previous one ending at {end[s - 1]}",
    )
    if out:
        return out

    # entries: nodes, task counts, shares
    per = np.diff(off)
    entry_seg = np.repeat(seg, per)
    entry_job = job[entry_seg]
    bad_entry = (node < 0) | (node >= platform.nodes) | (count < 1)
    for k in np.flatnonzero(bad_entry)[:20]:
        out.append(
            f"job {ids[entry_job[k]]}: segment at {start[entry_seg[k]]} puts {count[k]} task(s) on "
            f"node {node[k]} (nodes are 0..{platform.nodes - 1})"
        )
    if out:
        return out
    tasks = np.bincount(entry_seg, weights=count, minlength=m).astype(np.int64)
    report(
        tasks != jobs.tasks[job],
        job,
        lambda s: f"segment at {start[s]} places {tasks[s]} tasks, the job has {jobs.tasks[job[s]]}",
    )
    unsorted = np.r_[False, (entry_seg[1:] == entry_seg[:-1]) & (node[1:] <= node[:-1])]
    for k in np.flatnonzero(unsorted)[:20]:
        out.append(
            f"job {ids[entry_job[k]]}: segment at {start[entry_seg[k]]} lists node {node[k]} out of order or twice"
        )
    lo = np.minimum.reduceat(share, off[:-1])
    hi = np.maximum.reduceat(share, off[:-1])
    cpu = jobs.cpu_need[job]
    report(
        ~(hi - lo <= CPU_TOLERANCE),
        job,  # negated, so that NaN shares are reported
        lambda s: f"unequal yields over [{start[s]}, {end[s]}): CPU shares from {lo[s]} to {hi[s]} per task",
    )
    report(
        ~((lo >= 0) & (hi <= cpu * (1 + CPU_TOLERANCE))),
        job,
        lambda s: f"CPU share {hi[s]} per task over [{start[s]}, {end[s]}) is outside [0, CPU need {cpu[s]}]",
    )
    have = np.bincount(job, minlength=n) > 0
    report(~have, np.arange(n), lambda i: "never runs (no segment)")
    if out:
        return out

    out.extend(_capacity(node, count, share, entry_seg, start, end, jobs.mem_units()[entry_job], platform.nodes))

    # penalties (re-derived) and work
    last = np.r_[~same[1:], True]  # last segment of its job
    diff_place = _placement_changes(node, count, off, same)
    penalized = same & ((start > np.r_[-np.inf, end[:-1]]) | diff_place)
    idx = np.where(penalized, seg, -1)
    latest = np.maximum.accumulate(idx) if m else idx
    first_of_job = np.flatnonzero(~same)
    job_first = np.repeat(first_of_job, np.diff(np.r_[first_of_job, m]))
    has_pen = latest >= job_first
    pen_end = np.where(has_pen, start[np.maximum(latest, 0)] + float(schedule.penalty), -np.inf)
    yld = lo / cpu
    work = np.bincount(job, weights=progress(yld, start, end, pen_end), minlength=n)
    p = jobs.processing_time
    ends = np.full(n, np.nan)
    ends[job[last]] = end[last]
    tolerance = work_tolerance(p, ends)
    wrong = ~(np.abs(work - p) <= tolerance)
    report(
        wrong,
        np.arange(n),
        lambda i: (
            f"receives {float(work[i])!r} s of work (penalties excluded), its "
            f"processing time is {float(p[i])!r} s (tolerance {tolerance[i]:.3g} s)"
        ),
    )
    completion = np.asarray(schedule.completion, dtype=float)
    report(
        ~(completion == ends),
        np.arange(n),
        lambda i: f"completion {completion[i]} is not the end {ends[i]} of its last segment",
    )
    return out


def pairing_violations(schedule: DfrsSchedule, jobs: DfrsJobs, platform: DfrsPlatform | None = None) -> list[str]:
    """Why ``schedule`` cannot be read against ``jobs`` and ``platform`` at all (empty when it can).

    Row ``i`` of the schedule must be job ``i`` of the table (same number of
    jobs, ids and submit times), the schedule must be for the platform's
    node count (unless ``platform`` is None), its penalty finite and
    ``>= 0``, and its segments must name rows of the table.  :func:`dfrs_violations`
    and :func:`~clustersched.dfrs.metrics.dfrs_metrics` check this first
    (a schedule of another instance is reported, never an IndexError).
    """
    n = len(jobs)
    if len(schedule) != n:
        return [f"schedule has {len(schedule)} jobs, the job table {n} (a schedule of another job table?)"]
    out: list[str] = []
    ids = jobs.job_id
    theirs = np.asarray(schedule.job_id)
    for i in np.flatnonzero(theirs != ids)[:20]:
        out.append(f"job {ids[i]} (row {i}): schedule names job {theirs[i]}")
    submit = np.asarray(schedule.submit)
    for i in np.flatnonzero(~(submit == jobs.submit))[:20]:
        out.append(f"job {ids[i]} (row {i}): submit {submit[i]} in the schedule, {jobs.submit[i]} in the jobs")
    if platform is not None and int(schedule.nodes) != platform.nodes:
        out.append(f"schedule is for {schedule.nodes} nodes, the platform has {platform.nodes}")
    penalty = float(schedule.penalty)
    if not (np.isfinite(penalty) and penalty >= 0):
        out.append(f"penalty == {schedule.penalty!r}, must be finite and >= 0")
    job = np.asarray(schedule.seg_job)
    bad_job = (job < 0) | (job >= n)
    if bad_job.any():
        k = int(np.flatnonzero(bad_job)[0])
        out.append(f"segment {k} names job row {job[k]}, rows are 0..{n - 1}")
    return out


def _placement_changes(node: np.ndarray, count: np.ndarray, off: np.ndarray, same: np.ndarray) -> np.ndarray:
    """Whether each segment's (node, count) entries differ from the previous segment's."""
    m = len(same)
    per = np.diff(off)
    prev_per = np.r_[0, per[:-1]]
    comparable = same & (per == prev_per)
    differs = same & ~comparable
    entry_seg = np.repeat(np.arange(m), per)
    k = np.flatnonzero(comparable[entry_seg])
    if len(k):
        shift = per[entry_seg[k]]
        mismatch = (node[k] != node[k - shift]) | (count[k] != count[k - shift])
        differs |= np.bincount(entry_seg[k], weights=mismatch, minlength=m) > 0
    return differs


def _capacity(
    node: np.ndarray,
    count: np.ndarray,
    share: np.ndarray,
    entry_seg: np.ndarray,
    start: np.ndarray,
    end: np.ndarray,
    mem_units: np.ndarray,
    nodes: int,
) -> list[str]:
    """Memory (exact, in need units) and CPU at most one node's worth, per node, at every instant."""
    out: list[str] = []
    keep = end[entry_seg] > start[entry_seg]
    e_node, e_seg = node[keep], entry_seg[keep]
    mem = (count[keep] * mem_units[keep]).astype(np.int64)
    cpu = count[keep] * share[keep]
    times = np.concatenate([end[e_seg], start[e_seg]])
    is_start = np.concatenate([np.zeros(len(e_seg), bool), np.ones(len(e_seg), bool)])
    where = np.concatenate([e_node, e_node])
    order = np.lexsort((is_start, times, where))  # by node, then time, releases first at ties
    if not len(order):
        return out
    where, times = where[order], times[order]
    for name, delta, cap, fmt in (
        ("memory", np.concatenate([-mem, mem])[order], NEED_UNITS, lambda v: f"{v / NEED_UNITS:.9g}"),
        ("CPU", np.concatenate([-cpu, cpu])[order], 1.0 + CPU_TOLERANCE, lambda v: f"{v:.12g}"),
    ):
        level = np.cumsum(delta)
        # each node's running total: subtract the total reached before the node's first event
        first = np.flatnonzero(np.r_[True, where[1:] != where[:-1]])
        before = (level - delta)[first]
        level = level - np.repeat(before, np.diff(np.r_[first, len(level)]))
        over = np.flatnonzero(level > cap)
        seen: set[int] = set()
        for k in over:
            i = int(where[k])
            if i in seen:
                continue
            seen.add(i)
            out.append(f"node {i} at time {times[k]}: {name} {fmt(level[k])} of the node is allocated (over 100%)")
            if len(seen) >= 20:
                break
    return out
