"""Many episodes stepped in one call into Rust: a ``gymnasium.vector.VectorEnv``.

:class:`BatchPickVectorEnv` runs ``num_envs`` copies of :class:`~clustersched.rl.BatchPickEnv` on one trace.
``step(actions)`` makes one call into the Rust core, which steps every episode without the GIL and writes
observations, masks, rewards and ends into preallocated arrays.

Autoreset is gymnasium's default mode, ``AutoresetMode.NEXT_STEP``: the step that ends an episode returns
its last observation with ``terminated`` True; the *next* step resets that sub-environment (its action is
ignored, its reward is 0, ``terminated`` False) and returns the new episode's first observation.

Randomness: sub-environment ``i`` owns one ``numpy.random.Generator``, seeded with ``seed + i`` by
``reset(seed=seed)`` (gymnasium's rule for vector environments), and draws each of its windows from it in
turn, exactly as a :class:`~clustersched.rl.BatchPickEnv` reset with ``seed + i`` draws its windows on
successive resets: the same seed gives the same episodes, in one environment or many.

``infos`` is empty except at a step where an episode ends; it then holds, per gymnasium's convention,
arrays ``avg_bounded_slowdown``, ``avg_wait``, ``utilization``, ``makespan`` and ``first`` with their
masks ``_avg_bounded_slowdown``, ... (True where the episode ended).  They are the Rust kernel's figures
(computed as :func:`~clustersched.batch.batch_metrics` computes them; a test checks that they agree).  The
vector environment builds no schedule object: call :meth:`BatchPickVectorEnv.starts` for an ended
episode's start times, or use :class:`~clustersched.rl.BatchPickEnv` for schedules.
"""

from __future__ import annotations

import os
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces
from gymnasium.utils import seeding
from gymnasium.vector import AutoresetMode
from gymnasium.vector.utils import batch_space

from .. import _core
from .._checks import check_int
from ..workload.jobs import JobTable
from .env import FEATURES, MAX_RUN, MAX_WAIT, core_config, env_options
from .trace import EpisodeTrace

__all__ = ["INFO_KEYS", "BatchPickVectorEnv", "make_vector"]

#: The per-episode figures ``infos`` holds at a step where an episode ends.
INFO_KEYS = ("avg_bounded_slowdown", "avg_wait", "utilization", "makespan")


