"""Fuzzing of the batch simulator (issue 20): ``batch.simulate`` with every built-in policy (fcfs, easy,
conservative, sjf, dpsa-p/n/w) and a small policy written in Python, under both ``estimates`` rules, on seeded
random job tables: fractional submit times and runtimes, equal times, zero runtimes, jobs as wide as the
machine, tiny (1e-9 s) and huge (1e12 s, 1e300 s) values, requested times below, at and above the runtime or
unknown, machines of 1 to 2**20 processors.

Each case runs in a sandboxed worker (``tests/sandbox.py``) under a hard time limit: a hang is a failure.
Every schedule is validated in the worker (``validate=True``: the worker does not rely on the environment);
a violation is a failure, not a typed rejection.  A few tables carry a deliberately bad job (a negative or NaN
runtime or submit time, no processor count, wider than the machine): they must be refused with a
ClusterschedError, which the sandbox counts as a typed rejection; any other exception fails.
"""

from __future__ import annotations

import numpy as np
import pytest

from clustersched.batch import BUILTIN_POLICIES, Policy

from sandbox import fixture

#: Cases run (seeds 0..CASES-1) and the hard limit of one case (16 simulations), seconds.
CASES = 1500
SECONDS = 30.0


class FirstFit(Policy):
    """Starts, in queue order, every waiting job that fits now (no reservation)."""

    name = "first-fit"

    def schedule(self, state):
        for job in state.queue():
            if state.width[job] <= state.free:
                state.start(job)


def _times(rng: np.random.Generator, n: int, what: str) -> np.ndarray:
    """``n`` times of one of several kinds (fractional, equal, zero, tiny, huge)."""
    kind = rng.choice(["fraction", "fraction", "integer", "equal", "zero", "tiny", "huge", "extreme", "mixed"])
    if kind == "fraction":
        return np.round(rng.uniform(0, 1000, n), 3)
    if kind == "integer":
        return rng.integers(0, 50, n).astype(float)
    if kind == "equal":
        return np.full(n, float(np.round(rng.uniform(0, 100), 3)))
    if kind == "zero":
        return np.zeros(n)
    if kind == "tiny":
        return rng.uniform(0, 1e-9, n)
    if kind == "huge":
        return np.round(rng.uniform(1e11, 1e12, n), 3)
    if kind == "extreme":
        return rng.uniform(0, 1e300, n) if what == "runtime" else rng.uniform(1e299, 1e300, n)
    parts = [np.zeros(n), np.round(rng.uniform(0, 10, n), 3), rng.uniform(0, 1e-9, n), rng.uniform(1e9, 1e10, n)]
    return np.choose(rng.integers(0, len(parts), n), parts)


def _table(rng: np.random.Generator):
    """A random job table and the machine size."""
    from clustersched import JobTable

    procs = int(rng.choice([1, 2, 3, 7, 64, 240, 2**20]))
    n = int(rng.choice([1, 2, int(rng.integers(1, 30)), int(rng.integers(1, 30)), int(rng.integers(30, 300))]))
    submit = _times(rng, n, "submit")
    runtime = _times(rng, n, "runtime")
    width = rng.integers(1, procs + 1, n)
    width[rng.random(n) < 0.2] = procs  # as wide as the machine
    width[rng.random(n) < 0.3] = 1
    requested = np.where(rng.random(n) < 0.3, -1.0, runtime * rng.choice([0.5, 1.0, 1.0, 2.0, 10.0], n))
    if rng.random() < 0.04:  # a bad job: the table must be refused with a typed error
        k = int(rng.integers(n))
        bad = rng.choice(["runtime", "submit", "width", "wide"])
        if bad == "runtime":
            runtime[k] = float(rng.choice([-1.0, np.nan]))
        elif bad == "submit":
            submit[k] = float(rng.choice([-5.0, np.nan]))
        elif bad == "width":
            width[k] = 0
        else:
            width[k] = procs + 1
    table = JobTable(
        {"submit": submit, "runtime": runtime, "procs": width, "time_requested": requested},
        metadata={"MaxProcs": str(procs)},
    )
    return table, procs


def batch_case(seed: int) -> None:
    """One seeded job table under every built-in policy and FirstFit, both estimates rules, every schedule validated."""
    from clustersched.batch import BUILTIN_POLICIES, simulate
    from clustersched.errors import InvalidScheduleError

    rng = np.random.default_rng([20, 1, seed])
    table, procs = _table(rng)
    for policy in (*BUILTIN_POLICIES, FirstFit()):
        for estimates in ("requested", "exact"):
            try:
                run = simulate(table, policy, procs=procs, estimates=estimates, validate=True)
            except InvalidScheduleError as e:  # a wrong schedule is a failure, not a rejection
                raise AssertionError(f"{run_name(policy)} ({estimates}) made an invalid schedule: {e}") from None
            s = run.schedule
            assert len(s) == len(run.jobs) == len(table) - len(run.dropped)
            assert np.all(s.start >= s.submit) and np.all(np.isfinite(s.start))


def run_name(policy) -> str:
    return policy if isinstance(policy, str) else policy.name


sandbox = fixture(f"batch (simulate: {len(BUILTIN_POLICIES)} built-in policies + a Python policy)", SECONDS)


@pytest.mark.slow
def test_batch_simulation_never_hangs_crashes_or_makes_an_invalid_schedule(sandbox):
    for seed in range(CASES):
        sandbox.run(batch_case, seed)
    assert sandbox.cases == CASES
    assert sandbox.rejected < CASES // 10  # the deliberately bad tables
