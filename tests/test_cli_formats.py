"""The field's formats and every archive trace on the command line (issue 21, deliverables 3 and 4).

* ``simulate TRACE --out FILE --format csv|swf|batsim``, TRACE an SWF trace (plain or .gz) or a
  Batsim JSON workload (also for ``compare`` and ``dfrs``);
* ``--drop-invalid`` on ``simulate``, ``compare`` and ``dfrs``: one stderr line per reason, with the
  counts of ``clustersched.workload.drop_invalid``; without it, the error names the option and a
  Python call that works as written;
* ``simulate TRACE --drop-invalid --policy easy`` on every trace of ``shared/data/swf``;
* ``reproduce dpsa`` says what it dropped; a campaign's progress bar names its paper, and a resumed
  one says how many scenarios it found done;
* ``compare`` says the unit of its times and names the simulator's own run time ``sim_s``.
"""

from __future__ import annotations

import csv
import json
import re
import warnings
from pathlib import Path

import numpy as np
import pytest

import clustersched as cs
from clustersched.batch.formats import BATSIM_JOBS_COLUMNS
from clustersched.cli import sample_trace
from clustersched.errors import InvalidWorkloadError
from clustersched.workload import drop_invalid, read_swf, read_trace, write_batsim

from support import SWF_DIR, swf_path
from support import run_cli as run


def read_rows(path: Path) -> list[dict[str, str]]:
    with open(path, newline="") as fh:
        return list(csv.DictReader(fh))


def table_row(out: str) -> dict[str, str]:
    """The one data row of simulate's table, by column name."""
    lines = out.splitlines()
    header = next(i for i, line in enumerate(lines) if line.split()[:2] == ["policy", "jobs"])
    return dict(zip(lines[header].split(), lines[header + 1].split()))


@pytest.fixture(scope="module")
def week_json(tmp_path_factory) -> Path:
    """The bundled HPC2N week as a Batsim JSON workload."""
    return Path(write_batsim(read_swf(sample_trace()), tmp_path_factory.mktemp("batsim") / "week.json"))


# -- formats out: --format csv | swf | batsim ----------------------------------------------------------------------
def test_the_default_csv_has_the_allocated_processors_and_the_requested_time(tmp_path, capsys):
    out = tmp_path / "jobs.csv"
    status, text, _ = run(["simulate", str(sample_trace()), "--out", str(out)], capsys)
    assert status == 0 and f"wrote {out} (csv)" in text
    rows = read_rows(out)
    assert len(rows) == 2406
    assert list(rows[0]) == [
        "job_id",
        "submit_s",
        "start_s",
        "end_s",
        "wait_s",
        "runtime_s",
        "procs",
        "procs_requested",
        "time_requested_s",
        "allocated",
    ]
    for r in rows:
        assert _count(r["allocated"]) == int(r["procs"])  # an interval set such as "0-3 8-9"
        assert float(r["wait_s"]) == float(r["start_s"]) - float(r["submit_s"])
    assert out.read_bytes() == _library_file(tmp_path, "csv")


def _count(intervals: str) -> int:
    total = 0
    for part in intervals.split():
        low, _, high = part.partition("-")
        total += int(high or low) - int(low) + 1
    return total


def _library_file(tmp_path: Path, fmt: str) -> bytes:
    """What clustersched.batch.write_schedule writes for the CLI's default run (EASY on the bundled week)."""
    run_ = cs.simulate(read_swf(sample_trace()), "easy")
    path = tmp_path / f"library.{fmt}"
    cs.batch.write_schedule(run_.schedule, run_.jobs, path, format=fmt)
    return path.read_bytes()


def test_swf_out_reads_back_and_simulates_to_the_same_starts(tmp_path, capsys):
    first, again = tmp_path / "easy.swf", tmp_path / "again.swf"
    assert run(["simulate", str(sample_trace()), "--out", str(first), "--format", "swf"], capsys)[0] == 0
    back = read_swf(first)
    assert len(back) == 2406 and back.max_procs == 240 and set(back.status.tolist()) == {1}
    # the SWF of the schedule, simulated again from the command line, gives the same schedule
    assert run(["simulate", str(first), "--out", str(again), "--format", "swf"], capsys)[0] == 0
    twice = read_swf(again)
    assert np.array_equal(twice.submit + twice.wait, back.submit + back.wait)
    assert first.read_bytes().split(b"\n")[-200:] == again.read_bytes().split(b"\n")[-200:]


