"""The two inputs of a QoS-constrained launch-time mapping: a task interaction graph and a grid of LANs.

The model is that of Baraglia, Ferrini, Tonellotto, Ricci & Yahyapour,
*QoS-constrained List Scheduling Heuristics for Parallel Applications on
Grids* (§3).

Task interaction graph (:class:`TIG`)
-------------------------------------
An application is a set of tasks that run continuously and communicate in
both directions at any time.  It is an undirected graph: a node is a task
whose weight is its *minimum computational requirement* (MCR, Mflop/s, the
power it needs), an edge a communication whose weight is its *minimum
bandwidth requirement* (MBR, Mb/s).  From a :class:`networkx.Graph`:

* node attribute ``mcr``: a finite real ``> 0`` (required);
* edge attribute ``mbr``: a finite real ``>= 0`` (required);
* no self-loop (a task does not communicate with itself); directed and
  multi-graphs are refused (communications are bidirectional, one per pair).

Tasks are numbered in the graph's node order (``labels[i]`` is task ``i``);
edges are stored once, ``edge_u < edge_v``, sorted.  A TIG need not be
connected, but QLSE's layers start from one task and reach only its
component, so :func:`clustersched.grid.qlse` refuses a disconnected TIG
(:meth:`TIG.unreachable` says which task it cannot reach).

Grid of LANs (:class:`LanGrid`)
-------------------------------
Every host belongs to one LAN; a LAN is a shared bus with a nominal bandwidth
(Mb/s); some pairs of LANs are joined by a link whose bandwidth (Mb/s) is
known, and two LANs without a direct link cannot communicate at all, even
through a third (§3).  From a :class:`networkx.Graph` whose nodes are LANs:

* node attribute ``bandwidth``: the LAN's bandwidth, finite ``>= 0``;
* node attribute ``hosts``: the computational power (Mflop/s, finite
  ``>= 0``) of each of its hosts, a non-empty sequence;
* edge attribute ``bandwidth``: the link's bandwidth, finite ``>= 0``;
* no self-loop.

LANs are numbered in the graph's node order, hosts LAN by LAN (the hosts of
LAN ``l`` are ``host_offsets[l]:host_offsets[l + 1]``, host ``k`` of a LAN is
named ``(lan label, k)``), links once with ``link_a < link_b``, sorted.

Bad values raise :class:`~clustersched.errors.InvalidGraphError` naming the
task, LAN, edge or link and the value.

Limits
------
Sizes and values are bounded, so that every model the constructors accept
maps in seconds and no sum overflows (two orders of magnitude beyond the
paper's largest instances, Tables 1-2: 64 tasks, 32 LANs of 48 hosts):
at most :data:`MAX_TASKS` = 10,000 tasks and :data:`MAX_EDGES` = 100,000
communications in a TIG; at most :data:`MAX_LANS` = 1,000 LANs,
:data:`MAX_HOSTS` = 100,000 hosts in all and :data:`MAX_LINKS` (every pair of
LANs) in a grid; every MCR, MBR, power and bandwidth at most
:data:`MAX_VALUE` = 1e300.  A bigger model raises
:class:`~clustersched.errors.InvalidGraphError` naming the limit, before any
work.  The limits are the Rust core's (``clustersched._core.GRID_MAX_*``).

Example
-------
>>> import networkx as nx
>>> app = nx.Graph()
>>> app.add_nodes_from([("a", {"mcr": 150.0}), ("b", {"mcr": 120.0}), ("c", {"mcr": 180.0})])
>>> app.add_edge("a", "b", mbr=20.0); app.add_edge("b", "c", mbr=15.0)
>>> tig = TIG.from_networkx(app)
>>> tig.labels, tig.mcr.tolist(), tig.mbr.tolist()
(('a', 'b', 'c'), [150.0, 120.0, 180.0], [20.0, 15.0])
>>> net = nx.Graph()
>>> net.add_node("pisa", bandwidth=100.0, hosts=[700.0, 650.0])
>>> net.add_node("dortmund", bandwidth=80.0, hosts=[900.0])
>>> net.add_edge("pisa", "dortmund", bandwidth=30.0)
>>> grid = LanGrid.from_networkx(net)
>>> grid.host_lan.tolist(), grid.lan_power.tolist()
([0, 0, 1], [1350.0, 900.0])
"""

from __future__ import annotations

import collections.abc as abc
import itertools
import math
import numbers
from typing import Any, Callable, Hashable, Iterable, NoReturn, Sequence

import numpy as np

