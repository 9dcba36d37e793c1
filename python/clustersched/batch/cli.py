"""``clustersched simulate | compare | cut | lublin | sweep``: batch scheduling of rigid jobs from the command line.

Usage::

    clustersched compare [TRACE] [--policies fcfs,easy,module:Class,...] [--estimates requested|exact] [--procs N]
                         [--oversized error|skip|clip] [--drop-invalid]
    clustersched simulate TRACE [--policy easy|module:Class|file.py:Class] [--estimates requested|exact] [--procs N]
                                [--oversized error|skip|clip] [--drop-invalid]
                                [--out FILE [--format csv|swf|batsim]] [--gantt out.png [--gantt-window START:END]]
                                [--timeseries FILE.csv] [--timeseries-plot out.png]
    clustersched lublin [--jobs 10000] [--procs 128] [--seed 0] [--estimates none|exact|f:F|modal]
                        --out synthetic.swf
    clustersched cut TRACE --time-window START:END --out FILE
    clustersched sweep TRACE|lublin [--policies easy,conservative,dpsa-n] [--loads 0.5:1.2:0.05]
                                    [--replications R] [--replicate windows|days|weeks] [--window N]
                                    [--jobs N] [--procs N] [--seed S] [--estimates requested|exact]
                                    [--estimate-model none|exact|f:F|modal] [--drop-invalid]
                                    [--metrics M1,M2]
                                    [--baseline POLICY]
                                    [--workers N | --dask ADDRESS] --out DIR

``compare`` runs several policies on one trace (by default the
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
``sweep`` runs policies x offered loads x replications and writes the tidy
results, their means with 95% confidence intervals and the curves
(:func:`clustersched.batch.sweep.sweep`); its status is 1 when some
scenarios ended in an error.
A TRACE is an SWF trace (plain or .gz) or a Batsim JSON workload, told
apart by content (:func:`clustersched.workload.read_trace`).
``--time-window START:END`` (``simulate``, ``compare``) keeps the jobs
submitted in that window, counted from the trace start (its first submit)
in seconds or with a unit, ``7d:14d``, ``1w:2w``, ``:12h``; their submit
times then count from the window's start, as ``cut`` writes them
(:func:`clustersched.workload.time_window` with ``rebase=True``).
``cut`` writes such a window as an SWF trace of its own: its header's
``UnixStartTime`` and ``StartTime`` move to the window's start, so every
job keeps its date.
``compare --json`` prints the table as JSON, one object per policy;
``compare --out FILE`` writes it as CSV (``.csv``) or JSON (``.json``),
with every metric of :meth:`clustersched.batch.BatchRun.summary`.
A policy is a built-in name, read by the library's one name rule
(:func:`clustersched._checks.lookup`: exact, else ignoring case with ``-``
and ``_`` alike, so ``EASY`` and ``dpsa_n`` are accepted), or your own
:class:`clustersched.batch.Policy` subclass as ``module:Class`` (a module
importable from the current folder or the installed packages) or
``path/to/file.py:Class``, instantiated with no arguments.
``--drop-invalid`` removes the jobs no simulation can run
(:func:`clustersched.workload.drop_invalid`) and prints how many per reason.

:func:`add_parser` adds the five sub-commands to the ``clustersched`` parser.
Library code is imported by the handlers, so that building the parser stays
cheap (see :mod:`clustersched._cli`).
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Callable
from typing import Any

from .._cli import (
    MAX_PROCS,
    LazyChoices,
    campaign_status,
    check_image_file,
    check_input_file,
    check_out_folder,
    check_output_files,
    dask_address,
    estimate_spec,
    integer,
    library_bound,
    report_dropped,
)
from ..errors import InvalidOptionError
from ..workload.samples import SAMPLE, sample_trace

__all__ = ["add_parser"]

#: ``lublin --jobs`` at most: ``lublin_feitelson``'s own limit.
MAX_LUBLIN_JOBS = library_bound("clustersched.workload.lublin", "MAX_JOBS")
#: Traces longer than this show a progress bar (unless ``--no-progress``).
PROGRESS_JOBS = 50_000


class _PolicyChoices(LazyChoices):
    """The built-in policy names, for ``%(choices)s`` in help; a policy the option's type loaded from
    ``module:Class`` (not a name) is in them too, so that argparse keeps it."""

    def __contains__(self, value: object) -> bool:
        return not isinstance(value, str) or value == SLURM or super().__contains__(value)


POLICIES = _PolicyChoices("clustersched.batch.policies", "BUILTIN_POLICIES")
#: Slurm's own scheduler (clustersched.slurm.scheduler): a policy name of the command line on a cluster of
#: nodes (--platform), its parameters read from that slurm.conf.
SLURM = "slurm"
#: What a policy argument may be, for the help texts.
POLICY_FORMS = "a built-in policy or MODULE:CLASS / PATH.py:CLASS for your own clustersched.batch.Policy subclass"

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
DROP_HELP = (
    "remove the jobs a simulation cannot run (no processor count, a runtime <= 0 or unknown, wider than "
    "the machine unless --oversized clip) and print how many per reason on stderr, as "
    "clustersched.workload.drop_invalid counts them (default: such jobs are an error)"
)


def add_parser(subparsers: Any) -> None:
    """Adds ``simulate``, ``compare``, ``cut``, ``lublin`` and ``sweep`` to ``subparsers`` (from
    ``parser.add_subparsers()``).

    Each one's handler is ``args.run``.
    """
    sim = subparsers.add_parser(
        "simulate",
        help="simulate one policy on a trace (SWF or Batsim JSON)",
        description="Simulate one batch policy on a trace and print its metrics; write "
        "the schedule as CSV, SWF or the Batsim/evalys jobs file.",
    )
    sim.add_argument("trace", metavar="TRACE", help=TRACE_HELP)
    sim.add_argument(
        "--policy",
        type=_policy_arg,
        choices=POLICIES,
        default="easy",
        metavar="NAME",
        help="built-in policy, one of %(choices)s (any case, - and _ alike); slurm, Slurm's own scheduler "
        "(multifactor priority, main and backfill passes) as the --platform slurm.conf sets it up; or your own "
        "clustersched.batch.Policy subclass as MODULE:CLASS (importable from the current folder "
        "or installed) or PATH/TO/FILE.py:CLASS, made with no arguments (default: %(default)s)",
    )
    _machine_options(sim, nodes=True)
    _time_window_option(sim)
    sim.add_argument(
        "--out", metavar="FILE", help="write the schedule, one job per row, in the --format (default: none)"
    )
    sim.add_argument(
        "--format",
        choices=LazyChoices("clustersched.batch.formats", "SCHEDULE_FORMATS"),
        metavar="FORMAT",
        help="format of --out, one of %(choices)s: csv has job_id, submit_s, start_s, end_s, wait_s, "
        "runtime_s, procs, procs_requested, time_requested_s and the allocated processors; swf "
        "the Standard Workload Format (read_swf reads it back; .gz compresses); batsim the "
        "Batsim jobs file evalys reads (default: csv)",
    )
    sim.add_argument(
        "--gantt",
        metavar="IMAGE",
        help="draw a Gantt chart to this image file, .png, .pdf, .svg, ...; its time axis counts from "
        "the trace start (first submit) in minutes, hours or days (default: none)",
    )
    sim.add_argument(
        "--gantt-window",
        type=_hours_window,
        metavar="START:END",
        help="draw only this part of the --gantt chart: hours from the trace start (first submit), "
        "START < END, either may be left out for the schedule's start or end (24:48 is the "
        "second day, :6 the first six hours); it must overlap the schedule (default: all of it)",
    )
    sim.add_argument(
        "--timeseries",
        metavar="FILE",
        help="write the machine's state over time as CSV, one row per event time: time_s, busy_procs, "
        "utilization, running, queued (jobs submitted, not started), queued_work_proc_s (their "
        "processors x runtimes); each row holds until the next "
        "(clustersched.batch.batch_timeseries) (default: none)",
    )
    sim.add_argument(
        "--timeseries-plot",
        metavar="IMAGE",
        help="draw utilization, running and queued jobs and queued work over time to this image file, "
        ".png, .pdf, .svg, ... (default: none)",
    )
    sim.set_defaults(run=simulate_command)
    sim.epilog = POLICY_NOTES

    cmp_ = subparsers.add_parser(
        "compare",
        help=f"compare policies on a trace (default: the bundled {SAMPLE})",
        description=f"Run several batch policies on one trace; print one row of metrics each ({UNITS}).",
    )
    cmp_.add_argument(
        "trace", nargs="?", metavar="TRACE", help=f"{TRACE_HELP} (default: the bundled {SAMPLE}, a week of HPC2N)"
    )
    cmp_.add_argument(
        "--policies",
        type=_policy_list,
        metavar="P1,P2,...",
        help="comma-separated policies, each a built-in name or MODULE:CLASS / PATH.py:CLASS as "
        "simulate --policy reads them (default: all the built-in ones)",
    )
    _machine_options(cmp_, nodes=True)
    _time_window_option(cmp_)
    cmp_.add_argument(
        "--json",
        action="store_true",
        help="print the table as JSON instead, a list of one object per policy with every metric "
        "(the names of --out's columns) (default: a text table)",
    )
    cmp_.add_argument(
        "--out",
        metavar="FILE",
        help="also write the table to FILE, one row per policy with every metric "
        "(clustersched.batch.BatchRun.summary: percentiles too), times in seconds: CSV for a "
        "name ending in .csv, JSON (as --json prints it) for .json; written whole or not at "
        "all (default: none)",
    )
    cmp_.set_defaults(run=compare_command)
    cmp_.epilog = POLICY_NOTES

    cut = subparsers.add_parser(
        "cut",
        help="write the jobs of a time window of a trace as an SWF trace of its own",
        description="Keep the jobs submitted in a time window of a trace (SWF or Batsim JSON) and write them as "
        "an SWF trace whose submit times count from the window's start; its header's UnixStartTime "
        "and StartTime move to that start (so every job keeps its date), EndTime ends with the "
        "window, MaxJobs and MaxRecords count its jobs.",
    )
    cut.add_argument("trace", metavar="TRACE", help=TRACE_HELP)
    _time_window_option(cut, required=True)
    cut.add_argument(
        "--out",
        required=True,
        metavar="FILE",
        help="SWF file to write, .gz compresses; written whole or not at all (required)",
    )
    cut.set_defaults(run=cut_command)

    gen = subparsers.add_parser(
        "lublin",
        help="write a Lublin-Feitelson synthetic workload as SWF",
        description="Write a Lublin-Feitelson (2003) synthetic workload as an SWF trace.",
    )
    gen.add_argument(
        "--jobs",
        type=integer(1, MAX_LUBLIN_JOBS),
        default=10_000,
        metavar="N",
        help="number of jobs (default: %(default)s)",
    )
    gen.add_argument(
        "--procs",
        type=integer(1, MAX_PROCS),
        default=128,
        metavar="N",
        help="processors of the machine (default: %(default)s)",
    )
    gen.add_argument("--seed", type=integer(0), default=0, metavar="S", help="random seed (default: %(default)s)")
    gen.add_argument(
        "--estimates",
        type=estimate_spec("none"),
        default="none",
        metavar="MODEL",
        help="user runtime estimates written as requested times: none (requested time -1: the "
        "simulator then uses the exact runtimes), exact (the runtime), f:F (Mu'alem & Feitelson "
        "2001: uniform in [runtime, (F+1) runtime], F >= 0) or modal (Tsafrir, Etsion & "
        "Feitelson 2005, maximum: the longest runtime rounded up to an hour); drawn from a "
        "random stream of --seed apart from the jobs', so the jobs are the same for every MODEL "
        "(default: %(default)s)",
    )
    gen.add_argument("--out", required=True, metavar="FILE", help="SWF file to write, .gz compresses (required)")
    gen.set_defaults(run=lublin_command)

    _add_sweep_parser(subparsers)


def _machine_options(p: argparse.ArgumentParser, *, nodes: bool = False) -> None:
    if nodes:
        p.add_argument(
            "--platform",
            metavar="SLURM_CONF",
            help="a cluster of nodes read from a slurm.conf (nodes with cores, memory, GPUs and features, "
            "partitions) instead of a pool of --procs processors; each job's request (a sacct dump's or an events "
            "file's, else one CPU per processor of an SWF trace) is placed on its partition's nodes (default: a "
            "processor pool)",
        )
        p.add_argument(
            "--memory",
            choices=("auto", "on", "off"),
            default="auto",
            help="with --platform, whether memory is a resource: auto is on for Slurm's files (their requests, the "
            "partition's DefMemPerCPU) and off for SWF; on reads an SWF trace's field 10 (default: %(default)s)",
        )
        p.add_argument(
            "--accounts",
            metavar="SACCTMGR_SCRIPT",
            help="with --platform and policy slurm: the accounts, users, fair-share shares and QOS priorities of a "
            "sacctmgr script (default: each account of the trace with one share, each user one share in it)",
        )
    p.add_argument(
        "--estimates",
        choices=LazyChoices("clustersched.batch.simulator", "ESTIMATES"),
        default="requested",
        metavar="KIND",
        help="run times the policy believes: %(choices)s (default: %(default)s)",
    )
    p.add_argument(
        "--procs",
        type=integer(1, MAX_PROCS),
        metavar="N",
        help="processors of the machine (default: the trace's MaxProcs, else MaxNodes)",
    )
    p.add_argument(
        "--oversized",
        choices=LazyChoices("clustersched.batch.simulator", "OVERSIZED"),
        default="error",
        metavar="WHAT",
        help="jobs wider than the machine: %(choices)s (default: %(default)s)",
    )
    p.add_argument("--drop-invalid", action="store_true", help=DROP_HELP)
    p.add_argument(
        "--no-progress",
        action="store_true",
        help=f"no progress bar (default: one on traces of over {PROGRESS_JOBS:,} jobs, "
        "shown once the run has taken half a second, on a terminal)",
    )


def _policy_list(text: str) -> list[Any]:
    """``--policies``: comma-separated policies (:func:`_policy_arg`), each once, at least one."""
    items = list(dict.fromkeys(name.strip() for name in text.split(",") if name.strip()))
    if not items:
        raise argparse.ArgumentTypeError(f"invalid value {text!r}: name at least one policy")
    unknown = [item for item in items if ":" not in item and item.lower() != SLURM and _builtin(item) is None]
    if unknown:
        raise argparse.ArgumentTypeError(
            f"invalid value {text!r}: unknown {', '.join(map(repr, unknown))}; known: {', '.join(POLICIES)} "
            "(or MODULE:CLASS / PATH.py:CLASS for your own clustersched.batch.Policy subclass)"
        )
    policies: dict[Any, Any] = {}
    for item in items:
        policy = _policy_arg(item)
        policies.setdefault(policy if isinstance(policy, str) else item, policy)
    return list(policies.values())


def _builtin(name: str) -> str | None:
    """The canonical built-in policy ``name`` is, by the library's one rule (:func:`clustersched._checks.lookup`:
    exact, else ignoring case with ``-`` and ``_`` alike), or None."""
    from .._checks import lookup

    try:
        return lookup("policy", name.strip(), POLICIES)
    except ValueError:
        return None


def _policy_arg(text: str) -> Any:
    """A policy option's value: a built-in name (canonical spelling), or a Policy instance from ``MODULE:CLASS``
    or ``PATH.py:CLASS`` (:func:`_load_policy`)."""
    if ":" in text:
        return _load_policy(text.strip())
    if text.strip().lower() == SLURM:
        return SLURM
    name = _builtin(text)
    if name is None:
        raise argparse.ArgumentTypeError(
            f"invalid value {text!r}: must be {POLICY_FORMS}; the built-in ones are {', '.join(POLICIES)}"
        )
    return name


def _load_policy(spec: str) -> Any:
    """``MODULE:CLASS`` or ``PATH.py:CLASS``: an instance of that clustersched.batch.Policy subclass, made with
    no arguments; argparse's error (exit 2) when the module or file cannot be loaded, has no such class, or the
    class is not a Policy subclass or cannot be made.

    A module is imported as Python would, then, if it is not found, from the current folder (the command's
    script is not there, unlike ``python -m``).  A file, or a module found only in the current folder, is
    loaded under its own name and pickled by value (cloudpickle) for worker processes, so that they, and Dask
    workers elsewhere, need no copy of it."""
    import importlib
    import importlib.util

    target, _, class_name = spec.rpartition(":")
    rule = "must be MODULE:CLASS or PATH/TO/FILE.py:CLASS naming a clustersched.batch.Policy subclass"
    if not target or not class_name.isidentifier():
        raise argparse.ArgumentTypeError(f"invalid value {spec!r}: {rule}")
    by_value = False
    try:
        if target.endswith(".py") or "/" in target or os.sep in target:
            path = os.path.abspath(target)
            if not os.path.isfile(path):
                raise argparse.ArgumentTypeError(f"invalid value {spec!r}: no such file {target!r}; {rule}")
            import hashlib

            name = f"_clustersched_policy_{hashlib.sha1(path.encode()).hexdigest()[:12]}"
            module = sys.modules.get(name)
            if module is None:
                loader_spec = importlib.util.spec_from_file_location(name, path)
                assert loader_spec is not None and loader_spec.loader is not None
                module = importlib.util.module_from_spec(loader_spec)
                sys.modules[name] = module
                try:
                    loader_spec.loader.exec_module(module)
                except BaseException:
                    del sys.modules[name]
                    raise
            by_value = True
        else:
            try:
                module = importlib.import_module(target)
            except ModuleNotFoundError as exc:
                if exc.name != target.split(".")[0] or os.getcwd() in sys.path:
                    raise
                sys.path.insert(0, os.getcwd())
                module = importlib.import_module(target)
                by_value = True
    except argparse.ArgumentTypeError:
        raise
    except Exception as exc:
        raise argparse.ArgumentTypeError(
            f"invalid value {spec!r}: cannot load {target}: {type(exc).__name__}: {exc}"
        ) from None
    from .policies import Policy

    cls = getattr(module, class_name, None)
    if cls is None:
        raise argparse.ArgumentTypeError(f"invalid value {spec!r}: {target} has no {class_name}")
    if not (isinstance(cls, type) and issubclass(cls, Policy)):
        raise argparse.ArgumentTypeError(
            f"invalid value {spec!r}: {class_name} is not a subclass of clustersched.batch.Policy"
        )
    try:
        policy = cls()
    except Exception as exc:
        raise argparse.ArgumentTypeError(
            f"invalid value {spec!r}: {class_name}() failed: {type(exc).__name__}: {exc}"
        ) from None
    if by_value:
        import cloudpickle

        cloudpickle.register_pickle_by_value(module)
    return policy


def _policy_name(policy: Any) -> str:
    """How the tables name a policy: a built-in's name, or the ``name`` of your own."""
    return policy if isinstance(policy, str) else str(policy.name)


