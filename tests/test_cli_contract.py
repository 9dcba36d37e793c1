"""The command-line contract (README, "Command line"; issue 20, deliverable 5), for every sub-command.

- bad input (an option value, a file, the data, a typed library error) -> exactly one line
  ``clustersched: error: ...`` on stderr, status 2, nothing written;
- a run whose scenarios errored -> status 1 and their count on stderr (every reproduction);
- a closed stdout (``| head``, ``| true``) -> no message, status 141;
- SIGINT / SIGTERM during a campaign -> the workers stopped, the store consistent with what
  finished, one line, status 130, within seconds.
"""

from __future__ import annotations

import argparse
import importlib
import os
import signal
import sqlite3
import subprocess
import sys
import textwrap
import time
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path

import pytest

from clustersched.campaign import scenario_key
from clustersched.cli import EXIT_CLOSED_STDOUT, EXIT_FAILED, EXIT_INTERRUPTED, EXIT_USAGE, _parser, main, sample_trace
from clustersched.errors import InvalidScheduleError
from clustersched.reproduce import dfrs as dfrs_study
from clustersched.workload.ptg import write_ptgs
from clustersched.workload.ptg_generators import ptg_population

from support import run_cli as outcome

TESTS = Path(__file__).resolve().parent
#: The command, as a process (the installed script runs the same main()).
CLI = [sys.executable, "-m", "clustersched.cli"]
PAPERS = ("dpsa", "ptg", "scrap", "dfrs", "qlse")
ROW = "1 0 0 10 4 -1 -1 4 20 -1 1 1 1 -1 1 -1 -1 -1\n"


def commands(parser: argparse.ArgumentParser | None = None, path: tuple[str, ...] = ()) -> set[tuple[str, ...]]:
    """Every sub-command that runs something (``("reproduce", "dfrs")``, ``("simulate",)``, ...)."""
    parser = parser or _parser()
    found = set()
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                found |= commands(sub, (*path, name))
    return found or {path}


