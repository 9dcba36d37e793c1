"""Differential tests of the SWF reader: ``read_swf`` (the Rust core's scanner,
rust/core/src/workload/swf.rs) against the old reader kept in tests/reference/swf.py.

On every input both must give the same table (each column bit-identical with the
same dtype, the same metadata, header, source and dropped rows) or the same error
(type, message and every attribute), in both ``on_invalid`` modes: the whole shared
traces, the mutation corpus of test_bad_input.py, hypothesis-generated files (bad
fields, wrong field counts, non-numeric tokens, NaN/inf, huge numbers, Unicode
spaces, undecodable bytes, CR/CRLF, BOM, header-only, gzip) and hand-picked edge cases.
"""

from __future__ import annotations

import gzip
import math
import time
import zlib
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_bad_input import mutated_slices

from clustersched import _core
from clustersched.workload.jobs import FIELD_NAMES
from clustersched.workload.swf import _FLOAT_NAMES, read_swf

from reference.swf import read_swf_reference
from support import SWF_DIR

ATTRIBUTES = ("path", "line", "field", "job", "ptg", "task", "value", "detail")
GOOD = "1 0 5 100 4 -1 -1 4 200 -1 1 3 1 -1 -1 -1 -1 -1"


def _same_value(a: object, b: object) -> bool:
    if type(a) is not type(b):
        return False
    if isinstance(a, float) and math.isnan(a):
        return math.isnan(b)  # type: ignore[arg-type]
    return a == b


def outcome(read, path: Path, mode: str) -> tuple:
    """What ``read`` makes of ``path``: ("table", columns, metadata, header, source, dropped)
    or ("error", type, message, attributes)."""
    try:
        t = read(path, on_invalid=mode)
    except Exception as e:  # noqa: BLE001 -- the comparison is the test
        return ("error", type(e), str(e), {a: getattr(e, a, None) for a in ATTRIBUTES})
    columns = [(getattr(t, name).dtype.str, getattr(t, name).tobytes()) for name in FIELD_NAMES]
    return ("table", columns, t.metadata, t.header, t.source, t.dropped)


def assert_same(path: Path, modes: tuple[str, ...] = ("raise", "skip")) -> str:
    """Both readers agree on ``path`` in every mode; returns the kind of the last outcome."""
    kind = ""
    for mode in modes:
        got, want = outcome(read_swf, path, mode), outcome(read_swf_reference, path, mode)
        assert got[0] == want[0], (
            mode,
            got[:3] if got[0] == "error" else "table",
            want[:3] if want[0] == "error" else "table",
        )
        if got[0] == "error":
            assert got[1] is want[1] and got[2] == want[2], (mode, got[1:3], want[1:3])
            for a in ATTRIBUTES:
                assert _same_value(got[3][a], want[3][a]), (mode, a, got[3][a], want[3][a])
        else:
            assert got[1] == want[1], (mode, "columns differ")
            assert got[2:] == want[2:], (mode, got[2:], want[2:])
        kind = got[0]
    return kind


def write(tmp_path: Path, data: bytes, name: str = "t.swf") -> Path:
    path = tmp_path / name
    path.write_bytes(data)
    return path


# -- whole traces ---------------------------------------------------------------------------------

TRACES = sorted(SWF_DIR.glob("*.swf.gz")) + sorted((SWF_DIR / "small").glob("*.swf"))


@pytest.mark.skipif(not TRACES, reason=f"no traces in {SWF_DIR}")
def test_every_shared_trace_reads_as_the_reference_reads_it() -> None:
    for path in TRACES:
        assert assert_same(path, ("raise",)) == "table", path
    assert len(TRACES) >= 21


# -- the mutation corpus of test_bad_input.py -----------------------------------------------------


def test_mutated_trace_slices(tmp_path: Path) -> None:
    kinds = {"table": 0, "error": 0}
    for n, data in enumerate(mutated_slices(20251125, 300)):
        kinds[assert_same(write(tmp_path, data, f"m{n}.swf"))] += 1
    assert kinds["table"] > 50 and kinds["error"] > 50, kinds


# -- hand-picked cases ----------------------------------------------------------------------------

