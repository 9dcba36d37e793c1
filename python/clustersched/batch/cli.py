"""``clustersched simulate | compare | lublin``: batch scheduling of rigid jobs from the command line.

Usage::

    clustersched compare [TRACE] [--policies fcfs,easy,...] [--estimates requested|exact] [--procs N]
                         [--oversized error|skip|clip] [--drop-invalid]
    clustersched simulate TRACE [--policy easy] [--estimates requested|exact] [--procs N]
                                [--oversized error|skip|clip] [--drop-invalid]
                                [--out FILE [--format csv|swf|batsim]] [--gantt out.png [--gantt-window START:END]]
                                [--timeseries FILE.csv] [--timeseries-plot out.png]
    clustersched lublin [--jobs 10000] [--procs 128] [--seed 0] [--estimates none|exact|f:F|modal]
                        --out synthetic.swf

``compare`` runs several built-in policies on one trace (by default the
bundled week of the HPC2N trace) and prints one row of metrics per policy;
``simulate`` runs one and can write the per-job schedule (CSV, SWF or the
Batsim/evalys jobs file: :func:`clustersched.batch.write_schedule`), a
Gantt chart (of a window of hours with ``--gantt-window``) and the machine's
state over time (:func:`clustersched.batch.batch_timeseries`, as CSV or a
picture); ``lublin`` writes a Lublin-Feitelson synthetic workload as SWF,
with user runtime estimates in its requested-time field when ``--estimates``
names a model (:func:`clustersched.workload.with_estimates`; default ``none``:
requested time -1, so ``simulate --estimates requested`` runs it with exact
runtimes).
A TRACE is an SWF trace (plain or .gz) or a Batsim JSON workload, told
apart by content (:func:`clustersched.workload.read_trace`).
``--drop-invalid`` removes the jobs no simulation can run
(:func:`clustersched.workload.drop_invalid`) and prints how many per reason.

:func:`add_parser` adds the three sub-commands to the ``clustersched`` parser.
Library code is imported by the handlers, so that building the parser stays
cheap (see :mod:`clustersched._cli`).
"""

from __future__ import annotations

import argparse
import sys
import time
from typing import Any

from .._cli import (
    MAX_PROCS,
    SAMPLE,
    LazyChoices,
    check_image_file,
    check_input_file,
    check_output_files,
    integer,
    library_bound,
    report_dropped,
    sample_trace,
)

from ..errors import InvalidOptionError

__all__ = ["add_parser"]

#: ``lublin --jobs`` at most: ``lublin_feitelson``'s own limit.
MAX_LUBLIN_JOBS = library_bound("clustersched.workload.lublin", "MAX_JOBS")
#: Traces longer than this show a progress bar (unless ``--no-progress``).
PROGRESS_JOBS = 50_000

POLICIES = LazyChoices("clustersched.batch.policies", "BUILTIN_POLICIES")

#: The table of ``compare`` and ``simulate``: (column, summary key, format).  Times are in seconds and
#: say so (``_s``); ``sim_s`` is the simulator's own wall-clock time, not a time of the schedule.
COLUMNS = [
    ("policy", "policy", "{}"),
    ("jobs", "jobs", "{:d}"),
    ("avg_wait_s", "avg_wait", "{:.1f}"),
    ("avg_bounded_slowdown", "avg_bounded_slowdown", "{:.2f}"),
    ("max_bounded_slowdown", "max_bounded_slowdown", "{:.1f}"),
    ("utilization", "utilization", "{:.3f}"),
    ("makespan_s", "makespan", "{:.0f}"),
    ("sim_s", "seconds", "{:.3f}"),
]
#: Says what the columns of :data:`COLUMNS` count, after the table's title.
UNITS = "times in seconds; sim_s: the simulator's wall-clock run time"

TRACE_HELP = "SWF trace (plain or .gz) or Batsim JSON workload, told apart by content"
DROP_HELP = ("remove the jobs a simulation cannot run (no processor count, a runtime <= 0 or unknown, wider than "
             "the machine unless --oversized clip) and print how many per reason on stderr, as "
             "clustersched.workload.drop_invalid counts them (default: such jobs are an error)")


