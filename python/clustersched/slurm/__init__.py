"""Slurm's files: ``slurm.conf``, host lists, ``sacct -P`` dumps and the Slurm simulator's events.

Readers of the files a Slurm cluster produces, shared by every problem that
schedules on today's clusters: :func:`read_slurm_conf` gives the nodes and
partitions as a :class:`~clustersched.platform.NodeCluster`;
:func:`read_sacct` and :func:`read_slurm_events` give a
:class:`~clustersched.workload.JobTable` with its
:class:`~clustersched.workload.Requests`.  Names are imported on first use.
"""

from typing import TYPE_CHECKING

from .._lazy import lazy_exports

__all__ = [
    "SlurmConf",
    "compress_hostlist",
    "expand_hostlist",
    "parse_gres",
    "parse_slurm_time",
    "read_sacct",
    "read_slurm_conf",
    "read_slurm_events",
]

__getattr__, __dir__ = lazy_exports(
    __name__,
    {
        "SlurmConf": ".conf",
        "compress_hostlist": ".hostlist",
        "expand_hostlist": ".hostlist",
        "parse_gres": ".conf",
        "parse_slurm_time": ".conf",
        "read_sacct": ".sacct",
        "read_slurm_conf": ".conf",
        "read_slurm_events": ".events",
    },
    public=__all__,
)

if TYPE_CHECKING:
    from .conf import SlurmConf, parse_gres, parse_slurm_time, read_slurm_conf
    from .events import read_slurm_events
    from .hostlist import compress_hostlist, expand_hostlist
    from .sacct import read_sacct
