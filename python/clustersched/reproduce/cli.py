"""``clustersched reproduce PAPER``: rerun a paper's experiment (one sub-command per paper).

Usage::

    clustersched reproduce dpsa [--traces DIR] [--scale small|full] [--estimates requested|exact]
                                [--procs NAME=N ...] [--workers N | --dask ADDRESS] --out DIR
    clustersched reproduce ptg [--scale small|full] [--seed S] [--workers N | --dask ADDRESS] --out DIR
    clustersched reproduce scrap [--scale small|full] [--seed S] [--workers N | --dask ADDRESS] --out DIR
    clustersched reproduce qlse [--scale small|full] [--seed S] [--bandwidth shared|dedicated|both]
                                [--no-readings] [--workers N | --dask ADDRESS] --out DIR
    clustersched reproduce dfrs [--scale small|medium|full] [--traces DIR] [--workers N | --dask ADDRESS] --out DIR

:func:`add_parser` adds ``reproduce`` to the ``clustersched`` parser; the
experiments themselves (and the campaign runner they use) are imported when a
paper's command runs.

Every paper's command ends the same way: status 0 when every scenario ran,
1 when some ended in an error (their number on stderr; they are stored with
their error, and the same command retries them), 130 when interrupted
(the workers stopped, what finished stored), 2 for bad options (see
:func:`clustersched.cli.main`).
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Any

from .._cli import LazyChoices, campaign_status, check_out_folder, dask_address, integer
from ..errors import InvalidOptionError

__all__ = ["add_parser"]


def add_parser(subparsers: Any) -> None:
    """Adds ``reproduce`` (and one sub-command per paper) to ``subparsers``; the handler is ``args.run``."""
    rep = subparsers.add_parser(
        "reproduce",
        help="reproduce a paper's experiment",
        description="Rerun a paper's experiment: its tables and its figures.",
    )
    papers = rep.add_subparsers(required=True, metavar="PAPER")

    dpsa = papers.add_parser(
        "dpsa",
        help="DPSA vs EASY on SWF traces (Grudenic & Bogunovic, Fig. 3-4)",
        description="EASY and DPSA-p/n/w on every SWF trace of a folder: summary.csv, fig3.png, fig4.png "
        "(see docs/reproduce-dpsa.md).",
    )
    dpsa.add_argument(
        "--traces",
        metavar="DIR",
        help="folder of .swf / .swf.gz traces (default: $CLUSTERSCHED_TRACES, else shared/data/swf "
        "or ../shared/data/swf from the working directory, else the one trace bundled with "
        "the package)",
    )
    dpsa.add_argument(
        "--scale",
        choices=LazyChoices("clustersched.reproduce.dpsa", "SCALES"),
        default="full",
        metavar="SCALE",
        help="%(choices)s: small runs the first 3000 jobs of each trace, full whole traces (default: %(default)s)",
    )
    dpsa.add_argument(
        "--estimates",
        choices=LazyChoices("clustersched.batch.simulator", "ESTIMATES"),
        default="requested",
        metavar="KIND",
        help="run times the policies believe: %(choices)s (default: %(default)s)",
    )
    dpsa.add_argument(
        "--procs",
        type=_trace_size,
        action="append",
        metavar="NAME=N",
        help="machine size of trace NAME (as summary.csv names it, e.g. METACENTRUM-2009-2, or its "
        "file name), over its header's; repeat for several traces (default: each header's "
        "MaxProcs, else MaxNodes; a trace with neither is skipped, with a note)",
    )
    _add_run_options(dpsa, "summary.csv, fig3.png, fig4.png")
    dpsa.set_defaults(run=dpsa_command)

    ptg = papers.add_parser(
        "ptg",
        help="multi-PTG scheduling algorithms (Casanova, Desprez & Suter, RR-7224, §5)",
        description="Every multi-PTG algorithm on the 1,500 scenarios of RR-7224 §5.1: results.csv, Figs. 2-8, "
        "Table 2 and the scheduling times (see docs/reproduce-ptg.md).",
    )
    ptg.add_argument(
        "--scale",
        choices=LazyChoices("clustersched.reproduce.ptg", "SCALES"),
        default="full",
        metavar="SCALE",
        help="%(choices)s: small runs one set of 2 and of 4 PTGs per population and cluster "
        "(24 scenarios), full the paper's 1,500 (default: %(default)s)",
    )
    ptg.add_argument(
        "--seed",
        type=integer(0),
        default=0,
        metavar="S",
        help="draws the PTG populations, the sets and the algorithms' tie-breaks (default: %(default)s)",
    )
    _add_run_options(ptg, "results.csv, the figures, the tables")
    ptg.set_defaults(run=ptg_command)

    scrap = papers.add_parser(
        "scrap",
        help="self-constrained PTG allocation on multi-cluster platforms (N'takpé & Suter, PDCS 2007, §4)",
        description="SCRAP, SCRAP-MAX, MHEFT-MAX (beta = 0.1 .. 1) and HCPA on 200 platforms x 1,296 random PTGs: "
        "results.csv, Figs. 1-4, summary.csv and report.md (see docs/reproduce-scrap.md).",
    )
    scrap.add_argument(
        "--scale",
        choices=LazyChoices("clustersched.reproduce.scrap", "SCALES"),
        default="full",
        metavar="SCALE",
        help="%(choices)s: small runs 8 platforms x 24 PTGs of 10 and 20 tasks (seconds), full the "
        "paper's 200 x 1,296 (11 min with two workers; resumable) "
        "(default: %(default)s)",
    )
    scrap.add_argument(
        "--seed",
        type=integer(0),
        default=0,
        metavar="S",
        help="draws the platforms and the PTGs (default: %(default)s)",
    )
    _add_run_options(scrap, "results.csv, the figures, the tables")
    scrap.set_defaults(run=scrap_command)
    qlse = papers.add_parser(
        "qlse",
        help="QLSE vs greedy best fit on grids of LANs (Baraglia et al., §5, Figs. 3-5)",
        description="QLSE and the greedy best-fit baseline on the 21,870 test cases of §5 (2,187 combinations of "
        "Tables 1-2 x 10): results.csv, Figs. 3-5, summary.csv, readings.csv, report.md "
        "(see docs/reproduce-qlse.md).",
    )
    qlse.add_argument(
        "--scale",
        choices=LazyChoices("clustersched.reproduce.qlse", "SCALES"),
        default="full",
        metavar="SCALE",
        help="%(choices)s: small runs 9 combinations x 2 cases, full the paper's 2,187 x 10 (default: %(default)s)",
    )
    qlse.add_argument(
        "--seed", type=integer(0), default=0, metavar="S", help="draws every TIG and grid (default: %(default)s)"
    )
    qlse.add_argument(
        "--bandwidth",
        choices=("shared", "dedicated", "both"),
        default="both",
        metavar="MODEL",
        help="bandwidth model, %(choices)s: shared is §4.4 as written, dedicated checks each "
        "communication on its own (default: %(default)s)",
    )
    qlse.add_argument(
        "--no-readings",
        action="store_true",
        help="skip the named readings of the paper (readings.csv and the report's section keep no rows) "
        "(default: they run)",
    )
    _add_run_options(qlse, "results.csv, the figures, summary.csv, readings.csv, report.md")
    qlse.set_defaults(run=qlse_command)
    dfrs = papers.add_parser(
        "dfrs",
        help="DFRS vs batch scheduling (Casanova, Stillwell & Vivien, RR-7659, §6)",
        description="FCFS, EASY and the DFRS algorithms on the HPC2N weeks and the synthetic traces: table2.csv, "
        "table3.csv, table4.csv, Figs. 1, 3, 4 and report.md (see docs/reproduce-dfrs.md).",
    )
    dfrs.add_argument(
        "--scale",
        choices=LazyChoices("clustersched.reproduce.dfrs", "SCALES"),
        default="full",
        metavar="SCALE",
        help="%(choices)s: small takes seconds (CI), medium a subset of the paper's traces, full the "
        "paper's 182 weeks, 100 unscaled and 900 scaled traces (default: %(default)s)",
    )
    dfrs.add_argument(
        "--traces",
        metavar="DIR",
        help="folder holding HPC2N-2002-2.2-cln.swf.gz (default: as reproduce dpsa; without it the "
        "bundled week stands for the real traces)",
    )
    dfrs.add_argument(
        "--algorithms",
        type=_dfrs_algorithms,
        metavar="A1,A2,...",
        help="run only these algorithms, comma-separated names as clustersched dfrs --algorithm takes "
        "them, e.g. FCFS,EASY,EASY-arrival for the batch baselines and EASY's readings alone "
        "(default: all of the study's)",
    )
    _add_run_options(dfrs, "the tables, figures, report.md")
    dfrs.set_defaults(run=dfrs_command)


def _add_run_options(parser: argparse.ArgumentParser, files: str) -> None:
    """The options every paper's campaign takes: where it runs, ``--out DIR`` (for ``files`` and the
    store) and ``--no-progress``."""
    where = parser.add_mutually_exclusive_group()
    where.add_argument("--workers", type=integer(1), metavar="N", help="local worker processes (default: one per core)")
    where.add_argument(
        "--dask",
        type=dask_address,
        metavar="ADDRESS",
        help="run on a Dask scheduler instead, e.g. tcp://host:8786; needs "
        'pip install "clustersched[dask]" (default: local processes)',
    )
    parser.add_argument(
        "--out",
        required=True,
        metavar="DIR",
        help=f"folder for {files} and campaign.sqlite, created if missing; rerunning with the same "
        "folder resumes (required)",
    )
    parser.add_argument("--no-progress", action="store_true", help="no progress bar (default: a progress bar)")


def dpsa_command(args: argparse.Namespace) -> int:
    """The ``reproduce dpsa`` handler: checks the folders, runs the study, prints its summary."""
    from ..campaign.study import studies
    from . import dpsa

    env = os.environ.get("CLUSTERSCHED_TRACES")
    if args.traces is not None:
        traces = _trace_folder("--traces", args.traces)
    elif env:
        traces = _trace_folder("$CLUSTERSCHED_TRACES", env)
    else:
        traces = _trace_folder("--traces (default)", os.fspath(dpsa.default_traces()))
        if dpsa.is_bundled(traces):
            print(
                "note: no trace folder found (--traces, $CLUSTERSCHED_TRACES, shared/data/swf); "
                "using the one week of HPC2N bundled with the package",
                file=sys.stderr,
            )
    out = check_out_folder("--out", args.out, ("summary.csv", "fig3.png", "fig4.png", "campaign.sqlite"))
    procs = dict(args.procs or ())
    try:
        dpsa._sizes(procs, dpsa.trace_files(traces))  # checked before anything runs
    except ValueError as exc:
        raise InvalidOptionError("--procs", ",".join(f"{k}={v}" for k, v in procs.items()), str(exc)) from None
    with studies() as runs:
        rows = dpsa.reproduce_dpsa(
            out,
            traces=traces,
            scale=args.scale,
            estimates=args.estimates,
            workers=args.workers,
            dask=args.dask,
            progress=not args.no_progress,
            procs=procs,
        )
    for r in rows:
        if r["policy"] == "easy" and r["status"] == "ok" and r["dropped"]:
            # what drop_invalid removed from the trace before every policy ran (dpsa.py, "Cleaning")
            print(
                f"note: {r['trace']}: {r['dropped']} of {r['jobs'] + r['dropped']} jobs dropped "
                f"({r['dropped_by_reason']})",
                file=sys.stderr,
            )
    print(f"{'trace':<28} {'policy':<7} {'jobs':>7} {'avg bsld':>10} {'avg wait (s)':>12} {'util':>6} {'vs EASY':>8}")
    for r in rows:
        if r["status"] == "skipped" and r["policy"] == "easy":  # one note per trace, not per policy
            print(f"note: {r['trace']}: {r['note']}", file=sys.stderr)
    for r in rows:
        if r["status"] == "skipped":
            print(f"{r['trace']:<28} {r['policy']:<7} skipped: no machine size (see the note)")
            continue
        if r["status"] != "ok":
            print(f"{r['trace']:<28} {r['policy']:<7} error: {r['error']}")
            continue
        change = f"{100 * r['change_vs_easy']:+.1f}%" if r["change_vs_easy"] is not None else ""
        print(
            f"{r['trace']:<28} {r['policy']:<7} {r['jobs']:>7} {r['avg_bounded_slowdown']:>10.2f} "
            f"{r['avg_wait']:>12.0f} {r['utilization']:>6.3f} {change:>8}"
        )
    print(f"wrote {os.path.join(args.out, 'summary.csv')}, fig3.png, fig4.png")
    return campaign_status(runs, os.path.join(args.out, "summary.csv"))


def ptg_command(args: argparse.Namespace) -> int:
    """The ``reproduce ptg`` handler: checks the folder, runs the study, prints the headline numbers."""
    from ..campaign.study import studies
    from . import ptg
    from ._common import cell

    out = check_out_folder("--out", args.out, ptg.OUTPUTS)
    missing = ptg.missing_algorithms()
    if missing:
        print(f"note: not in clustersched.ptg.ALGORITHMS yet, so not run: {', '.join(missing)}", file=sys.stderr)
    with studies() as runs:
        rows = ptg.reproduce_ptg(
            out, scale=args.scale, seed=args.seed, workers=args.workers, dask=args.dask, progress=not args.no_progress
        )
    print(
        f"{'algorithm':<18} {'runs':>5} {'med avg str':>11} {'med makespan':>12} {'med max str':>11} "
        f"{'rel makespan':>12} {'rel avg str':>11}"
    )
    for s in ptg.summary(rows):
        # relative values: blank when SELFISH did not run
        makespan, stretch = (cell(s[k], 3, none="") for k in ("relative_makespan", "relative_average_stretch"))
        print(
            f"{s['algorithm']:<18} {s['runs']:>5} {s['average_stretch_median']:>11.2f} "
            f"{s['makespan_median']:>12.1f} {s['max_stretch_median']:>11.2f} {makespan:>12} {stretch:>11}"
        )
    print(f"wrote {os.path.join(args.out, 'results.csv')}, report.md, the figures and tables")
    return campaign_status(runs, os.path.join(args.out, "results.csv"))


def scrap_command(args: argparse.Namespace) -> int:
    """The ``reproduce scrap`` handler: checks the folder, runs the study, prints the paper's findings next to ours."""
    from ..campaign.study import studies
    from . import scrap

    out = check_out_folder("--out", args.out, scrap.OUTPUTS)
    with studies() as runs:
        scrap.reproduce_scrap(
            out, scale=args.scale, seed=args.seed, workers=args.workers, dask=args.dask, progress=not args.no_progress
        )
    report = (out / "report.md").read_text()
    print(report[report.index("## The paper's findings") :].rstrip())
    print(f"wrote {os.path.join(args.out, 'results.csv')}, report.md, summary.csv and Figs. 1-4")
    return campaign_status(runs, os.path.join(args.out, "results.csv"))


