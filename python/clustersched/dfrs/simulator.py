"""Event-driven simulation of DFRS (RR-7659 §4 and §5.1).

The event loop is here, in Python (:meth:`_Simulation.run` reads as the
semantics below); the state it works on lives in the Rust core
(``clustersched._core.DfrsState``, ``clustersched_core::dfrs::sim``): the
nodes (which tasks are where, memory and CPU loads), the dynamic state of
every job (virtual time, yield, penalty, completion estimate, priority), the
packing decisions (Greedy, GreedyP, GreedyPM, MCB8, MCB8-stretch, max-min
allocations) and the segments of the schedule, updated in place.  The loop
makes one call per step of an event (advance, complete, arrive, act, commit,
share the CPU), never one per job, and the core evaluates time with the one
rounding rule of :mod:`~clustersched.dfrs.model` (:func:`~clustersched.dfrs.model.progress`,
:func:`~clustersched.dfrs.model.completion_time`); the schedule is assembled
at the end by :func:`~clustersched.dfrs.recording.schedule_from_segments`.

Semantics (the choices the paper leaves open, named and documented):

* **Events** follow the batch simulator's rule (:mod:`clustersched.batch.simulator`):
  at each time stamp every completion is applied, then every arrival (in
  submission order), and only then does the algorithm act: the submission
  action for each arrival in submission order (new jobs have the highest
  priority), then the completion action (if a job completed and the
  algorithm is opportunistic, ``*``) on the jobs still waiting, then the
  periodic action (if the time stamp is a periodic one).  MCB8, which maps
  every job at once, runs once when it is due on submission and/or on
  completion at one time stamp.  Periodic events are
  at ``t0 + k * period`` (``t0`` the first submission, ``k >= 1`` an integer
  counter that only grows); those that fall while no job is in the system
  are skipped.  A completion due at the time stamp being processed (a
  processing time of 0, or work left below float64's resolution) is
  handled within it: its completion action runs, and the CPU is shared
  again, before time moves on (see :func:`simulate`, "Time").
* **Work.** A job of processing time ``p`` completes once it has received
  ``p`` seconds of *virtual time*: it progresses at its yield while placed
  and not in a penalty.  Virtual time (§4.1) is this progress: the time
  integral of the yield outside penalties.  Flow time is the time since
  submission.
* **Priority** (§4.1) is ``flow time / virtual time**2``; a job with no
  virtual time yet has infinite priority; ties go to the earlier submission.
* **Greedy** places the tasks of a job one at a time on the node with enough
  free memory and the lowest CPU load (sum of the CPU needs of its tasks),
  ties by node index; several tasks of a job may share a node.  On
  submission, Greedy places the new job if it fits, else it waits.  On a
  completion (``*``), Greedy tries the waiting jobs (never started, or
  paused) in decreasing priority order.
* **GreedyP / GreedyPM** (on submission) may pause running jobs of *lower
  priority* than the new job (§4.2; see
  ``clustersched_core::dfrs::greedy::greedy_preempt``); GreedyPM re-places a
  job marked for pausing by Greedy when it fits.
* **MCB8** (on submission, on completion with ``MCB8 *``, or periodically)
  re-maps every job in the system (running, paused, waiting) from scratch,
  in priority order, dropping the lowest-priority jobs it cannot fit
  (``clustersched_core::dfrs::mcb8``); with ``minvt=B`` (``minft=B``), every
  job running at the start of the time stamp whose virtual (flow) time is
  below ``B`` keeps the nodes it had then if it stays (even if GreedyP paused
  it for a job submitted at the same time stamp).  MCB8-stretch (``/stretch-per``) uses the period as the time to the
  next event.
* **Allocation** (§4.6, §4.7) is recomputed at every event, on the mapping
  the actions left (an event without an action still re-shares the CPU the
  completions freed).  ``/stretch-per`` computes its estimated stretches
  with the time left to the next periodic event.  ``opt=avg``'s LP (2)
  depends on the mapping alone (the jobs placed, their tasks per node, their
  CPU needs), so an event that leaves the mapping as it was (a periodic
  event whose MCB8 maps the same jobs the same way) reuses the last
  solution instead of solving it again: the same yields, bit for bit, and a
  periodic event costs what packing its jobs costs.
* **Penalty.** A job placed again after having been paused (a resume), and
  a running job whose nodes change (a migration; nodes compared as the
  multiset of its tasks' nodes), make no progress for ``penalty`` seconds
  (default :data:`~clustersched.dfrs.algorithms.DEFAULT_PENALTY`, 300 s,
  §5.1); a change of CPU share alone costs nothing, and so does a job's
  first start.  A move during a penalty starts a new one.  A
  job paused and placed again at the same time stamp on the same nodes was
  never stopped.  The algorithms do not know about the penalty.
* **Completion.** A job completes at the instant its virtual time reaches
  its processing time (computed exactly from its yield and penalty end); a
  job of processing time 0 completes when first placed.
"""

