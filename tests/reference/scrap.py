"""Slow, obviously correct references for one PTG on a heterogeneous multi-cluster platform.

N'takpé & Suter, PDCS 2007 (SCRAP, SCRAP-MAX, HCPA's reference cluster,
MHEFT-MAX).  Plain Python lists and loops, recomputing everything from the
current state at each step; float expressions in the order the Rust kernels
use, so that differential tests compare for identity.

A platform here is ``(procs, speeds)``: lists, cluster ``k`` owning global
processor ids ``sum(procs[:k]) .. sum(procs[:k+1]) - 1``.  A network is a
:class:`clustersched.platform.Network` (only its fields are read).
"""

from __future__ import annotations

import math

from reference.ptg import _graph, duration_bottom_levels, exec_time, levels


# -- the platform -------------------------------------------------------------------------
def reference_cluster(procs, speeds):
    """``(s_ref, P_ref, reference cluster size)``: slowest speed, power in reference processors, its floor."""
    s_ref = min(speeds)
    power = 0.0
    for p, s in zip(procs, speeds):
        power += p * (s / s_ref)
    return s_ref, power, int(math.floor(power + 1e-9))


def translate(work, alpha, p_ref, s_ref, speed, size=None, translation="at-least-as-fast"):
    """``f(p_ref)`` on a cluster of ``size`` processors of ``speed``, by scanning ``q = 1, 2, ...``.

    ``"at-least-as-fast"``: the first ``q`` with ``T(q) at speed <= T(p_ref) at s_ref`` (``size`` unused).
    ``"closest"``: the first ``q`` in ``1..min(p_ref, size)`` of least ``|T(q) - T(p_ref)|``.
    """
    target = exec_time(work, alpha, p_ref, s_ref)
    if translation == "closest":
        best = 1
        for q in range(1, min(p_ref, size) + 1):
            if abs(exec_time(work, alpha, q, speed) - target) < abs(exec_time(work, alpha, best, speed) - target):
                best = q
        return best
    assert translation == "at-least-as-fast", translation
    q = 1
    while exec_time(work, alpha, q, speed) > target:
        q += 1
    return q


def caps(ptg, procs, speeds, translation="at-least-as-fast"):
    """Per task: the first reference allocation at which no cluster can grow it (or the reference cluster's size).

    Task ``v`` can grow at ``p`` while ``p < size`` and some cluster ``k`` has
    ``translate(p) < procs[k]``; the cap is the first ``p`` (from 1 up) where
    it cannot.
    """
    work, alpha, _, _ = _graph(ptg)
    s_ref, _, size = reference_cluster(procs, speeds)
    size = max(size, 1)
    out = []
    for v in range(len(work)):
        p = 1
        while p < size and any(
            translate(work[v], alpha[v], p, s_ref, speeds[k], procs[k], translation) < procs[k]
            for k in range(len(procs))
        ):
            p += 1
        out.append(p)
    return out


