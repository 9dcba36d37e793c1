"""The workloads of the DFRS study (Casanova, Stillwell & Vivien, RR-7659, §5.3).

Two trace sets feed the experiments:

* **HPC2N** (§5.3.1): the cleaned HPC2N-2002 log of the Parallel Workloads
  Archive (a 120-node cluster of dual-processor nodes with 2 GB each),
  turned into DFRS jobs by :func:`swf_to_dfrs` and cut into week-long
  segments by :func:`hpc2n_weeks`;
* **synthetic** (§5.3.2): Lublin–Feitelson traces of 1,000 jobs on 128
  quad-core nodes with the paper's CPU and memory model
  (:func:`synthetic_workload`), unscaled or with inter-arrival times scaled
  to offered loads 0.1 ... 0.9 (:func:`synthetic_workloads`).

Both reuse the project's SWF reader, time windows, Lublin–Feitelson
generator and load scaling (:mod:`clustersched.workload`).  Every
workload is a :class:`DfrsWorkload`: a name, the jobs, the platform and the
rows dropped on the way (none for the real trace and the paper's model).

Choices the paper leaves open, made here
----------------------------------------
HPC2N (:func:`swf_to_dfrs`):

* **Memory unit.** SWF gives memory per processor in KB; the node's 2 GB is
  ``2 * 1024**2`` KB (binary, as the log's requests such as 409,600 KB =
  400 MB are).  With the decimal reading the log's largest requests
  (2,048,000 KB) would exceed a node.
* **Processors.** The allocated processor count (SWF field 5) when known,
  else the requested one (field 8), as everywhere in the library
  (:meth:`JobTable.width`).  Jobs without a positive runtime or a processor
  count are dropped through :func:`~clustersched.workload.drop_invalid`
  (HPC2N has none).
* **Tasks.** "Less than 50%" is strict: a job with an even processor count
  and a per-processor memory need ``< 0.5`` gets ``procs / 2`` two-threaded
  tasks with CPU need 1 and doubled memory; every other job (odd count, or
  ``>= 0.5``) gets ``procs`` one-threaded tasks with CPU need 0.5.  On nodes
  of ``c`` processors (``cores_per_node=c``; the paper's ``c = 2`` is the
  default) the same rule reads: a job whose processor count is a multiple of
  ``c`` and whose ``c`` processors' memory is ``< 1`` node gets ``procs / c``
  ``c``-threaded tasks of CPU need 1 and ``c`` times the memory; any other
  job ``procs`` tasks of CPU need ``1 / c``.
* **Fit.** A job whose tasks cannot all fit in the memory of the empty
  platform is dropped and recorded (:data:`DOES_NOT_FIT`); HPC2N has none.
* **Weeks.** Segment ``k`` holds the jobs submitted in
  ``[k, k + 1)`` weeks after the log's start (SWF time 0, the header's
  ``UnixStartTime``); its submit times are shifted to start at 0. Empty
  weeks are left out. This gives the paper's 182 segments: the log spans
  181 weeks from its first job, which, after cleaning, comes four days
  after the log's start.  (The archive's version 2.2 holds 202,871 jobs,
  five fewer than the paper's 202,876: jobs 1-10 were removed since.)

Synthetic (:func:`synthetic_workload`):

* **Model.** :func:`~clustersched.workload.lublin_feitelson` with its
  defaults (batch and interactive streams) on 128 processors, one task per
  processor: the job's size is its task count, its runtime its processing
  time.
* **Memory.** Each job independently: with probability 0.55 a memory need
  of 10%, otherwise ``10 * x`` % with ``x`` uniform in ``{2, ..., 10}``.
* **Seeds.** One seed per trace; the Lublin trace and the memory draws
  come from two independent streams spawned from it
  (``numpy.random.SeedSequence(seed).spawn(2)``), so the same seed gives the
  same trace on every machine.
* **Load.** The offered load is the project's
  :func:`~clustersched.workload.offered_load`: ``sum(runtime * tasks) /
  (nodes * (last submit - first submit))``; :func:`~clustersched.workload.scale_to_load`
  multiplies the inter-arrival times by the constant giving each target.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

import numpy as np

from .._checks import check_float, check_int
from ..workload import JobTable, drop_invalid, lublin_feitelson, read_swf, scale_to_load, time_windows
from ..workload.jobs import Dropped
from .model import NEED_UNITS, DfrsJobs, DfrsPlatform

__all__ = [
    "DOES_NOT_FIT",
    "HPC2N_NODES",
    "HPC2N_NODE_MEMORY_GB",
    "MEMORY_FLOOR",
    "SYNTHETIC_JOBS",
    "SYNTHETIC_LOADS",
    "SYNTHETIC_NODES",
    "WEEK",
    "DfrsWorkload",
    "hpc2n_weeks",
    "swf_to_dfrs",
    "synthetic_memory",
    "synthetic_workload",
    "synthetic_workloads",
]

#: HPC2N (§5.3.1): 120 dual-processor nodes ...
HPC2N_NODES = 120
#: ... of 2 GB each.
HPC2N_NODE_MEMORY_GB = 2.0
#: Smallest memory need of a processor (or task) taken from a trace: 10% of a node.
MEMORY_FLOOR = 0.1
#: One week in seconds.
WEEK = 7 * 86400.0
#: KB in a GB (SWF memory is in KB; binary units, see the module docstring).
KB_PER_GB = 1024.0**2
#: Drop reason: the job's tasks cannot all fit in the memory of the empty platform.
DOES_NOT_FIT = "does not fit in the platform's memory"

#: Synthetic traces (§5.3.2): 1,000 jobs ...
SYNTHETIC_JOBS = 1000
#: ... on 128 quad-core nodes ...
SYNTHETIC_NODES = 128
#: ... scaled to these offered loads.
SYNTHETIC_LOADS = (0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9)
#: Fraction of synthetic jobs with the smallest memory need (10%).
SMALL_MEMORY_SHARE = 0.55


@dataclass(frozen=True)
class DfrsWorkload:
    """One DFRS experiment's input.

    Attributes
    ----------
    name : str
        ``"hpc2n-week-017"`` (week 17 of the log), ``"lublin-s3"`` (synthetic
        seed 3, unscaled), ``"lublin-s3-load0.5"`` (scaled to load 0.5).
    jobs : DfrsJobs
    platform : DfrsPlatform
    dropped : tuple of Dropped
        Rows removed on the way, with the reason (empty for the paper's sets).
    """

    name: str
    jobs: DfrsJobs
    platform: DfrsPlatform
    dropped: tuple[Dropped, ...] = ()


def swf_to_dfrs(
    table: JobTable,
    *,
    nodes: int = HPC2N_NODES,
    node_memory_gb: float = HPC2N_NODE_MEMORY_GB,
    memory_floor: float = MEMORY_FLOOR,
    cores_per_node: int = 2,
) -> tuple[DfrsJobs, tuple[Dropped, ...]]:
    """DFRS jobs from an SWF table of a dual-processor-node cluster (§5.3.1), or of ``cores_per_node``.

    Per-processor memory need: ``max(requested, used)`` memory per processor
    over the node memory, at least ``memory_floor`` (also when both are
    unknown).  A job with an even processor count and a per-processor need
    below 50% runs ``procs / 2`` tasks of CPU need 1 and twice that memory;
    any other job runs ``procs`` tasks of CPU need 0.5.  See the module
    docstring for the choices made.

    Parameters
    ----------
    table : JobTable
        The jobs (e.g. from :func:`~clustersched.read_swf`).
    nodes : int, default 120
        Nodes of the platform the jobs must fit on.
    node_memory_gb : float, default 2
        Memory of a node in GB (``1024**2`` KB).
    memory_floor : float, default 0.1
        Smallest per-processor memory need, in ``(0, 1]``.
    cores_per_node : int, default 2
        Processors of a node (HPC2N's 2); the module docstring says how a job
        of another node size becomes tasks.

    Returns
    -------
    (DfrsJobs, tuple of Dropped)
        The jobs in submission order (SWF job ids kept; processing time =
        runtime) and the rows dropped: the table's own ``dropped``, then jobs
        without a positive runtime or processor count, then jobs that cannot
        fit in the platform's memory.

    Raises
    ------
    TypeError, ValueError
        A bad argument.

    Examples
    --------
    >>> from clustersched.workload import JobTable
    >>> t = JobTable({"submit": [0, 5, 9], "runtime": [60, 60, 60], "procs": [4, 3, 2],
    ...               "mem_requested": [409600, 409600, -1], "mem_used": [-1, 1048576, -1]})
    >>> jobs, dropped = swf_to_dfrs(t)
    >>> jobs.tasks.tolist(), jobs.cpu_need.tolist(), jobs.mem_need.tolist()
    ([2, 3, 1], [1.0, 0.5, 1.0], [0.390625, 0.5, 0.2])
    """
    if not isinstance(table, JobTable):
        raise TypeError(f"table == {type(table).__name__}, must be a clustersched.workload.JobTable")
    nodes = check_int("nodes", nodes, 1)
    node_kb = check_float("node_memory_gb", node_memory_gb, positive=True) * KB_PER_GB
    memory_floor = check_float("memory_floor", memory_floor, positive=True, maximum=1.0)
    cores = check_int("cores_per_node", cores_per_node, 1, 2**20)

    # Processor counts and runtimes that a simulator can use (one rule for the whole library).
    valid = drop_invalid(table, np.iinfo(np.uint32).max, wider="keep")
    procs = valid.width()
    # -1 (unknown) never wins the max; both unknown leave the floor.
    per_proc = np.maximum(memory_floor, np.maximum(valid.mem_requested, valid.mem_used) / node_kb)
    # c processors of one job share a node as one c-threaded task when they fit in its memory
    # (c = 2: an even count and a need below 50%, the paper's rule, in the same floats)
    dual = (procs % cores == 0) & (cores * per_proc < 1.0)
    tasks = np.where(dual, procs // cores, procs)
    # 1 / c rounded down to the resolution of needs, so that c tasks fill a node (1 / 7 rounds up)
    cpu_need = np.where(dual, 1.0, (NEED_UNITS // cores) / NEED_UNITS)
    mem_need = np.where(dual, cores * per_proc, per_proc)

    # A job fits when each node can hold floor(1 / mem) of its tasks; a need above 1 never fits.
    with np.errstate(divide="ignore"):
        per_node = np.where(mem_need <= 1.0, np.floor(1.0 / np.minimum(mem_need, 1.0)), 0.0)
    fits = tasks <= nodes * per_node
    dropped = tuple(valid.dropped) + tuple(Dropped(DOES_NOT_FIT, int(i)) for i in valid.job_id[~fits])
    jobs = DfrsJobs(
        submit=valid.submit[fits],
        processing_time=valid.runtime[fits],
        tasks=tasks[fits],
        cpu_need=cpu_need[fits],
        mem_need=mem_need[fits],
        job_id=valid.job_id[fits],
        time_requested=valid.time_requested[fits],
        source=table.source,
    )
    return jobs, dropped


def hpc2n_weeks(
    trace: str | os.PathLike[str] | JobTable,
    *,
    nodes: int = HPC2N_NODES,
    node_memory_gb: float = HPC2N_NODE_MEMORY_GB,
    origin: float = 0.0,
) -> list[DfrsWorkload]:
    """The week-long HPC2N segments of §5.3.1, as DFRS workloads.

    Parameters
    ----------
    trace : path or JobTable
        ``HPC2N-2002-2.2-cln.swf.gz`` (or any SWF trace of a dual-processor
        cluster), or the table already read.
    nodes, node_memory_gb :
        The platform (HPC2N: 120 nodes of 2 GB).
    origin : float, default 0
        Start of week 0 in the trace's time (0: the log's start).

    Returns
    -------
    list of DfrsWorkload
        One per non-empty week, in time order, named ``hpc2n-week-KKK`` by
        the week's index ``KKK`` from ``origin``; submit times shifted to
        start at the week's start.  The whole HPC2N-2002 log gives 182.
    """
    table = trace if isinstance(trace, JobTable) else read_swf(trace)
    if not isinstance(table, JobTable):
        raise TypeError(f"trace == {type(trace).__name__}, must be a path or a clustersched.workload.JobTable")
    origin = check_float("origin", origin)
    platform = DfrsPlatform(nodes, node_memory_gb)
    weeks = []
    for window in time_windows(table, WEEK, origin=origin):
        k = int(np.floor((window.submit.min() - origin) / WEEK))
        start = origin + k * WEEK
        jobs, dropped = swf_to_dfrs(
            window.with_columns(submit=window.submit - start), nodes=nodes, node_memory_gb=node_memory_gb
        )
        # The window inherits the whole table's drops (from reading it); report only this week's.
        weeks.append(DfrsWorkload(f"hpc2n-week-{k:03d}", jobs, platform, dropped[len(window.dropped) :]))
    return weeks


def synthetic_memory(n_jobs: int, rng: np.random.Generator) -> np.ndarray:
    """Memory needs of §5.3.2: 10% with probability 0.55, else ``10 * x`` % with ``x`` uniform in 2..10."""
    n_jobs = check_int("n_jobs", n_jobs, 0)
    small = rng.random(n_jobs) < SMALL_MEMORY_SHARE
    x = rng.integers(2, 11, size=n_jobs)
    return np.where(small, 0.1, 0.1 * x)


def _from_lublin(table: JobTable, memory: np.ndarray, source: str) -> DfrsJobs:
    """DFRS jobs from a Lublin table: one task per processor; one-task jobs sequential (25% of a
    quad-core node), the others multi-threaded (100%)."""
    tasks = table.procs
    return DfrsJobs(
        submit=table.submit - table.submit.min(),
        processing_time=table.runtime,
        tasks=tasks,
        cpu_need=np.where(tasks == 1, 0.25, 1.0),
        mem_need=memory,
        job_id=table.job_id,
        source=source,
    )


def synthetic_workload(
    *,
    seed: int,
    load: float | None = None,
    n_jobs: int = SYNTHETIC_JOBS,
    nodes: int = SYNTHETIC_NODES,
) -> DfrsWorkload:
    """One synthetic trace of §5.3.2, unscaled or scaled to an offered load.

    Parameters
    ----------
    seed : int
        Seed (>= 0) of the trace: the same seed gives the same job mix at
        every load.
    load : float, optional
        Offered load to scale the inter-arrival times to (finite, > 0; the
        paper uses 0.1 ... 0.9); None keeps the generated arrivals.
    n_jobs : int, default 1000
    nodes : int, default 128
        Nodes (and the Lublin model's processor count: one task per processor).

    Returns
    -------
    DfrsWorkload
        Named ``lublin-s{seed}`` or ``lublin-s{seed}-load{load}``; submit
        times start at 0.

    Examples
    --------
    >>> w = synthetic_workload(seed=3, load=0.5, n_jobs=200)
    >>> w.name, len(w.jobs), w.platform.nodes
    ('lublin-s3-load0.5', 200, 128)
    >>> sorted(set(w.jobs.cpu_need.tolist()))
    [0.25, 1.0]
    """
    seed = check_int("seed", seed, 0)
    n_jobs = check_int("n_jobs", n_jobs, 1)
    nodes = check_int("nodes", nodes, 1)
    if load is not None:
        load = check_float("load", load, positive=True)
    trace_seed, memory_seed = np.random.SeedSequence(seed).spawn(2)
    table = lublin_feitelson(n_jobs, nodes, seed=np.random.default_rng(trace_seed))
    memory = synthetic_memory(n_jobs, np.random.default_rng(memory_seed))
    name = f"lublin-s{seed}"
    if load is not None:
        table = scale_to_load(table, nodes, load)
        name += f"-load{load:g}"
    return DfrsWorkload(name, _from_lublin(table, memory, name), DfrsPlatform(nodes))


def synthetic_workloads(
    n_traces: int = 100,
    *,
    seed: int = 0,
    loads: tuple[float, ...] | None = SYNTHETIC_LOADS,
    n_jobs: int = SYNTHETIC_JOBS,
    nodes: int = SYNTHETIC_NODES,
) -> list[DfrsWorkload]:
    """The synthetic trace set of §5.3.2: ``n_traces`` traces (seeds ``seed .. seed + n_traces - 1``).

    With ``loads`` (default 0.1 ... 0.9), every trace at every load, trace by
    trace (the paper's 900 scaled traces for ``n_traces=100``); with
    ``loads=None``, the unscaled traces.
    """
    n_traces = check_int("n_traces", n_traces, 1)
    seed = check_int("seed", seed, 0)
    if loads is None:
        return [synthetic_workload(seed=seed + i, n_jobs=n_jobs, nodes=nodes) for i in range(n_traces)]
    if isinstance(loads, (str, bytes)) or not hasattr(loads, "__iter__"):
        raise TypeError(f"loads == {loads!r}, must be a sequence of offered loads or None")
    loads = tuple(check_float("loads", x, positive=True) for x in loads)
    if not loads:
        raise ValueError("loads == (), must hold at least one offered load (or be None)")
    return [
        synthetic_workload(seed=seed + i, load=x, n_jobs=n_jobs, nodes=nodes) for i in range(n_traces) for x in loads
    ]
