"""clustersched: implement, simulate and compare cluster schedulers.

Quick start::

    import clustersched as cs
    jobs = cs.read_swf("HPC2N-2002-2.2-cln.swf.gz")
    result = cs.simulate(jobs, "easy")
    cs.validate_batch(result.schedule, result.jobs)
    print(cs.batch_metrics(result.schedule).summary())
"""

from . import campaign, errors, ptg, validate
from .batch import Policy, SimulationResult, simulate
from .errors import ClusterschedError, InfeasibleError, InvalidScheduleError, InvalidWorkloadError
from .metrics import BatchMetrics, batch_metrics
from .platform import CLUSTERS, Cluster, cluster
from .ptg import ALGORITHMS as PTG_ALGORITHMS
from .ptg import TaskSchedule, run_algorithm
from .schedule import Schedule
from .validate import validate_batch, validate_ptgs
from .workload import Dropped, JobTable, lublin_feitelson, read_swf, write_swf
from .workload.ptg import PTG, read_ptgs, write_ptgs

__version__ = "0.1.0"

__all__ = [
    "CLUSTERS",
    "PTG",
    "PTG_ALGORITHMS",
    "BatchMetrics",
    "Cluster",
    "ClusterschedError",
    "Dropped",
    "InfeasibleError",
    "InvalidScheduleError",
    "InvalidWorkloadError",
    "JobTable",
    "Policy",
    "Schedule",
    "SimulationResult",
    "TaskSchedule",
    "batch_metrics",
    "campaign",
    "cluster",
    "errors",
    "lublin_feitelson",
    "ptg",
    "read_ptgs",
    "read_swf",
    "run_algorithm",
    "simulate",
    "validate",
    "validate_batch",
    "validate_ptgs",
    "write_ptgs",
    "write_swf",
]
