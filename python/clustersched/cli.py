"""The ``clustersched`` command line.

``clustersched compare`` runs the built-in batch policies on a trace (by default
a bundled week of the real HPC2N trace) and prints a comparison table;
``clustersched simulate`` runs one policy and can write the per-job schedule
and a Gantt chart; ``clustersched lublin`` writes a synthetic SWF workload;
``clustersched ptg`` schedules several parallel task graphs with one of the
multi-PTG algorithms; ``clustersched qlse`` maps a task interaction graph onto
a grid of LANs with QLSE or the greedy baseline; ``clustersched reproduce PAPER`` reruns a paper's
experiment.

Each problem folder defines its own sub-commands in its ``cli.py``
(:mod:`clustersched.batch.cli`, :mod:`clustersched.ptg.cli`,
:mod:`clustersched.reproduce.cli`); this module only assembles them and turns
errors into one line on stderr and a non-zero exit status.  Building the
parser imports no library code (see :mod:`clustersched._cli`).
"""

from __future__ import annotations

import argparse
import sys
from typing import Sequence

from ._cli import sample_trace
from .errors import ClusterschedError

__all__ = ["main", "sample_trace"]


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``clustersched`` command; returns the exit status.

    Bad option values end through argparse (status 2); errors about data or
    files (:class:`~clustersched.errors.ClusterschedError`, and ``OSError``
    from a disk that fails during the run) as ``clustersched: error: ...`` on
    one line (status 2); Ctrl-C with status 130.
    """
    args = _parser().parse_args(argv)
    try:
        return int(args.run(args) or 0)
    except ClusterschedError as exc:
        print(f"clustersched: error: {exc}", file=sys.stderr)
        return 2
    except OSError as exc:
        # the options were checked before any work; this is the disk or the
        # network changing under the run (a full disk, a Dask scheduler away)
        where = f"{exc.filename}: " if exc.filename else ""
        print(f"clustersched: error: {where}{exc.strerror or exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("clustersched: interrupted", file=sys.stderr)
        return 130


def _parser() -> argparse.ArgumentParser:
    from .batch.cli import add_parser as add_batch
    from .grid.cli import add_parser as add_grid
    from .dfrs.cli import add_parser as add_dfrs
    from .ptg.cli import add_parser as add_ptg
    from .scrap.cli import add_parser as add_scrap
    from .reproduce.cli import add_parser as add_reproduce

    from . import __version__

    parser = argparse.ArgumentParser(
        prog="clustersched",
        description="Implement, simulate and compare cluster schedulers: batch policies on SWF traces, "
                    "parallel task graphs, and the experiments of the papers.",
        epilog="`clustersched COMMAND --help` describes a command and its options.",
    )
    parser.add_argument("--version", action="version", version=f"clustersched {__version__}",
                        help="print the version and exit")
    sub = parser.add_subparsers(required=True, metavar="COMMAND")
    add_batch(sub)
    add_ptg(sub)
    add_scrap(sub)
    add_grid(sub)
    add_dfrs(sub)
    add_reproduce(sub)
    return parser


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
