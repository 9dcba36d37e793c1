"""Slurm's scheduler (clustersched.slurm.scheduler, rust/core/src/batch/slurm.rs): the priority factors of every
calculation against the slow reference, the passes' rules on small cases, the sacctmgr and slurm.conf
readings, and the replay of the micro cluster's real run."""

from __future__ import annotations

import math
import os

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from clustersched.batch import simulate
from clustersched.errors import InvalidWorkloadError
from clustersched.platform import Node, NodeCluster, Partition
from clustersched.slurm.replay import compare_starts, real_starts
from clustersched.slurm.scheduler import Accounts, SlurmScheduler, read_sacctmgr
from clustersched.workload import JobTable
from clustersched.workload.requests import Requests

from reference.slurm import age_factor, fairshare_factors, priority, usage_at

SLURM_DATA = os.path.join(os.path.dirname(__file__), "..", "..", "shared", "data", "slurm")
MICRO = os.path.join(SLURM_DATA, "micro")
needs_micro = pytest.mark.skipif(not os.path.isdir(MICRO), reason="../shared/data/slurm/micro is absent")


def _cluster(nodes: int = 3, cores: int = 4) -> NodeCluster:
    names = tuple(f"n{i + 1}" for i in range(nodes))
    return NodeCluster(
        [Node(name, cores, 16_000) for name in names],
        (
            Partition("batch", names, default=True, def_mem_per_cpu=1000),
            Partition("small", names[:1], priority_job_factor=3, def_mem_per_cpu=1000),
        ),
    )


def _table(submit, runtime, limit, tasks, users, accounts, partitions=None) -> JobTable:
    n = len(submit)
    table = JobTable(
        {
            "submit": np.asarray(submit, dtype=float),
            "runtime": np.asarray(runtime, dtype=float),
            "time_requested": np.asarray(limit, dtype=float),
            "procs": np.asarray(tasks),
        },
        metadata={"TimeLimit": "kill"},
    )
    table.requests = Requests(
        {
            "tasks": np.asarray(tasks),
            "user": np.asarray(users, dtype=object),
            "account": np.asarray(accounts, dtype=object),
            "partition": np.asarray(partitions if partitions is not None else [""] * n, dtype=object),
        }
    )
    return table


@st.composite
def priority_cases(draw):
    n = draw(st.integers(1, 30))
    submit = sorted(draw(st.lists(st.integers(0, 2000), min_size=n, max_size=n)))
    runtime = draw(st.lists(st.integers(0, 900), min_size=n, max_size=n))
    over = draw(st.lists(st.integers(0, 600), min_size=n, max_size=n))
    limit = [max(r + o, 1) for r, o in zip(runtime, over)]
    tasks = draw(st.lists(st.integers(1, 8), min_size=n, max_size=n))
    users = draw(st.lists(st.sampled_from(["u1", "u2", "u3", "u4"]), min_size=n, max_size=n))
    account_of = {"u1": "a", "u2": "a", "u3": "b", "u4": "c"}
    partitions = draw(st.lists(st.sampled_from(["", "small"]), min_size=n, max_size=n))
    table = _table(
        submit,
        runtime,
        limit,
        [min(t, 4) if p else t for t, p in zip(tasks, partitions)],
        users,
        [account_of[u] for u in users],
        partitions,
    )
    accounts = Accounts(
        accounts={"a": ("root", draw(st.integers(1, 5))), "b": ("root", draw(st.integers(1, 5))), "c": ("a", 2)},
        users={("u1", "a"): draw(st.integers(1, 3)), ("u2", "a"): 1, ("u3", "b"): 1},
    )
    scheduler = SlurmScheduler(
        weight_age=draw(st.sampled_from([0, 1000, 50_000])),
        weight_fairshare=draw(st.sampled_from([0, 10_000, 50_000])),
        weight_job_size=draw(st.sampled_from([0, 2000])),
        weight_partition=draw(st.sampled_from([0, 500])),
        max_age=draw(st.sampled_from([0.0, 600.0, 3600.0])),
        decay_half_life=draw(st.sampled_from([0.0, 300.0, 7200.0])),
        calc_period=draw(st.sampled_from([60.0, 300.0])),
        damping=draw(st.sampled_from([1.0, 5.0])),
        favor_small=draw(st.booleans()),
        bf_max_job_user=draw(st.sampled_from([0, 2])),
        accounts=accounts,
        log=True,
    )
    return table, scheduler


