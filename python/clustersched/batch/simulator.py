"""Online simulation of rigid jobs on a homogeneous cluster.

The machine state (free processors, the backfilling availability profile, the
event and waiting queues) lives in one Rust object, ``clustersched._core.BatchSim``,
updated incrementally.  Built-in policies run their whole event loop in Rust
(the fast path: no Python per event); a :class:`Policy` written in Python is
driven by a Python loop over the very same object, one call per time stamp.

Semantics (the choices peers differ on, named and documented):

* **Events.** At each time stamp every completion is applied, then every
  arrival (joining the back of the queue in submit order, ties by row order),
  and only then does the policy run.
* **Priority.** The waiting queue is in arrival order (first come, first served),
  except for ``sjf`` (shortest estimate first, ties by arrival).
* **Estimates** (``estimates=``): ``"requested"`` (default) — the scheduler
  believes a job runs ``max(requested time, runtime)`` when a request exists
  (SWF field 9 > 0), else its runtime; ``"exact"`` — it believes the runtime
  (as in the DFRS paper, §5.2).  Taking the max means a job never outlives its
  estimate.
* **Time-limit kills** are the input's rule
  (:mod:`clustersched.workload.timelimit`): a table that declares them
  (metadata ``TimeLimit: kill``, as every Batsim workload read by
  :func:`~clustersched.workload.batsim.read_batsim` does) runs a job whose
  runtime exceeds its requested time for exactly its requested time, and
  :attr:`Schedule.killed <clustersched.batch.Schedule.killed>` marks it;
  the run time both estimates start from is then that limited run time.  A
  table without the rule (an SWF trace: thousands of HPC2N's jobs ran past
  their request) runs every job to its end, and its schedule's ``killed``
  is None.
* **Reservations** (EASY, DPSA) are counted in processors, not tied to
  particular processors: a backfilled job may use any free processor as long
  as the head job still finds enough at its shadow time.  On a homogeneous
  cluster this is what a reservation by node gives when the head reserves
  the processors its predecessors release by the shadow time before any
  currently free one: the free processors left unreserved are then exactly
  ``min(free, extra)``, and each job that outlives the shadow time takes from
  them.  Reserving free processors first would only forbid backfills, so no
  separate "by node" option is offered.  DPSA's "processors
  of least availability" (Fig. 2 line 23) follow from that count: of the free
  processors, ``min(free, extra)`` are unreserved and the rest are reserved
  for the head, and a job that ends by the shadow time takes reserved ones
  first.  Conservative backfilling reserves for every job on a profile of
  processor counts.  :attr:`BatchRun.reservations` holds the first
  reservation each job was given; no policy ever starts a job after it.
* **DPSA's time bound** is a deterministic budget of explored subsets per
  decision (``node_budget``, ``1 .. 2**64 - 1``, default one million:
  ``DEFAULT_NODE_BUDGET`` of the Rust core; the search visits at most one node
  per candidate job, so only decisions among over a million eligible jobs are
  ever cut).  The search's table of subset sums is sized by the candidates'
  widths, never by the machine (4 jobs on 2**32 - 1 processors decide in
  microseconds); in the one case where no table fits its limit (thousands of
  wide jobs of distinct widths on billions of processors) DPSA runs Fig. 2's
  plain depth-first search, whose every candidate looked at counts against
  the budget, and a cut decision starts the best subset found so far;
  ``time_limit`` (seconds per decision, finite, ``> 0`` and at most
  one day, :data:`MAX_TIME_LIMIT`) adds a wall-clock bound, which makes
  results machine-dependent.  Decisions cut by either are counted in
  :attr:`BatchRun.search`.  Both options belong to DPSA: giving them
  with another policy is an error rather than silently ignored.
* **Oversized jobs** (``oversized=``), wider than the machine: ``"error"``
  (default) raises, ``"skip"`` leaves them out and ``"clip"`` runs them on the
  whole machine, both through
  :func:`~clustersched.workload.transform.drop_invalid` (``wider="drop"`` /
  ``"clip"``), so each is reported in :attr:`BatchRun.dropped` with
  the reason ``"wider than machine"`` or ``"clipped to machine size"``.
* **Invalid jobs** (unknown runtime, no processor count) raise; clean a trace
  first with :func:`clustersched.workload.transform.drop_invalid`
  (``drop_invalid(jobs)``, or ``drop_invalid(jobs, procs)`` for a machine
  size the header does not give), which records what it drops
  (``drop_summary()``); on the command line, ``--drop-invalid``.
* **Processors** are numbered ``0..P-1``; a job takes the lowest-numbered free
  ones, recorded as runs of consecutive ids.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING, Any, Callable, Iterable

import numpy as np

from .. import _core
from .._checks import MAX_PROCS, check_choice, check_float, check_int, lookup, short_repr
from .._contract import Seed, check_seed, validate_default
from ..errors import InfeasibleError, InvalidWorkloadError, naming_jobs
from ..workload.jobs import Dropped, JobTable
from ..workload.timelimit import kills_at_time_limit, time_limited
from ..workload.transform import drop_invalid
from .policies import BUILTIN_POLICIES, DPSA_POLICIES, QUEUE_ORDER, BatchState, Policy
from .schedule import Schedule
from .validate import validate_batch

if TYPE_CHECKING:
    import pandas

    from ..platform import NodeCluster
    from ..slurm.scheduler import SlurmScheduler
    from ..workload.requests import Requests
    from .metrics import BatchMetrics
    from .nodes import NodeAllocation

__all__ = ["BatchRun", "estimates_of", "run", "simulate"]

ESTIMATES = ("requested", "exact")
OVERSIZED = ("error", "skip", "clip")
#: Largest DPSA ``time_limit``: one day per decision (a longer one is a mistake,
#: and the Rust core's clock cannot represent every float).
MAX_TIME_LIMIT = 86400.0
#: Largest DPSA ``node_budget`` (the Rust core counts nodes in ``u64``).
MAX_NODE_BUDGET = 2**64 - 1
#: Time stamps the Rust loop runs between two progress-bar updates.
_PROGRESS_CHUNK = 20_000
#: Seconds a simulation runs before its progress bar appears: a shorter run is
#: over before a bar could help, and loading tqdm alone takes about 30 ms.
_PROGRESS_DELAY = 0.5


@dataclass(frozen=True)
class BatchRun:
    """What :func:`simulate` and :func:`run` return.

    Attributes
    ----------
    algorithm : str
        The policy: a built-in policy's canonical name, or a Python policy's ``name``.
    schedule : Schedule
        One row per simulated job, in the order of :attr:`jobs`.
    jobs : JobTable
        The jobs as simulated: the input sorted by submit time (stable), without
        skipped jobs, with clipped widths.
    dropped : tuple of Dropped
        Jobs skipped or clipped under ``oversized=``, each with the reason.
    events : int
        Time stamps processed.
    reservations : numpy.ndarray
        First reservation given to each job (NaN where none was): the head's
        shadow time under EASY and DPSA, every job's under conservative.
    search : dict
        DPSA's subset searches: ``decisions``, ``cut`` (stopped by the budget or
        time limit), ``nodes``, ``max_nodes``, ``decision_seconds`` (array).
    seconds : float
        Wall-clock seconds of the simulation alone (reading, validation and
        metrics excluded).
    """

    algorithm: str
    schedule: Schedule
    jobs: JobTable
    dropped: tuple[Dropped, ...]
    events: int
    reservations: np.ndarray
    search: dict
    seconds: float
    #: Under Slurm's scheduler (``policy="slurm"``): each job's priority factors when it started (``age``,
    #: ``fairshare``, ``priority``, ``decided``: the time of the calculation in force), what the passes did
    #: (``main_passes``, ``backfill_passes``, ``main_starts``, ``backfill_starts``, ``recalculations``, and
    #: ``backfill_depth`` / ``backfill_try_depth``: jobs the backfill passes tested / searched a start for, as
    #: ``sdiag`` counts them), the notes on associations added, and with ``log=True`` every calculation
    #: (``log_*`` arrays); else None.
    slurm: dict | None = None

    @cached_property
    def metrics(self) -> "BatchMetrics":
        """The schedule's :func:`~clustersched.batch.metrics.batch_metrics` (computed on first use)."""
        from .metrics import batch_metrics

        return batch_metrics(self.schedule)

    def summary(self) -> dict[str, Any]:
        """Policy, the schedule's :func:`~clustersched.batch.metrics.batch_metrics` summary and the
        simulation time as a flat dict (JSON / DataFrame ready)."""
        return {"algorithm": self.algorithm, **self.metrics.summary(), "seconds": self.seconds}

    def to_pandas(self) -> "pandas.DataFrame":
        """:meth:`summary` as a one-row DataFrame, names with units (``wall_s`` is ``seconds``, the simulation's
        wall-clock time).

        Concatenate runs with ``pandas.concat([r.to_pandas() for r in runs], ignore_index=True)``; the
        schedule's rows are ``run.schedule.to_pandas(run.jobs)``.  pandas is optional: ``pip install
        "clustersched[pandas]"``.

        Examples
        --------
        >>> import clustersched as cs
        >>> jobs = cs.read_swf(cs.sample_trace())
        >>> df = cs.simulate(jobs, "easy").to_pandas()
        >>> df.columns.tolist()  # doctest: +NORMALIZE_WHITESPACE
        ['algorithm', 'jobs', 'avg_wait_s', 'max_wait_s', 'avg_response_s', 'avg_bounded_slowdown',
        'max_bounded_slowdown', 'utilization', 'makespan_s', 'p50_wait_s', 'p90_wait_s', 'p99_wait_s',
        'p50_bounded_slowdown', 'p90_bounded_slowdown', 'p99_bounded_slowdown', 'p50_response_s',
        'p90_response_s', 'p99_response_s', 'killed', 'wall_s']
        >>> df.loc[0, "algorithm"], int(df.loc[0, "jobs"])
        ('easy', 2406)
        """
        from .._pandas import summary_frame

        return summary_frame(self.summary())


