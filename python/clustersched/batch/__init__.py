"""Online scheduling of rigid jobs on a homogeneous cluster (FCFS, EASY, conservative, SJF, DPSA, your own).

One module per part, as in every problem folder:

* :mod:`~clustersched.batch.policies` -- the built-in policy names
  (:data:`ALGORITHMS`, looked up by :func:`policy`) and the
  :class:`Policy` interface for policies written in Python;
* :mod:`~clustersched.batch.simulator` -- :func:`simulate` (and :func:`run`, the
  problem contract's entry point), the event loop and its documented semantics;
* :mod:`~clustersched.batch.schedule` -- :class:`Schedule`, what a policy
  decided (numpy columns; ``to_pandas()``);
* :mod:`~clustersched.batch.formats` -- :func:`write_schedule`: a schedule as
  SWF, the Batsim/evalys jobs CSV, or CSV;
* :mod:`~clustersched.batch.validate` -- :func:`validate_batch`, an
  independent feasibility check;
* :mod:`~clustersched.batch.metrics` -- :func:`batch_metrics` (wait, bounded
  slowdown, utilization, makespan, their percentiles, per width and runtime
  class, with warm-up and cool-down trimmed);
* :mod:`~clustersched.batch.timeseries` -- :func:`batch_timeseries`
  (utilization, running and queued jobs, queued work over time);
* :mod:`~clustersched.batch.sweep` -- :func:`sweep`: policies x offered
  loads x replications, with 95% confidence intervals and the curves;
* :mod:`~clustersched.batch.cli` -- ``clustersched simulate | compare | lublin | sweep``.

Names are imported on first use (see :mod:`clustersched._lazy`).
"""

from typing import TYPE_CHECKING

from .._lazy import lazy_exports

__all__ = [
    "ALGORITHMS",
    "BUILTIN_POLICIES",
    "SCHEDULE_FORMATS",
    "BatchRun",
    "BatchMetrics",
    "BatchState",
    "BatchTimeSeries",
    "ClassMetrics",
    "Lublin",
    "Policy",
    "Schedule",
    "run",
    "SweepResult",
    "batch_metrics",
    "batch_timeseries",
    "batch_violations",
    "estimates_of",
    "policy",
    "schedule_table",
    "simulate",
    "sweep",
    "validate_batch",
    "write_batsim_jobs",
    "write_schedule",
    "write_schedule_csv",
    "write_schedule_swf",
]

__getattr__, __dir__ = lazy_exports(
    __name__,
    {
        "ALGORITHMS": ".policies",
        "BUILTIN_POLICIES": ".policies",
        "policy": ".policies",
        "BatchRun": ".simulator",
        "BatchState": ".policies",
        "Policy": ".policies",
        "run": ".simulator",
        "estimates_of": ".simulator",
        "simulate": ".simulator",
        "Schedule": ".schedule",
        "SCHEDULE_FORMATS": ".formats",
        "schedule_table": ".formats",
        "write_batsim_jobs": ".formats",
        "write_schedule": ".formats",
        "write_schedule_csv": ".formats",
        "write_schedule_swf": ".formats",
        "batch_violations": ".validate",
        "validate_batch": ".validate",
        "BatchMetrics": ".metrics",
        "batch_metrics": ".metrics",
        "ClassMetrics": ".metrics",
        "BatchTimeSeries": ".timeseries",
        "batch_timeseries": ".timeseries",
        "Lublin": ".sweep",
        "SweepResult": ".sweep",
        "sweep": ".sweep",
    },
    public=__all__,
)

if TYPE_CHECKING:
    from .formats import (
        SCHEDULE_FORMATS,
        schedule_table,
        write_batsim_jobs,
        write_schedule,
        write_schedule_csv,
        write_schedule_swf,
    )
    from .metrics import BatchMetrics, ClassMetrics, batch_metrics
    from .policies import ALGORITHMS, BUILTIN_POLICIES, BatchState, Policy, policy
    from .schedule import Schedule
    from .simulator import BatchRun, estimates_of, run, simulate
    from .sweep import Lublin, SweepResult, sweep
    from .timeseries import BatchTimeSeries, batch_timeseries
    from .validate import batch_violations, validate_batch
