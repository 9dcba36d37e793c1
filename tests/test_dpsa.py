"""DPSA's subset search against brute-force enumeration, and its policy-level behaviour."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from clustersched import _core
from clustersched.batch import simulate
from clustersched.workload import JobTable

from reference.batch import dpsa_brute_force


@st.composite
def decisions(draw):
    """A decision: up to 12 eligible jobs (in queue order) and the free processors."""
    free = draw(st.integers(1, 16))
    unreserved = draw(st.integers(0, free))
    n = draw(st.integers(0, 12))
    widths = draw(st.lists(st.integers(1, free), min_size=n, max_size=n))
    short = draw(st.lists(st.booleans(), min_size=n, max_size=n))
    return widths, short, free - unreserved, unreserved


@pytest.mark.parametrize("variant", ["p", "n", "w"])
@settings(max_examples=400, deadline=None)
@given(decision=decisions())
def test_search_equals_brute_force_with_the_variant_tie_breaking(decision, variant):
    widths, short, reserved, unreserved = decision
    chosen, utilization, nodes, cut = _core.dpsa_select(
        np.array(widths, dtype=np.int64), np.array(short, dtype=bool), reserved, unreserved, variant
    )
    expected = dpsa_brute_force(widths, short, reserved, unreserved, variant)
    assert utilization == sum(widths[i] for i in expected)
    assert chosen.tolist() == expected
    assert not cut and nodes >= 1


def test_exact_bound_visits_one_node_per_chosen_job():
    # 40 three-wide jobs in 10 free processors: 9 is the best; the plain
    # recursion of Fig. 2 would try the C(40, 3) ways to get there and more.
    widths = np.full(40, 3, dtype=np.int64)
    chosen, utilization, nodes, cut = _core.dpsa_select(widths, np.ones(40, dtype=bool), 0, 10, "p")
    assert (chosen.tolist(), utilization, nodes, cut) == ([0, 1, 2], 9, 4, False)


def test_budget_cuts_are_counted_and_deterministic():
    widths = np.array([3] * 30, dtype=np.int64)
    a = _core.dpsa_select(widths, np.ones(30, dtype=bool), 0, 10, "p", node_budget=3)
    b = _core.dpsa_select(widths, np.ones(30, dtype=bool), 0, 10, "p", node_budget=3)
    assert (a[0].tolist(), a[1], a[2], a[3]) == ([0, 1], 6, 3, True)
    assert a[0].tolist() == b[0].tolist()
    jobs = JobTable(
        {"submit": [0, 1] + [2] * 30, "runtime": [10, 5] + [3] * 30, "procs": [3, 10] + [3] * 30},
        metadata={"MaxProcs": "10"},
    )
    cut = simulate(jobs, "dpsa-p", node_budget=2)
    full = simulate(jobs, "dpsa-p")
    assert cut.search["cut"] >= 1 and full.search["cut"] == 0
    assert full.search["decisions"] >= 1 and len(full.search["decision_seconds"]) == full.search["decisions"]


def test_paper_fig1():
    # On 5 processors: at t=2 a 4-wide job ends and a 1-wide one runs until 7;
    # J1 needs all 5. EASY backfills J2 (3 wide); DPSA starts J3 and J4 (2 + 2).
    jobs = JobTable(
        {"submit": [0, 0, 1, 1, 1, 1], "runtime": [2, 7, 3, 5, 5, 5], "procs": [4, 1, 5, 3, 2, 2]},
        metadata={"MaxProcs": "5"},
    )
    assert simulate(jobs, "easy", estimates="exact").schedule.start.tolist() == [0, 0, 7, 2, 10, 10]
    for variant in ("dpsa-p", "dpsa-n", "dpsa-w"):
        assert simulate(jobs, variant, estimates="exact").schedule.start.tolist() == [0, 0, 7, 10, 2, 2]


@pytest.mark.parametrize(
    ("kwargs", "match"), [({"node_budget": 0}, "node_budget == 0"), ({"time_limit": -1.0}, "time_limit == -1.0")]
)
def test_bad_search_bounds(kwargs, match):
    jobs = JobTable({"submit": [0], "runtime": [1], "procs": [1]}, metadata={"MaxProcs": "1"})
    with pytest.raises(ValueError, match=match):
        simulate(jobs, "dpsa-n", **kwargs)


def test_bad_kernel_arguments():
    with pytest.raises(ValueError, match="variant == 'x'"):
        _core.dpsa_select(np.array([1]), np.array([True]), 0, 1, "x")
    with pytest.raises(ValueError, match="widths\\[0\\] == 0"):
        _core.dpsa_select(np.array([0]), np.array([True]), 0, 1, "p")
