"""The results store: one SQLite table, one row per (campaign, scenario).

Every :meth:`Store.put` is committed at once, so a crash or a Ctrl-C loses
nothing already stored.  The journal is SQLite's default rollback journal rather
than WAL, because WAL needs shared memory that network file systems (the home
directories of many clusters) do not provide.  Only the process that runs a
campaign writes; its workers send their results back to it.
"""

from __future__ import annotations

import json
import os
import sqlite3
from collections.abc import Iterable, Mapping
from datetime import datetime, timezone
from typing import Any

from .scenarios import RESERVED, _key, dumps

__all__ = ["Store", "plain_result"]

_SCHEMA = """
CREATE TABLE IF NOT EXISTS results (
    campaign    TEXT NOT NULL,
    key         TEXT NOT NULL,  -- canonical JSON of the scenario
    scenario    TEXT NOT NULL,  -- JSON of the scenario, parameters in the order given
    status      TEXT NOT NULL CHECK (status IN ('ok', 'error')),
    result      TEXT,           -- JSON object when ok
    error       TEXT,           -- "ExceptionType: message" when error
    traceback   TEXT,
    seconds     REAL NOT NULL,
    finished_at TEXT NOT NULL,  -- ISO 8601, UTC
    PRIMARY KEY (campaign, key)
)
"""


class Store:
    """Results of campaigns, in an SQLite file keyed by campaign and scenario.

    Parameters
    ----------
    path : str or path-like
        The database file, created if missing (``":memory:"`` for a throw-away store).

    Notes
    -----
    A result row (:meth:`results`) is flat: the scenario's parameters, the
    result's values, then ``status`` (``"ok"`` or ``"error"``), ``error`` and
    ``traceback`` (``None`` when ok), ``seconds`` (the computation's wall time)
    and ``finished_at`` (ISO 8601, UTC).  Only these last two vary between two
    runs of the same campaign.

    Examples
    --------
    >>> from clustersched.campaign import Store
    >>> with Store(":memory:") as store:
    ...     store.put("demo", {"policy": "easy"}, result={"wait": 12.5}, seconds=0.1)
    ...     store.put("demo", {"policy": "fcfs"}, error="ValueError: boom")
    ...     store.columns("demo")["wait"], store.done("demo")
    ([12.5, None], {'{"policy":"easy"}'})
    """

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = os.fspath(path)
        # autocommit: each statement is its own transaction, committed when it returns
        self._db = sqlite3.connect(self.path, isolation_level=None)
        self._db.execute(_SCHEMA)

    def close(self) -> None:
        """Closes the database (everything put is already committed)."""
        self._db.close()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"Store({self.path!r})"

    def done(self, campaign: str, *, errors: bool = False) -> set[str]:
        """Keys of the scenarios of ``campaign`` stored with status ok (and error, if ``errors``)."""
        query = "SELECT key FROM results WHERE campaign = ?" + ("" if errors else " AND status = 'ok'")
        return {key for (key,) in self._db.execute(query, (campaign,))}

    def put(
        self,
        campaign: str,
        scenario: Mapping[str, Any],
        *,
        result: Mapping[str, Any] | None = None,
        error: str | None = None,
        traceback: str | None = None,
        seconds: float = 0.0,
    ) -> None:
        """Stores the outcome of one scenario (replacing any earlier one) and commits.

        Give either ``result`` (status ok: a dict of JSON-serializable values,
        numpy scalars allowed, no name shared with the scenario or
        :data:`~clustersched.campaign.scenarios.RESERVED`) or ``error`` (status
        error: the message, with the ``traceback`` text when there is one).
        """
        self._db.execute(_INSERT, _row(campaign, scenario, result, error, traceback, seconds))

    def put_many(self, campaign: str, outcomes: Iterable[tuple[Mapping[str, Any], Mapping[str, Any]]]) -> None:
        """Stores several outcomes in one transaction: all of them, or (on any error) none.

        ``outcomes`` holds ``(scenario, fields)`` pairs, ``fields`` the
        keyword arguments of :meth:`put` (``result``, ``error``,
        ``traceback``, ``seconds``).  One commit for many rows: the campaign
        runner stores a worker's chunk of scenarios this way.

        Examples
        --------
        >>> with Store(":memory:") as store:
        ...     store.put_many("demo", [({"x": 1}, {"result": {"y": 2}}), ({"x": 2}, {"error": "ValueError: boom"})])
        ...     [(r["x"], r["status"]) for r in store.results("demo")]
        [(1, 'ok'), (2, 'error')]
        """
        rows = [_row(campaign, scenario, **fields) for scenario, fields in outcomes]
        with self._db:  # BEGIN ... COMMIT, or ROLLBACK on an exception
            self._db.execute("BEGIN")
            self._db.executemany(_INSERT, rows)

    def results(self, campaign: str, scenarios: Iterable[Mapping[str, Any]] | None = None) -> list[dict[str, Any]]:
        """One flat row per scenario of ``campaign`` (see Notes of :class:`Store`).

        Parameters
        ----------
        campaign : str
        scenarios : iterable of dict, optional
            The scenarios wanted, in this order; default every stored one, by key.

        Raises
        ------
        KeyError
            If one of ``scenarios`` is not stored.
        """
        rows = self._rows(campaign)
        if scenarios is None:
            return [rows[key] for key in sorted(rows)]
        wanted = []
        for i, scenario in enumerate(scenarios):
            key = _key(scenario, f"scenarios[{i}]")
            if key not in rows:
                raise KeyError(f"scenarios[{i}] == {scenario!r} is not stored in campaign {campaign!r}")
            wanted.append(rows[key])
        return wanted

    def columns(
        self, campaign: str, scenarios: Iterable[Mapping[str, Any]] | None = None
    ) -> dict[str, list[Any]]:
        """:meth:`results` as columns: every field seen, ``None`` where a row lacks it."""
        rows = self.results(campaign, scenarios)
        names = dict.fromkeys(name for row in rows for name in row)
        return {name: [row.get(name) for row in rows] for name in names}

    def _rows(self, campaign: str) -> dict[str, dict[str, Any]]:
        rows = self._db.execute(
            "SELECT key, scenario, status, result, error, traceback, seconds, finished_at"
            " FROM results WHERE campaign = ?",
            (campaign,),
        )
        return {
            key: {
                **json.loads(scenario),
                **(json.loads(result) if result is not None else {}),
                "status": status,
                "error": error,
                "traceback": traceback,
                "seconds": seconds,
                "finished_at": finished_at,
            }
            for key, scenario, status, result, error, traceback, seconds, finished_at in rows
        }


