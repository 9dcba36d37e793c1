"""``clustersched reproduce qlse`` at small scale: every output, every mapping validated, resume, bad options;
and the commands the README and docs/reproduce-qlse.md give run as written."""

from __future__ import annotations

import csv
import re
import shlex
from pathlib import Path

import pytest

from clustersched.cli import main
from clustersched.grid import algorithms as grid_algorithms
from clustersched.reproduce import qlse

ROOT = Path(__file__).resolve().parents[1]
RESULT_COLUMNS = {
    "case",
    "tasks",
    "lans",
    "hosts_per_lan",
    "algorithm",
    "failed",
    "lan_hit_ratio",
    "task_machine_ratio",
    "seconds",
    "bandwidth",
}


def read_csv(path):
    with open(path, newline="") as fh:
        return list(csv.DictReader(fh))


@pytest.fixture(scope="module")
def small_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("qlse") / "out"
    assert main(["reproduce", "qlse", "--scale", "small", "--workers", "1", "--no-progress", "--out", str(out)]) == 0
    return out


def test_small_scale_writes_every_output(small_run):
    rows = read_csv(small_run / "results.csv")
    assert RESULT_COLUMNS <= set(rows[0])
    # 9 combinations x 2 cases, each under both bandwidth models and with both algorithms
    assert len(rows) == 9 * 2 * 2 * 2
    assert {(r["bandwidth"], r["algorithm"]) for r in rows} == {
        (b, a) for b in ("shared", "dedicated") for a in ("QLSE", "greedy")
    }
    assert {r["status"] for r in rows} == {"ok"}
    assert len({r["case"] for r in rows}) == 18
    for r in rows:
        if r["failed"] == "True":
            assert r["lan_hit_ratio"] == "" and r["task_machine_ratio"] == ""
        else:
            assert 0.0 <= float(r["lan_hit_ratio"]) <= 1.0 and float(r["task_machine_ratio"]) >= 1.0
        assert float(r["hosts_per_lan"]) == pytest.approx(int(r["hosts"]) / int(r["lans"]), abs=0.01)
    # the same case has the same TIG and grid size under both models
    by_case = {}
    for r in rows:
        by_case.setdefault(r["case"], set()).add((r["tasks"], r["edges"], r["lans"], r["hosts"]))
    assert all(len(v) == 1 for v in by_case.values())
    for name in qlse.OUTPUTS:
        assert (small_run / name).stat().st_size > 0, name
    for figure in qlse.FIGURES:
        assert (small_run / figure).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    report = (small_run / "report.md").read_text()
    assert "## Bandwidth model: shared" in report and "## Bandwidth model: dedicated" in report
    summary = read_csv(small_run / "summary.csv")
    assert {s["tasks"] for s in summary} >= {"all"}


def test_the_readings_have_their_own_table(small_run):
    readings = read_csv(small_run / "readings.csv")
    assert set(readings[0]) == set(qlse.READING_COLUMNS)
    everything = {(r["reading"], r["greedy_reading"]) for r in readings if r["tasks"] == "all"}
    assert everything == {(name, g) for name in qlse.READINGS for g in ("checked", "validated-after")}
    assert {r["bandwidth"] for r in readings} == {qlse.READINGS_BANDWIDTH}
    for r in readings:
        assert 0.0 <= float(r["qlse_failure_pct"]) <= 100.0 and r["paper_qlse_failure_pct"] == "≈ 0"
        if r["tasks"] == "all":
            assert int(r["cases"]) == 18
    # the same QLSE runs under both greedy readings; DEFAULT_READING with greedy validated after is results.csv's
    by = {(r["reading"], r["greedy_reading"]): r for r in readings if r["tasks"] == "all"}
    for name in qlse.READINGS:
        assert by[(name, "checked")]["qlse_failure_pct"] == by[(name, "validated-after")]["qlse_failure_pct"]
    rows = [r for r in read_csv(small_run / "results.csv") if r["bandwidth"] == "dedicated"]
    default = by[(qlse.DEFAULT_READING, "validated-after")]
    failed = sum(r["failed"] == "True" for r in rows if r["algorithm"] == "QLSE")
    assert float(default["qlse_failure_pct"]) == pytest.approx(100.0 * failed / 18)
    greedy = sum(r["failed"] == "True" for r in rows if r["algorithm"] == "greedy")
    assert float(default["greedy_failure_pct"]) == pytest.approx(100.0 * greedy / 18)
    report = (small_run / "report.md").read_text()
    assert "## Readings (issue 33), bandwidth model: dedicated" in report
    assert "| fit-graph+links-0.5 | validated-after |" in report


