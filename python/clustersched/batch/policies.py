"""Batch policies: the built-in names and the interface for policies written in Python."""

from __future__ import annotations

import numbers

import numpy as np

from .. import _core
from .._checks import check_int, lookup
from .._contract import Registry
from ..errors import cannot_start, naming_jobs
from ..workload.jobs import JobTable

__all__ = ["ALGORITHMS", "BUILTIN_POLICIES", "DPSA_POLICIES", "QUEUE_ORDER", "BatchState", "Policy", "policy"]

#: Policies implemented in Rust (``clustersched-core``, ``batch::Builtin``):
#:
#: * ``fcfs`` starts the queue head while it fits;
#: * ``easy`` adds a reservation for the head at its shadow time and backfills,
#:   in queue order, every job that fits now and ends by the shadow time or fits
#:   in the extra processors;
#: * ``easy-arrival`` is EASY that backfills a job only at the time stamp it
#:   arrives: one that does not start then waits until it is the queue head,
#:   even if processors free up that it could have used before the shadow
#:   time. It is a reading of the DFRS paper's EASY baseline (RR-7659 §5.2),
#:   the one whose results are closest to the paper's (docs/reproduce-dfrs.md);
#: * ``conservative`` gives every waiting job a reservation and starts a job
#:   early only into a hole that delays no reservation;
#: * ``sjf`` orders the queue by estimate and starts, in that order, every job
#:   that fits (no reservation: no starvation control, DPSA paper §II);
#: * ``dpsa-p``, ``dpsa-n``, ``dpsa-w`` keep EASY's reservation for the head and
#:   start the subset of waiting jobs that keeps the most processors busy now
#:   (DPSA paper §III), breaking ties by priority, by narrow jobs first, or by
#:   wide jobs first.
#:
#: The list itself is the Rust core's (``Builtin::NAMES``), so a policy added
#: there appears here, in ``simulate`` and on the command line by itself.
BUILTIN_POLICIES: tuple[str, ...] = tuple(_core.BUILTIN_POLICIES)

#: The built-in policies (a :class:`~clustersched._contract.Registry`, the registry type of every problem):
#: each name maps to itself, the name :func:`~clustersched.batch.simulate` runs in Rust.
ALGORITHMS: Registry[str] = Registry("policy", {name: name for name in BUILTIN_POLICIES})


def policy(name: str) -> str:
    """The canonical name of built-in policy ``name`` (case-insensitive, ``-`` and ``_`` alike).

    ValueError listing the names otherwise (:func:`clustersched._checks.lookup`).

    Examples
    --------
    >>> policy("DPSA_P")
    'dpsa-p'
    """
    return lookup("policy", name, ALGORITHMS)


#: The policies that take DPSA's ``node_budget`` and ``time_limit``.
DPSA_POLICIES = tuple(name for name in BUILTIN_POLICIES if name.startswith("dpsa-"))

#: The queue order of each built-in policy ("arrival" for all but ``sjf``).
QUEUE_ORDER: dict[str, str] = dict(_core.BUILTIN_QUEUE_ORDER)


