"""Parallel task graphs (PTGs): DAGs of moldable, Amdahl-law tasks.

The model is that of Casanova, Desprez & Suter, *On Cluster Resource
Allocation for Multiple Parallel Task Graphs* (INRIA RR-7224, 2010), §3.1 and
§5.1.2.  A PTG is a DAG whose vertices are data-parallel tasks and whose edges
are precedence constraints (data go through files, so edges carry no cost).
Task ``v`` has a sequential work ``work[v]`` (flop) and a non-parallelisable
fraction ``alpha[v]`` (Amdahl's law); on ``p`` processors of ``speed`` flop/s
it runs

    T(v, p) = (work[v] / speed) * (alpha[v] + (1 - alpha[v]) / p)   seconds.

This is also the exact floating-point evaluation order every implementation
(:meth:`PTG.exec_time`, the Rust kernels, ``tests/reference/ptg.py``) uses, so
that they agree bit for bit: one division ``work / speed``, then
``(1 - alpha) / p``, the sum with ``alpha``, and the product.

Building a PTG
--------------
A user describes a PTG as a :class:`networkx.DiGraph`:

* node labels: any hashable (str or int if the PTG goes to JSON);
* node attribute ``work``: sequential work in flop, a finite real ``> 0``
  (required);
* node attribute ``alpha``: Amdahl serial fraction, a real in ``[0, 1]``;
  **optional, default 0** (a perfectly parallel task).  We default to 0 rather
  than requiring it because a graph of plain sequential costs is the most
  common input and 0 is the neutral value of the model (``T(v, p) = T(v, 1) /
  p``); generators always set it explicitly;
* node attribute ``synthetic``: optional bool.  ``True`` marks a structural
  zero-work task such as the entry and exit tasks this class adds (see below);
  only such tasks may have ``work == 0``.  It exists so that
  ``to_networkx(include_synthetic=True)`` round-trips;
* other node attributes are kept and given back by :meth:`PTG.to_networkx`
  (e.g. the generators' ``level``); edge attributes are ignored.

:meth:`PTG.from_networkx` validates the graph and raises
:class:`~clustersched.errors.InvalidWorkloadError`, naming the offending task,
for an empty graph, a missing / non-numeric / non-finite / non-positive
``work``, an ``alpha`` outside ``[0, 1]``, a self-loop or a cycle.

Single entry and exit (§3.1 assumes them "without loss of generality"): when
the graph has several source tasks, a synthetic entry task (``work = 0``,
``alpha = 0``, label ``"__entry__"``) is added with an edge to each source;
likewise a synthetic exit task (label ``"__exit__"``) after several sinks.
(A label already in use gets underscores appended until it is free.)  A
zero-work task takes no time on any allocation, so this changes no makespan.

Indices
-------
Tasks are numbered ``0 .. n-1`` in a deterministic topological order: Kahn's
algorithm that always takes, among the tasks whose predecessors are all
numbered, the one with the smallest ``(str(label), repr(label))``.  So the
entry task is ``0``, the exit task is ``n - 1``, every edge goes from a lower
to a higher index, and the numbering depends only on the graph, never on
insertion or hash order.  ``labels[i]`` is the label of task ``i``.

Arrays (read-only, C-contiguous; what the Rust kernels receive)
----------------------------------------------------------------
``work``, ``alpha`` (float64, length n); ``synthetic`` (bool, length n);
``succ_offsets``, ``pred_offsets`` (int64, length n + 1) and ``succ``,
``pred`` (int64, length m): the successors of ``i`` are
``succ[succ_offsets[i]:succ_offsets[i + 1]]``, sorted increasingly (CSR), and
likewise for predecessors.

Example
-------
>>> import networkx as nx
>>> g = nx.DiGraph()
>>> g.add_node("a", work=4e9, alpha=0.0)
>>> g.add_node("b", work=2e9, alpha=0.5)
>>> g.add_node("c", work=2e9, alpha=0.5)
>>> g.add_edges_from([("a", "b"), ("a", "c")])
>>> ptg = PTG.from_networkx(g, name="fork")
>>> ptg.labels, ptg.entry, ptg.exit
(('a', 'b', 'c', '__exit__'), 0, 3)
>>> ptg.exec_time(2, speed=1e9).tolist()
[2.0, 1.5, 1.5, 0.0]
>>> ptg.levels().tolist()
[0, 1, 1, 2]
"""