class BatchPickVectorEnv(gym.vector.VectorEnv):
    """``num_envs`` episodes of :class:`~clustersched.rl.BatchPickEnv` stepped in one call (module docstring).

    Parameters
    ----------
    num_envs : int
        Sub-environments.
    jobs, procs, window, slots, backfill, layout, reward, dense, split, test_fraction, estimates, max_wait, \
max_run, illegal_penalty
        As for :class:`~clustersched.rl.BatchPickEnv`; ``reward`` must be a name.
    copy : bool
        Return copies of the observation, reward and end arrays (default), or the buffers themselves, which
        the next step overwrites (faster, for a loop that consumes each step before the next).

    Examples
    --------
    >>> import numpy as np
    >>> from clustersched.rl import BatchPickVectorEnv
    >>> envs = BatchPickVectorEnv(4, window=32, slots=8)
    >>> obs, infos = envs.reset(seed=0)
    >>> obs.shape, envs.action_masks().shape
    ((4, 8, 8), (4, 8))
    >>> obs, rewards, terminated, truncated, infos = envs.step(np.zeros(4, dtype=np.int64))
    >>> rewards.shape, terminated.dtype
    ((4,), dtype('bool'))
    """

    metadata: dict[str, Any] = {"render_modes": [], "autoreset_mode": AutoresetMode.NEXT_STEP}

    def __init__(
        self,
        num_envs: int,
        jobs: JobTable | str | os.PathLike[str] | None = None,
        *,
        procs: int | None = None,
        window: int = 256,
        slots: int = 128,
        backfill: str = "none",
        layout: str = "clustersched",
        reward: str = "bounded_slowdown",
        dense: bool = False,
        split: str = "train",
        test_fraction: float = 0.2,
        estimates: str = "requested",
        max_wait: float = MAX_WAIT,
        max_run: float = MAX_RUN,
        illegal_penalty: float = 0.0,
        copy: bool = True,
        render_mode: str | None = None,
    ) -> None:
        self.num_envs = check_int("num_envs", num_envs, 1)
        if callable(reward):
            raise TypeError("the vector environment's reward is a name (its figures are the Rust kernel's)")
        if render_mode is not None:
            raise ValueError(f"render_mode == {render_mode!r}, must be None")
        self.render_mode = render_mode
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
        self.trace = EpisodeTrace.prepare(
            jobs, procs=procs, window=window, split=split, test_fraction=test_fraction, estimates=estimates
        )
        self.copy = bool(copy)
        self.single_observation_space = spaces.Box(0.0, 1.0, shape=(slots, FEATURES), dtype=np.float32)
        self.single_action_space = spaces.Discrete(slots)
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self.action_space = batch_space(self.single_action_space, self.num_envs)
        n = self.num_envs
        self._obs = np.zeros((n, slots, FEATURES), dtype=np.float32)
        self._mask = np.zeros((n, slots), dtype=bool)
        self._reward = np.zeros(n, dtype=np.float64)
        self._terminated = np.zeros(n, dtype=bool)
        self._truncated = np.zeros(n, dtype=bool)
        self._reset = np.zeros(n, dtype=bool)
        self._metrics = np.zeros((n, len(INFO_KEYS)), dtype=np.float64)
        self._next = np.zeros(n, dtype=np.int64)
        self._rngs: list[np.random.Generator] = []
        self._episodes: _core.RlEpisodes | None = None

    def reset(
        self, *, seed: int | list[int | None] | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        """Resets every sub-environment: sub-environment ``i``'s Generator is seeded with ``seed + i`` (or
        ``seed[i]``; None keeps a fresh seed), then each draws its window.  ``options={"first": rows}`` gives
        the windows' first rows instead (one per sub-environment).  ``infos["first"]`` holds them."""
        n = self.num_envs
        if seed is None or isinstance(seed, (int, np.integer)):
            seeds: list[int | None] = [None if seed is None else int(seed) + i for i in range(n)]
        else:
            seeds = list(seed)
            if len(seeds) != n:
                raise ValueError(f"seed has {len(seeds)} values for {n} sub-environments")
        if seed is not None or not self._rngs:
            self._rngs = [seeding.np_random(s)[0] for s in seeds]
        options = dict(options or {})
        unknown = set(options) - {"first"}
        if unknown:
            raise ValueError(f"options {sorted(unknown)} unknown; reset takes options={{'first': rows}}")
        if "first" in options:
            given = np.asarray(options["first"]).reshape(-1)
            if len(given) != n:
                raise ValueError(f"options['first'] has {len(given)} rows for {n} sub-environments")
            firsts = np.array([self.trace.check_first(f.item()) for f in given], dtype=np.int64)
        else:
            firsts = np.array([self.trace.draw(rng) for rng in self._rngs], dtype=np.int64)
        self._next[:] = [self.trace.draw(rng) for rng in self._rngs]
        if self._episodes is None:
            self._episodes = _core.RlEpisodes(self.trace.core, firsts, *core_config(self.options))
        else:
            for i, first in enumerate(firsts):
                self._episodes.reset_one(i, int(first))
        self._episodes.observe(self._obs, self._mask)
        return self._out(self._obs), {"first": firsts}

    def step(self, actions: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        """Steps every sub-environment in one call into Rust (next-step autoreset; module docstring)."""
        episodes = self._episodes
        if episodes is None:
            raise gym.error.ResetNeeded("call reset() before step()")
        actions = np.ascontiguousarray(actions, dtype=np.int64).reshape(self.num_envs)
        episodes.step(
            actions,
            self._next,
            self._obs,
            self._mask,
            self._reward,
            self._terminated,
            self._reset,
            self._metrics,
        )
        if self._reset.any():
            for i in np.flatnonzero(self._reset):
                self._next[i] = self.trace.draw(self._rngs[i])
        infos: dict[str, Any] = {}
        if self._terminated.any():
            ended = self._terminated.copy()
            for k, key in enumerate(INFO_KEYS):
                infos[key] = np.where(ended, self._metrics[:, k], np.nan)
                infos["_" + key] = ended
            infos["first"] = np.where(ended, episodes.firsts(), -1)
            infos["_first"] = ended
        out = self._out
        return out(self._obs), out(self._reward), out(self._terminated), out(self._truncated), infos

    def action_masks(self) -> np.ndarray:
        """The legal slots of every sub-environment (``num_envs x slots``)."""
        return self._mask.copy()

    def starts(self, i: int) -> np.ndarray:
        """Start times of sub-environment ``i``'s current window (NaN where not started)."""
        episodes = self._episodes
        if episodes is None:
            raise gym.error.ResetNeeded("call reset() first")
        return episodes.starts(check_int("i", i, 0, self.num_envs - 1))

    def _out(self, a: np.ndarray) -> np.ndarray:
        return a.copy() if self.copy else a


def make_vector(num_envs: int, **options: Any) -> BatchPickVectorEnv:
    """``gymnasium.make_vec``'s entry point (``vectorization_mode="vector_entry_point"``): a
    :class:`BatchPickVectorEnv`."""
    return BatchPickVectorEnv(num_envs, **options)
