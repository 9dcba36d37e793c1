"""The workload bundled with the package (``clustersched/data/``): a week of HPC2N-2002.

It imports neither numpy nor the readers, so that the command line can name it in its defaults.
"""

from __future__ import annotations

from pathlib import Path

__all__ = ["SAMPLE", "sample_trace"]

#: The bundled default workload: one week of the cleaned HPC2N-2002 trace.
SAMPLE = "hpc2n-2002-week.swf.gz"


def sample_trace() -> Path:
    """Path of the bundled sample trace: one week of HPC2N-2002, 2,406 jobs on 240 processors.

    See ``clustersched/data/README.md``.  Also ``clustersched.sample_trace()``.

    Examples
    --------
    >>> sample_trace().name
    'hpc2n-2002-week.swf.gz'
    """
    from importlib import resources

    return Path(str(resources.files("clustersched") / "data" / SAMPLE))
