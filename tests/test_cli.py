"""The command line: the README's main job, simulate with outputs, typed errors, bad options, start-up cost."""

from __future__ import annotations

import argparse
import csv
import gzip
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from clustersched import read_swf
from clustersched.batch import BUILTIN_POLICIES
from clustersched.cli import _parser, main, sample_trace


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
    assert (
        main(["simulate", trace, "--policy", "fcfs", "--estimates", "exact", "--out", str(out), "--gantt", str(png)])
        == 0
    )
    assert "fcfs" in capsys.readouterr().out
    with open(out) as fh:
        rows = list(csv.DictReader(fh))
    assert len(rows) == 2406
    # the default --format csv: times in seconds, the allocated processors and the requested time (issue 21)
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
    jobs = read_swf(trace)
    assert sorted(int(r["job_id"]) for r in rows) == sorted(jobs.job_id.tolist())
    assert all(float(r["start_s"]) >= float(r["submit_s"]) for r in rows)
    requested = dict(zip(jobs.job_id.tolist(), jobs.time_requested.tolist()))
    assert all(float(r["time_requested_s"]) == requested[int(r["job_id"])] for r in rows)
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
    assert "note: job 1: " in captured.err and "wider than machine" in captured.err
    assert "1 jobs on 2 processors" in captured.out


def test_lublin_writes_a_trace_that_simulates(tmp_path, capsys):
    out = tmp_path / "lublin.swf"
    assert main(["lublin", "--jobs", "500", "--procs", "64", "--seed", "3", "--out", str(out)]) == 0
    jobs = read_swf(out)
    assert len(jobs) == 500 and jobs.max_procs == 64
    assert main(["simulate", str(out), "--policy", "easy"]) == 0
    assert (jobs.time_requested == -1).all()  # --estimates none, the default: no estimates, as before


def test_lublin_estimates_keep_the_jobs(tmp_path, capsys):
    """--estimates draws from a stream of its own: the jobs of a seed are those of --estimates none."""
    plain, modal = tmp_path / "plain.swf", tmp_path / "modal.swf"
    assert main(["lublin", "--jobs", "300", "--seed", "8", "--out", str(plain)]) == 0
    assert main(["lublin", "--jobs", "300", "--seed", "8", "--estimates", "modal", "--out", str(modal)]) == 0
    assert "estimates modal" in capsys.readouterr().out
    a, b = read_swf(plain), read_swf(modal)
    for name in ("job_id", "submit", "runtime", "procs", "procs_requested", "queue"):
        assert (getattr(a, name) == getattr(b, name)).all()
    assert (b.time_requested >= b.runtime).all() and b.metadata["Estimates"].startswith("modal model")


# -- bad options and paths (issue 8, "Bad input found"): one line naming the option and value, status 2,
#    nothing written, no input overwritten ------------------------------------------------------------------------
HUGE = str(2**63 - 1)


