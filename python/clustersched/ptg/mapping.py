"""Mapping allocated PTG tasks onto processors: list scheduling and backfilling (RR-7224 §4.1, §4.3).

Both are one Rust kernel each, shared by every multi-PTG algorithm, and
follow the rules of ``tests/reference/ptg.py`` exactly (differential tests
compare results for identity):

List scheduling (:func:`list_schedule`)
    Repeatedly take the competing task of highest priority (ties: lowest
    ``(ptg, task)``); its ready time ``r`` is the latest end of its
    predecessors; it takes the first ``a`` processors in *best-fit* order --
    those free at or before ``r``, latest-freed first, then the later ones,
    earliest first, ties by id -- and starts when the last of them is free,
    not before ``r``.  Idle gaps are not reused (non-insertion); a zero-work
    task runs ``[r, r)`` and occupies nothing.  Which tasks compete depends on
    ``readiness``: ``"placed"`` (all predecessors placed: classic list
    scheduling, SELFISH's "sort by decreasing bottom level") or
    ``"completed"`` (all predecessors finished by the list's clock, which
    starts at 0 and moves to the next predecessor completion when nobody can
    compete: the CRA algorithms' "list scheduling of ready tasks only").

Backfilling (:func:`backfill`)
    Tasks in order of their start (ties: lowest ``(ptg, task)``), each moved
    to the earliest time at which enough processors are idle for its whole
    duration, every other task staying where it is -- so nobody is delayed.
    Candidate times: its ready time, the ends of other tasks before its
    start, its start.  It keeps its processors when they are free then,
    else takes the idle ones freed latest (tightest fit), ties by id.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

from .._checks import check_choice
from ..platform import Cluster
from ..workload.ptg import PTG
from ._batch import Batch, check_cluster
from .schedule import TaskSchedule

__all__ = ["READINESS", "backfill", "list_schedule"]

#: The two readiness rules of :func:`list_schedule`.
READINESS = ("placed", "completed")


def _per_task(name: str, values: Sequence[Sequence[float]], batch: Batch, dtype: type) -> np.ndarray:
    if len(values) != len(batch.ptgs):
        raise ValueError(f"{name} has {len(values)} entries, must have one per PTG ({len(batch.ptgs)})")
    parts: list[np.ndarray] = []
    for i, v in enumerate(values):
        a: np.ndarray = np.asarray(v, dtype=dtype)
        if a.shape != (batch.sizes[i],):
            raise ValueError(f"{name}[{i}] has shape {a.shape}, must be ({batch.sizes[i]},) (PTG {i}'s tasks)")
        parts.append(a)
    return np.ascontiguousarray(np.concatenate(parts), dtype=dtype)


def list_schedule(
    ptgs: Sequence[PTG],
    allocs: Sequence[Sequence[int]],
    priorities: Sequence[Sequence[float]],
    cluster: Cluster,
    *,
    readiness: str = "placed",
) -> TaskSchedule:
    """List-schedules every task of ``ptgs``, task ``v`` of PTG ``i`` on ``allocs[i][v]`` processors.

    Parameters
    ----------
    ptgs : list of PTG
    allocs : list of int arrays
        Processors per task, one array per PTG, each value in ``1..cluster.procs``.
    priorities : list of float arrays
        Higher runs first among competing tasks; finite.
    cluster : Cluster
    readiness : {"placed", "completed"}
        When a task competes (module docstring).

    Returns
    -------
    TaskSchedule
        Rows in placement order, processor ids increasing, ``algorithm="list"``.

    Raises
    ------
    ValueError
        Wrong shapes, an allocation outside ``1..procs`` or a non-finite
        priority (the message names the PTG and task).

    Examples
    --------
    >>> import networkx as nx
    >>> from clustersched.platform import Cluster
    >>> g = nx.DiGraph([("a", "b")]); nx.set_node_attributes(g, 2.0, "work")
    >>> p = PTG.from_networkx(g)
    >>> c = Cluster("c", 2, 1.0)
    >>> list_schedule([p, p], [[1, 2], [2, 2]], [[4.0, 2.0], [3.0, 1.0]], c).rows()
    [(0, 0, 0.0, 2.0, [0]), (1, 0, 2.0, 3.0, [0, 1]), (0, 1, 3.0, 4.0, [0, 1]), (1, 1, 4.0, 5.0, [0, 1])]
    >>> list_schedule([p, p], [[1, 2], [1, 2]], [[4.0, 2.0], [3.0, 1.0]], c).rows()[:2]
    [(0, 0, 0.0, 2.0, [0]), (1, 0, 0.0, 2.0, [1])]
    """
    check_choice("readiness", readiness, READINESS)
    batch = Batch(ptgs)
    cluster = check_cluster(cluster, batch.ptgs)
    alloc = _per_task("allocs", allocs, batch, np.int64)
    prio = _per_task("priorities", priorities, batch, np.float64)
    cols = batch.core.list_schedule(alloc, prio, cluster.procs, cluster.speed, readiness)
    return batch.to_schedule(cols, cluster, "list", {"readiness": readiness})


def backfill(schedule: TaskSchedule, ptgs: Sequence[PTG], cluster: Cluster) -> TaskSchedule:
    """Compacts a feasible ``schedule`` of ``ptgs`` by conservative backfilling (module docstring).

    Returns
    -------
    TaskSchedule
        The same rows in the same order with new start, end and processor ids;
        ``algorithm`` gets ``"+backfill"`` appended.  No task starts or ends later.

    Raises
    ------
    clustersched.errors.InfeasibleError
        ``schedule`` is not a feasible schedule of every task of ``ptgs`` on
        ``cluster`` (a task missing or repeated, a precedence violation, a
        processor running two tasks at once, ...).
    ValueError
        ``schedule`` is for another number of processors.
    """
    batch = Batch(ptgs)
    cluster = check_cluster(cluster, batch.ptgs)
    if schedule.total_procs != cluster.procs:
        raise ValueError(
            f"schedule is for {schedule.total_procs} processors, cluster {cluster.name!r} has {cluster.procs}"
        )
    cols = batch.core.backfill(*batch.to_columns(schedule), cluster.procs, cluster.speed)
    algorithm = (schedule.algorithm + "+backfill").lstrip("+")
    return batch.to_schedule(cols, cluster, algorithm, schedule.options)
