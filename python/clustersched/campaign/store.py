"""The results store: one SQLite table, one row per (campaign, scenario).

Every :meth:`Store.put` is committed at once, so a crash or a Ctrl-C loses
nothing already stored.  The journal is SQLite's default rollback journal rather
than WAL, because WAL needs shared memory that network file systems (the home
directories of many clusters) do not provide.  Only the process that runs a
campaign writes; its workers send their results back to it.

A file that is not a store is refused before anything is written to it, with
a :class:`~clustersched.errors.StoreError` naming it and saying what is wrong
(not an SQLite database, a damaged one, another program's database), and so is
every SQLite failure later on (a full disk): the file is never "repaired" or
overwritten, and a traceback of the ``sqlite3`` module never reaches the user.
"""

from __future__ import annotations

import contextlib
import json
import os
import sqlite3
from collections.abc import Iterable, Iterator, Mapping
from datetime import datetime, timezone
from typing import Any

from ..errors import StoreError
from .scenarios import RESERVED, dumps, key_of

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

#: The columns of the results table, in order: a table named ``results`` with others is another program's.
_COLUMNS = ("campaign", "key", "scenario", "status", "result", "error", "traceback", "seconds", "finished_at")

#: ``PRAGMA application_id`` of the stores created here ("cSch"); 0, SQLite's default, for older stores.
APPLICATION_ID = 0x63536368


