"""The model of one PTG on a heterogeneous multi-cluster platform: data, translation, caps (PDCS 2007).

N'takpé & Suter, *Self-Constrained Resource Allocation Procedures for PTG
scheduling on shared grids* (PDCS 2007), schedule one PTG on a
:class:`~clustersched.platform.MultiCluster` in two steps: an allocation on
HCPA's *reference cluster* (:mod:`clustersched.scrap.allocation`: SCRAP,
SCRAP-MAX, HCPA), then its placement by list scheduling
(:mod:`clustersched.scrap.placement`).  This module holds what both steps
read (Rust kernels, ``rust/core/src/scrap/platform.rs``; slow references in
``tests/reference/scrap.py``):

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

Data (:func:`task_bytes`)
    A task sends ``8 * data`` bytes (its ``data`` node attribute: the
    ``n`` double-precision elements of §4, set by the generators of
    :mod:`clustersched.workload.ptg_generators`; 0 when absent) to each
    successor.  Edges into or out of a zero-work (structural) task carry
    nothing.  ``comms=False``, or a platform without a network, makes every
    transfer free.

:func:`problem` converts a ``(ptg, platform)`` pair once into the Rust object
every kernel of the package runs on (pass it as ``core=`` to reuse it).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import _core
from ..errors import InvalidWorkloadError
from ..platform import MultiCluster
from ..workload.ptg import PTG

__all__ = ["problem", "reference_caps", "task_bytes", "translate"]


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
    """``platform`` if it is a :class:`~clustersched.platform.MultiCluster`, else TypeError."""
    if not isinstance(platform, MultiCluster):
        raise TypeError(f"platform == {platform!r}, must be a clustersched.platform.MultiCluster")
    return platform


def problem(ptg: PTG, platform: MultiCluster) -> Any:
    """The Rust object of ``ptg`` on ``platform``, converted once: the ``core=`` argument of this package's functions."""
    if not isinstance(ptg, PTG):
        raise TypeError(f"ptg == {ptg!r}, must be a clustersched PTG")
    if len(ptg) == 0:  # PTG.from_networkx refuses it already; a hand-built one reaches here
        raise InvalidWorkloadError(f"{f'PTG {ptg.name!r}: ' if ptg.name else ''}the graph has no tasks")
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


def check_alloc(ptg: PTG, alloc: Any) -> np.ndarray:
    """``alloc`` as one int64 count ``>= 1`` per task of ``ptg``, else ValueError naming the entry."""
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
    a = check_alloc(ptg, alloc)
    return problem(ptg, platform).translate(a).reshape(len(ptg), len(platform))


def reference_caps(ptg: PTG, platform: MultiCluster) -> np.ndarray:
    """Per task, the reference allocation at which its critical path saturates (module docstring)."""
    return problem(ptg, platform).caps()
