"""``clustersched qlse``: map one random TIG onto one random grid of LANs with QLSE or the greedy baseline.

Usage::

    clustersched qlse [--tasks N] [--lans L] [--hosts H] [--seed S] [--algorithm QLSE|greedy]
                      [--values small|medium|large] [--bandwidth shared|dedicated] [--random] [--json]

Draws a TIG of ``--tasks`` tasks and a grid of ``--lans`` LANs of ``--hosts``
hosts each, with MCRs, MBRs, powers and bandwidths from the ``--values`` row
of Tables 1 and 2, from ``--seed``; by default the instance is generated
feasible (a hidden valid mapping is planted, see
:func:`clustersched.grid.feasible_instance`), with ``--random`` it is drawn
as is.  Runs the algorithm, checks its mapping with
:func:`clustersched.grid.validate_mapping` and prints whether it is valid
and its §5 metrics; with ``--json`` one JSON object (``algorithm``,
``bandwidth``, ``seed``, ``tasks``, ``edges``, ``lans``, ``hosts_per_lan``,
``links``, ``planted``, ``found``, ``valid``, ``violations``, ``step``,
``attempts``, ``lans_used``, ``hosts_used``, ``lan_hit_ratio``,
``task_machine_ratio``, ``shared_task_machine_ratio``, ``seconds`` and
``mapping``, the global host of each task, or null).  The LAN hit ratio
of a TIG without communication (one task, or MBRs summing to 0) is
undefined: the report says "n/a", the JSON null.

Sizes are those the model accepts (:mod:`clustersched.grid.model`, "Limits"):
``--tasks`` at most 10,000, ``--lans`` at most 1,000, ``--hosts`` at most
100,000 and ``--lans`` x ``--hosts`` at most 100,000 hosts in all; anything
larger is refused before any work, on one line.

Exit status 0 when a valid mapping was found, 1 when the algorithm found
none (or, which would be a bug, returned an invalid one), 2 for bad options.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from typing import Any

from .._cli import integer, library_bound

__all__ = ["add_parser", "run"]

ALGORITHM_NAMES = ("QLSE", "greedy")
#: Where the size limits of ``--tasks``, ``--lans`` and ``--hosts`` are defined.
MODEL = "clustersched.grid.model"


def _algorithm(text: str) -> str:
    """The canonical name of ``--algorithm`` by the registries' rule (:func:`clustersched._checks.lookup`)."""
    from .._checks import lookup  # at parse time, not when the parser is built (it imports numpy)

    try:
        return lookup("algorithm", text, ALGORITHM_NAMES)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"invalid value {text!r}: must be one of {', '.join(ALGORITHM_NAMES)}"
        ) from None


def _percent(ratio: float) -> str:
    """A ratio as a percentage; the LAN hit ratio of a TIG without communication (its MBRs sum to 0) is
    undefined, and says why rather than "nan%"."""
    if math.isnan(ratio):
        return "n/a (the TIG has no communication)"
    return f"{100 * ratio:.2f}%"


def add_parser(subparsers: Any) -> argparse.ArgumentParser:
    """Adds ``qlse`` to ``subparsers`` (from ``parser.add_subparsers()``); its handler is ``args.run``."""
    p = subparsers.add_parser(
        "qlse",
        help="map a task interaction graph onto a grid of LANs (QLSE or greedy best fit)",
        description="Map one random TIG onto one random grid of LANs under QoS constraints (Baraglia et al.) and "
        "print whether the mapping is valid and its metrics.",
    )
    # the limits are the model's (clustersched.grid.model.MAX_*), read when a value is checked
    p.add_argument(
        "--tasks",
        type=integer(1, library_bound(MODEL, "MAX_TASKS")),
        default=32,
        metavar="N",
        help="tasks of the TIG, 1..10000 (default: %(default)s)",
    )
    p.add_argument(
        "--lans",
        type=integer(1, library_bound(MODEL, "MAX_LANS")),
        default=16,
        metavar="L",
        help="LANs of the grid, 1..1000 (default: %(default)s)",
    )
    p.add_argument(
        "--hosts",
        type=integer(1, library_bound(MODEL, "MAX_HOSTS")),
        default=16,
        metavar="H",
        help="hosts in every LAN, 1..100000, with at most 100000 hosts in all (default: %(default)s)",
    )
    p.add_argument("--seed", type=integer(0), default=0, metavar="S", help="draws the instance (default: %(default)s)")
    p.add_argument(
        "--algorithm",
        type=_algorithm,
        default="QLSE",
        metavar="NAME",
        help=f"{' or '.join(ALGORITHM_NAMES)}, case-insensitive (default: %(default)s)",
    )
    p.add_argument(
        "--values",
        choices=("small", "medium", "large"),
        default="medium",
        metavar="SIZE",
        help="row of Tables 1-2 for MCRs, MBRs, host powers and bandwidths: %(choices)s (default: %(default)s)",
    )
    p.add_argument(
        "--bandwidth",
        choices=("shared", "dedicated"),
        default="shared",
        metavar="MODEL",
        help="bandwidth model, %(choices)s: shared is §4.4 as written, dedicated checks each "
        "communication on its own (default: %(default)s)",
    )
    p.add_argument(
        "--random", action="store_true", help="draw the instance as is (default: plant a hidden valid mapping first)"
    )
    p.add_argument("--json", action="store_true", help="print one JSON object (default: a short report)")
    p.set_defaults(run=run)
    return p


