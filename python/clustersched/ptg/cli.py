"""``clustersched ptg``: schedule several PTGs on one cluster with one of RR-7224's algorithms.

Usage::

    clustersched ptg --algorithm SELFISH_ORDER [--n-ptgs 10] [--population random]
                     [--cluster gdx] [--seed 0] [--input ptgs.json] [--json] [--gantt out.png]

Without ``--input`` the PTGs are ``--n-ptgs`` members of the §5.1.2
population (:func:`clustersched.workload.ptg_generators.ptg_population`,
drawn with ``--seed``); with it, the PTGs of a file written by
:func:`clustersched.workload.ptg.write_ptgs` (``.json`` or ``.json.gz``), and
``--n-ptgs`` or ``--population`` next to it is an error (they would be
ignored).  The
seed also breaks the algorithm's ties.  Every schedule is validated.  With
``--json`` the output is one JSON object (``algorithm``, ``cluster``,
``procs``, ``ptgs``, ``seed``, ``average_stretch``, ``makespan``,
``max_stretch``, ``utilization``, ``scheduling_seconds``, and per PTG
``cmax``, ``cmax_star``, ``stretch``); otherwise a short report.

:func:`add_parser` adds the sub-command to the ``clustersched`` parser.
Library code (numpy, networkx, the algorithms) is imported by the handler, so
that building the parser stays cheap (see :mod:`clustersched._cli`).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .._cli import LazyChoices, check_image_file, check_input_file, check_output_files
from ..errors import InvalidOptionError

if TYPE_CHECKING:
    import numpy as np

    from .schedule import TaskSchedule

__all__ = ["add_parser", "gantt", "run"]

#: The algorithm names, for the help (``--algorithm`` itself is checked, case-insensitively, by the handler).
ALGORITHM_NAMES = LazyChoices("clustersched.ptg.algorithms", "ALGORITHMS")


def add_parser(subparsers: Any) -> argparse.ArgumentParser:
    """Adds ``ptg`` to ``subparsers`` (from ``parser.add_subparsers()``); its handler is ``args.run``."""
    p = subparsers.add_parser(
        "ptg",
        help="schedule several parallel task graphs (RR-7224 algorithms)",
        description="Schedule several parallel task graphs on one cluster with one of RR-7224's algorithms.",
    )
    name = p.add_argument(
        "--algorithm", required=True, metavar="NAME", help="algorithm, case-insensitive (required): %(names)s"
    )
    name.names = ALGORITHM_NAMES  # type: ignore[attr-defined]  # help strings are formatted with vars(action)
    p.add_argument("--n-ptgs", type=int, default=None, metavar="N", help="PTGs to draw, not with --input (default: 10)")
    p.add_argument(
        "--population",
        choices=LazyChoices("clustersched.workload.ptg_generators", "POPULATIONS"),
        default=None,
        metavar="NAME",
        help="PTG population of §5.1.2: %(choices)s, not with --input (default: random)",
    )
    p.add_argument(
        "--cluster",
        choices=LazyChoices("clustersched.platform", "CLUSTERS"),
        default="gdx",
        metavar="NAME",
        help="Table 1 cluster: %(choices)s (default: %(default)s)",
    )
    p.add_argument(
        "--seed", type=int, default=0, metavar="S", help="draws the PTGs and breaks ties (default: %(default)s)"
    )
    p.add_argument(
        "--input",
        metavar="FILE",
        help="read the PTGs from this file (write_ptgs format) instead of drawing them (default: draw)",
    )
    p.add_argument("--json", action="store_true", help="print one JSON object (default: a short report)")
    p.add_argument(
        "--gantt", metavar="IMAGE", help="draw a Gantt chart to this image file, .png, .pdf, .svg, ... (default: none)"
    )
    p.set_defaults(run=run)
    return p


def run(args: argparse.Namespace) -> int:
    """The ``ptg`` command's handler; returns the exit status."""
    from .._checks import lookup
    from ..platform import cluster
    from ..workload.ptg import read_ptgs
    from ..workload.ptg_generators import ptg_population
    from .algorithms import ALGORITHMS
    from .algorithms import run as run_ptg

    try:
        canonical = lookup("algorithm", args.algorithm, ALGORITHMS)
    except ValueError as exc:
        raise InvalidOptionError("--algorithm", args.algorithm, str(exc).split(", ", 1)[-1]) from None
    if args.seed < 0:
        raise InvalidOptionError("--seed", args.seed, "must be >= 0")
    # The PTGs come from a file or are drawn: an option of the draw next to --input would be ignored.
    for option, value in (("--n-ptgs", args.n_ptgs), ("--population", args.population)):
        if args.input and value is not None:
            raise InvalidOptionError(option, value, f"draws PTGs, --input {args.input!r} reads them: give one of them")
    args.n_ptgs = 10 if args.n_ptgs is None else args.n_ptgs
    args.population = "random" if args.population is None else args.population
    if args.input:
        check_input_file("--input", args.input)
    check_output_files({"--gantt": args.gantt}, inputs=[Path(args.input)] if args.input else [])
    check_image_file("--gantt", args.gantt)
    c = cluster(args.cluster)
    if args.input:
        try:
            ptgs = read_ptgs(args.input)
        except OSError as exc:
            raise InvalidOptionError("--input", args.input, f"cannot be read ({exc.strerror or exc})") from None
        if not ptgs:
            raise InvalidOptionError("--input", args.input, "holds no PTG")
        source = {"input": os.fspath(args.input)}
    else:
        n_ptgs = args.n_ptgs
        if n_ptgs < 1:
            raise InvalidOptionError("--n-ptgs", n_ptgs, "must be >= 1")
        try:
            ptgs = ptg_population(args.population, n_ptgs, seed=args.seed)
        except ValueError as exc:
            raise InvalidOptionError("--n-ptgs", n_ptgs, str(exc)) from None
        source = {"population": args.population}
    result = run_ptg(ptgs, c, canonical, seed=args.seed, validate=True)
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
        "scheduling_seconds": result.seconds,
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
    (start, end, job_id, total_procs, algorithm, proc_offsets, processors(row), processor_runs(row)).

    A "job" is a task; ``job_id`` is its PTG's index, so each PTG gets one colour.
    """

    start: np.ndarray
    end: np.ndarray
    job_id: np.ndarray
    total_procs: int
    algorithm: str
    proc_offsets: np.ndarray
    proc_ids: np.ndarray

    def processors(self, row: int) -> np.ndarray:
        return self.proc_ids[self.proc_offsets[row] : self.proc_offsets[row + 1]]

    def processor_runs(self, row: int) -> list[tuple[int, int]]:
        """(first id, count) of each run of consecutive processor ids of the task in ``row``."""
        import numpy as np

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
        algorithm=schedule.algorithm,
        proc_offsets=schedule.proc_offsets,
        proc_ids=schedule.proc_ids,
    )
    return draw(view, path, **kwargs)  # type: ignore[arg-type]
