"""CAFM's kernels (clustersched.ptg.moldable): moldable profiles, the 3/2 + ε dual
approximation and the K-shelf packing, against the slow references of
tests/reference/moldable.py and brute-force optima."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from clustersched.errors import InfeasibleError, InvalidWorkloadError
from clustersched.platform import Cluster
from clustersched.ptg import (
    ProfileCache,
    dutot_allocation,
    hcpa_cmax_star,
    k_shelves,
    moldable_profile,
    moldable_profiles,
)
from clustersched.workload.ptg_generators import fft_ptg, ptg_population

from reference import moldable as ref

SMALL = Cluster("small", 9, 3.0e9)


# -- profiles ----------------------------------------------------------------------------------
@pytest.mark.parametrize("rule", ["sqrt", "cpa"])
def test_profiles_are_the_reference_hcpa_on_each_processor_count(rule):
    ptgs = ptg_population("random", 3, seed=5) + [fft_ptg(2, seed=1), ptg_population("strassen", 1, seed=2)[0]]
    table = moldable_profiles(ptgs, SMALL, rule=rule, monotone=False, cache=None)
    for i, g in enumerate(ptgs):
        assert table[i].tolist() == ref.moldable_profile(g, SMALL.procs, SMALL.speed, rule=rule)
    # the last column is each PTG's C*_max
    assert table[:, -1].tolist() == hcpa_cmax_star(ptgs, SMALL, rule=rule).tolist()


def test_monotone_profile_is_the_running_minimum():
    ptgs = ptg_population("random", 6, seed=11)
    raw = moldable_profiles(ptgs, SMALL, monotone=False, cache=None)
    mono = moldable_profiles(ptgs, SMALL, cache=None)
    for r, m in zip(raw, mono):
        assert m.tolist() == [min(r[: p + 1]) for p in range(len(r))]
    assert moldable_profile(ptgs[0], SMALL, cache=None).tolist() == mono[0].tolist()


def test_cache_shares_equal_ptgs_and_separates_clusters_and_rules():
    cache = ProfileCache(maxsize=3)
    a = moldable_profile(fft_ptg(2, seed=3), SMALL, monotone=False, cache=cache)
    b = moldable_profile(fft_ptg(2, seed=3), SMALL, monotone=False, cache=cache)  # rebuilt, equal content
    assert (cache.hits, cache.misses, len(cache)) == (1, 1, 1) and b is a
    with pytest.raises(ValueError):
        a[0] = 1.0  # read-only: a cached array cannot be corrupted
    moldable_profile(fft_ptg(2, seed=3), SMALL, rule="cpa", cache=cache)
    moldable_profile(fft_ptg(2, seed=3), Cluster("other", 9, 1.0e9), cache=cache)
    assert (cache.misses, len(cache)) == (3, 3)
    moldable_profile(fft_ptg(2, seed=4), SMALL, cache=cache)  # evicts the least recently used
    assert len(cache) == 3
    cache.clear()
    assert (len(cache), cache.hits, cache.misses) == (0, 0, 0)


# -- instances of monotone moldable jobs --------------------------------------------------------
@st.composite
def monotone_jobs(draw, max_jobs=4, max_procs=6):
    """Integer sequential times, then t(p) in [t(p-1) (p-1)/p, t(p-1)]: time non-increasing, work
    non-decreasing -- the monotony the 3/2 guarantee assumes."""
    procs = draw(st.integers(1, max_procs))
    rows = []
    for _ in range(draw(st.integers(1, max_jobs))):
        row = [float(draw(st.integers(1, 60)))]
        for p in range(2, procs + 1):
            f = draw(st.sampled_from([0.0, 0.25, 0.5, 1.0]))
            low = row[-1] * (p - 1) / p
            row.append(low + f * (row[-1] - low))
        rows.append(row)
    return rows, procs


@settings(max_examples=60, deadline=None)
@given(monotone_jobs(), st.sampled_from([0.01, 0.1, 0.5]))
def test_dutot_is_a_dual_approximation(inst, eps):
    rows, procs = inst
    opt = ref.optimal_makespan(rows, procs)
    d = dutot_allocation(np.array(rows), epsilon=eps)
    # every rejected guess is below the optimum, so the search brackets it from below (up to the
    # last bit: a guess equal to the optimum may be rejected when t(p) <= guess rounds the other way) ...
    assert d.lower <= opt * (1 + 1e-12)
    assert d.cmax <= (1 + eps) * opt * (1 + 1e-12)
    # ... and MRT's 3/2 schedule from the accepted guess bounds the optimum from above
    assert opt <= 1.5 * d.cmax
    assert d.lower <= d.cmax <= (1 + eps) * d.lower or d.cmax == d.lower


@settings(max_examples=80, deadline=None)
@given(monotone_jobs(max_jobs=5, max_procs=8), st.sampled_from([0.01, 0.2]))
def test_dutot_choice_is_the_least_work_two_shelf_choice(inst, eps):
    rows, procs = inst
    d = dutot_allocation(np.array(rows), epsilon=eps)
    # the knapsack's optimum, by enumeration, at the accepted guess
    assert ref.two_shelves(rows, procs, d.cmax) == pytest.approx(d.work, rel=1e-12)
    if d.lower < d.cmax:
        assert ref.two_shelves(rows, procs, d.lower) is None
    first = 0
    for j, row in enumerate(rows):
        t = row[d.alloc[j] - 1]
        if d.shelf[j] == 0:
            assert d.alloc[j] == 1 and t <= d.cmax / 2
        elif d.shelf[j] == 1:
            assert d.alloc[j] == ref._gamma(row, d.cmax)
            first += d.alloc[j]
        else:
            assert d.alloc[j] == ref._gamma(row, d.cmax / 2)
    assert first <= procs
    assert d.work <= procs * d.cmax


@settings(max_examples=100, deadline=None)
@given(
    st.integers(1, 6).flatmap(
        lambda procs: st.tuples(
            st.lists(st.lists(st.integers(1, 40), min_size=procs, max_size=procs), min_size=1, max_size=6),
            st.just(procs),
        )
    ),
    st.floats(1.0, 3.0),
)
def test_k_shelves_match_the_brute_force_packing(inst, scale):
    rows, procs = inst
    rows = [[float(t) for t in r] for r in rows]  # any profile, monotone or not
    cmax = max(min(r) for r in rows) * scale
    k = k_shelves(np.array(rows), cmax)
    length, start, shelf, alloc, duration = ref.k_shelves(rows, procs, cmax)
    assert (k.length.tolist(), k.start.tolist(), k.shelf.tolist(), k.alloc.tolist(), k.duration.tolist()) == (
        length,
        start,
        shelf,
        alloc,
        duration,
    )
    assert all(a <= b for a, b in zip(length, length[1:])) and length[-1] <= cmax


def test_cafm_pipeline_on_real_ptgs():
    ptgs = ptg_population("random", 5, seed=3)
    table = moldable_profiles(ptgs, SMALL)
    d = dutot_allocation(table)
    assert d.lower <= d.cmax <= 1.01 * d.lower
    assert d.cmax >= table.min(axis=1).max()  # no job faster than its fastest allocation
    k = k_shelves(table, d.cmax)
    assert (k.duration <= k.length[k.shelf]).all() and (k.alloc >= 1).all() and (k.alloc <= SMALL.procs).all()


# -- bad input ------------------------------------------------------------------------------------
def test_bad_input_raises_typed_errors():
    good = np.array([[2.0, 1.0], [3.0, 2.0]])
    with pytest.raises(InvalidWorkloadError, match="PTG 1: time on 2 processors == NaN"):
        dutot_allocation(np.array([[2.0, 1.0], [3.0, np.nan]]))
    with pytest.raises(InvalidWorkloadError, match="PTG 0: time on 1 processors == 0"):
        k_shelves(np.array([[0.0, 1.0]]), 1.0)
    with pytest.raises(ValueError, match="must be 2-D"):
        dutot_allocation(np.array([1.0, 2.0]))
    with pytest.raises(ValueError, match="must be 2-D"):
        k_shelves(np.empty((0, 3)), 1.0)
    with pytest.raises(TypeError, match="dtype"):
        dutot_allocation(np.array([["a"]]))
    with pytest.raises(ValueError, match="epsilon == 0"):
        dutot_allocation(good, epsilon=0)
    with pytest.raises(ValueError, match="epsilon == 2"):
        dutot_allocation(good, epsilon=2)
    with pytest.raises(ValueError, match="cmax == -1"):
        k_shelves(good, -1)
    with pytest.raises(InfeasibleError, match="job 1: fastest time 2"):
        k_shelves(good, 1.5)
    with pytest.raises(TypeError, match="must be a clustersched PTG"):
        moldable_profile("graph", SMALL)
    with pytest.raises(TypeError, match="sequence of PTGs"):
        moldable_profiles(fft_ptg(2, seed=0), SMALL)
    with pytest.raises(ValueError, match="rule"):
        moldable_profile(fft_ptg(2, seed=0), SMALL, rule="bogus")
    with pytest.raises(ValueError, match="maxsize == 0"):
        ProfileCache(maxsize=0)