from __future__ import annotations

import math
import time
from typing import Any

import numpy as np

from .. import _core
from .._checks import check_float, check_int
from .._contract import Seed, check_seed, validate_default
from ..errors import InfeasibleError, LimitError, naming_jobs
from .algorithms import (
    ALGORITHMS,
    BASELINES,
    DEFAULT_PENALTY,
    DEFAULT_PERIOD,
    DfrsAlgorithm,
    baseline_name,
    parse_algorithm,
)
from .baselines import simulate_batch
from .limits import MAX_PERIODIC_EVENTS, MAX_PERIODIC_TASKS, MAX_TIME, MIN_PERIOD, check_limit
from .model import DfrsJobs, DfrsPlatform
from .recording import schedule_from_segments
from .result import DfrsRun

__all__ = [
    "DEFAULT_PENALTY",
    "DEFAULT_PERIOD",
    "DfrsRun",
    "busy_time",
    "periodic_tasks",
    "shortest_stay",
    "run",
    "simulate",
]


def simulate(
    jobs: DfrsJobs,
    platform: DfrsPlatform,
    algorithm: str | DfrsAlgorithm = "GreedyPM */per/opt=min/minvt=600",
    *,
    penalty: float = DEFAULT_PENALTY,
    period: float = DEFAULT_PERIOD,
    validate: bool | None = None,
    max_periodic_events: int = MAX_PERIODIC_EVENTS,
    max_periodic_tasks: int = MAX_PERIODIC_TASKS,
    estimates: str = "exact",
    seed: Seed = None,
) -> DfrsRun:
    """Simulates a DFRS algorithm (or the FCFS / EASY baselines) on ``jobs``.

    Parameters
    ----------
    jobs : DfrsJobs
    platform : DfrsPlatform
        Every job must fit on it (:meth:`DfrsJobs.check_fits`).
    algorithm : str or DfrsAlgorithm
        A name as in RR-7659 §4.5 (see :mod:`clustersched.dfrs.algorithms`),
        or a batch baseline, ``"FCFS"`` / ``"EASY"`` / ``"EASY-arrival"``
        (:mod:`clustersched.dfrs.baselines`).
    penalty : float
        Seconds without progress after a resume or a migration, in
        ``[0, 10**10]`` (:data:`~clustersched.dfrs.limits.MAX_TIME`).
    period : float
        Seconds between periodic events, in ``[0.001, 10**10]``
        (:data:`~clustersched.dfrs.limits.MIN_PERIOD`, ``MAX_TIME``); used by
        ``per`` and ``stretch-per`` algorithms (see "Time" below).
    validate : bool, optional
        Check the schedule with :func:`clustersched.dfrs.validate.validate_dfrs`
        (raises on any violation).  Default: on when the environment variable
        ``CLUSTERSCHED_VALIDATE`` is ``1`` (the test suite sets it).
    max_periodic_events : int
        Most periodic events the run may process (``>= 1``; default
        :data:`~clustersched.dfrs.limits.MAX_PERIODIC_EVENTS`, 10**6).
    max_periodic_tasks : int
        Most tasks the periodic events may pack in all (each packs every
        task of every job in the system; ``>= 1``; default
        :data:`~clustersched.dfrs.limits.MAX_PERIODIC_TASKS`, 10**9).
    estimates : str
        The run times a batch baseline plans with: ``"exact"`` (§5.2, the
        default), ``"requested"`` or an estimate model ``"f:F"`` /
        ``"modal"`` (see :func:`~clustersched.dfrs.baselines.simulate_batch`).
        The DFRS algorithms use no run time (they are non-clairvoyant), so
        for them only ``"exact"`` is accepted.
    seed : int or numpy.random.Generator, optional
        Seed of an estimate model (None: seed 0, the same estimates every time).

    Returns
    -------
    DfrsRun
        The schedule, the canonical name, the events and ``seconds`` (the
        wall clock of the simulation, validation excluded).

    Raises
    ------
    InvalidWorkloadError
        The job table is empty, or a job cannot fit on the platform (a
        ``ValueError``).
    LimitError
        ``penalty`` or ``period`` beyond its limit, or a periodic algorithm
        that would process more than ``max_periodic_events`` periodic events
        or pack more than ``max_periodic_tasks`` tasks (a ``ValueError``; see
        "Time").
    ValueError
        A bad algorithm name, ``penalty`` or ``period``.

    Time
    ----
    Times are float64 seconds, and the run always advances (§5.1's
    discrete-event simulation, as this module's docstring describes it):

    * periodic events are ``t0 + k * period`` for an integer ``k`` that only
      grows, never an index re-derived from a time; ``k`` skips only the
      events that fall while no job is in the system;
    * every event is later than the time stamp processed before it: a
      completion that rounds to the current time stamp (a processing time of
      0, or work left below float64's resolution there) is handled within
      that time stamp, and the loop checks that time strictly advances (an
      internal ``RuntimeError`` otherwise, never a silent hang);
    * times too large or too small to advance are refused up front: submit
      and processing times (:class:`~clustersched.dfrs.DfrsJobs`), the
      penalty and the period are at most 10**10 s, where float64 resolves
      2**-19 s, and the period is at least 1 ms, hundreds of steps of that
      resolution; a processing time or penalty below the resolution at the
      time it starts is what float64 makes of it (a job with such a
      processing time completes when placed, such a penalty ends at once),
      and the validator allows exactly that rounding
      (:func:`~clustersched.dfrs.model.work_tolerance`);
    * the work is bounded up front: a periodic event packs every task of
      every job in the system, so a periodic algorithm whose jobs surely
      keep the system busy (:func:`busy_time`) for more than
      ``max_periodic_events`` periods, or surely make those events pack
      more than ``max_periodic_tasks`` tasks in all (:func:`periodic_tasks`),
      or whose penalty spans more than ``max_periodic_events`` periods, is
      refused with a :class:`LimitError` naming the limit; a run that still
      reaches a limit (jobs slowed down or thrashing far beyond these lower
      bounds) stops with the same error.

    Every limit is in :mod:`clustersched.dfrs.limits`.

    Examples
    --------
    >>> from clustersched.dfrs import DfrsJobs, DfrsPlatform, simulate
    >>> jobs = DfrsJobs(submit=[0, 0], processing_time=[100, 100], tasks=[1, 1],
    ...                 cpu_need=[1.0, 1.0], mem_need=[0.5, 0.5])
    >>> simulate(jobs, DfrsPlatform(1), "Greedy */opt=min").schedule.completion.tolist()
    [200.0, 200.0]
    """
    if not isinstance(jobs, DfrsJobs):
        raise TypeError(f"jobs must be a clustersched.dfrs.DfrsJobs, got {type(jobs).__name__}")
    if not isinstance(platform, DfrsPlatform):
        raise TypeError(f"platform must be a clustersched.dfrs.DfrsPlatform, got {type(platform).__name__}")
    penalty = check_float("penalty", penalty, minimum=0.0)
    check_limit("penalty", penalty, MAX_TIME, "MAX_TIME")
    period = check_float("period", period, positive=True)
    check_limit("period", period, MAX_TIME, "MAX_TIME")
    if period < MIN_PERIOD:
        raise LimitError(
            f"period == {period!r}, must be >= {MIN_PERIOD} s (clustersched.dfrs.limits.MIN_PERIOD)",
            name="period",
            value=period,
            limit=MIN_PERIOD,
        )
    max_periodic_events = check_int("max_periodic_events", max_periodic_events, 1)
    max_periodic_tasks = check_int("max_periodic_tasks", max_periodic_tasks, 1)
    check = validate_default(validate)
    check_seed(seed)
    jobs.check_nonempty()
    jobs.check_fits(platform)
    baseline = baseline_name(algorithm) if isinstance(algorithm, str) else None
    if baseline is not None:
        seed = check_seed(seed)
        result = simulate_batch(
            jobs, platform, baseline, penalty=penalty, estimates=estimates, seed=0 if seed is None else seed
        )
    elif estimates != "exact":
        raise ValueError(
            f"estimates == {estimates!r} is for the batch baselines ({', '.join(BASELINES)}); "
            f"the DFRS algorithm {algorithm!r} uses no run time"
        )
    else:
        if isinstance(algorithm, DfrsAlgorithm):
            algo = algorithm
        elif isinstance(algorithm, str) and algorithm in ALGORITHMS:  # the registry's name rule
            algo = ALGORITHMS[algorithm]
        else:
            algo = parse_algorithm(algorithm)
        if algo.periodic is not None:
            _check_periodic_work(jobs, platform, penalty, period, max_periodic_events, max_periodic_tasks)
        result = _Simulation(jobs, platform, algo, penalty, period, max_periodic_events, max_periodic_tasks).run()
    if check:
        from .validate import validate_dfrs

        validate_dfrs(result.schedule, jobs, platform)
    return result


