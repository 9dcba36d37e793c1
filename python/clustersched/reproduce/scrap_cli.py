"""``clustersched reproduce scrap``: the SCRAP study (N'takpé & Suter, PDCS 2007, §4).

Its parser and handler, added to ``clustersched reproduce`` by
:mod:`clustersched.reproduce.cli`; the parser imports no library code.
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import Any, Callable

from .._cli import integer

__all__ = ["add_parser"]


def add_parser(papers: Any, add_where: Callable[[argparse.ArgumentParser], None],
               check_out: Callable[..., Any]) -> None:
    """Adds ``scrap`` to the ``reproduce`` sub-parsers (``add_where`` / ``check_out``: reproduce.cli's helpers)."""
    p = papers.add_parser(
        "scrap", help="self-constrained PTG allocation on multi-cluster platforms (N'takpé & Suter, PDCS 2007, §4)",
        description="SCRAP, SCRAP-MAX, MHEFT-MAX (beta = 0.1 .. 1) and HCPA on 200 platforms x 1,296 random PTGs: "
                    "results.csv, Figs. 1-4, summary.csv and report.md (see docs/reproduce-scrap.md).",
    )
    p.add_argument("--scale", choices=("small", "full"), default="full", metavar="SCALE",
                   help="%(choices)s: small runs 8 platforms x 24 PTGs of 10 and 20 tasks (seconds), full the "
                        "paper's 200 x 1,296 (about an hour on 2 cores; resumable) (default: %(default)s)")
    p.add_argument("--seed", type=integer(0), default=0, metavar="S",
                   help="draws the platforms and the PTGs (default: %(default)s)")
    add_where(p)
    p.add_argument("--out", required=True, metavar="DIR",
                   help="folder for results.csv, the figures, the tables and campaign.sqlite, created if missing; "
                        "rerunning with the same folder resumes (required)")
    p.add_argument("--no-progress", action="store_true", help="no progress bar (default: a progress bar)")
    p.set_defaults(run=lambda args: command(args, check_out))


def command(args: argparse.Namespace, check_out: Callable[..., Any]) -> int:
    """Checks the folder, runs the study, prints the paper's findings next to ours."""
    from . import scrap

    out = check_out("--out", args.out, scrap.OUTPUTS)
    cols = scrap.reproduce_scrap(out, scale=args.scale, seed=args.seed, workers=args.workers, dask=args.dask,
                                 progress=not args.no_progress)
    report = (out / "report.md").read_text()
    print(report[report.index("## The paper's findings"):].rstrip())
    failed = cols["failed"]
    if failed:
        print(f"{len(failed)} scenarios failed: see report.md and the status column of results.csv", file=sys.stderr)
    print(f"wrote {os.path.join(args.out, 'results.csv')}, report.md, summary.csv and Figs. 1-4")
    return 1 if failed else 0
