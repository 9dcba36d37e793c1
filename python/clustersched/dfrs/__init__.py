"""Dynamic Fractional Resource Scheduling (Casanova, Stillwell & Vivien, INRIA RR-7659, 2011).

Jobs of identical tasks share cluster nodes through VMs: memory is never
over-committed, CPU is shared fractionally, jobs may be paused, resumed and
migrated (at a rescheduling penalty), and the scheduler does not know how
long a job runs.  One module per part, as in every problem folder:

* :mod:`~clustersched.dfrs.model` -- :class:`DfrsJobs`, :class:`DfrsPlatform`;
* :mod:`~clustersched.dfrs.algorithms` -- the algorithms of Table 1 by name
  (:func:`parse`, :data:`PAPER_ALGORITHMS`), e.g.
  ``"GreedyPM */per/opt=min/minvt=600"``;
* :mod:`~clustersched.dfrs.simulator` -- :func:`simulate`, the event loop and
  its documented semantics (the node state and packing run in Rust;
  :mod:`~clustersched.dfrs.recording` writes the segments down);
* :mod:`~clustersched.dfrs.baselines` -- FCFS and EASY on whole nodes (§5.2);
* :mod:`~clustersched.dfrs.run` -- :class:`DfrsRun` (alias ``DfrsResult``), what
  :func:`simulate` returns: the schedule, the canonical name, the wall-clock
  ``seconds`` and :meth:`DfrsRun.summary`;
* :mod:`~clustersched.dfrs.schedule` -- :class:`DfrsSchedule`, the segments;
* :mod:`~clustersched.dfrs.validate` -- :func:`validate_dfrs`, an independent check;
* :mod:`~clustersched.dfrs.metrics` -- :func:`dfrs_metrics` (stretch,
  degradation, preemptions, migrations, bandwidth, underutilization);
* :mod:`~clustersched.dfrs.bound` -- :func:`max_stretch_lower_bound` (Theorem 1);
* :mod:`~clustersched.dfrs.workloads` -- the HPC2N weeks and synthetic traces of §5.3;
* :mod:`~clustersched.dfrs.cli` -- ``clustersched dfrs``.

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
    "BASELINES",
    "DEFAULT_PENALTY",
    "DEFAULT_PERIOD",
    "PAPER_ALGORITHMS",
    "TABLE1",
    "DfrsAlgorithm",
    "DfrsJobs",
    "DfrsMetrics",
    "DfrsPlatform",
    "DfrsResult",
    "DfrsRun",
    "DfrsSchedule",
    "DfrsWorkload",
    "dfrs_metrics",
    "dfrs_violations",
    "max_stretch_lower_bound",
    "parse",
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
        "BASELINES": ".algorithms",
        "PAPER_ALGORITHMS": ".algorithms",
        "TABLE1": ".algorithms",
        "DfrsAlgorithm": ".algorithms",
        "parse": ".algorithms",
        "DEFAULT_PENALTY": ".algorithms",
        "DEFAULT_PERIOD": ".algorithms",
        "DfrsResult": ".run",
        "DfrsRun": ".run",
        "simulate": ".simulator",
        "DfrsSchedule": ".schedule",
        "dfrs_violations": ".validate",
        "validate_dfrs": ".validate",
        "DfrsMetrics": ".metrics",
        "dfrs_metrics": ".metrics",
        "stretches": ".metrics",
        "max_stretch_lower_bound": ".bound",
        "stretch_bound": ".bound",
        "DfrsWorkload": ".workloads",
    },
    public=__all__,
)

if TYPE_CHECKING:
    from .algorithms import BASELINES, DEFAULT_PENALTY, DEFAULT_PERIOD, PAPER_ALGORITHMS, TABLE1, DfrsAlgorithm, parse
    from .bound import max_stretch_lower_bound, stretch_bound
    from .metrics import DfrsMetrics, dfrs_metrics, stretches
    from .model import DfrsJobs, DfrsPlatform
    from .run import DfrsResult, DfrsRun
    from .schedule import DfrsSchedule
    from .simulator import simulate
    from .validate import dfrs_violations, validate_dfrs
    from .workloads import DfrsWorkload
