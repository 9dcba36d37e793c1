"""JobTable: a set of rigid jobs as numpy columns, one per Standard Workload Format field.

The 18 columns follow the SWF definition (Feitelson et al., Parallel Workloads
Archive) in order; ``-1`` means "unknown" exactly as in SWF.  Times are seconds
(float64, so fractional times in non-standard traces survive); counts and ids
are int64.
"""

from __future__ import annotations

import numbers
import re
from collections import Counter
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Iterable, Iterator, Mapping

import numpy as np

from .._checks import MAX_PROCS
from ..errors import InvalidWorkloadError

if TYPE_CHECKING:
    import pandas

    from .requests import Requests

__all__ = ["MACHINE_SIZE_KEYS", "Dropped", "JobTable", "SWF_FIELDS", "parse_machine_size"]


@dataclass(frozen=True)
class Dropped:
    """A row that was removed from a table on purpose, or changed (clipped), and why.

    Nothing is lost or altered silently: ``reason`` is a fixed text (so that
    ``JobTable.drop_summary`` counts by it), ``job_id`` and ``line`` say which
    row when known; ``label`` is the job's id as its source wrote it when that
    is not a number (sacct's ``1234_7``, ``1234_[1-3]``, ``1234.batch``).
    """

    reason: str
    job_id: int | None = None
    line: int | None = None
    label: str | None = None


#: (column name, dtype, SWF definition) for the 18 SWF fields, in file order.
SWF_FIELDS: tuple[tuple[str, type, str], ...] = (
    ("job_id", np.int64, "job number"),
    ("submit", np.float64, "submit time (s)"),
    ("wait", np.float64, "wait time (s)"),
    ("runtime", np.float64, "run time (s)"),
    ("procs", np.int64, "number of allocated processors"),
    ("cpu_time", np.float64, "average CPU time used (s)"),
    ("mem_used", np.float64, "used memory (KB)"),
    ("procs_requested", np.int64, "requested number of processors"),
    ("time_requested", np.float64, "requested time (s)"),
    ("mem_requested", np.float64, "requested memory (KB)"),
    ("status", np.int64, "status"),
    ("user_id", np.int64, "user id"),
    ("group_id", np.int64, "group id"),
    ("executable", np.int64, "executable (application) number"),
    ("queue", np.int64, "queue number"),
    ("partition", np.int64, "partition number"),
    ("preceding_job", np.int64, "preceding job number"),
    ("think_time", np.float64, "think time from preceding job (s)"),
)
FIELD_NAMES: tuple[str, ...] = tuple(name for name, _, _ in SWF_FIELDS)

#: The prefix of the requests' columns in :meth:`JobTable.to_pandas`.
REQUEST_PREFIX = "req_"

#: Header keys that give the machine size, in order of preference.
MACHINE_SIZE_KEYS = ("MaxProcs", "MaxNodes")
_WHOLE = re.compile(r"\+?[0-9]+")


def parse_machine_size(value: str) -> int:
    """The processor count a ``MaxProcs`` / ``MaxNodes`` header value gives.

    The value's first word must be a whole number in ``1 .. 2**32 - 1`` (the
    largest machine the Rust core handles); words after it are a comment, as
    in CTC-SP2's ``338 (batch partition; 512 total)``.  Anything else
    (nothing, ``abc``, ``240.0``, ``-1``, ``10**23``) raises ValueError
    saying why, with the value.
    """
    words = value.split()
    if not words:
        raise ValueError("has no value (expected a number of processors)")
    if not _WHOLE.fullmatch(words[0]):
        raise ValueError(f"value {words[0]!r} is not a whole number of processors")
    count = int(words[0])
    if not 1 <= count <= MAX_PROCS:
        raise ValueError(f"value {count} is out of range (must be between 1 and {MAX_PROCS})")
    return count


