"""One PTG on a heterogeneous multi-cluster platform under a power constraint (N'takpé & Suter, PDCS 2007).

A PTG may use only a fraction ``β`` of the processing power of a
:class:`~clustersched.platform.MultiCluster`.  SCRAP and SCRAP-MAX allocate
its tasks on HCPA's *reference cluster* under that constraint, HCPA without
it, and a list scheduler places the allocation on the clusters; MHEFT-MAX
allocates and places in one pass.  One module per role:

``model.py``
    What every step reads: the data a task sends (:func:`task_bytes`), the
    translation of reference allocations to each cluster (:func:`translate`),
    the per-task caps of a saturated critical path (:func:`reference_caps`),
    :func:`problem`, the Rust object of one ``(ptg, platform)`` pair (the
    ``core=`` argument, to reuse across runs; refused for another pair), and
    the limits every run is checked against before any work
    (:data:`MAX_PROCS`, :data:`MAX_POWER`, :data:`MAX_REF_PROCS`, :data:`MAX_SIZE`,
    :data:`MAX_SECONDS`).
``allocation.py``
    The allocation step (§3): :func:`scrap_allocation` (SCRAP, SCRAP-MAX,
    Algorithms 1 and 2), :func:`hcpa_reference_allocation`, and
    :func:`beta_estimate` (``β'``).
``placement.py``
    The placement step: :func:`place_reference` (list scheduling of a
    reference allocation over the clusters, with transfers), and the other
    baseline :func:`mheft_max` (§2).
``algorithms.py``
    The four algorithms by the paper's names, in its order, in
    :data:`ALGORITHMS` (:func:`algorithm` reads any spelling, ``"scrap-max"``, ``"SCRAP_MAX"``), and
    :func:`run`, one timed and measured run (:class:`ScrapRun`, with
    ``summary()``).
``schedule.py``
    :class:`ClusterSchedule`, the schedule every algorithm returns (numpy
    columns).
``validate.py``
    :func:`validate_multicluster` / :func:`multicluster_violations`: an
    independent check of any schedule.
``metrics.py``
    :func:`multicluster_metrics` (:class:`MultiClusterMetrics`: makespan,
    energy, average and peak power fractions, §4), :func:`deviation_above`,
    :func:`slowdown`.
``cli.py``
    ``clustersched scrap``.

The Rust kernels are in ``rust/core/src/scrap/``; the study of §4 is
:mod:`clustersched.reproduce.scrap`.

Example
-------
>>> from clustersched.platform import random_multicluster
>>> from clustersched.scrap import run, validate_multicluster
>>> from clustersched.workload.ptg_generators import random_ptg
>>> ptg = random_ptg(20, fat=0.5, regularity=0.8, density=0.5, jump=2, seed=4)
>>> platform = random_multicluster(4, 0.5, 2.0, seed=4)
>>> r = run(ptg, platform, "SCRAP-MAX", beta=0.3)
>>> validate_multicluster(r.schedule, ptg)
>>> r.beta_estimate <= 0.3 or r.initial_violation
True
"""

from typing import TYPE_CHECKING

from .._lazy import lazy_exports

__all__ = [
    "ALGORITHMS",
    "ClusterSchedule",
    "DEFAULT_TRANSLATION",
    "MAX_POWER",
    "MAX_PROCS",
    "MAX_REF_PROCS",
    "MAX_SECONDS",
    "MAX_SIZE",
    "MultiClusterMetrics",
    "ScrapProblem",
    "ScrapRun",
    "TRANSLATIONS",
    "algorithm",
    "beta_estimate",
    "deviation_above",
    "hcpa_reference_allocation",
    "hcpa_reference_schedule",
    "mheft_max",
    "mheft_max_schedule",
    "multicluster_metrics",
    "multicluster_violations",
    "place_reference",
    "problem",
    "reference_caps",
    "run",
    "scrap_allocation",
    "scrap_max_schedule",
    "scrap_schedule",
    "slowdown",
    "task_bytes",
    "translate",
    "validate_multicluster",
]

# Imported on first use (see clustersched._lazy): the kernels pull in numpy.
__getattr__, __dir__ = lazy_exports(
    __name__,
    {
        "ALGORITHMS": ".algorithms",
        "ScrapRun": ".algorithms",
        "algorithm": ".algorithms",
        "hcpa_reference_schedule": ".algorithms",
        "mheft_max_schedule": ".algorithms",
        "run": ".algorithms",
        "scrap_max_schedule": ".algorithms",
        "scrap_schedule": ".algorithms",
        "beta_estimate": ".allocation",
        "hcpa_reference_allocation": ".allocation",
        "scrap_allocation": ".allocation",
        "MultiClusterMetrics": ".metrics",
        "deviation_above": ".metrics",
        "multicluster_metrics": ".metrics",
        "slowdown": ".metrics",
        "DEFAULT_TRANSLATION": ".model",
        "TRANSLATIONS": ".model",
        "MAX_POWER": ".model",
        "MAX_PROCS": ".model",
        "MAX_REF_PROCS": ".model",
        "MAX_SECONDS": ".model",
        "MAX_SIZE": ".model",
        "ScrapProblem": ".model",
        "problem": ".model",
        "reference_caps": ".model",
        "task_bytes": ".model",
        "translate": ".model",
        "mheft_max": ".placement",
        "place_reference": ".placement",
        "ClusterSchedule": ".schedule",
        "multicluster_violations": ".validate",
        "validate_multicluster": ".validate",
    },
    public=__all__,
)

if TYPE_CHECKING:
    from .algorithms import (
        ALGORITHMS,
        ScrapRun,
        algorithm,
        hcpa_reference_schedule,
        mheft_max_schedule,
        run,
        scrap_max_schedule,
        scrap_schedule,
    )
    from .allocation import beta_estimate, hcpa_reference_allocation, scrap_allocation
    from .metrics import MultiClusterMetrics, deviation_above, multicluster_metrics, slowdown
    from .model import (
        DEFAULT_TRANSLATION,
        MAX_POWER,
        MAX_PROCS,
        MAX_REF_PROCS,
        MAX_SECONDS,
        MAX_SIZE,
        TRANSLATIONS,
        ScrapProblem,
        problem,
        reference_caps,
        task_bytes,
        translate,
    )
    from .placement import mheft_max, place_reference
    from .schedule import ClusterSchedule
    from .validate import multicluster_violations, validate_multicluster
