"""The exception hierarchy of clustersched.

Every error a user can cause derives from :class:`ClusterschedError`, so
``except clustersched.ClusterschedError`` catches all of them.  Errors raised
inside the Rust core are mapped onto these same classes by ``clustersched._core``
(the compiled module re-uses the classes defined here), so a user never sees a
Rust panic message.

Bad *arguments* (a negative seed, an unknown policy name) raise the standard
``ValueError``/``TypeError`` with the argument's name, value and rule; bad
*data* (a malformed trace line, an infeasible schedule) raise the classes below,
which say where the problem is.

One error address: an error about one job names it by ``row`` (its 0-based
position in the table or arrays given) and ``job_id`` (its identifier in the
input), each with one meaning.  The Rust core knows rows and returns its errors
as data (the item, the field, the value, the rule with its bounds);
:func:`_from_core` words every one of them here, and :func:`naming_jobs` adds
the job's id where the caller knows the table.
"""

from __future__ import annotations

import contextlib
import math
import re
from collections.abc import Iterator, Sequence

__all__ = [
    "ClusterschedError",
    "InvalidWorkloadError",
    "InvalidGraphError",
    "InvalidPlatformError",
    "InvalidScheduleError",
    "InfeasibleError",
    "InvalidOptionError",
    "LimitError",
    "StoreError",
    "naming_jobs",
    "naming_nodes",
]


def _plain(x: object) -> object:
    """A numpy scalar as the Python number it holds (ids show as ``17``, not ``np.int64(17)``)."""
    item = getattr(x, "item", None)
    return item() if callable(item) else x


class ClusterschedError(Exception):
    """Base class of every error clustersched raises about user data."""


def _word(field: str, text: str) -> bool:
    """Whether ``text`` names ``field`` (as a word, in any case)."""
    return re.search(rf"(?<![A-Za-z0-9_]){re.escape(field)}(?![A-Za-z0-9_])", text, re.IGNORECASE) is not None


def _job_address(row: int | None, job_id: object) -> str | None:
    """``"job 17 (row 3)"``, ``"job 17"``, ``"row 3"`` or None."""
    if job_id is not None:
        return f"job {job_id}" + (f" (row {row})" if row is not None else "")
    return None if row is None else f"row {row}"


class InvalidWorkloadError(ClusterschedError, ValueError):
    """A workload (trace file, job table, task graph) is malformed.

    Attributes
    ----------
    path, line :
        The file and its 1-based line (as in an editor), when known.
    row : int
        The job's 0-based position in the table or arrays given (its row).
    job_id : object
        The job's identifier in the input (the SWF job number,
        ``JobTable.job_id``, a Batsim id).  An error the Rust core raises
        carries the row; the Python layer adds the id once, where it knows
        the table.  Each is ``None`` when unknown, and never holds the other.
    ptg, task :
        A PTG's 0-based position in its set, and a task's 0-based id within
        its PTG.
    field, value :
        The column or attribute concerned and its value.  The message names
        the field once.
    detail : str
        The message without the prefix naming the path, line, job and PTG.
    """

    def __init__(
        self,
        message: str,
        *,
        path: str | None = None,
        line: int | None = None,
        field: str | None = None,
        row: int | None = None,
        job_id: object = None,
        ptg: int | None = None,
        task: int | None = None,
        value: object = None,
    ) -> None:
        super().__init__(message)
        self.path = path
        self.line = line
        self.field = field
        self.row = row
        self.job_id = job_id
        self.ptg = ptg
        self.task = task
        self.value = value
        self.detail = message  # the message without the "where" prefix, for re-raising with more context
        self._set_message()

    def _where(self) -> list[str]:
        where = []
        if self.path is not None:
            where.append(f"{self.path}" + (f":{self.line}" if self.line is not None else ""))
        elif self.line is not None:
            where.append(f"line {self.line}")
        job = _job_address(self.row, self.job_id)
        if job is not None:
            where.append(job)
        if self.ptg is not None:
            where.append(f"PTG {self.ptg}")
        if self.task is not None:
            where.append(f"task {self.task}")
        return where

    def _set_message(self) -> None:
        where = self._where()
        if self.field is not None and not _word(self.field, self.detail):
            where.append(f"field {self.field!r}")
        prefix = ", ".join(where)
        self.args = (f"{prefix}: {self.detail}" if prefix else self.detail,)

    def _name_job(self, job_ids: Sequence[object]) -> None:
        """Fills :attr:`job_id` from :attr:`row` (once) with the table's ids."""
        if self.job_id is None and self.row is not None and 0 <= self.row < len(job_ids):
            self.job_id = _plain(job_ids[self.row])
            self._set_message()


