"""The limits of the DFRS model and simulator, in one place.

RR-7659 studies 128-node clusters, jobs of at most 128 tasks, traces of a
week to three and a half years, a 300 s rescheduling penalty and periods of
600 s to 12,000 s (§5.1, §5.3, §6.4.2).  The limits below are orders of
magnitude beyond that, so no real study meets them; they exist so that every
input the library accepts runs in bounded memory and time, and every other
one is refused *before* any work, by an error naming the limit:
:class:`~clustersched.errors.InvalidWorkloadError` for a job's value (its id,
field and value), :class:`~clustersched.errors.LimitError` (a ``ValueError``)
for an option or a size.

**Sizes.**  A platform has at most :data:`MAX_NODES` nodes, a job at most
:data:`MAX_TASKS` tasks and a job table at most :data:`MAX_TOTAL_TASKS` in
all: the Rust core keeps a few words per node and one per placed task, and
every event reads the node state, so these bound both memory and the time of
an event.  The core checks the same limits (``Cluster::new``,
``Jobs::new``), so that no allocation can fail.

**Times.**  Submit times, processing times, the penalty and the period are at
most :data:`MAX_TIME` seconds (as SWF times, :data:`clustersched.workload.swf.MAX_TIME`),
where float64 still resolves 2**-19 s (about 2 µs); the period is at least
:data:`MIN_PERIOD`, hundreds of float64 steps at any such time, so that
periodic events ``t0 + k * period`` are distinct for every ``k`` (§5.1: the
period of the periodic algorithms).  Durations too small to move the clock
(a processing time or a penalty below the resolution at the time it starts)
are not refused: they are exactly what float64 makes of them (see
:func:`clustersched.dfrs.simulate`, "Time").

**Work.**  A run of a periodic algorithm processes at most
:data:`MAX_PERIODIC_EVENTS` periodic events, and these pack at most
:data:`MAX_PERIODIC_TASKS` tasks in all (each packs every task of every job
in the system; ``simulate(..., max_periodic_events=, max_periodic_tasks=)``
change them).  The paper's largest run, the whole HPC2N trace at a 600 s
period, needs about 2 * 10**5 events and 10**8 tasks.
:func:`~clustersched.dfrs.simulate` checks up front lower bounds of both (a
job stays in the system at least its processing time, longer when it asks
for more CPU than the platform has: :func:`~clustersched.dfrs.simulator.busy_time`,
:func:`~clustersched.dfrs.simulator.periodic_tasks`), and that one penalty
spans fewer periodic events than the limit; a run that still reaches a limit
(jobs slowed down far beyond these bounds) stops with a LimitError.

Examples
--------
>>> MAX_NODES, MAX_TASKS, MAX_TIME, MIN_PERIOD, MAX_PERIODIC_EVENTS
(1048576, 1048576, 10000000000.0, 0.001, 1000000)
"""

from __future__ import annotations

from ..errors import LimitError

__all__ = [
    "MAX_NODES",
    "MAX_NODE_MEMORY_GB",
    "MAX_PERIODIC_EVENTS",
    "MAX_PERIODIC_TASKS",
    "MAX_TASKS",
    "MAX_TIME",
    "MAX_TOTAL_TASKS",
    "MIN_PERIOD",
    "check_limit",
]

#: Most nodes of a platform (2**20; the Rust core's ``dfrs::MAX_NODES``).
MAX_NODES = 2**20
#: Most tasks of one job (2**20; the Rust core's ``dfrs::MAX_TASKS``).
MAX_TASKS = 2**20
#: Most tasks of a whole job table (2**28; the Rust core's ``dfrs::MAX_TOTAL_TASKS``).
MAX_TOTAL_TASKS = 2**28
#: Largest submit time, processing time, penalty and period, s (10**10 s, about 317 years).
MAX_TIME = 1e10
#: Shortest period of the periodic algorithms, s.
MIN_PERIOD = 1e-3
#: Most periodic events of one simulation (default of ``simulate(..., max_periodic_events=)``).
MAX_PERIODIC_EVENTS = 10**6
#: Most tasks the periodic events of one simulation may pack in all (default of
#: ``simulate(..., max_periodic_tasks=)``; a week of HPC2N under the best algorithm packs about 3 * 10**5).
MAX_PERIODIC_TASKS = 10**9
#: Largest memory of a node, GB (a petabyte).
MAX_NODE_MEMORY_GB = 1e6


def check_limit(name: str, value: float, limit: float, where: str) -> None:
    """Raises :class:`~clustersched.errors.LimitError` when ``value > limit``, naming ``where`` the limit is defined.

    >>> check_limit("nodes", 2**32 - 1, MAX_NODES, "MAX_NODES")
    Traceback (most recent call last):
    ...
    clustersched.errors.LimitError: nodes == 4294967295, must be <= 1048576 (clustersched.dfrs.limits.MAX_NODES)
    """
    if value > limit:
        shown = limit if isinstance(limit, int) else f"{limit:g}"
        raise LimitError(
            f"{name} == {value}, must be <= {shown} (clustersched.dfrs.limits.{where})",
            name=name,
            value=value,
            limit=limit,
        )
