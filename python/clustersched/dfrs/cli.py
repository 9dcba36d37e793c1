"""``clustersched dfrs``: run one DFRS algorithm (or FCFS / EASY) on an SWF trace.

Usage::

    clustersched dfrs [TRACE] --algorithm NAME [--penalty S] [--period S] [--nodes N]
                      [--cores-per-node C] [--node-memory GB] [--drop-invalid] [--json] [--out jobs.csv]

TRACE is an SWF trace (default: the bundled week of HPC2N-2002) or a Batsim
JSON workload (which has no memory: every processor then gets the 10% floor),
turned into DFRS jobs as RR-7659 §5.3.1 does
(:func:`clustersched.dfrs.workloads.swf_to_dfrs`: memory from the requested
or used memory, tasks and CPU needs from the processor counts and the
processors of a node); jobs that cannot fit are dropped and counted.

The platform is ``--nodes`` nodes of ``--cores-per-node`` processors.  For a
TRACE, what the options leave open comes from its header
(:func:`platform_size`): ``MaxNodes`` nodes of ``MaxProcs / MaxNodes``
processors; ``MaxProcs`` (or ``MaxNodes``) alone, nodes of one processor;
with one option, the other is ``MaxProcs`` divided by it.  A header that
gives no size, or one that does not divide into whole nodes, is refused
(exit 2) unless both options are given.  Only the bundled week, run without
a TRACE, defaults to HPC2N's platform: 120 nodes of 2 processors (its
header's ``MaxProcs: 240`` counts processors, ``MaxNodes: 240`` wrongly so).  Jobs without a processor
count or with a runtime <= 0 are an error, or with ``--drop-invalid``
removed (:func:`clustersched.workload.drop_invalid`) and counted per reason
on stderr.  The schedule is validated, and its
metrics are printed with the Theorem 1 lower bound: with ``--json`` as one
JSON object (``algorithm``, ``jobs``, ``dropped``, ``nodes``, ``cores_per_node``,
``platform`` (where the size came from), ``penalty``,
``period``, ``bound``, ``max_stretch``, ``degradation``, ``mean_stretch``,
``preemptions``, ``migrations``, their rates per hour and per job, the
bandwidths in GB/s, ``underutilization`` (normalized), ``seconds``: the
simulation's wall clock, validation excluded);
otherwise a short report.  ``--out`` writes one row per job (id, submit,
first start, completion, flow, bounded stretch).

:func:`add_parser` adds the sub-command to the ``clustersched`` parser; the
library is imported by the handler (see :mod:`clustersched._cli`).
"""

from __future__ import annotations

import argparse
import json
import os
from pathlib import Path
from typing import Any

from .._cli import check_input_file, check_output_files, estimate_spec, integer, number, report_dropped
from ..errors import InvalidOptionError
from ..workload.samples import sample_trace
from .algorithms import DEFAULT_PENALTY, DEFAULT_PERIOD
from .limits import MAX_NODE_MEMORY_GB, MAX_NODES, MAX_PERIODIC_EVENTS, MAX_TIME, MIN_PERIOD

__all__ = ["MAX_CORES_PER_NODE", "add_parser", "platform_size", "run"]

#: Largest ``--cores-per-node``.
MAX_CORES_PER_NODE = 65536
#: The bundled week's platform (RR-7659 §5.3.1: HPC2N's 120 dual-processor nodes).
HPC2N_PLATFORM = (120, 2)


