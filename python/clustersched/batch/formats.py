"""A simulated batch schedule in the field's file formats: SWF, the Batsim/evalys jobs CSV, CSV.

Every writer takes the schedule and the job table it ran, row for row --
:attr:`BatchRun.jobs <clustersched.batch.BatchRun>` (the input sorted by
submit time, without skipped jobs), not the table given to
:func:`~clustersched.batch.simulate` -- since a schedule alone has no
requested time and no other SWF field.  :func:`write_schedule` picks the
writer by name (:data:`SCHEDULE_FORMATS`):

``"csv"`` (:func:`write_schedule_csv`)
    One row per job: ``job_id, submit_s, start_s, end_s, wait_s, runtime_s,
    procs, procs_requested, time_requested_s, allocated`` (times in seconds,
    ``allocated`` the processor ids as an interval set, ``"0-3 8-9"``); the
    columns of :meth:`Schedule.to_pandas <clustersched.batch.Schedule.to_pandas>`
    with ``allocated=True``, and last ``killed`` (1 for a job killed at its
    time limit, else 0) when the jobs declared time-limit kills (a Batsim
    workload: :attr:`Schedule.killed <clustersched.batch.Schedule.killed>`).
``"swf"`` (:func:`write_schedule_swf`)
    The jobs as the schedule ran them, in the Standard Workload Format:
    field 3 (wait) is ``start - submit``, field 4 (run time) ``end - start``,
    field 5 the processors allocated, field 11 (status) 1, "completed" (0,
    "failed", for a job killed at its time limit, see
    :attr:`Schedule.killed <clustersched.batch.Schedule.killed>`); every
    other field (requested processors and time, user, ...) is the job
    table's.  The header is the table's, its ``MaxProcs`` replaced by the
    simulated machine's, followed by notes naming the policy and its
    options.  :func:`~clustersched.workload.swf.read_swf` reads it back, and
    simulating what it reads with the same policy and ``estimates`` gives the
    same start times (the tests check it for every built-in policy).
``"batsim"`` (:func:`write_batsim_jobs`)
    The jobs file Batsim writes (``out_jobs.csv``) and evalys reads
    (``evalys.jobset.JobSet.from_csv``), see :data:`BATSIM_JOBS_COLUMNS`.
"""

from __future__ import annotations

import csv
import os
import re
import sys
from typing import TypeVar

import numpy as np

from .._checks import check_choice
from ..workload.batsim import delay_profile_name
from ..workload.jobs import JobTable
from ..workload.swf import header_metadata as swf_metadata
from ..workload.swf import write_swf
from ..workload.timelimit import time_limited
from .schedule import Schedule, check_rows

__all__ = [
    "BATSIM_JOBS_COLUMNS",
    "SCHEDULE_FORMATS",
    "schedule_table",
    "write_batsim_jobs",
    "write_schedule",
    "write_schedule_csv",
    "write_schedule_swf",
]

_P = TypeVar("_P", bound="str | os.PathLike[str]")

#: The names :func:`write_schedule` accepts, the default first.
SCHEDULE_FORMATS = ("csv", "swf", "batsim")

#: Columns of the Batsim jobs file, in Batsim's order (Batsim docs, "Jobs" output).
BATSIM_JOBS_COLUMNS = (
    "job_id",
    "workload_name",
    "profile",
    "submission_time",
    "requested_number_of_resources",
    "requested_time",
    "success",
    "final_state",
    "starting_time",
    "execution_time",
    "finish_time",
    "waiting_time",
    "turnaround_time",
    "stretch",
    "allocated_resources",
    "consumed_energy",
    "metadata",
)

# A MaxProcs header line, which the simulated machine's replaces.
_MAX_PROCS_LINE = re.compile(r"\s*MaxProcs:(\s.*)?")


