"""``clustersched qlse``: one case mapped, validity and metrics printed; bad options in one line."""

from __future__ import annotations

import json

import pytest

from clustersched.cli import main
from clustersched.grid import feasible_instance, grid_ranges, mapping_violations, tig_ranges


def test_report_of_a_valid_mapping(capsys):
    argv = ["qlse", "--tasks", "20", "--lans", "8", "--hosts", "6", "--seed", "1", "--values", "small"]
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert out.startswith("QLSE (shared bandwidth): 20 tasks")
    assert "8 LANs x 6 hosts" in out and "mapping: valid" in out and "LAN hit ratio" in out


def test_json_mapping_is_the_valid_mapping_of_the_same_instance(capsys):
    argv = [
        "qlse",
        "--tasks",
        "40",
        "--lans",
        "20",
        "--hosts",
        "16",
        "--seed",
        "7",
        "--algorithm",
        "greedy",
        "--bandwidth",
        "dedicated",
        "--json",
    ]
    status = main(argv)
    report = json.loads(capsys.readouterr().out)
    assert report["algorithm"] == "greedy" and report["bandwidth"] == "dedicated" and report["planted"]
    assert (report["tasks"], report["lans"], report["hosts_per_lan"]) == (40, 20, 16)
    inst = feasible_instance(
        tig_ranges("medium"), grid_ranges("medium"), seed=7, tasks=40, lans=20, hosts_per_lan=16, bandwidth="dedicated"
    )
    assert report["edges"] == inst.tig.num_edges and report["links"] == inst.grid.num_links
    if report["found"]:
        assert status == 0 and report["valid"] and report["violations"] == []
        assert mapping_violations(report["mapping"], inst.tig, inst.grid, bandwidth="dedicated") == []
        assert 0.0 <= report["lan_hit_ratio"] <= 1.0 and report["task_machine_ratio"] >= 1.0
    else:
        assert status == 1 and report["mapping"] is None and report["lan_hit_ratio"] is None


def test_no_mapping_found_exits_1(capsys):
    # a random instance with this seed has no mapping either algorithm can find
    assert main(["qlse", "--tasks", "30", "--lans", "3", "--hosts", "2", "--random", "--values", "large"]) == 1
    assert "no feasible mapping found" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--tasks", "0"], "argument --tasks: invalid value '0': must be an integer in 1..10000"),
        (["--algorithm", "HEFT"], "argument --algorithm: invalid value 'HEFT': must be one of QLSE, greedy"),
        (["--bandwidth", "fat"], "argument --bandwidth: invalid choice: 'fat'"),
        (["--seed", "-1"], "argument --seed: invalid value '-1'"),
        # sizes beyond the model's limits: refused by the option's type, before any work (issue 20)
        (["--tasks", "100000"], "argument --tasks: invalid value '100000': must be an integer in 1..10000"),
        (
            ["--tasks", "18446744073709551616"],
            "argument --tasks: invalid value '18446744073709551616': must be an integer in 1..10000",
        ),
        (["--lans", "100000"], "argument --lans: invalid value '100000': must be an integer in 1..1000"),
        (["--hosts", "100001"], "argument --hosts: invalid value '100001': must be an integer in 1..100000"),
    ],
)
def test_bad_options_end_in_one_line(capsys, argv, message):
    with pytest.raises(SystemExit) as info:
        main(["qlse", *argv])
    assert info.value.code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert message in err[-1]


def test_an_instance_too_small_to_plant_is_an_error(capsys):
    assert main(["qlse", "--tasks", "64", "--lans", "2", "--hosts", "2", "--values", "large"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("clustersched: error: none of the grids of 2 LANs of 2 hosts") and err.count("\n") == 1


def test_a_grid_beyond_max_hosts_is_one_line_and_exit_2(capsys):
    assert main(["qlse", "--lans", "1000", "--hosts", "101"]) == 2
    err = capsys.readouterr().err
    assert err == (
        "clustersched: error: a grid of up to 1000 LANs of up to 101 hosts has up to 101000 hosts, "
        "more than MAX_HOSTS == 100000\n"
    )


def test_the_help_states_the_models_limits(capsys):
    from clustersched.grid import model

    with pytest.raises(SystemExit):
        main(["qlse", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert f"tasks of the TIG, 1..{model.MAX_TASKS}" in text
    assert f"LANs of the grid, 1..{model.MAX_LANS}" in text
    assert f"hosts in every LAN, 1..{model.MAX_HOSTS}, with at most {model.MAX_HOSTS} hosts in all" in text


@pytest.mark.slow
def test_the_largest_sizes_accepted_run_in_seconds(capsys):
    assert main(["qlse", "--tasks", "10000", "--lans", "1000", "--hosts", "100", "--json"]) in (0, 1)
    report = json.loads(capsys.readouterr().out)
    assert (report["tasks"], report["lans"], report["hosts_per_lan"]) == (10_000, 1000, 100)
    assert report["violations"] == []


def test_case_insensitive_algorithm(capsys):
    assert main(["qlse", "--algorithm", "qlse", "--json", "--tasks", "10", "--values", "small"]) == 0
    assert json.loads(capsys.readouterr().out)["algorithm"] == "QLSE"


def test_one_task_has_no_lan_hit_ratio_not_nan(capsys):
    """Issue 30: ``qlse --tasks 1`` printed "nan%" (and NaN, which is not JSON, with --json)."""
    assert main(["qlse", "--tasks", "1"]) == 0
    out = capsys.readouterr().out
    assert "nan" not in out.lower()
    line = next(line for line in out.splitlines() if "LAN hit ratio" in line)
    assert "n/a (the TIG has no communication)" in line
    assert main(["qlse", "--tasks", "1", "--json"]) == 0
    text = capsys.readouterr().out
    assert "NaN" not in text
    report = json.loads(text)
    assert report["valid"] and report["lan_hit_ratio"] is None and report["edges"] == 0
