"""Reinforcement learning for batch scheduling: a Gymnasium environment over the batch simulator's Rust state.

Install with ``pip install "clustersched[rl]"`` (it pulls ``gymnasium``).  Importing this module registers:

===================================  ===========================================================
id                                   environment
===================================  ===========================================================
``clustersched/BatchPick-v0``        :class:`BatchPickEnv`, ``backfill="none"``
``clustersched/BatchPickEasy-v0``    :class:`BatchPickEnv`, ``backfill="easy"`` (RLScheduler's)
===================================  ===========================================================

``gymnasium.make(ID)`` builds each on the default trace (:func:`~clustersched.rl.trace.default_trace`:
Lublin-Feitelson, 10,000 jobs on 256 processors, seed 0, f-model estimates), with no file to read;
``gymnasium.make("clustersched.rl:clustersched/BatchPick-v0")`` imports this module first.
``gymnasium.make_vec(ID, num_envs, vectorization_mode="vector_entry_point")`` builds a
:class:`BatchPickVectorEnv`.  Keyword arguments of ``make`` go to the constructor (``jobs=``, ``window=``, ...).

Decision semantics
------------------
The environment is the batch simulator (:func:`clustersched.simulate`'s ``BatchSim``: its queue, machine,
shadow time and backfilling), with the agent in the place of the policy:

* **Episode.**  A window of ``window`` consecutive jobs of the trace (rows in submit order), from the
  ``split`` part (train windows never share a job with test windows; :mod:`clustersched.rl.trace`), on an
  idle machine of ``procs`` processors.  It ends (``terminated``) when every job of the window has started;
  the ends follow from the run times.  There is no truncation.
* **Decision point.**  A time stamp, after all of its completions and then all of its arrivals (the
  simulator's event order), at which at least one job waits.  The agent sees the first ``slots`` waiting jobs
  in arrival order; slot ``k`` is the ``k``-th.  A decision is made even when one job waits (as RLScheduler).
* **Action.**  Slot ``k`` starts that job as soon as it fits: at once if enough processors are free;
  otherwise time moves from event to event until they are (RLScheduler's rule: the picked job is never
  overtaken by a later pick), and with ``backfill="easy"`` every time stamp of that wait first backfills the
  other waiting jobs, in arrival order, around a reservation for the picked job (EASY's rule with the picked
  job in the head's place: a job starts if it fits now and ends by its estimate before the picked job's
  shadow time, or needs no more than the extra processors).  Then comes the next decision point: the same
  time stamp if jobs still wait, else the next arrival.  Without backfilling every decision starts exactly
  one job, so an episode has ``window`` decisions.
* **Equivalences** (tested): picking slot 0 at every decision gives exactly the schedule of
  ``simulate(window_jobs, "fcfs")``, and with ``backfill="easy"`` that of ``simulate(window_jobs, "easy")``.
* **Illegal action.**  A slot that holds no job (``action_masks()`` is False there): a no-op. Nothing starts,
  time does not move, the reward is ``-illegal_penalty`` (default 0), ``info["legal"]`` is False.  It is never
  an error, so that gymnasium's checker, which samples actions without the mask, passes.
* **Estimates.**  The scheduler and the observation see the estimate (the requested time, at least the
  run time, as :func:`~clustersched.batch.estimates_of`), never the run time; jobs run their run time.

Observations
------------
A ``float32`` array ``slots x 8``, one row per visible job, rows past the queue's end padding.  Two layouts:

=====  ============================================  ============================================
col    ``layout="clustersched"`` (default)           ``layout="rlscheduler"``
=====  ============================================  ============================================
0      ``min(wait / max_wait, 1)``                   ``wait / max_wait``
1      ``min(estimate / max_run, 1)``                ``estimate / max_run``
2      ``procs / total``                             ``procs / total``
3      ``free / total`` (the machine now)            requested memory / its trace maximum
4      1 if it fits now, else 0                      user id / its trace maximum
5      ``min(procs / total * estimate / max_run, 1)``  group id / its trace maximum
6      ``min(waiting jobs / slots, 1)``              executable id / its trace maximum
7      1 (a job is in this slot)                     can start now: ``1 - 1e-5``, else ``1e-5``
pad    all 0                                         ``[0, 1, 1, 1, 1, 1, 1, 0]``
=====  ============================================  ============================================

``max_wait`` and ``max_run`` are 12 hours by default (RLScheduler's ``MAX_WAIT_TIME`` and ``MAX_RUN_TIME``).
The ``rlscheduler`` layout follows RLScheduler's ``HPCEnv`` (``MAX_QUEUE_SIZE = 128`` rows of
``JOB_FEATURES = 8``, features kept within ``[1e-5, 1 - 1e-5]``, its padding row, the first 128 waiting jobs
in FCFS order): columns 0-2 and 7 match its definitions; columns 3-6 are approximations (each SWF field divided
by its largest value in the trace, 0 where the trace has none; on the Lublin traces all four are 0, as the
fields are absent).

Rewards
-------
``reward`` names the episode's cost, and the reward is its negation: ``"bounded_slowdown"`` (mean bounded
slowdown, ``tau = 10`` s, :func:`~clustersched.batch.batch_metrics`), ``"wait"`` (mean wait, s),
``"utilization"`` (one minus the utilization), or a callable ``cost(metrics)`` of the episode's
:class:`~clustersched.batch.BatchMetrics`.  Sparse (default): 0 at every step but the last, which gets
minus the cost.  Dense (``dense=True``, bounded slowdown and wait): every decision gets minus the summed
cost of the jobs it started (backfilled ones included) divided by ``window``, so an episode's rewards sum
to the sparse reward.  At the end, ``info`` holds ``schedule`` (a :class:`~clustersched.batch.Schedule`,
validated when ``validate`` or ``CLUSTERSCHED_VALIDATE`` says so), ``metrics`` (its
:meth:`~clustersched.batch.BatchMetrics.summary`) and ``first``; ``info`` never holds a wall-clock value.

Determinism
-----------
One ``numpy.random.Generator`` per environment (gymnasium's ``np_random``, seeded by ``reset(seed=)``) draws
each window's first row; nothing else is random, and ties are broken by arrival order.  The same seed gives
the same episodes; the vector environment's sub-environment ``i`` draws as a single one seeded ``seed + i``.

Baselines (:mod:`clustersched.rl.baselines`): FCFS, SJF, WFP3, UNICEP, F1 and EASY, played in the same
environment (:func:`evaluate`, :func:`compare`).
"""

