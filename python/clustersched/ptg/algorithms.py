"""The registry of multi-PTG algorithms, by the names RR-7224 gives them, and a timed runner.

Every algorithm is a function ``(ptgs, cluster, *, seed=0, rule="sqrt") -> TaskSchedule``:
all PTGs released at time 0, the result compacted by backfilling, the seed
(an int ``>= 0`` or a ``numpy.random.Generator``) breaking ties, ``rule``
HCPA's stopping rule.  The options are keyword-only (docs/layout.md, "One
convention across the five problems").
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable, Sequence

from .._checks import lookup
from .._contract import Registry, Seed, check_seed, validate_default
from ..platform import Cluster
from ..workload.ptg import PTG
from ._batch import check_ptgs
from .cafm import cafm_cra, cafm_cra_weight, cafm_k_shelves, cafm_lptf, cafm_saf, cafm_sptf
from .cra import cra_ndags, cra_ndags_weight, cra_width, cra_width_weight, cra_work, cra_work_weight
from .hcpa import hcpa_cmax_star
from .metrics import PTGMetrics, ptg_metrics
from .schedule import TaskSchedule
from .selfish import selfish, selfish_order, selfish_weight
from .validate import validate_ptgs
from .zhao import c1, c4, f1, f2

if TYPE_CHECKING:
    import pandas

__all__ = ["ALGORITHMS", "PTGRun", "algorithm", "evaluate", "run"]

#: A multi-PTG scheduler: ``(ptgs, cluster, *, seed, rule)``.
Algorithm = Callable[..., TaskSchedule]

#: The 19 algorithms of RR-7224 §4.1-4.4, by the paper's names (a :class:`~clustersched._contract.Registry`).
ALGORITHMS: Registry[Algorithm] = Registry(
    "algorithm",
    {
        "SELFISH": selfish,
        "SELFISH_ORDER": selfish_order,
        "SELFISH_WEIGHT": selfish_weight,
        "C1": c1,
        "C4": c4,
        "F1": f1,
        "F2": f2,
        "CRA_NDAGS": cra_ndags,
        "CRA_NDAGS_WEIGHT": cra_ndags_weight,
        "CRA_WORK": cra_work,
        "CRA_WORK_WEIGHT": cra_work_weight,
        "CRA_WIDTH": cra_width,
        "CRA_WIDTH_WEIGHT": cra_width_weight,
        "CAFM_CRA": cafm_cra,
        "CAFM_CRA_WEIGHT": cafm_cra_weight,
        "CAFM_SAF": cafm_saf,
        "CAFM_SPTF": cafm_sptf,
        "CAFM_LPTF": cafm_lptf,
        "CAFM_K_SHELVES": cafm_k_shelves,
    },
)


def algorithm(name: str) -> Algorithm:
    """The algorithm called ``name``: exactly, else ignoring case with ``-`` and ``_`` alike.

    ValueError listing the names otherwise (:func:`clustersched._checks.lookup`).

    Examples
    --------
    >>> algorithm("selfish-order").__name__
    'selfish_order'
    >>> algorithm("nope")
    Traceback (most recent call last):
    ...
    ValueError: algorithm == 'nope', must be one of 'SELFISH', 'SELFISH_ORDER', 'SELFISH_WEIGHT', 'C1', 'C4', 'F1',
    'F2', 'CRA_NDAGS', 'CRA_NDAGS_WEIGHT', 'CRA_WORK', 'CRA_WORK_WEIGHT', 'CRA_WIDTH', 'CRA_WIDTH_WEIGHT', 'CAFM_CRA',
    'CAFM_CRA_WEIGHT', 'CAFM_SAF', 'CAFM_SPTF', 'CAFM_LPTF', 'CAFM_K_SHELVES'
    """
    return ALGORITHMS[lookup("algorithm", name, ALGORITHMS)]


def evaluate(schedule: TaskSchedule, ptgs: Sequence[PTG], cluster: Cluster, *, rule: str = "sqrt") -> PTGMetrics:
    """The §3.2 / §5.2.6 metrics of ``schedule``, with each ``C*_max`` by HCPA (``rule``) alone on ``cluster``."""
    return ptg_metrics(schedule, hcpa_cmax_star(ptgs, cluster, rule=rule).tolist())


@dataclass(frozen=True)
class PTGRun:
    """One algorithm on one scenario: the schedule, its metrics and the scheduling time."""

    #: The algorithm's canonical name (a key of :data:`ALGORITHMS`).
    algorithm: str
    schedule: TaskSchedule
    metrics: PTGMetrics
    #: Wall-clock seconds of the algorithm alone (metrics and validation excluded).
    seconds: float

    def summary(self) -> dict[str, Any]:
        """Algorithm, the metrics' aggregates and time as a flat dict (JSON / DataFrame ready)."""
        return {"algorithm": self.algorithm, **self.metrics.summary(), "seconds": self.seconds}

    def to_pandas(self) -> "pandas.DataFrame":
        """:meth:`summary` as a one-row DataFrame, names with units (``wall_s`` is ``seconds``, the algorithm's
        wall-clock time).

        Concatenate runs with ``pandas.concat([r.to_pandas() for r in runs], ignore_index=True)``; the
        schedule's rows are ``run.schedule.to_pandas()``.  pandas is optional: ``pip install
        "clustersched[pandas]"``.
        """
        from .._pandas import summary_frame

        return summary_frame(self.summary())


