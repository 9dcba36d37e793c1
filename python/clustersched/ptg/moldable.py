"""PTGs as moldable jobs: CAFM's kernels (RR-7224 §4.4).

The CAFM algorithms see each PTG as one *moldable job*: a job that can run
on any number ``p`` of processors in time ``t(p)``.  Three kernels, in Rust:

* :func:`moldable_profile` / :func:`moldable_profiles`: ``t(p)`` of a PTG =
  its HCPA makespan alone on a dedicated cluster of ``p`` processors, for
  ``p = 1..P`` ("the first step of all algorithms", §4.4; 85% of CAFM's
  time in the paper, §5.2.7).  Cached per (PTG, cluster, rule): see
  :class:`ProfileCache`.
* :func:`dutot_allocation`: the 3/2 + ε dual approximation of Mounié,
  Rapine & Trystram (RR-7224's [12]) on a table of profiles: an estimate of
  the optimal makespan ``C*_max`` of the jobs together, and one allocation
  per job.
* :func:`k_shelves`: the shelves of non-decreasing length up to ``C*_max``
  of CAFM_K_SHELVES (after Dutot et al., SPAA 2004, RR-7224's [11]), packed
  shelf by shelf by a unit-weight knapsack.

A *profile table* is a 2-D float array, one row per job, column ``p - 1``
the time on ``p`` processors (``P`` = the number of columns = the
cluster's processors).

Example
-------
>>> from clustersched.platform import cluster
>>> from clustersched.workload.ptg_generators import ptg_population
>>> ptgs = ptg_population("random", 4, seed=1)
>>> table = moldable_profiles(ptgs, cluster("chti"))
>>> table.shape
(4, 20)
>>> d = dutot_allocation(table)
>>> bool(d.lower <= d.cmax <= 1.01 * d.lower), d.alloc.shape
(True, (4,))
>>> k = k_shelves(table, d.cmax)
>>> bool((k.duration <= k.length[k.shelf]).all())
True
"""

from __future__ import annotations

import hashlib
from collections import OrderedDict
from dataclasses import dataclass
from typing import Sequence

import numpy as np

from .. import _core
from .._checks import check_float, check_int
from ..platform import Cluster
from ..workload.ptg import PTG
from ._batch import check_cluster, core_set
from .hcpa import check_rule

__all__ = [
    "PROFILE_CACHE",
    "DutotAllocation",
    "KShelves",
    "ProfileCache",
    "dutot_allocation",
    "k_shelves",
    "moldable_profile",
    "moldable_profiles",
]


def _key(ptg: PTG, cluster: Cluster, rule: str) -> tuple[str, int, float, str]:
    """A PTG's content (its arrays, not its name or labels) with what its profile depends on."""
    h = hashlib.blake2b(digest_size=16)
    for a in (ptg.work, ptg.alpha, ptg.succ_offsets, ptg.succ):
        h.update(np.ascontiguousarray(a).tobytes())
        # each array's length too, so that no two different PTGs give the same byte stream
        h.update(len(a).to_bytes(8, "little"))
    return h.hexdigest(), cluster.procs, cluster.speed, rule


