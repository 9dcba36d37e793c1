"""The slow PTG references (tests/reference/ptg.py) on hand-computed cases, and the PTG validator.

Every schedule a reference produces here passes ``validate_ptgs``; the
validator is shown to reject each kind of infeasibility.
"""

from __future__ import annotations

import math

import networkx as nx
import numpy as np
import pytest

from clustersched.errors import InvalidScheduleError
from clustersched.platform import Cluster, cluster
from clustersched.ptg import TaskSchedule, cmax_star, ptg_metrics, ptg_violations, validate_ptgs
from clustersched.workload.ptg import PTG
from clustersched.workload.ptg_generators import ptg_population

from reference.ptg import (
    backfill,
    bottom_levels,
    exec_time,
    hcpa_allocation,
    hcpa_schedule,
    list_schedule,
    selfish,
)


def make_ptg(works: dict, edges=(), alphas=None, name="") -> PTG:
    g = nx.DiGraph()
    for label, w in works.items():
        g.add_node(label, work=w, alpha=(alphas or {}).get(label, 0.0))
    g.add_edges_from(edges)
    return PTG.from_networkx(g, name=name)


def fork_join() -> PTG:
    """a(1) -> {b(8), c(2)} -> d(1), alpha = 0 (works in flop at speed 1)."""
    return make_ptg({"a": 1.0, "b": 8.0, "c": 2.0, "d": 1.0}, [("a", "b"), ("a", "c"), ("b", "d"), ("c", "d")])


# -- (a) HCPA allocation, by hand ------------------------------------------------------------------
def test_hcpa_fork_join_by_hand():
    # P = 4, alpha = 0 so the area is constant: T_A = 12 / 4 = 3.
    # p = (1,1,1,1): T_CP = 10, path a-b-d, gains a .75, b 6, d .75      -> b
    # p = (1,2,1,1): T_CP = 6,  gains a .75, b 2 - 8/9 = 1.11, d .75     -> b
    # p = (1,3,1,1): T_CP = 4.67, gains a .75, b 8/9 - 1/2 = .39, d .75  -> a (tie with d: lowest index)
    # p = (2,3,1,1): T_CP = 4.17, gains a 1/4 - 1/9 = .14, b .39, d .75  -> d
    # p = (2,3,1,2): T_CP = 3.67, gains a .14, b .39, d .14              -> b
    # p = (2,4,1,2): T_CP = .5 + 2 + .5 = 3.0, not > T_A = 3.0           -> stop
    assert hcpa_allocation(fork_join(), 4, 1.0) == [2, 4, 1, 2]


def test_hcpa_chain_saturates():
    # a(4) -> b(1), alpha 0, P = 4, CPA's rule: T_A = 5/4; increments a, b, a,
    # a, then a is saturated and b grows until T_CP = 1 + 1/4 = 1.25 = T_A.
    chain = make_ptg({"a": 4.0, "b": 1.0}, [("a", "b")])
    assert hcpa_allocation(chain, 4, 1.0, rule="cpa") == [4, 4]
    # sqrt: D = ceil(sqrt(4 * 2)) = 3, T_A = 5/3; a (gain 3), T_CP 3; b (.75),
    # 2.5; a (.56), 1.83; a (.19), T_CP = 1.5, not > T_A: stop.
    assert hcpa_allocation(chain, 4, 1.0) == [4, 2]


def test_hcpa_single_task_and_rules():
    one = make_ptg({"x": 6e9}, alphas={"x": 0.5})
    # Alone, T_CP = T and T_A = T p / P: CPA's criterion stops only at p = P.
    assert hcpa_allocation(one, 16, 3e9, rule="cpa") == [16]
    # Averaging the area over sqrt(16 * 1) = 4 processors stops at p = 4.
    assert hcpa_allocation(one, 16, 3e9) == [4]
    assert hcpa_allocation(one, 17, 3e9) == [5]
    assert hcpa_allocation(one, 1, 3e9, rule="cpa") == [1]
    with pytest.raises(ValueError):
        hcpa_allocation(one, 4, 1.0, rule="other")


