"""The Rust PTG kernels against the slow references, for identity.

HCPA allocation, bottom levels, list scheduling and backfilling are compared
with ``tests/reference/ptg.py`` on hypothesis-generated small PTGs and on the
paper's PTG populations: results must be *identical* (same floats, same
processor ids, same row order).  The two mapping rules that reference does not
cover -- list scheduling of "completed" ready tasks (CRA) and Zhao's F1/F2
fairness-driven placement -- get their own slow references below, written from
the kernels' documented rules.  Every schedule goes through the PTG validator.
"""

from __future__ import annotations

import math

import networkx as nx
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from clustersched.errors import InfeasibleError, InvalidWorkloadError
from clustersched.platform import Cluster, cluster
from clustersched.ptg import (
    TaskSchedule,
    backfill,
    bottom_levels,
    cmax_star,
    hcpa_allocation,
    hcpa_cmax_star,
    hcpa_schedule,
    list_schedule,
    validate_ptgs,
)
from clustersched.ptg._batch import Batch
from clustersched.workload.ptg import PTG
from clustersched.workload.ptg_generators import ptg_population

from reference import ptg as ref

SPEED = 1e9


# -- strategies ---------------------------------------------------------------------------------
@st.composite
def small_ptgs(draw, max_tasks=9):
    """A random DAG of 1..max_tasks real tasks (entry / exit added by PTG when needed)."""
    n = draw(st.integers(1, max_tasks))
    g = nx.DiGraph()
    for v in range(n):
        # a few repeated values so that ties in bottom levels and gains happen
        work = draw(st.sampled_from([1e9, 2e9, 4e9]) | st.floats(1e8, 5e10))
        alpha = draw(st.sampled_from([0.0, 0.25]) | st.floats(0.0, 1.0))
        g.add_node(v, work=work, alpha=alpha)
    for u in range(n):
        for v in range(u + 1, n):
            if draw(st.booleans()) and draw(st.booleans()):
                g.add_edge(u, v)
    return PTG.from_networkx(g)


@st.composite
def scenarios(draw, max_ptgs=3):
    """PTGs, a cluster, random allocations and priorities (with ties)."""
    ptgs = draw(st.lists(small_ptgs(), min_size=1, max_size=max_ptgs))
    procs = draw(st.integers(1, 10))
    allocs = [draw(st.lists(st.integers(1, procs), min_size=len(p), max_size=len(p))) for p in ptgs]
    prios = [draw(st.lists(st.sampled_from([0.0, 1.0, 2.5, 7.0]), min_size=len(p), max_size=len(p))) for p in ptgs]
    return ptgs, Cluster("hyp", procs, SPEED), allocs, prios


SETTINGS = settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])


# -- (a) HCPA allocation and bottom levels ---------------------------------------------------------
RULES = st.sampled_from(["sqrt", "cpa"])


@SETTINGS
@given(small_ptgs(), st.integers(1, 40), RULES)
def test_hcpa_allocation_is_the_reference(ptg, procs, rule):
    c = Cluster("hyp", procs, SPEED)
    alloc = hcpa_allocation(ptg, c, rule=rule)
    assert alloc.tolist() == ref.hcpa_allocation(ptg, procs, SPEED, rule=rule)
    assert bottom_levels(ptg, alloc, c).tolist() == ref.bottom_levels(ptg, alloc.tolist(), SPEED)


@SETTINGS
@given(small_ptgs(), st.data())
def test_levels_width_and_duration_bottom_levels_are_the_reference(ptg, data):
    durations = data.draw(
        st.lists(
            st.sampled_from([0.0, -0.0, 1.0, 2.5, math.inf]) | st.floats(0.0, 1e12),
            min_size=len(ptg),
            max_size=len(ptg),
        )
    )
    levels = ref.levels(ptg)
    assert ptg.levels().tolist() == levels
    assert ptg.width() == max(levels.count(lv) for lv in levels)
    # float.hex tells -0.0 from 0.0: the values must be the same bits, not only equal.
    got = ptg.bottom_levels(durations).tolist()
    assert list(map(float.hex, got)) == list(map(float.hex, ref.duration_bottom_levels(ptg, durations)))


