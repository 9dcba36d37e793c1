"""Slow, obviously-correct references for the Theorem 1 bound (RR-7659 §3.1).

Jobs are tuples ``(submit, processing_time, tasks, cpu_need, mem_need)``.

* :func:`lp_feasible`: Linear System (1) written as in the paper, in the
  fractions ``alpha_jt``, solved by scipy's HiGHS;
* :func:`lp_max_work`: the most work Linear System (1)'s constraints let the
  jobs do (the LP twin of the maximum flow);
* :func:`reference_bound`: the smallest feasible stretch by plain bisection
  on :func:`lp_feasible`;
* :func:`exact_bound`: the optimal stretch as an exact fraction, from the
  max-flow/min-cut duality of the transportation network, enumerating every
  cut (tiny instances only);
* :func:`best_fixed_placement`: a brute force over real DFRS schedules:
  every placement of every task on a node (memory never over-committed, all
  jobs resident at once), each with the LP over piecewise-constant yields on
  the release/deadline intervals that meets the deadlines of a target
  stretch; returns the best schedule found (bisection on the stretch).

Deadlines are ``submit + S * max(threshold, processing_time)`` (the bounded
stretch); jobs with ``processing_time == 0`` do no work.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from fractions import Fraction

import numpy as np
from scipy.optimize import linprog

THRESHOLD = 10.0


def _intervals(jobs, stretch, threshold):
    """Sorted interval bounds and each job's deadline."""
    deadline = [r + stretch * max(threshold, p) for r, p, *_ in jobs]
    points = sorted(set([j[0] for j in jobs] + deadline))
    return points, deadline


def _working(jobs):
    return [j for j, job in enumerate(jobs) if job[1] > 0]


def _system(jobs, nodes, stretch, threshold):
    """Variables (j, t) with t inside [r_j, d_j) and the (1d), (1e) rows in alpha form."""
    points, deadline = _intervals(jobs, stretch, threshold)
    lengths = [b - a for a, b in zip(points, points[1:])]
    var = []
    for j in _working(jobs):
        r = jobs[j][0]
        for t, (a, b) in enumerate(zip(points, points[1:])):
            # (1b): nothing before the release date; (1c): nothing after the deadline.
            if not (r >= b) and not (deadline[j] <= a):
                var.append((j, t))
    upper = [lengths[t] / jobs[j][1] for j, t in var]  # (1d): alpha_jt * p_j <= l(t)
    power = np.zeros((len(lengths), len(var)))  # (1e)
    for k, (j, t) in enumerate(var):
        r, p, tasks, cpu, _ = jobs[j]
        power[t, k] = p * cpu * tasks
    power_cap = [nodes * lengths[t] for t in range(len(lengths))]
    return var, upper, power, power_cap


def lp_feasible(jobs, nodes, stretch, threshold=THRESHOLD):
    """Whether Linear System (1) has a solution for ``stretch``."""
    working = _working(jobs)
    if not working:
        return True
    var, upper, power, power_cap = _system(jobs, nodes, stretch, threshold)
    if not var:
        return False
    done = np.zeros((len(working), len(var)))  # (1a): sum_t alpha_jt = 1
    row = {j: i for i, j in enumerate(working)}
    for k, (j, _) in enumerate(var):
        done[row[j], k] = 1.0
    res = linprog(
        np.zeros(len(var)),
        A_ub=power,
        b_ub=power_cap,
        A_eq=done,
        b_eq=np.ones(len(working)),
        bounds=list(zip([0.0] * len(var), upper)),
        method="highs",
    )
    if res.status not in (0, 2):
        raise RuntimeError(f"HiGHS status {res.status}: {res.message}")
    return res.status == 0


