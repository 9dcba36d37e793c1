"""Seeded random TIGs and grids of LANs with the parameters of §5 (Tables 1 and 2).

Table 1 (TIGs) and Table 2 (grids) give, per size, the bounds of a uniform
distribution for each parameter; §5 draws every parameter's size on its own,
so a study has 3^3 x 3^4 = 2,187 combinations (:data:`TIG_SIZES`,
:data:`GRID_SIZES`, :func:`tig_ranges`, :func:`grid_ranges`):

=======  ========  ============  ==========
size     # task    MCR (Mflop/s) MBR (Mb/s)
=======  ========  ============  ==========
small    8 - 32    100 - 200     10 - 30
medium   32 - 48   200 - 400     20 - 40
large    48 - 64   400 - 600     30 - 50
=======  ========  ============  ==========

=======  =======  ==============  ==============  ============
size     # LAN    hosts per LAN   power (Mflop/s) LAN bw (Mb/s)
=======  =======  ==============  ==============  ============
small    8 - 16   4 - 12          600 - 800       20 - 40
medium   12 - 24  8 - 24          800 - 1000      30 - 50
large    16 - 32  16 - 48         1000 - 1300     40 - 60
=======  =======  ==============  ==============  ============

What the paper does not say, and we chose (§5 is all it says about the generators):

* **Counts** (tasks, LANs, hosts of each LAN) are integers drawn uniformly
  between the bounds, both included; the hosts of each LAN are drawn apart.
  **Values** (MCR, MBR, power, bandwidths) are uniform reals between the bounds.
* **TIG shape.** A random recursive tree (task ``k`` of a random permutation
  joins one of the ``k`` before it, uniformly), so the TIG is connected, plus
  ``round(n / 4)`` extra edges between distinct non-adjacent pairs drawn
  uniformly (:data:`EXTRA_EDGES_PER_TASK`), so that it has cycles (§4.1's
  cycle rule is about them) and ``1.25 n - 1`` edges on average.
* **LAN interconnection.** A random recursive tree over the LANs (the
  topology is connected, as §3 assumes), plus every other pair of LANs
  linked with probability :data:`LINK_PROBABILITY` = 0.5; so many pairs of
  LANs are not directly linked (§3).  A link's bandwidth is drawn from the
  same Table 2 range as the LANs' ("LAN bw" is the only bandwidth Table 2
  gives).
* **Feasible instances** (:func:`feasible_instance`; §5: "generating TIGs and
  Grids in such a way that a valid solution exists").  A hidden mapping is
  planted first, then the grid's bandwidths are raised so that it is valid:

  1. draw the TIG and the grid as above;
  2. visit the TIG breadth-first from a random task, and the LANs
     breadth-first (over the links) from a random LAN; put each task on the
     host of the current LAN with the most power left if that covers its MCR,
     else move on to the next LAN (never back); if the LANs run out, draw the
     grid again (at most :data:`MAX_GRID_DRAWS` times, then
     :class:`~clustersched.errors.InfeasibleError`);
  3. a pair of LANs the hidden mapping makes communicate without a link gets
     one (bandwidth drawn from the same range); then the bandwidths are
     raised just enough for the hidden mapping, under the bandwidth model
     (:data:`~clustersched.grid.mapping.BANDWIDTH_MODELS`):

     * ``"shared"``: every LAN's bandwidth becomes its drawn value **plus**
       the MBRs of the hidden mapping's communications inside it, and every
       link's its drawn value plus the MBRs it carries.  So the drawn Table 2
       bandwidth is the room left beyond the hidden mapping.  (The Table 2
       values alone cannot do: when bandwidth is used up, a LAN of 20-60 Mb/s
       holds one or two communications of 10-50 Mb/s, while a TIG of ``n``
       tasks has about ``1.25 n`` of them; ``docs/reproduce-qlse.md``.)
     * ``"dedicated"``: a LAN's or link's bandwidth becomes the larger of its
       drawn value and the largest MBR the hidden mapping puts on it; all
       other values stay as drawn from Table 2.

  That is ``planting="just-enough"`` (the default until issue 33).  §5 says only that TIGs and
  grids are generated "in such a way that a valid solution exists"; two other
  readings of that sentence are named options (:data:`PLANTINGS`, issue 33):

  * ``"largest-mbr"``: as ``"just-enough"``, then every LAN the hidden mapping
    puts a task on and every link it communicates over gets at least the
    TIG's largest MBR (a planted region able to carry any one communication
    of the graph, not only the ones the hidden mapping put there);
  * ``"fit-graph"``: the *graph* is made to fit the planted region instead of
    the region being raised: after planting, every MBR is drawn again,
    uniformly from its Table 1 range cut at what its carrier (the LAN or link
    the hidden mapping puts it on) can take: the carrier's drawn bandwidth
    (``dedicated``), or an equal share of it among the communications the
    carrier holds (``shared``).  Where the whole range lies above that cap
    (a Table 1 MBR size above the Table 2 bandwidth size, e.g. 30-50 Mb/s on a
    LAN drawn at 25), the MBR is the cap: Table 2 is kept and Table 1's lower
    bound gives way, where ``"just-enough"`` keeps Table 1 and raises
    bandwidths beyond Table 2 (no planting can keep both there).  Nothing is
    raised (but by rounding).

  The default is ``"fit-graph"`` with ``link_probability=0.5``
  (:data:`LINK_PROBABILITY`): the reading of §5's sentence under which QLSE
  "is able to carry out almost all the valid solutions" (1.7% of failures on
  the paper's 21,870 cases under ``dedicated``, against 11.4% with
  ``"just-enough"`` and 0.2), as §5 reports; both the paper's sentence and
  its silence on the topology allow it (``docs/reproduce-qlse.md``,
  "Readings").  Until issue 33 the default was ``"just-enough"`` with 0.2.

  ``link_probability`` (:data:`LINK_PROBABILITY`) and ``extra_edges``
  (:data:`EXTRA_EDGES_PER_TASK`) are parameters of every generator.

The instances of :func:`random_instance` are drawn without planting; they are
rarely feasible.

Limits
------
Ranges and fixed counts are checked before anything is drawn: counts are
integers with ``1 <= low <= high``, at most :data:`~clustersched.grid.model.MAX_TASKS`
(10,000) tasks, :data:`~clustersched.grid.model.MAX_LANS` (1,000) LANs and
:data:`~clustersched.grid.model.MAX_HOSTS` (100,000) hosts per LAN, and a
grid's largest possible size (most LANs x most hosts per LAN) at most
``MAX_HOSTS`` hosts in all (else :class:`~clustersched.errors.InvalidGraphError`,
naming the limit); values are finite reals with ``0 <= low <= high <=``
:data:`~clustersched.grid.model.MAX_VALUE` (MCRs ``> 0``).  Every accepted
size is drawn in time linear in the instance (a planting attempt stops as
soon as the LANs run out), and :func:`feasible_instance` gives up at once
when no grid of the ranges could hold the TIG's MCRs.

Examples
--------
>>> inst = feasible_instance(tig_ranges("small"), grid_ranges("small"), seed=7)
>>> len(inst.tig) >= 8, inst.grid.num_lans >= 8
(True, True)
>>> from clustersched.grid import validate_mapping
>>> validate_mapping(inst.planted, inst.tig, inst.grid)   # the hidden mapping is valid
"""

