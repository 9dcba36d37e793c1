"""clustersched: implement, simulate and compare cluster schedulers."""

from . import errors
from .errors import ClusterschedError, InfeasibleError, InvalidScheduleError, InvalidWorkloadError
from .workload import JobTable

__all__ = [
    "ClusterschedError",
    "InfeasibleError",
    "InvalidScheduleError",
    "InvalidWorkloadError",
    "JobTable",
    "errors",
]
