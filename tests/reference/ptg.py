"""Slow, obviously-correct references for multi-PTG scheduling (RR-7224 §4.1).

HCPA allocation, list scheduling and backfilling compaction, written with
plain lists and loops from the rules below, for differential tests of the
Rust kernels.  Every rule that the paper leaves open (tie-breaking, processor
choice, float evaluation order, comparisons) is fixed here; a reimplementation
that follows these docstrings must produce *bit-identical* results.

Conventions shared by all functions
-----------------------------------
* A PTG is read only through its arrays: ``work``, ``alpha``, successor /
  predecessor CSR (indices are topological: every edge goes from a lower to a
  higher index; entry 0, exit n-1).
* ``T(v, p) = (work[v] / speed) * (alpha[v] + (1.0 - alpha[v]) / p)``,
  evaluated in exactly this order in IEEE float64 (:func:`exec_time`).
* Bottom level: ``bl[v] = T(v, p_v) + max(bl[s] for s in succ(v))`` (``+ 0.0``
  when ``v`` has no successor), computed from ``v = n-1`` down to ``0``.
  ``bl[0]`` is the critical-path length.
* Tasks of several PTGs are identified by ``(i, v)`` = (PTG index, task
  index); "lowest ``(i, v)``" compares tuples.
* All comparisons are exact float comparisons; no epsilon anywhere.
* All PTGs are released at time 0.
"""

from __future__ import annotations

import math

from clustersched.ptg.schedule import TaskSchedule


def exec_time(work: float, alpha: float, p: int, speed: float) -> float:
    """``T(v, p)`` in the canonical evaluation order (see module docstring)."""
    return (work / speed) * (alpha + (1.0 - alpha) / p)


def _graph(ptg):
    work = [float(w) for w in ptg.work]
    alpha = [float(a) for a in ptg.alpha]
    n = len(work)
    so, s = ptg.succ_offsets.tolist(), ptg.succ.tolist()
    po, pr = ptg.pred_offsets.tolist(), ptg.pred.tolist()
    succ = [s[so[v] : so[v + 1]] for v in range(n)]
    pred = [pr[po[v] : po[v + 1]] for v in range(n)]
    return work, alpha, succ, pred


def bottom_levels(ptg, alloc, speed):
    """Bottom level of every task of ``ptg`` with allocation ``alloc`` (list of float)."""
    work, alpha, _, _ = _graph(ptg)
    return duration_bottom_levels(ptg, [exec_time(work[v], alpha[v], alloc[v], speed) for v in range(len(work))])


def duration_bottom_levels(ptg, durations):
    """Bottom level of every task of ``ptg`` whose task ``v`` takes ``durations[v]`` (list of float)."""
    _, _, succ, _ = _graph(ptg)
    n = len(succ)
    bl = [0.0] * n
    for v in range(n - 1, -1, -1):
        longest = 0.0
        for s in succ[v]:
            if bl[s] > longest:
                longest = bl[s]
        bl[v] = durations[v] + longest
    return bl


def levels(ptg):
    """Precedence level of every task: 0 for the entry, else 1 + its deepest predecessor's (list of int)."""
    _, _, _, pred = _graph(ptg)
    level = [0] * len(pred)
    for v in range(len(pred)):
        for u in pred[v]:
            level[v] = max(level[v], level[u] + 1)
    return level


