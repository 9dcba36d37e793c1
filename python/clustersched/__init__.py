"""clustersched: implement, simulate and compare cluster schedulers.

Quick start::

    import clustersched as cs
    jobs = cs.read_swf("HPC2N-2002-2.2-cln.swf.gz")
    result = cs.simulate(jobs, "easy")
    cs.validate_batch(result.schedule, result.jobs)
    print(cs.batch_metrics(result.schedule).summary())
"""

from . import campaign, errors, validate
from .batch import Policy, SimulationResult, simulate
from .errors import ClusterschedError, InfeasibleError, InvalidScheduleError, InvalidWorkloadError
from .metrics import BatchMetrics, batch_metrics
from .schedule import Schedule
from .validate import validate_batch
from .workload import Dropped, JobTable, lublin_feitelson, read_swf, write_swf

__version__ = "0.1.0"

__all__ = [
    "BatchMetrics",
    "ClusterschedError",
    "Dropped",
    "InfeasibleError",
    "InvalidScheduleError",
    "InvalidWorkloadError",
    "JobTable",
    "Policy",
    "Schedule",
    "SimulationResult",
    "batch_metrics",
    "campaign",
    "errors",
    "lublin_feitelson",
    "read_swf",
    "simulate",
    "validate",
    "validate_batch",
    "write_swf",
]
