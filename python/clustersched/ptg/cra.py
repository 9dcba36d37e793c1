"""The CRA algorithms of N'takpé & Suter: constrained resource allocations (RR-7224 §4.3).

Each PTG ``i`` of ``N`` gets a share ``beta_i`` of the ``P`` processors:

* CRA_NDAGS: ``beta_i = 1 / N``;
* CRA_WORK, equation (1): ``beta_i = 1/(2N) + omega_i / (2 sum_j omega_j)``,
  ``omega_i`` the PTG's sequential work, ``sum_v T(v, 1)`` (seconds, summed
  by ``numpy.add.reduceat``);
* CRA_WIDTH, equation (2): ``beta_i = 1/(2N) + width_i / (2 sum_j width_j)``,
  ``width_i`` the number of tasks of its largest precedence level
  (``PTG.width()``; the zero-work entry / exit added to a PTG sit alone on
  their levels, so they never change it).

The shares sum to 1.  Choices the paper leaves open:

* **Budget.** ``P_i = max(1, floor(beta_i * P))`` processors (``beta_i`` in
  float64 as written above).  Rounding down keeps ``sum_i P_i <= P`` (for
  ``N <= P``), so the PTGs' constrained allocations fit side by side, which
  is the point of constraining them.
* **Allocation.** HCPA's allocation loop (:func:`clustersched.ptg.hcpa_allocation`)
  run on ``P_i`` processors -- ``T_A = area / P_i``, no task above ``P_i`` --
  with the per-precedence-level constraint of N'takpé & Suter: a
  critical-path task is a candidate for one more processor only while the
  tasks of its precedence level hold fewer than ``P_i`` processors together
  (SCRAP-MAX, shared/papers/003 Algorithm 2, whose stopping rule on a
  homogeneous cluster is exactly CPA's ``T_CP > area / (beta P)``).
* **Mapping.** All tasks together by list scheduling of *ready tasks only*
  (:func:`clustersched.ptg.list_schedule` with ``readiness="completed"``: a
  task competes only once its predecessors have finished, so a short PTG can
  start at time 0), by decreasing bottom level with the constrained
  allocation -- or, for the ``_WEIGHT`` variants, by decreasing
  ``bl / C*^2`` as SELFISH_WEIGHT, ``C*`` being the PTG's HCPA makespan alone
  on the *whole* cluster (the ``C*_max`` of the metrics).
* Then backfilling (:func:`clustersched.ptg.backfill`).

Randomness: exactly one draw, ``rng.permutation(T)`` over the ``T`` tasks of
all PTGs in ``(ptg, task)`` order (``rng = numpy.random.default_rng(seed)``
or the Generator passed): tasks of equal priority go in its order.

``options["budget"]`` of the result lists the ``P_i``.
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from .._checks import check_choice, make_rng
from ..platform import Cluster
from ..workload.ptg import PTG
from ._batch import Batch, check_cluster, rank_priority, seed_label, weighted_levels
from .hcpa import check_rule
from .schedule import TaskSchedule

__all__ = [
    "CRA_STRATEGIES",
    "cra_budgets",
    "cra_ndags",
    "cra_ndags_weight",
    "cra_width",
    "cra_width_weight",
    "cra_work",
    "cra_work_weight",
]

#: The three resource-constraint strategies.
CRA_STRATEGIES = ("NDAGS", "WORK", "WIDTH")


def cra_budgets(ptgs: Sequence[PTG], cluster: Cluster, strategy: str) -> np.ndarray:
    """The processor budget ``P_i`` of each PTG under ``strategy`` ("NDAGS", "WORK" or "WIDTH").

    Examples
    --------
    >>> from clustersched.platform import cluster
    >>> from clustersched.workload.ptg_generators import fft_ptg, strassen_ptg
    >>> ptgs = [fft_ptg(2, seed=0), fft_ptg(8, seed=0), strassen_ptg(seed=0)]
    >>> cra_budgets(ptgs, cluster("chti"), "NDAGS").tolist()
    [6, 6, 6]
    >>> cra_budgets(ptgs, cluster("chti"), "WIDTH").tolist()  # widths 2, 8, 10
    [4, 7, 8]
    """
    batch = Batch(ptgs)
    return _budgets(batch, check_cluster(cluster, batch.ptgs, schedules=False), strategy)


def _budgets(batch: Batch, cluster: Cluster, strategy: str) -> np.ndarray:
    check_choice("strategy", strategy, CRA_STRATEGIES)
    n = len(batch.ptgs)
    if strategy == "NDAGS":
        beta = np.full(n, 1.0 / n)
    elif strategy == "WORK":
        # omega_i = sum_v T(v, 1), T in its canonical evaluation order
        work = np.concatenate([p.work for p in batch.ptgs])
        alpha = np.concatenate([p.alpha for p in batch.ptgs])
        seq = (work / cluster.speed) * (alpha + (1.0 - alpha) / 1)
        with np.errstate(over="ignore"):
            omega = np.add.reduceat(seq, batch.base[:-1])
            total = omega.sum()
        if not np.isfinite(total):
            # Every T(v, 1) is finite (check_cluster) but their sums are not:
            # the shares do not depend on the unit, so divide it out first.
            omega = np.add.reduceat(seq / seq.max(), batch.base[:-1])
            total = omega.sum()
        beta = 1.0 / (2 * n) + omega / (2 * total)
    else:  # WIDTH
        width = batch.core.widths().astype(np.float64)
        beta = 1.0 / (2 * n) + width / (2 * width.sum())
    # Every beta is finite and in (0, 1] (omega >= 0 with a positive sum), so no count wraps.
    return np.maximum(1, np.floor(beta * cluster.procs)).astype(np.int64)


def _cra(
    ptgs: Sequence[PTG], cluster: Cluster, seed: int | np.random.Generator, strategy: str, weight: bool, rule: str
) -> TaskSchedule:
    batch = Batch(ptgs)
    cluster = check_cluster(cluster, batch.ptgs)
    rng = make_rng(seed)
    rule = check_rule(rule)
    budget = _budgets(batch, cluster, strategy)
    name = f"CRA_{strategy}" + ("_WEIGHT" if weight else "")
    return constrained_mapping(
        batch, cluster, budget, weight, rng, rule, name, {"seed": seed_label(seed), "budget": budget.tolist()}
    )


def constrained_mapping(
    batch: Batch,
    cluster: Cluster,
    budget: np.ndarray,
    weight: bool,
    rng: np.random.Generator,
    rule: str,
    name: str,
    options: dict[str, Any],
) -> TaskSchedule:
    """The CRA mapping of PTGs with processor budgets ``budget`` (shared with CAFM_CRA, §4.4).

    Constrained HCPA per PTG, then all tasks by ready-task list scheduling by
    decreasing bottom level (``bl / C*^2`` with ``weight``), ties by one draw
    of ``rng.permutation``, then backfilling: the module docstring's rules.
    """
    P, speed = cluster.procs, cluster.speed
    tie = rng.permutation(batch.total)
    alloc, bl = batch.core.hcpa_budgets(budget, speed, True)
    if weight:
        cstar = batch.core.hcpa_standalone(P, speed, rule)[4][batch.owner]
        priority = rank_priority(weighted_levels(bl, cstar), tie=tie)
    else:
        priority = rank_priority(bl, tie=tie)
    listed = batch.core.list_schedule(alloc, priority, P, speed, "completed")
    packed = batch.core.backfill(*listed, P, speed)
    return batch.to_schedule(packed, cluster, name, options)


def cra_ndags(
    ptgs: Sequence[PTG], cluster: Cluster, *, seed: int | np.random.Generator = 0, rule: str = "sqrt"
) -> TaskSchedule:
    """CRA_NDAGS (RR-7224 §4.3): equal budgets ``P / N``, constrained HCPA, ready-task list scheduling by bottom level.

    See the module docstring for every rule and the use of ``seed``.

    Examples
    --------
    >>> from clustersched.platform import cluster
    >>> from clustersched.workload.ptg_generators import ptg_population
    >>> s = cra_ndags(ptg_population("fft", 4, seed=2), cluster("grillon"), seed=1)
    >>> s.algorithm, s.options["budget"]
    ('CRA_NDAGS', [11, 11, 11, 11])
    """
    return _cra(ptgs, cluster, seed, "NDAGS", False, rule)


def cra_work(
    ptgs: Sequence[PTG], cluster: Cluster, *, seed: int | np.random.Generator = 0, rule: str = "sqrt"
) -> TaskSchedule:
    """CRA_WORK (RR-7224 §4.3, equation (1)): budgets by sequential work; see the module docstring."""
    return _cra(ptgs, cluster, seed, "WORK", False, rule)


def cra_width(
    ptgs: Sequence[PTG], cluster: Cluster, *, seed: int | np.random.Generator = 0, rule: str = "sqrt"
) -> TaskSchedule:
    """CRA_WIDTH (RR-7224 §4.3, equation (2)): budgets by maximum level width; see the module docstring."""
    return _cra(ptgs, cluster, seed, "WIDTH", False, rule)


def cra_ndags_weight(
    ptgs: Sequence[PTG], cluster: Cluster, *, seed: int | np.random.Generator = 0, rule: str = "sqrt"
) -> TaskSchedule:
    """CRA_NDAGS_WEIGHT: CRA_NDAGS with tasks by decreasing ``bl / C*^2`` (RR-7224 §4.3, §4.1)."""
    return _cra(ptgs, cluster, seed, "NDAGS", True, rule)


def cra_work_weight(
    ptgs: Sequence[PTG], cluster: Cluster, *, seed: int | np.random.Generator = 0, rule: str = "sqrt"
) -> TaskSchedule:
    """CRA_WORK_WEIGHT: CRA_WORK with tasks by decreasing ``bl / C*^2`` (RR-7224 §4.3, §4.1)."""
    return _cra(ptgs, cluster, seed, "WORK", True, rule)


def cra_width_weight(
    ptgs: Sequence[PTG], cluster: Cluster, *, seed: int | np.random.Generator = 0, rule: str = "sqrt"
) -> TaskSchedule:
    """CRA_WIDTH_WEIGHT: CRA_WIDTH with tasks by decreasing ``bl / C*^2`` (RR-7224 §4.3, §4.1)."""
    return _cra(ptgs, cluster, seed, "WIDTH", True, rule)
