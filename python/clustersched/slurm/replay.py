"""A replay against the real run: each job's simulated start beside the start the trace records.

A sacct dump records when each job really started (``Start``; the table's ``wait`` is ``Start - Submit``), as
an SWF trace does (its field 3); a replay of the same jobs on the same cluster says when the simulated
scheduler would have started them.  :func:`compare_starts` puts the two side by side, job by job and in
aggregate:

* mean and median wait, simulated and real;
* mean and median ``|Δstart|``, the absolute difference of the two starts of each job;
* the share of jobs whose simulated start is within 60 s, and within 10 minutes, of the real one;
* Kendall's τ (τ-b, which counts ties as scipy's :func:`scipy.stats.kendalltau` does) between the real and
  the simulated starts: 1 when the jobs start in the same order, 0 when the orders are unrelated.

A replay can never match a real run exactly: about half of a Slurm cluster's starts happen on its timers
(``sched_interval``, ``bf_interval``), whose phase the dump does not record, and two real runs of one workload
differ as well.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from ..errors import InvalidWorkloadError

if TYPE_CHECKING:
    import pandas

    from ..workload.jobs import JobTable

__all__ = ["ReplayReport", "compare_starts", "real_starts"]

#: The |Δstart| bounds the report counts jobs within (s).
WITHIN = (60.0, 600.0)


def real_starts(jobs: "JobTable") -> np.ndarray | None:
    """When each job of ``jobs`` really started (``submit + wait``), or None when the table does not record
    every job's wait (a generated workload, an events file, an SWF trace with unknown waits)."""
    wait = np.asarray(jobs.wait, dtype=np.float64)
    if len(wait) == 0 or not np.all(np.isfinite(wait) & (wait >= 0)):
        return None
    return np.asarray(jobs.submit, dtype=np.float64) + wait


@dataclass(frozen=True)
class ReplayReport:
    """Simulated against real starts (module docstring).  Arrays are per job, in the schedule's order.

    Attributes
    ----------
    algorithm : str
        The policy simulated.
    job_id, submit, real_start, start : numpy.ndarray
        Each job's id, submit time, real and simulated start (s).
    """

    algorithm: str
    job_id: np.ndarray
    submit: np.ndarray
    real_start: np.ndarray
    start: np.ndarray

    @property
    def delta(self) -> np.ndarray:
        """Simulated minus real start of each job (s): positive when the replay starts it later."""
        return self.start - self.real_start

    def summary(self) -> dict[str, Any]:
        """The aggregate measures: ``jobs``, ``real_mean_wait``, ``real_median_wait``, ``mean_wait``,
        ``median_wait``, ``mean_abs_delta``, ``median_abs_delta``, ``within_60s``, ``within_10min`` (shares in
        [0, 1]) and ``kendall_tau``."""
        from scipy.stats import kendalltau

        real_wait = self.real_start - self.submit
        wait = self.start - self.submit
        gap = np.abs(self.delta)
        n = len(gap)
        tau = float(kendalltau(self.real_start, self.start).statistic) if n > 1 else float("nan")
        return {
            "policy": self.algorithm,
            "jobs": n,
            "real_mean_wait": float(real_wait.mean()) if n else float("nan"),
            "real_median_wait": float(np.median(real_wait)) if n else float("nan"),
            "mean_wait": float(wait.mean()) if n else float("nan"),
            "median_wait": float(np.median(wait)) if n else float("nan"),
            "mean_abs_delta": float(gap.mean()) if n else float("nan"),
            "median_abs_delta": float(np.median(gap)) if n else float("nan"),
            "within_60s": float(np.mean(gap <= WITHIN[0])) if n else float("nan"),
            "within_10min": float(np.mean(gap <= WITHIN[1])) if n else float("nan"),
            "kendall_tau": tau,
        }

    def to_pandas(self) -> "pandas.DataFrame":
        """One row per job: ``job_id``, ``submit_s``, ``real_start_s``, ``start_s``, ``delta_s``."""
        from .._pandas import require_pandas

        pd = require_pandas()
        return pd.DataFrame(
            {
                "job_id": self.job_id,
                "submit_s": self.submit,
                "real_start_s": self.real_start,
                "start_s": self.start,
                "delta_s": self.delta,
            }
        )


def compare_starts(schedule: Any, jobs: "JobTable") -> ReplayReport:
    """The replay ``schedule`` (a batch :class:`~clustersched.batch.Schedule`) of ``jobs`` (the table it simulated)
    against the starts ``jobs`` records.

    An :class:`~clustersched.errors.InvalidWorkloadError` when the table records no real start for some job
    (:func:`real_starts`), or when the schedule is not of this table (other job ids).
    """
    real = real_starts(jobs)
    if real is None:
        raise InvalidWorkloadError(
            "the jobs do not record when each one really started (a wait >= 0 for every job, as a sacct dump or "
            "an SWF trace of a real run does): there is no real run to compare with",
            path=jobs.source,
        )
    if len(schedule.job_id) != len(jobs) or not np.array_equal(np.asarray(schedule.job_id), np.asarray(jobs.job_id)):
        raise InvalidWorkloadError(
            f"the schedule has {len(schedule.job_id)} jobs and is not of this table of {len(jobs)} (pass the table "
            "the simulation returned: BatchRun.jobs)",
            path=jobs.source,
        )
    return ReplayReport(
        algorithm=str(schedule.algorithm),
        job_id=np.asarray(schedule.job_id),
        submit=np.asarray(jobs.submit, dtype=np.float64),
        real_start=real,
        start=np.asarray(schedule.start, dtype=np.float64),
    )
