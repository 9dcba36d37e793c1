"""Tests of SWF reading and writing (clustersched.workload.swf)."""

from __future__ import annotations

import gzip
import os
import shutil
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from clustersched.errors import InvalidWorkloadError
from clustersched.workload.jobs import SWF_FIELDS, Dropped, JobTable
from clustersched.workload.swf import MAX_TIME, read_swf, write_swf

SWF_DIR = Path(__file__).resolve().parents[2] / "shared" / "data" / "swf"
SMALL = SWF_DIR / "small"
NAMES = [name for name, _, _ in SWF_FIELDS]

GOOD = "1 0 5 100 4 -1 -1 4 200 -1 1 3 1 -1 -1 -1 -1 -1"


def row(**fields: object) -> str:
    """A valid data line with some fields replaced (by SWF column name)."""
    values = GOOD.split()
    for name, value in fields.items():
        values[NAMES.index(name)] = str(value)
    return " ".join(values)


def same(a: JobTable, b: JobTable) -> bool:
    return a.equals(b) and a.header == b.header


# -- real traces (the `hpc2n` fixture, the whole trace, comes from conftest.py) ----

needs_traces = pytest.mark.skipif(not SWF_DIR.is_dir(), reason=f"{SWF_DIR} not found")


@needs_traces
def test_cqsim_toy_trace_exact_values() -> None:
    t = read_swf(SMALL / "cqsim__test.swf")
    assert len(t) == 9
    assert t.job_id.tolist() == list(range(1, 10))
    assert t.submit.tolist() == [0, 1000, 2000, 3000, 4000, 5000, 6000, 8000, 8000]
    assert t.runtime.tolist() == [4000, 2000, 1000, 5000, 3000, 3000, 2000, 1000, 5000]
    assert t.procs.tolist() == [40, 80, 90, 20, 60, 50, 50, 50, 10]
    assert t.time_requested.tolist() == [4000, 2000, 1000, 5000, 3000, 3000, 3000, 5000, 5000]
    assert set(t.wait.tolist()) == {11464} and set(t.user_id.tolist()) == {17}
    assert set(t.cpu_time.tolist()) == {-1} and set(t.think_time.tolist()) == {-1}
    assert t.job_id.dtype == np.int64 and t.submit.dtype == np.float64
    assert t.max_procs == 100
    assert t.metadata["Note"] == "uses the EASY scheduler"
    assert t.metadata["EndTime"] == "Fri Aug 29 10:55:01 CEST 1997"
    # A continuation line holding a URL is not a key of its own.
    assert t.metadata["Information"] == "http://www.pdc.kth.se/"
    assert "http" not in t.metadata
    assert len(t.header) == 19
    assert t.header[0] == " Version: 2.2"
    assert t.header[5] == "              http://www.cs.huji.ac.il/labs/parallel/workload/"
    assert t.header[-1] == ""
    assert t.source == str(SMALL / "cqsim__test.swf") and t.dropped == ()


@needs_traces
def test_hpc2n_whole_trace(hpc2n: JobTable) -> None:
    t = hpc2n
    assert len(t) == 202871
    assert t.max_procs == 240
    assert t.metadata["MaxRecords"] == "202871"
    assert t.metadata["Partition"] == "1  DEFAULT\n2  ALL"
    assert t.metadata["Note"] == "uses MAUI scheduler\nTHIS IS A CLEANED VERSION OF THE LOG!"
    assert t.header[-2] == "         job<=10 (5 jobs removed)"
    first = [11, 342072, 32, 43306, 32, 43307, -1, 32, 43200, -1, 1, 4, 1, -1, -1, 1, -1, -1]
    assert [getattr(t, name)[0] for name in NAMES] == first
    assert t.job_id[:5].tolist() == [11, 12, 13, 14, 15]
    assert t.cpu_time[1] == 552.21  # fractional CPU time is kept
    assert t.status[5] == -1
    assert t.width().max() <= 240