def run(
    workload: DfrsJobs,
    platform: DfrsPlatform,
    algorithm: str | DfrsAlgorithm,
    *,
    seed: Seed = None,
    validate: bool | None = None,
    **options: Any,
) -> DfrsRun:
    """The problem contract's entry point (:mod:`clustersched._contract`): :func:`simulate` of ``algorithm``
    on the jobs ``workload`` and ``platform``, with ``seed``, ``validate`` and the keyword-only ``options`` of
    :func:`simulate` (``penalty``, ``period``, ``estimates``, ...).

    Examples
    --------
    >>> from clustersched.dfrs import DfrsJobs, DfrsPlatform, run
    >>> jobs = DfrsJobs(submit=[0, 0], processing_time=[100, 100], tasks=[1, 1],
    ...                 cpu_need=[1.0, 1.0], mem_need=[0.5, 0.5])
    >>> r = run(jobs, DfrsPlatform(1), "greedy */opt=min")
    >>> r.algorithm, r.metrics.max_stretch
    ('Greedy */opt=min', 2.0)
    """
    return simulate(workload, platform, algorithm, seed=seed, validate=validate, **options)


def shortest_stay(jobs: DfrsJobs, nodes: int | None = None) -> np.ndarray:
    """The least time each job can spend in the system on ``nodes`` nodes (None: as many as it wants).

    Its processing time, or longer when its CPU demand (``tasks * cpu_need``)
    exceeds the platform: a job's work is ``processing_time * demand`` and
    the platform does at most ``nodes`` of it per second.
    """
    stay = np.asarray(jobs.processing_time, dtype=float)
    if nodes is not None:
        stay = stay * np.maximum(1.0, jobs.tasks * jobs.cpu_need / nodes)
    return stay