CASES = {
    "empty": b"",
    "blank": b" \n\t\n\r\n",
    "header only": b"; MaxProcs: 8\n; Note: nothing\n",
    "one job": GOOD.encode(),
    "bom crlf": b"\xef\xbb\xbf; MaxProcs: 8\r\n" + GOOD.encode() + b"\r\n",
    "cr only": b"; MaxProcs: 8\r" + GOOD.encode() + b"\r\r",
    "nan alone": GOOD.replace(" 100 ", " nan ").encode(),
    "nan with a short line": (GOOD.replace(" 100 ", " nan ") + "\n1 2 3\n").encode(),
    "inf and a bad token": (GOOD.replace(" 100 ", " -Infinity ") + "\n" + GOOD.replace("200", "x")).encode(),
    "overflow": GOOD.replace(" 100 ", " 1e400 ").encode(),
    "huge id": GOOD.replace("1", "9" * 30, 1).encode(),
    "2**53 boundary": "\n".join(GOOD.replace("1", str(2**53 + k), 1) for k in (-1, 0, 1, 2)).encode(),
    "too long": GOOD.replace(" 100 ", " 10000000001 ").encode(),
    "negative": GOOD.replace(" 100 ", " -2 ").encode(),
    "fraction id": GOOD.replace("1", "1.5", 1).encode(),
    "minus zero ids": f"{GOOD.replace('1', '-0', 1)}\n{GOOD.replace('1', '0', 1)}\n".encode(),
    "duplicates": f"{GOOD}\n{GOOD}\n{GOOD.replace('1', '-1', 1)}\n{GOOD.replace('1', '-1', 1)}\n{GOOD}\n".encode(),
    "duplicate of an invalid line": f"{GOOD.replace(' 100 ', ' -3 ')}\n{GOOD}\n".encode(),
    "every line invalid": b"1 2\n3\n",
    "non-ascii digit": GOOD.replace(" 100 ", " \u0663 ").encode(),
    "unicode spaces": GOOD.replace(" ", "\u3000").replace("4", "\xa04\x85", 1).encode() + "\n\u2028; x".encode(),
    "undecodable bytes": b"\xff" + GOOD.encode() + b"\n; caf\xe9\n" + GOOD.replace("1", "2", 1).encode() + b"\xe2\x80",
    "half a space": GOOD.replace(" 100 ", " 100\xe2\x80 ").encode("latin-1"),
    "nul": GOOD.replace(" 100 ", " 1\x0000 ").encode(),
    "tabs and vertical spaces": GOOD.replace(" ", "\t\x0b\x0c\x1c").encode(),
    "comment after data": (GOOD + "\n  ; MaxNodes: 12 (say)\n" + GOOD.replace("1", "2", 1)).encode(),
    "bad machine size": b"; MaxProcs: 240.0\n" + GOOD.encode(),
    "two machine sizes": b"; MaxProcs: 8\n; MaxProcs: 9\n" + GOOD.encode(),
    "wide line": " ".join(["1"] * 100_000).encode(),
    "long number": GOOD.replace(" 100 ", " " + "9" * 100_000 + " ").encode(),
    "long fraction": GOOD.replace(" 100 ", " 0." + "0" * 5000 + "1e5000 ").encode(),
    "sacct dump": b"JobID|Submit|NCPUS|State\n1001|2021-02-11T22:36:19|12|COMPLETED\n",
    "sacct dump without header": b"\xef\xbb\xbf; MaxProcs: 8\r\n" + GOOD.encode() + b"\r\n1001| x |12|\xe9\r\n",
    "two pipes": b"a|b\n" + GOOD.encode(),
    "gzip": gzip.compress(("; MaxProcs: 8\n" + GOOD + "\n").encode()),
    "gzip truncated": gzip.compress(("; MaxProcs: 8\n" + GOOD + "\n").encode() * 50)[:-30],
    "gzip two members": gzip.compress(GOOD.encode() + b"\n") + gzip.compress(GOOD.replace("1", "2", 1).encode()),
    "gzip zero padding": gzip.compress(GOOD.encode()) + b"\0" * 7,
    "gzip wrong size": gzip.compress(GOOD.encode())[:-4] + (len(GOOD) + 1).to_bytes(4, "little"),
    "gzip wrong crc": gzip.compress(GOOD.encode())[:-8] + bytes(4) + len(GOOD).to_bytes(4, "little"),
}


