"""Slow, obviously correct reference of batch scheduling on nodes: the placement rule and FCFS / EASY.

Written from the rules as ``rust/core/src/batch/nodes.rs`` and
``node_policy.rs`` document them, with plain lists and dicts: one function per
rule, no incremental state.  Requests are dicts of the core's fields
(``nodes``, ``tasks``, ``cpus_per_task``, ``mem_per_cpu``, ``mem_per_node``,
``gres_per_node``, ``gres_kinds``, ``features``, ``partition``, ``exclusive``);
nodes a dict of lists (``cores``, ``memory``, ``gres`` as a list of lists,
``features``, ``weight``, ``partitions``).
"""

from __future__ import annotations

import math

WHOLE = 2**64 - 1


def capacity(nodes: dict, free: dict, r: dict, n: int) -> int:
    """Tasks of request ``r`` node ``n`` can host on what ``free`` leaves it."""
    if not nodes["partitions"][n] >> r["partition"] & 1:
        return 0
    if nodes["features"][n] & r["features"] != r["features"]:
        return 0
    idle = (
        free["cores"][n] == nodes["cores"][n]
        and free["memory"][n] == nodes["memory"][n]
        and free["gres"][n] == nodes["gres"][n]
    )
    if r["exclusive"] and not idle:
        return 0
    tasks = free["cores"][n] // r["cpus_per_task"]
    if r["mem_per_node"] == WHOLE:
        if free["memory"][n] < nodes["memory"][n]:
            return 0
    elif free["memory"][n] < r["mem_per_node"]:
        return 0
    if r["mem_per_cpu"] > 0:
        tasks = min(tasks, free["memory"][n] // (r["mem_per_cpu"] * r["cpus_per_task"]))
    if r["gres_per_node"] > 0:
        units = sum(u for g, u in enumerate(free["gres"][n]) if r["gres_kinds"] >> g & 1)
        if units < r["gres_per_node"]:
            return 0
    return tasks


def place(nodes: dict, free: dict, r: dict) -> list[tuple[int, int, int, int, list[int]]] | None:
    """Shares ``(node, tasks, cores, memory, gres units)`` of ``r`` on ``free``, or None."""
    caps = [capacity(nodes, free, r, n) for n in range(len(nodes["cores"]))]
    hosts = [n for n in range(len(caps)) if caps[n] > 0]
    chosen: list[tuple[int, int]]
    singles = [n for n in hosts if caps[n] >= r["tasks"]] if r["nodes"] == 1 else []
    if singles:
        best = min(singles, key=lambda n: (nodes["weight"][n], free["cores"][n] - r["tasks"] * r["cpus_per_task"], n))
        chosen = [(best, r["tasks"])]
    else:
        if sum(caps[n] for n in hosts) < r["tasks"] or len(hosts) < r["nodes"]:
            return None
        hosts.sort(key=lambda n: (nodes["weight"][n], -caps[n], n))
        picked: list[int] = []
        while len(picked) < r["nodes"] or sum(caps[n] for n in picked) < r["tasks"]:
            picked.append(hosts[len(picked)])
        left = r["tasks"] - len(picked)
        chosen = []
        for n in picked:
            more = min(left, caps[n] - 1)
            left -= more
            chosen.append((n, 1 + more))
    shares = []
    for n, t in chosen:
        cores = nodes["cores"][n] if r["exclusive"] else t * r["cpus_per_task"]
        if r["mem_per_node"] == WHOLE:
            memory = nodes["memory"][n]
        elif r["mem_per_node"] > 0:
            memory = r["mem_per_node"]
        else:
            memory = r["mem_per_cpu"] * t * r["cpus_per_task"]
        need, units = r["gres_per_node"], []
        for g, have in enumerate(free["gres"][n]):
            take = min(need, have) if r["gres_kinds"] >> g & 1 else 0
            units.append(take)
            need -= take
        shares.append((n, t, cores, memory, units))
    return shares


def _take(free: dict, shares: list, sign: int = 1) -> None:
    for n, _, cores, memory, units in shares:
        free["cores"][n] -= sign * cores
        free["memory"][n] -= sign * memory
        free["gres"][n] = [have - sign * u for have, u in zip(free["gres"][n], units)]


def _copy(free: dict) -> dict:
    return {"cores": list(free["cores"]), "memory": list(free["memory"]), "gres": [list(g) for g in free["gres"]]}


def _meet(a: dict, b: dict) -> dict:
    return {
        "cores": [min(x, y) for x, y in zip(a["cores"], b["cores"])],
        "memory": [min(x, y) for x, y in zip(a["memory"], b["memory"])],
        "gres": [[min(x, y) for x, y in zip(g, h)] for g, h in zip(a["gres"], b["gres"])],
    }


def simulate(
    nodes: dict, requests: list[dict], submit: list[float], runtime: list[float], estimate: list[float], policy: str
) -> tuple[list[float], list[list]]:
    """Start times and shares of every job under ``policy`` in ``{"fcfs", "easy"}``.

    At each time stamp: completions, then arrivals (queue in arrival order),
    then FCFS starts the head while it fits; EASY then computes the head's
    shadow time (running jobs released in estimated-end order, every job
    ending at one instant together) and backfills, in queue order, every
    job that fits now and ends by the shadow time, or fits on what is free
    both now and beyond the head's placement at the shadow time.
    """
    if policy == "conservative":
        return _simulate_conservative(nodes, requests, submit, runtime, estimate)
    n = len(requests)
    free = {"cores": list(nodes["cores"]), "memory": list(nodes["memory"]), "gres": [list(g) for g in nodes["gres"]]}
    start = [math.nan] * n
    shares: list[list] = [[] for _ in range(n)]
    queue: list[int] = []
    running: list[int] = []  # jobs started and not completed
    arrived = 0
    while arrived < n or running or queue:
        candidates = [start[j] + runtime[j] for j in running]
        if arrived < n:
            candidates.append(submit[arrived])
        now = min(candidates)
        for j in [j for j in running if start[j] + runtime[j] == now]:
            _take(free, shares[j], -1)
            running.remove(j)
        while arrived < n and submit[arrived] == now:
            queue.append(arrived)
            arrived += 1

        def launch(j: int, s: list) -> None:
            start[j] = now
            shares[j] = s
            _take(free, s)
            running.append(j)
            queue.remove(j)

        while queue:
            s = place(nodes, free, requests[queue[0]])
            if s is None:
                break
            launch(queue[0], s)
        if policy == "easy" and queue:
            head = queue[0]
            shadow_free = _copy(free)
            by_end = sorted(running, key=lambda j: (start[j] + estimate[j], j))
            shadow, i = now, 0
            while place(nodes, shadow_free, requests[head]) is None:
                shadow = start[by_end[i]] + estimate[by_end[i]]
                while i < len(by_end) and start[by_end[i]] + estimate[by_end[i]] == shadow:
                    _take(shadow_free, shares[by_end[i]], -1)
                    i += 1
            _take(shadow_free, place(nodes, shadow_free, requests[head]))
            extra = shadow_free
            for j in list(queue[1:]):
                if now + estimate[j] <= shadow:
                    s = place(nodes, free, requests[j])
                else:
                    s = place(nodes, _meet(free, extra), requests[j])
                    if s is not None:
                        _take(extra, s)
                if s is not None:
                    launch(j, s)
    return start, shares


def _free_at(nodes: dict, plan: list, s: float) -> dict:
    free = {"cores": list(nodes["cores"]), "memory": list(nodes["memory"]), "gres": [list(g) for g in nodes["gres"]]}
    for start, end, shares in plan:
        if start <= s < end:
            _take(free, shares)
    return free


def conservative_pass(
    nodes: dict, requests: list, estimate: list, now: float, running: list, slots: dict, arrivals: list
) -> dict:
    """One pass of conservative backfilling with compression on nodes: ``running`` as ``(estimated end,
    shares)``, ``slots`` the reservations ``{job: (start, shares)}`` of the waiting jobs, ``arrivals`` the
    jobs without one in queue order; returns every waiting job's ``(start, shares)``.

    In order of reservation (ties by row), each job moves to the earliest of now and the planned ends before
    its reservation where, at every instant of its interval (``[t, t + estimate)``, the instant ``t`` for a
    zero-length job), the placement rule finds it nodes on what all other planned jobs leave free node by node
    and resource by resource at the least of those instants; else it keeps its reservation.  Arrivals are
    then placed the same way, with no reservation to keep.
    """

    def end(j: int, t: float) -> float:
        return t + estimate[j] if estimate[j] > 0 else math.nextafter(t, math.inf)

    plan = {("run", k): (now, e, sh) for k, (e, sh) in enumerate(running)}
    plan.update({j: (t, end(j, t), sh) for j, (t, sh) in slots.items()})
    for j in sorted(slots, key=lambda j: (slots[j][0], j)) + list(arrivals):
        old = plan.pop(j, None)
        latest = math.inf if old is None else old[0]
        found = None
        for t in sorted({now} | {e for _, e, _ in plan.values() if now < e < latest}):
            stop = end(j, t)
            room = _free_at(nodes, plan.values(), t)
            for start, _, _ in plan.values():
                if t < start < stop:
                    room = _meet(room, _free_at(nodes, plan.values(), start))
            shares = place(nodes, room, requests[j])
            if shares is not None:
                found = (t, shares)
                break
        if found is None:
            assert old is not None, "a checked request fits once every planned job has ended"
            found = (old[0], old[2])
        plan[j] = (found[0], end(j, found[0]), found[1])
    return {j: (t, sh) for j, (t, _, sh) in plan.items() if not isinstance(j, tuple)}


def _simulate_conservative(nodes: dict, requests: list, submit: list, runtime: list, estimate: list):
    n = len(requests)
    start = [math.nan] * n
    shares: list[list] = [[] for _ in range(n)]
    planned = [math.nan] * n
    first = [math.nan] * n
    queue: list[int] = []
    running: list[int] = []
    arrived = 0
    while arrived < n or running or queue:
        candidates = [start[j] + runtime[j] for j in running]
        if arrived < n:
            candidates.append(submit[arrived])
        now = min(candidates)
        for j in [j for j in running if start[j] + runtime[j] == now]:
            running.remove(j)
        while arrived < n and submit[arrived] == now:
            queue.append(arrived)
            arrived += 1
        slots = {j: (planned[j], shares[j]) for j in queue if not math.isnan(planned[j])}
        arrivals = [j for j in queue if math.isnan(planned[j])]
        plan = conservative_pass(
            nodes, requests, estimate, now, [(start[j] + estimate[j], shares[j]) for j in running], slots, arrivals
        )
        for j in list(queue):
            planned[j], shares[j] = plan[j]
            if math.isnan(first[j]):
                first[j] = plan[j][0]
            if plan[j][0] == now:
                start[j] = now
                running.append(j)
                queue.remove(j)
    return start, shares, first
