"""Batsim workloads (JSON) in and out: :func:`read_batsim` and :func:`write_batsim`.

A Batsim workload is a JSON object with ``nb_res`` (the number of resources
it was made for), ``jobs`` (each with ``id``, ``subtime``, ``res``,
``profile`` and, optionally, ``walltime``) and ``profiles`` (each with a
``type``), see Batsim's documentation ("Workload").  clustersched's jobs
are rigid jobs of known run time, so it reads **delay profiles only**
(``"type": "delay"``, or ``"DelayProfile"`` as Batsim 5 spells it): the
job runs ``delay`` seconds.  A job whose profile is of any other type
(parallel tasks, sequences, traces) has no run time without a platform
simulation, and is refused with :class:`~clustersched.errors.InvalidWorkloadError`.

Fields, both ways (a :class:`~clustersched.workload.jobs.JobTable` column
in parentheses):

* ``nb_res`` <-> the ``MaxProcs`` metadata (the machine size);
* ``id`` <-> ``job_id`` (see "Job ids" below);
* ``subtime`` <-> ``submit``, seconds;
* ``res`` <-> ``procs_requested`` (``procs``, the allocated processors, stays
  -1: unknown until a schedule runs the job).  Written: the job's width,
  :meth:`JobTable.width() <clustersched.workload.jobs.JobTable.width>`;
* ``walltime`` <-> ``time_requested``; absent or -1 (no limit) reads as -1,
  unknown;
* the delay profile's ``delay`` <-> ``runtime``.

Other job fields (``extra_data``, ...) and profile fields (``ret``, ...)
are ignored; every other column of the table is -1.

Job ids.  Batsim ids are strings (``"1"``, ``"w0!1"``; integers are also
accepted).  When every id is a whole number, or text ending in one after an
optional ``workload!`` prefix (``"w0!17"`` -> 17), and those numbers are
distinct, they are the job numbers.  Otherwise (``"a"``, or ``"w0!1"`` and
``"w1!1"`` together) the jobs are numbered 1, 2, ... in file order, and the
table's metadata ``BatsimIds`` says so.

Semantics.  Batsim kills a job when it reaches its walltime, and so does
clustersched for the tables this reader makes: their metadata says
``TimeLimit: kill`` (:mod:`clustersched.workload.timelimit`), so the
simulator runs a job whose delay exceeds its walltime for its walltime and
marks it killed (``Schedule.killed``, the ``killed`` count of the metrics,
final state ``COMPLETED_WALLTIME_REACHED`` in the Batsim jobs CSV).  The
reader keeps the delay as the run time, even when it exceeds the walltime.
The writer, by default, writes ``walltime = max(requested time, run time)``,
the run time clustersched's simulator believes, the run time being the one
the table's rule gives: for a table without kills (an SWF trace) Batsim then
runs every job to its end as clustersched does, and a table that kills keeps
its walltimes (``walltime="requested"`` writes the request unchanged).

Limits.  Integers beyond what a field holds (``res`` or ``nb_res`` above
``2**32 - 1``, such as ``9223372036854775808``; a time beyond ``10**10``
s; an integer of thousands of digits) and JSON nested more than
:data:`MAX_DEPTH` levels deep are refused with
:class:`~clustersched.errors.InvalidWorkloadError` naming the file and the
value.
"""

from __future__ import annotations

import gzip
import json
import math
import os
import re
import sys
from typing import Any, TypeVar

import numpy as np

from .._checks import MAX_PROCS, check_choice
from ..errors import InvalidWorkloadError
from .jobs import JobTable
from .timelimit import KILL, TIME_LIMIT_KEY, time_limited

__all__ = ["DELAY_PROFILE_TYPES", "delay_profile_name", "read_batsim", "write_batsim"]

_P = TypeVar("_P", bound="str | os.PathLike[str]")