@pytest.mark.parametrize("rule", ["sqrt", "cpa"])
@pytest.mark.parametrize("name", ["chti", "grillon", "gdx"])
def test_hcpa_on_the_populations_is_the_reference(name, rule):
    c = cluster(name)
    ptgs = (
        ptg_population("random", 4, seed=11)
        + ptg_population("fft", 2, seed=11)
        + ptg_population("strassen", 1, seed=11)
    )
    for p in ptgs:
        alloc = hcpa_allocation(p, c, rule=rule)
        assert alloc.tolist() == ref.hcpa_allocation(p, c.procs, c.speed, rule=rule)
        assert bottom_levels(p, alloc, c).tolist() == p.bottom_levels(p.exec_time(alloc, c.speed)).tolist()
    stars = hcpa_cmax_star(ptgs, c, rule=rule)
    reference = cmax_star(ptgs, c, lambda p, cl: ref.hcpa_schedule(p, cl.procs, cl.speed, rule=rule))
    assert stars.tolist() == reference.tolist()
    assert stars.tolist() == cmax_star(ptgs, c, lambda p, cl: hcpa_schedule(p, cl, rule=rule)).tolist()


def test_hcpa_schedule_is_the_reference():
    c = cluster("grillon")
    for p in ptg_population("strassen", 2, seed=4) + ptg_population("random", 2, seed=4):
        mine = hcpa_schedule(p, c)
        assert mine.rows() == ref.hcpa_schedule(p, c.procs, c.speed).rows()
        validate_ptgs(mine, [p], c)


def _budget_reference(ptg, procs, speed, cap, level_cap, rule="cpa"):
    """The reference loop with the budgets of the Rust kernel (per-task cap, per-level bound)."""
    work, alpha, succ, _ = ref._graph(ptg)
    n, levels = len(work), ptg.levels().tolist()
    real = sum(1 for w in work if w > 0)
    divisor = min(procs, math.isqrt(procs * real - 1) + 1) if rule == "sqrt" and real > 0 else procs
    p = [1] * n
    while True:
        T = [ref.exec_time(work[v], alpha[v], p[v], speed) for v in range(n)]
        bl = [0.0] * n
        for v in range(n - 1, -1, -1):
            bl[v] = T[v] + max([bl[s] for s in succ[v]], default=0.0)
        area = 0.0
        for v in range(n):
            area += T[v] * p[v]
        if not bl[0] > area / divisor:
            return p
        path, v = [0], 0
        while succ[v]:
            v = max(succ[v], key=lambda s: (bl[s], -s))
            path.append(v)
        held = {lv: sum(p[u] for u in range(n) if levels[u] == lv) for lv in set(levels)}
        selected, best = None, 0.0
        for v in path:
            if p[v] >= cap or (level_cap is not None and held[levels[v]] >= level_cap):
                continue
            gain = T[v] / p[v] - ref.exec_time(work[v], alpha[v], p[v] + 1, speed) / (p[v] + 1)
            if gain > best:
                selected, best = v, gain
        if selected is None:
            return p
        p[selected] += 1


@SETTINGS
@given(small_ptgs(), st.integers(1, 30), st.integers(1, 30), st.none() | st.integers(1, 30), RULES)
def test_hcpa_budgets_follow_their_rule(ptg, procs, cap, level, rule):
    cap = min(cap, procs)
    c = Cluster("hyp", 64, SPEED)  # only the budget `procs` matters, not the cluster size
    alloc = hcpa_allocation(ptg, c, procs=procs, max_task_procs=cap, max_level_procs=level, rule=rule)
    assert alloc.tolist() == _budget_reference(ptg, procs, SPEED, cap, level, rule)
    if level is None and cap == procs:
        assert alloc.tolist() == ref.hcpa_allocation(ptg, procs, SPEED, rule=rule)


# -- (b) list scheduling -------------------------------------------------------------------------
@SETTINGS
@given(scenarios())
def test_list_schedule_is_the_reference(case):
    ptgs, c, allocs, prios = case
    mine = list_schedule(ptgs, allocs, prios, c)
    assert mine.rows() == ref.list_schedule(ptgs, allocs, prios, c.procs, c.speed).rows()
    validate_ptgs(mine, ptgs, c)


