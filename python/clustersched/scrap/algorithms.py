"""SCRAP and SCRAP-MAX: self-constrained allocation of one PTG on a shared heterogeneous platform.

N'takpé & Suter, *Self-Constrained Resource Allocation Procedures for PTG
scheduling on shared grids*, PDCS 2007 (``shared/papers/003_*``).  A PTG may
use only a fraction ``β`` (``0 < β <= 1``) of the processing power of a
:class:`~clustersched.platform.MultiCluster`.  Allocations are computed on
HCPA's *reference cluster* (``P_ref`` processors of the slowest speed
``s_ref``, equivalent to the platform), then placed by list scheduling
(:func:`clustersched.ptg.multicluster.place_reference`).

All three allocation procedures are the *same loop* -- the HCPA/CPA loop of
:func:`clustersched.ptg.hcpa_allocation` (Rust ``allocation_loop``) -- with
different stopping conditions:

SCRAP (Algorithm 1)
    Every task starts on one reference processor.  While ``β' < β`` and the
    critical path is not saturated, the critical-path task of largest benefit
    ``T_ref(t, p)/p - T_ref(t, p+1)/(p+1)`` (ties: lowest index; benefit
    ``> 0``) among those some cluster can still grow
    (``∃ C_k: f(p_ref(t), t, k) < P_k``, and ``p_ref(t) < P_ref``) gets one
    more.  ``β' = (ω* / T_CP) / (platform power)``, ``ω* = Σ T_ref(t, p) p
    s_ref`` and ``T_CP`` the critical path on the reference cluster.  The
    addition that makes ``β'`` *exceed* ``β`` is cancelled; if ``β' >= β``
    for the initial allocation, nothing grows (an *initial violation*).
    Evaluated as the loop's criterion ``T_CP > area / (β P_ref)`` with
    ``P_ref = platform.ref_power`` (the platform's power over ``s_ref``).
SCRAP-MAX (Algorithm 2)
    As SCRAP; a task is a candidate only while the reference processors of
    its precedence level (entry at level 0; a task one below its deepest
    predecessor) sum to less than ``β · P_ref`` (``plev_Alloc(t) s_ref <
    β P_ref s_ref``, the sum before the addition, as the CRA algorithms).
HCPA (the baseline)
    The loop on the reference cluster of ``platform.ref_procs`` processors
    with HCPA's own criterion ``T_CP > area / D`` (``rule``: ``"sqrt"``
    default, ``"cpa"``; see ``docs/hcpa.md``) and the same saturation caps;
    ``β`` plays no part.
MHEFT-MAX (the other baseline)
    :func:`clustersched.ptg.multicluster.mheft_max` with ``fraction = β``
    (§4: "MHEFT-MAX-0.2 ... use more than 20% of the available processing
    power").

:func:`run_scrap` runs one of the four names of :data:`SCRAP_ALGORITHMS` and
measures the schedule (:mod:`clustersched.ptg.metrics_multicluster`).

Example
-------
>>> from clustersched.platform import random_multicluster
>>> from clustersched.workload.ptg_generators import random_ptg
>>> ptg = random_ptg(20, fat=0.5, regularity=0.8, density=0.5, jump=2, seed=4)
>>> platform = random_multicluster(4, 0.5, 2.0, seed=4)
>>> run = run_scrap("SCRAP", ptg, platform, beta=0.3)
>>> run.beta_estimate <= 0.3 or run.initial_violation
True
>>> from clustersched.validate import validate_multicluster
>>> validate_multicluster(run.schedule, ptg)
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

import numpy as np

from .._checks import check_choice, check_float
from ..platform import MultiCluster
from ..workload.ptg import PTG
from ..ptg.hcpa import check_rule
from .metrics import MultiClusterMetrics, multicluster_metrics
from .model import ClusterSchedule, check_platform, mheft_max, place_reference, problem

__all__ = [
    "SCRAP_ALGORITHMS",
    "ScrapRun",
    "beta_estimate",
    "hcpa_reference_allocation",
    "run_scrap",
    "scrap_allocation",
]

#: The allocation procedures of PDCS 2007 and its two baselines, by the paper's names.
SCRAP_ALGORITHMS = ("SCRAP", "SCRAP-MAX", "HCPA", "MHEFT-MAX")


def _beta(beta: object) -> float:
    return check_float("beta", beta, positive=True, maximum=1.0)


def scrap_allocation(ptg: PTG, platform: MultiCluster, beta: float, *, variant: str = "SCRAP",
                     core: Any = None) -> np.ndarray:
    """Reference allocation of ``ptg`` by SCRAP or SCRAP-MAX under ``beta`` (module docstring).

    Parameters
    ----------
    variant : {"SCRAP", "SCRAP-MAX"}

    Examples
    --------
    >>> import networkx as nx
    >>> from clustersched.platform import Cluster
    >>> g = nx.DiGraph(); g.add_node("t", work=1e10)    # perfectly parallel: β' = p / P_ref
    >>> p = MultiCluster("p", (Cluster("a", 10, 1e9),))
    >>> scrap_allocation(PTG.from_networkx(g), p, 0.35).tolist()   # 4 would make β' = 0.4 > 0.35
    [3]
    """
    variant = check_choice("variant", variant, ("SCRAP", "SCRAP-MAX"))
    b = _beta(beta)
    return (core or problem(ptg, platform)).scrap_allocation(b, variant)


def hcpa_reference_allocation(ptg: PTG, platform: MultiCluster, *, rule: str = "sqrt",
                              core: Any = None) -> np.ndarray:
    """HCPA's allocation of ``ptg`` on the reference cluster of ``platform`` (module docstring).

    On a one-cluster platform this is :func:`clustersched.ptg.hcpa_allocation`.

    Examples
    --------
    >>> import networkx as nx
    >>> from clustersched.platform import Cluster
    >>> from clustersched.ptg import hcpa_allocation
    >>> g = nx.DiGraph([("a", "b"), ("a", "c"), ("b", "d"), ("c", "d")])
    >>> nx.set_node_attributes(g, {"a": 1.0, "b": 8.0, "c": 2.0, "d": 1.0}, "work")
    >>> ptg = PTG.from_networkx(g)
    >>> c = Cluster("c", 64, 1.0)
    >>> hcpa_reference_allocation(ptg, MultiCluster("one", (c,))).tolist() == hcpa_allocation(ptg, c).tolist()
    True
    """
    return (core or problem(ptg, platform)).hcpa_allocation(check_rule(rule))


def beta_estimate(ptg: PTG, platform: MultiCluster, alloc: Any, *, core: Any = None) -> float:
    """``β'`` of a reference allocation: ``area / (T_CP * P_ref)`` (module docstring).

    >>> import networkx as nx
    >>> from clustersched.platform import Cluster
    >>> g = nx.DiGraph(); g.add_node("t", work=1e10)
    >>> round(beta_estimate(PTG.from_networkx(g), MultiCluster("p", (Cluster("a", 10, 1e9),)), [3]), 12)
    0.3
    """
    a = np.ascontiguousarray(alloc, dtype=np.int64)
    return float((core or problem(ptg, platform)).beta_estimate(a))


@dataclass(frozen=True)
class ScrapRun:
    """One run of :func:`run_scrap`.

    Attributes
    ----------
    algorithm : str
    beta : float
        The constraint (MHEFT-MAX's fraction; HCPA ignores it).
    schedule : ClusterSchedule
    alloc : numpy.ndarray or None
        The reference allocation (None for MHEFT-MAX).
    beta_estimate : float or None
        ``β'`` of the allocation (None for MHEFT-MAX).
    initial_violation : bool or None
        SCRAP / SCRAP-MAX: ``β' >= β`` already for one processor per task.
    metrics : MultiClusterMetrics
    seconds : float
        Wall-clock time of allocation + placement.
    """

    algorithm: str
    beta: float
    schedule: ClusterSchedule
    alloc: np.ndarray | None
    beta_estimate: float | None
    initial_violation: bool | None
    metrics: MultiClusterMetrics
    seconds: float


def run_scrap(algorithm: str, ptg: PTG, platform: MultiCluster, beta: float, *, comms: bool = True,
              rule: str = "sqrt", core: Any = None) -> ScrapRun:
    """Allocates and places ``ptg`` on ``platform`` by ``algorithm`` under ``beta``, and measures it.

    Parameters
    ----------
    algorithm : {"SCRAP", "SCRAP-MAX", "HCPA", "MHEFT-MAX"}
        Case-insensitive.
    beta : float
        In ``(0, 1]``.
    comms : bool, default True
        Model communications (when the platform has a network).
    rule : str
        HCPA's stopping rule (HCPA only).
    core : optional
        The Rust problem object of ``(ptg, platform)``, to reuse across runs.
    """
    name = algorithm.upper() if isinstance(algorithm, str) else algorithm
    name = check_choice("algorithm", name, SCRAP_ALGORITHMS)
    b = _beta(beta)
    check_platform(platform)
    core = core or problem(ptg, platform)
    t0 = time.perf_counter()
    alloc = None
    estimate = None
    initial = None
    if name == "MHEFT-MAX":
        schedule = mheft_max(ptg, platform, b, comms=comms, core=core)
    else:
        if name == "HCPA":
            alloc = hcpa_reference_allocation(ptg, platform, rule=rule, core=core)
        else:
            alloc = scrap_allocation(ptg, platform, b, variant=name, core=core)
        schedule = place_reference(ptg, platform, alloc, comms=comms, algorithm=name, core=core)
    seconds = time.perf_counter() - t0
    if alloc is not None:
        estimate = float(core.beta_estimate(alloc))
        if name != "HCPA":
            initial = bool(float(core.beta_estimate(np.ones(len(ptg), dtype=np.int64))) >= b)
    return ScrapRun(name, b, schedule, alloc, estimate, initial, multicluster_metrics(schedule), seconds)