def _hours_window(text: str) -> tuple[float | None, float | None]:
    """``--gantt-window``: ``START:END`` in hours from the trace start, either side empty (None), START < END."""
    rule = "must be START:END in hours from the trace start, e.g. 24:48, with 0 <= START < END"
    return _window_bounds(text, rule, float, open_both=True)


def _window_bounds(
    text: str, rule: str, value: Callable[[str], float], *, open_both: bool
) -> tuple[float | None, float | None]:
    """``START:END`` read with ``value`` (ValueError for a bad side), either side empty (None; both only with
    ``open_both``), each finite and ``>= 0``, ``START < END``: the one rule of the window options, whose
    ``rule`` the ArgumentTypeError states."""
    import math

    parts = text.split(":")
    if len(parts) != 2 or not (open_both or any(part.strip() for part in parts)):
        raise argparse.ArgumentTypeError(f"invalid value {text!r}: {rule}")
    bounds: list[float | None] = []
    for part in parts:
        part = part.strip()
        if not part:
            bounds.append(None)
            continue
        try:
            number = value(part)
        except ValueError:
            raise argparse.ArgumentTypeError(f"invalid value {text!r}: {rule}") from None
        if not math.isfinite(number) or number < 0:
            raise argparse.ArgumentTypeError(f"invalid value {text!r}: {rule}")
        bounds.append(number)
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
            "--gantt-window",
            text,
            f"is outside the schedule, which runs from {(first - origin) / 3600:.4g} to {(last - origin) / 3600:.4g} "
            "hours after the trace start",
        )
    return lo, hi


