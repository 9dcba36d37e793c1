"""Slow, obviously-correct references for CAFM's kernels (RR-7224 §4.4).

* :func:`moldable_profile`: the reference HCPA (``reference.ptg.hcpa_schedule``)
  run on ``p = 1..P`` processors, its latest end each time;
* :func:`optimal_makespan`: the optimum of independent moldable jobs by
  enumeration (every allocation vector, every job order);
* :func:`two_shelves`: the two-shelf test of one guess ``λ`` of the 3/2 + ε
  dual approximation, with the knapsack solved by enumerating subsets;
* :func:`k_shelves`: the K-shelf packing with each shelf's unit-weight
  knapsack solved by enumerating subsets.

Profiles are lists of rows, ``rows[j][p - 1]`` = job ``j``'s time on ``p`` processors.
"""

from __future__ import annotations

import itertools

from reference.ptg import hcpa_schedule


def moldable_profile(ptg, procs, speed, *, rule="sqrt"):
    """``[makespan of ptg alone by HCPA on p processors for p in 1..procs]``."""
    out = []
    for p in range(1, procs + 1):
        makespan = 0.0
        for end in hcpa_schedule(ptg, p, speed, rule=rule).end:
            if end > makespan:
                makespan = float(end)
        out.append(makespan)
    return out


def _list_makespan(durations, sizes, order, procs):
    """Jobs placed in ``order``, each at the earliest time >= the previous job's start at which
    ``sizes[j]`` processors stay free for ``durations[j]`` (processors need not be contiguous).

    Some order gives an optimal schedule: placing jobs by their optimal start
    times this way starts each no later than in the optimum (a job running at
    a time t after the previous start is running at t in the optimum too).
    """
    placed = []  # (start, end, size)
    previous = 0.0
    for j in order:
        d, q = durations[j], sizes[j]
        for t in sorted({previous} | {e for _, e, _ in placed if e >= previous}):
            # usage only rises at starts: check t and every start inside [t, t + d)
            points = [t] + [s for s, _, _ in placed if t < s < t + d]
            if all(sum(sz for s, e, sz in placed if s <= x < e) + q <= procs for x in points):
                placed.append((t, t + d, q))
                previous = t
                break
    return max(e for _, e, _ in placed)


def optimal_makespan(rows, procs):
    """The optimal makespan of independent moldable jobs on ``procs`` processors, by enumeration."""
    n = len(rows)
    best = float("inf")
    for alloc in itertools.product(range(1, procs + 1), repeat=n):
        durations = [rows[j][alloc[j] - 1] for j in range(n)]
        if max(durations) >= best:
            continue
        for order in itertools.permutations(range(n)):
            best = min(best, _list_makespan(durations, alloc, order, procs))
    return best


def _gamma(row, limit):
    """The smallest p whose time is <= limit, or None."""
    return next((p for p in range(1, len(row) + 1) if row[p - 1] <= limit), None)


def two_shelves(rows, procs, lam):
    """The two-shelf test of guess ``lam``: ``None`` if rejected, else the least total work.

    Small jobs (``t(1) <= lam/2``) run on one processor; every other job goes
    to the first shelf on ``γ(lam)`` or the second on ``γ(lam/2)`` (first if
    there is no ``γ(lam/2)``), the first shelf's processors summing to
    ``<= procs``; ``lam`` is accepted when some such choice has total work
    ``<= procs * lam`` (every job having some ``γ(lam)``).
    """
    small, big = [], []
    for j, row in enumerate(rows):
        if _gamma(row, lam) is None:
            return None
        (small if row[0] <= lam / 2 else big).append(j)
    best = None
    for first in itertools.product([False, True], repeat=len(big)):
        procs_first, work = 0, 0.0
        ok = True
        for j, in_first in zip(big, first):
            row = rows[j]
            p = _gamma(row, lam) if in_first else _gamma(row, lam / 2)
            if p is None:
                ok = False
                break
            procs_first += p if in_first else 0
            work += p * row[p - 1]
        if ok and procs_first <= procs and (best is None or work < best):
            best = work
    if best is None:
        return None
    total = best + sum(rows[j][0] for j in small)
    return total if total <= procs * lam else None


def k_shelves(rows, procs, cmax):
    """The K-shelf packing (the rules of ``clustersched.ptg.k_shelves``), each shelf by enumeration.

    Among the subsets of the fitting jobs that hold the most jobs within
    ``procs`` processors, the one whose (allocation, job) pairs, sorted, are
    lexicographically smallest.  Returns (lengths, starts, shelf, alloc, duration).
    """
    n = len(rows)
    t_min = min(min(r) for r in rows)
    halvings = 0
    while cmax / 2.0 ** (halvings + 1) >= t_min:
        halvings += 1
    lengths, starts = [], []
    shelf, alloc, duration = [None] * n, [0] * n, [0.0] * n
    clock, k = 0.0, 0
    while any(s is None for s in shelf):
        length = cmax / 2.0 ** max(halvings - k, 0)
        k += 1
        cands = [(_gamma(rows[j], length), j) for j in range(n) if shelf[j] is None]
        cands = [(p, j) for p, j in cands if p is not None]
        best = []
        for r in range(len(cands), 0, -1):
            fits = [sorted(c) for c in itertools.combinations(cands, r) if sum(p for p, _ in c) <= procs]
            if fits:
                best = min(fits)
                break
        if not best:
            continue
        for p, j in best:
            shelf[j], alloc[j], duration[j] = len(lengths), p, rows[j][p - 1]
        lengths.append(length)
        starts.append(clock)
        clock += length
    return lengths, starts, shelf, alloc, duration


def list_schedule_boxes(width, duration, order, procs):
    """Graham's list scheduling of rigid boxes, the slow way: at each candidate time
    (0 and every end so far), in list order, start every waiting box for which
    enough processors are idle at that instant; lowest idle ids first."""
    n = len(width)
    start, ids = [None] * n, [None] * n
    t = 0.0
    while any(s is None for s in start):
        busy = set()
        for i in range(n):
            if start[i] is not None and start[i] <= t < start[i] + duration[i]:
                busy.update(ids[i])
        for i in order:
            if start[i] is None:
                idle = [q for q in range(procs) if q not in busy]
                if len(idle) >= width[i]:
                    start[i], ids[i] = t, idle[: width[i]]
                    busy.update(ids[i])
        ends = [start[i] + duration[i] for i in range(n) if start[i] is not None and start[i] + duration[i] > t]
        if ends:
            t = min(ends)
    return start, ids
