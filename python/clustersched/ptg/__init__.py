"""Offline scheduling of several parallel task graphs (PTGs) on one cluster (RR-7224).

Building blocks (Rust kernels, identical to the slow references in
``tests/reference/ptg.py``): :func:`hcpa_allocation`, :func:`bottom_levels`,
:func:`hcpa_schedule` / :func:`hcpa_cmax_star` (each PTG alone),
:func:`list_schedule`, :func:`backfill`; for the CAFM family (§4.4)
:func:`moldable_profile` / :func:`moldable_profiles` (cached),
:func:`dutot_allocation` and :func:`k_shelves`.

Algorithms, each ``(ptgs, cluster, seed) -> TaskSchedule``, registered by
their paper names in :data:`ALGORITHMS`: SELFISH, SELFISH_ORDER,
SELFISH_WEIGHT (§4.1); C1, C4, F1, F2 (§4.2); CRA_NDAGS, CRA_WORK, CRA_WIDTH
and their _WEIGHT variants (§4.3).  :func:`run` times one and
measures it (:func:`evaluate`); :func:`validate_ptgs` checks any schedule.

Every function checks its cluster against the limits of this package before
any work (far beyond RR-7224's clusters of at most 216 processors):
:data:`MAX_PROCS` (``2**16``) processors, :data:`MAX_SIZE` (``2**28``) for
``(tasks + edges of all PTGs) * procs``, :data:`MAX_SECONDS` (``1e300``)
for all tasks on one processor each, one after the other, and
:data:`MIN_SECONDS` (``1e-300``) for each PTG's longest task on all the
processors (so that ``C*_max > 0``).

One PTG on a heterogeneous multi-cluster platform (N'takpé & Suter, PDCS
2007: SCRAP, SCRAP-MAX, MHEFT-MAX) is its own problem, :mod:`clustersched.scrap`.

Example
-------
>>> from clustersched.platform import cluster
>>> from clustersched.ptg import ALGORITHMS, evaluate, validate_ptgs
>>> from clustersched.workload.ptg_generators import ptg_population
>>> ptgs = ptg_population("random", 4, seed=3)
>>> s = ALGORITHMS["CRA_WORK_WEIGHT"](ptgs, cluster("grelon"), seed=0)
>>> validate_ptgs(s, ptgs, cluster("grelon"))
>>> m = evaluate(s, ptgs, cluster("grelon"))
>>> 0.0 < m.utilization <= 1.0
True
"""

from typing import TYPE_CHECKING

from .._lazy import lazy_exports

__all__ = [
    "ALGORITHMS",
    "CRA_STRATEGIES",
    "DutotAllocation",
    "KShelves",
    "MAX_PROCS",
    "MAX_SECONDS",
    "MAX_SIZE",
    "MIN_SECONDS",
    "PROFILE_CACHE",
    "ProfileCache",
    "HCPA_RULES",
    "PTGMetrics",
    "PTGRun",
    "READINESS",
    "TaskSchedule",
    "algorithm",
    "backfill",
    "bottom_levels",
    "c1",
    "c4",
    "cafm_cra",
    "cafm_cra_weight",
    "cafm_k_shelves",
    "cafm_lptf",
    "cafm_saf",
    "cafm_sptf",
    "list_schedule_boxes",
    "cmax_star",
    "cra_budgets",
    "cra_ndags",
    "cra_ndags_weight",
    "cra_width",
    "cra_width_weight",
    "cra_work",
    "cra_work_weight",
    "dutot_allocation",
    "evaluate",
    "f1",
    "f2",
    "hcpa_allocation",
    "hcpa_cmax_star",
    "hcpa_schedule",
    "k_shelves",
    "list_schedule",
    "moldable_profile",
    "moldable_profiles",
    "ptg_metrics",
    "ptg_violations",
    "run",
    "selfish",
    "selfish_order",
    "selfish_weight",
    "validate_ptgs",
]

# Imported on first use (see clustersched._lazy): the algorithms pull in networkx.
__getattr__, __dir__ = lazy_exports(
    __name__,
    {
        "ALGORITHMS": ".algorithms",
        "PTGRun": ".algorithms",
        "algorithm": ".algorithms",
        "evaluate": ".algorithms",
        "run": ".algorithms",
        "cafm_cra": ".cafm",
        "cafm_cra_weight": ".cafm",
        "cafm_k_shelves": ".cafm",
        "cafm_lptf": ".cafm",
        "cafm_saf": ".cafm",
        "cafm_sptf": ".cafm",
        "list_schedule_boxes": ".cafm",
        "MAX_PROCS": "._batch",
        "MAX_SECONDS": "._batch",
        "MAX_SIZE": "._batch",
        "MIN_SECONDS": "._batch",
        "CRA_STRATEGIES": ".cra",
        "cra_budgets": ".cra",
        "cra_ndags": ".cra",
        "cra_ndags_weight": ".cra",
        "cra_width": ".cra",
        "cra_width_weight": ".cra",
        "cra_work": ".cra",
        "cra_work_weight": ".cra",
        "HCPA_RULES": ".hcpa",
        "bottom_levels": ".hcpa",
        "hcpa_allocation": ".hcpa",
        "hcpa_cmax_star": ".hcpa",
        "hcpa_schedule": ".hcpa",
        "DutotAllocation": ".moldable",
        "KShelves": ".moldable",
        "PROFILE_CACHE": ".moldable",
        "ProfileCache": ".moldable",
        "dutot_allocation": ".moldable",
        "k_shelves": ".moldable",
        "moldable_profile": ".moldable",
        "moldable_profiles": ".moldable",
        "READINESS": ".mapping",
        "backfill": ".mapping",
        "list_schedule": ".mapping",
        "PTGMetrics": ".metrics",
        "cmax_star": ".metrics",
        "ptg_metrics": ".metrics",
        "TaskSchedule": ".schedule",
        "selfish": ".selfish",
        "selfish_order": ".selfish",
        "selfish_weight": ".selfish",
        "ptg_violations": ".validate",
        "validate_ptgs": ".validate",
        "c1": ".zhao",
        "c4": ".zhao",
        "f1": ".zhao",
        "f2": ".zhao",
    },
    public=__all__,
)

if TYPE_CHECKING:
    from ._batch import MAX_PROCS, MAX_SECONDS, MAX_SIZE, MIN_SECONDS
    from .algorithms import ALGORITHMS, PTGRun, algorithm, evaluate, run
    from .cafm import (
        cafm_cra,
        cafm_cra_weight,
        cafm_k_shelves,
        cafm_lptf,
        cafm_saf,
        cafm_sptf,
        list_schedule_boxes,
    )
    from .cra import (
        CRA_STRATEGIES,
        cra_budgets,
        cra_ndags,
        cra_ndags_weight,
        cra_width,
        cra_width_weight,
        cra_work,
        cra_work_weight,
    )
    from .hcpa import HCPA_RULES, bottom_levels, hcpa_allocation, hcpa_cmax_star, hcpa_schedule
    from .mapping import READINESS, backfill, list_schedule
    from .metrics import PTGMetrics, cmax_star, ptg_metrics
    from .moldable import (
        PROFILE_CACHE,
        DutotAllocation,
        KShelves,
        ProfileCache,
        dutot_allocation,
        k_shelves,
        moldable_profile,
        moldable_profiles,
    )
    from .schedule import TaskSchedule
    from .selfish import selfish, selfish_order, selfish_weight
    from .validate import ptg_violations, validate_ptgs
    from .zhao import c1, c4, f1, f2