#: Profile types read as a delay (Batsim <= 4 and Batsim 5 spellings).
DELAY_PROFILE_TYPES = ("delay", "DelayProfile")

# An id that gives a job number: digits, after an optional "workload!" prefix.
_NUMBERED_ID = re.compile(r"(?:[^!]*!)?([0-9]+)")
# Beyond 2**53 an id could not survive a float column or a JSON reader.
_MAX_ID = 2**53
#: Deepest nesting of arrays and objects :func:`read_batsim` accepts (a workload needs 4: the
#: document, ``jobs``, a job, its ``extra_data``; the rest is room for users' own fields).
MAX_DEPTH = 64


def read_batsim(path: str | os.PathLike[str]) -> JobTable:
    """Read a Batsim workload (JSON, plain or gzip-compressed) of delay profiles as a JobTable.

    Parameters
    ----------
    path : str or os.PathLike
        The workload file.

    Returns
    -------
    JobTable
        One row per job, in file order, with ``MaxProcs`` from ``nb_res``
        (module docstring for every field and for job ids) and ``TimeLimit:
        kill``: a job is killed at its walltime, as Batsim does.

    Raises
    ------
    InvalidWorkloadError
        Naming the file, and the job (``jobs[i]`` and its id) or profile: when
        the file is not JSON (with the line), lacks ``nb_res``, ``jobs`` or
        ``profiles``, a job lacks ``id``, ``subtime``, ``res`` or ``profile``
        or has a bad value (negative or non-finite time, ``res`` not a
        positive integer, two jobs with one id), names a profile the file
        does not define, or uses a profile that is not a delay profile
        (only delay profiles are supported: they give the run time).
    FileNotFoundError
        When the file does not exist.

    Examples
    --------
    >>> import json
    >>> workload = {"nb_res": 4,
    ...             "jobs": [{"id": "w0!1", "subtime": 0, "walltime": 100, "res": 4, "profile": "p60"},
    ...                      {"id": "w0!2", "subtime": 10, "res": 1, "profile": "p60"}],
    ...             "profiles": {"p60": {"type": "delay", "delay": 60}}}
    >>> with open("workload.json", "w") as f:
    ...     json.dump(workload, f)
    >>> t = read_batsim("workload.json")
    >>> t.job_id.tolist(), t.submit.tolist(), t.runtime.tolist(), t.width().tolist(), t.max_procs
    ([1, 2], [0.0, 10.0], [60.0, 60.0], [4, 1], 4)
    >>> t.time_requested.tolist()
    [100.0, -1.0]
    """
    if not isinstance(path, (str, os.PathLike)):
        raise TypeError(f"path == {path!r}, must be a file name (str or os.PathLike)")
    source = os.fspath(path)
    if not isinstance(source, str):
        raise TypeError(f"path == {path!r}, must be a file name (str or os.PathLike)")
    with open(source, "rb") as f:
        raw = f.read()
    if raw[:2] == b"\x1f\x8b":
        try:
            raw = gzip.decompress(raw)
        except (OSError, EOFError) as e:
            raise InvalidWorkloadError(f"gzip data is truncated or corrupt ({e})", path=source) from None
    try:
        doc = json.loads(raw.decode("utf-8-sig"))
    except UnicodeDecodeError as e:
        raise InvalidWorkloadError(f"is not UTF-8 text ({e.reason} at byte {e.start})", path=source) from None
    except json.JSONDecodeError as e:
        raise InvalidWorkloadError(
            f"is not valid JSON ({e.msg}, column {e.colno}); a Batsim workload is a JSON object",
            path=source,
            line=e.lineno,
        ) from None
    except RecursionError:
        # json's parser recurses once per level of nesting: an array nested 100,000 deep exhausts the stack.
        raise InvalidWorkloadError(
            f"is JSON nested deeper than {sys.getrecursionlimit()} levels (Python's recursion limit, which "
            f"bounds the JSON reader); a Batsim workload nests {MAX_DEPTH} levels or fewer",
            path=source,
        ) from None
    except ValueError:  # json's only other error: an integer of more digits than Python converts
        raise InvalidWorkloadError(
            f"holds an integer of more than {_int_digits()} digits, which no field of a Batsim workload can take",
            path=source,
        ) from None
    if _deeper_than(doc, MAX_DEPTH):
        raise InvalidWorkloadError(
            f"is JSON nested more than {MAX_DEPTH} levels deep (a Batsim workload is an object of jobs and "
            "profiles: a few levels, with room for extra_data)",
            path=source,
        )
    return _table(doc, source)