def _read(trace: Any, args: argparse.Namespace) -> tuple[Any, int | None]:
    """The trace's jobs (SWF, Batsim JSON, sacct, Slurm events) and the machine size to simulate (None: the
    simulator's default, or the nodes of ``--platform``); with ``--drop-invalid``, without the jobs no
    simulation can run, one stderr line per reason."""
    from ..workload.formats import read_trace

    platform = getattr(args, "platform", None)
    if platform is not None:
        if args.procs is not None:
            raise InvalidOptionError("--procs", str(args.procs), "sizes a processor pool; --platform gives the nodes")
        if args.drop_invalid:
            raise InvalidOptionError("--drop-invalid", "", "works on a processor pool; not with --platform")
        from ..slurm.conf import read_slurm_conf

        args.conf = read_slurm_conf(check_input_file("--platform", platform))
        args.nodes = args.conf.platform
    if getattr(args, "accounts", None) is not None:
        if platform is None:
            raise InvalidOptionError("--accounts", args.accounts, "sets up Slurm's scheduler; give --platform too")
        from ..slurm.scheduler import read_sacctmgr

        args.accounts = read_sacctmgr(check_input_file("--accounts", args.accounts))
    jobs = _in_window(read_trace(trace), args)
    if platform is not None or not args.drop_invalid:
        return jobs, args.procs
    from ..errors import InvalidWorkloadError
    from ..workload.transform import drop_invalid

    procs = args.procs if args.procs is not None else jobs.max_procs
    if procs is None:
        raise InvalidWorkloadError(
            "the header gives no MaxProcs (or MaxNodes); pass the machine size with --procs", path=jobs.source
        )
    kept = drop_invalid(jobs, procs, wider="clip" if args.oversized == "clip" else "drop")
    report_dropped(kept.dropped[len(jobs.dropped) :], len(jobs))
    if len(kept) == 0:
        raise InvalidWorkloadError(f"--drop-invalid left no job of {len(jobs)} (see the notes above)", path=jobs.source)
    return kept, procs


