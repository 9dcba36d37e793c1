"""Batch scheduling on a cluster of nodes: requests resolved against partitions, and where jobs ran.

A :class:`~clustersched.platform.NodeCluster` has nodes with cores, memory
and generic resources (GPUs) and features, grouped in partitions.  A job's
request (:class:`~clustersched.workload.requests.Requests`, as ``sbatch``
options) is resolved here against its partition into what the Rust core
places (``rust/core/src/batch/nodes.rs``: ``Nodes::place`` documents the
placement rule), and the placement of every job comes back as a
:class:`NodeAllocation`.

How a request is resolved (Slurm 17.11's documented behaviour, ``sbatch``
and ``slurm.conf`` man pages; where the rule is ours, said):

* **Partition**: the request's, else the cluster's default partition
  (``Default=YES``); an unknown name is an error naming the job.
* **Nodes and tasks**: at least one node; at least one task per node (the
  default of ``sbatch -N`` without ``-n``); ``cpus_per_task`` at least 1.
* **Memory** (only when memory is enforced, ``memory=True``: Slurm's
  ``SelectTypeParameters=CR_Core_Memory``): per node when the request gives
  it (``--mem``; 0 means all of each node's memory), else per CPU
  (``--mem-per-cpu``), else the partition's ``DefMemPerCPU``, else its
  ``DefMemPerNode``, else all of each node's memory (``DefMemPerNode``'s
  default, UNLIMITED).  A job of an SWF table (field 10 per processor,
  :meth:`Requests.from_swf <clustersched.workload.requests.Requests.from_swf>`)
  whose field is unknown asks for none: that is ours, counted in
  :attr:`NodeAllocation.no_memory`.  Memory is in MB, a fractional request
  rounded up.
* **GPUs**: ``gpus_per_node`` units of the generic resource ``gpu``, of
  type ``gpu_type`` when given (``--gres=gpu:v100:2``), else of any type.
  The core holds one column per concrete kind: ``gpu:TYPE`` for each type a
  node declares, and ``gpu`` for the units a node declares without a type.
* **Features** (``--constraint``): names joined by ``&`` or ``,`` (all
  required).  ``|`` (any of) and ``[...]`` (the same for all nodes) are
  refused with an error naming the job: they are not modelled.
* **Exclusive**: every core of each node the job gets.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from ..errors import InvalidWorkloadError

if TYPE_CHECKING:
    from ..platform import NodeArrays, NodeCluster
    from ..workload.requests import Requests

__all__ = ["NodeAllocation", "gres_capacity", "resolve_requests"]

#: The core's "all of the node's memory" per node (``WHOLE_NODE_MEMORY``).
WHOLE_NODE = np.uint64(2**64 - 1)
_AND = re.compile(r"[&,]")


def gres_capacity(arrays: "NodeArrays") -> tuple[tuple[str, ...], np.ndarray]:
    """The concrete generic resource kinds of a cluster (``platform.to_arrays()``), in the core's column
    order, and each node's units of each (nodes x kinds, int64).

    ``gpu:TYPE`` for each type some node declares, and ``gpu`` for units
    declared without a type (a node with ``{"gpu": 4, "gpu:a100": 3}`` has 3
    of ``gpu:a100`` and 1 of ``gpu``); the same for any other resource name.
    """
    kinds: list[str] = []
    columns: list[np.ndarray] = []
    for j, name in enumerate(arrays.gres_names):  # sorted: a name comes before its types
        units = arrays.gres[:, j].astype(np.int64)
        if ":" not in name:
            typed = [i for i, other in enumerate(arrays.gres_names) if other.startswith(name + ":")]
            units = units - arrays.gres[:, typed].astype(np.int64).sum(axis=1)
        if ":" in name or units.any():
            kinds.append(name)
            columns.append(units)
    n = len(arrays.cores)
    return tuple(kinds), np.stack(columns, axis=1) if columns else np.zeros((n, 0), dtype=np.int64)


def _node_arrays(platform: "NodeCluster") -> tuple[dict[str, np.ndarray], tuple[str, ...], tuple[str, ...]]:
    """The core's node arrays (features and partitions as bit masks), the generic resource kinds and the
    feature names (bit ``j`` is ``names[j]``)."""
    if len(platform.feature_names) > 64:
        raise ValueError(f"the cluster has {len(platform.feature_names)} node features, at most 64 are supported")
    if len(platform.partitions) > 64:
        raise ValueError(f"the cluster has {len(platform.partitions)} partitions, at most 64 are supported")
    a = platform.to_arrays()
    kinds, gres = gres_capacity(a)
    bits = np.uint64(1) << np.arange(len(a.partition_names), dtype=np.uint64)
    member = np.bitwise_or.reduce(np.where(a.partitions, bits[:, None], np.uint64(0)), axis=0, dtype=np.uint64)
    arrays = {
        "cores": a.cores.astype(np.int64),
        "memory": a.memory_mb,
        "gres": np.ascontiguousarray(gres.reshape(-1)),
        "features": a.features,
        "weight": a.weight.astype(np.int64),
        "partitions": np.asarray(member, dtype=np.uint64),
    }
    return arrays, kinds, a.feature_names


def _distinct(column: np.ndarray) -> tuple[list[str], np.ndarray | None]:
    """The distinct strings of an object column, sorted, and each row's index among them (``np.unique``'s),
    or None for the index when every row holds the one string."""
    values = column.tolist()
    # One value for every row (a table without partitions or constraints): found in C by list.count,
    # where np.unique would convert and sort 200,000 strings (40 ms for HPC2N's two columns); no index then
    # (its fresh pages cost more than the rows' use of it).
    if values and values.count(values[0]) == len(values):
        return [str(values[0])], None
    names, where = np.unique(np.asarray(column, dtype=object).astype(str), return_inverse=True)
    return names.tolist(), where


def _first_row(where: np.ndarray | None, k: int) -> int:
    """The first row holding name ``k`` of :func:`_distinct`."""
    return 0 if where is None else int(np.argmax(where == k))


@dataclass(frozen=True)
class Resolved:
    """Requests resolved against a cluster: the core's arrays, and what the validator checks."""

    nodes: dict[str, np.ndarray]
    requests: dict[str, np.ndarray]
    kinds: tuple[str, ...]
    #: Jobs that ask for no memory although memory is enforced (their table gives none).
    no_memory: int