class JobTable:
    """A struct-of-arrays job set: the 18 SWF columns plus header metadata.

    Parameters
    ----------
    columns : mapping of column name to 1-D array
        Any subset of :data:`SWF_FIELDS`; missing columns are filled with -1,
        and ``job_id`` defaults to 1..n.  All given columns must have one length.
    metadata : dict, optional
        Header values such as ``{"MaxProcs": "240"}`` (strings, as in SWF).
    header : list of str, optional
        Raw header comment lines (without the leading ``;``), kept verbatim so
        that writing a table read from SWF reproduces its header.
    source : str, optional
        Where the table came from (a path), used in error messages.
    dropped : iterable of Dropped, optional
        Rows removed on the way to this table (by ``read_swf(on_invalid="skip")``,
        ``drop_invalid`` ...); kept so that every drop stays reported.
    requests : Requests, optional
        What each job asked for on a cluster of nodes (one row per job, see
        :class:`~clustersched.workload.requests.Requests`); None (the default) for
        a table of SWF jobs alone.  :meth:`select` and :meth:`with_columns` carry it,
        :meth:`equals` compares it, :meth:`to_pandas` adds its columns.

    Examples
    --------
    >>> t = JobTable({"submit": [0, 5], "runtime": [10, 20], "procs": [4, 2]},
    ...              metadata={"MaxProcs": "8"})
    >>> len(t), t.max_procs, t.job_id.tolist()
    (2, 8, [1, 2])
    """

    __slots__ = FIELD_NAMES + ("metadata", "header", "source", "dropped", "requests")

    def __init__(
        self,
        columns: dict[str, Any] | None = None,
        *,
        metadata: dict[str, str] | None = None,
        header: list[str] | None = None,
        source: str | None = None,
        dropped: Iterable[Dropped] = (),
        requests: "Requests | None" = None,
    ) -> None:
        if columns is not None and not isinstance(columns, Mapping):
            raise TypeError(f"columns == {type(columns).__name__}, must be a mapping of column name to array")
        columns = dict(columns or {})
        unknown = set(columns) - set(FIELD_NAMES)
        if unknown:
            raise ValueError(f"unknown JobTable column(s) {sorted(unknown)}; known: {FIELD_NAMES}")
        dtypes = {name: dtype for name, dtype, _ in SWF_FIELDS}
        given = {name: _column(name, col, dtypes[name], source) for name, col in columns.items()}
        lengths = {name: len(col) for name, col in given.items()}
        if len(set(lengths.values())) > 1:
            raise ValueError(f"JobTable columns differ in length: {lengths}")
        n = next(iter(lengths.values()), 0)
        for name, dtype, _ in SWF_FIELDS:
            if name in given:
                arr = given[name]
            elif name == "job_id":
                arr = np.arange(1, n + 1, dtype=np.int64)
            else:
                arr = np.full(n, -1, dtype=dtype)
            object.__setattr__(self, name, arr)
        self.metadata: dict[str, str] = dict(metadata or {})
        self.header: list[str] = list(header or [])
        self.source = source
        self.dropped: tuple[Dropped, ...] = tuple(dropped)
        if requests is not None:
            from .requests import Requests

            if not isinstance(requests, Requests):
                raise TypeError(f"requests == {requests!r}, must be a Requests or None")
            if len(requests) != n:
                raise ValueError(f"requests has {len(requests)} rows, the table {n}: one row per job")
        self.requests: Requests | None = requests

    # -- basic protocol -------------------------------------------------
    def __len__(self) -> int:
        return len(self.job_id)

    def __repr__(self) -> str:
        where = f" from {self.source}" if self.source else ""
        try:
            size: object = self.max_procs
        except InvalidWorkloadError:  # a repr never raises: show the bad value as it is
            size = self.metadata.get("MaxProcs", self.metadata.get("MaxNodes"))
        return f"<JobTable {len(self)} jobs{where}, MaxProcs={size!r}>"

    def columns(self) -> dict[str, np.ndarray]:
        """The 18 columns as a dict (ready for ``pandas.DataFrame``)."""
        return {name: getattr(self, name) for name in FIELD_NAMES}

    def to_pandas(self) -> "pandas.DataFrame":
        """The 18 columns as a DataFrame, one row per job, names with units.

        Times end in ``_s`` (``submit_s``, ``wait_s``, ``runtime_s``,
        ``cpu_time_s``, ``time_requested_s``, ``think_time_s``) and memory in
        ``_kb`` (``mem_used_kb``, ``mem_requested_kb``); ids and counts keep
        their SWF names, int64.  ``-1`` still means unknown.  The header and
        metadata are not in the frame; :meth:`from_pandas` takes them back.
        When the table has :attr:`requests`, their columns follow, named
        ``req_`` + the column (``req_tasks``, ``req_mem_per_cpu_mb``,
        ``req_time_limit_s``, ``req_partition``, ...).
        pandas is optional: ``pip install "clustersched[pandas]"``.

        Examples
        --------
        >>> t = JobTable({"submit": [0, 5], "runtime": [10, 20], "procs": [4, 2]}, metadata={"MaxProcs": "8"})
        >>> df = t.to_pandas()
        >>> df.columns.tolist()[:5], df["runtime_s"].tolist()
        (['job_id', 'submit_s', 'wait_s', 'runtime_s', 'procs'], [10.0, 20.0])
        >>> JobTable.from_pandas(df, metadata=t.metadata).equals(t)
        True
        """
        from .._pandas import frame

        df = frame(self.columns())
        if self.requests is not None:
            for name, col in self.requests.frame_columns(REQUEST_PREFIX).items():
                df[name] = col
        return df

    @classmethod
    def from_pandas(
        cls, df: "pandas.DataFrame", *, metadata: dict[str, str] | None = None, source: str | None = None
    ) -> "JobTable":
        """A table from a DataFrame whose columns are SWF fields, named with units (as
        :meth:`to_pandas` writes them) or without (``submit``, ``runtime`` ...).

        Missing fields are -1 (``job_id`` 1..n), as in the constructor; a
        column that is no SWF field raises ValueError.  ``metadata`` gives the
        header values (``{"MaxProcs": "240"}``).
        """
        from .._pandas import with_units
        from .requests import REQUEST_NAMES, Requests

        names = {with_units(name): name for name in FIELD_NAMES}
        names.update({name: name for name in FIELD_NAMES})
        request_names = {REQUEST_PREFIX + n: n for n in REQUEST_NAMES}
        # and the names with units to_pandas writes (req_time_limit_s, req_eligible_s)
        request_names.update(zip(Requests(n=0).frame_columns(REQUEST_PREFIX), REQUEST_NAMES))
        request_cols = {request_names[c]: df[c].to_numpy() for c in df.columns if c in request_names}
        unknown = [c for c in df.columns if c not in names and c not in request_names]
        if unknown:
            raise ValueError(f"columns {unknown} are not SWF fields (the names of to_pandas() or of SWF_FIELDS)")
        columns = {names[c]: df[c].to_numpy() for c in df.columns if c in names}
        if len(columns) + len(request_cols) != len(df.columns):
            raise ValueError(f"columns {list(df.columns)} name one field twice (with and without its unit)")
        requests = Requests(request_cols, n=len(df)) if request_cols else None
        return cls(columns, metadata=metadata, source=source, requests=requests)

    def __iter__(self) -> Iterator[str]:
        return iter(FIELD_NAMES)

    def select(self, rows: Any, *, dropped: Iterable[Dropped] = ()) -> "JobTable":
        """A new table with the rows picked by a boolean mask, an index array or a slice.

        Rows left out are not recorded as dropped unless ``dropped`` says why
        (selecting a window is not dropping; removing bad jobs is).  The new
        columns are copies, never views of this table's, each in memory of its own.
        """
        index = np.arange(len(self))[rows]  # numpy checks the mask, indices or slice
        # "clip" skips take's bound checks: the indices are valid.
        cols = {name: np.take(getattr(self, name), index, mode="clip") for name in FIELD_NAMES}
        requests = None if self.requests is None else self.requests.select(index)
        return self._derive(cols, dropped, requests)

    def with_columns(self, **changes: Any) -> "JobTable":
        """A copy with some columns replaced (same length)."""
        cols = self.columns()
        cols.update(changes)
        return self._derive(cols, (), self.requests)

    def _derive(self, cols: dict[str, Any], dropped: Iterable[Dropped], requests: "Requests | None") -> "JobTable":
        return JobTable(
            cols,
            metadata=self.metadata,
            header=self.header,
            source=self.source,
            dropped=self.dropped + tuple(dropped),
            requests=requests,
        )

    def drop_summary(self) -> dict[str, int]:
        """How many rows were dropped on the way to this table, by reason."""
        return dict(Counter(d.reason for d in self.dropped))

    def equals(self, other: "JobTable") -> bool:
        """True when both tables hold identical columns, metadata and requests (both None, or equal)."""
        return (
            len(self) == len(other)
            and all(np.array_equal(getattr(self, n), getattr(other, n)) for n in FIELD_NAMES)
            and self.metadata == other.metadata
            and (self.requests is None) == (other.requests is None)
            and (self.requests is None or self.requests.equals(other.requests))
        )

    # -- derived views --------------------------------------------------
    @property
    def max_procs(self) -> int | None:
        """The header's MaxProcs (else MaxNodes) as an int, or None when both are absent.

        Raises
        ------
        InvalidWorkloadError
            When the value is not a processor count (see
            :func:`parse_machine_size`); a bad MaxProcs is never silently
            replaced by MaxNodes.
        """
        for key in MACHINE_SIZE_KEYS:
            size = self.machine_size(key)
            if size is not None:
                return size
        return None

    def machine_size(self, key: str) -> int | None:
        """The header's ``key`` (one of :data:`MACHINE_SIZE_KEYS`) as an int, or None when absent.

        Raises InvalidWorkloadError when the value is not a processor count (see
        :func:`parse_machine_size`).
        """
        value = self.metadata.get(key)
        if value is None:
            return None
        try:
            return parse_machine_size(str(value))
        except ValueError as e:
            raise InvalidWorkloadError(str(e), path=self.source, field=key, value=value) from None

    def width(self) -> np.ndarray:
        """Processors each job uses: allocated (field 5) when known, else requested (field 8)."""
        return np.where(self.procs > 0, self.procs, self.procs_requested)


