"""Event-driven simulation of DFRS (RR-7659 §4 and §5.1).

The event loop is here, in Python; the node state (which tasks are where,
memory and CPU loads) and the packing decisions (Greedy, GreedyP, GreedyPM,
MCB8, MCB8-stretch, max-min allocations) run in the Rust core
(``clustersched._core.DfrsState``), updated in place at each event; the
segments of the schedule are written down by a
:class:`~clustersched.dfrs.recording.SegmentRecorder`, which the loop tells
what it does.

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
  at ``t0 + k * period`` (``t0`` the first submission, ``k >= 1``); those
  that fall while no job is in the system are skipped.
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
  with the time left to the next periodic event.
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
import os
import time

import numpy as np

from .. import _core
from .._checks import check_float
from ..errors import InfeasibleError
from .algorithms import BASELINES, DEFAULT_PENALTY, DEFAULT_PERIOD, DfrsAlgorithm, parse_algorithm
from .baselines import simulate_batch
from .model import DfrsJobs, DfrsPlatform
from .recording import SegmentRecorder
from .run import DfrsResult, DfrsRun

__all__ = ["DEFAULT_PENALTY", "DEFAULT_PERIOD", "DfrsResult", "DfrsRun", "simulate"]


def simulate(
    jobs: DfrsJobs,
    platform: DfrsPlatform,
    algorithm: str | DfrsAlgorithm = "GreedyPM */per/opt=min/minvt=600",
    *,
    penalty: float = DEFAULT_PENALTY,
    period: float = DEFAULT_PERIOD,
    validate: bool | None = None,
) -> DfrsRun:
    """Simulates a DFRS algorithm (or the FCFS / EASY baselines) on ``jobs``.

    Parameters
    ----------
    jobs : DfrsJobs
    platform : DfrsPlatform
        Every job must fit on it (:meth:`DfrsJobs.check_fits`).
    algorithm : str or DfrsAlgorithm
        A name as in RR-7659 §4.5 (see :mod:`clustersched.dfrs.algorithms`),
        or ``"FCFS"`` / ``"EASY"`` (:mod:`clustersched.dfrs.baselines`).
    penalty : float
        Seconds without progress after a resume or a migration (``>= 0``).
    period : float
        Seconds between periodic events (``> 0``); used by ``per`` and
        ``stretch-per`` algorithms.
    validate : bool, optional
        Check the schedule with :func:`clustersched.dfrs.validate.validate_dfrs`
        (raises on any violation).  Default: on when the environment variable
        ``CLUSTERSCHED_VALIDATE`` is ``1`` (the test suite sets it).

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
    ValueError
        A bad algorithm name, ``penalty`` or ``period``.

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
    period = check_float("period", period, positive=True)
    jobs.check_nonempty()
    jobs.check_fits(platform)
    if isinstance(algorithm, str) and algorithm.strip().casefold() in {b.casefold() for b in BASELINES}:
        result = simulate_batch(jobs, platform, algorithm.strip(), penalty=penalty)
    else:
        algo = algorithm if isinstance(algorithm, DfrsAlgorithm) else parse_algorithm(algorithm)
        result = _Simulation(jobs, platform, algo, penalty, period).run()
    if validate if validate is not None else os.environ.get("CLUSTERSCHED_VALIDATE") == "1":
        from .validate import validate_dfrs

        validate_dfrs(result.schedule, jobs, platform)
    return result