class ProfileCache:
    """Raw moldable profiles kept by (PTG content, cluster procs and speed, HCPA rule).

    The key hashes the PTG's arrays (work, alpha, successor CSR), so two
    equal PTGs built separately share an entry and a PTG's name or labels do
    not matter; PTGs are immutable, so an entry never goes stale.  At most
    ``maxsize`` profiles are kept, the least recently used dropped first.
    Cached arrays are read-only.  RR-7224 §5.2.7 notes that a PTG "executed
    more than once" need not have its profile recomputed: the campaign runs
    every algorithm of the CAFM family on the same PTGs, so they share the
    module-wide :data:`PROFILE_CACHE` by default; pass ``cache=None`` to
    the functions to bypass it, or a ``ProfileCache`` of your own.

    Examples
    --------
    >>> from clustersched.platform import cluster
    >>> from clustersched.workload.ptg_generators import fft_ptg
    >>> cache = ProfileCache(maxsize=8)
    >>> a = moldable_profile(fft_ptg(2, seed=0), cluster("chti"), cache=cache)
    >>> b = moldable_profile(fft_ptg(2, seed=0), cluster("chti"), cache=cache)  # a hit
    >>> len(cache), cache.hits, cache.misses
    (1, 1, 1)
    """

    def __init__(self, maxsize: int = 4096) -> None:
        self.maxsize = check_int("maxsize", maxsize, 1)
        self._entries: OrderedDict[tuple[str, int, float, str], np.ndarray] = OrderedDict()
        self.hits = 0
        self.misses = 0

    def __len__(self) -> int:
        return len(self._entries)

    def clear(self) -> None:
        """Drop every entry (and reset the counters)."""
        self._entries.clear()
        self.hits = self.misses = 0

    def raw(self, ptgs: Sequence[PTG], cluster: Cluster, rule: str) -> list[np.ndarray]:
        """The raw profile of each PTG, computing only the missing ones (in one Rust call)."""
        keys = [_key(p, cluster, rule) for p in ptgs]
        missing = [i for i, k in enumerate(keys) if k not in self._entries]
        self.hits += len(keys) - len(missing)
        self.misses += len(missing)
        fresh = dict(zip((keys[i] for i in missing), _compute([ptgs[i] for i in missing], cluster, rule)))
        out = []
        for k in keys:
            row = self._entries.get(k)
            if row is None:
                row = fresh[k]
                self._entries[k] = row
            self._entries.move_to_end(k)
            out.append(row)
        while len(self._entries) > self.maxsize:
            self._entries.popitem(last=False)
        return out


#: The cache :func:`moldable_profile` and :func:`moldable_profiles` use by default.
PROFILE_CACHE = ProfileCache()


def _compute(ptgs: Sequence[PTG], cluster: Cluster, rule: str) -> list[np.ndarray]:
    if not ptgs:
        return []
    core = core_set(
        [p.work for p in ptgs], [p.alpha for p in ptgs], [p.succ_offsets for p in ptgs], [p.succ for p in ptgs]
    )
    flat = core.moldable_profiles(cluster.procs, cluster.speed, rule)
    rows = list(flat.reshape(len(ptgs), cluster.procs))
    for r in rows:
        r.flags.writeable = False
    return rows


def _monotone(raw: np.ndarray) -> np.ndarray:
    out = np.minimum.accumulate(raw, axis=-1)
    out.flags.writeable = False
    return out


