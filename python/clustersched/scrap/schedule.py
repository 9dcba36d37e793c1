"""The schedule of one PTG on a heterogeneous multi-cluster platform (numpy columns).

:class:`ClusterSchedule` is what every algorithm of :mod:`clustersched.scrap`
returns (placement of a reference allocation, MHEFT-MAX), what
:func:`clustersched.scrap.validate.validate_multicluster` checks and
:func:`clustersched.scrap.metrics.multicluster_metrics` measures.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from .._checks import short_repr
from ..platform import MultiCluster

if TYPE_CHECKING:
    import pandas

__all__ = ["ClusterSchedule"]


@dataclass(frozen=True, eq=False)
class ClusterSchedule:
    """A schedule of one PTG on a :class:`~clustersched.platform.MultiCluster` (numpy columns).

    Row ``k`` runs task ``task[k]`` on cluster ``cluster[k]`` over
    ``[start[k], end[k])`` on global processor ids
    ``proc_ids[proc_offsets[k]:proc_offsets[k+1]]`` (``procs[k]`` of them).
    ``alloc`` is the reference allocation the schedule was placed from (None
    for MHEFT-MAX) and ``translation`` the rule that translated it to the
    clusters (:data:`clustersched.scrap.model.TRANSLATIONS`; part of what the
    schedule claims: the validator checks each row's processors by it; None
    without ``alloc``); ``comms`` whether communications were modelled.
    """

    task: np.ndarray
    cluster: np.ndarray
    start: np.ndarray
    end: np.ndarray
    proc_offsets: np.ndarray
    proc_ids: np.ndarray
    platform: MultiCluster
    algorithm: str = ""
    alloc: np.ndarray | None = None
    comms: bool = False
    options: dict[str, Any] = field(default_factory=dict)
    translation: str | None = None

    def __post_init__(self) -> None:
        # The columns as contiguous int64 / float64 arrays (no copy when they already are).
        for name, dtype in (
            ("task", np.int64),
            ("cluster", np.int64),
            ("start", np.float64),
            ("end", np.float64),
            ("proc_offsets", np.int64),
            ("proc_ids", np.int64),
        ):
            value = getattr(self, name)
            try:
                column = np.ascontiguousarray(value, dtype=dtype)
            except (TypeError, ValueError, OverflowError):
                raise TypeError(
                    f"{name} == {short_repr(value)}, must be a 1-D array of "
                    f"{'integers' if dtype is np.int64 else 'numbers'}"
                ) from None
            if column.ndim != 1:
                raise ValueError(f"{name} has shape {column.shape}, must be 1-D")
            object.__setattr__(self, name, column)
        if not isinstance(self.platform, MultiCluster):
            raise TypeError(f"platform == {short_repr(self.platform)}, must be a clustersched.platform.MultiCluster")
        rows = len(self.task)
        lengths = {c: len(getattr(self, c)) for c in ("cluster", "start", "end")}
        if any(m != rows for m in lengths.values()):
            raise ValueError(f"ClusterSchedule columns differ in length: task {rows}, {lengths}")
        offsets = self.proc_offsets
        if (
            len(offsets) != rows + 1
            or offsets[0] != 0
            or offsets[-1] != len(self.proc_ids)
            or (np.diff(offsets) < 0).any()
        ):
            raise ValueError(
                f"proc_offsets must rise from 0 to len(proc_ids) == {len(self.proc_ids)} in "
                f"rows + 1 == {rows + 1} entries, not {short_repr(offsets.tolist())}"
            )
        if not isinstance(self.comms, (bool, np.bool_)):
            raise TypeError(f"comms == {short_repr(self.comms)}, must be a bool")
        if self.translation is not None:
            from .model import check_translation

            object.__setattr__(self, "translation", check_translation(self.translation))

    @property
    def procs(self) -> np.ndarray:
        """Processors of each row."""
        return np.diff(self.proc_offsets)

    @property
    def makespan(self) -> float:
        return float(self.end.max()) if len(self.end) else 0.0

    def __len__(self) -> int:
        return len(self.task)

    def processors(self, row: int) -> np.ndarray:
        return self.proc_ids[self.proc_offsets[row] : self.proc_offsets[row + 1]]

    def rows(self) -> list[tuple[int, int, float, float, list[int]]]:
        """``(task, cluster, start, end, processor ids)`` per row."""
        return [
            (
                int(self.task[k]),
                int(self.cluster[k]),
                float(self.start[k]),
                float(self.end[k]),
                self.processors(k).tolist(),
            )
            for k in range(len(self))
        ]

    def columns(self) -> tuple[np.ndarray, ...]:
        """The kernel's columns (task, cluster, start, end, proc_offsets, proc_ids)."""
        return (self.task, self.cluster, self.start, self.end, self.proc_offsets, self.proc_ids)

    def to_pandas(self) -> "pandas.DataFrame":
        """One row per task: ``task``, ``cluster``, ``start_s``, ``end_s``, ``procs`` (a DataFrame, in row
        order).

        pandas is optional: ``pip install "clustersched[pandas]"``.
        """
        from .._pandas import frame

        return frame(
            {"task": self.task, "cluster": self.cluster, "start": self.start, "end": self.end, "procs": self.procs}
        )


def make_schedule(
    cols: tuple[np.ndarray, ...],
    platform: MultiCluster,
    algorithm: str,
    alloc: np.ndarray | None,
    comms: bool,
    options: dict[str, Any] | None = None,
    *,
    translation: str | None = None,
) -> ClusterSchedule:
    """A :class:`ClusterSchedule` from a kernel's columns (``alloc`` copied)."""
    task, cluster, start, end, offsets, ids = cols
    return ClusterSchedule(
        task,
        cluster,
        start,
        end,
        offsets,
        ids,
        platform,
        algorithm,
        None if alloc is None else alloc.copy(),
        comms,
        dict(options or {}),
        translation,
    )