from .. import _core
from .._checks import check_int, frozen, short_repr
from ..errors import InvalidGraphError, naming_nodes

__all__ = [
    "MAX_EDGES",
    "MAX_HOSTS",
    "MAX_LANS",
    "MAX_LINKS",
    "MAX_TASKS",
    "MAX_VALUE",
    "LanGrid",
    "TIG",
    "check_grid",
    "check_pair",
    "check_tig",
]

#: Most tasks of a TIG.
MAX_TASKS: int = _core.GRID_MAX_TASKS
#: Most edges (communications) of a TIG.
MAX_EDGES: int = _core.GRID_MAX_EDGES
#: Most LANs of a grid.
MAX_LANS: int = _core.GRID_MAX_LANS
#: Most hosts of a grid, all LANs together.
MAX_HOSTS: int = _core.GRID_MAX_HOSTS
#: Most links of a grid (every pair of MAX_LANS LANs).
MAX_LINKS: int = _core.GRID_MAX_LINKS
#: Largest MCR, MBR, power or bandwidth (Mflop/s, Mb/s).
MAX_VALUE: float = _core.GRID_MAX_VALUE


def _too_many(what: str, count: int | str, limit_name: str, limit: int) -> NoReturn:
    raise InvalidGraphError(f"{what} has {count}, more than {limit_name} == {limit}")


def _listed(name: str, value: Any, limit: int, too_many: Callable[[int | str], NoReturn]) -> list[Any]:
    """``value`` (a sequence or an iterable) as a list of at most ``limit`` items.

    TypeError for a non-iterable (or a string); ``too_many(count)`` is called,
    before the items are read when their number is known, for more than ``limit``.
    """
    if value is None or isinstance(value, (str, bytes, dict)) or not isinstance(value, abc.Iterable):
        raise TypeError(f"{name} == {short_repr(value)}, must be a sequence")
    if isinstance(value, abc.Sized) and len(value) > limit:
        too_many(len(value))
    if isinstance(value, np.ndarray):
        value = value.tolist()
    items = list(itertools.islice(value, limit + 1))
    if len(items) > limit:
        too_many(f"more than {limit}")
    return items


def _index_pairs(name: str, items: list[Any], n: int, what: str, has: str) -> list[tuple[int, int]]:
    """``items`` as pairs of indices in ``0..n-1``, else ValueError naming the first bad one."""
    pairs = []
    for k, e in enumerate(items):
        if type(e) is tuple and len(e) == 2 and type(e[0]) is int and type(e[1]) is int:
            pass  # the common case, without the abstract-class checks
        elif not isinstance(e, abc.Iterable) or isinstance(e, (str, bytes)):
            raise ValueError(f"{name}[{k}] == {short_repr(e)}, must be a pair of {what}")
        else:
            e = tuple(itertools.islice(e, 3))
            if len(e) != 2 or not all(isinstance(x, numbers.Integral) and not isinstance(x, bool) for x in e):
                raise ValueError(f"{name}[{k}] == {short_repr(e)}, must be a pair of {what}")
        if not (0 <= e[0] < n and 0 <= e[1] < n):
            raise ValueError(f"{name}[{k}] == {e!r}: {has} 0..{n - 1}")
        pairs.append((int(e[0]), int(e[1])))
    return pairs


def _distinct(labels: list[Hashable], what: str) -> None:
    try:
        distinct = len(set(labels)) == len(labels)
    except TypeError:
        bad = next(label for label in labels if not isinstance(label, abc.Hashable))
        raise TypeError(f"labels contains {short_repr(bad)}, {what} labels must be hashable") from None
    if not distinct:
        raise ValueError(f"{what} labels must be distinct")


def _real(value: Any) -> float | None:
    """``value`` as a float if it is a real number (bool refused), else None."""
    if type(value) is float:  # the common case, without the abstract-class checks
        return value
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        return None
    try:
        return float(value)
    except OverflowError:
        return math.inf


def _check_graph(graph: Any, what: str) -> None:
    import networkx as nx

    if not isinstance(graph, nx.Graph) or graph.is_directed() or graph.is_multigraph():
        raise TypeError(f"{what} == {graph!r}, must be an undirected networkx.Graph (not a DiGraph or a MultiGraph)")