def resolve_requests(
    requests: "Requests", platform: "NodeCluster", *, memory: bool, slurm_defaults: bool, job_id: Any
) -> Resolved:
    """The core's request arrays for ``requests`` on ``platform`` (module docstring for the rules).

    ``slurm_defaults``: a job that gives no memory gets its partition's
    default (requests read from Slurm's files); without it (requests made
    from an SWF table) it asks for none, and is counted.

    Raises InvalidWorkloadError naming the job (its id from ``job_id``) for
    an unknown partition, GPU type or feature, or a constraint that is not
    modelled.
    """
    arrays, kinds, feature_names = _node_arrays(platform)
    bit = {f: 1 << j for j, f in enumerate(feature_names)}
    partitions = list(platform.partitions)
    part_index = {p.name: i for i, p in enumerate(partitions)}
    default = platform.default_partition
    n = len(requests.tasks)

    def fail(row: int, field: str, value: Any, rule: str) -> InvalidWorkloadError:
        return InvalidWorkloadError(
            f"{field} == {value!r}, {rule}", row=row, job_id=int(job_id[row]), field=field, value=value
        )

    names, where = _distinct(requests.partition)
    for k, name in enumerate(names):
        if name and name not in part_index:
            raise fail(
                _first_row(where, k),
                "partition",
                name,
                f"must be a partition of the cluster ({', '.join(part_index)})",
            )
        if not name and default is None:
            raise fail(_first_row(where, k), "partition", "", "names none, and the cluster has no default partition")
    codes = np.array([part_index[name or default.name] for name in names], dtype=np.int64)  # type: ignore[union-attr]
    if not n:
        partition = np.zeros(0, dtype=np.int64)
    else:
        partition = np.full(n, codes[0], dtype=np.int64) if where is None else codes[where]

    node_count = np.maximum(np.asarray(requests.nodes, dtype=np.int64), 1)
    tasks = np.maximum(np.asarray(requests.tasks, dtype=np.int64), node_count)
    cpt = np.maximum(np.asarray(requests.cpus_per_task, dtype=np.int64), 1)

    mem_cpu = np.zeros(n, dtype=np.uint64)
    mem_node = np.zeros(n, dtype=np.uint64)
    no_memory = 0
    if memory:
        per_node = np.asarray(requests.mem_per_node_mb, dtype=np.float64)
        per_cpu = np.asarray(requests.mem_per_cpu_mb, dtype=np.float64)
        by_node = per_node >= 0
        by_cpu = ~by_node & (per_cpu > 0)
        unset = ~by_node & ~by_cpu
        if not slurm_defaults:
            no_memory = int(np.count_nonzero(unset))
        elif unset.any():  # (the partitions' defaults gathered for every row cost 2 ms on HPC2N, where none is used)
            def_cpu = np.array([p.def_mem_per_cpu or 0 for p in partitions], dtype=np.float64)[partition]
            def_node = np.array([p.def_mem_per_node or 0 for p in partitions], dtype=np.float64)[partition]
            dflt_cpu = unset & (def_cpu > 0)
            dflt_node = unset & ~dflt_cpu & (def_node > 0)
            whole = unset & ~dflt_cpu & ~dflt_node
            mem_cpu[dflt_cpu] = def_cpu[dflt_cpu].astype(np.uint64)
            mem_node[dflt_node] = def_node[dflt_node].astype(np.uint64)
            mem_node[whole] = WHOLE_NODE
        mem_node[by_node] = np.where(per_node[by_node] == 0, WHOLE_NODE, np.ceil(per_node[by_node]).astype(np.uint64))
        if by_cpu.all():  # every job asks per core: no rows to pick, and ceil writes the integers at once
            mem_cpu = np.empty(n, dtype=np.uint64)
            np.ceil(per_cpu, out=mem_cpu, casting="unsafe")
        else:
            mem_cpu[by_cpu] = np.ceil(per_cpu[by_cpu]).astype(np.uint64)

    gres_per_node = np.asarray(requests.gpus_per_node, dtype=np.int64)
    gres_mask = np.zeros(n, dtype=np.uint64)
    gpu_columns = [k for k, kind in enumerate(kinds) if kind == "gpu" or kind.startswith("gpu:")]
    any_gpu = sum(1 << k for k in gpu_columns)
    for row in np.flatnonzero(gres_per_node > 0).tolist():
        kind = str(requests.gpu_type[row])
        if not kind:
            gres_mask[row] = np.uint64(any_gpu)
        elif f"gpu:{kind}" in kinds:
            gres_mask[row] = np.uint64(1 << kinds.index(f"gpu:{kind}"))
        else:
            types = [k.split(":", 1)[1] for k in kinds if k.startswith("gpu:")]
            raise fail(row, "gpu_type", kind, f"must be a GPU type of the cluster ({', '.join(types) or 'none typed'})")

    features = np.zeros(n, dtype=np.uint64)
    texts, where = _distinct(requests.features)
    for k, text in enumerate(texts):
        if not text:
            continue
        row = _first_row(where, k)
        if "|" in text or "[" in text or "*" in text:
            raise fail(row, "features", text, "may join features with & or , only (| and [...] are not modelled)")
        mask = 0
        for name in filter(None, (t.strip() for t in _AND.split(text))):
            if name not in bit:
                raise fail(row, "features", text, f"names {name!r}, which no node has ({', '.join(sorted(bit))})")
            mask |= bit[name]
        if where is None:
            features[:] = np.uint64(mask)
        else:
            features[where == k] = np.uint64(mask)

    core_requests = {
        "nodes": node_count,
        "tasks": tasks,
        "cpus_per_task": cpt,
        "mem_per_cpu": mem_cpu,
        "mem_per_node": mem_node,
        "gres_per_node": gres_per_node,
        "gres_kinds": gres_mask,
        "features": features,
        "partition": partition,
        "exclusive": np.asarray(requests.exclusive, dtype=bool),
    }
    return Resolved(nodes=arrays, requests=core_requests, kinds=kinds, no_memory=no_memory)


