"""The ``clustersched`` command line.

``clustersched compare`` runs the built-in batch policies on a trace (by default
a bundled week of the real HPC2N trace) and prints a comparison table;
``clustersched simulate`` runs one policy and can write the per-job schedule
and a Gantt chart; ``clustersched ptg`` schedules several parallel task graphs
with one of the multi-PTG algorithms; ``clustersched reproduce PAPER`` reruns a paper's
experiment; ``clustersched lublin`` writes a synthetic SWF workload.
"""

from __future__ import annotations

import argparse
import sys
import time
from importlib import resources
from pathlib import Path
from typing import Sequence

from .batch import BUILTIN_POLICIES, simulate
from .batch.simulator import ESTIMATES, OVERSIZED
from .errors import ClusterschedError
from .batch.metrics import batch_metrics
from .ptg.cli import add_parser as add_ptg_parser
from .workload.jobs import JobTable
from .workload.swf import read_swf, write_swf

__all__ = ["main", "sample_trace"]

#: The bundled default workload: one week of the cleaned HPC2N-2002 trace.
SAMPLE = "hpc2n-2002-week.swf.gz"

COLUMNS = [
    ("policy", "{}"),
    ("jobs", "{:d}"),
    ("avg_wait", "{:.1f}"),
    ("avg_bounded_slowdown", "{:.2f}"),
    ("max_bounded_slowdown", "{:.1f}"),
    ("utilization", "{:.3f}"),
    ("makespan", "{:.0f}"),
    ("seconds", "{:.3f}"),
]