def _run(jobs: Any, procs: int | None, policy: Any, args: argparse.Namespace) -> tuple[dict[str, object], Any]:
    from .metrics import batch_metrics
    from .simulator import simulate

    on_nodes = getattr(args, "nodes", None)
    if policy == SLURM:
        if on_nodes is None:
            raise InvalidOptionError(
                "--policy", SLURM, "is Slurm's scheduler over a cluster of nodes; give --platform SLURM_CONF"
            )
        from ..slurm.scheduler import SlurmScheduler

        policy = SlurmScheduler.from_conf(args.conf, args.accounts)
    began = time.perf_counter()
    result = simulate(
        jobs,
        policy,
        procs=procs,
        platform=on_nodes,
        memory=None if on_nodes is None or args.memory == "auto" else args.memory == "on",
        estimates=args.estimates,
        oversized=args.oversized,
        progress=not args.no_progress and len(jobs) > PROGRESS_JOBS,
    )
    seconds = time.perf_counter() - began
    for d in result.dropped[:5]:
        print(f"note: job {d.job_id}: {d.reason}", file=sys.stderr)
    if len(result.dropped) > 5:
        print(f"note: ... {len(result.dropped)} jobs {args.oversized}ped in all", file=sys.stderr)
    if result.schedule.killed is not None:  # the trace declares time-limit kills (a Batsim workload)
        print(
            f"note: {result.schedule.kills} of {len(result.jobs)} job(s) killed at their time limit "
            "(the trace declares TimeLimit: kill: Slurm and Batsim end a job at its time limit)",
            file=sys.stderr,
        )
    row = {"policy": _policy_name(policy), **batch_metrics(result.schedule).summary(), "seconds": seconds}
    return row, result


