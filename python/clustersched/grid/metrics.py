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

from .mapping import Mapping
from .model import LanGrid, TIG

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


def _hosts(mapping: Any) -> np.ndarray:
    return np.asarray(getattr(mapping, "host", mapping), dtype=np.int64)


def lan_hit_ratio(mapping: Mapping | np.ndarray, tig: TIG, grid: LanGrid) -> float:
    """Share of the TIG's total MBR that joins tasks on the same LAN (§5).

    Examples
    --------
    >>> tig = TIG.from_arrays([100.0] * 3, [(0, 1), (1, 2)], [30.0, 10.0])
    >>> grid = LanGrid.from_arrays([[500.0], [500.0]], [50.0, 50.0], [(0, 1)], [20.0])
    >>> lan_hit_ratio([0, 0, 1], tig, grid)
    0.75
    """
    total = float(tig.mbr.sum())
    if total == 0.0:
        return float("nan")
    lan = grid.host_lan[_hosts(mapping)]
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
    return float(np.mean(grid.host_power[_hosts(mapping)] / tig.mcr))


def shared_task_machine_ratio(mapping: Mapping | np.ndarray, tig: TIG, grid: LanGrid) -> float:
    """Mean over the tasks of (host power / MCRs summed on the host): the task-machine ratio under sharing.

    Examples
    --------
    >>> tig = TIG.from_arrays([100.0, 200.0], [(0, 1)], [10.0])
    >>> grid = LanGrid.from_arrays([[600.0, 300.0]], [50.0], [], [])
    >>> shared_task_machine_ratio([0, 0], tig, grid)   # 600 shared by 300 Mflop/s of need
    2.0
    """
    host = _hosts(mapping)
    load = np.zeros(grid.num_hosts)
    np.add.at(load, host, tig.mcr)
    return float(np.mean(grid.host_power[host] / load[host]))


def failure_rate(results: Iterable[Any]) -> float:
    """Share of ``results`` (mapping results, or booleans "found") that are failures; NaN when empty.

    Examples
    --------
    >>> failure_rate([True, False, True, True])
    0.25
    """
    found = [bool(getattr(r, "found", r)) for r in results]
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
        {'lan_hit_ratio': 0.75, 'task_machine_ratio': 4.5, 'shared_task_machine_ratio': 2.0, 'lans_used': 2, 'hosts_used': 3}
        """
        return asdict(self)

    def to_pandas(self) -> "pandas.DataFrame":
        """:meth:`summary` as a one-row DataFrame, names with units (its measures are ratios and counts, without
        unit; see :mod:`clustersched._pandas`).
        """
        from .._pandas import summary_frame

        return summary_frame(self.summary())


def mapping_metrics(mapping: Mapping | np.ndarray, tig: TIG, grid: LanGrid) -> MappingMetrics:
    """All the measures of one mapping."""
    host = _hosts(mapping)
    return MappingMetrics(
        lan_hit_ratio=lan_hit_ratio(host, tig, grid),
        task_machine_ratio=task_machine_ratio(host, tig, grid),
        shared_task_machine_ratio=shared_task_machine_ratio(host, tig, grid),
        lans_used=int(np.unique(grid.host_lan[host]).size),
        hosts_used=int(np.unique(host).size),
    )
