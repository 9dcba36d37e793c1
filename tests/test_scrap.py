"""SCRAP, SCRAP-MAX, HCPA on the reference cluster, MHEFT-MAX and the multi-cluster validator (PDCS 2007).

Differential tests against ``tests/reference/scrap.py`` on hypothesis-generated
small PTGs and platforms (identity, not closeness), the validator on every
schedule, and proofs that the validator rejects broken schedules.
"""

from __future__ import annotations

import dataclasses
import math

import networkx as nx
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from clustersched.errors import InfeasibleError, InvalidScheduleError, InvalidWorkloadError
from clustersched.platform import (
    GBIT,
    Cluster,
    MultiCluster,
    Network,
    random_multicluster,
    scrap_platform_configs,
    scrap_platforms,
)
from clustersched.ptg import hcpa_allocation
from clustersched.scrap import (
    ALGORITHMS,
    DEFAULT_TRANSLATION,
    TRANSLATIONS,
    ClusterSchedule,
    algorithm,
    beta_estimate,
    hcpa_reference_allocation,
    mheft_max,
    multicluster_metrics,
    multicluster_violations,
    place_reference,
    reference_caps,
    scrap_allocation,
    task_bytes,
    translate,
    validate_multicluster,
)
from clustersched.scrap import (
    run as run_scrap,
)
from clustersched.scrap.model import problem
from clustersched.validate import validate_multicluster as validate_from_namespace
from clustersched.workload.ptg import PTG
from clustersched.workload.ptg_generators import random_ptg

from reference import ptg as ref_ptg
from reference import scrap as ref

SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@st.composite
def small_ptgs(draw, max_tasks=7):
    n = draw(st.integers(1, max_tasks))
    g = nx.DiGraph()
    for v in range(n):
        g.add_node(
            v,
            work=draw(st.floats(1e8, 5e10)),
            alpha=draw(st.sampled_from([0.0, 0.05, 0.2, 0.25])),
            data=float(draw(st.integers(0, 50_000_000))),
        )
    for v in range(1, n):
        for u in range(v):
            if draw(st.integers(0, 3)) == 0:
                g.add_edge(u, v)
    return PTG.from_networkx(g)


@st.composite
def platforms(draw, network=None):
    c = draw(st.integers(1, 3))
    procs = [draw(st.integers(1, 10)) for _ in range(c)]
    speeds = [draw(st.sampled_from([1e9, 1.25e9, 2e9, 3.7e9, 5e9])) for _ in range(c)]
    with_net = draw(st.booleans()) if network is None else network
    net = Network.paper([draw(st.sampled_from(["1G", "10G"])) for _ in range(c)]) if with_net else None
    return MultiCluster("h", tuple(Cluster(f"k{k}", procs[k], speeds[k]) for k in range(c)), net)


def lists(platform):
    return list(platform.procs), list(platform.speeds)


def rows_of(schedule: ClusterSchedule):
    return [(v, k, s, e, ids) for v, k, s, e, ids in schedule.rows()]


