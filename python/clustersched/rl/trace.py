"""The trace an environment cuts its episodes from, and its train and test windows.

An episode is a *window*: ``window`` consecutive jobs of the trace (rows in
submit order), simulated from an idle machine.  The trace's rows are split
once, by position: the first ``1 - test_fraction`` of them are the *train*
part, the rest the *test* part.  A window lies wholly inside one part, so no
train window ever shares a job with a test window.  ``split="all"`` draws
from the whole trace.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from .. import _core
from .._checks import MAX_PROCS, check_choice, check_float, check_int, short_repr
from ..batch.simulator import estimates_of, prepare_jobs
from ..errors import InvalidWorkloadError, naming_jobs
from ..workload.jobs import JobTable
from ..workload.timelimit import kills_at_time_limit, time_limited

__all__ = ["DEFAULT_TRACE", "SPLITS", "EpisodeTrace", "default_trace"]

#: The parts of a trace an environment draws its windows from.
SPLITS = ("train", "test", "all")
#: What :func:`default_trace` generates: RLScheduler's trace shape (Lublin-Feitelson, 10,000 jobs on 256
#: processors), seed 0, with f-model estimates (``f = 1``: an estimate up to twice the run time) so that
#: backfilling has something to be wrong about.
DEFAULT_TRACE = {"n_jobs": 10_000, "procs": 256, "seed": 0, "estimates": "f:1"}
#: SWF fields scaled into the RLScheduler layout's static columns, in its order.
_STATIC_FIELDS = ("mem_requested", "user_id", "group_id", "executable")


@lru_cache(maxsize=1)
def default_trace() -> JobTable:
    """The trace of every registered environment: Lublin-Feitelson on 256 processors (:data:`DEFAULT_TRACE`).

    Generated, not read (it needs no data file), and the same on every machine; cached.

    Examples
    --------
    >>> t = default_trace()
    >>> len(t), t.max_procs
    (10000, 256)
    """
    from ..workload.estimates import with_estimates
    from ..workload.lublin import lublin_feitelson

    spec = DEFAULT_TRACE
    jobs = lublin_feitelson(spec["n_jobs"], spec["procs"], seed=spec["seed"])
    return with_estimates(jobs, spec["estimates"], seed=spec["seed"])


@dataclass(frozen=True)
class EpisodeTrace:
    """A trace prepared for episodes: the jobs as simulated, the Rust trace, the window bounds.

    Build it with :meth:`prepare`.  Rows are those of :attr:`jobs` (sorted by submit time).

    Attributes
    ----------
    jobs : JobTable
        The trace as simulated (:func:`~clustersched.batch.simulator.prepare_jobs`: sorted, checked).
    procs : int
        Processors of the machine.
    window : int
        Jobs per episode.
    split : str
        ``"train"``, ``"test"`` or ``"all"``: which rows windows are drawn from.
    rows : tuple of int
        ``(lo, hi)``: windows lie in rows ``lo .. hi - 1``.
    estimates : str
        Which run time the scheduler believes (:func:`~clustersched.batch.estimates_of`).
    run : numpy.ndarray
        How long each job runs (:func:`~clustersched.workload.timelimit.time_limited`).
    killed : numpy.ndarray or None
        Jobs killed at their time limit, when the table declares such kills (else None).
    core : clustersched._core.RlTrace
        The Rust copy every episode reads.
    """

    jobs: JobTable
    procs: int
    window: int
    split: str
    rows: tuple[int, int]
    estimates: str
    run: np.ndarray
    killed: np.ndarray | None
    core: _core.RlTrace

    @classmethod
    def prepare(
        cls,
        jobs: JobTable | str | os.PathLike[str] | None = None,
        *,
        procs: int | None = None,
        window: int = 256,
        split: str = "train",
        test_fraction: float = 0.2,
        estimates: str = "requested",
    ) -> "EpisodeTrace":
        """Checks ``jobs`` (a table, an SWF path, or None for :func:`default_trace`) and cuts its split.

        Raises
        ------
        InvalidWorkloadError
            A job the batch simulator refuses (named by row and id), or a split shorter than a window.
        ValueError, TypeError
            An option out of range.
        """
        if jobs is None:
            jobs = default_trace()
        elif isinstance(jobs, (str, os.PathLike)):
            from ..workload.swf import read_swf

            jobs = read_swf(jobs)
        elif not isinstance(jobs, JobTable):
            raise TypeError(f"jobs == {short_repr(jobs)}, must be a JobTable, an SWF path or None")
        window = check_int("window", window, 1)
        check_choice("split", split, SPLITS)
        test_fraction = check_float("test_fraction", test_fraction, minimum=0.0, maximum=1.0)
        if procs is None:
            procs = jobs.max_procs
            if procs is None or procs < 1:
                raise InvalidWorkloadError(
                    "the header gives no MaxProcs (or MaxNodes); pass the machine size (procs=)", path=jobs.source
                )
        procs = check_int("procs", procs, 1, MAX_PROCS)
        table, _ = prepare_jobs(jobs, procs, "error")
        estimate = estimates_of(table, estimates)
        run, killed = time_limited(table)
        n = len(table)
        cut = int(round(n * (1.0 - test_fraction)))
        lo, hi = {"train": (0, cut), "test": (cut, n), "all": (0, n)}[split]
        if hi - lo < window:
            raise InvalidWorkloadError(
                f"the {split} split holds rows {lo}..{hi - 1} ({hi - lo} jobs), fewer than a window of {window} "
                f"(test_fraction == {test_fraction:g}; use a longer trace, a shorter window or another split)",
                path=table.source,
            )
        with naming_jobs(table.job_id):
            core = _core.RlTrace(
                np.ascontiguousarray(table.submit, dtype=np.float64),
                np.ascontiguousarray(run, dtype=np.float64),
                np.ascontiguousarray(estimate, dtype=np.float64),
                np.ascontiguousarray(table.width(), dtype=np.int64),
                procs,
                _static_features(table),
            )
        killed = killed if kills_at_time_limit(table) else None
        return cls(table, procs, window, split, (lo, hi), estimates, run, killed, core)

    @property
    def windows(self) -> np.ndarray:
        """First rows of the split's non-overlapping windows, in order (for evaluation on every one of them)."""
        lo, hi = self.rows
        return np.arange(lo, hi - self.window + 1, self.window, dtype=np.int64)

    def draw(self, rng: np.random.Generator) -> int:
        """A window's first row, uniform over the split (one ``rng.integers`` call)."""
        lo, hi = self.rows
        return int(lo + rng.integers(hi - self.window - lo + 1))

    def check_first(self, first: object) -> int:
        """``first`` as a window's first row inside the split, or ValueError / TypeError."""
        lo, hi = self.rows
        return check_int("first", first, lo, hi - self.window)

    def window_jobs(self, first: int) -> JobTable:
        """The jobs of the window beginning at row ``first``."""
        return self.jobs.select(slice(first, first + self.window))


def _static_features(table: JobTable) -> np.ndarray:
    """The RLScheduler layout's columns 3-6 per job: requested memory, user, group and executable, each over its
    largest value in the trace and kept below 1 (RLScheduler's ``1 - 1e-5``); 0 where the field is missing."""
    columns = []
    for name in _STATIC_FIELDS:
        x = np.asarray(getattr(table, name), dtype=np.float64)
        x = np.where(x > 0, x, 0.0)
        top = float(x.max()) if len(x) else 0.0
        columns.append(np.minimum(x / top, 1.0 - 1e-5) if top > 0 else x)
    return np.ascontiguousarray(np.stack(columns, axis=1).ravel(), dtype=np.float32)
