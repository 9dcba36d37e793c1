"""The seeded TIG and grid generators: Table 1-2 ranges, shapes, determinism, planted feasible instances."""

from __future__ import annotations

import itertools

import networkx as nx
import numpy as np
import pytest

from clustersched.errors import InfeasibleError
from clustersched.grid import (
    GRID_SIZES,
    TIG_SIZES,
    TigRanges,
    feasible_instance,
    grid_ranges,
    random_grid,
    random_instance,
    random_tig,
    tig_ranges,
    validate_mapping,
)
from clustersched.grid.generators import EXTRA_EDGES_PER_TASK


def test_sizes_are_tables_1_and_2():
    assert TIG_SIZES["small"] == {"tasks": (8, 32), "mcr": (100.0, 200.0), "mbr": (10.0, 30.0)}
    assert TIG_SIZES["large"] == {"tasks": (48, 64), "mcr": (400.0, 600.0), "mbr": (30.0, 50.0)}
    assert GRID_SIZES["medium"] == {
        "lans": (12, 24),
        "hosts_per_lan": (8, 24),
        "power": (800.0, 1000.0),
        "bandwidth": (30.0, 50.0),
    }
    assert GRID_SIZES["large"]["hosts_per_lan"] == (16, 48)
    # 3^3 x 3^4 combinations
    combos = set(itertools.product(*[("small", "medium", "large")] * 7))
    assert len({(tig_ranges(*c[:3]), grid_ranges(*c[3:])) for c in combos}) == 2187
    with pytest.raises(ValueError, match="mcr == 'huge'"):
        tig_ranges("small", mcr="huge")


@pytest.mark.parametrize("size", ["small", "medium", "large"])
def test_tigs_are_connected_within_table_1(size):
    r = tig_ranges(size)
    for seed in range(15):
        t = random_tig(size, seed=seed)
        assert r.tasks[0] <= len(t) <= r.tasks[1]
        assert ((t.mcr >= r.mcr[0]) & (t.mcr <= r.mcr[1])).all()
        assert ((t.mbr >= r.mbr[0]) & (t.mbr <= r.mbr[1])).all()
        assert t.is_connected()
        assert t.num_edges == len(t) - 1 + round(EXTRA_EDGES_PER_TASK * len(t))
        assert len(nx.cycle_basis(t.to_networkx())) == t.num_edges - len(t) + 1 > 0


@pytest.mark.parametrize("size", ["small", "medium", "large"])
def test_grids_are_connected_within_table_2(size):
    r = grid_ranges(size)
    for seed in range(10):
        g = random_grid(size, seed=seed)
        counts = np.diff(g.host_offsets)
        assert r.lans[0] <= g.num_lans <= r.lans[1]
        assert ((counts >= r.hosts_per_lan[0]) & (counts <= r.hosts_per_lan[1])).all()
        assert ((g.host_power >= r.power[0]) & (g.host_power <= r.power[1])).all()
        for bw in (g.lan_bandwidth, g.link_bandwidth):
            assert ((bw >= r.bandwidth[0]) & (bw <= r.bandwidth[1])).all()
        assert nx.is_connected(g.to_networkx())
        # some pairs of LANs are not directly linked (§3)
        assert g.num_links < g.num_lans * (g.num_lans - 1) // 2


def test_fixed_counts_and_determinism():
    g = random_grid("small", seed=3, lans=5, hosts_per_lan=7)
    assert g.num_lans == 5 and g.num_hosts == 35
    assert len(random_tig("large", seed=3, tasks=12)) == 12
    a, b = feasible_instance("medium", "small", seed=11), feasible_instance("medium", "small", seed=11)
    assert a.tig.mcr.tolist() == b.tig.mcr.tolist() and a.planted.tolist() == b.planted.tolist()
    assert a.grid.link_bandwidth.tolist() == b.grid.link_bandwidth.tolist()
    c = feasible_instance("medium", "small", seed=12)
    assert c.tig.mcr.tolist() != a.tig.mcr.tolist()
    gen = np.random.default_rng(5)
    assert len(random_tig("small", seed=gen).mcr) > 0  # a Generator works as a seed
    with pytest.raises(ValueError, match="tasks == 0, must be >= 1"):
        random_tig("small", seed=0, tasks=0)


