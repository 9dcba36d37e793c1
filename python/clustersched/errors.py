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
"""

from __future__ import annotations

__all__ = [
    "ClusterschedError",
    "InvalidWorkloadError",
    "InvalidGraphError",
    "InvalidScheduleError",
    "InfeasibleError",
    "InvalidOptionError",
    "LimitError",
    "StoreError",
]


class ClusterschedError(Exception):
    """Base class of every error clustersched raises about user data."""


class InvalidWorkloadError(ClusterschedError, ValueError):
    """A workload (trace file, job table, task graph) is malformed.

    Attributes
    ----------
    path, line, field, job, ptg, task, value :
        Where the problem is, when known (``None`` otherwise).  ``line`` is
        1-based as in an editor; ``field`` is the SWF field name or column.
        ``job`` is the job's number in a trace or table with ids (SWF job
        number, ``JobTable.job_id``) when the error comes from reading or
        checking one, and its 0-based row when the Rust core raised it on the
        arrays it was given; ``ptg`` is the 0-based position of a PTG in its
        set and ``task`` a task's 0-based id within its PTG.
    detail : str
        The message without the prefix naming path, line, job and field.
    """

    def __init__(
        self,
        message: str,
        *,
        path: str | None = None,
        line: int | None = None,
        field: str | None = None,
        job: int | None = None,
        ptg: int | None = None,
        task: int | None = None,
        value: object = None,
    ) -> None:
        self.path = path
        self.line = line
        self.field = field
        self.job = job
        self.ptg = ptg
        self.task = task
        self.value = value
        self.detail = message  # the message without the "where" prefix, for re-raising with more context
        where = []
        if path is not None:
            where.append(f"{path}" + (f":{line}" if line is not None else ""))
        elif line is not None:
            where.append(f"line {line}")
        if job is not None:
            where.append(f"job {job}")
        if ptg is not None:
            where.append(f"PTG {ptg}")
        if task is not None:
            where.append(f"task {task}")
        if field is not None:
            where.append(f"field {field!r}")
        prefix = ", ".join(where)
        super().__init__(f"{prefix}: {message}" if prefix else message)


class InvalidGraphError(InvalidWorkloadError):
    """A graph model (a task interaction graph, a grid of LANs) has a bad node, edge or value.

    Attributes
    ----------
    node : object
        The label of the offending node (task or LAN), when the problem is one node's.
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
    ) -> None:
        super().__init__(message, value=value)
        self.node = node
        self.edge = edge
        self.field = field


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
    """A scheduling problem has no solution as posed (e.g. a job wider than the machine)."""


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
