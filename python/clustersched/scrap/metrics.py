"""Metrics of PTG schedules on heterogeneous multi-cluster platforms (PDCS 2007 §4).

For a :class:`~clustersched.scrap.schedule.ClusterSchedule` of one PTG:

``energy``
    ``sum over tasks of duration * q * speed_k`` (flop): execution time times
    the processing power the task holds ("energy, i.e., the product between
    execution time and processing power", §4).
``power_fraction``
    ``energy / (makespan * platform power)``: the processing power the
    schedule consumes on average over its makespan, over the platform's --
    what §4 compares with ``β`` ("the ratio of the processing power actually
    consumed by a schedule over the globally available processing power").
    The paper does not say *average*: it could also be read as the peak,
    which :attr:`peak_power_fraction` gives (the largest ``sum q * speed_k``
    of the tasks running at one instant, over the platform's power) -- the
    quantity SCRAP-MAX's per-level bound aims at.  We compare ``β`` with the
    average because ``β' = (ω*/makespan) / power`` (§3), the estimate SCRAP
    constrains, is the same average computed on the allocation.
``deviation``
    ``power_fraction / β - 1`` when above ``β``, else 0 (:func:`deviation_above`):
    how much more than allowed ("consumes at most 5.4% more resources than
    what is allowed").

Computation: one implementation, the Rust core's (``scrap::schedule_metrics``,
binding ``_core.scrap_metrics``), which the batched study
(:mod:`clustersched.scrap.study`) calls too.  The energy is
``fsum(duration * q * speed_k)``: each product rounded, their sum *exactly
rounded* (the float nearest the exact sum, as :func:`math.fsum` gives it), so
it depends on no summation order (numpy's pairwise blocks, the row order).  The
power fraction is ``energy / (makespan * power)``; when that leaves float64
(times below 1e300 s and powers below 1e300 flop/s may still have a product
beyond it) it is the exactly rounded sum of ``(duration / makespan) * (q *
speed_k / power)``, the same ratio without the overflow.  The peak is a sweep
of starts (``+q * speed_k``) and ends (``-q * speed_k``) of the rows of
positive length, sorted by time then delta (ends first at equal times), summed
in that order.

Across runs (:func:`slowdown`): ``Slowdown = M_ref / M_β`` (§4, Eq. 1), with
``M_ref`` the makespan under ``β = 1`` (Fig. 3) or HCPA's (Fig. 4): below 1
the constrained schedule is longer.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from .. import _core
from .._checks import short_repr
from .schedule import ClusterSchedule

if TYPE_CHECKING:
    import pandas

__all__ = ["MultiClusterMetrics", "deviation_above", "multicluster_metrics", "slowdown"]


@dataclass(frozen=True)
class MultiClusterMetrics:
    """Makespan (s), energy (flop), average and peak power fractions of one schedule."""

    makespan: float
    energy: float
    power_fraction: float
    peak_power_fraction: float

    def summary(self) -> dict[str, float]:
        """The metrics as a flat dict of floats (a JSON object, a DataFrame row)."""
        return asdict(self)

    def to_pandas(self) -> "pandas.DataFrame":
        """:meth:`summary` as a one-row DataFrame, names with units (``makespan_s``, ``energy_flop``; see
        :mod:`clustersched._pandas`).
        """
        from .._pandas import summary_frame

        return summary_frame(self.summary())


def multicluster_metrics(schedule: ClusterSchedule) -> MultiClusterMetrics:
    """The metrics of ``schedule`` (module docstring).

    Examples
    --------
    >>> import networkx as nx
    >>> from clustersched.platform import Cluster, MultiCluster
    >>> from clustersched.workload.ptg import PTG
    >>> from clustersched.scrap.placement import place_reference
    >>> g = nx.DiGraph(); g.add_node("t", work=4e9)
    >>> p = MultiCluster("p", (Cluster("a", 4, 1e9), Cluster("b", 4, 1e9)))
    >>> m = multicluster_metrics(place_reference(PTG.from_networkx(g), p, [2]))
    >>> m.makespan, m.energy, m.power_fraction, m.peak_power_fraction
    (2.0, 4000000000.0, 0.25, 0.25)
    >>> m.summary()
    {'makespan': 2.0, 'energy': 4000000000.0, 'power_fraction': 0.25, 'peak_power_fraction': 0.25}
    """
    if not isinstance(schedule, ClusterSchedule):
        raise TypeError(f"schedule == {short_repr(schedule)}, must be a clustersched.scrap.ClusterSchedule")
    platform = schedule.platform
    makespan, energy, fraction, peak = _core.scrap_metrics(
        np.ascontiguousarray(schedule.cluster, dtype=np.int64),
        np.ascontiguousarray(schedule.start, dtype=np.float64),
        np.ascontiguousarray(schedule.end, dtype=np.float64),
        np.ascontiguousarray(schedule.proc_offsets, dtype=np.int64),
        np.array(platform.speeds, dtype=np.float64),
        float(platform.power),
    )
    return MultiClusterMetrics(makespan, energy, fraction, peak)


def deviation_above(power_fraction: Any, beta: Any) -> Any:
    """``power_fraction / beta - 1`` where positive, else 0 (floats or numpy arrays, elementwise).

    >>> deviation_above(0.21, 0.2), deviation_above(0.1, 0.2)
    (0.04999999999999982, 0.0)
    >>> deviation_above(np.array([0.3, 0.1]), np.array([0.2, 0.2])).tolist()
    [0.4999999999999998, 0.0]
    """
    out = np.maximum(0.0, np.asarray(power_fraction, dtype=np.float64) / beta - 1.0)
    return float(out) if out.ndim == 0 else out


def slowdown(reference_makespan: Any, makespan: Any) -> Any:
    """``M_ref / M`` (PDCS 2007 Eq. 1), floats or numpy arrays (elementwise); makespans must be > 0.

    >>> slowdown(10.0, 12.5)
    0.8
    """
    m = np.asarray(makespan, dtype=np.float64)
    if np.any(m <= 0):
        raise ValueError("makespan must be > 0")
    out = np.asarray(reference_makespan, dtype=np.float64) / m
    return float(out) if out.ndim == 0 else out
