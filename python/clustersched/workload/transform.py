"""Operations on job tables: time windows, removing unschedulable jobs, load scaling.

A window whose submit times are rebased (``rebase=True``) keeps the header
true: its ``UnixStartTime`` (and ``StartTime``) move by the shift, its
``EndTime`` is the window's end when that comes first, and ``MaxJobs`` /
``MaxRecords`` count its jobs; so :func:`~clustersched.workload.write_swf`
writes a window that is an SWF trace of its own.

Every function is pure: it returns new tables and leaves its input unchanged.
Rows removed on purpose are recorded as :class:`~clustersched.workload.jobs.Dropped`
in the result's ``dropped``, with one of the reason constants below, so that
``table.drop_summary()`` counts them.
"""

from __future__ import annotations

import re
from datetime import datetime
from typing import Literal

import numpy as np

from .._checks import MAX_PROCS, check_choice, check_float, check_int
from .jobs import Dropped, JobTable

__all__ = [
    "CLIPPED_TO_MACHINE",
    "NONPOSITIVE_RUNTIME",
    "NO_PROCESSOR_COUNT",
    "WIDER_THAN_MACHINE",
    "drop_invalid",
    "invalid_jobs",
    "offered_load",
    "scale_submit",
    "scale_to_load",
    "time_window",
    "time_windows",
]

#: Drop reason: the job uses neither a known allocated nor a requested processor count.
NO_PROCESSOR_COUNT = "no processor count"
#: Drop reason: the job needs more processors than the machine has.
WIDER_THAN_MACHINE = "wider than machine"
#: Report reason: the job was wider than the machine and now uses all of it
#: (``drop_invalid(wider="clip")``, ``simulate(oversized="clip")``); the row is
#: kept but changed, so it is reported like a dropped one.
CLIPPED_TO_MACHINE = "clipped to machine size"
#: Drop reason: the job's runtime is 0, negative, or -1 (unknown).
NONPOSITIVE_RUNTIME = "non-positive runtime"


def time_windows(
    table: JobTable,
    length: float = 7 * 86400,
    *,
    origin: float | None = None,
    rebase: bool = False,
) -> list[JobTable]:
    """Cut a table into consecutive windows of submit time.

    Window ``k`` holds the jobs submitted in
    ``[origin + k * length, origin + (k + 1) * length)``; together the windows
    hold every job exactly once, each window in the table's row order.  Windows
    without jobs are left out of the list, so a window's position in the list
    is not its ``k`` when the trace has gaps.

    Parameters
    ----------
    table : JobTable
        The jobs.
    length : float
        Window length in seconds, > 0 (default one week).
    origin : float, optional
        Start of window 0; defaults to the first submit time.  Jobs submitted
        before it fall into windows with negative ``k``.
    rebase : bool
        If true, shift each window's submit times by the window's start
        (``origin + k * length``) so that they lie in ``[0, length)``, and
        the header's ``UnixStartTime`` and ``StartTime`` by as much (module
        docstring).

    Returns
    -------
    list of JobTable
        The non-empty windows in time order (an empty table gives ``[]``).

    Examples
    --------
    Cutting HPC2N-2002 into week-long segments, as in the DFRS study:

    >>> weeks = time_windows(read_swf("HPC2N-2002-2.2-cln.swf.gz"), rebase=True)  # doctest: +SKIP
    """
    length = check_float("length", length, positive=True)
    if not len(table):
        return []
    origin = float(table.submit.min()) if origin is None else check_float("origin", origin)
    index = np.floor((table.submit - origin) / length).astype(np.int64)
    order = np.argsort(index, kind="stable")
    keys, starts = np.unique(index[order], return_index=True)
    windows = []
    for k, rows in zip(keys.tolist(), np.split(order, starts[1:])):
        window = table.select(rows)
        if rebase:
            window = _rebased(window, origin + k * length, origin + (k + 1) * length)
        windows.append(window)
    return windows


