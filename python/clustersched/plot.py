"""Pictures of schedules, drawn with matplotlib (imported when a picture is drawn, not with the package)."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    from .batch.schedule import Schedule

__all__ = ["gantt"]


def _pyplot() -> Any:
    """matplotlib.pyplot, on the file-only Agg backend unless one was chosen (no display needed)."""
    import matplotlib

    matplotlib.use("Agg", force=False)
    import matplotlib.pyplot as plt

    return plt


def gantt(
    schedule: Schedule,
    path: str | os.PathLike[str] | None = None,
    *,
    window: tuple[float, float] | None = None,
    ax: Any = None,
    title: str | None = None,
) -> Any:
    """Draws a Gantt chart: one row per processor, one box per job.

    Each job is drawn on its processor ids, merged into runs of consecutive
    ids so that a wide job is one box per run (the schedule must carry ids).

    Parameters
    ----------
    schedule : Schedule
    path : path, optional
        Where to save the figure (PNG, PDF, SVG by extension).
    window : (start, end), optional
        Time window to show (s); default the whole schedule.
    ax : matplotlib Axes, optional
        Axes to draw on; a new figure otherwise.

    Returns
    -------
    matplotlib.figure.Figure
    """
    plt = _pyplot()
    from matplotlib.collections import PolyCollection

    if ax is None:
        fig, ax = plt.subplots(figsize=(12, 5), constrained_layout=True)
    else:
        fig = ax.figure
    start, end = np.asarray(schedule.start, float), np.asarray(schedule.end, float)
    lo, hi = window if window is not None else (float(start.min()), float(end.max()))
    shown = np.flatnonzero((end > lo) & (start < hi) & (end > start))
    boxes, colors = [], []
    cmap = plt.get_cmap("tab20")
    for row in shown:
        color = cmap(int(schedule.job_id[row]) % 20)
        for first, count in _runs(schedule, row):
            s, e = start[row], end[row]
            boxes.append([(s, first), (e, first), (e, first + count), (s, first + count)])
            colors.append(color)
    ax.add_collection(PolyCollection(boxes, facecolors=colors, edgecolors="black", linewidths=0.2))
    ax.set_xlim(lo, hi)
    ax.set_ylim(0, schedule.total_procs)
    ax.set_xlabel("time (s)")
    ax.set_ylabel("processor")
    ax.set_title(title or f"{schedule.policy}: {len(shown)} jobs on {schedule.total_procs} processors")
    if path is not None:
        fig.savefig(path, dpi=150)
        plt.close(fig)
    return fig


def _runs(schedule: Schedule, row: int) -> list[tuple[int, int]]:
    """(first processor, count) for each run of consecutive processor ids of a job."""
    if schedule.proc_offsets is None:
        raise ValueError("gantt needs processor ids; this schedule has none")
    return schedule.processor_runs(row)