def estimates_of(jobs: JobTable, estimates: str = "requested") -> np.ndarray:
    """The run times the scheduler believes (see the module docstring).

    The run time is the one the table's time-limit rule gives
    (:func:`~clustersched.workload.timelimit.time_limited`): a job killed at
    its requested time runs, and is believed to run, that long.
    """
    check_choice("estimates", estimates, ESTIMATES)
    run, _ = time_limited(jobs)
    if estimates == "exact":
        return run.copy()
    return np.where(jobs.time_requested > 0, np.maximum(jobs.time_requested, run), run)


def simulate(
    jobs: JobTable,
    policy: str | Policy = "easy",
    *,
    procs: int | None = None,
    platform: "NodeCluster | None" = None,
    memory: bool | None = None,
    estimates: str = "requested",
    oversized: str = "error",
    node_budget: int | None = None,
    time_limit: float | None = None,
    progress: bool = False,
    validate: bool | None = None,
) -> BatchRun:
    """Simulates ``policy`` on ``jobs`` and returns the schedule.

    Parameters
    ----------
    jobs : JobTable
        Rigid jobs: submit (field 2), runtime (field 4), processors (field 5,
        else field 8), requested time (field 9).
    policy : str or Policy
        A built-in policy name (run in Rust; see
        :data:`~clustersched.batch.policies.BUILTIN_POLICIES`, looked up
        ignoring case with ``-`` and ``_`` alike) or a :class:`Policy` instance.
    procs : int, optional
        Processors of the cluster; default the table's ``MaxProcs`` header.
    platform : NodeCluster, optional
        A cluster of nodes (cores, memory, GPUs, features, partitions) instead of a pool of ``procs``
        processors: each job's request (the table's ``requests``, else
        :meth:`Requests.from_swf <clustersched.workload.requests.Requests.from_swf>`) is resolved
        against its partition (:mod:`clustersched.batch.nodes`) and placed on nodes by the Rust core.
        ``dpsa-*`` policies are refused on nodes (their search counts processors).
    memory : bool, optional
        On nodes, whether memory is a resource (Slurm's ``CR_Core_Memory``).  Default: on for tables
        with requests (read from Slurm's files), off for SWF tables, whose field 10 it then reads.
    estimates : {"requested", "exact"}
        Which run time the policy believes (module docstring).
    oversized : {"error", "skip", "clip"}
        What to do with jobs wider than the machine (module docstring).
    node_budget : int, optional
        DPSA's budget of explored subsets per decision, ``1 .. 2**64 - 1``
        (default one million; module docstring).  Only with a DPSA policy.
    time_limit : float, optional
        DPSA's wall-clock bound per decision, seconds, ``> 0`` and at most
        86400 (one day).  Only with a DPSA policy.
    progress : bool
        Show a tqdm progress bar (jobs started of all) once the simulation has run for half a second, on a
        terminal or in a notebook (never into a redirected stderr).
    validate : bool, optional
        Check the schedule with :func:`clustersched.validate.validate_batch`
        before returning it (raises on any violation).  Default: on when the
        environment variable ``CLUSTERSCHED_VALIDATE`` is ``1`` (the test suite
        sets it, so every schedule a test makes is checked), off otherwise.

    Examples
    --------
    >>> from clustersched import JobTable, simulate
    >>> t = JobTable({"submit": [0, 1, 2], "runtime": [10, 5, 5], "procs": [3, 4, 1]},
    ...              metadata={"MaxProcs": "4"})
    >>> simulate(t, "easy").schedule.start.tolist()
    [0.0, 10.0, 2.0]
    """
    if not isinstance(jobs, JobTable):
        raise TypeError(f"jobs == {short_repr(jobs)}, must be a clustersched JobTable (e.g. read_swf(path))")
    check_choice("oversized", oversized, OVERSIZED)
    slurm = _slurm_scheduler(policy)
    if slurm is not None:
        if platform is None:
            raise ValueError(
                "policy 'slurm' is Slurm's scheduler over a cluster of nodes: give platform= (e.g. "
                "clustersched.slurm.read_slurm_conf(path).platform)"
            )
        policy = slurm.name
    elif isinstance(policy, str):
        policy = lookup("policy", policy, BUILTIN_POLICIES)
    elif not isinstance(policy, Policy):
        raise TypeError(f"policy must be a name or a clustersched.batch.Policy, got {type(policy).__name__}")
    for option, value in (("node_budget", node_budget), ("time_limit", time_limit)):
        if value is not None and policy not in DPSA_POLICIES:
            name = policy if isinstance(policy, str) else getattr(policy, "name", type(policy).__name__)
            raise ValueError(
                f"{option} == {value!r} bounds DPSA's subset search, but policy {name!r} has none "
                f"(give it only with {', '.join(DPSA_POLICIES)})"
            )
    if node_budget is not None:
        node_budget = check_int("node_budget", node_budget, 1, MAX_NODE_BUDGET)
    if time_limit is not None:
        time_limit = check_float("time_limit", time_limit, positive=True, maximum=MAX_TIME_LIMIT)
    if platform is not None:
        if procs is not None:
            raise ValueError(f"procs == {procs!r} and a platform were given: the platform's nodes are the machine")
        if isinstance(policy, str) and policy in DPSA_POLICIES:
            raise ValueError(
                f"policy {policy!r} chooses among processor counts (DPSA's subset-sum search): it runs on a "
                "processor pool (procs=), not on a cluster of nodes"
            )
        total = _platform_cores(platform)
    else:
        if memory is not None:
            raise ValueError(f"memory == {memory!r} is an option of a cluster of nodes (platform=)")
        total = _machine_size(jobs, procs)
    table, dropped = prepare_jobs(jobs, total, oversized)
    estimate = estimates_of(table, estimates)
    run, killed = time_limited(table)  # the one rule, which the validator applies too
    width = table.width()
    order = "arrival" if slurm is not None else QUEUE_ORDER[policy] if isinstance(policy, str) else policy.order
    times = (
        np.ascontiguousarray(table.submit, dtype=np.float64),
        np.ascontiguousarray(run, dtype=np.float64),
        np.ascontiguousarray(estimate, dtype=np.float64),
    )
    resolved = None
    with naming_jobs(table.job_id):
        if platform is None:
            sim = _core.BatchSim(*times, np.ascontiguousarray(width, dtype=np.int64), total, order)
        else:
            from .nodes import resolve_requests

            resolved = resolve_requests(
                _requests_of(table, memory),
                platform,
                memory=table.requests is not None if memory is None else memory,
                slurm_defaults=table.requests is not None,
                job_id=table.job_id,
            )
            sim = _core.BatchSim.on_nodes(*times, resolved.nodes, resolved.requests, order)
    slurm_info = None
    if slurm is not None:
        params, arrays, parent, shares, notes = slurm.core_arrays(table, resolved, platform)
    began = time.perf_counter()
    with _progress_bar(progress, len(table)) as bar:
        if slurm is not None:
            name = slurm.name
            slurm_info = sim.run_slurm(params, arrays, parent, shares, slurm.log)
            slurm_info["notes"] = tuple(notes)
        elif isinstance(policy, str):
            name = policy
            _run_builtin(sim, lambda n: sim.run(policy, n, node_budget, time_limit), bar)
        else:
            name = policy.name
            _drive(sim, policy, BatchState(sim, table, estimate), bar)
    seconds = time.perf_counter() - began
    if not sim.finished:
        waiting = sim.queue()
        raise InfeasibleError(
            f"policy {name!r} left {len(waiting)} job(s) waiting on an idle machine "
            f"with no event left (first: job id {table.job_id[waiting[0]]})"
        )
    starts = sim.starts()
    placed: dict[str, Any] = {}
    if resolved is None:
        offsets, first, count = sim.assignment()
        placed = {"proc_offsets": offsets, "proc_first": first, "proc_count": count}
    else:
        placed["nodes"] = _allocation(sim, platform, resolved)
        width = _cores_held(placed["nodes"], resolved.requests) if len(table) else width
    schedule = Schedule(
        job_id=table.job_id,
        submit=table.submit,
        start=starts,
        end=starts + run,
        procs=width,
        total_procs=total,
        **placed,
        algorithm=name,
        options={"estimates": estimates, "oversized": oversized},
        killed=killed if kills_at_time_limit(table) else None,
    )
    if validate_default(validate):
        validate_batch(schedule, table)
    return BatchRun(
        algorithm=name,
        schedule=schedule,
        jobs=table,
        dropped=dropped,
        events=sim.events,
        reservations=sim.reservations(),
        search=sim.search_stats(),
        seconds=seconds,
        slurm=slurm_info,
    )