@pytest.mark.parametrize("name", list(CASES))
def test_case(tmp_path: Path, name: str) -> None:
    assert_same(write(tmp_path, CASES[name]))


def _zlib_single_member(data: bytes) -> bytes | None:
    """What zlib inflates from ``data`` when it is exactly one clean gzip member."""
    member = zlib.decompressobj(wbits=31)
    try:
        out = member.decompress(data)
    except zlib.error:
        return None
    return out if member.eof and not member.unused_data else None


def _inflated(data: bytes) -> bytes | None:
    """The text the core inflates from ``data`` (and scans), or None when it leaves ``data`` to zlib."""
    got = _core.scan_swf_gz(data)
    return None if got is None else bytes(got[0])


def test_the_core_inflates_exactly_one_clean_gzip_member() -> None:
    text = (GOOD + "\n").encode() * 1000
    data = gzip.compress(text)
    assert _inflated(data) == text
    assert _inflated(gzip.compress(b"")) == b""
    # The scan that comes with the text is the scan of the text.
    got = _core.scan_swf_gz(gzip.compress(b"; MaxProcs: 8\n" + text + b"1 2\n"))
    assert got is not None and got[0].dtype == np.uint8
    want = _core.scan_swf(bytes(got[0]))
    assert got[1][0] == want[0] and got[1][1] == want[1] == 1001 and got[1][4] == want[4] != []
    assert all(np.array_equal(a, b) for a, b in zip(got[1][2:4], want[2:4]))
    # Everything else is left to zlib (read_swf's fallback, which words the errors).
    size = len(text).to_bytes(4, "little")
    for other in (
        data + data,
        data + b"\0",
        data[:-1],
        data[:-4] + (len(text) + 1).to_bytes(4, "little"),
        data[:-8] + bytes(4) + size,
        b"\x1f\x8b",
        b"",
        data[:10] + b"\xff" * 20 + data[-8:],
    ):
        assert _inflated(other) is None


@settings(max_examples=300, deadline=None)
@given(text=st.binary(max_size=3000), cut=st.integers(0, 10**6), flip=st.integers(0, 10**6), tail=st.binary(max_size=3))
def test_core_inflation_agrees_with_zlib(text: bytes, cut: int, flip: int, tail: bytes) -> None:
    """On whole, cut, damaged and extended members the core gives zlib's bytes or leaves the file to zlib."""
    data = gzip.compress(text, mtime=0)
    for variant in (
        data,
        data[: cut % (len(data) + 1)],
        data + tail,
        data[: flip % len(data)] + bytes([data[flip % len(data)] ^ 0x5A]) + data[flip % len(data) + 1 :],
    ):
        got = _inflated(variant)
        assert got is None or got == _zlib_single_member(variant)
    assert _inflated(data) == text


@pytest.mark.parametrize("rising", [True, False])
def test_a_long_trace_parsed_in_blocks_reads_as_one(tmp_path: Path, rising: bool) -> None:
    """Over 40,000 lines the core parses blocks on several threads: problems near every block
    edge (one line in 97 is bad), duplicates across blocks and job numbers that do not rise
    read as the reference reads them."""
    n = 45_001
    ids = list(range(1, n + 1)) if rising else [(k * 7919) % n + 1 for k in range(n)]
    lines = [GOOD.replace("1", str(i), 1) for i in ids]
    for row in [*range(0, n, 97), 22_499, 22_500, 22_501, n - 1]:  # near wherever two blocks meet
        lines[row] = lines[row].replace(" 100 ", " -7 ")
    lines[11_250] = " ".join(lines[11_250].split()[:17])  # a field short
    lines[33_750] = lines[33_750].replace(" 200 ", " 2x0 ")  # not a number
    lines[40_000] = (
        lines[40_000].split(" ", 1)[0].replace(str(ids[40_000]), str(ids[5])) + " " + lines[40_000].split(" ", 1)[1]
    )
    path = write(tmp_path, ("; MaxProcs: 8\r\n" + "\r\n".join(lines) + "\r\n").encode())
    assert assert_same(path) == "table"  # in skip mode, the good lines
    assert outcome(read_swf, path, "raise")[0] == "error"