def busy_time(jobs: DfrsJobs, nodes: int | None = None) -> float:
    """Seconds during which some job is surely in the system on ``nodes`` nodes.

    The length of the union of the intervals ``[submit, submit +
    shortest_stay]`` (no job completes sooner), and at least the total CPU
    work divided by the platform's capacity (with ``nodes``).

    >>> jobs = DfrsJobs(submit=[0, 50, 300], processing_time=[100, 100, 10], tasks=[1, 1, 1],
    ...                 cpu_need=[1, 1, 1], mem_need=[1, 1, 1])
    >>> busy_time(jobs), busy_time(jobs, nodes=1)
    (160.0, 210.0)
    """
    start = jobs.submit
    end = np.maximum.accumulate(start + shortest_stay(jobs, nodes))  # rows are in submission order
    before = np.r_[-math.inf, end[:-1]]
    union = float(np.sum(np.maximum(end - np.maximum(start, before), 0.0)))
    return union if nodes is None else max(union, float(jobs.work().sum()) / nodes)


def periodic_tasks(jobs: DfrsJobs, nodes: int, period: float) -> int:
    """A lower bound on the tasks the periodic events of a run pack in all.

    Each periodic event packs every task of every job in the system, and job
    ``j`` is in the system for at least ``shortest_stay`` seconds, so for at
    least ``floor(shortest_stay / period)`` periodic events.

    >>> jobs = DfrsJobs(submit=[0, 0], processing_time=[6000, 60], tasks=[4, 100], cpu_need=[1, 1],
    ...                 mem_need=[0.1, 0.01])
    >>> periodic_tasks(jobs, nodes=2, period=600.0)    # 4 tasks * 20 events + 100 tasks * 5 events
    580
    """
    events = np.floor(shortest_stay(jobs, nodes) / period)
    return int(np.sum(jobs.tasks * events))