from __future__ import annotations

import heapq
import math
import numbers
from collections import deque
from dataclasses import dataclass
from typing import Any, Iterator

import numpy as np

from .._checks import check_float, check_int, make_rng, short_repr
from ..errors import InfeasibleError, InvalidGraphError
from .mapping import check_bandwidth
from .model import MAX_HOSTS, MAX_LANS, MAX_TASKS, MAX_VALUE, TIG, LanGrid

__all__ = [
    "EXTRA_EDGES_PER_TASK",
    "GRID_PARAMETERS",
    "GRID_SIZES",
    "LINK_PROBABILITY",
    "MAX_GRID_DRAWS",
    "PLANTINGS",
    "SIZES",
    "TIG_PARAMETERS",
    "TIG_SIZES",
    "GridRanges",
    "Instance",
    "TigRanges",
    "feasible_instance",
    "grid_ranges",
    "random_grid",
    "random_instance",
    "random_tig",
    "tig_ranges",
]

SIZES = ("small", "medium", "large")
#: Table 1: per size, the bounds of (# tasks, MCR in Mflop/s, MBR in Mb/s).
TIG_SIZES = {
    "small": {"tasks": (8, 32), "mcr": (100.0, 200.0), "mbr": (10.0, 30.0)},
    "medium": {"tasks": (32, 48), "mcr": (200.0, 400.0), "mbr": (20.0, 40.0)},
    "large": {"tasks": (48, 64), "mcr": (400.0, 600.0), "mbr": (30.0, 50.0)},
}
#: Table 2: per size, the bounds of (# LANs, hosts per LAN, host power in Mflop/s, LAN bandwidth in Mb/s).
GRID_SIZES = {
    "small": {"lans": (8, 16), "hosts_per_lan": (4, 12), "power": (600.0, 800.0), "bandwidth": (20.0, 40.0)},
    "medium": {"lans": (12, 24), "hosts_per_lan": (8, 24), "power": (800.0, 1000.0), "bandwidth": (30.0, 50.0)},
    "large": {"lans": (16, 32), "hosts_per_lan": (16, 48), "power": (1000.0, 1300.0), "bandwidth": (40.0, 60.0)},
}
TIG_PARAMETERS = ("tasks", "mcr", "mbr")
GRID_PARAMETERS = ("lans", "hosts_per_lan", "power", "bandwidth")
#: Extra edges beyond the spanning tree, per task (rounded): the TIG's cycles.
EXTRA_EDGES_PER_TASK = 0.25
#: Probability that two LANs not joined by the spanning tree are linked (0.2 until issue 33; the module docstring
#: says why 0.5).
LINK_PROBABILITY = 0.5
#: Grids drawn at most for one feasible instance before giving up.
MAX_GRID_DRAWS = 100
#: How :func:`feasible_instance` makes its hidden mapping valid (§5: instances generated "in such a way that a
#: valid solution exists"): raise the bandwidths it uses just enough, raise its LANs and links to the TIG's
#: largest MBR, or draw the MBRs again to fit their carriers (the default; the module docstring says why).
PLANTINGS = ("just-enough", "largest-mbr", "fit-graph")


