"""The multi-PTG reproduction (RR-7224 §5) at small scale: every output, validated schedules, resume, bad options."""

from __future__ import annotations

import csv
import json

import pytest

from clustersched.cli import main
from clustersched.ptg import algorithms as ptg_algorithms
from clustersched.reproduce import ptg

RESULT_COLUMNS = {
    "scenario",
    "population",
    "n_ptgs",
    "cluster",
    "algorithm",
    "average_stretch",
    "makespan",
    "max_stretch",
    "utilization",
    "seconds",
}


def read_csv(path):
    with open(path, newline="") as fh:
        return list(csv.DictReader(fh))


@pytest.fixture
def counted_validation(monkeypatch):
    """Counts the schedules ptg.run validates (the campaign runs in this process with --workers 1)."""
    calls = []
    real = ptg_algorithms.validate_ptgs

    def validate(schedule, ptgs, cluster):
        calls.append(schedule.algorithm)
        real(schedule, ptgs, cluster)

    monkeypatch.setattr(ptg_algorithms, "validate_ptgs", validate)
    return calls


@pytest.fixture(scope="module")
def small_run(tmp_path_factory):
    """One small run through the CLI, shared by the tests that only read its outputs."""
    out = tmp_path_factory.mktemp("ptg") / "out"
    assert main(["reproduce", "ptg", "--scale", "small", "--workers", "1", "--no-progress", "--out", str(out)]) == 0
    return out


def test_small_scale_writes_every_output(small_run):
    rows = read_csv(small_run / "results.csv")
    assert RESULT_COLUMNS <= set(rows[0])
    names = ptg.algorithm_order()
    assert set(names) == set(ptg_algorithms.ALGORITHMS)
    scenarios = {r["scenario"] for r in rows}
    assert len(scenarios) == 3 * 2 * 4  # populations x N in {2, 4} x clusters, one set each
    # one row per (scenario, algorithm), all computed
    assert sorted((r["scenario"], r["algorithm"]) for r in rows) == sorted((s, a) for s in scenarios for a in names)
    assert {r["status"] for r in rows} == {"ok"}
    assert {r["population"] for r in rows} == {"random", "fft", "strassen"}
    assert {r["cluster"] for r in rows} == {"chti", "grillon", "grelon", "gdx"}
    for r in rows:
        assert float(r["max_stretch"]) >= float(r["min_stretch"]) > 0
        assert 0 < float(r["utilization"]) <= float(r["peak_utilization"]) + 1e-9 <= 1 + 1e-9
        assert float(r["seconds"]) >= 0
    for name in ptg.OUTPUTS:
        assert (small_run / name).stat().st_size > 0, name
    for figure in ptg.FIGURES:
        assert (small_run / figure).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    for reading in ("utilization", "peak_utilization"):
        table2 = read_csv(small_run / f"table2_{reading}.csv")
        assert [r["algorithm"] for r in table2] == names
        assert set(table2[0]) == {"algorithm", "chti", "grillon", "grelon", "gdx"}
    summary = {r["algorithm"]: r for r in read_csv(small_run / "summary.csv")}
    assert float(summary["SELFISH"]["relative_makespan"]) == 1.0
    times = read_csv(small_run / "scheduling_times.csv")
    assert {"algorithm", "mean_seconds_10_random_gdx", "paper_seconds_10_random_gdx", "mean_seconds"} <= set(times[0])
    report = (small_run / "report.md").read_text()
    assert "Table 2 (peak_utilization" in report and "| SELFISH_ORDER |" in report


def test_every_schedule_is_validated_and_a_rerun_recomputes_nothing(tmp_path, counted_validation, capsys):
    argv = ["reproduce", "ptg", "--scale", "small", "--workers", "1", "--no-progress", "--out", str(tmp_path)]
    assert main(argv) == 0
    first = read_csv(tmp_path / "results.csv")
    assert len(counted_validation) == len(first) == 24 * len(ptg_algorithms.ALGORITHMS)
    (tmp_path / "results.csv").unlink()
    assert main(argv) == 0
    # nothing recomputed: no schedule made, and even the measured times are the stored ones
    assert len(counted_validation) == len(first)
    assert read_csv(tmp_path / "results.csv") == first
    assert "SELFISH_ORDER" in capsys.readouterr().out


def test_scenarios_are_the_papers_and_deterministic():
    full = ptg.scenarios("full", algorithms=["SELFISH"])
    assert len(full) == 1500
    assert {s["n_ptgs"] for s in full} == {2, 4, 6, 8, 10}
    # the same set of PTGs on every cluster, a different one for another set or seed
    s = {"population": "fft", "n_ptgs": 6, "cluster": "chti", "set": 3, "seed": 0, "algorithm": "C1"}
    same = ptg.instance(s)
    assert same == ptg.instance({**s, "cluster": "gdx", "algorithm": "SELFISH"})
    assert len(same) == 6 and len({id(p) for p in same}) == 6
    assert same != ptg.instance({**s, "set": 4})
    assert same != ptg.instance({**s, "seed": 1})
    first, again = ptg.run_scenario(s), ptg.run_scenario(s)
    assert first.pop("scheduling_seconds") >= 0 and again.pop("scheduling_seconds") >= 0
    assert first == again