def add_parser(subparsers: Any) -> None:
    """Adds ``simulate``, ``compare`` and ``lublin`` to ``subparsers`` (from ``parser.add_subparsers()``).

    Each one's handler is ``args.run``.
    """
    sim = subparsers.add_parser("simulate", help="simulate one policy on a trace (SWF or Batsim JSON)",
                                description="Simulate one batch policy on a trace and print its metrics; write "
                                            "the schedule as CSV, SWF or the Batsim/evalys jobs file.")
    sim.add_argument("trace", metavar="TRACE", help=TRACE_HELP)
    sim.add_argument("--policy", choices=POLICIES, default="easy", metavar="NAME",
                     help="built-in policy, one of %(choices)s (default: %(default)s)")
    _machine_options(sim)
    sim.add_argument("--out", metavar="FILE",
                     help="write the schedule, one job per row, in the --format (default: none)")
    sim.add_argument("--format", choices=LazyChoices("clustersched.batch.formats", "SCHEDULE_FORMATS"),
                     metavar="FORMAT",
                     help="format of --out, one of %(choices)s: csv has job_id, submit_s, start_s, end_s, wait_s, "
                          "runtime_s, procs, procs_requested, time_requested_s and the allocated processors; swf "
                          "the Standard Workload Format (read_swf reads it back; .gz compresses); batsim the "
                          "Batsim jobs file evalys reads (default: csv)")
    sim.add_argument("--gantt", metavar="IMAGE",
                     help="draw a Gantt chart to this image file, .png, .pdf, .svg, ...; its time axis counts from "
                          "the trace start (first submit) in minutes, hours or days (default: none)")
    sim.add_argument("--gantt-window", type=_hours_window, metavar="START:END",
                     help="draw only this part of the --gantt chart: hours from the trace start (first submit), "
                          "START < END, either may be left out for the schedule's start or end (24:48 is the "
                          "second day, :6 the first six hours); it must overlap the schedule (default: all of it)")
    sim.add_argument("--timeseries", metavar="FILE",
                     help="write the machine's state over time as CSV, one row per event time: time_s, busy_procs, "
                          "utilization, running, queued (jobs submitted, not started), queued_work_proc_s (their "
                          "processors x runtimes); each row holds until the next "
                          "(clustersched.batch.batch_timeseries) (default: none)")
    sim.add_argument("--timeseries-plot", metavar="IMAGE",
                     help="draw utilization, running and queued jobs and queued work over time to this image file, "
                          ".png, .pdf, .svg, ... (default: none)")
    sim.set_defaults(run=simulate_command)

    cmp_ = subparsers.add_parser("compare", help=f"compare policies on a trace (default: the bundled {SAMPLE})",
                                 description="Run several batch policies on one trace; print one row of metrics "
                                             f"each ({UNITS}).")
    cmp_.add_argument("trace", nargs="?", metavar="TRACE",
                      help=f"{TRACE_HELP} (default: the bundled {SAMPLE}, a week of HPC2N)")
    cmp_.add_argument("--policies", type=_policy_list, metavar="P1,P2,...",
                      help="comma-separated built-in policies (default: all of them, see simulate --policy)")
    _machine_options(cmp_)
    cmp_.set_defaults(run=compare_command)

    gen = subparsers.add_parser("lublin", help="write a Lublin-Feitelson synthetic workload as SWF",
                                description="Write a Lublin-Feitelson (2003) synthetic workload as an SWF trace.")
    gen.add_argument("--jobs", type=integer(1, MAX_LUBLIN_JOBS), default=10_000, metavar="N",
                     help="number of jobs (default: %(default)s)")
    gen.add_argument("--procs", type=integer(1, MAX_PROCS), default=128, metavar="N",
                     help="processors of the machine (default: %(default)s)")
    gen.add_argument("--seed", type=integer(0), default=0, metavar="S", help="random seed (default: %(default)s)")
    gen.add_argument("--estimates", type=_estimate_spec, default="none", metavar="MODEL",
                     help="user runtime estimates written as requested times: none (requested time -1: the "
                          "simulator then uses the exact runtimes), exact (the runtime), f:F (Mu'alem & Feitelson "
                          "2001: uniform in [runtime, (F+1) runtime], F >= 0) or modal (Tsafrir, Etsion & "
                          "Feitelson 2005, maximum: the longest runtime rounded up to an hour); drawn from a "
                          "random stream of --seed apart from the jobs', so the jobs are the same for every MODEL "
                          "(default: %(default)s)")
    gen.add_argument("--out", required=True, metavar="FILE", help="SWF file to write, .gz compresses (required)")
    gen.set_defaults(run=lublin_command)


def _estimate_spec(text: str) -> str:
    """``lublin --estimates``: ``none`` or a spec of :func:`clustersched.workload.parse_estimate_model`."""
    if text.strip() == "none":
        return "none"
    from ..workload.estimates import ESTIMATE_MODELS, parse_estimate_model

    try:
        return str(parse_estimate_model(text))
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"invalid value {text!r}: must be none, {', '.join(ESTIMATE_MODELS)} (F a number >= 0)"
        ) from None


