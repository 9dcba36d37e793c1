"""read_sacct: sacct -P dumps in (issue 34, items 6 and 7), the micro cluster's real run, a mutation corpus."""

from __future__ import annotations

import gzip

import numpy as np
import pytest

from clustersched.errors import InvalidWorkloadError
from clustersched.slurm import read_sacct
from clustersched.workload import Requests

from support import slurm_path

HEADER = "JobID|JobIDRaw|Partition|Account|User|Submit|Eligible|Start|End|Elapsed|State|NNodes|NCPUS|ReqCPUS|ReqMem|ReqGRES|Timelimit|QOS|NodeList"  # noqa: E501
GOOD = [
    "10|10|normal|acc1|alice|2021-02-11T22:00:00|2021-02-11T22:00:00|2021-02-11T22:00:10|2021-02-11T22:05:10|00:05:00|COMPLETED|1|4|4|2800Mc||00:10:00|normal|n1",  # noqa: E501
    "10.batch|10.batch||acc1||2021-02-11T22:00:10|2021-02-11T22:00:10|2021-02-11T22:00:10|2021-02-11T22:05:10|00:05:00|COMPLETED|1|4|4|2800Mc|||normal|n1",  # noqa: E501
    "11_3|14|debug|acc2|bob|2021-02-11T22:01:00|2021-02-11T22:01:00|2021-02-11T22:02:00|2021-02-11T22:02:30|00:00:30|TIMEOUT|2|24|24|500000Mn|gpu:tesla:2|1-00:00:00|high|g[1-2]",  # noqa: E501
]


def _dump(tmp_path, lines, header=HEADER, name="sacct.txt"):
    path = tmp_path / name
    path.write_text("\n".join([header, *lines]) + "\n")
    return path


def test_a_small_dump_by_hand(tmp_path):
    t = read_sacct(_dump(tmp_path, GOOD))
    assert t.job_id.tolist() == [10, 14]  # JobIDRaw
    assert t.submit.tolist() == [0.0, 60.0] and t.wait.tolist() == [10.0, 60.0] and t.runtime.tolist() == [300.0, 30.0]
    assert t.procs.tolist() == [4, 24] and t.procs_requested.tolist() == [4, 24]
    assert t.time_requested.tolist() == [600.0, 86400.0] and t.status.tolist() == [1, 0]
    # KB per processor: 2800 MB per CPU; 500000 MB per node x 2 nodes / 24 CPUs
    assert t.mem_requested.tolist() == [2800 * 1024.0, 500000 * 1024.0 * 2 / 24]
    assert t.user_id.tolist() == [1, 2] and t.queue.tolist() == [1, 2] and t.partition.tolist() == [1, 2]
    assert t.metadata["UnixStartTime"] == "1613080800" and t.metadata["SacctSteps"] == "1"
    assert t.metadata["Users"] == "1: alice, 2: bob" and "MaxProcs" not in t.metadata
    r = t.requests
    assert isinstance(r, Requests) and r.label.tolist() == ["10", "11_3"]
    assert r.mem_per_cpu_mb.tolist() == [2800.0, -1.0] and r.mem_per_node_mb.tolist() == [-1.0, 500000.0]
    assert r.gpus_per_node.tolist() == [0, 2] and r.gpu_type.tolist() == ["", "tesla"]
    assert r.nodes.tolist() == [1, 2] and r.tasks.tolist() == [4, 24] and r.cpus_per_task.tolist() == [1, 1]
    assert r.partition.tolist() == ["normal", "debug"] and r.account.tolist() == ["acc1", "acc2"]
    assert r.qos.tolist() == ["normal", "high"] and r.time_limit.tolist() == [600.0, 86400.0]
    assert t.dropped == ()


def test_column_order_gzip_and_crlf(tmp_path):
    names = HEADER.split("|")
    order = list(reversed(range(len(names))))
    lines = ["|".join(np.array(line.split("|"))[order]) for line in GOOD]
    text = "\r\n".join(["|".join(np.array(names)[order]), *lines]) + "\r\n"
    path = tmp_path / "dump.gz"
    path.write_bytes(gzip.compress(text.encode()))
    assert read_sacct(path).equals(read_sacct(_dump(tmp_path, GOOD)))