from __future__ import annotations

import gzip
import heapq
import json
import math
import numbers
import os
import zlib
from typing import Any, Iterable, Sequence

import networkx as nx
import numpy as np

from .._checks import check_float, frozen, short_repr
from ..errors import InvalidWorkloadError

__all__ = ["PTG", "read_ptgs", "write_ptgs"]

#: Labels given to the synthetic entry / exit tasks (underscores appended on collision).
ENTRY_LABEL = "__entry__"
EXIT_LABEL = "__exit__"

#: Identifies the JSON files written by :func:`write_ptgs`.
FILE_FORMAT = "clustersched.ptgs"
FILE_VERSION = 1

# Node attributes with a meaning in the model; every other one is carried along.
_MODEL_ATTRS = ("work", "alpha", "synthetic")


def _label_key(label: Any) -> tuple[str, str]:
    # str() alone would tie 1 and "1"; repr() separates them.
    return (str(label), repr(label))


class PTG:
    """A parallel task graph in CSR form (see the module docstring for the model).

    Build one with :meth:`from_networkx`, :meth:`from_json` or a generator of
    :mod:`clustersched.workload.ptg_generators`; the constructor is internal.

    Attributes
    ----------
    name : str
        A label for reports ("" when none was given).
    labels : tuple
        ``labels[i]`` is the original node label of task ``i``.
    work, alpha : numpy.ndarray of float64
        Sequential work (flop) and Amdahl serial fraction of each task.
    synthetic : numpy.ndarray of bool
        True for the zero-work structural tasks (added entry / exit).
    succ_offsets, succ, pred_offsets, pred : numpy.ndarray of int64
        Successor and predecessor lists in CSR form.
    entry, exit : int
        Index of the single entry task (always 0) and exit task (always n - 1).
    """

    __slots__ = (
        "name",
        "labels",
        "work",
        "alpha",
        "synthetic",
        "succ_offsets",
        "succ",
        "pred_offsets",
        "pred",
        "entry",
        "exit",
        "_index",
        "_node_attrs",
        "_graph_attrs",
    )

    def __init__(
        self,
        *,
        name: str,
        labels: Sequence[Any],
        work: np.ndarray,
        alpha: np.ndarray,
        synthetic: np.ndarray,
        edges: Iterable[tuple[int, int]],
        node_attrs: Sequence[dict[str, Any]],
        graph_attrs: dict[str, Any],
    ) -> None:
        n = len(labels)
        self.name = name
        self.labels = tuple(labels)
        self._index = {label: i for i, label in enumerate(self.labels)}
        self.work = frozen(np.ascontiguousarray(work, dtype=np.float64))
        self.alpha = frozen(np.ascontiguousarray(alpha, dtype=np.float64))
        self.synthetic = frozen(np.ascontiguousarray(synthetic, dtype=bool))
        pairs = sorted(set(edges))
        src = np.array([u for u, _ in pairs], dtype=np.int64)
        dst = np.array([v for _, v in pairs], dtype=np.int64)
        self.succ_offsets, self.succ = _csr(src, dst, n)
        order = np.lexsort((src, dst))  # by target, then source: pred lists sorted
        self.pred_offsets, self.pred = _csr(dst[order], src[order], n)
        self.entry = 0
        self.exit = n - 1
        self._node_attrs = tuple(dict(a) for a in node_attrs)
        self._graph_attrs = dict(graph_attrs)

    # -- construction -------------------------------------------------------
    @classmethod
    def from_networkx(cls, graph: nx.DiGraph, name: str | None = None) -> "PTG":
        """Validates ``graph`` and converts it to a PTG (see the module docstring).

        Parameters
        ----------
        graph : networkx.DiGraph
            Nodes carry ``work`` (flop, > 0), optionally ``alpha`` (in [0, 1],
            default 0) and ``synthetic``.  The graph is not modified.
        name : str, optional
            Defaults to ``graph.graph["name"]``, else "".

        Raises
        ------
        TypeError
            ``graph`` is not a ``networkx.DiGraph`` (multigraphs included).
        InvalidWorkloadError
            The graph is empty or cyclic, has a self-loop, or a task has a
            missing or bad ``work`` / ``alpha``; the message names the task.

        Examples
        --------
        >>> import networkx as nx
        >>> g = nx.DiGraph([(1, 2)])
        >>> nx.set_node_attributes(g, {1: 1e9, 2: 3e9}, "work")
        >>> p = PTG.from_networkx(g)
        >>> len(p), p.alpha.tolist(), p.succ.tolist()
        (2, [0.0, 0.0], [1])
        >>> g.add_edge(2, 1)
        >>> PTG.from_networkx(g)
        Traceback (most recent call last):
        ...
        clustersched.errors.InvalidWorkloadError: graph has a cycle through task 1: 1 -> 2 -> 1
        """
        if not isinstance(graph, nx.DiGraph) or graph.is_multigraph():
            raise TypeError(f"graph == {type(graph).__name__}, must be a networkx.DiGraph (not a multigraph)")
        if name is None:
            name = graph.graph.get("name", "")
        name = str(name)
        where = f"PTG {name!r}: " if name else ""
        if graph.number_of_nodes() == 0:
            raise InvalidWorkloadError(f"{where}graph has no tasks")

        nodes = sorted(graph.nodes, key=_label_key)
        work: dict[Any, float] = {}
        alpha: dict[Any, float] = {}
        synthetic: dict[Any, bool] = {}
        for label in nodes:
            attrs = graph.nodes[label]
            syn = attrs.get("synthetic", False)
            if not isinstance(syn, (bool, np.bool_)):
                raise InvalidWorkloadError(f"{where}task {label!r}: synthetic == {syn!r}, must be a bool", value=syn)
            synthetic[label] = bool(syn)
            if "work" not in attrs:
                raise InvalidWorkloadError(
                    f"{where}task {label!r} has no 'work' attribute (sequential work in flop, > 0)"
                )
            w = _real(attrs["work"], "work", label, where)
            if synthetic[label]:
                if w != 0.0:
                    raise InvalidWorkloadError(
                        f"{where}task {label!r}: work == {w!r} on a synthetic task, must be 0",
                        field="work",
                        value=w,
                    )
            elif not (math.isfinite(w) and w > 0):
                raise InvalidWorkloadError(
                    f"{where}task {label!r}: work == {w!r}, must be finite and > 0 (flop)", field="work", value=w
                )
            a = _real(attrs.get("alpha", 0.0), "alpha", label, where)
            if not 0.0 <= a <= 1.0:  # also rejects NaN
                raise InvalidWorkloadError(
                    f"{where}task {label!r}: alpha == {a!r}, must be between 0 and 1", field="alpha", value=a
                )
            work[label], alpha[label] = w, a

        loops = sorted((u for u, v in nx.selfloop_edges(graph)), key=_label_key)
        if loops:
            u = loops[0]
            raise InvalidWorkloadError(f"{where}task {u!r} has a self-loop (edge {u!r} -> {u!r})")
        try:
            cycle = nx.find_cycle(graph, source=nodes)
        except nx.NetworkXNoCycle:
            cycle = None
        if cycle:
            path = " -> ".join(repr(u) for u, _ in cycle) + f" -> {cycle[0][0]!r}"
            raise InvalidWorkloadError(f"{where}graph has a cycle through task {cycle[0][0]!r}: {path}")

        edges = [(u, v) for u, v in graph.edges]
        labels_in_use = set(graph.nodes)
        sources = [u for u in nodes if graph.in_degree(u) == 0]
        sinks = [u for u in nodes if graph.out_degree(u) == 0]
        if len(sources) > 1:
            entry = _free_label(ENTRY_LABEL, labels_in_use)
            labels_in_use.add(entry)
            work[entry], alpha[entry], synthetic[entry] = 0.0, 0.0, True
            edges.extend((entry, s) for s in sources)
        if len(sinks) > 1:
            exit_ = _free_label(EXIT_LABEL, labels_in_use)
            labels_in_use.add(exit_)
            work[exit_], alpha[exit_], synthetic[exit_] = 0.0, 0.0, True
            edges.extend((t, exit_) for t in sinks)

        order = _topological_order(work.keys(), edges)
        index = {label: i for i, label in enumerate(order)}
        node_attrs = [
            {k: v for k, v in graph.nodes[label].items() if k not in _MODEL_ATTRS} if label in graph else {}
            for label in order
        ]
        graph_attrs = {k: v for k, v in graph.graph.items() if k != "name"}
        return cls(
            name=name,
            labels=order,
            work=np.array([work[label] for label in order]),
            alpha=np.array([alpha[label] for label in order]),
            synthetic=np.array([synthetic[label] for label in order]),
            edges=[(index[u], index[v]) for u, v in edges],
            node_attrs=node_attrs,
            graph_attrs=graph_attrs,
        )

    def to_networkx(self, *, include_synthetic: bool = False) -> nx.DiGraph:
        """The PTG as a ``networkx.DiGraph`` with the original labels and attributes.

        Nodes are inserted in index order and carry ``work``, ``alpha`` and any
        extra attribute of the input graph; ``graph.graph["name"]`` is the name.
        Synthetic tasks are left out unless ``include_synthetic`` (then they
        carry ``synthetic=True``).  ``PTG.from_networkx(p.to_networkx())``
        equals ``p`` either way.

        Examples
        --------
        >>> import networkx as nx
        >>> g = nx.DiGraph([("x", "z"), ("y", "z")])
        >>> nx.set_node_attributes(g, 1e9, "work")
        >>> p = PTG.from_networkx(g)
        >>> sorted(p.to_networkx().nodes), len(p.to_networkx(include_synthetic=True))
        (['x', 'y', 'z'], 4)
        """
        g = nx.DiGraph(name=self.name, **self._graph_attrs)
        keep = [i for i in range(len(self)) if include_synthetic or not self.synthetic[i]]
        for i in keep:
            attrs = dict(self._node_attrs[i])
            attrs["work"] = float(self.work[i])
            attrs["alpha"] = float(self.alpha[i])
            if self.synthetic[i]:
                attrs["synthetic"] = True
            g.add_node(self.labels[i], **attrs)
        kept = set(keep)
        for u in keep:
            for v in self.successors(u):
                if int(v) in kept:
                    g.add_edge(self.labels[u], self.labels[int(v)])
        return g

    # -- basic protocol -----------------------------------------------------
    def __len__(self) -> int:
        return len(self.labels)

    def __repr__(self) -> str:
        name = f" {self.name!r}" if self.name else ""
        extra = int(self.synthetic.sum())
        return f"<PTG{name}: {self.num_real_tasks} tasks (+{extra} synthetic), {self.num_edges} edges>"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, PTG):
            return NotImplemented
        return (
            self.name == other.name
            and self.labels == other.labels
            and all(
                np.array_equal(getattr(self, a), getattr(other, a))
                for a in ("work", "alpha", "synthetic", "succ_offsets", "succ")
            )
            and self._node_attrs == other._node_attrs
            and self._graph_attrs == other._graph_attrs
        )

    __hash__ = None  # type: ignore[assignment]  # mutable-looking container semantics

    @property
    def num_edges(self) -> int:
        """Number of precedence edges (synthetic ones included)."""
        return int(len(self.succ))

    @property
    def num_real_tasks(self) -> int:
        """Number of tasks that are not synthetic (the paper's task count)."""
        return int(len(self) - self.synthetic.sum())

    def index(self, label: Any) -> int:
        """Index of the task labelled ``label`` (KeyError if none)."""
        return self._index[label]

    def successors(self, i: int) -> np.ndarray:
        """Indices of the successors of task ``i``, increasing."""
        return self.succ[self.succ_offsets[i] : self.succ_offsets[i + 1]]

    def predecessors(self, i: int) -> np.ndarray:
        """Indices of the predecessors of task ``i``, increasing."""
        return self.pred[self.pred_offsets[i] : self.pred_offsets[i + 1]]

    # -- model --------------------------------------------------------------
    def exec_time(self, p: Any, speed: float) -> np.ndarray:
        """``T(v, p)`` for every task, in seconds (float64 array of length n).

        Parameters
        ----------
        p : int or array-like of int
            Processors per task: one count for all, or one per task; ``>= 1``.
        speed : float
            Processor speed in flop/s, ``> 0``.

        Examples
        --------
        >>> import networkx as nx
        >>> g = nx.DiGraph()
        >>> g.add_node(0, work=8e9, alpha=0.25)
        >>> PTG.from_networkx(g).exec_time([4], speed=2e9).tolist()
        [1.75]
        """
        speed = check_float("speed", speed, positive=True)
        raw = np.asarray(p)
        if raw.dtype.kind not in "iu":
            raise TypeError(f"p == {p!r}, must be an integer or an array of integers")
        procs = np.broadcast_to(raw.astype(np.int64), (len(self),)) if raw.ndim == 0 else raw.astype(np.int64)
        if procs.shape != (len(self),):
            raise ValueError(f"p has shape {raw.shape}, must be a scalar or ({len(self)},)")
        if procs.size and procs.min() < 1:
            raise ValueError(f"p == {int(procs.min())} for some task, must be >= 1")
        # The canonical evaluation order (module docstring): keep it identical everywhere.
        return (self.work / float(speed)) * (self.alpha + (1.0 - self.alpha) / procs)

    def levels(self) -> np.ndarray:
        """Precedence level of each task: the number of edges on a longest path from the entry.

        The entry is at level 0 and every task is one level below its deepest
        predecessor (the "precedence levels" of RR-7224 §4.3).

        Examples
        --------
        >>> import networkx as nx
        >>> g = nx.DiGraph([("a", "b"), ("b", "c"), ("a", "c")])
        >>> nx.set_node_attributes(g, 1.0, "work")
        >>> PTG.from_networkx(g).levels().tolist()
        [0, 1, 2]
        """
        return self._core_set().levels(0)

    def width(self) -> int:
        """Largest number of tasks in one precedence level (the width of RR-7224 §4.3)."""
        return int(self._core_set().widths()[0])

    def bottom_levels(self, durations: Any) -> np.ndarray:
        """Bottom level of every task for the given task durations (seconds).

        ``bl(v) = durations[v] + max(bl(s) for s in successors(v))`` (``+ 0``
        for the exit): the length of the longest path from ``v`` to the exit,
        ``v`` included.  ``bl(entry)`` is the critical-path length.  Each
        ``bl(v)`` is one float addition, so any implementation that follows
        this definition gets identical values.

        Raises
        ------
        ValueError
            ``durations`` is not one value per task, or a duration is
            negative or NaN (the message gives its index and value).

        Examples
        --------
        >>> import networkx as nx
        >>> g = nx.DiGraph([("a", "b"), ("a", "c")])
        >>> nx.set_node_attributes(g, 1.0, "work")
        >>> PTG.from_networkx(g).bottom_levels([1.0, 2.0, 5.0, 0.0]).tolist()
        [6.0, 2.0, 5.0, 0.0]
        """
        d = np.asarray(durations, dtype=np.float64)  # not ascontiguousarray: it makes a scalar 1-D
        if d.shape != (len(self),):
            raise ValueError(f"durations has shape {d.shape}, must be ({len(self)},)")
        return self._core_set().duration_bottom_levels(0, np.ascontiguousarray(d))

    def _core_set(self) -> Any:
        """This PTG as a one-graph ``clustersched._core.PtgSet``.

        Levels, width and bottom levels come from the Rust core only, the code
        the schedulers run, so that each has one implementation.
        """
        from .. import _core  # lazily: reading and building PTGs needs no compiled code

        offsets = np.array([0, len(self)], dtype=np.int64)
        return _core.PtgSet(offsets, self.work, self.alpha, self.succ_offsets, self.succ)

    def sequential_time(self, speed: float) -> float:
        """Sum of the one-processor execution times, seconds (the ``omega`` of CRA_WORK, §4.3)."""
        return float(self.exec_time(1, speed).sum())

    # -- JSON -----------------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        """Node-link form (networkx's ``node_link_data(..., edges="edges")`` layout).

        Only non-synthetic tasks are written (they are re-added on reading),
        in index order; every value is a plain JSON type when the labels and
        extra attributes are.
        """
        g = self.to_networkx()
        return {
            "directed": True,
            "multigraph": False,
            "graph": dict(g.graph),
            "nodes": [{"id": label, **attrs} for label, attrs in g.nodes(data=True)],
            "edges": [{"source": u, "target": v} for u, v in g.edges],
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any], *, path: str | None = None) -> "PTG":
        """Inverse of :meth:`to_dict`; also reads networkx node-link data (``edges`` or ``links``).

        The data must describe a directed simple graph: ``directed`` and
        ``multigraph``, when present, must be ``true`` and ``false``; ``nodes``
        a list of objects with distinct ``id``; ``edges`` (or networkx's older
        ``links``) a list of objects whose ``source`` and ``target`` are node
        ids, no pair twice -- a missing edge list is an error, not a graph of
        independent tasks.  An id is a string, an integer or a finite number, or a list of
        them (JSON arrays used as labels come back as tuples).  Anything else
        raises :class:`~clustersched.errors.InvalidWorkloadError` naming the
        PTG, the node or edge and the field.
        """
        if not isinstance(data, dict):
            raise InvalidWorkloadError(f"not node-link data: {_json_type(data)}, not an object", path=path)
        graph_attrs = data.get("graph", {})
        if not isinstance(graph_attrs, dict):
            raise InvalidWorkloadError(f"'graph' is {_json_type(graph_attrs)}, must be an object", path=path)
        name = graph_attrs.get("name", "")
        where = f"PTG {str(name)!r}: " if name else ""

        def bad(message: str, field: str | None = None, value: Any = None) -> InvalidWorkloadError:
            return InvalidWorkloadError(f"{where}{message}", path=path, field=field, value=value)

        if data.get("directed", True) is not True:
            raise bad(f"directed == {data['directed']!r}, must be true (a PTG is a DAG)", "directed", data["directed"])
        if data.get("multigraph", False) is not False:
            raise bad(
                f"multigraph == {data['multigraph']!r}, must be false (one edge per precedence)",
                "multigraph",
                data["multigraph"],
            )
        nodes = data.get("nodes")
        if not isinstance(nodes, list):
            raise bad(
                "no 'nodes' list" if nodes is None else f"'nodes' is {_json_type(nodes)}, must be a list", "nodes"
            )
        key = "edges" if "edges" in data else "links"
        links = data.get(key)
        if not isinstance(links, list):
            raise bad(
                "no 'edges' list (write [] for a PTG of independent tasks)"
                if links is None
                else f"{key!r} is {_json_type(links)}, must be a list",
                "edges" if links is None else key,
            )
        g = nx.DiGraph(**graph_attrs)
        first: dict[Any, int] = {}
        for k, node in enumerate(nodes):
            if not isinstance(node, dict) or "id" not in node:
                raise bad(f"nodes[{k}] == {short_repr(node)}, must be an object with an 'id'", "id")
            attrs = dict(node)
            label = _label(attrs.pop("id"), f"nodes[{k}]", bad)
            if label in first:
                raise bad(f"nodes[{k}]: id {label!r} repeats nodes[{first[label]}]", "id", label)
            first[label] = k
            g.add_node(label, **attrs)
        seen: dict[tuple[Any, Any], int] = {}
        for k, link in enumerate(links):
            if not isinstance(link, dict) or "source" not in link or "target" not in link:
                raise bad(f"{key}[{k}] == {short_repr(link)}, must be an object with 'source' and 'target'", key)
            ends = [_label(link[end], f"{key}[{k}].{end}", bad) for end in ("source", "target")]
            for end, label in zip(("source", "target"), ends):
                if label not in first:
                    raise bad(f"{key}[{k}].{end} == {label!r} is not the id of a node", end, label)
            edge = (ends[0], ends[1])
            if edge in seen:  # a DiGraph would merge the two silently
                raise bad(
                    f"{key}[{k}]: edge {ends[0]!r} -> {ends[1]!r} repeats {key}[{seen[edge]}] "
                    f"(one edge per precedence)",
                    key,
                    list(edge),
                )
            seen[edge] = k
            g.add_edge(*ends)
        try:
            return cls.from_networkx(g)
        except InvalidWorkloadError as exc:
            if path is None:
                raise
            raise InvalidWorkloadError(exc.detail, path=path, field=exc.field, value=exc.value) from None

    def to_json(self, **dumps_kwargs: Any) -> str:
        """:meth:`to_dict` as a JSON string (floats written exactly, by ``repr``).

        Examples
        --------
        >>> import networkx as nx
        >>> g = nx.DiGraph([("a", "b")])
        >>> nx.set_node_attributes(g, {"a": 1e9, "b": 2.5e9}, "work")
        >>> p = PTG.from_networkx(g, name="pair")
        >>> PTG.from_json(p.to_json()) == p
        True
        """
        return json.dumps(self.to_dict(), **dumps_kwargs)

    @classmethod
    def from_json(cls, text: str) -> "PTG":
        """Inverse of :meth:`to_json`."""
        return cls.from_dict(json.loads(text))


def write_ptgs(ptgs: Iterable[PTG], path: str | os.PathLike[str]) -> None:
    """Writes a list of PTGs to one JSON file (gzip-compressed when ``path`` ends in ``.gz``).

    The file is ``{"format": "clustersched.ptgs", "version": 1, "ptgs": [...]}``
    with one :meth:`PTG.to_dict` per PTG, in order.

    Examples
    --------
    >>> import os, tempfile
    >>> from clustersched.workload.ptg_generators import fft_ptg
    >>> ptgs = [fft_ptg(4, seed=s) for s in range(3)]
    >>> path = os.path.join(tempfile.mkdtemp(), "fft.json.gz")
    >>> write_ptgs(ptgs, path)
    >>> read_ptgs(path) == ptgs
    True
    """
    payload = {"format": FILE_FORMAT, "version": FILE_VERSION, "ptgs": [p.to_dict() for p in ptgs]}
    text = json.dumps(payload)
    from .._output import atomic_open  # whole or not at all: a full disk leaves no half file

    if str(path).endswith(".gz"):
        # the name in the gzip header is the file's, not the one it is written under
        with atomic_open(path, "wb") as raw, gzip.GzipFile(os.fspath(path), "wb", fileobj=raw) as gz:
            gz.write(text.encode("utf-8"))
    else:
        with atomic_open(path, "w", encoding="utf-8") as fh:
            fh.write(text)


def read_ptgs(path: str | os.PathLike[str]) -> list[PTG]:
    """Reads a file written by :func:`write_ptgs` (``.gz`` decompressed).

    Raises
    ------
    InvalidWorkloadError
        Not such a file (not UTF-8 JSON, no matching ``format`` / ``version``,
        ``ptgs`` not a list, corrupt gzip data), or one of its PTGs is invalid
        (see :meth:`PTG.from_dict`; the message gives the path, the PTG's
        position and name, and the node or edge).
    TypeError
        ``path`` is not a file name.
    FileNotFoundError
        The file does not exist.
    """
    if not isinstance(path, (str, os.PathLike)):
        raise TypeError(f"path == {path!r}, must be a file name (str or os.PathLike)")
    where = os.fspath(path)
    with open(where, "rb") as fh:
        raw = fh.read()
    if raw[:2] == b"\x1f\x8b":  # gzip, whatever the name
        try:
            raw = gzip.decompress(raw)
        except (OSError, EOFError, zlib.error) as exc:
            raise InvalidWorkloadError(f"gzip data is truncated or corrupt ({exc})", path=where) from None
    try:
        text = raw.decode("utf-8").removeprefix("\ufeff")
    except UnicodeDecodeError as exc:
        line = raw.count(b"\n", 0, exc.start) + 1
        raise InvalidWorkloadError(
            f"not UTF-8 text (byte 0x{raw[exc.start]:02x} at offset {exc.start}): not a JSON file",
            path=where,
            line=line,
        ) from None
    try:
        payload = json.loads(text)
    except json.JSONDecodeError as exc:
        raise InvalidWorkloadError(f"not JSON: {exc}", path=where, line=exc.lineno) from None
    except RecursionError:
        raise InvalidWorkloadError("not JSON this library reads: nested too deeply", path=where) from None
    if not isinstance(payload, dict) or payload.get("format") != FILE_FORMAT:
        raise InvalidWorkloadError(f"not a {FILE_FORMAT} file (no matching 'format' key)", path=where)
    if payload.get("version") != FILE_VERSION:
        raise InvalidWorkloadError(
            f"version == {payload.get('version')!r}, this library reads version {FILE_VERSION}", path=where
        )
    ptgs = payload.get("ptgs")
    if not isinstance(ptgs, list):
        what = "no 'ptgs' key" if "ptgs" not in payload else f"'ptgs' is {_json_type(ptgs)}"
        raise InvalidWorkloadError(f"{what}, must be a list of PTGs", path=where, field="ptgs", value=ptgs)
    out = []
    for k, data in enumerate(ptgs):
        try:
            out.append(PTG.from_dict(data))
        except InvalidWorkloadError as exc:
            raise InvalidWorkloadError(
                f"PTG #{k}: {exc.detail}", path=where, field=exc.field, value=exc.value
            ) from None
    return out


# -- helpers ------------------------------------------------------------------
def _csr(rows: np.ndarray, cols: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray]:
    """CSR of (rows, cols) pairs already sorted by row then column."""
    offsets = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(np.bincount(rows, minlength=n), out=offsets[1:])
    return frozen(offsets), frozen(np.ascontiguousarray(cols, dtype=np.int64))


def _real(value: Any, field: str, label: Any, where: str) -> float:
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise InvalidWorkloadError(
            f"{where}task {label!r}: {field} == {short_repr(value)}, must be a real number", value=value
        )
    try:
        return float(value)
    except OverflowError:  # an int beyond float64, e.g. 10**400 from JSON
        raise InvalidWorkloadError(
            f"{where}task {label!r}: {field} == {short_repr(value)}, must be finite (it exceeds float64)",
            value=value,
        ) from None


def _label(value: Any, where: str, bad: Any) -> Any:
    """A JSON node id as a label: str, int or finite float, or a list of them (as a tuple)."""
    if isinstance(value, list):
        return tuple(_label(v, where, bad) for v in value)
    if (
        isinstance(value, bool)
        or value is None
        or not isinstance(value, (str, int, float))
        or (isinstance(value, float) and not math.isfinite(value))
    ):
        raise bad(f"{where}: id == {short_repr(value)}, must be a string, an integer or a finite number", "id", value)
    return value


def _json_type(value: Any) -> str:
    """What a JSON value is, with its article ("an object", "null" ...), for messages."""
    return {dict: "an object", list: "a list", str: "a string", type(None): "null", bool: "a boolean"}.get(
        type(value), "a number"
    )


def _free_label(base: str, used: set[Any]) -> str:
    label = base
    while label in used:
        label += "_"
    return label


def _topological_order(labels: Iterable[Any], edges: Sequence[tuple[Any, Any]]) -> list[Any]:
    """Kahn's algorithm, smallest ``_label_key`` first among the ready tasks."""
    indeg = {label: 0 for label in labels}
    succ: dict[Any, list[Any]] = {label: [] for label in indeg}
    for u, v in edges:
        succ[u].append(v)
        indeg[v] += 1
    heap = [(_label_key(u), k, u) for k, u in enumerate(indeg) if indeg[u] == 0]
    heapq.heapify(heap)
    order = []
    # The insertion counter k breaks key ties (never reached for distinct labels)
    # so that labels themselves are never compared.
    counter = len(heap)
    while heap:
        _, _, u = heapq.heappop(heap)
        order.append(u)
        for v in succ[u]:
            indeg[v] -= 1
            if indeg[v] == 0:
                heapq.heappush(heap, (_label_key(v), counter, v))
                counter += 1
    return order