def list_schedule_completed_reference(ptgs, allocs, priorities, procs, speed):
    """The reference list scheduling where a task competes only once its predecessors have *completed*.

    The list keeps a clock ``now`` (0 at first). Tasks whose predecessors are
    all placed and end by ``now`` compete, highest priority first (ties:
    lowest ``(i, v)``), and are placed by the reference's rule; when none is
    left, ``now`` moves to the earliest latest-predecessor-end of a waiting task.
    """
    P = int(procs)
    graphs = [ref._graph(p) for p in ptgs]
    avail = [0.0] * P
    end = [[None] * len(g[0]) for g in graphs]
    placed = [[False] * len(g[0]) for g in graphs]
    rows, now = [], 0.0
    while True:
        waiting = [
            (i, v)
            for i, g in enumerate(graphs)
            for v in range(len(g[0]))
            if not placed[i][v] and all(placed[i][u] for u in g[3][v])
        ]
        if not waiting:
            break
        ready_time = {(i, v): max([end[i][u] for u in graphs[i][3][v]], default=0.0) for i, v in waiting}
        ready = [t for t in waiting if ready_time[t] <= now]
        if not ready:
            now = min(ready_time.values())
            continue
        i, v = min(ready, key=lambda t: (-priorities[t[0]][t[1]], t))
        work, alpha, _, _ = graphs[i]
        a, r = int(allocs[i][v]), ready_time[(i, v)]
        d = ref.exec_time(work[v], alpha[v], a, speed)
        early = sorted((q for q in range(P) if avail[q] <= r), key=lambda q: (-avail[q], q))
        late = sorted((q for q in range(P) if avail[q] > r), key=lambda q: (avail[q], q))
        chosen = (early + late)[:a]
        if d > 0:
            start = max([r] + [avail[q] for q in chosen])
            finish = start + d
            for q in chosen:
                avail[q] = finish
        else:
            start = finish = r
        end[i][v], placed[i][v] = finish, True
        rows.append((i, v, start, finish, sorted(chosen)))
    return rows


@SETTINGS
@given(scenarios())
def test_list_schedule_of_completed_tasks_is_its_reference(case):
    ptgs, c, allocs, prios = case
    mine = list_schedule(ptgs, allocs, prios, c, readiness="completed")
    assert mine.rows() == list_schedule_completed_reference(ptgs, allocs, prios, c.procs, c.speed)
    validate_ptgs(mine, ptgs, c)


# -- (c) backfilling -----------------------------------------------------------------------------
@SETTINGS
@given(scenarios(), st.booleans())
def test_backfill_is_the_reference(case, completed):
    ptgs, c, allocs, prios = case
    listed = list_schedule(ptgs, allocs, prios, c, readiness="completed" if completed else "placed")
    mine = backfill(listed, ptgs, c)
    assert mine.rows() == ref.backfill(listed, ptgs, c.procs, c.speed).rows()
    validate_ptgs(mine, ptgs, c)
    assert (mine.start <= listed.start).all() and (mine.end <= listed.end).all()


@pytest.mark.parametrize("name", ["chti", "grelon"])
def test_mapping_on_the_populations_is_the_reference(name):
    c = cluster(name)
    ptgs = (
        ptg_population("random", 5, seed=2) + ptg_population("fft", 2, seed=2) + ptg_population("strassen", 2, seed=2)
    )
    allocs = [ref.hcpa_allocation(p, c.procs, c.speed) for p in ptgs]
    prios = [ref.bottom_levels(p, a, c.speed) for p, a in zip(ptgs, allocs)]
    listed = list_schedule(ptgs, allocs, prios, c)
    assert listed.rows() == ref.list_schedule(ptgs, allocs, prios, c.procs, c.speed).rows()
    packed = backfill(listed, ptgs, c)
    assert packed.rows() == ref.backfill(listed, ptgs, c.procs, c.speed).rows()
    assert packed.rows() == ref.selfish(ptgs, c.procs, c.speed).rows()
    assert packed.algorithm == "list+backfill"
    validate_ptgs(packed, ptgs, c)


