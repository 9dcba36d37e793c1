"""The mapping validator: it accepts valid mappings and rejects hand-broken ones, naming what is broken."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

import clustersched.validate
from clustersched.errors import InvalidScheduleError
from clustersched.grid import (
    TIG,
    LanGrid,
    feasible_instance,
    greedy_best_fit,
    mapping_violations,
    qlse,
    validate_mapping,
)
from clustersched.grid.validate import RTOL

from reference.grid_instances import grids, tigs

MODELS = st.sampled_from(["shared", "dedicated"])


def _has(violations, text):
    return any(text in v for v in violations)


def test_the_validator_is_in_clustersched_validate():
    assert clustersched.validate.validate_mapping is validate_mapping
    assert clustersched.validate.mapping_violations is mapping_violations


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 10_000), st.sampled_from(["small", "medium", "large"]), MODELS)
def test_planted_and_computed_mappings_are_accepted(seed, size, model):
    inst = feasible_instance(size, size, seed=seed, bandwidth=model)
    assert mapping_violations(inst.planted, inst.tig, inst.grid, bandwidth=model) == []
    for result in (qlse(inst.tig, inst.grid, bandwidth=model), greedy_best_fit(inst.tig, inst.grid, bandwidth=model)):
        if result.found:
            assert mapping_violations(result, inst.tig, inst.grid) == []  # the mapping's own model


@settings(max_examples=60, deadline=None)
@given(tigs(connected=False), grids(), st.data())
def test_stacking_every_task_on_one_host_is_judged_by_its_power(tig, grid, data):
    host = data.draw(st.integers(0, grid.num_hosts - 1))
    mapping = np.full(len(tig), host)
    need = float(tig.mcr.sum())
    power = float(grid.host_power[host])
    assume(abs(need - power) > 1e-6 * max(1.0, power))  # away from the tolerance band
    violations = mapping_violations(mapping, tig, grid)
    assert _has(violations, f"host {grid.host_name(host)!r}: tasks") == (need > power)


@settings(max_examples=60, deadline=None)
@given(tigs(min_tasks=2), grids(), MODELS, st.data())
def test_a_lan_is_judged_by_the_communications_inside_it(tig, grid, model, data):
    lan = data.draw(st.integers(0, grid.num_lans - 1))
    hosts = np.arange(grid.host_offsets[lan], grid.host_offsets[lan + 1])
    mapping = data.draw(st.lists(st.sampled_from(hosts.tolist()), min_size=len(tig), max_size=len(tig)))
    use = tig.mbr.sum() if model == "shared" else (tig.mbr.max() if tig.num_edges else 0.0)
    bw = grid.lan_bandwidth[lan]
    assume(abs(use - bw) > 1e-6 * max(1.0, bw))
    violations = mapping_violations(np.array(mapping), tig, grid, bandwidth=model)
    assert _has(violations, f"LAN {grid.labels[lan]!r}: communications inside it") == (use > bw)


@settings(max_examples=60, deadline=None)
@given(tigs(min_tasks=2), grids(max_lans=4), MODELS, st.data())
def test_a_link_is_judged_by_the_communications_across_it(tig, grid, model, data):
    assume(grid.num_links > 0)
    k = data.draw(st.integers(0, grid.num_links - 1))
    a, b = int(grid.link_a[k]), int(grid.link_b[k])
    side = data.draw(st.lists(st.booleans(), min_size=len(tig), max_size=len(tig)))
    mapping = np.where(side, grid.host_offsets[a], grid.host_offsets[b])
    across = np.array(side)[tig.edge_u] != np.array(side)[tig.edge_v]
    crossing = tig.mbr[across]
    use = crossing.sum() if model == "shared" else (crossing.max() if crossing.size else 0.0)
    bw = grid.link_bandwidth[k]
    assume(abs(use - bw) > 1e-6 * max(1.0, bw))
    violations = mapping_violations(mapping, tig, grid, bandwidth=model)
    assert _has(violations, "communications across it") == (use > bw)
    assert not _has(violations, "no direct link")


@settings(max_examples=60, deadline=None)
@given(tigs(min_tasks=2), grids(), st.data())
def test_communicating_tasks_on_unlinked_lans_are_rejected(tig, grid, data):
    unlinked = [
        (a, b) for a in range(grid.num_lans) for b in range(grid.num_lans) if a != b and grid.link(a, b) is None
    ]
    assume(unlinked and tig.num_edges)
    a, b = data.draw(st.sampled_from(unlinked))
    e = data.draw(st.integers(0, tig.num_edges - 1))
    mapping = np.array(data.draw(st.lists(st.integers(0, grid.num_hosts - 1), min_size=len(tig), max_size=len(tig))))
    mapping[tig.edge_u[e]] = grid.host_offsets[a]
    mapping[tig.edge_v[e]] = grid.host_offsets[b]
    u, v = tig.labels[tig.edge_u[e]], tig.labels[tig.edge_v[e]]
    violations = mapping_violations(mapping, tig, grid)
    assert _has(violations, f"tasks {u!r} and {v!r} communicate")
    with pytest.raises(InvalidScheduleError, match="which have no direct link"):
        validate_mapping(mapping, tig, grid)


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 10_000), st.data())
def test_moving_one_planted_task_onto_a_full_host_is_rejected(seed, data):
    inst = feasible_instance("large", "small", seed=seed)
    tig, grid, planted = inst.tig, inst.grid, inst.planted.copy()
    load = np.bincount(planted, weights=tig.mcr, minlength=grid.num_hosts)
    t = data.draw(st.integers(0, len(tig) - 1))
    too_full = np.flatnonzero(
        (load + tig.mcr[t] > grid.host_power * (1 + 1e-6)) & (np.arange(grid.num_hosts) != planted[t])
    )
    assume(too_full.size)
    planted[t] = data.draw(st.sampled_from(too_full.tolist()))
    assert _has(mapping_violations(planted, tig, grid), "Mflop/s, it has")


def test_capacities_met_exactly_or_within_rounding_are_accepted():
    tig = TIG.from_arrays([0.1, 0.2, 0.3], [(0, 1), (1, 2)], [0.1, 0.2])
    grid = LanGrid.from_arrays([[0.6]], [0.3], [], [])
    # 0.1 + 0.2 + 0.3 rounds above 0.6, and 0.1 + 0.2 above 0.3
    assert 0.1 + 0.2 + 0.3 > 0.6 and 0.1 + 0.2 > 0.3
    assert mapping_violations([0, 0, 0], tig, grid) == []
    just_over = LanGrid.from_arrays([[0.6 * (1 - 10 * RTOL)]], [0.3], [], [])
    assert _has(mapping_violations([0, 0, 0], tig, just_over), "need")


def test_malformed_mappings_are_reported_alone():
    tig = TIG.from_arrays([100.0, 100.0], [(0, 1)], [10.0], labels=["a", "b"])
    grid = LanGrid.from_arrays([[500.0], [500.0]], [50.0, 50.0], [], [])
    assert mapping_violations([0], tig, grid) == ["the mapping has 1 hosts for 2 tasks"]
    assert mapping_violations([0, 5], tig, grid) == ["task 'b' is on host 5, the grid has hosts 0..1"]
    assert mapping_violations(np.array([0.0, 1.0]), tig, grid) == ["host indices must be integers, not float64"]
    failure = qlse(TIG.from_arrays([900.0], [], []), grid)
    assert mapping_violations(failure, tig, grid) == ["QLSE found no mapping: there is nothing to validate"]
    with pytest.raises(ValueError, match="bandwidth == 'wide'"):
        mapping_violations([0, 0], tig, grid, bandwidth="wide")


def test_dedicated_accepts_what_shared_rejects():
    tig = TIG.from_arrays([100.0] * 3, [(0, 1), (1, 2)], [30.0, 30.0])
    grid = LanGrid.from_arrays([[500.0]], [40.0], [], [])
    assert mapping_violations([0, 0, 0], tig, grid, bandwidth="dedicated") == []
    assert mapping_violations([0, 0, 0], tig, grid, bandwidth="shared") == [
        "LAN 0: communications inside it need 60.0 Mb/s, it has 40.0"
    ]