# -- (a) HCPA allocation ----------------------------------------------------------------
def hcpa_allocation(ptg, procs, speed, *, rule="sqrt"):
    """Processors per task for ``ptg`` alone on ``procs`` processors of ``speed`` flop/s.

    The CPA allocation loop (Radulescu & van Gemund, ICPP 2001) as HCPA
    (N'takpé & Suter, ICPADS 2006) runs it on one homogeneous cluster, where
    HCPA's reference cluster is the cluster itself (RR-7224 §4.1, which cites
    the improved HCPA of N'takpé, Suter & Casanova, ISPDC 2007, its [23]):

    1. ``p[v] = 1`` for every task.
    2. Repeat:

       a. ``T[v] = T(v, p[v])``; ``bl`` = bottom levels; ``T_CP = bl[0]``.
       b. ``area = sum(T[v] * p[v])``, summed left to right for ``v = 0..n-1``
          starting from ``0.0``; ``T_A = area / D`` with
          ``D = min(P, ceil(sqrt(P * R)))`` (``math.isqrt`` on integers) when
          ``rule == "sqrt"`` (default), ``R`` being the number of tasks with
          ``work > 0`` (``D = P`` if ``R == 0``), and ``D = P`` when
          ``rule == "cpa"``.
       c. Stop unless ``T_CP > T_A`` (strict).
       d. Critical path: start at task 0; while the current task has
          successors, move to the successor with the largest ``bl``, ties to
          the lowest index.  The path's tasks are thus visited in increasing
          index order.
       e. For each task ``v`` on the path with ``p[v] < P``:
          ``gain = T[v] / p[v] - T(v, p[v] + 1) / (p[v] + 1)`` (this operand
          order).  Select the first task (lowest index) with the largest
          ``gain``, among those with ``gain > 0.0``.  If there is none -- every
          critical-path task already has all ``P`` processors or is a
          zero-work task -- stop ("saturated critical path").
       f. ``p[selected] += 1``.

    Why these choices
    -----------------
    * Benefit = CPA's gain ``T(p)/p - T(p+1)/(p+1)``: the decrease of the
      task's contribution to the average area per added processor, as in the
      CPA paper, in the SCRAP paper of the same group (shared/papers/003,
      Algorithm 1) and in its allocation code (``frs69wq/biCPA``,
      ``src/bicpa.c``).  RR-7224 §4.1 paraphrases it as "the smallest
      ``T(v, p_v+1)/(p_v+1)``", which taken literally would favour the task
      that gains *least*; we read it as the CPA gain.
    * Stopping.  What HCPA/[23] add to CPA on a single homogeneous cluster
      is (i) the bound ``p[v] <= P`` with the saturated-critical-path stop of
      step e (HCPA's "no cluster can accommodate the allocation", SCRAP §3),
      and (ii) a remedy for CPA's over-large allocations: RR-7224 §5.2.1 says
      HCPA "bounds the number of processors that can be used in a schedule
      as a way to increase parallel efficiency", sometimes more stringently
      than the CRA budgets (which happens "with few concurrent PTGs"), and
      SCRAP §4 that HCPA uses under 30% of the processing power in over 75%
      of its schedules.  [23]'s own text is not available to us; ``"sqrt"``
      averages the area over the geometric mean of ``P`` and the task count,
      the reading that reproduces RR-7224's results (docs/hcpa.md);
      ``"cpa"`` is CPA's criterion over all ``P`` processors, kept for
      comparison.
    * ``T_A`` and ``bl`` are recomputed from scratch each iteration (rather
      than updated incrementally, as biCPA does), so every value depends on
      the current allocation only and two implementations agree to the bit.

    Returns
    -------
    list of int
        ``p[v]`` for ``v = 0..n-1``, each in ``1..procs``.
    """
    if rule not in ("sqrt", "cpa"):
        raise ValueError(rule)
    work, alpha, succ, _ = _graph(ptg)
    n = len(work)
    P = int(procs)
    real = sum(1 for w in work if w > 0)
    D = min(P, math.isqrt(P * real - 1) + 1) if (rule == "sqrt" and real > 0) else P
    p = [1] * n
    while True:
        T = [exec_time(work[v], alpha[v], p[v], speed) for v in range(n)]
        bl = [0.0] * n
        for v in range(n - 1, -1, -1):
            longest = 0.0
            for s in succ[v]:
                if bl[s] > longest:
                    longest = bl[s]
            bl[v] = T[v] + longest
        t_cp = bl[0]
        area = 0.0
        for v in range(n):
            area += T[v] * p[v]
        t_a = area / D
        if not t_cp > t_a:
            return p
        path = [0]
        v = 0
        while succ[v]:
            best = succ[v][0]
            for s in succ[v]:  # successors are in increasing index order
                if bl[s] > bl[best]:
                    best = s
            v = best
            path.append(v)
        selected, best_gain = None, 0.0
        for v in path:
            if p[v] >= P:
                continue
            gain = T[v] / p[v] - exec_time(work[v], alpha[v], p[v] + 1, speed) / (p[v] + 1)
            if gain > best_gain:
                selected, best_gain = v, gain
        if selected is None:
            return p
        p[selected] += 1


