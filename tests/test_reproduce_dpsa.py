"""The DPSA reproduction on small slices of real traces: outputs, resume, and the paper's direction."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

from clustersched.cli import main
from clustersched.reproduce import dpsa

SWF_DIR = Path(__file__).resolve().parents[2] / "shared" / "data" / "swf"

TRACES = ["SDSC-Par-1996-3.1-cln.swf.gz", "LANL-CM5-1994-4.1-cln.swf.gz"]


@pytest.fixture(scope="module")
def traces(tmp_path_factory):
    if not all((SWF_DIR / name).exists() for name in TRACES):
        pytest.skip(f"the traces {TRACES} are not in {SWF_DIR}")
    folder = tmp_path_factory.mktemp("traces")
    for name in TRACES:
        (folder / name).symlink_to(SWF_DIR / name)
    return folder


def read_summary(path):
    with open(path) as fh:
        return list(csv.DictReader(fh))


def test_small_reproduction_writes_summary_and_figures(traces, tmp_path, capsys):
    out = tmp_path / "out"
    assert (
        main(
            [
                "reproduce",
                "dpsa",
                "--traces",
                str(traces),
                "--scale",
                "small",
                "--workers",
                "1",
                "--out",
                str(out),
                "--no-progress",
            ]
        )
        == 0
    )
    rows = read_summary(out / "summary.csv")
    assert {"trace", "policy", "jobs", "avg_bounded_slowdown", "avg_wait", "utilization", "change_vs_easy"} <= set(
        rows[0]
    )
    assert {(r["trace"], r["policy"]) for r in rows} == {
        (t.removesuffix("-cln.swf.gz"), p) for t in TRACES for p in dpsa.POLICIES
    }
    by = {(r["trace"], r["policy"]): r for r in rows}
    for trace in ("SDSC-Par-1996-3.1", "LANL-CM5-1994-4.1"):
        assert float(by[trace, "easy"]["change_vs_easy"]) == 0.0
        assert by[trace, "easy"]["jobs"] == by[trace, "dpsa-n"]["jobs"]
        assert by[trace, "dpsa-n"]["cut_decisions"] == "0"
        # the paper's direction on these busy slices: DPSA-n beats EASY, DPSA-w does not
        assert float(by[trace, "dpsa-n"]["change_vs_easy"]) < 0
        assert float(by[trace, "dpsa-w"]["change_vs_easy"]) > float(by[trace, "dpsa-n"]["change_vs_easy"])
    for figure in ("fig3.png", "fig4.png"):
        assert (out / figure).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert "dpsa-n" in capsys.readouterr().out


def test_rerun_resumes_from_the_store(traces, tmp_path):
    first = dpsa.reproduce_dpsa(tmp_path, traces=traces, scale="small", workers=1, progress=False)
    (tmp_path / "summary.csv").unlink()
    second = dpsa.reproduce_dpsa(tmp_path, traces=traces, scale="small", workers=1, progress=False)
    # nothing recomputed: even the measured simulation times are the stored ones
    assert second == first
    assert (tmp_path / "summary.csv").exists()


def test_a_trace_without_machine_size_is_skipped_with_a_note_not_a_failure(tmp_path, capsys):
    # issue 30: "reproduce dpsa --scale small" exited 1 on the shared traces (METACENTRUM's copy has no header)
    folder = tmp_path / "traces"
    folder.mkdir()
    (folder / "nohdr.swf").write_text(
        "1 0 0 10 4 -1 -1 4 20 -1 1 1 1 -1 1 -1 -1 -1\n2 5 0 10 8 -1 -1 8 20 -1 1 1 1 -1 1 -1 -1 -1\n"
    )
    (folder / "sized.swf").write_text(
        "; MaxProcs: 8\n1 0 0 10 4 -1 -1 4 20 -1 1 1 1 -1 1 -1 -1 -1\n2 3 0 10 2 -1 -1 2 20 -1 1 1 1 -1 1 -1 -1 -1\n"
    )
    rows = dpsa.reproduce_dpsa(tmp_path / "out", traces=folder, scale="small", workers=1, progress=False)
    by = {(r["trace"], r["status"]) for r in rows}
    assert by == {("nohdr", "skipped"), ("sized", "ok")}
    skipped = [r for r in rows if r["status"] == "skipped"]
    assert len(skipped) == 4 and all(
        "no MaxProcs or MaxNodes" in r["note"] and "--procs nohdr=N" in r["note"] for r in skipped
    )
    assert all(r["error"] is None and r["change_vs_easy"] is None for r in skipped)
    assert (
        main(
            [
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
                str(tmp_path / "cli"),
            ]
        )
        == 0
    )
    captured = capsys.readouterr()
    assert captured.err.count("note: nohdr: the header gives no MaxProcs or MaxNodes") == 1
    assert "nohdr                        easy    skipped" in captured.out
    summary = read_summary(tmp_path / "cli" / "summary.csv")
    assert {r["status"] for r in summary if r["trace"] == "nohdr"} == {"skipped"} and "note" in summary[0]
    # --procs NAME=N sizes it (by the summary's name or the file name), and the same folder resumes the rest
    assert (
        main(
            [
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
                str(tmp_path / "cli"),
                "--procs",
                "nohdr.swf=8",
            ]
        )
        == 0
    )
    summary = read_summary(tmp_path / "cli" / "summary.csv")
    assert {(r["trace"], r["status"], r["procs"]) for r in summary} == {("nohdr", "ok", "8"), ("sized", "ok", "8")}
    sized = dpsa.reproduce_dpsa(
        tmp_path / "api", traces=folder, scale="small", workers=1, progress=False, procs={"nohdr": 16, "sized": 4}
    )
    assert {(r["trace"], r["procs"]) for r in sized} == {("nohdr", 16), ("sized", 4)}


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("nohdr", "is not NAME=N"),
        ("=4", "is not NAME=N"),
        ("nohdr=0", "must be an integer in 1..4294967295"),
        ("nohdr=x", "must be an integer"),
        ("other=4", "procs names trace 'other', which is not in the folder"),
    ],
)
def test_bad_procs_options_end_in_one_line(tmp_path, capsys, value, message):
    folder = tmp_path / "traces"
    folder.mkdir()
    (folder / "nohdr.swf").write_text("1 0 0 10 4 -1 -1 4 20 -1 1 1 1 -1 1 -1 -1 -1\n")
    argv = ["reproduce", "dpsa", "--traces", str(folder), "--out", str(tmp_path / "o"), "--procs", value]
    try:
        status = main(argv)
    except SystemExit as exit_:  # argparse's own errors
        status = exit_.code
    assert status == 2
    assert message in capsys.readouterr().err
    assert not (tmp_path / "o" / "campaign.sqlite").exists()


def test_bad_arguments(tmp_path):
    with pytest.raises(ValueError, match="scale == 'huge'"):
        dpsa.reproduce_dpsa(tmp_path, traces=tmp_path, scale="huge")
    with pytest.raises(FileNotFoundError, match="no .swf"):
        dpsa.reproduce_dpsa(tmp_path, traces=tmp_path, scale="small")


def test_without_a_trace_folder_the_bundled_week_is_used(tmp_path, monkeypatch, capsys):
    # a plain install run from a scratch folder: no --traces, no $CLUSTERSCHED_TRACES, no shared/data/swf
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("CLUSTERSCHED_TRACES", raising=False)
    assert main(["reproduce", "dpsa", "--scale", "small", "--workers", "1", "--no-progress", "--out", "r"]) == 0
    captured = capsys.readouterr()
    assert "using the one week of HPC2N bundled with the package" in captured.err
    rows = read_summary(tmp_path / "r" / "summary.csv")
    assert {(r["trace"], r["policy"], r["status"]) for r in rows} == {
        ("hpc2n-2002-week", p, "ok") for p in dpsa.POLICIES
    }
    for figure in ("fig3.png", "fig4.png"):
        assert (tmp_path / "r" / figure).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert not (tmp_path / "r" / ".clustersched-write-test").exists()
