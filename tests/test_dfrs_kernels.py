"""Differential tests of the DFRS kernels (Rust, ``_core.DfrsState``) against
the slow references in ``tests/reference/dfrs.py``: Greedy placements,
GreedyP/GreedyPM decisions, MCB8 and MCB8-stretch placements and levels,
max-min yields, on hypothesis-generated cluster states."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from clustersched import _core
from clustersched.errors import InfeasibleError, InvalidWorkloadError

from reference.dfrs import UNIT, Ref

# needs on the paper's grids (quarters of CPU, tenths of memory) and arbitrary units,
# so that ties (equal loads, equal sort keys) are frequent
_CPU_GRID = st.sampled_from([UNIT // 4, UNIT // 2, UNIT])
_MEM_GRID = st.sampled_from([UNIT // 10, UNIT // 5, 3 * UNIT // 10, UNIT // 2])
CPU = st.one_of(_CPU_GRID, _CPU_GRID, _CPU_GRID, st.integers(1, UNIT))
MEM = st.one_of(
    _MEM_GRID, _MEM_GRID, st.sampled_from([k * UNIT // 10 for k in range(1, 11)]), st.integers(UNIT // 20, UNIT)
)


@st.composite
def states(draw, max_nodes=6, max_jobs=9):
    nodes = draw(st.integers(1, max_nodes))
    n = draw(st.integers(1, max_jobs))
    tasks = draw(st.lists(st.integers(1, 4), min_size=n, max_size=n))
    cpu = draw(st.lists(CPU, min_size=n, max_size=n))
    mem = draw(st.lists(MEM, min_size=n, max_size=n))
    ref = Ref(tasks, cpu, mem, nodes)
    rust = _core.DfrsState(np.array(tasks), np.array(cpu, dtype=np.uint64), np.array(mem, dtype=np.uint64), nodes)
    # place a random subset by the reference Greedy, in a random order
    for j in draw(st.permutations(range(n)))[: draw(st.integers(0, n))]:
        if ref.greedy(j):
            rust.place(j, np.array(ref.place[j]))
    rust.commit()
    return ref, rust


def same_placements(ref, rust):
    running = sorted(ref.place)
    assert rust.running().tolist() == running
    for j in running:
        assert rust.placement(j).tolist() == ref.place[j], j


@settings(max_examples=80, deadline=None)
@given(states())
def test_greedy_nodes_match_reference(s):
    ref, rust = s
    assert rust.mem_used().tolist() == ref.mem_used()
    assert rust.cpu_load().tolist() == ref.cpu_load()
    for j in range(len(ref.tasks)):
        if j in ref.place:
            continue
        got = rust.greedy_nodes(j)
        want = ref.greedy_nodes(j)
        assert (None if got is None else got.tolist()) == want


@settings(max_examples=80, deadline=None)
@given(states(), st.data())
def test_greedy_preempt_matches_reference(s, data):
    ref, rust = s
    waiting = [j for j in range(len(ref.tasks)) if j not in ref.place]
    if not waiting:
        return
    job = data.draw(st.sampled_from(waiting))
    victims = data.draw(st.permutations(sorted(ref.place)))
    victims = victims[: data.draw(st.integers(0, len(victims)))]
    migrate = data.draw(st.booleans())
    placed, paused, moved = rust.greedy_preempt(job, np.array(victims, dtype=np.int64), migrate)
    assert (placed, paused.tolist(), moved.tolist()) == ref.greedy_preempt(job, victims, migrate)
    same_placements(ref, rust)


@settings(max_examples=80, deadline=None)
@given(states(), st.data())
def test_mcb8_matches_reference(s, data):
    ref, rust = s
    n = len(ref.tasks)
    running = sorted(ref.place)
    others = [j for j in range(n) if j not in ref.place]
    extra = data.draw(st.lists(st.sampled_from(others), unique=True)) if others else []
    order = data.draw(st.permutations(running + extra))
    fixed = {j: ref.place[j] for j in running if data.draw(st.booleans())}
    level, kept, attempts = rust.mcb8(
        np.array(order, dtype=np.int64), np.array([j in fixed for j in order], dtype=bool)
    )
    want_level, want_kept, _ = ref.mcb8(order, fixed)
    assert level == want_level
    assert kept == len(want_kept)
    assert attempts >= (1 if kept else 0)
    same_placements(ref, rust)
    # every memory constraint holds, fixed jobs kept their nodes
    assert max(rust.mem_used().tolist() + [0]) <= UNIT
    for j, nodes in fixed.items():
        if j in ref.place:
            assert rust.placement(j).tolist() == sorted(nodes)


@settings(max_examples=60, deadline=None)
@given(states(), st.data())
def test_mcb8_stretch_matches_reference(s, data):
    ref, rust = s
    n = len(ref.tasks)
    order = data.draw(st.permutations(range(n)))
    fixed = {j: ref.place[j] for j in ref.place if data.draw(st.booleans())}
    flow = {j: data.draw(st.floats(0, 5000)) for j in order}
    virt = {j: data.draw(st.floats(0, 1)) * flow[j] for j in order}
    period = data.draw(st.sampled_from([60.0, 600.0, 3600.0]))
    level, kept, _ = rust.mcb8_stretch(
        np.array(order, dtype=np.int64),
        np.array([j in fixed for j in order], dtype=bool),
        np.array([flow[j] for j in order]),
        np.array([virt[j] for j in order]),
        period,
    )
    want_level, want_kept, _ = ref.mcb8(order, fixed, stretch=(flow, virt, period))
    assert (level, kept) == (want_level, len(want_kept))
    same_placements(ref, rust)


@settings(max_examples=80, deadline=None)
@given(states())
def test_max_min_yields_match_reference(s):
    ref, rust = s
    jobs, yields = rust.max_min_yields()
    want = ref.max_min_yields()
    assert jobs.tolist() == sorted(want)
    np.testing.assert_allclose(yields, [want[j] for j in sorted(want)], rtol=1e-9, atol=1e-12)
    # feasibility and the max-min property's first level
    load = np.zeros(rust.nodes)
    node, job, count = rust.node_tasks()
    cpu = np.array(ref.cpu) / UNIT
    y = dict(zip(jobs.tolist(), yields.tolist()))
    np.add.at(load, node, count * cpu[job] * np.array([y[j] for j in job.tolist()]))
    assert (load <= 1 + 1e-9).all()
    if len(jobs):
        lam = max(ref.cpu_load()) / UNIT
        assert yields.min() == pytest.approx(1 / max(1.0, lam), rel=1e-12)


@settings(max_examples=40, deadline=None)
@given(states(), st.data())
def test_max_min_stretch_is_feasible_and_fair(s, data):
    ref, rust = s
    n = len(ref.tasks)
    flow = np.array([data.draw(st.floats(0, 5000)) for _ in range(n)])
    virt = flow * np.array([data.draw(st.floats(0, 1)) for _ in range(n)])
    period = 600.0
    jobs, yields = rust.max_min_stretch(flow, virt, period)
    assert jobs.tolist() == sorted(ref.place)
    assert ((yields >= 0) & (yields <= 1)).all()
    node, job, count = rust.node_tasks()
    y = dict(zip(jobs.tolist(), yields.tolist()))
    load = np.zeros(rust.nodes)
    np.add.at(load, node, count * np.array(ref.cpu)[job] / UNIT * np.array([y[j] for j in job.tolist()]))
    assert (load <= 1 + 1e-9).all()
    # a job below yield 1 sits on a saturated node (else its stretch could still improve)
    full = load >= 1 - 1e-6
    for j, yj in y.items():
        if yj < 1 - 1e-9:
            assert full[ref.place[j]].any(), (j, yj)


def test_bad_calls_are_typed_errors():
    s = _core.DfrsState(
        np.array([1, 2]), np.array([UNIT, UNIT], dtype=np.uint64), np.array([UNIT // 2, UNIT // 2], dtype=np.uint64), 1
    )
    with pytest.raises(ValueError, match="the job of row 5 does not exist"):
        s.greedy(5)
    with pytest.raises(ValueError, match="must be a row >= 0"):
        s.greedy(-1)
    assert s.greedy(0)
    with pytest.raises(InfeasibleError, match="already placed"):
        s.greedy(0)
    with pytest.raises(InfeasibleError, match="do not fit"):
        s.place(1, np.array([0, 0]))
    with pytest.raises(ValueError, match="must be among the jobs MCB8 packs"):
        s.mcb8(np.array([1]), np.array([False]))
    with pytest.raises(ValueError, match="fixed has 1 entries for 2 jobs"):
        s.mcb8(np.array([0, 1]), np.array([False]))
    with pytest.raises(InvalidWorkloadError, match=r"^row 1: tasks == 0, must be between 1 and 1048576$"):
        _core.DfrsState(np.array([1, 0]), np.array([1, 1], dtype=np.uint64), np.array([1, 1], dtype=np.uint64), 1)
    with pytest.raises(ValueError, match="nodes == 0"):
        _core.DfrsState(np.array([1]), np.array([1], dtype=np.uint64), np.array([1], dtype=np.uint64), 0)


@pytest.mark.parametrize(
    "cpu,mem,want",
    [
        # memory-heavy ties on (memory, CPU): the higher job index goes first
        ([UNIT // 4, UNIT // 4], [UNIT // 2, UNIT // 2], {0: [1], 1: [0, 0]}),
        # CPU-heavy ties on (CPU, memory): the higher job index goes first
        ([UNIT // 2, UNIT // 2], [UNIT // 10, UNIT // 10], {0: [1], 1: [0, 0]}),
    ],
)
def test_mcb8_ties_by_job_index_descending(cpu, mem, want):
    tasks = [1, 2]
    ref = Ref(tasks, cpu, mem, 2)
    rust = _core.DfrsState(np.array(tasks), np.array(cpu, dtype=np.uint64), np.array(mem, dtype=np.uint64), 2)
    level, kept, _ = rust.mcb8(np.array([0, 1]), np.zeros(2, bool))
    assert (level, kept) == (1.0, 2)
    assert {j: rust.placement(j).tolist() for j in (0, 1)} == want
    ref.mcb8([0, 1], {})
    assert ref.place == want