@pytest.mark.parametrize("bandwidth", ["shared", "dedicated"])
def test_planted_mappings_are_valid_on_every_size(bandwidth):
    for seed, (ts, gs) in enumerate(itertools.product(["small", "medium", "large"], repeat=2)):
        inst = feasible_instance(ts, gs, seed=seed, bandwidth=bandwidth)
        validate_mapping(inst.planted, inst.tig, inst.grid, bandwidth=bandwidth)
        assert not inst.planted.flags.writeable


def test_the_two_models_plant_the_same_instance_with_different_bandwidths():
    # just-enough (the default until issue 33): only the raised bandwidths differ
    shared = feasible_instance("large", "small", seed=4, bandwidth="shared", planting="just-enough")
    dedicated = feasible_instance("large", "small", seed=4, bandwidth="dedicated", planting="just-enough")
    assert shared.planted.tolist() == dedicated.planted.tolist()
    assert shared.grid.host_power.tolist() == dedicated.grid.host_power.tolist()
    # dedicated raises a bandwidth only to the largest MBR it carries: within Table 2 or up to Table 1's MBRs
    assert dedicated.grid.lan_bandwidth.max() <= max(40.0, shared.tig.mbr.max())
    assert shared.grid.lan_bandwidth.sum() > dedicated.grid.lan_bandwidth.sum()


def test_an_impossible_instance_is_reported():
    # 62 hosts of 600-800 Mflop/s have the power for 64 tasks of 400-600, but each holds only one
    with pytest.raises(InfeasibleError, match="100 grids of 2 LANs of 31 hosts .* could not host the 64 tasks"):
        feasible_instance("large", "small", seed=0, tasks=64, lans=2, hosts_per_lan=31)


def test_an_instance_no_grid_of_the_ranges_can_hold_fails_before_drawing_a_grid(monkeypatch):
    from clustersched.grid import generators

    monkeypatch.setattr(generators, "_grid_parts", lambda *a: pytest.fail("drew a grid"))
    with pytest.raises(InfeasibleError, match="none of the grids of 2 LANs of 2 hosts .* can host the 64 tasks"):
        feasible_instance("large", "small", seed=0, tasks=64, lans=2, hosts_per_lan=2)
    # one task larger than any host
    with pytest.raises(InfeasibleError, match="none of the grids of 8-16 LANs"):
        feasible_instance(TigRanges((8, 8), (900.0, 900.0), (10.0, 10.0)), "small", seed=0)


def test_random_instances_have_no_planted_mapping():
    inst = random_instance("small", "large", seed=2)
    assert inst.planted is None and inst.tig.is_connected()


@pytest.mark.parametrize("bandwidth", ["shared", "dedicated"])
@pytest.mark.parametrize("planting", ["just-enough", "largest-mbr", "fit-graph"])
def test_every_planting_gives_a_valid_hidden_mapping(planting, bandwidth):
    for seed, (ts, gs) in enumerate(itertools.product(["small", "medium", "large"], repeat=2)):
        inst = feasible_instance(ts, gs, seed=seed, bandwidth=bandwidth, planting=planting, link_probability=0.5)
        validate_mapping(inst.planted, inst.tig, inst.grid, bandwidth=bandwidth)
        r = tig_ranges(ts)
        # MBRs stay in Table 1, but fit-graph's, which may go below it to fit their carrier
        low = 0.0 if planting == "fit-graph" else r.mbr[0]
        assert ((inst.tig.mbr >= low) & (inst.tig.mbr <= r.mbr[1])).all()