@dataclass(frozen=True, eq=False)
class NodeAllocation:
    """Where each job of a schedule on nodes ran: its shares, one per node.

    Job ``i`` held shares ``offsets[i]:offsets[i + 1]``; share ``k`` is
    ``tasks[k]`` tasks on node ``node[k]`` (an index into
    ``platform.nodes``) holding ``cores[k]`` cores, ``memory_mb[k]`` MB and
    ``gres[k, g]`` units of generic resource kind ``kinds[g]``.  ``requests``
    are the resolved requests the core placed (the validator checks the
    shares against them).
    """

    platform: "NodeCluster"
    offsets: np.ndarray
    node: np.ndarray
    tasks: np.ndarray
    cores: np.ndarray
    memory_mb: np.ndarray
    gres: np.ndarray
    kinds: tuple[str, ...]
    requests: dict[str, np.ndarray]
    #: Jobs that asked for no memory although memory was enforced (their table gives none).
    no_memory: int = 0

    def shares(self, row: int) -> slice:
        """The shares of the job in ``row``."""
        return slice(int(self.offsets[row]), int(self.offsets[row + 1]))

    def node_names(self, row: int) -> list[str]:
        """Names of the nodes the job in ``row`` ran on, in the order the placement chose them."""
        names = self.platform.node_names
        return [names[i] for i in self.node[self.shares(row)].tolist()]

    def share_columns(self) -> dict[str, np.ndarray]:
        """``NodeList`` and the per-node ``node_tasks``, ``node_cores``, ``node_memory_mb`` and ``node_gpus``
        of every job, comma-separated in the order of its shares (the schedule's CSV columns)."""

        def joined(values: np.ndarray) -> np.ndarray:
            v = np.asarray(values).tolist()
            rows = [",".join(map(str, v[self.offsets[i] : self.offsets[i + 1]])) for i in range(len(self.offsets) - 1)]
            return np.array(rows, dtype=object)

        gpu = [g for g, kind in enumerate(self.kinds) if kind == "gpu" or kind.startswith("gpu:")]
        gpus = self.gres[:, gpu].sum(axis=1) if gpu else np.zeros(len(self.node), dtype=np.int64)
        return {
            "NodeList": np.array(self.hostlists(), dtype=object),
            "node_tasks": joined(self.tasks),
            "node_cores": joined(self.cores),
            "node_memory_mb": joined(self.memory_mb),
            "node_gpus": joined(gpus),
        }

    def hostlists(self) -> list[str]:
        """Each job's nodes as a Slurm host list (``n[1-2],g1``), as sacct's NodeList shows them."""
        from ..slurm.hostlist import compress_hostlist

        return [compress_hostlist(self.node_names(i)) for i in range(len(self.offsets) - 1)]
