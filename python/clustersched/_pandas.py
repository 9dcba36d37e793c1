"""Tables as pandas DataFrames: the one place that imports pandas and names columns with units.

pandas is an optional dependency (``pip install "clustersched[pandas]"``);
every ``to_pandas()`` of the library goes through :func:`frame` or
:func:`summary_frame`, which import it on first use and raise an
``ImportError`` saying how to install it when it is missing.

Column names carry their unit as a suffix, one convention for every problem:

=========  ============================================================
suffix     unit
=========  ============================================================
``_s``     seconds (simulated time: ``submit_s``, ``start_s``,
           ``wait_s``, ``makespan_s``; and ``wall_s``, the wall-clock
           time of an algorithm, what ``summary()`` calls ``seconds``)
``_kb``    kilobytes (SWF memory fields)
``_flop``  floating-point operations (SCRAP's energy)
``_node_s``  node-seconds (DFRS underutilization)
``_proc_s``  processor-seconds (batch queued work)
``_gbs``   GB/s (DFRS bandwidths, already so named)
=========  ============================================================

Counts (``procs``, ``jobs``, ``tasks``), ids, indices, ratios, fractions and
stretches have no unit and no suffix.  :data:`UNITS` maps the library's
unit-less names (the keys of the ``summary()`` dicts and of the ``columns()``
methods) to the suffixed ones; a name it does not list is kept as it is.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Iterable, Mapping

if TYPE_CHECKING:
    import pandas

__all__ = ["INSTALL_HINT", "UNITS", "frame", "require_pandas", "summary_frame", "with_units"]

#: What the ImportError says to do.
INSTALL_HINT = 'pip install "clustersched[pandas]"'

_SECONDS = (
    # job tables (SWF) and schedules
    "submit",
    "wait",
    "runtime",
    "start",
    "end",
    "cpu_time",
    "time_requested",
    "think_time",
    "first_start",
    "completion",
    "flow",
    "response",
    # summaries
    "avg_wait",
    "max_wait",
    "avg_response",
    "makespan",
    "span",
    "penalty",
    # batch percentiles and class bounds (batch/metrics.py), time series (batch/timeseries.py, dfrs/metrics.py)
    "p50_wait",
    "p90_wait",
    "p99_wait",
    "p50_response",
    "p90_response",
    "p99_response",
    "runtime_above",
    "runtime_upto",
    "time",
)

#: The library's column and summary names that have a unit -> the name with it.
UNITS: dict[str, str] = {
    **{name: f"{name}_s" for name in _SECONDS},
    "seconds": "wall_s",
    "mem_used": "mem_used_kb",
    "mem_requested": "mem_requested_kb",
    "energy": "energy_flop",
    "underutilization": "underutilization_node_s",
    "queued_work": "queued_work_proc_s",
}


def require_pandas() -> Any:
    """The ``pandas`` module, or ImportError saying how to install it.

    Examples
    --------
    >>> require_pandas().__name__
    'pandas'
    """
    try:
        import pandas
    except ImportError as e:
        raise ImportError(
            f"DataFrames need pandas, an optional dependency of clustersched: {INSTALL_HINT} "
            f"(or pip install pandas) [{e}]"
        ) from e
    return pandas


def with_units(name: str) -> str:
    """``name`` with its unit suffix when :data:`UNITS` knows it, else ``name``.

    Examples
    --------
    >>> with_units("start"), with_units("seconds"), with_units("procs")
    ('start_s', 'wall_s', 'procs')
    """
    return UNITS.get(name, name)


def frame(columns: Mapping[str, Any], *, units: bool = True) -> "pandas.DataFrame":
    """A DataFrame of ``columns`` (name -> 1-D array), in their order, names given units.

    numpy columns keep their dtype (int64 ids and counts, float64 times).

    Examples
    --------
    >>> import numpy as np
    >>> df = frame({"job_id": np.array([1, 2]), "start": np.array([0.0, 5.0])})
    >>> df.columns.tolist(), [str(t) for t in df.dtypes]
    (['job_id', 'start_s'], ['int64', 'float64'])
    """
    pd = require_pandas()
    names = [with_units(n) if units else n for n in columns]
    if len(set(names)) != len(names):
        raise ValueError(f"columns {list(columns)} give duplicate names {names}")
    return pd.DataFrame({name: columns[key] for name, key in zip(names, columns)}, columns=names)


def summary_frame(rows: Mapping[str, Any] | Iterable[Mapping[str, Any]]) -> "pandas.DataFrame":
    """A DataFrame with one row per summary dict (one dict: a one-row frame), names given units.

    Columns are every key seen, in order of first appearance; a row without a
    key gets a missing value there.

    Examples
    --------
    >>> df = summary_frame({"algorithm": "easy", "avg_wait": 12.5, "jobs": 3, "seconds": 0.01})
    >>> df.columns.tolist()
    ['algorithm', 'avg_wait_s', 'jobs', 'wall_s']
    >>> float(df.loc[0, "avg_wait_s"])
    12.5
    """
    pd = require_pandas()
    dicts = [rows] if isinstance(rows, Mapping) else list(rows)
    keys = list(dict.fromkeys(k for row in dicts for k in row))
    names = [with_units(k) for k in keys]
    return pd.DataFrame([[row.get(k) for k in keys] for row in dicts], columns=names)
