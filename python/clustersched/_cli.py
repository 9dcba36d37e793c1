"""What every sub-command of ``clustersched`` shares: option types and file checks.

Each problem folder defines its sub-commands in its own ``cli.py`` with an
``add_parser(subparsers)`` function; :mod:`clustersched.cli` only assembles
them.  Building the parsers must stay cheap (``clustersched --help`` imports
neither numpy nor networkx), so a sub-command module imports its library code
inside its handler, and options whose valid values are defined by the library
take them from :class:`LazyChoices`.

Bad values end the same way everywhere: numbers out of range through
argparse (``clustersched simulate: error: argument --procs: ...``, status 2),
unusable files through :class:`~clustersched.errors.InvalidOptionError`
(``clustersched: error: --out 'x.csv': ...``, status 2), both on one line and
before any work is done, so that a failed run writes nothing.
"""

from __future__ import annotations

import argparse
import importlib
import math
import os
import re
import sys
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from .errors import InvalidOptionError

if TYPE_CHECKING:
    from .campaign.study import Study

__all__ = [
    "MAX_PROCS",
    "LazyChoices",
    "check_image_file",
    "check_input_file",
    "check_output_files",
    "check_output_folder",
    "cli_spelling",
    "integer",
    "library_bound",
    "report_dropped",
]


def integer(minimum: int, maximum: int | Callable[[], int] | None = None) -> Callable[[str], int]:
    """An argparse ``type=``: an integer in ``minimum..maximum`` (no upper bound if None).

    ``maximum`` may be a function, called when a value is checked (for a bound
    the library defines, see :func:`library_bound`).
    """

    def parse(text: str) -> int:
        top = maximum() if callable(maximum) else maximum
        rule = f"an integer >= {minimum}" if top is None else f"an integer in {minimum}..{top}"
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"invalid value {text!r}: must be {rule}") from None
        if value < minimum or (top is not None and value > top):
            raise argparse.ArgumentTypeError(f"invalid value {text!r}: must be {rule}")
        return value

    return parse


def number(
    minimum: float, *, exclusive: bool = False, maximum: float | None = None, unit: str = ""
) -> Callable[[str], float]:
    """An argparse ``type=``: a finite number ``>= minimum`` (``> minimum`` if ``exclusive``), at most
    ``maximum`` if given; ``unit`` ("seconds", "GB") names what it counts in the error message.

    Examples
    --------
    >>> number(0, exclusive=True, unit="seconds")("1.5")
    1.5
    >>> number(0, exclusive=True, maximum=1)("1.5")
    Traceback (most recent call last):
    argparse.ArgumentTypeError: invalid value '1.5': must be a finite number in (0, 1]
    """
    what = f"a finite number of {unit}" if unit else "a finite number"
    if maximum is None:
        rule = f"{what} {'>' if exclusive else '>='} {minimum:g}"
    else:
        rule = f"{what} in {'(' if exclusive else '['}{minimum:g}, {maximum:g}]"

    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"invalid value {text!r}: must be {rule}") from None
        low_ok = value > minimum if exclusive else value >= minimum
        if not (math.isfinite(value) and low_ok and (maximum is None or value <= maximum)):
            raise argparse.ArgumentTypeError(f"invalid value {text!r}: must be {rule}")
        return value

    return parse


def library_bound(module: str, attribute: str) -> Callable[[], int]:
    """A ``maximum`` for :func:`integer`: the library's own limit ``module.attribute``, read when checking."""

    def bound() -> int:
        return int(getattr(importlib.import_module(module), attribute))

    return bound


#: The most processors a machine may have (the Rust core counts them in ``u32``).
MAX_PROCS = library_bound("clustersched._checks", "MAX_PROCS")


class LazyChoices(Sequence[str]):
    """The valid values of an option, read from ``module.attribute`` when argparse first needs them.

    argparse reads ``choices`` only to check a value and to print help, so the
    library module (which imports numpy or networkx) is imported then, not when
    the parser is built.  Give the option a ``metavar`` (argparse would list
    the choices in it at once) and write ``%(choices)s`` in its help.

    Parameters
    ----------
    module, attribute : str
        Where the names are: a tuple of names or a dict keyed by them.
    normalize : callable, optional
        Maps a typed value onto a name before it is looked up (for
        case-insensitive names).
    """

    def __init__(self, module: str, attribute: str, *, normalize: Callable[[str], str] | None = None) -> None:
        self._where = (module, attribute)
        self._normalize = normalize
        self._names: tuple[str, ...] | None = None

    def _load(self) -> tuple[str, ...]:
        if self._names is None:
            module, attribute = self._where
            self._names = tuple(getattr(importlib.import_module(module), attribute))
        return self._names

    def __getitem__(self, index):  # type: ignore[no-untyped-def, override]
        return self._load()[index]

    def __len__(self) -> int:
        return len(self._load())

    def __iter__(self) -> Iterator[str]:
        return iter(self._load())

    def __str__(self) -> str:
        return ", ".join(self._load())

    def __contains__(self, value: object) -> bool:
        if self._normalize is not None and isinstance(value, str):
            value = self._normalize(value)
        return value in self._load()


