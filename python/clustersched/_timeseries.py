"""Step functions of time that several problems' time series share (batch and DFRS).

A series holds breakpoints ``time`` (sorted, distinct, seconds) and value
columns: value ``i`` holds on ``[time[i], time[i + 1])``, and the last one
from the last breakpoint on (the state once everything is over).  The
values are exact at every breakpoint; :meth:`StepSeries.resample` gives time
averages over a regular step (exact too: the integral of a step function is
piecewise linear).
"""

from __future__ import annotations

import csv
import math
import os
from dataclasses import replace
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np

if TYPE_CHECKING:
    import pandas

__all__ = ["StepSeries", "binned", "steps"]


def steps(times: np.ndarray, *deltas: np.ndarray) -> tuple[np.ndarray, list[np.ndarray]]:
    """The breakpoints (distinct ``times``, sorted) and, per ``deltas`` array (one change per time), the
    running sum of its changes up to and including each breakpoint."""
    t, where = np.unique(np.asarray(times, dtype=np.float64), return_inverse=True)
    return t, [np.cumsum(np.bincount(where, weights=np.asarray(d, dtype=np.float64), minlength=len(t))) for d in deltas]


def binned(time: np.ndarray, values: np.ndarray, edges: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The time average, the minimum and the maximum of one step function over each bin ``[edges[k], edges[k + 1])``.

    ``values[i]`` holds on ``[time[i], time[i + 1])``, the last one from the
    last breakpoint on, and the function is 0 before the first breakpoint
    (nothing has happened yet).  ``edges`` must be sorted and distinct.  The
    averages are exact (differences of the integral, piecewise linear); the
    minimum and maximum are over every value that holds for some time in
    the bin.

    Examples
    --------
    >>> mean, low, high = binned(np.array([0.0, 1.0, 3.0]), np.array([4.0, 1.0, 0.0]), np.array([0.0, 2.0, 4.0]))
    >>> mean.tolist(), low.tolist(), high.tolist()
    ([2.5, 0.5], [1.0, 0.0], [4.0, 1.0])
    """
    t = np.asarray(time, dtype=float)
    v = np.asarray(values, dtype=float)
    e = np.asarray(edges, dtype=float)
    area = np.r_[0.0, np.cumsum(v[:-1] * np.diff(t))]
    at = np.interp(e, t, area) + v[-1] * np.maximum(e - t[-1], 0.0)  # 0 before t[0]: interp holds area[0] == 0
    mean = np.diff(at) / np.diff(e)
    # the values holding in bin k: indices first[k] .. last[k] of [0, *v] (index 0: before the first breakpoint)
    first = np.searchsorted(t, e[:-1], side="right")
    last = np.searchsorted(t, e[1:], side="left")
    padded = np.r_[0.0, v, 0.0]
    pairs = np.column_stack([first, last + 1]).ravel()
    return mean, np.minimum.reduceat(padded, pairs)[::2], np.maximum.reduceat(padded, pairs)[::2]


class StepSeries:
    """What the time series dataclasses share: columns, DataFrame and CSV, integrals, resampling.

    A subclass is a frozen dataclass whose first field is ``time`` and whose
    value columns are named in ``VALUES``; ``PANELS`` says what
    :func:`clustersched.plot.timeseries` draws by default: panel title ->
    (y label, columns, scale the values are divided by).
    """

    time: np.ndarray
    VALUES: ClassVar[tuple[str, ...]] = ()
    PANELS: ClassVar[dict[str, tuple[str, tuple[str, ...], float]]] = {}

    def __len__(self) -> int:
        return len(self.time)

    def columns(self) -> dict[str, np.ndarray]:
        """``time`` and the value columns, one row per breakpoint (unit-less names)."""
        return {"time": self.time, **{name: getattr(self, name) for name in self.VALUES}}

    def to_pandas(self) -> "pandas.DataFrame":
        """:meth:`columns` as a DataFrame, names with units (``time_s``, ...; see :mod:`clustersched._pandas`)."""
        from ._pandas import frame

        return frame(self.columns())

    def to_csv(self, path: str | os.PathLike[str]) -> None:
        """Writes :meth:`columns` as CSV, names with units, as :meth:`to_pandas` names them."""
        from ._output import atomic_open  # whole or not at all: a full disk leaves no half table
        from ._pandas import with_units

        cols = self.columns()
        with atomic_open(path, "w", newline="") as fh:
            writer = csv.writer(fh)
            writer.writerow([with_units(n) for n in cols])
            for row in zip(*(c.tolist() for c in cols.values())):
                writer.writerow([_fmt(v) for v in row])

    def integral(self, name: str) -> float:
        """The integral over time of the column ``name``, from the first breakpoint to the last."""
        return float(np.dot(np.asarray(getattr(self, name), dtype=float)[:-1], np.diff(self.time)))

    def resample(self, step: float) -> Any:
        """The same series on a regular grid ``time[0] + k * step``: each value is the column's time
        average over ``[t, t + step)`` (floats), the last grid point at or after the last breakpoint.

        Exact: the averages are differences of the columns' integrals.
        """
        from ._checks import check_float

        step = check_float("step", step, positive=True)
        t = np.asarray(self.time, dtype=float)
        bins = max(1, math.ceil((t[-1] - t[0]) / step))
        if bins > 10_000_000:
            raise ValueError(f"step == {step:g}, must be >= {(t[-1] - t[0]) / 10_000_000:g} (at most 10**7 bins)")
        edges = t[0] + step * np.arange(bins + 1)
        out: dict[str, np.ndarray] = {}
        for name in self.VALUES:
            v = np.asarray(getattr(self, name), dtype=float)
            area = np.r_[0.0, np.cumsum(v[:-1] * np.diff(t))]
            at = np.interp(edges, t, area) + v[-1] * np.maximum(edges - t[-1], 0.0)
            out[name] = np.r_[np.diff(at) / step, v[-1]]
        return replace(self, time=edges, **out)  # type: ignore[type-var]


def _fmt(value: float | int) -> str:
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return repr(value) if isinstance(value, float) else str(value)