@needs_traces
def test_headerless_crlf_trace_matches_hpc2n(hpc2n: JobTable) -> None:
    t = read_swf(os.fspath(SMALL / "accasim__workload.swf"))
    assert len(t) == 25
    assert t.header == [] and t.metadata == {} and t.max_procs is None
    # The file's rows are copies of HPC2N rows with the same job ids.
    rows = np.searchsorted(hpc2n.job_id, t.job_id)
    assert JobTable(hpc2n.select(rows).columns()).equals(JobTable(t.columns()))


@needs_traces
def test_fractional_times() -> None:
    t = read_swf(SMALL / "evalys__easy_mediumWL_smallPF.swf")
    assert len(t) == 800
    assert t.job_id[:3].tolist() == [0, 2050, 4100]
    assert t.submit[1] == 2739.599152 and t.runtime[1] == 6.609
    assert np.any(np.diff(t.submit) < 0)  # rows stay in file order, not submit order


@needs_traces
def test_gzip_detected_by_content_not_name(tmp_path: Path) -> None:
    hidden = tmp_path / "trace.txt"
    shutil.copyfile(SMALL / "cqsim__test.swf", tmp_path / "plain.swf.gz")
    hidden.write_bytes(gzip.compress((SMALL / "cqsim__test.swf").read_bytes()))
    expected = read_swf(SMALL / "cqsim__test.swf")
    assert same(read_swf(hidden), expected)
    assert same(read_swf(str(tmp_path / "plain.swf.gz")), expected)


def test_missing_file() -> None:
    with pytest.raises(FileNotFoundError):
        read_swf(SWF_DIR / "no-such-trace.swf")


# -- writing and round trips -----------------------------------------------------


@needs_traces
@pytest.mark.parametrize("name", ["cqsim__test.swf", "alea__hpc2n.swf", "evalys__easy_mediumWL_smallPF.swf"])
@pytest.mark.parametrize("suffix", [".swf", ".swf.gz"])
def test_round_trip_small_traces(tmp_path: Path, name: str, suffix: str) -> None:
    t = read_swf(SMALL / name)
    path = write_swf(t, tmp_path / f"out{suffix}")
    assert (path.read_bytes()[:2] == b"\x1f\x8b") == suffix.endswith(".gz")
    back = read_swf(path)
    assert same(back, t)


@needs_traces
def test_round_trip_hpc2n(tmp_path: Path, hpc2n: JobTable) -> None:
    back = read_swf(write_swf(hpc2n, tmp_path / "hpc2n.swf.gz"))
    assert same(back, hpc2n)
    assert back.cpu_time[1] == 552.21


def test_written_format(tmp_path: Path) -> None:
    t = JobTable(
        {"submit": [0.0, 1.5, 9e9], "runtime": [10.0, 0.1, 2.0], "procs": [1, 128, 4]},
        metadata={"MaxProcs": "128", "Note": "first\nsecond"},
    )
    text = write_swf(t, tmp_path / "t.swf").read_text()
    lines = text.splitlines()
    assert lines[:3] == ["; MaxProcs: 128", "; Note: first", "; Note: second"]
    data = [line.split() for line in lines[3:]]
    assert [r[1] for r in data] == ["0", "1.5", "9000000000"]  # integral floats as integers
    assert [r[3] for r in data] == ["10", "0.1", "2"]
    assert all(len(r) == 18 for r in data)
    assert len({len(line) for line in lines[3:]}) == 1  # right-aligned columns
    back = read_swf(tmp_path / "t.swf")
    assert back.equals(t) and back.header == [" MaxProcs: 128", " Note: first", " Note: second"]


def test_header_bytes_survive(tmp_path: Path) -> None:
    # A Latin-1 byte in the header is not UTF-8; it must still come back unchanged.
    src = tmp_path / "latin1.swf"
    src.write_bytes(b"; Installation: Universit\xe9\n" + GOOD.encode() + b"\n")
    out = write_swf(read_swf(src), tmp_path / "copy.swf")
    assert out.read_bytes().startswith(b"; Installation: Universit\xe9\n")


