"""Batsim workloads (JSON) in and out: read_batsim and write_batsim.

A Batsim JSON workload and the same jobs as SWF give identical schedules
under every built-in policy; malformed workloads, missing fields and profile
types other than delay raise typed errors naming the file and the job.
"""

from __future__ import annotations

import dataclasses
import gzip
import json

import numpy as np
import pytest

import clustersched as cs
from clustersched.batch import ALGORITHMS
from clustersched.errors import InvalidWorkloadError
from clustersched.workload import JobTable, read_batsim, read_swf, write_batsim, write_swf


@pytest.fixture(scope="module")
def week():
    return read_swf(cs.sample_trace())


#: A Batsim workload written by hand: string ids with a workload prefix, shared delay profiles,
#: a walltime, one job without one, a profile of each Batsim spelling, a fractional time.
BATSIM_WORKLOAD = {
    "nb_res": 8,
    "description": "hand-made",
    "jobs": [
        {"id": "w0!1", "subtime": 0, "walltime": 120, "res": 4, "profile": "p100"},
        {"id": "w0!2", "subtime": 5, "walltime": 50, "res": 8, "profile": "p30"},
        {"id": "w0!3", "subtime": 5, "res": 2, "profile": "p100", "extra_data": '{"user": 3}'},
        {"id": "w0!4", "subtime": 12.5, "walltime": 400, "res": 3, "profile": "p300"},
        {"id": "w0!5", "subtime": 20, "walltime": 40, "res": 1, "profile": "p30"},
        {"id": "w0!6", "subtime": 21, "walltime": 1000, "res": 5, "profile": "p300"},
    ],
    "profiles": {
        "p100": {"type": "delay", "delay": 100},
        "p30": {"type": "DelayProfile", "delay": 30.5},
        "p300": {"type": "delay", "delay": 300, "ret": 0},
    },
}

#: The same jobs as an SWF trace, written by hand (with the rule of Batsim workloads: killed at the walltime).
SAME_JOBS_SWF = """\
; MaxProcs: 8
; TimeLimit: kill
1    0 -1 100   -1 -1 -1 4  120 -1 -1 -1 -1 -1 -1 -1 -1 -1
2    5 -1 30.5  -1 -1 -1 8   50 -1 -1 -1 -1 -1 -1 -1 -1 -1
3    5 -1 100   -1 -1 -1 2   -1 -1 -1 -1 -1 -1 -1 -1 -1 -1
4 12.5 -1 300   -1 -1 -1 3  400 -1 -1 -1 -1 -1 -1 -1 -1 -1
5   20 -1 30.5  -1 -1 -1 1   40 -1 -1 -1 -1 -1 -1 -1 -1 -1
6   21 -1 300   -1 -1 -1 5 1000 -1 -1 -1 -1 -1 -1 -1 -1 -1
"""


def _write_json(path, doc):
    path.write_text(json.dumps(doc, indent=1))
    return path


@pytest.mark.parametrize("policy", ALGORITHMS)
@pytest.mark.parametrize("estimates", ["requested", "exact"])
def test_a_batsim_workload_and_the_same_jobs_as_swf_give_identical_schedules(policy, estimates, tmp_path):
    batsim = read_batsim(_write_json(tmp_path / "w.json", BATSIM_WORKLOAD))
    (tmp_path / "w.swf").write_text(SAME_JOBS_SWF)
    swf = read_swf(tmp_path / "w.swf")
    assert batsim.equals(swf)
    a, b = cs.simulate(batsim, policy, estimates=estimates), cs.simulate(swf, policy, estimates=estimates)
    for name in ("job_id", "submit", "start", "end", "procs", "proc_offsets", "proc_first", "proc_count"):
        np.testing.assert_array_equal(getattr(a.schedule, name), getattr(b.schedule, name), err_msg=name)


@pytest.mark.parametrize("policy", ALGORITHMS)
def test_the_bundled_week_through_batsim_json_gives_identical_schedules(week, policy, tmp_path):
    back = read_batsim(write_batsim(week, tmp_path / "week.json.gz"))
    a, b = cs.simulate(back, policy), cs.simulate(week, policy)
    np.testing.assert_array_equal(a.schedule.start, b.schedule.start)
    np.testing.assert_array_equal(a.schedule.proc_first, b.schedule.proc_first)


