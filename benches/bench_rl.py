"""Reinforcement-learning environment throughput (issue 36).

Steps per second of :mod:`clustersched.rl` on RLScheduler's own trace (``lublin_256.swf``: 10,000 jobs on
256 processors), episodes of 256 decisions (windows of 256 jobs, no backfilling: one job per decision),
random legal actions, resets counted:

(a) one :class:`~clustersched.rl.BatchPickEnv` through its Python API (``reset``, ``step``,
    ``action_masks``), target >= 39,000 steps/s (10x RLScheduler's ``HPCEnv``, about 3,900 steps/s);
(b) :class:`~clustersched.rl.BatchPickVectorEnv`, 64 episodes per call, target >= 390,000 environment
    steps/s (100x); 256 episodes per call are measured too, without a target (their states, about 50 kB
    each, no longer fit the caches of a small machine: see benches/README.md).

The anchor was measured on RLScheduler's ``HPCEnv`` (gym 0.21, default settings, random legal actions,
median of 3): 257 us a step, 10.6 ms a reset.  Run for real from a release build; each bench checks its
episodes' results too, so ``--benchmark-disable`` runs stay meaningful.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from clustersched import read_swf

rl = pytest.importorskip("clustersched.rl")

#: RLScheduler's own trace, in ../shared beside the checkout.
RLSCHEDULER_TRACE = (
    Path(__file__).resolve().parents[2] / "shared" / "data" / "swf" / "small" / "rlscheduler__lublin_256.swf"
)
#: RLScheduler's HPCEnv, random legal actions (the issue's anchor), steps per second.
ANCHOR_STEPS_PER_SECOND = 3_900
WINDOW = 256


@pytest.fixture(scope="module")
def lublin_256():
    if not RLSCHEDULER_TRACE.exists():
        pytest.skip(f"{RLSCHEDULER_TRACE} not found (benches read the shared traces from ../shared)")
    return read_swf(RLSCHEDULER_TRACE)


def _play_single(env: "rl.BatchPickEnv", steps: int, seed: int) -> tuple[int, list[float]]:
    """``steps`` random legal steps, resetting at each episode's end; the episodes ended and their bounded slowdowns."""
    rng = np.random.default_rng(seed)
    env.reset(seed=seed)
    ended: list[float] = []
    for _ in range(steps):
        legal = int(env.action_masks().sum())  # the legal slots are 0 .. legal - 1
        _, _, done, _, info = env.step(int(rng.integers(legal)))
        if done:
            ended.append(info["metrics"]["avg_bounded_slowdown"])
            env.reset()
    return steps, ended


@pytest.mark.parametrize("backfill", ["none", "easy"])
def test_single_env_steps_per_second(benchmark, lublin_256, backfill):
    env = rl.BatchPickEnv(lublin_256, window=WINDOW, backfill=backfill, split="all", validate=False)
    steps = 40 * WINDOW
    done_steps, ended = benchmark.pedantic(_play_single, args=(env, steps, 0), rounds=3, iterations=1)
    assert done_steps == steps and all(b >= 1 for b in ended)
    if backfill == "none":
        assert len(ended) == 40  # exactly one decision per job: 256 decisions an episode
    if not benchmark.disabled:
        rate = steps / benchmark.stats.stats.median
        benchmark.extra_info.update(steps_per_second=rate, vs_anchor=rate / ANCHOR_STEPS_PER_SECOND)
        assert rate >= 10 * ANCHOR_STEPS_PER_SECOND, f"{rate:.0f} steps/s, under 10x the anchor"


def _play_vector(envs: "rl.BatchPickVectorEnv", calls: int, seed: int) -> tuple[int, int]:
    """``calls`` vector steps of random legal actions; environment steps taken and episodes ended."""
    rng = np.random.default_rng(seed)
    envs.reset(seed=seed)
    n, ended = envs.num_envs, 0
    for _ in range(calls):
        legal = np.maximum(envs._mask.sum(axis=1), 1)  # the buffer itself (copy=False): no copy per call
        actions = (rng.random(n) * legal).astype(np.int64)
        _, _, terminated, _, _ = envs.step(actions)
        ended += int(terminated.sum())
    return n * calls, ended


@pytest.mark.parametrize("num_envs", [64, 256])
def test_vector_env_steps_per_second(benchmark, lublin_256, num_envs):
    envs = rl.BatchPickVectorEnv(num_envs, lublin_256, window=WINDOW, split="all", copy=False)
    calls = 8 * WINDOW
    steps, ended = benchmark.pedantic(_play_vector, args=(envs, calls, 0), rounds=3, iterations=1)
    # next-step autoreset: an episode of 256 decisions takes 257 calls
    assert ended == num_envs * (calls // (WINDOW + 1))
    if not benchmark.disabled:
        rate = steps / benchmark.stats.stats.median
        benchmark.extra_info.update(env_steps_per_second=rate, vs_anchor=rate / ANCHOR_STEPS_PER_SECOND)
        if num_envs == 64:
            assert rate >= 100 * ANCHOR_STEPS_PER_SECOND, f"{rate:.0f} env steps/s, under 100x the anchor"
