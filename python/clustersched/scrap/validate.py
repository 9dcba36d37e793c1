"""Independent feasibility check of one PTG's schedule on a heterogeneous multi-cluster platform.

The checker looks only at the schedule, the PTG and the platform (and its
network).  It shares with the kernels that made the schedule only the model:
a task's duration ``T_k(v, q)`` comes from the core's one duration function
(``clustersched._core.exec_times``, the ``exec_time`` every scheduler calls,
so producer and checker compute it by the same float operations), and a
transfer's time from the network's documented formula
(:meth:`clustersched.platform.Network.transfer_time`).  The translation of
reference allocations is a plain bisection on ``T_k``, which does not grow
with ``q``.

Rounding
    A scheduler computes ``end = start + T`` in float64: one rounding, at
    most half an ulp of ``end``.  ``end - start`` then differs from ``T`` by
    about ``2**-53 * max(|start|, |end|)``, which for a short task late in a
    schedule is far more than ``T`` itself (a task of 1e-8 s starting at
    1 s measures 1.0000000827e-8 s).  So durations are compared with a
    tolerance relative to the *time stamps*, not to the duration:
    ``|(end - start) - T| <= DURATION_RTOL * max(T, |start|, |end|)``
    (:data:`DURATION_RTOL` = 1e-9), the rule of
    :func:`clustersched.ptg.validate.ptg_violations` too; start times against
    data arrivals likewise, relative to the arrival.  Everything else
    (overlaps, counts, ids) is exact.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import _core
from .._checks import short_repr
from ..errors import InvalidScheduleError
from ..workload.ptg import PTG
from .model import task_bytes
from .schedule import ClusterSchedule

__all__ = ["DURATION_RTOL", "multicluster_violations", "validate_multicluster"]

#: Relative tolerance on durations and on start times against data arrivals (module docstring).
DURATION_RTOL = 1e-9

_MAX = 20


def _times(work: np.ndarray, alpha: np.ndarray, q: np.ndarray, speed: np.ndarray) -> np.ndarray:
    """``T(v, q)`` per row by the core's duration function (the schedulers' own)."""
    return _core.exec_times(
        np.ascontiguousarray(work, dtype=np.float64),
        np.ascontiguousarray(alpha, dtype=np.float64),
        np.ascontiguousarray(q, dtype=np.int64),
        np.ascontiguousarray(speed, dtype=np.float64),
    )


def _translations(
    work: np.ndarray, alpha: np.ndarray, p_ref: np.ndarray, s_ref: float, speed: np.ndarray
) -> np.ndarray:
    """Per row, the smallest ``q >= 1`` with ``T(v, q) <= T_ref(v, p_ref)`` at ``speed`` (bisection, ``q <= p_ref``)."""
    target = _times(work, alpha, p_ref, np.full(len(work), s_ref))
    lo = np.ones(len(work), dtype=np.int64)
    hi = np.maximum(p_ref, 1).astype(np.int64)
    while (lo < hi).any():
        mid = lo + (hi - lo) // 2
        fast = _times(work, alpha, mid, speed) <= target
        hi = np.where((lo < hi) & fast, mid, hi)
        lo = np.where((lo < hi) & ~fast, mid + 1, lo)
    return lo


def validate_multicluster(schedule: ClusterSchedule, ptg: PTG) -> None:
    """Raises :class:`~clustersched.errors.InvalidScheduleError` listing every violation, or returns None.

    See :func:`multicluster_violations` for the rules.

    Examples
    --------
    >>> import networkx as nx
    >>> from clustersched.platform import Cluster, MultiCluster
    >>> from clustersched.scrap.placement import place_reference
    >>> g = nx.DiGraph([("a", "b")]); nx.set_node_attributes(g, 2e9, "work")
    >>> ptg = PTG.from_networkx(g)
    >>> p = MultiCluster("p", (Cluster("a", 2, 1e9), Cluster("b", 2, 2e9)))
    >>> s = place_reference(ptg, p, [1, 1])
    >>> validate_multicluster(s, ptg)
    >>> s.start[1] -= 0.5; s.end[1] -= 0.5; validate_multicluster(s, ptg)
    Traceback (most recent call last):
    ...
    clustersched.errors.InvalidScheduleError: 2 violation(s):
      processor 2 runs task 0 ('a') and task 1 ('b') at once
      task 1 ('b') starts at 0.5 before its predecessor task 0 ('a') ends at 1.0
    """
    found = multicluster_violations(schedule, ptg)
    if found:
        raise InvalidScheduleError(found)


def _check_arguments(schedule: Any, ptg: Any) -> None:
    if not isinstance(schedule, ClusterSchedule):
        raise TypeError(f"schedule == {short_repr(schedule)}, must be a clustersched.scrap.ClusterSchedule")
    if not isinstance(ptg, PTG):
        raise TypeError(f"ptg == {short_repr(ptg)}, must be a clustersched PTG")


def multicluster_violations(schedule: ClusterSchedule, ptg: PTG) -> list[str]:
    """Every way ``schedule`` breaks the rules of running ``ptg`` on ``schedule.platform``.

    Rules:

    * every task in exactly one row, on one existing cluster ``k``;
    * its processors: at least one, distinct, all ids of cluster ``k``;
    * ``0 <= start <= end``, finite; ``end - start == T_k(v, q)`` for its
      ``q`` processors at cluster ``k``'s speed, to a tolerance relative to
      the time stamps (module docstring, :data:`DURATION_RTOL`);
    * if the schedule carries a reference allocation (``schedule.alloc``),
      one count ``>= 1`` per task and ``q == f(alloc[v], v, k)``: the
      smallest allocation on ``k`` at least as fast as ``alloc[v]``
      processors of the reference speed;
    * per-cluster capacity: no processor runs two rows of positive length at
      once (half-open intervals);
    * precedence: each task starts no earlier than each predecessor ends plus,
      if ``schedule.comms``, the transfer time of the predecessor's bytes
      under the platform's network model (zero on edges to or from a
      zero-work task).

    A schedule of another PTG (other task count) shows as tasks missing or
    unknown.  TypeError when ``schedule`` is not a ClusterSchedule or ``ptg``
    not a PTG.
    """
    _check_arguments(schedule, ptg)
    platform = schedule.platform
    out: list[str] = []
    n = len(ptg)
    name = lambda v: f"task {v} ({ptg.labels[v]!r})"  # noqa: E731
    rows = len(schedule)
    task = schedule.task
    unknown = (task < 0) | (task >= n)
    for r in np.flatnonzero(unknown)[:_MAX].tolist():
        out.append(f"row {r}: task {task[r]} does not exist (the PTG has {n})")
    count = np.bincount(task[~unknown], minlength=n)
    for v in np.flatnonzero(count > 1)[:_MAX].tolist():
        out.append(f"{name(v)} is scheduled twice")
    for v in np.flatnonzero(count == 0)[:_MAX].tolist():
        out.append(f"{name(v)} is never scheduled")
    if out:
        return _cut(out)
    alloc = schedule.alloc
    if alloc is not None:
        a = np.asarray(alloc)
        if a.shape != (n,):
            return [f"the reference allocation has shape {a.shape} for {n} tasks"]
        if a.dtype.kind not in "iu" or (a < 1).any() or (a > 2**32 - 1).any():
            v = int(np.flatnonzero((a < 1) | (a > 2**32 - 1))[0]) if a.dtype.kind in "iu" else 0
            return [f"the reference allocation must hold integers in 1..{2**32 - 1}: {name(v)} has {a[v]!r}"]
    row_of = np.empty(n, dtype=np.int64)
    row_of[task] = np.arange(rows)

    # -- rows: cluster, times, processors ----------------------------------------------
    C = len(platform)
    procs = np.array(platform.procs, dtype=np.int64)
    first = np.concatenate([[0], np.cumsum(procs)[:-1]])
    speeds = np.array(platform.speeds, dtype=np.float64)
    k = schedule.cluster
    start, end = schedule.start, schedule.end
    offsets, ids = schedule.proc_offsets, schedule.proc_ids
    size = np.diff(offsets)
    ok = np.ones(rows, dtype=bool)
    bad_k = (k < 0) | (k >= C)
    for r in np.flatnonzero(bad_k)[:_MAX].tolist():
        out.append(f"{name(int(task[r]))}: cluster {k[r]} does not exist")
    ok &= ~bad_k
    with np.errstate(invalid="ignore"):
        bad_t = ok & ~(np.isfinite(start) & np.isfinite(end) & (0 <= start) & (start <= end))
    for r in np.flatnonzero(bad_t)[:_MAX].tolist():
        out.append(f"{name(int(task[r]))} runs [{start[r]}, {end[r]}): must be finite, 0 <= start <= end")
    ok &= ~bad_t
    kk = np.where(ok, k, 0)
    owner = np.repeat(np.arange(rows), size)
    lo, hi = first[kk][owner], (first[kk] + procs[kk])[owner]
    outside = np.zeros(rows, dtype=bool)
    outside[owner[(ids < lo) | (ids >= hi)]] = True
    order = np.lexsort((ids, owner))
    twice = np.zeros(rows, dtype=bool)
    repeat = (owner[order][1:] == owner[order][:-1]) & (ids[order][1:] == ids[order][:-1])
    twice[owner[order][1:][repeat]] = True
    bad_p = ok & ((size < 1) | outside | twice)
    for r in np.flatnonzero(bad_p)[:_MAX].tolist():
        c = int(k[r])
        out.append(
            f"{name(int(task[r]))}: processors {schedule.processors(r).tolist()} must be distinct ids of "
            f"cluster {c} ({first[c]}..{first[c] + procs[c] - 1})"
        )
    ok &= ~bad_p

    # -- durations and translations, by the schedulers' own duration function ------------
    good = np.flatnonzero(ok)
    v = task[good]
    q = size[good]
    work, alpha = ptg.work[v], ptg.alpha[v]
    d = _times(work, alpha, q, speeds[k[good]])
    st, en = start[good], end[good]
    scale = np.maximum(d, np.maximum(np.abs(st), np.abs(en)))
    wrong = np.abs((en - st) - d) > DURATION_RTOL * scale
    for j in np.flatnonzero(wrong)[:_MAX].tolist():
        out.append(
            f"{name(int(v[j]))} runs {en[j] - st[j]} s on {q[j]} processors of cluster {k[good][j]}, "
            f"its time there is {d[j]} s"
        )
    if alloc is not None:
        p_ref = np.asarray(alloc, dtype=np.int64)[v]
        want = _translations(work, alpha, p_ref, platform.ref_speed, speeds[k[good]])
        for j in np.flatnonzero(want != q)[:_MAX].tolist():
            out.append(
                f"{name(int(v[j]))} has {q[j]} processors on cluster {k[good][j]}; the translation of its "
                f"{p_ref[j]} reference processors there is {want[j]}"
            )

    # -- capacity: per processor, running intervals sorted by start must not overlap -------
    running = ok & (end > start)
    use = running[owner]
    p_id, r_id = ids[use], owner[use]
    order = np.lexsort((start[r_id], p_id))
    p_id, r_id = p_id[order], r_id[order]
    clash = (p_id[1:] == p_id[:-1]) & (start[r_id[1:]] < end[r_id[:-1]])
    for j in np.flatnonzero(clash)[:_MAX].tolist():
        out.append(f"processor {p_id[j]} runs {name(int(task[r_id[j]]))} and {name(int(task[r_id[j + 1]]))} at once")

    # -- precedence, with the network's transfer times --------------------------------------
    nbytes = task_bytes(ptg) if schedule.comms else None
    net = platform.network
    if schedule.comms and net is None:
        out.append("the schedule claims modelled communications on a platform without a network")
        nbytes = None
    for v_ in range(n):
        r = int(row_of[v_])
        if not ok[r]:
            continue
        for u in ptg.predecessors(v_).tolist():
            ru = int(row_of[u])
            if not ok[ru]:
                continue
            arrival = float(end[ru])
            if nbytes is not None and ptg.work[u] > 0 and ptg.work[v_] > 0:
                arrival += net.transfer_time(float(nbytes[u]), int(k[ru]), int(size[ru]), int(k[r]), int(size[r]))
            s = float(start[r])
            if s < arrival and arrival - s > DURATION_RTOL * max(abs(arrival), 1e-300):
                what = "the data of" if arrival > end[ru] else "its predecessor"
                out.append(
                    f"{name(v_)} starts at {s} before {what} {name(u)} "
                    f"{'arrive' if what == 'the data of' else 'ends'} at {arrival}"
                )
    return _cut(out)


def _cut(out: list[str]) -> list[str]:
    if len(out) > _MAX:
        return out[:_MAX] + [f"... and {len(out) - _MAX} more"]
    return out