def test_a_bad_token_is_named_as_before(tmp_path: Path) -> None:
    path = write(tmp_path, f"{GOOD}\n{GOOD.replace(' 200 ', ' 2x0 ').replace('1', '2', 1)}\n".encode())
    with pytest.raises(Exception) as info:
        read_swf(path)
    assert str(info.value) == f"{path}:2, field 'time_requested': value '2x0' is not a number"
    assert info.value.line == 2 and info.value.value == "2x0"


# -- generated files ------------------------------------------------------------------------------

SPACES = [" ", "  ", "\t", "\x0b", "\x0c", "\x1c", "\x1f", "\xa0", "\x85", "\u2003", "\u3000", "\u2028"]
ODD_TOKENS = [
    "nan",
    "NaN",
    "-nan",
    "inf",
    "-inf",
    "+Infinity",
    "infinit",
    "1e400",
    "-1e400",
    "1e-400",
    "1e",
    "e5",
    ".e1",
    ".",
    "+",
    "-",
    "--1",
    "0x10",
    "1_000",
    "1d5",
    "\u0663",
    "\u00bd",
    "\x00",
    "\udcff",
    "1,5",
    "9" * 25,
    "9007199254740993",
    "-9007199254740993",
    "10000000000.5",
    "-0",
    "+0.0",
    "00",
    "1.",
    ".5",
    "-1.0",
    "2e3",
]
LINE_ENDS = ["\n", "\r\n", "\r"]


@st.composite
def swf_text(draw: st.DrawFn) -> str:
    lines = []
    if draw(st.booleans()):
        lines.append(draw(st.sampled_from(["; MaxProcs: 64", "; MaxNodes: 12 (of 16)", ";Version: 2", "; Note:", ";"])))
    ids = st.integers(-2, 6).map(str)
    numbers = st.one_of(
        st.integers(-3, 10**6).map(str),
        st.floats(-1e11, 1e11, allow_nan=False).map(repr),
        st.sampled_from(ODD_TOKENS),
    )
    for _ in range(draw(st.integers(0, 8))):
        kind = draw(st.integers(0, 9))
        if kind == 0:
            lines.append(draw(st.sampled_from(["", "   ", ";", "; comment", " ; MaxProcs: 64", "\x1c"])))
            continue
        fields = [draw(ids)] + [draw(st.sampled_from(["0", "1", "-1", "17", "3600"])) for _ in range(17)]
        if kind <= 3:  # a few fields replaced
            for _ in range(draw(st.integers(1, 3))):
                fields[draw(st.integers(0, 17))] = draw(numbers)
        elif kind == 4:  # a wrong number of fields
            fields = (
                fields[: draw(st.integers(1, 17))] if draw(st.booleans()) else fields + ["1"] * draw(st.integers(1, 3))
            )
        sep = draw(st.sampled_from(SPACES)) if draw(st.integers(0, 4)) == 0 else " "
        lead = draw(st.sampled_from(["", " ", "\t", "\u3000"]))
        lines.append(lead + sep.join(fields) + draw(st.sampled_from(["", " ", "\t"])))
    end = draw(st.sampled_from(LINE_ENDS))
    return end.join(lines) + (end if draw(st.booleans()) else "")


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=swf_text(), bom=st.booleans(), packed=st.booleans(), noise=st.binary(max_size=3), at=st.integers(0, 10**6))
def test_generated_files(tmp_path: Path, text: str, bom: bool, packed: bool, noise: bytes, at: int) -> None:
    data = text.encode("utf-8", "surrogateescape")
    if noise:  # raw bytes, maybe not UTF-8, somewhere
        k = at % (len(data) + 1)
        data = data[:k] + noise + data[k:]
    if bom:
        data = b"\xef\xbb\xbf" + data
    if packed:
        data = gzip.compress(data, mtime=0)
    assert_same(write(tmp_path, data))


def test_nothing_grows_worse_than_linearly(tmp_path: Path) -> None:
    """A line of a million fields and a number of a million digits are findings, quickly."""
    for data in (" ".join(["1"] * 1_000_000).encode(), GOOD.replace(" 100 ", " " + "9" * 1_000_000 + " ").encode()):
        path = write(tmp_path, data)
        began = time.perf_counter()
        with pytest.raises(ValueError):
            read_swf(path)
        assert time.perf_counter() - began < 5