def _link_probability(value: Any) -> float:
    return check_float("link_probability", value, minimum=0.0, maximum=1.0)


def _extra_edges(value: Any) -> float:
    return check_float("extra_edges", value, minimum=0.0)


def _planting(value: Any) -> str:
    if not isinstance(value, str) or value not in PLANTINGS:
        raise ValueError(f"planting == {value!r}, must be one of {', '.join(map(repr, PLANTINGS))}")
    return value


def _pair(name: str, value: Any) -> tuple[Any, Any]:
    if isinstance(value, (str, bytes)) or not isinstance(value, (tuple, list)) or len(value) != 2:
        raise TypeError(f"{name} == {short_repr(value)}, must be a pair (low, high)")
    return value[0], value[1]


def _int_range(name: str, value: Any, limit: int, limit_name: str) -> tuple[int, int]:
    """``value`` as a pair of integers ``1 <= low <= high <= limit``, else TypeError/ValueError."""
    low, high = _pair(name, value)
    if any(isinstance(x, bool) or not isinstance(x, numbers.Integral) for x in (low, high)):
        raise TypeError(f"{name} == {short_repr(value)}, must be a pair of integers")
    if not 1 <= low <= high <= limit:
        raise ValueError(
            f"{name} == {short_repr(value)}, must be a pair of integers with 1 <= low <= high <= {limit} ({limit_name})"
        )
    return int(low), int(high)


def _real_range(name: str, value: Any, positive: bool) -> tuple[float, float]:
    """``value`` as a pair of finite reals ``0 <= low <= high <= MAX_VALUE`` (``0 < low`` if ``positive``)."""
    low, high = _pair(name, value)
    if any(isinstance(x, (bool, np.bool_)) or not isinstance(x, numbers.Real) for x in (low, high)):
        raise TypeError(f"{name} == {short_repr(value)}, must be a pair of real numbers")
    lo, hi = float(low) if abs(low) < 1e308 else math.inf, float(high) if abs(high) < 1e308 else math.inf
    rule = "0 < low" if positive else "0 <= low"
    if not (math.isfinite(lo) and math.isfinite(hi) and (lo > 0 if positive else lo >= 0) and lo <= hi <= MAX_VALUE):
        raise ValueError(
            f"{name} == {short_repr(value)}, must be a pair of finite reals with {rule} <= high <= {MAX_VALUE:g}"
        )
    return lo, hi


