"""Dynamic Fractional Resource Scheduling (Casanova, Stillwell & Vivien, INRIA RR-7659, 2011).

Jobs of identical tasks share cluster nodes through VMs: memory is never
over-committed, CPU is shared fractionally, jobs may be paused, resumed and
migrated (at a rescheduling penalty), and the scheduler does not know how
long a job runs.  One module per part, as in every problem folder:

* :mod:`~clustersched.dfrs.model` -- :class:`DfrsJobs`, :class:`DfrsPlatform`;
* :mod:`~clustersched.dfrs.algorithms` -- the algorithms of Table 1 by name
  (:data:`ALGORITHMS`, :func:`parse_algorithm`, below), e.g.
  ``"GreedyPM */per/opt=min/minvt=600"``;
* :mod:`~clustersched.dfrs.simulator` -- :func:`simulate`, the event loop and
  its documented semantics (the node state, the per-event steps, the packing
  and the segments run in Rust; :mod:`~clustersched.dfrs.recording` builds the
  schedule from the segments);
* :mod:`~clustersched.dfrs.baselines` -- FCFS and EASY on whole nodes (§5.2);
* :mod:`~clustersched.dfrs.result` -- :class:`DfrsRun`, what
  :func:`simulate` returns: the schedule, the canonical name, the wall-clock
  ``seconds`` and :meth:`DfrsRun.summary`;
* :mod:`~clustersched.dfrs.schedule` -- :class:`DfrsSchedule`, the segments;
* :mod:`~clustersched.dfrs.validate` -- :func:`validate_dfrs`, an independent check;
* :mod:`~clustersched.dfrs.metrics` -- :func:`dfrs_metrics` (stretch,
  degradation, preemptions, migrations, bandwidth, underutilization);
* :mod:`~clustersched.dfrs.timeseries` -- :func:`dfrs_timeseries` (CPU, memory,
  running and waiting jobs over time);
* :mod:`~clustersched.dfrs.bound` -- :func:`max_stretch_lower_bound` (Theorem 1);
* :mod:`~clustersched.dfrs.workloads` -- the HPC2N weeks and synthetic traces of §5.3;
* :mod:`~clustersched.dfrs.limits` -- every size and time limit, in one place;
* :mod:`~clustersched.dfrs.cli` -- ``clustersched dfrs``.

Time, sizes and limits
----------------------
The simulation of §5.1 is a discrete-event one on float64 seconds, and it
always advances: periodic events are ``t0 + k * period`` for an integer
``k`` that only grows, every event is later than the time stamp before it
(completions that round to the current time stamp are handled within it),
and the loop checks it.  Inputs whose times could not advance in float64, or
whose work would not end, are refused before any work, with an error naming
the limit (:mod:`~clustersched.dfrs.limits`): submit and processing times,
penalty and period of at most 10**10 s, a period of at least 1 ms, at most
10**6 periodic events per run, packing at most 10**9 tasks in all
(``simulate(..., max_periodic_events=, max_periodic_tasks=)``),
2**20 nodes and 2**20 tasks per job.  A job's value out of range raises
:class:`~clustersched.errors.InvalidWorkloadError` (its id, field and
value), an option :class:`~clustersched.errors.LimitError` (a
``ValueError``: ``"period == 1e-09, must be >= 0.001 s (...MIN_PERIOD)"``).
The simulator and the validator share one rounding rule (see
:mod:`~clustersched.dfrs.model`): a job's work may differ from its
processing time by 1e-6 of it plus 4 float64 steps of its completion time,
a node's CPU shares may add up to ``1 + 1e-9``.

Names of algorithms
-------------------
A DFRS name is a grammar (RR-7659 §4.5: what runs on a submission, ``*`` for
completions, ``per`` or ``stretch-per``, ``opt=``, ``minft=`` / ``minvt=``;
see :mod:`~clustersched.dfrs.algorithms`), so the registry cannot list every
valid name:

* :data:`ALGORITHMS` -- the paper's algorithms: the 116 of its study
  (Table 5), in canonical spelling, in Table 1's order;
* :func:`parse_algorithm` -- reads those and any other valid name into a
  :class:`DfrsAlgorithm` (whose ``name`` is the canonical spelling), or
  raises ``ValueError`` saying which part is wrong;
* :data:`BASELINES` -- ``"FCFS"`` and ``"EASY"`` (§5.2), which
  :func:`simulate` also accepts.

Options come after the inputs (jobs, platform, algorithm) and are
keyword-only (``penalty=``, ``period=``, ``validate=``, ``bound=``, ...); the
defaults of §5.1 are :data:`DEFAULT_PENALTY` and :data:`DEFAULT_PERIOD`.  A job
table without jobs raises :class:`~clustersched.errors.InvalidWorkloadError`
(a ``ValueError``) in :func:`simulate`, :func:`dfrs_metrics` and the validator.

Example
-------
>>> from clustersched.dfrs import DfrsJobs, DfrsPlatform, simulate, dfrs_metrics, max_stretch_lower_bound
>>> jobs = DfrsJobs(submit=[0, 10, 20], processing_time=[600, 60, 60], tasks=[2, 1, 1],
...                 cpu_need=[1.0, 1.0, 0.25], mem_need=[0.5, 0.6, 0.1])
>>> platform = DfrsPlatform(2)
>>> result = simulate(jobs, platform, "GreedyPM */per/opt=min/minvt=600")
>>> m = dfrs_metrics(result.schedule, jobs, platform, bound=max_stretch_lower_bound(jobs, platform))
>>> m.max_stretch >= m.bound >= 1
True

Names are imported on first use (see :mod:`clustersched._lazy`).
"""

