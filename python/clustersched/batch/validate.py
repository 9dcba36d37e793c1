"""Independent feasibility checks of batch schedules (rigid jobs on one cluster).

These checkers look only at the schedule and at the jobs it claims to
schedule; they share no code with the policies, so a bug in a policy or in the
simulator shows up here as a violation.  Every test runs them on every schedule
it produces.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right

import numpy as np

from ..errors import InvalidScheduleError
from ..workload.jobs import JobTable
from ..workload.timelimit import kills_at_time_limit, time_limited
from .nodes import gres_capacity
from .schedule import Schedule

__all__ = ["batch_violations", "validate_batch"]


def validate_batch(schedule: Schedule, jobs: JobTable) -> None:
    """Raises :class:`InvalidScheduleError` listing every violation, or returns None.

    See :func:`batch_violations` for the rules.
    """
    violations = batch_violations(schedule, jobs)
    if violations:
        raise InvalidScheduleError(violations)


def batch_violations(schedule: Schedule, jobs: JobTable) -> list[str]:
    """Every way ``schedule`` breaks the rules of rigid-job scheduling on ``jobs``.

    Row ``i`` of the schedule must be job ``i`` of ``jobs`` (same job id and
    submit time), and:

    * it starts no earlier than it was submitted, at a finite time;
    * it runs exactly its runtime, ``end == start + runtime``; or, when the
      table declares time-limit kills and the runtime exceeds the requested
      time, exactly the requested time, and the schedule's ``killed`` says so
      (:func:`~clustersched.workload.timelimit.time_limited`, the rule the
      simulator applies); no other job is marked killed;
    * it uses exactly its width (field 5, else field 8) in processors;
    * at no time are more than ``total_procs`` processors busy;
    * when processors are given: the job's runs of processor ids hold
      ``procs`` distinct ids in ``0..total_procs-1``, and no processor runs
      two jobs at once;
    * on a cluster of nodes (``schedule.nodes``), instead of its width: its
      shares, one per distinct node, number at least its minimum nodes, hold
      all its tasks (at least one each), each on a node of its partition
      with every feature it asks, with ``tasks x cpus_per_task`` cores
      (every core of the node when exclusive), the memory it asks (per core
      held or per node; all of the node's for a whole-node request) and its
      GPUs per node from the kinds it allows; ``procs`` is the cores it
      holds; and at no instant does a node hold more cores, memory or units
      of a generic resource than it has.

    Intervals are half-open ``[start, end)``: a job may start on a processor at
    the instant another ends there, and zero-length jobs occupy nothing.
    """
    out: list[str] = []
    n = len(jobs)
    if len(schedule) != n:
        return [f"schedule has {len(schedule)} rows for {n} jobs"]
    ids = jobs.job_id
    P = int(schedule.total_procs)

    def report(mask: np.ndarray, what: str) -> None:
        for i in np.flatnonzero(mask)[:20]:
            out.append(f"job {ids[i]} (row {i}): {what(i)}")  # type: ignore[operator]

    start, end = np.asarray(schedule.start, dtype=float), np.asarray(schedule.end, dtype=float)
    width = jobs.width()
    report(np.asarray(schedule.job_id) != ids, lambda i: f"schedule row names job {schedule.job_id[i]}")
    report(~np.isfinite(start), lambda i: f"never started (start = {start[i]})")
    report(start < jobs.submit, lambda i: f"starts at {start[i]} before its submit time {jobs.submit[i]}")
    run, killed = time_limited(jobs)
    report(
        end != start + run,
        lambda i: (
            f"runs {end[i] - start[i]} s, its runtime is {jobs.runtime[i]} s"
            + (f" (killed at its time limit {jobs.time_requested[i]} s, it runs {run[i]} s)" if killed[i] else "")
        ),
    )
    marked = np.zeros(n, dtype=bool) if schedule.killed is None else np.asarray(schedule.killed, dtype=bool)
    if marked.shape != (n,):
        return out + [f"schedule's killed column has shape {marked.shape} for {n} jobs"]
    if kills_at_time_limit(jobs) and schedule.killed is None:
        out.append("the jobs declare time-limit kills (TimeLimit: kill) but the schedule has no killed column")
    report(
        killed & ~marked,
        lambda i: (
            f"runtime {jobs.runtime[i]} s exceeds its time limit "
            f"{jobs.time_requested[i]} s, but the schedule does not mark it killed"
        ),
    )
    report(
        marked & ~killed,
        lambda i: (
            "marked killed, but the time-limit rule does not kill it (runtime "
            f"{jobs.runtime[i]} s, time limit {jobs.time_requested[i]} s)"
        ),
    )
    if schedule.nodes is not None:
        return out + _node_violations(schedule, start, end, ids)
    report(np.asarray(schedule.procs) != width, lambda i: f"uses {schedule.procs[i]} processors, needs {width[i]}")
    if out:
        return out

    busy = _peak_busy(start, end, width)
    if busy[0] > P:
        out.append(f"{busy[0]} processors busy at time {busy[1]}, the machine has {P}")

    if schedule.proc_offsets is not None:
        out.extend(_processor_violations(schedule, start, end, width, ids, P))
    return out


def _peak_busy(start: np.ndarray, end: np.ndarray, width: np.ndarray) -> tuple[int, float]:
    """Largest number of busy processors over time, and when (ends before starts at ties)."""
    run = end > start
    times = np.concatenate([start[run], end[run]])
    delta = np.concatenate([width[run], -width[run]])
    if times.size == 0:
        return 0, 0.0
    order = np.lexsort((delta, times))  # at equal times, releases (negative) first
    level = np.cumsum(delta[order])
    k = int(np.argmax(level))
    return int(level[k]), float(times[order][k])


def _processor_violations(
    schedule: Schedule, start: np.ndarray, end: np.ndarray, width: np.ndarray, ids: np.ndarray, P: int
) -> list[str]:
    out: list[str] = []
    offsets = np.asarray(schedule.proc_offsets, dtype=np.int64)
    first = np.asarray(schedule.proc_first, dtype=np.int64)
    count = np.asarray(schedule.proc_count, dtype=np.int64)
    if len(offsets) != len(width) + 1 or offsets[0] != 0 or offsets[-1] != len(first) or len(first) != len(count):
        return [
            f"processor runs malformed: {len(offsets)} offsets for {len(width)} jobs, "
            f"{len(first)} run starts, {len(count)} run lengths"
        ]
    row = np.repeat(np.arange(len(width)), np.diff(offsets))
    total = np.bincount(row, weights=count, minlength=len(width)).astype(np.int64)
    for i in np.flatnonzero(total != width)[:20]:
        out.append(f"job {ids[i]} (row {i}): {total[i]} processors assigned for width {width[i]}")
    for k in np.flatnonzero((count < 1) | (first < 0) | (first + count > P))[:20]:
        out.append(f"job {ids[row[k]]}: processors {first[k]}..{first[k] + count[k] - 1} outside 0..{P - 1}")
    if out:
        return out
    order = np.lexsort((first, row))
    r, f, c = row[order], first[order], count[order]
    for k in np.flatnonzero((r[1:] == r[:-1]) & (f[1:] < f[:-1] + c[:-1]))[:20]:
        out.append(f"job {ids[r[k]]} (row {r[k]}) lists processor {f[k + 1]} twice")
    return out + _double_bookings(row, first, first + count, start, end, ids)


def _double_bookings(
    row: np.ndarray, lo: np.ndarray, hi: np.ndarray, start: np.ndarray, end: np.ndarray, ids: np.ndarray
) -> list[str]:
    """Runs of processors ``[lo, hi)`` held by job ``row`` over ``[start, end)``
    that overlap another job's, found by a sweep over time (releases first at
    equal times) keeping the busy runs sorted by first processor."""
    out: list[str] = []
    keep = end[row] > start[row]
    row, lo, hi = row[keep], lo[keep], hi[keep]
    times = np.concatenate([end[row], start[row]])
    is_start = np.concatenate([np.zeros(len(row), bool), np.ones(len(row), bool)])
    run = np.concatenate([np.arange(len(row)), np.arange(len(row))])
    busy_lo: list[int] = []  # first processor of each busy run, sorted
    busy_run: list[int] = []
    for k in np.lexsort((is_start, times)).tolist():
        i = int(run[k])
        a = int(lo[i])
        if not is_start[k]:
            j = bisect_left(busy_lo, a)
            if j < len(busy_lo) and busy_run[j] == i:
                del busy_lo[j], busy_run[j]
            continue
        j = bisect_right(busy_lo, a)
        for other in (busy_run[j - 1] if j > 0 else None, busy_run[j] if j < len(busy_run) else None):
            if other is not None and lo[other] < hi[i] and lo[i] < hi[other]:
                x, y = int(row[other]), int(row[i])
                out.append(
                    f"processor {max(a, int(lo[other]))} double-booked: job {ids[x]} [{start[x]}, {end[x]}) "
                    f"and job {ids[y]} [{start[y]}, {end[y]})"
                )
                break
        else:
            busy_lo.insert(j, a)
            busy_run.insert(j, i)
            continue
        if len(out) >= 20:
            break
    return out


def _node_violations(schedule: Schedule, start: np.ndarray, end: np.ndarray, ids: np.ndarray) -> list[str]:
    """The rules of a schedule on nodes (:func:`batch_violations`), from the shares and the requests alone."""
    a = schedule.nodes
    assert a is not None
    out: list[str] = []
    nodes = a.platform.nodes
    offsets = np.asarray(a.offsets, dtype=np.int64)
    n = len(ids)
    if len(offsets) != n + 1 or offsets[0] != 0 or offsets[-1] != len(a.node):
        return [f"node shares malformed: {len(offsets)} offsets for {n} jobs, {len(a.node)} shares"]
    req = a.requests
    features = a.platform.feature_names
    partitions = list(a.platform.partitions)
    members = [{a.platform.node_index(name) for name in p.nodes} for p in partitions]
    whole = np.uint64(2**64 - 1)
    for i in range(n):
        k = slice(int(offsets[i]), int(offsets[i + 1]))
        where, tasks, cores, memory = a.node[k], a.tasks[k], a.cores[k], a.memory_mb[k]
        gres = a.gres[k]
        say = f"job {ids[i]} (row {i})"
        want = [f for b, f in enumerate(features) if int(req["features"][i]) >> b & 1]
        if len(set(where.tolist())) != len(where):
            out.append(f"{say} has two shares on one node")
        if len(where) < req["nodes"][i]:
            out.append(f"{say} runs on {len(where)} node(s), asks at least {req['nodes'][i]}")
        if tasks.sum() != req["tasks"][i] or (tasks < 1).any():
            out.append(f"{say} places {tasks.tolist()} tasks, asks {req['tasks'][i]} (at least 1 per node)")
        if int(np.sum(cores)) != int(schedule.procs[i]):
            out.append(f"{say} holds {int(np.sum(cores))} cores, the schedule says {schedule.procs[i]}")
        for s_, node_i in enumerate(where.tolist()):
            node = nodes[node_i]
            if node_i not in members[int(req["partition"][i])]:
                out.append(f"{say} runs on {node.name}, not a node of partition {partitions[req['partition'][i]].name}")
            if not set(want) <= set(node.features):
                out.append(
                    f"{say} runs on {node.name}, which lacks feature(s) {sorted(set(want) - set(node.features))}"
                )
            need_cores = node.cores if req["exclusive"][i] else int(tasks[s_]) * int(req["cpus_per_task"][i])
            if cores[s_] != need_cores:
                out.append(f"{say} holds {cores[s_]} cores on {node.name}, its request makes {need_cores}")
            per_node, per_cpu = req["mem_per_node"][i], int(req["mem_per_cpu"][i])
            need_memory = (
                node.memory_mb
                if per_node == whole
                else int(per_node)
                if per_node
                else per_cpu * int(tasks[s_]) * int(req["cpus_per_task"][i])
            )
            if int(memory[s_]) != need_memory:
                out.append(f"{say} holds {memory[s_]} MB on {node.name}, its request makes {need_memory} MB")
            allowed = int(req["gres_kinds"][i])
            held = gres[s_]
            if int(held.sum()) != int(req["gres_per_node"][i]) or any(
                held[g] and not allowed >> g & 1 for g in range(len(held))
            ):
                out.append(
                    f"{say} holds generic resources {dict(zip(a.kinds, held.tolist()))} on {node.name}, "
                    f"asks {req['gres_per_node'][i]} of {[kd for g, kd in enumerate(a.kinds) if allowed >> g & 1]}"
                )
        if len(out) >= 20:
            return out
    if out:
        return out
    row = np.repeat(np.arange(n), np.diff(offsets))
    capacity = {
        "cores": (np.asarray(a.cores, dtype=np.float64), np.array([x.cores for x in nodes], dtype=np.float64)),
        "MB of memory": (
            np.asarray(a.memory_mb, dtype=np.float64),
            np.array([x.memory_mb for x in nodes], dtype=np.float64),
        ),
    }
    kinds, units = gres_capacity(a.platform.to_arrays())
    for g, kind in enumerate(a.kinds):
        have = units[:, kinds.index(kind)] if kind in kinds else np.zeros(len(nodes), dtype=np.int64)
        capacity[f"units of {kind}"] = (np.asarray(a.gres[:, g], dtype=np.float64), have.astype(np.float64))
    for what, (amount, have) in capacity.items():
        out.extend(_node_overloads(row, np.asarray(a.node, dtype=np.int64), amount, have, start, end, ids, what))
    return out[:20]


def _node_overloads(
    row: np.ndarray,
    node: np.ndarray,
    amount: np.ndarray,
    have: np.ndarray,
    start: np.ndarray,
    end: np.ndarray,
    ids: np.ndarray,
    what: str,
) -> list[str]:
    """Instants where a node holds more of a resource than it has: a sweep per node, releases first at ties.

    Amounts are summed as float64 of integers below 2**53 (MB of memory,
    cores, units), so every partial sum is exact.
    """
    keep = (end[row] > start[row]) & (amount > 0)
    row, node, amount = row[keep], node[keep], amount[keep]
    if len(row) == 0:
        return []
    times = np.concatenate([end[row], start[row]])
    delta = np.concatenate([-amount, amount])
    where = np.concatenate([node, node])
    order = np.lexsort((delta, times, where))
    times, delta, where = times[order], delta[order], where[order]
    level = np.cumsum(delta)
    first = np.flatnonzero(np.r_[True, where[1:] != where[:-1]])
    base = np.repeat(level[first] - delta[first], np.diff(np.r_[first, len(where)]))
    level = level - base
    over = np.flatnonzero(level > have[where])
    out = []
    for k in over[:20].tolist():
        out.append(f"node {int(where[k])} holds {level[k]:.0f} {what} at time {times[k]}, it has {have[where[k]]:.0f}")
    return out
