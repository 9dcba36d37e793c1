"""The problem contract: what the five problems (batch, ptg, scrap, dfrs, grid) share, stated once.

``tests/test_common.py`` checks every rule below on every problem (scikit-learn's
``check_estimator`` is the model); a new problem joins by passing it.

**Entry point.** Each problem package has ::

    run(workload, platform, algorithm, *, seed=None, validate=None, **options) -> <Problem>Run

the inputs positional and in that order (what is scheduled, where, by what),
then only keyword-only options: ``seed`` (:data:`Seed`: an int ``>= 0``, a
``numpy.random.Generator``, or None for the problem's fixed default, so that
the same call gives the same schedule; a problem whose algorithms make no
random choice checks it and has no use for it), ``validate`` (:func:`validate_default`)
and the problem's own options (``beta``, ``bandwidth``, ``penalty``, ...).
The calls users know stay beside it: ``clustersched.simulate(jobs, policy, *,
procs=...)`` and ``dfrs.simulate(jobs, platform, algorithm, *, ...)``.

**Registry.** Each problem's ``ALGORITHMS`` is a :class:`Registry`: a
read-only ``Mapping[str, Algorithm]`` in the paper's order, whose every
lookup (``ALGORITHMS[name]``, ``name in ALGORITHMS``, ``.get``) follows
:func:`clustersched._checks.lookup` (exact name, else ignoring case with ``-``
and ``_`` alike); an unknown name raises :class:`UnknownNameError`, both a
``KeyError`` and a ``ValueError``, listing the names.

**Result.** ``run`` returns a frozen dataclass ``<Problem>Run`` (:class:`Run`):
``algorithm`` (the canonical name), ``schedule`` (the problem's output),
``metrics``, ``seconds`` (the algorithm's wall-clock time alone), ``summary()``
(a flat dict whose first key is ``algorithm`` and last ``seconds``) and
``to_pandas()`` (that dict as a one-row DataFrame).

**Empty input.** A workload with nothing to schedule raises
:class:`~clustersched.errors.InvalidWorkloadError`.

**Imports.** A problem folder imports no other problem folder, except the pairs
of :data:`ALLOWED_IMPORTS` (Python and Rust alike); a module imports nothing from
a layer above its own (:data:`LAYERS`), except the pairs of
:data:`ALLOWED_UPWARD`; and no module imports another's private (``_name``)
function, class or constant (private *modules* such as ``_checks`` are the
package's shared helpers).  ``tests/test_common.py`` enforces all three.
"""

from __future__ import annotations

import numbers
import os
from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING, Any, Generic, Protocol, TypeVar, Union

if TYPE_CHECKING:
    import numpy as np

# numpy and _checks (which needs numpy) are imported inside the functions: the command line reads the
# registries (dfrs's) without numpy (tests/test_cli.py).

__all__ = [
    "ALLOWED_IMPORTS",
    "ALLOWED_UPWARD",
    "LAYERS",
    "PROBLEMS",
    "VALIDATE_ENV",
    "Registry",
    "Run",
    "Seed",
    "UnknownNameError",
    "check_seed",
    "validate_default",
]

#: The five problems, each a package ``clustersched.<problem>`` with ``run``, ``ALGORITHMS`` and its run type.
PROBLEMS = ("batch", "ptg", "scrap", "dfrs", "grid")

#: The only imports from one problem folder into another (importer, imported), in Python and in the Rust core:
#: SCRAP allocates with PTG's HCPA loop on PTG's graphs; DFRS's batch baselines (FCFS, EASY) run the batch simulator.
ALLOWED_IMPORTS = frozenset({("scrap", "ptg"), ("dfrs", "batch")})

#: The layers of the package, lowest first: a module may import from its own layer and those below.  A module
#: named ``cli`` (a folder's sub-commands) belongs to the last layer, the command line, wherever it lives; ``""``
#: is the package itself (``clustersched/__init__.py``).
LAYERS = (
    ("_core", "_checks", "_contract", "_lazy", "_output", "_pandas", "_timeseries", "_figure", "errors", "platform"),
    ("workload", "slurm"),
    PROBLEMS,
    ("validate", "plot", "campaign", "rl"),
    ("reproduce", "_cli", "cli", ""),
)

#: The only imports from a layer above (importer, imported; a name covers its submodules): a load sweep
#: (``batch.sweep``) is a campaign of batch runs, and draws its curves.
ALLOWED_UPWARD = frozenset({("batch.sweep", "campaign"), ("batch.sweep", "plot")})

#: The environment variable that turns validation on when ``validate`` is None (the test suite sets it to ``1``).
VALIDATE_ENV = "CLUSTERSCHED_VALIDATE"