def _int_digits() -> int:
    """The most digits Python converts to an int (``sys.get_int_max_str_digits``, Python 3.11+)."""
    get = getattr(sys, "get_int_max_str_digits", None)
    return int(get()) if get is not None else 4300


def _deeper_than(doc: Any, limit: int) -> bool:
    """Whether ``doc``'s arrays and objects nest more than ``limit`` levels (found without recursion)."""
    stack: list[tuple[Any, int]] = [(doc, 1)] if isinstance(doc, (dict, list)) else []
    while stack:
        node, level = stack.pop()
        if level > limit:
            return True
        children = node.values() if isinstance(node, dict) else node
        stack.extend((child, level + 1) for child in children if isinstance(child, (dict, list)))
    return False


def _table(doc: Any, source: str) -> JobTable:
    if not isinstance(doc, dict):
        raise InvalidWorkloadError(
            f"holds a JSON {type(doc).__name__}, a Batsim workload is an object with nb_res, jobs and profiles",
            path=source,
        )
    for key, kind in (("nb_res", "a positive integer"), ("jobs", "an array"), ("profiles", "an object")):
        if key not in doc:
            raise InvalidWorkloadError(f"has no {key!r} ({kind}): not a Batsim workload", path=source, field=key)
    nb_res = doc["nb_res"]
    if not _is_int(nb_res) or not 1 <= nb_res <= MAX_PROCS:
        raise InvalidWorkloadError(
            f"nb_res == {_short(nb_res)}, must be a positive integer (the number of resources), at most {MAX_PROCS}",
            path=source,
            field="nb_res",
            value=nb_res,
        )
    jobs, profiles = doc["jobs"], doc["profiles"]
    if not isinstance(jobs, list):
        raise InvalidWorkloadError(
            f"'jobs' is a JSON {type(jobs).__name__}, must be an array", path=source, field="jobs"
        )
    if not isinstance(profiles, dict):
        raise InvalidWorkloadError(
            f"'profiles' is a JSON {type(profiles).__name__}, must be an object", path=source, field="profiles"
        )
    if not jobs:
        raise InvalidWorkloadError("contains no jobs", path=source, field="jobs")

    n = len(jobs)
    ids: list[Any] = []
    submit = np.empty(n)
    runtime = np.empty(n)
    res = np.empty(n, dtype=np.int64)
    walltime = np.empty(n)
    delays: dict[str, float] = {}  # profile name -> delay, checked once per profile
    for i, job in enumerate(jobs):

        def bad(message: str, field: str | None = None, value: object = None, *, i: int = i) -> InvalidWorkloadError:
            jid = ids[i] if len(ids) > i else None
            who = f"jobs[{i}]" + (f" (id {jid!r})" if jid is not None else "")
            return InvalidWorkloadError(f"{who}: {message}", path=source, field=field, value=value)

        if not isinstance(job, dict):
            raise bad(f"is a JSON {type(job).__name__}, must be an object with id, subtime, res and profile")
        if "id" not in job:
            raise bad("has no 'id' (a Batsim job needs id, subtime, res and profile)", "id")
        jid = job["id"]
        if not (isinstance(jid, str) or _is_int(jid)):
            raise bad(f"id == {jid!r}, must be a string (or an integer)", "id", jid)
        ids.append(jid)
        for key in ("subtime", "res", "profile"):
            if key not in job:
                raise bad(f"has no {key!r} (a Batsim job needs id, subtime, res and profile)", key)
        submit[i] = _time(job["subtime"], "subtime", bad, nonnegative=True)
        value = job["res"]
        if not _is_int(value) or not 1 <= value <= MAX_PROCS:
            raise bad(
                f"res == {_short(value)}, must be a positive integer (resources requested), at most "
                f"{MAX_PROCS}" + (" (beyond int64's range)" if _is_int(value) and value >= 2**63 else ""),
                "res",
                value,
            )
        res[i] = value
        wt = job.get("walltime", -1)
        wt = -1 if wt is None else wt
        walltime[i] = _time(wt, "walltime", bad, nonnegative=False)
        if not (walltime[i] > 0 or walltime[i] == -1):
            raise bad(f"walltime == {wt!r}, must be > 0, or -1 (no limit)", "walltime", wt)
        name = job["profile"]
        if not isinstance(name, str):
            raise bad(f"profile == {name!r}, must be the name (a string) of a profile in 'profiles'", "profile", name)
        if name not in delays:
            delays[name] = _delay(profiles, name, bad)
        runtime[i] = delays[name]

    job_id, note = _job_numbers(ids, source)
    metadata = {"MaxProcs": str(nb_res), TIME_LIMIT_KEY: KILL}  # Batsim kills a job at its walltime
    if note:
        metadata["BatsimIds"] = note
    header = [f" {key}: {value}" for key, value in metadata.items()]
    return JobTable(
        {
            "job_id": job_id,
            "submit": submit,
            "runtime": runtime,
            "procs_requested": res,
            "time_requested": walltime,
        },
        metadata=metadata,
        header=header,
        source=source,
    )