def write_schedule(schedule: Schedule, jobs: JobTable, path: _P, *, format: str = "csv") -> _P:
    """Write ``schedule`` (with ``jobs``, the table it ran) in ``format``, one of :data:`SCHEDULE_FORMATS`.

    See the module docstring for each format; returns ``path``.

    Examples
    --------
    >>> import clustersched as cs
    >>> run = cs.simulate(cs.read_swf(cs.sample_trace()), "easy")
    >>> write_schedule(run.schedule, run.jobs, "easy.swf", format="swf")
    'easy.swf'
    >>> cs.read_swf("easy.swf").status.tolist()[:3]
    [1, 1, 1]
    """
    check_choice("format", format, SCHEDULE_FORMATS)
    writer = {"csv": write_schedule_csv, "swf": write_schedule_swf, "batsim": write_batsim_jobs}[format]
    return writer(schedule, jobs, path)


def write_schedule_csv(schedule: Schedule, jobs: JobTable, path: _P) -> _P:
    """Write one CSV row per job: the columns of ``schedule.to_pandas(jobs, allocated=True)``.

    ``job_id, submit_s, start_s, end_s, wait_s, runtime_s, procs,
    procs_requested, time_requested_s, allocated``, then ``killed`` when the
    schedule has a :attr:`~clustersched.batch.Schedule.killed` column;
    integral times are written without ``.0``; ``allocated`` is left out
    when the schedule assigns no processors.  Returns ``path``.

    Examples
    --------
    >>> import clustersched as cs
    >>> t = cs.JobTable({"submit": [0, 1], "runtime": [10, 5], "procs": [3, 2]}, metadata={"MaxProcs": "4"})
    >>> run = cs.simulate(t, "fcfs")
    >>> from pathlib import Path
    >>> print(Path(write_schedule_csv(run.schedule, run.jobs, "jobs.csv")).read_text(), end="")
    job_id,submit_s,start_s,end_s,wait_s,runtime_s,procs,procs_requested,time_requested_s,allocated
    1,0,0,10,0,10,3,-1,-1,0-2
    2,1,10,15,9,5,2,-1,-1,0-1
    """
    assigned = schedule.proc_offsets is not None or schedule.nodes is not None
    _write_csv(path, schedule.table_columns(jobs, allocated=assigned))
    return path


def schedule_table(schedule: Schedule, jobs: JobTable) -> JobTable:
    """The jobs as ``schedule`` ran them, as a :class:`~clustersched.workload.jobs.JobTable` (what
    :func:`write_schedule_swf` writes).

    Wait (field 3) is ``start - submit``, run time (field 4) ``end - start``
    (the job's runtime itself, or its time limit when killed there, where the
    schedule ran it exactly that long, so no rounding creeps in), allocated
    processors (field 5) the schedule's, status (field 11) 1, or 0 for a job
    killed at its time limit; the other fields and the header are
    ``jobs``'s, with ``MaxProcs`` the schedule's machine and two ``Note``
    lines saying what was simulated.
    """
    check_rows(schedule, jobs)
    submit = np.asarray(schedule.submit, dtype=np.float64)
    start = np.asarray(schedule.start, dtype=np.float64)
    end = np.asarray(schedule.end, dtype=np.float64)
    run, _ = time_limited(jobs)
    runtime = np.where(end == start + run, run, end - start)
    cols = jobs.columns()
    cols.update(
        submit=submit,
        wait=start - submit,
        runtime=runtime,
        procs=np.asarray(schedule.procs, dtype=np.int64),
        status=np.where(_killed(schedule), 0, 1).astype(np.int64),
    )
    header = _schedule_header(schedule, jobs)
    return JobTable(cols, metadata=swf_metadata(header), header=header, source=jobs.source, dropped=jobs.dropped)