def report_dropped(dropped: Sequence[object], total: int, *, option: str | None = "--drop-invalid") -> None:
    """One stderr line per reason of ``dropped`` (:class:`~clustersched.workload.Dropped` records), with the
    count, out of ``total`` jobs read, in the order the reasons first occur:
    ``note: --drop-invalid: 17 of 77222 jobs dropped: non-positive runtime`` (without ``option``:
    ``note: 17 of ...``).

    These are the counts of :meth:`JobTable.drop_summary
    <clustersched.workload.JobTable.drop_summary>` for what
    :func:`~clustersched.workload.drop_invalid` removed; a job clipped to the
    machine (kept, but changed) is counted as "kept but changed".
    """
    import sys
    from collections import Counter

    from .workload.transform import CLIPPED_TO_MACHINE  # called by handlers, after the library is imported

    for reason, count in Counter(d.reason for d in dropped).items():
        what = "kept but changed" if reason == CLIPPED_TO_MACHINE else "dropped"
        print(f"note: {option + ': ' if option else ''}{count} of {total} jobs {what}: {reason}", file=sys.stderr)


def check_input_file(option: str, path: str | os.PathLike[str]) -> Path:
    """``path`` as a Path if it is a readable file, else InvalidOptionError naming ``option``."""
    p = Path(path)
    if not p.exists():
        raise InvalidOptionError(option, os.fspath(path), "no such file")
    if p.is_dir():
        raise InvalidOptionError(option, os.fspath(path), "is a folder, not a file")
    try:
        with open(p, "rb"):
            pass
    except OSError as exc:
        raise InvalidOptionError(option, os.fspath(path), f"cannot be read ({exc.strerror or exc})") from None
    return p


def check_output_files(outputs: dict[str, str | os.PathLike[str] | None], inputs: Sequence[Path] = ()) -> None:
    """Checks, before any work, that each output file (option -> path) can be written.

    Its folder must exist, it must not be a folder itself, nor one of
    ``inputs`` (which it would overwrite), nor the output of another option;
    and opening it for writing must succeed (tried without changing an
    existing file; a file created for the trial is removed).
    """
    seen: dict[Path, str] = {}
    for option, path in outputs.items():
        if path is None:
            continue
        value = os.fspath(path)
        p = Path(path)
        if value == "" or p.name in ("", ".", ".."):
            raise InvalidOptionError(option, value, "is not a file name")
        if p.is_dir():
            raise InvalidOptionError(option, value, "is a folder; give a file name")
        if not p.parent.is_dir():
            raise InvalidOptionError(option, value, f"folder {os.fspath(p.parent)!r} does not exist")
        resolved = p.resolve()
        for source in inputs:
            if resolved == source.resolve():
                raise InvalidOptionError(option, value, "is an input of this command; it would be overwritten")
        if resolved in seen:
            raise InvalidOptionError(option, value, f"is also the file of {seen[resolved]}")
        seen[resolved] = option
        _try_to_write(option, value, p)


def check_image_file(option: str, path: str | os.PathLike[str] | None) -> None:
    """InvalidOptionError unless ``path`` ends in an image format matplotlib writes (``.png``, ``.pdf``, ...)."""
    if path is None:
        return
    try:
        from matplotlib.backend_bases import FigureCanvasBase
    except ImportError as exc:  # a dependency, so only in a broken environment
        raise InvalidOptionError(
            option, os.fspath(path), f"drawing needs matplotlib, which fails to import ({exc})"
        ) from None

    formats = FigureCanvasBase.get_supported_filetypes()
    suffix = Path(path).suffix.lower().lstrip(".")
    if suffix not in formats:
        raise InvalidOptionError(
            option, os.fspath(path), f"end the name with the image format, one of .{', .'.join(sorted(formats))}"
        )


def check_output_folder(option: str, path: str | os.PathLike[str]) -> Path:
    """``path`` as a folder that exists (it is created if missing) and can be written, else InvalidOptionError."""
    value = os.fspath(path)
    if not value.strip():
        # Path("") is ".": an empty value would write into the working directory
        raise InvalidOptionError(option, value, "is not a folder name")
    p = Path(path)
    if p.exists() and not p.is_dir():
        raise InvalidOptionError(option, value, "is a file, not a folder")
    try:
        p.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise InvalidOptionError(option, value, f"cannot be created ({exc.strerror or exc})") from None
    probe = p / ".clustersched-write-test"
    _try_to_write(option, value, probe)
    return p