def _short(value: object) -> str:
    """``repr(value)``, cut to 60 characters (an integer of 4,000 digits is named, not printed)."""
    text = repr(value)
    return text if len(text) <= 60 else f"{text[:40]}... ({len(text)} characters)"


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _time(value: object, field: str, bad: Any, *, nonnegative: bool) -> float:
    """A JSON number of seconds, finite and within SWF's range."""
    from .swf import MAX_TIME

    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise bad(f"{field} == {_short(value)}, must be a number of seconds", field, value)
    x = float(value) if not isinstance(value, int) or abs(value) <= MAX_TIME else math.inf  # 10**400: no float
    if not math.isfinite(x) or abs(x) > MAX_TIME or (nonnegative and x < 0):
        rule = ">= 0 and finite" if nonnegative else "finite"
        raise bad(f"{field} == {_short(value)}, must be {rule} (at most 10**10 s)", field, value)
    return x


def _delay(profiles: dict[str, Any], name: str, bad: Any) -> float:
    """The run time a profile gives: its ``delay``, if it is a delay profile; else the typed error."""
    if name not in profiles:
        raise bad(f"profile {name!r} is not defined in 'profiles'", "profile", name)
    profile = profiles[name]
    kind = profile.get("type") if isinstance(profile, dict) else None
    if kind not in DELAY_PROFILE_TYPES:
        what = f"type {kind!r}" if isinstance(profile, dict) else f"a JSON {type(profile).__name__}"
        raise bad(
            f'profile {name!r} has {what}; only delay profiles ("type": "delay", whose "delay" is the '
            "run time) are supported: other profile types need Batsim's platform simulation to give a run time",
            "profile",
            kind,
        )
    if "delay" not in profile:
        raise bad(f"profile {name!r} (type {kind!r}) has no 'delay' (its run time in seconds)", "delay")
    return _time(profile["delay"], "delay", lambda m, f, v: bad(f"profile {name!r}: {m}", f, v), nonnegative=True)


