"""``clustersched scrap``: one PTG on one heterogeneous multi-cluster platform (PDCS 2007).

Usage::

    clustersched scrap --algorithm SCRAP|SCRAP-MAX|HCPA|MHEFT-MAX --beta B
                       [--platform-seed S] [--clusters C] [--min-speed GFLOPS] [--heterogeneity H]
                       [--ptg-seed S] [--tasks N] [--costs linear|nlogn|matmul|mixed]
                       [--no-comms] [--json]

The platform is :func:`clustersched.platform.random_multicluster` (``--clusters``
clusters of 16-128 processors, speeds uniform in ``[min, min * H]`` GFlop/s,
half on 10 Gigabit Ethernet) drawn with ``--platform-seed``; the PTG a §4
random PTG of ``--tasks`` tasks (width 0.5, regularity 0.8, density 0.5, jumps
up to 2) drawn with ``--ptg-seed``.  The schedule is validated
(``validate=True``: :func:`clustersched.scrap.validate.validate_multicluster`).  With ``--json`` the
output is one JSON object (``algorithm``, ``beta``, ``platform`` with its
clusters, ``tasks``, ``makespan``, ``power_fraction``, ``peak_power_fraction``,
``energy``, ``beta_estimate``, ``initial_violation``, ``violation``,
``seconds``, and per task its ``cluster``, ``procs``, ``start``, ``end``).

The parser imports no library code (see :mod:`clustersched._cli`).
"""

from __future__ import annotations

import argparse
import json
from typing import Any

from .._cli import LazyChoices, integer, number

__all__ = ["add_parser", "run"]


def _spelling(name: str) -> str:
    """``name`` in the canonical spelling of the names of :data:`clustersched.scrap.ALGORITHMS`.

    Upper case with ``-`` (``scrap_max`` -> ``SCRAP-MAX``): the rule of
    :func:`clustersched._checks.lookup` for these names, without importing it
    (and numpy) while the parser is built.
    """
    return name.upper().replace("_", "-")


#: The names ``--algorithm`` takes: clustersched.scrap.ALGORITHMS, read when a value is checked.
NAMES = LazyChoices("clustersched.scrap.algorithms", "ALGORITHMS")


def _translation(name: str) -> str:
    """``name`` in the spelling of :data:`clustersched.scrap.model.TRANSLATIONS` (lower case with ``-``)."""
    return name.lower().replace("_", "-")


#: The readings ``--translation`` takes: clustersched.scrap.model.TRANSLATIONS, read when a value is checked.
TRANSLATIONS = LazyChoices("clustersched.scrap.model", "TRANSLATIONS")
#: Its default, clustersched.scrap.model.DEFAULT_TRANSLATION (a test checks they agree; the parser imports no
#: library code).
DEFAULT_TRANSLATION = "closest"