def time_window(
    table: JobTable,
    start: float = 0.0,
    end: float | None = None,
    *,
    origin: float | None = None,
    rebase: bool = False,
) -> JobTable:
    """The jobs submitted in ``[origin + start, origin + end)``, in row order.

    Parameters
    ----------
    table : JobTable
        The jobs.
    start : float
        Start of the window in seconds after ``origin``, finite.
    end : float, optional
        End of the window in seconds after ``origin``, > ``start`` (default:
        none, every job from ``start`` on).
    origin : float, optional
        The time ``start`` and ``end`` count from; defaults to the first
        submit time (the trace start).
    rebase : bool
        If true, shift the submit times by the window's start
        (``origin + start``), so that they count from 0, and the header's
        ``UnixStartTime`` and ``StartTime`` by as much (see the module
        docstring): the window is then a trace of its own, as the
        ``clustersched cut`` command writes it.

    Returns
    -------
    JobTable
        The window's jobs; it may be empty.

    Examples
    --------
    The second day of a trace, as a trace starting at its own 0:

    >>> t = JobTable({"submit": [0, 50_000, 90_000, 200_000], "runtime": [1, 2, 3, 4]},
    ...              metadata={"UnixStartTime": "1000000000", "MaxJobs": "4"})
    >>> day = time_window(t, 86400, 2 * 86400, rebase=True)
    >>> day.submit.tolist(), day.metadata["UnixStartTime"], day.metadata["MaxJobs"]
    ([3600.0], '1000086400', '1')
    """
    start = check_float("start", start)
    if end is not None:
        end = check_float("end", end)
        if not end > start:
            raise ValueError(f"end == {end}, must be > start == {start}")
    if origin is None:
        origin = float(table.submit.min()) if len(table) else 0.0
    else:
        origin = check_float("origin", origin)
    low = origin + start
    high = None if end is None else origin + end
    keep = table.submit >= low
    if high is not None:
        keep &= table.submit < high
    window = table.select(keep)
    return _rebased(window, low, high) if rebase else window


#: Header keys that count a trace's jobs; a window counts its own.
_COUNT_KEYS = ("MaxJobs", "MaxRecords")


def _rebased(window: JobTable, shift: float, end: float | None) -> JobTable:
    """``window`` with its submit times less ``shift`` and its header moved to match (module docstring);
    ``end`` is the window's end on the old clock (None: the trace's)."""
    rebased = window.with_columns(submit=window.submit - shift)
    changes = _header_changes(window.metadata, shift, end, len(window))
    if changes:
        rebased.metadata = {
            k: v for k, v in ((k, changes.get(k, v)) for k, v in window.metadata.items()) if v is not None
        }
        rebased.header = [line for line in (_rewrite(line, changes) for line in window.header) if line is not None]
    return rebased


def _header_changes(metadata: dict[str, str], shift: float, end: float | None, jobs: int) -> dict[str, str | None]:
    """The header values a window rebased by ``shift`` (and ending at ``end``) changes: key -> new value, or
    None for a line to remove (a ``StartTime`` or ``EndTime`` that cannot be recomputed)."""
    changes: dict[str, str | None] = {key: str(jobs) for key in _COUNT_KEYS if key in metadata}
    zone = metadata.get("TimeZoneString", "").strip() or None
    unix = _number(metadata.get("UnixStartTime"))
    base = unix if unix is not None else _parse_swf_time(metadata.get("StartTime"), zone)
    if shift == 0 and (end is None or base is None):
        return changes
    if unix is not None:
        changes["UnixStartTime"] = _number_text(unix + shift)
    if "StartTime" in metadata:
        changes["StartTime"] = None if base is None else _swf_time(base + shift, zone)
    if "EndTime" in metadata and end is not None:
        last = _parse_swf_time(metadata["EndTime"], zone)
        if base is None or last is None:
            changes["EndTime"] = None
        elif base + end < last:
            changes["EndTime"] = _swf_time(base + end, zone)
    return changes


_HEADER_LINE = re.compile(r"(\s*)([A-Za-z][A-Za-z0-9_]*)(:\s*)(.*)", re.DOTALL)


def _rewrite(line: str, changes: dict[str, str | None]) -> str | None:
    """A header line with its value replaced as ``changes`` say (its spacing kept), or None to remove it."""
    m = _HEADER_LINE.fullmatch(line)
    if not m or m[2] not in changes:
        return line
    value = changes[m[2]]
    return None if value is None else f"{m[1]}{m[2]}{m[3]}{value}"


def _number(text: str | None) -> float | None:
    """The header value's first word as a finite number, or None."""
    try:
        value = float((text or "").split()[0])
    except (IndexError, ValueError):
        return None
    return value if np.isfinite(value) else None


def _number_text(value: float) -> str:
    return str(int(value)) if value == int(value) else repr(value)


#: How the Parallel Workloads Archive writes StartTime and EndTime: ``Sun Jul 28 09:04:05 CEST 2002``.
_SWF_TIME = "%a %b %d %H:%M:%S %Z %Y"


