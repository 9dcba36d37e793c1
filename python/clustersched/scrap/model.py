"""One PTG on a heterogeneous multi-cluster platform: translation, placement, MHEFT-MAX (PDCS 2007).

N'takpé & Suter, *Self-Constrained Resource Allocation Procedures for PTG
scheduling on shared grids* (PDCS 2007), schedule one PTG on a
:class:`~clustersched.platform.MultiCluster` in two steps: an allocation on
HCPA's *reference cluster* (:mod:`clustersched.ptg.scrap`: SCRAP, SCRAP-MAX,
HCPA), then its placement by list scheduling.  This module holds the
platform-side pieces (Rust kernels, ``rust/core/src/ptg/multicluster.rs``;
slow references in ``tests/reference/scrap.py``):

Translation (:func:`translate`)
    ``f(p_ref, v, k)``: the smallest allocation ``q >= 1`` of task ``v`` on
    cluster ``k`` with ``T_k(v, q) <= T_ref(v, p_ref)`` -- at least as fast as
    ``p_ref`` reference processors (§3).  ``q <= p_ref`` since every cluster
    is at least as fast as the reference; it may exceed the cluster's size.

Caps (:func:`reference_caps`)
    Task ``v`` may take one more reference processor while some cluster ``k``
    has ``f(p_ref(v), v, k) < P_k`` (Algorithm 1, line 5: otherwise its
    critical path is *saturated*) and ``p_ref(v)`` is below the reference
    cluster's size.

Placement (:func:`place_reference`)
    Tasks by decreasing bottom level of their reference times (ties: lowest
    index), each once all its predecessors are placed; each goes to the
    cluster where its translated allocation finishes earliest (ties: the lower
    cluster), on processors chosen by the library's best-fit rule
    (:func:`clustersched.ptg.list_schedule`), starting once its predecessors'
    data have arrived (the :class:`~clustersched.platform.Network` model) or,
    without a network, once they end.  No backfilling (HCPA's own mapping).

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

Data
    A task sends ``8 * data`` bytes (its ``data`` node attribute: the
    ``n`` double-precision elements of §4, set by the generators of
    :mod:`clustersched.workload.ptg_generators`; 0 when absent) to each
    successor.  Edges into or out of a zero-work (structural) task carry
    nothing.  ``comms=False``, or a platform without a network, makes every
    transfer free.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .. import _core
from .._checks import check_float
from ..platform import MultiCluster
from ..workload.ptg import PTG

__all__ = ["ClusterSchedule", "mheft_max", "place_reference", "reference_caps", "task_bytes", "translate"]


def task_bytes(ptg: PTG) -> np.ndarray:
    """Bytes each task of ``ptg`` sends to each successor: ``8 * data`` (0 without a ``data`` attribute).

    Examples
    --------
    >>> from clustersched.workload.ptg_generators import random_ptg
    >>> p = random_ptg(5, fat=0.5, regularity=0.5, density=0.5, jump=1, seed=0)
    >>> b = task_bytes(p)
    >>> bool((b[p.synthetic] == 0).all()), bool((b[~p.synthetic] >= 8 * 4 * 2**20).all())
    (True, True)
    """
    attrs = ptg._node_attrs
    out = np.zeros(len(ptg), dtype=np.float64)
    for v in range(len(ptg)):
        d = attrs[v].get("data", 0.0) if not ptg.synthetic[v] else 0.0
        try:
            d = float(d)
        except (TypeError, ValueError):
            raise ValueError(f"task {ptg.labels[v]!r}: data == {d!r}, must be a number of elements >= 0") from None
        if not (np.isfinite(d) and d >= 0):
            raise ValueError(f"task {ptg.labels[v]!r}: data == {d!r}, must be a number of elements >= 0")
        out[v] = 8.0 * d
    return out


def check_platform(platform: object) -> MultiCluster:
    if not isinstance(platform, MultiCluster):
        raise TypeError(f"platform == {platform!r}, must be a clustersched.platform.MultiCluster")
    return platform


def problem(ptg: PTG, platform: MultiCluster) -> Any:
    """The Rust object for ``ptg`` on ``platform`` (converted once; internal)."""
    if not isinstance(ptg, PTG):
        raise TypeError(f"ptg == {ptg!r}, must be a clustersched PTG")
    platform = check_platform(platform)
    net = platform.network
    network = None
    if net is not None:
        network = (np.array(net.link_bw), np.array(net.link_lat), net.uplink_bw, net.uplink_lat,
                   net.backbone_bw, net.backbone_lat)
    return _core.MultiClusterPtg(
        ptg.work, ptg.alpha, ptg.succ_offsets, ptg.succ,
        np.array(platform.procs, dtype=np.int64), np.array(platform.speeds, dtype=np.float64),
        network, task_bytes(ptg) if net is not None else None,
    )


def _alloc(ptg: PTG, alloc: Any) -> np.ndarray:
    a = np.ascontiguousarray(alloc, dtype=np.int64)
    if a.shape != (len(ptg),):
        raise ValueError(f"alloc has shape {a.shape}, must be ({len(ptg)},) (one count per task)")
    if len(a) and a.min() < 1:
        v = int(np.argmin(a))
        raise ValueError(f"alloc[{v}] == {a[v]}, must be >= 1")
    return a


def translate(ptg: PTG, platform: MultiCluster, alloc: Any) -> np.ndarray:
    """``f(alloc[v], v, k)`` for every task ``v`` (rows) and cluster ``k`` (columns) (module docstring).

    Examples
    --------
    >>> import networkx as nx
    >>> from clustersched.platform import Cluster
    >>> g = nx.DiGraph(); g.add_node("t", work=1e10)
    >>> p = MultiCluster("p", (Cluster("slow", 10, 1e9), Cluster("fast", 4, 2.5e9)))
    >>> translate(PTG.from_networkx(g), p, [6]).tolist()   # 10/6 s: 6 slow or 3 fast (4/3 s)
    [[6, 3]]
    """
    a = _alloc(ptg, alloc)
    return problem(ptg, platform).translate(a).reshape(len(ptg), len(platform))


def reference_caps(ptg: PTG, platform: MultiCluster) -> np.ndarray:
    """Per task, the reference allocation at which its critical path saturates (module docstring)."""
    return problem(ptg, platform).caps()


@dataclass(frozen=True, eq=False)
class ClusterSchedule:
    """A schedule of one PTG on a :class:`~clustersched.platform.MultiCluster` (numpy columns).

    Row ``k`` runs task ``task[k]`` on cluster ``cluster[k]`` over
    ``[start[k], end[k])`` on global processor ids
    ``proc_ids[proc_offsets[k]:proc_offsets[k+1]]`` (``procs[k]`` of them).
    ``alloc`` is the reference allocation the schedule was placed from (None
    for MHEFT-MAX); ``comms`` whether communications were modelled.
    """

    task: np.ndarray
    cluster: np.ndarray
    start: np.ndarray
    end: np.ndarray
    proc_offsets: np.ndarray
    proc_ids: np.ndarray
    platform: MultiCluster
    algorithm: str = ""
    alloc: np.ndarray | None = None
    comms: bool = False
    options: dict[str, Any] = field(default_factory=dict)

    @property
    def procs(self) -> np.ndarray:
        """Processors of each row."""
        return np.diff(self.proc_offsets)

    @property
    def makespan(self) -> float:
        return float(self.end.max()) if len(self.end) else 0.0

    def __len__(self) -> int:
        return len(self.task)

    def processors(self, row: int) -> np.ndarray:
        return self.proc_ids[self.proc_offsets[row]:self.proc_offsets[row + 1]]

    def rows(self) -> list[tuple[int, int, float, float, list[int]]]:
        """``(task, cluster, start, end, processor ids)`` per row."""
        return [(int(self.task[k]), int(self.cluster[k]), float(self.start[k]), float(self.end[k]),
                 self.processors(k).tolist()) for k in range(len(self))]

    def columns(self) -> tuple[np.ndarray, ...]:
        """The kernel's columns (task, cluster, start, end, proc_offsets, proc_ids)."""
        return (self.task, self.cluster, self.start, self.end, self.proc_offsets, self.proc_ids)


