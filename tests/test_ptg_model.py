"""The PTG model: construction, indices, CSR arrays, T(v, p), levels, conversions, JSON, errors."""

from __future__ import annotations

import gzip
import json
import math

import networkx as nx
import numpy as np
import pytest

from clustersched.errors import ClusterschedError, InvalidWorkloadError
from clustersched.platform import CLUSTERS, Cluster, cluster
from clustersched.workload.ptg import PTG, read_ptgs, write_ptgs


def diamond() -> nx.DiGraph:
    """a -> {b, c} -> d with distinct works and alphas."""
    g = nx.DiGraph()
    g.add_node("a", work=1e9, alpha=0.1)
    g.add_node("b", work=8e9, alpha=0.2)
    g.add_node("c", work=2e9)  # alpha defaults to 0
    g.add_node("d", work=1e9, alpha=1.0)
    g.add_edges_from([("a", "b"), ("a", "c"), ("b", "d"), ("c", "d")])
    return g


# -- construction and indices ----------------------------------------------------------------
def test_from_networkx_arrays():
    p = PTG.from_networkx(diamond(), name="diamond")
    assert p.labels == ("a", "b", "c", "d") and p.name == "diamond"
    assert (p.entry, p.exit) == (0, 3) and not p.synthetic.any()
    assert p.work.tolist() == [1e9, 8e9, 2e9, 1e9] and p.alpha.tolist() == [0.1, 0.2, 0.0, 1.0]
    assert p.succ_offsets.tolist() == [0, 2, 3, 4, 4] and p.succ.tolist() == [1, 2, 3, 3]
    assert p.pred_offsets.tolist() == [0, 0, 1, 2, 4] and p.pred.tolist() == [0, 0, 1, 2]
    for name in ("work", "alpha"):
        assert getattr(p, name).dtype == np.float64 and getattr(p, name).flags.c_contiguous
    for name in ("succ_offsets", "succ", "pred_offsets", "pred"):
        assert getattr(p, name).dtype == np.int64
    with pytest.raises(ValueError):
        p.work[0] = 3.0  # arrays are read-only
    assert (p.num_edges, p.num_real_tasks, len(p)) == (4, 4, 4)
    assert p.index("c") == 2 and p.successors(0).tolist() == [1, 2] and p.predecessors(3).tolist() == [1, 2]


def test_indices_do_not_depend_on_insertion_order():
    g = diamond()
    h = nx.DiGraph()
    for v in reversed(list(g.nodes)):
        h.add_node(v, **g.nodes[v])
    h.add_edges_from(reversed(list(g.edges)))
    assert PTG.from_networkx(h) == PTG.from_networkx(g)


def test_topological_ties_by_label_string_then_repr():
    g = nx.DiGraph()
    for label in ["b", 10, 2, "1", 1]:
        g.add_node(label, work=1.0)
    p = PTG.from_networkx(g)
    # str order "1" ("'1'" < "1" by repr), 1, 10, 2, "b"; then the synthetic exit.
    assert p.labels[1:-1] == ("1", 1, 10, 2, "b")
    assert p.labels[0] == "__entry__" and p.labels[-1] == "__exit__"


def test_every_edge_goes_forward():
    g = nx.gnp_random_graph(30, 0.2, seed=4, directed=True)
    dag = nx.DiGraph((u, v) for u, v in g.edges if u < v)
    dag.add_nodes_from(range(30))
    nx.set_node_attributes(dag, 1.0, "work")
    p = PTG.from_networkx(dag)
    for v in range(len(p)):
        assert all(s > v for s in p.successors(v))
    assert p.predecessors(0).size == 0 and p.successors(len(p) - 1).size == 0
    assert sum(p.predecessors(v).size == 0 for v in range(len(p))) == 1  # single entry
    assert sum(p.successors(v).size == 0 for v in range(len(p))) == 1  # single exit


