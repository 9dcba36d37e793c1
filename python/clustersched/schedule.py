"""Schedule: what a policy decided, as numpy columns."""

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
    runs on ``procs[i]`` processors from ``start[i]`` to ``end[i]`` (half-open),
    on processors ``proc_ids[proc_offsets[i]:proc_offsets[i + 1]]`` when the
    policy assigns concrete processors (``proc_offsets is None`` otherwise).
    """

    job_id: np.ndarray
    submit: np.ndarray
    start: np.ndarray
    end: np.ndarray
    procs: np.ndarray
    total_procs: int
    proc_offsets: np.ndarray | None = None
    proc_ids: np.ndarray | None = None
    policy: str = ""
    options: dict[str, str] = field(default_factory=dict)

    def __len__(self) -> int:
        return len(self.job_id)

    def processors(self, row: int) -> np.ndarray:
        """Processor ids of the job in ``row`` (raises if none were assigned)."""
        if self.proc_offsets is None or self.proc_ids is None:
            raise ValueError(f"schedule made by {self.policy!r} assigns no processor ids")
        return self.proc_ids[self.proc_offsets[row] : self.proc_offsets[row + 1]]

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