# Byte-level: separators that are Unicode spaces in UTF-8, parts of them, and bytes
# that are not UTF-8 at all, next to and inside the fields.
BYTE_SEPARATORS = [
    b" ",
    b"\t",
    b"\xc2\xa0",
    b"\xc2\x85",
    b"\xe1\x9a\x80",
    b"\xe2\x80\x80",
    b"\xe2\x80\x8a",
    b"\xe2\x80\xa8",
    b"\xe2\x80\xaf",
    b"\xe2\x81\x9f",
    b"\xe3\x80\x80",
    b"\xe2\x80\x8b",
    b"\xc2\xa1",
    b" \xe2\x80 ",
    b"\xc2 ",
]
BYTE_FIELDS = [b"0", b"1", b"-1", b"12", b"nan", b"inf", b"1e400", b"\xe2", b"\x80", b"\xc2", b"\xff", b"\xef\xbb\xbf"]


@st.composite
def swf_bytes(draw: st.DrawFn) -> bytes:
    lines = []
    for _ in range(draw(st.integers(1, 5))):
        if draw(st.integers(0, 5)) == 0:
            lines.append(draw(st.sampled_from(BYTE_SEPARATORS)) + b"; MaxProcs: 4" + draw(st.sampled_from(BYTE_FIELDS)))
            continue
        fields = [str(len(lines) + 1).encode()] + [b"1"] * 17
        for _ in range(draw(st.integers(0, 3))):
            k = draw(st.integers(0, 17))
            fields[k] = draw(st.sampled_from([b"", fields[k]])) + draw(st.sampled_from(BYTE_FIELDS))
        seps = [draw(st.sampled_from(BYTE_SEPARATORS)) if draw(st.integers(0, 3)) == 0 else b" " for _ in range(17)]
        line = fields[0] + b"".join(s + f for s, f in zip(seps, fields[1:]))
        lines.append(draw(st.sampled_from([b"", b"\xc2\xa0", b"\xe2\x80"])) + line)
    return draw(st.sampled_from([b"\n", b"\r\n", b"\r"])).join(lines)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=swf_bytes())
def test_generated_bytes(tmp_path: Path, data: bytes) -> None:
    assert_same(write(tmp_path, data))


def test_numbers_are_parsed_as_python_parses_them() -> None:
    """Long mantissas, extreme and zero-padded exponents, subnormals, rounding ties: bit for bit."""
    rng = np.random.default_rng(7)
    tokens = [
        "1e0000000000000000000005",
        "0.0000000000000000000000000001e28",
        "123456789012345678901234567890e-20",
        "4.9e-324",
        "2.4703282292062328e-324",
        "2.4703282292062329e-324",
        "1.7976931348623158e308",
        "1.7976931348623159e308",
        "9007199254740993",
        "9007199254740993.0000000001",
        "0e99999999999999999999",
    ]
    for _ in range(3000):
        mantissa = "".join(rng.choice(list("0123456789"), size=int(rng.integers(1, 26))))
        k = int(rng.integers(len(mantissa) + 1))
        if rng.random() < 0.5:
            mantissa = mantissa[:k] + "." + mantissa[k:]
        exponent = ["", f"e{int(rng.integers(-330, 331))}", f"E+{int(rng.integers(0, 31))}"][int(rng.integers(3))]
        tokens.append(["", "-", "+"][int(rng.integers(3))] + mantissa + exponent)
    # In the cpu_time field (the value of a line that breaks a time rule is the error's value).
    lines = [" ".join([str(i + 1)] + ["1"] * 4 + [token] + ["1"] * 12) for i, token in enumerate(tokens)]
    _, rows, floats, _, found = _core.scan_swf("\n".join(lines).encode())
    got = floats.reshape(-1, rows)[_FLOAT_NAMES.index("cpu_time")].copy()
    for f in found:
        if f[3] == "rule":
            got[f[0]] = f[7]
    assert {f[3] for f in found} <= {"rule"}
    want = np.array([float(t) for t in tokens])
    assert got.tobytes() == want.tobytes() == np.loadtxt(lines, comments=None, ndmin=2)[:, 5].tobytes()
