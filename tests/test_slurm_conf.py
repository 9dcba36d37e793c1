"""Slurm host lists, slurm.conf and the node platform (issue 34, items 1 and 7)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from clustersched.errors import InvalidPlatformError
from clustersched.platform import Node, NodeCluster, Partition
from clustersched.slurm import compress_hostlist, expand_hostlist, parse_gres, parse_slurm_time, read_slurm_conf

from support import slurm_path

# -- host lists -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "names"),
    [
        ("n[1-4],g[001-002],b1", ["n1", "n2", "n3", "n4", "g001", "g002", "b1"]),
        ("n[1,3-5]", ["n1", "n3", "n4", "n5"]),
        ("r[1-2]n[1-2]", ["r1n1", "r1n2", "r2n1", "r2n2"]),
        ("n[8-10]", ["n8", "n9", "n10"]),
        ("n[1-2]-ib", ["n1-ib", "n2-ib"]),
        ("login", ["login"]),
    ],
)
def test_expand_hostlist(text, names):
    assert expand_hostlist(text) == names


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("n[3-1]", "ends before it starts"),
        ("n[1-2", "unclosed"),
        ("n1-2]", "without its"),
        ("n[a-b]", "is not a number"),
        ("n[]", "is not a number"),
        ("n[[1]]", "inside a bracket"),
        ("n1,,n2", "empty item"),
        ("n[1-100000000]", "more than"),
    ],
)
def test_expand_hostlist_rejects(text, words):
    with pytest.raises(InvalidPlatformError, match=words) as info:
        expand_hostlist(text)
    assert repr(text) in str(info.value)
    assert isinstance(info.value, ValueError)


@pytest.mark.parametrize(
    ("names", "text"),
    [
        (["n1", "n2", "g1"], "n[1-2],g1"),
        (["n2", "g1", "n1"], "n[1-2],g1"),
        (["g001", "g002", "g010"], "g[001-002,010]"),
        (["n1", "n3", "n4", "n10"], "n[1,3-4,10]"),
        (["b"], "b"),
        ([], ""),
    ],
)
def test_compress_hostlist(names, text):
    assert compress_hostlist(names) == text


_names = st.lists(
    st.builds(
        lambda prefix, number, width: prefix + (str(number).zfill(width) if number is not None else ""),
        st.sampled_from(["n", "g", "gpu-", "r1n", "login"]),
        st.one_of(st.none(), st.integers(0, 300)),
        st.integers(0, 4),
    ),
    max_size=40,
)


@given(_names)
def test_hostlist_round_trip(names):
    text = compress_hostlist(names)
    back = expand_hostlist(text) if text else []
    assert sorted(back) == sorted(set(names)) and len(back) == len(set(names))
    assert compress_hostlist(back) == text  # the compressed form is a fixed point


# -- times and GRES -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "seconds"),
    [
        ("30", 1800.0),
        ("1:30", 90.0),
        ("01:00:00", 3600.0),
        ("2-0", 172800.0),
        ("2-1:30", 178200.0),
        ("3-00:00:00", 259200.0),
        ("INFINITE", math.inf),
        ("unlimited", math.inf),
    ],
)
def test_parse_slurm_time(text, seconds):
    assert parse_slurm_time(text) == seconds


@pytest.mark.parametrize("text", ["", "1h", "1:2:3:4", "-5", "1-2-3", "a:b"])
def test_parse_slurm_time_rejects(text):
    with pytest.raises(ValueError, match="is not a Slurm time"):
        parse_slurm_time(text)


def test_parse_gres():
    assert parse_gres("gpu:2") == {"gpu": 2}
    assert parse_gres("gpu:tesla_v100-pcie-32gb:2,mps:1K") == {"gpu": 2, "gpu:tesla_v100-pcie-32gb": 2, "mps": 1024}
    assert parse_gres("gpu:k80:2(S:0-1),gpu:p100:1") == {"gpu": 3, "gpu:k80": 2, "gpu:p100": 1}
    assert parse_gres("gpu") == {"gpu": 1}
    with pytest.raises(ValueError):
        parse_gres("gpu:a:b:c")


# -- the platform ---------------------------------------------------------------------------------


def test_node_cluster_arrays():
    c = NodeCluster(
        [
            Node("n1", 12, 48000, features={"IB", "CPU-N"}),
            Node("g1", 12, 48000, gres={"gpu:v100": 2}, features={"IB"}, weight=5),
            Node("b1", 12, 512000),
        ],
        [Partition("normal", ("n1", "g1", "b1"), default=True), Partition("debug", ("n1",), max_time=3600)],
    )
    assert c.total_cores == 36 and c.gres_names == ("gpu", "gpu:v100") and c.feature_names == ("CPU-N", "IB")
    assert c.default_partition.name == "normal" and c.partition("debug").max_time == 3600.0
    assert c.node_index("b1") == 2
    a = c.to_arrays()
    assert a.cores.dtype == np.uint32 and a.memory_mb.dtype == np.uint64 and a.weight.tolist() == [1, 5, 1]
    assert a.gres.tolist() == [[0, 0], [2, 2], [0, 0]]
    assert a.features.tolist() == [3, 2, 0]
    assert a.partitions.tolist() == [[True, True, True], [True, False, False]]
    assert all(x.flags.c_contiguous for x in (a.cores, a.memory_mb, a.weight, a.gres, a.features, a.partitions))
    with pytest.raises(InvalidPlatformError, match="no partition 'x'"):
        c.partition("x")
    with pytest.raises(InvalidPlatformError, match="no node 'x'"):
        c.node_index("x")


@pytest.mark.parametrize(
    ("make", "words"),
    [
        (lambda: NodeCluster([Node("n1", 1, 1), Node("n1", 2, 2)]), "node name given twice"),
        (lambda: NodeCluster([Node("n1", 1, 1)], [Partition("p", ("n2",))]), "not a node of the cluster"),
        (
            lambda: NodeCluster([Node("n1", 1, 1)], [Partition("a", ("n1",), True), Partition("b", ("n1",), True)]),
            "both the default",
        ),
        (lambda: NodeCluster([]), "at least one node"),
        (lambda: NodeCluster([Node("n1", 1, 1, features={f"f{i}" for i in range(65)})]), "more than 64"),
        (lambda: Node("n1", 1, 0), "memory_mb == 0"),
        (lambda: Node("n[1]", 1, 1), "must be non-empty"),
        (lambda: Node("g1", 1, 1, gres={"gpu": 1, "gpu:a": 2}), "fewer than its typed counts"),
        (lambda: Partition("p", ("n1", "n1")), "listed twice"),
        (lambda: Partition("p", ("n1",), state="UPP"), "must be one of"),
        (lambda: Partition("p", ("n1",), max_time=0), "must be > 0"),
    ],
)
def test_platform_errors(make, words):
    with pytest.raises(InvalidPlatformError, match=words):
        make()


def test_uniform_is_hpc2n_of_paper_001():
    c = NodeCluster.uniform(120, 2, 2048)
    assert c.total_cores == 240 and len(c.nodes) == 120 and c.partitions[0].nodes == c.node_names


# -- slurm.conf -----------------------------------------------------------------------------------


def _conf(tmp_path, text):
    path = tmp_path / "slurm.conf"
    path.write_text(text)
    return path


def test_defaults_merge_and_cpus_rule(tmp_path):
    conf = read_slurm_conf(
        _conf(
            tmp_path,
            "nodename=DEFAULT RealMemory=1000 Sockets=2 CoresPerSocket=4 Weight=7\n"
            "NodeName=a[1-2]\n"
            "NodeName=DEFAULT CPUs=16 ThreadsPerCore=2  # CPUs = the whole product\n"
            "NodeName=b1 Gres=gpu:k80:2 Features=x,y\n"
            "NodeName=c1 CPUs=5\n"  # 5 is none of 2, 8, 16: reset to 16, as slurmctld does
            "NodeName=d1 Procs=12 Sockets=1 CoresPerSocket=1 ThreadsPerCore=1 \\\n"
            "   RealMemory=64\n"
            "PartitionName=DEFAULT MaxTime=1-0 State=UP\n"
            "PartitionName=p1 Nodes=ALL Default=yes Priority=10 OverSubscribe=FORCE:4\n"
            "PartitionName=p2 Nodes=a[1-2] MaxTime=UNLIMITED DefaultTime=30 ExclusiveUser=YES Bogus=1\n"
            "FooBar=baz\n"
            "SchedulerParameters = bf_continue,bf_window=60\n",
        )
    )
    nodes = {n.name: n for n in conf.platform.nodes}
    assert [nodes[x].cores for x in ("a1", "a2", "b1", "c1", "d1")] == [8, 8, 16, 16, 1]
    assert nodes["a1"].weight == 7 and nodes["b1"].memory_mb == 1000 and nodes["d1"].memory_mb == 64
    assert dict(nodes["b1"].gres) == {"gpu": 2, "gpu:k80": 2} and nodes["b1"].features == {"x", "y"}
    assert any("resetting CPUs" in note and "line 5" in note for note in conf.notes)
    assert any("resetting CPUs" in note and "line 6" in note for note in conf.notes)  # Procs=12 vs 1x1x1
    p1, p2 = conf.platform.partitions
    assert p1.nodes == conf.platform.node_names and p1.default and p1.max_time == 86400.0
    assert p1.priority_tier == 10 and p1.priority_job_factor == 10
    assert p2.max_time == math.inf and p2.default_time == 1800.0 and p2.nodes == ("a1", "a2")
    assert conf.partition_options["p1"]["OverSubscribe"] == "FORCE:4"
    assert conf.partition_options["p2"]["ExclusiveUser"] == "YES"
    assert conf.unknown == ("PartitionName:Bogus", "FooBar") and conf.parameters["FooBar"] == "baz"
    assert conf.scheduler_parameters == {"bf_continue": True, "bf_window": "60"}


@pytest.mark.parametrize(
    ("text", "line", "words"),
    [
        ("Include /etc/slurm/nodes.conf\nNodeName=n1\n", 1, "Include is not supported"),
        ("NodeName=n1\nNodeName=n[0-1]\n", 2, "node defined twice"),
        ("NodeName=n1 RealMemory=4G\n", 1, "is not a whole number"),
        ("NodeName=n1 Gres=gpu:a:b:c\n", 1, "GRES"),
        ("NodeName=n[2-1]\n", 1, "ends before it starts"),
        ("NodeName=n1\nPartitionName=p Nodes=n2\n", 2, "not defined by any NodeName"),
        ("NodeName=n1\nPartitionName=p Nodes=n1 MaxTime=1h\n", 2, "is not a Slurm time"),
        ("NodeName=n1\nPartitionName=p Nodes=n1 Default=YES\nPartitionName=q Nodes=n1 Default=YES\n", 3, "both"),
        ("NodeName=n1\nPartitionName=p Nodes=n1 Default=maybe\n", 2, "must be YES or NO"),
        ("NodeName=n1\nthis is not a pair\n", 2, "is not a Key=Value pair"),
        ("ClusterName=x\n", None, "no NodeName line"),
    ],
)
def test_conf_errors_name_the_line(tmp_path, text, line, words):
    path = _conf(tmp_path, text)
    with pytest.raises(InvalidPlatformError, match=words) as info:
        read_slurm_conf(path)
    assert info.value.path == str(path) and info.value.line == line
    assert str(path) in str(info.value)


def test_micro_cluster():
    conf = read_slurm_conf(slurm_path("micro/slurm.conf"))
    p = conf.platform
    assert p.node_names == ("n1", "n2", "n3", "n4", "m1", "m2", "m3", "m4", "g1", "b1")
    assert {n.cores for n in p.nodes} == {12} and p.total_cores == 120
    mem = {n.name: n.memory_mb for n in p.nodes}
    assert mem["b1"] == 512000 and mem["n1"] == mem["g1"] == 48000
    assert [n.name for n in p.nodes if n.gres] == ["g1"] and dict(p.nodes[8].gres) == {"gpu": 2}
    assert "BigMem" in p.nodes[9].features and {"IB", "CPU-N"} == p.nodes[0].features
    normal, debug = p.partitions
    assert normal.default and len(normal.nodes) == 10 and normal.def_mem_per_cpu == 2800
    assert debug.nodes == ("n1", "n2") and not debug.default and debug.max_time == math.inf
    # SchedulerParameters==... (a doubled '='), read as Slurm reads it
    assert conf.scheduler_parameters["bf_window"] == "4320" and conf.scheduler_parameters["bf_continue"] is True
    assert any("SchedulerParameters==" in note for note in conf.notes)
    assert conf.parameters["SelectTypeParameters"] == "CR_Core_Memory,CR_CORE_DEFAULT_DIST_BLOCK"
    assert conf.parameters["PriorityWeightPartition"] == "1000000" and conf.unknown == ()


def test_medium_cluster():
    conf = read_slurm_conf(slurm_path("medium/slurm.conf"))
    p = conf.platform
    assert len(p.nodes) == 217  # "COMPUTE NODES (totally 217 nodes)"
    by = {n.name: n for n in p.nodes}
    assert by["n001"].cores == 32 and by["n001"].weight == 60  # the first DEFAULT line
    assert by["g001"].cores == 40 and by["m096"].weight == 70 and by["b024"].memory_mb == 754000
    assert dict(by["gn001"].gres) == {"gpu": 2, "gpu:tesla_p100-pcie-16gb": 2} and by["gn001"].weight == 190
    assert by["g008"].gres["gpu:tesla_v100-pcie-32gb"] == 2
    gc, debug = p.partitions
    assert gc.default and len(gc.nodes) == 215 and gc.max_time == 3 * 86400 and gc.default_time == 86400
    assert debug.nodes == ("gn001", "gn002") and debug.max_time == 3600 and debug.priority_tier == 700
    assert conf.partition_options["debug"]["AllowQos"] == "debug,supporters"
