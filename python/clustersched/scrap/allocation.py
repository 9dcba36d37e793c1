"""The allocation step of HCPA, SCRAP and SCRAP-MAX: reference processors per task (PDCS 2007 §3).

N'takpé & Suter, *Self-Constrained Resource Allocation Procedures for PTG
scheduling on shared grids*, PDCS 2007 (``shared/papers/003_*``).  Each
procedure gives every task of one PTG a number of processors of HCPA's
*reference cluster* (``P_ref`` processors of the slowest speed ``s_ref``,
equivalent to the :class:`~clustersched.platform.MultiCluster`), which the
placement (:func:`clustersched.scrap.placement.place_reference`) translates
to each cluster.  All three are the *same loop* -- the HCPA/CPA loop of
:func:`clustersched.ptg.hcpa_allocation` (Rust ``allocation_loop``; here
``rust/core/src/scrap/allocation.rs``) -- with different stopping conditions:

SCRAP (Algorithm 1)
    Every task starts on one reference processor.  While ``β' < β`` and the
    critical path is not saturated, the critical-path task of largest benefit
    ``T_ref(t, p)/p - T_ref(t, p+1)/(p+1)`` (ties: lowest index; benefit
    ``> 0``) among those some cluster can still grow
    (``∃ C_k: f(p_ref(t), t, k) < P_k`` with ``f`` by ``translation``,
    :data:`clustersched.scrap.model.TRANSLATIONS`, and ``p_ref(t) < P_ref``)
    gets one more.  ``β' = (ω* / T_CP) / (platform power)``, ``ω* = Σ T_ref(t, p) p
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

:func:`beta_estimate` gives ``β'`` of any reference allocation.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .._checks import check_choice, check_float
from ..platform import MultiCluster
from ..ptg.hcpa import check_rule
from ..workload.ptg import PTG
from .model import DEFAULT_TRANSLATION, check_alloc, check_core, check_ptg, check_translation

__all__ = ["beta_estimate", "hcpa_reference_allocation", "scrap_allocation"]


def check_beta(beta: object) -> float:
    """``beta`` as a float in ``(0, 1]``, else TypeError/ValueError naming it."""
    return check_float("beta", beta, positive=True, maximum=1.0)


def scrap_allocation(
    ptg: PTG,
    platform: MultiCluster,
    beta: float,
    *,
    variant: str = "SCRAP",
    translation: str = DEFAULT_TRANSLATION,
    core: Any = None,
) -> np.ndarray:
    """Reference allocation of ``ptg`` by SCRAP or SCRAP-MAX under ``beta`` (module docstring).

    Parameters
    ----------
    variant : {"SCRAP", "SCRAP-MAX"}
    translation : {"closest", "at-least-as-fast"}
        The translation ``f`` of the saturation test (:data:`clustersched.scrap.model.TRANSLATIONS`).

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
    b = check_beta(beta)
    rule = check_translation(translation)
    return check_core(core, ptg, platform).scrap_allocation(b, variant, rule)


def hcpa_reference_allocation(
    ptg: PTG,
    platform: MultiCluster,
    *,
    rule: str = "sqrt",
    translation: str = DEFAULT_TRANSLATION,
    core: Any = None,
) -> np.ndarray:
    """HCPA's allocation of ``ptg`` on the reference cluster of ``platform`` (module docstring); ``translation``
    as :func:`scrap_allocation`'s.

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
    return check_core(core, ptg, platform).hcpa_allocation(check_rule(rule), check_translation(translation))


def beta_estimate(ptg: PTG, platform: MultiCluster, alloc: Any, *, core: Any = None) -> float:
    """``β'`` of a reference allocation: ``area / (T_CP * P_ref)`` (module docstring).

    >>> import networkx as nx
    >>> from clustersched.platform import Cluster
    >>> g = nx.DiGraph(); g.add_node("t", work=1e10)
    >>> round(beta_estimate(PTG.from_networkx(g), MultiCluster("p", (Cluster("a", 10, 1e9),)), [3]), 12)
    0.3
    """
    a = check_alloc(check_ptg(ptg), alloc)
    return float(check_core(core, ptg, platform).beta_estimate(a))
