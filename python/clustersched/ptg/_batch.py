"""Plumbing shared by the PTG algorithms: PTGs to the Rust kernels and back, seed labels, priorities.

Seeds are checked by :func:`clustersched._checks.make_rng`, as everywhere in the library.
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from .. import _core
from .._checks import short_repr
from ..errors import InvalidWorkloadError
from ..platform import Cluster
from ..workload.ptg import PTG
from .schedule import TaskSchedule

__all__ = ["MAX_PROCS", "MAX_SECONDS", "MAX_SIZE", "MIN_SECONDS"]


class Batch:
    """A list of PTGs converted once for the Rust kernels.

    Task ``v`` of PTG ``i`` has the *global id* ``base[i] + v``; the kernels
    speak global ids, :class:`TaskSchedule` speaks ``(ptg, task)``.
    """

    __slots__ = ("ptgs", "sizes", "base", "owner", "core")

    def __init__(self, ptgs: Sequence[PTG]) -> None:
        self.ptgs = check_ptgs(ptgs)
        self.sizes = np.array([len(p) for p in self.ptgs], dtype=np.int64)
        self.base = np.zeros(len(self.ptgs) + 1, dtype=np.int64)
        np.cumsum(self.sizes, out=self.base[1:])
        self.owner = np.repeat(np.arange(len(self.ptgs), dtype=np.int64), self.sizes)
        self.core = core_set(
            [p.work for p in self.ptgs],
            [p.alpha for p in self.ptgs],
            [p.succ_offsets for p in self.ptgs],
            [p.succ for p in self.ptgs],
        )

    @property
    def total(self) -> int:
        """Number of tasks of all PTGs."""
        return int(self.base[-1])

    def split(self, values: np.ndarray) -> list[np.ndarray]:
        """Per-PTG pieces of an array over global ids."""
        return [values[self.base[i] : self.base[i + 1]] for i in range(len(self.ptgs))]

    def to_schedule(
        self, columns: tuple[np.ndarray, ...], cluster: Cluster, algorithm: str, options: dict[str, Any] | None = None
    ) -> TaskSchedule:
        """A kernel's (task, start, end, proc_offsets, proc_ids) as a TaskSchedule."""
        task, start, end, offsets, ids = columns
        ptg = self.owner[task]
        return TaskSchedule(
            ptg=ptg,
            task=task - self.base[ptg],
            start=start,
            end=end,
            procs=np.diff(offsets),
            proc_offsets=offsets,
            proc_ids=ids,
            total_procs=cluster.procs,
            algorithm=algorithm,
            options=dict(options or {}),
        )

    def to_columns(self, schedule: TaskSchedule) -> tuple[np.ndarray, ...]:
        """A TaskSchedule of these PTGs as kernel columns (global task ids)."""
        if len(schedule) and (schedule.ptg.min() < 0 or schedule.ptg.max() >= len(self.ptgs)):
            raise ValueError(f"schedule has PTG indices outside 0..{len(self.ptgs) - 1}")
        return (
            self.base[schedule.ptg] + schedule.task,
            schedule.start,
            schedule.end,
            schedule.proc_offsets,
            schedule.proc_ids,
        )


def core_set(
    works: Sequence[np.ndarray],
    alphas: Sequence[np.ndarray],
    succ_offsets: Sequence[np.ndarray],
    succs: Sequence[np.ndarray],
) -> Any:
    """A ``_core.PtgSet`` from per-PTG arrays (local ids), concatenated over global ids."""
    sizes = np.array([len(w) for w in works], dtype=np.int64)
    base = np.zeros(len(works) + 1, dtype=np.int64)
    np.cumsum(sizes, out=base[1:])
    edges = np.array([len(s) for s in succs], dtype=np.int64)
    edge_base = np.zeros(len(works) + 1, dtype=np.int64)
    np.cumsum(edges, out=edge_base[1:])
    offsets = np.concatenate(
        [np.asarray(o[:-1], dtype=np.int64) + edge_base[i] for i, o in enumerate(succ_offsets)] + [edge_base[-1:]]
    )
    succ = np.concatenate([np.asarray(s, dtype=np.int64) + base[i] for i, s in enumerate(succs)])
    return _core.PtgSet(
        base,
        np.ascontiguousarray(np.concatenate(works), dtype=np.float64),
        np.ascontiguousarray(np.concatenate(alphas), dtype=np.float64),
        offsets,
        succ,
    )


