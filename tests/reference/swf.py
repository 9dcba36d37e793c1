"""Slow, obviously-correct reference of the SWF reader (``clustersched.read_swf``).

This is the reader as it was before parsing moved into the Rust core
(``rust/core/src/workload/swf.rs``): numpy's text loader for a well-formed file,
and regular expressions to find the malformed lines when it fails.  The
differential tests (``tests/test_swf_rust.py``) require ``read_swf`` to give,
on every input, the same table (columns bit-identical, metadata, header,
dropped rows) or the same error (type, message, attributes) as
:func:`read_swf_reference`.
"""

from __future__ import annotations

import os
import re
import zlib
from typing import Callable, Literal, NamedTuple

import numpy as np

from clustersched._checks import check_choice
from clustersched.errors import InvalidWorkloadError
from clustersched.workload.jobs import MACHINE_SIZE_KEYS, SWF_FIELDS, Dropped, JobTable, parse_machine_size

__all__ = ["read_swf_reference"]

_NAMES = tuple(name for name, _, _ in SWF_FIELDS)
_NFIELDS = len(SWF_FIELDS)
_INT_COLUMNS = [j for j, (_, dtype, _) in enumerate(SWF_FIELDS) if dtype is np.int64]
_NONNEGATIVE = [
    _NAMES.index(name)
    for name in (
        "submit",
        "wait",
        "runtime",
        "procs",
        "mem_used",
        "procs_requested",
        "time_requested",
        "mem_requested",
    )
]
_TIME_COLUMNS = [
    _NAMES.index(name) for name in ("submit", "wait", "runtime", "cpu_time", "time_requested", "think_time")
]
_MEMORY_COLUMNS = [_NAMES.index("mem_used"), _NAMES.index("mem_requested")]
# Beyond 2**53 a float64 no longer holds every integer, so ids could change silently.
_MAX_INT = 2**53
#: Largest time (s) a trace may hold, about 317 years: far above any real log
#: (CEA-Curie's "unlimited" requests are 2**31 - 1 s) and far below where float
#: sums of times lose whole seconds.
MAX_TIME = 10**10

#: Checks applied to parsed values, in order: (columns, is_bad, what, why).
_RULES = (
    (list(range(_NFIELDS)), lambda v: ~np.isfinite(v), "is not a finite number", ""),
    (_INT_COLUMNS, lambda v: v != np.trunc(v), "is not an integer", ""),
    (_INT_COLUMNS + _MEMORY_COLUMNS, lambda v: np.abs(v) > _MAX_INT, "is too large", "must be within +-2**53"),
    (_TIME_COLUMNS, lambda v: np.abs(v) > MAX_TIME, "is too large", "times must be within +-10**10 s, about 317 years"),
    (_NONNEGATIVE, lambda v: (v < 0) & (v != -1), "is negative", "must be >= 0, or -1 for unknown"),
)

_KEY = r"[A-Za-z][A-Za-z0-9_]*"
# `; Key: value`; the colon must be followed by whitespace so that a continuation
# line holding a URL (`;   http://...`) is not taken for a key.
_KEY_VALUE = re.compile(rf"\s*({_KEY}):(?:\s(.*))?")
# A decimal number; [0-9] rather than \d, which would admit other scripts' digits.
_NUMBER = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
# \s matches exactly what str.split() splits on; atomic groups keep failures linear.
_ROW = re.compile(rf"\s*(?>{_NUMBER.pattern})(?:\s+(?>{_NUMBER.pattern})){{{_NFIELDS - 1}}}\s*")


class _Problem(NamedTuple):
    message: str  # for the exception, with the offending value
    reason: str  # for Dropped, without it, so drops can be counted by reason
    field: str | None = None
    value: object = None