def test_modern_reqmem_and_tres(tmp_path):
    header = "JobID|Submit|Start|End|State|NNodes|NCPUS|ReqMem|ReqTRES"
    lines = [
        "5|2024-01-01T00:00:00|2024-01-01T00:00:00|2024-01-01T01:00:00|COMPLETED|2|8|16G|"
        "billing=8,cpu=8,gres/gpu:a100=4,gres/gpu=4,mem=16G,node=2",
        "6|2024-01-01T00:00:00|2024-01-01T00:00:00|2024-01-01T01:00:00|COMPLETED|1|1||cpu=1,mem=512M,node=1",
    ]
    t = read_sacct(_dump(tmp_path, lines, header))
    r = t.requests
    assert r.mem_per_node_mb.tolist() == [8192.0, -1.0]  # 16G in all, over 2 nodes; no ReqMem: -1
    assert r.gpus_per_node.tolist() == [2, 0]  # no ReqGRES: gres/gpu=4 of ReqTRES over 2 nodes
    t = read_sacct(
        _dump(
            tmp_path,
            [line.replace("|16G|", "|").replace("||", "|") for line in lines],
            "JobID|Submit|Start|End|State|NNodes|NCPUS|ReqTRES",
        )
    )
    assert t.requests.mem_per_node_mb.tolist() == [8192.0, 512.0]
    assert t.requests.gpus_per_node.tolist() == [2, 0] and t.requests.gpu_type.tolist() == ["a100", ""]
    assert t.job_id.tolist() == [5, 6] and (t.time_requested == -1).all()


def test_state_rules(tmp_path):
    base = "2021-02-11T22:00:00|2021-02-11T22:00:00"
    lines = [
        f"20|20|normal|a|u|{base}|2021-02-11T22:00:10|2021-02-11T22:00:20|00:00:10|COMPLETED|1|1|1|1Gc||10|normal|n1",
        f"21|21|normal|a|u|{base}|Unknown|2021-02-11T22:00:20|00:00:00|CANCELLED by 1001|0|0|1|1Gc||10|normal|None assigned",  # noqa: E501
        f"22|22|normal|a|u|{base}|2021-02-11T22:00:10|2021-02-11T22:00:15|00:00:05|CANCELLED by 0|1|1|1|1Gc||10|normal|n1",  # noqa: E501
        f"23|23|normal|a|u|{base}|2021-02-11T22:00:10|2021-02-11T22:00:15|00:00:05|NODE_FAIL|1|1|1|1Gc||10|normal|n1",
        f"24|24|normal|a|u|{base}|2021-02-11T22:00:10|2021-02-11T22:00:15|00:00:05|OUT_OF_MEMORY|1|1|1|1Gc||10|normal|n1",  # noqa: E501
        f"25|25|normal|a|u|{base}|2021-02-11T22:00:10|2021-02-11T22:00:15|00:00:05|PREEMPTED|1|1|1|1Gc||10|normal|n1",
        f"26|26|normal|a|u|{base}|Unknown|Unknown|00:00:00|PENDING|1|1|1|1Gc||10|normal|None assigned",
        f"27|27|normal|a|u|{base}|2021-02-11T22:00:10|Unknown|00:00:05|RUNNING|1|1|1|1Gc||10|normal|n1",
        f"28_[1-5%2]|28|normal|a|u|{base}|Unknown|Unknown|00:00:00|PENDING|1|1|1|1Gc||10|normal|None assigned",
        f"29|29|normal|a|u|{base}|2021-02-11T22:00:10|2021-02-11T22:00:10|00:00:00|FAILED|1|1|1|1Gc||10|normal|n1",
    ]
    t = read_sacct(_dump(tmp_path, lines))
    assert t.job_id.tolist() == [20, 22, 23, 24, 25, 29]
    assert t.status.tolist() == [1, 5, 0, 0, 5, 0]
    assert t.drop_summary() == {"cancelled before start": 1, "not ended": 2, "pending array": 1}
    pending = [d for d in t.dropped if d.reason == "pending array"][0]
    assert pending.label == "28_[1-5%2]" and pending.job_id is None and pending.line == 10
    assert [d.job_id for d in t.dropped if d.reason == "not ended"] == [26, 27]


# The mutation corpus: each line is GOOD[0] with one field changed (or a line of its own); each must give a typed
# error naming the line (3: after the header and one good line) and the job, or a documented skip.
def _mutate(field, value, line=None):
    parts = (line or BASE).split("|")
    parts[HEADER.split("|").index(field)] = value
    return "|".join(parts)


BASE = GOOD[0].replace("10|10|", "12|12|", 1)  # a good line of its own job