def test_write_rejects_what_swf_cannot_hold(tmp_path: Path) -> None:
    with pytest.raises(InvalidWorkloadError, match="not a finite number") as err:
        write_swf(JobTable({"runtime": [1.0, np.nan]}), tmp_path / "nan.swf")
    assert (err.value.field, err.value.job_id) == ("runtime", 2)
    with pytest.raises(ValueError, match="line break"):
        write_swf(JobTable({"runtime": [1.0]}, header=["a\nb"]), tmp_path / "h.swf")
    with pytest.raises(ValueError, match="must be a word"):
        write_swf(JobTable({"runtime": [1.0]}, metadata={"Max Procs": "4"}), tmp_path / "m.swf")
    assert not list(tmp_path.iterdir())  # nothing half-written


# Values each column may hold so that the file is valid: SWF's -1, or the column's range.
def _column(name: str, dtype: type, n: int) -> st.SearchStrategy[list]:
    nonnegative = name in {
        "submit",
        "wait",
        "runtime",
        "procs",
        "mem_used",
        "procs_requested",
        "time_requested",
        "mem_requested",
    }
    if dtype is np.int64:
        value = st.integers(0 if nonnegative else -(2**53), 2**53)
    else:
        bound = float(2**53) if name.startswith("mem") else float(MAX_TIME)
        value = st.floats(0 if nonnegative else -bound, bound, allow_nan=False)
    if name == "job_id":  # distinct, or -1 (unknown)
        return st.lists(st.one_of(st.just(-1), value), min_size=n, max_size=n).map(
            lambda ids: [x if x == -1 or x not in ids[:k] else -1 for k, x in enumerate(ids)]
        )
    return st.lists(st.one_of(st.just(-1), value), min_size=n, max_size=n)


@st.composite
def tables(draw: st.DrawFn) -> JobTable:
    n = draw(st.integers(1, 20))
    columns = {name: draw(_column(name, dtype, n)) for name, dtype, _ in SWF_FIELDS}
    text = st.text(st.characters(codec="utf-8", exclude_characters="\r\n"), max_size=20)
    if draw(st.booleans()):
        key = st.from_regex(r"[A-Za-z][A-Za-z0-9_]{0,8}", fullmatch=True)
        part = text.map(str.strip)
        value = st.lists(part, min_size=1, max_size=3).map("\n".join)
        return JobTable(columns, metadata=draw(st.dictionaries(key, value, max_size=4)))
    return JobTable(columns, header=draw(st.lists(text, max_size=5)))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(t=tables(), gz=st.booleans())
def test_round_trip_generated(tmp_path: Path, t: JobTable, gz: bool) -> None:
    back = read_swf(write_swf(t, tmp_path / ("t.swf.gz" if gz else "t.swf")))
    assert all(np.array_equal(getattr(back, n), getattr(t, n)) for n in NAMES)
    if t.header:
        assert back.header == t.header
    else:
        assert back.metadata == t.metadata
    # Once read, a table is a fixed point of writing and reading.
    again = read_swf(write_swf(back, tmp_path / "again.swf"))
    assert same(again, back) and again.metadata == back.metadata


# -- malformed input -----------------------------------------------------------------


def write(tmp_path: Path, *lines: str, name: str = "bad.swf") -> Path:
    path = tmp_path / name
    path.write_text("\n".join(lines) + "\n")
    return path