@dataclass(frozen=True)
class TigRanges:
    """Bounds of the uniform distributions of a TIG's parameters (a row of Table 1, or a mix).

    Checked when made: ``tasks`` a pair of integers ``1 <= low <= high <=``
    :data:`~clustersched.grid.model.MAX_TASKS`; ``mcr`` a pair of finite reals
    ``0 < low <= high <= MAX_VALUE``, ``mbr`` the same with ``0 <= low``.
    """

    tasks: tuple[int, int]
    mcr: tuple[float, float]
    mbr: tuple[float, float]

    def __post_init__(self) -> None:
        object.__setattr__(self, "tasks", _int_range("tasks", self.tasks, MAX_TASKS, "MAX_TASKS"))
        object.__setattr__(self, "mcr", _real_range("mcr", self.mcr, True))
        object.__setattr__(self, "mbr", _real_range("mbr", self.mbr, False))


@dataclass(frozen=True)
class GridRanges:
    """Bounds of the uniform distributions of a grid's parameters (a row of Table 2, or a mix).

    Checked when made: ``lans`` and ``hosts_per_lan`` pairs of integers
    ``1 <= low <= high`` with at most :data:`~clustersched.grid.model.MAX_LANS`
    LANs and :data:`~clustersched.grid.model.MAX_HOSTS` hosts per LAN;
    ``power`` and ``bandwidth`` pairs of finite reals ``0 <= low <= high <=
    MAX_VALUE``.  (A grid drawn from them must also have at most ``MAX_HOSTS``
    hosts in all: the generators check the product.)
    """

    lans: tuple[int, int]
    hosts_per_lan: tuple[int, int]
    power: tuple[float, float]
    bandwidth: tuple[float, float]

    def __post_init__(self) -> None:
        object.__setattr__(self, "lans", _int_range("lans", self.lans, MAX_LANS, "MAX_LANS"))
        object.__setattr__(
            self, "hosts_per_lan", _int_range("hosts_per_lan", self.hosts_per_lan, MAX_HOSTS, "MAX_HOSTS")
        )
        object.__setattr__(self, "power", _real_range("power", self.power, False))
        object.__setattr__(self, "bandwidth", _real_range("bandwidth", self.bandwidth, False))


def _size(name: str, value: str) -> str:
    if value not in SIZES:
        raise ValueError(f"{name} == {value!r}, must be one of {', '.join(map(repr, SIZES))}")
    return value


def tig_ranges(tasks: str = "small", mcr: str | None = None, mbr: str | None = None) -> TigRanges:
    """Table 1 ranges, each parameter from its own size (``mcr`` and ``mbr`` default to ``tasks``'s).

    Examples
    --------
    >>> tig_ranges("large", mbr="small")
    TigRanges(tasks=(48, 64), mcr=(400.0, 600.0), mbr=(10.0, 30.0))
    """
    mcr = tasks if mcr is None else mcr
    mbr = tasks if mbr is None else mbr
    return TigRanges(
        TIG_SIZES[_size("tasks", tasks)]["tasks"],
        TIG_SIZES[_size("mcr", mcr)]["mcr"],  # type: ignore[arg-type]
        TIG_SIZES[_size("mbr", mbr)]["mbr"],
    )  # type: ignore[arg-type]


def grid_ranges(
    lans: str = "small", hosts_per_lan: str | None = None, power: str | None = None, bandwidth: str | None = None
) -> GridRanges:
    """Table 2 ranges, each parameter from its own size (the others default to ``lans``'s).

    Examples
    --------
    >>> grid_ranges("small", power="large")
    GridRanges(lans=(8, 16), hosts_per_lan=(4, 12), power=(1000.0, 1300.0), bandwidth=(20.0, 40.0))
    """
    sizes = {
        "lans": lans,
        "hosts_per_lan": hosts_per_lan or lans,
        "power": power or lans,
        "bandwidth": bandwidth or lans,
    }
    return GridRanges(**{p: GRID_SIZES[_size(p, s)][p] for p, s in sizes.items()})  # type: ignore[arg-type]


def _ranges(value: Any, kind: type, make: Any) -> Any:
    if isinstance(value, str):
        return make(value)
    if not isinstance(value, kind):
        raise TypeError(f"ranges == {value!r}, must be a {kind.__name__} or a size name")
    return value


