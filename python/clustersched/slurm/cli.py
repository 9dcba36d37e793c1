"""``clustersched convert``: Slurm's files to the field's formats (a ``sacct -P`` dump to an SWF trace).

:func:`add_parser` adds the sub-command to the ``clustersched`` parser
(:mod:`clustersched.cli`).  Building the parser imports no library code.

The SWF fields of a dump (:func:`~clustersched.slurm.read_sacct`, whose module
docstring gives every rule: steps, arrays, states, units):

====  ======================  ===========================================================
SWF   field                   from the dump
====  ======================  ===========================================================
1     job number              JobIDRaw (else the JobID when every job's is a number, else 1..n)
2     submit time             Submit, s from the earliest job's (header's UnixStartTime)
3     wait time               Start - Submit
4     run time                Elapsed (else End - Start)
5     allocated processors    NCPUS (AllocCPUS)
6, 7  CPU time, memory used   -1 (sacct -P's default columns do not give them)
8     requested processors    ReqCPUS (else NCPUS)
9     requested time          Timelimit, s (-1 for UNLIMITED or Partition_Limit)
10    requested memory        ReqMem (else ReqTRES's mem=) in KB per processor
11    status                  1 COMPLETED, 0 FAILED/TIMEOUT/NODE_FAIL/..., 5 CANCELLED/PREEMPTED
12    user id                 User: 1, 2, ... in order of first appearance (header's Users)
13    group id                Group: the same (header's Groups)
14    executable              -1
15    queue                   QOS: the same (header's Queues)
16    partition               Partition: the same (header's Partitions)
17    preceding job           -1
18    think time              -1
====  ======================  ===========================================================

Lines that are no job that ran (steps, pending arrays, jobs cancelled before
they started, jobs not ended) are left out and counted on stderr.
"""

from __future__ import annotations

import argparse
from typing import Any

__all__ = ["add_parser", "convert_command"]

#: The formats ``convert`` writes.
CONVERT_TO = ("swf",)


def add_parser(subparsers: Any) -> None:
    """Adds ``convert`` to ``subparsers`` (from ``parser.add_subparsers()``)."""
    conv = subparsers.add_parser(
        "convert",
        help="convert a Slurm accounting dump (sacct -P) to an SWF trace",
        description="Read a sacct -P (--parsable2) dump (plain or .gz) and write its jobs as an SWF trace: job "
        "number JobIDRaw, submit time from the earliest Submit (the header's UnixStartTime, UTC), wait Start - "
        "Submit, run time Elapsed, processors NCPUS, requested processors ReqCPUS, requested time Timelimit, "
        "requested memory ReqMem in KB per processor, status 1 COMPLETED / 0 failed or timed out / 5 cancelled "
        "or preempted, user, group, queue (QOS) and partition as numbers 1, 2, ... whose names the header "
        "lists; CPU time, memory used, executable, preceding job and think time -1. Job steps, pending arrays, "
        "jobs cancelled before they started and jobs not ended are left out and counted "
        "(clustersched.slurm.read_sacct and clustersched.slurm.cli give every rule).",
    )
    conv.add_argument("dump", metavar="SACCT_DUMP", help="the sacct -P dump, plain or gzip-compressed")
    conv.add_argument("out", metavar="OUT", help="the file to write, .gz compresses; written whole or not at all")
    conv.add_argument(
        "--to",
        choices=CONVERT_TO,
        default="swf",
        help="the format of OUT: swf, the Standard Workload Format of the Parallel Workloads Archive "
        "(default: %(default)s)",
    )
    conv.add_argument(
        "--on-invalid",
        choices=("raise", "skip"),
        default="raise",
        help="a malformed line (a bad field, End before Start, a duplicate JobID, ...): stop with an error "
        "naming it (raise), or leave it out and count it (skip) (default: %(default)s)",
    )
    conv.set_defaults(run=convert_command)


def convert_command(args: argparse.Namespace) -> int:
    """The ``convert`` handler: the dump's jobs, written in the format of ``--to``."""
    from .._cli import check_input_file, check_output_files, report_dropped

    dump = check_input_file("SACCT_DUMP", args.dump)
    check_output_files({"OUT": args.out}, inputs=[dump])
    from ..workload.swf import write_swf
    from .sacct import read_sacct

    jobs = read_sacct(dump, on_invalid=args.on_invalid)
    write_swf(jobs, args.out)  # whole or not at all
    report_dropped(jobs.dropped, len(jobs) + len(jobs.dropped), option=None)
    print(f"wrote {args.out}: {len(jobs)} jobs from {dump} ({jobs.metadata['SacctSteps']} job steps left out)")
    return 0