def qlse_command(args: argparse.Namespace) -> int:
    """The ``reproduce qlse`` handler: checks the folder, runs the study, prints failures and ratios."""
    from ..campaign.study import studies
    from . import qlse

    out = check_out_folder("--out", args.out, qlse.OUTPUTS)
    models = ("shared", "dedicated") if args.bandwidth == "both" else (args.bandwidth,)
    with studies() as runs:
        rows = qlse.reproduce_qlse(
            out,
            scale=args.scale,
            seed=args.seed,
            bandwidths=models,
            workers=args.workers,
            dask=args.dask,
            progress=not args.no_progress,
            readings=not args.no_readings,
        )
    print(f"{'bandwidth':<10} {'algorithm':<7} {'cases':>6} {'failures':>9} {'LAN hit':>8} {'task-machine':>13}")
    for s in qlse.summary(rows):
        if s["tasks"] == "all":
            hit = "" if s["lan_hit_ratio_pct"] is None else f"{s['lan_hit_ratio_pct']:.2f}%"
            ratio = "" if s["task_machine_ratio"] is None else f"{s['task_machine_ratio']:.2f}"
            print(
                f"{s['bandwidth']:<10} {s['algorithm']:<7} {s['cases']:>6} {s['failure_pct']:>8.1f}% {hit:>8} "
                f"{ratio:>13}"
            )
    print(f"wrote {os.path.join(args.out, 'results.csv')}, report.md, summary.csv, readings.csv and the figures")
    return campaign_status(runs, os.path.join(args.out, "results.csv"))