def test_hcpa_leaves_zero_work_tasks_at_one_processor():
    p = make_ptg({"x": 5.0, "y": 3.0, "z": 1.0}, [("x", "z"), ("y", "z")])
    alloc = hcpa_allocation(p, 8, 1.0)
    assert p.synthetic[0] and alloc[0] == 1  # the synthetic entry
    assert all(1 <= a <= 8 for a in alloc)


@pytest.mark.parametrize("rule", ["sqrt", "cpa"])
@pytest.mark.parametrize("procs", [1, 5, 20, 47])
def test_hcpa_stopping_rule_holds_at_exit(procs, rule):
    # Independent re-check of the documented rule on generated PTGs: at exit
    # either T_CP <= T_A, or no critical-path task can gain from one more processor.
    speed = 3e9
    for p in ptg_population("random", 6, seed=procs) + ptg_population("fft", 2, seed=procs):
        alloc = hcpa_allocation(p, procs, speed, rule=rule)
        assert all(1 <= a <= procs for a in alloc)
        t = p.exec_time(np.array(alloc), speed)
        bl = p.bottom_levels(t)
        real = int((p.work > 0).sum())
        divisor = min(procs, math.ceil(math.sqrt(procs * real))) if rule == "sqrt" else procs
        t_a = sum(float(t[v]) * alloc[v] for v in range(len(p))) / divisor
        if bl[0] > t_a:
            v, path = 0, [0]
            while p.successors(v).size:
                succ = p.successors(v)
                v = int(succ[np.argmax(bl[succ])])
                path.append(v)
            assert all(alloc[v] == procs or p.work[v] == 0 for v in path)


# -- (b) list scheduling, by hand ------------------------------------------------------------------
def test_list_schedule_fork_join_by_hand():
    p = fork_join()
    alloc = [2, 4, 1, 2]
    prio = bottom_levels(p, alloc, 1.0)
    assert prio == [3.0, 2.5, 2.5, 0.5]
    s = list_schedule([p], [alloc], [prio], 4, 1.0)
    # a on {0,1} [0, .5); b (tie with c, lower index) on all four [.5, 2.5);
    # c waits for a processor, takes 0 [2.5, 4.5); d on 0 (freed last, best fit) and 1.
    assert s.rows() == [
        (0, 0, 0.0, 0.5, [0, 1]),
        (0, 1, 0.5, 2.5, [0, 1, 2, 3]),
        (0, 2, 2.5, 4.5, [0]),
        (0, 3, 4.5, 5.0, [0, 1]),
    ]
    validate_ptgs(s, [p], Cluster("c", 4, 1.0))
    assert backfill(s, [p], 4, 1.0).rows() == s.rows()  # nothing can move


def test_list_schedule_best_fit_processor_choice():
    # x (1 proc, 1 s) and y (1 proc, 3 s) are independent; z after x needs 1 proc.
    # P = 3. x -> proc 0 [0,1), y -> proc 1 [0,3); z ready at 1: procs with
    # avail <= 1 are 0 (avail 1) and 2 (avail 0): best fit takes 0.
    p = make_ptg({"x": 1.0, "y": 3.0, "z": 1.0}, [("x", "z")])
    assert p.labels == ("__entry__", "x", "y", "z", "__exit__")
    alloc = [1, 1, 1, 1, 1]
    prio = [10.0, 5.0, 4.0, 3.0, 0.0]
    s = list_schedule([p], [alloc], [prio], 3, 1.0)
    rows = {r[1]: r for r in s.rows()}
    assert rows[0][2:4] == (0.0, 0.0)  # zero-work entry at its ready time, no processor time
    assert rows[1] == (0, 1, 0.0, 1.0, [0])
    assert rows[2] == (0, 2, 0.0, 3.0, [1])
    assert rows[3] == (0, 3, 1.0, 2.0, [0])
    assert rows[4][2:4] == (3.0, 3.0)  # the exit at its predecessors' last end
    validate_ptgs(s, [p], Cluster("c", 3, 1.0))


