"""Placement of one PTG on a heterogeneous multi-cluster platform: list scheduling, MHEFT-MAX (PDCS 2007).

The second step of HCPA, SCRAP and SCRAP-MAX, and the paper's other baseline
(Rust kernels, ``rust/core/src/scrap/placement.rs`` and ``mheft.rs``; slow
references in ``tests/reference/scrap.py``):

Placement (:func:`place_reference`)
    Tasks by decreasing bottom level of their reference times (ties: lowest
    index), each once all its predecessors are placed; each goes to the
    cluster where its translated allocation
    (:func:`clustersched.scrap.model.translate`, by the run's ``translation``;
    only clusters that can host it) finishes earliest (ties: the
    lower cluster), on processors chosen by the library's best-fit rule
    (:func:`clustersched.ptg.list_schedule`), starting once its predecessors'
    data have arrived (the :class:`~clustersched.platform.Network` model and
    the bytes of :func:`clustersched.scrap.model.task_bytes`) or, without a
    network, once they end.  No backfilling (HCPA's own mapping).

MHEFT-MAX (:func:`mheft_max`)
    The paper's other baseline (§2): M-HEFT (Casanova, Desprez & Suter 2004)
    with no allocation above ``fraction`` of a cluster's processors (N'takpé,
    Suter & Casanova 2007).  Priorities are bottom levels of each task's
    *average one-processor time over the clusters* ("reasoning on average
    data-parallel task execution times for 1-processor allocations on all
    possible clusters", §2; communications are left out of the priorities);
    each task, in that order, takes the cluster ``k`` and allocation ``q`` in
    ``1..max(1, floor(fraction * P_k))`` of earliest finish (same ready-time
    and best-fit rules), ties to the smaller ``q``, then the lower cluster.
"""

from __future__ import annotations

from typing import Any

from .._checks import check_float
from ..platform import MultiCluster
from ..workload.ptg import PTG
from .model import DEFAULT_TRANSLATION, check_alloc, check_core, check_platform, check_ptg, check_translation
from .schedule import ClusterSchedule, make_schedule

__all__ = ["mheft_max", "place_reference"]


def check_comms(platform: MultiCluster, comms: bool) -> bool:
    """Whether transfers are modelled: ``comms`` (a bool) and the platform has a network."""
    if not isinstance(comms, bool):
        raise TypeError(f"comms == {comms!r}, must be a bool")
    return comms and platform.network is not None


def place_reference(
    ptg: PTG,
    platform: MultiCluster,
    alloc: Any,
    *,
    comms: bool = True,
    algorithm: str = "list",
    translation: str = DEFAULT_TRANSLATION,
    core: Any = None,
) -> ClusterSchedule:
    """List-schedules ``ptg`` with reference allocation ``alloc`` on ``platform`` (module docstring).

    Parameters
    ----------
    alloc : int array
        Reference processors per task, each in ``1..platform.ref_procs`` and
        hostable by some cluster.
    comms : bool, default True
        Model communications (when the platform has a network).
    translation : {"closest", "at-least-as-fast"}
        How ``alloc`` translates to each cluster (:data:`clustersched.scrap.model.TRANSLATIONS`); the schedule
        records it (``schedule.translation``) and the validator checks the allocations by it.

    Examples
    --------
    >>> import networkx as nx
    >>> from clustersched.platform import Cluster
    >>> g = nx.DiGraph([("a", "b")]); nx.set_node_attributes(g, 4e9, "work")
    >>> p = MultiCluster("p", (Cluster("slow", 4, 1e9), Cluster("fast", 2, 2e9)))
    >>> place_reference(PTG.from_networkx(g), p, [2, 4]).rows()   # equal finishes: the lower cluster
    [(0, 0, 0.0, 2.0, [0, 1]), (1, 0, 2.0, 3.0, [0, 1, 2, 3])]
    >>> place_reference(PTG.from_networkx(g), p, [3, 4]).rows()   # 4/3 s on 3 slow, 1 s on 2 fast
    [(0, 1, 0.0, 1.0, [4, 5]), (1, 0, 1.0, 2.0, [0, 1, 2, 3])]
    """
    a = check_alloc(check_ptg(ptg), alloc)
    on = check_comms(check_platform(platform), comms)
    rule = check_translation(translation)
    core = check_core(core, ptg, platform)
    return make_schedule(core.place(a, on, rule), platform, algorithm, a, on, translation=rule)


def mheft_max(
    ptg: PTG, platform: MultiCluster, fraction: float, *, comms: bool = True, core: Any = None
) -> ClusterSchedule:
    """MHEFT-MAX: M-HEFT with allocations of at most ``fraction`` of a cluster (module docstring).

    Examples
    --------
    >>> import networkx as nx
    >>> from clustersched.platform import Cluster
    >>> g = nx.DiGraph(); g.add_node("t", work=8e9)
    >>> p = MultiCluster("p", (Cluster("a", 8, 1e9),))
    >>> mheft_max(PTG.from_networkx(g), p, 0.5).rows()   # at most 4 of the 8 processors
    [(0, 0, 0.0, 2.0, [0, 1, 2, 3])]
    """
    f = check_float("fraction", fraction, positive=True, maximum=1.0)
    on = check_comms(check_platform(platform), comms)
    core = check_core(core, ptg, platform)
    return make_schedule(core.mheft_max(f, on), platform, "MHEFT-MAX", None, on, {"fraction": f})
