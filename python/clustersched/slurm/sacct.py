"""Reading Slurm accounting dumps (``sacct -P`` / ``--parsable2``) as a JobTable with its Requests.

A dump is a header line naming the columns and one ``|``-separated line per
job or job step, as ``sacct -P -o JobID,Submit,...`` writes it (the fields of
Slurm 17.11's sacct man page; where a later version writes a field otherwise,
it is said below).  The columns may come in any order; unknown columns are
ignored.  The Rust core scans the dump in one pass
(``rust/core/src/workload/sacct.rs``: fields, dates, times, numbers, job
ids, and each text column as codes of its distinct values); the rules below
are applied here on those arrays (``benches/bench_sacct.py`` reads a
1,000,000-line dump).

Columns
-------
Required: ``JobID``, ``Submit``, ``Start``, ``End``, ``State``, and ``NCPUS``
(or its old name ``AllocCPUS``).  Used when present: ``JobIDRaw``, ``Elapsed``
(else ``End - Start``), ``Timelimit``, ``NNodes``, ``ReqNodes``, ``ReqCPUS``,
``ReqMem``, ``ReqGRES``, ``ReqTRES``, ``AllocTRES``, ``NTasks``,
``Partition``, ``Account``, ``User``, ``Group``, ``QOS``, ``Cluster``,
``Constraints``, ``Eligible``, ``Priority``, ``JobName``.  A missing required
column is an error naming it.

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
* The table declares Slurm's time-limit kill (``metadata["TimeLimit"] ==
  "kill"``, :mod:`clustersched.workload.timelimit`): a replay ends a job at
  its Timelimit (the run time it had is kept in ``runtime``; a TIMEOUT job's
  Elapsed is its limit plus the seconds Slurm took to kill it, so a replay
  ends it a little earlier than it really ended).

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
  ``Unknown``, ``None`` or empty is "unknown".  End before Start, Start
  before Submit, or Eligible before Submit, is an error (or a drop).
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
JobID as written, and, when the dump has them, ``eligible`` (Eligible, in
seconds on the clock of ``submit``: from the earliest kept submit; -1 where
Unknown), ``priority`` (Priority, a whole number; -1 where blank) and
``job_name`` (JobName).
"""

from __future__ import annotations

import os
import re
import zlib
from collections.abc import Callable
from typing import Literal, NamedTuple

import numpy as np

from .. import _core
from .._checks import check_choice
from ..errors import InvalidWorkloadError
from ..workload.jobs import Dropped, JobTable
from ..workload.requests import Requests

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
    "ReqTRES AllocTRES NTasks Partition Account User Group QOS Cluster Constraints NodeList Priority JobName"
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


# Kinds of column for the core's scanner (rust/core/src/workload/sacct.rs, Kind::from_code).
_TEXT, _DATE, _DURATION, _WHOLE, _JOBID, _SPAN = range(6)
_KINDS = {
    "JobIDRaw": _WHOLE,
    "Submit": _DATE,
    "Eligible": _DATE,
    "Start": _DATE,
    "End": _DATE,
    "Elapsed": _DURATION,
    "Timelimit": _DURATION,
    "State": _TEXT,
    "NNodes": _WHOLE,
    "ReqNodes": _WHOLE,
    "NCPUS": _WHOLE,
    "ReqCPUS": _WHOLE,
    "NTasks": _WHOLE,
    "ReqMem": _TEXT,
    "ReqGRES": _TEXT,
    "ReqTRES": _TEXT,
    "AllocTRES": _TEXT,
    "Partition": _TEXT,
    "Account": _TEXT,
    "User": _TEXT,
    "Group": _TEXT,
    "QOS": _TEXT,
    "Cluster": _TEXT,
    "Constraints": _TEXT,
    "NodeList": _TEXT,
    "Priority": _WHOLE,
    # Often one name per job: taken as written, row by row, rather than as codes of a million distinct values
    # (hashing them cost more than the strings).
    "JobName": _SPAN,
}


