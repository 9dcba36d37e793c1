"""QLSE and the greedy baseline: identical to the slow reference, never an invalid mapping, the metrics of §5."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from clustersched.grid import (
    ALGORITHMS,
    TIG,
    LanGrid,
    Mapping,
    NoFeasibleMapping,
    algorithm,
    failure_rate,
    feasible_instance,
    greedy_best_fit,
    lan_hit_ratio,
    mapping_violations,
    qlse,
    qlse_step,
    random_instance,
    shared_task_machine_ratio,
    task_machine_ratio,
    task_order,
)
from clustersched.grid import (
    run as run_grid,
)

from reference import grid as ref
from reference.grid_instances import grids, tigs

MODELS = st.sampled_from(["shared", "dedicated"])
WEIGHTS = st.sampled_from([(1.0, 0.25), (1.0, 0.0), (0.0, 1.0), (2.5, 0.5)])


def _hosts(result):
    return result.host.tolist() if result.found else None


@settings(max_examples=80, deadline=None)
@given(tigs(), WEIGHTS)
def test_task_order_matches_the_reference(tig, weights):
    """Scores, layers, subsets (the Rust blocks against the reference's every-simple-cycle rule), order."""
    a, b = weights
    mine = task_order(tig, alpha_t=a, beta_t=b)
    theirs = ref.task_order(tig, a, b)
    assert mine.scores.tolist() == theirs["scores"]
    assert mine.layer.tolist() == theirs["layer"]
    assert mine.subset.tolist() == theirs["subset"]
    assert mine.subset_layer.tolist() == theirs["subset_layer"]
    assert mine.order.tolist() == theirs["order"]


@settings(max_examples=60, deadline=None)
@given(grids(max_lans=7), st.integers(0, 4), WEIGHTS)
def test_tentative_mappings_match_the_reference(grid, step, weights):
    a, b = weights
    s = qlse_step(grid, step, alpha_l=a, beta_l=b)
    kept = ref.kept_links(grid, step)
    assert s.kept.tolist() == kept
    assert s.lan_priority.tolist() == ref.lan_priorities(grid, kept, a, b)
    expected = ref.clusters(grid, kept)
    assert [c.tolist() for c in s.clusters] == [lans for lans, _, _ in expected]
    assert s.cluster_priority.tolist() == [p for _, _, p in expected]


@settings(max_examples=150, deadline=None)
@given(tigs(), grids(), MODELS, WEIGHTS, WEIGHTS)
def test_qlse_matches_the_reference(tig, grid, model, wt, wl):
    result = qlse(tig, grid, alpha_t=wt[0], beta_t=wt[1], alpha_l=wl[0], beta_l=wl[1], bandwidth=model)
    hosts, step, cluster, attempts = ref.qlse(tig, grid, *wt, *wl, bandwidth=model)
    assert _hosts(result) == hosts
    assert result.attempts == attempts
    if result.found:
        assert (result.step, list(result.cluster)) == (step, cluster)
        assert set(result.lan.tolist()) <= set(cluster)
        assert mapping_violations(result, tig, grid) == []


@settings(max_examples=150, deadline=None)
@given(tigs(connected=False), grids(), MODELS)
def test_greedy_matches_the_reference(tig, grid, model):
    result = greedy_best_fit(tig, grid, bandwidth=model)
    assert _hosts(result) == ref.greedy(tig, grid, model)
    if result.found:
        assert mapping_violations(result, tig, grid) == []


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 10_000), st.sampled_from(["small", "medium"]), MODELS)
def test_both_match_the_reference_on_generated_instances(seed, size, model):
    inst = feasible_instance(size, "small", seed=seed, bandwidth=model)
    result = qlse(inst.tig, inst.grid, bandwidth=model)
    assert (_hosts(result), result.attempts) == (lambda r: (r[0], r[3]))(ref.qlse(inst.tig, inst.grid, bandwidth=model))
    assert _hosts(greedy_best_fit(inst.tig, inst.grid, bandwidth=model)) == ref.greedy(inst.tig, inst.grid, model)


@settings(max_examples=40, deadline=None)
@given(
    st.integers(0, 10_000),
    st.sampled_from(["small", "medium", "large"]),
    st.sampled_from(["small", "medium", "large"]),
    MODELS,
)
def test_no_algorithm_returns_an_invalid_mapping_on_random_instances(seed, ts, gs, model):
    """Random (mostly infeasible) instances: a mapping is valid, or the result is a typed failure."""
    inst = random_instance(ts, gs, seed=seed)
    for name in ALGORITHMS:
        result = algorithm(name)(inst.tig, inst.grid, bandwidth=model)
        assert isinstance(result, (Mapping, NoFeasibleMapping))
        if result.found:
            assert len(result.host) == len(inst.tig)
            assert mapping_violations(result, inst.tig, inst.grid) == []