def run(
    workload: JobTable,
    platform: int | None,
    algorithm: str | Policy,
    *,
    seed: Seed = None,
    validate: bool | None = None,
    **options: Any,
) -> BatchRun:
    """The problem contract's entry point (:mod:`clustersched._contract`): :func:`simulate` of ``algorithm``
    on ``workload`` with ``platform`` processors.

    Parameters
    ----------
    workload : JobTable
    platform : int or None
        Processors of the cluster (``procs``); None reads the table's ``MaxProcs`` header.
    algorithm : str or Policy
        A name of :data:`~clustersched.batch.ALGORITHMS` or a :class:`Policy`.
    seed : int or numpy.random.Generator, optional
        Checked, and unused: no built-in policy makes a random choice.
    validate : bool, optional
        As for :func:`simulate` (default: the ``CLUSTERSCHED_VALIDATE`` environment variable).
    **options
        The keyword-only options of :func:`simulate` (``estimates``, ``oversized``, ``node_budget``, ...).

    Examples
    --------
    >>> from clustersched import JobTable
    >>> from clustersched.batch import run
    >>> t = JobTable({"submit": [0, 1, 2], "runtime": [10, 5, 5], "procs": [3, 4, 1]})
    >>> r = run(t, 4, "EASY")
    >>> r.algorithm, r.schedule.start.tolist()
    ('easy', [0.0, 10.0, 2.0])
    """
    check_seed(seed)
    return simulate(workload, algorithm, procs=platform, validate=validate, **options)


