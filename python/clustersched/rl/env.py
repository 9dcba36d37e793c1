"""The environment: at each scheduling point, an agent picks which waiting job starts next.

See :mod:`clustersched.rl` for the decision semantics, the observation layouts and the rewards.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any, Callable

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from .. import _core
from .._checks import check_choice, check_float, check_int
from .._contract import validate_default
from ..batch.metrics import BOUNDED_SLOWDOWN_TAU, batch_metrics
from ..batch.schedule import Schedule
from ..batch.validate import validate_batch
from ..workload.jobs import JobTable
from .trace import EpisodeTrace

if TYPE_CHECKING:
    from ..batch.metrics import BatchMetrics

__all__ = [
    "BACKFILL",
    "FEATURES",
    "LAYOUTS",
    "MAX_RUN",
    "MAX_WAIT",
    "REWARDS",
    "BatchPickEnv",
    "env_options",
]

#: What happens while the picked job waits for processors: nothing (``"none"``) or EASY backfilling (``"easy"``).
BACKFILL = ("none", "easy")
#: Observation layouts (:mod:`clustersched.rl`): this library's, and RLScheduler's feature order and scaling.
LAYOUTS = ("clustersched", "rlscheduler")
#: The costs a reward negates; a callable ``cost(metrics) -> float`` is accepted too (sparse only).
REWARDS = ("bounded_slowdown", "wait", "utilization")
#: Features per job (an observation row).
FEATURES: int = _core.RL_FEATURES
#: The wait that scales to 1 (s): RLScheduler's ``MAX_WAIT_TIME``, 12 hours.
MAX_WAIT = 12 * 3600.0
#: The estimate that scales to 1 (s): RLScheduler's ``MAX_RUN_TIME``, 12 hours.
MAX_RUN = 12 * 3600.0


def env_options(
    *,
    window: int = 256,
    slots: int = 128,
    backfill: str = "none",
    layout: str = "clustersched",
    reward: str | Callable[["BatchMetrics"], float] = "bounded_slowdown",
    dense: bool = False,
    max_wait: float = MAX_WAIT,
    max_run: float = MAX_RUN,
    illegal_penalty: float = 0.0,
) -> dict[str, Any]:
    """The checked options of an environment (the keyword arguments of :class:`BatchPickEnv`).

    Returns them as a dict; the cost the Rust kernel tracks is ``reward``'s name (bounded slowdown for a callable).
    """
    check_int("window", window, 1)
    check_int("slots", slots, 1)
    check_choice("backfill", backfill, BACKFILL)
    check_choice("layout", layout, LAYOUTS)
    if callable(reward):
        if dense:
            raise ValueError("dense == True needs a named reward (a sum over jobs); a callable is sparse only")
    else:
        check_choice("reward", reward, REWARDS)
        if dense and reward == "utilization":
            raise ValueError(
                "reward == 'utilization' with dense == True: utilization is no sum over jobs (use dense=False)"
            )
    if not isinstance(dense, (bool, np.bool_)):
        raise TypeError(f"dense == {dense!r}, must be True or False")
    return {
        "window": window,
        "slots": slots,
        "backfill": backfill,
        "layout": layout,
        "reward": reward,
        "dense": bool(dense),
        "max_wait": check_float("max_wait", max_wait, positive=True),
        "max_run": check_float("max_run", max_run, positive=True),
        "illegal_penalty": check_float("illegal_penalty", illegal_penalty, minimum=0.0),
    }


def core_config(options: dict[str, Any]) -> tuple[Any, ...]:
    """The Rust kernel's settings from :func:`env_options`' dict, in its constructors' order (after the trace)."""
    reward = options["reward"]
    return (
        options["window"],
        options["slots"],
        options["backfill"],
        options["layout"],
        "bounded_slowdown" if callable(reward) else reward,
        options["dense"],
        options["max_wait"],
        options["max_run"],
        BOUNDED_SLOWDOWN_TAU,
        options["illegal_penalty"],
    )


