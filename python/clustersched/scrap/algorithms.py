"""The algorithms of PDCS 2007 by name (SCRAP, SCRAP-MAX, HCPA, MHEFT-MAX), and one measured run.

N'takpé & Suter, *Self-Constrained Resource Allocation Procedures for PTG
scheduling on shared grids*, PDCS 2007 (``shared/papers/003_*``).  A PTG may
use only a fraction ``β`` (``0 < β <= 1``) of the processing power of a
:class:`~clustersched.platform.MultiCluster`.  Allocations are computed on
HCPA's *reference cluster* (``P_ref`` processors of the slowest speed
``s_ref``, equivalent to the platform), then placed by list scheduling
(:func:`clustersched.scrap.placement.place_reference`).

:data:`ALGORITHMS` holds them by the paper's names, in its order, each a
function ``fn(ptg, platform, *, beta, comms=True, rule="sqrt",
translation="closest", core=None) -> ClusterSchedule`` (``beta`` is ignored
by HCPA, ``rule`` by all but HCPA, ``translation`` -- the reading of §3's
``f``, :data:`clustersched.scrap.model.TRANSLATIONS` -- by MHEFT-MAX, which
does not translate);
:func:`algorithm` finds one by any spelling of its name
(:func:`clustersched._checks.lookup`: ``"scrap-max"``, ``"SCRAP_MAX"``):

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

:func:`run` runs one of them, times it and measures the schedule
(:mod:`clustersched.scrap.metrics`): a :class:`ScrapRun`.

Example
-------
>>> from clustersched.platform import random_multicluster
>>> from clustersched.workload.ptg_generators import random_ptg
>>> ptg = random_ptg(20, fat=0.5, regularity=0.8, density=0.5, jump=2, seed=4)
>>> platform = random_multicluster(4, 0.5, 2.0, seed=4)
>>> r = run(ptg, platform, "SCRAP", beta=0.3)
>>> r.beta_estimate <= 0.3 or r.initial_violation
True
>>> from clustersched.validate import validate_multicluster
>>> validate_multicluster(r.schedule, ptg)
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable

import numpy as np

from .._checks import lookup
from .._contract import Registry, Seed, check_seed, validate_default
from ..platform import MultiCluster
from ..ptg.hcpa import check_rule
from ..workload.ptg import PTG
from .allocation import check_beta, hcpa_reference_allocation, scrap_allocation
from .metrics import MultiClusterMetrics, multicluster_metrics
from .model import DEFAULT_TRANSLATION, check_core, check_platform, check_translation
from .placement import check_comms, mheft_max, place_reference
from .schedule import ClusterSchedule
from .validate import validate_multicluster

if TYPE_CHECKING:
    import pandas

__all__ = [
    "ALGORITHMS",
    "ScrapRun",
    "algorithm",
    "hcpa_reference_schedule",
    "mheft_max_schedule",
    "run",
    "scrap_max_schedule",
    "scrap_schedule",
]

#: ``(ptg, platform, *, beta, comms, rule, translation, core) -> ClusterSchedule``.
Algorithm = Callable[..., ClusterSchedule]


def scrap_schedule(
    ptg: PTG,
    platform: MultiCluster,
    *,
    beta: float,
    comms: bool = True,
    rule: str = "sqrt",
    translation: str = DEFAULT_TRANSLATION,
    core: Any = None,
) -> ClusterSchedule:
    """SCRAP (Algorithm 1): :func:`~clustersched.scrap.allocation.scrap_allocation` under ``beta``, placed, both
    by ``translation``.

    ``rule`` is ignored (it is HCPA's).
    """
    core = check_core(core, ptg, platform)
    alloc = scrap_allocation(ptg, platform, beta, variant="SCRAP", translation=translation, core=core)
    return place_reference(ptg, platform, alloc, comms=comms, algorithm="SCRAP", translation=translation, core=core)


def scrap_max_schedule(
    ptg: PTG,
    platform: MultiCluster,
    *,
    beta: float,
    comms: bool = True,
    rule: str = "sqrt",
    translation: str = DEFAULT_TRANSLATION,
    core: Any = None,
) -> ClusterSchedule:
    """SCRAP-MAX (Algorithm 2): :func:`~clustersched.scrap.allocation.scrap_allocation` with the level bound,
    placed, both by ``translation``.

    ``rule`` is ignored (it is HCPA's).
    """
    core = check_core(core, ptg, platform)
    alloc = scrap_allocation(ptg, platform, beta, variant="SCRAP-MAX", translation=translation, core=core)
    return place_reference(ptg, platform, alloc, comms=comms, algorithm="SCRAP-MAX", translation=translation, core=core)


def hcpa_reference_schedule(
    ptg: PTG,
    platform: MultiCluster,
    *,
    beta: float | None = None,
    comms: bool = True,
    rule: str = "sqrt",
    translation: str = DEFAULT_TRANSLATION,
    core: Any = None,
) -> ClusterSchedule:
    """HCPA, the baseline: :func:`~clustersched.scrap.allocation.hcpa_reference_allocation` by ``rule``, placed,
    both by ``translation`` (the caps and the placement).

    ``beta`` plays no part.
    """
    core = check_core(core, ptg, platform)
    alloc = hcpa_reference_allocation(ptg, platform, rule=rule, translation=translation, core=core)
    return place_reference(ptg, platform, alloc, comms=comms, algorithm="HCPA", translation=translation, core=core)


def mheft_max_schedule(
    ptg: PTG,
    platform: MultiCluster,
    *,
    beta: float,
    comms: bool = True,
    rule: str = "sqrt",
    translation: str = DEFAULT_TRANSLATION,
    core: Any = None,
) -> ClusterSchedule:
    """MHEFT-MAX, the other baseline: :func:`~clustersched.scrap.placement.mheft_max` with ``fraction = beta``.

    ``rule`` is ignored (it is HCPA's), and ``translation`` (MHEFT-MAX does not translate).
    """
    return mheft_max(ptg, platform, beta, comms=comms, core=core)


#: The algorithms of PDCS 2007 (§3, and the two baselines of §2 and §4), by the paper's names
#: (a :class:`~clustersched._contract.Registry`).
ALGORITHMS: Registry[Algorithm] = Registry(
    "algorithm",
    {
        "SCRAP": scrap_schedule,
        "SCRAP-MAX": scrap_max_schedule,
        "HCPA": hcpa_reference_schedule,
        "MHEFT-MAX": mheft_max_schedule,
    },
)


def algorithm(name: str) -> Algorithm:
    """The algorithm called ``name`` (exact, else ignoring case with ``-`` and ``_`` alike); ValueError listing them.

    Examples
    --------
    >>> algorithm("scrap_max") is ALGORITHMS["SCRAP-MAX"]
    True
    >>> algorithm("CPA")
    Traceback (most recent call last):
    ...
    ValueError: algorithm == 'CPA', must be one of 'SCRAP', 'SCRAP-MAX', 'HCPA', 'MHEFT-MAX'
    """
    return ALGORITHMS[lookup("algorithm", name, ALGORITHMS)]


@dataclass(frozen=True)
class ScrapRun:
    """One run of :func:`run`.

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
        Wall-clock time of allocation + placement (validation and metrics excluded).
    """

    algorithm: str
    beta: float
    schedule: ClusterSchedule
    alloc: np.ndarray | None
    beta_estimate: float | None
    initial_violation: bool | None
    metrics: MultiClusterMetrics
    seconds: float

    def summary(self) -> dict[str, Any]:
        """The run as a flat dict (a JSON object, a DataFrame row).

        ``algorithm``, ``beta``, ``beta_estimate`` and ``initial_violation``
        (None for MHEFT-MAX; ``initial_violation`` None for HCPA too), the
        metrics' :meth:`~clustersched.scrap.metrics.MultiClusterMetrics.summary`,
        ``seconds``.
        """
        return {
            "algorithm": self.algorithm,
            "beta": self.beta,
            "beta_estimate": self.beta_estimate,
            "initial_violation": self.initial_violation,
            **self.metrics.summary(),
            "seconds": self.seconds,
        }

    def to_pandas(self) -> "pandas.DataFrame":
        """:meth:`summary` as a one-row DataFrame, names with units (``wall_s`` is ``seconds``, allocation and
        placement's wall-clock time).

        Concatenate runs with ``pandas.concat([r.to_pandas() for r in runs], ignore_index=True)``; the
        schedule's rows are ``run.schedule.to_pandas()``.  pandas is optional: ``pip install
        "clustersched[pandas]"``.
        """
        from .._pandas import summary_frame

        return summary_frame(self.summary())


def run(
    workload: PTG,
    platform: MultiCluster,
    algorithm: str,
    *,
    seed: Seed = None,
    validate: bool | None = None,
    beta: float,
    comms: bool = True,
    rule: str = "sqrt",
    translation: str = DEFAULT_TRANSLATION,
    core: Any = None,
) -> ScrapRun:
    """Allocates and places the PTG ``workload`` on ``platform`` by ``algorithm`` under ``beta``, and measures it
    (the problem contract's entry point, :mod:`clustersched._contract`).

    Parameters
    ----------
    workload : PTG
        The one PTG to schedule.
    platform : MultiCluster
    algorithm : {"SCRAP", "SCRAP-MAX", "HCPA", "MHEFT-MAX"}
        A name of :data:`ALGORITHMS`, in any spelling :func:`algorithm` reads.
    seed : int or numpy.random.Generator, optional
        Checked, and unused: the four algorithms make no random choice.
    validate : bool, optional
        Check the schedule with :func:`~clustersched.scrap.validate.validate_multicluster`; default: the
        ``CLUSTERSCHED_VALIDATE`` environment variable (:func:`clustersched._contract.validate_default`).
    beta : float
        In ``(0, 1]``, keyword-only like every option.
    comms : bool, default True
        Model communications (when the platform has a network).
    rule : str
        HCPA's stopping rule (HCPA only).
    translation : {"closest", "at-least-as-fast"}
        The reading of §3's translation ``f(p_ref, t, k)`` of reference allocations to clusters
        (:data:`clustersched.scrap.model.TRANSLATIONS`, whose docstring says why ``"closest"`` is the default):
        SCRAP, SCRAP-MAX and HCPA (their saturation caps and their placement); MHEFT-MAX does not translate.
        The schedule records it (``schedule.translation``).
    core : ScrapProblem, optional
        :func:`clustersched.scrap.model.problem` of this very ``(workload,
        platform)``, to convert them once for several runs; one built for
        another PTG or platform raises ValueError.

    Raises
    ------
    TypeError, ValueError
        A bad argument (house style: ``"beta == 0, must be > 0"``), a
        ``core`` of another pair, a platform beyond
        :data:`~clustersched.scrap.model.MAX_PROCS` or
        :data:`~clustersched.scrap.model.MAX_REF_PROCS`.
    InvalidWorkloadError
        An empty PTG, or one beyond the limits of
        :mod:`clustersched.scrap.model` on this platform.
    """
    ptg = workload
    check = validate_default(validate)
    check_seed(seed)
    name = lookup("algorithm", algorithm, ALGORITHMS)
    b = check_beta(beta)
    check_comms(check_platform(platform), comms)
    check_rule(rule)  # HCPA's, ignored by the others but checked for all
    tr = check_translation(translation)  # ignored by MHEFT-MAX but checked for all
    core = check_core(core, ptg, platform)
    t0 = time.perf_counter()
    schedule = ALGORITHMS[name](ptg, platform, beta=b, comms=comms, rule=rule, translation=tr, core=core)
    seconds = time.perf_counter() - t0
    alloc = schedule.alloc  # the reference allocation (None for MHEFT-MAX)
    estimate = None
    initial = None
    if alloc is not None:
        estimate = float(core.beta_estimate(alloc))
        if name != "HCPA":
            initial = bool(float(core.beta_estimate(np.ones(len(ptg), dtype=np.int64))) >= b)
    if check:
        validate_multicluster(schedule, ptg, core=core)
    return ScrapRun(name, b, schedule, alloc, estimate, initial, multicluster_metrics(schedule), seconds)