def _try_to_write(option: str, value: str, path: Path) -> None:
    existed = path.exists()
    try:
        # append mode: an existing file is opened for writing but left as it is
        with open(path, "ab"):
            pass
    except OSError as exc:
        raise InvalidOptionError(option, value, f"cannot be written ({exc.strerror or exc})") from None
    if not existed:
        path.unlink()


def estimate_spec(*names: str) -> Callable[[str], str]:
    """An option's type: one of ``names`` or an estimate model of
    :func:`clustersched.workload.parse_estimate_model` (``exact``, ``f:F``, ``modal``), in its canonical
    spelling; the model module is imported only when the option is given."""

    def parse(text: str) -> str:
        if text.strip() in names:
            return text.strip()
        from .workload.estimates import ESTIMATE_MODELS, parse_estimate_model

        try:
            return str(parse_estimate_model(text))
        except ValueError:
            accepted = ", ".join(dict.fromkeys((*names, *ESTIMATE_MODELS)))
            raise argparse.ArgumentTypeError(
                f"invalid value {text!r}: must be {accepted} (F a number, 0 <= F <= 1e10)"
            ) from None

    return parse


def dask_address(text: str) -> str:
    """``--dask``: a scheduler address (:func:`clustersched.campaign.runner.check_dask_address`), checked when
    the option is given (it imports Dask, so never while the parser is built)."""
    try:
        from .campaign.runner import check_dask_address

        return check_dask_address(text)
    except ImportError:
        raise argparse.ArgumentTypeError(
            f"invalid value {text!r}: running on Dask needs Dask distributed, which is not installed: "
            'pip install "clustersched[dask]"'
        ) from None
    except ValueError as exc:
        raise argparse.ArgumentTypeError(f"invalid value {text!r}: {str(exc).split(', ', 1)[-1]}") from None


def check_out_folder(option: str, value: str, outputs: tuple[str, ...]) -> Path:
    """A campaign's output folder, checked (see :func:`check_output_folder`), none of whose output files
    may be a folder."""
    out = check_output_folder(option, value)
    for name in outputs:
        if (out / name).is_dir():
            raise InvalidOptionError(option, os.fspath(value), f"holds a folder named {name}, an output file")
    return out


def campaign_status(runs: Sequence[Study], where: str) -> int:
    """The status of a campaign's command (a reproduction, a sweep): 1, with the count on stderr, when
    scenarios ended in an error, else 0."""
    failed = sum(r.errors for r in runs)
    if not failed:
        return 0
    total = sum(r.scenarios for r in runs)
    print(
        f"clustersched: {failed} of {total} scenarios failed: see the status and error columns of {where} "
        "(the same command retries them)",
        file=sys.stderr,
    )
    return 1


#: The library's Python spellings in its error messages, and what the command line says instead (see
#: :func:`cli_spelling`): each a pattern and its replacement.
_CLI_SPELLINGS = (
    # simulate's remedy for jobs without a runtime or a processor count
    (
        re.compile(
            r"clustersched\.workload\.drop_invalid\([^()]*\) removes and counts them; on the command line, "
            r"--drop-invalid"
        ),
        "--drop-invalid removes and counts them",
    ),
    # simulate without a machine size
    (re.compile(r"\(procs=, or --procs\)"), "with --procs"),
    # simulate's remedy for jobs wider than the machine: oversized='skip' or 'clip'
    (re.compile(r"\boversized='(\w+)' or '(\w+)'"), r"--oversized \1 or --oversized \2"),
    (re.compile(r"\b(oversized|estimates)='([\w-]+)'"), r"--\1 \2"),
)


def cli_spelling(message: str) -> str:
    """``message`` (a library error's) with its Python spellings in the command line's: ``oversized='clip'``
    becomes ``--oversized clip``, ``drop_invalid(jobs, procs=4)`` ``--drop-invalid``, ``procs=`` ``--procs``.

    The library words its errors for Python callers; :func:`clustersched.cli.main` passes every error it
    prints through here, so that a command's error names its options.

    Examples
    --------
    >>> cli_spelling("job 3: needs 8 processors but the machine has 4 (1 job(s) are too wide; "
    ...              "use oversized='skip' or 'clip')")
    'job 3: needs 8 processors but the machine has 4 (1 job(s) are too wide; use --oversized skip or --oversized clip)'
    """
    for pattern, replacement in _CLI_SPELLINGS:
        message = pattern.sub(replacement, message)
    return message
