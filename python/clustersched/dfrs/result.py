"""DfrsRun: what one simulation returns (a DFRS algorithm's, or a batch baseline's).

Its own module, below both producers: :mod:`~clustersched.dfrs.simulator`
(the DFRS algorithms) and :mod:`~clustersched.dfrs.baselines` (FCFS and
EASY) build it, and neither imports the other back.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Any

import numpy as np

from .metrics import DfrsMetrics, dfrs_metrics
from .model import DfrsJobs, DfrsPlatform
from .schedule import DfrsSchedule

if TYPE_CHECKING:
    import pandas

__all__ = ["DfrsRun"]


@dataclass(frozen=True)
class DfrsRun:
    """What :func:`~clustersched.dfrs.simulate` returns.

    Attributes
    ----------
    schedule : DfrsSchedule
        The segments of every job (see :mod:`~clustersched.dfrs.schedule`).
    jobs : DfrsJobs
    platform : DfrsPlatform
    algorithm : str
        The canonical name of the algorithm (``"FCFS"`` or ``"EASY"`` for the
        baselines).
    events : int
        Time stamps processed.
    mcb8_jobs, mcb8_seconds : numpy.ndarray
        For every MCB8 or MCB8-stretch run: how many jobs it packed and how
        long it took (wall clock, s); empty for other algorithms.
    seconds : float
        Wall-clock time of the simulation (s), validation and metrics excluded.

    Examples
    --------
    >>> from clustersched.dfrs import DfrsJobs, DfrsPlatform, simulate
    >>> jobs = DfrsJobs(submit=[0, 0], processing_time=[100, 100], tasks=[1, 1],
    ...                 cpu_need=[1.0, 1.0], mem_need=[0.5, 0.5])
    >>> run = simulate(jobs, DfrsPlatform(1), "Greedy */opt=min")
    >>> s = run.summary(bound=2.0)
    >>> s["algorithm"], s["max_stretch"], s["degradation"], s["events"], s["seconds"] >= 0
    ('Greedy */opt=min', 2.0, 1.0, 2, True)
    """

    schedule: DfrsSchedule
    jobs: DfrsJobs
    platform: DfrsPlatform
    algorithm: str
    events: int = 0
    mcb8_jobs: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))
    mcb8_seconds: np.ndarray = field(default_factory=lambda: np.zeros(0))
    seconds: float = 0.0

    @cached_property
    def metrics(self) -> DfrsMetrics:
        """The schedule's :func:`~clustersched.dfrs.metrics.dfrs_metrics`, without the Theorem 1 bound (``bound``
        and ``degradation`` NaN; :meth:`summary` takes one), computed on first use."""
        return dfrs_metrics(self.schedule, self.jobs, self.platform)

    def summary(self, *, bound: float | None = None) -> dict[str, Any]:
        """A flat dict (JSON- and DataFrame-ready): ``algorithm``, the metrics'
        :meth:`~clustersched.dfrs.metrics.DfrsMetrics.summary`, ``events``,
        ``mcb8_calls`` and ``seconds``.

        The metrics are computed from the schedule (linear in its segments).
        The Theorem 1 bound is not: it costs a max-flow search of its own
        (:func:`~clustersched.dfrs.bound.max_stretch_lower_bound`), so it is
        an argument, and without it ``bound`` and ``degradation`` are NaN.
        """
        metrics = self.metrics if bound is None else dfrs_metrics(self.schedule, self.jobs, self.platform, bound=bound)
        return {
            "algorithm": self.algorithm,
            **metrics.summary(),
            "events": self.events,
            "mcb8_calls": len(self.mcb8_seconds),
            "seconds": self.seconds,
        }

    def to_pandas(self, *, bound: float | None = None) -> "pandas.DataFrame":
        """:meth:`summary` as a one-row DataFrame, names with units (``wall_s`` is ``seconds``, the simulation's
        wall-clock time; ``bound`` as for :meth:`summary`).

        Concatenate runs with ``pandas.concat([r.to_pandas() for r in runs], ignore_index=True)``; the
        schedule's rows are ``run.schedule.to_pandas()`` (jobs) or ``run.schedule.to_pandas(segments=True)``.
        pandas is optional: ``pip install "clustersched[pandas]"``.
        """
        from .._pandas import summary_frame

        return summary_frame(self.summary(bound=bound))