def add_parser(subparsers: Any) -> argparse.ArgumentParser:
    """Adds ``dfrs`` to ``subparsers``; its handler is ``args.run``."""
    p = subparsers.add_parser(
        "dfrs",
        help="run a DFRS algorithm (RR-7659) or FCFS/EASY on an SWF trace",
        description="Run a Dynamic Fractional Resource Scheduling algorithm (Casanova, Stillwell & Vivien, "
        "RR-7659), or the FCFS / EASY baselines, on an SWF trace of dual-processor nodes; print the "
        "maximum stretch, the Theorem 1 bound, preemptions, migrations and underutilization.",
    )
    p.add_argument(
        "trace",
        nargs="?",
        metavar="TRACE",
        help="SWF trace (plain or .gz) or Batsim JSON workload, told apart by content; Batsim gives no "
        "memory, so every processor needs the 10%% floor (default: the bundled week of HPC2N-2002)",
    )
    p.add_argument(
        "--algorithm",
        required=True,
        metavar="NAME",
        help="an RR-7659 name such as 'GreedyPM */per/opt=min/minvt=600' (quote it), '/per/opt=min', "
        "'MCB8 */opt=avg/minft=300', or the batch baselines FCFS, EASY or EASY-arrival (EASY "
        "backfilling a job only when it is submitted) (required)",
    )
    p.add_argument(
        "--estimates",
        type=estimate_spec("exact", "requested"),
        default="exact",
        metavar="KIND",
        help="run times a batch baseline plans with: exact (RR-7659 §5.2), requested (the trace's "
        "requested times, where known), f:F or modal (estimate models, seeded by --seed); the DFRS "
        "algorithms use none (default: %(default)s)",
    )
    p.add_argument(
        "--seed", type=integer(0), default=0, metavar="S", help="seed of an --estimates model (default: %(default)s)"
    )
    p.add_argument(
        "--penalty",
        type=number(0, maximum=MAX_TIME, unit="seconds"),
        default=DEFAULT_PENALTY,
        metavar="S",
        help=f"rescheduling penalty in seconds, at most {MAX_TIME:g} (default: %(default)s, RR-7659 §5.1)",
    )
    p.add_argument(
        "--period",
        type=number(MIN_PERIOD, maximum=MAX_TIME, unit="seconds"),
        default=DEFAULT_PERIOD,
        metavar="S",
        help=f"period of the periodic algorithms in seconds, {MIN_PERIOD:g} to {MAX_TIME:g}; a run may "
        f"process at most {MAX_PERIODIC_EVENTS:,} periodic events, so a period too short for the "
        "trace is refused before the run (default: %(default)s, RR-7659 §5.1)",
    )
    p.add_argument(
        "--nodes",
        type=integer(1, MAX_NODES),
        default=None,
        metavar="N",
        help=f"nodes of the platform, 1 to {MAX_NODES:,} (default: from the TRACE's header, MaxNodes or "
        "MaxProcs / --cores-per-node; without TRACE, the bundled HPC2N week's 120)",
    )
    p.add_argument(
        "--cores-per-node",
        type=integer(1, MAX_CORES_PER_NODE),
        default=None,
        metavar="C",
        help=f"processors of a node, 1 to {MAX_CORES_PER_NODE:,}: a job's processor needs 1/C of a "
        "node's CPU (default: from the TRACE's header, MaxProcs / MaxNodes, or MaxProcs / --nodes; "
        "without TRACE, HPC2N's 2)",
    )
    p.add_argument(
        "--node-memory",
        type=number(0, exclusive=True, maximum=MAX_NODE_MEMORY_GB, unit="GB"),
        default=2.0,
        metavar="GB",
        help=f"memory of a node in GB, at most {MAX_NODE_MEMORY_GB:g} (default: %(default)s, HPC2N)",
    )
    p.add_argument(
        "--drop-invalid",
        action="store_true",
        help="remove the jobs without a processor count or with a runtime <= 0 or unknown, and print how "
        "many per reason on stderr, as clustersched.workload.drop_invalid counts them (default: such "
        "jobs are an error)",
    )
    p.add_argument("--json", action="store_true", help="print one JSON object (default: a short report)")
    p.add_argument("--out", metavar="FILE", help="write one CSV row per job to FILE (default: none)")
    p.set_defaults(run=run)
    return p


