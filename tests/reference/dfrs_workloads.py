"""Slow, obviously-correct reference for the HPC2N processing of RR-7659 §5.3.1, one job at a time.

"job per-processor memory requirements were set as the maximum of either requested or used memory
as a fraction of the system memory of 2GB, to a minimum of 10%. [...] For jobs that required an
even number of processors and had a per-processor memory requirement less than 50% of the available
node memory, we assumed that the job used a number of multi-threaded tasks equal to half the number
of processors. In this case, we assume that each task has a CPU need of 100% [...] and the memory
requirement was doubled from its initial per-processor value. For jobs requiring an odd number of
processors or more than 50% of the available node memory per processor, we assumed that the number
of tasks was equal to the number of processors and that each of these tasks had a CPU need of 50%."
"""

from __future__ import annotations

import math

NODE_KB = 2 * 1024**2  # 2 GB in KB (SWF memory is in KB)
FLOOR = 0.1


def hpc2n_job(procs, mem_requested_kb, mem_used_kb, node_kb=NODE_KB, floor=FLOOR):
    """(tasks, cpu_need, mem_need) of one job; SWF marks an unknown memory value with -1."""
    known = [kb for kb in (mem_requested_kb, mem_used_kb) if kb >= 0]
    per_processor = max([floor] + [kb / node_kb for kb in known])
    if procs % 2 == 0 and per_processor < 0.5:
        return procs // 2, 1.0, 2 * per_processor
    return procs, 0.5, per_processor


def fits(tasks, mem_need, nodes):
    """Whether ``tasks`` tasks of memory ``mem_need`` fit on ``nodes`` empty nodes."""
    if mem_need > 1:
        return False
    return tasks <= nodes * math.floor(1 / mem_need)
