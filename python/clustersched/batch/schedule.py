"""Schedule: what a batch policy decided, one row per job, as numpy columns."""

from __future__ import annotations

import csv
import os
from dataclasses import dataclass, field

import numpy as np

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
    policy: str = ""
    options: dict[str, str] = field(default_factory=dict)

    def __len__(self) -> int:
        return len(self.job_id)

    def processor_runs(self, row: int) -> list[tuple[int, int]]:
        """(first id, count) of each run of processors of the job in ``row``."""
        if self.proc_offsets is None or self.proc_first is None or self.proc_count is None:
            raise ValueError(f"schedule made by {self.policy!r} assigns no processors")
        k = slice(self.proc_offsets[row], self.proc_offsets[row + 1])
        return list(zip(self.proc_first[k].tolist(), self.proc_count[k].tolist()))

    def processors(self, row: int) -> np.ndarray:
        """Processor ids of the job in ``row`` (raises if none were assigned)."""
        runs = self.processor_runs(row)
        return np.concatenate([np.arange(f, f + c) for f, c in runs]) if runs else np.zeros(0, np.int64)

    def columns(self) -> dict[str, np.ndarray]:
        """One row per job: job_id, submit, start, end, procs, wait (DataFrame-ready)."""
        return {
            "job_id": self.job_id,
            "submit": self.submit,
            "start": self.start,
            "end": self.end,
            "procs": self.procs,
            "wait": self.start - self.submit,
        }

    def to_csv(self, path: str | os.PathLike[str]) -> None:
        """Writes :meth:`columns` as CSV (times in seconds, integral values without '.0')."""
        cols = self.columns()
        names = list(cols)
        with open(path, "w", newline="") as fh:
            writer = csv.writer(fh)
            writer.writerow(names)
            for row in zip(*(cols[n].tolist() for n in names)):
                writer.writerow([_fmt(v) for v in row])


def _fmt(value: float | int) -> str:
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return repr(value) if isinstance(value, float) else str(value)