def test_the_plantings_share_the_drawn_instance():
    base = feasible_instance("large", "small", seed=4, bandwidth="dedicated", planting="just-enough")
    largest = feasible_instance("large", "small", seed=4, bandwidth="dedicated", planting="largest-mbr")
    fitted = feasible_instance("large", "small", seed=4, bandwidth="dedicated", planting="fit-graph")
    assert base.planted.tolist() == largest.planted.tolist() == fitted.planted.tolist()
    assert base.tig.mcr.tolist() == fitted.tig.mcr.tolist() and base.tig.mbr.tolist() == largest.tig.mbr.tolist()
    # largest-mbr: every LAN holding a planted task carries the TIG's largest MBR
    used = np.unique(largest.grid.host_lan[largest.planted])
    assert (largest.grid.lan_bandwidth[used] >= largest.tig.mbr.max()).all()
    assert (largest.grid.lan_bandwidth >= base.grid.lan_bandwidth).all()
    # fit-graph: the MBRs change, each at most its carrier's drawn bandwidth, and nothing is raised: large MBRs
    # (30-50 Mb/s) on small LANs (20-40) go below Table 1 where their carrier is below 30
    assert fitted.tig.mbr.tolist() != base.tig.mbr.tolist()
    for bw in (fitted.grid.lan_bandwidth, fitted.grid.link_bandwidth):
        assert ((bw >= 20.0) & (bw <= 40.0)).all()
    assert fitted.tig.mbr.min() < 30.0 <= base.tig.mbr.min()
    assert fitted.grid.lan_bandwidth.sum() <= base.grid.lan_bandwidth.sum()


def test_fit_graph_raises_nothing_where_every_mbr_can_fit():
    # dedicated, MBRs of 10-30 Mb/s on a grid of 40-60 Mb/s: every carrier takes any MBR, nothing is raised
    for seed in range(5):
        inst = feasible_instance("small", "large", seed=seed, bandwidth="dedicated", planting="fit-graph")
        for bw in (inst.grid.lan_bandwidth, inst.grid.link_bandwidth):
            assert ((bw >= 40.0) & (bw <= 60.0)).all()
    # shared: a carrier's communications share its drawn bandwidth, so their MBRs sum to at most it (nothing is
    # raised, where just-enough adds the traffic to the drawn value)
    inst = feasible_instance("small", "large", seed=1, bandwidth="shared", planting="fit-graph")
    base = feasible_instance("small", "large", seed=1, bandwidth="shared", planting="just-enough")
    assert inst.grid.lan_bandwidth.sum() < base.grid.lan_bandwidth.sum()
    validate_mapping(inst.planted, inst.tig, inst.grid, bandwidth="shared")


def test_link_probability_and_extra_edges():
    tree = random_grid("medium", seed=2, link_probability=0.0)
    assert tree.num_links == tree.num_lans - 1
    full = random_grid("small", seed=2, link_probability=1.0)
    assert full.num_links == full.num_lans * (full.num_lans - 1) // 2
    assert random_tig("small", seed=2, extra_edges=0.0).num_edges == len(random_tig("small", seed=2)) - 1
    assert random_instance("small", "small", seed=2, extra_edges=0.0, link_probability=0.0).tig.num_edges == (
        len(random_instance("small", "small", seed=2).tig) - 1
    )
    dense = feasible_instance("small", "small", seed=3, link_probability=0.5, extra_edges=1.0)
    assert dense.tig.num_edges == len(dense.tig) - 1 + len(dense.tig)


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"planting": "generous"}, ValueError, "planting == 'generous', must be one of 'just-enough', 'largest-mbr'"),
        ({"link_probability": 1.5}, ValueError, "link_probability == 1.5, must be <= 1.0"),
        ({"link_probability": "half"}, TypeError, "link_probability == 'half', must be a real number"),
        ({"extra_edges": -1}, ValueError, "extra_edges == -1, must be >= 0.0"),
    ],
)
def test_bad_generator_options_are_refused(kwargs, error, match):
    with pytest.raises(error, match=match):
        feasible_instance("small", "small", seed=0, **kwargs)