def _slurm_scheduler(policy: object) -> "SlurmScheduler | None":
    """The Slurm scheduler ``policy`` names (``"slurm"``: Slurm's defaults), or None for any other policy."""
    if isinstance(policy, str) and policy.strip().lower() == "slurm":
        from ..slurm.scheduler import SlurmScheduler

        return SlurmScheduler()
    if type(policy).__name__ == "SlurmScheduler":
        from ..slurm.scheduler import SlurmScheduler

        return policy if isinstance(policy, SlurmScheduler) else None
    return None


def _run_builtin(sim: _core.BatchSim, run: "Callable[[int | None], bool]", bar: "_Bar | None") -> None:
    """The fast path: the whole event loop in Rust, paused only to move the progress bar.

    ``BatchSim.run`` looks at Python's signals every 50 ms of its run (taking
    the GIL back for a moment), so a Ctrl-C, or the ``clustersched`` command's
    SIGTERM handler, stops even one long call at once with its exception.
    """
    if bar is None:
        run(None)
        return
    while True:
        before = sim.events
        done = run(_PROGRESS_CHUNK)
        bar.update_to(sim)
        if done or sim.events == before:
            return


def _drive(sim: _core.BatchSim, policy: Policy, state: BatchState, bar: "_Bar | None") -> None:
    """The Python event loop for user policies: one ``policy.schedule`` call per time stamp."""
    while sim.advance() is not None:
        policy.schedule(state)
        if bar is not None and sim.events % _PROGRESS_CHUNK == 0:
            bar.update_to(sim)
    if bar is not None:
        bar.update_to(sim)