@given(priority_cases())
@settings(max_examples=60, deadline=None)
def test_every_priority_calculation_agrees_with_the_reference(case):
    table, scheduler = case
    cluster = _cluster()
    result = simulate(table, scheduler, platform=cluster, validate=True)
    info = result.slurm
    jobs = result.jobs
    params, arrays, parent, shares, _ = scheduler.core_arrays(jobs, _resolved(jobs, cluster), cluster)
    parent, shares = parent.tolist(), shares.tolist()
    starts = result.schedule.start
    ends = result.schedule.end
    ref_jobs = [
        {
            "start": float(starts[j]),
            "end": float(ends[j]),
            "association": int(arrays["association"][j]),
            "billing": float(arrays["billing"][j]),
        }
        for j in range(len(jobs))
    ]
    origin = float(jobs.submit[0])
    seen: set[int] = set()
    assert len(info["log_time"]) >= len(jobs)  # every job gets its priority at submission
    for t, j, age, fs, prio in zip(
        info["log_time"], info["log_job"], info["log_age"], info["log_fairshare"], info["log_priority"]
    ):
        at_submission = j not in seen and t == jobs.submit[j]
        seen.add(int(j))
        usage = usage_at(
            t,
            include_tick=not at_submission,
            origin=origin,
            period=scheduler.calc_period,
            half_life=scheduler.decay_half_life,
            tree_parent=parent,
            jobs=ref_jobs,
        )
        want_fs = fairshare_factors(usage, parent, shares, scheduler.damping)[arrays["association"][j]]
        want_age = age_factor(t, arrays["eligible"][j], scheduler.max_age)
        assert fs == pytest.approx(want_fs, rel=1e-9, abs=1e-12), (t, j)
        assert age == want_age, (t, j)
        want = priority(arrays["fixed"][j], want_age, want_fs, scheduler.weight_age, scheduler.weight_fairshare)
        assert abs(int(prio) - want) <= 1, (t, j)  # the fair-share term may round across an integer
    # the factors in force at each start are that job's last calculation before it
    for j in range(len(jobs)):
        rows = np.flatnonzero((info["log_job"] == j) & (info["log_time"] <= starts[j]))
        assert info["priority"][j] == info["log_priority"][rows[-1]]


def _resolved(jobs, cluster):
    from clustersched.batch.nodes import resolve_requests

    return resolve_requests(jobs.requests, cluster, memory=False, slurm_defaults=True, job_id=jobs.job_id)


def test_the_fixed_terms_follow_the_documented_formulas():
    cluster = _cluster(nodes=4, cores=4)  # 4 nodes, 16 CPUs
    table = _table([0, 0], [10, 10], [60, 600], [2, 8], ["u1", "u2"], ["a", "a"], ["", "small"])
    table.requests = Requests(
        {
            **{k: table.requests.columns()[k] for k in ("tasks", "user", "account")},
            "partition": np.asarray(["", "small"], dtype=object),
            "nodes": np.asarray([1, 2]),
        }
    )
    table = table.with_columns(procs=np.asarray([2, 8]))
    s = SlurmScheduler(weight_job_size=1000, weight_partition=300, accounts=None)
    cluster = NodeCluster(
        cluster.nodes,
        (
            Partition("batch", tuple(n.name for n in cluster.nodes), default=True, def_mem_per_cpu=1000),
            Partition("small", ("n1", "n2"), priority_job_factor=3, def_mem_per_cpu=1000),
        ),
    )
    _, arrays, *_ = s.core_arrays(table, _resolved(table, cluster), cluster)
    # favour large: (nodes / 4 + cpus / 16) / 2; partition factor 1/3 and 3/3
    assert arrays["fixed"].tolist() == pytest.approx(
        [1000 * (1 / 4 + 2 / 16) / 2 + 300 / 3, 1000 * (2 / 4 + 8 / 16) / 2 + 300]
    )
    small = s.with_options(favor_small=True)
    _, arrays, *_ = small.core_arrays(table, _resolved(table, cluster), cluster)
    assert arrays["fixed"][0] == pytest.approx(1000 * (3 / 4 + 14 / 16) / 2 + 100)
    relative = s.with_options(size_relative=True, weight_partition=0)
    _, arrays, *_ = relative.core_arrays(table, _resolved(table, cluster), cluster)
    # max(nodes * 16 / 4, cpus) / minutes / 16
    assert arrays["fixed"].tolist() == pytest.approx([1000 * 4 / 1 / 16, 1000 * 8 / 10 / 16])


