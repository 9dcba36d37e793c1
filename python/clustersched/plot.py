"""Pictures of schedules and of campaigns, drawn with matplotlib (imported when a picture is drawn, not with the
package).

:func:`gantt` draws one schedule and :func:`timeseries` its machine's state over time;
:func:`grouped_boxplot` and :func:`pareto` draw
the comparisons of many runs that the reproductions of :mod:`clustersched.reproduce` use.
"""

from __future__ import annotations

import math
import os
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from ._output import save_figure

if TYPE_CHECKING:
    from .batch.schedule import Schedule

__all__ = [
    "figure",
    "gantt",
    "grouped_boxplot",
    "label_points",
    "non_dominated",
    "pareto",
    "plain_log_ticks",
    "resample_width",
    "styles",
    "time_unit",
    "timeseries",
]


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


def figure_and_axes(ax: Any, figsize: tuple[float, float]) -> tuple[Any, Any]:
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
        Default: the algorithm, the jobs shown and the processors.
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
    fig, ax = figure_and_axes(ax, (12, 5))
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
    ax.set_title(
        title
        or f"{schedule.algorithm}: {len(shown)} job{'' if len(shown) == 1 else 's'} "
        f"on {schedule.total_procs} processors"
    )
    if path is not None:
        save_figure(fig, path, dpi=150)
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
    resample: float | str | None = "auto",
) -> Any:
    """Draws a time series of :func:`~clustersched.batch.batch_timeseries` or
    :func:`~clustersched.dfrs.dfrs_timeseries` as step lines, one panel per quantity, sharing the time axis.

    Batch series have the panels ``"utilization"``, ``"jobs"`` (running and
    queued) and ``"queued work"`` (processor-hours); DFRS series
    ``"utilization"`` (CPU and memory, fractions of the platform) and
    ``"jobs"`` (running and waiting).  Time counts from the trace start in
    minutes, hours or days, chosen by the span shown (:func:`time_unit`).

    A whole trace has far more breakpoints than the figure has pixels (HPC2N's
    202,871 jobs make over 400,000), and its step line would fill the panel
    as a solid block.  So, by default, a series with more breakpoints in the
    window than the figure has bins (:data:`RESAMPLE_BINS_PER_INCH` per inch of
    the axes' width) is resampled: time is cut into bins of a round width
    (1 min, 5 min, 1 h, 6 h, 1 d, 7 d, ...; :func:`resample_width`), each
    quantity is drawn as its time average over each bin (a step line, exact:
    see :func:`clustersched._timeseries.binned`), over a light band from its
    minimum to its maximum in the bin, so that peaks stay visible; the x-axis
    label names the bin width.  A short window of the same series is drawn
    exactly, step by step.

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
    resample : "auto", float or None
        ``"auto"`` (the default): bins of :func:`resample_width` when the
        window holds more breakpoints than the axes' width has bins
        (:data:`RESAMPLE_BINS_PER_INCH` per inch), the exact steps otherwise.
        A number: bins of that many seconds (mean, and a min-max band),
        whatever the series.  ``None``: always the exact steps.

    Returns
    -------
    matplotlib.figure.Figure

    Raises
    ------
    ValueError
        An unknown panel, a window that is not finite or empty, a
        ``resample`` that is neither ``"auto"``, ``None`` nor a positive
        number, or bins so narrow that there would be over 10**6.

    Examples
    --------
    >>> import clustersched as cs
    >>> from clustersched.batch import batch_timeseries
    >>> ts = batch_timeseries(cs.simulate(cs.read_swf(cs.sample_trace()), "easy").schedule)
    >>> fig = timeseries(ts)
    >>> [a.get_ylabel() for a in fig.axes]
    ['utilization', 'jobs', 'queued work (processor-hours)']
    >>> fig.axes[-1].get_xlabel()   # a week's events outnumber the figure's bins: hourly means
    'time since the trace start (d); mean per 1-h bin, band: min to max'
    >>> timeseries(ts, resample=None).axes[-1].get_xlabel()   # every step, exact
    'time since the trace start (d)'
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
    width = _resample_seconds(resample, t, lo, hi, axes[0])
    if width is None:
        x = (np.r_[t, max(hi, t[-1])] - origin) / scale
        note = ""
    else:
        from ._timeseries import binned

        edges = np.r_[lo + width * np.arange(math.ceil((hi - lo) / width)), hi]
        x = (edges - origin) / scale
        note = f"; mean per {_duration(width)} bin, band: min to max"
    for a, name in zip(axes, names):
        ylabel, columns, divide = known[name]
        for column in columns:
            y = np.asarray(getattr(series, column), dtype=float) / divide
            label = column.replace("_", " ")
            if width is None:
                a.step(x, np.r_[y, y[-1]], where="post", linewidth=0.8, label=label)
                continue
            mean, low, high = binned(t, y, edges)
            (line,) = a.step(x, np.r_[mean, mean[-1]], where="post", linewidth=0.9, label=label)
            a.fill_between(
                x,
                np.r_[low, low[-1]],
                np.r_[high, high[-1]],
                step="post",
                color=line.get_color(),
                alpha=0.2,
                linewidth=0,
            )
        if len(columns) > 1:
            a.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.0, 1.0))  # outside: never over the data
        if "utilization" in columns[0]:
            a.set_ylim(0, 1.05)
        else:
            a.set_ylim(bottom=0)
        a.set_ylabel(ylabel)
        a.grid(linewidth=0.3)
        a.set_xlim((lo - origin) / scale, (hi - origin) / scale)
    axes[-1].set_xlabel(f"time since the trace start ({unit}){note}")
    if title:
        axes[0].set_title(title)
    if path is not None:
        save_figure(fig, path, dpi=150)
    return fig


#: :func:`timeseries` resamples a series by default when its window holds more breakpoints than this many
#: per inch of the axes' width: about one bin per 4 pixels at 150 dpi, a curve rather than a block.
RESAMPLE_BINS_PER_INCH = 40

#: The bin widths :func:`resample_width` chooses from, seconds: round minutes, hours, days and weeks.
_ROUND_WIDTHS = (
    1.0,
    2.0,
    5.0,
    10.0,
    15.0,
    30.0,
    60.0,
    120.0,
    300.0,
    600.0,
    900.0,
    1800.0,
    3600.0,
    7200.0,
    10800.0,
    21600.0,
    43200.0,
    86400.0,
    2 * 86400.0,
    4 * 86400.0,
    7 * 86400.0,
    14 * 86400.0,
    28 * 86400.0,
)


def resample_width(span: float, bins: int) -> float:
    """The bin width, seconds, that :func:`timeseries` uses to show ``span`` seconds in at most ``bins`` bins.

    The smallest round width (1 s, ..., 1 min, 5 min, ..., 1 h, 6 h, 1 d, 7 d,
    28 d, then multiples of 28 d) that needs no more than ``bins`` bins.

    Examples
    --------
    >>> resample_width(3 * 365 * 86400, 340) / 86400   # three years on a 10-inch figure: 4-day bins
    4.0
    >>> resample_width(86400, 340)                      # one day: 5-minute bins
    300.0
    """
    need = span / max(1, int(bins))
    for w in _ROUND_WIDTHS:
        if w >= need:
            return w
    return _ROUND_WIDTHS[-1] * math.ceil(need / _ROUND_WIDTHS[-1])


def _resample_seconds(resample: float | str | None, t: np.ndarray, lo: float, hi: float, ax: Any) -> float | None:
    """The bin width :func:`timeseries` draws with, or None for the exact steps."""
    if resample is None:
        return None
    if isinstance(resample, str):
        if resample != "auto":
            raise ValueError(f"resample == {resample!r}, must be 'auto', None or a number of seconds > 0")
        # the axes' width in inches (before the layout settles: close enough to size the bins)
        inches = ax.get_position().width * ax.figure.get_figwidth()
        bins = max(20, int(RESAMPLE_BINS_PER_INCH * inches))
        inside = int(np.searchsorted(t, hi, side="right") - np.searchsorted(t, lo, side="left"))
        return resample_width(hi - lo, bins) if inside > bins else None
    from ._checks import check_float

    width = check_float("resample", resample, positive=True)
    if (hi - lo) / width > 1_000_000:
        raise ValueError(f"resample == {width:g}, must be >= {(hi - lo) / 1_000_000:g} s (at most 10**6 bins)")
    return width


def _duration(seconds: float) -> str:
    """``seconds`` as a bin width: "5-min", "6-h", "4-d", "90-s"."""
    for unit, name in ((86400.0, "d"), (3600.0, "h"), (60.0, "min"), (1.0, "s")):
        if seconds >= unit and (seconds / unit).is_integer():
            return f"{seconds / unit:g}-{name}"
    return f"{seconds:g}-s"


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
    from matplotlib.patches import Patch

    series = list(dict.fromkeys(name for boxes in groups.values() for name in boxes))
    fig, ax = figure_and_axes(ax, (max(6.0, 0.18 * len(groups) * max(1, len(series)) + 2), 4.8))
    step = 0.8 / max(1, len(series))
    handles = []
    for k, (name, style) in enumerate(zip(series, styles(len(series)))):
        where, values = [], []
        for g, boxes in enumerate(groups.values()):
            data = np.asarray(boxes.get(name, ()), dtype=float)
            data = data[np.isfinite(data)]
            if data.size:
                where.append(g - 0.4 + step * (k + 0.5))
                values.append(data)
        if not values:
            continue
        # beyond ten series the colours repeat: a hatch tells those boxes apart
        hatch = _HATCHES[(k // len(_COLORS)) % len(_HATCHES)]
        ax.boxplot(
            values,
            positions=where,
            widths=step * 0.85,
            whis=(0, 100),
            showfliers=False,
            patch_artist=True,
            manage_ticks=False,
            boxprops={"facecolor": style["color"], "alpha": 0.6, "linewidth": 0.6, "hatch": hatch},
            medianprops={"color": "black", "linewidth": 0.9},
            whiskerprops={"linewidth": 0.6},
            capprops={"linewidth": 0.6},
        )
        handles.append(
            Patch(facecolor=style["color"], alpha=0.6, hatch=hatch, edgecolor="black", linewidth=0.6, label=name)
        )
    ax.set_xticks(np.arange(len(groups)), list(groups), rotation=45, ha="right", fontsize=8)
    ax.set_xlim(-0.6, len(groups) - 0.4)
    if log:
        ax.set_yscale("log")
        plain_log_ticks(ax.yaxis)
    ax.set_ylabel(ylabel)
    if title:
        ax.set_title(title)
    if len(handles) > 1:
        # outside the axes, on the right: no box can be under it
        ax.legend(handles=handles, fontsize=8, loc="upper left", bbox_to_anchor=(1.0, 1.0), borderaxespad=0.3)
    ax.grid(axis="y", linewidth=0.3)
    if path is not None:
        save_figure(fig, path, dpi=130)
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
        name
        for name, (x, y) in points.items()
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
    fig, ax = figure_and_axes(ax, (7.5, 5.5))
    finite = {name: xy for name, xy in points.items() if np.isfinite(xy).all()}
    front = non_dominated(finite)
    others = [n for n in finite if n not in front]
    if others:
        ax.scatter(
            [finite[n][0] for n in others],
            [finite[n][1] for n in others],
            color="tab:blue",
            marker="o",
            s=18,
            zorder=3,
            label="dominated",
        )
    if front:
        ax.plot(
            [finite[n][0] for n in front],
            [finite[n][1] for n in front],
            color="tab:red",
            marker="D",
            markersize=4.5,
            linewidth=0.8,
            zorder=3,
            label="non-dominated (Pareto front)",
        )
    if reference is not None:
        ax.axvline(reference[0], color="gray", linestyle=":", linewidth=0.8)
        ax.axhline(reference[1], color="gray", linestyle=":", linewidth=0.8)
    if log:
        ax.set_yscale("log")
        plain_log_ticks(ax.yaxis)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    if title:
        ax.set_title(title)
    ax.grid(linewidth=0.3)
    if finite:
        ax.legend(fontsize=7, loc="best")
        label_points(ax, [xy[0] for xy in finite.values()], [xy[1] for xy in finite.values()], list(finite))
    if path is not None:
        save_figure(fig, path, dpi=130)
    return fig


# The house style: ten colours (matplotlib's tab10), markers and line styles that combine into
# distinct series, and hatches for boxes and bars beyond ten.
_COLORS = (
    "tab:blue",
    "tab:orange",
    "tab:green",
    "tab:red",
    "tab:purple",
    "tab:brown",
    "tab:pink",
    "tab:gray",
    "tab:olive",
    "tab:cyan",
)
_MARKERS = ("o", "s", "^", "D", "v", "P", "X", "<", ">")
_LINESTYLES = ("-", "--", ":", "-.")
_HATCHES = ("", "//", "..", "xx")


def styles(n: int) -> list[dict[str, str]]:
    """``n`` distinct line styles: dicts of ``color``, ``marker`` and ``linestyle`` for ``Axes.plot``.

    No two share all three, and consecutive ones differ in colour and marker,
    so that every series stays apparent in black and white and where lines
    overlap: the colour cycles through ten, the marker through nine and the
    line style changes every ten series.

    Examples
    --------
    >>> s = styles(20)
    >>> len({(d["color"], d["marker"], d["linestyle"]) for d in s})
    20
    >>> s[0], s[10]["color"] == s[0]["color"], s[10]["marker"] == s[0]["marker"]
    ({'color': 'tab:blue', 'marker': 'o', 'linestyle': '-'}, True, False)
    """
    return [
        {
            "color": _COLORS[k % len(_COLORS)],
            "marker": _MARKERS[k % len(_MARKERS)],
            "linestyle": _LINESTYLES[(k // len(_COLORS)) % len(_LINESTYLES)],
        }
        for k in range(n)
    ]


def plain_log_ticks(axis: Any) -> None:
    """Plain numbers (``0.6``, ``2``, ``300``) on a logarithmic axis, instead of ``6 x 10^-1``.

    When the axis spans less than about two decades, the 2x and 5x minor ticks
    are labelled too, so that a narrow range still shows several values.
    """
    from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter

    def plain(value: float, _: Any = None) -> str:
        return f"{value:g}"

    axis.set_major_formatter(FuncFormatter(plain))
    ax = axis.axes
    lo, hi = sorted(abs(v) for v in (ax.get_ylim() if axis is ax.yaxis else ax.get_xlim()))
    if lo > 0 and hi / lo < 100:
        axis.set_minor_locator(LogLocator(base=10, subs=(2.0, 5.0)))
        axis.set_minor_formatter(FuncFormatter(plain))
    else:
        axis.set_minor_formatter(NullFormatter())


def label_points(
    ax: Any,
    xs: Sequence[float],
    ys: Sequence[float],
    labels: Sequence[str],
    *,
    fontsize: float = 7.0,
) -> list[Any]:
    """Names points with labels that overlap neither each other, nor the points, nor the legend.

    Deterministic and dependency-free: the figure is laid out once
    (``Figure.draw_without_rendering``), then each label, most crowded point
    first, takes the first free place of rings of growing radius around its
    point (right, above, left, below and the diagonals), inside the axes; a
    label moved beyond the first ring is joined to its point by a thin line.
    Labels stay out of the layout, so that placing them does not move the
    axes.  Draw every series and set the limits before calling it.

    Returns
    -------
    list of matplotlib.text.Annotation
        One per label, in the order given.
    """
    fig = ax.figure
    x_data, y_data = np.asarray(xs, dtype=float), np.asarray(ys, dtype=float)
    fig.draw_without_rendering()
    px = ax.transData.transform(np.column_stack([x_data, y_data])) if len(x_data) else np.zeros((0, 2))
    scale = fig.dpi / 72.0  # pixels per point
    pad = 1.5 * scale
    frame = ax.bbox
    radius = 3.0 * scale  # the markers' half-size (s=18 is about 4 points wide)
    obstacles = [(x - radius, y - radius, x + radius, y + radius) for x, y in px]
    legend = ax.get_legend()
    if legend is not None:
        b = legend.get_window_extent()
        obstacles.append((b.x0, b.y0, b.x1, b.y1))
    sizes = []
    for text in labels:
        probe = fig.text(0, 0, text, fontsize=fontsize)
        b = probe.get_window_extent()
        sizes.append((b.width, b.height))
        probe.remove()
    # the most crowded points choose first, ties by order
    near = [int(np.sum(np.hypot(*(px - p).T) < 60 * scale)) for p in px]
    order = sorted(range(len(labels)), key=lambda k: (-near[k], k))
    placed: dict[int, tuple[float, float, bool]] = {}
    directions = ((1, 0), (1, 1), (0, 1), (-1, 1), (-1, 0), (-1, -1), (0, -1), (1, -1))

    def free(box: tuple[float, float, float, float], inside: bool) -> bool:
        x0, y0, x1, y1 = box
        if inside and (x0 < frame.x0 + pad or y0 < frame.y0 + pad or x1 > frame.x1 - pad or y1 > frame.y1 - pad):
            return False
        return not any(x0 < b[2] + pad and b[0] - pad < x1 and y0 < b[3] + pad and b[1] - pad < y1 for b in obstacles)

    for k in order:
        (x, y), (w, h) = px[k], sizes[k]
        choice = None
        for inside in (True, False):
            for ring in range(1, 40):
                gap = radius + pad + (ring - 1) * max(h, 4 * scale)
                for dx, dy in directions:
                    # the label's lower-left corner, so that the box sits on the side (dx, dy) of the point
                    cx = x + dx * gap - (w if dx < 0 else w / 2 if dx == 0 else 0)
                    cy = y + dy * gap - (h if dy < 0 else h / 2 if dy == 0 else 0)
                    if free((cx, cy, cx + w, cy + h), inside):
                        choice = (cx, cy, ring > 1)
                        break
                if choice:
                    break
            if choice:
                break
        if choice is None:  # nowhere free, even outside the axes: to the right
            choice = (x + radius + pad, y - h / 2, False)
        cx, cy, far = choice
        obstacles.append((cx, cy, cx + w, cy + h))
        placed[k] = choice
    out = []
    for k, text in enumerate(labels):
        cx, cy, far = placed[k]
        x, y = px[k]
        arrow = {"arrowstyle": "-", "color": "0.45", "linewidth": 0.5, "shrinkA": 0, "shrinkB": 2} if far else None
        ann = ax.annotate(
            text,
            (x_data[k], y_data[k]),
            xytext=((cx - x) / scale, (cy - y) / scale),
            textcoords="offset points",
            ha="left",
            va="bottom",
            fontsize=fontsize,
            arrowprops=arrow,
            annotation_clip=False,
            bbox={"boxstyle": "square,pad=0.1", "facecolor": "white", "edgecolor": "none", "alpha": 0.7},
        )
        ann.set_in_layout(False)
        out.append(ann)
    return out