def test_swf_out_gz_is_compressed(tmp_path, capsys):
    out = tmp_path / "easy.swf.gz"
    assert run(["simulate", str(sample_trace()), "--out", str(out), "--format", "swf"], capsys)[0] == 0
    assert out.read_bytes()[:2] == b"\x1f\x8b" and len(read_swf(out)) == 2406


def test_batsim_out_is_the_jobs_file_evalys_reads(tmp_path, capsys):
    out = tmp_path / "out_jobs.csv"
    assert (
        run(
            ["simulate", str(sample_trace()), "--policy", "conservative", "--out", str(out), "--format", "batsim"],
            capsys,
        )[0]
        == 0
    )
    rows = read_rows(out)
    assert tuple(rows[0]) == BATSIM_JOBS_COLUMNS and len(rows) == 2406
    assert {r["final_state"] for r in rows} == {"COMPLETED_SUCCESSFULLY"}
    pytest.importorskip("evalys")
    from evalys.jobset import JobSet

    with warnings.catch_warnings():  # evalys calls pandas APIs that pandas deprecates
        warnings.simplefilter("ignore")
        js = JobSet.from_csv(str(out), resource_bounds=(0, 239))
    assert len(js.df) == 2406
    assert js.df["starting_time"].sum() == pytest.approx(sum(float(r["starting_time"]) for r in rows))


def test_format_without_out_is_bad_input(tmp_path, capsys):
    status, out, err = run(["simulate", str(sample_trace()), "--format", "swf"], capsys)
    assert status == 2 and out == ""
    assert err == "clustersched: error: --format 'swf': says how to write --out FILE; give --out too\n"
    status, _, err = run(["simulate", str(sample_trace()), "--out", str(tmp_path / "x"), "--format", "xml"], capsys)
    assert status == 2 and "argument --format: invalid choice: 'xml'" in err
    assert not (tmp_path / "x").exists()


# -- formats in: a Batsim JSON workload as TRACE -------------------------------------------------------------------
@pytest.mark.parametrize("policy", ["easy", "conservative"])
def test_a_batsim_workload_and_the_same_jobs_as_swf_give_the_same_schedule(week_json, tmp_path, capsys, policy):
    from_swf, from_json = tmp_path / "swf.csv", tmp_path / "json.csv"
    assert run(["simulate", str(sample_trace()), "--policy", policy, "--out", str(from_swf)], capsys)[0] == 0
    status, text, _ = run(["simulate", str(week_json), "--policy", policy, "--out", str(from_json)], capsys)
    assert status == 0 and "2406 jobs on 240 processors" in text
    a, b = read_rows(from_swf), read_rows(from_json)
    # (not time_requested_s: write_batsim's walltime is max(requested, runtime), the estimate simulated)
    for column in ("job_id", "submit_s", "start_s", "end_s", "wait_s", "procs", "allocated"):
        assert [r[column] for r in a] == [r[column] for r in b], column


def test_compare_and_dfrs_read_a_batsim_workload(week_json, capsys):
    status, out, _ = run(["compare", str(week_json), "--policies", "fcfs,easy"], capsys)
    assert status == 0 and f"{week_json}: 2406 jobs" in out
    status, swf_out, _ = run(["compare", "--policies", "fcfs,easy"], capsys)
    strip = lambda text: [line.rsplit(None, 1)[0] for line in text.splitlines()[2:]]  # noqa: E731 (sim_s varies)
    assert strip(out) == strip(swf_out)
    status, out, _ = run(["dfrs", str(week_json), "--algorithm", "EASY", "--nodes", "120", "--json"], capsys)
    assert status == 0 and json.loads(out)["jobs"] == 2406


def test_a_malformed_batsim_workload_is_one_line(tmp_path, capsys):
    bad = tmp_path / "bad.json"
    bad.write_text(
        '{"nb_res": 4, "jobs": [{"id": 1, "subtime": 0, "res": 2, "profile": "p"}], '
        '"profiles": {"p": {"type": "parallel"}}}'
    )
    for argv in (["simulate", str(bad)], ["compare", str(bad)], ["dfrs", str(bad), "--algorithm", "EASY"]):
        status, out, err = run(argv, capsys)
        assert status == 2 and out == "" and len(err.splitlines()) == 1, err
        assert err.startswith("clustersched: error: ") and "parallel" in err


