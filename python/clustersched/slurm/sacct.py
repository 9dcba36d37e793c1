"""Reading Slurm accounting dumps (``sacct -P`` / ``--parsable2``) as a JobTable with its Requests.

A dump is a header line naming the columns and one ``|``-separated line per
job or job step, as ``sacct -P -o JobID,Submit,...`` writes it (the fields of
Slurm 17.11's sacct man page; where a later version writes a field otherwise,
it is said below).  The columns may come in any order; unknown columns are
ignored.  :func:`read_sacct` is vectorised with numpy: it scans the bytes for
the separators once, then parses each column as a whole (a 1,000,000-line
dump takes about a second; ``benches/bench_sacct.py``).

Columns
-------
Required: ``JobID``, ``Submit``, ``Start``, ``End``, ``State``, and ``NCPUS``
(or its old name ``AllocCPUS``).  Used when present: ``JobIDRaw``, ``Elapsed``
(else ``End - Start``), ``Timelimit``, ``NNodes``, ``ReqNodes``, ``ReqCPUS``,
``ReqMem``, ``ReqGRES``, ``ReqTRES``, ``AllocTRES``, ``NTasks``,
``Partition``, ``Account``, ``User``, ``Group``, ``QOS``, ``Cluster``,
``Constraints``.  A missing required column is an error naming it.

Rows
----
* Job steps (``1234.batch``, ``1234.extern``, ``1234.0``, ``1234_7.batch``)
  are not jobs: each must follow a job line of its job (else "step without its
  job": an error, or a drop with ``on_invalid="skip"``), and is then left out;
  their number is ``metadata["SacctSteps"]``.
* Array tasks (``1234_7``) are jobs; the JobID as written is the request's
  ``label``.  A pending array (``1234_[1-3]``, ``1234_[1-3%2]``) never ran:
  skipped and counted ("pending array") in either mode.
* A JobID seen twice (``sacct -D`` shows each requeued run): the first line
  is kept; a later one is an error, or dropped ("duplicate JobID").

States (the ``State`` column's first word; ``CANCELLED by 1234`` is CANCELLED)
---------------------------------------------------------------------------
=================  ========================================  ============
state              rule                                      SWF status
=================  ========================================  ============
COMPLETED          kept                                      1
FAILED             kept (its elapsed time, often 0)          0
TIMEOUT            kept (runs to its limit, plus the         0
                   OverTimeLimit and KillWait Slurm adds)
NODE_FAIL          kept                                      0
OUT_OF_MEMORY      kept                                      0
BOOT_FAIL          kept                                      0
DEADLINE           kept                                      0
PREEMPTED          kept (its run until preemption)           5
CANCELLED          kept if it started, status 5; skipped     5
                   ("cancelled before start") when Start is
                   ``Unknown``/``None`` or NodeList is
                   ``None assigned``
PENDING, RUNNING,  skipped ("not ended"): no run to replay   --
SUSPENDED,
REQUEUED,
RESIZING, REVOKED
anything else      an error ("unknown state"), or dropped    --
=================  ========================================  ============

Values
------
* Dates are ``YYYY-MM-DDTHH:MM:SS`` (sacct's default format) and are read as
  **UTC**, never in the machine's time zone, so a dump gives the same table on
  every machine (sacct wrote them in the cluster's local time, which the dump
  does not say; a time zone shifts every date alike and changes no interval).
  ``Unknown``, ``None`` or empty is "unknown".  End before Start, or Start
  before Submit, is an error (or a drop).
* ``Elapsed`` and ``Timelimit`` use Slurm's time formats
  (:func:`~clustersched.slurm.conf.parse_slurm_time`); a Timelimit of
  ``UNLIMITED`` is ``inf`` in the request and -1 (unknown) in SWF's requested
  time; ``Partition_Limit`` is -1 in both (the partition's MaxTime applies).
* ``ReqMem``: a number with a unit ``K``, ``M`` (the default), ``G`` or ``T``
  (powers of 1024) and, up to Slurm 21.08, a suffix ``c`` (per CPU: ``2800Mc``)
  or ``n`` (per node: ``500000Mn``).  Slurm 21.08 and later write it without
  the suffix, as the job's whole memory (the ``mem=`` of ReqTRES); we read an
  unsuffixed value as that total, spread evenly over the job's nodes
  (``mem_per_node_mb = total / nodes``).  ``0`` per node is ``--mem=0``, all
  of each node's memory.  Without ReqMem, ReqTRES's ``mem=`` is read the same
  way.
* GPUs: ``ReqGRES`` (``gpu:2``, ``gpu:tesla:2``; per node, as ``--gres`` asks);
  else ReqTRES's ``gres/gpu=N`` or ``gres/gpu:TYPE=N`` (the job's total,
  divided by its nodes, rounded up).

Output
------
The SWF columns as SWF defines them: ``submit`` in seconds from the earliest
kept submit (``metadata["UnixStartTime"]`` is its epoch, UTC), ``wait`` =
Start - Submit, ``runtime`` = Elapsed, ``procs`` = NCPUS, ``procs_requested``
= ReqCPUS (else NCPUS), ``time_requested`` = Timelimit, ``mem_requested`` the
requested memory in KB per processor, ``status`` as in the table above,
``user_id``, ``group_id``, ``queue`` and ``partition`` the dense codes
(1, 2, ... in order of first appearance; -1 for an empty name) of User,
Group, QOS and Partition; ``metadata["Users"]``, ``["Groups"]``, ``["Queues"]``
and ``["Partitions"]`` list the names in code order.  ``job_id`` is JobIDRaw
(a number for every job, array tasks included); without that column, the
JobID when every job's is a plain number, else 1..n.  ``MaxProcs`` is left
out: the dump does not say the machine's size (the platform, from its
``slurm.conf``, does).  ``table.requests`` holds the requests
(:class:`~clustersched.workload.requests.Requests`): nodes (ReqNodes, else
NNodes), tasks (NTasks when given, else ReqCPUS or NCPUS, of one CPU each),
memory, GPUs, partition, account, user, QOS, time limit, constraints and the
JobID as written.
"""