from typing import TYPE_CHECKING

from .._lazy import lazy_exports

__all__ = [
    "ALGORITHMS",
    "BASELINES",
    "DEFAULT_PENALTY",
    "DEFAULT_PERIOD",
    "TABLE1",
    "DfrsAlgorithm",
    "DfrsJobs",
    "DfrsMetrics",
    "DfrsPlatform",
    "DfrsRun",
    "DfrsSchedule",
    "DfrsTimeSeries",
    "DfrsWorkload",
    "dfrs_metrics",
    "dfrs_timeseries",
    "dfrs_violations",
    "max_stretch_lower_bound",
    "parse_algorithm",
    "run",
    "simulate",
    "stretch_bound",
    "stretches",
    "validate_dfrs",
]

__getattr__, __dir__ = lazy_exports(
    __name__,
    {
        "DfrsJobs": ".model",
        "DfrsPlatform": ".model",
        "ALGORITHMS": ".algorithms",
        "BASELINES": ".algorithms",
        "TABLE1": ".algorithms",
        "DfrsAlgorithm": ".algorithms",
        "parse_algorithm": ".algorithms",
        "DEFAULT_PENALTY": ".algorithms",
        "DEFAULT_PERIOD": ".algorithms",
        "DfrsRun": ".result",
        "run": ".simulator",
        "simulate": ".simulator",
        "DfrsSchedule": ".schedule",
        "dfrs_violations": ".validate",
        "validate_dfrs": ".validate",
        "DfrsMetrics": ".metrics",
        "dfrs_metrics": ".metrics",
        "stretches": ".metrics",
        "DfrsTimeSeries": ".timeseries",
        "dfrs_timeseries": ".timeseries",
        "max_stretch_lower_bound": ".bound",
        "stretch_bound": ".bound",
        "DfrsWorkload": ".workloads",
    },
    public=__all__,
)

if TYPE_CHECKING:
    from .algorithms import (
        ALGORITHMS,
        BASELINES,
        DEFAULT_PENALTY,
        DEFAULT_PERIOD,
        TABLE1,
        DfrsAlgorithm,
        parse_algorithm,
    )
    from .bound import max_stretch_lower_bound, stretch_bound
    from .metrics import DfrsMetrics, dfrs_metrics, stretches
    from .model import DfrsJobs, DfrsPlatform
    from .result import DfrsRun
    from .schedule import DfrsSchedule
    from .simulator import simulate
    from .timeseries import DfrsTimeSeries, dfrs_timeseries
    from .validate import dfrs_violations, validate_dfrs
    from .workloads import DfrsWorkload
