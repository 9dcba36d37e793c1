"""A job trace in any format clustersched reads: SWF (plain or gzip), a Batsim JSON workload, a Slurm
``sacct -P`` dump or a Slurm simulator events file.

:func:`read_trace` is what a command taking a ``TRACE`` calls: it looks at
the file's first bytes, not its name, so ``jobs.json.gz``, ``trace.swf`` and
``trace`` without a suffix all work.
"""

from __future__ import annotations

import os
import zlib

from .batsim import read_batsim
from .jobs import JobTable
from .swf import read_swf

__all__ = ["TRACE_FORMATS", "read_trace", "trace_format"]

#: What :func:`trace_format` answers, in the order it is tried.
TRACE_FORMATS = ("batsim", "sacct", "slurm-events", "swf")


def trace_format(path: str | os.PathLike[str]) -> str:
    """``"batsim"`` when the file (after gunzip, a byte order mark and white space) starts with ``{``;
    ``"sacct"`` when its first line is a ``|``-separated header starting with ``JobID`` (``sacct -P``);
    ``"slurm-events"`` when it starts with ``-dt`` (the Slurm simulator's events); else ``"swf"``.

    Examples
    --------
    >>> with open("t.swf", "w") as f:
    ...     _ = f.write("; MaxProcs: 4\\n1 0 -1 10 2 -1 -1 2 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1\\n")
    >>> with open("t.json", "w") as f:
    ...     _ = f.write('  {"nb_res": 4, "jobs": [], "profiles": {}}')
    >>> trace_format("t.swf"), trace_format("t.json")
    ('swf', 'batsim')
    """
    with open(path, "rb") as f:
        head = f.read(4096)
    if head[:2] == b"\x1f\x8b":
        try:
            head = zlib.decompressobj(wbits=31).decompress(head, 4096)
        except zlib.error:
            return "swf"  # read_swf reports the corrupt gzip data
    text = head.removeprefix(b"\xef\xbb\xbf").lstrip()
    first = text.split(b"\n", 1)[0]
    if text.startswith(b"{"):
        return "batsim"
    if first.lower().startswith(b"jobid") and b"|" in first:
        return "sacct"
    if text.startswith(b"-dt "):
        return "slurm-events"
    return "swf"


def read_trace(path: str | os.PathLike[str]) -> JobTable:
    """Read a job trace: a Batsim JSON workload (:func:`~clustersched.workload.batsim.read_batsim`),
    a Slurm ``sacct -P`` dump (:func:`~clustersched.slurm.read_sacct`), a Slurm simulator events file
    (:func:`~clustersched.slurm.read_slurm_events`) or an SWF trace
    (:func:`~clustersched.workload.swf.read_swf`), plain or gzip-compressed, told apart by their
    content (:func:`trace_format`).  The Slurm ones come with their requests (``jobs.requests``):
    simulate them on their cluster with ``platform=read_slurm_conf(path).platform``.

    Errors are those of the reader used, :class:`~clustersched.errors.InvalidWorkloadError`
    naming the file, and the line or job.

    Examples
    --------
    >>> import clustersched as cs
    >>> week = read_trace(cs.sample_trace())                  # SWF, gzip-compressed
    >>> same = read_trace(cs.write_batsim(week, "week.json"))  # Batsim JSON
    >>> len(week), len(same), same.max_procs
    (2406, 2406, 240)
    """
    kind = trace_format(path)
    if kind == "sacct":
        from ..slurm.sacct import read_sacct

        return read_sacct(path)
    if kind == "slurm-events":
        from ..slurm.events import read_slurm_events

        return read_slurm_events(path)
    return read_batsim(path) if kind == "batsim" else read_swf(path)