class _Reader:
    """One dump being read: its bytes, the scanned columns, the problems found per row."""

    def __init__(self, data: bytes, path: str, on_invalid: str) -> None:
        self.path = path
        self.on_invalid = on_invalid
        if data.startswith(b"\xef\xbb\xbf"):
            data = b"   " + data[3:]  # a byte order mark, blanked so that offsets stay those of the file
        self.data = data
        self.problems: dict[int, _Problem] = {}  # row -> its first problem
        self.dropped: list[tuple[int, Dropped]] = []  # (line, record) of lines that are no row
        self._line_starts: np.ndarray | None = None

    # -- the header and the scan -----------------------------------------------------------------
    def _scan(self) -> None:
        data = self.data
        pos, line = 0, 1
        while pos < len(data):
            end = data.find(b"\n", pos)
            end = len(data) if end < 0 else end
            if data[pos:end].strip():
                break
            pos, line = end + 1, line + 1
        else:
            raise InvalidWorkloadError("is empty: no header line (sacct -P writes one; do not pass -n)", path=self.path)
        header_text = data[pos:end].decode("utf-8", "replace").strip()
        names = header_text.split("|")
        self.header_line = line
        canon = [_ALIASES.get(n.strip().lower(), _CANON.get(n.strip().lower(), n.strip())) for n in names]
        missing = [c for c in SACCT_REQUIRED if c not in canon]
        if missing:
            raise InvalidWorkloadError(
                f"the header has no column {missing[0]} (sacct -P -o {','.join(SACCT_REQUIRED)},...); "
                f"it names {', '.join(names)}",
                path=self.path,
                line=line,
                field=missing[0],
            )
        self.index = {name: k for k, name in enumerate(canon) if name not in canon[:k]}
        self.ncols = len(names)
        wanted = [("JobID", _JOBID), ("JobID", _SPAN)]
        wanted += [(name, kind) for name, kind in _KINDS.items() if name in self.index]
        lines, bad_lines, parsed = _core.scan_sacct(
            data, end + 1, line + 1, self.ncols, [(self.index[name], kind) for name, kind in wanted]
        )
        self.lines = lines.astype(np.int64)
        self.n = len(self.lines)
        self.cols: dict[tuple[str, int], tuple] = {key: value for key, value in zip(wanted, parsed)}
        self.header_text = header_text
        self.ignored = np.zeros(self.n, dtype=bool)  # rows that are no job line (a repeated header)
        for bad_line, fields, start, stop in bad_lines:
            text = data[start:stop].decode("utf-8", "replace").strip()
            if text == header_text:
                self.dropped.append((bad_line, Dropped("repeated header line", line=bad_line)))
                continue
            label = text.split("|", 1)[0].strip() or None
            if self.on_invalid == "raise":
                raise InvalidWorkloadError(
                    f"has {fields} fields, the header {self.ncols}", path=self.path, line=bad_line, job_id=label
                )
            self.dropped.append((bad_line, Dropped("wrong number of fields", line=bad_line, label=label)))

    # -- columns -----------------------------------------------------------------------------------
    def has(self, name: str) -> bool:
        return name in self.index

    def field(self, name: str, row: int) -> str:
        """The text of column ``name`` in row ``row`` (for messages: the line is split again)."""
        if self._line_starts is None:
            buf = np.frombuffer(self.data, dtype=np.uint8)
            self._line_starts = np.concatenate(([0], np.flatnonzero(buf == 10) + 1))
        line = int(self.lines[row])
        start = int(self._line_starts[line - 1])
        stop = self.data.find(b"\n", start)
        text = self.data[start : len(self.data) if stop < 0 else stop].decode("utf-8", "replace").rstrip("\r")
        parts = text.split("|")
        k = self.index.get(name)
        return parts[k] if k is not None and k < len(parts) else ""

    def categories(self, name: str) -> tuple[np.ndarray, list[str]]:
        """Column ``name`` as codes 0.. (first appearance order) and the distinct values, decoded."""
        _, codes, values = self.cols[(name, _TEXT)]
        return codes.astype(np.int64), values

    def numbers(self, name: str, what: str) -> np.ndarray:
        """Column ``name`` parsed by the core (NaN where blank or unknown); bad values recorded."""
        _, values, bad = self.cols[(name, _KINDS[name])]
        if bad:
            self.bad_value(np.asarray(bad), name, what)
        return values

    def problem(self, rows: np.ndarray, make: Callable[[int], _Problem]) -> None:
        """Records a problem for each of ``rows`` that has none yet (the first only, in raise mode)."""
        for row in np.asarray(rows).tolist():
            if row not in self.problems:
                self.problems[row] = make(row)
                if self.on_invalid == "raise":
                    return  # the earliest row of all is raised at the end; one per check is enough to find it

    def bad_value(self, rows: np.ndarray, name: str, what: str) -> None:
        rows = np.asarray(rows)
        self.problem(
            rows[~self.ignored[rows]],
            lambda r: _Problem(f"{name} == {self.field(name, r)!r} {what}", f"bad {name}", name, self.field(name, r)),
        )

    def out_of_order(self, rows: np.ndarray, later: str, earlier: str) -> None:
        """Records "``later`` is before ``earlier``" for each of ``rows`` (dates that must not go back)."""
        self.problem(
            rows,
            lambda r: _Problem(
                f"{later} {self.field(later, r)} is before {earlier} {self.field(earlier, r)}",
                f"{later} before {earlier}",
                later,
                self.field(later, r),
            ),
        )

    # -- the table -----------------------------------------------------------------------------------
    def table(self) -> JobTable:
        self._scan()
        n = self.n
        rows = np.arange(n)
        _, id_kind, id_base, id_task, id_link = self.cols[("JobID", _JOBID)]
        label_values = self.cols[("JobID", _SPAN)][1]
        label_codes = np.arange(n)  # one label per row (labels[row] below reads label_values[row])
        # A header repeated (dumps concatenated) has as many fields as a job line: it is no row.
        name = self.header_text.split("|")[self.index["JobID"]].strip()
        for row in np.flatnonzero(id_kind == 4).tolist():
            if label_values[row].strip() == name and self.field("State", row).strip().lower() == "state":
                self.ignored[row] = True
                line = int(self.lines[row])
                self.dropped.append((line, Dropped("repeated header line", line=line)))
        id_kind = np.where(self.ignored, 5, id_kind)
        steps = id_kind == 2
        pending_array = id_kind == 3
        bad_id = id_kind == 4
        jobs = id_kind <= 1
        self.bad_value(rows[bad_id], "JobID", "is not a job id (1234, 1234_7, 1234.batch, 1234_[1-3])")
        self.problem(
            rows[jobs & (id_link >= 0)],
            lambda r: _Problem(
                f"JobID {label_values[label_codes[r]]} was already given on line {self.lines[id_link[r]]}",
                "duplicate JobID",
                "JobID",
                label_values[label_codes[r]],
            ),
        )
        self.problem(
            rows[steps & (id_link < 0)],
            lambda r: _Problem(
                f"step {label_values[label_codes[r]]} has no job line before it",
                "step without its job",
                "JobID",
                label_values[label_codes[r]],
            ),
        )
        job_mask = jobs & (id_link < 0)
        # States.
        state_codes, state_values = self.categories("State")
        words = [v.split()[0].upper() if v.split() else "" for v in state_values]
        status_of = np.array([SACCT_STATES.get(w, -1) for w in words] + [-1], dtype=np.int64)
        not_ended_of = np.array([w in _NOT_ENDED for w in words] + [False])
        unknown_of = np.array([w not in SACCT_STATES and w not in _NOT_ENDED for w in words] + [False])
        cancelled_of = np.array([w == "CANCELLED" for w in words] + [False])
        status = status_of[state_codes]
        unknown_state = unknown_of[state_codes]
        self.problem(
            rows[job_mask & unknown_state],
            lambda r: _Problem(
                f"State == {state_values[state_codes[r]]!r} is not a Slurm job state "
                f"({', '.join(list(SACCT_STATES) + list(_NOT_ENDED))})",
                "unknown state",
                "State",
                state_values[state_codes[r]],
            ),
        )
        date_rule = "is not a date YYYY-MM-DDTHH:MM:SS (or Unknown)"
        submit = self.numbers("Submit", date_rule)
        start = self.numbers("Start", date_rule)
        end = self.numbers("End", date_rule)
        no_start = np.isnan(start)
        if self.has("NodeList"):
            codes, values = self.categories("NodeList")
            no_start |= np.array([v.strip() == "None assigned" for v in values] + [False])[codes]
        cancelled_before = job_mask & cancelled_of[state_codes] & no_start
        not_ended = job_mask & ~unknown_state & (not_ended_of[state_codes] | (np.isnan(end) & ~cancelled_before))
        kept = job_mask & ~cancelled_before & ~not_ended & ~unknown_state
        for name, values in (("Submit", submit), ("Start", start)):
            self.problem(
                rows[kept & np.isnan(values)],
                lambda r, w=name: _Problem(f"{w} is unknown for a job that ran", f"unknown {w}", w, self.field(w, r)),
            )
        with np.errstate(invalid="ignore"):
            self.out_of_order(rows[kept & (end < start)], "End", "Start")
            self.out_of_order(rows[kept & (start < submit)], "Start", "Submit")
        eligible = np.full(n, np.nan)
        if self.has("Eligible"):
            eligible = self.numbers("Eligible", date_rule)
            with np.errstate(invalid="ignore"):
                self.out_of_order(rows[kept & (eligible < submit)], "Eligible", "Submit")
        priority = _counts(self.numbers("Priority", "is not a whole number")) if self.has("Priority") else None
        if self.has("Elapsed"):
            elapsed = self.numbers("Elapsed", "is not a Slurm time ([D-]HH:MM:SS)").copy()
            blank = np.isnan(elapsed)
            elapsed[blank] = (end - start)[blank]
            self.bad_value(rows[kept & (np.isinf(elapsed) | (elapsed < 0))], "Elapsed", "is not a time elapsed")
        else:
            elapsed = end - start
        whole = "is not a whole number"
        ncpus = _counts(self.numbers("NCPUS", whole))
        req_cpus = _counts(self.numbers("ReqCPUS", whole)) if self.has("ReqCPUS") else ncpus
        nnodes = _counts(self.numbers("NNodes", whole)) if self.has("NNodes") else np.full(n, -1, dtype=np.int64)
        req_nodes = _counts(self.numbers("ReqNodes", whole)) if self.has("ReqNodes") else nnodes
        ntasks = _counts(self.numbers("NTasks", whole)) if self.has("NTasks") else np.full(n, -1, dtype=np.int64)
        self.problem(
            rows[kept & (ncpus < 1) & (req_cpus < 1)],
            lambda r: _Problem("the job has no CPU count (NCPUS and ReqCPUS)", "no CPU count", "NCPUS", None),
        )
        time_limit = np.full(n, -1.0)
        if self.has("Timelimit"):
            time_limit = self.numbers("Timelimit", "is not a Slurm time limit").copy()
            time_limit[np.isnan(time_limit)] = -1.0
            self.bad_value(rows[kept & (time_limit == 0)], "Timelimit", "is not a time limit (must be > 0)")
        nodes_for_split = np.maximum(np.where(req_nodes > 0, req_nodes, nnodes), 1)
        mem_cpu, mem_node = self._memory(rows, kept, nodes_for_split)
        gpus, gpu_type = self._gpus(rows, kept, nodes_for_split)
        if self.has("JobIDRaw"):
            _, raw, _ = self.cols[("JobIDRaw", _WHOLE)]  # a step's (1234.batch) is not a number, and need not be
            self.bad_value(rows[kept & np.isnan(raw)], "JobIDRaw", "is not a whole number")
        # The verdict: problems first (raise the earliest, or drop), then the rule-based skips.
        if self.problems and self.on_invalid == "raise":
            row = min(self.problems)
            p = self.problems[row]
            raise InvalidWorkloadError(
                p.message,
                path=self.path,
                line=int(self.lines[row]),
                job_id=label_values[label_codes[row]] or None,
                field=p.field,
                value=p.value,
            )
        bad_rows = np.zeros(n, dtype=bool)
        bad_rows[list(self.problems)] = True
        records = list(self.dropped)
        for row, p in self.problems.items():
            records.append((int(self.lines[row]), self._dropped(p.reason, label_values[label_codes[row]], row)))
        for mask, reason in (
            (pending_array & ~bad_rows, "pending array"),
            (cancelled_before & ~bad_rows, "cancelled before start"),
            (not_ended & ~bad_rows, "not ended"),
        ):
            # tens of thousands of lines in a big dump: their numbers and labels taken as lists at once
            skipped = np.flatnonzero(mask)
            for line, label in zip(self.lines[skipped].tolist(), [label_values[r] for r in skipped.tolist()]):
                job = int(label) if label.isdigit() else None
                records.append((line, Dropped(reason, job_id=job, line=line, label=None if job is not None else label)))
        records.sort(key=lambda x: x[0])
        idx = np.flatnonzero(kept & ~bad_rows)
        if len(idx) == 0:
            raise InvalidWorkloadError(
                f"has no job that ran ({len(records)} line(s) skipped: "
                f"{', '.join(sorted({d.reason for _, d in records})) or 'none'})",
                path=self.path,
            )
        origin = float(np.min(submit[idx]))
        # Ids: JobIDRaw, else the JobID when every kept one is a plain number, else 1..n.
        if self.has("JobIDRaw"):
            job_id = raw[idx].astype(np.int64)
        elif not (id_kind[idx] == 1).any():
            job_id = id_base[idx]
        else:
            job_id = np.arange(1, len(idx) + 1, dtype=np.int64)
        labels = np.array(label_values, dtype=object)[idx]
        procs = ncpus[idx]
        requested = np.where(req_cpus[idx] > 0, req_cpus[idx], procs)
        per_cpu, per_node, node_count = mem_cpu[idx], mem_node[idx], nodes_for_split[idx]
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
            "SacctSteps": str(int(steps.sum())),
            # Slurm ends a job at its time limit (state TIMEOUT): a replay does too (workload/timelimit.py)
            "TimeLimit": "kill",
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
        for name, swf, key in (
            ("User", "user_id", "Users"),
            ("Group", "group_id", "Groups"),
            ("QOS", "queue", "Queues"),
            ("Partition", "partition", "Partitions"),
        ):
            if self.has(name):
                codes, values = _dense(*self.categories(name), idx)
                names = [v for v in values if v]
                # Codes 1.. skip the empty name, so each name's code is its rank among the names that exist.
                number = np.full(len(values), -1, dtype=np.int64)
                number[[i for i, v in enumerate(values) if v]] = np.arange(1, len(names) + 1)
                columns[swf] = number[codes]
                metadata[key] = ", ".join(f"{i}: {v}" for i, v in enumerate(names, start=1))
        if self.has("Cluster"):
            _, clusters = _dense(*self.categories("Cluster"), idx)
            metadata["Computer"] = ", ".join(c for c in clusters if c)
        tasks = np.where(ntasks[idx] > 0, ntasks[idx], requested)
        divides = (ntasks[idx] > 0) & (requested % np.maximum(ntasks[idx], 1) == 0)
        requests = {
            "nodes": np.maximum(np.where(req_nodes[idx] > 0, req_nodes[idx], nnodes[idx]), 0),
            "tasks": np.maximum(tasks, 1),
            "cpus_per_task": np.maximum(np.where(divides, requested // np.maximum(ntasks[idx], 1), 1), 1),
            "mem_per_cpu_mb": per_cpu,
            "mem_per_node_mb": per_node,
            "gpus_per_node": gpus[idx],
            "gpu_type": gpu_type[idx],
            "time_limit": np.where(limit > 0, limit, -1.0),
            "label": labels,
            "eligible": np.where(np.isnan(eligible[idx]), -1.0, eligible[idx] - origin),
        }
        if priority is not None:
            requests["priority"] = priority[idx]
        if self.has("JobName"):
            requests["job_name"] = np.array(self.cols[("JobName", _SPAN)][1], dtype=object)[idx]
        for name, column in (
            ("Partition", "partition"),
            ("Account", "account"),
            ("User", "user"),
            ("QOS", "qos"),
            ("Constraints", "features"),
        ):
            if self.has(name):
                codes, values = self.categories(name)
                requests[column] = np.array(values + [""], dtype=object)[codes[idx]]
        return JobTable(
            columns,
            metadata=metadata,
            source=self.path,
            dropped=[d for _, d in records],
            requests=Requests(requests),
        )

    def _dropped(self, reason: str, label: str, row: int) -> Dropped:
        job = int(label) if label.isdigit() else None
        return Dropped(reason, job_id=job, line=int(self.lines[row]), label=None if job is not None else label)

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
            totals, tres_types = [], []
            for items in tres[1]:
                total, gpu_type = 0, ""
                for key, value in items.items():
                    if key == "gres/gpu" or key.startswith("gres/gpu:"):
                        total = max(total, _count(value))
                        if ":" in key:
                            gpu_type = key.split(":", 1)[1]
                totals.append(total)
                tres_types.append(gpu_type)
            total = np.array(totals + [0], dtype=np.int64)[tres[0]]
            count = -(-total // nodes)
            kind = np.array(tres_types + [""], dtype=object)[tres[0]]
        return count, kind


def _counts(values: np.ndarray) -> np.ndarray:
    """Whole numbers parsed as floats (NaN blank) as int64, -1 where blank."""
    return np.where(np.isnan(values), -1, values).astype(np.int64)


def _dense(codes: np.ndarray, values: list[str], idx: np.ndarray) -> tuple[np.ndarray, list[str]]:
    """The codes of rows ``idx`` renumbered 0.. in order of first appearance among them, and their values."""
    sub = codes[idx]
    present = np.flatnonzero(np.bincount(sub, minlength=len(values)))
    if len(present) <= 64:
        # A few names (users, partitions): each one's first row found by a scan, not by sorting every row.
        first = np.array([np.argmax(sub == k) for k in present.tolist()], dtype=np.int64)
    else:
        present, first = np.unique(sub, return_index=True)
    order = present[np.argsort(first, kind="stable")]
    rank = np.full(len(values), -1, dtype=np.int64)
    rank[order] = np.arange(len(order))
    return rank[sub], [values[k] for k in order.tolist()]


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