def lp_max_work(jobs, nodes, stretch, threshold=THRESHOLD):
    """The most work (node CPU-seconds) constraints (1b)-(1e) let the jobs do, each at most its own."""
    working = _working(jobs)
    if not working:
        return 0.0
    var, upper, power, power_cap = _system(jobs, nodes, stretch, threshold)
    if not var:
        return 0.0
    work = np.array([jobs[j][1] * jobs[j][3] * jobs[j][2] for j, _ in var])
    at_most_one = np.zeros((len(working), len(var)))
    row = {j: i for i, j in enumerate(working)}
    for k, (j, _) in enumerate(var):
        at_most_one[row[j], k] = 1.0
    res = linprog(
        -work,
        A_ub=np.vstack([power, at_most_one]),
        b_ub=np.concatenate([power_cap, np.ones(len(working))]),
        bounds=list(zip([0.0] * len(var), upper)),
        method="highs",
    )
    if res.status != 0:
        raise RuntimeError(f"HiGHS status {res.status}: {res.message}")
    return float(-res.fun)


def _bisect(feasible, rel=1e-7):
    """Smallest S >= 1 with feasible(S), to a relative ``rel`` (the feasible end)."""
    if feasible(1.0):
        return 1.0
    low, high = 1.0, 2.0
    while not feasible(high):
        low, high = high, high * 2
    while high - low > rel * high:
        mid = (low + high) / 2
        if feasible(mid):
            high = mid
        else:
            low = mid
    return high


def reference_bound(jobs, nodes, threshold=THRESHOLD, rel=1e-7):
    """Theorem 1's optimal stretch by bisection on the LP (its feasible end, to ``rel``)."""
    return _bisect(lambda s: lp_feasible(jobs, nodes, s, threshold), rel)


def _cut_capacity(cut, outside_work, nodes, stretch):
    """Exact capacity at ``stretch`` of the cut with the jobs ``cut`` = [(r, q, rate)] on the source side.

    Jobs outside the cut lose their source arc (``outside_work``); an interval t on the sink side costs
    the rates of the cut's jobs whose window holds it, on the source side ``|P| l(t)``: the cheaper.
    """
    events = sorted({r for r, _, _ in cut} | {r + stretch * q for r, q, _ in cut})
    total = outside_work
    for a, b in zip(events, events[1:]):
        active = sum(rate for r, q, rate in cut if r <= a and b <= r + stretch * q)
        total += min(nodes, active) * (b - a)
    return total


def _cut_root(cut, outside_work, work, nodes):
    """Exact smallest S > 0 at which the cut's capacity reaches ``work``.

    The capacity is continuous and nondecreasing in S, and linear wherever the order of the cut's
    release dates and deadlines does not change; those orders change only at the S where two of
    them meet, so the root is found by interpolating between two such breakpoints.
    """
    breaks = {Fraction(0)}
    for (ri, qi, _), (rk, qk, _) in itertools.product(cut, repeat=2):
        if rk > ri:
            breaks.add((rk - ri) / qi)  # deadline i reaches release k
            if qi > qk:
                breaks.add((rk - ri) / (qi - qk))  # deadline i overtakes deadline k
    breaks = sorted(breaks)
    # Past the last breakpoint the capacity is linear; one more point fixes its slope.
    breaks.append(2 * breaks[-1] + 1)
    values = [_cut_capacity(cut, outside_work, nodes, s) for s in breaks]
    while values[-1] < work:  # linear and increasing there: extend to a point above the work
        breaks.append(2 * breaks[-1])
        values.append(_cut_capacity(cut, outside_work, nodes, breaks[-1]))
    k = next(i for i, v in enumerate(values) if v >= work)
    (s0, h0), (s1, h1) = (breaks[k - 1], values[k - 1]), (breaks[k], values[k])
    return s0 + (work - h0) * (s1 - s0) / (h1 - h0)


def exact_bound(jobs, nodes, threshold=THRESHOLD):
    """The smallest S >= 1 at which Linear System (1) is feasible, as an exact Fraction.

    The network source -> job (p c |T|) -> interval (c |T| l(t)) -> sink (|P| l(t)) carries all the
    work exactly when every cut has capacity >= the work (max-flow/min-cut); every cut is a set A of
    jobs (the intervals take their cheaper side), so the optimum is the largest of the roots of
    :func:`_cut_root` over all nonempty A.  The inputs are floats taken as exact rationals.
    """
    data = [
        (Fraction(r), Fraction(max(threshold, p)), Fraction(cpu) * tasks, Fraction(p) * Fraction(cpu) * tasks)
        for r, p, tasks, cpu, _ in jobs
        if p > 0
    ]
    work = sum(w for *_, w in data)
    best = Fraction(1)
    for size in range(1, len(data) + 1):
        for chosen in itertools.combinations(range(len(data)), size):
            cut = [data[j][:3] for j in chosen]
            outside = work - sum(data[j][3] for j in chosen)
            best = max(best, _cut_root(cut, outside, work, Fraction(nodes)))
    return best