def run(args: argparse.Namespace) -> int:
    """The ``dfrs`` command's handler; returns the exit status."""
    trace = check_input_file("TRACE", args.trace) if args.trace is not None else sample_trace()
    check_output_files({"--out": args.out}, inputs=[Path(trace)])
    from .algorithms import BASELINES, baseline_name, parse_algorithm

    name = baseline_name(args.algorithm)
    if name is None:
        try:
            name = parse_algorithm(args.algorithm.strip()).name
        except ValueError as exc:
            raise InvalidOptionError("--algorithm", args.algorithm, str(exc).split(": ", 1)[-1]) from None
        if args.estimates != "exact":
            raise InvalidOptionError(
                "--estimates",
                args.estimates,
                f"is for the batch baselines ({', '.join(BASELINES)}); {name} uses no run time",
            )

    import numpy as np

    from ..workload.formats import read_trace
    from .bound import max_stretch_lower_bound
    from .metrics import dfrs_metrics, stretches
    from .model import DfrsPlatform
    from .simulator import simulate
    from .workloads import swf_to_dfrs

    table = read_trace(trace)
    if args.trace is None:  # the bundled HPC2N week: the paper's platform unless told otherwise
        nodes, cores = args.nodes or HPC2N_PLATFORM[0], args.cores_per_node or HPC2N_PLATFORM[1]
        sized = "HPC2N, the bundled week's machine"
    else:
        nodes, cores, sized = platform_size(table, args.nodes, args.cores_per_node)
    platform = DfrsPlatform(nodes, args.node_memory)
    table = _valid_jobs(table, args.drop_invalid)
    jobs, dropped = swf_to_dfrs(
        table, nodes=platform.nodes, node_memory_gb=platform.node_memory_gb, cores_per_node=cores
    )
    report_dropped(dropped[len(table.dropped) :], len(table), option=None)  # what does not fit in memory
    if len(jobs) == 0:
        raise InvalidOptionError("TRACE", os.fspath(trace), "holds no job that can run on the platform")
    result = simulate(
        jobs,
        platform,
        name,
        penalty=args.penalty,
        period=args.period,
        validate=True,
        estimates=args.estimates,
        seed=args.seed,
    )
    seconds = result.seconds  # the simulation alone, validation excluded
    bound = max_stretch_lower_bound(jobs, platform)
    m = dfrs_metrics(result.schedule, jobs, platform, bound=bound)
    if args.out is not None:
        cols = result.schedule.columns()
        cols["stretch"] = stretches(result.schedule, jobs)
        from .._output import atomic_open  # whole or not at all: a full disk leaves no half table

        with atomic_open(args.out, "w") as fh:
            fh.write(",".join(cols) + "\n")
            for row in zip(*(np.asarray(c).tolist() for c in cols.values())):
                fh.write(",".join(repr(v) if isinstance(v, float) else str(v) for v in row) + "\n")
    out = {
        "algorithm": result.algorithm,
        **({"estimates": args.estimates} if name in BASELINES else {}),
        "trace": os.fspath(trace),
        "jobs": len(jobs),
        "dropped": len(dropped),
        "nodes": platform.nodes,
        "cores_per_node": cores,
        "platform": sized,
        "penalty": args.penalty,
        "period": args.period,
        **m.report(),
        "seconds": seconds,
    }
    if args.json:
        print(json.dumps(out))
        return 0
    print(
        f"{result.algorithm} on {Path(trace).name}: {len(jobs)} jobs ({len(dropped)} dropped), "
        f"{platform.nodes} nodes of {cores} processor(s) ({sized}), penalty {args.penalty:g} s, "
        f"period {args.period:g} s"
    )
    print(
        f"  max stretch {m.max_stretch:.2f}, bound {m.bound:.3f}, degradation from bound {m.degradation:.2f}, "
        f"mean stretch {m.mean_stretch:.2f}"
    )
    print(
        f"  preemptions {m.preemptions} ({m.preemptions_per_hour:.2f}/h, {m.preemption_bandwidth_gbs:.3f} GB/s), "
        f"migrations {m.migrations} ({m.migrations_per_hour:.2f}/h, {m.migration_bandwidth_gbs:.3f} GB/s)"
    )
    print(f"  normalized underutilization {m.normalized_underutilization:.3f}; simulated in {seconds:.2f} s")
    return 0


