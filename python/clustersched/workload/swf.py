"""Reading and writing job traces in the Standard Workload Format (SWF).

SWF is the plain-text format of the Parallel Workloads Archive.  A file holds
one job per line, each line being 18 numbers separated by whitespace, always in
the same order: job number, submit time, wait time, run time, allocated
processors, average CPU time, used memory, requested processors, requested
time, requested memory, status, user, group, executable, queue, partition,
preceding job and think time (see :data:`~clustersched.workload.jobs.SWF_FIELDS`).
Times are in seconds, memory in KB, and ``-1`` stands for "unknown" in every
field.  Lines starting with ``;`` are comments; at the top of a file they form
the header, where lines such as ``; MaxProcs: 240`` describe the machine and the
log.

:func:`read_swf` is strict: a malformed line raises
:class:`~clustersched.errors.InvalidWorkloadError` naming the file, line and
field, unless ``on_invalid="skip"``, which drops such lines and records each one
in the table's ``dropped``.  :func:`write_swf` writes a table back so that
reading it again gives the same columns, metadata and header.

What the reader accepts and rejects, beyond the 18 numeric fields:

* Line ends may be LF, CR LF or CR alone, and the file may start with a UTF-8
  byte order mark (both are what some editors write); line numbers count lines
  as an editor shows them.
* A ``MaxProcs`` or ``MaxNodes`` header line must give a processor count: its
  first word a whole number in ``1 .. 2**32 - 1`` (later words are a comment,
  as in ``; MaxNodes: 338 (batch partition; 512 total)``).  An empty, non-integer
  (``abc``, ``240.0``) or out-of-range value, or the same key given twice with
  different counts, raises in both modes: the machine size would be a guess.
  The same count given twice is accepted.
* Times (submit, wait, run, CPU, requested and think time) must lie within
  ``+-10**10`` s (:data:`MAX_TIME`, about 317 years), ids, counts and memory
  within ``+-2**53``; larger values are errors in the file, not jobs.
* Job numbers must be distinct (-1, unknown, may repeat): a line repeating the
  number of an earlier valid line is malformed (``"duplicate job number"`` when
  skipped), so the first line with a number is kept and every later one is
  reported.

:func:`write_swf` applies the same rules before writing anything, so every
file it writes can be read back.

Reading is done by the Rust core (``rust/core/src/workload/swf.rs``), on the
file's bytes after gzip decompression (libdeflate in the core for the usual
single-member file, ``rust/core/src/workload/gzip.rs``; Python's zlib for
anything else); it parses a long trace
on several threads, finds every malformed line, and this module words the
errors.  The all-Python reader it replaced is
kept as the reference of the differential tests (``tests/reference/swf.py``).
"""

from __future__ import annotations

import os
import re
import zlib
from typing import Callable, Literal, NamedTuple, TypeVar

import numpy as np

from .. import _core
from .._checks import check_choice
from ..errors import InvalidWorkloadError
from .jobs import MACHINE_SIZE_KEYS, SWF_FIELDS, Dropped, JobTable, parse_machine_size

__all__ = ["read_swf", "write_swf"]

_P = TypeVar("_P", bound="str | os.PathLike[str]")

_NAMES = tuple(name for name, _, _ in SWF_FIELDS)
_NFIELDS = len(SWF_FIELDS)
# The core returns the time and memory columns and the id and count columns
# as two arrays, each in file order.
_FLOAT_NAMES = tuple(name for name, dtype, _ in SWF_FIELDS if dtype is np.float64)
_INT_NAMES = tuple(name for name, dtype, _ in SWF_FIELDS if dtype is np.int64)
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

#: Checks applied to parsed values, in order: (columns, is_bad, what, why).  The Rust
#: core applies the same rules in the same order (``Rule`` in rust/core/src/workload/swf.rs)
#: and reports a broken one by its index here.
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
_TEXT = np.dtypes.StringDType()