from __future__ import annotations

import os
import re
import zlib
from collections.abc import Callable
from typing import Literal, NamedTuple

import numpy as np

from .._checks import check_choice
from ..errors import InvalidWorkloadError
from ..workload.jobs import Dropped, JobTable
from ..workload.requests import Requests
from .conf import parse_slurm_time

__all__ = ["SACCT_REQUIRED", "SACCT_STATES", "read_sacct"]

#: The columns a dump must have (``NCPUS`` may be named ``AllocCPUS``).
SACCT_REQUIRED = ("JobID", "Submit", "Start", "End", "State", "NCPUS")
#: State -> SWF status for the states kept; the others are skipped (see the module's docstring).
SACCT_STATES = {
    "COMPLETED": 1,
    "FAILED": 0,
    "TIMEOUT": 0,
    "NODE_FAIL": 0,
    "OUT_OF_MEMORY": 0,
    "BOOT_FAIL": 0,
    "DEADLINE": 0,
    "PREEMPTED": 5,
    "CANCELLED": 5,
}
_NOT_ENDED = ("PENDING", "RUNNING", "SUSPENDED", "REQUEUED", "RESIZING", "REVOKED", "REQUEUE_HOLD", "REQUEUE_FED")
_ALIASES = {"alloccpus": "NCPUS"}
_KNOWN = (
    "JobID JobIDRaw Submit Eligible Start End Elapsed Timelimit State NNodes ReqNodes NCPUS ReqCPUS ReqMem ReqGRES "
    "ReqTRES AllocTRES NTasks Partition Account User Group QOS Cluster Constraints NodeList"
).split()
_CANON = {name.lower(): name for name in _KNOWN}
_UNKNOWN_DATES = (b"", b"Unknown", b"None")
_MEM = re.compile(r"([0-9]+(?:\.[0-9]+)?)([KMGT]?)([cn]?)")
_MEM_SCALE = {"K": 1 / 1024, "M": 1.0, "": 1.0, "G": 1024.0, "T": 1024.0**2}
_DIGITS = np.array([1, 2, 3, 4, 6, 7, 9, 10, 12, 13, 15, 16, 18, 19]) - 1  # digit positions of a date


class _Problem(NamedTuple):
    message: str  # with the value, for the exception
    reason: str  # without it, for Dropped: counted by reason
    field: str | None
    value: object


def read_sacct(path: str | os.PathLike[str], *, on_invalid: Literal["raise", "skip"] = "raise") -> JobTable:
    """Read a ``sacct -P`` (``--parsable2``) dump: its jobs as a JobTable with their Requests.

    See the module's docstring for the columns, the rules for steps, arrays
    and states, the units, and the output.  Dates without a time zone are read
    as UTC, never in the machine's zone.

    Parameters
    ----------
    path : str or os.PathLike
        The dump, plain or gzip-compressed (recognised by its first bytes).
    on_invalid : {"raise", "skip"}
        A malformed line (a bad field, End before Start, a step without its job, a duplicate JobID, an
        unknown state): raise :class:`~clustersched.errors.InvalidWorkloadError` naming the file, line,
        job, field and value; or leave it out and record it in the table's ``dropped``.  Lines skipped
        by rule (pending arrays, jobs cancelled before they started, jobs not ended) are recorded in
        ``dropped`` in both modes; :meth:`~clustersched.workload.JobTable.drop_summary` counts them.

    Returns
    -------
    JobTable
        One row per job kept, in file order, with ``requests`` and ``metadata``.

    Raises
    ------
    InvalidWorkloadError
        An empty file, a header missing a required column (named), a malformed line (with
        ``on_invalid="raise"``), or no job left.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> dump = pathlib.Path(tempfile.mkdtemp()) / "sacct.txt"
    >>> _ = dump.write_text(
    ...     "JobID|Submit|Start|End|Elapsed|Timelimit|State|NNodes|NCPUS|ReqMem|Partition|User\\n"
    ...     "7|2021-02-11T22:00:00|2021-02-11T22:00:10|2021-02-11T22:05:10|00:05:00|00:10:00|COMPLETED|1|4|"
    ...     "2800Mc|normal|alice\\n"
    ...     "7.batch|2021-02-11T22:00:10|2021-02-11T22:00:10|2021-02-11T22:05:10|00:05:00||COMPLETED|1|4|"
    ...     "2800Mc||\\n"
    ...     "8_[1-3]|2021-02-11T22:01:00|Unknown|Unknown|00:00:00|01:00:00|PENDING|1|1|2800Mc|normal|bob\\n")
    >>> t = read_sacct(dump)
    >>> t.job_id.tolist(), t.wait.tolist(), t.runtime.tolist(), t.time_requested.tolist()
    ([7], [10.0], [300.0], [600.0])
    >>> t.requests.mem_per_cpu_mb.tolist(), t.requests.label.tolist(), t.metadata["UnixStartTime"]
    ([2800.0], ['7'], '1613080800')
    >>> t.drop_summary()
    {'pending array': 1}
    """
    check_choice("on_invalid", on_invalid, ("raise", "skip"))
    path_str = os.fspath(path)
    with open(path_str, "rb") as f:
        data = f.read()
    if data[:2] == b"\x1f\x8b":
        try:
            data = zlib.decompress(data, wbits=47)
        except zlib.error as e:
            raise InvalidWorkloadError(f"is not a valid gzip file ({e})", path=path_str) from None
    return _Reader(data, path_str, on_invalid).table()