def _count(name: str, fixed: int | None, bounds: tuple[int, int], rng: np.random.Generator) -> int:
    if fixed is not None:
        return fixed
    return int(rng.integers(bounds[0], bounds[1] + 1))


def _fixed(name: str, value: int | None, limit: int) -> int | None:
    """A fixed count given instead of drawing it: None, or an integer in ``1..limit``."""
    return None if value is None else check_int(name, value, 1, limit)


def _grid_sizes(r: GridRanges, lans: int | None, hosts_per_lan: int | None) -> tuple[int | None, int | None]:
    """The fixed LAN and host counts, checked, and the largest grid they allow within MAX_HOSTS."""
    lans = _fixed("lans", lans, MAX_LANS)
    hosts_per_lan = _fixed("hosts_per_lan", hosts_per_lan, MAX_HOSTS)
    most_lans = r.lans[1] if lans is None else lans
    most_hosts = r.hosts_per_lan[1] if hosts_per_lan is None else hosts_per_lan
    if most_lans * most_hosts > MAX_HOSTS:
        raise InvalidGraphError(
            f"a grid of up to {most_lans} LANs of up to {most_hosts} hosts has up to "
            f"{most_lans * most_hosts} hosts, more than MAX_HOSTS == {MAX_HOSTS}"
        )
    return lans, hosts_per_lan


def _recursive_tree(n: int, rng: np.random.Generator) -> list[tuple[int, int]]:
    """The edges of a random recursive tree on 0..n-1 (node k of a random permutation joins one before it)."""
    perm = rng.permutation(n)
    return [(int(perm[int(rng.integers(k))]), int(perm[k])) for k in range(1, n)]