def run(
    workload: Sequence[PTG],
    platform: Cluster,
    algorithm: str,
    *,
    seed: Seed = None,
    validate: bool | None = None,
    rule: str = "sqrt",
) -> PTGRun:
    """Runs ``algorithm`` on the PTGs of ``workload`` on ``platform``, times it, optionally validates the
    schedule, and measures it (the problem contract's entry point, :mod:`clustersched._contract`).

    Parameters
    ----------
    workload : sequence of PTG
        All released at time 0.
    platform : Cluster
    algorithm : str
        A name of :data:`ALGORITHMS`, in any spelling :func:`algorithm` reads.
    seed : int or numpy.random.Generator, optional
        Breaks the algorithms' ties; None is seed 0 (the same schedule every time).
    validate : bool, optional
        Check the schedule with :func:`~clustersched.ptg.validate.validate_ptgs`; default: the
        ``CLUSTERSCHED_VALIDATE`` environment variable (:func:`clustersched._contract.validate_default`).
    rule : str
        HCPA's stopping rule (:func:`clustersched.ptg.hcpa_allocation`), used by the algorithm and for the
        ``C*_max`` of the stretches alike.

    Raises
    ------
    ValueError
        ``algorithm`` is not a name of :data:`ALGORITHMS`.
    InvalidWorkloadError
        ``workload`` is empty.

    Examples
    --------
    >>> from clustersched.platform import cluster
    >>> from clustersched.workload.ptg_generators import ptg_population
    >>> r = run(ptg_population("random", 4, seed=0), cluster("grelon"), "SELFISH_ORDER", seed=1)
    >>> r.algorithm, len(r.schedule), r.metrics.max_stretch >= r.metrics.average_stretch
    ('SELFISH_ORDER', 86, True)
    >>> sorted(r.summary())
    ['algorithm', 'average_stretch', 'makespan', 'max_stretch', 'peak_utilization', 'ptgs', 'seconds', 'utilization']
    """
    canonical = lookup("algorithm", algorithm, ALGORITHMS)
    check = validate_default(validate)
    seed = check_seed(seed)
    ptgs = check_ptgs(workload)
    began = time.perf_counter()
    schedule = ALGORITHMS[canonical](ptgs, platform, seed=0 if seed is None else seed, rule=rule)
    seconds = time.perf_counter() - began
    if check:
        validate_ptgs(schedule, ptgs, platform)
    return PTGRun(canonical, schedule, evaluate(schedule, ptgs, platform, rule=rule), seconds)