class BatchState:
    """What a :class:`Policy` sees and acts on at a decision point.

    Jobs are referred to by row index in :attr:`jobs` (the table as simulated,
    sorted by submit time).  The policy sees estimates, never actual runtimes.

    Everything here is read-only: :attr:`jobs` is a table of read-only views
    of the simulated columns (often the caller's own arrays, which a write
    would change under the simulation), and ``width``, ``estimate``,
    ``submit`` and ``job_id`` are read-only arrays, so ``state.submit[:] =
    0`` raises numpy's ``ValueError`` ("assignment destination is
    read-only").  A policy that wants scratch arrays copies them
    (``state.estimate.copy()``).

    Attributes
    ----------
    jobs : JobTable
    width, estimate, submit, job_id : numpy arrays, one entry per row of ``jobs``
    """

    def __init__(self, sim: _core.BatchSim, jobs: JobTable, estimate: np.ndarray) -> None:
        self._sim = sim
        self.jobs = _read_only_table(jobs)
        self.width = _read_only(jobs.width())
        self.estimate = _read_only(estimate)
        self.submit = self.jobs.submit
        self.job_id = self.jobs.job_id

    @property
    def now(self) -> float:
        """Current time (s)."""
        return self._sim.now

    @property
    def free(self) -> int:
        """Processors free now."""
        return self._sim.free

    @property
    def total(self) -> int:
        """Processors of the machine."""
        return self._sim.total

    def queue(self) -> np.ndarray:
        """Waiting jobs (row indices) in the policy's queue order."""
        return self._sim.queue()

    def running(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Running jobs as (rows, estimated ends, widths), earliest estimated end first."""
        return self._sim.running()

    def shadow(self, need: int) -> tuple[float, int]:
        """Earliest time ``need`` processors are free by the estimates, and the extra processors then.

        ``need`` is a processor count in ``1 .. total`` (ValueError / TypeError otherwise).  On a
        cluster of nodes a shadow time belongs to a request: use :meth:`shadow_of`.
        """
        return self._sim.shadow(check_int("need", need, 1, self.total))

    def shadow_of(self, job: int) -> float:
        """On a cluster of nodes: the earliest time waiting job ``job`` (a row) finds nodes for its request,
        all its resources on each, as running jobs end at their estimates (EASY's shadow time)."""
        row = check_int("job", job, 0, len(self.jobs) - 1)
        return self._sim.node_shadow(row)

    def node_free(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """On a cluster of nodes: what each node has free now, as (cores, memory MB, generic resources);
        the last is nodes x kinds, in the order of the run's ``NodeAllocation.kinds``."""
        cores, memory, gres = self._sim.node_free()
        return cores, memory, gres.reshape(len(cores), -1)

    def start(self, job: int) -> None:
        """Starts waiting job ``job`` (a row of :attr:`jobs`) now on the lowest-numbered free processors
        (on a cluster of nodes: where the placement rule puts it, ``Nodes::place`` in the core).

        Raises :class:`clustersched.errors.InfeasibleError` if it is not waiting
        (not yet submitted, already started, or no such row) or does not fit,
        with the job's ``row`` and ``job_id``; TypeError if ``job`` is not an
        integer.
        """
        if isinstance(job, (bool, np.bool_)) or not isinstance(job, numbers.Integral):
            raise TypeError(f"job == {job!r}, must be a row index (an integer)")
        row = int(job)
        if not 0 <= row < len(self.jobs):
            raise cannot_start(row, self.now, "missing")
        with naming_jobs(self.jobs.job_id):
            self._sim.start(row)


class Policy:
    """Base class of batch policies written in Python.

    Subclass it and implement :meth:`schedule`, which the simulator calls once
    per time stamp, after that time stamp's completions and arrivals; start
    jobs there with ``state.start(job)``.  Pass an instance to
    :func:`clustersched.batch.simulate`.

    Examples
    --------
    Shortest estimated job first, without reservations:

    >>> import numpy as np
    >>> from clustersched import JobTable, simulate
    >>> from clustersched.batch import Policy
    >>> class ShortestFirst(Policy):
    ...     name = "sjf-no-reservation"
    ...     def schedule(self, state):
    ...         waiting = state.queue()
    ...         for job in waiting[np.argsort(state.estimate[waiting], kind="stable")]:
    ...             if state.width[job] <= state.free:
    ...                 state.start(job)
    >>> t = JobTable({"submit": [0, 0, 0], "runtime": [9, 5, 1], "procs": [2, 2, 2]},
    ...              metadata={"MaxProcs": "2"})
    >>> simulate(t, ShortestFirst()).schedule.start.tolist()
    [6.0, 1.0, 0.0]
    """

    #: Name reported in schedules and summaries.
    name: str = "custom"
    #: Order of ``state.queue()``: "arrival" or "shortest-estimate" (ties: arrival).
    order: str = "arrival"

    def schedule(self, state: BatchState) -> None:
        """Decides at one time stamp: call ``state.start(job)`` for each job to start now."""
        raise NotImplementedError(f"{type(self).__name__} must implement schedule(state)")


def _read_only(array: np.ndarray) -> np.ndarray:
    """A read-only view of ``array`` (the array itself stays writable for its owner)."""
    view = array.view()
    view.flags.writeable = False
    return view


def _read_only_table(jobs: JobTable) -> JobTable:
    """A JobTable of read-only views of ``jobs``'s columns, with copies of its metadata and header."""
    return JobTable(
        {name: _read_only(column) for name, column in jobs.columns().items()},
        metadata=dict(jobs.metadata),
        header=list(jobs.header),
        source=jobs.source,
        dropped=jobs.dropped,
    )