# -- Zhao's fairness-driven placement --------------------------------------------------------------
def fairness_reference(ptgs, alloc, bl, task_tie, ptg_tie, alone_start, alone_end, procs, speed, estimate):
    """F1 / F2 placement from the documented rule, over global task ids (slow)."""
    batch = Batch(ptgs)
    graphs = [ref._graph(p) for p in ptgs]
    P, n = int(procs), len(ptgs)
    avail = [0.0] * P
    start, end = {}, {}
    stretch = [math.inf] * n
    placed = [[] for _ in range(n)]
    rows = []
    gid = lambda i, v: int(batch.base[i]) + v  # noqa: E731
    while True:
        ready = {
            i: [
                v
                for v in range(len(graphs[i][0]))
                if gid(i, v) not in end and all(gid(i, u) in end for u in graphs[i][3][v])
            ]
            for i in range(n)
        }
        live = [i for i in range(n) if ready[i]]
        if not live:
            return rows
        top = {i: max(bl[gid(i, v)] for v in ready[i]) for i in live}
        i = min(live, key=lambda i: (-stretch[i], -top[i], ptg_tie[i], i))
        v = min(ready[i], key=lambda v: (-bl[gid(i, v)], task_tie[gid(i, v)], v))
        g = gid(i, v)
        work, alpha, _, pred = graphs[i]
        a = int(alloc[g])
        r = max([end[gid(i, u)] for u in pred[v]], default=0.0)
        d = ref.exec_time(work[v], alpha[v], a, speed)
        early = sorted((q for q in range(P) if avail[q] <= r), key=lambda q: (-avail[q], q))
        late = sorted((q for q in range(P) if avail[q] > r), key=lambda q: (avail[q], q))
        chosen = (early + late)[:a]
        if d > 0:
            s = max([r] + [avail[q] for q in chosen])
            e = s + d
            for q in chosen:
                avail[q] = e
        else:
            s = e = r
        start[g], end[g] = s, e
        placed[i].append(g)
        rows.append((i, v, s, e, sorted(chosen)))
        if estimate == "F1":
            if alone_end[g] > 0:
                stretch[i] = e / alone_end[g]
        else:
            for h in range(n):
                for u in reversed(placed[h]):
                    if end[u] > start[u] and start[u] <= e <= end[u]:
                        f = (e - start[u]) / (end[u] - start[u])
                        tau = alone_start[u] + f * (alone_end[u] - alone_start[u])
                        if tau > 0:
                            stretch[h] = e / tau
                        break


@SETTINGS
@given(scenarios(), st.sampled_from(["F1", "F2"]), st.randoms(use_true_random=False))
def test_fairness_schedule_is_its_reference(case, estimate, rnd):
    ptgs, c, allocs, prios = case
    batch = Batch(ptgs)
    alloc = np.concatenate([np.asarray(a, dtype=np.int64) for a in allocs])
    bl = np.concatenate([np.asarray(p, dtype=np.float64) for p in prios])
    task_tie = np.array(rnd.sample(range(batch.total), batch.total), dtype=np.uint64)
    ptg_tie = np.array(rnd.sample(range(len(ptgs)), len(ptgs)), dtype=np.uint64)
    alone_start = np.array([rnd.choice([0.0, 1.0, 2.0]) for _ in range(batch.total)])
    alone_end = alone_start + np.array([rnd.choice([0.0, 0.5, 3.0]) for _ in range(batch.total)])
    cols = batch.core.fairness_schedule(
        alloc, bl, task_tie, ptg_tie, alone_start, alone_end, c.procs, c.speed, estimate
    )
    mine = batch.to_schedule(cols, c, estimate)
    expected = fairness_reference(
        ptgs, alloc, bl, task_tie, ptg_tie, alone_start, alone_end, c.procs, c.speed, estimate
    )
    assert mine.rows() == expected
    validate_ptgs(mine, ptgs, c)


# -- typed errors ---------------------------------------------------------------------------------------
def _pair():
    g = nx.DiGraph([("a", "b")])
    nx.set_node_attributes(g, 2e9, "work")
    return PTG.from_networkx(g), Cluster("c", 2, SPEED)


def test_bad_arguments_raise_typed_errors():
    p, c = _pair()
    with pytest.raises(ValueError, match=r"PTG 0 task 1: allocation == 3, must be between 1 and 2"):
        list_schedule([p], [[1, 3]], [[1.0, 0.0]], c)
    with pytest.raises(ValueError, match=r"PTG 0 task 0: priority == nan, must be finite|priority == NaN"):
        list_schedule([p], [[1, 1]], [[math.nan, 0.0]], c)
    with pytest.raises(ValueError, match=r"allocs\[0\] has shape \(3,\), must be \(2,\)"):
        list_schedule([p], [[1, 1, 1]], [[1.0, 0.0]], c)
    with pytest.raises(ValueError, match="readiness == 'later'"):
        list_schedule([p], [[1, 1]], [[1.0, 0.0]], c, readiness="later")
    with pytest.raises(ValueError, match="ptgs == \\[\\], must hold at least one PTG"):
        list_schedule([], [], [], c)
    with pytest.raises(TypeError, match="ptgs\\[0\\] == 3"):
        list_schedule([3], [[1]], [[1.0]], c)
    with pytest.raises(TypeError, match="cluster == 'chti'"):
        hcpa_allocation(p, "chti")
    with pytest.raises(ValueError, match="procs == 3, must be <= 2"):
        hcpa_allocation(p, c, procs=3)
    with pytest.raises(ValueError, match="max_task_procs == 0"):
        hcpa_allocation(p, c, max_task_procs=0)
    with pytest.raises(ValueError, match=r"PTG 0 task 0: allocation == 0"):
        bottom_levels(p, [0, 1], c)


