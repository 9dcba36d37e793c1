"""SELFISH, SELFISH_ORDER and SELFISH_WEIGHT (RR-7224 §4.1).

Each PTG gets its HCPA allocation as if it had the whole cluster to itself
(:func:`clustersched.ptg.hcpa_allocation` on ``P`` processors); all tasks of
all PTGs are then list-scheduled together by priority
(:func:`clustersched.ptg.list_schedule`, ``readiness="placed"``: a task
competes once its predecessors are placed, which for bottom-level priorities
is the paper's "sort the tasks by decreasing bottom level, schedule each as
early as possible"), and the schedule is compacted by backfilling
(:func:`clustersched.ptg.backfill`).

Priorities (``bl`` = bottom level with the HCPA allocation, ``C*`` = the
PTG's HCPA makespan alone on the cluster, :func:`hcpa_cmax_star`):

* SELFISH: decreasing ``bl``;
* SELFISH_ORDER: increasing ``C*``, then decreasing ``bl`` (short PTGs first);
* SELFISH_WEIGHT: decreasing ``bl / C*^2``.

Randomness (the paper: "all ties are broken randomly"): exactly one draw,
``rng.permutation(T)`` over the ``T`` tasks of all PTGs in ``(ptg, task)``
order, with ``rng = numpy.random.default_rng(seed)`` (or the Generator
passed).  Tasks whose keys are equal go in the order of that permutation.
Nothing else is random; the same seed gives the same schedule.

Rows of the result are in placement order (backfilling keeps it).
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

from .._checks import make_rng
from ..platform import Cluster
from ..workload.ptg import PTG
from ._batch import Batch, check_cluster, rank_priority, seed_label, weighted_levels
from .hcpa import check_rule
from .schedule import TaskSchedule

__all__ = ["selfish", "selfish_order", "selfish_weight"]


def _selfish(
    ptgs: Sequence[PTG], cluster: Cluster, seed: int | np.random.Generator, variant: str, rule: str
) -> TaskSchedule:
    batch = Batch(ptgs)
    cluster = check_cluster(cluster, batch.ptgs)
    rng = make_rng(seed)
    P, speed = cluster.procs, cluster.speed
    alloc, bl, _, _, cstar = batch.core.hcpa_standalone(P, speed, check_rule(rule))
    tie = rng.permutation(batch.total)
    star = cstar[batch.owner]
    if variant == "SELFISH":
        priority = rank_priority(bl, tie=tie)
    elif variant == "SELFISH_ORDER":
        priority = rank_priority(-star, bl, tie=tie)
    else:
        priority = rank_priority(weighted_levels(bl, star), tie=tie)
    listed = batch.core.list_schedule(alloc, priority, P, speed, "placed")
    packed = batch.core.backfill(*listed, P, speed)
    return batch.to_schedule(packed, cluster, variant, {"seed": seed_label(seed)})


def selfish(
    ptgs: Sequence[PTG], cluster: Cluster, *, seed: int | np.random.Generator = 0, rule: str = "sqrt"
) -> TaskSchedule:
    """SELFISH (RR-7224 §4.1): HCPA allocations on the whole cluster, decreasing bottom level, backfilling.

    Parameters
    ----------
    ptgs : list of PTG
        All released at time 0.
    cluster : Cluster
    seed : int or numpy.random.Generator, default 0
        Breaks ties between equal bottom levels (module docstring).
    rule : {"sqrt", "cpa"}, default "sqrt"
        HCPA's stopping rule (:func:`clustersched.ptg.hcpa_allocation`); the
        same for every SELFISH variant, Zhao's and CRA's ``C*``.

    Returns
    -------
    TaskSchedule
        ``algorithm="SELFISH"``, rows in placement order.

    Examples
    --------
    >>> from clustersched.platform import cluster
    >>> from clustersched.workload.ptg_generators import ptg_population
    >>> ptgs = ptg_population("fft", 3, seed=1)
    >>> s = selfish(ptgs, cluster("chti"), seed=7)
    >>> len(s) == sum(len(p) for p in ptgs), s.algorithm
    (True, 'SELFISH')
    """
    return _selfish(ptgs, cluster, seed, "SELFISH", rule)


def selfish_order(
    ptgs: Sequence[PTG], cluster: Cluster, *, seed: int | np.random.Generator = 0, rule: str = "sqrt"
) -> TaskSchedule:
    """SELFISH_ORDER (RR-7224 §4.1): as :func:`selfish`, tasks by increasing ``C*`` then decreasing bottom level.

    Short PTGs (small makespan alone, ``C*``) go first; within a PTG, and
    between PTGs of equal ``C*``, by decreasing bottom level; remaining ties
    by the seed's permutation.
    """
    return _selfish(ptgs, cluster, seed, "SELFISH_ORDER", rule)


def selfish_weight(
    ptgs: Sequence[PTG], cluster: Cluster, *, seed: int | np.random.Generator = 0, rule: str = "sqrt"
) -> TaskSchedule:
    """SELFISH_WEIGHT (RR-7224 §4.1): as :func:`selfish`, tasks by decreasing ``bl / C*^2``.

    The bottom level weighed by the PTG's makespan alone, squared (the
    paper's empirical choice), favouring short PTGs; ties by the seed's
    permutation.
    """
    return _selfish(ptgs, cluster, seed, "SELFISH_WEIGHT", rule)