def check_ptgs(ptgs: Sequence[PTG]) -> list[PTG]:
    """The PTGs as a list; TypeError naming the bad argument, InvalidWorkloadError (a ValueError) when empty."""
    if isinstance(ptgs, PTG):
        raise TypeError("ptgs == a single PTG, must be a list of PTGs")
    try:
        out = list(ptgs)
    except TypeError:
        raise TypeError(f"ptgs == {ptgs!r}, must be a list of PTGs") from None
    if not out:
        raise InvalidWorkloadError("ptgs == [], must hold at least one PTG")
    for k, p in enumerate(out):
        if not isinstance(p, PTG):
            raise TypeError(f"ptgs[{k}] == {p!r}, must be a clustersched PTG")
    return out


#: Most processors of a cluster the multi-PTG algorithms schedule on (``2**16``).  CAFM computes
#: each PTG's HCPA makespan on every count ``1..P`` and backfilling keeps a bit per processor and
#: task; RR-7224 §5.1.1 uses at most 216.
MAX_PROCS = 2**16

#: Largest ``(tasks + edges of all PTGs) * procs`` (``2**28``): backfilling's bit sets hold
#: ``tasks * procs`` bits, and each of CAFM's ``procs`` HCPA runs per PTG reads its edges.
MAX_SIZE = 2**28

#: Longest total time of all tasks on one processor each, one after the other, in seconds
#: (``1e300``): a bound on every time, priority and sum a schedule needs, so none overflows.
MAX_SECONDS = 1e300

#: Shortest time of a PTG's longest task on all the processors, in seconds (``1e-300``): below
#: it the task's time may round to 0 in float64, and so may the PTG's makespan alone, ``C*_max``,
#: which every stretch divides by.
MIN_SECONDS = 1e-300