def _zone(name: str | None):  # type: ignore[no-untyped-def]
    """The TimeZoneString's zone, or None when there is none or this system does not know it."""
    if name is None:
        return None
    try:
        from zoneinfo import ZoneInfo

        return ZoneInfo(name)
    except (KeyError, ValueError, OSError, ImportError):  # ZoneInfoNotFoundError is a KeyError
        return None


def _swf_time(unix: float, zone_name: str | None) -> str | None:
    """``unix`` as the archive writes a time, in the trace's zone; None without a known zone."""
    zone = _zone(zone_name)
    if zone is None:
        return None
    return datetime.fromtimestamp(int(unix), zone).strftime(_SWF_TIME)


def _parse_swf_time(text: str | None, zone_name: str | None) -> float | None:
    """A StartTime or EndTime value as a Unix time, or None when it is not one in the trace's zone."""
    zone = _zone(zone_name)
    parts = (text or "").split()
    if zone is None or len(parts) != 6:
        return None
    try:
        naive = datetime.strptime(" ".join(parts[1:4] + parts[5:]), "%b %d %H:%M:%S %Y")
    except ValueError:
        return None
    # the abbreviation (CEST or CET) tells the two readings of an hour repeated in autumn apart
    for fold in (0, 1):
        aware = naive.replace(tzinfo=zone, fold=fold)
        if aware.tzname() == parts[4]:
            return aware.timestamp()
    return naive.replace(tzinfo=zone).timestamp()


def invalid_jobs(table: JobTable, procs: int | None = None) -> list[Dropped]:
    """The jobs a machine of ``procs`` processors cannot run, with the reason for each.

    A job is reported, with the first reason that applies, when it has
    :data:`NO_PROCESSOR_COUNT` (``width() <= 0``), is :data:`WIDER_THAN_MACHINE`
    (``width() > procs``), or has a :data:`NONPOSITIVE_RUNTIME` (``runtime <= 0``,
    which includes -1, unknown: a simulator cannot run a job of unknown length).

    Parameters
    ----------
    table : JobTable
        The jobs.
    procs : int, optional
        Processors of the machine, > 0 (default: the table's machine size,
        ``table.max_procs``, from its ``MaxProcs`` or ``MaxNodes`` header line).

    Returns
    -------
    list of Dropped
        One record per invalid job, in row order (``line`` is None).
    """
    procs = _machine_size(table, procs)
    width = table.width()
    found = _find(
        [
            (NO_PROCESSOR_COUNT, width <= 0),
            (WIDER_THAN_MACHINE, width > procs),
            (NONPOSITIVE_RUNTIME, table.runtime <= 0),
        ]
    )
    return [Dropped(reason, int(table.job_id[i])) for i, reason in found]


def drop_invalid(
    table: JobTable,
    procs: int | None = None,
    *,
    wider: Literal["drop", "clip", "keep"] = "drop",
    nonpositive_runtime: Literal["drop", "keep"] = "drop",
) -> JobTable:
    """Remove the jobs that :func:`invalid_jobs` reports, recording each in ``dropped``.

    What it removed is counted by reason in the result's ``drop_summary()``;
    ``clustersched simulate | compare | dfrs --drop-invalid`` call it and print
    those counts.

    Parameters
    ----------
    table : JobTable
        The jobs.
    procs : int, optional
        Processors of the machine, > 0 (default: the table's machine size,
        ``table.max_procs``, from its ``MaxProcs`` or ``MaxNodes`` header line;
        a ValueError says to pass ``procs`` when the header has neither).
    wider : {"drop", "clip", "keep"}
        Jobs wider than the machine are dropped, clipped (their ``procs`` and
        ``procs_requested`` lowered to ``procs``, an unknown -1 staying
        unknown; each reported as :data:`CLIPPED_TO_MACHINE`), or kept as they
        are.  This is the one implementation of the rule:
        :func:`clustersched.simulate`'s ``oversized="skip"`` / ``"clip"``
        call it.
    nonpositive_runtime : {"drop", "keep"}
        Whether jobs with runtime <= 0 (or unknown) are dropped.

    Returns
    -------
    JobTable
        The remaining jobs; its ``dropped`` is the input's plus one record per
        removed (or clipped) job, in row order.  Jobs without a processor
        count are always removed.

    Examples
    --------
    >>> from clustersched.workload import JobTable
    >>> t = JobTable({"submit": [0, 1, 2], "runtime": [10, -1, 5], "procs": [2, 2, 8]},
    ...              metadata={"MaxProcs": "4"})
    >>> kept = drop_invalid(t)                 # the header's MaxProcs: 4 processors
    >>> len(kept), kept.drop_summary()
    (1, {'non-positive runtime': 1, 'wider than machine': 1})
    """
    procs = _machine_size(table, procs)
    check_choice("wider", wider, ("drop", "clip", "keep"))
    check_choice("nonpositive_runtime", nonpositive_runtime, ("drop", "keep"))
    width = table.width()
    checks = [(NO_PROCESSOR_COUNT, width <= 0)]
    if wider == "drop":
        checks.append((WIDER_THAN_MACHINE, width > procs))
    if nonpositive_runtime == "drop":
        checks.append((NONPOSITIVE_RUNTIME, table.runtime <= 0))
    if wider == "clip":
        checks.append((CLIPPED_TO_MACHINE, width > procs))
    found = _find(checks)
    keep = np.ones(len(table), dtype=bool)
    keep[[i for i, reason in found if reason != CLIPPED_TO_MACHINE]] = False
    dropped = [Dropped(reason, int(table.job_id[i])) for i, reason in found]
    if wider == "clip":
        table = table.with_columns(
            procs=np.minimum(table.procs, procs),
            procs_requested=np.minimum(table.procs_requested, procs),
        )
    return table.select(keep, dropped=dropped)