def moldable_profiles(
    ptgs: Sequence[PTG],
    cluster: Cluster,
    *,
    rule: str = "sqrt",
    monotone: bool = True,
    cache: ProfileCache | None = PROFILE_CACHE,
) -> np.ndarray:
    """The profile table of ``ptgs`` on ``cluster``: ``out[i, p - 1]`` = PTG ``i``'s time on ``p`` processors.

    The raw value is the makespan of PTG ``i`` alone on a dedicated cluster
    of ``p`` processors by HCPA (:func:`clustersched.ptg.hcpa_schedule` with
    ``cluster.procs`` replaced by ``p``: allocation with its stopping rule
    ``rule`` for ``p`` processors, then list scheduling on ``p``), RR-7224
    §4.4.  ``out[i, -1]`` is PTG ``i``'s ``C*_max``.

    HCPA's makespan need not fall as ``p`` grows, while the algorithms of
    Dutot, Mounié & Trystram assume *monotone* jobs (RR-7224 §4.4 treats
    PTGs as such moldable jobs without saying how).  With ``monotone=True``
    (default) each row is its running minimum, the usual fix: a job given
    ``p`` processors can always run on the best allocation ``q <= p`` it
    has.  This makes time non-increasing in ``p``; it does not make the work
    ``p * t(p)`` non-decreasing, the other half of the monotony behind the
    3/2 guarantee (:func:`dutot_allocation`).  ``monotone=False`` gives the
    raw HCPA makespans.

    Parameters
    ----------
    ptgs : sequence of PTG
    cluster : Cluster
    rule : {"sqrt", "cpa"}, default "sqrt"
        HCPA's stopping rule (:func:`clustersched.ptg.hcpa_allocation`).
    monotone : bool, default True
    cache : ProfileCache or None, default PROFILE_CACHE
        Where raw profiles are looked up and kept; ``None``: compute afresh.

    Returns
    -------
    numpy.ndarray of float64, shape (len(ptgs), cluster.procs)
        A new array (the cache keeps its own rows).

    Examples
    --------
    >>> import networkx as nx
    >>> from clustersched.platform import Cluster
    >>> g = nx.DiGraph([("a", "b"), ("a", "c"), ("b", "d"), ("c", "d")])
    >>> nx.set_node_attributes(g, {"a": 1.0, "b": 8.0, "c": 2.0, "d": 1.0}, "work")
    >>> moldable_profiles([PTG.from_networkx(g)], Cluster("c", 4, 1.0), cache=None).tolist()
    [[12.0, 8.0, 5.666666666666666, 5.0]]
    """
    if isinstance(ptgs, PTG):
        raise TypeError("ptgs must be a sequence of PTGs; use moldable_profile for one")
    ptgs = list(ptgs)
    for i, p in enumerate(ptgs):
        if not isinstance(p, PTG):
            raise TypeError(f"ptgs[{i}] == {p!r}, must be a clustersched PTG")
    rows = _raw_rows(ptgs, cluster, rule, cache)
    table = np.stack(rows) if rows else np.empty((0, cluster.procs))
    return np.minimum.accumulate(table, axis=1) if monotone else table


def _raw_rows(ptgs: list[PTG], cluster: Cluster, rule: str, cache: ProfileCache | None) -> list[np.ndarray]:
    cluster = check_cluster(cluster, ptgs)
    rule = check_rule(rule)
    if cache is not None and not isinstance(cache, ProfileCache):
        raise TypeError(f"cache == {cache!r}, must be a ProfileCache or None")
    return cache.raw(ptgs, cluster, rule) if cache is not None else _compute(ptgs, cluster, rule)


def moldable_profile(
    ptg: PTG,
    cluster: Cluster,
    *,
    rule: str = "sqrt",
    monotone: bool = True,
    cache: ProfileCache | None = PROFILE_CACHE,
) -> np.ndarray:
    """The profile of one PTG: ``out[p - 1]`` = its time on ``p = 1..cluster.procs`` processors.

    :func:`moldable_profiles` for ``[ptg]`` (same parameters), as a 1-D
    array, always read-only (the raw one is the cached array itself).

    Examples
    --------
    >>> from clustersched.platform import cluster
    >>> from clustersched.ptg import hcpa_cmax_star
    >>> from clustersched.workload.ptg_generators import fft_ptg
    >>> g = fft_ptg(4, seed=2)
    >>> raw = moldable_profile(g, cluster("chti"), monotone=False)
    >>> bool(raw[-1] == hcpa_cmax_star([g], cluster("chti"))[0])
    True
    >>> mono = moldable_profile(g, cluster("chti"))
    >>> bool((mono <= raw).all() and (np.diff(mono) <= 0).all())
    True
    """
    if not isinstance(ptg, PTG):
        raise TypeError(f"ptg == {ptg!r}, must be a clustersched PTG")
    row = _raw_rows([ptg], cluster, rule, cache)[0]
    return _monotone(row) if monotone else row


def _table(profiles: object) -> np.ndarray:
    t = np.asarray(profiles)
    if t.dtype.kind not in "iuf":
        raise TypeError(f"profiles has dtype {t.dtype}, must be a real numeric array")
    if t.ndim != 2 or t.shape[0] == 0 or t.shape[1] == 0:
        raise ValueError(
            f"profiles has shape {t.shape}, must be 2-D (jobs, procs) with at least one job and one processor"
        )
    return np.ascontiguousarray(t, dtype=np.float64)