def read_swf_reference(path: str | os.PathLike[str], *, on_invalid: Literal["raise", "skip"] = "raise") -> JobTable:
    """``clustersched.read_swf`` as it was: the same signature, result and errors."""
    if not isinstance(path, (str, os.PathLike)):
        raise TypeError(f"path == {path!r}, must be a file name (str or os.PathLike)")
    check_choice("on_invalid", on_invalid, ("raise", "skip"))
    source = os.fspath(path)
    if not isinstance(source, str):
        raise TypeError(f"path == {path!r}, must be a file name (str or os.PathLike)")
    header, header_numbers, data, line_numbers = _split_lines(_read_text(path, source))
    _check_header(header, header_numbers, source)
    if not data:
        raise InvalidWorkloadError("contains no jobs", path=source)
    values, problems = _parse(data)
    problems.update(_check(values, lambda i, j: data[i].split()[j]))
    problems.update(_duplicate_ids(values, problems, line_numbers))
    dropped: list[Dropped] = []
    if problems:
        if on_invalid == "raise":
            row = min(problems)
            p = problems[row]
            raise InvalidWorkloadError(
                p.message + _not_swf(p, data[row]),
                path=source,
                line=line_numbers[row],
                field=p.field,
                value=p.value,
            )
        rows = sorted(problems)
        dropped = [Dropped(problems[i].reason, _job_id(data[i]), line_numbers[i]) for i in rows]
        values = np.delete(values, rows, axis=0)
        if not len(values):
            raise InvalidWorkloadError(
                f"contains no valid jobs (all {len(rows)} data lines are invalid, "
                f"the first at line {line_numbers[rows[0]]}: {problems[rows[0]].message})"
                + _not_swf(problems[rows[0]], data[rows[0]]),
                path=source,
            )
    return JobTable(
        dict(zip(_NAMES, values.T)),
        metadata=_metadata(header),
        header=header,
        source=source,
        dropped=dropped,
    )


# -- reading ---------------------------------------------------------------


def _read_text(path: str | os.PathLike[str], source: str) -> str:
    with open(path, "rb") as f:
        raw = f.read()
    if raw[:2] == b"\x1f\x8b":
        raw = _gunzip(raw, source)
    # surrogateescape keeps stray non-UTF-8 header bytes, and write_swf restores them.
    text = raw.decode("utf-8", "surrogateescape").removeprefix("\ufeff")  # a UTF-8 BOM
    if "\r" in text:  # Windows (CR LF) or old Mac (CR) line ends
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    return text


def _gunzip(raw: bytes, source: str) -> bytes:
    """Decompress all gzip members of ``raw``, turning every failure into InvalidWorkloadError."""
    parts: list[bytes] = []
    while raw:
        member = zlib.decompressobj(wbits=31)
        try:
            parts.append(member.decompress(raw))
        except zlib.error as e:
            raise InvalidWorkloadError(f"gzip data is corrupt ({e})", path=source) from None
        if not member.eof:
            lines = sum(part.count(b"\n") for part in parts)
            after = f" after line {lines}" if lines else ""
            raise InvalidWorkloadError(f"gzip data is truncated or corrupt{after}", path=source, line=lines or None)
        # Like gzip itself, accept zero padding after the last member.
        raw = member.unused_data.lstrip(b"\0")
    return b"".join(parts)


def _split_lines(text: str) -> tuple[list[str], list[int], list[str], list[int]]:
    """Split into header lines (text after ';'), data lines, and the 1-based line numbers of each."""
    header: list[str] = []
    header_numbers: list[int] = []
    data: list[str] = []
    numbers: list[int] = []
    for number, line in enumerate(text.split("\n"), 1):
        stripped = line.lstrip()
        if stripped.startswith(";"):
            header.append(stripped[1:])
            header_numbers.append(number)
        elif stripped:
            data.append(line)
            numbers.append(number)
    return header, header_numbers, data, numbers


def _check_header(header: list[str], numbers: list[int], source: str) -> None:
    """Every MaxProcs / MaxNodes line gives a processor count, and a repeated one the same count."""
    seen: dict[str, tuple[int, int]] = {}  # key -> (count, line number)
    for line, number in zip(header, numbers):
        m = _KEY_VALUE.fullmatch(line)
        if not m or m[1] not in MACHINE_SIZE_KEYS:
            continue
        key, value = m[1], (m[2] or "").strip()
        try:
            count = parse_machine_size(value)
        except ValueError as e:
            raise InvalidWorkloadError(str(e), path=source, line=number, field=key, value=value) from None
        if key in seen and seen[key][0] != count:
            first, at = seen[key]
            raise InvalidWorkloadError(
                f"value {count} contradicts the {key} of {first} at line {at} (the machine size must be one number)",
                path=source,
                line=number,
                field=key,
                value=value,
            )
        seen.setdefault(key, (count, number))


def _metadata(header: list[str]) -> dict[str, str]:
    metadata: dict[str, str] = {}
    for line in header:
        if m := _KEY_VALUE.fullmatch(line):
            key, value = m[1], (m[2] or "").strip()
            metadata[key] = f"{metadata[key]}\n{value}" if key in metadata else value
    return metadata


