"""Independent feasibility checks of multi-PTG schedules.

The checker looks only at the schedule, the PTGs and the cluster; it shares
no code with the schedulers but the model's duration ``T(v, p)``, which it
takes from the core's one duration function (``clustersched._core.exec_times``,
the ``exec_time`` every scheduler calls: producer and checker compute a
task's duration by the same float operations), so a bug in an allocation,
list-scheduling or backfilling kernel shows up here.

Rounding
    A scheduler computes ``end = start + T`` in float64, one rounding of at
    most half an ulp of ``end``; ``end - start`` then differs from ``T`` by
    about ``2**-53 * max(|start|, |end|)``, far more than ``T`` itself for a
    tiny task late in a schedule.  Durations are therefore compared with a
    tolerance relative to the time stamps, :data:`DURATION_RTOL` (1e-9)
    times ``max(T, |start|, |end|)`` (the rule of
    :func:`clustersched.scrap.validate.multicluster_violations` too).  Starts
    against predecessors' ends, overlaps and counts are exact.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

from .. import _core
from .._checks import short_repr
from ..errors import InvalidScheduleError
from ..platform import Cluster
from ..workload.ptg import PTG
from .schedule import TaskSchedule

__all__ = ["DURATION_RTOL", "ptg_violations", "validate_ptgs"]

#: Relative tolerance on task durations (see :func:`ptg_violations`).
DURATION_RTOL = 1e-9

# At most this many messages per kind of violation, so a broken schedule of
# thousands of tasks still gives a readable report.
_MAX_PER_KIND = 20


def validate_ptgs(schedule: TaskSchedule, ptgs: Sequence[PTG], cluster: Cluster) -> None:
    """Raises :class:`InvalidScheduleError` listing every violation, or returns None.

    See :func:`ptg_violations` for the rules.

    Examples
    --------
    >>> import networkx as nx
    >>> from clustersched.platform import Cluster
    >>> from clustersched.workload.ptg import PTG
    >>> g = nx.DiGraph([("a", "b")])
    >>> nx.set_node_attributes(g, 1e9, "work")
    >>> ptg = PTG.from_networkx(g)
    >>> ok = TaskSchedule.from_rows([(0, 0, 0.0, 1.0, [0]), (0, 1, 1.0, 2.0, [1])], total_procs=2)
    >>> validate_ptgs(ok, [ptg], Cluster("c", 2, 1e9))
    >>> bad = TaskSchedule.from_rows([(0, 0, 0.0, 1.0, [0]), (0, 1, 0.5, 1.5, [1])], total_procs=2)
    >>> validate_ptgs(bad, [ptg], Cluster("c", 2, 1e9))
    Traceback (most recent call last):
    ...
    clustersched.errors.InvalidScheduleError: 1 violation(s):
      PTG 0 task 1 ('b') starts at 0.5 before its predecessor task 0 ('a') ends at 1.0
    """
    violations = ptg_violations(schedule, ptgs, cluster)
    if violations:
        raise InvalidScheduleError(violations)


def ptg_violations(schedule: TaskSchedule, ptgs: Sequence[PTG], cluster: Cluster) -> list[str]:
    """Every way ``schedule`` breaks the rules of scheduling ``ptgs`` on ``cluster``.

    Rules (all PTGs are released at time 0, RR-7224 §3):

    * the schedule is for ``cluster.procs`` processors;
    * every task of every PTG appears in exactly one row (``ptg`` indexes
      ``ptgs``, ``task`` indexes that PTG);
    * it starts at a finite time ``>= 0``;
    * it runs on ``procs`` processors, ``1 <= procs <= P``, listed as
      ``procs`` distinct ids in ``0 .. P - 1``;
    * it runs exactly ``T(v, procs)`` (the model's formula with
      ``cluster.speed``): ``|(end - start) - T| <= DURATION_RTOL * max(T,
      |start|, |end|)``, a relative tolerance of 1e-9 that absorbs the
      rounding of ``end = start + T`` and of a differently ordered ``T``;
    * it starts no earlier than each of its predecessors ends (exact
      comparison: schedulers start a task at its predecessors' recorded end,
      so no tolerance is needed or given);
    * at no time are more than ``P`` processors busy;
    * no processor runs two tasks at once.

    Intervals are half-open ``[start, end)``: a task may start on a processor
    at the instant another ends there, and a zero-length task (a zero-work
    synthetic entry / exit) occupies nothing.  Overlaps are exact
    comparisons.

    Returns
    -------
    list of str
        Empty when the schedule is feasible.  Messages name the PTG index,
        the task index and its label.  Structural problems (wrong indices,
        missing or repeated tasks, malformed processor lists) are reported
        alone, since the other checks need a well-formed schedule.  A
        schedule of other PTGs or another cluster shows as such problems.

    Raises
    ------
    TypeError
        ``schedule`` is not a TaskSchedule, ``ptgs`` not a list of PTGs or
        ``cluster`` not a Cluster.
    """
    ptgs = _check_arguments(schedule, ptgs, cluster)
    out: list[str] = []
    P = int(cluster.procs)
    if schedule.total_procs != P:
        out.append(f"schedule is for {schedule.total_procs} processors, the cluster {cluster.name!r} has {P}")
    ptg_idx, task_idx = schedule.ptg, schedule.task
    sizes = np.array([len(p) for p in ptgs], dtype=np.int64)
    n_rows = len(schedule)

    # -- structure: indices, exactly-once, processor lists -------------------
    bad_ptg = (ptg_idx < 0) | (ptg_idx >= len(ptgs))
    for k in np.flatnonzero(bad_ptg)[:_MAX_PER_KIND]:
        out.append(f"row {k}: PTG index {ptg_idx[k]} outside 0..{len(ptgs) - 1}")
    safe_ptg = np.where(bad_ptg, 0, ptg_idx)
    bad_task = ~bad_ptg & ((task_idx < 0) | (task_idx >= (sizes[safe_ptg] if len(ptgs) else 0)))
    for k in np.flatnonzero(bad_task)[:_MAX_PER_KIND]:
        out.append(f"row {k}: PTG {ptg_idx[k]} has no task {task_idx[k]} (it has {sizes[ptg_idx[k]]})")
    if out and (bad_ptg.any() or bad_task.any()):
        return out
    base = np.concatenate([[0], np.cumsum(sizes)])
    gid = base[ptg_idx] + task_idx  # global task id: PTG offset + task index
    counts = np.bincount(gid, minlength=int(base[-1]))
    for g in np.flatnonzero(counts > 1)[:_MAX_PER_KIND]:
        out.append(f"{_name(ptgs, base, g)} is scheduled {counts[g]} times")
    for g in np.flatnonzero(counts == 0)[:_MAX_PER_KIND]:
        out.append(f"{_name(ptgs, base, g)} is never scheduled")

    offsets, ids = schedule.proc_offsets, schedule.proc_ids
    if offsets[0] != 0 or offsets[-1] != len(ids) or (np.diff(offsets) < 0).any():
        out.append(f"processor offsets malformed: first {offsets[0]}, last {offsets[-1]}, {len(ids)} ids")
        return out
    procs = schedule.procs
    listed = np.diff(offsets)
    for k in np.flatnonzero(listed != procs)[:_MAX_PER_KIND]:
        out.append(f"{_name(ptgs, base, gid[k])}: {listed[k]} processor ids for procs == {procs[k]}")
    for k in np.flatnonzero((procs < 1) | (procs > P))[:_MAX_PER_KIND]:
        out.append(f"{_name(ptgs, base, gid[k])}: procs == {procs[k]}, must be in 1..{P}")
    for q in np.flatnonzero((ids < 0) | (ids >= P))[:_MAX_PER_KIND]:
        out.append(f"processor id {ids[q]} outside 0..{P - 1}")
    row_of_id = np.repeat(np.arange(n_rows), listed)
    order = np.lexsort((ids, row_of_id))
    same = (row_of_id[order][1:] == row_of_id[order][:-1]) & (ids[order][1:] == ids[order][:-1])
    for j in np.flatnonzero(same)[:_MAX_PER_KIND]:
        k = row_of_id[order][j]
        out.append(f"{_name(ptgs, base, gid[k])} lists processor {ids[order][j]} twice")
    if out:
        return out

    # -- times ----------------------------------------------------------------
    start, end = schedule.start, schedule.end
    for k in np.flatnonzero(~np.isfinite(start) | ~np.isfinite(end) | (start < 0))[:_MAX_PER_KIND]:
        out.append(f"{_name(ptgs, base, gid[k])}: runs [{start[k]}, {end[k]}), must be finite and start >= 0")
    work = np.concatenate([p.work for p in ptgs])[gid]
    alpha = np.concatenate([p.alpha for p in ptgs])[gid]
    # The schedulers' own duration function (procs are checked in 1..P above).
    duration = _core.exec_times(work, alpha, procs, np.full(n_rows, float(cluster.speed)))
    scale = np.maximum(duration, np.maximum(np.abs(start), np.abs(end)))
    wrong = np.abs((end - start) - duration) > DURATION_RTOL * scale
    for k in np.flatnonzero(wrong & np.isfinite(start) & np.isfinite(end))[:_MAX_PER_KIND]:
        out.append(
            f"{_name(ptgs, base, gid[k])}: runs {float(end[k] - start[k])!r} s on {procs[k]} processors, "
            f"T(v, {procs[k]}) = {float(duration[k])!r} s"
        )

    # -- precedence -----------------------------------------------------------------
    row_of = np.empty(int(base[-1]), dtype=np.int64)
    row_of[gid] = np.arange(n_rows)
    reported = 0
    for i, p in enumerate(ptgs):
        src = np.repeat(np.arange(len(p)), np.diff(p.succ_offsets)) + base[i]
        dst = p.succ + base[i]
        a, b = row_of[src], row_of[dst]
        for j in np.flatnonzero(start[b] < end[a]):
            if reported == _MAX_PER_KIND:
                break
            reported += 1
            u, v = int(src[j] - base[i]), int(dst[j] - base[i])
            out.append(
                f"PTG {i} task {v} ({p.labels[v]!r}) starts at {float(start[b[j]])!r} before its predecessor "
                f"task {u} ({p.labels[u]!r}) ends at {float(end[a[j]])!r}"
            )

    # -- capacity and processors ---------------------------------------------------
    run = end > start
    times = np.concatenate([start[run], end[run]])
    delta = np.concatenate([procs[run], -procs[run]])
    if times.size:
        order = np.lexsort((delta, times))  # at equal times, releases (negative) first
        level = np.cumsum(delta[order])
        peak = int(np.argmax(level))
        if level[peak] > P:
            out.append(f"{level[peak]} processors busy at time {float(times[order][peak])!r}, the cluster has {P}")
    rows_run = row_of_id[run[row_of_id]]
    ids_run = ids[run[row_of_id]]
    order = np.lexsort((start[rows_run], ids_run))
    r, q = rows_run[order], ids_run[order]
    clash = (q[1:] == q[:-1]) & (end[r[:-1]] > start[r[1:]])
    for j in np.flatnonzero(clash)[:_MAX_PER_KIND]:
        a, b = r[j], r[j + 1]
        out.append(
            f"processor {q[j]} double-booked: {_name(ptgs, base, gid[a])} [{float(start[a])!r}, {float(end[a])!r}) "
            f"and {_name(ptgs, base, gid[b])} [{float(start[b])!r}, {float(end[b])!r})"
        )
    return out


def _check_arguments(schedule: object, ptgs: object, cluster: object) -> list[PTG]:
    if not isinstance(schedule, TaskSchedule):
        raise TypeError(f"schedule == {short_repr(schedule)}, must be a clustersched.ptg.TaskSchedule")
    if isinstance(ptgs, PTG) or not isinstance(ptgs, Sequence):
        raise TypeError(f"ptgs == {short_repr(ptgs)}, must be a list of PTGs")
    for k, p in enumerate(ptgs):
        if not isinstance(p, PTG):
            raise TypeError(f"ptgs[{k}] == {short_repr(p)}, must be a clustersched PTG")
    if not isinstance(cluster, Cluster):
        raise TypeError(f"cluster == {short_repr(cluster)}, must be a clustersched Cluster")
    return list(ptgs)


def _name(ptgs: Sequence[PTG], base: np.ndarray, g: int) -> str:
    i = int(np.searchsorted(base, g, side="right") - 1)
    v = int(g - base[i])
    return f"PTG {i} task {v} ({ptgs[i].labels[v]!r})"