# Beyond this an int64 column cannot hold the value.
_INT64_LIMIT = 2.0**63


def _column(name: str, value: Any, dtype: type, source: str | None) -> np.ndarray:
    """One column as a contiguous 1-D array of ``dtype``, or an error naming the column.

    TypeError for a column that is not numbers (None, strings, bools, objects
    that are not numbers), ValueError for one that is not 1-D, and
    InvalidWorkloadError for an id or count column holding a value that is not
    an integer of int64's range.
    """
    if value is None:
        raise TypeError(f"column {name!r} == None, must be a 1-D array of numbers (one per job)")
    try:
        raw = np.asarray(value)
    except ValueError as e:  # ragged nested lists
        raise ValueError(f"column {name!r} is not a 1-D array of numbers ({e})") from None
    if raw.ndim != 1:
        raise ValueError(f"column {name!r} has shape {raw.shape}, must be 1-D (one value per job)")
    if raw.dtype.kind == "O":  # Python ints beyond int64, Decimals, ... or None
        for i, x in enumerate(raw.tolist()):
            if isinstance(x, bool) or not isinstance(x, numbers.Real):
                raise TypeError(f"column {name!r}: row {i} == {x!r}, must be a number")
        raw = raw.astype(np.float64)
    if raw.dtype.kind not in "iuf":
        raise TypeError(f"column {name!r} has dtype {raw.dtype}, must hold numbers (integers or floats)")
    if dtype is np.int64 and raw.dtype.kind in "uf":
        if raw.dtype.kind == "u":
            fraction = np.zeros(raw.shape, dtype=bool)
            too_big = raw > np.iinfo(np.int64).max
        else:
            with np.errstate(invalid="ignore"):
                fraction = ~np.isfinite(raw) | (raw != np.trunc(raw))
                too_big = ~fraction & (np.abs(raw) >= _INT64_LIMIT)
        bad = fraction | too_big
        if bad.any():
            i = int(np.argmax(bad))
            what = "not an integer" if fraction[i] else "out of int64's range"
            raise InvalidWorkloadError(
                f"row {i}: value {raw[i].item()!r} is {what}", field=name, path=source, value=raw[i].item()
            )
    return np.ascontiguousarray(raw, dtype=dtype)