def test_list_schedule_ties_across_ptgs_go_to_the_lower_ptg():
    a = make_ptg({"t": 2.0})
    b = make_ptg({"t": 2.0})
    s = list_schedule([a, b], [[1], [1]], [[1.0], [1.0]], 1, 1.0)
    assert s.rows() == [(0, 0, 0.0, 2.0, [0]), (1, 0, 2.0, 4.0, [0])]
    s = list_schedule([a, b], [[1], [1]], [[1.0], [2.0]], 1, 1.0)
    assert s.rows() == [(1, 0, 0.0, 2.0, [0]), (0, 0, 2.0, 4.0, [0])]


def test_list_schedule_priorities_never_break_precedence():
    # A successor with a higher priority than its predecessor still waits for it.
    p = make_ptg({"u": 1.0, "v": 1.0}, [("u", "v")])
    s = list_schedule([p], [[1, 1]], [[0.0, 9.0]], 2, 1.0)
    assert s.rows() == [(0, 0, 0.0, 1.0, [0]), (0, 1, 1.0, 2.0, [0])]


# -- (c) backfilling, by hand ------------------------------------------------------------------------
def test_backfill_fills_a_hole_by_hand():
    # P = 2. PTG 0: a1 (1 proc, 1 s) -> a2 (2 procs, 1 s); PTG 1: b1 (1 proc, 1 s), low priority.
    # List scheduling: a1 [0,1) on 0; a2 [1,2) on {0,1}; b1 [2,3) on 0 -- proc 1 idles in [0,1).
    # Backfilling moves b1 to [0,1) on proc 1 (its own proc 0 is busy with a1 then).
    A = make_ptg({"a1": 1.0, "a2": 2.0}, [("a1", "a2")])
    B = make_ptg({"b1": 1.0})
    listed = list_schedule([A, B], [[1, 2], [1]], [[2.0, 1.0], [0.5]], 2, 1.0)
    assert listed.rows() == [(0, 0, 0.0, 1.0, [0]), (0, 1, 1.0, 2.0, [0, 1]), (1, 0, 2.0, 3.0, [0])]
    packed = backfill(listed, [A, B], 2, 1.0)
    assert packed.rows() == [(0, 0, 0.0, 1.0, [0]), (0, 1, 1.0, 2.0, [0, 1]), (1, 0, 0.0, 1.0, [1])]
    c = Cluster("c", 2, 1.0)
    validate_ptgs(listed, [A, B], c)
    validate_ptgs(packed, [A, B], c)
    assert ptg_metrics(packed, [2.0, 1.0]).makespan == 2.0


def test_backfill_waits_for_moved_predecessors_and_keeps_processors_when_possible():
    # Two chains on P = 1 scheduled badly (PTG 1 first); backfill keeps the order
    # (nobody may be delayed) and only closes the gaps.
    A = make_ptg({"a": 1.0})
    B = make_ptg({"b1": 1.0, "b2": 1.0}, [("b1", "b2")])
    s = TaskSchedule.from_rows([(1, 0, 0.0, 1.0, [0]), (1, 1, 2.0, 3.0, [0]), (0, 0, 5.0, 6.0, [0])], total_procs=1)
    validate_ptgs(s, [A, B], Cluster("c", 1, 1.0))
    packed = backfill(s, [A, B], 1, 1.0)
    assert packed.rows() == [(1, 0, 0.0, 1.0, [0]), (1, 1, 1.0, 2.0, [0]), (0, 0, 2.0, 3.0, [0])]


def test_backfill_never_delays_anything():
    c = cluster("chti")
    ptgs = ptg_population("random", 5, seed=8) + ptg_population("strassen", 2, seed=8)
    allocs = [hcpa_allocation(p, c.procs, c.speed) for p in ptgs]
    prios = [bottom_levels(p, a, c.speed) for p, a in zip(ptgs, allocs)]
    listed = list_schedule(ptgs, allocs, prios, c.procs, c.speed)
    packed = backfill(listed, ptgs, c.procs, c.speed)
    for column in ("ptg", "task", "procs"):
        assert (getattr(packed, column) == getattr(listed, column)).all()
    assert (packed.start <= listed.start).all()
    assert (packed.makespans(len(ptgs)) <= listed.makespans(len(ptgs))).all()
    assert (packed.start < listed.start).any()  # this instance does get compacted
    validate_ptgs(listed, ptgs, c)
    validate_ptgs(packed, ptgs, c)