def test_read_batsim_columns(tmp_path):
    t = read_batsim(_write_json(tmp_path / "w.json", BATSIM_WORKLOAD))
    assert t.job_id.tolist() == [1, 2, 3, 4, 5, 6] and t.max_procs == 8 and t.source == str(tmp_path / "w.json")
    assert t.runtime.tolist() == [100, 30.5, 100, 300, 30.5, 300]
    assert t.procs_requested.tolist() == [4, 8, 2, 3, 1, 5] and (t.procs == -1).all()
    assert t.time_requested.tolist() == [120, 50, -1, 400, 40, 1000]
    assert t.submit.dtype == np.float64 and t.job_id.dtype == np.int64
    assert "BatsimIds" not in t.metadata


@pytest.mark.parametrize(
    ("ids", "numbers", "renumbered"),
    [
        ([1, 2, 30], [1, 2, 30], False),
        (["7", "3", "5"], [7, 3, 5], False),
        (["w0!7", "w1!3", "other!5"], [7, 3, 5], False),
        (["w0!7", "w0!!3", "w0!5"], [1, 2, 3], True),  # Batsim's job name is after the first '!': "!3"
        (["a", "b", "c"], [1, 2, 3], True),
        (["w0!1", "w1!1", "w0!2"], [1, 2, 3], True),  # numbers collide across workloads
        (["1", "01", "2"], [1, 2, 3], True),
        (["1", "2", "1.5"], [1, 2, 3], True),
    ],
)
def test_batsim_ids_become_job_numbers(ids, numbers, renumbered, tmp_path):
    doc = {
        "nb_res": 2,
        "profiles": {"p": {"type": "delay", "delay": 1}},
        "jobs": [{"id": i, "subtime": k, "res": 1, "profile": "p"} for k, i in enumerate(ids)],
    }
    t = read_batsim(_write_json(tmp_path / "w.json", doc))
    assert t.job_id.tolist() == numbers
    assert ("BatsimIds" in t.metadata) == renumbered


def test_write_batsim_round_trips_and_raises_walltimes_to_the_run_time(tmp_path):
    t = JobTable(
        {
            "job_id": [4, 9, 2],
            "submit": [0, 3.25, 7],
            "runtime": [50, 20, 0],
            "procs": [2, -1, 1],
            "procs_requested": [2, 3, 1],
            "time_requested": [40, 100, -1],
        },
        metadata={"MaxProcs": "4"},
    )
    doc = json.loads(write_batsim(t, tmp_path / "w.json").read_text())
    assert doc["nb_res"] == 4
    assert doc["jobs"][0] == {"id": "4", "subtime": 0, "walltime": 50, "res": 2, "profile": "delay_50"}
    assert [j["walltime"] for j in doc["jobs"]] == [50, 100, -1]  # max(request, run time); -1 stays
    assert [j["res"] for j in doc["jobs"]] == [2, 3, 1]
    assert doc["profiles"] == {
        "delay_50": {"type": "delay", "delay": 50},
        "delay_20": {"type": "delay", "delay": 20},
        "delay_0": {"type": "delay", "delay": 0},
    }
    back = read_batsim(tmp_path / "w.json")
    assert back.job_id.tolist() == [4, 9, 2] and back.submit.tolist() == [0, 3.25, 7]
    assert back.runtime.tolist() == [50, 20, 0] and back.time_requested.tolist() == [50, 100, -1]
    assert back.width().tolist() == t.width().tolist()
    for estimates in ("requested", "exact"):
        np.testing.assert_array_equal(
            cs.simulate(back, "easy", estimates=estimates).schedule.start,
            cs.simulate(t, "easy", estimates=estimates).schedule.start,
        )
    raw = json.loads(write_batsim(t, tmp_path / "r.json", walltime="requested", nb_res=16).read_text())
    assert [j["walltime"] for j in raw["jobs"]] == [40, 100, -1] and raw["nb_res"] == 16
    with gzip.open(write_batsim(t, tmp_path / "w.json.gz"), "rt") as f:
        assert json.load(f) == doc


