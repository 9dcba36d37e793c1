"""The ``clustersched`` command line.

``clustersched compare`` runs the built-in batch policies on a trace (by default
a bundled week of the real HPC2N trace) and prints a comparison table;
``clustersched simulate`` runs one policy and can write the per-job schedule
and a Gantt chart; ``clustersched cut`` writes a time window of a trace as
a trace of its own; ``clustersched lublin`` writes a synthetic SWF workload;
``clustersched ptg`` schedules several parallel task graphs with one of the
multi-PTG algorithms; ``clustersched qlse`` maps a task interaction graph onto
a grid of LANs with QLSE or the greedy baseline; ``clustersched convert`` writes a Slurm
accounting dump as an SWF trace; ``clustersched reproduce PAPER`` reruns a paper's experiment.

Each problem folder defines its own sub-commands in its ``cli.py``
(:mod:`clustersched.batch.cli`, :mod:`clustersched.ptg.cli`,
:mod:`clustersched.slurm.cli`, :mod:`clustersched.reproduce.cli`); this module only assembles them and turns
errors into one line on stderr and a non-zero exit status.  Building the
parser imports no library code (see :mod:`clustersched._cli`).
"""

from __future__ import annotations

import argparse
import contextlib
import os
import signal
import sys
import threading
from collections.abc import Iterator
from typing import Any, NoReturn, Sequence

from ._cli import cli_spelling
from .errors import ClusterschedError
from .workload.samples import sample_trace

__all__ = ["EXIT_CLOSED_STDOUT", "EXIT_FAILED", "EXIT_INTERRUPTED", "EXIT_USAGE", "main", "sample_trace"]

#: Bad input: a bad option value, an unusable file, bad data, a typed library error.
EXIT_USAGE = 2
#: The run finished, but some of its scenarios ended in an error (``qlse``: no valid mapping found).
EXIT_FAILED = 1
#: SIGINT (Ctrl-C) or SIGTERM: workers stopped, what finished is stored.
EXIT_INTERRUPTED = 130
#: Standard output was closed by its reader (``| head``): 128 + SIGPIPE, as a shell reports ``yes | head -1``.
EXIT_CLOSED_STDOUT = 128 + 13


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``clustersched`` command; returns the exit status.

    The command-line contract (README, "Command line"), kept for every
    sub-command here and nowhere else:

    - bad input (an option value argparse refuses, an unusable file, bad data,
      a :class:`~clustersched.errors.ClusterschedError` or a ``ValueError``
      raised by the library's argument checks, an ``OSError`` of the disk or
      the network) prints exactly one line ``clustersched: error: ...`` on
      stderr and exits with status 2 (argparse's own errors raise
      ``SystemExit(2)`` after that line, as argparse does);
    - a run whose scenarios ended in an error returns 1 (its handler prints
      how many);
    - a closed standard output (``clustersched compare | head -1``) ends
      quietly with status 141 (128 + SIGPIPE);
    - SIGINT (Ctrl-C) and SIGTERM stop the run (a campaign stops its workers
      and keeps what finished), print one line and return 130.
    """
    try:
        with _sigterm_interrupts():
            try:
                return _run(argv)
            finally:
                # inside the guard: output still buffered for a closed pipe fails here, not at exit
                _flush_stdout()
    except BrokenPipeError:
        return _closed_stdout()


def _run(argv: Sequence[str] | None) -> int:
    """Parses ``argv`` and runs its handler; every error that is the user's becomes one line and a status."""
    try:
        args = _parser().parse_args(argv)
        return int(args.run(args) or 0)
    except BrokenPipeError:
        raise
    except KeyboardInterrupt as exc:
        # str(exc): what a campaign kept (campaign.study.run_study), else nothing
        why = "interrupted by SIGTERM" if _by_sigterm(exc) else "interrupted"
        _say(f"clustersched: {why}" + (f": {exc}" if str(exc) else ""))
        return EXIT_INTERRUPTED
    except SystemExit as exc:
        # a handler's SystemExit("message") is an error message, like every other one
        if isinstance(exc.code, str):
            message = exc.code
            if message.startswith("clustersched") and ": " in message:
                message = message.split(": ", 1)[1]
            return _error(message)
        raise
    except (ClusterschedError, ValueError) as exc:
        # ValueError: the library's argument checks ("speed == inf, must be finite"), given the options' values;
        # a remedy the library spells in Python (oversized='clip') is spelled as an option (--oversized clip)
        return _error(cli_spelling(str(exc)))
    except OSError as exc:
        # the options were checked before any work; this is the disk or the
        # network changing under the run (a full disk, a Dask scheduler away)
        where = f"{exc.filename}: " if exc.filename else ""
        return _error(f"{where}{exc.strerror or exc}")
    except Exception as exc:
        from concurrent.futures import BrokenExecutor  # imported already if that is what exc is

        if not isinstance(exc, BrokenExecutor):
            raise  # a bug: its traceback is what a report needs
        # a worker process died (killed, out of memory): the run failed, the input was not at fault
        _say(f"clustersched: a worker process ended abruptly: {exc}")
        return EXIT_FAILED