def random_tig(
    ranges: TigRanges | str = "small",
    *,
    seed: int | np.random.Generator = 0,
    tasks: int | None = None,
    extra_edges: float = EXTRA_EDGES_PER_TASK,
) -> TIG:
    """A connected random TIG (see the module docstring for its shape).

    Parameters
    ----------
    ranges : TigRanges or str
        Bounds of the parameters, or a Table 1 size name.
    seed : int or numpy.random.Generator
    tasks : int, optional
        The number of tasks, instead of drawing it (``1 ..``
        :data:`~clustersched.grid.model.MAX_TASKS`).
    extra_edges : float
        Edges beyond the spanning tree, per task (rounded; ``>= 0``).

    Examples
    --------
    >>> t = random_tig("medium", seed=1)
    >>> 32 <= len(t) <= 48, t.is_connected(), bool((t.mcr >= 200).all() and (t.mcr <= 400).all())
    (True, True, True)
    """
    r = _ranges(ranges, TigRanges, tig_ranges)
    tasks = _fixed("tasks", tasks, MAX_TASKS)
    per_task = _extra_edges(extra_edges)
    rng = make_rng(seed)
    n = _count("tasks", tasks, r.tasks, rng)
    edges = {tuple(sorted(e)) for e in _recursive_tree(n, rng)}
    extra = min(int(round(per_task * n)), n * (n - 1) // 2 - len(edges))
    while extra > 0:
        a, b = (int(x) for x in rng.integers(n, size=2))
        if a != b and (min(a, b), max(a, b)) not in edges:
            edges.add((min(a, b), max(a, b)))
            extra -= 1
    pairs = sorted(edges)
    mcr = rng.uniform(r.mcr[0], r.mcr[1], size=n)
    mbr = rng.uniform(r.mbr[0], r.mbr[1], size=len(pairs))
    return TIG.from_arrays(mcr, pairs, mbr)


def _grid_parts(
    r: GridRanges,
    rng: np.random.Generator,
    lans: int | None,
    hosts_per_lan: int | None,
    link_probability: float = LINK_PROBABILITY,
) -> tuple[list[np.ndarray], np.ndarray, dict[tuple[int, int], float]]:
    n = _count("lans", lans, r.lans, rng)
    counts = [_count("hosts_per_lan", hosts_per_lan, r.hosts_per_lan, rng) for _ in range(n)]
    hosts = [rng.uniform(r.power[0], r.power[1], size=c) for c in counts]
    lan_bw = rng.uniform(r.bandwidth[0], r.bandwidth[1], size=n)
    pairs = {tuple(sorted(e)) for e in _recursive_tree(n, rng)}
    coin = rng.random(n * (n - 1) // 2)
    a, b = np.triu_indices(n, 1)  # every pair a < b, in the order of the coins
    pairs.update(zip(a[coin < link_probability].tolist(), b[coin < link_probability].tolist()))
    ordered = sorted(pairs)
    links = dict(zip(ordered, rng.uniform(r.bandwidth[0], r.bandwidth[1], size=len(ordered)).tolist()))
    return hosts, lan_bw, links  # type: ignore[return-value]


def random_grid(
    ranges: GridRanges | str = "small",
    *,
    seed: int | np.random.Generator = 0,
    lans: int | None = None,
    hosts_per_lan: int | None = None,
    link_probability: float = LINK_PROBABILITY,
) -> LanGrid:
    """A random grid of LANs (see the module docstring for its topology).

    Parameters
    ----------
    ranges : GridRanges or str
        Bounds of the parameters, or a Table 2 size name.
    seed : int or numpy.random.Generator
    lans, hosts_per_lan : int, optional
        The number of LANs, and of hosts in every LAN, instead of drawing them
        (see "Limits" in the module docstring).
    link_probability : float
        Probability that two LANs not joined by the spanning tree are linked (in ``[0, 1]``).

    Raises
    ------
    InvalidGraphError
        The grid could have more than :data:`~clustersched.grid.model.MAX_HOSTS` hosts.

    Examples
    --------
    >>> g = random_grid("large", seed=1, lans=4, hosts_per_lan=2)
    >>> g.num_lans, g.num_hosts, g.num_links >= 3
    (4, 8, True)
    """
    r = _ranges(ranges, GridRanges, grid_ranges)
    lans, hosts_per_lan = _grid_sizes(r, lans, hosts_per_lan)
    p = _link_probability(link_probability)
    hosts, lan_bw, links = _grid_parts(r, make_rng(seed), lans, hosts_per_lan, p)
    return LanGrid.from_arrays(hosts, lan_bw, list(links), list(links.values()))


@dataclass(frozen=True, eq=False)
class Instance:
    """A TIG and a grid to map it on; ``planted`` is the hidden valid mapping (host per task), if one was planted."""

    tig: TIG
    grid: LanGrid
    planted: np.ndarray | None


def random_instance(
    tig: TigRanges | str = "small",
    grid: GridRanges | str = "small",
    *,
    seed: int | np.random.Generator = 0,
    tasks: int | None = None,
    lans: int | None = None,
    hosts_per_lan: int | None = None,
    link_probability: float = LINK_PROBABILITY,
    extra_edges: float = EXTRA_EDGES_PER_TASK,
) -> Instance:
    """A TIG and a grid drawn independently: no guarantee that a valid mapping exists.

    Arguments and limits as :func:`random_tig` and :func:`random_grid` (all checked before any draw).
    """
    rt = _ranges(tig, TigRanges, tig_ranges)
    rg = _ranges(grid, GridRanges, grid_ranges)
    tasks = _fixed("tasks", tasks, MAX_TASKS)
    lans, hosts_per_lan = _grid_sizes(rg, lans, hosts_per_lan)
    _link_probability(link_probability)
    _extra_edges(extra_edges)
    rng = make_rng(seed)
    t = random_tig(rt, seed=rng, tasks=tasks, extra_edges=extra_edges)
    g = random_grid(rg, seed=rng, lans=lans, hosts_per_lan=hosts_per_lan, link_probability=link_probability)
    return Instance(t, g, None)


def _bfs(start: int, neighbors: Any, n: int) -> Iterator[int]:
    """Breadth-first from ``start`` (neighbours in the order ``neighbors(x)`` gives them), then the
    nodes it cannot reach by index; lazily, so that a planting that stops early pays only for what it used."""
    seen = {start}
    queue = deque([start])
    yield start
    while queue:
        x = queue.popleft()
        for y in neighbors(x):
            if y not in seen:
                seen.add(y)
                yield y
                queue.append(y)
    yield from (x for x in range(n) if x not in seen)


def _plant(
    t: TIG,
    adjacency: list[list[int]],
    hosts: list[np.ndarray],
    links: dict[tuple[int, int], float],
    rng: np.random.Generator,
) -> np.ndarray | None:
    """The hidden mapping (global host per task), or None when the LANs run out (step 2 of the module docstring).

    The host of the current LAN with the most power left (ties: lowest index) comes from a heap of
    ``(-left, host)``, built when the LAN is reached: the argmax of the power left, in logarithmic time.
    """
    n_lans = len(hosts)
    adjacent: list[list[int]] = [[] for _ in range(n_lans)]
    for a, b in links:
        adjacent[a].append(b)
        adjacent[b].append(a)
    lan_order = list(_bfs(int(rng.integers(n_lans)), lambda lan: sorted(adjacent[lan]), n_lans))
    task_order = _bfs(int(rng.integers(len(t))), adjacency.__getitem__, len(t))
    offsets = np.concatenate([[0], np.cumsum([len(h) for h in hosts])]).tolist()
    mcr = t.mcr.tolist()
    planted = np.empty(len(t), dtype=np.int64)
    at = 0
    heap: list[tuple[float, int]] = []
    for task in task_order:
        need = mcr[task]
        while True:
            if at == n_lans:
                return None
            if not heap:
                heap = [(-left, k) for k, left in enumerate(hosts[lan_order[at]].tolist())]
                heapq.heapify(heap)
            neg_left, k = heap[0]
            if -neg_left >= need:
                heapq.heapreplace(heap, (-(-neg_left - need), k))
                planted[task] = offsets[lan_order[at]] + k
                break
            at += 1
            heap = []
    return planted


def feasible_instance(
    tig: TigRanges | str = "small",
    grid: GridRanges | str = "small",
    *,
    seed: int | np.random.Generator = 0,
    tasks: int | None = None,
    lans: int | None = None,
    hosts_per_lan: int | None = None,
    bandwidth: str = "shared",
    planting: str = "fit-graph",
    link_probability: float = LINK_PROBABILITY,
    extra_edges: float = EXTRA_EDGES_PER_TASK,
) -> Instance:
    """A TIG and a grid on which a valid mapping exists: ``planted`` (see the module docstring).

    Parameters
    ----------
    tig, grid : ranges or size names
        Table 1 and Table 2 bounds (:func:`tig_ranges`, :func:`grid_ranges`).
    seed : int or numpy.random.Generator
    tasks, lans, hosts_per_lan : int, optional
        Fixed counts instead of drawn ones.
    bandwidth : {"shared", "dedicated"}
        The bandwidth model under which ``planted`` must be valid.  The same
        seed gives the same TIG, hosts and drawn values under both; only the
        raised bandwidths (and, with ``"fit-graph"``, the MBRs) differ.
    planting : {"just-enough", "largest-mbr", "fit-graph"}
        How the hidden mapping is made valid (:data:`PLANTINGS`; the module
        docstring gives each, and the sentence of §5 they read).  The same
        seed gives the same drawn TIG, grid and hidden mapping under all three.
    link_probability, extra_edges : float
        As for :func:`random_grid` and :func:`random_tig`.

    Raises
    ------
    InfeasibleError
        :data:`MAX_GRID_DRAWS` grids in a row cannot host the TIG's MCRs
        (e.g. 64 tasks of 600 Mflop/s on 2 LANs of 2 hosts); at once, without
        drawing a grid, when no grid of the ranges could (their total power
        at most is below the MCRs' sum, or a task needs more than any host has).
    InvalidGraphError
        The raised bandwidths exceed :data:`~clustersched.grid.model.MAX_VALUE`,
        or a grid of the ranges could have more than
        :data:`~clustersched.grid.model.MAX_HOSTS` hosts.
    """
    rt = _ranges(tig, TigRanges, tig_ranges)
    rg = _ranges(grid, GridRanges, grid_ranges)
    tasks = _fixed("tasks", tasks, MAX_TASKS)
    lans, hosts_per_lan = _grid_sizes(rg, lans, hosts_per_lan)
    check_bandwidth(bandwidth)
    _planting(planting)
    p = _link_probability(link_probability)
    _extra_edges(extra_edges)
    rng = make_rng(seed)
    t = random_tig(rt, seed=rng, tasks=tasks, extra_edges=extra_edges)
    lan_count = f"{lans} LANs" if lans is not None else f"{rg.lans[0]}-{rg.lans[1]} LANs"
    host_count = f"{hosts_per_lan}" if hosts_per_lan is not None else f"{rg.hosts_per_lan[0]}-{rg.hosts_per_lan[1]}"
    grids = f"grids of {lan_count} of {host_count} hosts ({rg.power[0]:g}-{rg.power[1]:g} Mflop/s each)"
    most_hosts = (rg.lans[1] if lans is None else lans) * (
        rg.hosts_per_lan[1] if hosts_per_lan is None else hosts_per_lan
    )
    if math.fsum(t.mcr.tolist()) > most_hosts * rg.power[1] or float(t.mcr.max()) > rg.power[1]:
        raise InfeasibleError(
            f"none of the {grids} can host the {len(t)} tasks ({t.mcr.sum():.0f} Mflop/s in all, "
            f"{float(t.mcr.max()):g} the most for one); give more LANs or hosts"
        )
    adjacency = t.adjacency()
    for _ in range(MAX_GRID_DRAWS):
        hosts, lan_bw, links = _grid_parts(rg, rng, lans, hosts_per_lan, p)
        planted = _plant(t, adjacency, hosts, links, rng)
        if planted is not None:
            break
    else:
        raise InfeasibleError(
            f"{MAX_GRID_DRAWS} {grids} in a row could not host the {len(t)} tasks ({t.mcr.sum():.0f} Mflop/s in all); "
            "give more LANs or hosts"
        )
    host_lan = np.repeat(np.arange(len(hosts)), [len(h) for h in hosts])
    lan = host_lan[planted]
    # the carrier of every communication under the hidden mapping: its LAN (an int) or its link (a pair)
    carriers: list[int | tuple[int, int]] = [
        a if a == b else (min(a, b), max(a, b)) for a, b in zip(lan[t.edge_u].tolist(), lan[t.edge_v].tolist())
    ]
    missing = sorted({c for c in carriers if isinstance(c, tuple) and c not in links})
    links.update(zip(missing, rng.uniform(rg.bandwidth[0], rg.bandwidth[1], size=len(missing)).tolist()))
    if planting == "fit-graph":
        t = _fit_graph(t, carriers, lan_bw, links, rt.mbr, bandwidth, rng)
    combine = (lambda x, y: x + y) if bandwidth == "shared" else max
    inside = np.zeros(len(hosts))
    traffic: dict[tuple[int, int], float] = {}
    for c, w in zip(carriers, t.mbr.tolist()):
        if isinstance(c, tuple):
            traffic[c] = combine(traffic.get(c, 0.0), w)
        else:
            inside[c] = combine(inside[c], w)
    if bandwidth == "shared" and planting != "fit-graph":
        lan_bw = lan_bw + inside
        for key, used in traffic.items():
            links[key] += used
    else:
        lan_bw = np.maximum(lan_bw, inside)
        for key, used in traffic.items():
            links[key] = max(links[key], used)
    if planting == "largest-mbr" and len(t.mbr):
        largest = float(t.mbr.max())
        used_lans = np.unique(lan)
        lan_bw[used_lans] = np.maximum(lan_bw[used_lans], largest)
        for key in traffic:
            links[key] = max(links[key], largest)
    ordered = sorted(links)
    g = LanGrid.from_arrays(hosts, lan_bw, ordered, [links[k] for k in ordered])
    planted.setflags(write=False)
    return Instance(t, g, planted)


def _fit_graph(
    t: TIG,
    carriers: list[int | tuple[int, int]],
    lan_bw: np.ndarray,
    links: dict[tuple[int, int], float],
    mbr_range: tuple[float, float],
    bandwidth: str,
    rng: np.random.Generator,
) -> TIG:
    """``planting="fit-graph"``: every MBR drawn again from ``mbr_range`` cut at what its carrier can take.

    The cap is the carrier's drawn bandwidth (``dedicated``) or an equal share of it among the communications it
    carries (``shared``); the MBR is uniform on ``[min(low, cap), min(high, cap)]``, so it is the cap itself when
    the whole range lies above it.
    """
    count: dict[int | tuple[int, int], int] = {}
    for c in carriers:
        count[c] = count.get(c, 0) + 1
    capacity = np.array([links[c] if isinstance(c, tuple) else float(lan_bw[c]) for c in carriers])
    if bandwidth == "shared":
        capacity = capacity / np.array([count[c] for c in carriers], dtype=float)
    low, high = mbr_range
    mbr = rng.uniform(np.minimum(low, capacity), np.minimum(high, capacity))
    return TIG.from_arrays(t.mcr, list(zip(t.edge_u.tolist(), t.edge_v.tolist())), mbr)
