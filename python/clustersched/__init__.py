"""clustersched: implement, simulate and compare cluster schedulers.

Quick start::

    import clustersched as cs
    jobs = cs.read_swf(cs.sample_trace())   # a bundled week of HPC2N; or any SWF file
    result = cs.simulate(jobs, "easy")
    cs.validate_batch(result.schedule, result.jobs)
    print(cs.batch_metrics(result.schedule).summary())
"""

from typing import TYPE_CHECKING

from ._lazy import lazy_exports
from .errors import ClusterschedError, InfeasibleError, InvalidScheduleError, InvalidWorkloadError

__version__ = "0.1.0"

# Where each public name lives.  They are imported on first use (PEP 562), so
# that ``import clustersched.cli`` and ``clustersched --help`` stay free of
# numpy, networkx and the campaign runner; the block under TYPE_CHECKING says
# the same for type checkers and editors.
__getattr__, __dir__ = lazy_exports(
    __name__,
    {
        "CLUSTERS": ".platform",
        "Cluster": ".platform",
        "cluster": ".platform",
        "Node": ".platform",
        "NodeCluster": ".platform",
        "Partition": ".platform",
        "read_sacct": ".slurm.sacct",
        "read_slurm_conf": ".slurm.conf",
        "Requests": ".workload.requests",
        "BatchMetrics": ".batch.metrics",
        "batch_metrics": ".batch.metrics",
        "Policy": ".batch.policies",
        "Schedule": ".batch.schedule",
        "BatchRun": ".batch.simulator",
        "simulate": ".batch.simulator",
        "sweep": ".batch.sweep",
        "validate_batch": ".batch.validate",
        "PTG_ALGORITHMS": ".ptg.algorithms:ALGORITHMS",
        "TaskSchedule": ".ptg.schedule",
        "validate_ptgs": ".ptg.validate",
        "Dropped": ".workload.jobs",
        "JobTable": ".workload.jobs",
        "lublin_feitelson": ".workload.lublin",
        "read_swf": ".workload.swf",
        "read_batsim": ".workload.batsim",
        "read_trace": ".workload.formats",
        "write_batsim": ".workload.batsim",
        "write_swf": ".workload.swf",
        "PTG": ".workload.ptg",
        "read_ptgs": ".workload.ptg",
        "write_ptgs": ".workload.ptg",
        "sample_trace": ".workload.samples",
    },
    # dir(clustersched) lists these submodules too, imported or not (see _lazy.lazy_exports)
    public=["batch", "campaign", "dfrs", "errors", "grid", "ptg", "scrap", "slurm", "validate", "workload"],
)

if TYPE_CHECKING:
    from . import campaign, errors, ptg, slurm, validate
    from .batch import BatchRun, Policy, simulate
    from .batch.metrics import BatchMetrics, batch_metrics
    from .batch.schedule import Schedule
    from .batch.sweep import sweep
    from .batch.validate import validate_batch
    from .platform import CLUSTERS, Cluster, Node, NodeCluster, Partition, cluster
    from .ptg import ALGORITHMS as PTG_ALGORITHMS
    from .ptg import TaskSchedule
    from .ptg.validate import validate_ptgs
    from .slurm.conf import read_slurm_conf
    from .slurm.sacct import read_sacct
    from .workload import (
        Dropped,
        JobTable,
        lublin_feitelson,
        read_batsim,
        read_swf,
        read_trace,
        write_batsim,
        write_swf,
    )
    from .workload.ptg import PTG, read_ptgs, write_ptgs
    from .workload.requests import Requests
    from .workload.samples import sample_trace

__all__ = [
    "CLUSTERS",
    "PTG",
    "PTG_ALGORITHMS",
    "BatchMetrics",
    "BatchRun",
    "Cluster",
    "ClusterschedError",
    "Dropped",
    "InfeasibleError",
    "InvalidScheduleError",
    "InvalidWorkloadError",
    "JobTable",
    "Node",
    "NodeCluster",
    "Partition",
    "Policy",
    "Requests",
    "Schedule",
    "TaskSchedule",
    "batch_metrics",
    "campaign",
    "cluster",
    "errors",
    "lublin_feitelson",
    "ptg",
    "read_batsim",
    "read_ptgs",
    "read_sacct",
    "read_slurm_conf",
    "read_swf",
    "read_trace",
    "sample_trace",
    "simulate",
    "slurm",
    "sweep",
    "validate",
    "validate_batch",
    "validate_ptgs",
    "write_batsim",
    "write_ptgs",
    "write_swf",
]