# -- the allocation loop --------------------------------------------------------------------
def allocation_loop(ptg, speed, divisor, task_caps, *, level_bound=None, undo_overshoot=False):
    """The CPA/HCPA loop with a stopping divisor, per-task caps, a level bound and SCRAP's undo.

    1. ``p[v] = 1``.
    2. Repeat: ``T``, bottom levels, ``T_CP = bl[0]``, ``area = sum(T[v] * p[v])``
       (left to right from 0.0).  Unless ``T_CP > area / divisor``: if
       ``undo_overshoot`` and a processor was added and ``T_CP < area /
       divisor``, take that processor back; return ``p``.
    3. Critical path from task 0, each step to the successor of largest
       ``bl`` (ties: lowest index).  Candidates: path tasks with
       ``p[v] < task_caps[v]`` and, with a level bound, whose precedence level
       holds ``< level_bound`` processors.  The first of largest gain
       ``T[v]/p[v] - T(v, p[v]+1)/(p[v]+1)`` among gains ``> 0``; none: return.
    4. ``p[selected] += 1``.
    """
    work, alpha, succ, _ = _graph(ptg)
    n = len(work)
    level = levels(ptg)
    p = [1] * n
    last = None
    while True:
        T = [exec_time(work[v], alpha[v], p[v], speed) for v in range(n)]
        bl = duration_bottom_levels(ptg, T)
        t_cp = bl[0]
        area = 0.0
        for v in range(n):
            area += T[v] * p[v]
        t_a = area / divisor
        if not t_cp > t_a:
            if undo_overshoot and last is not None and t_cp < t_a:
                p[last] -= 1
            return p
        path = [0]
        v = 0
        while succ[v]:
            best = succ[v][0]
            for s in succ[v]:
                if bl[s] > bl[best]:
                    best = s
            v = best
            path.append(v)
        held = {}
        for u in range(n):
            held[level[u]] = held.get(level[u], 0) + p[u]
        selected, best_gain = None, 0.0
        for v in path:
            if p[v] >= task_caps[v]:
                continue
            if level_bound is not None and not held[level[v]] < level_bound:
                continue
            gain = T[v] / p[v] - exec_time(work[v], alpha[v], p[v] + 1, speed) / (p[v] + 1)
            if gain > best_gain:
                selected, best_gain = v, gain
        if selected is None:
            return p
        p[selected] += 1
        last = selected


def scrap_allocation(ptg, procs, speeds, beta, variant="SCRAP", translation="at-least-as-fast"):
    """SCRAP (Algorithm 1) or SCRAP-MAX (Algorithm 2): the loop with divisor ``beta * P_ref`` and SCRAP's undo."""
    s_ref, power, _ = reference_cluster(procs, speeds)
    budget = beta * power
    return allocation_loop(
        ptg,
        s_ref,
        budget,
        caps(ptg, procs, speeds, translation),
        level_bound=budget if variant == "SCRAP-MAX" else None,
        undo_overshoot=True,
    )


def hcpa_reference_allocation(ptg, procs, speeds, rule="sqrt", translation="at-least-as-fast"):
    """HCPA on the reference cluster: divisor ``D`` of ``rule`` on its size, the same caps."""
    s_ref, _, size = reference_cluster(procs, speeds)
    P = max(size, 1)
    real = sum(1 for w in ptg.work if w > 0)
    D = min(P, math.isqrt(P * real - 1) + 1) if (rule == "sqrt" and real > 0) else P
    return allocation_loop(ptg, s_ref, float(D), caps(ptg, procs, speeds, translation))


def beta_estimate(ptg, procs, speeds, alloc):
    """``area / (T_CP * P_ref)``."""
    work, alpha, _, _ = _graph(ptg)
    s_ref, power, _ = reference_cluster(procs, speeds)
    T = [exec_time(work[v], alpha[v], alloc[v], s_ref) for v in range(len(work))]
    area = 0.0
    for v in range(len(work)):
        area += T[v] * alloc[v]
    t_cp = duration_bottom_levels(ptg, T)[0]
    return area / (t_cp * power) if t_cp > 0 else 0.0


# -- communications and list scheduling ----------------------------------------------------------
def transfer_time(net, nbytes, k_src, q_src, k_dst, q_dst):
    """Seconds to move ``nbytes`` between two allocated tasks (the documented model, no contention)."""
    if nbytes <= 0:
        return 0.0
    if k_src == k_dst:
        return 3.0 * net.link_lat[k_src] + nbytes / (float(min(q_src, q_dst)) * net.link_bw[k_src])
    latency = 2.0 * net.link_lat[k_src] + 2.0 * net.link_lat[k_dst] + 2.0 * net.uplink_lat + net.backbone_lat
    bw = min(q_src * net.link_bw[k_src], net.uplink_bw, net.backbone_bw, q_dst * net.link_bw[k_dst])
    return latency + nbytes / bw