def test_instance_readings_of_the_sets():
    """sets="one-scenario": every PTG of a set in one cost scenario, drawn from the set's stream; "any" mixes."""
    from clustersched.workload.ptg_generators import CostReading

    todo = [s for s in ptg.scenarios("full", algorithms=["SELFISH"]) if s["cluster"] == "chti" and s["n_ptgs"] == 10]
    scenario_of = lambda p: p.name.split("-")[-2]  # noqa: E731  (e.g. "strassen-matmul-#3")
    mixed = [len({scenario_of(p) for p in ptg.instance(s)}) for s in todo]
    assert max(mixed) > 1
    one = [ptg.instance(s, sets="one-scenario") for s in todo]
    assert all(len({scenario_of(p) for p in ptgs}) == 1 for ptgs in one)
    assert len({scenario_of(ptgs[0]) for ptgs in one}) == 4  # the 75 sets draw all four scenarios
    assert all(len({p.name for p in ptgs}) == 10 for ptgs in one)  # distinct members
    assert one[0] == ptg.instance(todo[0], sets="one-scenario")
    # a cost reading keeps the set's members (the same names), with other costs
    s = todo[0]
    other = ptg.instance(s, reading=CostReading(per="ptg"))
    assert [p.name for p in other] == [p.name for p in ptg.instance(s)] and other != ptg.instance(s)
    with pytest.raises(ValueError, match="sets"):
        ptg.instance(s, sets="all")


def test_new_algorithms_are_picked_up_and_missing_paper_ones_named(monkeypatch, tmp_path, capsys):
    assert len(ptg.PAPER_ALGORITHMS) == 19
    selfish = ptg_algorithms.ALGORITHMS["SELFISH"]
    registry = {
        "SELFISH_ORDER": ptg_algorithms.ALGORITHMS["SELFISH_ORDER"],
        "SELFISH": selfish,
        "MINE": lambda *args, **kwargs: selfish(*args, **kwargs),
    }
    monkeypatch.setattr(ptg_algorithms, "ALGORITHMS", registry)
    assert ptg.algorithm_order() == ["SELFISH", "SELFISH_ORDER", "MINE"]  # the paper's order, then the others
    assert ptg.missing_algorithms() == [a for a in ptg.PAPER_ALGORITHMS if a not in registry]
    assert (
        main(["reproduce", "ptg", "--scale", "small", "--workers", "1", "--no-progress", "--out", str(tmp_path)]) == 0
    )
    assert "not run: SELFISH_WEIGHT, C1, C4" in capsys.readouterr().err
    assert [r["algorithm"] for r in read_csv(tmp_path / "table2_utilization.csv")] == [
        "SELFISH",
        "SELFISH_ORDER",
        "MINE",
    ]
    assert "MINE" in (tmp_path / "report.md").read_text()


def test_bad_arguments(tmp_path):
    with pytest.raises(ValueError, match="scale == 'huge'"):
        ptg.reproduce_ptg(tmp_path, scale="huge")
    with pytest.raises(ValueError, match="seed == -1"):
        ptg.scenarios("small", seed=-1)


@pytest.mark.parametrize(
    ("argv", "option", "value"),
    [
        (["--scale", "huge", "--out", "r"], "--scale", "'huge'"),
        (["--seed", "-1", "--out", "r"], "--seed", "'-1'"),
        (["--workers", "0", "--out", "r"], "--workers", "'0'"),
        (["--workers", "2", "--dask", "tcp://h:1", "--out", "r"], "--dask", "--workers"),
        (["--out", "afile"], "--out", "afile"),
        (["--out", "withdir"], "--out", "results.csv"),
    ],
)
def test_bad_options_end_in_one_line_naming_option_and_value(tmp_path, monkeypatch, capsys, argv, option, value):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "afile").write_text("not a folder\n")
    (tmp_path / "withdir" / "results.csv").mkdir(parents=True)
    before = sorted(p.name for p in tmp_path.rglob("*"))
    try:
        status = main(["reproduce", "ptg", *argv])
    except SystemExit as exc:  # argparse's own errors
        status = exc.code
    last = capsys.readouterr().err.strip().splitlines()[-1]
    assert status == 2
    assert last.startswith(("clustersched: error: ", "clustersched reproduce ptg: error: ")), last
    assert option in last and value in last, last
    assert sorted(p.name for p in tmp_path.rglob("*")) == before  # nothing written


@pytest.mark.parametrize("name", list(ptg_algorithms.ALGORITHMS))
def test_the_ptg_command_accepts_every_registered_algorithm(name, capsys):
    assert main(["ptg", "--algorithm", name.lower(), "--n-ptgs", "2", "--cluster", "chti", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["algorithm"] == name