def test_qlse_finds_the_single_lan_first():
    # 4 tasks fit on LAN 1 alone; LAN 0 is more powerful but has no bandwidth
    tig = TIG.from_arrays([100.0] * 4, [(0, 1), (1, 2), (2, 3)], [10.0] * 3)
    grid = LanGrid.from_arrays([[1000.0], [200.0, 200.0]], [0.0, 30.0], [(0, 1)], [100.0])
    m = qlse(tig, grid)
    assert (m.step_label, m.cluster, m.attempts) == ("x1.00", (1,), 2)
    assert m.lan.tolist() == [1, 1, 1, 1] and m.lans_used == 1
    # order 1, 2, 0, 3 (task 1 wins the tie on score); each on the LAN's host with the most power left
    assert m.by_label(tig, grid) == {0: (1, 0), 1: (1, 0), 2: (1, 1), 3: (1, 1)}
    assert lan_hit_ratio(m, tig, grid) == 1.0
    # greedy starts on the most powerful LAN, which carries no communication: every edge crosses the link
    g = greedy_best_fit(tig, grid)
    assert g.found and g.lan.tolist() == [0, 1, 0, 1] and lan_hit_ratio(g, tig, grid) == 0.0


def test_results_are_deterministic():
    inst = feasible_instance("medium", "large", seed=5)
    a, b = qlse(inst.tig, inst.grid), qlse(inst.tig, inst.grid)
    assert a.host.tolist() == b.host.tolist() and not a.host.flags.writeable


def test_metrics_by_hand():
    tig = TIG.from_arrays([100.0, 200.0, 100.0], [(0, 1), (1, 2)], [30.0, 10.0])
    grid = LanGrid.from_arrays([[600.0, 300.0], [400.0]], [100.0, 100.0], [(0, 1)], [50.0])
    mapping = np.array([0, 0, 2])
    assert lan_hit_ratio(mapping, tig, grid) == 0.75
    assert task_machine_ratio(mapping, tig, grid) == pytest.approx((6.0 + 3.0 + 4.0) / 3)
    assert shared_task_machine_ratio(mapping, tig, grid) == pytest.approx((2.0 + 2.0 + 4.0) / 3)
    assert math.isnan(lan_hit_ratio([0], TIG.from_arrays([1.0], [], []), grid))
    assert failure_rate([]) != failure_rate([])  # NaN
    assert failure_rate([NoFeasibleMapping("QLSE"), True, False, True]) == 0.5


def test_run_validates_and_measures():
    inst = feasible_instance("small", "medium", seed=2, bandwidth="dedicated")
    run = run_grid(inst.tig, inst.grid, "qlse", bandwidth="dedicated")
    assert run.algorithm == "QLSE" and run.found and run.mapping.bandwidth == "dedicated"
    assert run.schedule is run.mapping  # the contract's name
    assert run.seconds == run.mapping.seconds > 0
    assert run.metrics.lans_used == run.mapping.lans_used
    assert 0.0 <= run.metrics.lan_hit_ratio <= 1.0 and run.metrics.task_machine_ratio >= 1.0
    assert run.summary() == {"algorithm": "QLSE", "found": True, **run.metrics.summary(), "seconds": run.seconds}
    with pytest.raises(ValueError, match="algorithm == 'HEFT', must be one of 'QLSE', 'greedy'"):
        run_grid(inst.tig, inst.grid, "HEFT")
    assert run_grid(inst.tig, inst.grid, "GREEDY", bandwidth="dedicated").algorithm == "greedy"
    with pytest.raises(TypeError, match="positional argument"):
        run_grid(inst.tig, inst.grid, "QLSE", "dedicated")


def test_run_without_a_mapping():
    # a random instance that no algorithm can map: the typed failure, no metrics, None measures in the summary
    tig = TIG.from_arrays([500.0, 500.0], [(0, 1)], [10.0])
    grid = LanGrid.from_arrays([[100.0], [100.0]], [50.0, 50.0], [(0, 1)], [50.0])
    for name in ALGORITHMS:
        run = run_grid(tig, grid, name)
        assert run.algorithm == name and not run.found and run.metrics is None
        assert isinstance(run.mapping, NoFeasibleMapping) and run.seconds == run.mapping.seconds
        summary = run.summary()
        assert summary == {
            "algorithm": name,
            "found": False,
            "lan_hit_ratio": None,
            "task_machine_ratio": None,
            "shared_task_machine_ratio": None,
            "lans_used": None,
            "hosts_used": None,
            "seconds": run.seconds,
        }


def test_a_tig_without_a_task_is_an_invalid_workload():
    # docs/layout.md: an empty workload raises InvalidWorkloadError; a TIG's constructors refuse it, and the
    # algorithms refuse one built around them
    import networkx as nx

    from clustersched.errors import InvalidWorkloadError

    for make in (lambda: TIG.from_arrays([], [], []), lambda: TIG.from_networkx(nx.Graph())):
        with pytest.raises(InvalidWorkloadError, match="the TIG has no task"):
            make()
    empty = TIG(
        name="empty",
        labels=[],
        mcr=np.empty(0),
        edge_u=np.empty(0, dtype=np.int64),
        edge_v=np.empty(0, dtype=np.int64),
        mbr=np.empty(0),
    )
    grid = LanGrid.from_arrays([[250.0], [250.0]], [10.0, 10.0], [(0, 1)], [20.0])
    for call in (
        lambda: qlse(empty, grid),
        lambda: greedy_best_fit(empty, grid),
        lambda: task_order(empty),
        lambda: run_grid(empty, grid, "QLSE"),
        lambda: run_grid(empty, grid, "greedy"),
    ):
        with pytest.raises(InvalidWorkloadError, match="the TIG has no task"):
            call()
