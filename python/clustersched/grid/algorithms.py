"""The mapping algorithms by name, and one validated, measured run of one of them."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable

from .._checks import lookup
from .._contract import Registry, Seed, check_seed, validate_default
from .mapping import Mapping, MappingResult
from .metrics import MappingMetrics, mapping_metrics
from .model import TIG, LanGrid
from .qlse import greedy_best_fit, qlse
from .validate import validate_mapping

if TYPE_CHECKING:
    import pandas

__all__ = ["ALGORITHMS", "GridRun", "algorithm", "run"]

#: The algorithms of the QLSE paper: QLSE (§4) and the greedy best-fit baseline (§5), a
#: :class:`~clustersched._contract.Registry`.  Each is called as ``fn(tig, grid, *, bandwidth=...)``.
ALGORITHMS: Registry[Callable[..., MappingResult]] = Registry("algorithm", {"QLSE": qlse, "greedy": greedy_best_fit})

#: The keys of :meth:`MappingMetrics.summary`, None in :meth:`GridRun.summary` when no mapping was found.
_METRIC_KEYS = tuple(MappingMetrics.__dataclass_fields__)


def algorithm(name: str) -> Callable[..., MappingResult]:
    """The algorithm called ``name``: exactly, else ignoring case with ``-`` and ``_`` alike.

    ValueError listing the names otherwise (:func:`clustersched._checks.lookup`).

    Examples
    --------
    >>> algorithm("qlse") is qlse
    True
    >>> algorithm("HEFT")
    Traceback (most recent call last):
    ...
    ValueError: algorithm == 'HEFT', must be one of 'QLSE', 'greedy'
    """
    return ALGORITHMS[lookup("algorithm", name, ALGORITHMS)]


@dataclass(frozen=True, eq=False)
class GridRun:
    """One algorithm on one instance: its mapping (or the typed failure), the mapping's metrics and the time.

    Attributes
    ----------
    algorithm : str
        The algorithm's canonical name (a key of :data:`ALGORITHMS`).
    mapping : Mapping or NoFeasibleMapping
        What the algorithm returned.
    metrics : MappingMetrics or None
        The §5 measures of the mapping; None when none was found.
    seconds : float
        Wall-clock seconds of the algorithm alone (``mapping.seconds``; validation and metrics excluded).
    """

    algorithm: str
    mapping: MappingResult
    metrics: MappingMetrics | None
    seconds: float

    @property
    def schedule(self) -> MappingResult:
        """:attr:`mapping` under the name every problem's run gives its output (:mod:`clustersched._contract`)."""
        return self.mapping

    @property
    def found(self) -> bool:
        """Whether the algorithm found a mapping."""
        return self.mapping.found

    def summary(self) -> dict[str, Any]:
        """Algorithm, found, the metrics' summary (None values when no mapping was found) and time, as a flat dict."""
        measures = self.metrics.summary() if self.metrics is not None else dict.fromkeys(_METRIC_KEYS)
        return {"algorithm": self.algorithm, "found": self.found, **measures, "seconds": self.seconds}

    def to_pandas(self) -> "pandas.DataFrame":
        """:meth:`summary` as a one-row DataFrame, names with units (``wall_s`` is ``seconds``, the algorithm's
        wall-clock time; the measures are missing values when no mapping was found).

        Concatenate runs with ``pandas.concat([r.to_pandas() for r in runs], ignore_index=True)``; the mapping's
        rows are ``run.mapping.to_pandas()``.  pandas is optional: ``pip install "clustersched[pandas]"``.
        """
        from .._pandas import summary_frame

        return summary_frame(self.summary())


def run(
    workload: TIG,
    platform: LanGrid,
    algorithm: str,
    *,
    seed: Seed = None,
    validate: bool | None = None,
    bandwidth: str = "shared",
    **options: Any,
) -> GridRun:
    """Maps the TIG ``workload`` onto ``platform`` by ``algorithm`` under the ``bandwidth`` model, optionally
    checks the mapping with :func:`validate_mapping`, and measures it (the problem contract's entry point,
    :mod:`clustersched._contract`).

    Parameters
    ----------
    workload : TIG
    platform : LanGrid
    algorithm : {"QLSE", "greedy"}
        A name of :data:`ALGORITHMS`, in any spelling :func:`algorithm` reads.
    seed : int or numpy.random.Generator, optional
        Checked, and unused: both algorithms are deterministic.
    validate : bool, optional
        Default: the ``CLUSTERSCHED_VALIDATE`` environment variable
        (:func:`clustersched._contract.validate_default`).
    bandwidth : {"shared", "dedicated"}
        The bandwidth model.
    **options
        The algorithm's readings, passed on: ``quartiles=`` and ``host=`` for
        QLSE, ``reading=`` for greedy (:func:`~clustersched.grid.qlse`,
        :func:`~clustersched.grid.greedy_best_fit`).

    Raises
    ------
    TypeError
        ``workload``, ``platform`` or ``validate`` of the wrong type.
    ValueError
        ``algorithm`` is not a name of :data:`ALGORITHMS`, ``bandwidth`` no model, an option out of its choices.
    TypeError
        An option the algorithm does not take.
    InvalidScheduleError
        The algorithm returned a mapping that breaks a constraint (a bug).

    Examples
    --------
    >>> from clustersched.grid import feasible_instance
    >>> inst = feasible_instance("small", "small", seed=3)
    >>> r = run(inst.tig, inst.grid, "qlse")
    >>> r.algorithm, r.found, 0.0 <= r.metrics.lan_hit_ratio <= 1.0
    ('QLSE', True, True)
    >>> list(r.summary())
    ['algorithm', 'found', 'lan_hit_ratio', 'task_machine_ratio', 'shared_task_machine_ratio', 'lans_used',
     'hosts_used', 'seconds']
    """
    canonical = lookup("algorithm", algorithm, ALGORITHMS)
    check = validate_default(validate)
    check_seed(seed)
    tig, grid = workload, platform
    result = ALGORITHMS[canonical](tig, grid, bandwidth=bandwidth, **options)
    if not isinstance(result, Mapping):
        return GridRun(canonical, result, None, result.seconds)
    if check:
        validate_mapping(result, tig, grid, bandwidth=bandwidth)
    return GridRun(canonical, result, mapping_metrics(result, tig, grid), result.seconds)