# -- every reference schedule passes the validator ---------------------------------------------------------
@pytest.mark.parametrize("name", ["chti", "grillon"])
@pytest.mark.parametrize("kind", ["random", "fft", "strassen"])
def test_reference_schedules_are_valid(name, kind):
    c = cluster(name)
    ptgs = ptg_population(kind, 4, seed=len(name))
    for p in ptgs:
        validate_ptgs(hcpa_schedule(p, c.procs, c.speed), [p], c)
    s = selfish(ptgs, c.procs, c.speed)
    validate_ptgs(s, ptgs, c)
    stars = cmax_star(ptgs, c, lambda p, cl: hcpa_schedule(p, cl.procs, cl.speed))
    m = ptg_metrics(s, stars)
    assert m.average_stretch >= 1.0 - 1e-12 and m.max_stretch >= m.average_stretch - 1e-12
    assert 0.0 < m.utilization <= 1.0 and m.makespan == s.end.max()


def test_hcpa_schedule_of_a_single_task():
    p = make_ptg({"x": 8e9}, alphas={"x": 0.25})
    s = hcpa_schedule(p, 4, 2e9, rule="cpa")  # CPA's rule: the whole cluster
    assert s.rows() == [(0, 0, 0.0, exec_time(8e9, 0.25, 4, 2e9), [0, 1, 2, 3])]
    assert s.end[0] == 1.75
    star = cmax_star([p], Cluster("c", 4, 2e9), lambda q, cl: hcpa_schedule(q, cl.procs, cl.speed, rule="cpa"))
    assert star.tolist() == [1.75]
    assert hcpa_schedule(p, 4, 2e9).rows() == [(0, 0, 0.0, 2.5, [0, 1])]  # sqrt: sqrt(4 * 1) processors


# -- the validator rejects every kind of infeasibility -----------------------------------------------------------
def _two_tasks():
    p = make_ptg({"a": 2.0, "b": 2.0}, [("a", "b")])
    return p, Cluster("c", 2, 1.0)


def _messages(rows, ptgs, c, total=None):
    return ptg_violations(TaskSchedule.from_rows(rows, total_procs=total or c.procs), ptgs, c)


def test_validator_accepts_a_feasible_schedule():
    p, c = _two_tasks()
    assert _messages([(0, 0, 0.0, 1.0, [0, 1]), (0, 1, 1.0, 3.0, [1])], [p], c) == []


def test_validator_rejects_precedence_violation():
    p, c = _two_tasks()
    out = _messages([(0, 0, 0.0, 1.0, [0, 1]), (0, 1, 0.5, 2.5, [1])], [p], c)
    assert any("task 1 ('b') starts at 0.5 before its predecessor task 0 ('a') ends at 1.0" in m for m in out)
    with pytest.raises(InvalidScheduleError):
        validate_ptgs(TaskSchedule.from_rows([(0, 0, 0.0, 1.0, [0, 1]), (0, 1, 0.5, 2.5, [1])], total_procs=2), [p], c)


def test_validator_rejects_over_subscription():
    a, b = make_ptg({"x": 2.0}), make_ptg({"y": 2.0})
    c = Cluster("c", 2, 1.0)
    # Both use both processors at once: 4 busy on a 2-processor cluster.
    out = _messages([(0, 0, 0.0, 1.0, [0, 1]), (1, 0, 0.5, 1.5, [0, 1])], [a, b], c)
    assert any("4 processors busy at time 0.5, the cluster has 2" in m for m in out)


def test_validator_rejects_double_booking():
    a, b = make_ptg({"x": 1.0}), make_ptg({"y": 1.0})
    c = Cluster("c", 2, 1.0)
    out = _messages([(0, 0, 0.0, 1.0, [1]), (1, 0, 0.5, 1.5, [1])], [a, b], c)
    assert out == ["processor 1 double-booked: PTG 0 task 0 ('x') [0.0, 1.0) and PTG 1 task 0 ('y') [0.5, 1.5)"]
    # Back to back on one processor is fine (half-open intervals).
    assert _messages([(0, 0, 0.0, 1.0, [1]), (1, 0, 1.0, 2.0, [1])], [a, b], c) == []