def test_write_batsim_refuses_what_a_delay_profile_cannot_hold(tmp_path):
    t = JobTable({"job_id": [1, 2], "submit": [0, 1], "runtime": [5, -1], "procs": [1, 1]}, metadata={"MaxProcs": "2"})
    with pytest.raises(InvalidWorkloadError, match=r"job 2 \(row 1\), field 'runtime'.*drop_invalid") as e:
        write_batsim(t, tmp_path / "w.json")
    assert e.value.job_id == 2 and e.value.path == str(tmp_path / "w.json")
    with pytest.raises(InvalidWorkloadError, match=r"job 1 \(row 0\), field 'procs'"):
        write_batsim(JobTable({"submit": [0], "runtime": [1]}, metadata={"MaxProcs": "2"}), tmp_path / "w.json")
    with pytest.raises(InvalidWorkloadError, match=r"job 3 \(row \d\), field 'job_id'"):
        write_batsim(
            JobTable(
                {"job_id": [3, 3], "submit": [0, 1], "runtime": [1, 1], "procs": [1, 1]}, metadata={"MaxProcs": "2"}
            ),
            tmp_path / "w.json",
        )
    with pytest.raises(ValueError, match="pass nb_res="):
        write_batsim(JobTable({"submit": [0], "runtime": [1], "procs": [1]}), tmp_path / "w.json")
    with pytest.raises(ValueError, match="walltime == 'max'"):
        write_batsim(t, tmp_path / "w.json", walltime="max")
    assert not (tmp_path / "w.json").exists()


def _job(**fields):
    return {"id": "1", "subtime": 0, "walltime": 10, "res": 1, "profile": "p", **fields}


def _without(job, key):
    return {k: v for k, v in job.items() if k != key}


DELAY = {"p": {"type": "delay", "delay": 5}}


@pytest.mark.parametrize(
    ("doc", "match", "field"),
    [
        ([1, 2], "holds a JSON list", None),
        ({"jobs": [_job()], "profiles": DELAY}, "has no 'nb_res'", "nb_res"),
        ({"nb_res": 4, "profiles": DELAY}, "has no 'jobs'", "jobs"),
        ({"nb_res": 4, "jobs": [_job()]}, "has no 'profiles'", "profiles"),
        ({"nb_res": 0, "jobs": [_job()], "profiles": DELAY}, "nb_res == 0, must be a positive integer", "nb_res"),
        ({"nb_res": "4", "jobs": [_job()], "profiles": DELAY}, "nb_res == '4'", "nb_res"),
        ({"nb_res": 4, "jobs": {}, "profiles": DELAY}, "'jobs' is a JSON dict, must be an array", "jobs"),
        ({"nb_res": 4, "jobs": [], "profiles": DELAY}, "contains no jobs", "jobs"),
        ({"nb_res": 4, "jobs": [_job()], "profiles": []}, "'profiles' is a JSON list", "profiles"),
        ({"nb_res": 4, "jobs": [_job(), 3], "profiles": DELAY}, r"jobs\[1\]: is a JSON int", None),
        (
            {"nb_res": 4, "jobs": [_job(), _without(_job(id="2"), "subtime")], "profiles": DELAY},
            r"jobs\[1\] \(id '2'\): has no 'subtime'",
            "subtime",
        ),
        (
            {"nb_res": 4, "jobs": [_without(_job(), "res")], "profiles": DELAY},
            r"jobs\[0\] \(id '1'\): has no 'res'",
            "res",
        ),
        ({"nb_res": 4, "jobs": [_without(_job(), "id")], "profiles": DELAY}, r"jobs\[0\]: has no 'id'", "id"),
        ({"nb_res": 4, "jobs": [_without(_job(), "profile")], "profiles": DELAY}, "has no 'profile'", "profile"),
        ({"nb_res": 4, "jobs": [_job(id=None)], "profiles": DELAY}, "id == None, must be a string", "id"),
        ({"nb_res": 4, "jobs": [_job(res=0)], "profiles": DELAY}, r"\(id '1'\): res == 0, must be a positive", "res"),
        ({"nb_res": 4, "jobs": [_job(res=2.5)], "profiles": DELAY}, "res == 2.5", "res"),
        ({"nb_res": 4, "jobs": [_job(subtime=-1)], "profiles": DELAY}, "subtime == -1, must be >= 0", "subtime"),
        ({"nb_res": 4, "jobs": [_job(subtime="0")], "profiles": DELAY}, "subtime == '0', must be a number", "subtime"),
        ({"nb_res": 4, "jobs": [_job(walltime=0)], "profiles": DELAY}, "walltime == 0, must be > 0, or -1", "walltime"),
        ({"nb_res": 4, "jobs": [_job(walltime=1e300)], "profiles": DELAY}, "walltime == 1e.300", "walltime"),
        ({"nb_res": 4, "jobs": [_job(profile="q")], "profiles": DELAY}, "profile 'q' is not defined", "profile"),
        ({"nb_res": 4, "jobs": [_job(profile=3)], "profiles": DELAY}, "profile == 3, must be the name", "profile"),
        (
            {"nb_res": 4, "jobs": [_job()], "profiles": {"p": {"type": "delay"}}},
            "profile 'p' .*has no 'delay'",
            "delay",
        ),
        (
            {"nb_res": 4, "jobs": [_job()], "profiles": {"p": {"type": "delay", "delay": -5}}},
            "profile 'p': delay == -5, must be >= 0",
            "delay",
        ),
        (
            {"nb_res": 4, "jobs": [_job(), _job()], "profiles": DELAY},
            r"jobs\[1\] has id '1', already used by jobs\[0\]",
            "id",
        ),
    ],
)
def test_malformed_batsim_workloads_raise_typed_errors_naming_file_and_job(doc, match, field, tmp_path):
    path = _write_json(tmp_path / "bad.json", doc)
    with pytest.raises(InvalidWorkloadError, match=match) as e:
        read_batsim(path)
    assert e.value.path == str(path) and str(e.value).startswith(str(path))
    assert e.value.field == field