def _print_table(rows: list[dict[str, Any]], title: str, columns: list[tuple[str, str, str]] = COLUMNS) -> None:
    """``title``, then ``rows`` right-aligned under the ``columns`` (header, row key, format)."""
    cells = [[fmt.format(row[key]) for _, key, fmt in columns] for row in rows]
    widths = [max(len(name), *(len(c[i]) for c in cells)) for i, (name, _, _) in enumerate(columns)]
    print(title)
    print("  ".join(name.rjust(w) for (name, _, _), w in zip(columns, widths)))
    for c in cells:
        print("  ".join(v.rjust(w) for v, w in zip(c, widths)))


#: The replay table of a trace that records its real starts, on nodes: (column, summary key, format).
REPLAY_COLUMNS = [
    ("policy", "policy", "{}"),
    ("mean_wait_s", "mean_wait", "{:.0f}"),
    ("real", "real_mean_wait", "{:.0f}"),
    ("median_wait_s", "median_wait", "{:.0f}"),
    ("real", "real_median_wait", "{:.0f}"),
    ("median_|dstart|_s", "median_abs_delta", "{:.0f}"),
    ("within_60s", "within_60s", "{:.3f}"),
    ("within_10min", "within_10min", "{:.3f}"),
    ("kendall_tau", "kendall_tau", "{:.3f}"),
]


def _print_replay(results: list[Any], args: argparse.Namespace) -> None:
    """On nodes (--platform), when the trace records when each job really started (a sacct dump): each
    policy's starts against the real ones (clustersched.slurm.replay)."""
    if getattr(args, "nodes", None) is None or not results:
        return
    from ..slurm.replay import compare_starts, real_starts

    if real_starts(results[0].jobs) is None:
        return
    rows = [compare_starts(r.schedule, r.jobs).summary() for r in results]
    title = f"against the real run the trace records ({rows[0]['jobs']} jobs; |dstart|: simulated minus real start)"
    _print_table(rows, title, REPLAY_COLUMNS)


def simulate_command(args: argparse.Namespace) -> int:
    """The ``simulate`` handler: every file is checked before the simulation, so a failed run writes nothing."""
    trace = check_input_file("TRACE", args.trace)
    if args.format is not None and args.out is None:
        raise InvalidOptionError("--format", args.format, "says how to write --out FILE; give --out too")
    window_text = _window_text(args)
    if window_text is not None and args.gantt is None:
        raise InvalidOptionError(
            "--gantt-window", window_text, "says which part of --gantt IMAGE to draw; give --gantt too"
        )
    check_output_files(
        {
            "--out": args.out,
            "--gantt": args.gantt,
            "--timeseries": args.timeseries,
            "--timeseries-plot": args.timeseries_plot,
        },
        inputs=[trace],
    )
    check_image_file("--gantt", args.gantt)
    check_image_file("--timeseries-plot", args.timeseries_plot)

    jobs, procs = _read(trace, args)
    row, result = _run(jobs, procs, args.policy, args)
    # checked before anything is written, so that a window outside the schedule writes nothing
    window = _gantt_window(result.schedule, window_text, args.gantt_window) if window_text is not None else None
    _print_table([row], f"{args.trace}: {len(result.jobs)} jobs on {_machine_words(result.schedule)} ({UNITS})")
    _print_replay([result], args)
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

            timeseries(
                series,
                args.timeseries_plot,
                title=f"{_policy_name(args.policy)}: {len(result.jobs)} jobs on "
                f"{result.schedule.total_procs} processors",
            )
            print(f"wrote {args.timeseries_plot}")
    return 0


def _machine_words(schedule: Any) -> str:
    """``240 processors``, or on nodes ``10 nodes (120 cores)``."""
    if schedule.nodes is None:
        return f"{schedule.total_procs} processors"
    return f"{len(schedule.nodes.platform.nodes)} nodes ({schedule.total_procs} cores)"


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
    if args.out is not None:
        check_output_files({"--out": args.out}, inputs=[trace])
        if not args.out.lower().endswith((".csv", ".json")):
            raise InvalidOptionError("--out", args.out, "end the name with .csv or .json, the format to write")
    jobs, procs = _read(trace, args)
    runs = [_run(jobs, procs, policy, args) for policy in policies]
    rows = [row for row, _ in runs]
    records = [_record(row, result, trace, args) for row, result in runs]
    if args.json:
        print(_json_rows(records))
    else:
        _print_table(rows, f"{trace}: {len(jobs)} jobs, estimates={args.estimates} ({UNITS})")
        _print_replay([result for _, result in runs], args)
    if args.out is not None:
        text = _json_rows(records) + "\n" if args.out.lower().endswith(".json") else _csv_rows(records)
        from .._output import atomic_open

        with atomic_open(args.out, "w", encoding="utf-8", newline="") as fh:
            fh.write(text)
        if not args.json:
            print(f"wrote {args.out} ({len(records)} row(s), one per policy)")
    return 0


