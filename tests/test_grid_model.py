"""The TIG and grid-of-LANs models: networkx round trips, and a typed error for every bad graph."""

from __future__ import annotations

import networkx as nx
import numpy as np
import pytest
from hypothesis import given, settings

from clustersched import _core
from clustersched.errors import InfeasibleError, InvalidGraphError, InvalidWorkloadError
from clustersched.grid import TIG, LanGrid, NoFeasibleMapping, qlse, task_order

from reference.grid_instances import grids, tigs


def app():
    g = nx.Graph(name="app")
    g.add_node("a", mcr=150.0)
    g.add_node("b", mcr=120.0)
    g.add_node("c", mcr=180.0)
    g.add_edge("a", "b", mbr=20.0)
    g.add_edge("b", "c", mbr=15.0)
    return g


def net():
    g = nx.Graph()
    g.add_node("pisa", bandwidth=100.0, hosts=[700.0, 650.0])
    g.add_node("dortmund", bandwidth=80.0, hosts=[900.0])
    g.add_node("paris", bandwidth=60.0, hosts=[800.0, 800.0, 750.0])
    g.add_edge("pisa", "dortmund", bandwidth=30.0)
    g.add_edge("paris", "pisa", bandwidth=25.0)
    return g


def test_tig_from_networkx_keeps_labels_and_order():
    tig = TIG.from_networkx(app())
    assert tig.name == "app" and tig.labels == ("a", "b", "c") and len(tig) == 3
    assert tig.mcr.tolist() == [150.0, 120.0, 180.0]
    assert (tig.edge_u.tolist(), tig.edge_v.tolist(), tig.mbr.tolist()) == ([0, 1], [1, 2], [20.0, 15.0])
    assert tig.neighbors(1).tolist() == [0, 2] and tig.index("c") == 2
    assert not tig.mcr.flags.writeable and tig.is_connected()


def test_tig_round_trips_through_networkx():
    g = app()
    back = TIG.from_networkx(g).to_networkx()
    assert nx.utils.graphs_equal(g, back)
    assert back.graph["name"] == "app"


@settings(max_examples=40, deadline=None)
@given(tigs(connected=False), grids())
def test_any_model_round_trips(tig, grid):
    again = TIG.from_networkx(tig.to_networkx())
    assert again.labels == tig.labels and again.mcr.tolist() == tig.mcr.tolist()
    assert (again.edge_u.tolist(), again.edge_v.tolist(), again.mbr.tolist()) == (
        tig.edge_u.tolist(),
        tig.edge_v.tolist(),
        tig.mbr.tolist(),
    )
    g2 = LanGrid.from_networkx(grid.to_networkx())
    for name in ("host_offsets", "host_power", "lan_bandwidth", "link_a", "link_b", "link_bandwidth", "lan_power"):
        assert getattr(g2, name).tolist() == getattr(grid, name).tolist(), name


def test_grid_from_networkx():
    grid = LanGrid.from_networkx(net())
    assert grid.labels == ("pisa", "dortmund", "paris")
    assert grid.host_offsets.tolist() == [0, 2, 3, 6] and grid.host_lan.tolist() == [0, 0, 1, 2, 2, 2]
    assert grid.lan_power.tolist() == [1350.0, 900.0, 2350.0]
    # links stored once, a < b, sorted: (pisa, dortmund) then (pisa, paris)
    assert (grid.link_a.tolist(), grid.link_b.tolist(), grid.link_bandwidth.tolist()) == ([0, 0], [1, 2], [30.0, 25.0])
    assert grid.link(2, 0) == 1 and grid.link(1, 2) is None
    assert grid.host_name(4) == ("paris", 1)
    assert nx.utils.graphs_equal(grid.to_networkx(), net())


def _set_node(g, node, key, value):
    g.nodes[node][key] = value
    return g


@pytest.mark.parametrize(
    ("change", "match", "node", "edge", "value"),
    [
        (
            lambda g: _set_node(g, "b", "mcr", -5.0),
            r"task 'b': MCR == -5.0, must be a finite real > 0",
            "b",
            None,
            -5.0,
        ),
        (lambda g: _set_node(g, "b", "mcr", 0), r"task 'b': MCR == 0", "b", None, 0),
        (lambda g: _set_node(g, "c", "mcr", float("nan")), r"task 'c': MCR == nan", "c", None, None),
        (lambda g: _set_node(g, "a", "mcr", "fast"), r"task 'a': MCR == 'fast'", "a", None, "fast"),
        (lambda g: _set_node(g, "a", "mcr", True), r"task 'a': MCR == True", "a", None, True),
        (lambda g: (g.nodes["a"].pop("mcr"), g)[1], r"task 'a': has no MCR \(node attribute 'mcr'\)", "a", None, None),
        (
            lambda g: (g.add_edge("a", "c", mbr=-1.0), g)[1],
            r"edge \('a', 'c'\): MBR == -1.0, must be a finite real >= 0",
            None,
            ("a", "c"),
            -1.0,
        ),
        (lambda g: (g.add_edge("a", "c"), g)[1], r"edge \('a', 'c'\): has no MBR", None, ("a", "c"), None),
        (lambda g: (g.add_edge("b", "b", mbr=5.0), g)[1], r"task 'b' communicates with itself", "b", ("b", "b"), 5.0),
    ],
)
def test_bad_tigs_raise_typed_errors_naming_node_or_edge(change, match, node, edge, value):
    with pytest.raises(InvalidGraphError, match=match) as info:
        TIG.from_networkx(change(app()))
    err = info.value
    assert isinstance(err, InvalidWorkloadError)
    assert err.node == node and err.edge == edge
    if value is not None:
        assert err.value == value