class Store:
    """Results of campaigns, in an SQLite file keyed by campaign and scenario.

    Parameters
    ----------
    path : str or path-like
        The database file, created if missing (``":memory:"`` for a throw-away store).

    Raises
    ------
    clustersched.errors.StoreError
        If ``path`` is not an SQLite database, is a damaged one, or is another
        program's (a table ``results`` of other columns, other tables only, an
        application id not ours) -- checked before anything is written, and the
        file left as it is -- and whenever SQLite fails later (a full disk:
        what was committed before stays).  Its message names the file.

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
        with self._sqlite("cannot be opened"):
            # autocommit: each statement is its own transaction, committed when it returns
            self._db = sqlite3.connect(self.path, isolation_level=None)
        try:
            self._open()
        except BaseException:
            self._db.close()
            raise

    def _open(self) -> None:
        """Checks that the file is a store (or an empty file) before anything is written, then creates the table.

        Every check reads only: a file that is not a store is left byte for byte as it was.
        """
        with self._sqlite("cannot be read as a results store"):
            tables = [
                name
                for (name,) in self._db.execute(
                    "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name"
                )
            ]
            (application_id,) = self._db.execute("PRAGMA application_id").fetchone()
            columns = tuple(row[1] for row in self._db.execute("PRAGMA table_info(results)"))
            # a damaged page shows only when read: read them all now, not halfway through a campaign
            problems = [text for (text,) in self._db.execute("PRAGMA quick_check(1)")]
        if problems != ["ok"]:
            found = "; ".join(" ".join(p.replace("*** in database main ***", "").split()) for p in problems)
            raise StoreError(self.path, f"is a damaged SQLite database ({found}); {_LEFT}")
        if application_id not in (0, APPLICATION_ID):
            raise StoreError(
                self.path,
                f"is the SQLite database of another program (application id "
                f"{application_id:#x}), not a results store; {_LEFT}",
            )
        if tables:
            if columns != _COLUMNS:
                found = (
                    f"table results has columns ({', '.join(columns)})" if columns else f"tables: {', '.join(tables)}"
                )
                raise StoreError(
                    self.path,
                    f"is an SQLite database but not a results store ({found}; a store "
                    f"has a table results with columns ({', '.join(_COLUMNS)})); {_LEFT}",
                )
            return
        with self._sqlite("cannot be created"):
            with self._db:
                self._db.execute("BEGIN")
                self._db.execute(_SCHEMA)
                self._db.execute(f"PRAGMA application_id = {APPLICATION_ID}")

    @contextlib.contextmanager
    def _sqlite(self, doing: str) -> Iterator[None]:
        """Turns the sqlite3 errors of the block into a :class:`StoreError` naming the file; ``doing`` says what
        failed."""
        try:
            yield
        except sqlite3.Error as exc:
            damaged, explained = _explain(exc)
            raise StoreError(self.path, explained if damaged else f"{doing}: {explained}") from exc

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
        with self._sqlite(f"cannot read the results of campaign {campaign!r}"):
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
        row = _row(campaign, scenario, result, error, traceback, seconds)
        with self._sqlite(f"cannot store a result of campaign {campaign!r}"):
            self._db.execute(_INSERT, row)

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
        with self._sqlite(f"cannot store {len(rows)} result(s) of campaign {campaign!r}"):
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
            key = key_of(scenario, f"scenarios[{i}]")
            if key not in rows:
                raise KeyError(f"scenarios[{i}] == {scenario!r} is not stored in campaign {campaign!r}")
            wanted.append(rows[key])
        return wanted

    def columns(self, campaign: str, scenarios: Iterable[Mapping[str, Any]] | None = None) -> dict[str, list[Any]]:
        """:meth:`results` as columns: every field seen, ``None`` where a row lacks it."""
        rows = self.results(campaign, scenarios)
        names = dict.fromkeys(name for row in rows for name in row)
        return {name: [row.get(name) for row in rows] for name in names}

    def _rows(self, campaign: str) -> dict[str, dict[str, Any]]:
        with self._sqlite(f"cannot read the results of campaign {campaign!r}"):
            rows = self._db.execute(
                "SELECT key, scenario, status, result, error, traceback, seconds, finished_at"
                " FROM results WHERE campaign = ?",
                (campaign,),
            ).fetchall()
        found = {}
        for key, scenario, status, result, error, traceback, seconds, finished_at in rows:
            found[key] = {
                **self._object(campaign, key, "scenario", scenario),
                **(self._object(campaign, key, "result", result) if result is not None else {}),
                "status": status,
                "error": error,
                "traceback": traceback,
                "seconds": seconds,
                "finished_at": finished_at,
            }
        return found

    def _object(self, campaign: str, key: str, column: str, text: Any) -> dict[str, Any]:
        """The JSON object stored in ``column`` of a row, or StoreError (a row written by something else)."""
        try:
            value = json.loads(text)
        except (TypeError, ValueError):
            value = text
        if not isinstance(value, dict):
            shown = repr(value) if len(repr(value)) <= 60 else repr(value)[:57] + "..."
            raise StoreError(
                self.path,
                f"campaign {campaign!r}, scenario {key}: column {column} holds {shown}, "
                "not a JSON object; the row was not written by a results store",
            )
        return value


_INSERT = "INSERT OR REPLACE INTO results VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)"


def _explain(exc: sqlite3.Error) -> tuple[bool, str]:
    """Whether an sqlite3 error says the file is not a sound database, and what it says in words (SQLite's own
    message kept in parentheses)."""
    name = getattr(exc, "sqlite_errorname", None) or ""  # Python >= 3.11
    message = str(exc) or type(exc).__name__
    if name == "SQLITE_NOTADB" or message == "file is not a database":
        return True, f"is not an SQLite database ({message}); {_LEFT}"
    if name == "SQLITE_CORRUPT" or "malformed" in message:
        return True, f"is a damaged SQLite database ({message}); {_LEFT}"
    if name == "SQLITE_FULL" or "disk is full" in message:
        return False, f"no space left on the device, or the file reached its size limit ({message})"
    if name in ("SQLITE_IOERR_WRITE", "SQLITE_IOERR_FSYNC", "SQLITE_IOERR_TRUNCATE", "SQLITE_IOERR_SHORT_READ"):
        # SQLite reports ENOSPC as SQLITE_FULL; a write refused for another reason (EFBIG: the size limit of the
        # process, EIO, EDQUOT) comes as this
        return (
            False,
            f"a write to the disk failed ({message}, {name}): the disk or a quota may be full, or the "
            "file at the size limit of the process",
        )
    return False, message + (f" ({name})" if name and name.lower().replace("_", " ") not in message.lower() else "")


_LEFT = "it was left as it is: move it away, or choose another file, to start a new store"


def _row(
    campaign: str,
    scenario: Mapping[str, Any],
    result: Mapping[str, Any] | None = None,
    error: str | None = None,
    traceback: str | None = None,
    seconds: float = 0.0,
) -> tuple[Any, ...]:
    """The values of one results row (:meth:`Store.put`'s checks)."""
    key = key_of(scenario, "scenario")
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
            raise ValueError(f"result field {name!r} clashes with a scenario parameter or a reserved name {RESERVED}")
    try:
        plain: dict[str, Any] = json.loads(dumps(result))
    except (TypeError, ValueError) as exc:
        raise TypeError(f"result == {result!r} is not JSON-serializable: {exc}") from None
    return plain