@pytest.fixture
def workdir(tmp_path, monkeypatch):
    """A scratch folder with a trace (t.swf.gz), an empty folder (empty/) and a folder without traces (notraces/)."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("CLUSTERSCHED_TRACES", raising=False)
    (tmp_path / "t.swf.gz").write_bytes(sample_trace().read_bytes())
    (tmp_path / "empty").mkdir()
    (tmp_path / "notraces").mkdir()
    (tmp_path / "notraces" / "README.md").write_text("no traces here\n")
    return tmp_path


def snapshot(folder: Path) -> dict[str, bytes]:
    return {os.fspath(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


@pytest.mark.parametrize(
    ("argv", "option", "value"),
    [
        (["simulate", "missing.swf"], "TRACE", "missing.swf"),
        (["simulate", "empty"], "TRACE", "empty"),
        (["compare", "missing.swf"], "TRACE", "missing.swf"),
        (["compare", "empty"], "TRACE", "empty"),
        (["simulate", "t.swf.gz", "--out", "nodir/jobs.csv"], "--out", "nodir/jobs.csv"),
        (["simulate", "t.swf.gz", "--out", "empty"], "--out", "empty"),
        (["simulate", "t.swf.gz", "--gantt", "nodir/g.png"], "--gantt", "nodir/g.png"),
        (["simulate", "t.swf.gz", "--out", "t.swf.gz"], "--out", "t.swf.gz"),
        (["simulate", "t.swf.gz", "--out", "./empty/../t.swf.gz"], "--out", "./empty/../t.swf.gz"),
        (["simulate", "t.swf.gz", "--gantt", "t.swf.gz"], "--gantt", "t.swf.gz"),
        (["simulate", "t.swf.gz", "--out", "same.png", "--gantt", "same.png"], "--gantt", "same.png"),
        (["simulate", "t.swf.gz", "--out", "jobs.csv", "--gantt", "chart.xyz"], "--gantt", "chart.xyz"),
        (["simulate", "t.swf.gz", "--out", "jobs.csv", "--gantt", "chart"], "--gantt", "chart"),
        (["simulate", "t.swf.gz", "--procs", "0"], "--procs", "'0'"),
        (["simulate", "t.swf.gz", "--procs", "-5"], "--procs", "'-5'"),
        (["simulate", "t.swf.gz", "--procs", HUGE], "--procs", HUGE),
        (["simulate", "t.swf.gz", "--procs", "many"], "--procs", "'many'"),
        (["compare", "--procs", "0"], "--procs", "'0'"),
        (["compare", "--policies", ","], "--policies", "','"),
        (["compare", "--policies", "easy,nope"], "--policies", "nope"),
        (["simulate", "t.swf.gz", "--policy", "nope"], "--policy", "'nope'"),
        (["lublin", "--jobs", "-5", "--out", "l.swf"], "--jobs", "'-5'"),
        (["lublin", "--jobs", "0", "--out", "l.swf"], "--jobs", "'0'"),
        (["lublin", "--jobs", "99999999999999", "--out", "l.swf"], "--jobs", "99999999999999"),
        (["lublin", "--procs", "0", "--out", "l.swf"], "--procs", "'0'"),
        (["lublin", "--procs", "99999999999999999999", "--out", "l.swf"], "--procs", "99999999999999999999"),
        (["lublin", "--seed", "-1", "--out", "l.swf"], "--seed", "'-1'"),
        (["lublin", "--out", "nodir/l.swf"], "--out", "nodir/l.swf"),
        (["lublin", "--out", "empty"], "--out", "empty"),
        (["lublin", "--estimates", "f:-2", "--out", "l.swf"], "--estimates", "'f:-2'"),
        (["lublin", "--estimates", "uniform", "--out", "l.swf"], "--estimates", "'uniform'"),
        (["reproduce", "dpsa", "--traces", "missing", "--out", "r"], "--traces", "missing"),
        (["reproduce", "dpsa", "--traces", "empty", "--out", "r"], "--traces", "empty"),
        (["reproduce", "dpsa", "--traces", "notraces", "--out", "r"], "--traces", "notraces"),
        (["reproduce", "dpsa", "--traces", "t.swf.gz", "--out", "r"], "--traces", "t.swf.gz"),
        (["reproduce", "dpsa", "--traces", ".", "--out", "t.swf.gz"], "--out", "t.swf.gz"),
        (["reproduce", "dpsa", "--traces", ".", "--workers", "0", "--out", "r"], "--workers", "'0'"),
        (["reproduce", "dpsa", "--traces", ".", "--workers", "-2", "--out", "r"], "--workers", "'-2'"),
        (
            ["reproduce", "dpsa", "--traces", ".", "--workers", "2", "--dask", "tcp://h:1", "--out", "r"],
            "--dask",
            "--workers",
        ),
        (["ptg", "--algorithm", "C1", "--gantt", "nodir/g.png"], "--gantt", "nodir/g.png"),
        (["ptg", "--algorithm", "C1", "--gantt", "g.txt"], "--gantt", "g.txt"),
    ],
)
def test_bad_options_end_in_one_line_naming_option_and_value(workdir, capsys, argv, option, value):
    before = snapshot(workdir)
    try:
        status = main(argv)
    except SystemExit as exc:  # argparse's own errors
        status = exc.code
    err = capsys.readouterr().err
    assert status == 2
    last = err.strip().splitlines()[-1]
    assert re.match(r"clustersched( [a-z]+)*: error: ", last), err
    assert option in last and value in last, last
    assert sum("error" in line for line in err.splitlines()) == 1
    assert "Traceback" not in err
    assert snapshot(workdir) == before  # nothing written, nothing overwritten


def test_the_cross_check_of_outputs_resolves_links(workdir, capsys):
    (workdir / "link.swf.gz").symlink_to(workdir / "t.swf.gz")
    before = snapshot(workdir)
    assert main(["simulate", "t.swf.gz", "--out", "link.swf.gz"]) == 2
    assert "--out 'link.swf.gz': is an input" in capsys.readouterr().err
    assert snapshot(workdir) == before


@pytest.mark.skipif(not Path("/proc/version").exists(), reason="needs /proc")
def test_an_unwritable_output_is_refused_before_the_run(workdir, capsys):
    assert main(["simulate", "t.swf.gz", "--out", "jobs.csv", "--gantt", "/proc/version.png"]) == 2
    assert main(["simulate", "t.swf.gz", "--out", "/proc/version"]) == 2
    err = capsys.readouterr().err
    assert "clustersched: error: --out '/proc/version': cannot be written" in err
    assert not (workdir / "jobs.csv").exists()


@pytest.mark.skipif(os.name != "posix" or os.geteuid() == 0, reason="permissions do not bind root")
def test_an_output_in_a_read_only_folder_is_refused(workdir, capsys):
    locked = workdir / "locked"
    locked.mkdir()
    locked.chmod(0o500)
    try:
        assert main(["lublin", "--jobs", "10", "--out", str(locked / "l.swf")]) == 2
    finally:
        locked.chmod(0o700)
    assert "cannot be written" in capsys.readouterr().err


def test_gantt_without_matplotlib_fails_before_writing_out(workdir, capsys, monkeypatch):
    # matplotlib is a dependency, but a broken environment must still fail before any output
    for name in [m for m in sys.modules if m == "matplotlib" or m.startswith("matplotlib.")]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    assert main(["simulate", "t.swf.gz", "--out", "jobs.csv", "--gantt", "g.png"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("clustersched: error: --gantt 'g.png': ") and "matplotlib" in err
    assert not (workdir / "jobs.csv").exists()


def test_an_unreadable_trace_folder_from_the_environment_is_named(workdir, capsys, monkeypatch):
    monkeypatch.setenv("CLUSTERSCHED_TRACES", str(workdir / "missing"))
    assert main(["reproduce", "dpsa", "--out", "r"]) == 2
    assert "clustersched: error: $CLUSTERSCHED_TRACES" in capsys.readouterr().err
    assert not (workdir / "r").exists()


def test_compare_runs_a_subset_of_policies_once_each(capsys):
    assert main(["compare", "--policies", " easy, fcfs,easy,", "--no-progress"]) == 0
    rows = [line.split()[0] for line in capsys.readouterr().out.splitlines()[2:]]
    assert rows == ["easy", "fcfs"]


def test_lublin_accepts_the_largest_machine(workdir, capsys):
    assert main(["lublin", "--jobs", "5", "--procs", str(2**32 - 1), "--out", "big.swf"]) == 0
    assert read_swf(workdir / "big.swf").max_procs == 2**32 - 1


# -- help: every option of every command says its default ----------------------------------------------------------
def _commands(parser: argparse.ArgumentParser, path: tuple[str, ...] = ()):
    yield path, parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield from _commands(sub, (*path, name))


def test_every_option_states_its_default():
    commands = dict(_commands(_parser()))
    assert {("simulate",), ("compare",), ("lublin",), ("ptg",), ("reproduce", "dpsa"), ("reproduce", "ptg")} <= set(
        commands
    )
    for path, parser in commands.items():
        text = parser.format_help()  # formats every help string (and fails on a bad one)
        assert text
        for action in parser._actions:
            if isinstance(action, (argparse._HelpAction, argparse._SubParsersAction)) or not action.option_strings:
                continue
            if isinstance(action, argparse._VersionAction):
                continue
            assert action.help and re.search(r"\((default|required)\b", action.help), (path, action.dest)
            if action.default not in (None, False) and "%(default)s" not in action.help:
                assert str(action.default) in action.help, (path, action.dest)


# -- start-up: `import clustersched.cli` and `clustersched --help` import no heavy library --------------------------
HEAVY = (
    "networkx",
    "matplotlib",
    "dask",
    "distributed",
    "scipy",
    "tqdm",
    "numpy",
    "clustersched.campaign.runner",
    "clustersched._core",
)


def test_importing_the_cli_imports_no_heavy_module():
    run = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", "import clustersched.cli"],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    imported = {line.split("|")[-1].strip() for line in run.stderr.splitlines() if line.startswith("import time:")}
    assert "clustersched.cli" in imported
    heavy = {m for m in imported if m in HEAVY or m.split(".")[0] in HEAVY}
    assert not heavy, sorted(heavy)


@pytest.mark.parametrize("argv", [["--help"], ["--version"]])
def test_help_imports_no_heavy_module(argv):
    code = (
        "import sys\n"
        "from clustersched.cli import main\n"
        "try:\n"
        f"    main({argv!r})\n"
        "except SystemExit:\n"
        "    pass\n"
        "print(' '.join(sorted(sys.modules)), file=sys.stderr)\n"
    )
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True)
    modules = set(run.stderr.split())
    assert "clustersched.batch.cli" in modules and "clustersched.ptg.cli" in modules
    heavy = {m for m in modules if m in HEAVY or m.split(".")[0] in HEAVY}
    assert not heavy, sorted(heavy)
    assert "clustersched" in run.stdout


# -- issue 30 ----------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "cli", "python"),
    [
        ("; MaxProcs: 2\n" + ROW, "use --oversized skip or --oversized clip", "use oversized='skip' or 'clip'"),
        (
            "; MaxProcs: 8\n" + ROW.replace(" 0 10 4 ", " 0 -1 4 "),
            "1 such job(s): --drop-invalid removes and counts them",
            "clustersched.workload.drop_invalid(jobs, procs=8) removes and counts them",
        ),
        (ROW, "pass the machine size with --procs", "(procs=, or --procs)"),
    ],
)
def test_cli_errors_spell_the_options_python_errors_the_keywords(tmp_path, capsys, text, cli, python):
    """Issue 30: the too-wide error suggested oversized='clip' on the command line."""
    from clustersched import simulate

    trace = write(tmp_path / "t.swf", text)
    for command in (["simulate", trace], ["compare", trace, "--policies", "easy"]):
        assert main(command) == 2
        err = capsys.readouterr().err
        assert err.startswith("clustersched: error: ") and err.count("\n") == 1
        assert cli in err and "='" not in err and "procs=" not in err
    with pytest.raises(ValueError) as info:
        simulate(read_swf(trace))
    assert python in str(info.value)


def test_a_sacct_dump_is_named_on_the_command_line(tmp_path, capsys):
    trace = write(tmp_path / "slurm_acct.out", "JobID|Submit|NCPUS|State\n1001|2021-02-11T22:36:19|12|COMPLETED\n")
    assert main(["simulate", trace]) == 2
    err = capsys.readouterr().err
    # read as the sacct dump it is (issue 34), whose header lacks a column the replay needs: one line naming it
    assert err.count("\n") == 1 and f"{trace}:1: the header has no column Start" in err


def test_simulate_help_explains_every_policy_easy_arrival_too(capsys):
    """Issue 30: easy-arrival was explained only in a source comment."""
    for command in ("simulate", "compare"):
        with pytest.raises(SystemExit):
            main([command, "--help"])
        text = " ".join(capsys.readouterr().out.split())
        assert "easy-arrival is EASY that backfills a job only at the time stamp it arrives" in text
        assert all(name in text for name in BUILTIN_POLICIES)


def test_compare_json_is_the_table_one_object_per_policy(capsys):
    """Issue 30: compare had no --json."""
    import json

    assert main(["compare", "--policies", "fcfs,easy"]) == 0
    table = {line.split()[0]: line.split() for line in capsys.readouterr().out.splitlines()[2:]}
    assert main(["compare", "--policies", "fcfs,easy", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)  # nothing else on stdout
    assert [r["policy"] for r in rows] == ["fcfs", "easy"]
    for r in rows:
        assert r["jobs"] == 2406 and r["procs"] == 240 and r["estimates"] == "requested"
        assert f"{r['avg_bounded_slowdown']:.2f}" == table[r["policy"]][3]
        assert f"{r['avg_wait_s']:.1f}" == table[r["policy"]][2]
        assert {"p90_wait_s", "max_wait_s", "utilization", "makespan_s", "sim_s"} <= set(r)


@pytest.mark.parametrize("suffix", [".csv", ".json"])
def test_compare_out_writes_the_table_by_its_extension(tmp_path, capsys, suffix):
    import json

    out = tmp_path / f"table{suffix}"
    assert main(["compare", "--policies", "easy,sjf", "--out", str(out)]) == 0
    assert f"wrote {out}" in capsys.readouterr().out
    if suffix == ".json":
        rows = json.loads(out.read_text())
    else:
        with open(out, newline="") as fh:
            rows = list(csv.DictReader(fh))
    assert [r["policy"] for r in rows] == ["easy", "sjf"] and int(rows[0]["jobs"]) == 2406
    assert list(rows[0])[:6] == ["policy", "trace", "procs", "estimates", "oversized", "jobs"]
    assert [p.name for p in tmp_path.iterdir()] == [out.name]  # no temporary file left
    assert main(["compare", "--policies", "easy", "--json", "--out", str(out)]) == 0
    if suffix == ".json":
        assert json.loads(capsys.readouterr().out) == json.loads(out.read_text())


def test_compare_out_needs_a_known_extension_before_the_run(tmp_path, capsys):
    assert main(["compare", "--out", str(tmp_path / "table.txt")]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and "--out" in captured.err and ".csv or .json" in captured.err
    assert list(tmp_path.iterdir()) == []


def _status(argv: list[str]) -> int:
    try:
        return main(argv)
    except SystemExit as exc:  # argparse's own errors
        return int(exc.code)


def _table(out: str) -> list[list[str]]:
    """The rows of a printed table, without sim_s (a wall-clock time)."""
    return [line.split()[:-1] for line in out.splitlines()[1:]]


def test_time_window_cuts_the_trace_as_cut_writes_it(tmp_path, capsys):
    """Issue 30: no option cut a time window; --time-window and cut give the same jobs, rebased."""
    import numpy as np

    trace = str(sample_trace())
    week = read_swf(trace)
    start = float(week.submit.min())
    cut = tmp_path / "day2.swf"
    assert main(["cut", trace, "--time-window", "1d:48h", "--out", str(cut)]) == 0
    captured = capsys.readouterr()
    day = read_swf(cut)
    inside = (week.submit >= start + 86400) & (week.submit < start + 2 * 86400)
    assert f"wrote {cut}: {len(day)} of 2406 jobs" in captured.out and 0 < len(day) == inside.sum()
    assert captured.err == ""  # the line on stdout says it all
    assert day.job_id.tolist() == week.job_id[inside].tolist()
    # every job keeps its date: UnixStartTime + submit
    assert np.array_equal(
        int(day.metadata["UnixStartTime"]) + day.submit, int(week.metadata["UnixStartTime"]) + week.submit[inside]
    )
    assert day.metadata["UnixStartTime"] == str(int(week.metadata["UnixStartTime"]) + int(start) + 86400)
    assert day.metadata["MaxJobs"] == str(len(day)) and day.max_procs == 240
    # simulate and compare with --time-window run exactly those jobs
    assert main(["simulate", str(cut), "--policy", "easy"]) == 0
    alone = _table(capsys.readouterr().out)
    assert main(["simulate", trace, "--policy", "easy", "--time-window", "86400:172800"]) == 0
    captured = capsys.readouterr()
    assert _table(captured.out) == alone
    assert f"note: --time-window 86400:172800: {len(day)} of 2406 jobs" in captured.err
    assert main(["compare", trace, "--policies", "easy", "--time-window", "1440m:2d"]) == 0
    assert _table(capsys.readouterr().out) == alone


@pytest.mark.parametrize("value", ["", ":", "1w", "2d:1d", "1d:1d", "-1:5", "1x:2d", "nan:1", "a:b:c"])
def test_bad_time_windows_end_in_one_line(tmp_path, capsys, value):
    assert _status(["simulate", str(sample_trace()), f"--time-window={value}"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--time-window" in err and "START:END" in err


def test_a_time_window_without_jobs_is_refused_before_writing(tmp_path, capsys):
    out = tmp_path / "none.swf"
    assert main(["cut", str(sample_trace()), "--time-window", "2w:", "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("clustersched: error: --time-window '2w:': holds no job: the trace's 2406 jobs")
    assert list(tmp_path.iterdir()) == []
    assert _status(["cut", str(sample_trace()), "--out", str(out)]) == 2  # the window is required
    assert "--time-window" in capsys.readouterr().err