MUTATIONS = [
    # (name, line, words in the message, reason when skipped)
    ("missing field", "|".join(BASE.split("|")[:-1]), "has 18 fields, the header 19", "wrong number of fields"),
    ("extra field", BASE + "|x", "has 20 fields", "wrong number of fields"),
    ("bad memory unit", _mutate("ReqMem", "2800Xc"), "ReqMem == '2800Xc' is not a memory size", "bad ReqMem"),
    ("memory garbage", _mutate("ReqMem", "lots"), "is not a memory size", "bad ReqMem"),
    ("unknown state", _mutate("State", "EXPLODED"), "State == 'EXPLODED' is not a Slurm job state", "unknown state"),
    ("negative elapsed", _mutate("Elapsed", "-00:05:00"), "Elapsed == '-00:05:00'", "bad Elapsed"),
    ("elapsed garbage", _mutate("Elapsed", "5 min"), "Elapsed == '5 min'", "bad Elapsed"),
    (
        "End before Start",
        _mutate("End", "2021-02-11T21:00:00"),
        "End 2021-02-11T21:00:00 is before Start",
        "End before Start",
    ),  # noqa: E501
    ("Start before Submit", _mutate("Start", "2021-02-11T21:59:00"), "is before Submit", "Start before Submit"),
    (
        "bad date",
        _mutate("Submit", "2021-02-30T22:00:00"),
        "Submit == '2021-02-30T22:00:00' is not a date",
        "bad Submit",
    ),  # noqa: E501
    ("date with a zone", _mutate("Start", "2021-02-11T22:00:10+01:00"), "is not a date", "bad Start"),
    (
        "unknown start of a job that ran",
        _mutate("Start", "Unknown"),
        "Start is unknown for a job that ran",
        "unknown Start",
    ),  # noqa: E501
    ("bad count", _mutate("NCPUS", "four"), "NCPUS == 'four' is not a whole number", "bad NCPUS"),
    ("negative count", _mutate("NNodes", "-1"), "NNodes == '-1' is not a whole number", "bad NNodes"),
    ("no CPU count", _mutate("ReqCPUS", "0", _mutate("NCPUS", "0")), "has no CPU count", "no CPU count"),
    ("bad time limit", _mutate("Timelimit", "ten minutes"), "Timelimit == 'ten minutes'", "bad Timelimit"),
    ("bad GRES", _mutate("ReqGRES", "gpu:a:b:c"), "ReqGRES == 'gpu:a:b:c' is not a GRES list", "bad ReqGRES"),
    ("bad JobID", _mutate("JobID", "12x"), "JobID == '12x' is not a job id", "bad JobID"),
    ("empty JobID", _mutate("JobID", ""), "is not a job id", "bad JobID"),
    ("duplicate JobID", GOOD[0], "JobID 10 was already given on line 2", "duplicate JobID"),
    (
        "step without its job",
        _mutate("JobID", "99.batch"),
        "step 99.batch has no job line before it",
        "step without its job",
    ),  # noqa: E501
    (
        "Eligible before Submit",
        _mutate("Eligible", "2021-02-11T21:59:59"),
        "Eligible 2021-02-11T21:59:59 is before Submit 2021-02-11T22:00:00",
        "Eligible before Submit",
    ),
    ("bad Eligible", _mutate("Eligible", "soon"), "Eligible == 'soon' is not a date", "bad Eligible"),
    (
        "bad JobIDRaw",
        _mutate("JobIDRaw", "x"),
        "JobIDRaw == 'x' is not a whole number",
        "bad JobIDRaw",
    ),  # noqa: E501
]


@pytest.mark.parametrize(("name", "line", "words", "reason"), MUTATIONS, ids=[m[0] for m in MUTATIONS])
def test_mutation_corpus(tmp_path, name, line, words, reason):
    path = _dump(tmp_path, [GOOD[0], line, GOOD[2]])
    with pytest.raises(InvalidWorkloadError) as info:
        read_sacct(path)
    err = info.value
    assert words in str(err), str(err)
    assert err.path == str(path) and err.line == 3 and str(path) + ":3" in str(err)
    label = line.split("|")[0]
    if label and "|" in line:
        assert err.job_id == label and f"job {label}" in str(err)
    t = read_sacct(path, on_invalid="skip")
    assert t.drop_summary() == {reason: 1} and [d.line for d in t.dropped] == [3]
    assert t.job_id.tolist() == [10, 14]


