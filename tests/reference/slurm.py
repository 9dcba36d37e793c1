"""Slow, obviously correct reference of Slurm's multifactor priority (17.11, classic fair-share).

Written from Slurm's documentation ("Multifactor Priority Plugin": the weighted sum of factors in [0, 1];
fair-share ``F = 2^(-(UE / S) / d)`` with the effective usage ``UE = U + (UEparent - U) * S_user /
S_siblings``; usage decayed with the half-life) and 17.11's decay thread (every ``PriorityCalcPeriod``: all
usage times ``decay^elapsed``, then each running job's new slice ``d`` as ``d * decay^d * cpus``; a
finished job's last slice at its end), with no incremental state: the usage at any instant is rebuilt from
the schedule alone, by replaying every tick and every completion since the first submit.
"""

from __future__ import annotations

import math


def usage_at(t, *, include_tick, origin, period, half_life, tree_parent, jobs):
    """Raw usage of every association at time ``t``: every completion at or before ``t``, every tick before
    ``t`` (and at ``t`` when ``include_tick``).  ``jobs``: dicts with ``start``, ``end``, ``association``,
    ``billing`` (jobs that never started: ``start`` None)."""
    decay = 1.0 - 0.693 / half_life if half_life > 0 else 1.0
    usage = [0.0] * len(tree_parent)

    def add(association, run, billing):
        if run <= 0:
            return
        amount = run * decay**run * billing
        a = association
        while True:
            usage[a] += amount
            if a == 0:
                break
            a = tree_parent[a]

    events = []  # (time, kind, job): kind 0 a completion, 1 a tick (completions first)
    for j, job in enumerate(jobs):
        if job["start"] is not None and job["end"] <= t:
            events.append((job["end"], 0, j))
    k = 1
    while origin + k * period < t or (include_tick and origin + k * period == t):
        events.append((origin + k * period, 1, -1))
        k += 1
    events.sort()
    accounted = [job["start"] for job in jobs]
    last_tick = origin
    for time, kind, j in events:
        if kind == 0:
            add(jobs[j]["association"], time - accounted[j], jobs[j]["billing"])
            accounted[j] = time
        else:
            if decay < 1.0:
                f = max(decay ** (time - last_tick), 2.2250738585072014e-308)
                usage = [u * f for u in usage]
            last_tick = time
            for i, job in enumerate(jobs):
                if job["start"] is not None and job["start"] < time < job["end"]:
                    add(job["association"], time - accounted[i], job["billing"])
                    accounted[i] = time
    return usage


def fairshare_factors(usage, tree_parent, tree_shares, damping):
    """The classic fair-share factor of every association (the root's is 1)."""
    n = len(tree_parent)
    siblings = [0.0] * n
    for a in range(1, n):
        siblings[tree_parent[a]] += tree_shares[a]

    def level(a):
        return tree_shares[a] / siblings[tree_parent[a]] if siblings[tree_parent[a]] > 0 else 0.0

    def norm_shares(a):
        return 1.0 if a == 0 else level(a) * norm_shares(tree_parent[a])

    def norm_usage(a):
        return usage[a] / usage[0] if usage[0] > 0 else 0.0

    def effective(a):
        p = tree_parent[a]
        if p == 0:
            return norm_usage(a)
        return norm_usage(a) + (effective(p) - norm_usage(a)) * level(a)

    factors = [1.0]
    for a in range(1, n):
        s = norm_shares(a)
        factors.append(2.0 ** (-(effective(a) / s) / damping) if s > 0 else 0.0)
    return factors


def priority(fixed, age, fairshare, weight_age, weight_fairshare):
    """Slurm's 32-bit priority: the weighted sum, truncated, at least 1."""
    total = fixed + weight_age * age + weight_fairshare * fairshare
    return int(min(max(total, 1.0), 2.0**32 - 1))


def age_factor(t, eligible, max_age):
    """``min(whole seconds waited since eligible, max_age) / max_age`` (0 without a max age)."""
    if max_age <= 0:
        return 0.0
    return min(math.floor(max(t - eligible, 0.0)) / max_age, 1.0)