# -- (b) list scheduling -----------------------------------------------------------------
def list_schedule(ptgs, allocs, priorities, procs, speed):
    """List-schedules the allocated tasks of several PTGs onto ``procs`` concrete processors.

    Parameters
    ----------
    ptgs : list of PTG
    allocs : list of list of int
        ``allocs[i][v]``: processors of task ``v`` of PTG ``i``, in ``1..procs``.
    priorities : list of list of float
        ``priorities[i][v]``: higher runs first.
    procs, speed :
        The cluster.

    Rules
    -----
    Each processor ``q`` has an availability time ``avail[q]``, initially
    ``0.0`` (non-insertion list scheduling: a processor's idle gaps before
    ``avail[q]`` are never reused here -- backfilling does that).  Repeat until
    every task is placed:

    1. Among the *ready* tasks -- not placed yet, all predecessors placed --
       take the one with the highest priority, ties to the lowest ``(i, v)``.
       (With bottom-level priorities this is the classic "sort by decreasing
       bottom level"; the ready set keeps any priority precedence-safe.)
    2. ``r`` = the latest end of its predecessors, ``0.0`` if none;
       ``d = T(v, a)`` with ``a = allocs[i][v]``.
    3. Order the processors: first those with ``avail[q] <= r`` by
       *decreasing* ``avail[q]`` (best fit: the smallest idle gap before the
       task), then those with ``avail[q] > r`` by increasing ``avail[q]``;
       ties by increasing ``q``.  Take the first ``a``.
    4. If ``d > 0``: ``start = max(r, max(avail[q] for the chosen q))``,
       ``end = start + d``, and ``avail[q] = end`` for the chosen ``q``.  This
       is the earliest time at which ``a`` processors are free and all
       predecessors are done.  If ``d == 0`` (zero-work synthetic task):
       ``start = end = r`` and ``avail`` is unchanged -- it occupies no
       processor time, so it neither waits for nor blocks processors.
    5. Record the task with the chosen ids sorted increasingly.

    This is the mapping of the SimGrid-based schedulers of the paper's group
    (``get_best_workstation_set`` in ``frs69wq/biCPA``), with ties fixed.

    Returns
    -------
    TaskSchedule
        Rows in placement order (the "order in which tasks were scheduled").
    """
    P = int(procs)
    graphs = [_graph(p) for p in ptgs]
    avail = [0.0] * P
    end = [[None] * len(g[0]) for g in graphs]
    waiting = [[len(g[3][v]) for v in range(len(g[0]))] for g in graphs]
    ready = [(i, v) for i, g in enumerate(graphs) for v in range(len(g[0])) if waiting[i][v] == 0]
    rows = []
    while ready:
        best = ready[0]
        for t in ready:
            i, v = t
            bi, bv = best
            if priorities[i][v] > priorities[bi][bv] or (priorities[i][v] == priorities[bi][bv] and t < best):
                best = t
        ready.remove(best)
        i, v = best
        work, alpha, succ, pred = graphs[i]
        a = int(allocs[i][v])
        r = 0.0
        for u in pred[v]:
            if end[i][u] > r:
                r = end[i][u]
        d = exec_time(work[v], alpha[v], a, speed)
        early = sorted((q for q in range(P) if avail[q] <= r), key=lambda q: (-avail[q], q))
        late = sorted((q for q in range(P) if avail[q] > r), key=lambda q: (avail[q], q))
        chosen = (early + late)[:a]
        if d > 0:
            start = r
            for q in chosen:
                if avail[q] > start:
                    start = avail[q]
            finish = start + d
            for q in chosen:
                avail[q] = finish
        else:
            start = finish = r
        end[i][v] = finish
        rows.append((i, v, start, finish, sorted(chosen)))
        for s in succ[v]:
            waiting[i][s] -= 1
            if waiting[i][s] == 0:
                ready.append((i, s))
    return TaskSchedule.from_rows(rows, total_procs=P, algorithm="reference-list")


