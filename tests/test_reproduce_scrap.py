"""The SCRAP reproduction (PDCS 2007 §4) at small scale, the one-run command, and the documented commands."""

from __future__ import annotations

import csv
import json
import re
import shlex
from pathlib import Path

import pytest

from clustersched.campaign import Store
from clustersched.cli import main
from clustersched.reproduce import scrap
from clustersched.scrap import validate_multicluster

ROOT = Path(__file__).resolve().parents[1]
RESULT_COLUMNS = {"platform", "ptg", "tasks", "scenario", "beta", "algorithm", "makespan", "power_fraction", "slowdown"}


def read_csv(path):
    with open(path, newline="") as fh:
        return list(csv.DictReader(fh))


@pytest.fixture(scope="module")
def small_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("scrap") / "out"
    assert main(["reproduce", "scrap", "--scale", "small", "--workers", "1", "--no-progress", "--out", str(out)]) == 0
    return out


def test_small_scale_writes_every_output(small_run):
    for name in scrap.OUTPUTS:
        assert (small_run / name).is_file(), name
    rows = read_csv(small_run / "results.csv")
    assert RESULT_COLUMNS <= set(rows[0])
    assert {r["status"] for r in rows} == {"ok"}
    pairs = {(r["platform"], r["ptg"]) for r in rows}
    assert len(pairs) == 8 * 24  # 8 platforms x 2 shapes x 4 complexity scenarios x 3 samples
    assert len(rows) == len(pairs) * 4 * 10  # 4 algorithms x 10 betas
    assert {r["algorithm"] for r in rows} == set(scrap.ALGORITHMS)
    assert {float(r["beta"]) for r in rows} == set(scrap.BETAS)
    assert {r["tasks"] for r in rows} == {"10", "20"}
    for r in rows:
        pf, beta = float(r["power_fraction"]), float(r["beta"])
        assert 0 < pf <= float(r["peak_power_fraction"]) <= 1 + 1e-12
        assert (r["violation"] == "True") == (pf > beta * (1 + scrap.RTOL))
        if r["algorithm"] in ("SCRAP", "SCRAP-MAX") and r["initial_violation"] == "False":
            assert float(r["beta_estimate"]) <= beta * (1 + 1e-9)
        if beta == 1.0 and r["algorithm"] != "HCPA":
            assert float(r["slowdown"]) == 1.0
    # HCPA's one schedule per pair, judged against each beta
    hcpa = {}
    for r in rows:
        if r["algorithm"] == "HCPA":
            hcpa.setdefault((r["platform"], r["ptg"]), set()).add(r["makespan"])
    assert all(len(v) == 1 for v in hcpa.values())
    report = (small_run / "report.md").read_text()
    assert "| SCRAP respects β, worst β ≥ 0.2 | ≥ 99% |" in report
    summary = read_csv(small_run / "summary.csv")
    assert len(summary) == 4 * 10


def test_readings_table_has_both_translations_next_to_the_paper(small_run):
    """readings.csv and the report's section: SCRAP and SCRAP-MAX under each translation (issue 33)."""
    from clustersched.scrap import DEFAULT_TRANSLATION, TRANSLATIONS

    rows = read_csv(small_run / "readings.csv")
    assert [(r["translation"], r["algorithm"]) for r in rows] == [
        (t, a) for t in TRANSLATIONS for a in ("SCRAP", "SCRAP-MAX")
    ]
    assert {r["translation"] for r in rows if r["default"] == "True"} == {DEFAULT_TRANSLATION}
    results = read_csv(small_run / "results.csv")
    for r in rows:
        assert int(r["runs"]) == len(results) // 4  # the same pairs and betas under each reading
        for key in ("respected_0.1", "respected_0.2", "respected_0.3", "respected_ge_0.3"):
            assert 0.0 <= float(r[key]) <= 1.0
        assert float(r["max_excess"]) >= float(r["max_excess_wo_init"]) >= 0.0
    # the default reading's row is what results.csv says
    mine = [x for x in results if x["algorithm"] == "SCRAP" and x["beta"] == "0.2"]
    default = next(r for r in rows if r["default"] == "True" and r["algorithm"] == "SCRAP")
    assert float(default["respected_0.2"]) == pytest.approx(
        sum(x["violation"] == "False" for x in mine) / len(mine), abs=1e-12
    )
    report = (small_run / "report.md").read_text()
    assert "## Readings of the translation f(p_ref, t, k) (§3), next to the paper's" in report
    assert "| paper | SCRAP / SCRAP-MAX | > 96% | ≥ 99% | ≥ 99% | ≥ 99% | 5.4% / 7.4% | < 3% |" in report
    assert f"| {DEFAULT_TRANSLATION} * | SCRAP |" in report