def _check_periodic_work(
    jobs: DfrsJobs, platform: DfrsPlatform, penalty: float, period: float, limit: int, task_limit: int
) -> None:
    """LimitError when a periodic run surely goes beyond its budgets (simulate's "Time")."""
    busy = busy_time(jobs, platform.nodes)
    if busy / period > limit:
        raise LimitError(
            f"period == {period!r}, must be >= {busy / limit:.6g} s for these jobs: they keep the system busy for "
            f"at least {busy:.6g} s (submit to submit + processing_time, longer on too few nodes: "
            f"clustersched.dfrs.simulator.busy_time), more than max_periodic_events == {limit} periods "
            "(clustersched.dfrs.limits.MAX_PERIODIC_EVENTS)",
            name="period",
            value=period,
            limit=limit,
        )
    packed = periodic_tasks(jobs, platform.nodes, period)
    if packed > task_limit:
        raise LimitError(
            f"period == {period!r} is too short for these jobs: their periodic events would pack at least "
            f"{packed} tasks (clustersched.dfrs.simulator.periodic_tasks), more than max_periodic_tasks == "
            f"{task_limit} (clustersched.dfrs.limits.MAX_PERIODIC_TASKS)",
            name="period",
            value=period,
            limit=task_limit,
        )
    if penalty / period > limit:
        raise LimitError(
            f"penalty == {penalty!r}, must be <= {limit * period:.6g} s for period == {period!r}: one penalty "
            f"would span more than max_periodic_events == {limit} periodic events "
            "(clustersched.dfrs.limits.MAX_PERIODIC_EVENTS)",
            name="penalty",
            value=penalty,
            limit=limit * period,
        )