@dataclass
class FixedSchedule:
    """A DFRS schedule with a fixed placement and piecewise-constant yields.

    ``placement[j][v]`` tasks of job j sit on node v for the whole schedule;
    in interval ``[points[t], points[t+1])`` every task of job j runs at yield
    ``yields[j][t]`` (CPU share ``cpu_need * yield``).
    """

    placement: list
    points: list
    yields: list

    def completion(self, j):
        """End of the last interval in which job j progresses (its submit time if it never does)."""
        end = None
        for t, y in enumerate(self.yields[j]):
            if y > 1e-12:
                end = self.points[t + 1]
        return end


def _placements(tasks, nodes):
    """Every way to put ``tasks`` identical tasks on ``nodes`` nodes (count per node)."""
    for cut in itertools.combinations_with_replacement(range(nodes), tasks):
        yield [cut.count(v) for v in range(nodes)]


def _fixed_lp(jobs, nodes, placement, stretch, threshold):
    """Yields meeting every deadline on ``placement``, or None (an LP over y_jt = yield * l(t))."""
    points, deadline = _intervals(jobs, stretch, threshold)
    lengths = [b - a for a, b in zip(points, points[1:])]
    var = [
        (j, t)
        for j in _working(jobs)
        for t, (a, b) in enumerate(zip(points, points[1:]))
        if jobs[j][0] <= a and b <= deadline[j]
    ]
    if not var and _working(jobs):
        return None
    if not var:
        return FixedSchedule(placement, points, [[0.0] * len(lengths) for _ in jobs])
    a_ub, b_ub = [], []
    for v in range(nodes):
        for t in range(len(lengths)):
            row = [placement[j][v] * jobs[j][3] if tt == t else 0.0 for j, tt in var]
            if any(row):
                a_ub.append(row)
                b_ub.append(lengths[t])  # the node's CPU over the interval
    a_eq = [[1.0 if jj == j else 0.0 for jj, _ in var] for j in _working(jobs)]
    b_eq = [jobs[j][1] for j in _working(jobs)]  # p_j of full-speed time per task
    res = linprog(
        np.zeros(len(var)),
        A_ub=np.array(a_ub) if a_ub else None,
        b_ub=np.array(b_ub) if b_ub else None,
        A_eq=np.array(a_eq),
        b_eq=np.array(b_eq),
        bounds=[(0.0, lengths[t]) for _, t in var],  # yield <= 1: never more CPU than the need
        method="highs",
        # HiGHS's default 1e-7 lets a yield exceed 1 by 1e-8 (seen); the schedule is checked to 1e-9.
        options={"primal_feasibility_tolerance": 1e-10},
    )
    if res.status != 0:
        return None
    yields = [[0.0] * len(lengths) for _ in jobs]
    for k, (j, t) in enumerate(var):
        yields[j][t] = float(res.x[k]) / lengths[t]
    return FixedSchedule(placement, points, yields)


def best_fixed_placement(jobs, nodes, threshold=THRESHOLD, rel=1e-7):
    """(stretch, schedule): the best schedule over all memory-feasible fixed placements.

    None when no placement keeps every node's memory within 1.
    """
    best = None
    for placement in itertools.product(*[list(_placements(job[2], nodes)) for job in jobs]):
        if any(sum(placement[j][v] * jobs[j][4] for j in range(len(jobs))) > 1 + 1e-12 for v in range(nodes)):
            continue
        stretch = _bisect(lambda s: _fixed_lp(jobs, nodes, placement, s, threshold) is not None, rel)
        if best is None or stretch < best[0]:
            best = (stretch, _fixed_lp(jobs, nodes, placement, stretch, threshold))
    return best
