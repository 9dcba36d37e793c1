"""Slow, obviously-correct FCFS and EASY, for differential tests and benchmarks.

Written from the textbook definitions with plain lists, independently of the
Rust simulator: no shared code, no incremental state beyond a completion heap.
"""

from __future__ import annotations

import heapq


def simulate_reference(submit, runtime, estimate, width, procs, policy):
    """Start time of every job under ``policy`` ("fcfs" or "easy").

    Jobs must be sorted by submit time; the queue is in that order. At each
    time stamp: completions, then arrivals, then the policy.
    """
    n = len(submit)
    start = [None] * n
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

        def launch(job):
            start[job] = t
            running.add(job)
            heapq.heappush(completions, (t + runtime[job], job))

        free = procs - sum(width[j] for j in running)
        # FCFS: the head starts while it fits.
        while queue and width[queue[0]] <= free:
            job = queue.pop(0)
            launch(job)
            free -= width[job]
        if policy == "easy" and queue:
            head = queue[0]

            def free_at(s):
                return procs - sum(width[j] for j in running if start[j] + estimate[j] > s)

            ends = sorted({start[j] + estimate[j] for j in running})
            shadow = next(s for s in ends if free_at(s) >= width[head])
            extra = free_at(shadow) - width[head]
            for job in list(queue[1:]):
                if free == 0:
                    break
                if width[job] > free:
                    continue
                ends_in_time = t + estimate[job] <= shadow
                if ends_in_time or width[job] <= extra:
                    if not ends_in_time:
                        extra -= width[job]
                    queue.remove(job)
                    launch(job)
                    free -= width[job]
        elif policy != "fcfs" and policy != "easy":
            raise ValueError(policy)
    return start