def run(args: argparse.Namespace) -> int:
    """The ``qlse`` command's handler; returns the exit status."""
    from .algorithms import algorithm
    from .generators import feasible_instance, grid_ranges, random_instance, tig_ranges
    from .mapping import Mapping
    from .metrics import mapping_metrics
    from .validate import mapping_violations

    sizes = {
        "tig": tig_ranges(args.values),
        "grid": grid_ranges(args.values),
        "seed": args.seed,
        "tasks": args.tasks,
        "lans": args.lans,
        "hosts_per_lan": args.hosts,
    }
    if args.random:
        inst = random_instance(**sizes)
    else:
        inst = feasible_instance(**sizes, bandwidth=args.bandwidth)
    tig, grid = inst.tig, inst.grid
    result = algorithm(args.algorithm)(tig, grid, bandwidth=args.bandwidth)
    mapped = result if isinstance(result, Mapping) else None
    violations = mapping_violations(mapped, tig, grid) if mapped else []
    metrics = mapping_metrics(mapped, tig, grid).summary() if mapped else {}
    report: dict[str, Any] = {
        "algorithm": args.algorithm,
        "bandwidth": args.bandwidth,
        "seed": args.seed,
        "tasks": len(tig),
        "edges": tig.num_edges,
        "lans": grid.num_lans,
        "hosts_per_lan": args.hosts,
        "links": grid.num_links,
        "planted": inst.planted is not None,
        "found": result.found,
        "valid": result.found and not violations,
        "violations": violations,
        "step": mapped.step_label if mapped else None,
        "attempts": result.attempts,
        **{
            k: metrics.get(k)
            for k in ("lans_used", "hosts_used", "lan_hit_ratio", "task_machine_ratio", "shared_task_machine_ratio")
        },
        "seconds": result.seconds,
        "mapping": mapped.host.tolist() if mapped else None,
    }
    if args.json:
        # NaN is not JSON: a ratio without a denominator (no communication) is null, as without a mapping
        print(json.dumps({k: None if isinstance(v, float) and math.isnan(v) else v for k, v in report.items()}))
    else:
        kind = "feasible (hidden mapping planted)" if inst.planted is not None else "random"
        print(
            f"{args.algorithm} ({args.bandwidth} bandwidth): {len(tig)} tasks, {tig.num_edges} communications; "
            f"{grid.num_lans} LANs x {args.hosts} hosts, {grid.num_links} links; {kind} instance, seed {args.seed}"
        )
        if mapped is None:
            print(f"  no feasible mapping found ({result.attempts} tentative mapping(s))")
        else:
            print(
                f"  mapping: {'valid' if not violations else 'INVALID'}"
                + (f", found at tentative mapping {mapped.step_label}" if mapped.step is not None else "")
                + f" after {result.attempts} attempt(s)"
            )
            for v in violations:
                print(f"    {v}")
            print(f"  {'LANs used':28s} {metrics['lans_used']}")
            print(f"  {'hosts used':28s} {metrics['hosts_used']}")
            print(f"  {'LAN hit ratio':28s} {_percent(metrics['lan_hit_ratio'])}")
            print(f"  {'task-machine ratio':28s} {metrics['task_machine_ratio']:.3f}")
            print(f"  {'shared task-machine ratio':28s} {metrics['shared_task_machine_ratio']:.3f}")
        print(f"  {'seconds':28s} {result.seconds:.6f}")
    if violations:
        print(f"clustersched qlse: {args.algorithm} returned an invalid mapping (a bug)", file=sys.stderr)
    return 0 if report["valid"] else 1
