"""Independent feasibility check of one PTG's schedule on a heterogeneous multi-cluster platform.

The checker looks only at the schedule, the PTG and the platform (and its
network): it shares no code with the kernels that made the schedule (only the
model's ``T(v, p)`` formula and the network's documented transfer time), and
computes the translation of reference allocations by a plain scan.
"""

from __future__ import annotations

import numpy as np

from ..errors import InvalidScheduleError
from ..workload.ptg import PTG
from .model import task_bytes
from .schedule import ClusterSchedule

__all__ = ["DURATION_RTOL", "multicluster_violations", "validate_multicluster"]

#: Relative tolerance on durations and on start times against data arrivals.
DURATION_RTOL = 1e-9

_MAX = 20


def _time(work: float, alpha: float, p: int, speed: float) -> float:
    return (work / speed) * (alpha + (1.0 - alpha) / p)


def _translation(work: float, alpha: float, p_ref: int, s_ref: float, speed: float) -> int:
    target = _time(work, alpha, p_ref, s_ref)
    q = 1
    while _time(work, alpha, q, speed) > target:
        q += 1
    return q


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


def multicluster_violations(schedule: ClusterSchedule, ptg: PTG) -> list[str]:
    """Every way ``schedule`` breaks the rules of running ``ptg`` on ``schedule.platform``.

    Rules:

    * every task in exactly one row, on one existing cluster ``k``;
    * its processors: at least one, distinct, all ids of cluster ``k``;
    * ``0 <= start <= end``, finite; ``end - start == T_k(v, q)`` for its
      ``q`` processors at cluster ``k``'s speed (relative :data:`DURATION_RTOL`);
    * if the schedule carries a reference allocation (``schedule.alloc``),
      ``q == f(alloc[v], v, k)``: the smallest allocation on ``k`` at least as
      fast as ``alloc[v]`` processors of the reference speed;
    * per-cluster capacity: no processor runs two rows of positive length at
      once (half-open intervals);
    * precedence: each task starts no earlier than each predecessor ends plus,
      if ``schedule.comms``, the transfer time of the predecessor's bytes
      under the platform's network model (zero on edges to or from a
      zero-work task).
    """
    platform = schedule.platform
    out: list[str] = []
    n = len(ptg)
    name = lambda v: f"task {v} ({ptg.labels[v]!r})"  # noqa: E731
    procs = platform.procs
    first = [platform.first(k) for k in range(len(platform))]
    row_of = [-1] * n
    for r, v in enumerate(schedule.task.tolist()):
        if not 0 <= v < n:
            out.append(f"row {r}: task {v} does not exist (the PTG has {n})")
            continue
        if row_of[v] >= 0:
            out.append(f"{name(v)} is scheduled twice")
        row_of[v] = r
    for v in range(n):
        if row_of[v] < 0:
            out.append(f"{name(v)} is never scheduled")
    if out:
        return out[:_MAX]
    alloc = schedule.alloc
    if alloc is not None and len(alloc) != n:
        return [f"the reference allocation has {len(alloc)} entries for {n} tasks"]
    s_ref = platform.ref_speed
    busy: list[tuple[float, float, int, int]] = []
    size = [0] * n
    for v in range(n):
        r = row_of[v]
        k = int(schedule.cluster[r])
        st, en = float(schedule.start[r]), float(schedule.end[r])
        ids = schedule.proc_ids[schedule.proc_offsets[r]:schedule.proc_offsets[r + 1]].tolist()
        size[v] = len(ids)
        if not 0 <= k < len(platform):
            out.append(f"{name(v)}: cluster {k} does not exist")
            continue
        if not (np.isfinite(st) and np.isfinite(en) and 0 <= st <= en):
            out.append(f"{name(v)} runs [{st}, {en}): must be finite, 0 <= start <= end")
            continue
        lo, hi = first[k], first[k] + procs[k]
        if not ids or len(set(ids)) != len(ids) or any(not lo <= q < hi for q in ids):
            out.append(f"{name(v)}: processors {ids} must be distinct ids of cluster {k} ({lo}..{hi - 1})")
            continue
        speed = platform.speeds[k]
        d = _time(float(ptg.work[v]), float(ptg.alpha[v]), len(ids), speed)
        if abs((en - st) - d) > DURATION_RTOL * max(d, en - st, 1e-300):
            out.append(f"{name(v)} runs {en - st} s on {len(ids)} processors of cluster {k}, its time there is {d} s")
        if alloc is not None:
            want = _translation(float(ptg.work[v]), float(ptg.alpha[v]), int(alloc[v]), s_ref, speed)
            if want != len(ids):
                out.append(f"{name(v)} has {len(ids)} processors on cluster {k}; the translation of its "
                           f"{int(alloc[v])} reference processors there is {want}")
        if en > st:
            busy.extend((st, en, q, v) for q in ids)
    # capacity: per processor, intervals sorted by start must not overlap
    busy.sort(key=lambda b: (b[2], b[0]))
    for (s1, e1, q1, v1), (s2, e2, q2, v2) in zip(busy, busy[1:]):
        if q1 == q2 and s2 < e1:
            out.append(f"processor {q1} runs {name(v1)} and {name(v2)} at once")
    nbytes = task_bytes(ptg) if schedule.comms else None
    net = platform.network
    if schedule.comms and net is None:
        out.append("the schedule claims modelled communications on a platform without a network")
        nbytes = None
    for v in range(n):
        r = row_of[v]
        for u in ptg.predecessors(v).tolist():
            ru = row_of[u]
            arrival = float(schedule.end[ru])
            if nbytes is not None and ptg.work[u] > 0 and ptg.work[v] > 0:
                arrival += net.transfer_time(float(nbytes[u]), int(schedule.cluster[ru]), size[u],
                                             int(schedule.cluster[r]), size[v])
            st = float(schedule.start[r])
            if st < arrival and arrival - st > DURATION_RTOL * max(abs(arrival), 1e-300):
                what = "the data of" if arrival > schedule.end[ru] else "its predecessor"
                out.append(f"{name(v)} starts at {st} before {what} {name(u)} "
                           f"{'arrive' if what == 'the data of' else 'ends'} at {arrival}")
    if len(out) > _MAX:
        out = out[:_MAX] + [f"... and {len(out) - _MAX} more"]
    return out
