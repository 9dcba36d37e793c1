"""The model of one PTG on a heterogeneous multi-cluster platform: data, translation, caps (PDCS 2007).

N'takpé & Suter, *Self-Constrained Resource Allocation Procedures for PTG
scheduling on shared grids* (PDCS 2007), schedule one PTG on a
:class:`~clustersched.platform.MultiCluster` in two steps: an allocation on
HCPA's *reference cluster* (:mod:`clustersched.scrap.allocation`: SCRAP,
SCRAP-MAX, HCPA), then its placement by list scheduling
(:mod:`clustersched.scrap.placement`).  This module holds what both steps
read (Rust kernels, ``rust/core/src/scrap/platform.rs``; slow references in
``tests/reference/scrap.py``):

Translation (:func:`translate`, :data:`TRANSLATIONS`)
    ``f(p_ref, v, k)``, the allocation of task ``v`` on cluster ``k`` for
    ``p_ref`` reference processors.  §3 says only: "the function f(pref(t),
    t, k) is used to determine the actual allocation of task t on cluster Ck
    from its reference allocation" (HCPA's translation, whose formula the
    paper does not repeat).  Two readings, both named, ``translation=``:

    ``"closest"`` (the default)
        The ``q`` in ``1..min(p_ref, P_k)`` whose time ``T_k(v, q)`` is
        closest to ``T_ref(v, p_ref)``: least ``|T_k(v, q) - T_ref(v,
        p_ref)|`` in float64, ties to the fewer processors (the cheaper
        allocation, so a tie never adds power).  It is capped at the
        cluster's size ``P_k`` (the allocations cluster ``k`` has), so every
        cluster can host it.  Defensible: the reference cluster is
        "equivalent to the heterogeneous platform", and the allocation on
        ``C_k`` equivalent to ``p_ref`` reference processors is the one
        that takes the same time, as near as whole processors allow -- on
        either side.  It is the default because it reproduces the paper's
        headline (§4, Fig. 1: "the constraint is respected in 99% of the
        cases for β >= 0.2"; ``docs/reproduce-scrap.md``), which the other
        reading does not (97.7% at β = 0.2): ``β'`` is computed with
        reference times, and rounding every translated task up to "at least
        as fast" shortens the placed schedule below the reference critical
        path, so the power consumed exceeds ``β'``; the closest time keeps
        the placed times near the reference ones.
    ``"at-least-as-fast"``
        The smallest ``q >= 1`` with ``T_k(v, q) <= T_ref(v, p_ref)``: never
        slower than the reference allocation (the library's reading until
        issue 33).  ``q <= p_ref`` since every cluster is at least as fast
        as the reference; it may exceed ``P_k``, and then cluster ``k``
        cannot host it.  Defensible: a translation that never lengthens a
        task keeps the critical path the allocation step computed an upper
        bound of the placed one.

    Both give ``q <= p_ref`` and translations that do not decrease as
    ``p_ref`` grows.  MHEFT-MAX does not translate.

Caps (:func:`reference_caps`)
    Task ``v`` may take one more reference processor while some cluster ``k``
    has ``f(p_ref(v), v, k) < P_k`` (Algorithm 1, line 5: otherwise its
    critical path is *saturated*) and ``p_ref(v)`` is below the reference
    cluster's size; ``f`` by the run's translation (under ``"closest"`` a
    task may grow a little further: a count below ``P_k`` may be closer
    than the first one at least as fast).

Data (:func:`task_bytes`)
    A task sends ``8 * data`` bytes (its ``data`` node attribute: the
    ``n`` double-precision elements of §4, set by the generators of
    :mod:`clustersched.workload.ptg_generators`; 0 when absent) to each
    successor.  Edges into or out of a zero-work (structural) task carry
    nothing.  ``comms=False``, or a platform without a network, makes every
    transfer free.

:func:`problem` converts a ``(ptg, platform)`` pair once into the
:class:`ScrapProblem` every kernel of the package runs on (pass it as
``core=`` to reuse it; a ``core`` built for another PTG or platform is
refused, :func:`check_core`).

Limits
    Checked by the Rust core before any work (:func:`problem` raises them),
    far beyond PDCS 2007 §4 (at most 8 clusters of 128 processors, speeds
    within a factor 5, PTGs of 50 tasks):

    * :data:`MAX_PROCS` (``2**16``) processors in all on the platform, and
      :data:`MAX_POWER` (``1e300`` flop/s) of processing power, ValueError;
    * :data:`MAX_REF_PROCS` (``2**20``) processors of the reference cluster,
      ``P_ref = sum_k procs_k * speed_k / s_ref``: a small platform whose
      speeds are very far apart is too large too, ValueError;
    * :data:`MAX_SIZE` (``2**26``) for ``(tasks + edges) * floor(P_ref)``:
      the allocation loop makes at most ``tasks * P_ref`` additions, a
      schedule holds at most that many processor ids, and MHEFT-MAX reads
      each edge once per allocation it tries; InvalidWorkloadError;
    * :data:`MAX_SECONDS` (``1e300``) for the time of every task on one
      processor of the slowest speed, one after the other, each after its
      slowest incoming transfer: a bound on every time a schedule holds, so
      no sum overflows; InvalidWorkloadError naming the longest task.

    Within them a run takes at most ``tasks * P_ref`` steps of the
    allocation loop, each linear in the critical path's length at worst:
    seconds for the random PTGs of §4 near the limit, longer for
    pathological graphs (long critical paths of near-equal branches).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import _core
from .._checks import lookup, short_repr
from ..errors import InvalidWorkloadError
from ..platform import MultiCluster
from ..workload.ptg import PTG

__all__ = [
    "DEFAULT_TRANSLATION",
    "MAX_POWER",
    "MAX_PROCS",
    "MAX_REF_PROCS",
    "MAX_SECONDS",
    "MAX_SIZE",
    "ScrapProblem",
    "TRANSLATIONS",
    "check_core",
    "problem",
    "reference_caps",
    "task_bytes",
    "translate",
]

#: Most processing power a platform may have, ``sum procs * speed`` in flop/s (``scrap::MAX_POWER``).
MAX_POWER: float = _core.SCRAP_MAX_POWER
#: Most processors a platform may have in all (the Rust core's ``scrap::MAX_PROCS``; module docstring).
MAX_PROCS: int = _core.SCRAP_MAX_PROCS
#: Most processors of the reference cluster, ``P_ref`` (``scrap::MAX_REF_PROCS``).
MAX_REF_PROCS: int = _core.SCRAP_MAX_REF_PROCS
#: Largest ``(tasks + edges) * floor(P_ref)`` of one problem (``scrap::MAX_SIZE``).
MAX_SIZE: int = _core.SCRAP_MAX_SIZE
#: Longest serial time bound of one problem, seconds (``scrap::MAX_SECONDS``).
MAX_SECONDS: float = _core.SCRAP_MAX_SECONDS

#: The readings of §3's translation ``f(p_ref, t, k)`` (module docstring), the default first.
TRANSLATIONS: tuple[str, ...] = ("closest", "at-least-as-fast")
#: The translation every function of :mod:`clustersched.scrap` uses unless told (module docstring: why).
DEFAULT_TRANSLATION: str = "closest"


def check_translation(translation: object) -> str:
    """The canonical name of ``translation`` among :data:`TRANSLATIONS` (any case, ``-`` and ``_`` alike).

    Examples
    --------
    >>> check_translation("AT_LEAST_AS_FAST")
    'at-least-as-fast'
    >>> check_translation("nearest")
    Traceback (most recent call last):
    ...
    ValueError: translation == 'nearest', must be one of 'closest', 'at-least-as-fast'
    """
    return lookup("translation", translation, TRANSLATIONS)


def task_bytes(ptg: PTG) -> np.ndarray:
    """Bytes each task of ``ptg`` sends to each successor: ``8 * data`` (0 without a ``data`` attribute).

    Examples
    --------
    >>> from clustersched.workload.ptg_generators import random_ptg
    >>> p = random_ptg(5, fat=0.5, regularity=0.5, density=0.5, jump=1, seed=0)
    >>> b = task_bytes(p)
    >>> bool((b[p.synthetic] == 0).all()), bool((b[~p.synthetic] >= 8 * 4 * 2**20).all())
    (True, True)
    """
    if not isinstance(ptg, PTG):
        raise TypeError(f"ptg == {short_repr(ptg)}, must be a clustersched PTG")
    attrs = ptg._node_attrs
    out = np.zeros(len(ptg), dtype=np.float64)
    for v in range(len(ptg)):
        d = attrs[v].get("data", 0.0) if not ptg.synthetic[v] else 0.0
        try:
            d = float(d)
        except (TypeError, ValueError):
            raise ValueError(f"task {ptg.labels[v]!r}: data == {d!r}, must be a number of elements >= 0") from None
        if not (np.isfinite(d) and d >= 0):
            raise ValueError(f"task {ptg.labels[v]!r}: data == {d!r}, must be a number of elements >= 0")
        out[v] = 8.0 * d
    return out


def check_platform(platform: object) -> MultiCluster:
    """``platform`` if it is a :class:`~clustersched.platform.MultiCluster`, else TypeError."""
    if not isinstance(platform, MultiCluster):
        raise TypeError(f"platform == {short_repr(platform)}, must be a clustersched.platform.MultiCluster")
    return platform


def check_ptg(ptg: object) -> PTG:
    """``ptg`` if it is a :class:`~clustersched.workload.ptg.PTG` with a task, else TypeError / InvalidWorkloadError."""
    if not isinstance(ptg, PTG):
        raise TypeError(f"ptg == {short_repr(ptg)}, must be a clustersched PTG")
    if len(ptg) == 0:  # PTG.from_networkx refuses it already; a hand-built one reaches here
        raise InvalidWorkloadError(f"{f'PTG {ptg.name!r}: ' if ptg.name else ''}the graph has no tasks")
    return ptg


class ScrapProblem:
    """One ``(ptg, platform)`` pair converted for the Rust kernels: what :func:`problem` returns.

    ``ptg`` and ``platform`` are the pair it was built from; the kernels'
    methods (``scrap_allocation``, ``place``, ``mheft_max``, ``check``, ...)
    are those of ``kernel`` (a ``clustersched._core.MultiClusterPtg``), read
    through this object.  Pass it as ``core=`` to the functions of
    :mod:`clustersched.scrap` to convert the pair once for several runs.
    """

    __slots__ = ("kernel", "platform", "ptg")

    def __init__(self, ptg: PTG, platform: MultiCluster, kernel: Any) -> None:
        self.ptg = ptg
        self.platform = platform
        self.kernel = kernel

    def __getattr__(self, name: str) -> Any:
        if name in ScrapProblem.__slots__:  # not set yet (a copy being built): no recursion
            raise AttributeError(name)
        return getattr(self.kernel, name)

    def __repr__(self) -> str:
        what = f"PTG {self.ptg.name!r}" if self.ptg.name else "a PTG"
        return f"<ScrapProblem: {what} of {len(self.ptg)} tasks on {self.platform.name!r}>"


def problem(ptg: PTG, platform: MultiCluster) -> ScrapProblem:
    """``ptg`` on ``platform``, converted once: the ``core=`` argument of this package's functions.

    Raises
    ------
    TypeError
        ``ptg`` is not a PTG or ``platform`` not a MultiCluster.
    ValueError
        The platform is beyond :data:`MAX_PROCS`, :data:`MAX_POWER` or :data:`MAX_REF_PROCS`.
    InvalidWorkloadError
        An empty PTG, or one beyond :data:`MAX_SIZE` or :data:`MAX_SECONDS` on this platform.

    Examples
    --------
    >>> from clustersched.platform import Cluster
    >>> from clustersched.workload.ptg_generators import random_ptg
    >>> problem(random_ptg(5, fat=0.5, regularity=0.5, density=0.5, jump=1, seed=0),
    ...         MultiCluster("big", (Cluster("a", 2**32 - 1, 1e9),)))
    Traceback (most recent call last):
    ...
    ValueError: platform: 4294967295 processors in all, must be <= 65536 (clustersched.scrap.MAX_PROCS)
    """
    ptg = check_ptg(ptg)
    platform = check_platform(platform)
    net = platform.network
    network = None
    if net is not None:
        network = (
            np.array(net.link_bw),
            np.array(net.link_lat),
            net.uplink_bw,
            net.uplink_lat,
            net.backbone_bw,
            net.backbone_lat,
        )
    kernel = _core.MultiClusterPtg(
        ptg.work,
        ptg.alpha,
        ptg.succ_offsets,
        ptg.succ,
        np.array(platform.procs, dtype=np.int64),
        np.array(platform.speeds, dtype=np.float64),
        network,
        task_bytes(ptg) if net is not None else None,
    )
    return ScrapProblem(ptg, platform, kernel)


def check_core(core: object, ptg: PTG, platform: MultiCluster) -> ScrapProblem:
    """``core`` if :func:`problem` built it for this very pair; a new one for None.

    A ``core`` built for another PTG or platform would schedule that pair's
    tasks on that pair's clusters under this one's name: TypeError for
    anything but a :class:`ScrapProblem`, ValueError naming what differs.
    Equal inputs built anew are the same pair (the PTG's arrays, and its
    data when the platform has a network; the clusters and the network).
    """
    ptg = check_ptg(ptg)
    platform = check_platform(platform)
    if core is None:
        return problem(ptg, platform)
    if not isinstance(core, ScrapProblem):
        raise TypeError(f"core == {short_repr(core)}, must be None or clustersched.scrap.model.problem(ptg, platform)")
    if core.ptg is not ptg and not _same_ptg(core.ptg, ptg, platform.network is not None):
        raise ValueError(
            f"core == {core!r}, must be problem(ptg, platform) of this ptg "
            f"({len(ptg)} tasks, {len(ptg.succ)} edges): it was built for another PTG"
        )
    if core.platform is not platform and not _same_platform(core.platform, platform):
        raise ValueError(
            f"core == {core!r}, must be problem(ptg, platform) of this platform "
            f"({platform.name!r}: {len(platform)} clusters, {platform.total_procs} processors): "
            f"it was built for another platform"
        )
    return core


def _same_ptg(a: PTG, b: PTG, data: bool) -> bool:
    same = len(a) == len(b) and all(
        np.array_equal(getattr(a, f), getattr(b, f)) for f in ("work", "alpha", "succ_offsets", "succ")
    )
    return same and (not data or np.array_equal(task_bytes(a), task_bytes(b)))


def _same_platform(a: MultiCluster, b: MultiCluster) -> bool:
    return a.procs == b.procs and a.speeds == b.speeds and a.network == b.network


def check_alloc(ptg: PTG, alloc: Any) -> np.ndarray:
    """``alloc`` as one int64 count ``>= 1`` per task of ``ptg``, else TypeError/ValueError naming the entry."""

    def bad() -> TypeError:  # built only when raised: formatting the array costs more than the check
        return TypeError(f"alloc == {short_repr(alloc)}, must be a sequence of integers (one per task)")

    try:
        raw = np.asarray(alloc)
    except (TypeError, ValueError, OverflowError):
        raise bad() from None
    if raw.dtype.kind not in "iuf":
        raise bad()
    with np.errstate(invalid="ignore", over="ignore"):
        if raw.dtype.kind == "f" and not (np.isfinite(raw).all() and (raw == np.floor(raw)).all()):
            raise bad()
        if raw.size and raw.max() > 2**32:  # far above any processor count; int64 holds it
            k = np.unravel_index(int(np.argmax(raw)), raw.shape)
            raise ValueError(f"alloc[{', '.join(map(str, k))}] == {raw[k]}, must be <= {2**32 - 1}")
        a = np.ascontiguousarray(raw, dtype=np.int64)
    if a.shape != (len(ptg),):
        raise ValueError(f"alloc has shape {a.shape}, must be ({len(ptg)},) (one count per task)")
    if len(a) and a.min() < 1:
        v = int(np.argmin(a))
        raise ValueError(f"alloc[{v}] == {a[v]}, must be >= 1")
    return a


def translate(ptg: PTG, platform: MultiCluster, alloc: Any, *, translation: str = DEFAULT_TRANSLATION) -> np.ndarray:
    """``f(alloc[v], v, k)`` under ``translation`` for every task ``v`` (rows) and cluster ``k`` (columns).

    ``translation``: one of :data:`TRANSLATIONS` (module docstring).

    Examples
    --------
    >>> import networkx as nx
    >>> from clustersched.platform import Cluster
    >>> g = nx.DiGraph(); g.add_node("t", work=1e10)
    >>> p = MultiCluster("p", (Cluster("slow", 12, 1e9), Cluster("fast", 8, 2.5e9)))
    >>> t = PTG.from_networkx(g)   # 11 reference processors: 10/11 = 0.91 s
    >>> translate(t, p, [11], translation="at-least-as-fast").tolist()   # 5 fast: 0.8 s
    [[11, 5]]
    >>> translate(t, p, [11]).tolist()   # 4 fast: 1 s, closer to 0.91 s
    [[11, 4]]
    """
    rule = check_translation(translation)
    a = check_alloc(check_ptg(ptg), alloc)
    return problem(ptg, platform).translate(a, rule).reshape(len(ptg), len(platform))


def reference_caps(ptg: PTG, platform: MultiCluster, *, translation: str = DEFAULT_TRANSLATION) -> np.ndarray:
    """Per task, the reference allocation at which its critical path saturates under ``translation``
    (module docstring)."""
    return problem(ptg, platform).caps(check_translation(translation))