def add_parser(subparsers: Any) -> argparse.ArgumentParser:
    """Adds ``scrap`` to ``subparsers``; its handler is ``args.run``."""
    p = subparsers.add_parser(
        "scrap",
        help="one PTG on a heterogeneous multi-cluster platform under a power constraint (SCRAP, PDCS 2007)",
        description="Allocate and place one random PTG on a random heterogeneous multi-cluster platform with "
        "SCRAP, SCRAP-MAX, HCPA or MHEFT-MAX under the power-ratio constraint beta.",
    )
    p.add_argument(
        "--algorithm",
        required=True,
        type=_spelling,
        choices=NAMES,
        metavar="NAME",
        help="%(choices)s, case-insensitive, - and _ alike (required)",
    )
    p.add_argument(
        "--beta",
        required=True,
        type=number(0, exclusive=True, maximum=1),
        metavar="B",
        help="share of the platform's processing power the PTG may use, in (0, 1] (required; "
        "MHEFT-MAX: the largest share of a cluster one task may take; HCPA ignores it)",
    )
    p.add_argument(
        "--platform-seed", type=integer(0), default=0, metavar="S", help="draws the platform (default: %(default)s)"
    )
    p.add_argument("--clusters", type=integer(1, 64), default=4, metavar="C", help="clusters (default: %(default)s)")
    p.add_argument(
        "--min-speed",
        type=number(0, exclusive=True, maximum=1e6),
        default=0.5,
        metavar="GFLOPS",
        help="slowest possible processor speed, GFlop/s, in (0, 1e6] (default: %(default)s)",
    )
    p.add_argument(
        "--heterogeneity",
        type=number(1, maximum=100),
        default=2.0,
        metavar="H",
        help="fastest / slowest possible speed, in [1, 100]: with --clusters up to 64 of at most 128 "
        "processors the reference cluster stays within clustersched.scrap.MAX_REF_PROCS "
        "(default: %(default)s)",
    )
    p.add_argument("--ptg-seed", type=integer(0), default=0, metavar="S", help="draws the PTG (default: %(default)s)")
    p.add_argument(
        "--tasks",
        type=integer(1, 10_000),
        default=20,
        metavar="N",
        help="tasks of the PTG; (tasks + edges) x reference processors must stay within "
        "clustersched.scrap.MAX_SIZE = 2**26, else an error says so (default: %(default)s)",
    )
    p.add_argument(
        "--costs",
        choices=("linear", "nlogn", "matmul", "mixed"),
        default="mixed",
        metavar="KIND",
        help="task complexity scenario: %(choices)s (default: %(default)s)",
    )
    p.add_argument(
        "--translation",
        type=_translation,
        choices=TRANSLATIONS,
        default=DEFAULT_TRANSLATION,
        metavar="RULE",
        help="how a reference allocation translates to a cluster (PDCS 2007 §3's f): %(choices)s, "
        "case-insensitive, - and _ alike; MHEFT-MAX does not translate (default: %(default)s)",
    )
    p.add_argument(
        "--no-comms",
        action="store_true",
        help="free communications between tasks (default: the network model of the platform)",
    )
    p.add_argument("--json", action="store_true", help="print one JSON object (default: a short report)")
    p.set_defaults(run=run)
    return p


def run(args: argparse.Namespace) -> int:
    """The ``scrap`` command's handler; returns the exit status."""
    from ..platform import random_multicluster
    from ..workload.ptg_generators import random_ptg
    from .algorithms import run as run_scrap

    platform = random_multicluster(args.clusters, args.min_speed, args.heterogeneity, seed=args.platform_seed)
    ptg = random_ptg(args.tasks, fat=0.5, regularity=0.8, density=0.5, jump=2, seed=args.ptg_seed, costs=args.costs)
    result = run_scrap(
        ptg,
        platform,
        args.algorithm,
        beta=args.beta,
        comms=not args.no_comms,
        translation=args.translation,
        validate=True,
    )
    m = result.metrics
    s = result.schedule
    report = {
        "algorithm": result.algorithm,
        "beta": result.beta,
        "translation": None if s.translation is None else s.translation,
        "platform": {
            "name": platform.name,
            "clusters": [{"procs": c.procs, "gflops": c.speed / 1e9} for c in platform.clusters],
            "ref_procs": platform.ref_procs,
            "network": platform.network is not None and not args.no_comms,
        },
        "tasks": ptg.num_real_tasks,
        "makespan": m.makespan,
        "power_fraction": m.power_fraction,
        "peak_power_fraction": m.peak_power_fraction,
        "energy": m.energy,
        "beta_estimate": result.beta_estimate,
        "initial_violation": result.initial_violation,
        "violation": m.power_fraction > result.beta * (1 + 1e-9),
        "seconds": result.seconds,
        "schedule": [
            {"task": v, "cluster": k, "procs": len(ids), "start": st, "end": en} for v, k, st, en, ids in s.rows()
        ],
    }
    if args.json:
        print(json.dumps(report))
        return 0
    clusters = ", ".join(f"{c.procs}x{c.speed / 1e9:.2f}" for c in platform.clusters)
    print(
        f"{result.algorithm} beta={result.beta:g} on {platform.name} ({clusters} GFlop/s; reference cluster "
        f"{platform.ref_procs} processors): a {ptg.num_real_tasks}-task PTG (seed {args.ptg_seed})"
    )
    for key in ("makespan", "power_fraction", "peak_power_fraction", "energy", "beta_estimate", "seconds"):
        value = report[key]
        print(f"  {key:20s} {'-' if value is None else format(value, '.6g')}")
    if result.initial_violation:
        print("  the initial allocation already exceeds beta: no task grew")
    print(f"  {'violation':20s} {report['violation']}")
    return 0
