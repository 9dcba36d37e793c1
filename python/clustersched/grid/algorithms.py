"""The mapping algorithms by name, and one validated, measured run of one of them."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from .mapping import Mapping, MappingResult
from .metrics import MappingMetrics, mapping_metrics
from .model import LanGrid, TIG
from .qlse import greedy_best_fit, qlse
from .validate import validate_mapping

__all__ = ["ALGORITHMS", "GridRun", "algorithm", "run_algorithm"]

#: The algorithms of the QLSE paper: QLSE (§4) and the greedy best-fit baseline (§5).
#: Each is called as ``fn(tig, grid, bandwidth=...)``.
ALGORITHMS: dict[str, Callable[..., MappingResult]] = {"QLSE": qlse, "greedy": greedy_best_fit}


def algorithm(name: str) -> Callable[..., MappingResult]:
    """The algorithm called ``name`` (case-insensitive); ValueError listing the names otherwise.

    Examples
    --------
    >>> algorithm("qlse") is qlse
    True
    """
    if isinstance(name, str):
        for key, fn in ALGORITHMS.items():
            if key.lower() == name.lower():
                return fn
    raise ValueError(f"algorithm == {name!r}, must be one of {', '.join(ALGORITHMS)}")


@dataclass(frozen=True, eq=False)
class GridRun:
    """One algorithm on one instance: its result, and the metrics of the mapping (None on failure)."""

    result: MappingResult
    metrics: MappingMetrics | None

    @property
    def found(self) -> bool:
        return self.result.found


def run_algorithm(name: str, tig: TIG, grid: LanGrid, *, bandwidth: str = "shared", validate: bool = True) -> GridRun:
    """Runs algorithm ``name`` under the ``bandwidth`` model, checks its mapping with :func:`validate_mapping`
    and measures it.

    Raises
    ------
    InvalidScheduleError
        The algorithm returned a mapping that breaks a constraint (a bug).

    Examples
    --------
    >>> from clustersched.grid import feasible_instance
    >>> inst = feasible_instance("small", "small", seed=3)
    >>> run = run_algorithm("QLSE", inst.tig, inst.grid)
    >>> run.found, 0.0 <= run.metrics.lan_hit_ratio <= 1.0
    (True, True)
    """
    result = algorithm(name)(tig, grid, bandwidth=bandwidth)
    if not isinstance(result, Mapping):
        return GridRun(result, None)
    if validate:
        validate_mapping(result, tig, grid, bandwidth=bandwidth)
    return GridRun(result, mapping_metrics(result, tig, grid))