class InvalidGraphError(InvalidWorkloadError):
    """A graph model (a task interaction graph, a grid of LANs) has a bad node, edge or value.

    Attributes
    ----------
    node : object
        The label of the offending node (task or LAN), when the problem is one node's.
    row : int
        The node's 0-based position in the arrays given, when the Rust core
        raised the error (the Python layer adds the label from it).
    edge : tuple
        The two labels of the offending edge (communication or link), when it is one edge's.
    field, value :
        The attribute concerned (``"mcr"``, ``"mbr"``, ``"bandwidth"``, ...) and its value.
    """

    def __init__(
        self,
        message: str,
        *,
        node: object = None,
        edge: tuple[object, object] | None = None,
        field: str | None = None,
        value: object = None,
        row: int | None = None,
        kind: str | None = None,
    ) -> None:
        self.node = node
        self.edge = edge
        self.kind = kind  # "task" or "LAN" when the message's prefix names the node
        super().__init__(message, field=field, value=value, row=row)

    def _set_message(self) -> None:
        if self.kind is None:
            self.args = (self.detail,)  # a message raised in Python names its node, edge and field itself
        else:
            super()._set_message()

    def _where(self) -> list[str]:
        if self.node is not None:
            return [f"{self.kind} {self.node!r}" + (f" (row {self.row})" if self.row is not None else "")]
        return [f"{self.kind} at row {self.row}"]

    def _name_job(self, job_ids: Sequence[object]) -> None:
        pass  # a graph's rows are its nodes', not jobs'

    def _name_node(self, labels: Sequence[object]) -> None:
        """Fills :attr:`node` from :attr:`row` (once) with the graph's labels."""
        if self.node is None and self.row is not None and 0 <= self.row < len(labels):
            self.node = _plain(labels[self.row])
            self._set_message()


class InvalidPlatformError(ClusterschedError, ValueError):
    """A platform (nodes and partitions, a ``slurm.conf``, a host list) is malformed.

    Attributes
    ----------
    path, line :
        The file and its 1-based line (as in an editor), when the platform was read from one.
    node, partition :
        The node's or partition's name, when the problem is one node's or one partition's.
    field, value :
        The key or attribute concerned (``"RealMemory"``, ``"Nodes"``, ``"cores"``) and its value.
    detail : str
        The message without the prefix naming the path, line, node and partition.

    Examples
    --------
    >>> str(InvalidPlatformError("must be >= 1", path="slurm.conf", line=3, node="n1", field="CPUs", value="0"))
    "slurm.conf:3, node 'n1', field 'CPUs': must be >= 1"
    """

    def __init__(
        self,
        message: str,
        *,
        path: str | None = None,
        line: int | None = None,
        node: str | None = None,
        partition: str | None = None,
        field: str | None = None,
        value: object = None,
    ) -> None:
        super().__init__(message)
        self.path = path
        self.line = line
        self.node = node
        self.partition = partition
        self.field = field
        self.value = value
        self.detail = message
        where = []
        if path is not None:
            where.append(f"{path}" + (f":{line}" if line is not None else ""))
        elif line is not None:
            where.append(f"line {line}")
        if node is not None:
            where.append(f"node {node!r}")
        if partition is not None:
            where.append(f"partition {partition!r}")
        if field is not None and not _word(field, message):
            where.append(f"field {field!r}")
        prefix = ", ".join(where)
        self.args = (f"{prefix}: {message}" if prefix else message,)