def sample_trace() -> Path:
    """Path of the bundled sample trace (see ``clustersched/data/README.md``)."""
    return Path(str(resources.files("clustersched") / "data" / SAMPLE))


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``clustersched`` command; returns the exit status."""
    args = _parser().parse_args(argv)
    try:
        return int(args.run(args) or 0)
    except ClusterschedError as exc:
        print(f"clustersched: error: {exc}", file=sys.stderr)
        return 2


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="clustersched", description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(required=True, metavar="COMMAND")

    def machine_options(p: argparse.ArgumentParser) -> None:
        p.add_argument("--estimates", choices=ESTIMATES, default="requested",
                       help="run time the policy believes (default: requested)")
        p.add_argument("--procs", type=int, help="processors (default: the trace's MaxProcs)")
        p.add_argument("--oversized", choices=OVERSIZED, default="error",
                       help="jobs wider than the machine (default: error)")
        p.add_argument("--no-progress", action="store_true", help="no progress bar")

    sim = sub.add_parser("simulate", help="simulate one policy on an SWF trace")
    sim.add_argument("trace", help="SWF file, plain or .gz")
    sim.add_argument("--policy", choices=BUILTIN_POLICIES, default="easy")
    machine_options(sim)
    sim.add_argument("--out", help="write one row per job (CSV: job_id,submit,start,end,procs,wait)")
    sim.add_argument("--gantt", help="draw a Gantt chart to this image file")
    sim.set_defaults(run=_simulate)

    cmp_ = sub.add_parser("compare", help="compare policies on a trace (default: a bundled HPC2N week)")
    cmp_.add_argument("trace", nargs="?", help=f"SWF file (default: the bundled {SAMPLE})")
    cmp_.add_argument("--policies", default=",".join(BUILTIN_POLICIES),
                      help="comma-separated policies (default: %(default)s)")
    machine_options(cmp_)
    cmp_.set_defaults(run=_compare)

    add_ptg_parser(sub)

    rep = sub.add_parser("reproduce", help="reproduce a paper's experiment")
    papers = rep.add_subparsers(required=True, metavar="PAPER")
    dpsa = papers.add_parser("dpsa", help="DPSA vs EASY on SWF traces (Grudenic & Bogunovic, Fig. 3-4)")
    dpsa.add_argument("--traces", help="folder of SWF traces (default: shared/data/swf)")
    dpsa.add_argument("--scale", choices=("small", "full"), default="full",
                      help="small: the first 3000 jobs of each trace; full: whole traces")
    dpsa.add_argument("--estimates", choices=ESTIMATES, default="requested")
    dpsa.add_argument("--workers", type=int, help="local worker processes (default: one per core)")
    dpsa.add_argument("--dask", metavar="ADDRESS", help="run on a Dask scheduler, e.g. tcp://host:8786")
    dpsa.add_argument("--out", required=True, help="folder for summary.csv, fig3.png, fig4.png, campaign.sqlite")
    dpsa.add_argument("--no-progress", action="store_true", help="no progress bar")
    dpsa.set_defaults(run=_reproduce_dpsa)

    gen = sub.add_parser("lublin", help="write a Lublin-Feitelson synthetic workload as SWF")
    gen.add_argument("--jobs", type=int, default=10_000)
    gen.add_argument("--procs", type=int, default=128)
    gen.add_argument("--seed", type=int, default=0)
    gen.add_argument("--out", required=True, help="SWF file to write (.gz compresses)")
    gen.set_defaults(run=_lublin)
    return parser


def _run(jobs: JobTable, policy: str, args: argparse.Namespace) -> tuple[dict[str, object], object]:
    began = time.perf_counter()
    result = simulate(jobs, policy, procs=args.procs, estimates=args.estimates, oversized=args.oversized,
                      progress=not args.no_progress and len(jobs) > 50_000)
    seconds = time.perf_counter() - began
    for d in result.dropped[:5]:
        print(f"note: job {d.job_id}: {d.reason}", file=sys.stderr)
    if len(result.dropped) > 5:
        print(f"note: ... {len(result.dropped)} jobs {args.oversized}ped in all", file=sys.stderr)
    row = {"policy": policy, **batch_metrics(result.schedule).summary(), "seconds": seconds}
    return row, result


def _print_table(rows: list[dict[str, object]], title: str) -> None:
    cells = [[fmt.format(row[name]) for name, fmt in COLUMNS] for row in rows]
    widths = [max(len(name), *(len(c[i]) for c in cells)) for i, (name, _) in enumerate(COLUMNS)]
    print(title)
    print("  ".join(name.rjust(w) for (name, _), w in zip(COLUMNS, widths)))
    for c in cells:
        print("  ".join(v.rjust(w) for v, w in zip(c, widths)))


def _simulate(args: argparse.Namespace) -> None:
    jobs = read_swf(args.trace)
    row, result = _run(jobs, args.policy, args)
    _print_table([row], f"{args.trace}: {len(result.jobs)} jobs on {result.schedule.total_procs} processors")
    if args.out:
        result.schedule.to_csv(args.out)
        print(f"wrote {args.out}")
    if args.gantt:
        from .plot import gantt

        gantt(result.schedule, args.gantt)
        print(f"wrote {args.gantt}")


def _compare(args: argparse.Namespace) -> None:
    trace = args.trace or sample_trace()
    policies = [p.strip() for p in args.policies.split(",") if p.strip()]
    unknown = sorted(set(policies) - set(BUILTIN_POLICIES))
    if unknown:
        raise SystemExit(f"clustersched compare: unknown policies {unknown}; known: {list(BUILTIN_POLICIES)}")
    jobs = read_swf(trace)
    rows = [_run(jobs, policy, args)[0] for policy in policies]
    _print_table(rows, f"{trace}: {len(jobs)} jobs, estimates={args.estimates}")


def _reproduce_dpsa(args: argparse.Namespace) -> None:
    from .reproduce.dpsa import reproduce_dpsa

    rows = reproduce_dpsa(args.out, traces=args.traces, scale=args.scale, estimates=args.estimates,
                          workers=args.workers, dask=args.dask, progress=not args.no_progress)
    print(f"{'trace':<28} {'policy':<7} {'jobs':>7} {'avg bsld':>10} {'avg wait':>10} {'util':>6} {'vs EASY':>8}")
    for r in rows:
        if r["status"] != "ok":
            print(f"{r['trace']:<28} {r['policy']:<7} error: {r['error']}")
            continue
        change = f"{100 * r['change_vs_easy']:+.1f}%" if r["change_vs_easy"] is not None else ""
        print(f"{r['trace']:<28} {r['policy']:<7} {r['jobs']:>7} {r['avg_bounded_slowdown']:>10.2f} "
              f"{r['avg_wait']:>10.0f} {r['utilization']:>6.3f} {change:>8}")
    print(f"wrote {args.out}/summary.csv, fig3.png, fig4.png")


def _lublin(args: argparse.Namespace) -> None:
    from .workload.lublin import lublin_feitelson

    jobs = lublin_feitelson(args.jobs, args.procs, seed=args.seed)
    write_swf(jobs, args.out)
    print(f"wrote {args.out}: {len(jobs)} jobs for {args.procs} processors (seed {args.seed})")


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
