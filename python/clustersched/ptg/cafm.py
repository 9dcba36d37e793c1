"""The CAFM algorithms: coarse-grain allocation, fine-grain mapping (RR-7224 §4.4).

Each PTG is first seen as one moldable job: its time ``t(p)`` on ``p``
processors is its HCPA makespan alone on ``p`` processors
(:func:`clustersched.ptg.moldable_profiles`, monotone: a job given ``p``
processors may use its best ``p' <= p``).  The dual approximation of
Mounié, Rapine & Trystram (:func:`clustersched.ptg.dutot_allocation`, [12])
gives an estimate of the jobs' optimal makespan ``C*_max`` and one allocation
per job.  Then:

* **CAFM_SAF, CAFM_SPTF, CAFM_LPTF.**  Each job becomes a rigid *box*: its
  allocation ``a_i`` and its time ``t(a_i)``.  The boxes are list-scheduled on
  the cluster (Graham's list scheduling of rigid jobs, as [11] does: whenever
  processors are free, the first boxes of the list that fit start, on the
  lowest free processor ids), in order of smallest area ``a_i t(a_i)``
  first, shortest ``t(a_i)`` first, or longest ``t(a_i)`` first; ties by PTG
  index.
* **CAFM_K_SHELVES.**  The boxes come from :func:`clustersched.ptg.k_shelves`:
  shelves of non-decreasing length up to ``C*_max``, one after another, each
  packed by a unit-weight knapsack with the allocation that meets the
  shelf's length; within a shelf, boxes sit side by side in PTG order from
  processor 0, all starting with the shelf (shelf order kept, §4.4).
* Inside every box, the PTG's tasks are scheduled by HCPA on a dedicated
  cluster of the box's processors (:func:`clustersched.ptg.hcpa_schedule`,
  whose makespan is ``t(a_i)``), shifted to the box's start and processors.
* **CAFM_CRA, CAFM_CRA_WEIGHT.**  The allocations are resource constraints
  for the CRA mapping instead (:mod:`clustersched.ptg.cra` with budget
  ``P_i = a_i``): constrained HCPA per PTG, all tasks list-scheduled together
  by decreasing bottom level, or by ``bl / C*^2`` as SELFISH_WEIGHT.

All six end with backfilling (:func:`clustersched.ptg.backfill`, §4.1).

Randomness: CAFM_CRA and CAFM_CRA_WEIGHT draw the tie-breaking permutation
of the CRA algorithms; the four box algorithms draw nothing (``seed`` is
accepted for a uniform signature and recorded).  ``options`` of the result
record ``cmax_estimate`` and the allocations (``alloc``), and for
CAFM_K_SHELVES each PTG's ``shelf``.
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from .._checks import make_rng
from ..platform import Cluster
from ..workload.ptg import PTG
from ._batch import Batch, check_cluster, seed_label
from .cra import constrained_mapping
from .hcpa import check_rule, hcpa_schedule
from .moldable import dutot_allocation, k_shelves, moldable_profiles
from .schedule import TaskSchedule

__all__ = [
    "BOX_ORDERS",
    "cafm_cra",
    "cafm_cra_weight",
    "cafm_k_shelves",
    "cafm_lptf",
    "cafm_saf",
    "cafm_sptf",
    "list_schedule_boxes",
]

#: Orders of the list scheduling of boxes: smallest area, shortest, longest first.
BOX_ORDERS = ("SAF", "SPTF", "LPTF")


def list_schedule_boxes(
    width: np.ndarray, duration: np.ndarray, order: np.ndarray, procs: int
) -> tuple[np.ndarray, list[np.ndarray]]:
    """Graham's list scheduling of rigid boxes: each box's start and processor ids.

    At time 0 and at every end of a box, the boxes not yet started are
    scanned in ``order`` and each that fits in the free processors starts,
    on the lowest free ids.  ``width[i] <= procs`` for every box.

    >>> start, ids = list_schedule_boxes(np.array([2, 3, 1]), np.array([5.0, 2.0, 4.0]), np.array([1, 0, 2]), 4)
    >>> start.tolist(), [i.tolist() for i in ids]
    ([2.0, 0.0, 0.0], [[0, 1], [0, 1, 2], [3]])
    """
    n = len(width)
    start = np.full(n, np.nan)
    ids: list[np.ndarray] = [np.empty(0, dtype=np.int64)] * n
    free = np.ones(procs, dtype=bool)
    running: list[tuple[float, int]] = []
    waiting = [int(i) for i in order]
    now = 0.0
    while waiting:
        for i in list(waiting):
            if width[i] <= free.sum():
                ids[i] = np.flatnonzero(free)[: width[i]]
                free[ids[i]] = False
                start[i] = now
                running.append((now + float(duration[i]), i))
                waiting.remove(i)
        if not waiting:
            break
        # The next end frees processors (every box fits the empty cluster).
        running.sort()
        now = running[0][0]
        while running and running[0][0] == now:
            free[ids[running.pop(0)[1]]] = True
    return start, ids


def _allocate(ptgs: Sequence[PTG], cluster: Cluster, rule: str) -> tuple[np.ndarray, Any]:
    profiles = moldable_profiles(ptgs, cluster, rule=rule)
    return profiles, dutot_allocation(profiles)


def _boxes(batch: Batch, cluster: Cluster, rule: str, alloc: np.ndarray) -> list[TaskSchedule]:
    """Each PTG's HCPA schedule alone on as many processors as its allocation: the inside of its box."""
    return [
        hcpa_schedule(ptg, Cluster(f"{cluster.name}-box", int(alloc[i]), cluster.speed), rule=rule)
        for i, ptg in enumerate(batch.ptgs)
    ]