class _Problem(NamedTuple):
    message: str  # for the exception, with the offending value
    reason: str  # for Dropped, without it, so drops can be counted by reason
    field: str | None = None
    value: object = None


def read_swf(path: str | os.PathLike[str], *, on_invalid: Literal["raise", "skip"] = "raise") -> JobTable:
    """Read an SWF trace, plain or gzip-compressed.

    Parameters
    ----------
    path : str or os.PathLike
        The file.  Gzip compression is recognised by the file's first bytes,
        whatever its name.
    on_invalid : {"raise", "skip"}
        What to do with a malformed data line: raise
        :class:`~clustersched.errors.InvalidWorkloadError`, or leave it out and
        record it as a :class:`~clustersched.workload.jobs.Dropped` (reason, job
        id when readable, line number) in the table's ``dropped``.

    Returns
    -------
    JobTable
        One row per data line, in file order.  ``header`` holds every comment
        line verbatim (the text after ``;``); ``metadata`` maps each
        ``; Key: value`` line's key to its stripped value, the values of a
        repeated key (``Note``, ``Partition`` ...) joined by newlines.

    Raises
    ------
    InvalidWorkloadError
        When a data line does not have 18 numeric fields, an id or count
        (``job_id``, ``procs``, ``status`` ...) is not an integer, a time,
        processor or memory field is negative other than -1, a value is out of
        range (module docstring), a job number repeats an earlier one, the file
        holds no jobs (or, with ``"skip"``, no valid ones); and, also with
        ``"skip"``, when a MaxProcs / MaxNodes header line is not a processor
        count or the gzip data is truncated or corrupt (the machine size or
        the lost jobs would be unknown).
    TypeError
        When ``path`` is not a file name (an int would be read as a file
        descriptor).
    FileNotFoundError
        When the file does not exist.

    Examples
    --------
    >>> t = read_swf("HPC2N-2002-2.2-cln.swf.gz")  # doctest: +SKIP
    >>> len(t), t.max_procs  # doctest: +SKIP
    (202871, 240)
    """
    if not isinstance(path, (str, os.PathLike)):
        raise TypeError(f"path == {path!r}, must be a file name (str or os.PathLike)")
    check_choice("on_invalid", on_invalid, ("raise", "skip"))
    source = os.fspath(path)
    if not isinstance(source, str):
        raise TypeError(f"path == {path!r}, must be a file name (str or os.PathLike)")
    # The Rust core splits the lines, parses the fields and finds every malformed line
    # (rust/core/src/workload/swf.rs); the messages are worded here.
    raw, (spans, rows, floats, ints, found) = _scan(path, source)
    header = [_text(raw, start, end) for _, start, end in spans]
    _check_header(header, [line for line, _, _ in spans], source)
    if not rows:
        raise InvalidWorkloadError("contains no jobs", path=source)
    # (fields, rows): each column a contiguous row, already of its dtype.
    blocks = [floats.reshape(len(_FLOAT_NAMES), rows), ints.reshape(len(_INT_NAMES), rows)]
    dropped: list[Dropped] = []
    if found:
        if on_invalid == "raise":
            p = _problem(found[0], raw)
            raise InvalidWorkloadError(
                p.message + _not_swf(found[0], raw), path=source, line=found[0][1], field=p.field, value=p.value
            )
        problems = [_problem(f, raw) for f in found]
        dropped = [Dropped(p.reason, f[2], f[1]) for f, p in zip(found, problems)]
        blocks = [np.delete(block, [f[0] for f in found], axis=1) for block in blocks]
        if len(found) == rows:
            raise InvalidWorkloadError(
                f"contains no valid jobs (all {len(found)} data lines are invalid, "
                f"the first at line {found[0][1]}: {problems[0].message}){_not_swf(found[0], raw)}",
                path=source,
            )
    columns = dict(zip(_FLOAT_NAMES + _INT_NAMES, [*blocks[0], *blocks[1]]))
    return JobTable(
        {name: columns[name] for name in _NAMES},
        metadata=header_metadata(header),
        header=header,
        source=source,
        dropped=dropped,
    )