def test_synthetic_entry_and_exit():
    g = nx.DiGraph([("x", "z"), ("y", "z"), ("y", "w")])
    nx.set_node_attributes(g, 2.0, "work")
    p = PTG.from_networkx(g)
    assert p.labels == ("__entry__", "x", "y", "w", "z", "__exit__")
    assert p.synthetic.tolist() == [True, False, False, False, False, True]
    assert p.work[[0, 5]].tolist() == [0.0, 0.0] and p.alpha[[0, 5]].tolist() == [0.0, 0.0]
    assert p.successors(0).tolist() == [1, 2]  # to every source
    assert p.predecessors(5).tolist() == [3, 4]  # from every sink
    assert p.num_real_tasks == 4 and "4 tasks (+2 synthetic)" in repr(p)


def test_single_task_and_single_source_graphs_get_nothing_added():
    g = nx.DiGraph()
    g.add_node("only", work=5.0)
    p = PTG.from_networkx(g)
    assert len(p) == 1 and p.entry == p.exit == 0 and p.levels().tolist() == [0]
    assert not PTG.from_networkx(diamond()).synthetic.any()


def test_synthetic_label_collision():
    g = nx.DiGraph([("__entry__", "z"), ("y", "z")])
    nx.set_node_attributes(g, 1.0, "work")
    p = PTG.from_networkx(g)
    assert p.labels[0] == "__entry___" and p.synthetic[0] and not p.synthetic[p.index("__entry__")]


# -- model -------------------------------------------------------------------------------------
def test_exec_time_is_amdahl():
    p = PTG.from_networkx(diamond())
    speed = 2e9
    t = p.exec_time(4, speed)
    expected = [(w / speed) * (a + (1 - a) / 4) for w, a in zip(p.work, p.alpha)]
    assert t.tolist() == expected  # the canonical evaluation order, bit for bit
    assert t[3] == 0.5  # alpha = 1: no speed-up
    assert p.exec_time(np.array([1, 2, 4, 8]), 1e9).tolist() == pytest.approx([1.0, 8 * (0.2 + 0.8 / 2), 0.5, 1.0])
    for bad_p, exc in [(0, ValueError), ([1, 2], ValueError), (1.5, TypeError)]:
        with pytest.raises(exc):
            p.exec_time(bad_p, 1e9)
    with pytest.raises(ValueError, match="speed"):
        p.exec_time(1, 0.0)
    # Strictly decreasing in p for alpha < 1 (§5.1.2).
    times = np.array([p.exec_time(k, 1e9)[1] for k in range(1, 20)])
    assert (np.diff(times) < 0).all()


def test_levels_width_bottom_levels():
    g = diamond()
    g.add_edge("a", "d")  # a shortcut does not change levels (longest path)
    p = PTG.from_networkx(g)
    assert p.levels().tolist() == [0, 1, 1, 2]
    assert p.width() == 2
    assert p.bottom_levels([1.0, 5.0, 2.0, 0.5]).tolist() == [6.5, 5.5, 2.5, 0.5]
    assert p.sequential_time(1e9) == pytest.approx(12.0)
    with pytest.raises(ValueError):
        p.bottom_levels([1.0, 2.0])


# -- conversions and JSON ----------------------------------------------------------------------------
def test_to_networkx_round_trip_keeps_attributes():
    g = nx.DiGraph([("x", "z"), ("y", "z")], name="g", owner="me")
    nx.set_node_attributes(g, {"x": 1.0, "y": 2.0, "z": 3.0}, "work")
    nx.set_node_attributes(g, {"x": 0.5}, "alpha")
    nx.set_node_attributes(g, {"x": "stencil", "y": "sort", "z": "matmul"}, "kind")
    p = PTG.from_networkx(g)
    h = p.to_networkx()
    assert sorted(h.nodes) == ["x", "y", "z"] and sorted(h.edges) == [("x", "z"), ("y", "z")]
    assert h.nodes["x"] == {"work": 1.0, "alpha": 0.5, "kind": "stencil"}
    assert h.nodes["y"]["alpha"] == 0.0 and h.graph == {"name": "g", "owner": "me"}
    assert PTG.from_networkx(h) == p
    full = p.to_networkx(include_synthetic=True)
    assert full.nodes["__entry__"] == {"work": 0.0, "alpha": 0.0, "synthetic": True}
    assert PTG.from_networkx(full) == p


