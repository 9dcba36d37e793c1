"""Bad input, as a new user would give it (issue 8, "Bad input found").

Every case ends in a typed error whose message names the file / line / field /
argument and the value, or is accepted correctly (with a report where
something is left out).  Never an untyped traceback, a Rust panic, corrupt
output or a silent drop.
"""

from __future__ import annotations

import gzip
from pathlib import Path

import numpy as np
import pytest

from clustersched.errors import ClusterschedError, InvalidWorkloadError
from clustersched.workload.jobs import JobTable
from clustersched.workload.swf import read_swf, write_swf

GOOD = "1 0 5 100 4 -1 -1 4 200 -1 1 3 1 -1 -1 -1 -1 -1"
SECOND = "2 10 5 50 2 -1 -1 2 100 -1 1 3 1 -1 -1 -1 -1 -1"
BUNDLED = Path(__file__).resolve().parents[1] / "python" / "clustersched" / "data" / "hpc2n-2002-week.swf.gz"


def swf_file(tmp_path: Path, text: str | bytes, name: str = "t.swf") -> Path:
    path = tmp_path / name
    path.write_bytes(text.encode() if isinstance(text, str) else text)
    return path


# -- SWF header ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("header", "line", "field", "message"),
    [
        ("; MaxProcs:", 1, "MaxProcs", "has no value"),
        ("; MaxProcs: 100000000000000000000000", 1, "MaxProcs",
         "value 100000000000000000000000 is out of range (must be in 1..=4294967295)"),
        ("; MaxProcs: abc\n; MaxNodes: 10", 1, "MaxProcs", "value 'abc' is not a whole number of processors"),
        ("; MaxProcs: 240.0\n; MaxNodes: 10", 1, "MaxProcs", "value '240.0' is not a whole number"),
        ("; MaxProcs: 0", 1, "MaxProcs", "value 0 is out of range"),
        ("; MaxProcs: 64\n; MaxNodes: -1", 2, "MaxNodes", "value '-1' is not a whole number"),
        ("; MaxProcs: 240\n; Note: x\n; MaxProcs: 100", 3, "MaxProcs",
         "value 100 contradicts the MaxProcs of 240 at line 1"),
    ],
)
def test_bad_machine_size_header(tmp_path: Path, header: str, line: int, field: str, message: str) -> None:
    path = swf_file(tmp_path, f"{header}\n{GOOD}\n")
    for mode in ("raise", "skip"):  # the machine size would be a guess either way
        with pytest.raises(InvalidWorkloadError, match=message.replace("(", r"\(").replace(")", r"\)")) as err:
            read_swf(path, on_invalid=mode)
        assert (err.value.path, err.value.line, err.value.field) == (str(path), line, field)
        assert str(err.value).startswith(f"{path}:{line}, field {field!r}: ")


def test_machine_size_header_accepted_forms(tmp_path: Path) -> None:
    # A comment after the count, and the same count twice, are fine.
    path = swf_file(tmp_path, f"; MaxProcs: 338 (batch partition)\n; MaxProcs: 338\n{GOOD}\n")
    assert read_swf(path).max_procs == 338


def test_bad_machine_size_in_a_built_table_is_not_replaced() -> None:
    t = JobTable({"runtime": [1.0]}, metadata={"MaxProcs": "abc", "MaxNodes": "4"}, source="mine")
    with pytest.raises(InvalidWorkloadError, match="mine, field 'MaxProcs': value 'abc' is not a whole number"):
        t.max_procs
    assert "MaxProcs='abc'" in repr(t)  # a repr never raises


@pytest.mark.parametrize(
    "text",
    [
        b"\xef\xbb\xbf; MaxProcs: 8\n" + GOOD.encode() + b"\n" + SECOND.encode() + b"\n",  # UTF-8 BOM
        b"\xef\xbb\xbf" + GOOD.encode() + b"\n" + SECOND.encode() + b"\n",  # BOM before data
        ("; MaxProcs: 8\r" + GOOD + "\r" + SECOND + "\r").encode(),  # CR-only line ends
        ("; MaxProcs: 8\r\n" + GOOD + "\r\n" + SECOND + "\r\n").encode(),  # CR LF
    ],
)
def test_bom_and_line_ends_are_accepted(tmp_path: Path, text: bytes) -> None:
    for name, data in (("t.swf", text), ("t.swf.gz", gzip.compress(text))):
        t = read_swf(swf_file(tmp_path, data, name))
        assert t.job_id.tolist() == [1, 2] and t.runtime.tolist() == [100, 50]
        assert t.max_procs in (8, None) and not t.dropped


def test_cr_line_numbers_count_like_an_editor(tmp_path: Path) -> None:
    path = swf_file(tmp_path, f"; MaxProcs: 8\r{GOOD}\r{SECOND.replace(' 50 ', ' -7 ')}\r")
    with pytest.raises(InvalidWorkloadError, match="value -7 is negative") as err:
        read_swf(path)
    assert (err.value.line, err.value.field) == (3, "runtime")


# -- SWF data -------------------------------------------------------------------------------------


def test_duplicate_job_numbers_are_reported(tmp_path: Path) -> None:
    path = swf_file(tmp_path, f"{GOOD}\n{SECOND}\n{GOOD.replace(' 100 ', ' 7 ')}\n")
    with pytest.raises(InvalidWorkloadError) as err:
        read_swf(path)
    assert str(err.value) == f"{path}:3, field 'job_id': job number 1 is already used at line 1"
    assert (err.value.line, err.value.field, err.value.value) == (3, "job_id", 1)
    t = read_swf(path, on_invalid="skip")  # the first line with the number is kept
    assert t.job_id.tolist() == [1, 2] and t.runtime.tolist() == [100, 50]
    assert [(d.reason, d.job_id, d.line) for d in t.dropped] == [("duplicate job number", 1, 3)]