#: A seed: an int ``>= 0``, a ``numpy.random.Generator``, or None for the problem's fixed default.
Seed = Union[int, "np.random.Generator", None]

T = TypeVar("T")


def validate_default(validate: object) -> bool:
    """Whether to validate: ``validate`` as given, or, when it is None, whether ``CLUSTERSCHED_VALIDATE`` is ``1``.

    Off by default, so that timings measure the algorithm; the test suite turns it on everywhere.

    Examples
    --------
    >>> validate_default(True), validate_default(False)
    (True, False)
    >>> validate_default("yes")
    Traceback (most recent call last):
    ...
    TypeError: validate == 'yes', must be a bool or None
    """
    if validate is None:
        return os.environ.get(VALIDATE_ENV) == "1"
    import numpy as np

    from ._checks import short_repr

    if not isinstance(validate, (bool, np.bool_)):
        raise TypeError(f"validate == {short_repr(validate)}, must be a bool or None")
    return bool(validate)


def check_seed(seed: object) -> Seed:
    """``seed`` if it is None, an int ``>= 0`` or a ``numpy.random.Generator``; TypeError/ValueError otherwise.

    Examples
    --------
    >>> check_seed(None), check_seed(3)
    (None, 3)
    >>> check_seed(-1)
    Traceback (most recent call last):
    ...
    ValueError: seed == -1, must be >= 0
    """
    import numpy as np

    from ._checks import check_int, short_repr

    if seed is None or isinstance(seed, np.random.Generator):
        return seed
    if isinstance(seed, bool) or not isinstance(seed, numbers.Integral):
        raise TypeError(f"seed == {short_repr(seed)}, must be an integer >= 0, a numpy.random.Generator or None")
    return check_int("seed", seed, 0)


class UnknownNameError(KeyError, ValueError):
    """A name that is no algorithm of a registry: a ``KeyError`` (a ``Mapping``'s rule) and a ``ValueError``
    (an argument's), whose message lists the names."""

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else ""


class Registry(Mapping[str, T], Generic[T]):
    """A problem's algorithms by name: a read-only mapping in the paper's order, looked up by the one name rule.

    ``kind`` names what it holds in error messages (``"algorithm"``, ``"policy"``).

    Examples
    --------
    >>> r = Registry("algorithm", {"SELFISH": 1, "SELFISH_ORDER": 2})
    >>> r["selfish-order"], "Selfish" in r, list(r), r.canonical("selfish_order")
    (2, True, ['SELFISH', 'SELFISH_ORDER'], 'SELFISH_ORDER')
    >>> r["HEFT"]
    Traceback (most recent call last):
    ...
    clustersched._contract.UnknownNameError: algorithm == 'HEFT', must be one of 'SELFISH', 'SELFISH_ORDER'
    """

    __slots__ = ("_entries", "_kind")

    def __init__(self, kind: str, entries: Mapping[str, T]) -> None:
        self._kind = kind
        self._entries = dict(entries)

    def canonical(self, name: object) -> str:
        """The canonical spelling of ``name`` (:func:`clustersched._checks.lookup`); UnknownNameError otherwise."""
        from ._checks import lookup

        try:
            return lookup(self._kind, name, self._entries)
        except ValueError as e:
            raise UnknownNameError(str(e)) from None

    def __getitem__(self, name: object) -> T:
        return self._entries[self.canonical(name)]

    def __iter__(self) -> Iterator[str]:
        return iter(self._entries)

    def __len__(self) -> int:
        return len(self._entries)

    def __repr__(self) -> str:
        return f"Registry({self._kind!r}, [{', '.join(map(repr, self._entries))}])"


class Run(Protocol):
    """What every problem's ``run`` returns (``BatchRun``, ``PTGRun``, ``ScrapRun``, ``DfrsRun``, ``GridRun``)."""

    #: The algorithm's canonical name (a key of the problem's ``ALGORITHMS``, or a Python policy's name).
    algorithm: str
    #: Wall-clock seconds of the algorithm alone (validation and metrics excluded).
    seconds: float

    @property
    def schedule(self) -> Any:
        """The problem's output (``Schedule``, ``TaskSchedule``, ``ClusterSchedule``, ``DfrsSchedule``, ``Mapping``)."""

    @property
    def metrics(self) -> Any:
        """The problem's metrics dataclass (None for a grid run that found no mapping)."""

    def summary(self) -> dict[str, Any]:
        """A flat dict: ``algorithm`` first, the metrics' summary, ``seconds`` last."""

    def to_pandas(self) -> Any:
        """:meth:`summary` as a one-row DataFrame."""