def _platform_cores(platform: Any) -> int:
    from ..platform import NodeCluster

    if not isinstance(platform, NodeCluster):
        raise TypeError(
            f"platform == {short_repr(platform)}, must be a clustersched.platform.NodeCluster "
            "(e.g. read_slurm_conf(path).platform); a processor pool is procs="
        )
    return check_int("the platform's cores", platform.total_cores, 1, MAX_PROCS)


def _requests_of(table: JobTable, memory: bool | None) -> "Requests":
    from ..workload.requests import Requests

    if table.requests is not None:
        return table.requests
    return Requests.from_swf(table, memory=bool(memory))


def _allocation(sim: _core.BatchSim, platform: Any, resolved: Any) -> "NodeAllocation":
    from .nodes import NodeAllocation

    offsets, node, tasks, cores, memory, gres = sim.node_assignment()
    return NodeAllocation(
        platform=platform,
        offsets=offsets,
        node=node,
        tasks=tasks,
        cores=cores,
        memory_mb=memory,
        gres=gres.reshape(len(node), len(resolved.kinds)),
        kinds=resolved.kinds,
        requests=resolved.requests,
        no_memory=resolved.no_memory,
    )


def _cores_held(allocation: "NodeAllocation", requests: dict[str, np.ndarray]) -> np.ndarray:
    """The cores each job held on its nodes: its tasks x cpus_per_task, except where an exclusive job took
    whole nodes (summed over its shares only then: a reduceat over HPC2N's 700,000 shares takes 2-3 ms)."""
    if requests["exclusive"].any():
        return np.add.reduceat(allocation.cores, allocation.offsets[:-1])
    return requests["tasks"] * requests["cpus_per_task"]