def write_swf(table: JobTable, path: _P) -> _P:
    """Write a table as an SWF trace, gzip-compressed when ``path`` ends in ``.gz``.

    The header is the table's ``header`` lines, each after a ``;``; a table
    without header lines gets one ``; Key: value`` line per metadata value
    instead.  Rows follow as right-aligned columns.  Integral values are written
    as integers and other times with ``repr``, so that :func:`read_swf` gives
    back the same columns, metadata and (non-empty) header.

    Parameters
    ----------
    table : JobTable
        The jobs.
    path : str or os.PathLike
        Where to write (overwritten if it exists).

    Returns
    -------
    str or os.PathLike
        ``path``, for chaining (``read_swf(write_swf(t, p))``).

    Raises
    ------
    ValueError
        When a header line contains a line break, or a metadata key is not a
        word (letters, digits, ``_``) or its value contains a carriage return.
    InvalidWorkloadError
        When a value breaks a rule :func:`read_swf` checks (a time that is NaN,
        infinite or beyond :data:`MAX_TIME`, a negative count other than -1, a
        repeated job number ...), so that every file written can be read back;
        nothing is written then.
    """
    _check_writable(table, str(path))
    text = "\n".join(_header_lines(table) + _data_lines(table)) + "\n"
    data = text.encode("utf-8", "surrogateescape")
    if str(path).endswith(".gz"):
        import gzip  # here, not at the top: reading a trace need not load the gzip writer

        data = gzip.compress(data, compresslevel=6, mtime=0)
    from .._output import atomic_open  # whole or not at all: a full disk leaves no half trace

    with atomic_open(path, "wb") as f:
        f.write(data)
    return path


# -- reading ---------------------------------------------------------------


def _scan(path: str | os.PathLike[str], source: str) -> tuple[bytes | np.ndarray, tuple]:
    """The file's text (bytes, or the core's uint8 array) and the core's scan of it."""
    with open(path, "rb") as f:
        raw = f.read()
    if raw[:2] == b"\x1f\x8b":
        # The core inflates the usual single-member file three times as fast as
        # zlib and scans it; zlib reads whatever else there is and words every gzip error.
        whole = _core.scan_swf_gz(raw)
        if whole is not None:
            return whole
        raw = _gunzip(raw, source)
    return raw, _core.scan_swf(raw)


def _text(raw: bytes | np.ndarray, start: int, end: int) -> str:
    """Bytes ``start:end`` of the text, decoded as the scanner reads it."""
    return bytes(raw[start:end]).decode("utf-8", "surrogateescape")


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


def header_metadata(header: list[str]) -> dict[str, str]:
    metadata: dict[str, str] = {}
    for line in header:
        if m := _KEY_VALUE.fullmatch(line):
            key, value = m[1], (m[2] or "").strip()
            metadata[key] = f"{metadata[key]}\n{value}" if key in metadata else value
    return metadata


def _problem(found: tuple, raw: bytes | np.ndarray) -> _Problem:
    """The message, reason, field and value of one problem the core found (see ``_core.scan_swf``)."""
    _, _, _, kind, j, start, end, value, extra = found
    if kind == "fields":
        return _Problem(f"line has {extra} fields, expected {_NFIELDS}", "wrong number of fields")
    name = _NAMES[j]
    if kind == "duplicate":
        job = found[2]
        return _Problem(f"job number {job} is already used at line {extra}", "duplicate job number", name, job)
    token = _text(raw, start, end)
    if kind == "number":
        return _Problem(f"value {token!r} is not a number", f"field {name!r} is not a number", name, token)
    _, _, what, why = _RULES[extra]
    return _Problem(f"value {token} {what}" + (f" ({why})" if why else ""), f"field {name!r} {what}", name, value)