class _Reader:
    """One dump being read: its bytes, the fields' offsets, the problems found per row."""

    def __init__(self, data: bytes, path: str, on_invalid: str) -> None:
        self.path = path
        self.on_invalid = on_invalid
        if data.startswith(b"\xef\xbb\xbf"):
            data = b" " * 3 + data[3:]  # a byte order mark, blanked so that offsets stay those of the file
        if b"\r" in data:
            data = data.replace(b"\r\n", b" \n").replace(b"\r", b"\n")  # same length: offsets kept
        if not data.endswith(b"\n"):
            data += b"\n"
        self.data = data
        self.buf = np.frombuffer(data, dtype=np.uint8)
        self.problems: dict[int, _Problem] = {}  # row -> its first problem
        self.dropped: list[tuple[int, Dropped]] = []  # (line, record) of lines skipped before the rows exist

    # -- splitting -------------------------------------------------------------------------------
    def _split(self) -> None:
        buf = self.buf
        newlines = np.flatnonzero(buf == 10)
        starts = np.concatenate(([0], newlines[:-1] + 1))
        blank = np.array([not self.data[s:e].strip() for s, e in zip(starts[:64], newlines[:64])], dtype=bool)
        first = int(np.argmax(~blank)) if (~blank).any() else -1
        if first < 0 or (len(blank) == 64 and blank.all()):
            raise InvalidWorkloadError("is empty: no header line (sacct -P writes one; do not pass -n)", path=self.path)
        header_text = self.data[starts[first] : newlines[first]].decode("utf-8", "replace").strip()
        names = header_text.split("|")
        self.header_line = first + 1
        canon = []
        for name in names:
            low = name.strip().lower()
            canon.append(_ALIASES.get(low, _CANON.get(low, name.strip())))
        missing = [c for c in SACCT_REQUIRED if c not in canon]
        if missing:
            raise InvalidWorkloadError(
                f"the header has no column {missing[0]} (sacct -P -o {','.join(SACCT_REQUIRED)},...); "
                f"it names {', '.join(names)}",
                path=self.path,
                line=self.header_line,
                field=missing[0],
            )
        self.index = {name: k for k, name in enumerate(canon) if name not in canon[:k]}
        self.ncols = len(names)
        # Lines after the header, their '|' counts: a data line has ncols - 1.
        starts, ends = starts[first + 1 :], newlines[first + 1 :]
        bars = np.flatnonzero(buf == 124)
        bars = bars[bars > newlines[first]]  # the header's own bars are not fields
        per_line = np.searchsorted(bars, ends) - np.searchsorted(bars, starts)
        good = per_line == self.ncols - 1
        lines = np.arange(first + 2, first + 2 + len(starts))
        if not good.all():
            for i in np.flatnonzero(~good).tolist():
                text = self.data[starts[i] : ends[i]]
                if not text.strip():
                    continue  # a blank line is no job
                if text.decode("utf-8", "replace").strip() == header_text:
                    self.dropped.append((int(lines[i]), Dropped("repeated header line", line=int(lines[i]))))
                    continue
                label = text.split(b"|", 1)[0].decode("utf-8", "replace")
                message = f"has {int(per_line[i]) + 1} fields, the header {self.ncols}"
                if self.on_invalid == "raise":
                    raise InvalidWorkloadError(message, path=self.path, line=int(lines[i]), job_id=label or None)
                self.dropped.append(
                    (int(lines[i]), Dropped("wrong number of fields", line=int(lines[i]), label=label or None))
                )
            starts, ends, lines = starts[good], ends[good], lines[good]
            keep_bar = np.zeros(len(bars), dtype=bool)
            lo, hi = np.searchsorted(bars, starts), np.searchsorted(bars, ends)
            # Mark the bars inside good lines: a +1/-1 walk over line bounds.
            mark = np.zeros(len(bars) + 1, dtype=np.int64)
            np.add.at(mark, lo, 1)
            np.add.at(mark, hi, -1)
            keep_bar = np.cumsum(mark)[:-1] > 0
            bars = bars[keep_bar]
        n = len(starts)
        self.n = n
        self.lines = lines
        # Field k of row i spans [begin[i, k], end[i, k]).
        ends_grid = np.empty((n, self.ncols), dtype=np.int64)
        if self.ncols > 1:
            ends_grid[:, :-1] = bars.reshape(n, self.ncols - 1)
        ends_grid[:, -1] = ends
        begin = np.empty_like(ends_grid)
        begin[:, 0] = starts
        begin[:, 1:] = ends_grid[:, :-1] + 1
        self.begin, self.end = begin, ends_grid

    # -- columns -----------------------------------------------------------------------------------
    def has(self, name: str) -> bool:
        return name in self.index

    def matrix(self, name: str, rows: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
        """Column ``name`` as an (n, width) uint8 matrix (0 past each field's end) and the fields' lengths."""
        k = self.index[name]
        begin, end = self.begin[:, k], self.end[:, k]
        if rows is not None:
            begin, end = begin[rows], end[rows]
        lengths = end - begin
        width = max(int(lengths.max()) if len(lengths) else 0, 1)
        pos = np.arange(width)
        idx = begin[:, None] + pos
        np.minimum(idx, len(self.buf) - 1, out=idx)
        mat = self.buf[idx]
        mat[pos >= lengths[:, None]] = 0
        return mat, lengths

    def text(self, name: str, row: int) -> str:
        k = self.index[name]
        return self.data[self.begin[row, k] : self.end[row, k]].decode("utf-8", "replace")

    def problem(self, rows: np.ndarray, make: Callable[[int], _Problem]) -> None:
        """Records a problem for each of ``rows`` that has none yet (only the first one in raise mode)."""
        for row in np.asarray(rows).tolist():
            if row not in self.problems:
                self.problems[row] = make(row)
                if self.on_invalid == "raise":
                    return  # the earliest row is raised at the end; one per check is enough to find it

    def bad_value(self, rows: np.ndarray, name: str, what: str) -> None:
        self.problem(
            rows,
            lambda r: _Problem(f"{name} == {self.text(name, r)!r} {what}", f"bad {name}", name, self.text(name, r)),
        )

    # -- typed columns -----------------------------------------------------------------------------
    def categories(self, name: str, rows: np.ndarray | None = None) -> tuple[np.ndarray, list[str]]:
        """Column ``name`` as codes 0.. (first appearance order) and the distinct values, decoded."""
        mat, _ = self.matrix(name, rows)
        if len(mat) == 0:
            return np.zeros(0, dtype=np.int64), []
        h = np.zeros(len(mat), dtype=np.uint64)
        with np.errstate(over="ignore"):
            for j in range(mat.shape[1]):
                h = (h * np.uint64(1099511628211)) ^ mat[:, j].astype(np.uint64)
        _, first, inverse = np.unique(h, return_index=True, return_inverse=True)
        inverse = inverse.reshape(-1)
        if not (mat == mat[first[inverse]]).all():  # a hash collision: sort the strings instead
            strings = np.ascontiguousarray(mat).view(f"S{mat.shape[1]}").reshape(-1)
            _, first, inverse = np.unique(strings, return_index=True, return_inverse=True)
            inverse = inverse.reshape(-1)
        order = np.argsort(first, kind="stable")
        rank = np.empty(len(order), dtype=np.int64)
        rank[order] = np.arange(len(order))
        values = [bytes(mat[first[k]]).rstrip(b"\0").decode("utf-8", "replace") for k in order.tolist()]
        return rank[inverse], values

    def integers(self, name: str, rows: np.ndarray, *, empty: int = -1) -> np.ndarray:
        """Column ``name`` as whole numbers >= 0; ``empty`` where blank; bad values recorded."""
        mat, lengths = self.matrix(name, rows)
        value, ok = _whole(mat, lengths)
        blank = lengths == 0
        value[blank] = empty
        self.bad_value(rows[~ok & ~blank], name, "is not a whole number")
        return value

    def dates(self, name: str, rows: np.ndarray) -> np.ndarray:
        """Column ``name`` as seconds since the epoch (UTC); NaN where Unknown/None/blank; bad values recorded."""
        mat, lengths = self.matrix(name, rows)
        out = np.full(len(rows), np.nan)
        unknown = lengths == 0
        for word in _UNKNOWN_DATES[1:]:
            if mat.shape[1] >= len(word):
                unknown |= (lengths == len(word)) & (mat[:, : len(word)] == np.frombuffer(word, np.uint8)).all(1)
        if mat.shape[1] < 19:
            self.bad_value(rows[~unknown], name, "is not a date YYYY-MM-DDTHH:MM:SS")
            return out
        m = mat[:, :19].astype(np.int64)
        d = m[:, _DIGITS] - 48
        shape_ok = (
            (lengths == 19)
            & ((d >= 0) & (d <= 9)).all(1)
            & (m[:, 4] == 45)
            & (m[:, 7] == 45)
            & (m[:, 10] == 84)
            & (m[:, 13] == 58)
            & (m[:, 16] == 58)
        )
        d = np.where(shape_ok[:, None], d, 0)
        year = d[:, 0] * 1000 + d[:, 1] * 100 + d[:, 2] * 10 + d[:, 3]
        month, day = d[:, 4] * 10 + d[:, 5], d[:, 6] * 10 + d[:, 7]
        hour, minute, second = d[:, 8] * 10 + d[:, 9], d[:, 10] * 10 + d[:, 11], d[:, 12] * 10 + d[:, 13]
        leap = (year % 4 == 0) & ((year % 100 != 0) | (year % 400 == 0))
        month_days = np.array([31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31])[np.clip(month - 1, 0, 11)]
        month_days = month_days + ((month == 2) & leap)
        ok = (
            shape_ok
            & (month >= 1)
            & (month <= 12)
            & (day >= 1)
            & (day <= month_days)
            & (hour < 24)
            & (minute < 60)
            & (second < 60)
        )
        # Days from 1970-01-01 of a proleptic Gregorian date (H. Hinnant's days_from_civil).
        y = year - (month <= 2)
        era = y // 400
        yoe = y - era * 400
        doy = (153 * ((month + 9) % 12) + 2) // 5 + day - 1
        days = era * 146097 + yoe * 365 + yoe // 4 - yoe // 100 + doy - 719468
        seconds = days * 86400 + hour * 3600 + minute * 60 + second
        out[ok] = seconds[ok]
        self.bad_value(rows[~ok & ~unknown], name, "is not a date YYYY-MM-DDTHH:MM:SS (or Unknown)")
        return out

    def durations(self, name: str, rows: np.ndarray) -> np.ndarray:
        """Column ``name`` (``[D-]HH:MM:SS``, or any Slurm time) as seconds; NaN where blank; bad values recorded."""
        k = self.index[name]
        begin, end = self.begin[rows, k], self.end[rows, k]
        lengths = end - begin
        out = np.full(len(rows), np.nan)
        fast = lengths >= 8
        idx = np.maximum(end[:, None] - 8 + np.arange(8), 0)
        m = self.buf[idx].astype(np.int64)
        d = m[:, [0, 1, 3, 4, 6, 7]] - 48
        fast &= ((d >= 0) & (d <= 9)).all(1) & (m[:, 2] == 58) & (m[:, 5] == 58)
        hms = (d[:, 0] * 10 + d[:, 1]) * 3600 + (d[:, 2] * 10 + d[:, 3]) * 60 + d[:, 4] * 10 + d[:, 5]
        has_days = fast & (lengths > 8)
        days = np.zeros(len(rows), dtype=np.int64)
        if has_days.any():
            sub = np.flatnonzero(has_days)
            dash = self.buf[end[sub] - 9] == 45
            day_begin, day_len = begin[sub], lengths[sub] - 9
            width = max(int(day_len.max()), 1)
            pos = np.arange(width)
            didx = np.minimum(day_begin[:, None] + pos, len(self.buf) - 1)
            dm = self.buf[didx]
            dm[pos >= day_len[:, None]] = 0
            dv, dok = _whole(dm, day_len)
            good = dash & dok & (day_len > 0)
            days[sub[good]] = dv[good]
            fast[sub[~good]] = False
        out[fast] = (days * 86400 + hms)[fast]
        # The rest (other Slurm formats, UNLIMITED, blank, garbage): one by one.
        for i in np.flatnonzero(~fast).tolist():
            text = self.data[begin[i] : end[i]].decode("utf-8", "replace").strip()
            if not text:
                continue
            try:
                out[i] = parse_slurm_time(text)
            except ValueError:
                self.bad_value(rows[i : i + 1], name, "is not a Slurm time ([D-]HH:MM:SS, ...)")
        return out

    # -- the table -----------------------------------------------------------------------------------
    def table(self) -> JobTable:
        self._split()
        n = self.n
        rows = np.arange(n)
        # Job ids: steps, pending arrays, array tasks, plain jobs.
        ids, id_len = self.matrix("JobID", rows)
        dot = (ids == 46).any(1)
        bracket = (ids == 91).any(1)
        underscore = (ids == 95).any(1)
        base_len = np.where(dot, np.argmax(ids == 46, axis=1), id_len)
        pending_array = bracket & ~dot
        steps = dot
        jobs = ~steps & ~pending_array
        # The job a line belongs to: the JobID up to its '.', as text (its key); a job's key is its JobID.
        key_mat = ids.copy()
        key_mat[np.arange(ids.shape[1]) >= base_len[:, None]] = 0
        keys = np.ascontiguousarray(key_mat).view(f"S{ids.shape[1]}").reshape(-1)
        number, plain = _whole(ids, id_len)
        array_id = jobs & underscore
        # An array task's JobID is 1234_7: both parts whole numbers.
        task_ok = np.ones(n, dtype=bool)
        if array_id.any():
            sub = np.flatnonzero(array_id)
            for i in sub.tolist():
                task_ok[i] = re.fullmatch(r"[0-9]+_[0-9]+", self.text("JobID", i)) is not None
        valid_id = np.where(array_id, task_ok, plain) & (id_len > 0)
        step_key_ok = np.ones(n, dtype=bool)
        if steps.any():
            sub = np.flatnonzero(steps)
            base_ok = np.array(
                [re.fullmatch(r"[0-9]+(_[0-9]+)?", k.decode("ascii", "replace")) is not None for k in keys[sub]]
            )
            step_key_ok[sub] = base_ok
        bad_id = (jobs & ~valid_id) | (steps & ~step_key_ok)
        self.bad_value(rows[bad_id], "JobID", "is not a job id (1234, 1234_7, 1234.batch, 1234_[1-3])")
        # Duplicates, and steps whose job has no line before them.
        job_rows = np.flatnonzero(jobs & ~bad_id)
        order = np.argsort(keys[job_rows], kind="stable")
        sorted_keys = keys[job_rows][order]
        repeat = np.zeros(len(job_rows), dtype=bool)
        repeat[order[1:]] = sorted_keys[1:] == sorted_keys[:-1]
        dup_rows = job_rows[repeat]
        first_line_of = {}
        if len(dup_rows):
            firsts = job_rows[order][np.r_[True, sorted_keys[1:] != sorted_keys[:-1]]]
            first_line_of = {keys[r]: int(self.lines[r]) for r in firsts.tolist()}
        self.problem(
            dup_rows,
            lambda r: _Problem(
                f"JobID {self.text('JobID', r)} was already given on line {first_line_of.get(keys[r])}",
                "duplicate JobID",
                "JobID",
                self.text("JobID", r),
            ),
        )
        step_rows = np.flatnonzero(steps & step_key_ok)
        if len(step_rows):
            known = sorted_keys[np.r_[True, sorted_keys[1:] != sorted_keys[:-1]]] if len(sorted_keys) else sorted_keys
            at = np.searchsorted(known, keys[step_rows])
            found = (at < len(known)) & (known[np.minimum(at, max(len(known) - 1, 0))] == keys[step_rows])
            orphan = step_rows[~found] if len(known) else step_rows
            self.problem(
                orphan,
                lambda r: _Problem(
                    f"step {self.text('JobID', r)} has no job line {keys[r].decode('ascii', 'replace')}",
                    "step without its job",
                    "JobID",
                    self.text("JobID", r),
                ),
            )
        # States.
        state_codes, state_values = self.categories("State")
        words = [v.split()[0].upper() if v.split() else "" for v in state_values]
        status_of = np.array([SACCT_STATES.get(w, -1) for w in words] + [-1], dtype=np.int64)
        not_ended_of = np.array([w in _NOT_ENDED for w in words] + [False])
        unknown_of = np.array([w not in SACCT_STATES and w not in _NOT_ENDED for w in words] + [False])
        cancelled_of = np.array([w == "CANCELLED" for w in words] + [False])
        status = status_of[state_codes]
        job_mask = jobs & ~bad_id
        self.problem(
            rows[job_mask & unknown_of[state_codes]],
            lambda r: _Problem(
                f"State == {self.text('State', r)!r} is not a Slurm job state "
                f"({', '.join(list(SACCT_STATES) + list(_NOT_ENDED))})",
                "unknown state",
                "State",
                self.text("State", r),
            ),
        )
        submit = self.dates("Submit", rows)
        start = self.dates("Start", rows)
        end = self.dates("End", rows)
        no_start = np.isnan(start)
        if self.has("NodeList"):
            none_assigned = np.zeros(n, dtype=bool)
            k = self.index["NodeList"]
            short = (self.end[:, k] - self.begin[:, k]) == len(b"None assigned")
            for i in np.flatnonzero(short).tolist():
                none_assigned[i] = self.text("NodeList", i) == "None assigned"
            no_start |= none_assigned
        cancelled_before = job_mask & cancelled_of[state_codes] & no_start
        not_ended = job_mask & (not_ended_of[state_codes] | (np.isnan(end) & ~cancelled_before))
        not_ended &= ~unknown_of[state_codes]
        kept = job_mask & ~pending_array & ~cancelled_before & ~not_ended & ~unknown_of[state_codes]
        for what, rows_ in (("Submit", submit), ("Start", start)):
            self.problem(
                rows[kept & np.isnan(rows_)],
                lambda r, w=what: _Problem(f"{w} is unknown for a job that ran", f"unknown {w}", w, self.text(w, r)),
            )
        self.problem(
            rows[kept & (end < start)],
            lambda r: _Problem(
                f"End {self.text('End', r)} is before Start {self.text('Start', r)}", "End before Start", "End", None
            ),
        )
        self.problem(
            rows[kept & (start < submit)],
            lambda r: _Problem(
                f"Start {self.text('Start', r)} is before Submit {self.text('Submit', r)}",
                "Start before Submit",
                "Start",
                None,
            ),
        )
        elapsed = self.durations("Elapsed", rows) if self.has("Elapsed") else end - start
        if self.has("Elapsed"):
            missing = kept & np.isnan(elapsed)
            elapsed[missing] = (end - start)[missing]
            self.problem(
                rows[kept & np.isinf(elapsed)],
                lambda r: _Problem("Elapsed is UNLIMITED", "bad Elapsed", "Elapsed", self.text("Elapsed", r)),
            )
        ncpus = self.integers("NCPUS", rows)
        req_cpus = self.integers("ReqCPUS", rows) if self.has("ReqCPUS") else ncpus.copy()
        nnodes = self.integers("NNodes", rows) if self.has("NNodes") else np.full(n, -1, dtype=np.int64)
        req_nodes = self.integers("ReqNodes", rows) if self.has("ReqNodes") else nnodes.copy()
        ntasks = self.integers("NTasks", rows) if self.has("NTasks") else np.full(n, -1, dtype=np.int64)
        self.problem(
            rows[kept & (ncpus < 1) & (req_cpus < 1)],
            lambda r: _Problem("the job has no CPU count (NCPUS and ReqCPUS)", "no CPU count", "NCPUS", None),
        )
        time_limit = np.full(n, -1.0)
        if self.has("Timelimit"):
            codes, values = self.categories("Timelimit")
            parsed = np.empty(len(values) + 1)
            parsed[-1] = -1.0
            bad_codes = []
            for c, v in enumerate(values):
                text = v.strip()
                if text in ("", "Partition_Limit"):
                    parsed[c] = -1.0
                    continue
                try:
                    parsed[c] = parse_slurm_time(text)
                except ValueError:
                    parsed[c] = -1.0
                    bad_codes.append(c)
                if parsed[c] == 0:
                    bad_codes.append(c)
            time_limit = parsed[codes]
            if bad_codes:
                bad = np.isin(codes, bad_codes)
                self.bad_value(rows[bad & kept], "Timelimit", "is not a Slurm time limit (> 0)")
        nodes_for_split = np.maximum(np.where(req_nodes > 0, req_nodes, nnodes), 1)
        mem_cpu, mem_node = self._memory(rows, kept, nodes_for_split)
        gpus, gpu_type = self._gpus(rows, kept, nodes_for_split)
        # The verdict: problems first (raise the earliest, or drop), then the rule-based skips.
        if self.problems and self.on_invalid == "raise":
            row = min(self.problems)
            p = self.problems[row]
            raise InvalidWorkloadError(
                p.message,
                path=self.path,
                line=int(self.lines[row]),
                job_id=self.text("JobID", row) or None,
                field=p.field,
                value=p.value,
            )
        bad_rows = np.zeros(n, dtype=bool)
        bad_rows[list(self.problems)] = True
        records = list(self.dropped)
        for row, p in self.problems.items():
            records.append((int(self.lines[row]), self._dropped(p.reason, row)))
        for mask, reason in (
            (pending_array & ~bad_rows, "pending array"),
            (cancelled_before & ~bad_rows, "cancelled before start"),
            (not_ended & ~bad_rows, "not ended"),
        ):
            for row in np.flatnonzero(mask).tolist():
                records.append((int(self.lines[row]), self._dropped(reason, row)))
        records.sort(key=lambda x: x[0])
        keep = kept & ~bad_rows
        idx = np.flatnonzero(keep)
        if len(idx) == 0:
            raise InvalidWorkloadError(
                f"has no job that ran ({len(records)} line(s) skipped: "
                f"{', '.join(sorted({d.reason for _, d in records})) or 'none'})",
                path=self.path,
            )
        origin = float(np.min(submit[idx]))
        n_steps = int(steps.sum())
        # Ids: JobIDRaw, else the JobID when every kept one is a plain number, else 1..n.
        if self.has("JobIDRaw"):
            raw, raw_ok = _whole(*self.matrix("JobIDRaw", idx))
            if not raw_ok.all():
                i = int(idx[np.argmax(~raw_ok)])
                self._raise_or_note(i, "JobIDRaw", "is not a whole number")
            job_id = raw
        elif not array_id[idx].any():
            job_id = number[idx]
        else:
            job_id = np.arange(1, len(idx) + 1, dtype=np.int64)
        labels = np.char.decode(keys[idx], "utf-8", "replace").astype(object)
        procs = ncpus[idx]
        requested = np.where(req_cpus[idx] > 0, req_cpus[idx], procs)
        per_cpu = mem_cpu[idx]
        per_node = mem_node[idx]
        node_count = nodes_for_split[idx]
        width = np.where(procs > 0, procs, requested)
        mem_kb = np.where(
            per_cpu >= 0,
            per_cpu * 1024.0,
            np.where(per_node > 0, per_node * 1024.0 * node_count / np.maximum(width, 1), -1.0),
        )
        limit = time_limit[idx]
        metadata = {
            "UnixStartTime": str(int(origin)),
            "TimeZoneString": "UTC",
            "Note": "read from a sacct dump by clustersched.slurm.read_sacct; dates read as UTC",
            "SacctSteps": str(n_steps),
        }
        columns = {
            "job_id": job_id,
            "submit": submit[idx] - origin,
            "wait": start[idx] - submit[idx],
            "runtime": elapsed[idx],
            "procs": procs,
            "procs_requested": requested,
            "time_requested": np.where(np.isfinite(limit), limit, -1.0),
            "mem_requested": mem_kb,
            "status": status[idx],
        }
        for name, swf in (("User", "user_id"), ("Group", "group_id"), ("QOS", "queue"), ("Partition", "partition")):
            if self.has(name):
                codes, values = self.categories(name, idx)
                # Codes 1.. skip the empty name, so each name's code is its rank among the names that exist.
                names = [v for v in values if v]
                dense = np.full(len(values), -1, dtype=np.int64)
                dense[[i for i, v in enumerate(values) if v]] = np.arange(1, len(names) + 1)
                columns[swf] = dense[codes]
                key = {"User": "Users", "Group": "Groups", "QOS": "Queues", "Partition": "Partitions"}[name]
                metadata[key] = ", ".join(f"{i}: {v}" for i, v in enumerate(names, start=1))
        if self.has("Cluster"):
            _, clusters = self.categories("Cluster", idx)
            metadata["Computer"] = ", ".join(c for c in clusters if c)
        tasks = np.where(ntasks[idx] > 0, ntasks[idx], requested)
        cpus_per_task = np.where(
            (ntasks[idx] > 0) & (requested % np.maximum(ntasks[idx], 1) == 0),
            requested // np.maximum(ntasks[idx], 1),
            1,
        )
        requests = {
            "nodes": np.maximum(np.where(req_nodes[idx] > 0, req_nodes[idx], nnodes[idx]), 0),
            "tasks": np.maximum(tasks, 1),
            "cpus_per_task": np.maximum(cpus_per_task, 1),
            "mem_per_cpu_mb": per_cpu,
            "mem_per_node_mb": per_node,
            "gpus_per_node": gpus[idx],
            "gpu_type": gpu_type[idx],
            "time_limit": np.where(limit > 0, limit, -1.0),
            "label": labels,
        }
        for name, column in (("Partition", "partition"), ("Account", "account"), ("User", "user"), ("QOS", "qos")):
            if self.has(name):
                codes, values = self.categories(name, idx)
                requests[column] = np.array(values + [""], dtype=object)[codes]
        if self.has("Constraints"):
            codes, values = self.categories("Constraints", idx)
            requests["features"] = np.array(values + [""], dtype=object)[codes]
        return JobTable(
            columns,
            metadata=metadata,
            source=self.path,
            dropped=[d for _, d in records],
            requests=Requests(requests),
        )

    def _dropped(self, reason: str, row: int) -> Dropped:
        label = self.text("JobID", row)
        job = int(label) if label.isdigit() else None
        return Dropped(reason, job_id=job, line=int(self.lines[row]), label=None if job is not None else label)

    def _raise_or_note(self, row: int, name: str, what: str) -> None:
        raise InvalidWorkloadError(
            f"{name} == {self.text(name, row)!r} {what}",
            path=self.path,
            line=int(self.lines[row]),
            job_id=self.text("JobID", row),
            field=name,
            value=self.text(name, row),
        )

    def _memory(self, rows: np.ndarray, kept: np.ndarray, nodes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(MB per CPU, MB per node), -1 where not asked, from ReqMem, else ReqTRES's mem=."""
        n = len(rows)
        per_cpu, per_node = np.full(n, -1.0), np.full(n, -1.0)
        if self.has("ReqMem"):
            codes, values = self.categories("ReqMem")
            amount = np.full(len(values) + 1, -1.0)
            kind = np.full(len(values) + 1, "", dtype=object)
            bad_codes = []
            for c, v in enumerate(values):
                if not v.strip():
                    continue
                m = _MEM.fullmatch(v.strip())
                if m is None:
                    bad_codes.append(c)
                    continue
                amount[c] = float(m.group(1)) * _MEM_SCALE[m.group(2)]
                kind[c] = m.group(3) or "total"
            if bad_codes:
                bad = np.isin(codes, bad_codes) & kept
                self.bad_value(rows[bad], "ReqMem", "is not a memory size (2800Mc, 500000Mn, 4G)")
            a, k = amount[codes], kind[codes]
            per_cpu = np.where(k == "c", a, -1.0)
            per_node = np.where(k == "n", a, np.where(k == "total", a / nodes, -1.0))
            return per_cpu, per_node
        tres = self._tres(rows, kept)
        if tres is not None:
            total = np.array([_tres_memory(d) for d in tres[1]] + [-1.0])[tres[0]]
            per_node = np.where(total >= 0, total / nodes, -1.0)
        return per_cpu, per_node

    def _tres(self, rows: np.ndarray, kept: np.ndarray) -> tuple[np.ndarray, list[dict[str, str]]] | None:
        name = "ReqTRES" if self.has("ReqTRES") else "AllocTRES" if self.has("AllocTRES") else None
        if name is None:
            return None
        codes, values = self.categories(name)
        parsed: list[dict[str, str]] = []
        bad_codes = []
        for c, v in enumerate(values):
            items: dict[str, str] = {}
            for item in v.split(","):
                if not item.strip():
                    continue
                key, eq, value = item.partition("=")
                if not eq:
                    bad_codes.append(c)
                    break
                items[key.strip()] = value.strip()
            parsed.append(items)
        if bad_codes:
            self.bad_value(rows[np.isin(codes, bad_codes) & kept], name, "is not a TRES list (cpu=4,mem=8G,...)")
        return codes, parsed

    def _gpus(self, rows: np.ndarray, kept: np.ndarray, nodes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(GPUs per node, GPU type) from ReqGRES (per node), else ReqTRES's gres/gpu (per job)."""
        n = len(rows)
        count, kind = np.zeros(n, dtype=np.int64), np.full(n, "", dtype=object)
        if self.has("ReqGRES"):
            codes, values = self.categories("ReqGRES")
            per = np.zeros(len(values) + 1, dtype=np.int64)
            types = [""] * (len(values) + 1)
            bad_codes = []
            for c, v in enumerate(values):
                try:
                    per[c], types[c] = _gres_gpus(v)
                except ValueError:
                    bad_codes.append(c)
            if bad_codes:
                self.bad_value(rows[np.isin(codes, bad_codes) & kept], "ReqGRES", "is not a GRES list (gpu:2)")
            return per[codes], np.array(types, dtype=object)[codes]
        tres = self._tres(rows, kept)
        if tres is not None:
            totals = []
            tres_types = []
            for items in tres[1]:
                total, gpu_type = 0, ""
                for key, value in items.items():
                    if key == "gres/gpu" or key.startswith("gres/gpu:"):
                        number = _count(value)
                        if key == "gres/gpu":
                            total = max(total, number)
                        else:
                            gpu_type = key.split(":", 1)[1]
                            total = max(total, number)
                totals.append(total)
                tres_types.append(gpu_type)
            total = np.array(totals + [0], dtype=np.int64)[tres[0]]
            count = -(-total // nodes)
            kind = np.array(tres_types + [""], dtype=object)[tres[0]]
        return count, kind


def _whole(mat: np.ndarray, lengths: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each row of a byte matrix as a whole number (at most 18 digits) and whether it is one."""
    width = mat.shape[1]
    pos = np.arange(width)
    inside = pos < lengths[:, None]
    d = mat.astype(np.int64) - 48
    ok = (((d >= 0) & (d <= 9)) | ~inside).all(1) & (lengths > 0) & (lengths <= 18)
    exponent = np.clip(lengths[:, None] - 1 - pos, 0, 18)
    value = (np.where(inside & ok[:, None], d, 0) * (np.int64(10) ** exponent)).sum(1)
    return value, ok


def _count(text: str) -> int:
    match = re.fullmatch(r"([0-9]+)([KMG]?)", text.strip())
    if match is None:
        return 0
    return int(match.group(1)) * {"": 1, "K": 1024, "M": 1024**2, "G": 1024**3}[match.group(2)]


def _tres_memory(items: dict[str, str]) -> float:
    value = items.get("mem")
    if value is None:
        return -1.0
    match = _MEM.fullmatch(value)
    if match is None or match.group(3):
        return -1.0
    return float(match.group(1)) * _MEM_SCALE[match.group(2)]


def _gres_gpus(text: str) -> tuple[int, str]:
    """GPUs per node and their type in a ReqGRES value (``gpu:2``, ``gpu:tesla:2``, ``gres:gpu:2``)."""
    count, kind = 0, ""
    for item in text.split(","):
        item = re.sub(r"\(.*\)$", "", item.strip())
        if not item:
            continue
        parts = item.split(":")
        if parts[0] == "gres":  # some versions write gres:gpu:2
            parts = parts[1:]
        if not parts or not all(parts) or len(parts) > 3:
            raise ValueError(text)
        if parts[0] != "gpu":
            continue
        number = 1
        if len(parts) > 1 and re.fullmatch(r"[0-9]+[KMG]?", parts[-1]):
            number = _count(parts[-1])
            parts = parts[:-1]
        elif len(parts) == 3:
            raise ValueError(text)
        count += number
        if len(parts) == 2:
            kind = parts[1]
    return count, kind