# -- --drop-invalid ------------------------------------------------------------------------------------------------
ROWS = [
    # id submit wait runtime procs ... requested procs, requested time
    "1 0 0 100 4 -1 -1 4 200 -1 1 1 1 -1 1 -1 -1 -1",
    "2 10 0 -1 4 -1 -1 4 200 -1 1 1 1 -1 1 -1 -1 -1",  # unknown runtime
    "3 20 0 50 -1 -1 -1 -1 200 -1 1 1 1 -1 1 -1 -1 -1",  # no processor count
    "4 30 0 0 2 -1 -1 2 200 -1 1 1 1 -1 1 -1 -1 -1",  # runtime 0
    "5 40 0 50 16 -1 -1 16 200 -1 1 1 1 -1 1 -1 -1 -1",  # wider than the 8 processors
    "6 50 0 70 8 -1 -1 8 200 -1 1 1 1 -1 1 -1 -1 -1",
]


@pytest.fixture
def dirty(tmp_path) -> Path:
    path = tmp_path / "dirty.swf"
    path.write_text("; MaxProcs: 8\n" + "\n".join(ROWS) + "\n")
    return path


def test_simulate_without_drop_invalid_names_the_option_and_a_call_that_works(dirty, capsys):
    status, out, err = run(["simulate", str(dirty)], capsys)
    assert status == 2 and out == "" and len(err.splitlines()) == 1
    assert "job 3 (row 2): has no processor count" in err and "--drop-invalid removes and counts them" in err
    assert "drop_invalid(" not in err  # the command line's error spells the option, not the Python call
    # the Python call the library's message suggests runs as written (it raised TypeError: missing 'procs' before)
    jobs = read_swf(dirty)
    with pytest.raises(InvalidWorkloadError) as raised:
        cs.simulate(jobs, "easy")
    call = re.search(r"(clustersched\.workload\.drop_invalid\(jobs, procs=\d+\))", str(raised.value)).group(1)
    import clustersched  # noqa: F401  (the name the call uses)

    kept = eval(call)  # noqa: S307
    assert len(kept) == 2 and cs.simulate(kept, "easy").schedule.start.tolist() == [0.0, 100.0]
    assert drop_invalid(jobs).drop_summary() == kept.drop_summary()  # procs defaults to the header's MaxProcs


def test_simulate_drop_invalid_reports_each_reason_as_drop_invalid_counts(dirty, capsys):
    status, out, err = run(["simulate", str(dirty), "--drop-invalid", "--policy", "fcfs"], capsys)
    assert status == 0, err
    assert err.splitlines() == [
        "note: --drop-invalid: 2 of 6 jobs dropped: non-positive runtime",
        "note: --drop-invalid: 1 of 6 jobs dropped: no processor count",
        "note: --drop-invalid: 1 of 6 jobs dropped: wider than machine",
    ]
    summary = drop_invalid(read_swf(dirty), 8).drop_summary()
    assert summary == {"non-positive runtime": 2, "no processor count": 1, "wider than machine": 1}
    assert "2 jobs on 8 processors" in out


def test_drop_invalid_with_oversized_clip_keeps_the_wide_job_on_the_whole_machine(dirty, tmp_path, capsys):
    out = tmp_path / "jobs.csv"
    status, _, err = run(["simulate", str(dirty), "--drop-invalid", "--oversized", "clip", "--out", str(out)], capsys)
    assert status == 0
    assert "note: --drop-invalid: 1 of 6 jobs kept but changed: clipped to machine size" in err.splitlines()
    assert {r["job_id"]: r["procs"] for r in read_rows(out)} == {"1": "4", "5": "8", "6": "8"}


def test_compare_drop_invalid(dirty, capsys):
    status, out, err = run(["compare", str(dirty), "--policies", "easy,fcfs"], capsys)
    assert status == 2 and "--drop-invalid" in err
    status, out, err = run(["compare", str(dirty), "--policies", "easy,fcfs", "--drop-invalid"], capsys)
    assert status == 0 and len(err.splitlines()) == 3  # once, not once per policy
    assert [line.split()[:2] for line in out.splitlines()[2:]] == [["easy", "2"], ["fcfs", "2"]]