def check_cluster(cluster: Cluster, ptgs: Sequence[PTG] = (), *, schedules: bool = True) -> Cluster:
    """``cluster`` if it is a Cluster (else TypeError) within the limits of this package for ``ptgs``.

    * ``cluster.procs <= MAX_PROCS`` (ValueError);
    * ``(tasks + edges of all PTGs) * cluster.procs <= MAX_SIZE``
      (InvalidWorkloadError);
    * every task of ``ptgs`` has a finite time on one processor (``w / speed``
      overflows float64 for a huge work or a tiny speed such as 1e-300
      flop/s), and (for a function that ``schedules``) all of them one after
      the other take at most ``MAX_SECONDS``, and each PTG's longest task
      takes at least ``MIN_SECONDS`` on all the processors (``C*_max > 0``):
      InvalidWorkloadError names the PTG, the task, its work and the cluster.

    Within these limits every algorithm of :data:`clustersched.ptg.ALGORITHMS`
    works in memory linear in ``MAX_SIZE`` bits and returns: SELFISH, Zhao's
    and CRA's in seconds at the limits, CAFM's ``procs`` HCPA runs per PTG in
    minutes (four 20-task PTGs on 65,536 processors: about 30 s).
    """
    if not isinstance(cluster, Cluster):
        raise TypeError(f"cluster == {short_repr(cluster)}, must be a clustersched Cluster (e.g. cluster('gdx'))")
    if cluster.procs > MAX_PROCS:
        raise ValueError(
            f"cluster.procs == {cluster.procs}, must be <= {MAX_PROCS} for multi-PTG scheduling "
            f"(clustersched.ptg.MAX_PROCS)"
        )
    size = sum(len(p) + len(p.succ) for p in ptgs)
    if size * cluster.procs > MAX_SIZE:
        raise InvalidWorkloadError(
            f"{len(ptgs)} PTGs of {sum(len(p) for p in ptgs)} tasks and {sum(len(p.succ) for p in ptgs)} edges on "
            f"{cluster.procs} processors: (tasks + edges) x processors == {size * cluster.procs}, must be <= "
            f"{MAX_SIZE} (clustersched.ptg.MAX_SIZE)",
            field="procs",
            value=cluster.procs,
        )
    total = 0.0
    for i, p in enumerate(ptgs):
        v = int(np.argmax(p.work))
        with np.errstate(over="ignore"):
            longest = p.work[v] / cluster.speed
            total += float(np.sum(p.work / cluster.speed))
        name = f"named {p.name!r}, " if p.name else ""
        if not np.isfinite(longest):
            raise InvalidWorkloadError(
                f"{name}task {p.labels[v]!r}: work {float(p.work[v])!r} flop on one processor of cluster "
                f"{cluster.name!r} ({cluster.speed!r} flop/s) takes longer than float64 can count",
                ptg=i,
                field="work",
                value=float(p.work[v]),
            )
        with np.errstate(under="ignore"):
            shortest = p.work[v] / cluster.speed / cluster.procs
        if schedules and not shortest >= MIN_SECONDS:
            raise InvalidWorkloadError(
                f"{name}its longest task {p.labels[v]!r}, work {float(p.work[v])!r} flop, takes "
                f"{float(shortest)!r} s on the {cluster.procs} processors of cluster {cluster.name!r} "
                f"({cluster.speed!r} flop/s), must be >= {MIN_SECONDS:g} s (clustersched.ptg.MIN_SECONDS): "
                f"a PTG needs a positive makespan alone, C*_max, for its stretch",
                ptg=i,
                field="work",
                value=float(p.work[v]),
            )
        if schedules and not total <= MAX_SECONDS:
            raise InvalidWorkloadError(
                f"{name}the tasks of PTGs 0 to {i}, each on one processor of cluster {cluster.name!r} "
                f"({cluster.speed!r} flop/s), one after the other, take {total:.6g} s, must be <= {MAX_SECONDS:g} s "
                f"(clustersched.ptg.MAX_SECONDS); its longest task is {p.labels[v]!r}, work {float(p.work[v])!r} flop",
                ptg=i,
                field="work",
                value=float(p.work[v]),
            )
    return cluster


def seed_label(seed: int | np.random.Generator) -> Any:
    """How a seed is recorded in ``TaskSchedule.options``."""
    return "generator" if isinstance(seed, np.random.Generator) else int(seed)


def weighted_levels(bl: np.ndarray, cstar: np.ndarray) -> np.ndarray:
    """``bl / C*^2`` per task, the key of the _WEIGHT variants, as an order-preserving key.

    Computed as written whenever every value is finite (every study's case:
    these are the very floats of RR-7224's formula).  When ``C*^2`` leaves
    float64 (a PTG of ``C* > 1e154`` s or ``< 1e-154`` s) the whole key is
    ``log(bl) - 2 log(C*)`` instead, the same order without overflow
    (``-inf`` for ``bl == 0``); only the ranks of the key are used.
    """
    with np.errstate(all="ignore"):
        key = bl / (cstar * cstar)
        if np.isfinite(key).all():
            return key
        return np.where(bl > 0, np.log(bl) - 2.0 * np.log(cstar), -np.inf)


def rank_priority(*keys: np.ndarray, tie: np.ndarray) -> np.ndarray:
    """Distinct float priorities (higher first) ordering tasks by ``keys``, then ``tie``.

    ``keys`` are compared in turn, each *larger first*; equal keys fall to
    ``tie``, *smaller first* (a random permutation, so ties are broken
    uniformly at random). The list-scheduling kernel then never sees a tie.
    """
    total = len(tie)
    order = np.lexsort((tie,) + tuple(-np.asarray(k, dtype=np.float64) for k in reversed(keys)))
    priority = np.empty(total, dtype=np.float64)
    priority[order] = np.arange(total, 0, -1, dtype=np.float64)
    return priority
