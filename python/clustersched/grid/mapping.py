"""What a mapping algorithm returns: a complete :class:`Mapping`, or :class:`NoFeasibleMapping`.

An algorithm never returns a partial mapping: either every task has a host
(:class:`Mapping`, ``found`` is True) or the result says that no feasible
mapping was found (:class:`NoFeasibleMapping`, ``found`` is False), so code
that forgets to check cannot mistake a failure for a mapping.  ``unwrap()``
gives the mapping or raises :class:`~clustersched.errors.InfeasibleError`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar, Hashable, Union

import numpy as np

from ..errors import InfeasibleError

if TYPE_CHECKING:
    import pandas

__all__ = ["BANDWIDTH_MODELS", "STEP_LABELS", "Mapping", "MappingResult", "NoFeasibleMapping", "check_bandwidth"]

#: QLSE's tentative mappings (§4.3), by the quantile of link bandwidth that cuts them.
STEP_LABELS = ("x1.00", "x.75", "x.50", "x.25", "x.00")

#: How communications use the bandwidth of the LANs and links they cross.
#:
#: ``"shared"`` (the default): §4.4 as written.  A LAN or a link is a shared
#: medium; every communication placed on it uses up its MBR, so the MBRs it
#: carries add up to at most its bandwidth.
#:
#: ``"dedicated"``: each communication on its own; its MBR is at most the
#: bandwidth of the LAN or link it crosses, and nothing is used up.  The
#: allocation conditions compare the largest MBR instead of the sum.  This is
#: the reading under which the parameter ranges of Tables 1 and 2 make sense
#: (``docs/reproduce-qlse.md``), and the only one under which §5's results can
#: hold; we offer it to reproduce them, under its own name.
BANDWIDTH_MODELS = ("shared", "dedicated")


def check_bandwidth(bandwidth: object) -> str:
    """``bandwidth`` if it names a model of :data:`BANDWIDTH_MODELS`, else ValueError."""
    if not isinstance(bandwidth, str) or bandwidth not in BANDWIDTH_MODELS:
        raise ValueError(f"bandwidth == {bandwidth!r}, must be one of {', '.join(map(repr, BANDWIDTH_MODELS))}")
    return bandwidth


@dataclass(frozen=True, eq=False)
class Mapping:
    """Every task of a TIG mapped onto a host of a grid.

    Attributes
    ----------
    algorithm : str
    host : numpy.ndarray of int64
        The (global) host of each task.
    lan : numpy.ndarray of int64
        The LAN of each task.
    step : int or None
        QLSE: the tentative mapping that succeeded, an index of :data:`STEP_LABELS`.
    cluster : tuple of int
        QLSE: the LANs of the cluster it succeeded on.
    attempts : int
        Tentative mappings tried (one per cluster; 1 for the baseline).
    seconds : float
        Wall time of the algorithm.
    bandwidth : str
        The bandwidth model it was computed under (:data:`BANDWIDTH_MODELS`).
    """

    algorithm: str
    host: np.ndarray
    lan: np.ndarray
    bandwidth: str = "shared"
    step: int | None = None
    cluster: tuple[int, ...] = ()
    attempts: int = 1
    seconds: float = 0.0
    found: ClassVar[bool] = True

    @property
    def step_label(self) -> str | None:
        """``"x1.00"`` ... ``"x.00"`` for QLSE, None otherwise."""
        return None if self.step is None else STEP_LABELS[self.step]

    @property
    def lans_used(self) -> int:
        """Number of distinct LANs holding tasks."""
        return int(np.unique(self.lan).size)

    def unwrap(self) -> Mapping:
        """This mapping (see :meth:`NoFeasibleMapping.unwrap`)."""
        return self

    def to_pandas(self) -> "pandas.DataFrame":
        """One row per task: ``task`` (its index in the TIG), ``host`` and ``lan`` (global indices), as a
        DataFrame.

        pandas is optional: ``pip install "clustersched[pandas]"``.

        Examples
        --------
        >>> import numpy as np
        >>> m = Mapping("QLSE", host=np.array([3, 0, 3]), lan=np.array([1, 0, 1]))
        >>> m.to_pandas().to_dict("list")
        {'task': [0, 1, 2], 'host': [3, 0, 3], 'lan': [1, 0, 1]}
        """
        from .._pandas import frame

        host = np.asarray(self.host, dtype=np.int64)
        return frame(
            {"task": np.arange(len(host), dtype=np.int64), "host": host, "lan": np.asarray(self.lan, dtype=np.int64)}
        )

    def by_label(self, tig: Any, grid: Any) -> dict[Hashable, tuple[Hashable, int]]:
        """``{task label: (LAN label, host index in its LAN)}``; ValueError if this is not a mapping of ``tig``
        onto ``grid`` (one of another instance)."""
        from .model import check_pair

        check_pair(tig, grid)
        host = np.asarray(self.host)
        if (
            len(host) != len(tig)
            or host.min() < 0
            or host.max() >= grid.num_hosts
            or not np.array_equal(grid.host_lan[host], self.lan)
        ):
            raise ValueError(f"{self!r} is not a mapping of {tig!r} onto {grid!r}")
        return {label: grid.host_name(int(h)) for label, h in zip(tig.labels, self.host)}

    def __repr__(self) -> str:
        where = f", step {self.step_label}" if self.step is not None else ""
        return f"Mapping({self.algorithm}: {len(self.host)} tasks on {self.lans_used} LANs{where})"


@dataclass(frozen=True)
class NoFeasibleMapping:
    """The algorithm found no mapping meeting every MCR and MBR (a scheduling failure, §5).

    Attributes
    ----------
    algorithm : str
    attempts : int
        Tentative mappings tried.
    seconds : float
    reason : str
    """

    algorithm: str
    attempts: int = 1
    seconds: float = 0.0
    reason: str = field(default="no feasible mapping found")
    found: ClassVar[bool] = False

    def unwrap(self) -> Mapping:
        """Raises :class:`~clustersched.errors.InfeasibleError`: there is no mapping."""
        raise InfeasibleError(f"{self.algorithm}: {self.reason} ({self.attempts} tentative mapping(s))")


#: What :func:`clustersched.grid.qlse` and :func:`clustersched.grid.greedy_best_fit` return.
MappingResult = Union[Mapping, NoFeasibleMapping]
