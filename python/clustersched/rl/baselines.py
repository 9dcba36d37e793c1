"""Baselines played in the environment itself, so that an agent's figures sit next to theirs.

Each baseline is a priority rule that picks, at every decision point, the visible waiting job of least score
(ties to the lowest slot, that is arrival order), in the very environment an agent plays (same windows, same
``slots``, same backfilling, same metrics).  The picks run in Rust, a whole episode per call.  With ``r`` the
job's estimate (at least 1 s), ``n`` its processors, ``w`` its wait now and ``s`` its submit time (the trace's
clock, at least 1 s):

=========  ==================================  ==================================================
name       score (least first)                 source
=========  ==================================  ==================================================
fcfs       submit order (slot 0)               first come, first served
sjf        ``r``                               shortest (estimated) job first
wfp3       ``-(w / r)**3 * n``                 Tang et al., "Fault-aware, utility-based job
                                               scheduling on Blue Gene/P systems", Cluster 2009
unicep     ``-w / (max(log2 n, 1) * r)``       Tang et al. 2009 (as above)
f1         ``log10(r) * n + 870 * log10(s)``   Carastan-Santos and de Camargo, "Obtaining dynamic
                                               scheduling policies with simulation and machine
                                               learning", SC'17 (their best function, F1)
easy       fcfs with EASY backfilling          Lifka 1995; RLScheduler's "EASY" column
=========  ==================================  ==================================================

Choices the papers leave open: the floors of ``r`` and ``s`` at 1 s keep the logarithms and quotients
finite (a zero-length estimate, a job submitted at time 0); UNICEP's ``log2 n`` is floored at 1, so a
sequential job counts as a 2-processor one instead of dividing by zero.  ``easy`` is ``fcfs`` played with
``backfill="easy"`` whatever the environment's backfilling; the other rules play with the environment's.
"""

from __future__ import annotations

from typing import Any, Callable, Sequence

import numpy as np

from .env import BatchPickEnv

__all__ = ["BASELINES", "SCORES", "compare", "evaluate"]

#: The priority rules the Rust core picks by (module docstring).
SCORES = ("fcfs", "sjf", "wfp3", "unicep", "f1")
#: Every baseline of :func:`compare`: the rules, and FCFS with EASY backfilling.
BASELINES = SCORES + ("easy",)
#: The figures of an evaluation, per window (the keys of :meth:`BatchMetrics.summary`).
_FIGURES = ("avg_bounded_slowdown", "avg_wait", "utilization")

#: An agent: the observation and the mask of legal slots in, a slot out.
Agent = Callable[[np.ndarray, np.ndarray], int]


def evaluate(policy: str | Agent, env: BatchPickEnv, firsts: Sequence[int] | None = None) -> dict[str, np.ndarray]:
    """Plays ``policy`` on each window of ``env`` beginning at the rows ``firsts`` (default: every
    non-overlapping window of its split, :attr:`EpisodeTrace.windows <clustersched.rl.trace.EpisodeTrace.windows>`).

    Parameters
    ----------
    policy : str or callable
        A name of :data:`BASELINES`, or an agent ``policy(obs, mask) -> slot``.
    env : BatchPickEnv
    firsts : sequence of int, optional

    Returns
    -------
    dict of numpy.ndarray
        ``first``, ``return`` (the sum of the rewards) and, per window, ``avg_bounded_slowdown``,
        ``avg_wait`` and ``utilization`` of the episode's validated schedule (when validation is on).

    Examples
    --------
    >>> from clustersched.rl import BatchPickEnv, evaluate
    >>> env = BatchPickEnv(window=64, slots=16, split="test")
    >>> r = evaluate("sjf", env, firsts=env.trace.windows[:3])
    >>> r["avg_bounded_slowdown"].shape
    (3,)
    """
    if not isinstance(env, BatchPickEnv):
        raise TypeError(f"env == {env!r}, must be a clustersched.rl.BatchPickEnv")
    if isinstance(policy, str):
        if policy not in BASELINES:
            raise ValueError(f"policy == {policy!r}, must be one of {', '.join(map(repr, BASELINES))} or a callable")
        if policy == "easy" and env.options["backfill"] != "easy":
            env = _sibling(env, backfill="easy")
        score = "fcfs" if policy == "easy" else policy
    elif not callable(policy):
        raise TypeError(f"policy == {policy!r}, must be a baseline name or a callable (obs, mask) -> slot")
    rows = env.trace.windows if firsts is None else np.array([env.trace.check_first(f) for f in firsts])
    out: dict[str, list[float]] = {k: [] for k in ("return",) + _FIGURES}
    for first in rows:
        obs, _ = env.reset(options={"first": int(first)})
        if isinstance(policy, str):
            total, info = env.play(score)
        else:
            total, done = 0.0, False
            while not done:
                obs, reward, done, _, info = env.step(policy(obs, env.action_masks()))
                total += reward
        out["return"].append(total)
        for k in _FIGURES:
            out[k].append(info["metrics"][k])
    return {"first": np.asarray(rows, dtype=np.int64), **{k: np.asarray(v) for k, v in out.items()}}


def compare(
    env: BatchPickEnv,
    agents: dict[str, Agent] | None = None,
    *,
    baselines: Sequence[str] = BASELINES,
    firsts: Sequence[int] | None = None,
) -> list[dict[str, Any]]:
    """The table an agent's figures sit next to: each of ``baselines`` and each of ``agents`` evaluated
    (:func:`evaluate`) on the same windows of ``env``; one row per policy, the means over the windows.

    Rows are dicts (``pandas.DataFrame(rows)`` makes a table): ``policy``, ``backfill``, ``windows``,
    ``avg_bounded_slowdown``, ``avg_wait``, ``utilization``.

    Examples
    --------
    >>> from clustersched.rl import BatchPickEnv, compare
    >>> env = BatchPickEnv(window=64, slots=16, split="test")
    >>> rows = compare(env, baselines=["fcfs", "easy"], firsts=env.trace.windows[:2])
    >>> [r["policy"] for r in rows], rows[1]["backfill"]
    (['fcfs', 'easy'], 'easy')
    """
    named: list[tuple[str, str | Agent]] = [(b, b) for b in baselines] + list((agents or {}).items())
    rows = []
    for name, policy in named:
        r = evaluate(policy, env, firsts)
        rows.append(
            {
                "policy": name,
                "backfill": "easy" if policy == "easy" else env.options["backfill"],
                "windows": len(r["first"]),
                **{k: float(np.mean(r[k])) for k in _FIGURES},
            }
        )
    return rows


def _sibling(env: BatchPickEnv, **changes: Any) -> BatchPickEnv:
    """An environment on ``env``'s trace (its split and windows) with some options changed."""
    options = {**env.options, **changes}
    return BatchPickEnv(env.trace, validate=env.validate, **options)