def test_backfill_rejects_infeasible_schedules():
    p, c = _pair()
    bad = TaskSchedule.from_rows([(0, 0, 0.0, 1.0, [0]), (0, 1, 0.5, 1.5, [1])], total_procs=2)
    with pytest.raises(
        InfeasibleError, match=r"PTG 0 task 1 starts at 0.5 before its predecessor PTG 0 task 0 ends at 1"
    ):
        backfill(bad, [p], c)
    clash = TaskSchedule.from_rows([(0, 0, 0.0, 1.0, [0]), (0, 1, 1.0, 2.0, [0])], total_procs=2)
    other = TaskSchedule.from_rows([(0, 0, 0.0, 1.0, [0])], total_procs=2)
    with pytest.raises(InfeasibleError, match="task 1 is never scheduled"):
        backfill(other, [p], c)
    with pytest.raises(ValueError, match="schedule is for 2 processors"):
        backfill(clash, [p], Cluster("c3", 3, SPEED))


def test_the_core_names_the_ptg_of_a_bad_graph():
    from clustersched import _core

    with pytest.raises(InvalidWorkloadError, match=r"^PTG 1, task 0: work == -1.0, must be finite and >= 0 \(flop\)$"):
        _core.PtgSet(
            np.array([0, 1, 2]), np.array([1.0, -1.0]), np.zeros(2), np.array([0, 0, 0]), np.array([], dtype=np.int64)
        )
    with pytest.raises(ValueError, match=r"succ\[0\] == -4, must be >= 0"):
        _core.PtgSet(np.array([0, 2]), np.ones(2), np.zeros(2), np.array([0, 1, 1]), np.array([-4]))


# -- long allocation runs (the kernel's certified fast iterations) against the reference ---------------------------
def _chain_and_forks(seed):
    """A 30-task chain and a 3-branch fork-join, random costs (many iterations on a big cluster)."""
    rng = np.random.default_rng(seed)
    chain = nx.DiGraph()
    for v in range(30):
        chain.add_node(v, work=float(rng.uniform(1e9, 5e10)), alpha=float(rng.uniform(0, 0.25)))
    chain.add_edges_from((v, v + 1) for v in range(29))
    forks = nx.DiGraph()
    forks.add_node("s", work=1e9, alpha=0.1)
    forks.add_node("t", work=1e9, alpha=0.1)
    for b in range(3):
        for k in range(4):
            forks.add_node((b, k), work=float(rng.uniform(1e9, 5e10)), alpha=float(rng.uniform(0, 0.25)))
        forks.add_edges_from([("s", (b, 0)), ((b, 3), "t")] + [((b, k), (b, k + 1)) for k in range(3)])
    return [PTG.from_networkx(chain), PTG.from_networkx(forks)]


@pytest.mark.parametrize("seed", [0, 1])
def test_long_allocation_runs_are_the_reference(seed):
    # CPA's rule makes the long runs (thousands of increments on gdx) that
    # exercise the kernel's certified and bulk steps; the sqrt rule is checked too.
    c = cluster("gdx")
    ptgs = _chain_and_forks(seed) + ptg_population("random", 3, seed=40 + seed)
    for p in ptgs:
        for rule in ("cpa", "sqrt"):
            assert hcpa_allocation(p, c, rule=rule).tolist() == ref.hcpa_allocation(p, c.procs, c.speed, rule=rule)
        budget = hcpa_allocation(p, c, procs=90, max_level_procs=60, rule="cpa").tolist()
        assert budget == _budget_reference(p, 90, c.speed, 90, 60)


@SETTINGS
@given(scenarios(), st.randoms(use_true_random=False))
def test_backfill_of_unsorted_processor_lists_is_the_reference(case, rnd):
    # A schedule whose processor lists are not sorted: the reference records
    # every placed task's processors sorted; so must the kernel.
    ptgs, c, allocs, prios = case
    listed = list_schedule(ptgs, allocs, prios, c)
    rows = [(i, v, s, e, rnd.sample(ids, len(ids))) for i, v, s, e, ids in listed.rows()]
    shuffled = TaskSchedule.from_rows(rows, total_procs=c.procs, algorithm="shuffled")
    assert backfill(shuffled, ptgs, c).rows() == ref.backfill(shuffled, ptgs, c.procs, c.speed).rows()