def test_every_schedule_is_validated(monkeypatch, tmp_path):
    """At small scale every schedule goes through the validator too (the checker's findings, worded)."""
    import clustersched.scrap.validate as vm

    calls = []
    real = vm.validate_multicluster

    def counted(schedule, ptg, *, core=None):
        calls.append(schedule.algorithm)
        real(schedule, ptg, core=core)

    monkeypatch.setattr(vm, "validate_multicluster", counted)
    s = {"platform": scrap._small_platforms()[0], "shape": scrap._small_shapes()[0], "seed": 0, "scale": "small"}
    s["translation"] = "at-least-as-fast"
    packed = scrap.run_scenario(s)
    assert len(calls) == 12 * 31  # 12 PTGs x (HCPA + 3 algorithms x 10 betas)
    assert len(scrap._unpack(packed["ptg"], "<i4")) == 12 * 40


@pytest.mark.parametrize("platform, shape", [(199, 107), (0, 0), (123, 77)])
def test_batched_runs_are_the_runs_one_by_one(platform, shape):
    """One Rust call per PTG gives the rows 31 scrap.run calls give, bit for bit (full-scale scenarios)."""
    import numpy as np

    p = scrap._platforms(0)[platform]
    for config in scrap._shape_configs(shape)[::5]:
        ptg = scrap._ptg(config["index"], 0)
        for translation in ("closest", "at-least-as-fast"):
            batched = scrap._runs_batched(config, ptg, p, False, translation)
            single = scrap.runs_one_by_one(config, ptg, p, validate=False, translation=translation)
            for name, dtype in scrap.RUN_COLUMNS.items():
                got, want = (np.asarray(x[name], dtype=dtype).tobytes() for x in (batched, single))
                assert got == want


def test_a_failing_batched_call_gives_the_error_of_a_single_run(monkeypatch):
    import clustersched.scrap.algorithms as algorithms
    import clustersched.scrap.study as study

    s = {"platform": scrap._small_platforms()[0], "shape": scrap._small_shapes()[0], "seed": 0, "scale": "full"}
    expected = scrap.run_scenario(s)

    def broken(*args, **kwargs):
        raise RuntimeError("batched call broken")

    monkeypatch.setattr(study, "study_pair", broken)
    assert scrap.run_scenario(s) == expected  # each PTG run one run at a time instead
    real = algorithms.run

    def failing(ptg, platform, name, **kwargs):
        if name == "MHEFT-MAX" and kwargs["beta"] == 0.3:
            raise ValueError("beta == 0.3 is unlucky")
        return real(ptg, platform, name, **kwargs)

    monkeypatch.setattr(algorithms, "run", failing)
    with pytest.raises(ValueError, match="beta == 0.3 is unlucky"):
        scrap.run_scenario(s)