_INSERT = "INSERT OR REPLACE INTO results VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)"


def _row(campaign: str, scenario: Mapping[str, Any], result: Mapping[str, Any] | None = None,
         error: str | None = None, traceback: str | None = None, seconds: float = 0.0) -> tuple[Any, ...]:
    """The values of one results row (:meth:`Store.put`'s checks)."""
    key = _key(scenario, "scenario")
    if (result is None) == (error is None):
        raise ValueError(f"result == {result!r} and error == {error!r}: give exactly one of them")
    return (
        campaign,
        key,
        dumps(scenario),
        "ok" if error is None else "error",
        None if result is None else dumps(plain_result(result, scenario)),
        error,
        traceback,
        float(seconds),
        datetime.now(timezone.utc).isoformat(timespec="milliseconds"),
    )


def plain_result(result: Any, scenario: Mapping[str, Any]) -> dict[str, Any]:
    """``result`` checked to be a dict of JSON values that fits in a row beside ``scenario``.

    Returns a copy made of plain Python values (numpy scalars and arrays converted).
    """
    if not isinstance(result, Mapping):
        raise TypeError(f"result == {result!r}, must be a dict of JSON-serializable values")
    for name in result:
        if not isinstance(name, str):
            raise TypeError(f"result == {result!r}: field names must be str, not {type(name).__name__}")
        if name in scenario or name in RESERVED:
            raise ValueError(
                f"result field {name!r} clashes with a scenario parameter or a reserved name {RESERVED}"
            )
    try:
        plain: dict[str, Any] = json.loads(dumps(result))
    except (TypeError, ValueError) as exc:
        raise TypeError(f"result == {result!r} is not JSON-serializable: {exc}") from None
    return plain