def snapshot(folder: Path) -> dict[str, bytes]:
    return {os.fspath(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


@pytest.fixture
def workdir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A scratch working folder: a trace, a malformed trace, PTG files good and bad, folders without traces."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("CLUSTERSCHED_TRACES", raising=False)
    (tmp_path / "t.swf.gz").write_bytes(sample_trace().read_bytes())
    (tmp_path / "bad.swf").write_text("; MaxProcs: 8\n" + ROW.rsplit(" ", 1)[0] + "\n")
    write_ptgs(ptg_population("strassen", 2, seed=1), tmp_path / "ptgs.json")
    (tmp_path / "bad.json").write_text("{not json")
    (tmp_path / "empty").mkdir()
    (tmp_path / "notraces").mkdir()
    (tmp_path / "notraces" / "README.md").write_text("no traces here\n")
    (tmp_path / "s.sacct").write_text(
        "JobID|Submit|Start|End|State|NCPUS\n"
        "1|2021-02-11T22:36:19|2021-02-11T22:36:19|2021-02-11T22:36:34|COMPLETED|12\n"
    )
    return tmp_path


# -- bad input: one line, status 2, nothing written -----------------------------------------------------------------
BAD_INPUT = [
    # (argv, what the line says)
    ([], "the following arguments are required: COMMAND"),
    (["bogus"], "invalid choice: 'bogus'"),
    (["reproduce"], "the following arguments are required: PAPER"),
    (["simulate", "missing.swf"], "TRACE 'missing.swf': no such file"),
    (["simulate", "t.swf.gz", "--procs", "0"], "argument --procs: invalid value '0'"),
    (["simulate", "bad.swf"], "17 fields"),
    (["simulate", "t.swf.gz", "--out", "nodir/jobs.csv"], "--out 'nodir/jobs.csv'"),
    (["compare", "--policies", "easy,nope"], "argument --policies"),
    (["compare", "--out", "table.txt"], "--out 'table.txt': end the name with .csv or .json"),
    (["simulate", "t.swf.gz", "--time-window", "2d:1d"], "argument --time-window: invalid value '2d:1d'"),
    (["cut", "t.swf.gz", "--time-window", "2w:", "--out", "c.swf"], "--time-window '2w:': holds no job"),
    (["cut", "missing.swf", "--time-window", ":1d", "--out", "c.swf"], "TRACE 'missing.swf': no such file"),
    (["cut", "t.swf.gz", "--time-window", ":1d", "--out", "t.swf.gz"], "--out 't.swf.gz': is an input"),
    (["compare", "bad.swf"], "17 fields"),
    (["compare", "empty"], "TRACE 'empty': is a folder"),
    (["convert", "missing.txt", "c.swf"], "SACCT_DUMP 'missing.txt': no such file"),
    (["convert", "bad.json", "c.swf", "--to", "csv"], "argument --to: invalid choice: 'csv'"),
    (["convert", "bad.json", "nodir/c.swf"], "OUT 'nodir/c.swf'"),
    (["convert", "bad.json", "c.swf"], "no column JobID"),
    (["lublin", "--jobs", "0", "--out", "l.swf"], "argument --jobs: invalid value '0'"),
    (["lublin", "--out", "nodir/l.swf"], "--out 'nodir/l.swf'"),
    (["sweep", "lublin", "--loads", "0.5:1:0", "--out", "r"], "argument --loads: invalid value '0.5:1:0'"),
    (["sweep", "t.swf.gz", "--policies", "easy,nope", "--out", "r"], "argument --policies"),
    (["ptg", "--algorithm", "nope"], "--algorithm 'nope': must be one of 'SELFISH'"),
    (["ptg", "--algorithm", "C1", "--seed", "-1"], "--seed -1: must be >= 0"),
    (["ptg", "--algorithm", "C1", "--n-ptgs", "0"], "--n-ptgs 0: must be >= 1"),
    (["ptg", "--algorithm", "C1", "--n-ptgs", "x"], "argument --n-ptgs: invalid int value: 'x'"),
    (["ptg", "--algorithm", "C1", "--cluster", "nope"], "argument --cluster: invalid choice: 'nope'"),
    (["ptg", "--algorithm", "C1", "--input", "missing.json"], "--input 'missing.json': no such file"),
    (["ptg", "--algorithm", "C1", "--input", "bad.json"], "bad.json:1: not JSON"),
    (["ptg", "--algorithm", "C1", "--input", "ptgs.json", "--n-ptgs", "3"], "--n-ptgs 3: draws PTGs, --input"),
    (["ptg", "--algorithm", "C1", "--gantt", "g.txt"], "--gantt 'g.txt'"),
    (["scrap", "--algorithm", "SCRAP", "--beta", "2"], "argument --beta: invalid value '2'"),
    (["scrap", "--algorithm", "CPA", "--beta", "0.5"], "argument --algorithm: invalid choice: 'CPA'"),
    (
        ["scrap", "--algorithm", "SCRAP", "--beta", "0.5", "--heterogeneity", "0.5"],
        "--heterogeneity: invalid value '0.5': must be a finite number in [1, 100]",
    ),
    (["dfrs", "--algorithm", "Greedy"], "--algorithm 'Greedy'"),
    (["dfrs", "--algorithm", "EASY", "--penalty", "-1"], "argument --penalty: invalid value '-1'"),
    (["dfrs", "missing.swf", "--algorithm", "EASY"], "TRACE 'missing.swf': no such file"),
    (["dfrs", "bad.swf", "--algorithm", "EASY"], "17 fields"),
    (["dfrs", "--algorithm", "EASY", "--out", "t.swf.gz", "t.swf.gz"], "--out 't.swf.gz': is an input"),
    (["qlse", "--tasks", "0"], "argument --tasks: invalid value '0'"),
    (["qlse", "--algorithm", "HEFT"], "argument --algorithm: invalid value 'HEFT'"),
    (["qlse", "--tasks", "64", "--lans", "2", "--hosts", "2", "--values", "large"], "none of the grids of 2 LANs"),
    (["reproduce", "nope", "--out", "r"], "invalid choice: 'nope'"),
    (["reproduce", "dpsa", "--traces", "missing", "--out", "r"], "--traces 'missing': no such folder"),
    (["reproduce", "dpsa", "--traces", "notraces", "--out", "r"], "--traces 'notraces': holds no .swf"),
    (["reproduce", "dpsa", "--traces", ".", "--workers", "0", "--out", "r"], "argument --workers: invalid value '0'"),
    (["reproduce", "dpsa", "--traces", ".", "--out", ""], "--out '': is not a folder name"),
    (
        ["reproduce", "dpsa", "--dask", "notanaddress", "--out", "r"],
        "argument --dask: invalid value 'notanaddress': must be a scheduler address like 'tcp://host:8786'",
    ),
    (["reproduce", "ptg", "--scale", "huge", "--out", "r"], "argument --scale: invalid choice: 'huge'"),
    (
        ["reproduce", "ptg", "--dask", "tcp://host:port", "--out", "r"],
        "argument --dask: invalid value 'tcp://host:port'",
    ),
    (["reproduce", "ptg", "--out", "t.swf.gz"], "--out 't.swf.gz': is a file, not a folder"),
    (["reproduce", "ptg", "--workers", "2", "--dask", "tcp://h:1", "--out", "r"], "not allowed with argument"),
    (["reproduce", "scrap", "--seed", "-1", "--out", "r"], "argument --seed: invalid value '-1'"),
    (["reproduce", "scrap", "--dask", "tcp://h", "--out", "r"], "missing port number"),
    (["reproduce", "scrap", "--out", ""], "--out '': is not a folder name"),
    (
        ["reproduce", "dfrs", "--traces", "notraces", "--out", "r"],
        "--traces 'notraces': holds no HPC2N-2002-2.2-cln.swf.gz",
    ),
    (
        ["reproduce", "dfrs", "--scale", "medium", "--traces", "missing", "--out", "r"],
        "--traces 'missing': no such folder",
    ),
    (["reproduce", "dfrs", "--dask", "inproc", "--out", "r"], "argument --dask"),
    (["reproduce", "qlse", "--out", ""], "--out '': is not a folder name"),
    (["reproduce", "qlse", "--bandwidth", "wide", "--out", "r"], "argument --bandwidth: invalid choice: 'wide'"),
    (["reproduce", "qlse", "--scale", "small", "--dask", "qlse:1:2", "--out", "r"], "argument --dask"),
]


def test_the_bad_input_table_covers_every_sub_command():
    covered = {tuple(argv[:2]) if argv[:1] == ["reproduce"] else tuple(argv[:1]) for argv, _ in BAD_INPUT}
    assert commands() <= covered


@pytest.mark.parametrize(("argv", "message"), BAD_INPUT, ids=[" ".join(a) or "(none)" for a, _ in BAD_INPUT])
def test_bad_input_is_one_line_and_status_2(workdir, capsys, argv, message):
    before = snapshot(workdir)
    status, out, err = outcome(argv, capsys)
    assert status == EXIT_USAGE == 2, err
    assert err.endswith("\n") and err.count("\n") == 1, err  # exactly one line
    assert err.startswith("clustersched: error: ") and message in err, err
    assert "Traceback" not in err and out == ""
    assert snapshot(workdir) == before  # nothing written, nothing overwritten


@pytest.mark.parametrize("paper", PAPERS)
def test_dask_without_the_extra_is_one_line_saying_how_to_install_it(workdir, capsys, monkeypatch, paper):
    monkeypatch.setitem(sys.modules, "distributed", None)  # what `import distributed` does without the extra
    status, _, err = outcome(["reproduce", paper, "--dask", "tcp://127.0.0.1:8786", "--out", "r"], capsys)
    assert status == 2 and err.count("\n") == 1
    assert err.startswith("clustersched: error: argument --dask: ")
    assert 'pip install "clustersched[dask]"' in err
    assert not (workdir / "r").exists()


@pytest.mark.parametrize(
    "argv",
    [
        ["reproduce", "ptg", "--scale", "small", "--dask", "notanaddress", "--out", "r"],
        ["ptg", "--algorithm", "nope"],
    ],
)
def test_bad_input_as_a_process(tmp_path, argv):
    """As a user runs it: the process ends at once (`--dask notanaddress` used to hang after its traceback)."""
    run = subprocess.run(CLI + argv, cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert run.returncode == 2
    assert run.stderr.count("\n") == 1 and run.stderr.startswith("clustersched: error: "), run.stderr
    assert run.stdout == "" and list(tmp_path.iterdir()) == []


def test_check_dask_address(monkeypatch):
    """The library's check behind --dask: an address refused before any connection, the extra asked for."""
    from clustersched.campaign import runner

    monkeypatch.setitem(sys.modules, "distributed", None)
    with pytest.raises(ImportError, match=r'pip install "clustersched\[dask\]"'):
        runner.check_dask_address("tcp://127.0.0.1:8786")
    with pytest.raises(ValueError, match=r"dask == 'notanaddress', must be a scheduler address"):
        monkeypatch.delitem(sys.modules, "distributed")
        runner.check_dask_address("notanaddress")


def _raise(exc: BaseException):
    def handler(args):
        raise exc

    return handler


@pytest.mark.parametrize(
    ("exc", "status", "line"),
    [
        (
            InvalidScheduleError(["job 1: starts before its submit time", "job 2: overlaps job 1"]),
            2,
            "clustersched: error: 2 violation(s): job 1: starts before its submit time; job 2: overlaps job 1",
        ),
        (SystemExit("clustersched compare: --x 3: must be even"), 2, "clustersched: error: --x 3: must be even"),
        (OSError(28, "No space left on device", "out.csv"), 2, "clustersched: error: out.csv: No space left on device"),
        (ValueError("speed == inf, must be finite"), 2, "clustersched: error: speed == inf, must be finite"),
        (
            BrokenProcessPool("3 of 9 scenarios are stored in r/campaign.sqlite"),
            1,
            "clustersched: a worker process ended abruptly: 3 of 9 scenarios are stored in r/campaign.sqlite",
        ),
        (KeyboardInterrupt(), 130, "clustersched: interrupted"),
        (
            KeyboardInterrupt("2 of 5 scenarios are stored"),
            130,
            "clustersched: interrupted: 2 of 5 scenarios are stored",
        ),
    ],
)
def test_every_way_a_command_ends_is_routed_through_main(capsys, monkeypatch, exc, status, line):
    from clustersched.batch import cli as batch_cli

    monkeypatch.setattr(batch_cli, "compare_command", _raise(exc))
    got, out, err = outcome(["compare"], capsys)
    assert (got, out, err) == (status, "", line + "\n")


def test_a_bug_keeps_its_traceback(monkeypatch):
    from clustersched.batch import cli as batch_cli

    monkeypatch.setattr(batch_cli, "compare_command", _raise(RuntimeError("a bug")))
    with pytest.raises(RuntimeError, match="a bug"):
        main(["compare"])


def test_sigterm_is_an_interrupt_while_a_command_runs(capsys, monkeypatch):
    from clustersched.batch import cli as batch_cli

    def handler(args):
        os.kill(os.getpid(), signal.SIGTERM)
        time.sleep(5)  # the handler raises in this thread before the sleep ends
        raise AssertionError("SIGTERM did not interrupt")

    before = signal.getsignal(signal.SIGTERM)
    monkeypatch.setattr(batch_cli, "compare_command", handler)
    assert outcome(["compare"], capsys) == (130, "", "clustersched: interrupted by SIGTERM\n")
    assert signal.getsignal(signal.SIGTERM) is before  # restored


# -- a run whose scenarios errored: status 1 and the count, for every reproduction -----------------------------------
#: Small cuts of each paper's small scale: a few scenarios, the first of which fails.
CUTS = {"dpsa": None, "ptg": 4, "scrap": 4, "dfrs": 6, "qlse": 4}


def _failing_first(monkeypatch: pytest.MonkeyPatch, paper: str) -> int:
    """Patches the paper's campaign (computed in this process: --workers 1) so that its first scenario fails;
    returns the number of scenarios."""
    module = importlib.import_module(f"clustersched.reproduce.{paper}")
    if CUTS[paper] is not None:
        full = module.scenarios
        monkeypatch.setattr(module, "scenarios", lambda *a, **k: full(*a, **k)[: CUTS[paper]])
    real = module.run_scenario
    failing: list[str] = []  # the key of the first scenario computed

    def run(scenario):
        key = scenario_key(scenario)
        if not failing:
            failing.append(key)
        if key == failing[0]:
            raise ValueError("an unlucky scenario")
        return real(scenario)

    monkeypatch.setattr(module, "run_scenario", run)
    return CUTS[paper] or 4  # dpsa: the bundled week under 4 policies


@pytest.mark.filterwarnings("ignore:No artists with labels found:UserWarning")  # a figure with one series missing
@pytest.mark.parametrize("paper", PAPERS)
def test_errored_scenarios_end_with_status_1_and_their_count(workdir, capsys, monkeypatch, paper):
    total = _failing_first(monkeypatch, paper)
    argv = ["reproduce", paper, "--scale", "small", "--workers", "1", "--no-progress", "--out", "r"]
    if paper == "qlse":
        argv.append("--no-readings")  # the readings' scenarios are a campaign of their own, which the cut misses
    status, out, err = outcome(argv, capsys)
    assert status == EXIT_FAILED == 1, err
    where = "summary.csv" if paper == "dpsa" else "results.csv"
    assert err.splitlines()[-1] == (
        f"clustersched: 1 of {total} scenarios failed: see the status and error "
        f"columns of {os.path.join('r', where)} (the same command retries them)"
    )
    assert "an unlucky scenario" in (workdir / "r" / where).read_text()
    assert "wrote " in out  # the outputs were written all the same

    # a closed stdout at the end of the same run (resumed: only the failed scenario again)
    monkeypatch.setattr(sys, "stdout", ClosedPipe())
    status, _, err = outcome(argv, capsys)
    assert status == EXIT_CLOSED_STDOUT
    assert all(line.startswith("note: ") for line in err.splitlines()), err  # dpsa: which traces it used


# -- a closed stdout: quiet, status 141 --------------------------------------------------------------------------------
class ClosedPipe:
    """A stdout whose reader has gone: every write fails as it does on a pipe closed at the other end."""

    def write(self, text: str) -> int:
        raise BrokenPipeError(32, "Broken pipe")

    def flush(self) -> None:
        raise BrokenPipeError(32, "Broken pipe")

    def fileno(self) -> int:
        import io

        raise io.UnsupportedOperation("fileno")


CLOSED_STDOUT = [
    ["--help"],
    ["--version"],
    ["compare", "--policies", "fcfs"],
    ["simulate", "t.swf.gz", "--policy", "fcfs"],
    ["lublin", "--jobs", "20", "--out", "l.swf"],
    ["cut", "t.swf.gz", "--time-window", ":1d", "--out", "c.swf"],
    [
        "sweep",
        "lublin",
        "--jobs",
        "100",
        "--procs",
        "16",
        "--policies",
        "easy",
        "--loads",
        "0.5",
        "--workers",
        "1",
        "--no-progress",
        "--out",
        "r",
    ],
    ["ptg", "--algorithm", "C1", "--n-ptgs", "2", "--cluster", "chti"],
    ["scrap", "--algorithm", "SCRAP", "--beta", "0.5", "--tasks", "10", "--json"],
    ["dfrs", "--algorithm", "EASY", "--nodes", "64"],
    ["qlse", "--tasks", "8", "--lans", "2", "--hosts", "4"],
    ["convert", "s.sacct", "c.swf"],
]


def test_the_closed_stdout_cases_cover_every_sub_command():
    covered = {tuple(argv[:1]) for argv in CLOSED_STDOUT} | {("reproduce", paper) for paper in PAPERS}
    assert commands() <= covered  # the reproductions: test_errored_scenarios_end_with_status_1_and_their_count


@pytest.mark.parametrize("argv", CLOSED_STDOUT, ids=" ".join)
def test_a_closed_stdout_ends_quietly(workdir, capsys, monkeypatch, argv):
    monkeypatch.setattr(sys, "stdout", ClosedPipe())
    status, _, err = outcome(argv, capsys)
    assert status == EXIT_CLOSED_STDOUT == 141 and err == ""


@pytest.mark.parametrize(
    "argv",
    [
        ["compare", "--policies", "fcfs,easy"],
        ["--help"],
        ["qlse", "--tasks", "8", "--lans", "2", "--hosts", "4", "--json"],
    ],
)
def test_a_pipe_closed_before_the_output_as_a_process(tmp_path, argv):
    """``clustersched ... | true``: the reader is gone before the first write."""
    read, write = os.pipe()
    process = subprocess.Popen(CLI + argv, cwd=tmp_path, stdout=write, stderr=subprocess.PIPE, text=True)
    os.close(write)
    os.close(read)
    _, err = process.communicate(timeout=60)
    assert process.returncode == 141 and err == ""


def test_head_reads_the_first_line_as_a_process(tmp_path):
    """``clustersched compare | head -1``: all is well whether the rest was written before head left or not."""
    with subprocess.Popen(CLI + ["compare"], cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE) as process:
        assert process.stdout is not None and process.stderr is not None
        first = process.stdout.readline()
        process.stdout.close()
        err = process.stderr.read()
        assert process.wait(timeout=60) in (0, 141)
    assert first.startswith(str(sample_trace()).encode()) and err == b""


# -- SIGINT / SIGTERM during a campaign: workers stopped, the store kept, 130 -----------------------------------------
def _children(pid: int) -> dict[int, str]:
    """The live child processes of ``pid``: their pid -> start time (to tell a recycled pid apart)."""
    found = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            fields = stat[stat.rindex(")") + 2 :].split()
            if int(fields[1]) == pid and fields[0] != "Z":
                found[int(entry.name)] = fields[19]
    return found


def _alive(pid: int, started: str) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    fields = stat[stat.rindex(")") + 2 :].split()
    return fields[19] == started and fields[0] != "Z"


RUN_SLOW_CAMPAIGN = textwrap.dedent("""
    import sys
    sys.path.insert(0, {tests!r})
    import campaign_funcs
    from clustersched.cli import main
    from clustersched.reproduce import dfrs

    dfrs.run_scenario = campaign_funcs.slow_dfrs_scenario   # sent to the workers by name
    sys.exit(main(["reproduce", "dfrs", "--scale", "small", "--workers", "2", "--no-progress", "--out", {out!r}]))
""")


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads the process table from /proc")
@pytest.mark.parametrize("how", ["Ctrl-C", "SIGTERM"])
def test_an_interrupted_campaign_stops_its_workers_keeps_its_store_and_exits_130(tmp_path, how):
    out = tmp_path / "out"
    store = out / "campaign.sqlite"
    process = subprocess.Popen(
        [sys.executable, "-c", RUN_SLOW_CAMPAIGN.format(tests=str(TESTS), out=str(out))],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    try:
        # the first result: FCFS on the week; every other scenario sleeps a minute first
        deadline = time.monotonic() + 90
        done = 0
        while done == 0:
            assert process.poll() is None and time.monotonic() < deadline, process.communicate()
            time.sleep(0.2)
            if store.exists():
                with sqlite3.connect(store) as db:
                    try:
                        done = db.execute("SELECT count(*) FROM results").fetchone()[0]
                    except sqlite3.OperationalError:  # the file exists a moment before its table
                        done = 0
        workers = _children(process.pid)
        assert len(workers) >= 2  # two workers (and multiprocessing's resource tracker)
        sent = time.monotonic()
        if how == "Ctrl-C":
            os.killpg(process.pid, signal.SIGINT)  # a terminal sends it to the whole foreground group
        else:
            process.send_signal(signal.SIGTERM)
        _, err = process.communicate(timeout=30)
        took = time.monotonic() - sent
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
            process.communicate()  # and closes the pipes, whatever failed above
    assert process.returncode == EXIT_INTERRUPTED == 130, err
    assert took < 10, took
    reason = "interrupted" if how == "Ctrl-C" else "interrupted by SIGTERM"
    total = len(dfrs_study.scenarios("small"))
    assert err == (
        f"clustersched: {reason}: 1 of {total} scenarios are stored in {store}; the same command resumes from there\n"
    )
    # no worker left behind (they would sleep on for a minute)
    deadline = time.monotonic() + 10
    while any(_alive(pid, started) for pid, started in workers.items()) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not [pid for pid, started in workers.items() if _alive(pid, started)]
    # the store: what finished, whole, and nothing half-written
    assert not Path(f"{store}-journal").exists()
    with sqlite3.connect(store) as db:
        assert db.execute("PRAGMA integrity_check").fetchone() == ("ok",)
        rows = db.execute("SELECT status, result FROM results").fetchall()
    assert len(rows) == 1 and rows[0][0] == "ok" and "max_stretch" in rows[0][1]
    assert not (out / "results.csv").exists()  # the outputs are written once the campaign is complete
