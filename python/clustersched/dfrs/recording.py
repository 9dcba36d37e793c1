"""The segments the simulator writes down, as a DfrsSchedule.

The simulator's state in the Rust core (``clustersched._core.DfrsState``,
``clustersched_core::dfrs::sim``) writes the segments down as the event loop
(:mod:`~clustersched.dfrs.simulator`) goes: a job is *placed* from the
commit that starts, resumes or migrates it to the one that pauses it (or its
completion); a placed job has one open segment, opened at a commit that
places it or changes its yield and closed at the next such change.  Every
placement is stored once, as runs ``(node, tasks on it)``.  The recorder
decides nothing: the one question the state asks it at a commit, whether a
job placed now is a resume, is a fact about the past (did the job run
before, and if so did it stop at this very instant on these very nodes).

:func:`schedule_from_segments` turns what the state returns at the end
(``DfrsState.segments()``: segments sorted by job, then start, with their
placement's entries) into a :class:`~clustersched.dfrs.schedule.DfrsSchedule`.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .model import DfrsJobs
from .schedule import DfrsSchedule

__all__ = ["schedule_from_segments"]


def schedule_from_segments(
    segments: tuple[Any, ...],
    jobs: DfrsJobs,
    completion: np.ndarray,
    *,
    nodes: int,
    penalty: float,
    algorithm: str,
    options: dict[str, str],
) -> DfrsSchedule:
    """The schedule of ``segments`` (``DfrsState.segments()``), ``completion`` per job.

    ``segments`` is ``(job, start, end, yield, offsets, node, count)``:
    segments sorted by job, then start (equal starts in the order they
    happened), and the entries ``offsets[s]:offsets[s + 1]`` of segment
    ``s``.  An entry's CPU share is the segment's yield times the job's CPU
    need (``jobs.cpu_need``).
    """
    seg_job, seg_start, seg_end, seg_y, seg_offsets, node, count = segments
    per = np.diff(seg_offsets)
    share = np.repeat(seg_y * jobs.cpu_need[seg_job], per)
    return DfrsSchedule(
        job_id=jobs.job_id,
        submit=jobs.submit,
        completion=completion,
        seg_job=seg_job,
        seg_start=seg_start,
        seg_end=seg_end,
        seg_offsets=seg_offsets,
        entry_node=node,
        entry_count=count,
        entry_share=share,
        nodes=nodes,
        penalty=penalty,
        algorithm=algorithm,
        options=options,
    )
