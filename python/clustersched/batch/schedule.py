"""Schedule: what a batch policy decided, one row per job, as numpy columns.

Its writers in the field's formats (SWF, the Batsim/evalys jobs CSV) are in
:mod:`clustersched.batch.formats`.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    import pandas

    from ..workload.jobs import JobTable
    from .nodes import NodeAllocation

__all__ = ["Schedule"]


@dataclass(frozen=True, eq=False)
class Schedule:
    """A schedule of rigid jobs on a cluster of ``total_procs`` processors.

    Row ``i`` describes row ``i`` of the job table that was scheduled.  A job
    runs on ``procs[i]`` processors from ``start[i]`` to ``end[i]`` (half-open).
    When the policy assigns concrete processors (``proc_offsets`` is not None),
    job ``i`` holds the runs of consecutive processor ids ``k`` in
    ``proc_offsets[i]:proc_offsets[i + 1]``, run ``k`` being the ids
    ``proc_first[k] .. proc_first[k] + proc_count[k] - 1`` (runs keep schedules
    of jobs thousands of processors wide small).

    ``killed`` marks the jobs stopped at their time limit (they ran their
    requested time, not their runtime) when the job table declared
    time-limit kills (:mod:`clustersched.workload.timelimit`, as a Batsim
    workload does); it is None when the table declared none (an SWF trace),
    and then no job was killed.
    """

    job_id: np.ndarray
    submit: np.ndarray
    start: np.ndarray
    end: np.ndarray
    procs: np.ndarray
    total_procs: int
    proc_offsets: np.ndarray | None = None
    proc_first: np.ndarray | None = None
    proc_count: np.ndarray | None = None
    #: The algorithm that made it (its canonical name).
    algorithm: str = ""
    options: dict[str, str] = field(default_factory=dict)
    killed: np.ndarray | None = None
    #: On a cluster of nodes: where each job ran (its shares, node by node); None on a processor pool.
    nodes: "NodeAllocation | None" = None

    def __len__(self) -> int:
        return len(self.job_id)

    @property
    def kills(self) -> int:
        """How many jobs were killed at their time limit (0 when :attr:`killed` is None)."""
        return 0 if self.killed is None else int(np.count_nonzero(self.killed))

    def processor_runs(self, row: int) -> list[tuple[int, int]]:
        """(first id, count) of each run of processors of the job in ``row``."""
        if self.proc_offsets is None or self.proc_first is None or self.proc_count is None:
            raise ValueError(f"schedule made by {self.algorithm!r} assigns no processors")
        k = slice(self.proc_offsets[row], self.proc_offsets[row + 1])
        return list(zip(self.proc_first[k].tolist(), self.proc_count[k].tolist()))

    def processors(self, row: int) -> np.ndarray:
        """Processor ids of the job in ``row`` (raises if none were assigned)."""
        runs = self.processor_runs(row)
        return np.concatenate([np.arange(f, f + c) for f, c in runs]) if runs else np.zeros(0, np.int64)

    def columns(self) -> dict[str, np.ndarray]:
        """One row per job: job_id, submit, start, end, procs, wait (DataFrame-ready), and ``killed``
        (bool) when :attr:`killed` is not None."""
        cols = {
            "job_id": self.job_id,
            "submit": self.submit,
            "start": self.start,
            "end": self.end,
            "procs": self.procs,
            "wait": self.start - self.submit,
        }
        if self.killed is not None:
            cols["killed"] = np.asarray(self.killed, dtype=bool)
        return cols

    def allocated_resources(self) -> list[str]:
        """The processors of each job as an interval set, ``"0-3 8-9"`` (Batsim's and evalys's syntax);
        on a cluster of nodes, the indices of its nodes (Batsim's resources are then hosts).

        Ids are sorted, adjacent runs merged; a single processor is written
        alone (``"5"``).  Raises ValueError when the schedule assigns no
        processors (``proc_offsets`` is None).

        Examples
        --------
        >>> s = Schedule(job_id=np.array([1, 2]), submit=np.zeros(2), start=np.zeros(2), end=np.ones(2),
        ...              procs=np.array([6, 1]), total_procs=10, proc_offsets=np.array([0, 2, 3]),
        ...              proc_first=np.array([8, 0, 5]), proc_count=np.array([2, 4, 1]))
        >>> s.allocated_resources()
        ['0-3 8-9', '5']
        """
        if self.nodes is not None:  # on nodes, Batsim's resources are the nodes (hosts), by index
            offsets = np.asarray(self.nodes.offsets, dtype=np.int64).tolist()
            first = np.asarray(self.nodes.node, dtype=np.int64).tolist()
            count = [1] * len(first)
        elif self.proc_offsets is None or self.proc_first is None or self.proc_count is None:
            raise ValueError(f"schedule made by {self.algorithm!r} assigns no processors")
        else:
            offsets = np.asarray(self.proc_offsets, dtype=np.int64).tolist()
            first = np.asarray(self.proc_first, dtype=np.int64).tolist()
            count = np.asarray(self.proc_count, dtype=np.int64).tolist()
        out = []
        for i in range(len(self)):
            lo, hi = offsets[i], offsets[i + 1]
            runs = sorted(zip(first[lo:hi], count[lo:hi])) if hi - lo > 1 else list(zip(first[lo:hi], count[lo:hi]))
            merged: list[list[int]] = []
            for f, c in runs:
                if merged and f <= merged[-1][1] + 1:
                    merged[-1][1] = max(merged[-1][1], f + c - 1)
                else:
                    merged.append([f, f + c - 1])
            out.append(" ".join(f"{a}-{b}" if b > a else f"{a}" for a, b in merged))
        return out

    def table_columns(self, jobs: "JobTable | None" = None, *, allocated: bool = False) -> dict[str, np.ndarray]:
        """One row per job, names with units: what :meth:`to_pandas` and the CSV writer give.

        ``job_id``, ``submit_s``, ``start_s``, ``end_s``, ``wait_s`` (start -
        submit), ``runtime_s`` (end - start) and ``procs`` (processors
        allocated); with ``jobs`` (the table the schedule ran, row for row:
        :attr:`BatchRun.jobs <clustersched.batch.BatchRun>`) also
        ``procs_requested`` and ``time_requested_s`` (SWF fields 8 and 9, -1
        when unknown); with ``allocated``, ``allocated``: the processor ids as
        interval sets (:meth:`allocated_resources`), and on a cluster of nodes
        ``NodeList`` (a Slurm host list, ``n[1-2],g1``) and the shares node by
        node, in that list's order: ``node_tasks``, ``node_cores``,
        ``node_memory_mb`` and ``node_gpus`` (``"12,12,4"``); last, when
        :attr:`killed` is not None (the jobs declared time-limit kills),
        ``killed``: 1 for a job killed at its time limit, else 0.  With ``jobs``
        read from Slurm's files, ``job_id`` is the JobID as Slurm wrote it
        (``1234_7``).
        """
        start = np.asarray(self.start, dtype=np.float64)
        end = np.asarray(self.end, dtype=np.float64)
        submit = np.asarray(self.submit, dtype=np.float64)
        cols: dict[str, np.ndarray] = {
            "job_id": np.asarray(self.job_id, dtype=np.int64),
            "submit_s": submit,
            "start_s": start,
            "end_s": end,
            "wait_s": start - submit,
            "runtime_s": end - start,
            "procs": np.asarray(self.procs, dtype=np.int64),
        }
        if jobs is not None:
            check_rows(self, jobs)
            cols["procs_requested"] = jobs.procs_requested
            cols["time_requested_s"] = jobs.time_requested
            if jobs.requests is not None and all(jobs.requests.label):
                cols["job_id"] = np.asarray(jobs.requests.label, dtype=object)
        if allocated:
            cols["allocated"] = np.array(self.allocated_resources(), dtype=object)
            if self.nodes is not None:
                cols.update(self.nodes.share_columns())
        if self.killed is not None:
            cols["killed"] = np.asarray(self.killed, dtype=np.int64)
        return cols

    def to_pandas(self, jobs: "JobTable | None" = None, *, allocated: bool = False) -> "pandas.DataFrame":
        """The schedule as a DataFrame, one row per job (columns of :meth:`table_columns`).

        Times are float64 seconds (``_s`` columns), ids and counts int64;
        pandas is an optional dependency (``pip install "clustersched[pandas]"``).

        Examples
        --------
        >>> import clustersched as cs
        >>> run = cs.simulate(cs.read_swf(cs.sample_trace()), "easy")
        >>> df = run.schedule.to_pandas(run.jobs)
        >>> df.columns.tolist()  # doctest: +NORMALIZE_WHITESPACE
        ['job_id', 'submit_s', 'start_s', 'end_s', 'wait_s', 'runtime_s', 'procs', 'procs_requested',
         'time_requested_s']
        >>> len(df), bool(df["wait_s"].mean() == cs.batch_metrics(run.schedule).summary()["avg_wait"])
        (2406, True)
        """
        from .._pandas import frame

        return frame(self.table_columns(jobs, allocated=allocated), units=False)

    def to_csv(self, path: str | os.PathLike[str]) -> None:
        """Writes :meth:`columns` as CSV (times in seconds, integral values without '.0')."""
        import csv  # here, not at the top: a simulation that writes no CSV need not load it

        from .._output import atomic_open  # whole or not at all: a full disk leaves no half table

        cols = self.columns()
        names = list(cols)
        with atomic_open(path, "w", newline="") as fh:
            writer = csv.writer(fh)
            writer.writerow(names)
            for row in zip(*(cols[n].tolist() for n in names)):
                writer.writerow([_fmt(v) for v in row])


def _fmt(value: float | int) -> str:
    if isinstance(value, bool):
        return str(int(value))
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return repr(value) if isinstance(value, float) else str(value)


def check_rows(schedule: Schedule, jobs: "JobTable") -> None:
    """ValueError unless row ``i`` of ``jobs`` is the job of row ``i`` of ``schedule`` (same id and submit time).

    A schedule's rows follow the table it was simulated from, sorted by
    submit time: :attr:`BatchRun.jobs <clustersched.batch.BatchRun>`, not
    the table given to :func:`~clustersched.batch.simulate`.
    """
    from ..workload.jobs import JobTable

    if not isinstance(jobs, JobTable):
        raise TypeError(f"jobs == {type(jobs).__name__}, must be the JobTable the schedule ran (run.jobs)")
    if len(jobs) != len(schedule):
        raise ValueError(
            f"jobs has {len(jobs)} rows and the schedule {len(schedule)}: give the table the schedule ran "
            "(run.jobs, sorted by submit time, without skipped jobs)"
        )
    bad = (np.asarray(jobs.job_id) != np.asarray(schedule.job_id)) | (
        np.asarray(jobs.submit, dtype=np.float64) != np.asarray(schedule.submit, dtype=np.float64)
    )
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise ValueError(
            f"row {i} of jobs is job {jobs.job_id[i]} submitted at {jobs.submit[i]}, the schedule's is job "
            f"{schedule.job_id[i]} submitted at {schedule.submit[i]}: give the table the schedule ran "
            "(run.jobs, sorted by submit time)"
        )
