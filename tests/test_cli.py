"""The command line: the README's main job, simulate with outputs, typed errors."""

from __future__ import annotations

import csv
import gzip

import pytest

from clustersched import read_swf
from clustersched.batch import BUILTIN_POLICIES
from clustersched.cli import main, sample_trace


def test_compare_runs_on_the_bundled_sample(capsys):
    assert main(["compare"]) == 0
    out = capsys.readouterr().out
    rows = {line.split()[0]: line.split() for line in out.splitlines()[2:]}
    assert set(rows) == set(BUILTIN_POLICIES)
    assert {row[1] for row in rows.values()} == {"2406"}
    # EASY's average bounded slowdown is well below FCFS's on this week
    assert float(rows["easy"][3]) < float(rows["fcfs"][3]) / 5


@pytest.mark.parametrize("policy", ["conservative", "sjf", "dpsa-p", "dpsa-n", "dpsa-w"])
def test_simulate_accepts_every_builtin_policy(tmp_path, capsys, policy):
    out = tmp_path / "jobs.csv"
    assert main(["simulate", str(sample_trace()), "--policy", policy, "--out", str(out)]) == 0
    assert policy in capsys.readouterr().out
    with open(out) as fh:
        assert len(list(csv.DictReader(fh))) == 2406


def test_sample_is_a_real_hpc2n_week():
    jobs = read_swf(sample_trace())
    assert len(jobs) == 2406 and jobs.max_procs == 240
    assert jobs.metadata["Installation"].startswith("HPC2N")


def test_simulate_writes_jobs_csv_and_gantt(tmp_path, capsys):
    out, png = tmp_path / "jobs.csv", tmp_path / "gantt.png"
    trace = str(sample_trace())
    assert main(["simulate", trace, "--policy", "fcfs", "--estimates", "exact", "--out", str(out),
                 "--gantt", str(png)]) == 0
    assert "fcfs" in capsys.readouterr().out
    with open(out) as fh:
        rows = list(csv.DictReader(fh))
    assert len(rows) == 2406
    assert {"job_id", "submit", "start", "end", "procs"} <= set(rows[0])
    ids = read_swf(trace).job_id.tolist()
    assert sorted(int(r["job_id"]) for r in rows) == sorted(ids)
    assert all(float(r["start"]) >= float(r["submit"]) for r in rows)
    assert png.stat().st_size > 10_000 and png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def write(path, text, compress=False):
    data = text.encode()
    path.write_bytes(gzip.compress(data) if compress else data)
    return str(path)


ROW = "1 0 0 10 4 -1 -1 4 20 -1 1 1 1 -1 1 -1 -1 -1\n"


@pytest.mark.parametrize(
    ("name", "text", "args", "message"),
    [
        ("nomax.swf", ROW, [], "no MaxProcs"),
        ("wide.swf", "; MaxProcs: 2\n" + ROW, [], "needs 4 processors but the machine has 2"),
        ("short.swf", "; MaxProcs: 8\n" + ROW.rsplit(" ", 1)[0] + "\n", [], "17 fields"),
        ("neg.swf", "; MaxProcs: 8\n" + ROW.replace(" 4 -1 -1 4 ", " -4 -1 -1 4 "), [], "procs"),
        ("empty.swf", "", [], "no jobs"),
    ],
)
def test_bad_traces_exit_with_a_clear_message(tmp_path, capsys, name, text, args, message):
    trace = write(tmp_path / name, text)
    assert main(["simulate", trace, *args]) == 2
    err = capsys.readouterr().err
    assert err.startswith("clustersched: error: ") and message in err
    assert "Traceback" not in err and "panicked" not in err


def test_procs_option_supplies_a_missing_machine_size(tmp_path, capsys):
    trace = write(tmp_path / "nomax.swf", ROW)
    assert main(["simulate", trace, "--procs", "8"]) == 0
    assert "1 jobs on 8 processors" in capsys.readouterr().out


def test_oversized_skip_is_reported(tmp_path, capsys):
    trace = write(tmp_path / "wide.swf", "; MaxProcs: 2\n" + ROW + ROW.replace("1 0 0 10 4", "2 5 0 10 1"))
    assert main(["simulate", trace, "--oversized", "skip"]) == 0
    captured = capsys.readouterr()
    assert "job 1: skipped: wider than machine (4 > 2)" in captured.err
    assert "1 jobs on 2 processors" in captured.out


def test_lublin_writes_a_trace_that_simulates(tmp_path, capsys):
    out = tmp_path / "lublin.swf"
    assert main(["lublin", "--jobs", "500", "--procs", "64", "--seed", "3", "--out", str(out)]) == 0
    jobs = read_swf(out)
    assert len(jobs) == 500 and jobs.max_procs == 64
    assert main(["simulate", str(out), "--policy", "easy"]) == 0