@pytest.mark.parametrize(
    "profile",
    [
        {"type": "parallel", "cpu": [1e9], "com": [0]},
        {"type": "parallel_homogeneous", "cpu": 1e9, "com": 0},
        {"type": "ParallelTaskProfile", "cpu": [1e9], "com": [0]},
        {"type": "composed", "seq": ["d"]},
        {"type": "SequentialCompositionProfile", "seq": ["d"]},
        {"type": "TraceReplayProfile", "trace_type": "SMPI", "filename": "t.txt"},
        {"delay": 5},
        "delay",
    ],
)
def test_other_profile_types_are_refused_saying_only_delay_profiles_are_supported(profile, tmp_path):
    doc = {
        "nb_res": 4,
        "profiles": {"d": {"type": "delay", "delay": 5}, "x": profile},
        "jobs": [_job(id="w0!1", profile="d"), _job(id="w0!2", profile="x")],
    }
    path = _write_json(tmp_path / "w.json", doc)
    with pytest.raises(InvalidWorkloadError) as e:
        read_batsim(path)
    message = str(e.value)
    assert message.startswith(f"{path}: jobs[1] (id 'w0!2'): profile 'x' has ")  # names the field once
    assert "only delay profiles" in message
    kind = profile.get("type") if isinstance(profile, dict) else None
    assert (f"type {kind!r}" if isinstance(profile, dict) else "a JSON str") in message
    assert e.value.value == kind


def test_files_that_are_not_json_raise_with_the_line(tmp_path):
    path = tmp_path / "w.json"
    path.write_text('{"nb_res": 4,\n "jobs": [\n  {"id": "1",, }\n ]}')
    with pytest.raises(InvalidWorkloadError, match=r"w.json:3: is not valid JSON") as e:
        read_batsim(path)
    assert e.value.line == 3
    path.write_bytes(b'{"nb_res": \xff}')
    with pytest.raises(InvalidWorkloadError, match="is not UTF-8"):
        read_batsim(path)
    path.write_bytes(gzip.compress(b'{"nb_res": 4}')[:-6])
    with pytest.raises(InvalidWorkloadError, match="gzip data is truncated"):
        read_batsim(path)
    with pytest.raises(FileNotFoundError):
        read_batsim(tmp_path / "missing.json")
    with pytest.raises(TypeError, match="must be a file name"):
        read_batsim(3)