def test_the_main_pass_stops_at_a_blocked_partition_and_backfill_starts_on_its_tick():
    # one node of 4 cores: A (2 cores) runs to 100; B (4 cores, heavier) waits for it; C (1 core, 50 s)
    # fits now, but the main pass stops at B, so C starts at the first backfill tick (30), ending before
    # B's reservation at 100; D (1 core, 500 s) would overlap B's whole-node reservation: after B
    one = NodeCluster([Node("n1", 4, 16_000)], (Partition("p", ("n1",), default=True, def_mem_per_cpu=1000),))
    table = _table([0, 1, 2, 3], [100, 100, 50, 500], [100, 100, 50, 500], [2, 4, 1, 1], ["u"] * 4, ["a"] * 4)
    fine = SlurmScheduler(weight_job_size=1000, bf_resolution=1)
    result = simulate(table, fine, platform=one, validate=True)
    assert result.schedule.start.tolist() == [0.0, 100.0, 30.0, 200.0]
    assert result.slurm["backfill_starts"] == 1
    assert result.reservations[1] == 100.0
    # bf_resolution 60 (the default) rounds B's reservation down to 60: C would overlap it, and waits
    coarse = simulate(table, fine.with_options(bf_resolution=60), platform=one, validate=True)
    assert coarse.schedule.start.tolist() == [0.0, 100.0, 200.0, 200.0]
    # without a backfill pass (bf_max_job_test=0), C waits for B too
    assert simulate(table, fine.with_options(bf_max_job_test=0), platform=one).schedule.start.tolist()[2] == 200.0


def test_bf_max_job_user_limits_what_one_pass_looks_at():
    # n1 runs job 0 to 100, job 1 (3 nodes) is reserved from 100; user u's four 10-s jobs fit n2 and n3 now:
    # a backfill pass starts two of them at once, but with bf_max_job_user=1 it looks at one job of u a pass
    cluster = _cluster(nodes=3, cores=1)
    table = _table(
        [0, 1, 2, 3, 4, 5],
        [100, 50, 10, 10, 10, 10],
        [100, 50, 10, 10, 10, 10],
        [1, 3, 1, 1, 1, 1],
        ["x", "y", "u", "u", "u", "u"],
        ["a"] * 6,
    )
    loose = SlurmScheduler(weight_job_size=1000, bf_resolution=1)
    tight = loose.with_options(bf_max_job_user=1)
    loose_run = simulate(table, loose, platform=cluster, validate=True)
    tight_run = simulate(table, tight, platform=cluster, validate=True)
    assert loose_run.schedule.start[2:].tolist() == [30, 30, 60, 60]
    assert tight_run.schedule.start[2:].tolist() == [30, 60, 90, 150]
    # the depth sdiag reports: job 1 and u's four at 30, job 1 and u's last two at 60, job 1 at 90; with the
    # limit, job 1 and one of u's at 30, 60 and 90, and u's last alone at 120
    assert (loose_run.slurm["backfill_depth"], tight_run.slurm["backfill_depth"]) == (9, 7)


def test_a_request_no_start_fits_in_the_window_is_searched_once_a_pass():
    # n1 is busy for a day, far beyond a 1-minute window: job 1's search finds nothing, and job 2 (the same
    # request, as long) is tested but not searched again, in every pass while job 0 runs
    cluster = _cluster(nodes=1, cores=1)
    table = _table([0, 1, 2], [86_400, 10, 10], [86_400, 10, 10], [1, 1, 1], ["x", "y", "z"], ["a"] * 3)
    run = simulate(table, SlurmScheduler(bf_window=1, bf_resolution=1), platform=cluster, validate=True)
    assert run.schedule.start.tolist() == [0, 86_400, 86_410]
    # (job 2 alone is searched, and reserved from 86,410, in a pass while job 1 runs)
    assert np.isnan(run.reservations[1]) and run.reservations[2] == 86_410
    searched = run.slurm["backfill_try_depth"]
    assert searched >= 200 and run.slurm["backfill_depth"] == 2 * (searched - 1) + 1


def test_jobs_are_killed_at_their_time_limit_and_idle_stretches_cost_no_events():
    cluster = _cluster()
    table = _table([0, 10, 1_000_000], [500, 20, 5], [100, 30, 10], [1, 1, 1], ["u"] * 3, ["a"] * 3)
    result = simulate(table, "slurm", platform=cluster, validate=True)
    assert result.schedule.end.tolist() == [100.0, 30.0, 1_000_005.0]
    assert result.schedule.killed.tolist() == [True, False, False]
    assert result.events < 20  # nothing runs or waits for 11 days: no timer fires