def platform_size(table: Any, nodes: int | None, cores: int | None) -> tuple[int, int, str]:
    """``(nodes, processors per node, where they come from)`` for ``table``, from the options given
    (None: not given) and the table's header (module docstring).

    Raises :class:`~clustersched.errors.InvalidOptionError` (exit 2, one line) when the header gives no
    size, or one that does not divide as the options need, and the options do not give both; and
    :class:`~clustersched.errors.InvalidWorkloadError` for a header value that is no processor count.

    Examples
    --------
    >>> from clustersched.workload import JobTable
    >>> t = JobTable({"runtime": [1]}, metadata={"MaxNodes": "1152", "MaxProcs": "9216"})
    >>> platform_size(t, None, None)
    (1152, 8, 'the header: MaxNodes 1152, MaxProcs 9216')
    >>> platform_size(t, None, 4)
    (2304, 4, 'MaxProcs 9216 / --cores-per-node 4')
    >>> platform_size(JobTable({"runtime": [1]}, metadata={"MaxProcs": "100"}), None, None)
    (100, 1, 'the header: MaxProcs 100, one processor per node')
    """
    if nodes is not None and cores is not None:
        return nodes, cores, "--nodes and --cores-per-node"
    procs, whole = table.machine_size("MaxProcs"), table.machine_size("MaxNodes")
    source = table.source or "TRACE"

    def refuse(why: str) -> InvalidOptionError:
        return InvalidOptionError("TRACE", source, f"{why}: give the platform as --nodes N --cores-per-node C")

    if procs is None and whole is None:
        raise refuse("its header gives no machine size (no MaxProcs or MaxNodes line)")
    if cores is not None:
        if procs is None:
            assert whole is not None
            return whole, cores, f"the header: MaxNodes {whole}; --cores-per-node {cores}"
        if procs % cores:
            raise refuse(f"its header's MaxProcs {procs} is not a multiple of --cores-per-node {cores}")
        return procs // cores, cores, f"MaxProcs {procs} / --cores-per-node {cores}"
    if nodes is not None:
        if procs is None:
            raise refuse(f"its header gives MaxNodes {whole} but no MaxProcs, so no processors per node")
        if procs % nodes:
            raise refuse(f"its header's MaxProcs {procs} is not a multiple of --nodes {nodes}")
        return nodes, procs // nodes, f"MaxProcs {procs} / --nodes {nodes}"
    if procs is not None and whole is not None:
        if procs % whole:
            raise refuse(f"its header's MaxProcs {procs} do not make whole nodes of MaxNodes {whole}")
        return whole, procs // whole, f"the header: MaxNodes {whole}, MaxProcs {procs}"
    key, count = ("MaxProcs", procs) if procs is not None else ("MaxNodes", whole)
    assert count is not None
    return count, 1, f"the header: {key} {count}, one processor per node"


def _valid_jobs(table: Any, drop: bool) -> Any:
    """``table`` without the jobs no simulation can run, reported per reason (``--drop-invalid``), or
    InvalidWorkloadError naming the first of them and the option."""
    from ..errors import InvalidWorkloadError
    from ..workload.transform import drop_invalid, invalid_jobs

    anywhere = 2**32 - 1  # a DFRS job is checked against the platform's memory, not a width (swf_to_dfrs)
    if drop:
        kept = drop_invalid(table, anywhere, wider="keep")
        report_dropped(kept.dropped[len(table.dropped) :], len(table))
        return kept
    bad = invalid_jobs(table, anywhere)
    if bad:
        raise InvalidWorkloadError(
            f"has {bad[0].reason} ({len(bad)} such job(s); --drop-invalid removes them and says how many)",
            path=table.source,
            job_id=bad[0].job_id,
        )
    return table