def test_read_trace_tells_batsim_from_swf_by_content(week, tmp_path):
    from clustersched.workload import read_trace
    from clustersched.workload.formats import trace_format

    for name in ("week.json", "week.json.gz", "week-no-suffix"):
        path = write_batsim(week, tmp_path / name)
        assert trace_format(path) == "batsim"
        assert read_trace(path).equals(read_batsim(path))
    for name in ("week.swf", "week.swf.gz", "week-plain"):
        path = write_swf(week, tmp_path / name)
        assert trace_format(path) == "swf"
        assert read_trace(path).equals(week)
    assert cs.read_trace(cs.sample_trace()).equals(week)
    (tmp_path / "bom.json").write_bytes(b"\xef\xbb\xbf\n " + json.dumps(BATSIM_WORKLOAD).encode())
    assert read_trace(tmp_path / "bom.json").equals(read_batsim(_write_json(tmp_path / "w.json", BATSIM_WORKLOAD)))
    (tmp_path / "bad.json").write_text('{"nb_res": 4, "jobs": [')
    with pytest.raises(InvalidWorkloadError, match="bad.json:1: is not valid JSON"):
        read_trace(tmp_path / "bad.json")
    (tmp_path / "bad.swf").write_text("1 2 3\n")
    with pytest.raises(InvalidWorkloadError, match="bad.swf:1: line has 3 fields"):
        read_trace(tmp_path / "bad.swf")
    with pytest.raises(FileNotFoundError):
        read_trace(tmp_path / "missing")


# --- time-limit kills (issue 30): Batsim kills a job at its walltime; SWF runs it to its end ------------------

#: Batsim's own test_walltime.json runs jobs of a 10 s delay under walltimes 1..20 (9 of its 22 jobs killed);
#: this is our own workload in its spirit: a 30 s delay under walltimes 3, 6, ..., 45 (9 killed: 3..27; 30 ends
#: exactly at its walltime and completes), a job without walltime, one with -1, and one of 2 resources.
KILL_DOC = {
    "nb_res": 16,
    "jobs": [{"id": f"w0!{k}", "subtime": k % 4, "walltime": 3 * k, "res": 1, "profile": "d30"} for k in range(1, 16)]
    + [
        {"id": "w0!16", "subtime": 2, "res": 2, "profile": "d30"},
        {"id": "w0!17", "subtime": 30, "walltime": -1, "res": 16, "profile": "d30"},
        {"id": "w0!18", "subtime": 31, "walltime": 12.5, "res": 4, "profile": "d30"},
    ],
    "profiles": {"d30": {"type": "DelayProfile", "delay": 30}},
}
KILLED_IDS = [1, 2, 3, 4, 5, 6, 7, 8, 9, 18]


@pytest.mark.parametrize("policy", ALGORITHMS)
@pytest.mark.parametrize("estimates", ["requested", "exact"])
def test_a_batsim_job_whose_delay_exceeds_its_walltime_is_killed_at_it(policy, estimates, tmp_path):
    from clustersched.batch.validate import batch_violations

    jobs = read_batsim(_write_json(tmp_path / "w.json", KILL_DOC))
    run = cs.simulate(jobs, policy, estimates=estimates)  # validated (CLUSTERSCHED_VALIDATE=1)
    s, t = run.schedule, run.jobs
    killed = s.job_id[s.killed].tolist()
    assert sorted(killed) == KILLED_IDS and s.kills == 10
    limit = np.where(s.killed, t.time_requested, t.runtime)
    np.testing.assert_array_equal(s.end, s.start + limit)  # killed: start + walltime; else start + delay
    assert ((s.end - s.start)[~s.killed] == 30).all()
    assert run.summary()["killed"] == 10 and cs.batch_metrics(s).summary()["killed"] == 10
    assert cs.batch_metrics(s, warmup=1).killed == 10 - int(s.killed[0])
    assert (t.runtime == 30).all()  # the table keeps the delay; the schedule says what ran
    # the validator applies the same rule: a killed job run to its end, or a flag lost, is a violation
    tampered = dataclasses.replace(s, end=s.start + t.runtime)
    assert any("killed at its time limit" in v for v in batch_violations(tampered, t))
    assert any("does not mark it killed" in v for v in batch_violations(dataclasses.replace(s, killed=~s.killed), t))
    assert any("no killed column" in v for v in batch_violations(dataclasses.replace(s, killed=None), t))
    # the same schedule as the same jobs running min(delay, walltime) with no rule at all
    ran = JobTable(t.with_columns(runtime=limit).columns(), metadata={"MaxProcs": "16"})
    plain = cs.simulate(ran, policy, estimates=estimates).schedule
    assert plain.killed is None
    np.testing.assert_array_equal(plain.start, s.start)
    np.testing.assert_array_equal(plain.end, s.end)