def test_dfrs_drop_invalid(dirty, capsys):
    status, out, err = run(["dfrs", str(dirty), "--algorithm", "EASY"], capsys)
    assert status == 2 and out == "" and len(err.splitlines()) == 1
    assert "job 2: has non-positive runtime (3 such job(s); --drop-invalid removes them" in err
    # on HPC2N's nodes (the header's 8 processors would refuse the 16-processor job before DFRS runs)
    status, out, err = run(
        [
            "dfrs",
            str(dirty),
            "--algorithm",
            "EASY",
            "--drop-invalid",
            "--json",
            "--nodes",
            "120",
            "--cores-per-node",
            "2",
        ],
        capsys,
    )
    assert status == 0, err
    # DFRS places tasks by memory, not by width: the 16-processor job stays
    assert err.splitlines() == [
        "note: --drop-invalid: 2 of 6 jobs dropped: non-positive runtime",
        "note: --drop-invalid: 1 of 6 jobs dropped: no processor count",
    ]
    assert json.loads(out)["jobs"] == 3 and json.loads(out)["dropped"] == 3


def test_drop_invalid_without_a_machine_size_asks_for_procs(tmp_path, capsys):
    trace = tmp_path / "nohdr.swf"
    trace.write_text(ROWS[0] + "\n" + ROWS[1] + "\n")
    status, _, err = run(["simulate", str(trace), "--drop-invalid"], capsys)
    assert status == 2 and "pass the machine size with --procs" in err
    status, out, err = run(["simulate", str(trace), "--drop-invalid", "--procs", "4"], capsys)
    assert status == 0 and "1 jobs on 4 processors" in out


def test_drop_invalid_leaving_nothing_is_bad_input(tmp_path, capsys):
    trace = tmp_path / "none.swf"
    trace.write_text("; MaxProcs: 8\n" + ROWS[1] + "\n")
    status, _, err = run(["simulate", str(trace), "--drop-invalid"], capsys)
    assert status == 2 and err.splitlines()[-1].startswith("clustersched: error: ")
    assert "--drop-invalid left no job of 1" in err


# -- every archive trace (shared/data/swf), EASY -------------------------------------------------------------------
#: The traces of shared/data/swf (SOURCES.md), with the options each needs: METACENTRUM-2009-2 has no
#: header, hence no machine size; the Parallel Workloads Archive's page of the log gives 806 processors
#: (14 clusters; https://www.cs.huji.ac.il/labs/parallel/workload/l_metacentrum/index.html).
ARCHIVE = {
    "CEA-Curie-2011-2.1-cln.swf.gz": [],
    "CTC-SP2-1996-3.1-cln.swf.gz": [],
    "HPC2N-2002-2.2-cln.swf.gz": [],
    "LANL-CM5-1994-4.1-cln.swf.gz": [],
    "LCG.swf.gz": [],
    "LLNL-Atlas-2006-2.1-cln.swf.gz": [],
    "LPC-EGEE-2004-1.2-cln.swf.gz": [],
    "METACENTRUM-2009-2.swf.gz": ["--procs", "806"],
    "NASA-iPSC-1993-3.1-cln.swf.gz": [],
    "OSC-Clust-2000-3.1-cln.swf.gz": [],
    "RICC-2010-2.swf.gz": [],
    "SDSC-BLUE-2000-4.2-cln.swf.gz": [],
    "SDSC-DS-2004-2.1-cln.swf.gz": [],
    "SDSC-Par-1996-3.1-cln.swf.gz": [],
    "Sandia-Ross-2001-1.1-cln.swf.gz": [],
}
#: Over this many jobs a trace's test is marked slow (reading, simulating and validating take seconds).
BIG = 150_000
_SIZES = {
    "CEA-Curie-2011-2.1-cln.swf.gz": 312826,
    "HPC2N-2002-2.2-cln.swf.gz": 202871,
    "LCG.swf.gz": 188041,
    "LPC-EGEE-2004-1.2-cln.swf.gz": 234889,
    "RICC-2010-2.swf.gz": 447794,
    "SDSC-BLUE-2000-4.2-cln.swf.gz": 243306,
}


def test_the_archive_table_names_every_shared_trace():
    if not SWF_DIR.is_dir():
        pytest.skip(f"{SWF_DIR} not found")
    assert set(ARCHIVE) == {p.name for p in SWF_DIR.glob("*.swf.gz")}