def test_empty_and_wrongly_typed_tigs():
    with pytest.raises(InvalidGraphError, match="no task"):
        TIG.from_networkx(nx.Graph())
    with pytest.raises(TypeError, match="undirected networkx.Graph"):
        TIG.from_networkx(nx.DiGraph([("a", "b")]))
    with pytest.raises(TypeError, match="undirected networkx.Graph"):
        TIG.from_networkx(nx.MultiGraph())
    with pytest.raises(InvalidGraphError, match=r"edge \(1, 0\) is given twice"):
        TIG.from_arrays([1.0, 1.0], [(0, 1), (1, 0)], [1.0, 2.0])
    with pytest.raises(ValueError, match=r"edges\[0\] == \(0, 3\): the TIG has tasks 0..1"):
        TIG.from_arrays([1.0, 1.0], [(0, 3)], [1.0])
    with pytest.raises(ValueError, match="mbr has 0 values for 1 edges"):
        TIG.from_arrays([1.0, 1.0], [(0, 1)], [])


@pytest.mark.parametrize(
    ("change", "match", "node", "edge"),
    [
        (lambda g: _set_node(g, "pisa", "hosts", []), r"LAN 'pisa': has no host", "pisa", None),
        (lambda g: _set_node(g, "pisa", "hosts", [700.0, -1.0]), r"LAN 'pisa' host 1: power == -1.0", "pisa", None),
        (
            lambda g: _set_node(g, "paris", "hosts", 800.0),
            r"LAN 'paris': hosts == 800.0, must be a sequence",
            "paris",
            None,
        ),
        (lambda g: (g.nodes["dortmund"].pop("hosts"), g)[1], r"LAN 'dortmund': has no hosts", "dortmund", None),
        (
            lambda g: _set_node(g, "paris", "bandwidth", -3),
            r"LAN 'paris': bandwidth == -3, must be a finite real >= 0",
            "paris",
            None,
        ),
        (lambda g: (g.nodes["paris"].pop("bandwidth"), g)[1], r"LAN 'paris': has no bandwidth", "paris", None),
        (
            lambda g: (g.add_edge("paris", "dortmund", bandwidth=float("inf")), g)[1],
            r"link \('dortmund', 'paris'\): bandwidth == inf",
            None,
            ("dortmund", "paris"),
        ),
        (
            lambda g: (g.add_edge("paris", "paris", bandwidth=1.0), g)[1],
            r"LAN 'paris' is linked to itself",
            "paris",
            ("paris", "paris"),
        ),
    ],
)
def test_bad_grids_raise_typed_errors_naming_lan_or_link(change, match, node, edge):
    with pytest.raises(InvalidGraphError, match=match) as info:
        LanGrid.from_networkx(change(net()))
    assert info.value.node == node and info.value.edge == edge


def test_the_core_refuses_bad_arrays_without_panicking():
    one = np.array([1.0])
    with pytest.raises(
        InvalidGraphError, match=r"^task at row 0: mcr == -1.0, must be finite, > 0 and <= 1e\+300 \(Mflop/s\)$"
    ):
        _core.Tig(np.array([-1.0]), np.array([], dtype=np.int64), np.array([], dtype=np.int64), np.array([]))
    with pytest.raises(ValueError, match=r"edge 0 \(0, 7\)"):
        _core.Tig(one, np.array([0]), np.array([7]), one)
    with pytest.raises(ValueError, match=r"u\[0\] == -1, must be >= 0"):
        _core.Tig(one, np.array([-1]), np.array([0]), one)
    with pytest.raises(ValueError, match="LAN at row 0: has no host"):
        _core.LanGrid(
            np.array([0, 0]),
            np.array([]),
            one,
            np.array([], dtype=np.int64),
            np.array([], dtype=np.int64),
            np.array([]),
        )
    with pytest.raises(ValueError, match=r"link 0 \(0, 0\)"):
        _core.LanGrid(np.array([0, 1]), one, one, np.array([0]), np.array([0]), one)


def test_qlse_refuses_a_disconnected_tig_naming_the_task():
    tig = TIG.from_arrays([100.0, 100.0, 100.0], [(0, 1)], [10.0], labels=["x", "y", "z"])
    grid = LanGrid.from_arrays([[1000.0]], [100.0], [], [])
    assert tig.unreachable() == 2 and not tig.is_connected()
    with pytest.raises(InvalidGraphError, match=r"not connected: task 'z' cannot be reached from task 'x'") as info:
        qlse(tig, grid)
    assert info.value.node == "z"
    with pytest.raises(InvalidGraphError, match="not connected"):
        task_order(tig)


def test_a_failure_is_typed_and_unwrapping_it_raises():
    tig = TIG.from_arrays([500.0, 500.0], [(0, 1)], [10.0])
    grid = LanGrid.from_arrays([[600.0]], [100.0], [], [])
    result = qlse(tig, grid)
    assert isinstance(result, NoFeasibleMapping) and not result.found and result.attempts == 1
    with pytest.raises(InfeasibleError, match="QLSE: no cluster"):
        result.unwrap()


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"alpha_t": -1.0}, "alpha_t == -1.0, must be >= 0"),
        ({"beta_l": 1.5}, "beta_l == 1.5, must be <= 1"),
        ({"bandwidth": "fast"}, "bandwidth == 'fast', must be one of 'shared', 'dedicated'"),
    ],
)
def test_bad_qlse_arguments(kwargs, match):
    tig = TIG.from_arrays([100.0], [], [])
    grid = LanGrid.from_arrays([[1000.0]], [100.0], [], [])
    with pytest.raises(ValueError, match=match):
        qlse(tig, grid, **kwargs)