def offered_load(table: JobTable, procs: int) -> float:
    """The work submitted per unit of machine capacity over the trace's span.

    ``sum(runtime * width) / (procs * (last submit - first submit))``, where
    the sum counts only jobs with a known positive runtime and width (jobs that
    :func:`drop_invalid` would remove for those reasons add nothing) and the
    span covers all jobs.  A value near 1 means the machine would be busy all
    the time.

    Parameters
    ----------
    table : JobTable
        The jobs.
    procs : int
        Processors of the machine, > 0.

    Raises
    ------
    ValueError
        When the span is zero (fewer than two distinct submit times), where the
        load is undefined.
    """
    procs = check_int("procs", procs, 1, MAX_PROCS)
    span = float(np.ptp(table.submit)) if len(table) else 0.0
    if span <= 0:
        raise ValueError(
            f"the offered load of {table!r} is undefined: its jobs span no time "
            "(it needs at least two distinct submit times)"
        )
    width = table.width()
    counted = (table.runtime > 0) & (width > 0)
    work = float(np.sum(table.runtime[counted] * width[counted]))
    return work / (procs * span)


def scale_submit(table: JobTable, factor: float) -> JobTable:
    """Stretch (factor > 1) or compress (factor < 1) the submit times.

    Each submit time becomes ``first + (submit - first) * factor``, where
    ``first`` is the earliest submit time, so inter-arrival times are
    multiplied by ``factor``.  Other columns (wait, runtime ...) are unchanged.

    Parameters
    ----------
    table : JobTable
        The jobs.
    factor : float
        Scale, finite and > 0.
    """
    factor = check_float("factor", factor, positive=True)
    if not len(table):
        return table.with_columns()
    first = table.submit.min()
    return table.with_columns(submit=first + (table.submit - first) * factor)


def scale_to_load(table: JobTable, procs: int, target: float) -> JobTable:
    """Scale inter-arrival times so that :func:`offered_load` becomes ``target``.

    Parameters
    ----------
    table : JobTable
        The jobs.
    procs : int
        Processors of the machine, > 0.
    target : float
        Wanted offered load, finite and > 0.

    Raises
    ------
    ValueError
        When the load is undefined (see :func:`offered_load`) or zero (no job
        with positive runtime and width), as no scaling can change it.
    """
    target = check_float("target", target, positive=True)
    load = offered_load(table, procs)
    if load == 0:
        raise ValueError(
            f"cannot scale {table!r} to load {target}: it holds no work (no job with runtime > 0 and width > 0)"
        )
    return scale_submit(table, load / target)


def _machine_size(table: JobTable, procs: int | None) -> int:
    """``procs`` checked, or the table's machine size when it is None."""
    if procs is None:
        size = table.max_procs
        if size is None:
            raise ValueError(
                f"procs == None and {table!r} gives no machine size (no MaxProcs or MaxNodes header line): "
                "pass procs, the machine's processor count"
            )
        return size
    return check_int("procs", procs, 1, MAX_PROCS)


def _find(checks: list[tuple[str, np.ndarray]]) -> list[tuple[int, str]]:
    """(row, reason) for each row failing a check, in row order, with the first failing reason."""
    reasons: dict[int, str] = {}
    for reason, mask in checks:
        for i in np.flatnonzero(mask).tolist():
            reasons.setdefault(i, reason)
    return sorted(reasons.items())