def test_a_store_of_the_per_run_code_resumes(tmp_path):
    """Rows stored by the code before batching (runs_one_by_one) are the rows of now: a store resumes as it is."""
    import base64

    import numpy as np

    s = {"platform": scrap._small_platforms()[1], "shape": scrap._small_shapes()[1], "seed": 0, "scale": "small"}
    p = scrap._platforms(0)[s["platform"]]
    parts = [
        scrap.runs_one_by_one(c, scrap._ptg(c["index"], 0), p, validate=False) for c in scrap._shape_configs(s["shape"])
    ]
    old = {
        name: base64.b64encode(np.concatenate([np.asarray(x[name], dtype=dtype) for x in parts]).tobytes()).decode(
            "ascii"
        )
        for name, dtype in scrap.RUN_COLUMNS.items()
    }
    assert scrap.run_scenario(s) == old


def test_resume_computes_nothing_twice(small_run, capsys):
    with Store(small_run / "campaign.sqlite") as store:
        before = {(k, r["finished_at"]) for k, r in store._rows(scrap.CAMPAIGN).items()}
    assert (
        main(["reproduce", "scrap", "--scale", "small", "--workers", "1", "--no-progress", "--out", str(small_run)])
        == 0
    )
    with Store(small_run / "campaign.sqlite") as store:
        after = {(k, r["finished_at"]) for k, r in store._rows(scrap.CAMPAIGN).items()}
    assert before == after
    assert "The paper's findings" in capsys.readouterr().out


def test_scenarios_and_populations():
    assert len(scrap.scenarios("full")) == 200 * 108 * 2  # x the two translations
    assert len(scrap.ptg_configs()) == 1296
    with pytest.raises(ValueError, match="scale"):
        scrap.scenarios("huge")
    with pytest.raises(ValueError, match="seed"):
        scrap.scenarios("small", seed=-1)
    # a PTG is the same wherever it is drawn
    config = scrap.ptg_configs()[500]
    assert scrap.make_ptg(config, 3) == scrap.make_ptg(config, 3)
    assert scrap.make_ptg(config, 3).num_real_tasks == config["tasks"]


def test_bad_options(tmp_path, capsys):
    with pytest.raises(SystemExit) as e:
        main(["reproduce", "scrap", "--scale", "medium", "--out", str(tmp_path)])
    assert e.value.code == 2
    (tmp_path / "afile").write_text("not a folder\n")
    assert main(["reproduce", "scrap", "--scale", "small", "--out", str(tmp_path / "afile")]) == 2
    assert "is a file, not a folder" in capsys.readouterr().err
    (tmp_path / "withdir" / "results.csv").mkdir(parents=True)
    assert main(["reproduce", "scrap", "--scale", "small", "--out", str(tmp_path / "withdir")]) == 2
    assert "results.csv" in capsys.readouterr().err


