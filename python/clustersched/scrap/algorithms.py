"""SCRAP and SCRAP-MAX: self-constrained allocation of one PTG on a shared heterogeneous platform.

N'takpé & Suter, *Self-Constrained Resource Allocation Procedures for PTG
scheduling on shared grids*, PDCS 2007 (``shared/papers/003_*``).  A PTG may
use only a fraction ``β`` (``0 < β <= 1``) of the processing power of a
:class:`~clustersched.platform.MultiCluster`.  Allocations are computed on
HCPA's *reference cluster* (``P_ref`` processors of the slowest speed
``s_ref``, equivalent to the platform), then placed by list scheduling
(:func:`clustersched.scrap.placement.place_reference`).

The algorithms of :data:`SCRAP_ALGORITHMS`, by the paper's names:

SCRAP, SCRAP-MAX (Algorithms 1 and 2), HCPA (the baseline)
    A reference allocation (:mod:`clustersched.scrap.allocation`:
    :func:`~clustersched.scrap.allocation.scrap_allocation` under ``β``, or
    :func:`~clustersched.scrap.allocation.hcpa_reference_allocation`, where
    ``β`` plays no part), placed by
    :func:`clustersched.scrap.placement.place_reference`.
MHEFT-MAX (the other baseline)
    :func:`clustersched.scrap.placement.mheft_max` with ``fraction = β``
    (§4: "MHEFT-MAX-0.2 ... use more than 20% of the available processing
    power").

:func:`run_scrap` runs one of the four names of :data:`SCRAP_ALGORITHMS` and
measures the schedule (:mod:`clustersched.scrap.metrics`).

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

from .._checks import check_choice
from ..platform import MultiCluster
from ..workload.ptg import PTG
from .allocation import check_beta, hcpa_reference_allocation, scrap_allocation
from .metrics import MultiClusterMetrics, multicluster_metrics
from .model import check_platform, problem
from .placement import mheft_max, place_reference
from .schedule import ClusterSchedule

__all__ = ["SCRAP_ALGORITHMS", "ScrapRun", "run_scrap"]

#: The allocation procedures of PDCS 2007 and its two baselines, by the paper's names.
SCRAP_ALGORITHMS = ("SCRAP", "SCRAP-MAX", "HCPA", "MHEFT-MAX")


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
    b = check_beta(beta)
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