def _schedule(cols: tuple[np.ndarray, ...], platform: MultiCluster, algorithm: str, alloc: np.ndarray | None,
              comms: bool, options: dict[str, Any] | None = None) -> ClusterSchedule:
    task, cluster, start, end, offsets, ids = cols
    return ClusterSchedule(task, cluster, start, end, offsets, ids, platform, algorithm,
                           None if alloc is None else alloc.copy(), comms, dict(options or {}))


def _comms(platform: MultiCluster, comms: bool) -> bool:
    if not isinstance(comms, bool):
        raise TypeError(f"comms == {comms!r}, must be a bool")
    return comms and platform.network is not None


def place_reference(ptg: PTG, platform: MultiCluster, alloc: Any, *, comms: bool = True,
                    algorithm: str = "list", core: Any = None) -> ClusterSchedule:
    """List-schedules ``ptg`` with reference allocation ``alloc`` on ``platform`` (module docstring).

    Parameters
    ----------
    alloc : int array
        Reference processors per task, each in ``1..platform.ref_procs`` and
        hostable by some cluster.
    comms : bool, default True
        Model communications (when the platform has a network).

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
    a = _alloc(ptg, alloc)
    on = _comms(check_platform(platform), comms)
    core = core or problem(ptg, platform)
    return _schedule(core.place(a, on), platform, algorithm, a, on)


def mheft_max(ptg: PTG, platform: MultiCluster, fraction: float, *, comms: bool = True,
              core: Any = None) -> ClusterSchedule:
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
    on = _comms(check_platform(platform), comms)
    core = core or problem(ptg, platform)
    return _schedule(core.mheft_max(f, on), platform, "MHEFT-MAX", None, on, {"fraction": f})
