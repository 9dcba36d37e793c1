"""``clustersched dfrs`` and ``clustersched reproduce dfrs``: outputs, validated schedules, resume,
bad options, and the commands the README documents."""

from __future__ import annotations

import csv
import gzip
import json
import shlex
from pathlib import Path

import pytest

from clustersched import sample_trace
from clustersched.cli import main
from clustersched.dfrs import simulator
from clustersched.reproduce import dfrs as reproduce

JSON_KEYS = {"max_stretch", "bound", "degradation", "preemptions", "migrations", "underutilization"}


@pytest.fixture(scope="module")
def small_trace(tmp_path_factory):
    """The first 200 jobs of the bundled HPC2N week, as an SWF file."""
    path = tmp_path_factory.mktemp("dfrs") / "week200.swf"
    with gzip.open(sample_trace(), "rt") as src, open(path, "w") as dst:
        jobs = 0
        for line in src:
            if not line.startswith(";"):
                jobs += 1
                if jobs > 200:
                    break
            dst.write(line)
    return path


def read_csv(path):
    with open(path, newline="") as fh:
        return list(csv.DictReader(fh))


@pytest.mark.parametrize(
    "algorithm", ["GreedyPM */per/opt=min/minvt=600", "MCB8 */opt=avg/minft=300", "EASY", "/stretch-per/opt=max"]
)
def test_dfrs_json(small_trace, capsys, algorithm):
    # HPC2N's header says MaxProcs 240 (and, wrongly, MaxNodes 240): its dual nodes are told
    assert main(["dfrs", str(small_trace), "--algorithm", algorithm, "--json", "--cores-per-node", "2"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert JSON_KEYS <= set(out)
    assert out["jobs"] == 200 and out["nodes"] == 120 and out["cores_per_node"] == 2
    assert out["max_stretch"] >= out["bound"] >= 1
    assert out["degradation"] == pytest.approx(out["max_stretch"] / out["bound"])


def test_dfrs_report_and_jobs_csv(small_trace, tmp_path, capsys):
    out = tmp_path / "jobs.csv"
    assert (
        main(
            [
                "dfrs",
                str(small_trace),
                "--algorithm",
                "GreedyP */opt=min",
                "--penalty",
                "60",
                "--period",
                "1200",
                "--out",
                str(out),
            ]
        )
        == 0
    )
    text = capsys.readouterr().out
    assert "GreedyP */opt=min on week200.swf: 200 jobs" in text and "penalty 60 s" in text
    rows = read_csv(out)
    assert len(rows) == 200 and {"job_id", "completion", "stretch"} <= set(rows[0])


@pytest.mark.parametrize(
    "argv,message",
    [
        (["--algorithm", "Greedy"], "--algorithm 'Greedy': 'Greedy' is not one of the combinations"),
        (["--algorithm", "GreedyP */opt=min/minvt=600"], "never runs MCB8"),
        (["no-such.swf", "--algorithm", "EASY"], "TRACE 'no-such.swf': no such file"),
        (["--algorithm", "Greedy */opt=min", "--estimates", "requested"], "is for the batch baselines"),
    ],
)
def test_dfrs_bad_options_end_in_one_line(capsys, argv, message):
    assert main(["dfrs", *argv]) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1


@pytest.mark.parametrize(
    "option,value",
    [("--penalty", "-1"), ("--period", "0"), ("--nodes", "0"), ("--estimates", "f:-1"), ("--seed", "-1")],
)
def test_dfrs_bad_numbers(capsys, option, value):
    with pytest.raises(SystemExit) as info:
        main(["dfrs", "--algorithm", "EASY", option, value])
    assert info.value.code == 2
    assert f"argument {option}" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("option", "value", "rule"),
    [
        ("--nodes", "4294967295", "must be an integer in 1..1048576"),  # aborted the process (exit 134)
        ("--nodes", "100000000", "must be an integer in 1..1048576"),  # ran 9.5 minutes on 20 jobs
        ("--period", "1e-9", "must be a finite number of seconds in [0.001, 1e+10]"),
        ("--period", "1e300", "must be a finite number of seconds in [0.001, 1e+10]"),
        ("--penalty", "1e300", "must be a finite number of seconds in [0, 1e+10]"),
        ("--node-memory", "1e300", "must be a finite number of GB in (0, 1e+06]"),
    ],
)
def test_dfrs_sizes_beyond_the_limits_are_refused(capsys, option, value, rule):
    with pytest.raises(SystemExit) as info:
        main(["dfrs", "--algorithm", "EASY", option, value])
    assert info.value.code == 2
    assert f"argument {option}: invalid value '{value}': {rule}" in capsys.readouterr().err


def _with_header(small_trace, path, header):
    """The small trace's jobs under another header (a list of '; Key: value' lines)."""
    jobs = [line for line in small_trace.read_text().splitlines(keepends=True) if not line.startswith(";")]
    path.write_text("".join(f"; {line}\n" for line in header) + "".join(jobs))
    return path


@pytest.mark.parametrize(
    ("header", "options", "nodes", "cores"),
    [
        (["MaxProcs: 100"], [], 100, 1),  # KTH's header: 100 processors, not HPC2N's 120 dual nodes
        (["MaxNodes: 70  (dual)", "MaxProcs: 140"], [], 70, 2),  # LPC-EGEE's
        (["MaxNodes: 1152", "MaxProcs: 9216"], [], 1152, 8),  # LLNL-Atlas's
        (["MaxNodes: 240", "MaxProcs: 240"], [], 240, 1),  # HPC2N's, as it is written
        (["MaxNodes: 240", "MaxProcs: 240"], ["--cores-per-node", "2"], 120, 2),  # ... and as the machine was
        (["MaxProcs: 100"], ["--nodes", "25"], 25, 4),
        ([], ["--nodes", "60", "--cores-per-node", "4"], 60, 4),
        (["MaxNodes: 57", "MaxProcs: 178"], ["--nodes", "50", "--cores-per-node", "4"], 50, 4),
    ],
)
def test_dfrs_platform_comes_from_the_trace_header(small_trace, tmp_path, capsys, header, options, nodes, cores):
    trace = _with_header(small_trace, tmp_path / "t.swf", header)
    assert main(["dfrs", str(trace), "--algorithm", "EASY", "--json", *options]) == 0
    out = json.loads(capsys.readouterr().out)
    assert (out["nodes"], out["cores_per_node"]) == (nodes, cores)


def test_dfrs_cores_per_node_makes_the_tasks(small_trace, tmp_path, capsys):
    from clustersched.dfrs.workloads import swf_to_dfrs
    from clustersched.workload import read_swf

    t = read_swf(small_trace)
    paper, _ = swf_to_dfrs(t)  # the paper's dual-processor rule is the default, bit for bit
    two, _ = swf_to_dfrs(t, cores_per_node=2)
    for name in ("tasks", "cpu_need", "mem_need"):
        assert (getattr(paper, name) == getattr(two, name)).all(), name
    one, _ = swf_to_dfrs(t, cores_per_node=1)  # a processor is a node's whole CPU
    assert (one.cpu_need == 1.0).all() and (one.tasks == t.width()).all()
    seven, _ = swf_to_dfrs(t, cores_per_node=7)  # seven single-threaded tasks fill a node, no more
    single = seven.cpu_need < 1
    assert single.any() and (seven.cpu_units()[single] * 7 <= 10**9).all()


@pytest.mark.parametrize(
    ("header", "options", "message"),
    [
        (
            [],
            [],
            "its header gives no machine size (no MaxProcs or MaxNodes line): give the platform as --nodes N "
            "--cores-per-node C",
        ),
        ([], ["--nodes", "60"], "its header gives no machine size"),
        ([], ["--cores-per-node", "2"], "its header gives no machine size"),
        (["MaxNodes: 57", "MaxProcs: 178"], [], "MaxProcs 178 do not make whole nodes of MaxNodes 57"),
        (["MaxProcs: 100"], ["--cores-per-node", "3"], "MaxProcs 100 is not a multiple of --cores-per-node 3"),
        (["MaxProcs: 100"], ["--nodes", "30"], "MaxProcs 100 is not a multiple of --nodes 30"),
    ],
)
def test_dfrs_without_a_size_is_refused_in_one_line(small_trace, tmp_path, capsys, header, options, message):
    # it ran on HPC2N's 120 dual-processor nodes whatever the trace
    trace = _with_header(small_trace, tmp_path / "t.swf", header)
    assert main(["dfrs", str(trace), "--algorithm", "EASY", *options]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"TRACE '{trace}'" in err and message in err


def test_dfrs_bundled_week_defaults_to_hpc2n(capsys):
    assert main(["dfrs", "--algorithm", "EASY", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert (out["nodes"], out["cores_per_node"]) == (120, 2) and out["jobs"] == 2406
    assert main(["dfrs", "--algorithm", "EASY", "--json", "--nodes", "100"]) == 0
    assert json.loads(capsys.readouterr().out)["nodes"] == 100


def test_dfrs_help_names_the_limits(capsys):
    with pytest.raises(SystemExit):
        main(["dfrs", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "nodes of the platform, 1 to 1,048,576" in text
    assert "0.001 to 1e+10; a run may process at most 1,000,000 periodic events" in text


def test_dfrs_period_too_short_for_the_trace_is_one_line(tmp_path, capsys):
    """--period 0.001 on a 20-job trace would process ~10^7 periodic events: refused before the run."""
    trace = tmp_path / "t20.swf"
    with gzip.open(sample_trace(), "rt") as src, open(trace, "w") as dst:
        jobs = 0
        for line in src:
            jobs += not line.startswith(";")
            if jobs > 20:
                break
            dst.write(line)
    assert main(["dfrs", str(trace), "--algorithm", "GreedyPM */per/opt=min/minvt=600", "--period", "0.001"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert err.startswith("clustersched: error: period == 0.001, must be >= 0.015643 s for these jobs")
    assert "max_periodic_events == 1000000" in err


def test_reproduce_traces_without_the_hpc2n_trace(tmp_path, capsys):
    (tmp_path / "other.swf").write_text("; nothing\n")
    for scale in ("small", "full"):
        assert (
            main(
                [
                    "reproduce",
                    "dfrs",
                    "--scale",
                    scale,
                    "--traces",
                    str(tmp_path),
                    "--no-progress",
                    "--out",
                    str(tmp_path / "o"),
                ]
            )
            == 2
        )
        err = capsys.readouterr().err
        assert f"holds no {reproduce.HPC2N_FILE}" in err and err.count("\n") == 1


@pytest.fixture(scope="module")
def small_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("repro") / "out"
    assert main(["reproduce", "dfrs", "--scale", "small", "--workers", "1", "--no-progress", "--out", str(out)]) == 0
    return out


def test_reproduce_small_writes_every_output(small_run):
    for name in reproduce.OUTPUTS:
        assert (small_run / name).is_file(), name
    rows = read_csv(small_run / "results.csv")
    assert {r["status"] for r in rows} == {"ok"}
    assert len(rows) == len(reproduce.scenarios("small"))
    table2 = read_csv(small_run / "table2.csv")
    assert list(table2[0])[:5] == ["trace_set", "algorithm", "degradation_avg", "degradation_std", "degradation_max"]
    assert {r["trace_set"] for r in table2} == {"real", "unscaled", "scaled"}
    assert len(table2) == 3 * 20
    for r in table2:
        assert float(r["degradation_max"]) >= float(r["degradation_avg"]) >= 1.0 - 1e-9
    table3 = read_csv(small_run / "table3.csv")
    assert [r["algorithm"] for r in table3] == list(reproduce.TABLE3_ALGORITHMS)
    report = (small_run / "report.md").read_text()
    assert "Table 2" in report and "Headline checks" in report and "5,262.0" in report  # the paper's EASY scaled avg
    variants = read_csv(small_run / "easy_variants.csv")
    # every reading on every set, requested times on the real set only
    assert [(r["trace_set"], r["algorithm"], r["estimates"]) for r in variants] == [
        (ts, a, e)
        for ts in ("real", "unscaled", "scaled")
        for a, e in reproduce.EASY_VARIANTS
        if e != "requested" or ts == "real"
    ]
    by = {(r["trace_set"], r["algorithm"], r["estimates"]): r for r in variants}
    easy = {r["trace_set"]: r for r in table2 if r["algorithm"] == "EASY"}
    fcfs = {r["trace_set"]: r for r in table2 if r["algorithm"] == "FCFS"}
    for ts in ("real", "unscaled", "scaled"):
        # the paper's reading is Table 2's EASY row, and its ratio is to Table 2's FCFS
        row = by[(ts, "EASY", "exact")]
        assert row["degradation_avg"] == easy[ts]["degradation_avg"]
        assert float(row["easy_fcfs_ratio"]) == pytest.approx(
            float(easy[ts]["degradation_avg"]) / float(fcfs[ts]["degradation_avg"])
        )
    assert by[("real", "EASY", "exact")]["paper_easy_fcfs_ratio"] == "0.85"
    assert "EASY's readings" in report and "| real | EASY-arrival | requested |" in report


def test_reproduce_runs_only_the_algorithms_asked_for(tmp_path, capsys):
    out = tmp_path / "baselines"
    assert (
        main(
            [
                "reproduce",
                "dfrs",
                "--scale",
                "small",
                "--workers",
                "1",
                "--no-progress",
                "--out",
                str(out),
                "--algorithms",
                "fcfs,EASY-arrival",
            ]
        )
        == 0
    )
    rows = read_csv(out / "results.csv")
    assert {(r["algorithm"], r["estimates"]) for r in rows} == {
        ("FCFS", "exact"),
        ("EASY-arrival", "exact"),
        ("EASY-arrival", "requested"),
        ("EASY-arrival", "modal"),
    }
    capsys.readouterr()
    with pytest.raises(SystemExit) as info:
        main(["reproduce", "dfrs", "--scale", "small", "--out", str(out), "--algorithms", "EASY,Greedy"])
    assert info.value.code == 2
    err = capsys.readouterr().err
    assert "argument --algorithms: invalid value 'EASY,Greedy'" in err and err.count("\n") == 1


def test_reproduce_resumes_without_recomputing(small_run, monkeypatch, capsys):
    def fail(*args, **kwargs):
        raise AssertionError("a stored run was computed again")

    monkeypatch.setattr(simulator, "simulate", fail)
    monkeypatch.setattr(reproduce, "run_scenario", fail)
    assert (
        main(["reproduce", "dfrs", "--scale", "small", "--workers", "1", "--no-progress", "--out", str(small_run)]) == 0
    )
    assert "table2.csv" in capsys.readouterr().out


def test_reproduce_bad_options(tmp_path, capsys):
    assert (
        main(
            ["reproduce", "dfrs", "--scale", "small", "--traces", str(tmp_path / "nope"), "--out", str(tmp_path / "o")]
        )
        == 2
    )
    assert "--traces" in capsys.readouterr().err
    (tmp_path / "f").write_text("x")
    assert main(["reproduce", "dfrs", "--scale", "small", "--out", str(tmp_path / "f")]) == 2
    assert "is a file" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["reproduce", "dfrs", "--scale", "huge", "--out", str(tmp_path / "o")])


def test_readme_commands_run(capsys, tmp_path, monkeypatch):
    """The README's DFRS section, as written: its Python snippet, then its two commands."""
    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text()
    section = readme[readme.index("## Fractional sharing of nodes through VMs (DFRS)") :]
    section = section[: section.index("\n## ", 1)]
    snippet = section.split("```python\n")[1].split("```")[0]
    commands = [line for line in section.split("```sh\n")[1].split("```")[0].splitlines() if line]
    exec(compile(snippet, "README.md", "exec"), {})
    assert capsys.readouterr().out.strip()
    monkeypatch.chdir(tmp_path)
    for command in commands:
        argv = shlex.split(command)
        assert argv[0] == "clustersched"
        assert main(argv[1:]) == 0, command
    assert (tmp_path / "dfrs-small" / "table2.csv").exists()


def test_headline_checks_on_the_papers_table2():
    """The checks the reports apply to our Table 2, applied to the paper's own numbers."""
    checks = {(c, ts): (holds, numbers) for c, ts, holds, numbers in reproduce.headline(reproduce.paper_table2_rows())}
    easy = "EASY's average degradation >= 100x the best's"
    greedy = "purely greedy worst cases >= 10x the periodic ones (X * vs X */per)"
    assert checks[(easy, "real")] == (True, "3041.9 / 6.90 = 441x")
    assert checks[(easy, "unscaled")][1].endswith("= 1032x")
    # the paper's GreedyP * and GreedyPM * worst cases on the real weeks are only ~4x the periodic ones
    assert checks[(greedy, "real")] == (False, "144.3x, 3.8x, 4.1x")
    assert checks[(greedy, "scaled")][0] is True
    text = reproduce.table2_report([r for r in reproduce.paper_table2_rows() if r["algorithm"] == "EASY"], "t")
    assert "| EASY | 3,041.9 / 3,041.9" in text and "FCFS" not in text.split("## Headline")[0]