def _length(box: TaskSchedule) -> float:
    return float(box.end.max()) if len(box) else 0.0


def _placed(
    batch: Batch, boxes: list[TaskSchedule], start: np.ndarray, ids: list[np.ndarray]
) -> tuple[np.ndarray, ...]:
    """The boxes' schedules shifted to their start and processors, as kernel columns."""
    offsets = np.zeros(batch.total + 1, dtype=np.int64)
    np.cumsum(np.concatenate([b.procs for b in boxes]), out=offsets[1:])
    return (
        np.concatenate([batch.base[i] + b.task for i, b in enumerate(boxes)]).astype(np.int64),
        np.concatenate([start[i] + b.start for i, b in enumerate(boxes)]),
        np.concatenate([start[i] + b.end for i, b in enumerate(boxes)]),
        offsets,
        np.concatenate([ids[i][b.proc_ids] for i, b in enumerate(boxes)]).astype(np.int64),
    )


def _cafm_list(
    ptgs: Sequence[PTG], cluster: Cluster, seed: int | np.random.Generator, order_by: str, rule: str
) -> TaskSchedule:
    batch = Batch(ptgs)
    cluster = check_cluster(cluster, batch.ptgs)
    make_rng(seed)  # checked, not drawn from
    rule = check_rule(rule)
    _, dutot = _allocate(batch.ptgs, cluster, rule)
    alloc = dutot.alloc.astype(np.int64)
    boxes = _boxes(batch, cluster, rule, alloc)
    duration = np.array([_length(b) for b in boxes])
    key = {"SAF": alloc * duration, "SPTF": duration, "LPTF": -duration}[order_by]
    order = np.lexsort((np.arange(len(alloc)), key))  # ties by PTG index
    start, ids = list_schedule_boxes(alloc, duration, order, cluster.procs)
    packed = batch.core.backfill(*_placed(batch, boxes, start, ids), cluster.procs, cluster.speed)
    return batch.to_schedule(
        packed,
        cluster,
        f"CAFM_{order_by}",
        {"seed": seed_label(seed), "cmax_estimate": float(dutot.cmax), "alloc": alloc.tolist()},
    )


def cafm_saf(
    ptgs: Sequence[PTG], cluster: Cluster, *, seed: int | np.random.Generator = 0, rule: str = "sqrt"
) -> TaskSchedule:
    """CAFM_SAF (RR-7224 §4.4): Dutot allocations, boxes list-scheduled smallest area first.

    See the module docstring for every rule.

    Examples
    --------
    >>> from clustersched.platform import cluster
    >>> from clustersched.workload.ptg_generators import ptg_population
    >>> s = cafm_saf(ptg_population("fft", 3, seed=2), cluster("chti"))
    >>> s.algorithm, len(s.options["alloc"])
    ('CAFM_SAF', 3)
    """
    return _cafm_list(ptgs, cluster, seed, "SAF", rule)


