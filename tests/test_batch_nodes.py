"""Batch scheduling on a cluster of nodes: the Rust placement and policies against the slow reference,
the processor pool as one node, the validator's per-node rules, and the errors of requests that cannot run."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import clustersched as cs
from clustersched.batch import Policy, simulate
from clustersched.batch.nodes import WHOLE_NODE, gres_capacity
from clustersched.batch.validate import batch_violations, validate_batch
from clustersched.errors import InfeasibleError, InvalidWorkloadError
from clustersched.platform import Node, NodeCluster, Partition
from clustersched.workload import JobTable
from clustersched.workload.requests import Requests

from reference.nodes import simulate as reference_simulate

FEATURES = ("ib", "fast")


@st.composite
def clusters(draw):
    """2-5 nodes, some with GPUs (one typed kind), features, weights; a default partition of all nodes and
    a second one of a prefix."""
    count = draw(st.integers(2, 5))
    nodes = []
    for i in range(count):
        gpus = draw(st.sampled_from([0, 0, 1, 2]))
        typed = draw(st.booleans()) and gpus > 0
        gres = {"gpu": gpus, "gpu:v100": gpus} if typed else ({"gpu": gpus} if gpus else {})
        nodes.append(
            Node(
                f"n{i + 1}",
                cores=draw(st.integers(1, 8)),
                memory_mb=draw(st.sampled_from([1000, 4000, 16000])),
                gres=gres,
                features=frozenset(draw(st.sets(st.sampled_from(FEATURES)))),
                weight=draw(st.sampled_from([1, 1, 2])),
            )
        )
    names = tuple(n.name for n in nodes)
    parts = (Partition("all", names, default=True), Partition("few", names[: draw(st.integers(1, count))]))
    return NodeCluster(nodes, parts)


@st.composite
def node_workloads(draw):
    cluster = draw(clusters())
    n = draw(st.integers(1, 25))
    submit = sorted(draw(st.lists(st.integers(0, 15), min_size=n, max_size=n)))
    runtime = draw(st.lists(st.integers(0, 12), min_size=n, max_size=n))
    slack = draw(st.lists(st.integers(0, 10), min_size=n, max_size=n))
    cols: dict[str, list] = {k: [] for k in ("tasks", "nodes", "cpus_per_task", "mem_per_cpu_mb", "mem_per_node_mb")}
    cols.update({k: [] for k in ("gpus_per_node", "partition", "features", "exclusive")})
    for _ in range(n):
        # a request some idle node set can hold: built from one node of the partition
        part = draw(st.sampled_from(cluster.partitions))
        members = [cluster.nodes[cluster.node_index(x)] for x in part.nodes]
        host = draw(st.sampled_from(members))
        gpus = host.gres.get("gpu", 0)
        cpt = draw(st.integers(1, host.cores))
        tasks = draw(st.integers(1, host.cores // cpt))
        cols["tasks"].append(tasks)
        cols["nodes"].append(draw(st.sampled_from([0, 1])))
        cols["cpus_per_task"].append(cpt)
        memory = draw(st.sampled_from(["none", "cpu", "node", "whole"]))
        per_cpu = host.memory_mb // (tasks * cpt)
        cols["mem_per_cpu_mb"].append(float(draw(st.integers(1, per_cpu))) if memory == "cpu" else -1.0)
        cols["mem_per_node_mb"].append(
            float(draw(st.integers(1, host.memory_mb))) if memory == "node" else 0.0 if memory == "whole" else -1.0
        )
        cols["gpus_per_node"].append(draw(st.integers(0, gpus)))
        cols["partition"].append(part.name)
        asked = draw(st.sets(st.sampled_from(sorted(host.features)))) if host.features else set()
        cols["features"].append("&".join(sorted(asked)))
        cols["exclusive"].append(draw(st.booleans()) and draw(st.booleans()))
    table = JobTable(
        {
            "submit": submit,
            "runtime": runtime,
            "procs": [t * c for t, c in zip(cols["tasks"], cols["cpus_per_task"])],
            "time_requested": [r + s for r, s in zip(runtime, slack)],
        }
    )
    table.requests = Requests(cols)
    return table, cluster


def _reference(result: cs.BatchRun, policy: str):
    a = result.schedule.nodes
    req = a.requests
    nodes = {
        "cores": [n.cores for n in a.platform.nodes],
        "memory": [n.memory_mb for n in a.platform.nodes],
        "gres": gres_capacity(a.platform.to_arrays())[1].tolist(),
        "features": [
            int(sum(1 << b for b, f in enumerate(a.platform.feature_names) if f in n.features))
            for n in a.platform.nodes
        ],
        "weight": [n.weight for n in a.platform.nodes],
        "partitions": [
            sum(1 << p for p, part in enumerate(a.platform.partitions) if n.name in part.nodes)
            for n in a.platform.nodes
        ],
    }
    requests = [
        {k: (bool(v[j]) if k == "exclusive" else int(v[j])) for k, v in req.items()} for j in range(len(result.jobs))
    ]
    jobs = result.jobs
    estimate = cs.batch.estimates_of(jobs).tolist()
    return reference_simulate(nodes, requests, jobs.submit.tolist(), jobs.runtime.tolist(), estimate, policy)


@pytest.mark.parametrize("policy", ["fcfs", "easy", "conservative"])
@settings(max_examples=150, deadline=None, derandomize=True)
@given(case=node_workloads())
def test_rust_agrees_with_reference_job_for_job_and_node_for_node(case, policy):
    jobs, cluster = case
    result = simulate(jobs, policy, platform=cluster)
    validate_batch(result.schedule, result.jobs)
    start, shares, *first = _reference(result, policy)
    assert result.schedule.start.tolist() == start
    if first:
        assert np.array_equal(result.reservations, first[0], equal_nan=True)
    a = result.schedule.nodes
    for i, expected in enumerate(shares):
        k = a.shares(i)
        got = list(
            zip(
                a.node[k].tolist(),
                a.tasks[k].tolist(),
                a.cores[k].tolist(),
                a.memory_mb[k].tolist(),
                a.gres[k].tolist(),
            )
        )
        assert got == [(n, t, c, m, u) for n, t, c, m, u in expected], f"job {i}"


@pytest.mark.parametrize("policy", ["fcfs", "easy", "easy-arrival", "conservative", "sjf"])
@settings(max_examples=80, deadline=None, derandomize=True)
@given(case=node_workloads())
def test_every_policy_on_nodes_is_valid_and_keeps_its_reservations(case, policy):
    jobs, cluster = case
    result = simulate(jobs, policy, platform=cluster)
    validate_batch(result.schedule, result.jobs)
    reserved = result.reservations
    assert np.all(np.isnan(reserved) | (result.schedule.start <= reserved))


@pytest.mark.parametrize("policy", ["fcfs", "easy", "easy-arrival", "conservative", "sjf"])
@settings(max_examples=60, deadline=None, derandomize=True)
@given(
    widths=st.lists(st.integers(1, 6), min_size=1, max_size=30),
    runs=st.lists(st.integers(0, 9), min_size=30, max_size=30),
    gaps=st.lists(st.integers(0, 3), min_size=30, max_size=30),
)
def test_one_node_of_cores_is_the_processor_pool(policy, widths, runs, gaps):
    n = len(widths)
    jobs = JobTable(
        {
            "submit": np.cumsum(gaps[:n]),
            "runtime": runs[:n],
            "procs": widths,
            "time_requested": [r + 2 for r in runs[:n]],
        },
        metadata={"MaxProcs": "6"},
    )
    pool = simulate(jobs, policy)
    node = simulate(jobs, policy, platform=NodeCluster.uniform(1, 6, 1000))
    validate_batch(node.schedule, node.jobs)
    assert node.schedule.start.tolist() == pool.schedule.start.tolist()


def _micro() -> NodeCluster:
    nodes = [Node(f"n{i}", 12, 48_000, features=frozenset({"IB"})) for i in (1, 2)]
    nodes.append(Node("g1", 12, 48_000, gres={"gpu": 2}, features=frozenset({"IB", "GPU"})))
    nodes.append(Node("b1", 12, 512_000, features=frozenset({"IB", "BigMem"})))
    return NodeCluster(nodes, (Partition("normal", ("n1", "n2", "g1", "b1"), default=True, def_mem_per_cpu=2800),))


def _jobs(**columns) -> JobTable:
    n = len(columns["tasks"])
    table = JobTable({"submit": np.arange(n, dtype=float), "runtime": np.full(n, 100.0), "procs": columns["tasks"]})
    table.requests = Requests(columns)
    return table


def test_memory_and_gpus_decide_where_jobs_run_and_when():
    # three jobs of 400 GB: only b1 holds one, so they run one after another although cores are free
    jobs = _jobs(tasks=[1, 1, 1, 2, 4], mem_per_node_mb=[400_000.0] * 3 + [-1.0] * 2, gpus_per_node=[0, 0, 0, 2, 0])
    result = simulate(jobs, "easy", platform=_micro())
    validate_batch(result.schedule, result.jobs)
    a = result.schedule.nodes
    # job 4 goes where the fewest cores stay free: g1, beside job 3 (best fit; weights are equal)
    assert [a.node_names(i) for i in range(5)] == [["b1"], ["b1"], ["b1"], ["g1"], ["g1"]]
    assert result.schedule.start.tolist() == [0.0, 100.0, 200.0, 3.0, 4.0]
    assert a.memory_mb.tolist() == [400_000] * 3 + [2 * 2800, 4 * 2800]  # DefMemPerCPU for the others
    assert a.hostlists() == ["b1", "b1", "b1", "g1", "g1"]
    # without memory as a resource (memory=False), b1 runs all three at once
    free = simulate(jobs, "easy", platform=_micro(), memory=False)
    assert free.schedule.start.tolist() == [0.0, 1.0, 2.0, 3.0, 4.0]


def test_a_backfilled_job_never_takes_what_the_reservation_needs_in_any_resource():
    # b1 holds job 0 (300 GB) until 100; job 1 needs 400 GB (reserved on b1 at 100); job 2 asks 200 GB for
    # 1000 s: it fits b1 now (212 GB free) and cores are plenty, but it would delay job 1, so it waits
    jobs = _jobs(tasks=[1, 1, 1], mem_per_node_mb=[300_000.0, 400_000.0, 200_000.0])
    jobs = jobs.with_columns(runtime=np.array([100.0, 100.0, 1000.0]))
    jobs.requests = Requests({"tasks": [1, 1, 1], "mem_per_node_mb": [300_000.0, 400_000.0, 200_000.0]})
    result = simulate(jobs, "easy", platform=_micro())
    assert result.reservations[1] == 100.0
    assert result.schedule.start.tolist() == [0.0, 100.0, 200.0]


def test_dpsa_and_the_pool_options_are_refused_on_nodes():
    jobs = _jobs(tasks=[1])
    with pytest.raises(ValueError, match="processor pool"):
        simulate(jobs, "dpsa-p", platform=_micro())
    with pytest.raises(ValueError, match="platform"):
        simulate(jobs, "easy", platform=_micro(), procs=4)
    with pytest.raises(ValueError, match="memory"):
        simulate(jobs, "easy", memory=True, procs=4)
    with pytest.raises(TypeError, match="NodeCluster"):
        simulate(jobs, "easy", platform=48)


@pytest.mark.parametrize(
    ("columns", "field", "words"),
    [
        ({"tasks": [1, 13], "mem_per_node_mb": [-1.0, 600_000.0]}, "memory_mb", "600000"),
        ({"tasks": [1, 1], "gpus_per_node": [0, 3]}, "gpus_per_node", "GPUs"),
        ({"tasks": [1, 49]}, "procs", "the machine has 48"),
        ({"tasks": [1, 13], "gpus_per_node": [0, 1]}, "tasks", "at most 12"),
        ({"tasks": [1, 2], "cpus_per_task": [1, 13]}, "cpus_per_task", "at most 12"),
        ({"tasks": [1, 1], "partition": ["", "gpu"]}, "partition", "normal"),
        ({"tasks": [1, 1], "features": ["", "IB|GPU"]}, "features", "not modelled"),
        ({"tasks": [1, 1], "features": ["", "Fast"]}, "features", "no node has"),
        ({"tasks": [1, 1], "gpus_per_node": [0, 1], "gpu_type": ["", "a100"]}, "gpu_type", "GPU type"),
    ],
)
def test_a_request_the_cluster_cannot_hold_is_an_error_naming_the_job(columns, field, words):
    with pytest.raises(InvalidWorkloadError, match=words) as err:
        simulate(_jobs(**columns), "easy", platform=_micro())
    assert (err.value.job_id, err.value.field) == (2, field)


class HeadOrWait(Policy):
    """FCFS by hand, through the state a policy sees on nodes."""

    name = "head"

    def schedule(self, state):
        for job in state.queue():
            cores, memory, gres = state.node_free()
            assert cores.shape == memory.shape == (4,) and gres.shape == (4, 1)
            if state.now < state.shadow_of(job):
                return
            state.start(job)


def test_a_python_policy_sees_the_nodes_and_starts_jobs_where_the_core_places_them():
    jobs = _jobs(tasks=[12, 12, 12, 12, 30, 1], gpus_per_node=[0, 0, 0, 0, 0, 0])
    mine = simulate(jobs, HeadOrWait(), platform=_micro())
    fcfs = simulate(jobs, "fcfs", platform=_micro())
    validate_batch(mine.schedule, mine.jobs)
    assert mine.schedule.start.tolist() == fcfs.schedule.start.tolist()
    assert mine.schedule.nodes.node.tolist() == fcfs.schedule.nodes.node.tolist()

    class Greedy(Policy):
        name = "greedy"

        def schedule(self, state):
            for job in state.queue():
                state.start(job)

    with pytest.raises(InfeasibleError, match="no nodes of its partition"):
        simulate(jobs, Greedy(), platform=_micro())


def _run_and_break(change):
    jobs = _jobs(tasks=[4, 12, 2], mem_per_node_mb=[-1.0, -1.0, 300_000.0], gpus_per_node=[1, 0, 0])
    result = simulate(jobs, "fcfs", platform=_micro())
    validate_batch(result.schedule, result.jobs)
    a = result.schedule.nodes
    broken = change(result.schedule, a)
    return batch_violations(broken, result.jobs)


def _with(schedule, a, **arrays):
    return dataclasses.replace(schedule, nodes=dataclasses.replace(a, **arrays))


@pytest.mark.parametrize(
    ("change", "words"),
    [
        # job 1 (12 cores, n1) moved onto g1, where job 0 holds 4 cores at the same time
        (lambda s, a: _with(s, a, node=np.array([2, 2, 3])), "holds 16 cores"),
        # job 2's 300 GB put on n1 (48 GB)
        (lambda s, a: _with(s, a, node=np.array([2, 0, 0])), "MB of memory"),
        # job 0's GPU taken from no kind it allows
        (lambda s, a: _with(s, a, gres=np.array([[0], [0], [0]])), "generic resources"),
        # job 1 claims 6 cores for 12 tasks
        (lambda s, a: _with(s, a, cores=np.array([4, 6, 2])), "holds 6 cores"),
        # job 2 holds less memory than it asks
        (lambda s, a: _with(s, a, memory_mb=np.array([11200, 33600, 1000])), "its request makes 300000 MB"),
        # a node outside the job's partition: a partition of n1 only
        (
            lambda s, a: _with(
                s,
                a,
                platform=NodeCluster(
                    a.platform.nodes,
                    (Partition("normal", ("n1",), default=True), Partition("rest", ("n2", "g1", "b1"))),
                ),
            ),
            "not a node of partition normal",
        ),
        # job 0's GPU on a g1 that has none
        (
            lambda s, a: _with(
                s,
                a,
                platform=NodeCluster(
                    [
                        *a.platform.nodes[:2],
                        Node("g1", 12, 48_000, features=frozenset({"IB", "GPU"})),
                        a.platform.nodes[3],
                    ],
                    a.platform.partitions,
                ),
            ),
            "units of gpu",
        ),
    ],
)
def test_the_validator_rejects_each_kind_of_node_violation(change, words):
    violations = _run_and_break(change)
    assert any(words in v for v in violations), violations


def test_whole_node_memory_makes_a_job_alone_on_its_node():
    jobs = _jobs(tasks=[1, 1], mem_per_node_mb=[0.0, -1.0])
    result = simulate(jobs, "fcfs", platform=_micro())
    validate_batch(result.schedule, result.jobs)
    a = result.schedule.nodes
    assert a.requests["mem_per_node"][0] == WHOLE_NODE
    assert a.node_names(0) != a.node_names(1)