#: What ``simulate --help`` and ``compare --help`` say of the built-in policies (the docstring of
#: ``clustersched.batch.policies.BUILTIN_POLICIES`` says more).
POLICY_NOTES = (
    "Built-in policies: fcfs starts the queue head while it fits; easy reserves processors for the head at its "
    "shadow time and backfills, in queue order, every job that does not delay it; easy-arrival is EASY that "
    "backfills a job only at the time stamp it arrives: a job that cannot start then waits until it heads the "
    "queue, even if processors free up that it could use before the head's reservation (the reading of the DFRS "
    "paper's EASY baseline closest to its results); conservative gives every waiting job a reservation and "
    "backfills only into holes that delay none; sjf starts the shortest estimate first, with no reservation; "
    "dpsa-p, dpsa-n and dpsa-w keep EASY's reservation and start the subset of waiting jobs that keeps the most "
    "processors busy, ties broken by priority, narrow jobs first or wide jobs first."
)

#: The units ``--time-window`` accepts after a number, in seconds.
WINDOW_UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400, "w": 7 * 86400}


class TimeWindow(tuple):  # type: ignore[type-arg]
    """``--time-window``: (start, end) in seconds from the trace start, either None, and the text typed."""

    text: str

    def __new__(cls, start: float | None, end: float | None, text: str) -> "TimeWindow":
        self = super().__new__(cls, (start, end))
        self.text = text
        return self


def _time_window_option(p: argparse.ArgumentParser, *, required: bool = False) -> None:
    p.add_argument(
        "--time-window",
        type=_time_window,
        metavar="START:END",
        required=required,
        help="keep only the jobs submitted from START to END (END excluded) after the trace start, its "
        "first submit: numbers of seconds or with a unit s, m, h, d or w (7d:14d and 1w:2w are "
        "the second week, :12h the first twelve hours, 30d: all from day 30 on); their submit "
        "times then count from START"
        + (" (required)" if required else "; clustersched cut writes that trace (default: all jobs)"),
    )


def _time_window(text: str) -> TimeWindow:
    """``--time-window``: ``START:END``, each a number of seconds or of a unit of :data:`WINDOW_UNITS`, either
    left out (not both), ``0 <= START < END``."""
    rule = (
        "must be START:END after the trace start, in seconds or with a unit s, m, h, d or w, e.g. 7d:14d, "
        "with 0 <= START < END"
    )
    start, end = _window_bounds(text, rule, _seconds, open_both=False)
    return TimeWindow(start, end, text)


def _seconds(text: str) -> float:
    """A number of seconds, or of the unit of :data:`WINDOW_UNITS` its last letter names (ValueError otherwise)."""
    text = text.lower()
    unit = WINDOW_UNITS.get(text[-1])
    return float(text[:-1] if unit else text) * (unit or 1)


def _in_window(jobs: Any, args: argparse.Namespace, *, note: bool = True) -> Any:
    """``jobs`` cut to ``--time-window`` and rebased (the jobs as they are without one); a note on stderr
    says how many jobs the window holds (unless not ``note``), InvalidOptionError when none."""
    window = getattr(args, "time_window", None)  # sweep has no such option
    if window is None:
        return jobs
    from ..workload.transform import time_window

    start, end = window
    kept = time_window(jobs, start or 0.0, end, rebase=True)
    span = float(jobs.submit.max() - jobs.submit.min())
    if len(kept) == 0:
        raise InvalidOptionError(
            "--time-window",
            window.text,
            f"holds no job: the trace's {len(jobs)} jobs are submitted from 0 to {_duration(span)} after its start",
        )
    if note:
        print(
            f"note: --time-window {window.text}: {len(kept)} of {len(jobs)} jobs, submit times counted from "
            f"{_duration(start or 0.0)} after the trace start",
            file=sys.stderr,
        )
    return kept


def _duration(seconds: float) -> str:
    """``seconds`` as a reader says it: ``90000 s (1.04 d)``."""
    for unit, size in (("w", 7 * 86400), ("d", 86400), ("h", 3600)):
        if seconds >= size:
            return f"{seconds:.0f} s ({seconds / size:.3g} {unit})"
    return f"{seconds:g} s"


def _record(row: dict[str, Any], result: Any, trace: Any, args: argparse.Namespace) -> dict[str, Any]:
    """One policy's row of ``compare --json`` / ``--out``: the run's context, then every metric of its summary
    under the table's names (``avg_wait_s``, ``sim_s``) or with its unit (:mod:`clustersched._pandas`)."""
    import math

    from .._pandas import with_units

    table = {key: name for name, key, _ in COLUMNS}
    record: dict[str, Any] = {"policy": row["policy"], "trace": os.fspath(trace)}
    window = getattr(args, "time_window", None)
    if window is not None:
        record["time_window"] = window.text
    record.update(procs=int(result.schedule.total_procs), estimates=args.estimates, oversized=args.oversized)
    for key, value in row.items():
        if key == "policy":
            continue
        if hasattr(value, "item"):  # a numpy scalar
            value = value.item()
        if isinstance(value, float) and not math.isfinite(value):
            value = None  # not JSON; an empty CSV cell
        record[table.get(key, with_units(key))] = value
    return record


def _json_rows(records: list[dict[str, Any]]) -> str:
    """A JSON list, one object a line."""
    import json

    return "[\n" + ",\n".join(json.dumps(r, allow_nan=False) for r in records) + "\n]"


def _csv_rows(records: list[dict[str, Any]]) -> str:
    import csv
    import io

    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=list(dict.fromkeys(k for r in records for k in r)), lineterminator="\n")
    writer.writeheader()
    writer.writerows(records)
    return out.getvalue()