class _Simulation:
    """One run: the loop here, the state of the nodes and jobs (and the segments) in Rust.

    ``self.state`` (``clustersched._core.DfrsState``, the core's
    ``clustersched_core::dfrs::sim::Simulation``) holds what changes with
    every job: virtual times, yields, penalties, completion estimates,
    priorities, the placements and the schedule's segments.  The loop asks it
    for one step of an event at a time (one call per step, whatever the
    number of jobs): :meth:`run` reads as the semantics of the module
    docstring.
    """

    def __init__(
        self,
        jobs: DfrsJobs,
        platform: DfrsPlatform,
        algo: DfrsAlgorithm,
        penalty: float,
        period: float,
        max_ticks: int = MAX_PERIODIC_EVENTS,
        max_tasks: int = MAX_PERIODIC_TASKS,
    ) -> None:
        self.began = time.perf_counter()
        self.jobs, self.platform, self.algo = jobs, platform, algo
        self.penalty, self.period = penalty, period
        n = len(jobs)
        self.n = n
        self.submit = jobs.submit
        self.tasks = jobs.tasks
        self.cpu = jobs.cpu_need
        with naming_jobs(jobs.job_id):
            self.state = _core.DfrsState(
                jobs.tasks,
                jobs.cpu_units(),
                jobs.mem_units(),
                platform.nodes,
                submit=np.ascontiguousarray(jobs.submit, dtype=np.float64),
                processing_time=np.ascontiguousarray(jobs.processing_time, dtype=np.float64),
                penalty=penalty,
            )
        self._lp_cache: tuple[tuple[bytes, ...], np.ndarray] | None = None  # opt=avg: LP (2)'s last inputs, yields
        self.lp_solved = 0  # LP (2) solutions computed (the others were reused)
        self.mcb8_jobs: list[int] = []
        self.mcb8_seconds: list[float] = []
        self.events = 0
        self.ticks = 0  # periodic event indices consumed
        self.max_ticks = max_ticks
        self.packed = 0  # tasks of the jobs in the system, summed over the periodic events processed
        self.max_packed = max_tasks
        self.active_tasks = 0  # tasks of the jobs in the system
        self.arrived = 0
        self.finished = 0
        self.origin = 0.0
        self.k = 1

    def _in_system(self) -> int:
        """How many jobs are in the system (arrived, not completed)."""
        return self.arrived - self.finished

    # -- actions (each one call: the state orders the jobs by priority itself) --------------------
    def _mcb8(self, t: float, stretch: bool) -> None:
        """MCB8 on every job in the system, in decreasing priority (minvt / minft keep jobs in place)."""
        began = time.perf_counter()
        count = self.state.mcb8_active(
            t, minvt=self.algo.minvt, minft=self.algo.minft, period=self.period if stretch else None
        )
        if count:
            self.mcb8_seconds.append(time.perf_counter() - began)
            self.mcb8_jobs.append(count)

    def _complete(self, t: float) -> int:
        """Completes the running jobs due at or before ``t``; returns how many."""
        completed = self.state.complete_due(t)
        if len(completed):
            self.finished += len(completed)
            self.active_tasks -= int(self.tasks[completed].sum())
        return len(completed)

    def _commit(self, t: float, next_tick: float) -> None:
        """Writes down what the actions changed, then shares the CPU (§4.6, §4.7) from ``t``."""
        state, algo = self.state, self.algo
        state.record_commit(t)
        if algo.periodic == "MCB8-stretch":
            horizon = next_tick - t if math.isfinite(next_tick) and next_tick > t else self.period
            if algo.opt != "avg":
                state.share_stretch(t, horizon)
                return
            jobs, ys = state.stretch_yields(t, horizon)
            if len(jobs):
                from .allocation import average_stretch_yields

                flow = np.ascontiguousarray(t - self.submit)
                node, job, count = state.node_tasks()
                ys = average_stretch_yields(node, job, count, self.cpu, jobs, ys, flow, state.virtual_times(), horizon)
            state.share(t, jobs, np.ascontiguousarray(ys, dtype=np.float64))
        elif algo.opt != "avg":
            state.share_max_min(t)
        else:
            jobs, ys = state.max_min_yields()
            if len(jobs):
                node, job, count = state.node_tasks()
                ys = self._average_yields(node, job, count, jobs)
            state.share(t, jobs, np.ascontiguousarray(ys, dtype=np.float64))

    def _average_yields(self, node: np.ndarray, job: np.ndarray, count: np.ndarray, jobs: np.ndarray) -> np.ndarray:
        """LP (2)'s yields (:func:`~clustersched.dfrs.allocation.average_yields`), solved again only when its
        inputs changed.

        The LP is a function of the mapping alone: which jobs are placed, how
        many tasks of each sit on which node, and their CPU needs (fixed per
        job); not of the time, the virtual times or the priorities.  So the
        last solution is kept with the exact arrays it was computed from, and
        an event that leaves them equal (a periodic event whose MCB8 maps the
        same jobs to the same nodes, as it does while nothing is submitted or
        completes and the priorities keep their order) reuses it: the same
        yields, bit for bit, as solving again, at a comparison's cost instead
        of a solver call.  One entry: the memory is that of one mapping.
        """
        key = (node.tobytes(), job.tobytes(), count.tobytes(), jobs.tobytes())
        if self._lp_cache is not None and self._lp_cache[0] == key:
            return self._lp_cache[1]
        from .allocation import average_yields

        ys = average_yields(node, job, count, self.cpu, jobs)
        ys.flags.writeable = False
        self._lp_cache = (key, ys)
        self.lp_solved += 1
        return ys

    # -- the loop --------------------------------------------------------------------------------
    def run(self) -> DfrsRun:
        algo, n, state = self.algo, self.n, self.state
        periodic = algo.periodic is not None
        self.origin = float(self.submit[0])
        self.k = 1  # the next periodic event is tick(k) = t0 + k * period; k only grows
        t = -math.inf  # the time stamp processed last
        while self.finished < n:
            t_arr = float(self.submit[self.arrived]) if self.arrived < n else math.inf
            t_comp = state.next_completion()
            t_tick = math.inf
            if periodic:
                if not self._in_system() and math.isfinite(t_arr):
                    self._skip_idle_ticks(t_arr)  # no job in the system: no periodic event before t_arr
                if self._in_system() or math.isfinite(t_arr):
                    t_tick = self._tick(self.k)
            t_next = min(t_arr, t_comp, t_tick)
            if not math.isfinite(t_next):
                stuck = state.active()
                raise InfeasibleError(
                    f"algorithm {algo.name!r} left {len(stuck)} job(s) waiting with no event left "
                    f"(first: job id {self.jobs.job_id[stuck[0]]})"
                )
            if not t_next > t:
                # every event after a time stamp is later than it (the inner loop below ends only
                # when no completion is due at t): a regression must fail here, not spin
                raise RuntimeError(
                    f"internal error in the DFRS simulator: the next event at {t_next!r} is not after the "
                    f"time stamp {t!r} just processed (arrival {t_arr!r}, completion {t_comp!r}, periodic "
                    f"event {t_tick!r}); please report it"
                )
            state.advance(t, t_next)  # the running jobs progress at their yields (model.progress)
            t = t_next
            self.events += 1
            completed = self._complete(t)
            # arrivals
            first = self.arrived
            while self.arrived < n and self.submit[self.arrived] <= t:
                self.arrived += 1
            arrivals = self.arrived - first
            if arrivals:
                state.arrive(first, self.arrived)
                self.active_tasks += int(self.tasks[first : self.arrived].sum())
            tick = periodic and t >= self._tick(self.k)
            if tick:
                self._next_tick(t)
            # actions
            mcb8_now = (arrivals and algo.on_submit == "MCB8") or (completed and algo.on_completion == "MCB8")
            if mcb8_now:
                self._mcb8(t, stretch=False)
            else:
                if arrivals and algo.on_submit is not None:
                    state.submit(t, first, self.arrived, algo.on_submit)  # each in row order, new jobs first
                if completed and algo.on_completion == "Greedy":
                    state.greedy_waiting(t)  # the waiting jobs in decreasing priority
            if tick:
                self._mcb8(t, stretch=algo.periodic == "MCB8-stretch")
            next_tick = self._tick(self.k) if periodic else math.inf
            self._commit(t, next_tick)
            # Completions due at t itself (a processing time of 0, or remaining work below float64's
            # resolution at t): handled at this time stamp, each round completing at least one job.
            rounds = 0
            while state.next_completion() <= t:
                rounds += 1
                if rounds > n:
                    raise RuntimeError(
                        f"internal error in the DFRS simulator: {rounds} rounds of completions at time {t!r} "
                        f"with {n} jobs; please report it"
                    )
                self._complete(t)
                if algo.on_completion == "MCB8":
                    self._mcb8(t, stretch=False)
                elif algo.on_completion == "Greedy":
                    state.greedy_waiting(t)
                self._commit(t, next_tick)
        return self._result()

    def _tick(self, k: int) -> float:
        """The time of periodic event ``k``: ``t0 + k * period``, never re-derived from a time."""
        return self.origin + k * self.period

    def _next_tick(self, t: float) -> None:
        """Periodic event ``k`` is processed at ``t``: the next is the first one after ``t``.

        That is ``k + 1`` whenever the period spans float64 steps at ``t``
        (always below 2**41 s, as the period is at least ``MIN_PERIOD``);
        events that round to ``t`` too are merged into this one, and every
        index consumed counts towards ``max_periodic_events``, and the tasks
        of the jobs in the system (which the event packs) towards
        ``max_periodic_tasks``.
        """
        self.packed += self.active_tasks
        if self.packed > self.max_packed:
            stuck = self.state.active()
            raise LimitError(
                f"the simulation's periodic events need to pack more than max_periodic_tasks == {self.max_packed} "
                f"tasks (at time {t!r}, {len(stuck)} job(s) with {self.active_tasks} tasks in the system): "
                f"period == {self.period!r} is too short for these jobs under {self.algo.name!r}; use a longer "
                "period or a larger max_periodic_tasks (clustersched.dfrs.limits.MAX_PERIODIC_TASKS)",
                name="periodic tasks",
                value=self.packed,
                limit=self.max_packed,
            )
        while True:
            self.k += 1
            self.ticks += 1
            if self.ticks > self.max_ticks:
                stuck = self.state.active()
                first = f" (first: job id {self.jobs.job_id[stuck[0]]})" if len(stuck) else ""
                raise LimitError(
                    f"the simulation needs more than max_periodic_events == {self.max_ticks} periodic events (at "
                    f"time {t!r}, {len(stuck)} job(s) still in the system{first}): period == {self.period!r} is "
                    f"too short for how long these jobs run under {self.algo.name!r} (penalty == {self.penalty!r}); "
                    "use a longer period or a larger max_periodic_events "
                    "(clustersched.dfrs.limits.MAX_PERIODIC_EVENTS)",
                    name="periodic events",
                    value=self.ticks,
                    limit=self.max_ticks,
                )
            if self._tick(self.k) > t:
                return

    def _skip_idle_ticks(self, t_arr: float) -> None:
        """No job is in the system until ``t_arr``: ``k`` becomes the first periodic event at or after it.

        The quotient ``(t_arr - t0) / period`` only proposes an index; the
        integer search around it compares event times, so the result is the
        exact first index (skipped indices do not count as events).
        """
        k = max(self.k, math.ceil((t_arr - self.origin) / self.period))
        # the proposal is off by at most a step or two (times are below MAX_TIME, the period above MIN_PERIOD)
        for _ in range(64):
            if k > self.k and self._tick(k - 1) >= t_arr:
                k -= 1
            elif self._tick(k) < t_arr:
                k += 1
            else:
                self.k = k
                return
        raise RuntimeError(
            f"internal error in the DFRS simulator: no first periodic event at or after {t_arr!r} "
            f"(t0 == {self.origin!r}, period == {self.period!r}); please report it"
        )

    def _result(self) -> DfrsRun:
        schedule = schedule_from_segments(
            self.state.segments(),
            self.jobs,
            self.state.completions(),
            nodes=self.platform.nodes,
            penalty=self.penalty,
            algorithm=self.algo.name,
            options={"period": repr(self.period)},
        )
        return DfrsRun(
            schedule=schedule,
            jobs=self.jobs,
            platform=self.platform,
            algorithm=self.algo.name,
            events=self.events,
            mcb8_jobs=np.array(self.mcb8_jobs, dtype=np.int64),
            mcb8_seconds=np.array(self.mcb8_seconds),
            seconds=time.perf_counter() - self.began,
        )