def test_the_earliest_problem_is_raised(tmp_path):
    path = _dump(tmp_path, [GOOD[0], _mutate("State", "NOPE"), _mutate("ReqMem", "1Q", GOOD[2])])
    assert read_sacct(path, on_invalid="skip").drop_summary() == {"unknown state": 1, "bad ReqMem": 1}
    with pytest.raises(InvalidWorkloadError, match="State") as info:
        read_sacct(path)
    assert info.value.line == 3
    path = _dump(tmp_path, [GOOD[0], GOOD[2], _mutate("State", "NOPE")])
    with pytest.raises(InvalidWorkloadError, match="State") as info:
        read_sacct(path)
    assert info.value.line == 4


@pytest.mark.parametrize(
    ("header", "words"),
    [
        (HEADER.replace("|State", ""), "no column State"),
        (HEADER.replace("JobID|JobIDRaw", "JobIDRaw"), "no column JobID"),
        (HEADER.replace("NCPUS", "CPUs"), "no column NCPUS"),
    ],
)
def test_a_missing_column_is_named(tmp_path, header, words):
    path = _dump(tmp_path, [], header)
    with pytest.raises(InvalidWorkloadError, match=words) as info:
        read_sacct(path)
    assert info.value.line == 1


def test_empty_and_jobless_files(tmp_path):
    (tmp_path / "empty").write_text("\n\n")
    with pytest.raises(InvalidWorkloadError, match="is empty"):
        read_sacct(tmp_path / "empty")
    with pytest.raises(InvalidWorkloadError, match="has no job that ran"):
        read_sacct(_dump(tmp_path, []))
    with pytest.raises(ValueError, match="on_invalid"):
        read_sacct(_dump(tmp_path, GOOD), on_invalid="ignore")


def test_alloccpus_and_a_repeated_header(tmp_path):
    path = _dump(tmp_path, [GOOD[0], HEADER, GOOD[2]], HEADER)
    t = read_sacct(path)
    assert len(t) == 2 and t.drop_summary() == {"repeated header line": 1}
    t = read_sacct(_dump(tmp_path, GOOD, HEADER.replace("NCPUS", "AllocCPUS")))
    assert t.procs.tolist() == [4, 24]


def test_requests_follow_select_and_pandas(tmp_path):
    t = read_sacct(_dump(tmp_path, GOOD))
    s = t.select([1])
    assert s.requests.label.tolist() == ["11_3"] and s.requests.gpus_per_node.tolist() == [2]
    assert t.with_columns(runtime=t.runtime * 2).requests is t.requests
    assert not t.equals(t.with_columns()) or t.equals(t.with_columns())
    pytest.importorskip("pandas")
    df = t.to_pandas()
    assert df["req_label"].tolist() == ["10", "11_3"] and df["req_time_limit_s"].tolist() == [600.0, 86400.0]
    back = type(t).from_pandas(df, metadata=t.metadata)
    assert back.equals(t) and back.requests.equals(t.requests)


def test_eligible_priority_and_job_name_are_kept(tmp_path):
    # Eligible on the clock of submit (s from the earliest kept submit), -1 where Unknown; Priority a whole
    # number, -1 where blank; JobName as written. Without the columns they are not given (-1, -1, '').
    header = HEADER + "|Priority|JobName"
    lines = [GOOD[0] + "|4294|train net", GOOD[1] + "||batch", GOOD[2] + "||"]
    lines[2] = lines[2].replace("2021-02-11T22:01:00|2021-02-11T22:01:00", "2021-02-11T22:01:00|2021-02-11T22:01:30")
    t = read_sacct(_dump(tmp_path, lines, header))
    r = t.requests
    assert r.eligible.tolist() == [0.0, 90.0] and t.submit.tolist() == [0.0, 60.0]
    assert r.priority.tolist() == [4294, -1] and r.job_name.tolist() == ["train net", ""]
    t = read_sacct(_dump(tmp_path, [line.replace("|2021-02-11T22:01:30|", "|Unknown|") for line in lines], header))
    assert t.requests.eligible.tolist() == [0.0, -1.0]
    names = HEADER.split("|")
    keep = [k for k, name in enumerate(names) if name != "Eligible"]
    short = ["|".join(np.array(line.split("|"))[keep]) for line in GOOD]
    r = read_sacct(_dump(tmp_path, short, "|".join(np.array(names)[keep]), name="short.txt")).requests
    assert r.eligible.tolist() == [-1.0, -1.0] and r.priority.tolist() == [-1, -1] and r.job_name.tolist() == ["", ""]
    with pytest.raises(InvalidWorkloadError, match="Priority == 'high' is not a whole number"):
        read_sacct(_dump(tmp_path, [GOOD[0] + "|high|x"], header))
    pytest.importorskip("pandas")
    df = t.to_pandas()
    assert df["req_eligible_s"].tolist() == [0.0, -1.0] and df["req_job_name"].tolist() == ["train net", ""]
    assert type(t).from_pandas(df, metadata=t.metadata).equals(t)