class InvalidScheduleError(ClusterschedError):
    """A schedule violates a feasibility rule (found by ``clustersched.validate``).

    Attributes
    ----------
    violations : list of str
        Every violation found (the message shows the first few).
    """

    def __init__(self, violations: list[str]) -> None:
        self.violations = list(violations)
        shown = "\n  ".join(self.violations[:10])
        more = len(self.violations) - 10
        tail = f"\n  ... and {more} more" if more > 0 else ""
        super().__init__(f"{len(self.violations)} violation(s):\n  {shown}{tail}")


class InfeasibleError(ClusterschedError):
    """A scheduling problem has no solution as posed (e.g. a job wider than the machine).

    Attributes
    ----------
    row, job_id :
        The job concerned, when the error is one job's (a policy asking to
        start a job that cannot start): its 0-based row and its identifier,
        as for :class:`InvalidWorkloadError`; ``None`` otherwise.
    detail : str
        The message without the job's address.
    """

    def __init__(self, message: str, *, row: int | None = None, job_id: object = None) -> None:
        super().__init__(message)
        self.row = row
        self.job_id = job_id
        self.detail = message
        self._set_message()

    def _set_message(self) -> None:
        job = _job_address(self.row, self.job_id)
        self.args = (f"{job}: {self.detail}" if job is not None else self.detail,)

    def _name_job(self, job_ids: Sequence[object]) -> None:
        if self.job_id is None and self.row is not None and 0 <= self.row < len(job_ids):
            self.job_id = _plain(job_ids[self.row])
            self._set_message()


class LimitError(ClusterschedError, ValueError):
    """A value goes beyond a documented limit of clustersched (a size, a number of events).

    The value itself may be fine (a period of 1 ms, a million nodes), but the
    work or memory it asks for exceeds what the library bounds up front, so it
    is refused before the work starts; the message names the value, the
    limit and where the limit is defined.  A ``ValueError``, as every bad
    argument is.

    Attributes
    ----------
    name : str
        The argument or quantity (``"period"``, ``"nodes"``, ``"periodic events"``).
    value : object
        Its value.
    limit : object
        The limit it goes beyond.
    """

    def __init__(self, message: str, *, name: str, value: object, limit: object) -> None:
        self.name = name
        self.value = value
        self.limit = limit
        super().__init__(message)


class InvalidOptionError(ClusterschedError, ValueError):
    """A command-line option (or argument) names a file that cannot be used as asked.

    A trace that does not exist or is a directory, an output in a missing
    folder or one that would overwrite the input, a folder without traces.
    The ``clustersched`` command prints the message on one line and exits
    with status 2.

    Attributes
    ----------
    option : str
        The option as typed (``"--out"``) or the argument's name (``"TRACE"``).
    value : object
        Its value.
    """

    def __init__(self, option: str, value: object, message: str) -> None:
        self.option = option
        self.value = value
        super().__init__(f"{option} {value!r}: {message}")


class StoreError(ClusterschedError):
    """A campaign's results store (an SQLite file) cannot be used as one.

    The file is not an SQLite database, is a damaged one, is another
    program's database, or cannot be written (a full disk, a read-only
    file).  Whatever was wrong, the file is left as it was found: nothing is
    created in it, repaired or overwritten.  The ``clustersched`` command
    prints the message on one line and exits with status 2.

    Attributes
    ----------
    path : str
        The store's file.
    detail : str
        What is wrong, without the path.
    """

    def __init__(self, path: str, detail: str) -> None:
        self.path = path
        self.detail = detail
        super().__init__(f"{path}: {detail}")


