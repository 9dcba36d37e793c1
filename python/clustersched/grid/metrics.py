"""The measures of §5: failure rate, LAN hit ratio, task-machine computational ratio.

Definitions (quoted from §5):

* **failure rate** — "A scheduling failure occurs when the algorithm is not
  able to map a TIG satisfying both MCRs and MBRs requirements"; Fig. 3 shows
  the percentage of failures.  :func:`failure_rate` is the share of results
  that are :class:`~clustersched.grid.NoFeasibleMapping`.
* **LAN hit ratio** — "the ratio between the sum of TIG's MBRs associated to
  the communicating tasks mapped in the same LAN and the TIG's MBRs sum"
  (:func:`lan_hit_ratio`, in [0, 1]; NaN for a TIG whose MBRs sum to 0).
* **task-machine computational ratio** — "the ratio between the computational
  power of the machine where a task is mapped and the task's MCR", averaged
  over the tasks (:func:`task_machine_ratio`).  The machine's power is its
  nominal power, whatever else runs on it, as the definition reads.
  :func:`shared_task_machine_ratio` is a variant we add to explain results:
  the power a task gets when its host's power is shared in proportion to the
  MCRs of the tasks on it, over its MCR (``power / load`` of its host).

§5 averages the two ratios only over "the simulations that carried out a
feasible solution by both algorithms"; the reproduction does the same.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any, Iterable

import numpy as np

from .._checks import short_repr
from .mapping import Mapping
from .model import TIG, LanGrid
from .validate import check_mapping

if TYPE_CHECKING:
    import pandas

__all__ = [
    "MappingMetrics",
    "failure_rate",
    "lan_hit_ratio",
    "mapping_metrics",
    "shared_task_machine_ratio",
    "task_machine_ratio",
]


def _hosts(mapping: Any, tig: TIG, grid: LanGrid) -> np.ndarray:
    """The host of each task; TypeError or ValueError for a mapping that is not one of ``tig`` onto ``grid``."""
    return check_mapping(mapping, tig, grid)


def lan_hit_ratio(mapping: Mapping | np.ndarray, tig: TIG, grid: LanGrid) -> float:
    """Share of the TIG's total MBR that joins tasks on the same LAN (§5).

    Examples
    --------
    >>> tig = TIG.from_arrays([100.0] * 3, [(0, 1), (1, 2)], [30.0, 10.0])
    >>> grid = LanGrid.from_arrays([[500.0], [500.0]], [50.0, 50.0], [(0, 1)], [20.0])
    >>> lan_hit_ratio([0, 0, 1], tig, grid)
    0.75
    """
    lan = grid.host_lan[_hosts(mapping, tig, grid)]
    total = float(tig.mbr.sum())
    if total == 0.0:
        return float("nan")
    same = lan[tig.edge_u] == lan[tig.edge_v]
    return float(tig.mbr[same].sum()) / total


def task_machine_ratio(mapping: Mapping | np.ndarray, tig: TIG, grid: LanGrid) -> float:
    """Mean over the tasks of (nominal power of the task's host) / (task's MCR) (§5).

    Examples
    --------
    >>> tig = TIG.from_arrays([100.0, 200.0], [(0, 1)], [10.0])
    >>> grid = LanGrid.from_arrays([[600.0, 300.0]], [50.0], [], [])
    >>> task_machine_ratio([0, 0], tig, grid), task_machine_ratio([1, 1], tig, grid)
    (4.5, 2.25)
    """
    host = _hosts(mapping, tig, grid)
    # a ratio may overflow to inf (a host of 1e300 Mflop/s for an MCR of 1e-10): inf is its value
    with np.errstate(over="ignore"):
        return float(np.mean(grid.host_power[host] / tig.mcr))


def shared_task_machine_ratio(mapping: Mapping | np.ndarray, tig: TIG, grid: LanGrid) -> float:
    """Mean over the tasks of (host power / MCRs summed on the host): the task-machine ratio under sharing.

    Examples
    --------
    >>> tig = TIG.from_arrays([100.0, 200.0], [(0, 1)], [10.0])
    >>> grid = LanGrid.from_arrays([[600.0, 300.0]], [50.0], [], [])
    >>> shared_task_machine_ratio([0, 0], tig, grid)   # 600 shared by 300 Mflop/s of need
    2.0
    """
    host = _hosts(mapping, tig, grid)
    load = np.zeros(grid.num_hosts)
    np.add.at(load, host, tig.mcr)
    with np.errstate(over="ignore"):
        return float(np.mean(grid.host_power[host] / load[host]))


def failure_rate(results: Iterable[Any]) -> float:
    """Share of ``results`` (mapping results, or booleans "found") that are failures; NaN when empty.

    Examples
    --------
    >>> failure_rate([True, False, True, True])
    0.25
    """
    if isinstance(results, (str, bytes)) or not isinstance(results, Iterable):
        raise TypeError(f"results == {short_repr(results)}, must be an iterable of mapping results or booleans")
    found = []
    for k, r in enumerate(results):
        value = getattr(r, "found", r)  # a Mapping, a NoFeasibleMapping, a GridRun, or a bool
        if not isinstance(value, (bool, np.bool_)):
            raise TypeError(f"results[{k}] == {short_repr(r)}, must be a mapping result or a bool")
        found.append(bool(value))
    return float("nan") if not found else 1.0 - sum(found) / len(found)


@dataclass(frozen=True)
class MappingMetrics:
    """The §5 measures of one mapping, and how much of the grid it uses."""

    lan_hit_ratio: float
    task_machine_ratio: float
    shared_task_machine_ratio: float
    lans_used: int
    hosts_used: int

    def summary(self) -> dict[str, Any]:
        """The measures as a flat dict of plain floats and ints (JSON / DataFrame ready).

        Examples
        --------
        >>> MappingMetrics(0.75, 4.5, 2.0, 2, 3).summary()
        {'lan_hit_ratio': 0.75, 'task_machine_ratio': 4.5, 'shared_task_machine_ratio': 2.0, 'lans_used': 2,
         'hosts_used': 3}
        """
        return asdict(self)

    def to_pandas(self) -> "pandas.DataFrame":
        """:meth:`summary` as a one-row DataFrame, names with units (its measures are ratios and counts, without
        unit; see :mod:`clustersched._pandas`).
        """
        from .._pandas import summary_frame

        return summary_frame(self.summary())


def mapping_metrics(mapping: Mapping | np.ndarray, tig: TIG, grid: LanGrid) -> MappingMetrics:
    """All the measures of one mapping.

    Raises
    ------
    TypeError, ValueError
        As :func:`~clustersched.grid.validate.check_mapping`: not a mapping of
        ``tig`` onto ``grid`` (another instance's), or a :class:`NoFeasibleMapping`.
    """
    host = _hosts(mapping, tig, grid)
    return MappingMetrics(
        lan_hit_ratio=lan_hit_ratio(host, tig, grid),
        task_machine_ratio=task_machine_ratio(host, tig, grid),
        shared_task_machine_ratio=shared_task_machine_ratio(host, tig, grid),
        lans_used=int(np.unique(grid.host_lan[host]).size),
        hosts_used=int(np.unique(host).size),
    )