def test_json_round_trip_and_networkx_compatibility():
    g = diamond()
    g.add_node("e", work=3.0, alpha=0.25, note=[1, 2])
    g.add_edge("a", "e")
    p = PTG.from_networkx(g, name="with-e")
    text = p.to_json()
    assert PTG.from_json(text) == p
    data = json.loads(text)
    real = [label for label, syn in zip(p.labels, p.synthetic) if not syn]
    assert p.synthetic.any() and [n["id"] for n in data["nodes"]] == real  # index order, no synthetic task
    # Readable by networkx itself.
    h = nx.node_link_graph(data, edges="edges")
    assert sorted(h.edges) == sorted(g.edges) and h.nodes["e"]["work"] == 3.0
    # networkx's older "links" key is read too.
    data["links"] = data.pop("edges")
    assert PTG.from_dict(data) == p


def test_tuple_labels_survive_json():
    g = nx.DiGraph([((0, 1), (1, 1))])
    nx.set_node_attributes(g, 1.0, "work")
    p = PTG.from_networkx(g)
    assert PTG.from_json(p.to_json()) == p


def test_floats_survive_json_exactly():
    g = nx.DiGraph()
    g.add_node(0, work=math.pi * 1e11, alpha=1 / 3)
    p = PTG.from_networkx(g)
    q = PTG.from_json(p.to_json())
    assert q.work[0] == p.work[0] and q.alpha[0] == p.alpha[0]


@pytest.mark.parametrize("suffix", [".json", ".json.gz"])
def test_write_read_ptgs(tmp_path, suffix):
    from clustersched.workload.ptg_generators import ptg_population

    ptgs = ptg_population("random", 5, seed=1) + [PTG.from_networkx(diamond(), name="d")]
    path = tmp_path / f"ptgs{suffix}"
    write_ptgs(ptgs, path)
    assert read_ptgs(path) == ptgs
    opener = gzip.open if suffix.endswith(".gz") else open
    with opener(path, "rt") as fh:
        payload = json.load(fh)
    assert payload["format"] == "clustersched.ptgs" and payload["version"] == 1 and len(payload["ptgs"]) == 6


def test_read_ptgs_errors_name_the_file_and_ptg(tmp_path):
    path = tmp_path / "bad.json"
    path.write_text(json.dumps({"format": "something-else"}))
    with pytest.raises(InvalidWorkloadError, match="bad.json.*not a clustersched.ptgs"):
        read_ptgs(path)
    good = PTG.from_networkx(diamond()).to_dict()
    broken = json.loads(json.dumps(good))
    broken["nodes"][1]["work"] = -5.0
    path.write_text(json.dumps({"format": "clustersched.ptgs", "version": 1, "ptgs": [good, broken]}))
    with pytest.raises(InvalidWorkloadError, match=r"bad.json: PTG #1: task 'b': work == -5.0"):
        read_ptgs(path)
    path.write_text("{not json")
    with pytest.raises(InvalidWorkloadError, match="not JSON"):
        read_ptgs(path)


# -- bad graphs ---------------------------------------------------------------------------------------
def _with(attr_changes=None, edges=()):
    g = diamond()
    for label, attrs in (attr_changes or {}).items():
        for k, v in attrs.items():
            if v is None:
                del g.nodes[label][k]
            else:
                g.nodes[label][k] = v
    g.add_edges_from(edges)
    return g


@pytest.mark.parametrize(
    "graph, message",
    [
        (_with({"b": {"work": None}}), "task 'b' has no 'work' attribute"),
        (_with({"b": {"work": 0.0}}), "task 'b': work == 0.0, must be finite and > 0"),
        (_with({"c": {"work": -3.0}}), "task 'c': work == -3.0"),
        (_with({"c": {"work": float("nan")}}), "task 'c': work == nan"),
        (_with({"c": {"work": float("inf")}}), "task 'c': work == inf"),
        (_with({"a": {"work": "1e9"}}), "task 'a': work == '1e9', must be a real number"),
        (_with({"a": {"work": True}}), "task 'a': work == True, must be a real number"),
        (_with({"d": {"alpha": -0.1}}), r"task 'd': alpha == -0.1, must be between 0 and 1"),
        (_with({"d": {"alpha": 1.5}}), "task 'd': alpha == 1.5"),
        (_with({"d": {"alpha": float("nan")}}), "task 'd': alpha == nan"),
        (_with({"b": {"synthetic": True}}), "task 'b': work == 8000000000.0 on a synthetic task"),
        (_with({"b": {"synthetic": "yes"}}), "task 'b': synthetic == 'yes'"),
        (_with(edges=[("c", "c")]), "task 'c' has a self-loop"),
        (_with(edges=[("d", "a")]), "cycle through task 'a'"),
        (nx.DiGraph(), "graph has no tasks"),
    ],
)
def test_bad_graphs_raise_typed_errors_naming_the_task(graph, message):
    with pytest.raises(InvalidWorkloadError, match=message) as info:
        PTG.from_networkx(graph, name="bad")
    assert isinstance(info.value, ClusterschedError) and isinstance(info.value, ValueError)
    assert str(info.value).startswith("PTG 'bad': ")