def test_validator_rejects_wrong_duration_and_allocation_mismatch():
    p, c = _two_tasks()
    out = _messages([(0, 0, 0.0, 1.5, [0, 1]), (0, 1, 1.5, 3.5, [1])], [p], c)
    assert out == ["PTG 0 task 0 ('a'): runs 1.5 s on 2 processors, T(v, 2) = 1.0 s"]
    # Within the 1e-9 relative tolerance is accepted.
    assert _messages([(0, 0, 0.0, 1.0 + 1e-12, [0, 1]), (0, 1, 1.0 + 1e-12, 3.0 + 1e-12, [1])], [p], c) == []
    bad = TaskSchedule(
        ptg=[0, 0],
        task=[0, 1],
        start=[0.0, 1.0],
        end=[1.0, 3.0],
        procs=[2, 1],
        proc_offsets=[0, 1, 2],
        proc_ids=[0, 1],
        total_procs=2,
    )
    assert "1 processor ids for procs == 2" in ptg_violations(bad, [p], c)[0]


@pytest.mark.parametrize(
    "rows, expected",
    [
        ([(0, 0, 0.0, 1.0, [0, 1])], "PTG 0 task 1 ('b') is never scheduled"),
        ([(0, 0, 0.0, 1.0, [0, 1]), (0, 1, 1.0, 3.0, [1]), (0, 1, 3.0, 5.0, [0])], "is scheduled 2 times"),
        ([(0, 0, 0.0, 1.0, [0, 1]), (0, 2, 1.0, 3.0, [1])], "PTG 0 has no task 2"),
        ([(0, 0, 0.0, 1.0, [0, 1]), (1, 1, 1.0, 3.0, [1])], "PTG index 1 outside 0..0"),
        ([(0, 0, 0.0, 1.0, [0, 2]), (0, 1, 1.0, 3.0, [1])], "processor id 2 outside 0..1"),
        ([(0, 0, 0.0, 1.0, [0, 0]), (0, 1, 1.0, 3.0, [1])], "lists processor 0 twice"),
        ([(0, 0, -1.0, 0.0, [0, 1]), (0, 1, 1.0, 3.0, [1])], "must be finite and start >= 0"),
        ([(0, 0, 0.0, 2.0, []), (0, 1, 2.0, 4.0, [1])], "procs == 0, must be in 1..2"),
    ],
)
def test_validator_rejects_malformed_schedules(rows, expected):
    p, c = _two_tasks()
    out = _messages(rows, [p], c)
    assert any(expected in m for m in out), out


def test_validator_checks_the_cluster_size():
    p, c = _two_tasks()
    out = _messages([(0, 0, 0.0, 2.0, [0]), (0, 1, 2.0, 4.0, [1])], [p], c, total=3)
    assert out == ["schedule is for 3 processors, the cluster 'c' has 2"]


# -- metrics ---------------------------------------------------------------------------------------------------------
def test_metrics_by_hand():
    a, b = make_ptg({"x": 2.0}), make_ptg({"y": 4.0})
    s = TaskSchedule.from_rows([(0, 0, 0.0, 1.0, [0, 1]), (1, 0, 1.0, 3.0, [0, 1])], total_procs=2)
    validate_ptgs(s, [a, b], Cluster("c", 2, 1.0))
    m = ptg_metrics(s, [1.0, 2.0])
    assert m.cmax.tolist() == [1.0, 3.0] and m.stretch.tolist() == [1.0, 1.5]
    assert m.average_stretch == 4.0 / 3.0  # sum(C) / sum(C*), not the mean of the stretches
    assert (m.makespan, m.max_stretch, m.utilization) == (3.0, 1.5, 1.0)
    with pytest.raises(ValueError, match="no task"):
        ptg_metrics(s, [1.0, 2.0, 3.0])
    with pytest.raises(ValueError, match="> 0"):
        ptg_metrics(s, [0.0, 2.0])