def _machine_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--estimates", choices=LazyChoices("clustersched.batch.simulator", "ESTIMATES"),
                   default="requested", metavar="KIND",
                   help="run times the policy believes: %(choices)s (default: %(default)s)")
    p.add_argument("--procs", type=integer(1, MAX_PROCS), metavar="N",
                   help="processors of the machine (default: the trace's MaxProcs, else MaxNodes)")
    p.add_argument("--oversized", choices=LazyChoices("clustersched.batch.simulator", "OVERSIZED"),
                   default="error", metavar="WHAT",
                   help="jobs wider than the machine: %(choices)s (default: %(default)s)")
    p.add_argument("--drop-invalid", action="store_true", help=DROP_HELP)
    p.add_argument("--no-progress", action="store_true",
                   help=f"no progress bar (default: one on traces of over {PROGRESS_JOBS:,} jobs)")


def _policy_list(text: str) -> list[str]:
    """``--policies``: comma-separated built-in policy names, each once, at least one."""
    names = list(dict.fromkeys(name.strip() for name in text.split(",") if name.strip()))
    if not names:
        raise argparse.ArgumentTypeError(f"invalid value {text!r}: name at least one policy")
    unknown = [name for name in names if name not in POLICIES]
    if unknown:
        raise argparse.ArgumentTypeError(
            f"invalid value {text!r}: unknown {', '.join(map(repr, unknown))}; known: {', '.join(POLICIES)}"
        )
    return names


def _hours_window(text: str) -> tuple[float | None, float | None]:
    """``--gantt-window``: ``START:END`` in hours from the trace start, either side empty (None), START < END."""
    import math

    rule = "must be START:END in hours from the trace start, e.g. 24:48, with 0 <= START < END"
    parts = text.split(":")
    if len(parts) != 2:
        raise argparse.ArgumentTypeError(f"invalid value {text!r}: {rule}")
    bounds: list[float | None] = []
    for part in parts:
        if not part.strip():
            bounds.append(None)
            continue
        try:
            value = float(part)
        except ValueError:
            raise argparse.ArgumentTypeError(f"invalid value {text!r}: {rule}") from None
        if not math.isfinite(value) or value < 0:
            raise argparse.ArgumentTypeError(f"invalid value {text!r}: {rule}")
        bounds.append(value)
    lo, hi = bounds
    if lo is not None and hi is not None and not lo < hi:
        raise argparse.ArgumentTypeError(f"invalid value {text!r}: {rule}")
    return lo, hi


def _gantt_window(schedule: Any, text: str, hours: tuple[float | None, float | None]) -> tuple[float, float]:
    """``--gantt-window`` in seconds on the schedule's clock, or InvalidOptionError when it misses the schedule."""
    import numpy as np

    origin = float(np.min(schedule.submit))
    first, last = float(np.min(schedule.start)), float(np.max(schedule.end))
    lo = first if hours[0] is None else origin + 3600.0 * hours[0]
    hi = last if hours[1] is None else origin + 3600.0 * hours[1]
    if not (lo < hi and hi > first and lo < last):
        raise InvalidOptionError(
            "--gantt-window", text,
            f"is outside the schedule, which runs from {(first - origin) / 3600:.4g} to {(last - origin) / 3600:.4g} "
            "hours after the trace start",
        )
    return lo, hi


def _read(trace: Any, args: argparse.Namespace) -> tuple[Any, int | None]:
    """The trace's jobs (SWF or Batsim JSON) and the machine size to simulate (None: the simulator's default);
    with ``--drop-invalid``, without the jobs no simulation can run, one stderr line per reason."""
    from ..workload.formats import read_trace

    jobs = read_trace(trace)
    if not args.drop_invalid:
        return jobs, args.procs
    from ..errors import InvalidWorkloadError
    from ..workload.transform import drop_invalid

    procs = args.procs if args.procs is not None else jobs.max_procs
    if procs is None:
        raise InvalidWorkloadError("the header gives no MaxProcs (or MaxNodes); pass the machine size with --procs",
                                   path=jobs.source)
    kept = drop_invalid(jobs, procs, wider="clip" if args.oversized == "clip" else "drop")
    report_dropped(kept.dropped[len(jobs.dropped):], len(jobs))
    if len(kept) == 0:
        raise InvalidWorkloadError(f"--drop-invalid left no job of {len(jobs)} (see the notes above)",
                                   path=jobs.source)
    return kept, procs


def _run(jobs: Any, procs: int | None, policy: str, args: argparse.Namespace) -> tuple[dict[str, object], Any]:
    from .metrics import batch_metrics
    from .simulator import simulate

    began = time.perf_counter()
    result = simulate(jobs, policy, procs=procs, estimates=args.estimates, oversized=args.oversized,
                      progress=not args.no_progress and len(jobs) > PROGRESS_JOBS)
    seconds = time.perf_counter() - began
    for d in result.dropped[:5]:
        print(f"note: job {d.job_id}: {d.reason}", file=sys.stderr)
    if len(result.dropped) > 5:
        print(f"note: ... {len(result.dropped)} jobs {args.oversized}ped in all", file=sys.stderr)
    row = {"policy": policy, **batch_metrics(result.schedule).summary(), "seconds": seconds}
    return row, result