def test_unknown_job_numbers_may_repeat(tmp_path: Path) -> None:
    t = read_swf(swf_file(tmp_path, f"{GOOD.replace('1', '-1', 1)}\n{GOOD.replace('1', '-1', 1)}\n"))
    assert t.job_id.tolist() == [-1, -1]


@pytest.mark.parametrize(
    ("field", "token", "message"),
    [
        ("runtime", "1e300", "value 1e300 is too large (times must be within +-10**10 s"),
        ("submit", "10000000001", "value 10000000001 is too large"),
        ("think_time", "-2e10", "value -2e10 is too large"),
        ("mem_used", "1e30", "value 1e30 is too large (must be within +-2**53)"),
    ],
)
def test_absurd_values_are_rejected(tmp_path: Path, field: str, token: str, message: str) -> None:
    from clustersched.workload.jobs import FIELD_NAMES

    values = GOOD.split()
    values[FIELD_NAMES.index(field)] = token
    path = swf_file(tmp_path, f"; MaxProcs: 8\n{' '.join(values)}\n{SECOND}\n")
    with pytest.raises(InvalidWorkloadError) as err:
        read_swf(path)
    assert str(err.value).startswith(f"{path}:2, field {field!r}: {message}")
    assert read_swf(path, on_invalid="skip").job_id.tolist() == [2]


def test_largest_real_request_is_accepted(tmp_path: Path) -> None:
    # CEA-Curie asks for 2**31 - 1 s ("unlimited"): within the bound.
    t = read_swf(swf_file(tmp_path, GOOD.replace(" 200 ", " 2147483647 ") + "\n"))
    assert t.time_requested.tolist() == [2147483647]


def test_writer_refuses_what_the_reader_rejects(tmp_path: Path) -> None:
    cases = [
        (JobTable({"runtime": [1.0, 1e300]}), "runtime", 2, "is too large"),
        (JobTable({"job_id": [4, 5, 4], "runtime": [1.0, 1.0, 1.0]}), "job_id", 4, "same job number"),
        (JobTable({"procs": [3, -4]}), "procs", 2, "is negative"),
    ]
    for table, field, job, message in cases:
        out = tmp_path / "out.swf"
        with pytest.raises(InvalidWorkloadError, match=message) as err:
            write_swf(table, out)
        assert (err.value.field, err.value.job) == (field, job)
        assert not out.exists()


@pytest.mark.parametrize("path", [123, 4.5, None, b"t.swf", ["t.swf"]])
def test_read_swf_wants_a_file_name(path: object) -> None:
    with pytest.raises(TypeError, match=r"path == .*, must be a file name \(str or os.PathLike\)"):
        read_swf(path)  # type: ignore[arg-type]


# -- JobTable columns -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("columns", "error", "message"),
    [
        ({"submit": None}, TypeError, r"column 'submit' == None, must be a 1-D array of numbers"),
        ({"submit": ["a", "b"]}, TypeError, r"column 'submit' has dtype <U1, must hold numbers"),
        ({"submit": [0, None]}, TypeError, r"column 'submit': row 1 == None, must be a number"),
        ({"procs": [True, False]}, TypeError, r"column 'procs' has dtype bool, must hold numbers"),
        ({"submit": 5}, ValueError, r"column 'submit' has shape \(\), must be 1-D"),
        ({"submit": [[0, 1], [2, 3]]}, ValueError, r"column 'submit' has shape \(2, 2\), must be 1-D"),
        ({"submit": [0, [1, 2]]}, ValueError, r"column 'submit' is not a 1-D array of numbers"),
        ({"procs": [1.5]}, InvalidWorkloadError, r"field 'procs': row 0: value 1.5 is not an integer"),
        ({"procs": [np.nan]}, InvalidWorkloadError, r"field 'procs': row 0: value nan is not an integer"),
        ({"procs": [4, 2**70]}, InvalidWorkloadError, r"field 'procs': row 1: value .* is out of int64's range"),
        ({"procs": [1e300]}, InvalidWorkloadError, r"field 'procs': row 0: value 1e\+300 is out of int64's range"),
        ({"job_id": np.array([2**64 - 1], dtype=np.uint64)}, InvalidWorkloadError, "out of int64's range"),
    ],
)
def test_job_table_columns(columns: dict, error: type, message: str) -> None:
    with pytest.raises(error, match=message):
        JobTable(columns)


def test_job_table_wants_a_mapping() -> None:
    with pytest.raises(TypeError, match="columns == list, must be a mapping"):
        JobTable([1, 2])  # type: ignore[arg-type]


# -- Lublin-Feitelson -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("n_jobs", "procs", "message"),
    [
        (10, 99999999999999999999, r"procs == 99999999999999999999, must be <= 4294967295"),
        (99999999999999, 128, r"n_jobs == 99999999999999, must be <= 10000000"),
        (0, 128, r"n_jobs == 0, must be >= 1"),  # SWF readers reject a trace of no job
    ],
)
def test_lublin_arguments_are_bounded(n_jobs: int, procs: int, message: str) -> None:
    from clustersched.workload.lublin import lublin_feitelson

    with pytest.raises(ValueError, match=message):
        lublin_feitelson(n_jobs, procs)


def test_lublin_on_the_largest_machine(tmp_path: Path) -> None:
    from clustersched.workload.lublin import lublin_feitelson

    t = lublin_feitelson(200, 2**32 - 1, seed=1)
    assert t.procs.min() >= 1 and t.procs.max() <= 2**32 - 1 and t.max_procs == 2**32 - 1
    assert read_swf(write_swf(t, tmp_path / "big.swf")).equals(t)