def _job_numbers(ids: list[Any], source: str) -> tuple[np.ndarray, str | None]:
    """Job numbers from Batsim ids (module docstring), and the note saying how they were made when renumbered."""
    seen: dict[str, int] = {}
    for i, jid in enumerate(ids):
        key = str(jid)
        if key in seen:
            raise InvalidWorkloadError(
                f"jobs[{i}] has id {jid!r}, already used by jobs[{seen[key]}] (Batsim job ids are unique)",
                path=source,
                field="id",
                value=jid,
            )
        seen[key] = i
    numbers: list[int] = []
    for jid in ids:
        m = _NUMBERED_ID.fullmatch(str(jid))
        if m is None or int(m[1]) > _MAX_ID:
            break
        numbers.append(int(m[1]))
    else:
        if len(set(numbers)) == len(numbers):
            return np.array(numbers, dtype=np.int64), None
    return (
        np.arange(1, len(ids) + 1, dtype=np.int64),
        "jobs numbered 1..n in file order (the Batsim ids are not all distinct numbers)",
    )


def write_batsim(
    table: JobTable,
    path: _P,
    *,
    nb_res: int | None = None,
    walltime: str = "estimate",
    description: str | None = None,
) -> _P:
    """Write ``table`` as a Batsim workload of delay profiles (JSON, one job per line).

    Parameters
    ----------
    table : JobTable
        Jobs with a known run time (>= 0) and width (field 5, else 8, >= 1);
        clean a trace first with
        :func:`~clustersched.workload.transform.drop_invalid`.
    path : str or os.PathLike
        Where to write (gzip-compressed when it ends in ``.gz``).
    nb_res : int, optional
        The number of resources; default the table's ``MaxProcs`` (else ``MaxNodes``).
    walltime : {"estimate", "requested"}
        ``"estimate"`` (default) writes ``max(requested time, run time)``, the
        run time clustersched's simulator believes, so that Batsim kills no
        job the table's rule does not kill (a job of a table read by
        :func:`read_batsim` whose delay exceeds its walltime keeps that
        walltime); ``"requested"`` the requested time as it is.  Either way an
        unknown request (-1) is written as -1, no limit.
    description : str, optional
        Written as the workload's ``description``; default names the table's source.

    Returns
    -------
    str or os.PathLike
        ``path`` (``read_batsim(write_batsim(t, p))``).

    Notes
    -----
    Ids are the job numbers as strings (``"17"``); each distinct run time
    gets one profile, ``delay_<run time>`` (``{"type": "delay", "delay":
    3600}``), the name :func:`clustersched.batch.formats.write_batsim_jobs`
    writes in its ``profile`` column.  Jobs keep the table's order.

    Raises
    ------
    InvalidWorkloadError
        Naming the job, when a run time is unknown or negative, a width is
        below 1, a time is not finite, or two jobs have one number; nothing
        is written then.
    ValueError
        When the machine size is unknown and ``nb_res`` not given.

    Examples
    --------
    >>> import clustersched as cs
    >>> jobs = cs.read_swf(cs.sample_trace())
    >>> back = read_batsim(write_batsim(jobs, "hpc2n-week.json"))
    >>> len(back), back.max_procs
    (2406, 240)
    >>> bool((back.runtime == jobs.runtime).all()), bool((back.width() == jobs.width()).all())
    (True, True)
    >>> bool((cs.simulate(back, "easy").schedule.start == cs.simulate(jobs, "easy").schedule.start).all())
    True
    """
    if not isinstance(table, JobTable):
        raise TypeError(f"table == {type(table).__name__}, must be a clustersched JobTable")
    check_choice("walltime", walltime, ("estimate", "requested"))
    if nb_res is None:
        nb_res = table.max_procs
        if nb_res is None:
            raise ValueError("the table's header gives no MaxProcs (or MaxNodes): pass nb_res=")
    elif isinstance(nb_res, bool) or not isinstance(nb_res, int) or nb_res < 1:
        raise ValueError(f"nb_res == {nb_res!r}, must be a positive integer")
    source = os.fspath(path)
    if not len(table):
        raise InvalidWorkloadError("the job table is empty: a Batsim workload needs jobs", path=source)
    width = table.width()
    runtime = table.runtime
    for mask, field, values, rule in (
        (~np.isfinite(table.submit) | (table.submit < 0), "submit", table.submit, "must be >= 0 and finite"),
        (
            ~np.isfinite(runtime) | (runtime < 0),
            "runtime",
            runtime,
            "must be known (>= 0) for a delay profile; drop_invalid removes such jobs",
        ),
        (width < 1, "procs", width, "must be >= 1 (fields 5 and 8 give no processor count)"),
        (~np.isfinite(table.time_requested), "time_requested", table.time_requested, "must be finite"),
    ):
        if mask.any():
            i = int(np.flatnonzero(mask)[0])
            raise InvalidWorkloadError(
                f"value {values[i].item()!r} {rule} ({int(mask.sum())} such job(s))",
                path=source,
                row=i,
                job_id=int(table.job_id[i]),
                field=field,
                value=values[i].item(),
            )
    _, first, counts = np.unique(table.job_id, return_index=True, return_counts=True)
    if (counts > 1).any():
        job = int(table.job_id[first[np.argmax(counts > 1)]])
        raise InvalidWorkloadError(
            "two jobs have this number; Batsim job ids must be unique",
            path=source,
            row=int(first[np.argmax(counts > 1)]),
            job_id=job,
            field="job_id",
            value=job,
        )
    requested = table.time_requested
    known = requested > 0
    if walltime == "estimate":
        run, _ = time_limited(table)  # a job the table's rule kills runs its request: its walltime stays
        wall = np.where(known, np.maximum(requested, run), -1.0)
    else:
        wall = np.where(known, requested, -1.0)

    names = [delay_profile_name(r) for r in runtime.tolist()]
    profiles = {name: {"type": "delay", "delay": _number(r)} for name, r in zip(names, runtime.tolist())}
    lines = [
        json.dumps(
            {"id": str(j), "subtime": _number(s), "walltime": _number(w), "res": int(r), "profile": p},
            separators=(", ", ": "),
        )
        for j, s, w, r, p in zip(table.job_id.tolist(), table.submit.tolist(), wall.tolist(), width.tolist(), names)
    ]
    text = (
        "\n".join(
            [
                "{",
                f'  "description": {json.dumps(description or _describe(table))},',
                f'  "nb_res": {int(nb_res)},',
                '  "jobs": [',
                ",\n".join(f"    {line}" for line in lines),
                "  ],",
                '  "profiles": {',
                ",\n".join(
                    f"    {json.dumps(name)}: {json.dumps(p, separators=(', ', ': '))}" for name, p in profiles.items()
                ),
                "  }",
                "}",
            ]
        )
        + "\n"
    )
    data = text.encode("utf-8")
    if source.endswith(".gz"):
        data = gzip.compress(data, compresslevel=6, mtime=0)
    from .._output import atomic_open  # whole or not at all: a full disk leaves no half workload

    with atomic_open(source, "wb") as f:
        f.write(data)
    return path


def delay_profile_name(runtime: float) -> str:
    """The name :func:`write_batsim` gives the delay profile of a job running ``runtime`` seconds.

    >>> delay_profile_name(3600.0), delay_profile_name(12.5)
    ('delay_3600', 'delay_12.5')
    """
    return f"delay_{_number(float(runtime))}"


def _number(x: float) -> int | float:
    """Integral values as JSON integers (``3600``, not ``3600.0``)."""
    return int(x) if float(x).is_integer() and abs(x) < 2**53 else float(x)


def _describe(table: JobTable) -> str:
    where = f" from {os.path.basename(table.source)}" if table.source else ""
    return f"{len(table)} jobs{where}, delay profiles written by clustersched"