@needs_traces
def test_truncated_gzip(tmp_path: Path) -> None:
    data = gzip.compress((SMALL / "alea__hpc2n.swf").read_bytes())
    path = tmp_path / "cut.swf.gz"
    path.write_bytes(data[: len(data) // 2])
    for mode in ("raise", "skip"):  # skipping cannot recover jobs lost after the cut
        with pytest.raises(InvalidWorkloadError, match="truncated") as err:
            read_swf(path, on_invalid=mode)
        assert str(path) in str(err.value) and err.value.path == str(path)
        assert 0 < err.value.line < 3170  # the last complete line read
        assert f"after line {err.value.line}" in str(err.value)


def test_corrupt_gzip(tmp_path: Path) -> None:
    path = tmp_path / "junk.swf.gz"
    path.write_bytes(b"\x1f\x8b" + b"definitely not deflate data" * 10)
    with pytest.raises(InvalidWorkloadError, match="gzip data is corrupt") as err:
        read_swf(path)
    assert err.value.path == str(path)


@pytest.mark.parametrize(
    ("bad_line", "field", "value", "message"),
    [
        (" ".join(GOOD.split()[:17]), None, None, "line has 17 fields, expected 18"),
        (GOOD + " 7", None, None, "line has 19 fields, expected 18"),
        (row(runtime="abc"), "runtime", "abc", "value 'abc' is not a number"),
        (row(submit="0x10"), "submit", "0x10", "is not a number"),
        (row(procs=-4), "procs", -4, "value -4 is negative (must be >= 0, or -1 for unknown)"),
        (row(procs_requested=-2), "procs_requested", -2, "is negative"),
        (row(wait=-3.5), "wait", -3.5, "is negative"),
        (row(runtime=-0.5), "runtime", -0.5, "is negative"),
        (row(mem_requested=-100), "mem_requested", -100, "is negative"),
        (row(job_id=2.5), "job_id", 2.5, "value 2.5 is not an integer"),
        (row(procs="4.5"), "procs", 4.5, "is not an integer"),
        (row(user_id="1e300"), "user_id", 1e300, "is too large"),
        (row(think_time="nan"), "think_time", None, "is not a finite number"),
        (row(runtime="inf"), "runtime", np.inf, "is not a finite number"),
    ],
)
def test_invalid_line(tmp_path: Path, bad_line: str, field: str | None, value: object, message: str) -> None:
    path = write(tmp_path, "; MaxProcs: 8", "", GOOD, bad_line, row(job_id=3))
    with pytest.raises(InvalidWorkloadError) as err:
        read_swf(path)
    e = err.value
    assert (e.path, e.line, e.field) == (str(path), 4, field)
    if value is not None:
        assert e.value == value
    assert message in str(e)
    assert str(e).startswith(f"{path}:4")
    # The same line under "skip" is dropped and reported.
    t = read_swf(path, on_invalid="skip")
    assert len(t) == 2 and [d.line for d in t.dropped] == [4]


def test_error_message_names_file_line_and_field(tmp_path: Path) -> None:
    path = write(tmp_path, GOOD, row(procs=-4), name="HPC2N.swf")
    with pytest.raises(InvalidWorkloadError) as err:
        read_swf(path)
    assert str(err.value) == (f"{path}:2, field 'procs': value -4 is negative (must be >= 0, or -1 for unknown)")


def test_unknown_and_free_fields_are_valid(tmp_path: Path) -> None:
    # -1 (unknown) is valid everywhere; status, ids and think time may be any number.
    line = row(status=-5, user_id=-7, preceding_job=-3, think_time=-2.5, wait=-1, runtime=0)
    t = read_swf(write(tmp_path, line, "2  1e3  0 1.5e2 3  -1 -1 3 200 -1 0 1 1 -1 -1 -1 -1 -1"))
    assert t.status.tolist() == [-5, 0] and t.think_time[0] == -2.5
    assert t.submit.tolist() == [0, 1000] and t.runtime.tolist() == [0, 150]


def test_first_bad_line_is_reported(tmp_path: Path) -> None:
    path = write(tmp_path, GOOD, row(job_id=1.5), "1 2 3", row(procs=-9))
    with pytest.raises(InvalidWorkloadError) as err:
        read_swf(path)
    assert (err.value.line, err.value.field) == (2, "job_id")


@pytest.mark.parametrize("lines", [[], [""], ["; Version: 2.2", "; MaxProcs: 8", ";"], ["   ", ""]])
def test_no_jobs(tmp_path: Path, lines: list[str]) -> None:
    path = tmp_path / "empty.swf"
    path.write_text("\n".join(lines))
    for mode in ("raise", "skip"):
        with pytest.raises(InvalidWorkloadError, match="contains no jobs") as err:
            read_swf(path, on_invalid=mode)
        assert err.value.path == str(path)


def test_skip_reports_every_dropped_line(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        "; MaxProcs: 8",
        row(job_id=1),
        row(job_id=2, procs=-4),
        "3 0 5 100",
        row(job_id=4),
        row(job_id="x4"),
        row(job_id=6, procs=2.5),
        row(job_id=7, runtime=-9),
        row(job_id=8),
    )
    t = read_swf(path, on_invalid="skip")
    assert t.job_id.tolist() == [1, 4, 8]
    assert t.dropped == (
        Dropped("field 'procs' is negative", 2, 3),
        Dropped("wrong number of fields", 3, 4),
        Dropped("field 'job_id' is not a number", None, 6),
        Dropped("field 'procs' is not an integer", 6, 7),
        Dropped("field 'runtime' is negative", 7, 8),
    )
    assert t.drop_summary()["field 'procs' is negative"] == 1
    assert sum(t.drop_summary().values()) == 5
    assert t.metadata == {"MaxProcs": "8"}


def test_skip_with_no_valid_line(tmp_path: Path) -> None:
    path = write(tmp_path, row(procs=-4), "1 2 3")
    with pytest.raises(InvalidWorkloadError, match="no valid jobs .all 2 data lines"):
        read_swf(path, on_invalid="skip")


def test_on_invalid_argument(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="on_invalid == 'ignore', must be one of 'raise', 'skip'"):
        read_swf(write(tmp_path, GOOD), on_invalid="ignore")  # type: ignore[arg-type]


SACCT = SWF_DIR.parent / "slurm" / "micro" / "slurm_acct.out"


@pytest.mark.parametrize("header", [True, False])
@pytest.mark.parametrize("mode", ["raise", "skip"])
def test_a_sacct_dump_is_named(tmp_path: Path, header: bool, mode: str) -> None:
    """Issue 30: a ``sacct -P`` dump got "line has 1 fields, expected 18" and no hint of what it was."""
    lines = [
        "1001|1001|micro|normal|2021-02-11T22:36:19|00:00:15|COMPLETED|1|12",
        "1002|1002|micro|normal|2021-02-11T22:37:08|00:20:01|COMPLETED|1|1",
    ]
    if header:
        lines.insert(0, "JobID|JobIDRaw|Cluster|Partition|Submit|Elapsed|State|NNodes|NCPUS")
    path = write(tmp_path, *lines, name="slurm_acct.out")
    with pytest.raises(InvalidWorkloadError) as err:
        read_swf(path, on_invalid=mode)
    e = err.value
    assert str(e).startswith(str(path)) and e.path == str(path)
    if mode == "raise":
        assert e.line == 1 and "line has 1 fields, expected 18" in str(e)
    assert "Slurm sacct dump" in str(e) and "not SWF" in str(e)
    assert ("this looks like a Slurm sacct dump" in str(e)) == header


def test_a_short_line_with_no_pipes_gets_no_sacct_hint(tmp_path: Path) -> None:
    path = write(tmp_path, GOOD, "1 2 3")
    with pytest.raises(InvalidWorkloadError) as err:
        read_swf(path)
    assert "sacct" not in str(err.value)


@pytest.mark.skipif(not SACCT.exists(), reason=f"no {SACCT}")
def test_the_real_sacct_dump_is_named() -> None:
    with pytest.raises(InvalidWorkloadError, match="this looks like a Slurm sacct dump") as err:
        read_swf(SACCT)
    assert err.value.line == 1 and err.value.path == str(SACCT)
