"""CAFM (RR-7224 §4.4): the box list scheduling against a slow reference, and the boxes the algorithms build."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from clustersched.platform import cluster
from clustersched.ptg import (
    cafm_cra,
    cafm_k_shelves,
    cafm_lptf,
    cafm_saf,
    cafm_sptf,
    dutot_allocation,
    hcpa_cmax_star,
    k_shelves,
    list_schedule_boxes,
    moldable_profiles,
    validate_ptgs,
)
from clustersched.workload.ptg_generators import ptg_population

from reference import moldable as ref


@settings(max_examples=150, deadline=None)
@given(st.data())
def test_box_list_scheduling_is_the_reference(data):
    procs = data.draw(st.integers(1, 8))
    n = data.draw(st.integers(1, 8))
    width = np.array(data.draw(st.lists(st.integers(1, procs), min_size=n, max_size=n)))
    duration = np.array(data.draw(st.lists(st.sampled_from([0.5, 1.0, 2.0, 3.0, 7.5]), min_size=n, max_size=n)))
    order = np.array(data.draw(st.permutations(range(n))))
    start, ids = list_schedule_boxes(width, duration, order, procs)
    ref_start, ref_ids = ref.list_schedule_boxes(width.tolist(), duration.tolist(), order.tolist(), procs)
    assert start.tolist() == ref_start
    assert [i.tolist() for i in ids] == ref_ids


def test_boxes_follow_the_dutot_allocation_and_the_list_order():
    c = cluster("chti")
    ptgs = ptg_population("random", 6, seed=4)
    alloc = dutot_allocation(moldable_profiles(ptgs, c)).alloc.tolist()
    for fn in (cafm_saf, cafm_sptf, cafm_lptf, cafm_cra):
        s = fn(ptgs, c)
        validate_ptgs(s, ptgs, c)
        assert s.options["alloc"] == alloc
    # inside its box a PTG never uses more processors than the box has
    s = cafm_saf(ptgs, c)
    for i, a in enumerate(alloc):
        assert s.procs[s.ptg == i].max() <= a


def test_k_shelves_boxes_start_with_their_shelf_and_fit_it():
    c = cluster("grillon")
    ptgs = ptg_population("random", 8, seed=9)
    table = moldable_profiles(ptgs, c)
    d = dutot_allocation(table)
    shelves = k_shelves(table, d.cmax)
    s = cafm_k_shelves(ptgs, c)
    validate_ptgs(s, ptgs, c)
    assert s.options["shelf"] == shelves.shelf.tolist() and s.options["alloc"] == shelves.alloc.tolist()
    # backfilling only moves tasks earlier: every PTG ends by the end of its shelf
    ends = shelves.start[shelves.shelf] + shelves.length[shelves.shelf]
    for i in range(len(ptgs)):
        assert s.end[s.ptg == i].max() <= ends[i] * (1 + 1e-12)


def test_k_shelves_is_fairer_than_selfish_on_a_crowded_cluster():
    # RR-7224 §5.2.3: CAFM_K_SHELVES has the second lowest median maximum stretch;
    # on one crowded instance it must at least beat SELFISH's
    from clustersched.ptg import selfish

    c = cluster("chti")
    ptgs = ptg_population("random", 10, seed=5)
    star = hcpa_cmax_star(ptgs, c)

    def max_stretch(s):
        return max(s.end[s.ptg == i].max() / star[i] for i in range(len(ptgs)))

    assert max_stretch(cafm_k_shelves(ptgs, c)) < max_stretch(selfish(ptgs, c)) / 5


def test_backfill_keeps_precedence_on_times_shifted_by_a_box():
    # A chain u -> v shifted by a box start b: u runs [b + s, b + (s + d)) and v
    # starts at b + (s + d), but (b + s) + d rounds one ulp above it. Backfill
    # must not end u later than it did (it used to, and v stayed put: a
    # precedence violation found by the full `reproduce ptg`).
    import networkx as nx

    from clustersched.platform import Cluster
    from clustersched.ptg import backfill
    from clustersched.ptg.schedule import TaskSchedule
    from clustersched.workload.ptg import PTG

    rng = np.random.default_rng(0)
    while True:
        b, s, d = (float(x) for x in rng.uniform(1, 200, 3))
        if (b + s) + d > b + (s + d):
            break
    chain = nx.DiGraph([("u", "v")])
    nx.set_node_attributes(chain, {"u": d, "v": 1.0}, "work")
    nx.set_node_attributes(chain, 0.0, "alpha")
    blocker = nx.DiGraph()  # both processors until b + s, so u cannot move
    blocker.add_node("x", work=2 * (b + s), alpha=0.0)
    ptgs = [PTG.from_networkx(chain), PTG.from_networkx(blocker)]
    c = Cluster("two", 2, 1.0)
    shifted = TaskSchedule.from_rows(
        [(1, 0, 0.0, b + s, [0, 1]), (0, 0, b + s, b + (s + d), [0]), (0, 1, b + (s + d), b + (s + d) + 1.0, [1])],
        total_procs=2,
    )
    validate_ptgs(shifted, ptgs, c)
    packed = backfill(shifted, ptgs, c)
    validate_ptgs(packed, ptgs, c)
    u, v = packed.rows()[1], packed.rows()[2]
    assert u[3] <= v[2]