def cut_command(args: argparse.Namespace) -> int:
    """The ``cut`` handler: the window's jobs, rebased, written as SWF (whole or not at all)."""
    trace = check_input_file("TRACE", args.trace)
    check_output_files({"--out": args.out}, inputs=[trace])
    from ..workload.formats import read_trace
    from ..workload.swf import write_swf

    jobs = read_trace(trace)
    kept = _in_window(jobs, args, note=False)  # the line below says it
    write_swf(kept, args.out)  # whole or not at all
    start = kept.metadata.get("StartTime") or kept.metadata.get("UnixStartTime")
    print(f"wrote {args.out}: {len(kept)} of {len(jobs)} jobs" + (f", starting {start}" if start else ""))
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
    print(
        f"wrote {args.out}: {len(jobs)} jobs for {args.procs} processors (seed {args.seed}, estimates {args.estimates})"
    )
    return 0


# -- sweep -------------------------------------------------------------------------------------------------------------
#: The table ``sweep`` prints: (column, summary key of the mean, format).
SWEEP_COLUMNS = [
    ("avg_bounded_slowdown", "avg_bounded_slowdown", "{:.2f}"),
    ("avg_wait_s", "avg_wait", "{:.0f}"),
    ("utilization", "utilization", "{:.3f}"),
    ("achieved_load", "achieved_load", "{:.3f}"),
]
#: The files ``sweep --out DIR`` writes besides its figures.
SWEEP_OUTPUTS = ("results.csv", "summary.csv", "relative.csv", "campaign.sqlite")


def _add_sweep_parser(subparsers: Any) -> None:
    """``sweep``: policies x offered loads x replications on a trace or on Lublin-Feitelson workloads."""
    sw = subparsers.add_parser(
        "sweep",
        help="sweep the offered load: policies x loads x replications, with 95%% confidence intervals",
        description="Scale a workload to each offered load (inter-arrival times scaled; runtimes and widths "
        "unchanged), simulate every policy, replicate, and write results.csv (one row per run), "
        "summary.csv (mean and 95% confidence interval per policy and load, a percentile bootstrap "
        "of the mean, which never leaves the values' range) and one figure per metric against the "
        "load (see clustersched.batch.sweep).  Loads whose submit times would pass the library's "
        "time limit, jobs wider than the machine and such input, which every run would fail on, "
        "are refused before any run (exit 2).",
    )
    sw.add_argument(
        "workload",
        metavar="TRACE|lublin",
        help=f"{TRACE_HELP}; or the word lublin for Lublin-Feitelson workloads drawn per replication "
        "(a file named lublin: ./lublin)",
    )
    sw.add_argument(
        "--policies",
        type=_policy_list,
        default="easy,conservative,dpsa-n",
        metavar="P1,P2,...",
        help="comma-separated policies, as simulate --policy reads them: built-in names, or "
        "MODULE:CLASS / PATH.py:CLASS for your own clustersched.batch.Policy subclass, run in the "
        "workers too and resumed by its name and a digest of its code and attributes "
        "(default: %(default)s)",
    )
    sw.add_argument(
        "--loads",
        type=_loads,
        default="0.5:1.2:0.05",
        metavar="A:B:STEP|L1,L2,...",
        help="target offered loads: A to B by STEP, each rounded to the decimals written (0.5:1.2:0.05 "
        "is 0.5, 0.55, ..., 1.2), or a comma list; every load > 0 (default: %(default)s)",
    )
    sw.add_argument(
        "--replications",
        type=integer(1, 10_000),
        default=1,
        metavar="R",
        help="replications per policy and load; R >= 2 gives confidence intervals (default: %(default)s)",
    )
    sw.add_argument(
        "--replicate",
        choices=("windows", "days", "weeks"),
        default=None,
        metavar="HOW",
        help="how a trace is replicated, %(choices)s: windows simulates R windows of --window jobs at "
        "evenly spaced offsets (default: disjoint windows of N/R jobs), days and weeks a block "
        "bootstrap of whole days or weeks (default: windows; lublin: by seed, S+r)",
    )
    sw.add_argument(
        "--window",
        type=integer(2),
        metavar="N",
        help="with --replicate windows: jobs per replication (default: the trace's jobs / R)",
    )
    sw.add_argument(
        "--jobs",
        type=integer(2, MAX_LUBLIN_JOBS),
        metavar="N",
        help="lublin: jobs per workload (default: 5000); a trace: only its first N jobs, counted after "
        "--drop-invalid (default: all)",
    )
    sw.add_argument(
        "--seed",
        type=integer(0),
        default=0,
        metavar="S",
        help="lublin: replication r draws with seed S+r; the bootstraps draw from S (default: %(default)s)",
    )
    sw.add_argument(
        "--estimate-model",
        type=estimate_spec("none"),
        default="none",
        metavar="SPEC",
        help="draw the users' requested times for every replication: none, exact, f:F or modal, as "
        "lublin --estimates does; the policies believe them with --estimates requested "
        "(default: %(default)s, the trace's own; lublin has none)",
    )
    _machine_options(sw)
    for action in sw._actions:  # the shared options, as a sweep reads them
        if action.dest == "no_progress":
            action.help = "no progress bar (default: a progress bar over the scenarios)"
        elif action.dest == "procs":
            action.help = "processors of the machine (default: the trace's MaxProcs, else MaxNodes; lublin: 128)"
    where = sw.add_mutually_exclusive_group()
    where.add_argument("--workers", type=integer(1), metavar="N", help="local worker processes (default: one per core)")
    where.add_argument(
        "--dask",
        type=dask_address,
        metavar="ADDRESS",
        help="run on a Dask scheduler instead, e.g. tcp://host:8786; needs "
        'pip install "clustersched[dask]" (default: local processes)',
    )
    sw.add_argument(
        "--metrics",
        type=_name_list,
        metavar="M1,M2,...",
        help="the metrics drawn, one figure each, METRIC.png (default: avg_bounded_slowdown on a log "
        "axis, avg_wait, utilization, and the p90 metrics when there are some)",
    )
    sw.add_argument(
        "--baseline",
        metavar="POLICY",
        help="one of --policies: also write relative.csv and METRIC_vs_POLICY.png, each policy's metric "
        "as a ratio to this one's on the same replication (paired; geometric mean and 95%% "
        "interval) (default: none)",
    )
    sw.add_argument(
        "--out",
        required=True,
        metavar="DIR",
        help="folder for results.csv, summary.csv, the figures and campaign.sqlite, created if missing; "
        "rerunning with the same folder computes only what is missing (required)",
    )
    sw.set_defaults(run=sweep_command)


