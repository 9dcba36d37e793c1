"""``clustersched ptg``: schedule several PTGs on one cluster with one of RR-7224's algorithms.

Usage::

    clustersched ptg --algorithm SELFISH_ORDER [--n-ptgs 10] [--population random]
                     [--cluster gdx] [--seed 0] [--input ptgs.json] [--json] [--gantt out.png]

Without ``--input`` the PTGs are ``--n-ptgs`` members of the §5.1.2
population (:func:`clustersched.workload.ptg_generators.ptg_population`,
drawn with ``--seed``); with it, the PTGs of a file written by
:func:`clustersched.workload.ptg.write_ptgs` (``.json`` or ``.json.gz``).  The
seed also breaks the algorithm's ties.  Every schedule is validated.  With
``--json`` the output is one JSON object (``algorithm``, ``cluster``,
``procs``, ``ptgs``, ``seed``, ``average_stretch``, ``makespan``,
``max_stretch``, ``utilization``, ``scheduling_seconds``, and per PTG
``cmax``, ``cmax_star``, ``stretch``); otherwise a short report.

:func:`add_parser` adds the sub-command to the ``clustersched`` parser.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..platform import CLUSTERS, cluster
from ..workload.ptg import read_ptgs
from ..workload.ptg_generators import POPULATIONS, ptg_population
from .algorithms import ALGORITHMS, algorithm, run_algorithm
from .schedule import TaskSchedule

__all__ = ["add_parser", "gantt", "run"]


def add_parser(subparsers: Any) -> argparse.ArgumentParser:
    """Adds ``ptg`` to ``subparsers`` (from ``parser.add_subparsers()``); its handler is ``args.run``."""
    p = subparsers.add_parser(
        "ptg",
        help="schedule several parallel task graphs (RR-7224 algorithms)",
        description=__doc__.split("\n\n")[0],
    )
    p.add_argument("--algorithm", required=True, metavar="NAME",
                   help="one of " + ", ".join(ALGORITHMS) + " (case-insensitive)")
    p.add_argument("--n-ptgs", type=int, default=10, help="PTGs to draw (default: %(default)s)")
    p.add_argument("--population", choices=POPULATIONS, default="random",
                   help="PTG population of §5.1.2 (default: %(default)s)")
    p.add_argument("--cluster", choices=sorted(CLUSTERS), default="gdx", help="Table 1 cluster (default: %(default)s)")
    p.add_argument("--seed", type=int, default=0, help="draws the PTGs and breaks ties (default: %(default)s)")
    p.add_argument("--input", help="read the PTGs from this file (write_ptgs format) instead of drawing them")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument("--gantt", help="draw a Gantt chart to this image file (needs matplotlib)")
    p.set_defaults(run=run)
    return p


def run(args: argparse.Namespace) -> int:
    """The ``ptg`` command's handler; returns the exit status."""
    try:
        name = algorithm(args.algorithm)
    except ValueError as exc:
        raise SystemExit(f"clustersched ptg: {exc}") from None
    if args.seed < 0:
        raise SystemExit(f"clustersched ptg: --seed == {args.seed}, must be >= 0")
    c = cluster(args.cluster)
    if args.input:
        try:
            ptgs = read_ptgs(args.input)
        except OSError as exc:
            raise SystemExit(f"clustersched ptg: cannot read {args.input}: {exc.strerror or exc}") from None
        if not ptgs:
            raise SystemExit(f"clustersched ptg: {args.input} holds no PTG")
        source = {"input": os.fspath(args.input)}
    else:
        if args.n_ptgs < 1:
            raise SystemExit(f"clustersched ptg: --n-ptgs == {args.n_ptgs}, must be >= 1")
        try:
            ptgs = ptg_population(args.population, args.n_ptgs, seed=args.seed)
        except ValueError as exc:
            raise SystemExit(f"clustersched ptg: {exc}") from None
        source = {"population": args.population}
    canonical = next(k for k, v in ALGORITHMS.items() if v is name)
    result = run_algorithm(canonical, ptgs, c, args.seed)
    m = result.metrics
    report = {
        "algorithm": canonical,
        "cluster": c.name,
        "procs": c.procs,
        "ptgs": len(ptgs),
        **source,
        "seed": args.seed,
        "average_stretch": m.average_stretch,
        "makespan": m.makespan,
        "max_stretch": m.max_stretch,
        "utilization": m.utilization,
        "scheduling_seconds": result.scheduling_seconds,
        "cmax": m.cmax.tolist(),
        "cmax_star": m.cmax_star.tolist(),
        "stretch": m.stretch.tolist(),
    }
    if args.json:
        print(json.dumps(report))
    else:
        where = source.get("input") or f"{len(ptgs)} {args.population} PTGs (seed {args.seed})"
        print(f"{canonical} on {c.name} ({c.procs} processors): {where}")
        for key in ("average_stretch", "max_stretch", "makespan", "utilization", "scheduling_seconds"):
            print(f"  {key:20s} {report[key]:.6g}")
        for i, (p, cm, st) in enumerate(zip(ptgs, m.cmax, m.stretch)):
            print(f"  PTG {i:3d} {p.name or '':28s} C_max {cm:12.2f}  stretch {st:8.3f}")
    if args.gantt:
        gantt(result.schedule, args.gantt, title=f"{canonical} on {c.name}: {len(ptgs)} PTGs")
        print(f"wrote {args.gantt}", file=sys.stderr if args.json else sys.stdout)
    return 0


@dataclass(frozen=True)
class _GanttView:
    """What :func:`clustersched.plot.gantt` reads from a batch Schedule, for a TaskSchedule
    (start, end, job_id, total_procs, policy, proc_offsets, processors(row), processor_runs(row)).

    A "job" is a task; ``job_id`` is its PTG's index, so each PTG gets one colour.
    """

    start: np.ndarray
    end: np.ndarray
    job_id: np.ndarray
    total_procs: int
    policy: str
    proc_offsets: np.ndarray
    proc_ids: np.ndarray

    def processors(self, row: int) -> np.ndarray:
        return self.proc_ids[self.proc_offsets[row] : self.proc_offsets[row + 1]]

    def processor_runs(self, row: int) -> list[tuple[int, int]]:
        """(first id, count) of each run of consecutive processor ids of the task in ``row``."""
        ids = np.sort(self.processors(row))
        if ids.size == 0:
            return []
        breaks = np.flatnonzero(np.diff(ids) != 1) + 1
        return [(int(chunk[0]), len(chunk)) for chunk in np.split(ids, breaks)]


def gantt(schedule: TaskSchedule, path: str | os.PathLike[str] | None = None, **kwargs: Any) -> Any:
    """Gantt chart of a PTG schedule (one colour per PTG) with :func:`clustersched.plot.gantt`.

    Keyword arguments (``window``, ``ax``, ``title``) go to that function.
    Returns the matplotlib Figure.
    """
    from ..plot import gantt as draw

    view = _GanttView(
        start=schedule.start,
        end=schedule.end,
        job_id=schedule.ptg,
        total_procs=schedule.total_procs,
        policy=schedule.policy,
        proc_offsets=schedule.proc_offsets,
        proc_ids=schedule.proc_ids,
    )
    return draw(view, path, **kwargs)  # type: ignore[arg-type]
