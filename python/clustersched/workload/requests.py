"""Job requests as Slurm's sbatch has them: one row per job, as numpy columns.

A :class:`JobTable` says what each job *did* (SWF's 18 fields); a
:class:`Requests` says what it *asked* for on a cluster of nodes
(:class:`~clustersched.platform.NodeCluster`): nodes, tasks, CPUs per task,
memory per CPU or per node, GPUs per node, node features, partition, account,
user, QOS, time limit and exclusivity.  ``JobTable.requests`` holds one when
the jobs came from Slurm's files (:func:`clustersched.slurm.read_sacct`,
:func:`clustersched.slurm.read_slurm_events`) or from
:meth:`Requests.from_swf`.

Unset values follow sbatch: a count of 0 or -1 means "not given" (the column's
docstring says which), an empty string "any" or "the default".
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Mapping

import numpy as np

from ..errors import InvalidWorkloadError

if TYPE_CHECKING:
    import pandas

# JobTable is not imported: jobs.py imports this module (JobTable.requests), and tests/test_layout.py forbids circles.

__all__ = ["REQUEST_FIELDS", "Requests"]

#: (column, dtype, default, meaning), in order.  ``object`` columns hold Python str.
REQUEST_FIELDS: tuple[tuple[str, Any, Any, str], ...] = (
    ("nodes", np.int64, 0, "minimum number of nodes (sbatch -N); 0 = not given"),
    ("tasks", np.int64, 1, "number of tasks (sbatch -n), >= 1"),
    ("cpus_per_task", np.int64, 1, "CPUs per task (sbatch -c), >= 1"),
    ("mem_per_cpu_mb", np.float64, -1.0, "memory per CPU, MB (--mem-per-cpu); -1 = not given"),
    (
        "mem_per_node_mb",
        np.float64,
        -1.0,
        "memory per node, MB (--mem); -1 = not given, 0 = all of each node's memory (as --mem=0)",
    ),
    ("gpus_per_node", np.int64, 0, "GPUs per node (--gres=gpu:N); 0 = none"),
    ("gpu_type", object, "", "GPU type (--gres=gpu:TYPE:N); '' = any type"),
    ("features", object, "", "required node features (--constraint), as written; '' = none"),
    ("partition", object, "", "partition (-p); '' = the default partition"),
    ("account", object, "", "account (-A); '' = not given"),
    ("user", object, "", "user name or id; '' = not given"),
    ("qos", object, "", "QOS (-q); '' = not given"),
    ("time_limit", np.float64, -1.0, "time limit, s (-t); -1 = not given, inf = unlimited"),
    ("exclusive", np.bool_, False, "whole nodes (--exclusive)"),
    ("label", object, "", "the job's id as its source wrote it (sacct's 1234_7)"),
    (
        "eligible",
        np.float64,
        -1.0,
        "when the job became eligible to start, s on the table's submit clock (sacct's Eligible); -1 = not given",
    ),
    ("priority", np.int64, -1, "the job's priority as its source gave it (sacct's Priority), >= 0; -1 = not given"),
    ("job_name", object, "", "the job's name (sbatch -J, sacct's JobName); '' = not given"),
)
REQUEST_NAMES: tuple[str, ...] = tuple(name for name, _, _, _ in REQUEST_FIELDS)
_DTYPES = {name: dtype for name, dtype, _, _ in REQUEST_FIELDS}
_DEFAULTS = {name: default for name, _, default, _ in REQUEST_FIELDS}
# The names to_pandas gives the columns that have a unit.
_UNIT_NAMES = {"time_limit": "time_limit_s", "eligible": "eligible_s"}


class Requests:
    """What each job asks for on a cluster of nodes, one row per job (a struct of arrays).

    Parameters
    ----------
    columns : mapping of column name to 1-D array, optional
        Any subset of :data:`REQUEST_FIELDS`; missing columns get their default (one task of one CPU,
        nothing else asked).  All given columns must have one length.
    n : int, optional
        The number of rows when no column is given.

    Raises
    ------
    InvalidWorkloadError
        A value out of its column's range (``tasks`` < 1, a negative memory other than -1, ...),
        naming the row and the column.

    Examples
    --------
    >>> r = Requests({"tasks": [4, 1], "mem_per_cpu_mb": [2800, -1], "partition": ["debug", ""]})
    >>> len(r), r.cpus().tolist(), r.partition.tolist()
    (2, [4, 1], ['debug', ''])
    >>> r.select([1]).tasks.tolist()
    [1]
    """

    __slots__ = REQUEST_NAMES

    def __init__(self, columns: Mapping[str, Any] | None = None, *, n: int | None = None) -> None:
        columns = dict(columns or {})
        unknown = set(columns) - set(REQUEST_NAMES)
        if unknown:
            raise ValueError(f"unknown Requests column(s) {sorted(unknown)}; known: {REQUEST_NAMES}")
        given = {name: _column(name, value) for name, value in columns.items()}
        lengths = {name: len(col) for name, col in given.items()}
        if n is not None:
            lengths["n"] = int(n)
        if len(set(lengths.values())) > 1:
            raise ValueError(f"Requests columns differ in length: {lengths}")
        size = next(iter(lengths.values()), 0)
        for name in REQUEST_NAMES:
            if name in given:
                arr = given[name]
            elif _DTYPES[name] is object:
                arr = np.full(size, _DEFAULTS[name], dtype=object)
            else:
                arr = np.full(size, _DEFAULTS[name], dtype=_DTYPES[name])
            object.__setattr__(self, name, arr)
        self._check()

    def _check(self) -> None:
        rules = (
            ("nodes", self.nodes < 0, "must be >= 0 (0: not given)"),
            ("tasks", self.tasks < 1, "must be >= 1"),
            ("cpus_per_task", self.cpus_per_task < 1, "must be >= 1"),
            ("gpus_per_node", self.gpus_per_node < 0, "must be >= 0"),
            (
                "mem_per_cpu_mb",
                ~np.isfinite(self.mem_per_cpu_mb) | ((self.mem_per_cpu_mb < 0) & (self.mem_per_cpu_mb != -1)),
                "must be finite and >= 0, or -1 (not given)",
            ),
            (
                "mem_per_node_mb",
                ~np.isfinite(self.mem_per_node_mb) | ((self.mem_per_node_mb < 0) & (self.mem_per_node_mb != -1)),
                "must be finite and >= 0, or -1 (not given)",
            ),
            (
                "time_limit",
                np.isnan(self.time_limit) | ((self.time_limit <= 0) & (self.time_limit != -1)),
                "must be > 0 (inf: unlimited), or -1 (not given)",
            ),
            (
                "eligible",
                ~np.isfinite(self.eligible) | ((self.eligible < 0) & (self.eligible != -1)),
                "must be finite and >= 0, or -1 (not given)",
            ),
            ("priority", self.priority < -1, "must be >= 0, or -1 (not given)"),
        )
        for name, bad, rule in rules:
            if bad.any():
                i = int(np.argmax(bad))
                value = getattr(self, name)[i].item()
                raise InvalidWorkloadError(f"{name} == {value!r}, {rule}", row=i, field=name, value=value)

    def __len__(self) -> int:
        return len(self.tasks)

    def __repr__(self) -> str:
        return f"<Requests {len(self)} jobs>"

    def columns(self) -> dict[str, np.ndarray]:
        """The columns as a dict, in :data:`REQUEST_FIELDS` order."""
        return {name: getattr(self, name) for name in REQUEST_NAMES}

    def cpus(self) -> np.ndarray:
        """CPUs each job asks for in all: ``tasks * cpus_per_task`` (int64)."""
        return self.tasks * self.cpus_per_task

    def select(self, rows: Any) -> "Requests":
        """The rows picked by a boolean mask, an index array or a slice (copies, in that order)."""
        index = np.arange(len(self))[rows]
        return Requests({name: np.take(getattr(self, name), index) for name in REQUEST_NAMES})

    def equals(self, other: object) -> bool:
        """True when both hold the same rows (NaN never appears: the columns refuse it)."""
        return (
            isinstance(other, Requests)
            and len(self) == len(other)
            and all(np.array_equal(getattr(self, n), getattr(other, n)) for n in REQUEST_NAMES)
        )

    def frame_columns(self, prefix: str = "") -> dict[str, np.ndarray]:
        """The columns named as in a DataFrame: ``prefix`` + name, ``time_limit`` as ``time_limit_s`` and
        ``eligible`` as ``eligible_s``."""
        return {prefix + _UNIT_NAMES.get(name, name): getattr(self, name) for name in REQUEST_NAMES}

    def to_pandas(self) -> "pandas.DataFrame":
        """The columns as a DataFrame, one row per job (``time_limit_s`` in seconds, memory in MB).

        Examples
        --------
        >>> df = Requests({"tasks": [2], "time_limit": [60.0]}).to_pandas()
        >>> df["tasks"].tolist(), df["time_limit_s"].tolist()
        ([2], [60.0])
        """
        from .._pandas import frame

        return frame(self.frame_columns(), units=False)

    @classmethod
    def from_swf(cls, table: Any, *, memory: bool = False) -> "Requests":
        """The requests of SWF jobs: each job asks for its processors as tasks of one CPU.

        Parameters
        ----------
        table : JobTable
            The jobs.  ``tasks`` is the requested processors (SWF field 8), else the allocated ones
            (field 5); ``time_limit`` the requested time (field 9) when known; ``user`` and ``account``
            the user and group numbers (fields 12, 13) as text when known; ``label`` the job number.
        memory : bool
            Whether to ask for memory: SWF's field 10, requested memory in KB *per processor*, becomes
            ``mem_per_cpu_mb`` (KB / 1024) where it is known (> 0); otherwise memory is not asked for.

        Raises
        ------
        InvalidWorkloadError
            A job with no processor count (fields 5 and 8 both unknown or 0), naming it; drop such
            jobs first (:func:`~clustersched.workload.drop_invalid`).

        Examples
        --------
        >>> from clustersched.workload import JobTable
        >>> t = JobTable({"procs": [4, 2], "procs_requested": [-1, 3], "mem_requested": [2048, -1],
        ...               "time_requested": [600, -1]})
        >>> r = Requests.from_swf(t, memory=True)
        >>> r.tasks.tolist(), r.mem_per_cpu_mb.tolist(), r.time_limit.tolist()
        ([4, 3], [2.0, -1.0], [600.0, -1.0])
        """
        tasks = np.where(table.procs_requested > 0, table.procs_requested, table.procs)
        bad = tasks < 1
        if bad.any():
            i = int(np.argmax(bad))
            raise InvalidWorkloadError(
                "has no processor count (procs and procs_requested unknown): drop it first (drop_invalid)",
                path=table.source,
                row=i,
                job_id=int(table.job_id[i]),
                field="procs",
                value=int(table.procs[i]),
            )
        columns: dict[str, Any] = {
            "tasks": tasks,
            "time_limit": np.where(table.time_requested > 0, table.time_requested, -1.0),
            "user": _ids_text(table.user_id),
            "account": _ids_text(table.group_id),
            "label": np.array([str(x) for x in table.job_id.tolist()], dtype=object),
        }
        if memory:
            columns["mem_per_cpu_mb"] = np.where(table.mem_requested > 0, table.mem_requested / 1024.0, -1.0)
        return cls(columns, n=len(table))


def _ids_text(ids: np.ndarray) -> np.ndarray:
    """Ids as text, ``''`` where unknown (< 0); one str object per distinct id."""
    values, codes = np.unique(ids, return_inverse=True)
    names = np.array([str(v) if v >= 0 else "" for v in values.tolist()], dtype=object)
    return names[codes.reshape(-1)] if len(ids) else np.array([], dtype=object)


def _column(name: str, value: Any) -> np.ndarray:
    dtype = _DTYPES[name]
    if dtype is object:
        arr = np.asarray(value, dtype=object)
        if arr.ndim != 1:
            raise ValueError(f"column {name!r} has shape {arr.shape}, must be 1-D (one value per job)")
        values = arr.tolist()
        if not set(map(type, values)) <= {str}:  # map(type) runs in C: the loop below only finds the culprit
            for i, x in enumerate(values):
                if not isinstance(x, str):
                    raise TypeError(f"column {name!r}: row {i} == {x!r}, must be a str")
        return arr
    raw = np.asarray(value)
    if raw.ndim != 1:
        raise ValueError(f"column {name!r} has shape {raw.shape}, must be 1-D (one value per job)")
    if dtype is np.bool_:
        if raw.dtype.kind != "b" and len(raw):
            raise TypeError(f"column {name!r} has dtype {raw.dtype}, must hold bools")
        return np.ascontiguousarray(raw, dtype=np.bool_)
    if raw.dtype.kind not in "iuf" and len(raw):
        raise TypeError(f"column {name!r} has dtype {raw.dtype}, must hold numbers")
    if dtype is np.int64 and raw.dtype.kind == "f":
        bad = ~np.isfinite(raw) | (raw != np.trunc(raw))
        if bad.any():
            i = int(np.argmax(bad))
            raise InvalidWorkloadError(
                f"{name} == {raw[i].item()!r} is not an integer", row=i, field=name, value=raw[i].item()
            )
    return np.ascontiguousarray(raw, dtype=dtype)
