"""Time-limit kills: the one rule for inputs whose jobs are killed when they reach their requested time.

Some inputs declare that a job is stopped at its time limit: Batsim kills a
job when it reaches its ``walltime`` (Batsim's documentation, "Workload":
"makes Batsim automatically stop a job that exceeds its walltime"; its
final state is then ``COMPLETED_WALLTIME_REACHED``), and Slurm kills a job at
its time limit.  Others do not: in an SWF trace (the Parallel Workloads
Archive's) the run time is what the job ran, and thousands of HPC2N's jobs
ran past their request, so a trace is replayed as it ran.

A table says which rule holds in its metadata: ``TimeLimit: kill``
(:data:`TIME_LIMIT_KEY`, :data:`KILL`), which
:func:`~clustersched.workload.batsim.read_batsim` sets and which an SWF
header may carry (``; TimeLimit: kill``, so a Batsim workload written as SWF
keeps its rule).  Without it no job is ever killed.

The rule, :func:`time_limited`, shared by the simulator (which runs each job
that long) and the validator (which checks ``end == start + run``), so both
compute the same float: a job with a limit (``time_requested > 0``) whose
run time exceeds it runs exactly its limit and is *killed*; a job without a
limit (``-1``) runs to its end.  A job whose run time *equals* its limit
ends at the same instant either way; it counts as completed here, as
Batsim's documentation ("a job that exceeds its walltime") and its test
oracle (``test/helper.py``: killed when ``requested_time < expected
execution time``) say, and as tracker issue 30 counts Batsim's
``test_walltime.json`` (9 of 22 jobs killed).  Batsim's delay code itself
(``do_delay_task`` in ``src/jobs_execution.cpp``: it sleeps the whole delay
only when ``delay < remaining walltime``) reports such a job
``COMPLETED_WALLTIME_REACHED``: the one case where the final states differ,
never the times.
"""

from __future__ import annotations

import numpy as np

from .jobs import JobTable

__all__ = ["KILL", "TIME_LIMIT_KEY", "kills_at_time_limit", "time_limited"]

#: The metadata key (an SWF header key) that names a table's time-limit rule.
TIME_LIMIT_KEY = "TimeLimit"
#: Its value when jobs are killed at their requested time (SWF field 9, Batsim's ``walltime``).
KILL = "kill"


def kills_at_time_limit(jobs: JobTable) -> bool:
    """Whether ``jobs`` declares that a job is killed at its requested time (metadata ``TimeLimit: kill``).

    Only the first word of the value counts (``kill (as Batsim does)`` is ``kill``), ignoring case.

    Examples
    --------
    >>> t = JobTable({"runtime": [10]}, metadata={"TimeLimit": "kill"})
    >>> kills_at_time_limit(t), kills_at_time_limit(JobTable({"runtime": [10]}))
    (True, False)
    """
    value = jobs.metadata.get(TIME_LIMIT_KEY)
    words = str(value).split() if value is not None else []
    return bool(words) and words[0].lower() == KILL


def time_limited(jobs: JobTable) -> tuple[np.ndarray, np.ndarray]:
    """How long each job of ``jobs`` runs, and which are killed at their time limit (module docstring).

    Returns
    -------
    run : numpy.ndarray of float64
        ``time_requested`` for a killed job, else ``runtime`` (the very array
        when no job is killed).
    killed : numpy.ndarray of bool
        ``kills_at_time_limit(jobs) and time_requested > 0 and runtime > time_requested``.

    Examples
    --------
    >>> t = JobTable({"runtime": [10, 10, 10, 10], "time_requested": [5, 10, 20, -1]},
    ...              metadata={"TimeLimit": "kill"})
    >>> run, killed = time_limited(t)
    >>> run.tolist(), killed.tolist()
    ([5.0, 10.0, 10.0, 10.0], [True, False, False, False])
    >>> time_limited(JobTable(t.columns()))[1].tolist()   # no rule declared: runs to the end
    [False, False, False, False]
    """
    runtime = jobs.runtime
    if not kills_at_time_limit(jobs):
        return runtime, np.zeros(len(jobs), dtype=bool)
    limit = jobs.time_requested
    killed = (limit > 0) & (runtime > limit)
    if not killed.any():
        return runtime, killed
    return np.where(killed, limit, runtime), killed