def cafm_sptf(
    ptgs: Sequence[PTG], cluster: Cluster, *, seed: int | np.random.Generator = 0, rule: str = "sqrt"
) -> TaskSchedule:
    """CAFM_SPTF (RR-7224 §4.4): boxes list-scheduled shortest first; see the module docstring."""
    return _cafm_list(ptgs, cluster, seed, "SPTF", rule)


def cafm_lptf(
    ptgs: Sequence[PTG], cluster: Cluster, *, seed: int | np.random.Generator = 0, rule: str = "sqrt"
) -> TaskSchedule:
    """CAFM_LPTF (RR-7224 §4.4): boxes list-scheduled longest first; see the module docstring."""
    return _cafm_list(ptgs, cluster, seed, "LPTF", rule)


def cafm_k_shelves(
    ptgs: Sequence[PTG], cluster: Cluster, *, seed: int | np.random.Generator = 0, rule: str = "sqrt"
) -> TaskSchedule:
    """CAFM_K_SHELVES (RR-7224 §4.4): boxes in shelves of non-decreasing length up to ``C*_max``.

    See the module docstring and :func:`clustersched.ptg.k_shelves`.

    Examples
    --------
    >>> from clustersched.platform import cluster
    >>> from clustersched.workload.ptg_generators import ptg_population
    >>> s = cafm_k_shelves(ptg_population("random", 4, seed=3), cluster("grillon"))
    >>> s.algorithm, len(s.options["shelf"]) == len(s.options["alloc"]) == 4
    ('CAFM_K_SHELVES', True)
    """
    batch = Batch(ptgs)
    cluster = check_cluster(cluster, batch.ptgs)
    make_rng(seed)  # checked, not drawn from
    rule = check_rule(rule)
    profiles, dutot = _allocate(batch.ptgs, cluster, rule)
    shelves = k_shelves(profiles, dutot.cmax)
    alloc = shelves.alloc.astype(np.int64)
    start = shelves.start[shelves.shelf]
    ids: list[np.ndarray] = []
    used = np.zeros(len(shelves.length), dtype=np.int64)  # processors taken in each shelf so far
    for i, k in enumerate(shelves.shelf):
        ids.append(np.arange(used[k], used[k] + alloc[i], dtype=np.int64))
        used[k] += alloc[i]
    boxes = _boxes(batch, cluster, rule, alloc)
    # A box's HCPA makespan is the profile's time at its allocation, within its shelf.
    packed = batch.core.backfill(*_placed(batch, boxes, start, ids), cluster.procs, cluster.speed)
    return batch.to_schedule(
        packed,
        cluster,
        "CAFM_K_SHELVES",
        {
            "seed": seed_label(seed),
            "cmax_estimate": float(dutot.cmax),
            "alloc": alloc.tolist(),
            "shelf": shelves.shelf.tolist(),
        },
    )


def _cafm_cra(
    ptgs: Sequence[PTG], cluster: Cluster, seed: int | np.random.Generator, weight: bool, rule: str
) -> TaskSchedule:
    batch = Batch(ptgs)
    cluster = check_cluster(cluster, batch.ptgs)
    rng = make_rng(seed)
    rule = check_rule(rule)
    _, dutot = _allocate(batch.ptgs, cluster, rule)
    budget = dutot.alloc.astype(np.int64)
    name = "CAFM_CRA" + ("_WEIGHT" if weight else "")
    return constrained_mapping(
        batch,
        cluster,
        budget,
        weight,
        rng,
        rule,
        name,
        {"seed": seed_label(seed), "cmax_estimate": float(dutot.cmax), "alloc": budget.tolist()},
    )


def cafm_cra(
    ptgs: Sequence[PTG], cluster: Cluster, *, seed: int | np.random.Generator = 0, rule: str = "sqrt"
) -> TaskSchedule:
    """CAFM_CRA (RR-7224 §4.4): Dutot allocations as CRA budgets; see the module docstring."""
    return _cafm_cra(ptgs, cluster, seed, False, rule)


def cafm_cra_weight(
    ptgs: Sequence[PTG], cluster: Cluster, *, seed: int | np.random.Generator = 0, rule: str = "sqrt"
) -> TaskSchedule:
    """CAFM_CRA_WEIGHT: CAFM_CRA with tasks by decreasing ``bl / C*^2`` (RR-7224 §4.4, §4.1)."""
    return _cafm_cra(ptgs, cluster, seed, True, rule)