def test_killed_jobs_in_the_batsim_jobs_csv_swf_and_tables(tmp_path):
    import csv

    from clustersched.batch.formats import write_batsim_jobs, write_schedule_csv, write_schedule_swf

    run = cs.simulate(read_batsim(_write_json(tmp_path / "w.json", KILL_DOC)), "easy")
    s = run.schedule
    with open(write_batsim_jobs(s, run.jobs, tmp_path / "out_jobs.csv")) as f:
        rows = {int(r["job_id"]): r for r in csv.DictReader(f)}
    for job, r in rows.items():
        if job in KILLED_IDS:
            assert (r["final_state"], r["success"]) == ("COMPLETED_WALLTIME_REACHED", "0")
            assert float(r["execution_time"]) == float(r["requested_time"]) < 30
        else:
            assert (r["final_state"], r["success"], r["execution_time"]) == ("COMPLETED_SUCCESSFULLY", "1", "30")
    with open(write_schedule_csv(s, run.jobs, tmp_path / "s.csv")) as f:
        rows = list(csv.DictReader(f))
    assert sorted(int(r["job_id"]) for r in rows if r["killed"] == "1") == KILLED_IDS
    assert run.schedule.to_pandas(run.jobs)["killed"].sum() == 10
    back = read_swf(write_schedule_swf(s, run.jobs, tmp_path / "s.swf"))
    assert sorted(back.job_id[back.status == 0].tolist()) == KILLED_IDS and (back.status[back.status != 0] == 1).all()
    np.testing.assert_array_equal(back.runtime, s.end - s.start)
    np.testing.assert_array_equal(cs.simulate(back, "easy").schedule.start, s.start)
    # written back as a Batsim workload, the walltimes stay: Batsim kills the same jobs
    doc = json.loads(write_batsim(run.jobs, tmp_path / "again.json").read_text())
    assert [j["walltime"] for j in doc["jobs"]] == run.jobs.time_requested.tolist()
    assert sorted(cs.simulate(read_batsim(tmp_path / "again.json"), "easy").schedule.job_id[s.killed]) == KILLED_IDS


def test_swf_jobs_run_past_their_request_to_the_end(week, tmp_path):
    # the same jobs as SWF, without the rule: nothing killed (today's run-to-completion)
    jobs = read_batsim(_write_json(tmp_path / "w.json", KILL_DOC))
    swf = read_swf(write_swf(JobTable(jobs.columns(), metadata={"MaxProcs": "16"}), tmp_path / "w.swf"))
    run = cs.simulate(swf, "easy")
    assert run.schedule.killed is None and run.schedule.kills == 0 and run.summary()["killed"] == 0
    np.testing.assert_array_equal(run.schedule.end, run.schedule.start + swf.runtime)
    # HPC2N's week: jobs that ran past their request still run to their end
    over = (week.time_requested > 0) & (week.runtime > week.time_requested)
    assert over.sum() > 0
    easy = cs.simulate(week, "easy")
    np.testing.assert_array_equal(easy.schedule.end, easy.schedule.start + easy.jobs.runtime)
    assert easy.schedule.killed is None and easy.summary()["killed"] == 0


def test_the_simulate_command_reports_the_kills(tmp_path, capsys):
    from clustersched.cli import main

    path = _write_json(tmp_path / "w.json", KILL_DOC)
    assert main(["simulate", str(path), "--policy", "fcfs"]) == 0
    err = capsys.readouterr().err
    assert "10 of 18 job(s) killed at their time limit" in err
    week = write_swf(read_batsim(path), tmp_path / "w.swf")  # the header keeps TimeLimit: kill
    assert main(["simulate", str(week)]) == 0 and "10 of 18" in capsys.readouterr().err
    plain = write_swf(JobTable(read_batsim(path).columns(), metadata={"MaxProcs": "16"}), tmp_path / "p.swf")
    assert main(["simulate", str(plain)]) == 0 and "killed" not in capsys.readouterr().err


