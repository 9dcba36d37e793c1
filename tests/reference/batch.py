"""Slow, obviously-correct batch policies, for differential tests and benchmarks.

Written from the textbook definitions with plain lists, independently of the
Rust simulator: no shared code, no incremental state beyond a completion heap.
Policies: fcfs, easy, easy-arrival, conservative, sjf, dpsa-p, dpsa-n, dpsa-w.
"""

from __future__ import annotations

import heapq
import math
from itertools import combinations


def simulate_reference(submit, runtime, estimate, width, procs, policy):
    """Start time of every job under ``policy``.

    Jobs must be sorted by submit time; the queue is in that order (by estimate
    for sjf, ties by arrival). At each time stamp: completions, then arrivals,
    then the policy.
    """
    n = len(submit)
    start = [None] * n
    planned = [None] * n  # conservative: current reservation of each waiting job
    completions = []  # heap of (actual end, job)
    running = set()
    queue = []
    next_arrival = 0
    while next_arrival < n or completions:
        pending = []
        if next_arrival < n:
            pending.append(submit[next_arrival])
        if completions:
            pending.append(completions[0][0])
        t = min(pending)
        while completions and completions[0][0] == t:
            _, job = heapq.heappop(completions)
            running.discard(job)
        while next_arrival < n and submit[next_arrival] == t:
            queue.append(next_arrival)
            next_arrival += 1
        if policy == "sjf":
            queue.sort(key=lambda j: (estimate[j], j))

        def launch(job):
            start[job] = t
            running.add(job)
            queue.remove(job)
            heapq.heappush(completions, (t + runtime[job], job))

        def free_now():
            return procs - sum(width[j] for j in running)

        if policy == "sjf":
            for job in list(queue):
                if width[job] <= free_now():
                    launch(job)
            continue
        if policy == "conservative":
            _conservative(t, queue, running, start, planned, estimate, width, procs, launch, free_now)
            continue
        # FCFS: the head starts while it fits.
        while queue and width[queue[0]] <= free_now():
            launch(queue[0])
        if policy == "fcfs" or not queue:
            continue
        head = queue[0]

        def free_at(s):
            return procs - sum(width[j] for j in running if start[j] + estimate[j] > s)

        ends = sorted({start[j] + estimate[j] for j in running})
        shadow = next(s for s in ends if free_at(s) >= width[head])
        extra = free_at(shadow) - width[head]
        if policy in ("easy", "easy-arrival"):
            free = free_now()
            # easy-arrival: a job may be backfilled only at the time stamp it arrives
            candidates = queue[1:] if policy == "easy" else [j for j in queue[1:] if submit[j] == t]
            for job in candidates:
                if free == 0:
                    break
                if width[job] > free:
                    continue
                ends_in_time = t + estimate[job] <= shadow
                if ends_in_time or width[job] <= extra:
                    if not ends_in_time:
                        extra -= width[job]
                    launch(job)
                    free -= width[job]
        elif policy in ("dpsa-p", "dpsa-n", "dpsa-w"):
            free = free_now()
            eligible = [j for j in queue[1:] if width[j] <= free]
            unreserved = min(free, extra)
            chosen = dpsa_brute_force(
                [width[j] for j in eligible],
                [t + estimate[j] <= shadow for j in eligible],
                free - unreserved,
                unreserved,
                policy[-1],
            )
            for i in chosen:
                launch(eligible[i])
        else:
            raise ValueError(policy)
    return start


def _conservative(t, queue, running, start, planned, estimate, width, procs, launch, free_now):
    """Every waiting job, in order of its previous reservation (new ones last,
    ties by queue order), reserved at the earliest time its processors stay
    free for its estimate (a zero-length job for the instant it runs, i.e.
    until the next float); jobs reserved now start."""
    booked = [(t, start[j] + estimate[j], width[j]) for j in running]  # (from, to, width)

    def until(s, job):
        return s + estimate[job] if estimate[job] > 0 else math.nextafter(s, math.inf)

    def used_at(s):
        return sum(w for a, b, w in booked if a <= s < b)

    def fits(s, job):
        # free at every instant of [s, s + estimate), checked where usage changes
        points = {s} | {a for a, _, _ in booked if s < a < until(s, job)}
        return all(procs - used_at(p) >= width[job] for p in points)

    order = sorted(queue, key=lambda j: (planned[j] is None, planned[j] or 0.0, queue.index(j)))
    for job in order:
        candidates = sorted({t} | {b for _, b, _ in booked if b > t})
        s = next(c for c in candidates if fits(c, job))
        planned[job] = s
        booked.append((s, until(s, job), width[job]))
        if s == t and width[job] <= free_now():
            launch(job)


def dpsa_brute_force(widths, short, reserved, unreserved, variant):
    """DPSA's choice by enumerating every subset: the largest total width among
    subsets whose long jobs fit in ``unreserved`` and whose jobs all fit in
    ``reserved + unreserved``; among equals, the subset whose positions in the
    variant's order (p: as given; n: by ascending width; w: by descending width;
    ties as given), sorted, form the lexicographically smallest list.
    Returns the chosen indices into ``widths``, sorted."""
    n = len(widths)
    if variant == "p":
        order = list(range(n))
    elif variant == "n":
        order = sorted(range(n), key=lambda i: widths[i])
    elif variant == "w":
        order = sorted(range(n), key=lambda i: -widths[i])
    else:
        raise ValueError(variant)
    best_key, best = None, []
    for size in range(n + 1):
        for positions in combinations(range(n), size):
            subset = [order[p] for p in positions]
            total = sum(widths[i] for i in subset)
            long_total = sum(widths[i] for i in subset if not short[i])
            if long_total > unreserved or total > reserved + unreserved:
                continue
            key = (-total, list(positions))
            if best_key is None or key < best_key:
                best_key, best = key, subset
    return sorted(best)