def test_one_run_command(capsys):
    assert (
        main(["scrap", "--algorithm", "scrap-max", "--beta", "0.2", "--tasks", "15", "--clusters", "3", "--json"]) == 0
    )
    report = json.loads(capsys.readouterr().out)
    assert report["algorithm"] == "SCRAP-MAX" and report["tasks"] == 15 and len(report["platform"]["clusters"]) == 3
    assert report["initial_violation"] or report["beta_estimate"] <= 0.2 * (1 + 1e-9)
    assert report["violation"] == (report["power_fraction"] > 0.2 * (1 + 1e-9))
    assert main(["scrap", "--algorithm", "HCPA", "--beta", "1", "--no-comms"]) == 0
    assert "HCPA beta=1" in capsys.readouterr().out
    assert main(["scrap", "--algorithm", "mheft_max", "--beta", "0.5", "--tasks", "10", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["algorithm"] == "MHEFT-MAX"  # - and _ alike, any case
    for bad in (["--beta", "0"], ["--beta", "1.5"], ["--beta", "x"], ["--tasks", "0"], ["--algorithm", "CPA"]):
        args = {"--algorithm": "SCRAP", "--beta": "0.5"}
        args.update(dict(zip(bad[::2], bad[1::2])))
        with pytest.raises(SystemExit) as e:
            main(["scrap", *[x for kv in args.items() for x in kv]])
        assert e.value.code == 2
    capsys.readouterr()
    with pytest.raises(SystemExit) as e:  # the option's type says it, as for every other option
        main(["scrap", "--algorithm", "SCRAP", "--beta", "0.5", "--heterogeneity", "0.5"])
    assert e.value.code == 2 and "argument --heterogeneity: invalid value '0.5'" in capsys.readouterr().err


def _documented_commands() -> list[list[str]]:
    """The ``clustersched scrap`` / ``reproduce scrap --scale small`` commands of the README and the doc."""
    found = []
    for path in (ROOT / "README.md", ROOT / "docs" / "reproduce-scrap.md"):
        text = path.read_text()
        for block in re.findall(r"```sh\n(.*?)```", text, flags=re.S):
            for line in block.splitlines():
                line = line.split("#")[0].strip()
                if "[" in line or "|" in line:  # a synopsis, not a command
                    continue
                if line.startswith("clustersched scrap ") or ("reproduce scrap" in line and "small" in line):
                    found.append(shlex.split(line)[1:])
    return found


def test_documented_commands_run(tmp_path, monkeypatch, capsys):
    commands = _documented_commands()
    assert len(commands) >= 3
    monkeypatch.chdir(tmp_path)
    for argv in commands:
        if argv[0] == "reproduce":
            argv = [*argv, "--workers", "1", "--no-progress"]
        assert main(argv) == 0, argv
    capsys.readouterr()


def test_readme_snippet_runs(capsys):
    """The README's SCRAP section's Python snippet, as written."""
    readme = (ROOT / "README.md").read_text()
    section = readme[readme.index("## One PTG on a shared heterogeneous platform (SCRAP)") :]
    section = section[: section.index("\n## ", 1)]
    snippet = section.split("```python\n")[1].split("```")[0]
    exec(compile(snippet, "README.md", "exec"), {})
    assert "'algorithm': 'SCRAP-MAX'" in capsys.readouterr().out


def test_results_validate_again(small_run):
    """A schedule rebuilt from a stored run's inputs passes the validator (spot check of determinism)."""
    from clustersched.scrap import run as run_scrap

    rows = [r for r in read_csv(small_run / "results.csv") if r["algorithm"] == "SCRAP" and r["beta"] == "0.3"]
    r = rows[0]
    platform = next(p for p in scrap._platforms(0) if p.name == r["platform"])
    ptg = scrap.make_ptg(scrap.ptg_configs()[int(r["ptg"])], 0)
    run = run_scrap(ptg, platform, "SCRAP", beta=0.3)
    validate_multicluster(run.schedule, ptg)
    assert repr(run.metrics.makespan) == r["makespan"]


def test_scrap_command_takes_the_translation(capsys):
    """``clustersched scrap --translation``: either reading, any spelling; the default is the library's."""
    from clustersched.scrap import DEFAULT_TRANSLATION
    from clustersched.scrap import cli as scrap_cli

    assert scrap_cli.DEFAULT_TRANSLATION == DEFAULT_TRANSLATION
    out = {}
    for spelling in ("closest", "AT_LEAST_AS_FAST"):
        argv = ["scrap", "--algorithm", "SCRAP", "--beta", "0.3", "--clusters", "2", "--heterogeneity", "5"]
        assert main([*argv, "--translation", spelling, "--json"]) == 0
        out[spelling] = json.loads(capsys.readouterr().out)
    assert out["closest"]["translation"] == "closest"
    assert out["AT_LEAST_AS_FAST"]["translation"] == "at-least-as-fast"
    assert main(["scrap", "--algorithm", "MHEFT-MAX", "--beta", "0.3", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["translation"] is None  # MHEFT-MAX does not translate
    with pytest.raises(SystemExit) as e:
        main(["scrap", "--algorithm", "SCRAP", "--beta", "0.3", "--translation", "nearest"])
    assert e.value.code == 2 and "argument --translation: invalid choice" in capsys.readouterr().err