def _list(ptg, procs, speeds, priority, options, net, nbytes):
    """List scheduling over clusters: ``options(v)`` yields ``(k, q)`` in preference order for ties.

    Ready = all predecessors placed; highest priority first, ties to the
    lowest index.  For each option: ``r`` = latest predecessor end (+
    transfer time with a network), processors of cluster ``k`` in best-fit
    order (available at or before ``r`` by decreasing availability, then the
    later by increasing availability, ties by id), ``start = max(r, their
    latest availability)`` for a task of positive duration (else ``r``); the
    option of earliest finish wins (the first on ties).
    """
    work, alpha, succ, pred = _graph(ptg)
    n = len(work)
    first = [sum(procs[:k]) for k in range(len(procs))]
    avail = [0.0] * sum(procs)
    cluster, size, end = [None] * n, [0] * n, [None] * n
    waiting = [len(pred[v]) for v in range(n)]
    ready = [v for v in range(n) if waiting[v] == 0]
    rows = []
    while ready:
        v = ready[0]
        for u in ready:
            if priority[u] > priority[v] or (priority[u] == priority[v] and u < v):
                v = u
        ready.remove(v)
        best = None
        for k, q in options(v):
            r = 0.0
            for u in pred[v]:
                arrival = end[u]
                if net is not None:
                    b = nbytes[u] if (work[u] > 0 and work[v] > 0) else 0.0
                    arrival = arrival + transfer_time(net, b, cluster[u], size[u], k, q)
                if arrival > r:
                    r = arrival
            ids = range(first[k], first[k] + procs[k])
            early = sorted((i for i in ids if avail[i] <= r), key=lambda i: (-avail[i], i))
            late = sorted((i for i in ids if avail[i] > r), key=lambda i: (avail[i], i))
            chosen = (early + late)[:q]
            d = exec_time(work[v], alpha[v], q, speeds[k])
            start = r
            if d > 0:
                for i in chosen:
                    if avail[i] > start:
                        start = avail[i]
            finish = start + d
            if best is None or finish < best[3]:
                best = (k, q, start, finish, sorted(chosen))
        k, q, start, finish, chosen = best
        if finish > start:
            for i in chosen:
                avail[i] = finish
        cluster[v], size[v], end[v] = k, q, finish
        rows.append((v, k, start, finish, chosen))
        for s in succ[v]:
            waiting[s] -= 1
            if waiting[s] == 0:
                ready.append(s)
    return rows


def place_reference(ptg, procs, speeds, alloc, net=None, nbytes=None, translation="at-least-as-fast"):
    """Placement of a reference allocation: priorities = bottom levels of reference times; each task on
    the cluster (that can host its translation) of earliest finish, ties to the lower cluster."""
    work, alpha, _, _ = _graph(ptg)
    s_ref, _, _ = reference_cluster(procs, speeds)
    priority = duration_bottom_levels(ptg, [exec_time(work[v], alpha[v], alloc[v], s_ref) for v in range(len(work))])

    def options(v):
        for k in range(len(procs)):
            q = translate(work[v], alpha[v], alloc[v], s_ref, speeds[k], procs[k], translation)
            if q <= procs[k]:
                yield k, q

    return _list(ptg, procs, speeds, priority, options, net, nbytes)


def mheft_max(ptg, procs, speeds, fraction, net=None, nbytes=None):
    """MHEFT-MAX: priorities = bottom levels of the mean one-processor time over the clusters; each task
    on the (cluster, allocation <= max(1, floor(fraction * P_k))) of earliest finish, ties to the smaller
    allocation, then the lower cluster."""
    work, alpha, _, _ = _graph(ptg)
    c = len(procs)
    mean = []
    for v in range(len(work)):
        total = 0.0
        for k in range(c):
            total += exec_time(work[v], alpha[v], 1, speeds[k])
        mean.append(total / c)
    priority = duration_bottom_levels(ptg, mean)
    limit = [max(1, int(math.floor(fraction * procs[k]))) for k in range(c)]

    def options(v):
        for q in range(1, max(limit) + 1):
            for k in range(c):
                if q <= limit[k]:
                    yield k, q

    return _list(ptg, procs, speeds, priority, options, net, nbytes)