def test_cycle_message_lists_the_cycle():
    g = _with(edges=[("d", "b")])
    with pytest.raises(InvalidWorkloadError, match=r"cycle through task 'b': 'b' -> 'd' -> 'b'"):
        PTG.from_networkx(g)


def test_error_fields():
    with pytest.raises(InvalidWorkloadError) as info:
        PTG.from_networkx(_with({"d": {"alpha": 2.0}}))
    assert info.value.value == 2.0 and info.value.path is None


@pytest.mark.parametrize("graph", [nx.Graph([(1, 2)]), nx.MultiDiGraph([(1, 2)]), [(1, 2)]])
def test_non_digraph_is_a_type_error(graph):
    with pytest.raises(TypeError, match="networkx.DiGraph"):
        PTG.from_networkx(graph)


def test_input_graph_is_not_modified():
    g = nx.DiGraph([("x", "z"), ("y", "z")])
    nx.set_node_attributes(g, 1.0, "work")
    before = (sorted(g.nodes), sorted(g.edges), dict(g.nodes(data=True)))
    PTG.from_networkx(g)
    assert (sorted(g.nodes), sorted(g.edges), dict(g.nodes(data=True))) == before


# -- platform ------------------------------------------------------------------------------------------
def test_cluster_presets_follow_table_1():
    table = {"grelon": (120, 3.185), "grillon": (47, 3.379), "chti": (20, 4.311), "gdx": (216, 3.388)}
    assert set(CLUSTERS) == set(table)
    for name, (procs, gflops) in table.items():
        c = cluster(name)
        assert (c.name, c.procs) == (name, procs) and c.speed == pytest.approx(gflops * 1e9, rel=1e-15)
    assert cluster("GDX") is CLUSTERS["gdx"]
    with pytest.raises(ValueError, match="unknown cluster 'x'; known: chti, gdx, grelon, grillon"):
        cluster("x")


@pytest.mark.parametrize(
    "args, exc, match",
    [
        (("c", 0, 1.0), ValueError, "procs == 0"),
        (("c", 2.0, 1.0), TypeError, "procs == 2.0"),
        (("c", True, 1.0), TypeError, "procs == True"),
        (("c", 2, 0.0), ValueError, "speed == 0.0"),
        (("c", 2, float("inf")), ValueError, "speed == inf"),
        (("c", 2, "fast"), TypeError, "speed == 'fast'"),
    ],
)
def test_cluster_validation(args, exc, match):
    with pytest.raises(exc, match=match):
        Cluster(*args)


def test_cluster_is_frozen_and_normalised():
    c = Cluster("c", np.int64(4), np.float32(2.0))
    assert type(c.procs) is int and type(c.speed) is float and c.peak_flops == 8.0
    with pytest.raises(AttributeError):
        c.procs = 5  # type: ignore[misc]


def test_width_from_the_core_agrees_with_levels():
    # PTG.width() and PTG.levels() are two core functions: the width is the largest level.
    from clustersched.workload.ptg_generators import ptg_population

    ptgs = ptg_population("random", 30, seed=5) + ptg_population("fft", 6, seed=5)
    g = nx.DiGraph()
    g.add_node("only", work=1.0)
    for p in ptgs + [PTG.from_networkx(g)]:
        assert p.width() == int(np.bincount(p.levels()).max())