class TIG:
    """A task interaction graph (see the module docstring for the model).

    Build one with :meth:`from_networkx`, :meth:`from_arrays` or a generator
    of :mod:`clustersched.grid.generators`.

    Attributes
    ----------
    name : str
    labels : tuple
        ``labels[i]`` is the node label of task ``i``.
    mcr : numpy.ndarray of float64
        Minimum computational requirement of each task, Mflop/s.
    edge_u, edge_v : numpy.ndarray of int64
        The tasks of each edge, ``edge_u < edge_v``, sorted by ``(u, v)``.
    mbr : numpy.ndarray of float64
        Minimum bandwidth requirement of each edge, Mb/s.
    adj_offsets, adj, adj_edge : numpy.ndarray of int64
        Neighbours in CSR form: the neighbours of ``i`` are
        ``adj[adj_offsets[i]:adj_offsets[i + 1]]`` (increasing), joined by
        edges ``adj_edge[...]``.
    """

    __slots__ = (
        "name",
        "labels",
        "mcr",
        "edge_u",
        "edge_v",
        "mbr",
        "adj_offsets",
        "adj",
        "adj_edge",
        "_index",
        "_core",
    )

    def __init__(
        self,
        *,
        name: str,
        labels: Sequence[Hashable],
        mcr: np.ndarray,
        edge_u: np.ndarray,
        edge_v: np.ndarray,
        mbr: np.ndarray,
    ) -> None:
        # internal: the arrays are already checked, edges u < v, sorted, distinct
        n = len(labels)
        self.name = name
        self.labels = tuple(labels)
        self._index = {label: i for i, label in enumerate(self.labels)}
        self.mcr = frozen(np.ascontiguousarray(mcr, dtype=np.float64))
        self.edge_u = frozen(np.ascontiguousarray(edge_u, dtype=np.int64))
        self.edge_v = frozen(np.ascontiguousarray(edge_v, dtype=np.int64))
        self.mbr = frozen(np.ascontiguousarray(mbr, dtype=np.float64))
        ends = np.concatenate([self.edge_u, self.edge_v])
        others = np.concatenate([self.edge_v, self.edge_u])
        ids = np.concatenate([np.arange(len(self.mbr)), np.arange(len(self.mbr))])
        order = np.lexsort((others, ends))
        self.adj_offsets = frozen(np.concatenate([[0], np.cumsum(np.bincount(ends, minlength=n))]).astype(np.int64))
        self.adj = frozen(np.ascontiguousarray(others[order], dtype=np.int64))
        self.adj_edge = frozen(np.ascontiguousarray(ids[order], dtype=np.int64))
        self._core: Any = None

    # -- construction ---------------------------------------------------------------
    @classmethod
    def from_networkx(cls, graph: Any, name: str | None = None) -> TIG:
        """Validates ``graph`` (node attribute ``mcr``, edge attribute ``mbr``) and converts it.

        Raises
        ------
        TypeError
            ``graph`` is not an undirected, simple :class:`networkx.Graph`.
        InvalidGraphError
            No task, a missing or bad MCR or MBR, a self-loop.
        """
        _check_graph(graph, "graph")
        if graph.number_of_nodes() > MAX_TASKS:
            _too_many("the TIG", f"{graph.number_of_nodes()} tasks", "MAX_TASKS", MAX_TASKS)
        if graph.number_of_edges() > MAX_EDGES:
            _too_many("the TIG", f"{graph.number_of_edges()} edges", "MAX_EDGES", MAX_EDGES)
        labels = list(graph.nodes)
        index = {label: i for i, label in enumerate(labels)}
        mcr = [graph.nodes[v].get("mcr") for v in labels]
        edges = [(u, v, d.get("mbr")) for u, v, d in graph.edges(data=True)]
        return cls._build(
            labels,
            mcr,
            [index[u] for u, _, _ in edges],
            [index[v] for _, v, _ in edges],
            [w for _, _, w in edges],
            name=graph.graph.get("name", "") if name is None else name,
        )

    @classmethod
    def from_arrays(
        cls,
        mcr: Iterable[float],
        edges: Iterable[Sequence[int]],
        mbr: Iterable[float],
        *,
        labels: Sequence[Hashable] | None = None,
        name: str = "",
    ) -> TIG:
        """A TIG from task MCRs, edges as pairs of task indices, and their MBRs.

        Examples
        --------
        >>> t = TIG.from_arrays([100.0, 200.0, 150.0], [(1, 0), (1, 2)], [10.0, 30.0])
        >>> t.edge_u.tolist(), t.edge_v.tolist(), t.mbr.tolist()
        ([0, 1], [1, 2], [10.0, 30.0])
        >>> TIG.from_arrays([100.0, -5.0], [], [])
        Traceback (most recent call last):
        ...
        clustersched.errors.InvalidGraphError: task 1: MCR == -5.0, must be a finite real > 0 (Mflop/s)
        """
        mcr = _listed("mcr", mcr, MAX_TASKS, lambda n: _too_many("the TIG", f"{n} tasks", "MAX_TASKS", MAX_TASKS))
        edges = _listed("edges", edges, MAX_EDGES, lambda n: _too_many("the TIG", f"{n} edges", "MAX_EDGES", MAX_EDGES))
        pairs = _index_pairs("edges", edges, len(mcr), "task indices", "the TIG has tasks")
        mbr = _listed("mbr", mbr, MAX_EDGES, lambda n: _too_many("mbr", f"{n} values", "MAX_EDGES", MAX_EDGES))
        if len(mbr) != len(pairs):
            raise ValueError(f"mbr has {len(mbr)} values for {len(pairs)} edges")
        labels = (
            list(range(len(mcr)))
            if labels is None
            else _listed(
                "labels", labels, MAX_TASKS, lambda n: _too_many("labels", f"{n} values", "MAX_TASKS", MAX_TASKS)
            )
        )
        if len(labels) != len(mcr):
            raise ValueError(f"labels has {len(labels)} values for {len(mcr)} tasks")
        return cls._build(labels, mcr, [int(e[0]) for e in pairs], [int(e[1]) for e in pairs], mbr, name=name)

    @classmethod
    def _build(
        cls, labels: list[Hashable], mcr: list[Any], u: list[int], v: list[int], mbr: list[Any], *, name: str
    ) -> TIG:
        if not isinstance(name, str):
            raise TypeError(f"name == {name!r}, must be a str")
        if not labels:
            raise InvalidGraphError("the TIG has no task")
        if len(labels) > MAX_TASKS:
            _too_many("the TIG", f"{len(labels)} tasks", "MAX_TASKS", MAX_TASKS)
        if len(u) > MAX_EDGES:
            _too_many("the TIG", f"{len(u)} edges", "MAX_EDGES", MAX_EDGES)
        _distinct(labels, "task")
        for i, m in enumerate(mcr):
            x = _real(m)
            if x is None or not (math.isfinite(x) and x > 0):
                what = (
                    "has no MCR (node attribute 'mcr')"
                    if m is None
                    else f"MCR == {m!r}, must be a finite real > 0 (Mflop/s)"
                )
                raise InvalidGraphError(f"task {labels[i]!r}: {what}", node=labels[i], row=i, field="mcr", value=m)
            if x > MAX_VALUE:
                raise InvalidGraphError(
                    f"task {labels[i]!r}: MCR == {m!r}, must be <= {MAX_VALUE:g} (Mflop/s)",
                    node=labels[i],
                    row=i,
                    field="mcr",
                    value=m,
                )
        seen: dict[tuple[int, int], int] = {}
        for k, (a, b, w) in enumerate(zip(u, v, mbr)):
            edge = (labels[a], labels[b])
            if a == b:
                raise InvalidGraphError(
                    f"task {labels[a]!r} communicates with itself (a self-loop)",
                    node=labels[a],
                    row=a,
                    edge=edge,
                    field="mbr",
                    value=w,
                )
            x = _real(w)
            if x is None or not (math.isfinite(x) and x >= 0):
                what = (
                    "has no MBR (edge attribute 'mbr')"
                    if w is None
                    else f"MBR == {w!r}, must be a finite real >= 0 (Mb/s)"
                )
                raise InvalidGraphError(f"edge {edge!r}: {what}", edge=edge, field="mbr", value=w)
            if x > MAX_VALUE:
                raise InvalidGraphError(
                    f"edge {edge!r}: MBR == {w!r}, must be <= {MAX_VALUE:g} (Mb/s)", edge=edge, field="mbr", value=w
                )
            key = (min(a, b), max(a, b))
            if key in seen:
                raise InvalidGraphError(f"edge {edge!r} is given twice", edge=edge, field="mbr", value=w)
            seen[key] = k
        keys = sorted(seen)
        return cls(
            name=name,
            labels=labels,
            mcr=np.array([float(m) for m in mcr]),
            edge_u=np.array([a for a, _ in keys], dtype=np.int64),
            edge_v=np.array([b for _, b in keys], dtype=np.int64),
            mbr=np.array([float(mbr[seen[key]]) for key in keys], dtype=np.float64),
        )

    def to_networkx(self) -> Any:
        """The TIG as a :class:`networkx.Graph` (node attribute ``mcr``, edge attribute ``mbr``); round-trips."""
        import networkx as nx

        g = nx.Graph(name=self.name) if self.name else nx.Graph()
        g.add_nodes_from((label, {"mcr": float(m)}) for label, m in zip(self.labels, self.mcr))
        g.add_edges_from(
            (self.labels[a], self.labels[b], {"mbr": float(w)}) for a, b, w in zip(self.edge_u, self.edge_v, self.mbr)
        )
        return g

    # -- queries ------------------------------------------------------------------------
    def __len__(self) -> int:
        return len(self.labels)

    def __repr__(self) -> str:
        return f"TIG({self.name!r}, {len(self)} tasks, {self.num_edges} edges)"

    @property
    def num_edges(self) -> int:
        return len(self.mbr)

    def index(self, label: Hashable) -> int:
        """The index of the task labelled ``label`` (KeyError if none)."""
        return self._index[label]

    def adjacency(self) -> list[list[int]]:
        """The neighbours of every task, by increasing index, as lists."""
        adj, offsets = self.adj.tolist(), self.adj_offsets.tolist()
        return [adj[offsets[i] : offsets[i + 1]] for i in range(len(self))]

    def neighbors(self, i: int) -> np.ndarray:
        """The neighbours of task ``i`` by increasing index (``i`` in ``0 .. len(self) - 1``)."""
        i = check_int("i", i, 0, len(self) - 1)
        return self.adj[self.adj_offsets[i] : self.adj_offsets[i + 1]]

    def unreachable(self) -> int | None:
        """The first task (by index) that task 0 cannot reach, or None when the TIG is connected."""
        adj, offsets = self.adj.tolist(), self.adj_offsets.tolist()
        seen = [False] * len(self)
        seen[0] = True
        stack = [0]
        while stack:
            t = stack.pop()
            for j in adj[offsets[t] : offsets[t + 1]]:
                if not seen[j]:
                    seen[j] = True
                    stack.append(j)
        return next((t for t, reached in enumerate(seen) if not reached), None)

    def is_connected(self) -> bool:
        return self.unreachable() is None

    def require_connected(self, why: str) -> None:
        """Raises InvalidGraphError naming a task out of reach when the TIG is not connected."""
        t = self.unreachable()
        if t is not None:
            raise InvalidGraphError(
                f"the TIG is not connected: task {self.labels[t]!r} cannot be reached from task "
                f"{self.labels[0]!r} ({why})",
                node=self.labels[t],
                row=t,
            )

    @property
    def core(self) -> Any:
        """The TIG in the Rust core (built on first use)."""
        if self._core is None:
            from .. import _core

            with naming_nodes(self.labels):
                self._core = _core.Tig(self.mcr, self.edge_u, self.edge_v, self.mbr)
        return self._core