def _dfrs_algorithms(text: str) -> list[str]:
    """``reproduce dfrs --algorithms``: comma-separated DFRS algorithm or baseline names, at least one."""
    names = [name.strip() for name in text.split(",") if name.strip()]
    if not names:
        raise argparse.ArgumentTypeError(f"invalid value {text!r}: name at least one algorithm")
    from .dfrs import canonical_names

    try:
        canonical_names(names)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(f"invalid value {text!r}: {exc}") from None
    return names


def dfrs_command(args: argparse.Namespace) -> int:
    """The ``reproduce dfrs`` handler: checks the folders, runs the study, prints Table 2 and the headline."""
    from ..campaign.study import studies
    from . import dfrs

    if args.traces is not None:
        if not Path(args.traces).is_dir():
            raise InvalidOptionError("--traces", args.traces, "no such folder")
        dfrs.hpc2n_path(args.traces)  # a folder asked for by name must hold the trace (InvalidOptionError)
    out = check_out_folder("--out", args.out, dfrs.OUTPUTS)
    if args.scale == "small" and args.traces is not None:
        print("note: --scale small runs on the bundled HPC2N week; --traces is for medium and full", file=sys.stderr)
    elif args.scale != "small" and dfrs.hpc2n_path(args.traces) == "bundled":
        print(f"note: {dfrs.HPC2N_FILE} not found; the bundled HPC2N week stands for the real traces", file=sys.stderr)
    with studies() as runs:
        table2 = dfrs.reproduce_dfrs(
            out,
            scale=args.scale,
            traces=args.traces,
            workers=args.workers,
            dask=args.dask,
            progress=not args.no_progress,
            algorithms=args.algorithms,
        )
    print(f"{'trace set':<9} {'algorithm':<34} {'avg':>10} {'std':>10} {'max':>10}")
    for r in table2:
        print(
            f"{r['trace_set']:<9} {r['algorithm']:<34} {r['degradation_avg']:>10.2f} {r['degradation_std']:>10.2f} "
            f"{r['degradation_max']:>10.2f}"
        )
    for check, trace_set, holds, numbers in dfrs.headline(table2):
        print(f"{'holds' if holds else 'FAILS'}: {check} ({trace_set}: {numbers})")
    print(f"wrote {os.path.join(args.out, 'table2.csv')}, table3.csv, table4.csv, the figures and report.md")
    return campaign_status(runs, os.path.join(args.out, "results.csv"))