class _Simulation:
    """One run: the dynamic job state in numpy arrays, the node state in Rust, the segments in a recorder."""

    def __init__(self, jobs: DfrsJobs, platform: DfrsPlatform, algo: DfrsAlgorithm, penalty: float,
                 period: float) -> None:
        self.began = time.perf_counter()
        self.jobs, self.platform, self.algo = jobs, platform, algo
        self.penalty, self.period = penalty, period
        n = len(jobs)
        self.n = n
        self.rows = np.arange(n)
        self.p = jobs.processing_time
        self.submit = jobs.submit
        self.cpu = jobs.cpu_need
        self.state = _core.DfrsState(jobs.tasks, jobs.cpu_units(), jobs.mem_units(), platform.nodes)
        self.done = np.zeros(n)  # virtual time (progress), s
        self.y = np.zeros(n)  # current yield (0 when not placed)
        self.pen_end = np.full(n, -math.inf)
        self.est = np.full(n, math.inf)  # completion time estimate of running jobs
        self.active = np.zeros(n, bool)  # submitted, not completed
        self.running = np.zeros(n, bool)
        self.mark = np.zeros(n, bool)  # scratch
        self.run_idx = np.zeros(0, np.int64)
        self.completion = np.full(n, math.nan)
        self.record = SegmentRecorder(n)  # the segments, and which jobs are placed
        self.mcb8_jobs: list[int] = []
        self.mcb8_seconds: list[float] = []
        self.events = 0

    # -- priorities ------------------------------------------------------------------------------
    def _priority(self, t: float, rows: np.ndarray) -> np.ndarray:
        vt = self.done[rows]
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(vt > 0, (t - self.submit[rows]) / (vt * vt), math.inf)

    def _by_priority(self, t: float, rows: np.ndarray) -> np.ndarray:
        """``rows`` in decreasing priority, ties by submission order (row)."""
        return rows[np.lexsort((rows, -self._priority(t, rows)))]

    # -- actions ---------------------------------------------------------------------------------
    def _greedy_waiting(self, t: float) -> None:
        waiting = self.rows[self.active & ~self.running]
        for j in self._by_priority(t, waiting).tolist():
            if self.state.greedy(j):
                self.running[j] = True

    def _submit_greedy(self, t: float, arrivals: range) -> None:
        policy = self.algo.on_submit
        for j in arrivals:
            if policy == "Greedy":
                self.running[j] = self.state.greedy(j)
                continue
            run = self.rows[self.running]
            pri = self._priority(t, run)
            pj = self._priority(t, np.array([j]))[0]
            lower = (pri < pj) | ((pri == pj) & (run > j))
            run, pri = run[lower], pri[lower]
            victims = run[np.lexsort((-run, pri))]  # lowest priority first
            placed, paused, _ = self.state.greedy_preempt(j, victims, policy == "GreedyPM")
            self.running[j] = placed
            self.running[paused] = False

    def _mcb8(self, t: float, stretch: bool) -> None:
        order = self._by_priority(t, self.rows[self.active])
        if len(order) == 0:
            return
        fixed = self.record.placed(order)  # placed at the start of this time stamp
        if self.algo.minvt is not None:
            fixed &= self.done[order] < self.algo.minvt
        elif self.algo.minft is not None:
            fixed &= (t - self.submit[order]) < self.algo.minft
        else:
            fixed[:] = False
        began = time.perf_counter()
        if stretch:
            self.state.mcb8_stretch(order, fixed, t - self.submit[order], self.done[order], self.period)
        else:
            self.state.mcb8(order, fixed)
        self.mcb8_seconds.append(time.perf_counter() - began)
        self.mcb8_jobs.append(len(order))
        self.running[:] = False
        self.running[self.state.running()] = True

    # -- allocation ------------------------------------------------------------------------------
    def _allocate(self, t: float, next_tick: float) -> tuple[np.ndarray, np.ndarray]:
        algo = self.algo
        if algo.periodic == "MCB8-stretch":
            horizon = next_tick - t if math.isfinite(next_tick) and next_tick > t else self.period
            flow = np.ascontiguousarray(t - self.submit)
            jobs, ys = self.state.max_min_stretch(flow, self.done, horizon)
            if algo.opt == "avg" and len(jobs):
                from .allocation import average_stretch_yields

                node, job, count = self.state.node_tasks()
                ys = average_stretch_yields(node, job, count, self.cpu, jobs, ys, flow, self.done, horizon)
            return jobs, ys
        jobs, ys = self.state.max_min_yields()
        if algo.opt == "avg" and len(jobs):
            from .allocation import average_yields

            node, job, count = self.state.node_tasks()
            ys = average_yields(node, job, count, self.cpu, jobs)
        return jobs, ys

    # -- the loop --------------------------------------------------------------------------------
    def run(self) -> DfrsRun:
        algo, n = self.algo, self.n
        periodic = algo.periodic is not None
        origin = float(self.submit[0])
        k_tick = 1  # next periodic event: origin + k_tick * period
        t = origin
        arrived = 0
        finished = 0
        while finished < n:
            t_arr = float(self.submit[arrived]) if arrived < n else math.inf
            t_comp = float(self.est[self.run_idx].min()) if len(self.run_idx) else math.inf
            t_tick = math.inf
            if periodic:
                if not self.active.any() and math.isfinite(t_arr):
                    # no job in the system: skip the periodic events before the next arrival
                    k_tick = max(k_tick, math.ceil((t_arr - origin) / self.period))
                if self.active.any() or math.isfinite(t_arr):
                    t_tick = origin + k_tick * self.period
            t_next = min(t_arr, t_comp, t_tick)
            if not math.isfinite(t_next):
                stuck = self.rows[self.active]
                raise InfeasibleError(
                    f"algorithm {algo.name!r} left {len(stuck)} job(s) waiting with no event left "
                    f"(first: job id {self.jobs.job_id[stuck[0]]})"
                )
            self._advance(t, t_next)
            t = t_next
            self.events += 1
            # completions
            completed = self.run_idx[self.est[self.run_idx] <= t]
            for j in completed.tolist():
                self.done[j] = self.p[j]
                self.record.stop(j, t)
                self.state.complete(j)
                self.completion[j] = t
                self.active[j] = self.running[j] = False
                self.y[j] = 0.0
                self.est[j] = math.inf
            finished += len(completed)
            # arrivals
            first = arrived
            while arrived < n and self.submit[arrived] <= t:
                arrived += 1
            arrivals = range(first, arrived)
            self.active[first:arrived] = True
            tick = periodic and t >= origin + k_tick * self.period
            if tick:
                k_tick = math.floor((t - origin) / self.period) + 1
            # actions
            mcb8_now = (len(arrivals) and algo.on_submit == "MCB8") or (
                len(completed) and algo.on_completion == "MCB8")
            if mcb8_now:
                self._mcb8(t, stretch=False)
            else:
                if len(arrivals) and algo.on_submit is not None:
                    self._submit_greedy(t, arrivals)
                if len(completed) and algo.on_completion == "Greedy":
                    self._greedy_waiting(t)
            if tick:
                self._mcb8(t, stretch=algo.periodic == "MCB8-stretch")
            self._commit(t, origin + k_tick * self.period if periodic else math.inf)
        return self._result()

    def _advance(self, t: float, t_next: float) -> None:
        run = self.run_idx
        if len(run) and t_next > t:
            dt = t_next - np.maximum(t, self.pen_end[run])
            self.done[run] += self.y[run] * np.maximum(dt, 0.0)

    def _commit(self, t: float, next_tick: float) -> None:
        started, stopped, moved = self.state.commit()
        for j in stopped.tolist():
            self.record.stop(j, t)
            self.y[j] = 0.0
            self.est[j] = math.inf
        placed_now = np.concatenate([started, moved])
        for j in started.tolist():
            resumed = self.record.place(j, *self.state.placement_runs(j), t)
            if resumed:  # paused before, and not placed again at this instant on the same nodes
                self.pen_end[j] = t + self.penalty
        for j in moved.tolist():
            self.record.place(j, *self.state.placement_runs(j), t)
            self.pen_end[j] = t + self.penalty  # a migration
        jobs, ys = self._allocate(t, next_tick)
        changed = ys != self.y[jobs]
        if len(placed_now):
            self.mark[placed_now] = True
            changed |= self.mark[jobs]
            self.mark[placed_now] = False
        self.y[jobs] = ys
        for j in jobs[changed].tolist():  # a new placement or yield: a new segment
            self.record.close(j, t)
            self.record.open(j, t, self.y[j])
        self.run_idx = jobs
        if len(jobs):
            remaining = self.p[jobs] - self.done[jobs]
            with np.errstate(divide="ignore"):
                self.est[jobs] = np.where(ys > 0, np.maximum(t, self.pen_end[jobs]) + remaining / ys, math.inf)

    def _result(self) -> DfrsRun:
        schedule = self.record.schedule(
            self.jobs, self.completion.copy(), nodes=self.platform.nodes, penalty=self.penalty,
            algorithm=self.algo.name, options={"period": repr(self.period)},
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