# --- limits (issue 31): integers beyond int64, JSON nested beyond a depth limit -----------------------------


@pytest.mark.parametrize(
    ("text", "match", "field"),
    [
        (
            '{"nb_res": 4, "jobs": [{"id": "1", "subtime": 0, "res": 9223372036854775808, "profile": "p"}], '
            '"profiles": {"p": {"type": "delay", "delay": 5}}}',
            r"res == 9223372036854775808, .*beyond int64",
            "res",
        ),
        (
            '{"nb_res": 4, "jobs": [{"id": "1", "subtime": 0, "res": 4294967296, "profile": "p"}], '
            '"profiles": {"p": {"type": "delay", "delay": 5}}}',
            r"res == 4294967296, .*at most 4294967295",
            "res",
        ),
        (
            '{"nb_res": 9223372036854775808, "jobs": [{"id": "1", "subtime": 0, "res": 1, "profile": "p"}], '
            '"profiles": {"p": {"type": "delay", "delay": 5}}}',
            "nb_res == 9223372036854775808",
            "nb_res",
        ),
        (
            '{"nb_res": 4, "jobs": [{"id": "1", "subtime": 1' + "0" * 400 + ', "res": 1, "profile": "p"}], '
            '"profiles": {"p": {"type": "delay", "delay": 5}}}',
            r"subtime == 1000.*\(401 characters\)",
            "subtime",
        ),
        (
            '{"nb_res": 4, "jobs": [{"id": "1", "subtime": 0, "res": 1, "profile": "p"}], '
            '"profiles": {"p": {"type": "delay", "delay": 1' + "0" * 330 + "}}}",
            r"delay == 1000.*must be >= 0",
            "delay",
        ),
        (
            '{"nb_res": 4, "jobs": [{"id": "1", "subtime": 0, "res": 1, "walltime": 9223372036854775808, '
            '"profile": "p"}], "profiles": {"p": {"type": "delay", "delay": 5}}}',
            "walltime == 9223372036854775808",
            "walltime",
        ),
    ],
)
def test_integers_beyond_what_a_field_holds_raise_typed_errors(text, match, field, tmp_path):
    path = tmp_path / "big.json"
    path.write_text(text)
    with pytest.raises(InvalidWorkloadError, match=match) as e:  # was OverflowError
        read_batsim(path)
    assert e.value.path == str(path) and str(e.value).startswith(str(path)) and e.value.field == field


def test_integers_of_thousands_of_digits_raise_typed_errors(tmp_path):
    path = tmp_path / "digits.json"
    path.write_text(
        '{"nb_res": 4, "jobs": [{"id": "1", "subtime": ' + "9" * 5000 + ', "res": 1, "profile": "p"}], '
        '"profiles": {"p": {"type": "delay", "delay": 5}}}'
    )
    with pytest.raises(InvalidWorkloadError, match="holds an integer of more than [0-9]+ digits") as e:
        read_batsim(path)  # was a bare ValueError from Python's int conversion
    assert str(e.value).startswith(str(path))


@pytest.mark.parametrize("depth", [100_000, 2_000, 65])
def test_json_nested_beyond_the_depth_limit_raises_a_typed_error(depth, tmp_path):
    from clustersched.workload.batsim import MAX_DEPTH

    path = tmp_path / "deep.json"
    path.write_text(
        '{"nb_res": 4, "extra": ' + "[" * depth + "]" * depth + ', "jobs": [{"id": "1", "subtime": 0, '
        '"res": 1, "profile": "p"}], "profiles": {"p": {"type": "delay", "delay": 5}}}'
    )
    with pytest.raises(InvalidWorkloadError, match="nested (deeper than|more than) [0-9]+ levels") as e:
        read_batsim(path)  # 100,000 deep was a RecursionError
    assert str(e.value).startswith(str(path))
    ok = tmp_path / "ok.json"  # the limit itself is fine
    ok.write_text(
        path.read_text().replace("[" * depth, "[" * (MAX_DEPTH - 1)).replace("]" * depth, "]" * (MAX_DEPTH - 1))
    )
    assert len(read_batsim(ok)) == 1