def _machine_size(jobs: JobTable, procs: int | None) -> int:
    if procs is not None:
        return check_int("procs", procs, 1, MAX_PROCS)
    size = jobs.max_procs
    if size is None or size < 1:
        raise InvalidWorkloadError(
            "the header gives no MaxProcs (or MaxNodes); pass the machine size (procs=, or --procs)",
            path=jobs.source,
        )
    return size


def prepare_jobs(jobs: JobTable, total: int, oversized: str) -> tuple[JobTable, tuple[Dropped, ...]]:
    """Sorts by submit, checks every job, and applies the oversized rule."""
    if len(jobs) == 0:
        raise InvalidWorkloadError("the job table is empty", path=jobs.source)
    # A trace is nearly always in submit order already; it is then used as it is,
    # since copying every column of a large trace costs as much as simulating it.
    in_order = bool(np.all(jobs.submit[1:] >= jobs.submit[:-1]))
    order = None if in_order else np.argsort(jobs.submit, kind="stable")
    table = jobs if order is None else jobs.select(order)
    width = table.width()
    _reject_first(table, order, (width <= 0), "procs", width, "has no processor count (fields 5 and 8 are <= 0)", total)
    _reject_first(
        table, order, ~(table.runtime >= 0), "runtime", table.runtime, "has an unknown or negative runtime", total
    )
    _reject_first(table, order, ~(table.submit >= 0), "submit", table.submit, "has a negative submit time")
    wide = width > total
    if not wide.any():
        return table, ()
    if oversized == "error":
        rows = np.flatnonzero(wide)
        i = int(rows[0])
        raise InvalidWorkloadError(
            f"needs {width[i]} processors but the machine has {total} "
            f"({len(rows)} job(s) are too wide; use oversized='skip' or 'clip')",
            path=jobs.source,
            row=i if order is None else int(order[i]),
            job_id=int(table.job_id[i]),
            field="procs",
            value=int(width[i]),
        )
    # Every job has a processor count by now, so drop_invalid acts on the wide ones only.
    before = len(table.dropped)
    table = drop_invalid(table, total, wider="drop" if oversized == "skip" else "clip", nonpositive_runtime="keep")
    if len(table) == 0:
        raise InvalidWorkloadError(f"every job is wider than the machine ({total} processors)", path=jobs.source)
    return table, table.dropped[before:]