def _parse(data: list[str]) -> tuple[np.ndarray, dict[int, _Problem]]:
    """Parse data lines into an (n, 18) array, and find the malformed lines.

    numpy's C parser reads a well-formed file in one call; only when it fails
    is each line matched against the grammar to find the malformed ones.
    """
    try:
        values = np.loadtxt(data, dtype=np.float64, comments=None, ndmin=2)
        if values.shape[1] == _NFIELDS:
            return values, {}
    except ValueError:
        pass
    problems = {i: _line_problem(line) for i, line in enumerate(data) if not _ROW.fullmatch(line)}
    # A malformed line becomes a row of zeros (which passes every rule) to keep rows aligned.
    zeros = " ".join("0" * _NFIELDS)
    text = " ".join(zeros if i in problems else line for i, line in enumerate(data))
    return np.array(text.split(), dtype=np.float64).reshape(-1, _NFIELDS), problems


_SACCT_FIELDS = {
    "jobid",
    "jobidraw",
    "jobname",
    "submit",
    "start",
    "end",
    "elapsed",
    "state",
    "ncpus",
    "nnodes",
    "reqcpus",
    "timelimit",
    "partition",
    "account",
    "user",
    "uid",
    "exitcode",
    "alloccpus",
    "nodelist",
}


def _not_swf(problem: _Problem, line: str) -> str:
    """The hint added to a wrong field count when the line is '|'-separated (a Slurm ``sacct -P`` dump)."""
    if problem.reason != "wrong number of fields":
        return ""
    # ASCII case and white space, as the bytes the core scanned
    cells = [cell.strip() for cell in line.encode("utf-8", "surrogateescape").lower().split(b"|")]
    if len(cells) < 3:
        return ""
    if any(cell.decode("latin-1") in _SACCT_FIELDS for cell in cells):
        return (
            "; this looks like a Slurm sacct dump (sacct -P: a header line of field names, '|' between fields), "
            "not SWF (18 numbers separated by white space)"
        )
    return "; its fields are separated by '|' as in a Slurm sacct dump (sacct -P), not by white space: this is not SWF"


def _line_problem(line: str) -> _Problem:
    """What is wrong with a line that does not match _ROW."""
    tokens = line.split()
    if len(tokens) != _NFIELDS:
        return _Problem(f"line has {len(tokens)} fields, expected {_NFIELDS}", "wrong number of fields")
    j = next(j for j, token in enumerate(tokens) if not _NUMBER.fullmatch(token))
    name = _NAMES[j]
    return _Problem(f"value {tokens[j]!r} is not a number", f"field {name!r} is not a number", name, tokens[j])


def _check(values: np.ndarray, token: Callable[[int, int], str]) -> dict[int, _Problem]:
    """Apply _RULES; each bad row is reported by its first bad field (first failing rule).

    ``token(i, j)`` is the text of row ``i``'s field ``j``, for the message.
    """
    code = np.zeros(values.shape, dtype=np.int8)  # 1 + index of the first failing rule
    for r in reversed(range(len(_RULES))):
        columns, is_bad, _, _ = _RULES[r]
        sub = values[:, columns]
        code[:, columns] = np.where(is_bad(sub), r + 1, code[:, columns])
    problems = {}
    for i in np.flatnonzero(code.any(axis=1)).tolist():
        j = int(np.argmax(code[i] != 0))
        _, _, what, why = _RULES[code[i, j] - 1]
        name = _NAMES[j]
        problems[i] = _Problem(
            f"value {token(i, j)} {what}" + (f" ({why})" if why else ""),
            f"field {name!r} {what}",
            name,
            float(values[i, j]),
        )
    return problems


def _repeats(ids: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Positions of the ids equal to an earlier one, and of that earlier one (-1, unknown, never repeats)."""
    known = np.flatnonzero(ids != -1)
    _, first, inverse = np.unique(ids[known], return_index=True, return_inverse=True)
    owner = known[first[inverse.reshape(-1)]]
    later = owner != known
    return known[later], owner[later]


def _duplicate_ids(values: np.ndarray, problems: dict[int, _Problem], line_numbers: list[int]) -> dict[int, _Problem]:
    """Lines whose job number an earlier valid line already has (the first one is kept)."""
    rows = np.setdiff1d(np.arange(len(values)), np.fromiter(problems, dtype=np.int64, count=len(problems)))
    later, owner = _repeats(values[rows, 0])
    found = {}
    for k, o in zip(later.tolist(), owner.tolist()):
        job = int(values[rows[k], 0])
        found[int(rows[k])] = _Problem(
            f"job number {job} is already used at line {line_numbers[int(rows[o])]}",
            "duplicate job number",
            "job_id",
            job,
        )
    return found


def _job_id(line: str) -> int | None:
    """The job number at the start of a (non-blank) data line, if it is one."""
    first = line.split()[0]
    if not _NUMBER.fullmatch(first):
        return None
    value = float(first)
    return int(value) if value.is_integer() and abs(value) <= _MAX_INT else None
