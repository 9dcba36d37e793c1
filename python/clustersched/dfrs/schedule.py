"""DfrsSchedule: what a DFRS algorithm did, as numpy columns a validator can check on its own.

A schedule is a list of *segments*: over ``[seg_start[s], seg_end[s])`` job
``seg_job[s]`` (a row of the job table) runs with a fixed mapping and fixed
CPU shares.  Segment ``s`` owns the entries ``seg_offsets[s] : seg_offsets[s +
1]``; entry ``k`` says that ``entry_count[k]`` tasks of the job sit on node
``entry_node[k]`` and that each of them gets the fraction ``entry_share[k]``
of that node's CPU.  A job's yield over a segment is its share divided by its
CPU need.  A job holds memory and CPU only inside its segments; between two
of its segments it is paused.  It completes at the end of its last segment.

Nothing else is recorded: penalties, progress, preemptions and migrations are
consequences of the segments (a segment that starts after a gap in the job's
segments is a resume, one that starts where the previous ended on other
nodes is a migration), which :mod:`~clustersched.dfrs.validate` and
:mod:`~clustersched.dfrs.metrics` derive independently of the simulator.
"""

from __future__ import annotations

import csv
import os
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    import pandas

__all__ = ["DfrsSchedule"]


@dataclass(frozen=True, eq=False)
class DfrsSchedule:
    """A DFRS schedule (see the module docstring).

    Attributes
    ----------
    job_id, submit : numpy.ndarray
        One entry per job (the rows of the job table scheduled).
    completion : numpy.ndarray
        When each job completed (the end of its last segment).
    seg_job, seg_start, seg_end : numpy.ndarray
        Segments, sorted by job then start.
    seg_offsets : numpy.ndarray
        ``len(seg_job) + 1`` offsets into the entries.
    entry_node, entry_count, entry_share : numpy.ndarray
        Where each segment's tasks are and the CPU fraction of a node each gets.
    nodes : int
        Nodes of the platform.
    penalty : float
        The rescheduling penalty (s): a resumed or migrated job makes no
        progress for this long.
    algorithm : str
        The algorithm's name.
    options : dict
        Other settings (period, ...), as strings.
    """

    job_id: np.ndarray
    submit: np.ndarray
    completion: np.ndarray
    seg_job: np.ndarray
    seg_start: np.ndarray
    seg_end: np.ndarray
    seg_offsets: np.ndarray
    entry_node: np.ndarray
    entry_count: np.ndarray
    entry_share: np.ndarray
    nodes: int
    penalty: float
    algorithm: str = ""
    options: dict[str, str] = field(default_factory=dict)

    def __len__(self) -> int:
        return len(self.job_id)

    @property
    def segments(self) -> int:
        """Number of segments."""
        return len(self.seg_job)

    def segment_entries(self, s: int) -> list[tuple[int, int, float]]:
        """(node, tasks, CPU share per task) of segment ``s``."""
        k = slice(int(self.seg_offsets[s]), int(self.seg_offsets[s + 1]))
        return list(zip(self.entry_node[k].tolist(), self.entry_count[k].tolist(), self.entry_share[k].tolist()))

    def job_segments(self, row: int) -> np.ndarray:
        """Segment indices of the job in ``row``, in time order."""
        lo, hi = np.searchsorted(self.seg_job, [row, row + 1])
        return np.arange(lo, hi)

    def first_start(self) -> np.ndarray:
        """When each job first ran (NaN for a job without segments)."""
        out = np.full(len(self), np.nan)
        if self.segments:
            first = np.r_[True, self.seg_job[1:] != self.seg_job[:-1]]
            out[self.seg_job[first]] = self.seg_start[first]
        return out

    def columns(self) -> dict[str, np.ndarray]:
        """One row per job: job_id, submit, first_start, completion, flow (DataFrame-ready)."""
        return {
            "job_id": self.job_id,
            "submit": self.submit,
            "first_start": self.first_start(),
            "completion": self.completion,
            "flow": self.completion - self.submit,
        }

    def segment_columns(self) -> dict[str, np.ndarray]:
        """One row per (segment, node): job_id, start, end, node, tasks, share."""
        per = np.diff(self.seg_offsets)
        seg = np.repeat(np.arange(self.segments), per)
        return {
            "job_id": self.job_id[self.seg_job[seg]],
            "start": self.seg_start[seg],
            "end": self.seg_end[seg],
            "node": self.entry_node,
            "tasks": self.entry_count,
            "share": self.entry_share,
        }

    def to_pandas(self, *, segments: bool = False) -> "pandas.DataFrame":
        """A DataFrame, names with units: one row per job (:meth:`columns`: ``job_id``, ``submit_s``,
        ``first_start_s``, ``completion_s``, ``flow_s``), or with ``segments`` one row per segment and node
        (:meth:`segment_columns`: ``job_id``, ``start_s``, ``end_s``, ``node``, ``tasks``, ``share``).

        pandas is optional: ``pip install "clustersched[pandas]"``.
        """
        from .._pandas import frame

        return frame(self.segment_columns() if segments else self.columns())

    def to_csv(self, path: str | os.PathLike[str]) -> None:
        """Writes :meth:`segment_columns` as CSV."""
        from .._output import atomic_open  # whole or not at all: a full disk leaves no half table

        cols = self.segment_columns()
        with atomic_open(path, "w", newline="") as fh:
            writer = csv.writer(fh)
            writer.writerow(list(cols))
            for row in zip(*(c.tolist() for c in cols.values())):
                writer.writerow(row)