class BatchPickEnv(gym.Env):
    """Which waiting job starts next: a Gymnasium environment over the batch simulator's Rust state.

    Each episode is a window of ``window`` consecutive jobs of a trace, drawn from the ``split`` part
    (:mod:`clustersched.rl.trace`), simulated on ``procs`` processors from an idle machine.  The decision
    semantics, the observation layouts and the rewards are those of :mod:`clustersched.rl`.

    Parameters
    ----------
    jobs : JobTable, path, EpisodeTrace or None
        The trace (an SWF path is read with :func:`~clustersched.read_swf`); None:
        :func:`~clustersched.rl.trace.default_trace` (Lublin-Feitelson, 10,000 jobs on 256 processors,
        f-model estimates); another environment's :attr:`trace` is shared as it is (its split and window).
    procs : int, optional
        Processors; default the table's ``MaxProcs``.
    window : int
        Jobs per episode (256, as RLScheduler's ``JOB_SEQUENCE_SIZE``).
    slots : int
        Waiting jobs the agent sees and picks among (128, RLScheduler's ``MAX_QUEUE_SIZE``): the observation
        has ``slots`` rows and the action space ``slots`` values.
    backfill : {"none", "easy"}
        While the picked job waits for processors, start nothing else, or backfill the others with EASY
        around a reservation for it (RLScheduler's ``backfil=True``).
    layout : {"clustersched", "rlscheduler"}
        The features of a row (module docstring).
    reward : {"bounded_slowdown", "wait", "utilization"} or callable
        The cost the reward negates: the episode's mean bounded slowdown, mean wait (s), or one minus its
        utilization; a callable receives the episode's :class:`~clustersched.batch.BatchMetrics` and returns
        the cost.
    dense : bool
        Reward every decision with minus the cost of the jobs it started (divided by ``window``: the rewards
        sum to the sparse reward), instead of once at the end.  Bounded slowdown and wait only.
    split : {"train", "test", "all"}
        Which part of the trace windows come from; train and test windows never share a job.
    test_fraction : float
        The share of the trace's rows (its end) that is the test part.
    estimates : {"requested", "exact"}
        The run time the scheduler (and the observation) believes, as in :func:`~clustersched.simulate`.
    max_wait, max_run : float
        The wait and the estimate that scale to 1 (s; 12 hours, RLScheduler's).
    illegal_penalty : float
        Subtracted from the reward of an illegal action (``>= 0``; default 0).
    validate : bool, optional
        Check each episode's schedule with :func:`~clustersched.batch.validate_batch` (default: the
        ``CLUSTERSCHED_VALIDATE`` environment variable, as :func:`~clustersched.simulate`).
    render_mode : None
        No rendering (the episode's schedule is in ``info``; plot it with :mod:`clustersched.plot`).

    Examples
    --------
    >>> from clustersched.rl import BatchPickEnv
    >>> env = BatchPickEnv(window=64, slots=16)
    >>> obs, info = env.reset(seed=1)
    >>> obs.shape, obs.dtype, int(env.action_masks().sum()) >= 1
    ((16, 8), dtype('float32'), True)
    >>> done = False
    >>> while not done:
    ...     obs, reward, done, truncated, info = env.step(0)   # the queue head: FCFS
    >>> len(info["schedule"]), round(-reward, 6) == round(info["metrics"]["avg_bounded_slowdown"], 6)
    (64, True)
    """

    metadata: dict[str, Any] = {"render_modes": []}

    def __init__(
        self,
        jobs: JobTable | str | os.PathLike[str] | EpisodeTrace | None = None,
        *,
        procs: int | None = None,
        window: int = 256,
        slots: int = 128,
        backfill: str = "none",
        layout: str = "clustersched",
        reward: str | Callable[["BatchMetrics"], float] = "bounded_slowdown",
        dense: bool = False,
        split: str = "train",
        test_fraction: float = 0.2,
        estimates: str = "requested",
        max_wait: float = MAX_WAIT,
        max_run: float = MAX_RUN,
        illegal_penalty: float = 0.0,
        validate: bool | None = None,
        render_mode: str | None = None,
    ) -> None:
        if render_mode is not None:
            raise ValueError(f"render_mode == {render_mode!r}, must be None (the schedule is in info)")
        self.options = env_options(
            window=window,
            slots=slots,
            backfill=backfill,
            layout=layout,
            reward=reward,
            dense=dense,
            max_wait=max_wait,
            max_run=max_run,
            illegal_penalty=illegal_penalty,
        )
        if isinstance(jobs, EpisodeTrace):  # another environment's, shared (baselines.compare)
            if jobs.window != window:
                raise ValueError(f"window == {window}, but the trace given is cut in windows of {jobs.window}")
            self.trace = jobs
        else:
            self.trace = EpisodeTrace.prepare(
                jobs, procs=procs, window=window, split=split, test_fraction=test_fraction, estimates=estimates
            )
        self.validate = validate
        self.render_mode = render_mode
        self.observation_space = spaces.Box(0.0, 1.0, shape=(slots, FEATURES), dtype=np.float32)
        self.action_space = spaces.Discrete(slots)
        self._obs = np.zeros((slots, FEATURES), dtype=np.float32)
        self._mask = np.zeros(slots, dtype=bool)
        self._episode: _core.RlEpisode | None = None

    # -- gymnasium -------------------------------------------------------------------------------------------------
    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        """Starts an episode: on the window at ``options["first"]`` (a row of the split) if given, else on one
        drawn uniformly from the split with the environment's Generator (seeded by ``seed``).

        ``info`` holds ``first``, the window's first row.
        """
        super().reset(seed=seed)
        options = dict(options or {})
        unknown = set(options) - {"first"}
        if unknown:
            raise ValueError(f"options {sorted(unknown)} unknown; reset takes options={{'first': row}}")
        first = self.trace.check_first(options["first"]) if "first" in options else self.trace.draw(self.np_random)
        if self._episode is None:
            self._episode = _core.RlEpisode(self.trace.core, first, *core_config(self.options))
        else:
            self._episode.reset(first)
        self._episode.observe(self._obs, self._mask)
        return self._obs.copy(), {"first": first}

    def step(self, action: Any) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        """Plays ``action`` (a slot).  A slot without a job is a no-op (``info["legal"]`` is False).

        At the end (``terminated``), ``info`` holds the episode's ``schedule`` (validated when ``validate``
        says so) and ``metrics`` (:meth:`BatchMetrics.summary <clustersched.batch.BatchMetrics.summary>`).
        """
        episode = self._episode
        if episode is None:
            raise gym.error.ResetNeeded("call reset() before step()")
        reward, terminated, legal = episode.step(int(action), self._obs, self._mask)
        info: dict[str, Any] = {"legal": legal}
        if terminated:
            reward = self._finish(info, reward)
        return self._obs.copy(), reward, terminated, False, info

    def action_masks(self) -> np.ndarray:
        """The legal slots now (those that hold a waiting job): what MaskablePPO asks an environment for."""
        return self._mask.copy()

    # -- the episode -----------------------------------------------------------------------------------------------
    def play(self, score: str) -> tuple[float, dict[str, Any]]:
        """Plays a baseline's picks (:data:`clustersched.rl.baselines.SCORES`) to the end of the current episode,
        in one call into Rust; returns the sum of the rewards and the final ``info``."""
        episode = self._episode
        if episode is None:
            raise gym.error.ResetNeeded("call reset() before play()")
        total = episode.play(score)  # sparse: the last reward alone; dense: never a callable's
        episode.observe(self._obs, self._mask)
        info: dict[str, Any] = {"legal": True}
        return self._finish(info, total, algorithm=score), info

    def schedule(self, algorithm: str = "rl") -> Schedule:
        """The current episode's schedule so far (NaN starts for jobs not started yet)."""
        episode = self._episode
        if episode is None:
            raise gym.error.ResetNeeded("call reset() before schedule()")
        first, n = episode.first, self.options["window"]
        rows = slice(first, first + n)
        jobs = self.trace.jobs
        start = episode.starts()
        offsets, proc_first, proc_count = episode.assignment()
        return Schedule(
            job_id=jobs.job_id[rows],
            submit=jobs.submit[rows],
            start=start,
            end=start + self.trace.run[rows],
            procs=jobs.width()[rows],
            total_procs=self.trace.procs,
            proc_offsets=offsets,
            proc_first=proc_first,
            proc_count=proc_count,
            algorithm=algorithm,
            options={"backfill": self.options["backfill"], "estimates": self.trace.estimates},
            killed=None if self.trace.killed is None else self.trace.killed[rows],
        )

    def _finish(self, info: dict[str, Any], reward: float, algorithm: str = "rl") -> float:
        """Puts the ended episode's schedule and metrics in ``info``; the final reward (a callable's, if any)."""
        episode = self._episode
        assert episode is not None
        schedule = self.schedule(algorithm)
        if validate_default(self.validate):
            validate_batch(schedule, self.trace.window_jobs(episode.first))
        metrics = batch_metrics(schedule)
        info["schedule"] = schedule
        info["metrics"] = metrics.summary()
        info["first"] = episode.first
        cost = self.options["reward"]
        if callable(cost):
            return -float(cost(metrics))
        return float(reward)