from __future__ import annotations

try:
    import gymnasium
except ImportError as error:  # pragma: no cover - the extra is missing
    raise ImportError(
        'clustersched.rl needs gymnasium: pip install "clustersched[rl]" (or pip install gymnasium)'
    ) from error

from .baselines import BASELINES, SCORES, compare, evaluate
from .env import BACKFILL, FEATURES, LAYOUTS, REWARDS, BatchPickEnv
from .trace import EpisodeTrace, default_trace
from .vector import BatchPickVectorEnv

__all__ = [
    "BACKFILL",
    "BASELINES",
    "ENV_IDS",
    "FEATURES",
    "LAYOUTS",
    "REWARDS",
    "SCORES",
    "BatchPickEnv",
    "BatchPickVectorEnv",
    "EpisodeTrace",
    "compare",
    "default_trace",
    "evaluate",
]

#: The registered ids and their options (module docstring).
ENV_IDS: dict[str, dict[str, str]] = {
    "clustersched/BatchPick-v0": {"backfill": "none"},
    "clustersched/BatchPickEasy-v0": {"backfill": "easy"},
}

for _id, _kwargs in ENV_IDS.items():
    if _id not in gymnasium.registry:
        gymnasium.register(
            id=_id,
            entry_point="clustersched.rl.env:BatchPickEnv",
            vector_entry_point="clustersched.rl.vector:make_vector",
            kwargs=dict(_kwargs),
        )