# -- platform ------------------------------------------------------------------------------------
def test_paper_platforms():
    configs = scrap_platform_configs()
    assert len(configs) == 40
    assert sum(c["clusters"] == 1 for c in configs) == 4
    ps = scrap_platforms(seed=3)
    assert len(ps) == 200 and len({p.name for p in ps}) == 200
    for p, cfg in zip(ps[::5], configs):
        assert len(p) == cfg["clusters"]
        assert all(16 <= c.procs <= 128 for c in p.clusters)
        lo, hi = cfg["min_speed"] * 1e9, cfg["min_speed"] * cfg["heterogeneity"] * 1e9
        assert all(lo <= c.speed <= hi for c in p.clusters)
        fast = sum(b == 10 * GBIT for b in p.network.link_bw)
        assert fast == (cfg["clusters"] // 2 if cfg["clusters"] > 1 else fast)
        assert p.network.backbone_bw == 25 * GBIT and p.network.backbone_lat == 0.05
    # the same seed gives the same platforms; a platform does not depend on the others
    assert scrap_platforms(seed=3)[17] == ps[17]
    assert scrap_platforms(seed=4)[17] != ps[17]


def test_reference_cluster_matches_reference():
    for p in scrap_platforms(seed=1)[::13]:
        s_ref, power, size = ref.reference_cluster(*lists(p))
        assert (p.ref_speed, p.ref_power, p.ref_procs) == (s_ref, power, size)


def test_bad_platforms():
    with pytest.raises(TypeError):
        MultiCluster("x", ())
    with pytest.raises(ValueError, match="network has links for 1 clusters"):
        MultiCluster("x", (Cluster("a", 2, 1.0), Cluster("b", 2, 1.0)), Network.paper(["1G"]))
    with pytest.raises(ValueError, match="technology == '5G'"):
        Network.paper(["5G"])
    with pytest.raises(ValueError, match="min_speed == 0"):
        random_multicluster(2, 0, 2.0, seed=0)
    with pytest.raises(ValueError, match="heterogeneity == 0.5"):
        random_multicluster(2, 1.0, 0.5, seed=0)


# -- translation and caps -----------------------------------------------------------------------
@SETTINGS
@given(small_ptgs(), platforms(network=False), st.integers(1, 40))
def test_translation_is_the_smallest_allocation_meeting_the_reference_time(ptg, platform, p_ref):
    got = translate(ptg, platform, np.full(len(ptg), p_ref), translation="at-least-as-fast")
    s_ref = platform.ref_speed
    for v in range(len(ptg)):
        w, a = float(ptg.work[v]), float(ptg.alpha[v])
        target = ref_ptg.exec_time(w, a, p_ref, s_ref)
        for k, speed in enumerate(platform.speeds):
            q = int(got[v, k])
            assert q == ref.translate(w, a, p_ref, s_ref, speed)
            assert 1 <= q <= p_ref
            assert ref_ptg.exec_time(w, a, q, speed) <= target
            assert q == 1 or ref_ptg.exec_time(w, a, q - 1, speed) > target


@SETTINGS
@given(small_ptgs(), platforms(network=False), st.integers(1, 40))
def test_closest_translation_matches_reference(ptg, platform, p_ref):
    got = translate(ptg, platform, np.full(len(ptg), p_ref))  # the default
    s_ref = platform.ref_speed
    for v in range(len(ptg)):
        w, a = float(ptg.work[v]), float(ptg.alpha[v])
        target = ref_ptg.exec_time(w, a, p_ref, s_ref)
        for k, (size, speed) in enumerate(zip(platform.procs, platform.speeds)):
            q = int(got[v, k])
            assert q == ref.translate(w, a, p_ref, s_ref, speed, size, "closest")
            assert 1 <= q <= min(p_ref, size)
            # no count of the cluster is closer to the reference time
            dist = abs(ref_ptg.exec_time(w, a, q, speed) - target)
            assert all(abs(ref_ptg.exec_time(w, a, x, speed) - target) >= dist for x in range(1, size + 1))


def test_translations_by_hand_and_by_name():
    g = nx.DiGraph()
    g.add_node("t", work=6e9)
    ptg = PTG.from_networkx(g)
    p = MultiCluster("p", (Cluster("slow", 4, 1e9), Cluster("fast", 4, 1.5e9)))
    # 2 reference processors: 3 s; the fast cluster takes 4 s on 1, 2 s on 2: a tie, to the fewer processors
    assert translate(ptg, p, [2], translation="closest").tolist() == [[2, 1]]
    assert translate(ptg, p, [2], translation="AT_LEAST_AS_FAST").tolist() == [[2, 2]]
    with pytest.raises(ValueError, match="translation == 'nearest', must be one of 'closest', 'at-least-as-fast'"):
        translate(ptg, p, [2], translation="nearest")
    with pytest.raises(ValueError, match="translation == 'nearest'"):
        run_scrap(ptg, p, "MHEFT-MAX", beta=0.5, translation="nearest")  # checked for every algorithm
    assert DEFAULT_TRANSLATION == TRANSLATIONS[0] == "closest"


@SETTINGS
@given(small_ptgs(), platforms(network=False), st.sampled_from(TRANSLATIONS))
def test_caps_match_reference(ptg, platform, translation):
    got = reference_caps(ptg, platform, translation=translation).tolist()
    assert got == ref.caps(ptg, *lists(platform), translation)


# -- allocations ----------------------------------------------------------------------------------
@SETTINGS
@given(small_ptgs(), st.integers(1, 30), st.sampled_from(["sqrt", "cpa"]))
def test_reference_loop_with_uniform_caps_is_the_hcpa_reference(ptg, procs, rule):
    # the generalised reference loop reproduces the PTG issue's reference HCPA
    real = sum(1 for w in ptg.work if w > 0)
    D = min(procs, math.isqrt(procs * real - 1) + 1) if (rule == "sqrt" and real > 0) else procs
    assert ref.allocation_loop(ptg, 2e9, float(D), [procs] * len(ptg)) == ref_ptg.hcpa_allocation(
        ptg, procs, 2e9, rule=rule
    )


@SETTINGS
@given(
    small_ptgs(),
    platforms(network=False),
    st.sampled_from([0.05, 0.1, 0.2, 0.35, 0.5, 0.8, 1.0]),
    st.sampled_from(["SCRAP", "SCRAP-MAX"]),
    st.sampled_from(TRANSLATIONS),
)
def test_scrap_matches_reference(ptg, platform, beta, variant, translation):
    got = scrap_allocation(ptg, platform, beta, variant=variant, translation=translation).tolist()
    assert got == ref.scrap_allocation(ptg, *lists(platform), beta, variant, translation)
    caps = reference_caps(ptg, platform, translation=translation)
    assert all(1 <= a <= c for a, c in zip(got, caps))
    estimate = beta_estimate(ptg, platform, got)
    assert estimate == pytest.approx(ref.beta_estimate(ptg, *lists(platform), got), rel=1e-12)
    if any(a > 1 for a in got):
        assert estimate <= beta * (1 + 1e-9)  # the addition that exceeds β is cancelled
    if variant == "SCRAP-MAX":
        levels = ptg.levels()
        budget = beta * platform.ref_power
        for lev in set(levels.tolist()):
            members = [v for v in range(len(ptg)) if levels[v] == lev]
            held = sum(got[v] for v in members)
            # a level grows only while it holds less than the budget: at most one addition beyond it
            assert held < budget + 1 or held == len(members)


@SETTINGS
@given(small_ptgs(), platforms(network=False), st.sampled_from(["sqrt", "cpa"]), st.sampled_from(TRANSLATIONS))
def test_hcpa_reference_allocation_matches_reference(ptg, platform, rule, translation):
    got = hcpa_reference_allocation(ptg, platform, rule=rule, translation=translation).tolist()
    assert got == ref.hcpa_reference_allocation(ptg, *lists(platform), rule, translation)


@SETTINGS
@given(small_ptgs(), st.integers(1, 40), st.sampled_from([1e9, 3.3e9]), st.sampled_from(["sqrt", "cpa"]))
def test_one_homogeneous_cluster_gives_hcpa(ptg, procs, speed, rule):
    c = Cluster("c", procs, speed)
    got = hcpa_reference_allocation(ptg, MultiCluster("one", (c,)), rule=rule)
    assert got.tolist() == hcpa_allocation(ptg, c, rule=rule).tolist()


def test_overshoot_and_initial_violation_by_hand():
    g = nx.DiGraph()
    g.add_node("t", work=1e10)  # perfectly parallel: β' = p / P_ref
    ptg = PTG.from_networkx(g)
    p = MultiCluster("p", (Cluster("a", 10, 1e9),))
    assert scrap_allocation(ptg, p, 0.35).tolist() == [3]
    assert scrap_allocation(ptg, p, 1.0).tolist() == [10]  # β' == β is kept, not exceeded
    run = run_scrap(ptg, p, "scrap", beta=0.05)
    assert run.alloc.tolist() == [1] and run.initial_violation
    assert not run_scrap(ptg, p, "SCRAP", beta=0.35).initial_violation


def test_scrap_max_bounds_each_level_by_hand():
    # a fork of four equal perfectly parallel tasks on 40 reference processors, β = 0.25:
    # SCRAP-MAX stops each level at 10 processors
    g = nx.DiGraph()
    g.add_nodes_from(range(4), work=1e10)
    ptg = PTG.from_networkx(g)  # synthetic entry and exit
    p = MultiCluster("p", (Cluster("a", 40, 1e9),))
    scrap = scrap_allocation(ptg, p, 0.25, variant="SCRAP")
    smax = scrap_allocation(ptg, p, 0.25, variant="SCRAP-MAX")
    middle = [v for v in range(len(ptg)) if not ptg.synthetic[v]]
    assert sum(smax[v] for v in middle) <= 10
    assert sum(scrap[v] for v in middle) >= sum(smax[v] for v in middle)
    assert smax.tolist() == ref.scrap_allocation(ptg, [40], [1e9], 0.25, "SCRAP-MAX")


# -- placement and MHEFT-MAX -----------------------------------------------------------------------
@SETTINGS
@given(small_ptgs(), platforms(), st.integers(1, 12), st.booleans(), st.sampled_from(TRANSLATIONS))
def test_placement_matches_reference_and_validates(ptg, platform, top, comms, translation):
    caps = reference_caps(ptg, platform, translation=translation)
    alloc = np.minimum(caps, top)
    s = place_reference(ptg, platform, alloc, comms=comms, translation=translation)
    on = comms and platform.network is not None
    assert s.comms == on and s.translation == translation
    expected = ref.place_reference(
        ptg, *lists(platform), alloc.tolist(), platform.network if on else None, task_bytes(ptg).tolist(), translation
    )
    assert rows_of(s) == expected
    validate_multicluster(s, ptg)
    problem(ptg, platform).check(*s.columns(), s.alloc, translation, on)  # the Rust checker agrees
    # the schedule claims its rule: under the other one, its allocations are wrong wherever the rules differ
    other = TRANSLATIONS[1 - TRANSLATIONS.index(translation)]
    claimed = dataclasses.replace(s, translation=other)
    differ = any(
        translate(ptg, platform, alloc, translation=other)[v, k] != q for v, k, q in zip(s.task, s.cluster, s.procs)
    )
    found = multicluster_violations(claimed, ptg)
    assert bool(found) == differ
    assert all("translation of its" in m for m in found)


@SETTINGS
@given(small_ptgs(), platforms(), st.sampled_from([0.1, 0.3, 0.5, 1.0]), st.booleans())
def test_mheft_max_matches_reference_and_validates(ptg, platform, fraction, comms):
    s = mheft_max(ptg, platform, fraction, comms=comms)
    on = comms and platform.network is not None
    expected = ref.mheft_max(
        ptg, *lists(platform), fraction, platform.network if on else None, task_bytes(ptg).tolist()
    )
    assert rows_of(s) == expected
    for k, q in zip(s.cluster, s.procs):
        assert q <= max(1, math.floor(fraction * platform.procs[k]))
    validate_multicluster(s, ptg)


@settings(max_examples=15, deadline=None)
@given(st.integers(0, 199), st.sampled_from([10, 20]), st.integers(0, 10**6), st.sampled_from([0.1, 0.3, 1.0]))
def test_every_algorithm_on_paper_platforms_validates(k, n, seed, beta):
    platform = scrap_platforms(seed=0)[k]
    ptg = random_ptg(n, fat=0.5, regularity=0.8, density=0.5, jump=2, seed=seed)
    for name in ("SCRAP", "SCRAP-MAX", "HCPA", "MHEFT-MAX"):
        run = run_scrap(ptg, platform, name, beta=beta)
        validate_multicluster(run.schedule, ptg)
        m = run.metrics
        assert 0 < m.power_fraction <= m.peak_power_fraction <= 1 + 1e-12
        if name in ("SCRAP", "SCRAP-MAX") and not run.initial_violation:
            assert run.beta_estimate <= beta * (1 + 1e-9)


def test_communications_delay_successors():
    g = nx.DiGraph([("a", "b")])
    nx.set_node_attributes(g, 1e9, "work")
    nx.set_node_attributes(g, {"a": 125e6 / 8, "b": 0.0}, "data")  # a sends 125 MB
    ptg = PTG.from_networkx(g)
    p = MultiCluster("p", (Cluster("k", 4, 1e9),), Network.paper(["1G"]))
    with_comms = place_reference(ptg, p, [1, 1])
    without = place_reference(ptg, p, [1, 1], comms=False)
    # 125 MB over one 1 Gb/s flow: 1 s, plus three 100 us latencies
    assert with_comms.start[1] - with_comms.end[0] == pytest.approx(1.0003)
    assert without.start[1] == without.end[0]
    validate_multicluster(with_comms, ptg)
    validate_multicluster(without, ptg)
    # the schedule without transfers is infeasible once transfers are modelled
    claimed = ClusterSchedule(*without.columns(), p, "x", without.alloc, True, translation=without.translation)
    assert any("data of task 0" in m for m in multicluster_violations(claimed, ptg))


# -- the validator --------------------------------------------------------------------------------
def _fixture():
    g = nx.DiGraph([("a", "b"), ("a", "c"), ("b", "d"), ("c", "d")])
    nx.set_node_attributes(g, {"a": 2e9, "b": 8e9, "c": 4e9, "d": 2e9}, "work")
    nx.set_node_attributes(g, 0.1, "alpha")
    ptg = PTG.from_networkx(g)
    p = MultiCluster("p", (Cluster("slow", 4, 1e9), Cluster("fast", 3, 2e9)))
    s = place_reference(ptg, p, [2, 4, 2, 1])
    validate_multicluster(s, ptg)
    return ptg, p, s


def _broken(s, **changes):
    cols = dict(zip(("task", "cluster", "start", "end", "proc_offsets", "proc_ids"), (c.copy() for c in s.columns())))
    cols.update(changes)
    return ClusterSchedule(
        **cols, platform=s.platform, algorithm="broken", alloc=s.alloc, comms=s.comms, translation=s.translation
    )


def test_validator_rejects_broken_schedules():
    ptg, p, s = _fixture()
    d = _broken(s)
    d.start[-1] -= 0.5
    d.end[-1] -= 0.5
    assert any("before its predecessor" in m for m in multicluster_violations(d, ptg))
    longer = _broken(s)
    longer.end[0] += 1.0
    assert any("its time there is" in m for m in multicluster_violations(longer, ptg))
    wrong_cluster = _broken(s, cluster=1 - s.cluster)
    assert any("ids of cluster" in m for m in multicluster_violations(wrong_cluster, ptg))
    missing = _broken(s, task=np.where(s.task == 3, 2, s.task))
    assert any("never scheduled" in m for m in multicluster_violations(missing, ptg))
    assert any("scheduled twice" in m for m in multicluster_violations(missing, ptg))
    # two rows on the same processors at once
    # b and c (one level) on the same single processor at once
    same = _broken(
        s,
        cluster=np.zeros(len(s), dtype=np.int64),
        proc_offsets=np.arange(len(s) + 1),
        proc_ids=np.zeros(len(s), dtype=np.int64),
    )
    same.start[:] = [0.0, 10.0, 10.0, 50.0]
    same.end[:] = same.start + [ref_ptg.exec_time(float(ptg.work[v]), 0.1, 1, 1e9) for v in same.task]
    found = multicluster_violations(ClusterSchedule(*same.columns(), p, "x", None, False), ptg)
    assert found == ["processor 0 runs task 1 ('b') and task 2 ('c') at once"]
    # a processor count that is not the translation of the reference allocation
    other = ClusterSchedule(*s.columns(), p, "x", np.array([1, 1, 1, 1]), s.comms, translation=s.translation)
    assert any("translation of its" in m for m in multicluster_violations(other, ptg))
    with pytest.raises(InvalidScheduleError):
        validate_from_namespace(d, ptg)
    # the Rust checker rejects what the Python validator rejects
    core = problem(ptg, p)
    for broken in (d, longer, wrong_cluster, missing):
        with pytest.raises(InfeasibleError):
            core.check(*broken.columns(), broken.alloc, broken.translation, broken.comms)
    with pytest.raises(InfeasibleError, match="translation"):
        core.check(*s.columns(), np.array([1, 1, 1, 1]), s.translation, s.comms)


def test_the_validator_and_the_study_use_one_checker():
    """validate.py words the findings of the Rust checker the study runs on every schedule (issue 32)."""
    from clustersched.scrap.study import study_pair

    ptg = random_ptg(20, fat=0.5, regularity=0.8, density=0.5, jump=2, seed=4)
    p = random_multicluster(4, 0.5, 2.0, seed=4)
    core = problem(ptg, p)
    st = study_pair(ptg, p, [0.3, 1.0], core=core, schedules=True)
    assert st.schedules is not None
    for sch in st.schedules:  # checked by the study, accepted by the validator
        assert multicluster_violations(sch, ptg, core=core) == []
    s = st.schedules[1]  # SCRAP at 0.3
    bad = _broken(s)
    last = int(np.argmax(s.start))  # a task with predecessors, moved to time 0
    bad.start[last], bad.end[last] = 0.0, s.end[last] - s.start[last]
    found = multicluster_violations(bad, ptg)
    raw, total = core.violations(*bad.columns(), bad.alloc, bad.translation, bad.comms, 20)
    assert found and len(found) == total == len(raw)
    v = int(s.task[last])
    assert [k for k, _, _ in raw if k == "precedence"] and all(i[0] == v for k, i, _ in raw if k == "precedence")
    assert any(m.startswith(f"task {v} (") and " starts at 0.0 before " in m for m in found)
    # the study's pass/fail form (scrap::check_cluster_schedule, which scrap::study calls on each run)
    # rejects it with the same count and first violation
    kind, ints, _ = raw[0]
    head = {"precedence": f"task {ints[0]} starts at", "overlap": f"processor {ints[0]} runs task {ints[1]} and"}[kind]
    with pytest.raises(InfeasibleError, match=rf"breaks {total} rule\(s\), first: {head} "):
        core.check(*bad.columns(), bad.alloc, bad.translation, bad.comms)
    # ... and the validator's first message is that violation, worded with the task's label
    label = ptg.labels[ints[0 if kind == "precedence" else 1]]
    assert found[0].startswith(
        head.replace(" starts at", f" ({label!r}) starts at").replace(" and", f" ({label!r}) and")
    )
    with pytest.raises(InvalidScheduleError):
        validate_multicluster(bad, ptg, core=core)


def test_the_validator_has_no_rule_of_its_own():
    """Whatever the core's checker finds is what the validator reports, worded; nothing else."""
    from clustersched.scrap.model import ScrapProblem

    ptg, p, s = _fixture()

    class Kernel:
        def __init__(self, found):
            self.found = found

        def violations(self, *columns):
            return self.found, len(self.found)

    assert multicluster_violations(s, ptg, core=ScrapProblem(ptg, p, Kernel([]))) == []
    found = [
        ("overlap", [3, 0, 1], []),
        ("translation", [2, 2, 1, 2, 4, 1], []),
        ("precedence", [3, 1], [1.0, 2.5, 2.0]),
    ]
    assert multicluster_violations(s, ptg, core=ScrapProblem(ptg, p, Kernel(found))) == [
        "processor 3 runs task 0 ('a') and task 1 ('b') at once",
        "task 2 ('c') has 2 processors on cluster 1; the 'closest' translation of its 4 reference processors "
        "there is 1",
        "task 3 ('d') starts at 1.0 before the data of task 1 ('b') arrive at 2.5",
    ]
    # a clean schedule the core finds broken is reported broken
    with pytest.raises(InvalidScheduleError, match="processor 3 runs"):
        validate_multicluster(s, ptg, core=ScrapProblem(ptg, p, Kernel(found[:1])))


def test_every_clash_is_reported_and_counted():
    ptg, p, s = _fixture()
    # all four tasks at time 0 on the same processors of cluster 0: every pair against the longest
    cols = {
        "cluster": np.zeros(len(s), dtype=np.int64),
        "proc_offsets": np.arange(len(s) + 1),
        "proc_ids": np.zeros(len(s), dtype=np.int64),
    }
    same = _broken(s, **cols)
    same.start[:] = 0.0
    same.end[:] = [ref_ptg.exec_time(float(ptg.work[v]), 0.1, 1, 1e9) for v in same.task]
    found = multicluster_violations(ClusterSchedule(*same.columns(), p, "x", None, False), ptg)
    clashes = [m for m in found if m.startswith("processor 0 runs")]
    assert len(clashes) == 3  # each later row against the longest so far
    many = _broken(s)
    many.start[:] = np.nan
    found = multicluster_violations(ClusterSchedule(*many.columns(), p, "x", None, False), ptg)
    assert len(found) == 4 and all("must be finite" in m for m in found)


# -- metrics ---------------------------------------------------------------------------------------
def test_metrics_by_hand():
    g = nx.DiGraph([("a", "b")])
    nx.set_node_attributes(g, 4e9, "work")
    ptg = PTG.from_networkx(g)
    p = MultiCluster("p", (Cluster("a", 4, 1e9), Cluster("b", 4, 1e9)))
    s = place_reference(ptg, p, [4, 2])
    m = multicluster_metrics(s)
    # a: 1 s on 4 processors, b: 2 s on 2: energy 8 Gflop over 3 s of 8 Gflop/s
    assert (m.makespan, m.energy) == (3.0, 8e9)
    assert m.power_fraction == pytest.approx(1 / 3)
    assert m.peak_power_fraction == 0.5


# -- bad input -------------------------------------------------------------------------------------
def test_bad_arguments():
    ptg, p, s = _fixture()
    with pytest.raises(ValueError, match="beta == 0"):
        scrap_allocation(ptg, p, 0)
    with pytest.raises(ValueError, match="beta == 1.5"):
        run_scrap(ptg, p, "SCRAP", beta=1.5)
    with pytest.raises(ValueError, match="algorithm"):
        run_scrap(ptg, p, "CPA", beta=0.5)
    with pytest.raises(ValueError, match="variant"):
        scrap_allocation(ptg, p, 0.5, variant="MAX")
    with pytest.raises(TypeError, match="MultiCluster"):
        scrap_allocation(ptg, Cluster("c", 4, 1.0), 0.5)
    with pytest.raises(ValueError, match="alloc has shape"):
        place_reference(ptg, p, [1, 2])
    with pytest.raises(ValueError, match="alloc\\[1\\] == 0"):
        place_reference(ptg, p, [1, 0, 1, 1])
    with pytest.raises(ValueError, match="no cluster can host"):  # "closest" is capped at each cluster: always hosted
        place_reference(ptg, p, [1, 10, 1, 1], translation="at-least-as-fast")
    with pytest.raises(ValueError, match="fraction == 0"):
        mheft_max(ptg, p, 0.0)
    with pytest.raises(ValueError, match="allocation == 11"):
        place_reference(ptg, p, [1, 11, 1, 1])


# -- names: the registry, no alias in clustersched.ptg, the run and its summary --------------------
def test_clustersched_ptg_keeps_no_scrap_name():
    """SCRAP moved to its own folder before 0.1.0: clustersched.ptg keeps no alias of its names."""
    import clustersched.ptg
    import clustersched.scrap
    import clustersched.validate

    assert not hasattr(clustersched.ptg, "run_scrap") and not hasattr(clustersched.ptg, "ClusterSchedule")
    assert clustersched.validate.validate_multicluster is clustersched.scrap.validate_multicluster
    assert clustersched.validate.multicluster_violations is clustersched.scrap.multicluster_violations


def test_registry():
    from clustersched.scrap.cli import NAMES

    assert list(ALGORITHMS) == ["SCRAP", "SCRAP-MAX", "HCPA", "MHEFT-MAX"]  # the paper's names and order
    assert tuple(NAMES) == tuple(ALGORITHMS)
    ptg, p, _ = _fixture()
    for name, fn in ALGORITHMS.items():  # each entry makes the schedule run_scrap measures
        run = run_scrap(ptg, p, name, beta=0.4)
        s = fn(ptg, p, beta=0.4)
        assert s.algorithm == run.algorithm == name and s.rows() == run.schedule.rows()
        assert (s.alloc is None) == (run.alloc is None) == (name == "MHEFT-MAX")
        if s.alloc is not None:
            assert s.alloc.tolist() == run.alloc.tolist()


@pytest.mark.parametrize("spelling", ["SCRAP-MAX", "scrap-max", "SCRAP_MAX", "scrap_max", "Scrap-Max"])
def test_names_in_any_spelling(spelling):
    assert algorithm(spelling) is ALGORITHMS["SCRAP-MAX"]
    ptg, p, _ = _fixture()
    run = run_scrap(ptg, p, spelling, beta=0.5)
    assert run.algorithm == run.schedule.algorithm == "SCRAP-MAX"
    assert algorithm("mheft_max") is ALGORITHMS["MHEFT-MAX"]


@pytest.mark.parametrize("bad", ["CPA", "SCRAPMAX", "", None, 3])
def test_unknown_names_list_the_names(bad):
    ptg, p, _ = _fixture()
    names = "must be one of 'SCRAP', 'SCRAP-MAX', 'HCPA', 'MHEFT-MAX'"
    with pytest.raises(ValueError, match=f"^algorithm == .*, {names}$"):
        algorithm(bad)
    with pytest.raises(ValueError, match=f"^algorithm == .*, {names}$"):
        run_scrap(ptg, p, bad, beta=0.5)


def test_options_are_keyword_only():
    ptg, p, _ = _fixture()
    with pytest.raises(TypeError):
        run_scrap(ptg, p, "SCRAP", 0.5)  # beta positional
    with pytest.raises(TypeError):
        run_scrap(ptg, p, "SCRAP")  # beta is required


def test_run_summary():
    import json

    ptg, p, _ = _fixture()
    run = run_scrap(ptg, p, "SCRAP", beta=0.4)
    s = run.summary()
    assert list(s) == [
        "algorithm",
        "beta",
        "beta_estimate",
        "initial_violation",
        "makespan",
        "energy",
        "power_fraction",
        "peak_power_fraction",
        "seconds",
    ]
    assert (s["algorithm"], s["beta"], s["beta_estimate"], s["initial_violation"], s["seconds"]) == (
        "SCRAP",
        0.4,
        run.beta_estimate,
        run.initial_violation,
        run.seconds,
    )
    m = run.metrics.summary()
    assert m == {k: s[k] for k in m}
    assert all(type(v) is float for v in m.values())
    assert json.loads(json.dumps(s)) == s
    mheft = run_scrap(ptg, p, "MHEFT-MAX", beta=0.4).summary()
    assert mheft["beta_estimate"] is None and mheft["initial_violation"] is None
    assert run_scrap(ptg, p, "HCPA", beta=0.4).summary()["initial_violation"] is None


def test_an_empty_ptg_is_an_invalid_workload():
    p = MultiCluster("p", (Cluster("a", 4, 1e9),))
    with pytest.raises(InvalidWorkloadError, match="no tasks"):
        PTG.from_networkx(nx.DiGraph())
    # the internal constructor does not check: the kernels refuse it
    empty = PTG(
        name="e",
        labels=[],
        work=np.zeros(0),
        alpha=np.zeros(0),
        synthetic=np.zeros(0, dtype=bool),
        edges=[],
        node_attrs=[],
        graph_attrs={},
    )
    for name in ALGORITHMS:
        with pytest.raises(InvalidWorkloadError):
            run_scrap(empty, p, name, beta=0.5)


@pytest.mark.parametrize(
    "module",
    [
        "clustersched.platform",
        "clustersched.scrap",
        "clustersched.scrap.model",
        "clustersched.scrap.allocation",
        "clustersched.scrap.placement",
        "clustersched.scrap.algorithms",
        "clustersched.scrap.metrics",
        "clustersched.scrap.validate",
        "clustersched.reproduce.scrap",
    ],
)
def test_docstring_examples(module):
    import doctest
    import importlib

    result = doctest.testmod(importlib.import_module(module), optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0 and result.failed == 0


# -- issue 20: one rounding rule, sizes checked before work, typed errors ------------------------
def _chain(works, data=1e6, alpha=0.0):
    g = nx.DiGraph()
    nx.add_path(g, range(len(works)))
    for v, w in enumerate(works):
        g.add_node(v, work=w, alpha=alpha, data=data)
    return PTG.from_networkx(g)


@pytest.mark.parametrize("name", list(ALGORITHMS))
def test_tiny_tasks_late_in_a_schedule_validate(name):
    # The finding: tasks of 1e-8 s, after transfers of 50 ms, measured 1.0000000827e-8 s
    # (end = start + T rounds to an ulp of end) and the validator, relative to T, rejected them.
    g = nx.DiGraph([(0, 1), (0, 2), (1, 3), (2, 3), (3, 4)])
    nx.set_node_attributes(g, {0: 1e10, 1: 10.0, 2: 1e-3, 3: 1e-6, 4: 10.0}, "work")
    nx.set_node_attributes(g, 1e6, "data")
    ptg = PTG.from_networkx(g)
    p = MultiCluster("p", (Cluster("a", 4, 1e9), Cluster("b", 2, 3e9)), Network.paper(["1G", "10G"]))
    run = run_scrap(ptg, p, name, beta=0.5)
    s = run.schedule
    late = s.start > 0.3
    assert late.any() and ((s.end - s.start)[late] < 1e-7).any()
    assert multicluster_violations(s, ptg) == []
    problem(ptg, p).check(*s.columns(), s.alloc, s.translation or "closest", s.comms)  # the Rust checker: the same rule
    # a duration wrong by more than the documented tolerance is still caught
    r = int(np.flatnonzero(late)[0])
    wrong = ClusterSchedule(
        *(c.copy() for c in s.columns()), platform=p, alloc=s.alloc, comms=s.comms, translation=s.translation
    )
    wrong.end[r] = wrong.start[r] + (s.end[r] - s.start[r]) + 1e-6 * max(1.0, s.end[r])
    assert any("its time there is" in m for m in multicluster_violations(wrong, ptg))


def test_the_validator_takes_durations_from_the_core():
    from clustersched import _core

    rng = np.random.default_rng(0)
    work = 10 ** rng.uniform(-12, 20, 1000)
    alpha = rng.uniform(0, 1, 1000)
    q = rng.integers(1, 2**20, 1000)
    speed = 10 ** rng.uniform(6, 12, 1000)
    got = _core.exec_times(work, alpha, q, speed)
    # the documented formula, float operation for float operation, in Python
    want = [
        (w / s) * (a + (1.0 - a) / p) for w, a, p, s in zip(work.tolist(), alpha.tolist(), q.tolist(), speed.tolist())
    ]
    assert got.tolist() == want
    with pytest.raises(ValueError, match=r"procs\[0\] == 0, must be >= 1"):
        _core.exec_times(work[:1], alpha[:1], np.zeros(1, dtype=np.int64), speed[:1])
    from clustersched.scrap.validate import DURATION_RTOL

    assert DURATION_RTOL == 1e-9


def test_the_documented_maximum_cluster_is_refused_at_once():
    # issue 20: run_scrap on one cluster of 2**32 - 1 processors never returned
    ptg = random_ptg(10, fat=0.5, regularity=0.8, density=0.5, jump=2, seed=0)
    big = MultiCluster("big", (Cluster("a", 2**32 - 1, 1e9),))
    for name in ALGORITHMS:
        with pytest.raises(
            ValueError,
            match=r"^platform: 4294967295 processors in all, must be <= 65536 "
            r"\(clustersched.scrap.MAX_PROCS\)$",
        ):
            run_scrap(ptg, big, name, beta=0.5)
    from clustersched.scrap import MAX_POWER, MAX_PROCS, MAX_REF_PROCS, MAX_SECONDS, MAX_SIZE

    assert (MAX_PROCS, MAX_REF_PROCS, MAX_SIZE, MAX_SECONDS, MAX_POWER) == (2**16, 2**20, 2**26, 1e300, 1e300)
    run = run_scrap(ptg, MultiCluster("edge", (Cluster("a", MAX_PROCS, 1e9),)), "MHEFT-MAX", beta=1.0)
    validate_multicluster(run.schedule, ptg)


@pytest.mark.parametrize(
    ("speeds", "match"),
    [
        ((1.0, 1e290), r"reference cluster has 1.6e291 processors .*must be <= 1048576"),
        ((1e-300, 1e280), r"reference cluster has inf processors"),
        ((1e9, 1e9 * 2**20), r"must be <= 1048576 \(clustersched.scrap.MAX_REF_PROCS\)"),
        ((1e299, 1e299), r"its power, the sum of procs x speed, is 3.2e300 flop/s, must be <= 1e300"),
    ],
)
def test_platforms_beyond_the_limits_are_refused(speeds, match):
    ptg = _chain([1e9, 1e9])
    p = MultiCluster("p", tuple(Cluster(f"k{k}", 16, s) for k, s in enumerate(speeds)))
    with pytest.raises(ValueError, match=match):
        run_scrap(ptg, p, "SCRAP", beta=0.5)


def test_problems_beyond_the_limits_are_invalid_workloads():
    p = MultiCluster("p", (Cluster("a", 2**14, 1e9),))
    ptg = _chain([1e9] * 2048)  # (2048 tasks + 2047 edges) x 2**14 < 2**26
    run_scrap(ptg, p, "HCPA", beta=0.5)
    with pytest.raises(
        InvalidWorkloadError,
        match=r"PTG 0: 2049 tasks and 2048 edges on a reference cluster of "
        r"16384 processors: .* must be <= 67108864",
    ) as info:
        run_scrap(_chain([1e9] * 2049), p, "HCPA", beta=0.5)
    assert info.value.ptg == 0
    # every time a schedule would hold stays below 1e300 s
    with pytest.raises(
        InvalidWorkloadError,
        match=r"one after the other, takes 2e300 s, must be <= 1e300 s "
        r"\(clustersched.scrap.MAX_SECONDS\); the longest is task 0, work 1e300",
    ):
        run_scrap(_chain([1e300, 1e300]), MultiCluster("p", (Cluster("a", 4, 1.0),)), "SCRAP", beta=0.5)
    slow = Network(link_bw=(1e-300,), link_lat=(0.0,), uplink_bw=1.0, uplink_lat=0.0, backbone_bw=1.0, backbone_lat=0.0)
    p = MultiCluster("p", (Cluster("a", 4, 1e9),), slow)
    with pytest.raises(InvalidWorkloadError, match="after its slowest transfer"):
        run_scrap(_chain([1e9, 1e9]), p, "MHEFT-MAX", beta=0.5)
    run_scrap(_chain([1e9, 1e9]), p, "MHEFT-MAX", beta=0.5, comms=False)  # no transfer, no problem


def test_core_of_another_pair_is_refused():
    ptg = random_ptg(12, fat=0.5, regularity=0.8, density=0.5, jump=2, seed=1)
    a = random_multicluster(3, 0.5, 2.0, seed=1)
    b = random_multicluster(3, 0.5, 2.0, seed=2)
    core = problem(ptg, a)
    # issue 20: a core built for platform `a` scheduled on `b` gave 14 violations; now refused
    for name in ALGORITHMS:
        with pytest.raises(
            ValueError,
            match=r"^core == <ScrapProblem: PTG 'random-n12.*' of 14 tasks on "
            r"'c3-s0.5-h2.0'>, must be problem\(ptg, platform\) of this platform "
            r"\('c3-s0.5-h2.0': 3 clusters, \d+ processors\): it was built for another "
            r"platform$",
        ):
            run_scrap(ptg, b, name, beta=0.5, core=core)
    other = random_ptg(12, fat=0.5, regularity=0.8, density=0.5, jump=2, seed=2)
    with pytest.raises(ValueError, match="it was built for another PTG"):
        run_scrap(other, a, "SCRAP", beta=0.5, core=core)
    with pytest.raises(ValueError, match="another PTG"):
        place_reference(other, a, np.ones(len(other), dtype=np.int64), core=core)
    # equal inputs built anew are the same pair
    again = PTG.from_json(ptg.to_json())
    same = MultiCluster(a.name, a.clusters, a.network)
    assert (
        run_scrap(again, same, "SCRAP", beta=0.5, core=core).schedule.rows()
        == run_scrap(ptg, a, "SCRAP", beta=0.5).schedule.rows()
    )
    for bad in (5, 0, "core", core.kernel):
        with pytest.raises(TypeError, match=r"^core == .*, must be None or clustersched.scrap.model.problem"):
            run_scrap(ptg, a, "SCRAP", beta=0.5, core=bad)
    with pytest.raises(TypeError, match=r"^core == 5, must be None or "):
        scrap_allocation(ptg, a, 0.5, core=5)


@pytest.mark.parametrize(
    ("call", "error", "match"),
    [
        (
            lambda ptg, p, s: validate_multicluster(None, ptg),
            TypeError,
            r"^schedule == None, must be a clustersched.scrap.ClusterSchedule$",
        ),
        (lambda ptg, p, s: multicluster_violations(s, None), TypeError, r"^ptg == None, must be a clustersched PTG$"),
        (
            lambda ptg, p, s: run_scrap(ptg, p, "SCRAP", beta=0.5, comms="yes"),
            TypeError,
            r"^comms == 'yes', must be a bool$",
        ),
        (lambda ptg, p, s: run_scrap(ptg, p, "MHEFT-MAX", beta=0.5, rule=5), ValueError, r"^rule == 5, must be one of"),
        (
            lambda ptg, p, s: run_scrap(None, p, "SCRAP", beta=0.5),
            TypeError,
            r"^ptg == None, must be a clustersched PTG$",
        ),
        (lambda ptg, p, s: run_scrap(ptg, None, "SCRAP", beta=0.5), TypeError, r"^platform == None, must be a "),
        (lambda ptg, p, s: run_scrap(ptg, p, "SCRAP", beta=float("nan")), ValueError, r"^beta == nan, must be finite$"),
        (
            lambda ptg, p, s: beta_estimate(ptg, p, ["a"] * len(ptg)),
            TypeError,
            r"^alloc == .*, must be a sequence of int",
        ),
        (
            lambda ptg, p, s: beta_estimate(ptg, p, [1.5] * len(ptg)),
            TypeError,
            r"^alloc == .*, must be a sequence of int",
        ),
        (
            lambda ptg, p, s: translate(ptg, p, [2**40] * len(ptg)),
            ValueError,
            r"^alloc\[0\] == 1099511627776, must be <=",
        ),
        (
            lambda ptg, p, s: ClusterSchedule(s.task, s.cluster[:-1], s.start, s.end, s.proc_offsets, s.proc_ids, p),
            ValueError,
            r"^ClusterSchedule columns differ in length",
        ),
        (
            lambda ptg, p, s: ClusterSchedule(s.task, s.cluster, s.start, s.end, s.proc_offsets[::-1], s.proc_ids, p),
            ValueError,
            r"^proc_offsets must rise from 0",
        ),
        (lambda ptg, p, s: ClusterSchedule(*s.columns(), platform=None), TypeError, r"^platform == None, must be a"),
        (lambda ptg, p, s: multicluster_metrics(None), TypeError, r"^schedule == None, must be a clustersched.scrap"),
        (lambda ptg, p, s: task_bytes(None), TypeError, r"^ptg == None, must be a clustersched PTG$"),
    ],
)
def test_api_inputs_are_typed(call, error, match):
    ptg = random_ptg(6, fat=0.5, regularity=0.8, density=0.5, jump=2, seed=3)
    p = random_multicluster(2, 0.5, 2.0, seed=3)
    s = run_scrap(ptg, p, "SCRAP", beta=0.5).schedule
    with pytest.raises(error, match=match):
        call(ptg, p, s)


def test_a_schedule_of_another_ptg_is_a_list_of_violations():
    ptg = random_ptg(6, fat=0.5, regularity=0.8, density=0.5, jump=2, seed=3)
    other = random_ptg(9, fat=0.5, regularity=0.8, density=0.5, jump=2, seed=4)
    p = random_multicluster(2, 0.5, 2.0, seed=3)
    s = run_scrap(ptg, p, "SCRAP", beta=0.5).schedule
    found = multicluster_violations(s, other)
    assert found and all("never scheduled" in m for m in found)
    assert any(
        "does not exist" in m for m in multicluster_violations(run_scrap(other, p, "SCRAP", beta=0.5).schedule, ptg)
    )


@pytest.mark.parametrize(
    ("option", "message"),
    [
        (
            ["--min-speed", "1e300"],
            "argument --min-speed: invalid value '1e300': must be a finite number in (0, 1e+06]",
        ),
        (
            ["--heterogeneity", "1e300"],
            "argument --heterogeneity: invalid value '1e300': must be a finite number in [1, 100]",
        ),
        (
            ["--heterogeneity", "0.5"],
            "argument --heterogeneity: invalid value '0.5': must be a finite number in [1, 100]",
        ),
    ],
)
def test_cli_speed_options_are_bounded(option, message, capsys):
    from clustersched.cli import main

    with pytest.raises(SystemExit) as info:
        main(["scrap", "--algorithm", "SCRAP", "--beta", "0.5", *option])
    assert info.value.code == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err


def test_cli_extremes_end_in_one_line(capsys):
    from clustersched.cli import main

    # the largest platform the options allow is within the limits: the run ends
    assert (
        main(
            [
                "scrap",
                "--algorithm",
                "MHEFT-MAX",
                "--beta",
                "1",
                "--clusters",
                "64",
                "--heterogeneity",
                "100",
                "--min-speed",
                "1e6",
                "--tasks",
                "5",
                "--json",
            ]
        )
        == 0
    )
    capsys.readouterr()
    # beyond MAX_SIZE or MAX_SECONDS: one typed line, exit 2
    assert (
        main(
            [
                "scrap",
                "--algorithm",
                "SCRAP",
                "--beta",
                "1",
                "--clusters",
                "64",
                "--heterogeneity",
                "100",
                "--tasks",
                "300",
            ]
        )
        == 2
    )
    assert main(["scrap", "--algorithm", "SCRAP", "--beta", "1", "--min-speed", "1e-300"]) == 2
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 2 and "clustersched.scrap.MAX_SIZE" in err[0] and "clustersched.scrap.MAX_SECONDS" in err[1]