def _error(message: str) -> int:
    """Prints ``clustersched: error: message`` on one line (the lines of a longer message joined by "; ")."""
    text = ""
    for line in filter(None, (line.strip() for line in message.splitlines())):
        text += ("" if not text else " " if text.endswith(":") else "; ") + line
    _say(f"clustersched: error: {text}")
    return EXIT_USAGE


def _say(line: str) -> None:
    """One line on stderr, unless stderr is gone too."""
    with contextlib.suppress(OSError, ValueError):
        print(line, file=sys.stderr, flush=True)


def _closed_stdout() -> int:
    """The reader of stdout went away: no message, no traceback, status 141.

    What is still buffered for stdout is dropped (Python would otherwise try
    to flush it at exit and print an error about it).
    """
    with contextlib.suppress(Exception):
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    return EXIT_CLOSED_STDOUT


def _flush_stdout() -> None:
    """Flushes stdout; only a closed pipe (BrokenPipeError) is an error here."""
    try:
        if sys.stdout is not None:
            sys.stdout.flush()
    except BrokenPipeError:
        raise
    except (OSError, ValueError):
        pass


def _by_sigterm(exc: BaseException | None) -> bool:
    """Whether the interrupt ``exc`` is (or was raised while handling) a SIGTERM."""
    seen = 0
    while exc is not None and seen < 20:
        if isinstance(exc, _Terminated):
            return True
        exc, seen = exc.__cause__ or exc.__context__, seen + 1
    return False


class _Terminated(KeyboardInterrupt):
    """SIGTERM, raised where the main thread is: the same clean stop as a Ctrl-C."""


def _on_sigterm(signum: int, frame: object) -> NoReturn:
    raise _Terminated()


@contextlib.contextmanager
def _sigterm_interrupts() -> Iterator[None]:
    """While the command runs, SIGTERM raises like SIGINT does (Python's default would end the process at once,
    leaving the workers of a campaign running)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGTERM, _on_sigterm)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous if previous is not None else signal.SIG_DFL)


class _Parser(argparse.ArgumentParser):
    """argparse's parser, whose errors are one line ``clustersched: error: ...`` (no usage) and status 2.

    Sub-command parsers are of the same class (``add_subparsers`` makes them so).
    """

    def error(self, message: str) -> NoReturn:
        _say(f"clustersched: error: {message} (see '{self.prog} --help')")
        raise SystemExit(EXIT_USAGE)

    def _print_message(self, message: str, file: Any = None) -> None:
        # argparse's own ignores every OSError: `clustersched --help | true` would end with 0, not 141
        if message:
            try:
                (file or sys.stderr).write(message)
            except AttributeError:  # no stream at all (pythonw)
                pass


def _parser() -> argparse.ArgumentParser:
    from . import __version__
    from .batch.cli import add_parser as add_batch
    from .dfrs.cli import add_parser as add_dfrs
    from .grid.cli import add_parser as add_grid
    from .ptg.cli import add_parser as add_ptg
    from .reproduce.cli import add_parser as add_reproduce
    from .scrap.cli import add_parser as add_scrap
    from .slurm.cli import add_parser as add_slurm

    parser = _Parser(
        prog="clustersched",
        description="Implement, simulate and compare cluster schedulers: batch policies on SWF traces, "
        "parallel task graphs, and the experiments of the papers.",
        epilog="`clustersched COMMAND --help` describes a command and its options.",
    )
    parser.add_argument(
        "--version", action="version", version=f"clustersched {__version__}", help="print the version and exit"
    )
    sub = parser.add_subparsers(required=True, metavar="COMMAND")
    add_batch(sub)
    add_ptg(sub)
    add_scrap(sub)
    add_grid(sub)
    add_dfrs(sub)
    add_slurm(sub)
    add_reproduce(sub)
    return parser


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
