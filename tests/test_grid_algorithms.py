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
QUARTILES = st.sampled_from(["links", "mbrs"])
HOSTS = st.sampled_from(["most-power-left", "first-fit", "best-fit"])
GREEDY = st.sampled_from(["checked", "validated-after"])
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


@settings(max_examples=60, deadline=None)
@given(tigs(), grids(max_lans=7), st.integers(0, 4))
def test_tentative_mappings_cut_at_the_mbrs_quartiles_match_the_reference(tig, grid, step):
    s = qlse_step(grid, step, quartiles="mbrs", tig=tig)
    assert s.kept.tolist() == ref.kept_links(grid, step, ref.distribution(tig, grid, "mbrs"))


def test_the_mbrs_quartiles_need_the_tig():
    grid = LanGrid.from_arrays([[100.0], [200.0]], [1.0, 2.0], [(0, 1)], [10.0])
    with pytest.raises(ValueError, match="quartiles == 'mbrs' needs the TIG"):
        qlse_step(grid, 1, quartiles="mbrs")
    with pytest.raises(ValueError, match="quartiles == 'median', must be one of 'links', 'mbrs'"):
        qlse_step(grid, 1, quartiles="median")


@settings(max_examples=200, deadline=None)
@given(tigs(), grids(), MODELS, WEIGHTS, WEIGHTS, QUARTILES, HOSTS)
def test_qlse_matches_the_reference(tig, grid, model, wt, wl, quartiles, host):
    result = qlse(
        tig,
        grid,
        alpha_t=wt[0],
        beta_t=wt[1],
        alpha_l=wl[0],
        beta_l=wl[1],
        bandwidth=model,
        quartiles=quartiles,
        host=host,
    )
    hosts, step, cluster, attempts = ref.qlse(tig, grid, *wt, *wl, bandwidth=model, quartiles=quartiles, host=host)
    assert _hosts(result) == hosts
    assert result.attempts == attempts
    if result.found:
        assert (result.step, list(result.cluster)) == (step, cluster)
        assert set(result.lan.tolist()) <= set(cluster)
        assert mapping_violations(result, tig, grid) == []


@settings(max_examples=200, deadline=None)
@given(tigs(connected=False), grids(), MODELS, GREEDY)
def test_greedy_matches_the_reference(tig, grid, model, reading):
    result = greedy_best_fit(tig, grid, bandwidth=model, reading=reading)
    assert _hosts(result) == ref.greedy(tig, grid, model, reading)
    if result.found:
        assert mapping_violations(result, tig, grid) == []


@settings(max_examples=30, deadline=None)
@given(
    st.integers(0, 10_000),
    st.sampled_from(["small", "medium"]),
    MODELS,
    QUARTILES,
    HOSTS,
    GREEDY,
    st.sampled_from(["just-enough", "largest-mbr", "fit-graph"]),
)
def test_both_match_the_reference_on_generated_instances(seed, size, model, quartiles, host, reading, planting):
    inst = feasible_instance(size, "small", seed=seed, bandwidth=model, planting=planting)
    result = qlse(inst.tig, inst.grid, bandwidth=model, quartiles=quartiles, host=host)
    theirs = ref.qlse(inst.tig, inst.grid, bandwidth=model, quartiles=quartiles, host=host)
    assert (_hosts(result), result.attempts) == (theirs[0], theirs[3])
    greedy = greedy_best_fit(inst.tig, inst.grid, bandwidth=model, reading=reading)
    assert _hosts(greedy) == ref.greedy(inst.tig, inst.grid, model, reading)
    for r in (result, greedy):
        if r.found:
            assert mapping_violations(r, inst.tig, inst.grid) == []


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
    # greedy starts on the most powerful LAN, which carries no communication: checked, every edge crosses the link
    g = greedy_best_fit(tig, grid, reading="checked")
    assert g.found and g.lan.tolist() == [0, 1, 0, 1] and lan_hit_ratio(g, tig, grid) == 0.0
    # validated after (the default since issue 33): all four on LAN 0 by their MCRs, which its bandwidth refuses
    assert not greedy_best_fit(tig, grid).found


def test_the_readings_by_hand():
    # LAN 0: hosts 300 and 500; LAN 1: one host of 1000 without bandwidth. Tasks 0-1 (MBR 10), 1-2 (MBR 10).
    tig = TIG.from_arrays([200.0, 100.0, 250.0], [(0, 1), (1, 2)], [10.0, 10.0])
    grid = LanGrid.from_arrays([[300.0, 500.0], [1000.0]], [20.0, 0.0], [(0, 1)], [5.0])
    # QLSE: one LAN (x1.00), LAN 1 first (priority 1000) fails on bandwidth, then LAN 0; order 2, 1, 0 (scores)
    most = qlse(tig, grid, bandwidth="dedicated")
    first = qlse(tig, grid, bandwidth="dedicated", host="first-fit")
    best = qlse(tig, grid, bandwidth="dedicated", host="best-fit")
    # most power left: 2 on host 1 (500 -> 250), 1 on host 0 (300 -> 200), 0 on host 1 (250 -> 50)
    assert most.host.tolist() == [1, 0, 1]
    # first fit by nominal power: host 1 (500) takes 2 and 1 (150 left), so 0 (200) goes to host 0
    assert first.host.tolist() == [0, 1, 1]
    # best fit: 2 on host 0 (300 -> 50), 1 on host 1 (500 -> 400), 0 on host 1
    assert best.host.tolist() == [1, 1, 0]
    # greedy checked: LAN 1 first (1000 > 800), task 0 there, task 1 cannot reach it (link of 5 < 10): LAN 0, ...
    checked = greedy_best_fit(tig, grid, bandwidth="dedicated")
    assert not checked.found
    # validated after: all three fit LAN 1's host by MCR (550 <= 1000), but LAN 1 carries no bandwidth: invalid
    assert not greedy_best_fit(tig, grid, bandwidth="dedicated", reading="validated-after").found
    wide = LanGrid.from_arrays([[300.0, 500.0], [1000.0]], [20.0, 10.0], [(0, 1)], [5.0])
    after = greedy_best_fit(tig, wide, bandwidth="dedicated", reading="validated-after")
    assert after.found and after.host.tolist() == [2, 2, 2] and after.lans_used == 1
    assert mapping_violations(after, tig, wide, bandwidth="dedicated") == []
    with pytest.raises(ValueError, match="host == 'worst-fit', must be one of 'most-power-left', 'first-fit'"):
        qlse(tig, grid, host="worst-fit")
    with pytest.raises(ValueError, match="reading == 'lazy', must be one of 'checked', 'validated-after'"):
        greedy_best_fit(tig, grid, reading="lazy")
    # run() passes the readings on
    assert run_grid(tig, wide, "greedy", bandwidth="dedicated", reading="validated-after").found


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
