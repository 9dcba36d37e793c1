"""Pictures of schedules and of campaigns, drawn with matplotlib (imported when a picture is drawn, not with the package).

:func:`gantt` draws one schedule and :func:`timeseries` its machine's state over time;
:func:`grouped_boxplot` and :func:`pareto` draw
the comparisons of many runs that the reproductions of :mod:`clustersched.reproduce` use.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    from .batch.schedule import Schedule

__all__ = ["figure", "gantt", "grouped_boxplot", "non_dominated", "pareto", "time_unit", "timeseries"]


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
    origin: float | None = None,
) -> Any:
    """Draws a Gantt chart: one row per processor, one box per job.

    Each job is drawn on its processor ids, merged into runs of consecutive
    ids so that a wide job is one box per run (the schedule must carry ids).
    The time axis counts from the trace start (the first submit) in minutes,
    hours or days, chosen by the span shown (:func:`time_unit`), and says
    which.  Boxes get a thin outline only when few are shown (at most
    :data:`GANTT_OUTLINED` boxes): on a whole trace, outlines would cover
    the boxes.

    Parameters
    ----------
    schedule : Schedule
    path : path, optional
        Where to save the figure (PNG, PDF, SVG by extension).
    window : (start, end), optional
        Time window to show, seconds on the schedule's own clock (as its
        ``start`` and ``end``); default the whole schedule.  It must be
        finite, ``start < end``, and overlap the schedule.
    ax : matplotlib Axes, optional
        Axes to draw on; a new figure otherwise.
    title : str, optional
        Default: the policy, the jobs shown and the processors.
    origin : float, optional
        Time 0 of the axis, seconds (default: the first submit, or the
        first start for a schedule without submit times).

    Returns
    -------
    matplotlib.figure.Figure

    Raises
    ------
    ValueError
        A window that is not finite, empty, or outside the schedule; a
        schedule without processor ids.

    Examples
    --------
    >>> import clustersched as cs
    >>> run = cs.simulate(cs.read_swf(cs.sample_trace()), "easy")
    >>> fig = gantt(run.schedule, window=(run.schedule.submit[0] + 86400, run.schedule.submit[0] + 2 * 86400))
    >>> fig.axes[0].get_xlabel()
    'time since the trace start (h)'
    """
    from matplotlib import colormaps
    from matplotlib.collections import PolyCollection

    start, end = np.asarray(schedule.start, float), np.asarray(schedule.end, float)
    first, last = float(start.min()), float(end.max())
    if window is not None:
        lo, hi = (float(w) for w in window)
        if not (np.isfinite(lo) and np.isfinite(hi)) or not lo < hi:
            raise ValueError(f"window == {tuple(window)}, must be finite with start < end")
        if hi <= first or lo >= last:
            raise ValueError(
                f"window == {tuple(window)}, must overlap the schedule, which runs from {first:g} to {last:g} s"
            )
    else:
        lo, hi = first, last
    if origin is None:
        submit = getattr(schedule, "submit", None)
        origin = float(np.min(submit)) if submit is not None and len(submit) else first
    fig, ax = _figure_and_axes(ax, (12, 5))
    scale, unit = time_unit(hi - lo)
    shown = np.flatnonzero((end > lo) & (start < hi) & (end > start))
    boxes, colors = [], []
    cmap = colormaps["tab20"]
    for row in shown:
        color = cmap(int(schedule.job_id[row]) % 20)
        s, e = (start[row] - origin) / scale, (end[row] - origin) / scale
        for first_proc, count in _runs(schedule, int(row)):
            boxes.append([(s, first_proc), (e, first_proc), (e, first_proc + count), (s, first_proc + count)])
            colors.append(color)
    if len(boxes) <= GANTT_OUTLINED:
        ax.add_collection(PolyCollection(boxes, facecolors=colors, edgecolors="black", linewidths=0.2))
    else:
        ax.add_collection(PolyCollection(boxes, facecolors=colors, edgecolors="face", linewidths=0.0))
    ax.set_xlim((lo - origin) / scale, (hi - origin) / scale)
    ax.set_ylim(0, schedule.total_procs)
    ax.set_xlabel(f"time since the trace start ({unit})")
    ax.set_ylabel("processor")
    ax.set_title(title or f"{schedule.policy}: {len(shown)} jobs on {schedule.total_procs} processors")
    if path is not None:
        fig.savefig(path, dpi=150)
    return fig


#: :func:`gantt` outlines the boxes when it draws at most this many.
GANTT_OUTLINED = 400

#: (span up to, seconds per unit, unit) of :func:`time_unit`, in order.
_TIME_UNITS = ((2 * 3600.0, 60.0, "min"), (72 * 3600.0, 3600.0, "h"), (float("inf"), 86400.0, "d"))


def time_unit(span: float) -> tuple[float, str]:
    """The unit of a time axis spanning ``span`` seconds: (seconds per unit, its name).

    Minutes up to 2 hours, hours up to 3 days, days beyond.

    Examples
    --------
    >>> time_unit(3600), time_unit(86400), time_unit(7 * 86400)
    ((60.0, 'min'), (3600.0, 'h'), (86400.0, 'd'))
    """
    for upto, seconds, name in _TIME_UNITS:
        if span <= upto:
            return seconds, name
    return _TIME_UNITS[-1][1:]  # pragma: no cover  (NaN span)


def timeseries(
    series: Any,
    path: str | os.PathLike[str] | None = None,
    *,
    panels: Sequence[str] | None = None,
    window: tuple[float, float] | None = None,
    ax: Any = None,
    title: str | None = None,
) -> Any:
    """Draws a time series of :func:`~clustersched.batch.batch_timeseries` or
    :func:`~clustersched.dfrs.dfrs_timeseries` as step lines, one panel per quantity, sharing the time axis.

    Batch series have the panels ``"utilization"``, ``"jobs"`` (running and
    queued) and ``"queued work"`` (processor-hours); DFRS series
    ``"utilization"`` (CPU and memory, fractions of the platform) and
    ``"jobs"`` (running and waiting).  Time counts from the trace start in
    minutes, hours or days, chosen by the span shown (:func:`time_unit`).

    Parameters
    ----------
    series : BatchTimeSeries or DfrsTimeSeries
    path : path, optional
        Where to save the figure (PNG, PDF, SVG by extension).
    panels : sequence of str, optional
        Which panels, in order (default: all of the series').
    window : (start, end), optional
        Time window to show, seconds on the schedule's clock; default all.
    ax : matplotlib Axes or sequence of Axes, optional
        One Axes per panel (a single Axes for a single panel); a new figure
        otherwise.
    title : str, optional

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    >>> import clustersched as cs
    >>> from clustersched.batch import batch_timeseries
    >>> ts = batch_timeseries(cs.simulate(cs.read_swf(cs.sample_trace()), "easy").schedule)
    >>> fig = timeseries(ts)
    >>> [a.get_ylabel() for a in fig.axes], fig.axes[-1].get_xlabel()
    (['utilization', 'jobs', 'queued work (processor-hours)'], 'time since the trace start (d)')
    """
    known = dict(series.PANELS)
    names = list(known) if panels is None else list(panels)
    if not names:
        raise ValueError("panels == [], must name at least one panel")
    for name in names:
        if name not in known:
            raise ValueError(f"panels == {names!r}: unknown {name!r}, must be among {', '.join(map(repr, known))}")
    t = np.asarray(series.time, dtype=float)
    lo, hi = (float(t[0]), float(t[-1])) if window is None else (float(window[0]), float(window[1]))
    if not (np.isfinite(lo) and np.isfinite(hi) and lo < hi):
        if window is not None:
            raise ValueError(f"window == {tuple(window)}, must be finite with start < end")
        hi = lo + 1.0  # a series of one breakpoint: draw a second
    if ax is None:
        fig, axes = figure(len(names), 1, figsize=(10, 1.2 + 1.9 * len(names)), sharex=True, squeeze=False)
        axes = list(axes[:, 0])
    else:
        axes = list(ax) if isinstance(ax, (list, tuple, np.ndarray)) else [ax]
        if len(axes) != len(names):
            raise ValueError(f"ax has {len(axes)} Axes for {len(names)} panels {names!r}: give one per panel")
        fig = axes[0].figure
    scale, unit = time_unit(hi - lo)
    origin = float(getattr(series, "origin", t[0]))
    x = (np.r_[t, max(hi, t[-1])] - origin) / scale
    for a, name in zip(axes, names):
        ylabel, columns, divide = known[name]
        for column in columns:
            y = np.asarray(getattr(series, column), dtype=float) / divide
            a.step(x, np.r_[y, y[-1]], where="post", linewidth=0.8, label=column.replace("_", " "))
        if len(columns) > 1:
            a.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.0, 1.0))  # outside: never over the data
        if "utilization" in columns[0]:
            a.set_ylim(0, 1.05)
        else:
            a.set_ylim(bottom=0)
        a.set_ylabel(ylabel)
        a.grid(linewidth=0.3)
        a.set_xlim((lo - origin) / scale, (hi - origin) / scale)
    axes[-1].set_xlabel(f"time since the trace start ({unit})")
    if title:
        axes[0].set_title(title)
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