#: Field names of a ``sacct`` header line (``sacct -P``), any of which says the file is a Slurm accounting dump.
_SACCT_FIELDS = frozenset(
    b"jobid jobidraw jobname submit start end elapsed state ncpus nnodes reqcpus timelimit "
    b"partition account user uid exitcode alloccpus nodelist".split()
)


def _not_swf(found: tuple, raw: bytes | np.ndarray) -> str:
    """A hint to add to a wrong-field-count message when the line is ``|``-separated, as a ``sacct -P`` dump is
    (Slurm's accounting, with a header line of field names), or ``""``."""
    kind, number = found[3], found[1]
    if kind != "fields":
        return ""
    # only as far as the bad line: this is the error path, and the line may be early in a large file
    lines = re.split(rb"\r\n|\r|\n", bytes(raw).removeprefix(b"\xef\xbb\xbf"), maxsplit=number)
    line = lines[number - 1] if len(lines) >= number else b""
    cells = [cell.strip().lower() for cell in line.split(b"|")]
    if len(cells) < 3:
        return ""
    if _SACCT_FIELDS.intersection(cells):
        return (
            "; this looks like a Slurm sacct dump (sacct -P: a header line of field names, '|' between fields), "
            "not SWF (18 numbers separated by white space)"
        )
    return "; its fields are separated by '|' as in a Slurm sacct dump (sacct -P), not by white space: this is not SWF"


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


# -- writing ---------------------------------------------------------------


def _header_lines(table: JobTable) -> list[str]:
    for i, line in enumerate(table.header):
        if "\n" in line or "\r" in line:
            raise ValueError(f"header[{i}] == {line!r}, must not contain a line break")
    if table.header:
        return [f";{line}" for line in table.header]
    lines = []
    for key, value in table.metadata.items():
        if not re.fullmatch(_KEY, key) or "\r" in value:
            raise ValueError(
                f"metadata[{key!r}] == {value!r}: the key must be a word (letters, digits, _) "
                "and the value must not contain a carriage return"
            )
        lines += [f"; {key}: {part}" for part in value.split("\n")]
    return lines


def _check_writable(table: JobTable, source: str) -> None:
    """Raise InvalidWorkloadError, naming the job and field, for what read_swf would reject."""
    if not len(table):
        return
    values = np.column_stack([getattr(table, name).astype(np.float64) for name in _NAMES])
    problems = _check(values, lambda i, j: repr(getattr(table, _NAMES[j])[i].item()))
    if problems:
        i = min(problems)
        p = problems[i]
        raise InvalidWorkloadError(
            f"{p.message}; SWF readers would reject it",
            path=source,
            row=i,
            job_id=int(table.job_id[i]),
            field=p.field,
            value=p.value,
        )
    later, owner = _repeats(table.job_id)
    if later.size:
        job = int(table.job_id[later[0]])
        raise InvalidWorkloadError(
            f"row {owner[0]} has the same job number; SWF readers would reject it",
            path=source,
            row=int(later[0]),
            job_id=job,
            field="job_id",
            value=job,
        )


def _data_lines(table: JobTable) -> list[str]:
    if not len(table):
        return []
    columns = [_column_text(getattr(table, name)) for name in _NAMES]
    padded = [np.strings.rjust(text, int(np.strings.str_len(text).max())) for text in columns]
    rows = padded[0]
    for text in padded[1:]:
        rows = rows + " " + text
    return rows.tolist()


def _column_text(col: np.ndarray) -> np.ndarray:
    if col.dtype.kind == "i":
        return col.astype(_TEXT)
    # Checked by _check_writable: finite, so integral values below 2**53 print as integers.
    whole = (col == np.trunc(col)) & (np.abs(col) < _MAX_INT)
    text = np.where(whole, col, 0).astype(np.int64).astype(_TEXT)
    text[~whole] = [repr(float(x)) for x in col[~whole]]
    return text