@dataclass(frozen=True)
class DutotAllocation:
    """What :func:`dutot_allocation` returns.

    Attributes
    ----------
    cmax : float
        The approximation of ``C*_max``: the smallest guess ``λ`` accepted.
    lower : float
        The largest guess known to be below the optimum (a rejected ``λ``,
        or the initial lower bound when it was accepted; then ``cmax == lower``).
    alloc : numpy.ndarray of int64
        Processors of each job in the two-shelf choice at ``cmax``.
    shelf : numpy.ndarray of int64
        ``1``: first shelf (length ``cmax``, allocation ``γ(j, cmax)``);
        ``2``: second shelf (length ``cmax / 2``, allocation ``γ(j, cmax / 2)``);
        ``0``: a small job (``t(1) <= cmax / 2``), on one processor.
    work : float
        Total work of that choice, processor-seconds (``<= P * cmax``).
    guesses : int
        Guesses ``λ`` tested.
    """

    cmax: float
    lower: float
    alloc: np.ndarray
    shelf: np.ndarray
    work: float
    guesses: int


def dutot_allocation(profiles: np.ndarray, *, epsilon: float = 0.01) -> DutotAllocation:
    """Allocations of independent moldable jobs by the 3/2 + ε dual approximation (RR-7224 §4.4's [12]).

    The algorithm of Mounié, Rapine & Trystram (SIAM J. Comput. 37(2),
    2007), as presented by Dutot, Mounié & Trystram, "Scheduling parallel
    tasks: approximation algorithms" (Handbook of Scheduling, 2004).  A
    guess ``λ`` of the makespan is tested by a two-shelf choice:

    * a job with no allocation of time ``<= λ`` rejects ``λ``;
    * *small* jobs (``t(1) <= λ/2``) take one processor, outside the choice;
    * every other job goes to the first shelf (length ``λ``) on
      ``γ(j, λ)`` processors or to the second (length ``λ/2``) on
      ``γ(j, λ/2)``, ``γ(j, x)`` the smallest allocation of time ``<= x``;
      jobs without ``γ(j, λ/2)`` must take the first.  A 0/1 knapsack
      solved exactly by dynamic programming chooses, minimising the total
      work subject to the first shelf's processors summing to ``<= P``;
    * ``λ`` is rejected if that is impossible or the total work (small jobs
      included) exceeds ``P * λ``.

    The search starts from the lower bound ``max(max_j min_p t_j(p),
    sum_j min_p p t_j(p) / P)`` (returned at once if accepted) and an upper
    guess at which every job is small (always accepted), and bisects
    geometrically until ``upper <= (1 + epsilon) * lower``; it returns the
    upper bound, the smallest ``λ`` accepted.

    What is guaranteed, for *monotone* jobs (time non-increasing and work
    ``p t(p)`` non-decreasing in ``p``): every ``λ >= OPT`` is accepted, so
    ``lower <= OPT`` and ``cmax <= (1 + epsilon) OPT``; and MRT build a
    schedule of length ``3/2 λ`` from any accepted ``λ`` (transformations
    of the two shelves not implemented here: CAFM uses only ``cmax`` and
    the allocations), so ``OPT <= 3/2 cmax``.  Tested against brute force in
    ``tests/test_moldable.py``.  Other profiles (raw HCPA ones) are taken as
    they are, without these guarantees.

    Parameters
    ----------
    profiles : array-like of float, shape (jobs, P)
        ``profiles[j, p - 1]``: job ``j``'s time on ``p`` processors, finite and > 0.
    epsilon : float, default 0.01
        Relative precision of the search, in ``(0, 1]``.

    Returns
    -------
    DutotAllocation

    Raises
    ------
    InvalidWorkloadError
        A time that is not finite and > 0 (naming the job).

    Examples
    --------
    Job 0 runs 12 s on one processor and ``12 / p`` on ``p``, job 1 runs
    2 s on any number; ``P = 4``.  The optimum is 4 s (job 0 on 3
    processors beside job 1 on the fourth):

    >>> t = np.array([[12.0, 6.0, 4.0, 3.0], [2.0, 2.0, 2.0, 2.0]])
    >>> d = dutot_allocation(t)
    >>> bool(d.lower <= 4.0 <= d.cmax <= 1.01 * 4.0), d.alloc.tolist(), d.shelf.tolist()
    (True, [3, 1], [1, 0])
    """
    t = _table(profiles)
    epsilon = check_float("epsilon", epsilon, positive=True, maximum=1.0)
    cmax, lower, alloc, shelf, work, guesses = _core.dutot_allocation(t.ravel(), t.shape[1], epsilon)
    return DutotAllocation(cmax, lower, alloc, shelf, work, guesses)