def test_slurm_needs_nodes_and_valid_parameters():
    table = _table([0], [1], [1], [1], ["u"], ["a"])
    with pytest.raises(ValueError, match="platform"):
        simulate(table, "slurm", procs=4)
    with pytest.raises(ValueError, match="bf_interval"):
        simulate(table, SlurmScheduler(bf_interval=0), platform=_cluster())
    # periods shorter than Slurm's units would size the replay by its timers: refused, naming the unit
    for option, value in (("bf_interval", 0.001), ("sched_interval", 0.5), ("bf_resolution", 0.01), ("calc_period", 1)):
        with pytest.raises(ValueError, match=f"{option} == .*Slurm's unit"):
            simulate(table, SlurmScheduler(**{option: value}), platform=_cluster())


def test_sacctmgr_scripts_give_the_tree_and_qos(tmp_path):
    script = tmp_path / "accounts.script"
    script.write_text(
        "modify QOS set normal Priority=0\nadd QOS Name=high Priority=100\n"
        "add account name=phys,chem Fairshare=40\nadd account name=theory parent=phys fairshare=10\n"
        "add user name=ann,bob DefaultAccount=phys Fairshare=2\nadd user name=cy Account=theory\n"
        "list associations\n"
    )
    accounts = read_sacctmgr(str(script))
    assert accounts.qos == {"normal": 0, "high": 100}
    assert accounts.accounts == {"phys": ("root", 40.0), "chem": ("root", 40.0), "theory": ("phys", 10.0)}
    assert accounts.users == {("ann", "phys"): 2.0, ("bob", "phys"): 2.0, ("cy", "theory"): 1.0}
    parent, shares, notes, where = accounts.tree([("phys", "ann"), ("math", "dan")])
    theory = parent[where[("theory", "cy")]]
    assert shares[theory] == 10 and shares[parent[theory]] == 40 and parent[parent[theory]] == 0
    assert shares[where[("phys", "ann")]] == 2 and shares[where[("math", "dan")]] == 1
    assert notes and "math" in notes[0]
    script.write_text("add account name=x Fairshare=lots\n")
    with pytest.raises(InvalidWorkloadError, match="line 1"):
        read_sacctmgr(str(script))


@needs_micro
def test_the_micro_cluster_replay_is_closer_to_the_real_run_than_easy_and_fcfs():
    from clustersched.slurm import read_sacct, read_slurm_conf

    conf = read_slurm_conf(os.path.join(MICRO, "slurm.conf"))
    table = read_sacct(os.path.join(MICRO, "slurm_acct.out"))
    scheduler = SlurmScheduler.from_conf(conf, os.path.join(MICRO, "sacctmgr.script"))
    assert (scheduler.bf_max_job_test, scheduler.bf_max_job_user, scheduler.bf_window) == (1200, 20, 4320)
    assert (scheduler.max_age, scheduler.decay_half_life, scheduler.damping) == (5 * 3600, 4 * 3600, 5)
    reports = {}
    for policy in ("fcfs", "easy", scheduler):
        result = simulate(table, policy, platform=conf.platform, validate=True)
        reports[result.algorithm] = compare_starts(result.schedule, result.jobs).summary()
    slurm, easy, fcfs = reports["slurm"], reports["easy"], reports["fcfs"]
    assert slurm["real_mean_wait"] == pytest.approx(12301.354)
    assert abs(slurm["mean_wait"] / slurm["real_mean_wait"] - 1) < 0.05
    for other in (easy, fcfs):
        assert slurm["median_abs_delta"] < other["median_abs_delta"]
        assert slurm["within_10min"] > other["within_10min"]
        assert slurm["kendall_tau"] > other["kendall_tau"]
    assert real_starts(table) is not None and math.isfinite(slurm["kendall_tau"])


def test_age_counts_from_the_eligible_time_a_dump_records():
    table = _table([0, 0], [10, 10], [60, 60], [1, 1], ["u", "u"], ["a", "a"])
    columns = table.requests.columns()
    table.requests = Requests({**columns, "eligible": np.asarray([-1.0, 500.0])})  # -1: unknown, the submit time
    cluster = _cluster()
    _, arrays, *_ = SlurmScheduler().core_arrays(table, _resolved(table, cluster), cluster)
    assert arrays["eligible"].tolist() == [0.0, 500.0]
