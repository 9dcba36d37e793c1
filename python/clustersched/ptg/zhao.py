"""C1, C4, F1 and F2: Zhao & Sakellariou's multi-DAG algorithms extended to PTGs (RR-7224 §4.2).

Zhao et al. schedule several graphs of sequential tasks with a standard
single-graph heuristic; RR-7224 extends them to PTGs by using HCPA instead
(allocation + list scheduling, :mod:`clustersched.ptg.hcpa`), both to
schedule and to compute each graph's makespan alone, and compacts every
result by backfilling (:func:`clustersched.ptg.backfill`).  Our choices
where the paper is silent are listed per algorithm.

C1 (:func:`c1`)
    One composite PTG: a zero-work entry before every PTG's entry and a
    zero-work exit after every PTG's exit.  HCPA on the composite: its
    allocation loop on all ``P`` processors (so the critical path is the
    longest PTG's and the average area is that of all PTGs together), list
    scheduling by decreasing composite bottom level, then backfilling of the
    PTGs' tasks (the zero-work entry and exit dropped).  Composite task ids:
    the new entry, then PTG 0's tasks, PTG 1's, ..., then the new exit.

C4 (:func:`c4`)
    Each PTG's makespan alone ``C*`` (HCPA on the whole cluster) orders the
    PTGs by decreasing ``C*``; the first, ``L``, is the base.  Every other PTG
    ``k`` is *grafted* onto ``L``: its entry becomes a successor of the task
    ``u`` of ``L`` with the latest end, in ``L``'s schedule alone, at or before
    ``C*_L - C*_k`` (ties: lowest index) -- so that, if both ran as they do
    alone, ``k`` would end no later than ``L``; when no task of ``L`` ends that
    early ``k`` hangs from the composite's zero-work entry, like ``L``.  The
    composite (entry, ``L``, the others in that order, zero-work exit) is
    then scheduled as in C1 -- HCPA allocation and list scheduling by bottom
    level on the composite, so the grafting edges hold in the list schedule;
    then backfilling, as in C1, under the PTGs' own precedence only.  Grafting
    onto ``L`` only (not onto PTGs grafted before) is our reading of "shorter
    graphs are grafted onto larger graphs".  Backfilling without the grafting
    edges is our reading of §4.1 (it compacts the schedule of the PTGs'
    tasks; a grafting edge is no dependence of any PTG): with them kept, a
    short PTG cannot leave its slot late in the longest one, and C4 becomes
    the least fair algorithm (median maximum stretch 44.7 against 5.7 on a
    fifth of the study's scenarios), the opposite of §5.2.5's Fig. 8, where
    C4 is fairer than SELFISH and F2.

F1, F2 (:func:`f1`, :func:`f2`)
    Each PTG keeps its HCPA allocation on the whole cluster and its schedule
    alone.  One task at a time: the PTG with the largest current stretch
    (ties: largest bottom level among its unplaced tasks) places its ready
    task of largest bottom level by the shared list-scheduling rule; then
    the current stretch is re-estimated -- F1: that PTG's only, as the task's
    end over its end alone; F2: every PTG's, from its task running at that
    end, compared with the time the same fraction of it is done alone (see
    ``clustersched._core.PtgSet.fairness_schedule`` and the Rust
    ``fairness_schedule`` for the exact rule).  A PTG not started yet counts
    as infinitely stretched: the paper's "zero" is Zhao's slowdown, the
    inverse of our stretch.  Then backfilling.

Randomness ("ties are broken randomly", §4.1, applied here too), with
``rng = numpy.random.default_rng(seed)`` (or the Generator passed):

* C1: one ``rng.permutation(T + 2)`` over the composite's tasks breaks
  ties between equal bottom levels;
* C4: the same, then one ``rng.permutation(N)`` over the PTGs breaks ties
  between equal ``C*`` when ordering them;
* F1, F2: one ``rng.permutation(T)`` over all tasks in ``(ptg, task)`` order
  breaks ties between a PTG's ready tasks of equal bottom level, then one
  ``rng.permutation(N)`` breaks ties between PTGs of equal keys.

(``T`` tasks in all, ``N`` PTGs.)  Rows of the results are in placement
order.
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from .._checks import make_rng
from ..platform import Cluster
from ..workload.ptg import PTG
from ._batch import Batch, check_cluster, core_set, rank_priority, seed_label
from .hcpa import check_rule
from .schedule import TaskSchedule

__all__ = ["c1", "c4", "f1", "f2"]


def _composite(batch: Batch, order: Sequence[int], graft: dict[int, tuple[int, int]]) -> tuple[Any, np.ndarray]:
    """The composite PTG of the PTGs in ``order``, as a one-graph ``_core.PtgSet``.

    Composite id 0 is a zero-work entry, ``1 + T`` a zero-work exit, and PTG
    ``order[j]``'s tasks come in that order in between.  ``graft[k] = (i, u)``
    makes the entry of PTG ``k`` a successor of task ``u`` of PTG ``i``
    (earlier in ``order``); a PTG not in ``graft`` follows the new entry.
    Returns the set and, for each composite id, the global task id (-1 for
    the two new tasks).
    """
    total = batch.total
    n = total + 2
    cbase = {}
    pos = 1
    for i in order:
        cbase[i] = pos
        pos += int(batch.sizes[i])
    to_global = np.full(n, -1, dtype=np.int64)
    work = np.zeros(n)
    alpha = np.zeros(n)
    succ: list[list[int]] = [[] for _ in range(n)]
    for i in order:
        p, b = batch.ptgs[i], cbase[i]
        size = len(p)
        to_global[b : b + size] = np.arange(batch.base[i], batch.base[i] + size)
        work[b : b + size] = p.work
        alpha[b : b + size] = p.alpha
        so, s = p.succ_offsets, p.succ + b
        for v in range(size):
            succ[b + v] = s[so[v] : so[v + 1]].tolist()
        succ[b + p.exit].append(n - 1)
        if i in graft:
            host, u = graft[i]
            succ[cbase[host] + u].append(b)
        else:
            succ[0].append(b)
    offsets = np.zeros(n + 1, dtype=np.int64)
    flat: list[int] = []
    for v in range(n):
        flat.extend(sorted(succ[v]))
        offsets[v + 1] = len(flat)
    comp = core_set([work], [alpha], [offsets], [np.array(flat, dtype=np.int64)])
    return comp, to_global


def _schedule_composite(
    batch: Batch, cluster: Cluster, order: Sequence[int], graft: dict[int, tuple[int, int]], tie: np.ndarray, rule: str
) -> tuple[np.ndarray, ...]:
    """HCPA on the composite and list scheduling by bottom level; then the rows of the PTGs' tasks, backfilled
    under the PTGs' own precedence (the composite's extra edges were a means to order, not dependences)."""
    P, speed = cluster.procs, cluster.speed
    comp, to_global = _composite(batch, order, graft)
    alloc = comp.hcpa_allocation(0, P, speed, rule=rule)
    bl = comp.bottom_levels(0, alloc, speed)
    task, start, end, offsets, ids = comp.list_schedule(alloc, rank_priority(bl, tie=tie), P, speed, "placed")
    keep = to_global[task] >= 0
    counts = np.diff(offsets)
    new_offsets = np.zeros(int(keep.sum()) + 1, dtype=np.int64)
    np.cumsum(counts[keep], out=new_offsets[1:])
    return batch.core.backfill(
        to_global[task[keep]], start[keep], end[keep], new_offsets, ids[np.repeat(keep, counts)], P, speed
    )


def c1(
    ptgs: Sequence[PTG], cluster: Cluster, *, seed: int | np.random.Generator = 0, rule: str = "sqrt"
) -> TaskSchedule:
    """C1 (RR-7224 §4.2, Zhao et al.): HCPA on the fork-join composite of all PTGs, then backfilling.

    See the module docstring for the composite and the use of ``seed``.

    Examples
    --------
    >>> from clustersched.platform import cluster
    >>> from clustersched.workload.ptg_generators import ptg_population
    >>> ptgs = ptg_population("strassen", 2, seed=3)
    >>> s = c1(ptgs, cluster("chti"), seed=0)
    >>> len(s) == sum(len(p) for p in ptgs), s.algorithm
    (True, 'C1')
    """
    batch = Batch(ptgs)
    cluster = check_cluster(cluster, batch.ptgs)
    rng = make_rng(seed)
    tie = rng.permutation(batch.total + 2)
    cols = _schedule_composite(batch, cluster, range(len(batch.ptgs)), {}, tie, check_rule(rule))
    return batch.to_schedule(cols, cluster, "C1", {"seed": seed_label(seed)})


def c4(
    ptgs: Sequence[PTG], cluster: Cluster, *, seed: int | np.random.Generator = 0, rule: str = "sqrt"
) -> TaskSchedule:
    """C4 (RR-7224 §4.2, Zhao et al.): shorter PTGs grafted onto the longest, HCPA on the composite, backfilling.

    See the module docstring for the grafting rule and the use of ``seed``.
    ``options["graft"]`` records, for each PTG, ``(host PTG, host task)`` or
    ``None`` when it hangs from the composite's entry.
    """
    batch = Batch(ptgs)
    cluster = check_cluster(cluster, batch.ptgs)
    rng = make_rng(seed)
    tie = rng.permutation(batch.total + 2)
    ptg_tie = rng.permutation(len(batch.ptgs))
    rule = check_rule(rule)
    _, _, _, alone_end, cstar = batch.core.hcpa_standalone(cluster.procs, cluster.speed, rule)
    order = [int(i) for i in np.lexsort((ptg_tie, -cstar))]
    base = order[0]
    ends = batch.split(alone_end)[base]
    graft: dict[int, tuple[int, int]] = {}
    for k in order[1:]:
        fits = np.flatnonzero(ends <= cstar[base] - cstar[k])
        if fits.size:
            graft[k] = (base, int(fits[np.argmax(ends[fits])]))
    cols = _schedule_composite(batch, cluster, order, graft, tie, rule)
    options = {"seed": seed_label(seed), "graft": [graft.get(i) for i in range(len(batch.ptgs))]}
    return batch.to_schedule(cols, cluster, "C4", options)


def _fairness(
    ptgs: Sequence[PTG], cluster: Cluster, seed: int | np.random.Generator, variant: str, rule: str
) -> TaskSchedule:
    batch = Batch(ptgs)
    cluster = check_cluster(cluster, batch.ptgs)
    rng = make_rng(seed)
    P, speed = cluster.procs, cluster.speed
    task_tie = rng.permutation(batch.total).astype(np.uint64)
    ptg_tie = rng.permutation(len(batch.ptgs)).astype(np.uint64)
    alloc, bl, alone_start, alone_end, _ = batch.core.hcpa_standalone(P, speed, check_rule(rule))
    cols = batch.core.fairness_schedule(alloc, bl, task_tie, ptg_tie, alone_start, alone_end, P, speed, variant)
    packed = batch.core.backfill(*cols, P, speed)
    return batch.to_schedule(packed, cluster, variant, {"seed": seed_label(seed)})


def f1(
    ptgs: Sequence[PTG], cluster: Cluster, *, seed: int | np.random.Generator = 0, rule: str = "sqrt"
) -> TaskSchedule:
    """F1 (RR-7224 §4.2, Zhao et al.): the most stretched PTG places its next task; its stretch from that task alone.

    See the module docstring for the rules and the use of ``seed``.
    """
    return _fairness(ptgs, cluster, seed, "F1", rule)


def f2(
    ptgs: Sequence[PTG], cluster: Cluster, *, seed: int | np.random.Generator = 0, rule: str = "sqrt"
) -> TaskSchedule:
    """F2 (RR-7224 §4.2, Zhao et al.): as :func:`f1`, every PTG's stretch re-estimated after each placement.

    See the module docstring for the rules and the use of ``seed``.
    """
    return _fairness(ptgs, cluster, seed, "F2", rule)