@dataclass(frozen=True)
class KShelves:
    """What :func:`k_shelves` returns: shelves in time order, and per job its box.

    Attributes
    ----------
    length, start : numpy.ndarray of float64
        Length (non-decreasing) and start time of each shelf.
    shelf : numpy.ndarray of int64
        Shelf of each job (index into ``length`` / ``start``); the job's box
        starts at ``start[shelf[j]]``.
    alloc : numpy.ndarray of int64
        Processors of each job's box: its smallest allocation fitting its shelf.
    duration : numpy.ndarray of float64
        Duration of each job's box, its time on ``alloc`` processors (``<=`` its shelf's length).
    """

    length: np.ndarray
    start: np.ndarray
    shelf: np.ndarray
    alloc: np.ndarray
    duration: np.ndarray


def k_shelves(profiles: np.ndarray, cmax: float) -> KShelves:
    """Jobs packed into shelves of non-decreasing length up to ``cmax`` (CAFM_K_SHELVES, RR-7224 §4.4).

    * Lengths: geometric, halving from ``cmax`` (our reading of Dutot,
      Eyraud, Mounié & Trystram, SPAA 2004, RR-7224's [11], whose text we
      could not read; RR-7224 says ``K`` "depends on C*_max and the
      smallest possible execution time over all jobs").  With ``t_min`` the
      shortest time of any job on any allocation, ``K`` is the smallest
      ``k >= 1`` with ``cmax / 2**k < t_min``, and shelf ``k = 0..K-1`` has
      length ``cmax / 2**(K-1-k)``.
    * Packing: shelf by shelf, shortest first, the unpacked jobs that fit
      the shelf (some allocation of time ``<=`` its length), each on its
      smallest such allocation, are packed by a knapsack with unit weights
      (RR-7224: all weights 1) and capacity ``P``: maximise the number of
      jobs.  With unit weights taking the smallest allocations first is
      exact (exchange argument; tested against brute force); ties go to the
      lowest job index.  A shelf that receives no job is dropped.  Shelf
      order is kept (RR-7224: no shuffling).
    * Jobs left after the ``cmax`` shelf fill further shelves of length
      ``cmax`` until all are packed.

    Parameters
    ----------
    profiles : array-like of float, shape (jobs, P)
        As :func:`dutot_allocation`'s (usually monotone moldable profiles).
    cmax : float
        The longest shelf, usually :func:`dutot_allocation`'s ``cmax``.

    Returns
    -------
    KShelves

    Raises
    ------
    InfeasibleError
        A job has no allocation of time ``<= cmax`` (fits no shelf).
    InvalidWorkloadError
        A time that is not finite and > 0.

    Examples
    --------
    >>> t = np.array([[3.0, 1.5], [3.0, 2.0], [7.0, 3.5], [8.0, 8.0]])
    >>> k = k_shelves(t, 8.0)
    >>> k.length.tolist(), k.start.tolist(), k.shelf.tolist(), k.alloc.tolist()
    ([2.0, 4.0, 8.0], [0.0, 2.0, 6.0], [0, 1, 2, 2], [2, 1, 1, 1])
    """
    t = _table(profiles)
    cmax = check_float("cmax", cmax, positive=True)
    return KShelves(*_core.k_shelves(t.ravel(), t.shape[1], cmax))