def write_schedule_swf(schedule: Schedule, jobs: JobTable, path: _P) -> _P:
    """Write the jobs as ``schedule`` ran them as an SWF trace (gzip when ``path`` ends in ``.gz``).

    The rows are :func:`schedule_table`'s, in the schedule's order (by
    submit time); see the module docstring.  Returns ``path``.

    Raises
    ------
    ValueError
        When ``jobs`` is not the table the schedule ran, row for row.
    InvalidWorkloadError
        When a value breaks a rule of :func:`~clustersched.workload.swf.read_swf`
        (see :func:`~clustersched.workload.swf.write_swf`); nothing is written then.

    Examples
    --------
    >>> import clustersched as cs
    >>> jobs = cs.read_swf(cs.sample_trace())
    >>> run = cs.simulate(jobs, "conservative")
    >>> back = cs.read_swf(write_schedule_swf(run.schedule, run.jobs, "conservative.swf.gz"))
    >>> bool((back.wait == run.schedule.start - run.schedule.submit).all()), back.max_procs
    (True, 240)
    >>> again = cs.simulate(back, "conservative")
    >>> bool((again.schedule.start == run.schedule.start).all())
    True
    >>> [line for line in back.header if "simulated by" in line]  # doctest: +ELLIPSIS
    [' Note: schedule simulated by clustersched ...: policy conservative (estimates=requested, oversized=error)']
    """
    return write_swf(schedule_table(schedule, jobs), path)


def write_batsim_jobs(schedule: Schedule, jobs: JobTable, path: _P, *, workload_name: str = "w0") -> _P:
    """Write the Batsim jobs file (``out_jobs.csv``) of ``schedule``, which evalys's ``JobSet.from_csv`` reads.

    One row per job, columns :data:`BATSIM_JOBS_COLUMNS` in Batsim's order:

    * ``job_id``: the table's job number; ``workload_name``: ``workload_name``
      (Batsim names its first workload ``w0``); ``profile``: ``delay_<run time>``,
      the name :func:`~clustersched.workload.batsim.write_batsim` gives the
      job's delay profile;
    * ``submission_time``, ``starting_time``, ``finish_time`` (s), and
      ``execution_time = finish - start``, ``waiting_time = start - submission``,
      ``turnaround_time = finish - submission``, ``stretch = turnaround /
      execution`` (``inf`` for a job of no duration, as Batsim divides);
    * ``requested_number_of_resources``: the processors the job ran on (a
      rigid job gets what it asks); ``requested_time``: SWF field 9, -1 when
      unknown;
    * ``success`` 1 and ``final_state`` ``COMPLETED_SUCCESSFULLY``, except for a
      job killed at its time limit (:attr:`Schedule.killed
      <clustersched.batch.Schedule.killed>`, a Batsim workload's job whose
      delay exceeds its walltime): ``success`` 0 and ``final_state``
      ``COMPLETED_WALLTIME_REACHED``, as Batsim writes; ``consumed_energy`` -1 (not simulated);
      ``metadata`` empty;
    * ``allocated_resources``: the processor ids as an interval set,
      ``"0-3 8-9"`` (:meth:`Schedule.allocated_resources
      <clustersched.batch.Schedule.allocated_resources>`).

    Returns ``path``.  Raises ValueError when the schedule assigns no
    processors or ``jobs`` is not the table it ran.

    Examples
    --------
    >>> import clustersched as cs
    >>> t = cs.JobTable({"submit": [0, 1], "runtime": [10, 5], "procs": [3, 2],
    ...                  "time_requested": [20, 5]}, metadata={"MaxProcs": "4"})
    >>> run = cs.simulate(t, "fcfs")
    >>> from pathlib import Path
    >>> print(Path(write_batsim_jobs(run.schedule, run.jobs, "out_jobs.csv")).read_text(), end="")
    job_id,workload_name,profile,submission_time,requested_number_of_resources,requested_time,success,final_state,starting_time,execution_time,finish_time,waiting_time,turnaround_time,stretch,allocated_resources,consumed_energy,metadata
    1,w0,delay_10,0,3,20,1,COMPLETED_SUCCESSFULLY,0,10,10,0,10,1,0-2,-1,
    2,w0,delay_5,1,2,5,1,COMPLETED_SUCCESSFULLY,10,5,15,9,14,2.8,0-1,-1,
    """
    check_rows(schedule, jobs)
    if not isinstance(workload_name, str) or not workload_name or "!" in workload_name:
        raise ValueError(f"workload_name == {workload_name!r}, must be a non-empty string without '!'")
    n = len(schedule)
    submit = np.asarray(schedule.submit, dtype=np.float64)
    start = np.asarray(schedule.start, dtype=np.float64)
    end = np.asarray(schedule.end, dtype=np.float64)
    execution = end - start
    turnaround = end - submit
    killed = _killed(schedule)
    with np.errstate(divide="ignore", invalid="ignore"):
        stretch = turnaround / execution
    cols = {
        "job_id": np.asarray(schedule.job_id, dtype=np.int64),
        "workload_name": np.full(n, workload_name, dtype=object),
        "profile": np.array([delay_profile_name(r) for r in jobs.runtime.tolist()], dtype=object),
        "submission_time": submit,
        "requested_number_of_resources": np.asarray(schedule.procs, dtype=np.int64),
        "requested_time": jobs.time_requested,
        "success": np.where(killed, 0, 1).astype(np.int64),
        "final_state": np.where(killed, "COMPLETED_WALLTIME_REACHED", "COMPLETED_SUCCESSFULLY").astype(object),
        "starting_time": start,
        "execution_time": execution,
        "finish_time": end,
        "waiting_time": start - submit,
        "turnaround_time": turnaround,
        "stretch": stretch,
        "allocated_resources": np.array(schedule.allocated_resources(), dtype=object),
        "consumed_energy": np.full(n, -1, dtype=np.int64),
        "metadata": np.full(n, "", dtype=object),
    }
    assert tuple(cols) == BATSIM_JOBS_COLUMNS
    _write_csv(path, cols)
    return path