class LanGrid:
    """A grid of LANs (see the module docstring for the model).

    Attributes
    ----------
    name : str
    labels : tuple
        ``labels[l]`` is the node label of LAN ``l``.
    host_offsets : numpy.ndarray of int64
        The hosts of LAN ``l`` are ``host_offsets[l]:host_offsets[l + 1]``.
    host_power : numpy.ndarray of float64
        Computational power of each host, Mflop/s.
    host_lan : numpy.ndarray of int64
        The LAN of each host.
    lan_bandwidth : numpy.ndarray of float64
        Bandwidth of each LAN, Mb/s.
    lan_power : numpy.ndarray of float64
        Total power of each LAN's hosts.
    link_a, link_b : numpy.ndarray of int64
        The LANs of each link, ``link_a < link_b``, sorted by ``(a, b)``.
    link_bandwidth : numpy.ndarray of float64
        Bandwidth of each link, Mb/s.
    """

    __slots__ = (
        "name",
        "labels",
        "host_offsets",
        "host_power",
        "host_lan",
        "lan_bandwidth",
        "lan_power",
        "link_a",
        "link_b",
        "link_bandwidth",
        "_links",
        "_core",
    )

    def __init__(
        self,
        *,
        name: str,
        labels: Sequence[Hashable],
        host_offsets: np.ndarray,
        host_power: np.ndarray,
        lan_bandwidth: np.ndarray,
        link_a: np.ndarray,
        link_b: np.ndarray,
        link_bandwidth: np.ndarray,
    ) -> None:
        self.name = name
        self.labels = tuple(labels)
        self.host_offsets = frozen(np.ascontiguousarray(host_offsets, dtype=np.int64))
        self.host_power = frozen(np.ascontiguousarray(host_power, dtype=np.float64))
        self.host_lan = frozen(np.repeat(np.arange(len(self.labels), dtype=np.int64), np.diff(self.host_offsets)))
        self.lan_bandwidth = frozen(np.ascontiguousarray(lan_bandwidth, dtype=np.float64))
        # summed in host order from 0.0, as the Rust core does
        self.lan_power = frozen(
            np.array(
                [_sum_in_order(self.host_power[a:b]) for a, b in zip(self.host_offsets[:-1], self.host_offsets[1:])]
            )
        )
        self.link_a = frozen(np.ascontiguousarray(link_a, dtype=np.int64))
        self.link_b = frozen(np.ascontiguousarray(link_b, dtype=np.int64))
        self.link_bandwidth = frozen(np.ascontiguousarray(link_bandwidth, dtype=np.float64))
        self._links = {(int(a), int(b)): k for k, (a, b) in enumerate(zip(self.link_a, self.link_b))}
        self._core: Any = None

    # -- construction ---------------------------------------------------------------
    @classmethod
    def from_networkx(cls, graph: Any, name: str | None = None) -> LanGrid:
        """Validates ``graph`` (LAN nodes with ``bandwidth`` and ``hosts``, links with ``bandwidth``) and converts it.

        Raises
        ------
        TypeError
            ``graph`` is not an undirected, simple :class:`networkx.Graph`.
        InvalidGraphError
            No LAN, a LAN without hosts, a missing or bad power or bandwidth, a self-loop.
        """
        _check_graph(graph, "graph")
        if graph.number_of_nodes() > MAX_LANS:
            _too_many("the grid", f"{graph.number_of_nodes()} LANs", "MAX_LANS", MAX_LANS)
        if graph.number_of_edges() > MAX_LINKS:
            _too_many("the grid", f"{graph.number_of_edges()} links", "MAX_LINKS", MAX_LINKS)
        labels = list(graph.nodes)
        index = {label: i for i, label in enumerate(labels)}
        links = [(index[a], index[b], d.get("bandwidth")) for a, b, d in graph.edges(data=True)]
        return cls._build(
            labels,
            [graph.nodes[v].get("hosts") for v in labels],
            [graph.nodes[v].get("bandwidth") for v in labels],
            [(a, b) for a, b, _ in links],
            [w for _, _, w in links],
            name=graph.graph.get("name", "") if name is None else name,
        )

    @classmethod
    def from_arrays(
        cls,
        hosts: Sequence[Iterable[float]],
        lan_bandwidth: Iterable[float],
        links: Iterable[Sequence[int]],
        link_bandwidth: Iterable[float],
        *,
        labels: Sequence[Hashable] | None = None,
        name: str = "",
    ) -> LanGrid:
        """A grid from the host powers of each LAN, the LAN bandwidths, links as pairs of LAN indices and their
        bandwidths.

        Examples
        --------
        >>> g = LanGrid.from_arrays([[700.0, 650.0], [900.0]], [100.0, 80.0], [(0, 1)], [30.0])
        >>> g.num_hosts, g.link(1, 0), g.link_bandwidth.tolist()
        (3, 0, [30.0])
        >>> LanGrid.from_arrays([[700.0], []], [100.0, 80.0], [], [])
        Traceback (most recent call last):
        ...
        clustersched.errors.InvalidGraphError: LAN 1: has no host
        """
        lans = lambda n: _too_many("the grid", f"{n} LANs", "MAX_LANS", MAX_LANS)  # noqa: E731
        hosts = _listed("hosts", hosts, MAX_LANS, lans)
        lan_bandwidth = _listed("lan_bandwidth", lan_bandwidth, MAX_LANS, lans)
        if len(lan_bandwidth) != len(hosts):
            raise ValueError(f"lan_bandwidth has {len(lan_bandwidth)} values for {len(hosts)} LANs")
        links = _listed(
            "links", links, MAX_LINKS, lambda n: _too_many("the grid", f"{n} links", "MAX_LINKS", MAX_LINKS)
        )
        pairs = _index_pairs("links", links, len(hosts), "LAN indices", "the grid has LANs")
        link_bandwidth = _listed(
            "link_bandwidth",
            link_bandwidth,
            MAX_LINKS,
            lambda n: _too_many("link_bandwidth", f"{n} values", "MAX_LINKS", MAX_LINKS),
        )
        if len(link_bandwidth) != len(pairs):
            raise ValueError(f"link_bandwidth has {len(link_bandwidth)} values for {len(pairs)} links")
        labels = (
            list(range(len(hosts)))
            if labels is None
            else _listed("labels", labels, MAX_LANS, lambda n: _too_many("labels", f"{n} values", "MAX_LANS", MAX_LANS))
        )
        if len(labels) != len(hosts):
            raise ValueError(f"labels has {len(labels)} values for {len(hosts)} LANs")
        return cls._build(labels, hosts, lan_bandwidth, [(int(a), int(b)) for a, b in pairs], link_bandwidth, name=name)

    @classmethod
    def _build(
        cls,
        labels: list[Hashable],
        hosts: list[Any],
        lan_bandwidth: list[Any],
        links: list[tuple[int, int]],
        link_bandwidth: list[Any],
        *,
        name: str,
    ) -> LanGrid:
        if not isinstance(name, str):
            raise TypeError(f"name == {name!r}, must be a str")
        if not labels:
            raise InvalidGraphError("the grid has no LAN")
        if len(labels) > MAX_LANS:
            _too_many("the grid", f"{len(labels)} LANs", "MAX_LANS", MAX_LANS)
        if len(links) > MAX_LINKS:
            _too_many("the grid", f"{len(links)} links", "MAX_LINKS", MAX_LINKS)
        _distinct(labels, "LAN")
        powers: list[float] = []
        counts = []
        for row, (label, h, bw) in enumerate(zip(labels, hosts, lan_bandwidth)):
            if h is None:
                raise InvalidGraphError(
                    f"LAN {label!r}: has no hosts (node attribute 'hosts')", node=label, row=row, field="hosts", value=h
                )
            if isinstance(h, (str, bytes, dict)) or not isinstance(h, abc.Iterable):
                raise InvalidGraphError(
                    f"LAN {label!r}: hosts == {short_repr(h)}, must be a sequence of powers (Mflop/s)",
                    node=label,
                    row=row,
                    field="hosts",
                    value=h,
                )
            room = MAX_HOSTS - len(powers)
            if isinstance(h, abc.Sized) and len(h) > room:
                _too_many(
                    "the grid", f"more than {MAX_HOSTS} hosts (LAN {label!r} alone {len(h)})", "MAX_HOSTS", MAX_HOSTS
                )
            h = list(itertools.islice(h.tolist() if isinstance(h, np.ndarray) else h, room + 1))
            if len(h) > room:
                _too_many("the grid", f"more than {MAX_HOSTS} hosts", "MAX_HOSTS", MAX_HOSTS)
            if not h:
                raise InvalidGraphError(f"LAN {label!r}: has no host", node=label, row=row, field="hosts", value=h)
            for k, p in enumerate(h):
                x = _real(p)
                if x is None or not (math.isfinite(x) and x >= 0):
                    raise InvalidGraphError(
                        f"LAN {label!r} host {k}: power == {p!r}, must be a finite real >= 0 (Mflop/s)",
                        node=label,
                        row=row,
                        field="hosts",
                        value=p,
                    )
                if x > MAX_VALUE:
                    raise InvalidGraphError(
                        f"LAN {label!r} host {k}: power == {p!r}, must be <= {MAX_VALUE:g} (Mflop/s)",
                        node=label,
                        row=row,
                        field="hosts",
                        value=p,
                    )
                powers.append(x)
            counts.append(len(h))
            x = _real(bw)
            if x is None or not (math.isfinite(x) and x >= 0):
                what = (
                    "has no bandwidth (node attribute 'bandwidth')"
                    if bw is None
                    else f"bandwidth == {bw!r}, must be a finite real >= 0 (Mb/s)"
                )
                raise InvalidGraphError(f"LAN {label!r}: {what}", node=label, row=row, field="bandwidth", value=bw)
            if x > MAX_VALUE:
                raise InvalidGraphError(
                    f"LAN {label!r}: bandwidth == {bw!r}, must be <= {MAX_VALUE:g} (Mb/s)",
                    node=label,
                    row=row,
                    field="bandwidth",
                    value=bw,
                )
        seen: dict[tuple[int, int], int] = {}
        for k, ((a, b), w) in enumerate(zip(links, link_bandwidth)):
            edge = (labels[a], labels[b])
            if a == b:
                raise InvalidGraphError(
                    f"LAN {labels[a]!r} is linked to itself (a self-loop)",
                    node=labels[a],
                    row=a,
                    edge=edge,
                    field="bandwidth",
                    value=w,
                )
            x = _real(w)
            if x is None or not (math.isfinite(x) and x >= 0):
                what = (
                    "has no bandwidth (edge attribute 'bandwidth')"
                    if w is None
                    else f"bandwidth == {w!r}, must be a finite real >= 0 (Mb/s)"
                )
                raise InvalidGraphError(f"link {edge!r}: {what}", edge=edge, field="bandwidth", value=w)
            if x > MAX_VALUE:
                raise InvalidGraphError(
                    f"link {edge!r}: bandwidth == {w!r}, must be <= {MAX_VALUE:g} (Mb/s)",
                    edge=edge,
                    field="bandwidth",
                    value=w,
                )
            key = (min(a, b), max(a, b))
            if key in seen:
                raise InvalidGraphError(f"link {edge!r} is given twice", edge=edge, field="bandwidth", value=w)
            seen[key] = k
        keys = sorted(seen)
        return cls(
            name=name,
            labels=labels,
            host_offsets=np.concatenate([[0], np.cumsum(counts)]),
            host_power=np.array(powers, dtype=np.float64),
            lan_bandwidth=np.array([float(b) for b in lan_bandwidth]),
            link_a=np.array([a for a, _ in keys], dtype=np.int64),
            link_b=np.array([b for _, b in keys], dtype=np.int64),
            link_bandwidth=np.array([float(link_bandwidth[seen[key]]) for key in keys], dtype=np.float64),
        )

    def to_networkx(self) -> Any:
        """The grid as a :class:`networkx.Graph` (LAN ``bandwidth`` and ``hosts``, link ``bandwidth``); round-trips."""
        import networkx as nx

        g = nx.Graph(name=self.name) if self.name else nx.Graph()
        for lan, label in enumerate(self.labels):
            g.add_node(label, bandwidth=float(self.lan_bandwidth[lan]), hosts=self.hosts(lan).tolist())
        g.add_edges_from(
            (self.labels[a], self.labels[b], {"bandwidth": float(w)})
            for a, b, w in zip(self.link_a, self.link_b, self.link_bandwidth)
        )
        return g

    # -- queries ------------------------------------------------------------------------
    def __repr__(self) -> str:
        return f"LanGrid({self.name!r}, {self.num_lans} LANs, {self.num_hosts} hosts, {self.num_links} links)"

    @property
    def num_lans(self) -> int:
        return len(self.labels)

    @property
    def num_hosts(self) -> int:
        return len(self.host_power)

    @property
    def num_links(self) -> int:
        return len(self.link_bandwidth)

    def hosts(self, lan: int) -> np.ndarray:
        """The powers of the hosts of LAN ``lan`` (in ``0 .. num_lans - 1``)."""
        lan = check_int("lan", lan, 0, self.num_lans - 1)
        return self.host_power[self.host_offsets[lan] : self.host_offsets[lan + 1]]

    def host_name(self, host: int) -> tuple[Hashable, int]:
        """``(LAN label, index in its LAN)`` of global host ``host`` (in ``0 .. num_hosts - 1``)."""
        host = check_int("host", host, 0, self.num_hosts - 1)
        lan = int(self.host_lan[host])
        return self.labels[lan], int(host - self.host_offsets[lan])

    def link(self, a: int, b: int) -> int | None:
        """The index of the link between LANs ``a`` and ``b``, or None when they are not directly linked."""
        a, b = check_int("a", a, 0, self.num_lans - 1), check_int("b", b, 0, self.num_lans - 1)
        return self._links.get((a, b) if a < b else (b, a))

    @property
    def core(self) -> Any:
        """The grid in the Rust core (built on first use)."""
        if self._core is None:
            from .. import _core

            with naming_nodes(self.labels):
                self._core = _core.LanGrid(
                    self.host_offsets,
                    self.host_power,
                    self.lan_bandwidth,
                    self.link_a,
                    self.link_b,
                    self.link_bandwidth,
                )
        return self._core


def check_tig(value: object, name: str = "tig") -> TIG:
    """``value`` if it is a :class:`TIG`, else TypeError naming ``name``."""
    if not isinstance(value, TIG):
        raise TypeError(f"{name} == {short_repr(value)}, must be a clustersched.grid.TIG")
    return value


def check_grid(value: object, name: str = "grid") -> LanGrid:
    """``value`` if it is a :class:`LanGrid`, else TypeError naming ``name``."""
    if not isinstance(value, LanGrid):
        raise TypeError(f"{name} == {short_repr(value)}, must be a clustersched.grid.LanGrid")
    return value


def check_pair(tig: object, grid: object) -> None:
    """TypeError unless ``tig`` is a :class:`TIG` and ``grid`` a :class:`LanGrid`."""
    check_tig(tig)
    check_grid(grid)


def _sum_in_order(values: np.ndarray) -> float:
    """Left-to-right sum from 0.0 (numpy's pairwise sum may round differently)."""
    total = 0.0
    for v in values.tolist():
        total += v
    return total