def test_micro_cluster_real_run():
    t = read_sacct(slurm_path("micro/slurm_acct.out"))
    assert len(t) == 500 and t.dropped == () and t.metadata["Computer"] == "micro"
    assert t.job_id.tolist() == list(range(1001, 1501))
    assert (t.status == 1).sum() == 488 and (t.status == 0).sum() == 12  # 12 TIMEOUT
    # 1003|...|2021-02-11T22:37:19|...|2021-02-11T22:37:20|2021-02-11T22:39:55|00:02:35|...
    # ...|1|1|1|500000Mn||00:16:00|normal|b1
    i = 2
    assert t.job_id[i] == 1003 and t.submit[i] == 60.0 and t.wait[i] == 1.0 and t.runtime[i] == 155.0
    assert t.time_requested[i] == 960.0 and t.procs[i] == 1 and t.mem_requested[i] == 500000 * 1024.0
    r = t.requests
    assert r.mem_per_node_mb[i] == 500000.0 and r.mem_per_cpu_mb[i] == -1.0 and r.account[i] == "account2"
    assert r.user[i] == "user4" and r.label[i] == "1003"
    # 1001: 12 CPUs at 2800Mc, submitted at the origin 2021-02-11T22:36:19 UTC
    assert t.submit[0] == 0 and t.metadata["UnixStartTime"] == "1613082979" and r.mem_per_cpu_mb[0] == 2800.0
    assert (r.mem_per_node_mb == 500000.0).sum() == 43 and (r.mem_per_cpu_mb == 2800.0).sum() == 457
    assert (r.gpus_per_node == 2).sum() == 31 and (r.gpus_per_node == 1).sum() == 22
    assert (t.wait >= 0).all() and (t.submit >= 0).all() and (np.diff(t.submit) >= 0).all()
    assert set(r.partition.tolist()) == {"normal"} and t.metadata["Users"].count(":") == 5


def test_convert_writes_the_dump_as_swf(tmp_path, capsys):
    from clustersched import read_swf
    from clustersched.cli import main

    pending = (
        "12_[1-3]|12|normal|acc1|alice|2021-02-11T22:03:00|Unknown|Unknown|Unknown|00:00:00|PENDING|1|1|1|2800Mc||"
        "01:00:00|normal|None assigned"
    )
    dump = _dump(tmp_path, [*GOOD, pending])
    out = tmp_path / "out.swf"
    assert main(["convert", str(dump), str(out)]) == 0
    streams = capsys.readouterr()
    assert f"wrote {out}: 2 jobs" in streams.out and "1 of 3 jobs dropped: pending array" in streams.err
    swf, table = read_swf(out), read_sacct(dump)
    for name in ("job_id", "submit", "wait", "runtime", "procs", "procs_requested", "time_requested", "status"):
        assert np.array_equal(getattr(swf, name), getattr(table, name)), name
    assert np.allclose(swf.mem_requested, table.mem_requested) and swf.metadata["Users"] == "1: alice, 2: bob"
    assert swf.cpu_time.tolist() == [-1.0, -1.0] and swf.queue.tolist() == [1, 2]
    # a malformed line: an error naming it, or (--on-invalid skip) left out and counted
    bad = _dump(tmp_path, [GOOD[0], _mutate("State", "NOPE", GOOD[2])], name="bad.txt")
    assert main(["convert", str(bad), str(out)]) == 2
    assert "unknown" not in capsys.readouterr().out
    assert main(["convert", str(bad), str(out), "--on-invalid", "skip", "--to", "swf"]) == 0
    assert len(read_swf(out)) == 1 and "1 of 2 jobs dropped: unknown state" in capsys.readouterr().err
    assert main(["convert", str(tmp_path / "none.txt"), str(out)]) == 2
    assert "SACCT_DUMP" in capsys.readouterr().err
