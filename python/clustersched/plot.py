"""Pictures of schedules and of campaigns, drawn with matplotlib (imported when a picture is drawn, not with the package).

:func:`gantt` draws one schedule; :func:`grouped_boxplot` and :func:`pareto` draw
the comparisons of many runs that the reproductions of :mod:`clustersched.reproduce` use.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    from .batch.schedule import Schedule

__all__ = ["figure", "gantt", "grouped_boxplot", "non_dominated", "pareto"]


def figure(nrows: int = 1, ncols: int = 1, *, figsize: tuple[float, float], **subplots: Any) -> tuple[Any, Any]:
    """A new figure of its own and its axes (``Figure.subplots``), with constrained layout.

    The figure is a :class:`matplotlib.figure.Figure` that pyplot never sees,
    so drawing changes neither the backend nor pyplot's current figure, and
    nothing has to close it.  It renders itself as PNG in IPython
    (:class:`clustersched._figure.PlotFigure`), so a notebook cell that ends
    with it shows the picture, whether or not pyplot or ``%matplotlib inline``
    was ever used in that kernel.

    Examples
    --------
    >>> fig, ax = figure(figsize=(4, 3))
    >>> _ = ax.plot([0, 1], [1, 0])
    >>> fig._repr_png_()[1:4]   # a PNG: what a notebook cell ending in ``fig`` displays
    b'PNG'
    """
    from ._figure import PlotFigure

    fig = PlotFigure(figsize=figsize, layout="constrained")
    return fig, fig.subplots(nrows, ncols, **subplots)


def _figure_and_axes(ax: Any, figsize: tuple[float, float]) -> tuple[Any, Any]:
    """The given axes and their figure, or a new figure of ``figsize`` inches and its axes."""
    if ax is None:
        return figure(figsize=figsize)
    return ax.figure, ax


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
    from matplotlib import colormaps
    from matplotlib.collections import PolyCollection

    fig, ax = _figure_and_axes(ax, (12, 5))
    start, end = np.asarray(schedule.start, float), np.asarray(schedule.end, float)
    lo, hi = window if window is not None else (float(start.min()), float(end.max()))
    shown = np.flatnonzero((end > lo) & (start < hi) & (end > start))
    boxes, colors = [], []
    cmap = colormaps["tab20"]
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
    return fig


def _runs(schedule: Schedule, row: int) -> list[tuple[int, int]]:
    """(first processor, count) for each run of consecutive processor ids of a job."""
    if schedule.proc_offsets is None:
        raise ValueError("gantt needs processor ids; this schedule has none")
    return schedule.processor_runs(row)


def grouped_boxplot(
    groups: Mapping[str, Mapping[str, Sequence[float]]],
    path: str | os.PathLike[str] | None = None,
    *,
    ylabel: str = "",
    title: str | None = None,
    log: bool = False,
    ax: Any = None,
) -> Any:
    """Box-and-whisker diagrams, several per group: ``groups[group][series]`` is one box's values.

    Boxes span the quartiles with a line at the median, and the whiskers reach
    the minimum and the maximum (no outlier points), as in RR-7224's Figs. 2-4.
    Each series keeps one colour across the groups, in the order first seen;
    a group without a series leaves its slot empty.

    Parameters
    ----------
    groups : mapping of str to mapping of str to sequence of float
        Group label (one tick on the x-axis) -> series label -> values.
    path : path, optional
        Where to save the figure (PNG, PDF, SVG by extension).
    ylabel, title : str
    log : bool
        Logarithmic y-axis.
    ax : matplotlib Axes, optional
        Axes to draw on; a new figure otherwise.

    Returns
    -------
    matplotlib.figure.Figure
    """
    from matplotlib import colormaps

    series = list(dict.fromkeys(name for boxes in groups.values() for name in boxes))
    fig, ax = _figure_and_axes(ax, (max(6.0, 0.18 * len(groups) * max(1, len(series)) + 2), 4.8))
    cmap = colormaps["tab10"]
    step = 0.8 / max(1, len(series))
    for k, name in enumerate(series):
        where, values = [], []
        for g, boxes in enumerate(groups.values()):
            data = np.asarray(boxes.get(name, ()), dtype=float)
            data = data[np.isfinite(data)]
            if data.size:
                where.append(g - 0.4 + step * (k + 0.5))
                values.append(data)
        if not values:
            continue
        color = cmap(k % 10)
        ax.boxplot(values, positions=where, widths=step * 0.85, whis=(0, 100), showfliers=False,
                   patch_artist=True, manage_ticks=False,
                   boxprops={"facecolor": color, "alpha": 0.6, "linewidth": 0.6},
                   medianprops={"color": "black", "linewidth": 0.9},
                   whiskerprops={"linewidth": 0.6}, capprops={"linewidth": 0.6})
        ax.plot([], [], color=color, linewidth=6, alpha=0.6, label=name)  # the legend's swatch
    ax.set_xticks(np.arange(len(groups)), list(groups), rotation=45, ha="right", fontsize=8)
    ax.set_xlim(-0.6, len(groups) - 0.4)
    if log:
        ax.set_yscale("log")
    ax.set_ylabel(ylabel)
    if title:
        ax.set_title(title)
    if len(series) > 1:
        ax.legend(fontsize=8, ncols=len(series))
    ax.grid(axis="y", linewidth=0.3)
    if path is not None:
        fig.savefig(path, dpi=130)
    return fig


def non_dominated(points: Mapping[str, tuple[float, float]]) -> list[str]:
    """The names of the points no other point dominates (lower is better on both axes), by x.

    A point is dominated when another is at most as large on both axes and
    smaller on one.  Equal points do not dominate each other.

    Examples
    --------
    >>> non_dominated({"a": (1.0, 3.0), "b": (2.0, 2.0), "c": (2.0, 4.0), "d": (3.0, 1.0)})
    ['a', 'b', 'd']
    """
    front = [
        name for name, (x, y) in points.items()
        if not any(u <= x and v <= y and (u < x or v < y) for u, v in points.values())
    ]
    return sorted(front, key=lambda name: points[name])


def pareto(
    points: Mapping[str, tuple[float, float]],
    path: str | os.PathLike[str] | None = None,
    *,
    xlabel: str = "",
    ylabel: str = "",
    title: str | None = None,
    reference: tuple[float, float] | None = None,
    log: bool = False,
    ax: Any = None,
) -> Any:
    """A labelled scatter of named points, the non-dominated ones (:func:`non_dominated`) linked by a line.

    Parameters
    ----------
    points : mapping of str to (float, float)
        Name -> (x, y); lower is better on both axes.
    path : path, optional
        Where to save the figure (PNG, PDF, SVG by extension).
    xlabel, ylabel, title : str
    reference : (float, float), optional
        A point to mark with dotted cross-hairs, e.g. ``(1, 1)`` for values
        relative to a baseline.
    log : bool
        Logarithmic y-axis.
    ax : matplotlib Axes, optional
        Axes to draw on; a new figure otherwise.

    Returns
    -------
    matplotlib.figure.Figure
    """
    fig, ax = _figure_and_axes(ax, (7.5, 5.5))
    finite = {name: xy for name, xy in points.items() if np.isfinite(xy).all()}
    front = non_dominated(finite)
    for k, (name, (x, y)) in enumerate(finite.items()):
        ax.scatter([x], [y], color="tab:red" if name in front else "tab:blue", s=18, zorder=3)
        # staggered label heights, so that the names of nearly equal points stay readable
        ax.annotate(name, (x, y), fontsize=7, xytext=(3, 3 + 8 * (k % 3)), textcoords="offset points")
    if len(front) > 1:
        ax.plot([finite[n][0] for n in front], [finite[n][1] for n in front], color="tab:red", linewidth=0.8)
    if reference is not None:
        ax.axvline(reference[0], color="gray", linestyle=":", linewidth=0.8)
        ax.axhline(reference[1], color="gray", linestyle=":", linewidth=0.8)
    if log:
        ax.set_yscale("log")
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    if title:
        ax.set_title(title)
    ax.grid(linewidth=0.3)
    if path is not None:
        fig.savefig(path, dpi=130)
    return fig