@pytest.mark.parametrize(
    "name", [pytest.param(name, marks=pytest.mark.slow) if _SIZES.get(name, 0) > BIG else name for name in ARCHIVE]
)
def test_every_archive_trace_simulates_under_easy_with_drop_invalid(name, capsys):
    path = swf_path(name)
    status, out, err = run(
        ["simulate", str(path), "--drop-invalid", "--policy", "easy", "--no-progress", *ARCHIVE[name]], capsys
    )
    assert status == 0, err
    jobs = read_trace(path)
    procs = int(ARCHIVE[name][1]) if ARCHIVE[name] else jobs.max_procs
    summary = drop_invalid(jobs, procs).drop_summary()
    assert err.splitlines() == [
        f"note: --drop-invalid: {n} of {len(jobs)} jobs dropped: {reason}" for reason, n in summary.items()
    ]
    row = table_row(out)
    assert int(row["jobs"]) == len(jobs) - sum(summary.values()) and float(row["sim_s"]) > 0


# -- reproduce dpsa says what it dropped; campaigns name their paper and say when they resume -------------------------
def test_reproduce_dpsa_reports_what_it_dropped(dirty, tmp_path, capsys):
    folder = tmp_path / "traces"
    folder.mkdir()
    (folder / "dirty.swf").write_bytes(dirty.read_bytes())
    argv = [
        "reproduce",
        "dpsa",
        "--traces",
        str(folder),
        "--scale",
        "small",
        "--workers",
        "1",
        "--no-progress",
        "--out",
        str(tmp_path / "r"),
    ]
    status, out, err = run(argv, capsys)
    assert status == 0, err
    assert (
        "note: dirty: 4 of 6 jobs dropped (non-positive runtime: 2; no processor count: 1; wider than machine: 1)"
    ) in err.splitlines()
    rows = read_rows(tmp_path / "r" / "summary.csv")
    assert {(r["dropped"], r["dropped_by_reason"]) for r in rows} == {
        ("4", "non-positive runtime: 2; no processor count: 1; wider than machine: 1")
    }
    # run again: everything found done, said on one line, nothing recomputed
    status, _, err = run(argv, capsys)
    assert status == 0
    assert (
        f"note: resuming: 4 of 4 scenarios already done in {tmp_path / 'r' / 'campaign.sqlite'}; nothing left "
        "to compute" in err.splitlines()
    )


def test_a_campaign_progress_bar_names_the_paper_and_what_it_counts(tmp_path, capsys, monkeypatch):
    import sys

    monkeypatch.setattr(sys.stderr, "isatty", lambda: True)  # a bar shows on a terminal only
    status, _, err = run(
        [
            "reproduce",
            "dpsa",
            "--traces",
            str(sample_trace().parent),
            "--scale",
            "small",
            "--workers",
            "1",
            "--out",
            str(tmp_path / "r"),
        ],
        capsys,
    )
    assert status == 0
    assert "DPSA paper (Grudenic & Bogunovic): scenarios" in err and "4/4" in err
    assert "dpsa-v" not in err  # not the campaign's internal name


def test_run_campaign_label(capsys, monkeypatch):
    import sys

    from clustersched.campaign import Store, grid, run_campaign

    monkeypatch.setattr(sys.stderr, "isatty", lambda: True)  # a bar shows on a terminal only

    with Store(":memory:") as store:
        run_campaign("demo-v1", grid(x=[1, 2]), _square, store=store, workers=1, label="demo: squares")
    err = capsys.readouterr().err
    assert "demo: squares" in err and "demo-v1" not in err
    with Store(":memory:") as store, pytest.raises(TypeError, match="label == 3"):
        run_campaign("demo-v1", grid(x=[1]), _square, store=store, workers=1, label=3)  # type: ignore[arg-type]


def _square(s):
    return {"square": s["x"] ** 2}


# -- units in compare's table --------------------------------------------------------------------------------------
def test_compare_names_its_units_and_the_simulator_time(capsys):
    status, out, _ = run(["compare", "--policies", "easy"], capsys)
    assert status == 0
    title, header, row = out.splitlines()
    assert title.endswith("(times in seconds; sim_s: the simulator's wall-clock run time)")
    assert header.split() == [
        "policy",
        "jobs",
        "avg_wait_s",
        "avg_bounded_slowdown",
        "max_bounded_slowdown",
        "utilization",
        "makespan_s",
        "sim_s",
    ]
    assert "seconds" not in header.split()
