"""Campaign results as a pandas DataFrame."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import pandas

__all__ = ["to_pandas"]


def to_pandas(rows: Iterable[Mapping[str, Any]]) -> "pandas.DataFrame":
    """The rows of a campaign (:func:`run_campaign`'s, or :meth:`Store.results`') as a DataFrame.

    One row per scenario, a column per field seen, in order of first
    appearance, a missing value where a row lacks it.  The scenario's
    parameters and the result's values keep the names the campaign gave them;
    of the fields the store adds, ``seconds`` (the computation's wall-clock
    time) becomes ``wall_s`` -- the unit convention of every ``to_pandas()``
    (:mod:`clustersched._pandas`) -- and ``finished_at`` a UTC timestamp.
    pandas is optional: ``pip install "clustersched[pandas]"``.

    Examples
    --------
    >>> from clustersched.campaign import Store, to_pandas
    >>> with Store(":memory:") as store:
    ...     store.put("demo", {"policy": "easy"}, result={"avg_wait": 12.5}, seconds=0.25)
    ...     store.put("demo", {"policy": "fcfs"}, error="ValueError: boom")
    ...     df = to_pandas(store.results("demo"))
    >>> df.columns.tolist()
    ['policy', 'avg_wait', 'status', 'error', 'traceback', 'wall_s', 'finished_at']
    >>> df["status"].tolist(), df["wall_s"].tolist(), str(df["finished_at"].dt.tz)
    (['ok', 'error'], [0.25, 0.0], 'UTC')
    """
    from .._pandas import require_pandas

    pd = require_pandas()
    rows = list(rows)
    names = list(dict.fromkeys(name for row in rows for name in row))
    df = pd.DataFrame([[row.get(name) for name in names] for row in rows], columns=names)
    if "finished_at" in df.columns:
        df["finished_at"] = pd.to_datetime(df["finished_at"], utc=True)
    return df.rename(columns={"seconds": "wall_s"})
