"""TaskSchedule: a schedule of the tasks of several PTGs, as numpy columns."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Iterable, Sequence

import numpy as np

if TYPE_CHECKING:
    import pandas

__all__ = ["TaskSchedule"]


@dataclass(frozen=True, eq=False)
class TaskSchedule:
    """Where and when every task of a set of PTGs runs, on a cluster of ``total_procs`` processors.

    Row ``k`` says that task ``task[k]`` (an index of
    :class:`~clustersched.workload.ptg.PTG` ``ptg[k]`` in the list that was
    scheduled) runs from ``start[k]`` to ``end[k]`` (seconds, half-open) on
    ``procs[k]`` processors, namely
    ``proc_ids[proc_offsets[k]:proc_offsets[k + 1]]`` (ids in
    ``0 .. total_procs - 1``).  Rows may be in any order; algorithms document
    theirs (e.g. the order in which tasks were placed).

    The constructor normalises the columns to contiguous int64 / float64
    arrays; :meth:`from_rows` builds one from Python tuples.
    ``clustersched.ptg.validate.validate_ptgs`` checks one against its PTGs.

    Examples
    --------
    >>> s = TaskSchedule.from_rows([(0, 0, 0.0, 2.0, [1, 0]), (0, 1, 2.0, 3.0, [0])], total_procs=2)
    >>> len(s), s.procs.tolist(), s.processors(0).tolist()
    (2, [2, 1], [1, 0])
    >>> s.makespans(1).tolist()
    [3.0]
    """

    ptg: np.ndarray
    task: np.ndarray
    start: np.ndarray
    end: np.ndarray
    procs: np.ndarray
    proc_offsets: np.ndarray
    proc_ids: np.ndarray
    total_procs: int
    #: The algorithm that made it (its canonical name).
    algorithm: str = ""
    options: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        for name, dtype in (
            ("ptg", np.int64),
            ("task", np.int64),
            ("start", np.float64),
            ("end", np.float64),
            ("procs", np.int64),
            ("proc_offsets", np.int64),
            ("proc_ids", np.int64),
        ):
            object.__setattr__(self, name, np.ascontiguousarray(getattr(self, name), dtype=dtype).reshape(-1))
        object.__setattr__(self, "total_procs", int(self.total_procs))
        n = len(self.ptg)
        lengths = {c: len(getattr(self, c)) for c in ("task", "start", "end", "procs")}
        if any(v != n for v in lengths.values()):
            raise ValueError(f"TaskSchedule columns differ in length: ptg {n}, {lengths}")
        if len(self.proc_offsets) != n + 1:
            raise ValueError(f"proc_offsets has {len(self.proc_offsets)} entries, must have rows + 1 = {n + 1}")

    @classmethod
    def from_rows(
        cls,
        rows: Iterable[tuple[int, int, float, float, Sequence[int]]],
        *,
        total_procs: int,
        algorithm: str = "",
        options: dict[str, Any] | None = None,
    ) -> "TaskSchedule":
        """A schedule from ``(ptg, task, start, end, processor ids)`` tuples, in row order."""
        rows = list(rows)
        ids = [list(r[4]) for r in rows]
        offsets = np.zeros(len(rows) + 1, dtype=np.int64)
        np.cumsum([len(x) for x in ids], out=offsets[1:])
        return cls(
            ptg=np.array([r[0] for r in rows], dtype=np.int64),
            task=np.array([r[1] for r in rows], dtype=np.int64),
            start=np.array([r[2] for r in rows], dtype=np.float64),
            end=np.array([r[3] for r in rows], dtype=np.float64),
            procs=np.array([len(x) for x in ids], dtype=np.int64),
            proc_offsets=offsets,
            proc_ids=np.array([q for x in ids for q in x], dtype=np.int64),
            total_procs=total_procs,
            algorithm=algorithm,
            options=dict(options or {}),
        )

    def __len__(self) -> int:
        return len(self.ptg)

    def processors(self, row: int) -> np.ndarray:
        """Processor ids of the task in ``row``."""
        return self.proc_ids[self.proc_offsets[row] : self.proc_offsets[row + 1]]

    def rows(self) -> list[tuple[int, int, float, float, list[int]]]:
        """The schedule as ``(ptg, task, start, end, processor ids)`` tuples (inverse of :meth:`from_rows`)."""
        return [
            (int(self.ptg[k]), int(self.task[k]), float(self.start[k]), float(self.end[k]), self.processors(k).tolist())
            for k in range(len(self))
        ]

    def columns(self) -> dict[str, np.ndarray]:
        """One row per task: ptg, task, start, end, procs (DataFrame-ready)."""
        return {"ptg": self.ptg, "task": self.task, "start": self.start, "end": self.end, "procs": self.procs}

    def to_pandas(self) -> "pandas.DataFrame":
        """One row per task: ``ptg``, ``task``, ``start_s``, ``end_s``, ``procs`` (a DataFrame, in row order).

        pandas is optional: ``pip install "clustersched[pandas]"``.

        Examples
        --------
        >>> s = TaskSchedule.from_rows([(0, 0, 0.0, 2.0, [1, 0]), (0, 1, 2.0, 3.0, [0])], total_procs=2)
        >>> df = s.to_pandas()
        >>> df.columns.tolist(), df["end_s"].tolist()
        (['ptg', 'task', 'start_s', 'end_s', 'procs'], [2.0, 3.0])
        """
        from .._pandas import frame

        return frame(self.columns())

    def makespans(self, num_ptgs: int) -> np.ndarray:
        """Completion time of each PTG ``0 .. num_ptgs - 1``: the latest end of its tasks.

        Times count from 0, the common release time of all PTGs (RR-7224 §3.2
        compares them directly: overall makespan = max over PTGs).  A PTG with
        no row gets NaN.
        """
        out = np.full(int(num_ptgs), -np.inf)
        np.maximum.at(out, self.ptg, self.end)
        out[np.isneginf(out)] = np.nan
        return out
