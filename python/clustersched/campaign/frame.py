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

    Anything but rows is refused, a single row included:

    >>> to_pandas([1])
    Traceback (most recent call last):
    TypeError: rows[0] == 1, must be a dict of a campaign's row (run_campaign's, or Store.results')
    """
    from .._pandas import require_pandas

    rows = _checked_rows(rows)
    pd = require_pandas()
    names = list(dict.fromkeys(name for row in rows for name in row))
    df = pd.DataFrame([[row.get(name) for name in names] for row in rows], columns=names)
    if "finished_at" in df.columns:
        df["finished_at"] = pd.to_datetime(df["finished_at"], utc=True)
    return df.rename(columns={"seconds": "wall_s"})


def _checked_rows(rows: Any) -> list[Mapping[str, Any]]:
    """``rows`` as a list of mappings with str keys, else TypeError naming the argument, the value and the rule."""
    what = "a campaign's rows (run_campaign's, or Store.results'): an iterable of dicts"
    if type(rows).__name__ == "DataFrame":
        raise TypeError(
            f"rows == a {type(rows).__module__.split('.')[0]} DataFrame, must be {what} (a DataFrame already is one)"
        )
    if isinstance(rows, (str, bytes, Mapping)) or not isinstance(rows, Iterable):
        kind = "a single row" if isinstance(rows, Mapping) else type(rows).__name__
        raise TypeError(f"rows == {_short(rows)} ({kind}), must be {what}")
    checked = list(rows)
    for i, row in enumerate(checked):
        if not isinstance(row, Mapping):
            raise TypeError(
                f"rows[{i}] == {_short(row)}, must be a dict of a campaign's row (run_campaign's, or Store.results')"
            )
        for name in row:
            if not isinstance(name, str):
                raise TypeError(f"rows[{i}] has the field name {name!r}, must be a str")
    return checked


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."