def _reject_first(
    table: JobTable,
    order: np.ndarray | None,
    bad: np.ndarray,
    field: str,
    values: np.ndarray,
    what: str,
    procs: int | None = None,
) -> None:
    """InvalidWorkloadError naming the first ``bad`` job (its row in the table given: ``order[i]`` when
    ``table`` is that table sorted by ``order``); with ``procs``, the call (and the command-line option)
    that removes such jobs, as it can be run."""
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        remedy = (
            ""
            if procs is None
            else (
                f": clustersched.workload.drop_invalid(jobs, procs={procs}) removes and counts them; "
                "on the command line, --drop-invalid"
            )
        )
        raise InvalidWorkloadError(
            f"{what} (value {values[i]}; {int(bad.sum())} such job(s){remedy})",
            path=table.source,
            row=i if order is None else int(order[i]),
            job_id=int(table.job_id[i]),
            field=field,
            value=values[i].item(),
        )


class _Bar:
    """A tqdm bar over the jobs started, made at the first update after :data:`_PROGRESS_DELAY`.

    Drawn only on a terminal or in a notebook (tqdm's ``disable=None``), never into a redirected stderr;
    it counts jobs started of all, without a rate: the bar appears once half a second has gone and the
    count jumps from the chunk updates, so tqdm's rate would read as hundreds of millions of jobs a second.
    """

    _FORMAT = "{desc}: {percentage:3.0f}%|{bar}| {n_fmt}/{total_fmt} jobs started [{elapsed}]"

    def __init__(self, total: int) -> None:
        self._total = total
        self._began = time.perf_counter()
        self._tqdm: Any = None

    def update_to(self, sim: _core.BatchSim) -> None:
        if self._tqdm is None:
            if time.perf_counter() - self._began < _PROGRESS_DELAY:
                return
            from tqdm.auto import tqdm

            self._tqdm = tqdm(total=self._total, unit="job", desc="simulating", disable=None, bar_format=self._FORMAT)
        self._tqdm.n = int(np.count_nonzero(~np.isnan(sim.starts())))
        self._tqdm.refresh()

    def close(self) -> None:
        if self._tqdm is not None:
            self._tqdm.close()


class _progress_bar:
    """Context manager giving a :class:`_Bar`, or None when progress is off."""

    def __init__(self, enabled: bool, total: int) -> None:
        self._bar = _Bar(total) if enabled else None

    def __enter__(self) -> "_Bar | None":
        return self._bar

    def __exit__(self, *exc: Iterable[object]) -> None:
        if self._bar is not None:
            self._bar.close()