def _trace_size(text: str) -> tuple[str, int]:
    """``--procs NAME=N`` as ``(NAME, N)``: an argparse ``type=`` (a bad value exits 2 naming the option)."""
    from .._checks import MAX_PROCS

    name, sep, count = text.rpartition("=")
    if not sep or not name:
        raise argparse.ArgumentTypeError(f"{text!r} is not NAME=N (a trace name, '=', its processor count)")
    try:
        size = int(count)
    except ValueError:
        size = 0
    if not 1 <= size <= MAX_PROCS or not count.strip().isdigit():
        raise argparse.ArgumentTypeError(f"{text!r}: N == {count!r}, must be an integer in 1..{MAX_PROCS}")
    return name, size


def _trace_folder(option: str, value: str) -> Path:
    """``value`` as a folder holding at least one trace, else InvalidOptionError naming ``option``."""
    from .dpsa import trace_files

    folder = Path(value)
    if not folder.exists():
        raise InvalidOptionError(option, value, "no such folder")
    if not folder.is_dir():
        raise InvalidOptionError(option, value, "is a file; give the folder that holds the traces")
    try:
        trace_files(folder)
    except FileNotFoundError:
        raise InvalidOptionError(option, value, "holds no .swf or .swf.gz trace") from None
    except OSError as exc:
        raise InvalidOptionError(option, value, f"cannot be read ({exc.strerror or exc})") from None
    return folder
