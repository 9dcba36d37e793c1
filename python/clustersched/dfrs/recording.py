"""SegmentRecorder: writes down what the simulator does, as the segments of a DfrsSchedule.

The event loop (:mod:`~clustersched.dfrs.simulator`) tells the recorder when
a job is placed (started, resumed or migrated), when its yield changes and
when it stops (paused or completed); the recorder keeps one open segment per
placed job and a table of the placements it has seen, and turns them into a
:class:`~clustersched.dfrs.schedule.DfrsSchedule` at the end.  It decides
nothing: the only question the loop asks it, :meth:`SegmentRecorder.place`'s
answer, is a fact about the past (did the job run before, and if so did it
stop at this very instant on these very nodes).
"""

from __future__ import annotations

import math

import numpy as np

from .model import DfrsJobs
from .schedule import DfrsSchedule

__all__ = ["SegmentRecorder"]


class SegmentRecorder:
    """The segments of ``n`` jobs (rows of the job table), recorded as they happen.

    A job is *placed* from :meth:`place` to :meth:`stop`; a placed job has at
    most one open segment, opened by :meth:`open` with its yield and closed by
    :meth:`close` (or :meth:`stop`).  Placements are stored once each, as run
    lengths ``(nodes, counts)`` (the Rust state's ``placement_runs``).
    """

    def __init__(self, n: int) -> None:
        self.open_start = np.full(n, math.nan)  # start of the open segment
        self.open_pid = np.full(n, -1, np.int64)  # its placement (-1: no open segment)
        self.open_y = np.zeros(n)  # its yield
        self.pid = np.full(n, -1, np.int64)  # current placement of placed jobs (-1: not placed)
        self.last_end = np.full(n, math.nan)  # end of the job's last closed segment
        self.last_pid = np.full(n, -1, np.int64)  # its placement
        self.pl_nodes: list[np.ndarray] = []
        self.pl_counts: list[np.ndarray] = []
        self.pl_sig: list[bytes] = []
        self.seg_job: list[int] = []
        self.seg_start: list[float] = []
        self.seg_end: list[float] = []
        self.seg_y: list[float] = []
        self.seg_pid: list[int] = []

    def placed(self, rows: np.ndarray) -> np.ndarray:
        """Which of ``rows`` are placed (since the last :meth:`place`, not stopped since)."""
        return self.pid[rows] >= 0

    def place(self, j: int, nodes: np.ndarray, counts: np.ndarray, t: float) -> bool:
        """Job ``j`` is now on ``nodes`` (``counts`` tasks each), from ``t``.

        Returns whether it ran before and did not run until ``t`` on the same
        nodes: for a job that was not placed, whether this start is a resume
        (a job paused and placed again at the same time stamp on the same
        nodes was never stopped).
        """
        self.pl_nodes.append(nodes)
        self.pl_counts.append(counts)
        self.pl_sig.append(nodes.tobytes() + counts.tobytes())
        pid = len(self.pl_nodes) - 1
        self.pid[j] = pid
        last = int(self.last_pid[j])
        return last >= 0 and not (self.last_end[j] == t and self.pl_sig[last] == self.pl_sig[pid])

    def open(self, j: int, t: float, y: float) -> None:
        """Opens a segment of ``j`` at ``t`` on its current placement, at yield ``y``."""
        self.open_start[j] = t
        self.open_pid[j] = self.pid[j]
        self.open_y[j] = y

    def close(self, j: int, t: float) -> None:
        """Closes the open segment of ``j`` (if any) at ``t``."""
        pid = int(self.open_pid[j])
        if pid < 0:
            return
        self.seg_job.append(j)
        self.seg_start.append(float(self.open_start[j]))
        self.seg_end.append(t)
        self.seg_y.append(float(self.open_y[j]))
        self.seg_pid.append(pid)
        self.open_pid[j] = -1
        self.last_end[j] = t
        self.last_pid[j] = pid

    def stop(self, j: int, t: float) -> None:
        """Job ``j`` leaves its nodes at ``t`` (paused or completed)."""
        self.close(j, t)
        self.pid[j] = -1

    def schedule(self, jobs: DfrsJobs, completion: np.ndarray, *, nodes: int, penalty: float, algorithm: str,
                 options: dict[str, str]) -> DfrsSchedule:
        """The recorded segments as a schedule (segments sorted by job, then start)."""
        seg_job = np.array(self.seg_job, dtype=np.int64)
        order = np.lexsort((np.array(self.seg_start), seg_job)) if len(seg_job) else np.zeros(0, np.int64)
        seg_job = seg_job[order]
        seg_start = np.array(self.seg_start)[order] if len(order) else np.zeros(0)
        seg_end = np.array(self.seg_end)[order] if len(order) else np.zeros(0)
        seg_y = np.array(self.seg_y)[order] if len(order) else np.zeros(0)
        seg_pid = np.array(self.seg_pid, dtype=np.int64)[order] if len(order) else np.zeros(0, np.int64)
        pl_len = np.array([len(x) for x in self.pl_nodes], dtype=np.int64)
        pl_off = np.concatenate([[0], np.cumsum(pl_len)])
        pl_nodes = np.concatenate(self.pl_nodes) if self.pl_nodes else np.zeros(0, np.int64)
        pl_counts = np.concatenate(self.pl_counts) if self.pl_counts else np.zeros(0, np.int64)
        per = pl_len[seg_pid] if len(seg_pid) else np.zeros(0, np.int64)
        seg_offsets = np.concatenate([[0], np.cumsum(per)]).astype(np.int64)
        # entry k of segment s is entry (k - seg_offsets[s]) of its placement
        within = np.arange(int(seg_offsets[-1])) - np.repeat(seg_offsets[:-1], per)
        take = np.repeat(pl_off[seg_pid] if len(seg_pid) else np.zeros(0, np.int64), per) + within
        share = np.repeat(seg_y * jobs.cpu_need[seg_job], per)
        return DfrsSchedule(
            job_id=jobs.job_id,
            submit=jobs.submit,
            completion=completion,
            seg_job=seg_job,
            seg_start=seg_start,
            seg_end=seg_end,
            seg_offsets=seg_offsets,
            entry_node=pl_nodes[take].astype(np.int64),
            entry_count=pl_counts[take].astype(np.int64),
            entry_share=share,
            nodes=nodes,
            penalty=penalty,
            algorithm=algorithm,
            options=options,
        )