def _loads(text: str) -> tuple[float, ...]:
    """``--loads``: :func:`clustersched.batch.sweep.parse_loads`, its ValueError as argparse's message."""
    from .sweep import parse_loads

    try:
        return parse_loads(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(f"invalid value {text!r}: {str(exc).split(': ', 1)[-1]}") from None


def _name_list(text: str) -> list[str]:
    names = list(dict.fromkeys(name.strip() for name in text.split(",") if name.strip()))
    if not names:
        raise argparse.ArgumentTypeError(f"invalid value {text!r}: name at least one")
    return names


def sweep_command(args: argparse.Namespace) -> int:
    """The ``sweep`` handler: checks the options and the workload, runs the sweep, prints its summary."""
    from ..campaign.study import studies

    lublin = args.workload == "lublin"
    if lublin:
        for option, value in (
            ("--drop-invalid", args.drop_invalid or None),
            ("--window", args.window),
            ("--replicate", args.replicate),
        ):
            if value is not None:
                raise InvalidOptionError(option, str(value), "applies to a trace; lublin replicates by seed")
        if args.oversized != "error":
            raise InvalidOptionError("--oversized", args.oversized, "applies to a trace; lublin jobs fit the machine")
    else:
        trace = check_input_file("TRACE", args.workload)
    if args.window is not None and args.replicate not in (None, "windows"):
        raise InvalidOptionError(
            "--window", str(args.window), f"sizes the windows; --replicate {args.replicate} resamples the whole trace"
        )
    from .sweep import Lublin, check_figure_metrics, sweep

    if args.metrics is not None:
        try:
            check_figure_metrics(args.metrics)
        except ValueError as exc:
            raise InvalidOptionError("--metrics", ",".join(args.metrics), str(exc).split(": ", 1)[1]) from None
    if args.baseline is not None:
        from .._checks import lookup

        names = [_policy_name(p) for p in args.policies]
        try:
            lookup("baseline", args.baseline, names)
        except ValueError:
            raise InvalidOptionError(
                "--baseline", args.baseline, f"must be one of --policies {','.join(names)}"
            ) from None
    out = check_out_folder("--out", args.out, SWEEP_OUTPUTS + tuple(f"{m}.png" for m in args.metrics or ()))

    if lublin:
        workload: Any = Lublin(args.jobs or 5000, args.procs or 128)
        procs = None
        what = f"{workload.describe()}, seeds {args.seed}..{args.seed + args.replications - 1}"
    else:
        jobs, procs = _read(trace, args)
        if args.jobs is not None and args.jobs < len(jobs):
            jobs = jobs.select(slice(0, args.jobs))
        workload = jobs
        what = f"{args.workload}: {len(jobs)} jobs"
    rows = []
    with studies() as runs:
        result = sweep(
            workload,
            args.policies,
            args.loads,
            replications=args.replications,
            replicate=args.replicate,
            window=args.window,
            procs=procs,
            estimates=args.estimates,
            estimate_model=None if args.estimate_model == "none" else args.estimate_model,
            oversized=args.oversized,
            seed=args.seed,
            out=out,
            figures=args.metrics,
            baseline=args.baseline,
            workers=args.workers,
            dask=args.dask,
            progress=not args.no_progress,
        )
    rows = result.summary
    print(
        f"{what}; {len(result.policies)} policies x {len(result.loads)} loads x {result.replications} "
        f"replication(s), {result.rows[0]['replicate']}; mean"
        + (" [95% confidence interval: percentile bootstrap of the mean]" if result.replications > 1 else "")
        + " (times in seconds)"
    )
    header = [("policy", "{}"), ("load", "{:.3f}"), ("runs", "{:d}")]
    cells = []
    for r in rows:
        line = [fmt.format(r[key]) for key, fmt in (("policy", "{}"), ("load", "{:g}"), ("replications", "{:d}"))]
        for _, key, fmt in SWEEP_COLUMNS:
            mean, low, high = (r.get(f"{key}_{part}") for part in ("mean", "ci_low", "ci_high"))
            text = "" if mean is None else fmt.format(mean)
            if low is not None and high is not None and key != "achieved_load":
                text += f" [{fmt.format(low)}, {fmt.format(high)}]"
            line.append(text)
        cells.append(line)
    names = [name for name, _ in header] + [name for name, _, _ in SWEEP_COLUMNS]
    widths = [max(len(n), *(len(c[i]) for c in cells)) if cells else len(n) for i, n in enumerate(names)]
    print("  ".join(n.rjust(w) for n, w in zip(names, widths)))
    for c in cells:
        print("  ".join(v.rjust(w) for v, w in zip(c, widths)))
    for r in result.rows:
        if r["status"] != "ok":
            print(f"error: {r['policy']} at load {r['load']:g}, replication {r['replication']}: {r['error']}")
    others = [p.name for p in result.files if p.name not in ("results.csv", "summary.csv")]
    print(
        f"wrote {os.path.join(args.out, 'results.csv')}, summary.csv"
        + (f", {', '.join(others)}" if others else "")
        + " and campaign.sqlite"
    )
    return campaign_status(runs, os.path.join(args.out, "results.csv"))