# -- (c) backfilling compaction ----------------------------------------------------------
def backfill(schedule, ptgs, procs, speed):
    """Conservative-backfilling compaction of a feasible schedule (RR-7224 §4.1).

    Rules
    -----
    Tasks are taken in the order of their start time in ``schedule``, ties by
    lowest ``(i, v)`` (so a zero-length predecessor comes before a successor
    starting at the same instant).  Every other task stays where it currently
    is -- already-processed tasks at their new place, the others at their
    original one -- so moving a task into free space delays nobody.  For the
    current task ``x`` with ``a`` processors and original start ``s0``:

    1. ``d = T(x, a)`` (recomputed from the model); ``r`` = the latest
       *current* end of its predecessors, ``0.0`` if none.
    2. A processor ``q`` is *idle over* ``[t, t + d)`` if, for every other task
       ``y`` on ``q`` with ``end_y > start_y``, not (``t < end_y`` and
       ``start_y < t + d``).  (Zero-length tasks occupy nothing; ``t + d`` is
       one float addition.)
    3. Candidate start times, in increasing order: ``r``, then every current
       ``end_y`` of another positive-length task with ``r < end_y < s0``, then
       ``s0``.  ``t`` is the first candidate at which at least ``a`` processors
       are idle over ``[t, t + d)`` (with ``d == 0`` that is ``r``).  These
       are the only times at which the number of idle processors can rise, so
       ``t`` is the earliest feasible start.  (If, against expectation, no
       candidate qualifies, the task keeps its original start and processors.)
    4. Processors: ``x``'s current processors if they are all idle over
       ``[t, t + d)``; otherwise the ``a`` idle ones with the *latest*
       ``prev_end(q)`` first, ties by increasing ``q``, where ``prev_end(q)``
       is the largest ``end_y <= t`` of a positive-length task ``y != x`` on
       ``q`` (``0.0`` if none): the tightest fit after the previous task.
    5. ``x`` now runs ``[t, min(t + d, e0))`` there, ``e0`` its old end (the
       same as ``t + d`` when the input's ends are start + ``d``; on times
       shifted and rounded, it keeps successors' starts after its end).

    Moving a task earlier never breaks precedence for its successors (they
    start after its old, later end), so the result is feasible.

    Returns
    -------
    TaskSchedule
        Same rows, in the same order as ``schedule``, with new start / end /
        processor ids.
    """
    P = int(procs)
    graphs = [_graph(p) for p in ptgs]
    rows = [list(r) for r in schedule.rows()]  # [i, v, start, end, ids]
    row_of = {(r[0], r[1]): k for k, r in enumerate(rows)}
    order = sorted(range(len(rows)), key=lambda k: (rows[k][2], rows[k][0], rows[k][1]))
    for k in order:
        i, v, s0, e0, ids = rows[k]
        work, alpha, succ, pred = graphs[i]
        a = len(ids)
        d = exec_time(work[v], alpha[v], a, speed)
        r = 0.0
        for u in pred[v]:
            e = rows[row_of[(i, u)]][3]
            if e > r:
                r = e
        others = [rows[j] for j in range(len(rows)) if j != k and rows[j][3] > rows[j][2]]
        on = [[] for _ in range(P)]
        for y in others:
            for q in y[4]:
                on[q].append((y[2], y[3]))

        def idle(q, t):
            return all(not (t < e and s < t + d) for s, e in on[q])

        candidates = sorted({r, s0} | {y[3] for y in others if r < y[3] < s0})
        placed = None
        for t in candidates:
            eligible = [q for q in range(P) if idle(q, t)]
            if len(eligible) >= a:
                placed = (t, eligible)
                break
        if placed is None:
            continue
        t, eligible = placed
        if all(q in eligible for q in ids):
            chosen = list(ids)
        else:

            def prev_end(q):
                best = 0.0
                for s, e in on[q]:
                    if e <= t and e > best:
                        best = e
                return best

            chosen = sorted(eligible, key=lambda q: (-prev_end(q), q))[:a]
        rows[k] = [i, v, t, min(t + d, e0), sorted(chosen)]
    return TaskSchedule.from_rows(
        [tuple(r) for r in rows], total_procs=P, algorithm=(schedule.algorithm + "+backfill").lstrip("+")
    )


# -- compositions ------------------------------------------------------------------------
def hcpa_schedule(ptg, procs, speed, *, rule="sqrt"):
    """HCPA for one PTG on a dedicated cluster: allocation, then list scheduling by bottom level.

    Priorities are the bottom levels with the HCPA allocation.  No
    backfilling (HCPA's own mapping is plain list scheduling).  The latest
    end is the PTG's ``C*_max``.
    """
    alloc = hcpa_allocation(ptg, procs, speed, rule=rule)
    bl = bottom_levels(ptg, alloc, speed)
    return list_schedule([ptg], [alloc], [bl], procs, speed)


def selfish(ptgs, procs, speed, *, rule="sqrt"):
    """SELFISH (RR-7224 §4.1) with index tie-breaking: per-PTG HCPA allocations on the whole
    cluster, list scheduling of all tasks by decreasing bottom level, then backfilling.

    (The paper breaks ties randomly; here they go to the lowest ``(i, v)``.)
    """
    allocs = [hcpa_allocation(p, procs, speed, rule=rule) for p in ptgs]
    prios = [bottom_levels(p, a, speed) for p, a in zip(ptgs, allocs)]
    listed = list_schedule(ptgs, allocs, prios, procs, speed)
    return backfill(listed, ptgs, procs, speed)
