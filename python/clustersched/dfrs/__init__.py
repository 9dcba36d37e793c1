"""Dynamic Fractional Resource Scheduling (Casanova, Stillwell & Vivien, INRIA RR-7659, 2011).

Jobs of identical tasks share cluster nodes through VMs: memory is never
over-committed, CPU is shared fractionally, jobs may be paused, resumed and
migrated (at a rescheduling penalty), and the scheduler does not know how
long a job runs.

* :mod:`~clustersched.dfrs.model` -- :class:`DfrsJobs`, :class:`DfrsPlatform`.

Names are imported on first use (see :mod:`clustersched._lazy`).
"""

from typing import TYPE_CHECKING

from .._lazy import lazy_exports

__all__ = [
    "DfrsJobs",
    "DfrsPlatform",
]

__getattr__, __dir__ = lazy_exports(
    __name__,
    {
        "DfrsJobs": ".model",
        "DfrsPlatform": ".model",
    },
    public=__all__,
)

if TYPE_CHECKING:
    from .model import DfrsJobs, DfrsPlatform
