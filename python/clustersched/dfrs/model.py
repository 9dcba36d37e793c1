"""The DFRS job and node model (Casanova, Stillwell & Vivien, RR-7659, §2.2 and §5.1).

A *job* has ``tasks`` identical tasks that run in parallel, each in its own VM.
Every task of job ``j`` needs a fraction ``mem_need[j]`` of a node's memory
(never over-committed) and would use a fraction ``cpu_need[j]`` of a node's CPU
when alone (its *CPU need*; CPU may be over-committed, and a task given less
CPU than its need runs proportionally slower).  ``processing_time[j]`` is how
long the job runs on a dedicated system; the scheduling algorithms never see
it (the problem is non-clairvoyant): only the simulator, the bound and the
metrics do.

A *platform* is ``nodes`` identical nodes, each with CPU capacity 1 and memory
capacity 1 (needs are fractions of a node).  ``node_memory_gb`` turns memory
fractions into bytes for the bandwidth figures of §6.3 only.

Choices made here (the paper leaves them open):

* **Order.** Rows are kept in submission order: sorted by submit time,
  stable (equal submit times keep the order given).  "Order of submission"
  (§4.1's priority ties) is the row order.
* **Resolution.** CPU and memory needs are rounded to multiples of
  :data:`NEED_RESOLUTION` (1e-9) when a table is built, so that node loads
  are sums of integers in the Rust core (no rounding drift: a node holding
  ten tasks of 10% memory is exactly full, and equal loads tie exactly).
  A need that rounds to 0, or one above 1, is an error.
* **Feasibility.** A job must fit on an empty platform: at most
  ``nodes * floor(1 / mem_need)`` tasks (:meth:`DfrsJobs.fits`); otherwise no
  algorithm could ever run it.  :meth:`DfrsJobs.check_fits` raises naming the
  first such job.
* **Limits.** Sizes and times are bounded (:mod:`clustersched.dfrs.limits`:
  nodes, tasks, times up to 10**10 s); job ids are distinct, except -1
  (unknown), as in an SWF trace (:mod:`clustersched.workload.swf`).

One rounding rule
-----------------
The simulator and the validator (:mod:`~clustersched.dfrs.validate`) compute
time the same way, with the functions of this module: a job at yield ``y``
over ``[start, end)`` whose penalty ends at ``pen_end`` (``start_of_penalty +
penalty``, one float64 sum) makes :func:`progress` ``y * max(end - max(start,
pen_end), 0)``; the simulator puts its completion at :func:`completion_time`
``max(t, pen_end) + remaining / y``, the only rounding the validator cannot
redo.  So a job's work, re-derived from its segments, may differ from its
processing time by the rounding of that sum and of the segment lengths:
:func:`work_tolerance` allows :data:`WORK_RTOL` of the processing time plus
:data:`TIME_ULPS` float64 steps at its completion time (relative to the
processing time, and to the magnitude of the clock).  CPU shares on a node
may add up to ``1 + CPU_TOLERANCE`` (relative to the node's capacity, 1):
the allocations aim at 1 and stay within a few float64 steps of it.
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass
from typing import Any

import numpy as np

from .._checks import check_float, check_int
from ..errors import InvalidWorkloadError
from .limits import MAX_NODE_MEMORY_GB, MAX_NODES, MAX_TASKS, MAX_TIME, MAX_TOTAL_TASKS, check_limit

__all__ = [
    "CPU_TOLERANCE",
    "NEED_RESOLUTION",
    "NEED_UNITS",
    "TIME_ULPS",
    "WORK_RTOL",
    "DfrsJobs",
    "DfrsPlatform",
    "completion_time",
    "progress",
    "work_tolerance",
]

#: Needs are multiples of this fraction of a node.
NEED_RESOLUTION = 1e-9
#: A whole node in need units (``1 / NEED_RESOLUTION``): the Rust core's integer capacity.
NEED_UNITS = 1_000_000_000
#: A node's CPU shares may add up to ``1 + CPU_TOLERANCE`` (relative to its capacity, 1).
CPU_TOLERANCE = 1e-9
#: Relative tolerance on a job's work (a fraction of its processing time).
WORK_RTOL = 1e-6
#: float64 steps (at its completion time) by which a job's work may also differ.
TIME_ULPS = 4


def progress(y: Any, start: Any, end: Any, pen_end: Any) -> Any:
    """Work done at yield ``y`` over ``[start, end)`` by a job whose penalty ends at ``pen_end``.

    ``y * max(end - max(start, pen_end), 0)`` (no progress during a
    penalty); scalars or numpy arrays.  The simulator and the validator
    both use it (module docstring, "One rounding rule").

    >>> float(progress(0.5, 100.0, 700.0, 400.0))
    150.0
    """
    return y * np.maximum(end - np.maximum(start, pen_end), 0.0)


def completion_time(t: Any, pen_end: Any, remaining: Any, y: Any) -> Any:
    """When a job with ``remaining`` work, running from ``t`` at yield ``y > 0``, completes.

    ``max(t, pen_end) + remaining / y``; the sum is the one rounding
    :func:`work_tolerance` allows for, and a completion that rounds to ``t``
    itself (remaining work below float64's resolution at ``t``) happens at
    ``t``.

    >>> float(completion_time(100.0, 400.0, 150.0, 0.5))
    700.0
    """
    return np.maximum(t, pen_end) + remaining / y


def work_tolerance(processing_time: Any, end: Any) -> Any:
    """How far a job's work re-derived from its segments may be from its processing time.

    ``WORK_RTOL * processing_time + TIME_ULPS * spacing(end)``, ``end`` the
    end of its last segment: relative to the job's length and to the
    magnitude of the clock, where float64 rounds times.

    >>> float(work_tolerance(0.0, 2.0**33))    # 4 float64 steps of 2**-19 s
    7.62939453125e-06
    >>> round(float(work_tolerance(600.0, 1000.0)), 12)
    0.0006
    """
    return WORK_RTOL * np.asarray(processing_time, dtype=float) + TIME_ULPS * np.spacing(
        np.abs(np.asarray(end, dtype=float))
    )


@dataclass(frozen=True)
class DfrsPlatform:
    """``nodes`` identical nodes of CPU capacity 1 and memory capacity 1.

    Parameters
    ----------
    nodes : int
        Number of nodes, ``1 .. 2**20`` (:data:`~clustersched.dfrs.limits.MAX_NODES`).
    node_memory_gb : float
        Memory of one node in GB (10**9 bytes), ``> 0`` and at most ``10**6``
        (:data:`~clustersched.dfrs.limits.MAX_NODE_MEMORY_GB`); used only
        to express preemption and migration traffic in GB/s (§6.3).  The
        default, 2 GB, is the HPC2N node memory of §5.3.1.

    Raises
    ------
    TypeError, ValueError
        A value of the wrong type or below its minimum.
    LimitError
        A value above its limit (a ``ValueError`` naming it).

    Examples
    --------
    >>> DfrsPlatform(128)
    DfrsPlatform(nodes=128, node_memory_gb=2.0)
    """

    nodes: int
    node_memory_gb: float = 2.0

    def __post_init__(self) -> None:
        nodes = check_int("nodes", self.nodes, 1)
        check_limit("nodes", nodes, MAX_NODES, "MAX_NODES")
        memory = check_float("node_memory_gb", self.node_memory_gb, positive=True)
        check_limit("node_memory_gb", memory, MAX_NODE_MEMORY_GB, "MAX_NODE_MEMORY_GB")
        object.__setattr__(self, "nodes", nodes)
        object.__setattr__(self, "node_memory_gb", memory)


class DfrsJobs:
    """A set of DFRS jobs as numpy columns, one row per job, in submission order.

    Parameters
    ----------
    submit : array of float
        Submit (release) time of each job, seconds, in ``[0, 10**10]``
        (:data:`~clustersched.dfrs.limits.MAX_TIME`).
    processing_time : array of float
        Run time on a dedicated system, seconds, in ``[0, 10**10]``.  Hidden
        from the scheduling algorithms.
    tasks : array of int
        Number of tasks, ``1 .. 2**20``
        (:data:`~clustersched.dfrs.limits.MAX_TASKS`), at most ``2**28`` in all
        (:data:`~clustersched.dfrs.limits.MAX_TOTAL_TASKS`).
    cpu_need : array of float
        CPU need of each task as a fraction of a node, in ``(0, 1]``.
    mem_need : array of float
        Memory requirement of each task as a fraction of a node, in ``(0, 1]``.
    job_id : array of int, optional
        Identifiers reported in messages and results (default ``1..n``);
        distinct, except -1 (unknown), which may repeat (as SWF job numbers).
    time_requested : array of float, optional
        The run time the user requested (SWF field 9), seconds; -1 where
        unknown (the default for every job).  The DFRS algorithms never read
        it; only a batch baseline asked for ``estimates="requested"`` does
        (:func:`clustersched.dfrs.baselines.simulate_batch`).
    source : str, optional
        Where the jobs came from (a path), for error messages.

    Raises
    ------
    TypeError
        A column that is not numbers.
    ValueError
        Columns of different lengths or not 1-D.
    InvalidWorkloadError
        A value out of range, or a job id used twice, naming the job, the
        column and the value.

    Examples
    --------
    >>> jobs = DfrsJobs(submit=[10, 0], processing_time=[60, 30], tasks=[2, 1],
    ...                 cpu_need=[1.0, 0.25], mem_need=[0.1, 0.5])
    >>> jobs.job_id.tolist(), jobs.submit.tolist()      # sorted by submit time
    ([2, 1], [0.0, 10.0])
    >>> jobs.fits(DfrsPlatform(1)).tolist()
    [True, True]
    """

    __slots__ = ("job_id", "submit", "processing_time", "tasks", "cpu_need", "mem_need", "time_requested", "source")

    job_id: np.ndarray
    submit: np.ndarray
    processing_time: np.ndarray
    tasks: np.ndarray
    cpu_need: np.ndarray
    mem_need: np.ndarray
    time_requested: np.ndarray
    source: str | None

    def __init__(
        self,
        *,
        submit: Any,
        processing_time: Any,
        tasks: Any,
        cpu_need: Any,
        mem_need: Any,
        job_id: Any = None,
        time_requested: Any = None,
        source: str | None = None,
    ) -> None:
        cols = {
            "submit": _floats("submit", submit),
            "processing_time": _floats("processing_time", processing_time),
            "tasks": _ints("tasks", tasks, source),
            "cpu_need": _floats("cpu_need", cpu_need),
            "mem_need": _floats("mem_need", mem_need),
        }
        n = len(cols["submit"])
        cols["job_id"] = np.arange(1, n + 1, dtype=np.int64) if job_id is None else _ints("job_id", job_id, source)
        cols["time_requested"] = (
            np.full(n, -1.0) if time_requested is None else _floats("time_requested", time_requested)
        )
        lengths = {name: len(col) for name, col in cols.items()}
        if len(set(lengths.values())) > 1:
            raise ValueError(f"DfrsJobs columns differ in length: {lengths}")
        ids = cols["job_id"]

        def reject(bad: np.ndarray, field: str, rule: str) -> None:
            if bad.any():
                i = int(np.flatnonzero(bad)[0])
                value = cols[field][i].item()
                raise InvalidWorkloadError(
                    f"{field} == {value!r}, must be {rule} ({int(bad.sum())} such job(s))",
                    path=source,
                    row=i,
                    job_id=int(ids[i]),
                    field=field,
                    value=value,
                )

        with np.errstate(invalid="ignore"):
            for field in ("submit", "processing_time"):
                x = cols[field]
                reject(~(np.isfinite(x) & (x >= 0)), field, "finite and >= 0")
                reject(x > MAX_TIME, field, f"<= {MAX_TIME:g} s (clustersched.dfrs.limits.MAX_TIME)")
            reject(
                (cols["tasks"] < 1) | (cols["tasks"] > MAX_TASKS),
                "tasks",
                f"between 1 and {MAX_TASKS} (clustersched.dfrs.limits.MAX_TASKS)",
            )
            total = np.cumsum(cols["tasks"])
            if len(total) and total[-1] > MAX_TOTAL_TASKS:
                i = int(np.argmax(total > MAX_TOTAL_TASKS))
                raise InvalidWorkloadError(
                    f"tasks == {int(cols['tasks'][i])} brings the table to {int(total[i])} tasks, more than "
                    f"{MAX_TOTAL_TASKS} in all (clustersched.dfrs.limits.MAX_TOTAL_TASKS)",
                    path=source,
                    row=i,
                    job_id=int(ids[i]),
                    field="tasks",
                    value=int(cols["tasks"][i]),
                )
            x = cols["time_requested"]
            reject(
                ~np.isfinite(x) | (x > MAX_TIME),
                "time_requested",
                f"finite and <= {MAX_TIME:g} s (clustersched.dfrs.limits.MAX_TIME); <= 0 means unknown",
            )
            cols["time_requested"] = np.where(x > 0, x, -1.0)
            for field in ("cpu_need", "mem_need"):
                x = cols[field]
                reject(~(np.isfinite(x) & (x > 0) & (x <= 1)), field, "in (0, 1] (a fraction of a node)")
                units = np.rint(x * NEED_UNITS)
                reject(units < 1, field, f"at least {NEED_RESOLUTION} (the resolution of needs)")
                cols[field] = units / NEED_UNITS
        _check_distinct(ids, source)
        order = np.argsort(cols["submit"], kind="stable")
        for name, col in cols.items():
            arr = np.ascontiguousarray(col[order])
            arr.flags.writeable = False
            object.__setattr__(self, name, arr)
        object.__setattr__(self, "source", source)

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"DfrsJobs is immutable (cannot set {name!r}); build a new one")

    def __len__(self) -> int:
        return len(self.job_id)

    def __repr__(self) -> str:
        where = f" from {self.source}" if self.source else ""
        return f"<DfrsJobs {len(self)} jobs{where}>"

    def columns(self) -> dict[str, np.ndarray]:
        """The seven columns as a dict (DataFrame-ready)."""
        return {name: getattr(self, name) for name in self.__slots__[:-1]}

    def select(self, rows: Any) -> "DfrsJobs":
        """A new table with the rows picked by a boolean mask or an index array."""
        return DfrsJobs(**{name: col[rows] for name, col in self.columns().items()}, source=self.source)

    def cpu_units(self) -> np.ndarray:
        """CPU needs in integer units of :data:`NEED_RESOLUTION` (uint64)."""
        return np.rint(self.cpu_need * NEED_UNITS).astype(np.uint64)

    def mem_units(self) -> np.ndarray:
        """Memory needs in integer units of :data:`NEED_RESOLUTION` (uint64)."""
        return np.rint(self.mem_need * NEED_UNITS).astype(np.uint64)

    def tasks_per_node(self) -> np.ndarray:
        """Most tasks of each job one node can hold by memory: ``floor(1 / mem_need)``."""
        return (NEED_UNITS // self.mem_units()).astype(np.int64)

    def fits(self, platform: DfrsPlatform) -> np.ndarray:
        """Boolean mask: jobs whose tasks all fit on the empty ``platform`` (by memory)."""
        return self.tasks <= platform.nodes * self.tasks_per_node()

    def check_nonempty(self) -> None:
        """Raises InvalidWorkloadError (a ValueError) when the table has no job: nothing to schedule or measure."""
        if len(self) == 0:
            raise InvalidWorkloadError("the job table is empty", path=self.source)

    def check_fits(self, platform: DfrsPlatform) -> None:
        """Raises InvalidWorkloadError naming the first job that cannot fit on the empty platform."""
        bad = ~self.fits(platform)
        if bad.any():
            i = int(np.flatnonzero(bad)[0])
            raise InvalidWorkloadError(
                f"{self.tasks[i]} tasks of {self.mem_need[i]:.4g} node memory each cannot fit on "
                f"{platform.nodes} nodes (at most {self.tasks_per_node()[i]} per node; "
                f"{int(bad.sum())} such job(s); drop them with jobs.select(jobs.fits(platform)))",
                path=self.source,
                row=i,
                job_id=int(self.job_id[i]),
                field="tasks",
                value=int(self.tasks[i]),
            )

    def work(self) -> np.ndarray:
        """CPU work of each job in node-seconds: ``processing_time * cpu_need * tasks``."""
        return self.processing_time * self.cpu_need * self.tasks


def _check_distinct(ids: np.ndarray, source: str | None) -> None:
    """InvalidWorkloadError naming the first id equal to an earlier one (-1, unknown, may repeat), as read_swf."""
    known = np.flatnonzero(ids != -1)
    _, first, inverse = np.unique(ids[known], return_index=True, return_inverse=True)
    owner = known[first[inverse.reshape(-1)]]
    later = owner != known
    if later.any():
        k = int(np.flatnonzero(later)[0])
        row, job = int(known[k]), int(ids[known[k]])
        raise InvalidWorkloadError(
            f"this job number is already used at row {int(owner[k])} ({int(later.sum())} such row(s))",
            path=source,
            row=row,
            job_id=job,
            field="job_id",
            value=job,
        )


def _array(name: str, value: Any) -> np.ndarray:
    if value is None:
        raise TypeError(f"column {name!r} == None, must be a 1-D array of numbers (one per job)")
    try:
        raw = np.asarray(value)
    except ValueError as e:
        raise ValueError(f"column {name!r} is not a 1-D array of numbers ({e})") from None
    if raw.ndim != 1:
        raise ValueError(f"column {name!r} has shape {raw.shape}, must be 1-D (one value per job)")
    if raw.dtype.kind == "O":
        for i, x in enumerate(raw.tolist()):
            if isinstance(x, bool) or not isinstance(x, numbers.Real):
                raise TypeError(f"column {name!r}: row {i} == {x!r}, must be a number")
        raw = raw.astype(np.float64)
    if raw.dtype.kind not in "iuf":
        raise TypeError(f"column {name!r} has dtype {raw.dtype}, must hold numbers")
    return raw


def _floats(name: str, value: Any) -> np.ndarray:
    return np.array(_array(name, value), dtype=np.float64)


def _ints(name: str, value: Any, source: str | None) -> np.ndarray:
    raw = _array(name, value)
    if raw.dtype.kind == "f":
        with np.errstate(invalid="ignore"):
            bad = ~np.isfinite(raw) | (raw != np.trunc(raw)) | (np.abs(raw) >= 2.0**63)
        if bad.any():
            i = int(np.flatnonzero(bad)[0])
            raise InvalidWorkloadError(
                f"row {i}: value {raw[i].item()!r} is not an integer", path=source, field=name, value=raw[i].item()
            )
    elif raw.dtype.kind == "u" and raw.size and raw.max() > np.iinfo(np.int64).max:
        i = int(np.argmax(raw))
        raise InvalidWorkloadError(
            f"row {i}: value {raw[i].item()!r} is out of int64's range", path=source, field=name, value=raw[i].item()
        )
    return np.array(raw, dtype=np.int64)