def _print_table(rows: list[dict[str, object]], title: str) -> None:
    cells = [[fmt.format(row[key]) for _, key, fmt in COLUMNS] for row in rows]
    widths = [max(len(name), *(len(c[i]) for c in cells)) for i, (name, _, _) in enumerate(COLUMNS)]
    print(f"{title} ({UNITS})")
    print("  ".join(name.rjust(w) for (name, _, _), w in zip(COLUMNS, widths)))
    for c in cells:
        print("  ".join(v.rjust(w) for v, w in zip(c, widths)))


def simulate_command(args: argparse.Namespace) -> int:
    """The ``simulate`` handler: every file is checked before the simulation, so a failed run writes nothing."""
    trace = check_input_file("TRACE", args.trace)
    if args.format is not None and args.out is None:
        raise InvalidOptionError("--format", args.format, "says how to write --out FILE; give --out too")
    window_text = _window_text(args)
    if window_text is not None and args.gantt is None:
        raise InvalidOptionError("--gantt-window", window_text, "says which part of --gantt IMAGE to draw; "
                                                                "give --gantt too")
    check_output_files({"--out": args.out, "--gantt": args.gantt, "--timeseries": args.timeseries,
                        "--timeseries-plot": args.timeseries_plot}, inputs=[trace])
    check_image_file("--gantt", args.gantt)
    check_image_file("--timeseries-plot", args.timeseries_plot)

    jobs, procs = _read(trace, args)
    row, result = _run(jobs, procs, args.policy, args)
    # checked before anything is written, so that a window outside the schedule writes nothing
    window = _gantt_window(result.schedule, window_text, args.gantt_window) if window_text is not None else None
    _print_table([row], f"{args.trace}: {len(result.jobs)} jobs on {result.schedule.total_procs} processors")
    if args.out:
        from .formats import write_schedule

        fmt = args.format or "csv"
        write_schedule(result.schedule, result.jobs, args.out, format=fmt)
        print(f"wrote {args.out} ({fmt})")
    if args.gantt:
        from ..plot import gantt

        gantt(result.schedule, args.gantt, window=window)
        print(f"wrote {args.gantt}")
    if args.timeseries or args.timeseries_plot:
        from .timeseries import batch_timeseries

        series = batch_timeseries(result.schedule)
        if args.timeseries:
            series.to_csv(args.timeseries)
            print(f"wrote {args.timeseries} ({len(series)} event times)")
        if args.timeseries_plot:
            from ..plot import timeseries

            timeseries(series, args.timeseries_plot, title=f"{args.policy}: {len(result.jobs)} jobs on "
                                                          f"{result.schedule.total_procs} processors")
            print(f"wrote {args.timeseries_plot}")
    return 0


def _window_text(args: argparse.Namespace) -> str | None:
    """``--gantt-window`` as typed back (for messages), or None."""
    if args.gantt_window is None:
        return None
    lo, hi = args.gantt_window
    return f"{'' if lo is None else f'{lo:g}'}:{'' if hi is None else f'{hi:g}'}"


def compare_command(args: argparse.Namespace) -> int:
    """The ``compare`` handler."""
    trace = check_input_file("TRACE", args.trace) if args.trace is not None else sample_trace()
    policies = args.policies if args.policies is not None else list(POLICIES)
    jobs, procs = _read(trace, args)
    rows = [_run(jobs, procs, policy, args)[0] for policy in policies]
    _print_table(rows, f"{trace}: {len(jobs)} jobs, estimates={args.estimates}")
    return 0


def lublin_command(args: argparse.Namespace) -> int:
    """The ``lublin`` handler."""
    check_output_files({"--out": args.out})
    from ..workload.lublin import lublin_feitelson
    from ..workload.swf import write_swf

    jobs = lublin_feitelson(args.jobs, args.procs, seed=args.seed)
    if args.estimates != "none":
        import numpy as np

        from ..workload.estimates import with_estimates

        # A stream of its own (spawn key 1 of the seed), so that the jobs stay those of --estimates none.
        stream = np.random.default_rng(np.random.SeedSequence(args.seed, spawn_key=(1,)))
        jobs = with_estimates(jobs, args.estimates, seed=stream)
    write_swf(jobs, args.out)
    print(f"wrote {args.out}: {len(jobs)} jobs for {args.procs} processors (seed {args.seed}, "
          f"estimates {args.estimates})")
    return 0