def test_every_mapping_is_validated_and_a_rerun_recomputes_nothing(tmp_path, monkeypatch, capsys):
    calls = []
    real = grid_algorithms.validate_mapping

    def counted(mapping, tig, grid, **kwargs):
        calls.append(mapping.algorithm)
        real(mapping, tig, grid, **kwargs)

    monkeypatch.setattr(grid_algorithms, "validate_mapping", counted)
    argv = [
        "reproduce",
        "qlse",
        "--scale",
        "small",
        "--bandwidth",
        "dedicated",
        "--no-readings",
        "--workers",
        "1",
        "--no-progress",
        "--out",
        str(tmp_path),
    ]
    assert main(argv) == 0
    rows = read_csv(tmp_path / "results.csv")
    assert len(read_csv(tmp_path / "readings.csv")) == 0
    assert len(calls) == sum(r["failed"] == "False" for r in rows) > 0
    assert {r["bandwidth"] for r in rows} == {"dedicated"}
    assert "dedicated  QLSE" in capsys.readouterr().out
    calls.clear()
    assert main(argv) == 0
    assert calls == []  # everything came from campaign.sqlite
    assert read_csv(tmp_path / "results.csv") == rows


def test_full_scale_is_the_papers_21870_cases():
    assert len(qlse.combinations("full")) == 2187
    assert len(qlse.scenarios("full", bandwidths=["shared"])) * qlse.CASES["full"] == 21_870


def test_bad_out_is_refused_before_any_work(tmp_path, capsys):
    (tmp_path / "file").write_text("x")
    assert main(["reproduce", "qlse", "--scale", "small", "--out", str(tmp_path / "file")]) == 2
    assert "is a file, not a folder" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["reproduce", "qlse", "--bandwidth", "wide", "--out", str(tmp_path)])


def _documented_commands() -> list[list[str]]:
    """The ``clustersched qlse`` and ``clustersched reproduce qlse`` command lines of the README and the docs."""
    commands = []
    for doc in (ROOT / "README.md", ROOT / "docs" / "reproduce-qlse.md"):
        for line in doc.read_text().splitlines():
            line = line.strip().removeprefix("$ ")
            if not re.match(r"clustersched (reproduce )?qlse\b", line) or "[" in line:
                continue
            if line.startswith("clustersched reproduce") and "--scale small" not in line:
                continue  # the full study takes a minute: benches/ times it
            commands.append(shlex.split(line)[1:])
    return commands


def test_the_documented_commands_run(tmp_path, monkeypatch, capsys):
    commands = _documented_commands()
    assert any(c[0] == "qlse" for c in commands) and any(c[:2] == ["reproduce", "qlse"] for c in commands)
    monkeypatch.chdir(tmp_path)
    for argv in commands:
        if argv[0] == "reproduce":
            argv = [*argv, "--workers", "1", "--no-progress"]
        assert main(argv) in (0, 1), argv  # 1: the algorithm found no mapping, which the docs say when it happens
        capsys.readouterr()


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        (
            {"out": ""},
            ValueError,
            r"out == '', must name a folder \(an empty path is not one; give '.' for the working",
        ),
        ({"out": None}, TypeError, "out == None, must be a path"),
        (
            {"out": "x", "bandwidths": "shared"},
            TypeError,
            r"bandwidths == 'shared', must be a sequence of model names, "
            r"e.g. \('shared',\)",
        ),
        ({"out": "x", "progress": "no"}, TypeError, "progress == 'no', must be a bool"),
        ({"out": "x", "scale": ["small"]}, ValueError, r"scale == \['small'\]"),
        ({"out": "x", "bandwidths": ["wide"]}, ValueError, "bandwidth == 'wide'"),
    ],
)
def test_bad_arguments_of_reproduce_qlse_are_refused_before_any_work(tmp_path, monkeypatch, kwargs, error, match):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(error, match=match):
        qlse.reproduce_qlse(**kwargs)
    assert list(tmp_path.iterdir()) == []  # nothing written, not even in the working directory


def test_an_empty_out_on_the_command_line_is_an_error(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(qlse, "reproduce_qlse", lambda *a, **k: pytest.fail("ran the study in the working directory"))
    assert main(["reproduce", "qlse", "--scale", "small", "--out", ""]) == 2
    assert capsys.readouterr().err.startswith("clustersched: error: --out ''")


def test_the_default_reading_is_the_librarys_defaults():
    import inspect

    from clustersched.grid import feasible_instance, greedy_best_fit
    from clustersched.grid import qlse as grid_qlse

    default = qlse.READINGS[qlse.DEFAULT_READING]
    for fn, options in ((grid_qlse, default["qlse"]), (feasible_instance, default["instance"])):
        params = inspect.signature(fn).parameters
        assert {k: params[k].default for k in options} == options, fn.__name__
    assert inspect.signature(greedy_best_fit).parameters["reading"].default == "validated-after"