def _killed(schedule: Schedule) -> np.ndarray:
    """Which jobs were killed at their time limit (none when the schedule has no ``killed`` column)."""
    if schedule.killed is None:
        return np.zeros(len(schedule), dtype=bool)
    return np.asarray(schedule.killed, dtype=bool)


def _schedule_header(schedule: Schedule, jobs: JobTable) -> list[str]:
    """``jobs``'s header lines without MaxProcs, then the machine and what was simulated."""
    if jobs.header:
        kept = [line for line in jobs.header if not _MAX_PROCS_LINE.fullmatch(line)]
    else:
        kept = [
            f" {key}: {part}"
            for key, value in jobs.metadata.items()
            if key != "MaxProcs"
            for part in str(value).split("\n")
        ]
    # The package's version: clustersched/__init__.py, always imported before this module
    # (an import statement here would close an import circle through the package's lazy exports).
    version = getattr(sys.modules.get("clustersched"), "__version__", "(unknown version)")
    options = ", ".join(f"{k}={v}" for k, v in schedule.options.items())
    return kept + [
        f" MaxProcs: {int(schedule.total_procs)}",
        f" Note: schedule simulated by clustersched {version}: policy {schedule.algorithm or 'unnamed'}"
        + (f" ({options})" if options else ""),
        " Note: fields 3 (wait = start - submit), 4 (run time = end - start), 5 (allocated processors) and"
        " 11 (status 1"
        + (f"; 0 for the {schedule.kills} job(s) killed at their time limit" if schedule.kills else "")
        + ") are the simulated schedule's; the other fields are the input's",
    ]


def _write_csv(path: str | os.PathLike[str], cols: dict[str, np.ndarray]) -> None:
    names = list(cols)
    text = [[_fmt(v) for v in col.tolist()] for col in cols.values()]
    from .._output import atomic_open  # whole or not at all: a full disk leaves no half table

    with atomic_open(path, "w", newline="") as fh:
        writer = csv.writer(fh, lineterminator="\n")
        writer.writerow(names)
        writer.writerows(zip(*text))


def _fmt(value: object) -> str:
    """Integral floats without ``.0``, other floats with ``repr`` (exact), the rest with ``str``."""
    if isinstance(value, float):
        if value.is_integer() and abs(value) < 2**53:
            return str(int(value))
        return repr(value)
    return str(value)