@contextlib.contextmanager
def naming_jobs(job_ids: Sequence[object]) -> Iterator[None]:
    """Adds the job's id to an error that names a job by its row.

    Wrap a call that gets the arrays of a table whose ids are ``job_ids``:
    an :class:`InvalidWorkloadError` or :class:`InfeasibleError` raised in
    it with :attr:`~InvalidWorkloadError.row` set gets its
    :attr:`~InvalidWorkloadError.job_id` (``job_ids[row]``), once.
    """
    try:
        yield
    except (InvalidWorkloadError, InfeasibleError) as e:
        e._name_job(job_ids)
        raise


@contextlib.contextmanager
def naming_nodes(labels: Sequence[object]) -> Iterator[None]:
    """Adds the node's label to an :class:`InvalidGraphError` that names a node by its row."""
    try:
        yield
    except InvalidGraphError as e:
        e._name_node(labels)
        raise


# --- The core's errors, worded: the one place their messages are written. ---


def _bound(x: object) -> str:
    """A bound as a reader writes it: ``4``, ``0``, ``0.5``, ``1e+300``."""
    if isinstance(x, float) and math.isfinite(x) and x.is_integer() and abs(x) < 1e16:
        return str(int(x))
    return repr(x)


def rule_words(rule: tuple[object, ...], note: str | None = None) -> str:
    """The words of a rule the core gives as data (``("between", 1, 4)`` -> ``"must be between 1 and 4"``)."""
    kind, *bounds = rule
    b = [_bound(x) for x in bounds]
    finite = "finite and " if bounds and isinstance(bounds[0], float) else ""
    if kind == "between":
        words = f"must be between {b[0]} and {b[1]}"
    elif kind == "at_least":
        words = f"must be {finite}>= {b[0]}"
    elif kind == "above":
        words = f"must be {finite}> {b[0]}"
    elif kind == "at_most":
        words = f"must be <= {b[0]}"
    elif kind == "above_up_to":
        words = f"must be finite, > {b[0]} and <= {b[1]}"
    elif kind == "at_least_up_to":
        words = f"must be finite, >= {b[0]} and <= {b[1]}"
    elif kind == "finite":
        words = "must be finite"
    elif kind == "at_least_of":
        words = f"must be finite and >= {bounds[0]} ({_bound(bounds[1])})"
    else:  # "other": a rule without bounds, already in words
        words = str(bounds[0])
    return f"{words} ({note})" if note else words


_REFUSALS = {
    "missing": "it does not exist",
    "started": "it has already started",
    "not_submitted": "it has not been submitted yet",
    "no_room": "no nodes of its partition have the cores, memory and GPUs it asks free",
}


def _from_core(
    kind: str,
    *,
    row: int | None = None,
    ptg: int | None = None,
    task: int | None = None,
    node_kind: str | None = None,
    field: str | None = None,
    value: object = None,
    rule: tuple[object, ...] = ("other", ""),
    note: str | None = None,
    time: float = 0.0,
    why: str = "",
    needs: int = 0,
    free: int = 0,
) -> ClusterschedError:
    """The exception for an error of the Rust core, given as data (``rust/py/src/errors.rs``)."""
    if kind == "cannot_start":
        reason = f"it needs {needs} processors, {free} are free" if why == "too_wide" else _REFUSALS[why]
        return InfeasibleError(f"cannot start at time {_bound(time)}: {reason}", row=row)
    words = rule_words(rule, note)
    detail = f"{field} == {value!r}, {words}" if field is not None and value is not None else words
    if node_kind is not None:
        return InvalidGraphError(detail, kind=node_kind, row=row, field=field, value=value)
    return InvalidWorkloadError(detail, row=row, ptg=ptg, task=task, field=field, value=value)


def cannot_start(row: int, time: float, why: str) -> InfeasibleError:
    """The error of a policy starting row ``row`` at ``time`` when it cannot (``why`` as the core's)."""
    err = _from_core("cannot_start", row=row, time=time, why=why)
    assert isinstance(err, InfeasibleError)
    return err
